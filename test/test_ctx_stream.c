/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ctx_stream.c — the incremental API (mbgcm_ctx_*) against the one-shot API and
 * OpenSSL: random messages cut at random split points (empty pieces, single bytes, pieces
 * that end mid-block, long pieces), every arch, every key size, both directions, in place and
 * out of place; then misuse: wrong order of calls, bad lengths, a bad tag, length overflow.
 * Seed printed; MBGCM_SEED replays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static tu_rng rng;

/* Feed |len| bytes in random pieces through |ctx|. */
static void feed(mbgcm_ctx *ctx, const uint8_t *in, uint8_t *out, size_t len)
{
    size_t off = 0;
    while (off < len) {
        size_t n;
        switch (tu_rng_below(&rng, 6)) {
        case 0: n = 0; break;
        case 1: n = 1; break;
        case 2: n = tu_rng_below(&rng, 17); break;
        case 3: n = 16 * tu_rng_below(&rng, 5); break;
        case 4: n = tu_rng_below(&rng, 300); break;
        default: n = tu_rng_below(&rng, len - off + 1); break;
        }
        if (n > len - off) {
            n = len - off;
        }
        assert_int_equal(mbgcm_ctx_update(ctx, n ? in + off : NULL, n, n ? out + off : NULL),
                         MBGCM_OK);
        off += n;
    }
}

static size_t pick_len(void)
{
    switch (tu_rng_below(&rng, 5)) {
    case 0: return tu_rng_below(&rng, 65);
    case 1: return 16 * (1 + tu_rng_below(&rng, 10)) + tu_rng_range(&rng, 0, 2) - 1;
    case 2: return tu_rng_below(&rng, 2000);
    case 3: return tu_rng_below(&rng, 20000);
    default: return tu_rng_range(&rng, 60000, 70000);
    }
}

static void test_split_vs_oneshot(void **state)
{
    (void)state;
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    uint64_t counts[MBGCMI_MAX_ARCHES] = {0};
    uint8_t *in = tu_xmalloc(70000), *ref = tu_xmalloc(70000), *out = tu_xmalloc(70000);
    uint8_t *back = tu_xmalloc(70000);
    for (int ai = 0; ai < na; ai++) {
        const int a = arches[ai];
        tu_set_oneshot_arch(a);
        const size_t cases = tu_scaled(a == TU_ARCH("generic") ? 300 : 3000);
        for (size_t c = 0; c < cases; c++) {
            tu_key k;
            tu_key_random(&rng, &k, 0);
            uint8_t iv[160], aad[700], tref[16], t[16];
            const size_t iv_len = tu_rng_below(&rng, 4) ? 12 : tu_rng_range(&rng, 1, 128);
            const size_t aad_len = tu_rng_below(&rng, 3) ? tu_rng_below(&rng, 40) :
                                                          tu_rng_below(&rng, 700);
            size_t len = pick_len();
            if (a == TU_ARCH("generic") && len > 3000) {
                len = tu_rng_below(&rng, 3000); /* the portable path is slow */
            }
            tu_rng_fill(&rng, iv, iv_len);
            tu_rng_fill(&rng, aad, aad_len);
            tu_rng_fill(&rng, in, len);
            assert_int_equal(mbgcm_encrypt(&k.key, iv, iv_len, aad, aad_len, in, len, ref, tref,
                                           16), MBGCM_OK);
            if (c % 16 == 0 && iv_len <= 128) { /* the one-shot API itself vs OpenSSL */
                uint8_t to[16];
                uint8_t *o = tu_xmalloc(len + 1);
                assert_int_equal(tu_ossl_gcm_encrypt(k.raw, k.len, iv, iv_len, aad, aad_len,
                                                     in, len, o, to, 16), 0);
                TU_MEM_EQ(o, ref, len, "openssl ciphertext");
                TU_MEM_EQ(to, tref, 16, "openssl tag");
                free(o);
            }
            /* encrypt in pieces, in place or not */
            mbgcm_ctx ctx;
            const int inplace = (int)tu_rng_below(&rng, 2);
            uint8_t *dst = inplace ? back : out;
            if (inplace) {
                memcpy(back, in, len);
            }
            assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, iv_len, aad,
                                            aad_len), MBGCM_OK);
            feed(&ctx, inplace ? back : in, dst, len);
            const size_t tl = (size_t[]){4, 8, 12, 13, 14, 15, 16}[tu_rng_below(&rng, 7)];
            assert_int_equal(mbgcm_ctx_final(&ctx, t, tl), MBGCM_OK);
            TU_CHECK(memcmp(dst, ref, len) == 0, "arch %s len %zu: ciphertext differs at %ld",
                     tu_arch_name(a), len, tu_first_diff(dst, ref, len));
            TU_CHECK(memcmp(t, tref, tl) == 0, "arch %s len %zu: tag differs",
                     tu_arch_name(a), len);
            TU_CHECK(tu_all_byte(&ctx, sizeof ctx, 0), "context not wiped after final");
            /* decrypt in pieces; verify; a flipped tag bit must fail */
            assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_DECRYPT, iv, iv_len, aad,
                                            aad_len), MBGCM_OK);
            feed(&ctx, ref, out, len);
            const int bad = (int)tu_rng_below(&rng, 4) == 0;
            if (bad) {
                t[tu_rng_below(&rng, tl)] ^= (uint8_t)(1u << tu_rng_below(&rng, 8));
            }
            assert_int_equal(mbgcm_ctx_verify(&ctx, t, tl), bad ? MBGCM_ERR_AUTH : MBGCM_OK);
            TU_CHECK(memcmp(out, in, len) == 0, "arch %s len %zu: plaintext differs",
                     tu_arch_name(a), len);
            TU_CHECK(tu_all_byte(&ctx, sizeof ctx, 0), "context not wiped after verify");
            counts[a]++;
        }
    }
    tu_print_arch_counts("ctx split cases", counts);
    free(in);
    free(ref);
    free(out);
    free(back);
}

static void test_misuse(void **state)
{
    (void)state;
    tu_key k;
    tu_key_random(&rng, &k, 16);
    mbgcm_ctx ctx;
    uint8_t iv[12] = {0}, buf[64] = {0}, tag[16] = {0};
    tu_set_oneshot_arch(tu_arch_best());
    assert_int_equal(mbgcm_ctx_init(NULL, &k.key, MBGCM_ENCRYPT, iv, 12, NULL, 0),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_init(&ctx, NULL, MBGCM_ENCRYPT, iv, 12, NULL, 0),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, 3, iv, 12, NULL, 0), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, 0, NULL, 0),
                     MBGCM_ERR_IV_LEN);
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, 12, NULL, 5),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, 12, buf,
                                    (size_t)1 << 61), MBGCM_ERR_LEN);
    /* a wiped (never initialised) context refuses everything */
    mbgcm_ctx_wipe(&ctx);
    assert_int_equal(mbgcm_ctx_update(&ctx, buf, 16, buf), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_final(&ctx, tag, 16), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_verify(&ctx, tag, 16), MBGCM_ERR_INVALID);
    /* direction mismatch, bad tag length keeps the context usable, NULLs, overlap */
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, 12, NULL, 0), MBGCM_OK);
    assert_int_equal(mbgcm_ctx_verify(&ctx, tag, 16), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_update(&ctx, NULL, 5, buf), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_update(&ctx, buf, 16, buf + 1), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_update(&ctx, buf, 20, buf), MBGCM_OK);
    assert_int_equal(mbgcm_ctx_final(&ctx, tag, 7), MBGCM_ERR_TAG_LEN);
    assert_int_equal(mbgcm_ctx_final(&ctx, NULL, 16), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_final(&ctx, tag, 16), MBGCM_OK);
    assert_int_equal(mbgcm_ctx_update(&ctx, buf, 1, buf), MBGCM_ERR_INVALID); /* finished */
    assert_int_equal(mbgcm_ctx_final(&ctx, tag, 16), MBGCM_ERR_INVALID);
    /* the same tag as the one-shot call for those 20 bytes of zeros in place */
    uint8_t z[20] = {0}, t2[16];
    assert_int_equal(mbgcm_encrypt(&k.key, iv, 12, NULL, 0, z, 20, z, t2, 16), MBGCM_OK);
    assert_memory_equal(tag, t2, 16);
    /* the message limit: 2^36-32 bytes in total, checked before anything is touched */
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, 12, NULL, 0), MBGCM_OK);
    assert_int_equal(mbgcm_ctx_update(&ctx, buf, ((size_t)1 << 36) - 31, buf), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_ctx_update(&ctx, buf, 64, buf), MBGCM_OK); /* still usable */
    mbgcm_ctx_wipe(&ctx);
    mbgcm_ctx_wipe(NULL);
    /* an unsupported one-shot arch */
    tu_set_oneshot_arch(TU_ARCH_NONE);
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, 12, NULL, 0),
                     MBGCM_ERR_UNSUPPORTED);
    tu_set_oneshot_arch(tu_arch_best());
}

/* mbgcm_ctx_copy: on every arch, a copy taken at any point of a message is an independent
   context: the copy and the original each finish with the one-shot result of their own
   message (the shared prefix plus what each was fed afterwards); both decrypt and encrypt;
   misuse returns MBGCM_ERR_INVALID and leaves dst as it was. */
static void test_copy(void **state)
{
    (void)state;
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    enum { N = 300 };
    uint8_t iv[12], aad[20], a[N], b[N], ca[N], cb[N], oa[N], ta[16], tb[16], r[N], t[16];
    unsigned cases = 0;
    for (int ai = 0; ai < na; ai++) {
        tu_set_oneshot_arch(arches[ai]);
        tu_key k;
        tu_key_random(&rng, &k, 0);
        for (int it = 0; it < 40; it++) {
            tu_rng_fill(&rng, iv, sizeof iv);
            tu_rng_fill(&rng, aad, sizeof aad);
            tu_rng_fill(&rng, a, N);
            const size_t cut = (size_t)tu_rng_below(&rng, N + 1);
            const size_t la = cut + (size_t)tu_rng_below(&rng, N - cut + 1);
            const size_t lb = cut + (size_t)tu_rng_below(&rng, N - cut + 1);
            memcpy(b, a, cut); /* same prefix, different continuation */
            tu_rng_fill(&rng, b + cut, N - cut);
            mbgcm_ctx x, y;
            assert_int_equal(mbgcm_ctx_init(&x, &k.key, MBGCM_ENCRYPT, iv, 12, aad, sizeof aad),
                             MBGCM_OK);
            feed(&x, a, ca, cut);
            assert_int_equal(mbgcm_ctx_copy(&y, &x), MBGCM_OK);
            assert_int_equal(mbgcm_ctx_copy(&y, &y), MBGCM_OK); /* dst == src: no change */
            memcpy(cb, ca, cut);
            feed(&x, a + cut, ca + cut, la - cut);
            feed(&y, b + cut, cb + cut, lb - cut);
            assert_int_equal(mbgcm_ctx_final(&x, ta, 16), MBGCM_OK);
            assert_int_equal(mbgcm_ctx_final(&y, tb, 16), MBGCM_OK);
            assert_true(tu_all_byte(&x, sizeof x, 0) && tu_all_byte(&y, sizeof y, 0));
            assert_int_equal(mbgcm_encrypt(&k.key, iv, 12, aad, sizeof aad, a, la, r, t, 16),
                             MBGCM_OK);
            TU_MEM_EQ(ca, r, la, "%s: original after copy", tu_arch_name(arches[ai]));
            TU_MEM_EQ(ta, t, 16, "%s: original's tag", tu_arch_name(arches[ai]));
            assert_int_equal(mbgcm_encrypt(&k.key, iv, 12, aad, sizeof aad, b, lb, r, t, 16),
                             MBGCM_OK);
            TU_MEM_EQ(cb, r, lb, "%s: copy", tu_arch_name(arches[ai]));
            TU_MEM_EQ(tb, t, 16, "%s: copy's tag", tu_arch_name(arches[ai]));
            /* decrypt: a copy verifies the prefix's tag while the original goes on */
            assert_int_equal(mbgcm_encrypt(&k.key, iv, 12, NULL, 0, a, cut, r, t, 16), MBGCM_OK);
            assert_int_equal(mbgcm_ctx_init(&x, &k.key, MBGCM_DECRYPT, iv, 12, NULL, 0),
                             MBGCM_OK);
            feed(&x, r, oa, cut);
            assert_int_equal(mbgcm_ctx_copy(&y, &x), MBGCM_OK);
            assert_int_equal(mbgcm_ctx_verify(&y, t, 16), MBGCM_OK);
            t[0] ^= 1;
            assert_int_equal(mbgcm_ctx_copy(&y, &x), MBGCM_OK);
            assert_int_equal(mbgcm_ctx_verify(&y, t, 16), MBGCM_ERR_AUTH);
            TU_MEM_EQ(oa, a, cut, "%s: decrypted prefix", tu_arch_name(arches[ai]));
            mbgcm_ctx_wipe(&x);
            cases++;
        }
        mbgcm_key_wipe(&k.key);
    }
    /* misuse */
    mbgcm_ctx x, y;
    memset(&y, 0x5C, sizeof y);
    mbgcm_ctx_wipe(&x);
    assert_int_equal(mbgcm_ctx_copy(&y, &x), MBGCM_ERR_INVALID); /* not in progress */
    assert_true(tu_all_byte(&y, sizeof y, 0x5C));
    assert_int_equal(mbgcm_ctx_copy(NULL, &x), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_copy(&y, NULL), MBGCM_ERR_INVALID);
    tu_set_oneshot_arch(tu_arch_best());
    print_message("ctx_copy: %u copies checked against the one-shot calls\n", cases);
}

int main(void)
{
    tu_rng_init(&rng, "ctx");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_vs_oneshot),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
