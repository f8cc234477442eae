/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_gcm_diff.c — randomized differential test of the one-shot API against OpenSSL (IV up
 * to 128 bytes) and intel-ipsec-mb (any IV length; every case), run once per supported arch.
 *
 * Each case: a random key (16/24/32 bytes, expanded by the arch under test and compared byte
 * for byte with mbgcm_key_init's key), IV length mostly 12, else 1..128, sometimes 129..1024
 * (ipsec-mb only); AAD 0..4 KiB biased small; message length biased to 0..64 and to the block
 * edges 16k-1/16k/16k+1 up to 64 KiB, some anywhere up to 64 KiB and some 65536..65636; a
 * random valid tag length. Encrypt out of place and in place must match the references;
 * decrypt out of place and in place must round-trip; one flipped bit (tag, ciphertext, AAD or
 * IV) must give MBGCM_ERR_AUTH with the output zeroed. Where both references apply they are
 * compared with each other too.
 *
 * Counts: generic is ~50x slower than the AES-NI kernels, so it gets N_GENERIC cases; the
 * other supported arches share N_FAST_TOTAL. Both are scaled (0.1 under sanitizers,
 * MBGCM_TEST_SCALE overrides). Replay a run with MBGCM_SEED.
 */
#include <time.h>

#include "test_util.h"

#define N_GENERIC 8000
#define N_FAST_TOTAL 400000

static const size_t tag_lens[] = {4, 8, 12, 13, 14, 15, 16};

struct stats {
    uint64_t cases, bytes, iv12, ivshort, ivlong, vs_ossl, vs_imb, cross, inplace_tamper;
    uint64_t tamper[4];
    double secs;
};
static struct stats st[MBGCMI_MAX_ARCHES];

static size_t pick_text_len(tu_rng *r)
{
    const uint64_t c = tu_rng_below(r, 100);
    if (c < 40) {
        return (size_t)tu_rng_below(r, 65); /* 0..64 */
    }
    if (c < 65) { /* block edges 16k-1, 16k, 16k+1 with k in 1..4096, log-biased */
        const unsigned e = (unsigned)tu_rng_below(r, 13);
        const uint64_t k = tu_rng_range(r, 1, UINT64_C(1) << e);
        return (size_t)(16 * k + tu_rng_below(r, 3) - 1);
    }
    if (c < 85) {
        return (size_t)tu_rng_below(r, 1025);
    }
    if (c < 95) {
        return (size_t)tu_rng_below(r, 65537);
    }
    return (size_t)tu_rng_range(r, 65536, 65636);
}

static size_t pick_aad_len(tu_rng *r)
{
    const uint64_t c = tu_rng_below(r, 100);
    if (c < 50) {
        return (size_t)tu_rng_below(r, 33);
    }
    if (c < 75) {
        return (size_t)tu_rng_below(r, 257);
    }
    if (c < 93) {
        return (size_t)tu_rng_below(r, 4097);
    }
    return (size_t)(16 * tu_rng_range(r, 1, 256) + tu_rng_below(r, 3) - 1);
}

static size_t pick_iv_len(tu_rng *r)
{
    const uint64_t c = tu_rng_below(r, 100);
    if (c < 85) {
        return 12;
    }
    if (c < 95) {
        return (size_t)tu_rng_range(r, 1, 128);
    }
    return (size_t)tu_rng_range(r, 129, 1024);
}

static void one_case(tu_rng *r, int arch, uint64_t idx)
{
    static const size_t key_lens[] = {16, 24, 32};
    uint8_t raw[32];
    const size_t kl = key_lens[tu_rng_below(r, 3)];
    const size_t ivl = pick_iv_len(r), adl = pick_aad_len(r), len = pick_text_len(r);
    const size_t tl = tag_lens[tu_rng_below(r, 7)];
    const uint64_t flags = tu_rng_next(r);
    tu_rng_fill(r, raw, kl);

    char ctx[200];
    snprintf(ctx, sizeof ctx,
             "arch=%s case=%llu key_len=%zu iv_len=%zu aad_len=%zu len=%zu tag_len=%zu (seed "
             "0x%016llx)",
             tu_arch_name(arch), (unsigned long long)idx, kl, ivl, adl, len, tl,
             (unsigned long long)tu_seed());

    uint8_t *iv = tu_xmalloc(ivl), *aad = tu_xmalloc(adl), *pt = tu_xmalloc(len);
    uint8_t *ct = tu_xmalloc(len), *ref = tu_xmalloc(len), *ref2 = tu_xmalloc(len);
    uint8_t *buf = tu_xmalloc(len);
    tu_rng_fill(r, iv, ivl);
    tu_rng_fill(r, aad, adl);
    tu_rng_fill(r, pt, len);

    mbgcm_key k, kinit;
    mbgcmi_key_expand(&k, raw, kl, tu_arch(arch));
    TU_CHECK(mbgcm_key_init(&kinit, raw, kl) == MBGCM_OK, "%s", ctx);
    TU_MEM_EQ(&k, &kinit, sizeof k, "%s: key of this arch differs from mbgcm_key_init's", ctx);

    /* NULL is allowed for empty AAD / text: use it half of the time */
    const uint8_t *a_p = (adl == 0 && (flags & 1)) ? NULL : aad;
    const uint8_t *in_p = (len == 0 && (flags & 2)) ? NULL : pt;
    uint8_t *ct_p = (len == 0 && (flags & 2)) ? NULL : ct;

    /* references */
    uint8_t rtag[16], rtag2[16], tag[16];
    int have_ref = 0;
    if (ivl <= 128) {
        assert_int_equal(tu_ossl_gcm_encrypt(raw, kl, iv, ivl, aad, adl, pt, len, ref, rtag, 16),
                         0);
        st[arch].vs_ossl++;
        have_ref = 1;
    }
    tu_imb_gcm_encrypt(raw, kl, iv, ivl, aad, adl, pt, len, have_ref ? ref2 : ref,
                       have_ref ? rtag2 : rtag, 16);
    st[arch].vs_imb++;
    if (have_ref) {
        TU_MEM_EQ(ref2, ref, len, "%s: ipsec-mb ciphertext differs from OpenSSL", ctx);
        TU_MEM_EQ(rtag2, rtag, 16, "%s: ipsec-mb tag differs from OpenSSL", ctx);
        st[arch].cross++;
    }

    /* encrypt out of place */
    memset(tag, 0xEE, sizeof tag);
    if (len) {
        memset(ct, 0x5A, len);
    }
    int s = mbgcm_encrypt(&k, iv, ivl, a_p, adl, in_p, len, ct_p, tag, tl);
    TU_CHECK(s == MBGCM_OK, "%s: encrypt status %d", ctx, s);
    TU_MEM_EQ(ct, ref, len, "%s: ciphertext", ctx);
    TU_MEM_EQ(tag, rtag, tl, "%s: tag", ctx);
    TU_CHECK(tu_all_byte(tag + tl, 16 - tl, 0xEE), "%s: wrote past tag_len", ctx);

    /* encrypt in place */
    memcpy(buf, pt, len);
    memset(tag, 0xEE, sizeof tag);
    s = mbgcm_encrypt(&k, iv, ivl, a_p, adl, buf, len, buf, tag, tl);
    TU_CHECK(s == MBGCM_OK, "%s: encrypt in place status %d", ctx, s);
    TU_MEM_EQ(buf, ref, len, "%s: ciphertext in place", ctx);
    TU_MEM_EQ(tag, rtag, tl, "%s: tag in place", ctx);

    /* decrypt out of place, then in place (buf holds the ciphertext) */
    uint8_t *dec = ref2;
    if (len) {
        memset(dec, 0xA5, len);
    }
    s = mbgcm_decrypt(&k, iv, ivl, a_p, adl, (len == 0 && (flags & 2)) ? NULL : ct, len,
                      (len == 0 && (flags & 2)) ? NULL : dec, rtag, tl);
    TU_CHECK(s == MBGCM_OK, "%s: decrypt status %d", ctx, s);
    TU_MEM_EQ(dec, pt, len, "%s: decrypted text", ctx);
    s = mbgcm_decrypt(&k, iv, ivl, a_p, adl, buf, len, buf, rtag, tl);
    TU_CHECK(s == MBGCM_OK, "%s: decrypt in place status %d", ctx, s);
    TU_MEM_EQ(buf, pt, len, "%s: decrypted text in place", ctx);

    /* one flipped bit: 0 tag, 1 ciphertext, 2 aad, 3 iv (only non-empty ones) */
    int targets[4], nt = 0;
    targets[nt++] = 0;
    if (len) targets[nt++] = 1;
    if (adl) targets[nt++] = 2;
    targets[nt++] = 3;
    const int tgt = targets[tu_rng_below(r, (uint64_t)nt)];
    uint8_t ttag[16];
    memcpy(ttag, rtag, 16);
    memcpy(buf, ct, len);
    switch (tgt) {
    case 0: ttag[tu_rng_below(r, tl)] ^= (uint8_t)(1u << tu_rng_below(r, 8)); break;
    case 1: buf[tu_rng_below(r, len)] ^= (uint8_t)(1u << tu_rng_below(r, 8)); break;
    case 2: aad[tu_rng_below(r, adl)] ^= (uint8_t)(1u << tu_rng_below(r, 8)); break;
    default: iv[tu_rng_below(r, ivl)] ^= (uint8_t)(1u << tu_rng_below(r, 8)); break;
    }
    st[arch].tamper[tgt]++;
    if (flags & 4) { /* in place: the ciphertext is wiped as well */
        s = mbgcm_decrypt(&k, iv, ivl, aad, adl, buf, len, buf, ttag, tl);
        st[arch].inplace_tamper++;
    } else {
        if (len) {
            memset(dec, 0xA5, len);
        }
        memcpy(ref, buf, len); /* the input must not change */
        s = mbgcm_decrypt(&k, iv, ivl, aad, adl, buf, len, dec, ttag, tl);
        TU_MEM_EQ(buf, ref, len, "%s: out-of-place decrypt modified its input", ctx);
    }
    TU_CHECK(s == MBGCM_ERR_AUTH, "%s: tampered (target %d) decrypt status %d", ctx, tgt, s);
    TU_CHECK(tu_all_byte((flags & 4) ? buf : dec, len, 0),
             "%s: tampered (target %d) decrypt did not zero the output", ctx, tgt);

    st[arch].cases++;
    st[arch].bytes += len;
    if (ivl == 12) st[arch].iv12++;
    else if (ivl <= 128) st[arch].ivshort++;
    else st[arch].ivlong++;

    mbgcm_key_wipe(&k);
    mbgcm_key_wipe(&kinit);
    free(iv);
    free(aad);
    free(pt);
    free(ct);
    free(ref);
    free(ref2);
    free(buf);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_arch(int arch, size_t n)
{
    char label[64];
    snprintf(label, sizeof label, "gcm_diff/%s", tu_arch_name(arch));
    tu_rng r;
    tu_rng_init(&r, label);
    tu_set_oneshot_arch(arch);
    const double t0 = now();
    for (size_t i = 0; i < n; i++) {
        one_case(&r, arch, i);
    }
    st[arch].secs = now() - t0;
    const struct stats *s = &st[arch];
    print_message("%-8s %7llu cases, %8.1f MiB text, iv 12/short/long %llu/%llu/%llu, "
                  "vs OpenSSL %llu, vs ipsec-mb %llu, refs cross-checked %llu, tamper "
                  "tag/ct/aad/iv %llu/%llu/%llu/%llu (in place %llu), %.1f s\n",
                  tu_arch_name(arch), (unsigned long long)s->cases,
                  (double)s->bytes / 1048576.0, (unsigned long long)s->iv12,
                  (unsigned long long)s->ivshort, (unsigned long long)s->ivlong,
                  (unsigned long long)s->vs_ossl, (unsigned long long)s->vs_imb,
                  (unsigned long long)s->cross, (unsigned long long)s->tamper[0],
                  (unsigned long long)s->tamper[1], (unsigned long long)s->tamper[2],
                  (unsigned long long)s->tamper[3], (unsigned long long)s->inplace_tamper,
                  s->secs);
}

static int n_fast(void)
{
    int n = 0;
    for (int a = TU_ARCH("generic") + 1; a < tu_arch_count(); a++) {
        n += tu_arch_supported(a);
    }
    return n;
}

static void diff_generic(void **state)
{
    (void)state;
    if (!tu_arch_supported(TU_ARCH("generic"))) { /* MBGCM_TEST_ARCHES left it out */
        skip();
    }
    run_arch(TU_ARCH("generic"), tu_scaled(N_GENERIC));
}

static void diff_fast(int arch)
{
    if (!tu_arch_supported(arch)) {
        print_message("%s: not supported here\n", tu_arch_name(arch));
        skip();
    }
    const int nf = n_fast();
    run_arch(arch, tu_scaled((N_FAST_TOTAL + (size_t)nf - 1) / (size_t)nf));
}

static void diff_aesni(void **state) { (void)state; diff_fast(TU_ARCH("aesni")); }
static void diff_avx2(void **state) { (void)state; diff_fast(TU_ARCH("avx2")); }
static void diff_avx512(void **state) { (void)state; diff_fast(TU_ARCH("avx512")); }

int main(void)
{
    tu_seed();
    printf("scale %.3g, ipsec-mb arch %s\n", tu_scale(), tu_imb_arch_name());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(diff_generic),
        cmocka_unit_test(diff_aesni),
        cmocka_unit_test(diff_avx2),
        cmocka_unit_test(diff_avx512),
    };
    const int fails = cmocka_run_group_tests_name("gcm_diff", tests, NULL, NULL);
    uint64_t counts[MBGCMI_MAX_ARCHES];
    for (int a = 0; a < tu_arch_count(); a++) {
        counts[a] = st[a].cases;
    }
    tu_print_arch_counts("differential cases", counts);
    return fails ? 1 : 0;
}
