/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_gcm_internal.c — the internal building blocks (core/ headers, arch/generic/generic.h) against
 * independent references:
 *   - mbgcmi_len_block at the SP 800-38D limits; mbgcmi_inc32; util helpers;
 *   - the textbook GCM reference itself against OpenSSL (so the checks below can trust it);
 *   - 32-bit counter wrap through mbgcmi_gcm_crypt_j0 with every supported arch's op table
 *     (J0 low word 0xFFFFFFF0 / 0xFFFFFFFE / 0xFFFFFFFF, 40 blocks and odd lengths) against
 *     the textbook GCM, which wraps mod 2^32 without carrying into the upper 96 bits
 *     (and J0 low nibbles 1, where the avx2 body's groups take their xor-offset counters);
 *   - GMAC (no message) per arch at every AAD length around the chunk edges of 31/32 blocks
 *     and their multiples, 12- and 16-byte IVs, tags against OpenSSL, tampered tags failing;
 *   - the op-table kernels one by one (block, ghash, ctr_enc/ctr_dec incl. the counter they
 *     leave behind, also from counters 2 mod 16) per arch;
 *   - J0 for IV lengths 1..300 (mbgcmi_gcm_j0) per arch against the textbook;
 *   - the bitsliced S-box against the FIPS-197 table (all 256 values), key expansion against a
 *     textbook FIPS-197 expansion and across arches and their variants (byte-identical
 *     keys), the four-lane AES
 *     with mixed key sizes against OpenSSL;
 *   - GHASH arithmetic: mbgcmi_gf128_mont(V(a), V(b)) = V(a*b*x) with the textbook multiply
 *     (the V-form/Montgomery derivation of arch/generic/ghash_ct.c), the stored hash-key powers
 *     (k-fold Montgomery products, mont(V(a), hpow[H^k]) = V(a*H^k), Karatsuba halves), and
 *     the hash-key power kernels (portable, xmm, ymm, zmm) against each other on edge and
 *     random H: the same bytes, nothing written outside hpow/hkar;
 *   - the short-message kernels (mbgcmi_avx512_small12, its split-pass twin small12p and
 *     small12k at every length 0..512, small12p and small12k also in chunks of 32 blocks at
 *     513..2048, the avx2 arch's whole12 entries with short paths of 768 and 1024 bytes at
 *     every length 0..1040)
 *     and the by32 kernel's whole12 at every length 0..1552 (every tail pass) against OpenSSL,
 *     whatever lengths the one-shot routing sends them;
 *   - the by32 variant's pipelined burst kernel (mbgcmi_avx512_by32_jobs12) on shuffled lists
 *     of encrypts of every length 1..2100, and its jobs12 wrapper on lists with decrypts
 *     (failing and not), wider AAD and empty messages mixed in, against OpenSSL;
 *   - struct offsets against arch/x86/include/key.inc (parsed; path from MBGCM_KEY_INC).
 */
#include <ctype.h>
#include <stdalign.h>

#include "generic.h"
#include "test_util.h"
#if defined(MBGCM_HAVE_NASM)
#include "aesni.h"
#include "avx2.h"
#include "avx512.h"
#endif

/* FIPS-197 figure 7 */
static const uint8_t aes_sbox[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

static int arches[MBGCMI_MAX_ARCHES], n_arches;

static int setup(void **state)
{
    (void)state;
    n_arches = tu_supported_arches(arches);
    return 0;
}

static size_t random_key_len(tu_rng *r)
{
    static const size_t kl[] = {16, 24, 32};
    return kl[tu_rng_below(r, 3)];
}

/* ---- lengths, counters, utilities ------------------------------------------------------------ */
static void len_block_limits(void **state)
{
    (void)state;
    uint8_t b[16], want[16];
    assert_int_equal(mbgcmi_len_block(0, 0, b), 0);
    assert_true(tu_all_byte(b, 16, 0));

    assert_int_equal(mbgcmi_len_block((UINT64_C(1) << 61) - 1, 0, b), 0);
    static const uint8_t a_max[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF8};
    TU_MEM_EQ(b, a_max, 8, "aad 2^61-1 bits");
    assert_true(tu_all_byte(b + 8, 8, 0));
    assert_int_equal(mbgcmi_len_block(UINT64_C(1) << 61, 0, b), -1);
    assert_int_equal(mbgcmi_len_block(UINT64_MAX, 0, b), -1);

    assert_int_equal(mbgcmi_len_block(0, (UINT64_C(1) << 36) - 32, b), 0);
    static const uint8_t t_max[8] = {0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF, 0x00};
    assert_true(tu_all_byte(b, 8, 0));
    TU_MEM_EQ(b + 8, t_max, 8, "text 2^36-32 bits");
    assert_int_equal(mbgcmi_len_block(0, (UINT64_C(1) << 36) - 31, b), -1);
    assert_int_equal(mbgcmi_len_block(0, UINT64_MAX, b), -1);
    assert_int_equal(mbgcmi_len_block((UINT64_C(1) << 61) - 1, (UINT64_C(1) << 36) - 32, b), 0);
    TU_MEM_EQ(b, a_max, 8, "both at the limit (aad)");
    TU_MEM_EQ(b + 8, t_max, 8, "both at the limit (text)");
    assert_int_equal(mbgcmi_len_block((UINT64_C(1) << 61) - 1, (UINT64_C(1) << 36) - 31, b), -1);

    tu_rng r;
    tu_rng_init(&r, "len_block");
    for (int i = 0; i < 10000; i++) {
        const uint64_t a = tu_rng_next(&r) >> (3 + tu_rng_below(&r, 61));
        const uint64_t t = tu_rng_next(&r) >> (28 + tu_rng_below(&r, 36));
        const int ok = a <= MBGCMI_MAX_AAD_LEN && t <= MBGCMI_MAX_TEXT_LEN;
        assert_int_equal(mbgcmi_len_block(a, t, b), ok ? 0 : -1);
        if (ok) {
            for (int j = 0; j < 8; j++) {
                want[j] = (uint8_t)((a * 8) >> (56 - 8 * j));
                want[8 + j] = (uint8_t)((t * 8) >> (56 - 8 * j));
            }
            TU_MEM_EQ(b, want, 16, "len block (%llu, %llu)", (unsigned long long)a,
                      (unsigned long long)t);
        }
    }
}

static void inc32_wraps(void **state)
{
    (void)state;
    uint8_t c[16], d[16];
    /* the textbook reference first: explicit bytes */
    memset(c, 0xFF, 16);
    tu_tb_inc32(c);
    assert_true(tu_all_byte(c, 12, 0xFF) && tu_all_byte(c + 12, 4, 0));
    memset(c, 0xAB, 12);
    c[12] = 0x00, c[13] = 0xFF, c[14] = 0xFF, c[15] = 0xFF;
    tu_tb_inc32(c);
    assert_true(tu_all_byte(c, 12, 0xAB));
    assert_true(c[12] == 0x01 && c[13] == 0 && c[14] == 0 && c[15] == 0);
    /* the library's, against it */
    tu_rng r;
    tu_rng_init(&r, "inc32");
    for (int i = 0; i < 4096; i++) {
        tu_rng_fill(&r, c, 16);
        if (i < 64) {
            memset(c + 12, 0xFF, 4);
            c[15] = (uint8_t)(0xFF - (i & 3));
        }
        memcpy(d, c, 16);
        mbgcmi_inc32(c);
        tu_tb_inc32(d);
        TU_MEM_EQ(c, d, 16, "inc32");
    }
}

static void util_helpers(void **state)
{
    (void)state;
    uint8_t a[40], b[40];
    memset(a, 0x11, sizeof a);
    memcpy(b, a, sizeof b);
    assert_int_equal(mbgcmi_ct_equal(a, b, 0), 1);
    assert_int_equal(mbgcmi_ct_equal(a, b, sizeof a), 1);
    for (size_t i = 0; i < sizeof a; i++) {
        for (int bit = 0; bit < 8; bit++) {
            b[i] ^= (uint8_t)(1u << bit);
            assert_int_equal(mbgcmi_ct_equal(a, b, sizeof a), 0);
            assert_int_equal(mbgcmi_ct_equal(a, b, i), 1);
            b[i] ^= (uint8_t)(1u << bit);
        }
    }
    /* overlap is pure address arithmetic: probe the edges, including the top of memory */
    uint8_t *p = a;
    assert_int_equal(mbgcmi_overlap(p, 16, p + 16, 16), 0);
    assert_int_equal(mbgcmi_overlap(p + 16, 16, p, 16), 0);
    assert_int_equal(mbgcmi_overlap(p, 16, p + 15, 16), 1);
    assert_int_equal(mbgcmi_overlap(p + 15, 16, p, 16), 1);
    assert_int_equal(mbgcmi_overlap(p, 16, p, 16), 1);
    assert_int_equal(mbgcmi_overlap(p, 1, p, 1), 1);
    assert_int_equal(mbgcmi_overlap(p, 40, p + 10, 2), 1);
    assert_int_equal(mbgcmi_overlap(p + 10, 2, p, 40), 1);
    const uintptr_t top = UINTPTR_MAX - 15;
    assert_int_equal(mbgcmi_overlap((void *)top, 16, (void *)(uintptr_t)16, 16), 0);
    assert_int_equal(mbgcmi_overlap((void *)(uintptr_t)16, 16, (void *)top, 16), 0);
    assert_int_equal(mbgcmi_overlap((void *)(top - 8), 16, (void *)top, 16), 1);

    memset(a, 0x77, sizeof a);
    mbgcmi_wipe(a + 3, 20);
    assert_true(tu_all_byte(a, 3, 0x77) && tu_all_byte(a + 3, 20, 0) &&
                tu_all_byte(a + 23, sizeof a - 23, 0x77));
    mbgcmi_wipe(NULL, 0);

    static const uint8_t blk[16] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                    0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10};
    uint64_t v[2];
    mbgcmi_block_to_v(blk, v);
    assert_true(v[1] == UINT64_C(0x0102030405060708) && v[0] == UINT64_C(0x090a0b0c0d0e0f10));
    uint8_t back[16];
    mbgcmi_v_to_block(v, back);
    TU_MEM_EQ(back, blk, 16, "v_to_block");
    assert_int_equal(mbgcmi_load_be64(blk), UINT64_C(0x0102030405060708));
    assert_int_equal(mbgcmi_load_le64(blk), UINT64_C(0x0807060504030201));
    assert_true(mbgcmi_tag_len_ok(4) && mbgcmi_tag_len_ok(8) && !mbgcmi_tag_len_ok(9));
}

/* ---- the textbook reference itself -------------------------------------------------------------- */
static void textbook_matches_openssl(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "textbook");
    const size_t n = tu_scaled(1000);
    for (size_t i = 0; i < n; i++) {
        uint8_t key[32], iv[128], aad[100], pt[300], ct[300], ref[300], tag[16], rtag[16], j0[16];
        const size_t kl = random_key_len(&r);
        const size_t ivl = (i % 3) ? 12 : (size_t)tu_rng_range(&r, 1, 128);
        const size_t al = (size_t)tu_rng_below(&r, 101), len = (size_t)tu_rng_below(&r, 301);
        tu_rng_fill(&r, key, kl);
        tu_rng_fill(&r, iv, ivl);
        tu_rng_fill(&r, aad, al);
        tu_rng_fill(&r, pt, len);
        tu_tb_j0(key, kl, iv, ivl, j0);
        tu_tb_gcm_j0(key, kl, j0, aad, al, pt, len, ct, 0, tag);
        tu_ossl_gcm_encrypt(key, kl, iv, ivl, aad, al, pt, len, ref, rtag, 16);
        TU_MEM_EQ(ct, ref, len, "textbook ciphertext vs OpenSSL (iv_len %zu)", ivl);
        TU_MEM_EQ(tag, rtag, 16, "textbook tag vs OpenSSL (iv_len %zu)", ivl);
        tu_tb_gcm_j0(key, kl, j0, aad, al, ct, len, ct, 1, tag);
        TU_MEM_EQ(ct, pt, len, "textbook decrypt");
        TU_MEM_EQ(tag, rtag, 16, "textbook decrypt tag");
    }
}

/* ---- counter wrap through mbgcmi_gcm_crypt_j0 ---------------------------------------------------- */
static void counter_wrap(void **state)
{
    (void)state;
    /* ... and last bytes around 237, where the avx512 loop's byte-order counter add stops
       being exact (CTR_WB in arch/avx512/gcm_by16_avx512.asm), and low nibbles 1 (first
       counter 2 mod 16: the avx2 body's xor-offset counters, CTR_F in
       arch/avx2/gcm_by16_avx2.asm), whose group bases then wrap */
    static const uint32_t lows[] = {0xFFFFFFF0u, 0xFFFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFF8u,
                                    0xFFFFFFF9u, 0x7FFFFFFFu, 0xFFFFFF00u, 0xFFFFFFEBu,
                                    0xFFFFFFECu, 0xFFFFFFEDu, 0x000000ECu, 0x123456EDu,
                                    0xFFFFFFF1u, 0xFFFFFFE1u, 0xFFFFFF91u, 0x00000001u};
    static const size_t lens[] = {640, 1, 15, 16, 17, 255, 639, 641, 647, 16 * 33 + 5,
                                  16 * 64 + 3, 4096 + 5, 0};
    static const size_t aads[] = {0, 13, 32};
    tu_rng r;
    tu_rng_init(&r, "counter_wrap");
    uint64_t count[MBGCMI_MAX_ARCHES] = {0};
    const size_t maxlen = 4096 + 5;
    uint8_t *pt = tu_xmalloc(maxlen), *ref = tu_xmalloc(maxlen), *out = tu_xmalloc(maxlen);
    uint8_t aad[32];

    for (size_t li = 0; li < sizeof lows / sizeof lows[0]; li++) {
        for (int upper = 0; upper < 3; upper++) { /* upper 96 bits: random, all ones, zero */
            const size_t kl = random_key_len(&r);
            uint8_t raw[32], j0[16];
            tu_rng_fill(&r, raw, kl);
            if (upper == 0) tu_rng_fill(&r, j0, 12);
            else memset(j0, upper == 1 ? 0xFF : 0x00, 12);
            j0[12] = (uint8_t)(lows[li] >> 24), j0[13] = (uint8_t)(lows[li] >> 16);
            j0[14] = (uint8_t)(lows[li] >> 8), j0[15] = (uint8_t)lows[li];

            mbgcm_key keys[MBGCMI_MAX_ARCHES];
            for (int a = 0; a < n_arches; a++) {
                mbgcmi_key_expand(&keys[a], raw, kl, tu_arch(arches[a]));
            }
            for (size_t ti = 0; ti < sizeof lens / sizeof lens[0]; ti++) {
                const size_t len = lens[ti], al = aads[(li + ti + (size_t)upper) % 3];
                tu_rng_fill(&r, pt, len);
                tu_rng_fill(&r, aad, al);
                uint8_t rtag[16], tag[16], rtag_d[16];
                tu_tb_gcm_j0(raw, kl, j0, aad, al, pt, len, ref, 0, rtag);
                for (int a = 0; a < n_arches; a++) {
                    const struct mbgcmi_arch *ops = tu_arch(arches[a]);
                    const struct mbgcmi_key *k = mbgcmi_key_c(&keys[a]);
                    char ctx[128];
                    snprintf(ctx, sizeof ctx, "arch=%s J0 low=0x%08x upper=%d len=%zu aad=%zu",
                             tu_arch_name(arches[a]), lows[li], upper, len, al);
                    /* encrypt out of place, then in place */
                    mbgcmi_gcm_crypt_j0(ops, k, j0, aad, al, pt, len, out, 0, tag);
                    TU_MEM_EQ(out, ref, len, "%s: ciphertext", ctx);
                    TU_MEM_EQ(tag, rtag, 16, "%s: tag", ctx);
                    memcpy(out, pt, len);
                    mbgcmi_gcm_crypt_j0(ops, k, j0, aad, al, out, len, out, 0, tag);
                    TU_MEM_EQ(out, ref, len, "%s: ciphertext in place", ctx);
                    TU_MEM_EQ(tag, rtag, 16, "%s: tag in place", ctx);
                    /* decrypt: the tag is over the ciphertext again */
                    mbgcmi_gcm_crypt_j0(ops, k, j0, aad, al, out, len, out, 1, rtag_d);
                    TU_MEM_EQ(out, pt, len, "%s: decrypt in place", ctx);
                    TU_MEM_EQ(rtag_d, rtag, 16, "%s: decrypt tag", ctx);
                    mbgcmi_gcm_crypt_j0(ops, k, j0, aad, al, ref, len, out, 1, rtag_d);
                    TU_MEM_EQ(out, pt, len, "%s: decrypt", ctx);
                    TU_MEM_EQ(rtag_d, rtag, 16, "%s: decrypt tag", ctx);
                    count[arches[a]]++;
                }
            }
            for (int a = 0; a < n_arches; a++) {
                mbgcm_key_wipe(&keys[a]);
            }
        }
    }
    free(pt);
    free(ref);
    free(out);
    tu_print_arch_counts("counter-wrap cases", count);
}

/* ---- GMAC (no message) at the AAD's chunk edges ---------------------------------------------- */
/* The whole-message kernels hash a GMAC call's length block with the AAD's last chunk when that
   chunk has at most 31 blocks (arch/avx512/gcm_wide.inc, GHASH_AAD's length-block form), and
   alone when the AAD fills its chunks of 32 blocks; the one-shot routing sends short AAD to the
   short-message kernel. Every AAD length around those edges, per arch, 12- and 16-byte IVs
   (the second through J0 = GHASH(IV)), every key size: tags against OpenSSL, a decrypt that
   verifies, one with a flipped tag bit that fails. */
static void gmac_aad_edges(void **state)
{
    (void)state;
    static const size_t lens[] = {0,   1,   15,  16,  17,   63,   64,   65,   80,   255,
                                  256, 257, 479, 480, 481,  495,  496,  497,  511,  512,
                                  513, 527, 528, 529, 1007, 1008, 1009, 1023, 1024, 1025,
                                  1535, 1536, 1537, 2047, 2048, 2049, 4096 + 5};
    static const size_t ivls[] = {12, 16};
    tu_rng r;
    tu_rng_init(&r, "gmac_aad_edges");
    uint64_t count[MBGCMI_MAX_ARCHES] = {0};
    enum { MAXA = 4096 + 5 };
    uint8_t *aad = tu_xmalloc(MAXA);
    for (size_t kl = 16; kl <= 32; kl += 8) {
        uint8_t raw[32];
        tu_rng_fill(&r, raw, kl);
        mbgcm_key keys[MBGCMI_MAX_ARCHES];
        for (int a = 0; a < n_arches; a++) {
            mbgcmi_key_expand(&keys[a], raw, kl, tu_arch(arches[a]));
        }
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            for (size_t vi = 0; vi < 2; vi++) {
                const size_t al = lens[li], ivl = ivls[vi];
                uint8_t iv[16], want[16], tag[16];
                tu_rng_fill(&r, iv, ivl);
                tu_rng_fill(&r, aad, al);
                assert_int_equal(tu_ossl_gcm_encrypt(raw, kl, iv, ivl, al ? aad : NULL, al,
                                                     NULL, 0, NULL, want, 16),
                                 0);
                for (int a = 0; a < n_arches; a++) {
                    const struct mbgcmi_arch *ops = tu_arch(arches[a]);
                    const struct mbgcmi_key *k = mbgcmi_key_c(&keys[a]);
                    char ctx[96];
                    snprintf(ctx, sizeof ctx, "arch=%s key=%zu iv=%zu aad=%zu",
                             tu_arch_name(arches[a]), kl * 8, ivl, al);
                    memset(tag, 0x5A, sizeof tag);
                    assert_int_equal(mbgcmi_gcm_message(ops, k, iv, ivl, al ? aad : NULL, al,
                                                        NULL, 0, NULL, tag, 16, 0),
                                     0);
                    TU_MEM_EQ(tag, want, 16, "%s: GMAC tag", ctx);
                    memcpy(tag, want, 16);
                    assert_int_equal(mbgcmi_gcm_message(ops, k, iv, ivl, al ? aad : NULL, al,
                                                        NULL, 0, NULL, tag, 16, 1),
                                     0);
                    tag[(al + ivl) % 16] ^= (uint8_t)(1u << (al % 8));
                    if (mbgcmi_gcm_message(ops, k, iv, ivl, al ? aad : NULL, al, NULL, 0, NULL,
                                           tag, 16, 1) != 1) {
                        fail_msg("%s: a flipped tag bit verified", ctx);
                    }
                    count[arches[a]]++;
                }
            }
        }
        for (int a = 0; a < n_arches; a++) {
            mbgcm_key_wipe(&keys[a]);
        }
    }
    free(aad);
    tu_print_arch_counts("GMAC AAD-edge cases", count);
}

/* ---- the op-table kernels one by one --------------------------------------------------------------- */
static void ops_kernels(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "ops_kernels");
    uint64_t count[MBGCMI_MAX_ARCHES] = {0};
    const size_t rounds = tu_scaled(100);
    enum { MAXB = 70 };
    uint8_t in[16 * MAXB], out[16 * MAXB], ks[16 * MAXB], cbs[16 * MAXB];
    for (size_t it = 0; it < rounds; it++) {
        const size_t kl = random_key_len(&r);
        uint8_t raw[32], h[16];
        tu_rng_fill(&r, raw, kl);
        tu_tb_hash_key(raw, kl, h);
        for (int a = 0; a < n_arches; a++) {
            const struct mbgcmi_gcm_ops *ops = tu_arch(arches[a])->ops;
            assert_non_null(ops);
            mbgcm_key key;
            mbgcmi_key_expand(&key, raw, kl, tu_arch(arches[a]));
            const struct mbgcmi_key *k = mbgcmi_key_c(&key);
            const char *an = tu_arch_name(arches[a]);

            /* block */
            uint8_t b[16], e[16], ref[16];
            tu_rng_fill(&r, b, 16);
            ops->block(k, b, e);
            tu_ossl_aes_ecb(raw, kl, b, ref, 1);
            TU_MEM_EQ(e, ref, 16, "%s: block", an);

            /* ghash over 1..MAXB blocks from a random state */
            const size_t nb = (size_t)tu_rng_range(&r, 1, MAXB);
            uint64_t s[2];
            uint8_t y[16], sb[16];
            tu_rng_fill(&r, in, 16 * nb);
            tu_rng_fill(&r, y, 16);
            mbgcmi_block_to_v(y, s);
            ops->ghash(k, s, in, nb);
            tu_tb_ghash(h, y, in, nb);
            mbgcmi_v_to_block(s, sb);
            TU_MEM_EQ(sb, y, 16, "%s: ghash of %zu blocks", an, nb);

            /* ctr_enc / ctr_dec near a counter wrap, in place and not */
            uint8_t ctr[16], ctr0[16];
            tu_rng_fill(&r, ctr0, 16);
            if (it % 2 == 0) {
                ctr0[12] = ctr0[13] = ctr0[14] = 0xFF;
                ctr0[15] = (uint8_t)(0xFF - tu_rng_below(&r, 2 * MAXB));
            }
            if (it % 3 == 1) { /* 2 mod 16: the avx2 groups' xor-offset counters (CTR_F) */
                ctr0[15] = (uint8_t)((ctr0[15] & 0xF0) | 2);
            }
            memcpy(cbs, ctr0, 16);
            for (size_t i = 1; i < nb; i++) {
                memcpy(cbs + 16 * i, cbs + 16 * (i - 1), 16);
                tu_tb_inc32(cbs + 16 * i);
            }
            uint8_t ctr_end[16];
            memcpy(ctr_end, cbs + 16 * (nb - 1), 16);
            tu_tb_inc32(ctr_end);
            tu_ossl_aes_ecb(raw, kl, cbs, ks, nb);
            for (int dec = 0; dec < 2; dec++) {
                for (int inplace = 0; inplace < 2; inplace++) {
                    uint8_t y2[16];
                    tu_rng_fill(&r, y2, 16);
                    mbgcmi_block_to_v(y2, s);
                    memcpy(ctr, ctr0, 16);
                    uint8_t *dst = inplace ? in : out;
                    uint8_t src_copy[16 * MAXB];
                    memcpy(src_copy, in, 16 * nb);
                    (dec ? ops->ctr_dec : ops->ctr_enc)(k, ctr, s, in, dst, nb);
                    for (size_t i = 0; i < 16 * nb; i++) {
                        ks[i] ^= src_copy[i]; /* expected output, temporarily in ks */
                    }
                    TU_MEM_EQ(dst, ks, 16 * nb, "%s: ctr_%s (in place %d) output of %zu blocks",
                              an, dec ? "dec" : "enc", inplace, nb);
                    /* GHASH covers the ciphertext: the input when decrypting */
                    tu_tb_ghash(h, y2, dec ? src_copy : ks, nb);
                    mbgcmi_v_to_block(s, sb);
                    TU_MEM_EQ(sb, y2, 16, "%s: ctr_%s ghash state", an, dec ? "dec" : "enc");
                    TU_MEM_EQ(ctr, ctr_end, 16, "%s: ctr_%s left counter", an,
                              dec ? "dec" : "enc");
                    for (size_t i = 0; i < 16 * nb; i++) {
                        ks[i] ^= src_copy[i]; /* back to the key stream */
                    }
                    if (inplace) {
                        memcpy(in, src_copy, 16 * nb);
                    }
                }
            }
            mbgcm_key_wipe(&key);
            count[arches[a]]++;
        }
    }
    tu_print_arch_counts("kernel rounds", count);
}

/* ---- J0 ------------------------------------------------------------------------------------------- */
static void j0_all_lengths(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "j0");
    uint64_t count[MBGCMI_MAX_ARCHES] = {0};
    uint8_t iv[300];
    for (size_t ivl = 1; ivl <= 300; ivl++) {
        const size_t kl = random_key_len(&r);
        uint8_t raw[32], want[16];
        tu_rng_fill(&r, raw, kl);
        tu_rng_fill(&r, iv, ivl);
        tu_tb_j0(raw, kl, iv, ivl, want);
        for (int a = 0; a < n_arches; a++) {
            mbgcm_key key;
            uint8_t j0[16];
            mbgcmi_key_expand(&key, raw, kl, tu_arch(arches[a]));
            memset(j0, 0xCC, 16);
            mbgcmi_gcm_j0(tu_arch(arches[a]), mbgcmi_key_c(&key), iv, ivl, j0);
            TU_MEM_EQ(j0, want, 16, "arch=%s J0 for iv_len %zu", tu_arch_name(arches[a]),
                      ivl);
            mbgcm_key_wipe(&key);
            count[arches[a]]++;
        }
    }
    tu_print_arch_counts("J0 checks (iv_len 1..300)", count);
}

/* ---- AES -------------------------------------------------------------------------------------------- */
static void sbox_all_values(void **state)
{
    (void)state;
    uint8_t b[64];
    for (int base = 0; base < 256; base += 64) {
        for (int i = 0; i < 64; i++) {
            b[i] = (uint8_t)(base + i);
        }
        mbgcmi_aes_ct_sbox64(b);
        for (int i = 0; i < 64; i++) {
            TU_CHECK(b[i] == aes_sbox[base + i], "S(0x%02x) = 0x%02x, expected 0x%02x", base + i,
                     b[i], aes_sbox[base + i]);
        }
    }
    /* every position, random contents (the bitslice must not depend on the position) */
    tu_rng r;
    tu_rng_init(&r, "sbox");
    for (int it = 0; it < 2000; it++) {
        uint8_t x[64];
        tu_rng_fill(&r, x, 64);
        memcpy(b, x, 64);
        mbgcmi_aes_ct_sbox64(b);
        for (int i = 0; i < 64; i++) {
            TU_CHECK(b[i] == aes_sbox[x[i]], "position %d: S(0x%02x) = 0x%02x", i, x[i], b[i]);
        }
    }
}

/* FIPS-197 section 5.2, with the table S-box */
static void tb_expand(const uint8_t *key, size_t kl, uint8_t rk[15][16])
{
    const int nk = (int)kl / 4, nr = nk + 6;
    uint8_t w[60][4];
    uint8_t rcon = 1;
    memcpy(w, key, kl);
    for (int i = nk; i < 4 * (nr + 1); i++) {
        uint8_t t[4];
        memcpy(t, w[i - 1], 4);
        if (i % nk == 0) {
            const uint8_t t0 = t[0];
            t[0] = (uint8_t)(aes_sbox[t[1]] ^ rcon);
            t[1] = aes_sbox[t[2]];
            t[2] = aes_sbox[t[3]];
            t[3] = aes_sbox[t0];
            rcon = (uint8_t)((rcon << 1) ^ ((rcon & 0x80) ? 0x1B : 0));
        } else if (nk > 6 && i % nk == 4) {
            for (int j = 0; j < 4; j++) {
                t[j] = aes_sbox[t[j]];
            }
        }
        for (int j = 0; j < 4; j++) {
            w[i][j] = w[i - nk][j] ^ t[j];
        }
    }
    memcpy(rk, w, (size_t)(nr + 1) * 16);
}

static void key_expansion_all_arches(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "key_expansion");
    const size_t n = tu_scaled(1000);
    uint64_t count[MBGCMI_MAX_ARCHES] = {0};
    for (size_t i = 0; i < n; i++) {
        const size_t kl = (size_t[]){16, 24, 32}[i % 3];
        uint8_t raw[32], want[15][16], ct_rk[15][16];
        tu_rng_fill(&r, raw, kl);
        if (i < 6) {
            memset(raw, i < 3 ? 0x00 : 0xFF, kl);
        }
        const unsigned nr = (unsigned)kl / 4 + 6;
        tb_expand(raw, kl, want);
        memset(ct_rk, 0, sizeof ct_rk);
        mbgcmi_aes_ct_expand(raw, kl, ct_rk);
        TU_MEM_EQ(ct_rk, want, 16 * (nr + 1), "mbgcmi_aes_ct_expand, key_len %zu", kl);

        mbgcm_key ref;
        assert_int_equal(mbgcm_key_init(&ref, raw, kl), MBGCM_OK);
        const struct mbgcmi_key *rk = mbgcmi_key_c(&ref);
        TU_MEM_EQ(rk->rk, want, 16 * (nr + 1), "key_init round keys, key_len %zu", kl);
        assert_int_equal(rk->rounds, nr);
        assert_int_equal(rk->key_len, kl);
        assert_int_equal(rk->magic, MBGCMI_KEY_MAGIC);
        assert_true(tu_all_byte(rk->rk[nr + 1], 16 * (MBGCMI_MAX_ROUNDS - nr), 0));
        assert_true(tu_all_byte(rk->reserved, sizeof rk->reserved, 0));
        assert_int_equal(rk->reserved0, 0);
        for (int a = 0; a < n_arches; a++) {
            /* the arch as the lookups give it, then each of its variants (the one the CPU
               would not choose has its own descriptor, and so its own key_expand pointer) */
            const struct mbgcmi_arch *base = mbgcmi_arches[arches[a]];
            const unsigned nv = base->nvariants;
            for (unsigned v = 0; v <= nv; v++) {
                const struct mbgcmi_arch *d = v == 0 ? tu_arch(arches[a]) : base->variants[v - 1];
                mbgcm_key k;
                memset(&k, 0xD7, sizeof k); /* every byte must be written */
                mbgcmi_key_expand(&k, raw, kl, d);
                TU_MEM_EQ(&k, &ref, sizeof k, "arch=%s%s%s: key differs from key_init's "
                          "(key_len %zu)", d->name, d->variant ? "/" : "",
                          d->variant ? d->variant : "", kl);
                mbgcm_key_wipe(&k);
            }
            count[arches[a]]++;
        }
        mbgcm_key_wipe(&ref);
    }
    tu_print_arch_counts("keys expanded and compared", count);
}

static void aes_ct_encrypt4_mixed_keys(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "encrypt4");
    const size_t n = tu_scaled(500);
    for (size_t it = 0; it < n; it++) {
        static uint8_t rks[4][15][16];   /* four separate key schedules (stride 16) */
        static uint8_t tab[15][4][16];   /* a four-lane table: round r of lane b (stride 64) */
        uint8_t raw[4][32], in[64], out[64], ref[16];
        size_t kl[4];
        unsigned rounds[4];
        const uint8_t *rk16[4], *rk64[4];
        for (int l = 0; l < 4; l++) {
            kl[l] = random_key_len(&r);
            tu_rng_fill(&r, raw[l], kl[l]);
            memset(rks[l], 0, sizeof rks[l]);
            mbgcmi_aes_ct_expand(raw[l], kl[l], rks[l]);
            rounds[l] = (unsigned)kl[l] / 4 + 6;
            for (int rr = 0; rr < 15; rr++) {
                memcpy(tab[rr][l], rks[l][rr], 16);
            }
            rk16[l] = rks[l][0];
            rk64[l] = tab[0][l];
        }
        tu_rng_fill(&r, in, 64);
        for (int layout = 0; layout < 2; layout++) {
            memset(out, 0, sizeof out);
            mbgcmi_aes_ct_encrypt4(layout ? rk64 : rk16, layout ? 64 : 16, rounds, in, out);
            for (int l = 0; l < 4; l++) {
                tu_ossl_aes_ecb(raw[l], kl[l], in + 16 * l, ref, 1);
                TU_MEM_EQ(out + 16 * l, ref, 16, "encrypt4 stride %d lane %d (key_len %zu)",
                          layout ? 64 : 16, l, kl[l]);
            }
        }
    }
}

/* ---- GHASH arithmetic ---------------------------------------------------------------------------- */
static void to_v(const uint8_t b[16], uint64_t v[2])
{
    mbgcmi_block_to_v(b, v);
}

static void gf128_mont_vs_textbook(void **state)
{
    (void)state;
    static const uint8_t x_elem[16] = {0x40}; /* the field element x (bit 1) */
    static const uint8_t one[16] = {0x80};    /* the field element 1 (bit 0) */
    tu_rng r;
    tu_rng_init(&r, "gf128_mont");
    const size_t n = tu_scaled(3000);
    for (size_t i = 0; i < n; i++) {
        uint8_t a[16], b[16], ab[16], abx[16];
        tu_rng_fill(&r, a, 16);
        tu_rng_fill(&r, b, 16);
        if (i == 0) memcpy(a, one, 16);
        if (i == 1) memset(a, 0xFF, 16), memset(b, 0xFF, 16);
        if (i == 2) memset(a, 0, 16);
        tu_tb_gf_mul(a, b, ab);
        tu_tb_gf_mul(ab, x_elem, abx);
        uint64_t va[2], vb[2], vr[2], want[2];
        to_v(a, va);
        to_v(b, vb);
        to_v(abx, want);
        mbgcmi_gf128_mont(vr, va, vb);
        TU_CHECK(vr[0] == want[0] && vr[1] == want[1], "mont(V(a), V(b)) != V(a*b*x) (case %zu)",
                 i);
    }
    /* hkey_from_h gives V(H * x^-1): mont(V(1), Hs) = V(H) and mont(V(a), Hs) = V(a*H) */
    for (size_t i = 0; i < n / 10 + 1; i++) {
        uint8_t h[16], a[16], ah[16];
        tu_rng_fill(&r, h, 16);
        tu_rng_fill(&r, a, 16);
        if (i == 0) memset(h, 0xFF, 16);
        if (i == 1) memset(h, 0, 16), h[15] = 1;
        if (i == 2) memset(h, 0, 16), h[0] = 0x80;
        uint64_t hs[2], vone[2], va[2], vr[2], vh[2], want[2];
        mbgcmi_hkey_from_h(h, hs);
        to_v(one, vone);
        to_v(h, vh);
        mbgcmi_gf128_mont(vr, vone, hs);
        TU_CHECK(vr[0] == vh[0] && vr[1] == vh[1], "mont(V(1), hkey_from_h(H)) != V(H)");
        to_v(a, va);
        tu_tb_gf_mul(a, h, ah);
        to_v(ah, want);
        mbgcmi_gf128_mont(vr, va, hs);
        TU_CHECK(vr[0] == want[0] && vr[1] == want[1], "mont(V(a), Hs) != V(a*H)");
    }
}

static void hash_key_powers(void **state)
{
    (void)state;
    static const uint8_t one[16] = {0x80};
    tu_rng r;
    tu_rng_init(&r, "hpowers");
    const size_t n = tu_scaled(50);
    uint64_t count[MBGCMI_MAX_ARCHES] = {0};
    for (size_t it = 0; it < n; it++) {
        const size_t kl = random_key_len(&r);
        uint8_t raw[32], h[16], hk[16];
        tu_rng_fill(&r, raw, kl);
        tu_tb_hash_key(raw, kl, h);
        for (int a = 0; a < n_arches; a++) {
            const char *an = tu_arch_name(arches[a]);
            mbgcm_key key;
            mbgcmi_key_expand(&key, raw, kl, tu_arch(arches[a]));
            const struct mbgcmi_key *k = mbgcmi_key_c(&key);
            uint64_t hs[2];
            mbgcmi_hkey_from_h(h, hs);
            TU_CHECK(k->hpow[MBGCMI_HIDX(1)][0] == hs[0] && k->hpow[MBGCMI_HIDX(1)][1] == hs[1],
                     "%s: hpow[H^1] is not hkey_from_h(E_K(0))", an);
            memcpy(hk, h, 16); /* H^k by the textbook multiply */
            for (int e = 1; e <= MBGCMI_NPOWERS; e++) {
                if (e > 1) {
                    uint8_t t[16];
                    tu_tb_gf_mul(hk, h, t);
                    memcpy(hk, t, 16);
                    /* k-fold Montgomery product */
                    uint64_t m[2];
                    mbgcmi_gf128_mont(m, k->hpow[MBGCMI_HIDX(e - 1)], k->hpow[MBGCMI_HIDX(1)]);
                    TU_CHECK(m[0] == k->hpow[MBGCMI_HIDX(e)][0] &&
                                 m[1] == k->hpow[MBGCMI_HIDX(e)][1],
                             "%s: hpow[H^%d] != mont(hpow[H^%d], hpow[H^1])", an, e, e - 1);
                }
                uint64_t vone[2], vr[2], want[2], va[2];
                to_v(one, vone);
                to_v(hk, want);
                mbgcmi_gf128_mont(vr, vone, k->hpow[MBGCMI_HIDX(e)]);
                TU_CHECK(vr[0] == want[0] && vr[1] == want[1], "%s: mont(V(1), hpow[H^%d]) != "
                         "V(H^%d)", an, e, e);
                uint8_t ab[16], ahk[16];
                tu_rng_fill(&r, ab, 16);
                tu_tb_gf_mul(ab, hk, ahk);
                to_v(ab, va);
                to_v(ahk, want);
                mbgcmi_gf128_mont(vr, va, k->hpow[MBGCMI_HIDX(e)]);
                TU_CHECK(vr[0] == want[0] && vr[1] == want[1],
                         "%s: mont(V(a), hpow[H^%d]) != V(a*H^%d)", an, e, e);
                const uint64_t kk = k->hpow[MBGCMI_HIDX(e)][0] ^ k->hpow[MBGCMI_HIDX(e)][1];
                TU_CHECK(k->hkar[MBGCMI_HIDX(e)][0] == kk && k->hkar[MBGCMI_HIDX(e)][1] == kk,
                         "%s: hkar[H^%d]", an, e);
            }
            /* mbgcmi_ghash_ct (portable) with this key against the textbook */
            uint8_t blocks[16 * 37], y[16] = {0}, sb[16];
            uint64_t s[2] = {0, 0};
            tu_rng_fill(&r, blocks, sizeof blocks);
            mbgcmi_ghash_ct(k, s, blocks, 37);
            tu_tb_ghash(h, y, blocks, 37);
            mbgcmi_v_to_block(s, sb);
            TU_MEM_EQ(sb, y, 16, "%s: mbgcmi_ghash_ct", an);
            /* mbgcmi_ghash_ct_tab: powers read in place from the key (stride -16) and from a
               four-lane table (stride 64, this key in lane it % 4) */
            static uint8_t lane_h[8][4][16], lane_k[8][4][16];
            const int lane = (int)(it % 4);
            memset(lane_h, 0x5A, sizeof lane_h);
            memset(lane_k, 0xA5, sizeof lane_k);
            for (int e = 1; e <= 8; e++) {
                memcpy(lane_h[e - 1][lane], k->hpow[MBGCMI_HIDX(e)], 16);
                memcpy(lane_k[e - 1][lane], k->hkar[MBGCMI_HIDX(e)], 16);
            }
            for (size_t nb = 1; nb <= 37; nb += (nb < 17 ? 1 : 5)) {
                for (int layout = 0; layout < 2; layout++) {
                    uint8_t y2[16];
                    tu_rng_fill(&r, y2, 16);
                    mbgcmi_block_to_v(y2, s);
                    if (layout == 0) {
                        mbgcmi_ghash_ct_tab(s, blocks, nb, (const uint8_t *)k->hpow[MBGCMI_HIDX(1)],
                                            (const uint8_t *)k->hkar[MBGCMI_HIDX(1)], -16);
                    } else {
                        mbgcmi_ghash_ct_tab(s, blocks, nb, lane_h[0][lane], lane_k[0][lane], 64);
                    }
                    tu_tb_ghash(h, y2, blocks, nb);
                    mbgcmi_v_to_block(s, sb);
                    TU_MEM_EQ(sb, y2, 16, "%s: mbgcmi_ghash_ct_tab stride %d, %zu blocks", an,
                              layout ? 64 : -16, nb);
                }
            }
            mbgcm_key_wipe(&key);
            count[arches[a]]++;
        }
    }
    tu_print_arch_counts("keys with all 32 powers checked", count);
}

/* ---- the hash-key power kernels against each other --------------------------------------------- */
/* Each kernel fills hpow[H^2..H^32] and hkar[] from hpow[H^1]: the portable one is the
   reference (hash_key_powers checks it against the textbook), the asm ones (xmm, and the ymm
   and zmm kernels that compute several powers per instruction in another order) must write the
   same bytes there and nothing anywhere else. H^1 runs over every single bit, the edge values
   and random values (any 128-bit value is a field element). */
static void hpowers_kernels(void **state)
{
    (void)state;
    static const struct {
        const char *arch;
        void (*fn)(struct mbgcmi_key *);
    } kern[] = {
        {"generic", mbgcmi_hpowers_ct},
#if defined(MBGCM_HAVE_NASM)
        {"aesni", mbgcmi_aesni_hpowers},
        {"avx2", mbgcmi_avx2_hpowers},
        {"avx512", mbgcmi_avx512_hpowers},
#endif
    };
    enum { NK = sizeof kern / sizeof kern[0], NEDGE = 128 + 8 };
    static const uint64_t edge[8][2] = {
        {0, 0}, {~UINT64_C(0), ~UINT64_C(0)}, {~UINT64_C(0), 0}, {0, ~UINT64_C(0)},
        {1, UINT64_C(0xC200000000000000)}, {UINT64_C(0x5555555555555555), UINT64_C(0xAAAAAAAAAAAAAAAA)},
        {UINT64_C(0x8000000000000000), 1}, {UINT64_C(0xFFFFFFFFFFFFFFFE), UINT64_C(0x7FFFFFFFFFFFFFFF)},
    };
    tu_rng r;
    tu_rng_init(&r, "hpowers_kernels");
    const size_t n = NEDGE + tu_scaled(3000);
    uint64_t count[NK] = {0};
    int run[NK];
    for (size_t j = 0; j < NK; j++) {
        const int a = TU_ARCH(kern[j].arch);
        run[j] = a != TU_ARCH_NONE && tu_arch_supported(a);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t h[2];
        if (i < 128) {
            h[0] = i < 64 ? UINT64_C(1) << i : 0;
            h[1] = i < 64 ? 0 : UINT64_C(1) << (i - 64);
        } else if (i < NEDGE) {
            h[0] = edge[i - 128][0], h[1] = edge[i - 128][1];
        } else {
            tu_rng_fill(&r, h, sizeof h);
        }
        mbgcm_key fill, ref;
        tu_rng_fill(&r, &fill, sizeof fill); /* garbage everywhere else */
        memcpy(mbgcmi_key_w(&fill)->hpow[MBGCMI_HIDX(1)], h, 16);
        ref = fill;
        mbgcmi_hpowers_ct(mbgcmi_key_w(&ref));
        for (size_t j = 0; j < NK; j++) {
            if (!run[j]) {
                continue;
            }
            mbgcm_key k = fill;
            kern[j].fn(mbgcmi_key_w(&k));
            TU_MEM_EQ(&k, &ref, sizeof k, "%s hpowers: H^1 = {%016llx, %016llx} (case %zu)",
                      kern[j].arch, (unsigned long long)h[0], (unsigned long long)h[1], i);
            count[j]++;
        }
    }
    printf("H^1 values, powers compared with the portable kernel's:");
    for (size_t j = 0; j < NK; j++) {
        printf(" %s=%llu", kern[j].arch, (unsigned long long)count[j]);
    }
    printf("\n");
}

/* ---- the short-message kernels ------------------------------------------------------------ */
/* The whole12 kernels with a short path, called directly (whatever lengths the one-shot routing
   gives them): mbgcmi_avx512_small12, _small12p and _small12k (one pass, up to three passes,
   one pass) for every message length 0..512 (small12p and small12k also 513..2048: chunks of 32
   blocks), mbgcmi_avx512_tiny12 for every length 1..16 and _tiny12g (GMAC) with every AAD
   length 0..16 (six keys and tag lengths each), mbgcmi_avx2_gcm12 (short path up to 1024 bytes)
   for every length 0..1040 (both sides of the limit), and mbgcmi_avx512_by32_gcm12 for every
   length 0..1552 (every tail size, 1..511 bytes: one to eight zmm in its pass, with no whole
   group before it, one and two; its first pass of 24 blocks at 513..736); every AAD length
   0..16 (cycling; for the avx2 entries also 17..80 at every length: the short path's wide AAD
   and past it; for small12 also 17..64 wherever the message and AAD blocks together are at most
   31, as the one-shot routing sends them), the by16 and by32 variants' whole12 dispatchers
   (every route they take) at every length 0..1552 with AAD of 0..80 bytes, every key size and
   tag length, encrypt and decrypt, out of place and in place, against OpenSSL: output and tag,
   nothing written past the message or the tag, a flipped bit of tag, ciphertext or AAD fails
   the tag (the caller zeroes; the kernel returns 1). */
typedef int (*whole12_fn)(const struct mbgcmi_key *, const uint8_t *, const uint8_t *, size_t,
                          const uint8_t *, size_t, uint8_t *, uint8_t *, size_t);

static void whole12_all_lengths(void **state)
{
    (void)state;
#if defined(MBGCM_HAVE_NASM)
    static const struct {
        const char *name, *arch;
        whole12_fn fn;
        size_t min_len, max_len;
        int any_aad; /* 0: AAD of at most 16 bytes only (the caller's routing guarantees it);
                        1: also 17..20 now and then; 2: also 17..64 bytes where ceil(len / 16)
                        + ceil(aad / 16) <= 31; 3: also 17..80 at every length; 4: also
                        17..64 at every length */
    } entry[] = {
        {"avx512 small12", "avx512", mbgcmi_avx512_small12, 0, 512, 2},
        {"avx512 small12p", "avx512", mbgcmi_avx512_small12p, 0, 512, 2},
        /* small12p in chunks of 32 blocks (33..128 blocks, AAD of at most 64 bytes) */
        {"avx512 small12p chunks", "avx512", mbgcmi_avx512_small12p, 513, 2048, 4},
        {"avx512 small12k", "avx512", mbgcmi_avx512_small12k, 0, 512, 2},
        {"avx512 small12k chunks", "avx512", mbgcmi_avx512_small12k, 513, 2048, 4},
        {"avx512 tiny12", "avx512", mbgcmi_avx512_tiny12, 1, 16, 0},
        {"avx512 tiny12g", "avx512", mbgcmi_avx512_tiny12g, 0, 0, 0},
        /* the variants' whole12 dispatchers: every route (small12 to its limits, the avx2
           short path, by16 / by32) at every length and AAD length around the limits */
        {"avx512 by16 whole12", "avx512", mbgcmi_avx512_by16_whole12, 0, 1552, 3},
        {"avx512 by32 whole12", "avx512", mbgcmi_avx512_by32_whole12, 0, 1552, 3},
        {"avx512 by32h whole12", "avx512", mbgcmi_avx512_by32h_whole12, 0, 1552, 3},
        {"avx512 by32 gcm12", "avx512", mbgcmi_avx512_by32_gcm12, 0, 1552, 1},
        {"avx2 gcm12", "avx2", mbgcmi_avx2_gcm12, 0, 1040, 3},
    };
    enum { MAXLEN = 2048, CAN = 80 };
    static const size_t tls[] = {4, 8, 12, 13, 14, 15, 16};
    tu_rng r;
    tu_rng_init(&r, "whole12_all_lengths");
    tu_key *keys = tu_keys_new(&r, 3, 16);
    for (size_t s = 0; s < 3; s++) {
        tu_key_random(&r, &keys[s], 16 + 8 * s);
    }
    static uint8_t pt[MAXLEN], ct[MAXLEN + CAN], out[MAXLEN + CAN], want[MAXLEN];
    uint8_t aad[80], iv[12], tag[16 + CAN], wtag[16];
    for (size_t e = 0; e < sizeof entry / sizeof entry[0]; e++) {
        const int a = TU_ARCH(entry[e].arch);
        if (a == TU_ARCH_NONE || !tu_arch_supported(a)) {
            print_message("%s: arch not supported here\n", entry[e].name);
            continue;
        }
        uint64_t cases = 0, fails = 0;
        /* an entry for a block or less: every AAD length 0..16 six times at every length */
        const size_t nv = entry[e].max_len <= 16 ? 6 * 17 : 6;
        for (size_t len = entry[e].min_len; len <= entry[e].max_len; len++) {
            for (size_t v = 0; v < nv; v++) {
                const tu_key *k = &keys[(len + v) % 3];
                size_t aad_len = entry[e].any_aad == 1 && v == 5 && len % 7 == 0
                                     ? 17 + len % 4
                                     : (len * 7 + v * 5) % 17;
                if (entry[e].any_aad == 3 && v >= 4) { /* wide AAD, past 64 now and then */
                    aad_len = 17 + (len * 13 + v) % 64;
                }
                if (entry[e].any_aad == 4 && v >= 4) { /* every wide AAD length it takes */
                    aad_len = 17 + (len * 13 + v) % 48;
                }
                if (entry[e].any_aad == 2 && v >= 4) { /* every wide AAD length it may get */
                    const size_t wide = 17 + (len * 13 + v) % 48;
                    if ((len + 15) / 16 + (wide + 15) / 16 <= 31) {
                        aad_len = wide;
                    }
                }
                const size_t tl = tls[(len + 3 * v) % 7];
                const int in_place = (int)(v & 1);
                tu_rng_fill(&r, pt, len);
                tu_rng_fill(&r, aad, sizeof aad);
                tu_rng_fill(&r, iv, sizeof iv);
                assert_int_equal(tu_ossl_gcm_encrypt(k->raw, k->len, iv, 12, aad, aad_len, pt,
                                                     len, want, wtag, tl), 0);
                const struct mbgcmi_key *ik = mbgcmi_key_c(&k->key);
                const uint8_t *ad = aad_len ? aad : NULL;
                /* encrypt */
                memset(out, 0xA5, sizeof out);
                memset(tag, 0x5A, sizeof tag);
                const uint8_t *src = pt;
                if (in_place) {
                    memcpy(out, pt, len);
                    src = out;
                }
                assert_int_equal(entry[e].fn(ik, iv, ad, aad_len, len ? src : NULL, len,
                                             len ? out : NULL, tag, tl), 0);
                TU_MEM_EQ(out, want, len, "%s encrypt: len %zu aad %zu key %zu", entry[e].name,
                          len, aad_len, k->len);
                TU_MEM_EQ(tag, wtag, tl, "%s tag: len %zu aad %zu key %zu tag %zu",
                          entry[e].name, len, aad_len, k->len, tl);
                assert_true(tu_all_byte(out + len, CAN, 0xA5));
                assert_true(tu_all_byte(tag + tl, CAN + 16 - tl, 0x5A));
                /* decrypt: the right tag, then one flipped bit of tag, ciphertext or AAD */
                for (int t = 0; t < 4; t++) {
                    memcpy(ct, want, len);
                    memset(ct + len, 0xC3, CAN);
                    uint8_t etag[16], ad2[80];
                    memcpy(etag, wtag, tl);
                    memcpy(ad2, aad, sizeof ad2);
                    int bad = t;
                    if (t == 2 && len == 0) bad = 1;
                    if (t == 3 && aad_len == 0) bad = 1;
                    const uint8_t bit = (uint8_t)(1u << tu_rng_below(&r, 8));
                    if (bad == 1) etag[tu_rng_below(&r, tl)] ^= bit;
                    if (bad == 2) ct[tu_rng_below(&r, len)] ^= bit;
                    if (bad == 3) ad2[tu_rng_below(&r, aad_len)] ^= bit;
                    uint8_t *dst = out;
                    memset(out, 0xA5, sizeof out);
                    if (in_place) dst = ct;
                    const int f = entry[e].fn(ik, iv, aad_len ? ad2 : NULL, aad_len,
                                              len ? ct : NULL, len, len ? dst : NULL, etag,
                                              tl | (size_t)1 << 8);
                    assert_int_equal(f, bad != 0);
                    fails += f;
                    if (!bad) {
                        TU_MEM_EQ(dst, pt, len, "%s decrypt: len %zu aad %zu key %zu",
                                  entry[e].name, len, aad_len, k->len);
                    }
                    assert_true(tu_all_byte(dst + len, CAN, in_place ? 0xC3 : 0xA5));
                }
                cases++;
            }
        }
        printf("%s: %llu cases (every length %zu..%zu), %llu tampered decrypts failed as they "
               "must\n", entry[e].name, (unsigned long long)cases, entry[e].min_len,
               entry[e].max_len, (unsigned long long)fails);
    }
    tu_keys_free(keys, 3);
#else
    skip();
#endif
}

/* ---- the by32 variant's pipelined burst kernel -------------------------------------------- */
/* mbgcmi_avx512_by32_jobs12 on lists of 1..64 jobs: every length 1..2100 (every tail of 1..511
   bytes as the first pass and after one, two or more whole groups; messages ending on a group
   boundary, whose last group waits with H^33), shuffled, so that each job's final GHASH and tag
   ride in a first pass of another shape, with a key of another size (distinct key objects),
   every AAD length 0..16 and tag length, in place and out of place, against OpenSSL: output and
   tag, nothing written past either. Every other list is all encrypts with at most 16 bytes of
   AAD, called directly (the kernel's contract); the others go through the by32 variant's
   jobs12 (the wrapper that sends the runs of jobs the kernel does not take to by16's pipelined
   call) with such jobs mixed in: decrypts (every other one with a flipped tag bit: its bit in the
   returned fail mask, and only its), 17..64 bytes of AAD, empty messages. */
static void by32_jobs12_all_lengths(void **state)
{
    (void)state;
#if defined(MBGCM_HAVE_NASM)
    const struct mbgcmi_arch *base = mbgcmi_arch_find("avx512");
    const struct mbgcmi_arch *by32 = base ? mbgcmi_arch_variant(base, "by32") : NULL;
    if (!tu_arch_supported(TU_ARCH("avx512")) || by32 == NULL) {
        skip();
    }
    enum { MAXLEN = 2100, NJ = 64, CAN = 48 };
    static const size_t tls[] = {4, 8, 12, 13, 14, 15, 16};
    tu_rng r;
    tu_rng_init(&r, "by32_jobs12_all_lengths");
    tu_key *keys = tu_keys_new(&r, 6, 16);
    for (size_t s = 0; s < 6; s++) {
        tu_key_random(&r, &keys[s], 16 + 8 * (s % 3));
    }
    static size_t order[2 * MAXLEN];
    size_t n_order = 0;
    for (int pass = 0; pass < 2; pass++) { /* every length twice, in two shuffles */
        for (size_t len = 1; len <= MAXLEN; len++) {
            order[n_order++] = len;
        }
    }
    for (size_t i = n_order - 1; i > 0; i--) {
        const size_t j = tu_rng_below(&r, i + 1);
        const size_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    static uint8_t pt[NJ][MAXLEN], out[NJ][MAXLEN + CAN], want[NJ][MAXLEN];
    static uint8_t aad[NJ][64], iv[NJ][12], tag[NJ][16 + CAN], wtag[NJ][16];
    static mbgcm_job job[NJ];
    static int bad[NJ];
    mbgcm_job *list[NJ];
    uint64_t cases = 0, calls = 0, others = 0, fails = 0;
    for (size_t at = 0; at < n_order;) {
        const int mixed = (int)(calls & 1);
        const size_t n = 1 + tu_rng_below(&r, NJ);
        const size_t m = n < n_order - at ? n : n_order - at;
        uint64_t want_fail = 0;
        for (size_t i = 0; i < m; i++) {
            size_t len = order[at + i];
            const tu_key *k = &keys[tu_rng_below(&r, 6)];
            size_t aad_len = tu_rng_below(&r, 17);
            const size_t tl = tls[tu_rng_below(&r, 7)];
            const int in_place = (int)tu_rng_below(&r, 2);
            const unsigned kind = mixed ? tu_rng_below(&r, 8) : 7; /* 0-1 dec, 2 AAD, 3 empty */
            if (kind == 2) {
                aad_len = 17 + tu_rng_below(&r, 48);
            }
            if (kind == 3) {
                len = 0;
            }
            others += kind < 4;
            tu_rng_fill(&r, pt[i], len);
            tu_rng_fill(&r, aad[i], sizeof aad[i]);
            tu_rng_fill(&r, iv[i], sizeof iv[i]);
            assert_int_equal(tu_ossl_gcm_encrypt(k->raw, k->len, iv[i], 12, aad[i], aad_len,
                                                 pt[i], len, want[i], wtag[i], tl), 0);
            memset(out[i], 0xA5, sizeof out[i]);
            memset(tag[i], 0x5A, sizeof tag[i]);
            const int dec = kind < 2;
            bad[i] = kind == 1;
            if (dec) {
                memcpy(tag[i], wtag[i], tl);
                if (bad[i]) {
                    tag[i][tu_rng_below(&r, tl)] ^= (uint8_t)(1u << tu_rng_below(&r, 8));
                    want_fail |= UINT64_C(1) << i;
                }
            }
            const uint8_t *in = dec ? want[i] : pt[i];
            if (in_place) {
                memcpy(out[i], in, len);
                in = out[i];
            }
            job[i] = (mbgcm_job){.key = &k->key, .dir = dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT,
                                 .iv = iv[i], .iv_len = 12, .aad = aad_len ? aad[i] : NULL,
                                 .aad_len = aad_len, .src = len ? in : NULL,
                                 .dst = len ? out[i] : NULL, .len = len, .tag = tag[i],
                                 .tag_len = tl};
            list[i] = &job[i];
        }
        if (mixed) {
            const uint64_t f = by32->ops->jobs12(list, m);
            assert_true(f == want_fail);
            fails += (uint64_t)__builtin_popcountll(f);
        } else {
            mbgcmi_avx512_by32_jobs12(list, m);
        }
        calls++;
        for (size_t i = 0; i < m; i++) {
            const mbgcm_job *j = &job[i];
            const int dec = j->dir == MBGCM_DECRYPT;
            if (!bad[i]) {
                TU_MEM_EQ(out[i], dec ? pt[i] : want[i], j->len, "by32 jobs12: job %zu of %zu "
                          "(%s), len %zu aad %zu key %u", i, m, dec ? "dec" : "enc", j->len,
                          j->aad_len, (unsigned)mbgcmi_key_c(j->key)->rounds);
            }
            if (!dec) {
                TU_MEM_EQ(tag[i], wtag[i], j->tag_len, "by32 jobs12 tag: job %zu of %zu, len "
                          "%zu aad %zu tag %zu", i, m, j->len, j->aad_len, j->tag_len);
            }
            assert_true(tu_all_byte(out[i] + j->len, CAN, 0xA5));
            assert_true(tu_all_byte(tag[i] + 16, CAN, 0x5A));
            if (!dec) {
                assert_true(tu_all_byte(tag[i] + j->tag_len, 16 - j->tag_len, 0x5A));
            }
            cases++;
        }
        at += m;
    }
    printf("by32 jobs12: %llu jobs (every length 1..%d twice) in %llu calls, %llu of them "
           "decrypts, wide AAD or empty (%llu tampered decrypts failed as they must)\n",
           (unsigned long long)cases, MAXLEN, (unsigned long long)calls,
           (unsigned long long)others, (unsigned long long)fails);
    tu_keys_free(keys, 6);
#else
    skip();
#endif
}

/* ---- layout: struct offsets against arch/x86/include/key.inc ------------------------------------------ */
static void strip_spaces(char *s)
{
    char *d = s;
    for (; *s; s++) {
        if (!isspace((unsigned char)*s)) *d++ = *s;
    }
    *d = '\0';
}

static void layout_matches_key_inc(void **state)
{
    (void)state;
    FILE *f = fopen(MBGCM_KEY_INC, "r");
    if (f == NULL) {
        fail_msg("cannot open %s", MBGCM_KEY_INC);
    }
    long rk = -1, rounds = -1, hpow = -1, hkar = -1;
    char hpow_f[256] = "", hkar_f[256] = "", line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        char name[64], rest[256];
        if (sscanf(line, " %%define %63s %255[^\n]", name, rest) != 2) {
            continue;
        }
        char *semi = strchr(rest, ';');
        if (semi) *semi = '\0';
        strip_spaces(rest);
        char *end;
        const long v = strtol(rest, &end, 0);
        if (strcmp(name, "KEY_RK") == 0 && *end == '\0') rk = v;
        if (strcmp(name, "KEY_ROUNDS") == 0 && *end == '\0') rounds = v;
        if (strcmp(name, "KEY_HPOW") == 0 && *end == '\0') hpow = v;
        if (strcmp(name, "KEY_HKAR") == 0 && *end == '\0') hkar = v;
        if (strcmp(name, "HPOW(k)") == 0) snprintf(hpow_f, sizeof hpow_f, "%s", rest);
        if (strcmp(name, "HKAR(k)") == 0) snprintf(hkar_f, sizeof hkar_f, "%s", rest);
    }
    fclose(f);
    print_message("key.inc: KEY_RK=%ld KEY_ROUNDS=%ld KEY_HPOW=%ld KEY_HKAR=%ld HPOW(k)=%s "
                  "HKAR(k)=%s\n", rk, rounds, hpow, hkar, hpow_f, hkar_f);
    assert_int_equal(rk, offsetof(struct mbgcmi_key, rk));
    assert_int_equal(rk, MBGCMI_OFF_RK);
    assert_int_equal(rounds, offsetof(struct mbgcmi_key, rounds));
    assert_int_equal(rounds, MBGCMI_OFF_ROUNDS);
    assert_int_equal(hpow, offsetof(struct mbgcmi_key, hpow));
    assert_int_equal(hpow, MBGCMI_OFF_HPOW);
    assert_int_equal(hkar, offsetof(struct mbgcmi_key, hkar));
    assert_int_equal(hkar, MBGCMI_OFF_HKAR);
    /* H^k sits at base + (32 - k) * 16 in both descriptions */
    assert_string_equal(hpow_f, "(KEY_HPOW+(32-(k))*16)");
    assert_string_equal(hkar_f, "(KEY_HKAR+(32-(k))*16)");
    assert_int_equal(MBGCMI_NPOWERS, 32);
    for (int k = 1; k <= MBGCMI_NPOWERS; k++) {
        assert_int_equal(offsetof(struct mbgcmi_key, hpow) + 16 * (size_t)MBGCMI_HIDX(k),
                         (size_t)(hpow + (32 - k) * 16));
        assert_int_equal(offsetof(struct mbgcmi_key, hkar) + 16 * (size_t)MBGCMI_HIDX(k),
                         (size_t)(hkar + (32 - k) * 16));
    }
    /* the rest of the documented layout */
    assert_int_equal(offsetof(struct mbgcmi_key, key_len), 244);
    assert_int_equal(offsetof(struct mbgcmi_key, magic), 248);
    assert_int_equal(offsetof(struct mbgcmi_key, reserved), 1280);
    assert_int_equal(sizeof(struct mbgcmi_key), MBGCM_KEY_SIZE);
    assert_int_equal(sizeof(mbgcm_key), MBGCM_KEY_SIZE);
    assert_int_equal(alignof(mbgcm_key), 64);
}

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(len_block_limits),
        cmocka_unit_test(inc32_wraps),
        cmocka_unit_test(util_helpers),
        cmocka_unit_test(textbook_matches_openssl),
        cmocka_unit_test(counter_wrap),
        cmocka_unit_test(gmac_aad_edges),
        cmocka_unit_test(ops_kernels),
        cmocka_unit_test(j0_all_lengths),
        cmocka_unit_test(sbox_all_values),
        cmocka_unit_test(key_expansion_all_arches),
        cmocka_unit_test(aes_ct_encrypt4_mixed_keys),
        cmocka_unit_test(gf128_mont_vs_textbook),
        cmocka_unit_test(hash_key_powers),
        cmocka_unit_test(hpowers_kernels),
        cmocka_unit_test(whole12_all_lengths),
        cmocka_unit_test(by32_jobs12_all_lengths),
        cmocka_unit_test(layout_matches_key_inc),
    };
    return cmocka_run_group_tests_name("gcm_internal", tests, setup, NULL) ? 1 : 0;
}
