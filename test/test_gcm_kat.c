/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_gcm_kat.c — known-answer tests from BoringSSL's aes_{128,192,256}_gcm_tests.txt
 * (folder: the MBGCM_VECTORS_DIR compile definition; the environment variable of the same name
 * overrides it). A missing folder or file fails the suite.
 *
 * For every record and every arch this machine supports (forced through the one-shot test
 * hook, with the key expanded by that arch and checked byte-identical to mbgcm_key_init's):
 *   - encrypt out of place and in place gives CT and TAG, decrypt out of place and in place
 *     gives IN;
 *   - every tag length (4, 8, 12..16): encrypt writes exactly the prefix, decrypt with the
 *     prefix succeeds, a one-bit change of the prefix fails;
 *   - one flipped bit in the tag, the ciphertext, the AAD or the IV (where non-empty) gives
 *     MBGCM_ERR_AUTH with every output byte zero (the buffer was prefilled non-zero).
 * The McGrew-Viega records (the test cases of the original GCM specification) run as their
 * own group; the record counts are asserted (146 records, 18 McGrew-Viega).
 */
#include "test_util.h"

#define EXPECT_TOTAL 146
#define EXPECT_MV 18

struct rec {
    int line;
    uint8_t *f[6]; /* KEY NONCE IN AD CT TAG */
    size_t n[6];
    int mv; /* McGrew-Viega test case number 1..6 within its key size, or 0 */
};
enum { F_KEY, F_NONCE, F_IN, F_AD, F_CT, F_TAG, F_COUNT };
static const char *const field_names[F_COUNT] = {"KEY", "NONCE", "IN", "AD", "CT", "TAG"};

struct vfile {
    const char *name;
    size_t key_len;
    int expect; /* records in the file */
    struct rec *recs;
    int n;
    int loaded;
};
static struct vfile files[3] = {
    {"aes_128_gcm_tests.txt", 16, 74, NULL, 0, 0},
    {"aes_192_gcm_tests.txt", 24, 6, NULL, 0, 0},
    {"aes_256_gcm_tests.txt", 32, 66, NULL, 0, 0},
};
static char orders_seen[8][64];
static int n_orders;

static const char *vectors_dir(void)
{
    const char *e = getenv("MBGCM_VECTORS_DIR");
    return (e != NULL && e[0] != '\0') ? e : MBGCM_VECTORS_DIR;
}

/* ---- McGrew-Viega identification by content ------------------------------------------- */
static const char mv_p64[] =
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449"
    "a6b525b16aedf5aa0de657ba637b391aafd255";
static const char mv_a20[] = "feedfacedeadbeeffeedfacedeadbeefabaddad2";
static const char mv_iv60[] =
    "9313225df88406e555909c5aff5269aa6a7a9538534f7da1e4c303d2a318a728c3c0c95156809539fcf0e2429a"
    "6b525416aedbf5a0de6a57a637b39b";

static int hex_is(const uint8_t *b, size_t n, const char *hex, size_t hex_bytes)
{
    uint8_t tmp[128];
    if (n != hex_bytes || n > sizeof tmp) {
        return 0;
    }
    if (tu_hex_decode(hex, 2 * n, tmp) != 0) {
        fail_msg("bad built-in hex");
    }
    return memcmp(tmp, b, n) == 0;
}

/* The six test cases per key size of McGrew & Viega, "The Galois/Counter Mode of Operation",
   appendix B: key 0 (cases 1, 2) or the feffe992... key (3..6), with their exact IV, P, A. */
static int mv_case(const struct rec *r)
{
    static const uint8_t zero[64];
    static const char fe[] = "feffe9928665731c6d6a8f9467308308";
    const uint8_t *k = r->f[F_KEY], *iv = r->f[F_NONCE], *p = r->f[F_IN], *a = r->f[F_AD];
    const size_t kl = r->n[F_KEY], ivl = r->n[F_NONCE], pl = r->n[F_IN], al = r->n[F_AD];
    int key_zero = memcmp(k, zero, kl) == 0, key_fe = 1;
    for (size_t i = 0; i < kl; i++) {
        uint8_t b;
        tu_hex_decode(fe + 2 * (i % 16), 2, &b);
        key_fe &= k[i] == b;
    }
    if (key_zero && ivl == 12 && memcmp(iv, zero, 12) == 0 && al == 0) {
        if (pl == 0) return 1;
        if (pl == 16 && memcmp(p, zero, 16) == 0) return 2;
        return 0;
    }
    if (!key_fe) {
        return 0;
    }
    const int p64 = hex_is(p, pl, mv_p64, 64), p60 = pl == 60 && hex_is(p, 60, mv_p64, 60);
    const int a20 = hex_is(a, al, mv_a20, 20);
    if (hex_is(iv, ivl, "cafebabefacedbaddecaf888", 12)) {
        if (p64 && al == 0) return 3;
        if (p60 && a20) return 4;
        return 0;
    }
    if (hex_is(iv, ivl, "cafebabefacedbad", 8) && p60 && a20) return 5;
    if (hex_is(iv, ivl, mv_iv60, 60) && p60 && a20) return 6;
    return 0;
}

/* ---- parser ----------------------------------------------------------------------------- */
static void finish_record(struct vfile *vf, struct rec *cur, int *have, char *order,
                          const char *path)
{
    for (int i = 0; i < F_COUNT; i++) {
        if (!have[i]) {
            fail_msg("%s:%d: record lacks %s", path, cur->line, field_names[i]);
        }
    }
    if (cur->n[F_KEY] != vf->key_len) {
        fail_msg("%s:%d: key is %zu bytes", path, cur->line, cur->n[F_KEY]);
    }
    if (cur->n[F_CT] != cur->n[F_IN] || cur->n[F_TAG] != 16 || cur->n[F_NONCE] == 0) {
        fail_msg("%s:%d: inconsistent lengths", path, cur->line);
    }
    cur->mv = mv_case(cur);
    int known = 0;
    for (int i = 0; i < n_orders; i++) {
        known |= strcmp(orders_seen[i], order) == 0;
    }
    if (!known) {
        if (n_orders == 8) {
            fail_msg("too many field orders");
        }
        strcpy(orders_seen[n_orders++], order);
    }
    vf->recs = realloc(vf->recs, (size_t)(vf->n + 1) * sizeof *vf->recs);
    if (vf->recs == NULL) {
        fail_msg("out of memory");
    }
    vf->recs[vf->n++] = *cur;
}

static void load_file(struct vfile *vf)
{
    if (vf->loaded) {
        return;
    }
    free(vf->recs); /* a previous attempt may have failed half-way */
    vf->recs = NULL;
    vf->n = 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", vectors_dir(), vf->name);
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        fail_msg("cannot open vector file %s (set MBGCM_VECTORS_DIR)", path);
    }
    static char line[1 << 16];
    struct rec cur;
    int have[F_COUNT] = {0}, nf = 0, lineno = 0;
    char order[64] = "";
    memset(&cur, 0, sizeof cur);
    for (;;) {
        char *s = fgets(line, sizeof line, fp);
        if (s != NULL) {
            lineno++;
            size_t l = strlen(s);
            if (l == sizeof line - 1 && s[l - 1] != '\n') {
                fail_msg("%s:%d: line too long", path, lineno);
            }
            while (l && (s[l - 1] == '\n' || s[l - 1] == '\r' || s[l - 1] == ' ' ||
                         s[l - 1] == '\t')) {
                s[--l] = '\0';
            }
            if (s[0] == '#') {
                continue;
            }
            if (l > 0) {
                char *colon = strchr(s, ':');
                if (colon == NULL) {
                    fail_msg("%s:%d: not a field: %s", path, lineno, s);
                }
                *colon = '\0';
                int fi = -1;
                for (int i = 0; i < F_COUNT; i++) {
                    if (strcmp(s, field_names[i]) == 0) fi = i;
                }
                if (fi < 0) {
                    fail_msg("%s:%d: unknown field %s", path, lineno, s);
                }
                if (have[fi]) {
                    fail_msg("%s:%d: duplicate field %s", path, lineno, s);
                }
                if (nf == 0) {
                    cur.line = lineno;
                }
                char *v = colon + 1;
                while (*v == ' ' || *v == '\t') v++;
                if (strcmp(v, "\"\"") == 0) {
                    v[0] = '\0';
                }
                const size_t vl = strlen(v);
                cur.n[fi] = vl / 2;
                cur.f[fi] = tu_xmalloc(vl / 2);
                if (tu_hex_decode(v, vl, cur.f[fi]) != 0) {
                    fail_msg("%s:%d: bad hex in %s", path, lineno, field_names[fi]);
                }
                have[fi] = 1;
                nf++;
                strcat(order, field_names[fi]);
                strcat(order, ",");
                continue;
            }
        }
        /* blank line or end of file: close the record, if any */
        if (nf > 0) {
            finish_record(vf, &cur, have, order, path);
            memset(&cur, 0, sizeof cur);
            memset(have, 0, sizeof have);
            nf = 0;
            order[0] = '\0';
        }
        if (s == NULL) {
            break;
        }
    }
    if (ferror(fp)) {
        fail_msg("read error on %s", path);
    }
    fclose(fp);
    vf->loaded = 1;
}

static void load_all(void)
{
    for (int i = 0; i < 3; i++) {
        load_file(&files[i]);
    }
}

/* ---- checks ----------------------------------------------------------------------------- */
static uint64_t checked[2][MBGCMI_MAX_ARCHES]; /* [mv][arch] */

#define PREFILL 0xA5

static void expect_auth_fail(const mbgcm_key *k, const uint8_t *iv, size_t ivl, const uint8_t *ad,
                             size_t adl, const uint8_t *ct, size_t len, const uint8_t *tag,
                             size_t tl, const char *what, const char *ctx)
{
    uint8_t *out = tu_xmalloc(len);
    memset(out, PREFILL, len);
    int st = mbgcm_decrypt(k, iv, ivl, ad, adl, ct, len, out, tag, tl);
    TU_CHECK(st == MBGCM_ERR_AUTH, "%s: tampered %s (out of place): status %d", ctx, what, st);
    TU_CHECK(tu_all_byte(out, len, 0), "%s: tampered %s: output not zeroed", ctx, what);
    memcpy(out, ct, len); /* in place: the ciphertext is wiped too */
    st = mbgcm_decrypt(k, iv, ivl, ad, adl, out, len, out, tag, tl);
    TU_CHECK(st == MBGCM_ERR_AUTH, "%s: tampered %s (in place): status %d", ctx, what, st);
    TU_CHECK(tu_all_byte(out, len, 0), "%s: tampered %s in place: output not zeroed", ctx,
             what);
    free(out);
}

static void check_record(const char *fname, const struct rec *r, int arch)
{
    char ctx[160];
    snprintf(ctx, sizeof ctx, "%s:%d arch=%s", fname, r->line, tu_arch_name(arch));
    const uint8_t *key = r->f[F_KEY], *iv = r->f[F_NONCE], *pt = r->f[F_IN], *ad = r->f[F_AD],
                  *ct = r->f[F_CT], *tag = r->f[F_TAG];
    const size_t kl = r->n[F_KEY], ivl = r->n[F_NONCE], len = r->n[F_IN], adl = r->n[F_AD];

    mbgcm_key kref, k;
    assert_int_equal(mbgcm_key_init(&kref, key, kl), MBGCM_OK);
    mbgcmi_key_expand(&k, key, kl, tu_arch(arch));
    TU_MEM_EQ(&k, &kref, sizeof k, "%s: key expanded by this arch differs from key_init's", ctx);
    tu_set_oneshot_arch(arch);

    uint8_t *out = tu_xmalloc(len), *buf = tu_xmalloc(len);
    uint8_t t[16], t2[16];

    /* encrypt, out of place and in place */
    memset(out, PREFILL, len);
    TU_CHECK(mbgcm_encrypt(&k, iv, ivl, ad, adl, pt, len, out, t, 16) == MBGCM_OK, "%s", ctx);
    TU_MEM_EQ(out, ct, len, "%s: ciphertext", ctx);
    TU_MEM_EQ(t, tag, 16, "%s: tag", ctx);
    memcpy(buf, pt, len);
    TU_CHECK(mbgcm_encrypt(&k, iv, ivl, ad, adl, buf, len, buf, t2, 16) == MBGCM_OK, "%s",
             ctx);
    TU_MEM_EQ(buf, ct, len, "%s: ciphertext in place", ctx);
    TU_MEM_EQ(t2, tag, 16, "%s: tag in place", ctx);

    /* NULL for empty AAD / text is allowed */
    if (adl == 0 || len == 0) {
        memset(t2, 0, sizeof t2);
        TU_CHECK(mbgcm_encrypt(&k, iv, ivl, adl ? ad : NULL, adl, len ? pt : NULL, len,
                               len ? out : NULL, t2, 16) == MBGCM_OK,
                 "%s: NULL for empty buffers", ctx);
        TU_MEM_EQ(t2, tag, 16, "%s: tag with NULL empty buffers", ctx);
        TU_CHECK(mbgcm_decrypt(&k, iv, ivl, adl ? ad : NULL, adl, len ? ct : NULL, len,
                               len ? out : NULL, tag, 16) == MBGCM_OK,
                 "%s: decrypt with NULL for empty buffers", ctx);
    }

    /* decrypt, out of place and in place */
    memset(out, PREFILL, len);
    TU_CHECK(mbgcm_decrypt(&k, iv, ivl, ad, adl, ct, len, out, tag, 16) == MBGCM_OK,
             "%s: decrypt", ctx);
    TU_MEM_EQ(out, pt, len, "%s: plaintext", ctx);
    memcpy(buf, ct, len);
    TU_CHECK(mbgcm_decrypt(&k, iv, ivl, ad, adl, buf, len, buf, tag, 16) == MBGCM_OK,
             "%s: decrypt in place", ctx);
    TU_MEM_EQ(buf, pt, len, "%s: plaintext in place", ctx);

    /* truncated tags */
    static const size_t tls[] = {4, 8, 12, 13, 14, 15, 16};
    for (size_t i = 0; i < sizeof tls / sizeof tls[0]; i++) {
        const size_t tl = tls[i];
        uint8_t tt[16];
        memset(tt, 0xEE, sizeof tt);
        TU_CHECK(mbgcm_encrypt(&k, iv, ivl, ad, adl, pt, len, out, tt, tl) == MBGCM_OK,
                 "%s: tag_len %zu", ctx, tl);
        TU_MEM_EQ(out, ct, len, "%s: ciphertext with tag_len %zu", ctx, tl);
        TU_MEM_EQ(tt, tag, tl, "%s: tag prefix %zu", ctx, tl);
        TU_CHECK(tu_all_byte(tt + tl, 16 - tl, 0xEE), "%s: tag_len %zu wrote past the tag", ctx,
                 tl);
        memset(out, PREFILL, len);
        TU_CHECK(mbgcm_decrypt(&k, iv, ivl, ad, adl, ct, len, out, tag, tl) == MBGCM_OK,
                 "%s: decrypt with tag prefix %zu", ctx, tl);
        TU_MEM_EQ(out, pt, len, "%s: plaintext with tag prefix %zu", ctx, tl);
        for (int side = 0; side < 2; side++) { /* first bit of the prefix, last bit */
            memcpy(tt, tag, 16);
            tt[side ? tl - 1 : 0] ^= side ? 0x01 : 0x80;
            expect_auth_fail(&k, iv, ivl, ad, adl, ct, len, tt, tl, "tag prefix", ctx);
        }
    }

    /* one flipped bit anywhere: tag, ciphertext, AAD, IV */
    for (int side = 0; side < 2; side++) {
        const uint8_t m = side ? 0x01 : 0x80;
        uint8_t tt[16];
        memcpy(tt, tag, 16);
        tt[side ? 15 : 0] ^= m;
        expect_auth_fail(&k, iv, ivl, ad, adl, ct, len, tt, 16, "tag", ctx);
        if (len) {
            uint8_t *c2 = tu_xmalloc(len);
            memcpy(c2, ct, len);
            c2[side ? len - 1 : 0] ^= m;
            expect_auth_fail(&k, iv, ivl, ad, adl, c2, len, tag, 16, "ciphertext", ctx);
            free(c2);
        }
        if (adl) {
            uint8_t *a2 = tu_xmalloc(adl);
            memcpy(a2, ad, adl);
            a2[side ? adl - 1 : 0] ^= m;
            expect_auth_fail(&k, iv, ivl, a2, adl, ct, len, tag, 16, "aad", ctx);
            free(a2);
        }
        uint8_t *i2 = tu_xmalloc(ivl);
        memcpy(i2, iv, ivl);
        i2[side ? ivl - 1 : 0] ^= m;
        expect_auth_fail(&k, i2, ivl, ad, adl, ct, len, tag, 16, "iv", ctx);
        free(i2);
    }
    free(out);
    free(buf);
    mbgcm_key_wipe(&k);
    mbgcm_key_wipe(&kref);
    checked[r->mv != 0][arch]++;
}

static void run_file(int fi, int mv_group)
{
    load_all();
    const struct vfile *vf = &files[fi];
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    int n = 0;
    for (int i = 0; i < vf->n; i++) {
        if ((vf->recs[i].mv != 0) != mv_group) {
            continue;
        }
        for (int j = 0; j < na; j++) {
            check_record(vf->name, &vf->recs[i], arches[j]);
        }
        n++;
    }
    print_message("%s: %d %s records x %d arches\n", vf->name, n,
                  mv_group ? "McGrew-Viega" : "other", na);
    /* every file holds the six McGrew-Viega cases of its key size; the rest are others */
    assert_int_equal(n, mv_group ? 6 : vf->expect - 6);
}

static void kat_128(void **state) { (void)state; run_file(0, 0); }
static void kat_192(void **state) { (void)state; run_file(1, 0); }
static void kat_256(void **state) { (void)state; run_file(2, 0); }
static void mv_128(void **state) { (void)state; run_file(0, 1); }
static void mv_192(void **state) { (void)state; run_file(1, 1); }
static void mv_256(void **state) { (void)state; run_file(2, 1); }

static void record_counts(void **state)
{
    (void)state;
    load_all();
    int total = 0;
    for (int i = 0; i < 3; i++) {
        print_message("%s: %d records\n", files[i].name, files[i].n);
        assert_int_equal(files[i].n, files[i].expect);
        total += files[i].n;
    }
    print_message("total %d records, %d field orders\n", total, n_orders);
    assert_int_equal(total, EXPECT_TOTAL);
    assert_int_equal(n_orders, 3); /* the README: three orders occur */
    /* IV lengths the README lists: 137 x 12 bytes, others 8, 16, 60, 64 */
    int iv12 = 0, ivother = 0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < files[i].n; j++) {
            const size_t l = files[i].recs[j].n[F_NONCE];
            if (l == 12) {
                iv12++;
            } else {
                assert_true(l == 8 || l == 16 || l == 60 || l == 64);
                ivother++;
            }
        }
    }
    assert_int_equal(iv12, 137);
    assert_int_equal(ivother, 9);
}

static void mv_counts(void **state)
{
    (void)state;
    load_all();
    int total = 0, found_58e2 = 0;
    for (int i = 0; i < 3; i++) {
        int seen[7] = {0}, n = 0;
        for (int j = 0; j < files[i].n; j++) {
            const struct rec *r = &files[i].recs[j];
            if (r->mv) {
                seen[r->mv]++;
                n++;
                if (r->n[F_KEY] == 16 && r->mv == 1) {
                    found_58e2 |= hex_is(r->f[F_TAG], 16, "58e2fccefa7e3061367f1d57a4e7455a", 16);
                }
            }
        }
        print_message("%s: %d McGrew-Viega records (test cases %d..%d)\n", files[i].name, n,
                      6 * i + 1, 6 * i + 6);
        for (int c = 1; c <= 6; c++) {
            TU_CHECK(seen[c] == 1, "%s: McGrew-Viega case %d found %d times", files[i].name, c,
                     seen[c]);
        }
        total += n;
    }
    print_message("McGrew-Viega records found: %d\n", total);
    assert_int_equal(total, EXPECT_MV);
    assert_true(found_58e2);
}

int main(void)
{
    tu_seed();
    printf("vectors: %s\n", vectors_dir());
    const struct CMUnitTest kat[] = {
        cmocka_unit_test(record_counts),
        cmocka_unit_test(kat_128),
        cmocka_unit_test(kat_192),
        cmocka_unit_test(kat_256),
    };
    const struct CMUnitTest mv[] = {
        cmocka_unit_test(mv_counts),
        cmocka_unit_test(mv_128),
        cmocka_unit_test(mv_192),
        cmocka_unit_test(mv_256),
    };
    int fails = cmocka_run_group_tests_name("gcm_kat_boringssl", kat, NULL, NULL);
    fails += cmocka_run_group_tests_name("gcm_kat_mcgrew_viega", mv, NULL, NULL);
    tu_print_arch_counts("records checked (other)", checked[0]);
    tu_print_arch_counts("records checked (McGrew-Viega)", checked[1]);
    return fails ? 1 : 0;
}
