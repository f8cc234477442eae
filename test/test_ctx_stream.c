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
    int arches[MBGCMI_ARCH_COUNT];
    const int na = tu_supported_arches(arches);
    uint64_t counts[MBGCMI_ARCH_COUNT] = {0};
    uint8_t *in = tu_xmalloc(70000), *ref = tu_xmalloc(70000), *out = tu_xmalloc(70000);
    uint8_t *back = tu_xmalloc(70000);
    for (int ai = 0; ai < na; ai++) {
        const int a = arches[ai];
        mbgcmi_set_oneshot_arch(a);
        const size_t cases = tu_scaled(a == MBGCMI_ARCH_GENERIC ? 300 : 3000);
        for (size_t c = 0; c < cases; c++) {
            tu_key k;
            tu_key_random(&rng, &k, 0);
            uint8_t iv[160], aad[700], tref[16], t[16];
            const size_t iv_len = tu_rng_below(&rng, 4) ? 12 : tu_rng_range(&rng, 1, 128);
            const size_t aad_len = tu_rng_below(&rng, 3) ? tu_rng_below(&rng, 40) :
                                                          tu_rng_below(&rng, 700);
            size_t len = pick_len();
            if (a == MBGCMI_ARCH_GENERIC && len > 3000) {
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
                     mbgcmi_arch_name(a), len, tu_first_diff(dst, ref, len));
            TU_CHECK(memcmp(t, tref, tl) == 0, "arch %s len %zu: tag differs",
                     mbgcmi_arch_name(a), len);
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
                     mbgcmi_arch_name(a), len);
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
    mbgcmi_set_oneshot_arch(mbgcmi_arch_best());
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
    mbgcmi_set_oneshot_arch(MBGCMI_ARCH_NONE);
    assert_int_equal(mbgcm_ctx_init(&ctx, &k.key, MBGCM_ENCRYPT, iv, 12, NULL, 0),
                     MBGCM_ERR_UNSUPPORTED);
    mbgcmi_set_oneshot_arch(mbgcmi_arch_best());
}

int main(void)
{
    tu_rng_init(&rng, "ctx");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_vs_oneshot),
        cmocka_unit_test(test_misuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
