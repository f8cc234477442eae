/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_kat.c — Cobblestone known answers from test/data/cobble/kat.txt, which
 * test/data/cobble/gen_kat.py computed without mbgcm (HKDF-SHA-512 in Python's hmac, AES-GCM
 * by a small OpenSSL EVP program):
 *   derive  the key schedule, through both of the library's HKDF paths (EVP_KDF and the
 *           EVP_MAC chain) and the OpenSSL reference in test_cobble_common.c;
 *   chunk   single chunks at indices up to 2^38-1 (the nonce XOR), through a manager of
 *           every supported arch;
 *   raw     raw mode (hazmat) seal and open of whole chunk sequences, 1 and 2 threads;
 *   sealed  whole messages: header + raw body hash to the answer; open, streaming open and
 *           the reader give the plaintext back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_cobble_common.h"

#ifndef MBGCM_COBBLE_KAT
#error "MBGCM_COBBLE_KAT (path of kat.txt) must be defined"
#endif

/* A value of a record: hex, "-" (empty) or "pat:N:S". Returns a malloc'd buffer. */
static uint8_t *value(const char *rec, const char *name, size_t *len)
{
    char key[32];
    snprintf(key, sizeof key, " %s=", name);
    const char *p = strstr(rec, key);
    TU_CHECK(p != NULL, "field %s missing in: %.80s", name, rec);
    p += strlen(key);
    const size_t n = strcspn(p, " \n");
    if (n == 1 && p[0] == '-') {
        *len = 0;
        return tu_xmalloc(1);
    }
    if (strncmp(p, "pat:", 4) == 0) {
        unsigned long cnt, seed;
        TU_CHECK(sscanf(p, "pat:%lu:%lu", &cnt, &seed) == 2, "bad pattern %.40s", p);
        uint8_t *b = tu_xmalloc(cnt);
        tc_pat(b, cnt, (unsigned)seed);
        *len = cnt;
        return b;
    }
    uint8_t *b = tu_xmalloc(n / 2 + 1);
    TU_CHECK(tu_hex_decode(p, n, b) == 0, "bad hex in field %s", name);
    *len = n / 2;
    return b;
}

static char **records(const char *kind, size_t *count)
{
    FILE *f = fopen(MBGCM_COBBLE_KAT, "r");
    TU_CHECK(f != NULL, "cannot open %s", MBGCM_COBBLE_KAT);
    static char line[200000];
    char **out = NULL;
    size_t n = 0;
    const size_t kl = strlen(kind);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, kind, kl) == 0 && line[kl] == ' ') {
            out = realloc(out, (n + 1) * sizeof *out);
            out[n++] = strdup(line);
        }
    }
    fclose(f);
    TU_CHECK(n > 0, "no %s records in %s", kind, MBGCM_COBBLE_KAT);
    *count = n;
    return out;
}

static void free_records(char **r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(r[i]);
    }
    free(r);
}

static void test_derive(void **state)
{
    (void)state;
    size_t n;
    char **recs = records("derive", &n);
    for (size_t i = 0; i < n; i++) {
        size_t kl, sl, cl, al, nl, ml;
        uint8_t *key = value(recs[i], "key", &kl), *salt = value(recs[i], "salt", &sl);
        uint8_t *ctx = value(recs[i], "context", &cl), *ak = value(recs[i], "aes_key", &al);
        uint8_t *nonce = value(recs[i], "nonce", &nl), *commit = value(recs[i], "commitment", &ml);
        TU_CHECK(sl == 24 && al == kl && nl == 12 && ml == 32, "record %zu shape", i);
        uint8_t want[76], got[76];
        memcpy(want, ak, kl);
        memcpy(want + kl, nonce, 12);
        memcpy(want + kl + 12, commit, 32);
        for (int force_hmac = 0; force_hmac < 2; force_hmac++) {
            memset(got, 0, sizeof got);
            assert_int_equal(mbgcmi_cob_derive(key, kl, salt, ctx, cl, force_hmac, got), MBGCM_OK);
            TU_MEM_EQ(got, want, kl + 44, "derive record %zu (context %zu bytes, %s path)", i, cl,
                      force_hmac ? "HMAC" : "default");
        }
        if (72 + cl <= 30000) { /* the OpenSSL reference's HKDF caps its info */
            tc_ref_derive(key, kl, salt, ctx, cl, got, got + kl, got + kl + 12);
            TU_MEM_EQ(got, want, kl + 44, "reference derive, record %zu", i);
        }
        free(key), free(salt), free(ctx), free(ak), free(nonce), free(commit);
    }
    free_records(recs, n);
}

static void test_chunk(void **state)
{
    (void)state;
    size_t n;
    char **recs = records("chunk", &n);
    const char *arches[5];
    const int na = tc_arches(arches, NULL);
    struct mbgcmi_cob_keys *k = aligned_alloc(64, sizeof *k);
    for (int a = 0; a < na; a++) {
        mbgcm_config cfg = {.arch = arches[a]};
        mbgcm_mgr *m = mbgcm_mgr_new(&cfg);
        assert_non_null(m);
        for (size_t i = 0; i < n; i++) {
            size_t kl, nl, pl, sl;
            uint8_t *key = value(recs[i], "key", &kl), *nonce = value(recs[i], "nonce", &nl);
            uint8_t *pt = value(recs[i], "pt", &pl), *want = value(recs[i], "sealed", &sl);
            unsigned long long index;
            TU_CHECK(sscanf(strstr(recs[i], " index="), " index=%llu", &index) == 1, "index");
            TU_CHECK(sl == pl + 16, "record %zu shape", i);
            mbgcmi_cob_setup_raw(k, key, kl, nonce);
            uint8_t *got = tu_xmalloc(sl), *back = tu_xmalloc(pl + 1);
            struct mbgcmi_cob_run r = {.dir = MBGCM_ENCRYPT,
                                       .index0 = index,
                                       .n = 1,
                                       .src = pl ? pt : NULL,
                                       .dst = got,
                                       .last_len = pl};
            size_t bad;
            assert_int_equal(mbgcmi_cob_run_mgr(m, k, &r, 0, 1, &bad), MBGCM_OK);
            TU_MEM_EQ(got, want, sl, "chunk record %zu (index %llu, %zu bytes, arch %s)", i, index,
                      pl, arches[a] ? arches[a] : "auto");
            r = (struct mbgcmi_cob_run){.dir = MBGCM_DECRYPT,
                                        .index0 = index,
                                        .n = 1,
                                        .src = want,
                                        .dst = back,
                                        .last_len = pl};
            assert_int_equal(mbgcmi_cob_run_mgr(m, k, &r, 0, 1, &bad), MBGCM_OK);
            TU_MEM_EQ(back, pt, pl, "chunk record %zu decrypt", i);
            if (index > 0) { /* the same chunk at another index must not authenticate */
                r.index0 = index - 1;
                assert_int_equal(mbgcmi_cob_run_mgr(m, k, &r, 0, 1, &bad), MBGCM_ERR_AUTH);
            }
            mbgcmi_cob_keys_wipe(k);
            free(key), free(nonce), free(pt), free(want), free(got), free(back);
        }
        mbgcm_mgr_free(m);
    }
    free(k);
    free_records(recs, n);
}

static void test_raw(void **state)
{
    (void)state;
    size_t n;
    char **recs = records("raw", &n);
    for (size_t i = 0; i < n; i++) {
        size_t kl, nl, pl, hl;
        uint8_t *key = value(recs[i], "key", &kl), *nonce = value(recs[i], "nonce", &nl);
        uint8_t *pt = value(recs[i], "pt", &pl), *hash = value(recs[i], "body_sha256", &hl);
        const size_t blen = tc_sealed_len(pl) - 56;
        uint8_t *body = tu_xmalloc(blen), *back = tu_xmalloc(pl + 1), digest[32];
        for (unsigned threads = 1; threads <= 2; threads++) {
            const mbgcm_cobble_opts opts = {.threads = threads};
            size_t out_len = 0;
            assert_int_equal(mbgcm_cobble_hazmat_raw_seal(body, &out_len, blen, key, kl, nonce,
                                                          pl ? pt : NULL, pl, &opts),
                             MBGCM_OK);
            assert_int_equal(out_len, blen);
            tc_sha256(body, blen, digest);
            TU_MEM_EQ(digest, hash, 32, "raw record %zu (%zu bytes): body hash", i, pl);
            if (strstr(recs[i], " body=") != NULL) {
                size_t wl;
                uint8_t *want = value(recs[i], "body", &wl);
                assert_int_equal(wl, blen);
                TU_MEM_EQ(body, want, blen, "raw record %zu body", i);
                free(want);
            }
            assert_int_equal(
                mbgcm_cobble_hazmat_raw_open(back, &out_len, pl, key, kl, nonce, body, blen, &opts),
                MBGCM_OK);
            assert_int_equal(out_len, pl);
            TU_MEM_EQ(back, pt, pl, "raw record %zu open", i);
        }
        free(key), free(nonce), free(pt), free(hash), free(body), free(back);
    }
    free_records(recs, n);
}

static void test_sealed(void **state)
{
    (void)state;
    size_t n;
    char **recs = records("sealed", &n);
    for (size_t i = 0; i < n; i++) {
        size_t kl, cl, sl, ml, al, nl, pl, hl;
        uint8_t *key = value(recs[i], "key", &kl), *ctx = value(recs[i], "context", &cl);
        uint8_t *salt = value(recs[i], "salt", &sl), *commit = value(recs[i], "commitment", &ml);
        uint8_t *ak = value(recs[i], "aes_key", &al), *nonce = value(recs[i], "nonce", &nl);
        uint8_t *pt = value(recs[i], "pt", &pl), *hash = value(recs[i], "sha256", &hl);
        const size_t mlen = tc_sealed_len(pl);
        uint8_t *msg = tu_xmalloc(mlen), *back = tu_xmalloc(pl + 1), digest[32];
        memcpy(msg, salt, 24);
        memcpy(msg + 24, commit, 32);
        size_t out_len;
        assert_int_equal(mbgcm_cobble_hazmat_raw_seal(msg + 56, &out_len, mlen - 56, ak, al, nonce,
                                                      pl ? pt : NULL, pl, NULL),
                         MBGCM_OK);
        tc_sha256(msg, mlen, digest);
        TU_MEM_EQ(digest, hash, 32, "sealed record %zu: message hash", i);

        /* one-shot open */
        memset(back, 0xAA, pl + 1);
        assert_int_equal(
            mbgcm_cobble_open(back, &out_len, pl, key, kl, cl ? ctx : NULL, cl, msg, mlen, NULL),
            MBGCM_OK);
        assert_int_equal(out_len, pl);
        TU_MEM_EQ(back, pt, pl, "sealed record %zu: open", i);
        /* streaming open in one piece */
        mbgcm_cobble_opener *o;
        assert_int_equal(mbgcm_cobble_opener_new(&o, key, kl, ctx, cl, msg, 56, NULL), MBGCM_OK);
        uint8_t *buf = tu_xmalloc(MBGCM_COBBLE_OPEN_UPDATE_MAX(mlen) + 16384);
        size_t got, fin;
        assert_int_equal(mbgcm_cobble_opener_update(
                             o, buf, &got, MBGCM_COBBLE_OPEN_UPDATE_MAX(mlen), msg + 56, mlen - 56),
                         MBGCM_OK);
        assert_int_equal(mbgcm_cobble_opener_finish(o, buf + got, &fin, 16383), MBGCM_OK);
        assert_int_equal(got + fin, pl);
        TU_MEM_EQ(buf, pt, pl, "sealed record %zu: streaming open", i);
        mbgcm_cobble_opener_free(o);
        /* reader */
        mbgcm_cobble_reader *r;
        uint64_t size;
        assert_int_equal(mbgcm_cobble_reader_new(&r, key, kl, ctx, cl, msg, mlen, NULL), MBGCM_OK);
        assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_OK);
        assert_int_equal(size, pl);
        assert_int_equal(mbgcm_cobble_reader_read(r, buf, 0, pl), MBGCM_OK);
        TU_MEM_EQ(buf, pt, pl, "sealed record %zu: reader", i);
        mbgcm_cobble_reader_free(r);
        free(buf);
        free(key), free(ctx), free(salt), free(commit), free(ak), free(nonce), free(pt);
        free(hash), free(msg), free(back);
    }
    free_records(recs, n);
}

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_derive),
        cmocka_unit_test(test_chunk),
        cmocka_unit_test(test_raw),
        cmocka_unit_test(test_sealed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
