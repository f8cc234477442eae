/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_roundtrip.c — Cobblestone round trips at the lengths that matter (0, 1, 16383,
 * 16384, 16385, 32768 and a multi-MiB message), for both key sizes, every arch the managers
 * can run (small lengths only on the portable C path), one-shot and streaming (random piece
 * sizes, 1 to 3 threads), and across the two (one-shot seal -> streaming open and back; the
 * reader reads everything). Every sealed message is also opened by the OpenSSL-only reference
 * (test_cobble_common.c), and a reference-sealed message with a chosen salt must be opened by
 * the library: the format is checked, not only self-consistency. Two seals of one plaintext
 * differ (fresh salts). Seed printed; MBGCM_SEED replays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_cobble_common.h"

static tu_rng rng;

/* Seal with the streaming API, input cut in random pieces. Returns the sealed length. */
static size_t stream_seal(const uint8_t *key, size_t kl, const uint8_t *ctx, size_t cl,
                          const uint8_t *pt, size_t pt_len, uint8_t *out,
                          const mbgcm_cobble_opts *opts, size_t max_piece)
{
    mbgcm_cobble_sealer *s;
    assert_int_equal(mbgcm_cobble_sealer_new(&s, out, key, kl, ctx, cl, opts), MBGCM_OK);
    size_t o = 56, i = 0;
    while (i < pt_len || tu_rng_below(&rng, 8) == 0) {
        size_t piece =
            tu_rng_below(&rng, 3) == 0 ? tu_rng_below(&rng, 40) : tu_rng_below(&rng, max_piece + 1);
        if (piece > pt_len - i) {
            piece = pt_len - i;
        }
        size_t n = 0;
        assert_int_equal(mbgcm_cobble_sealer_update(s, out + o, &n,
                                                    MBGCM_COBBLE_SEAL_UPDATE_MAX(piece),
                                                    piece ? pt + i : NULL, piece),
                         MBGCM_OK);
        assert_int_equal(n % MBGCM_COBBLE_SEALED_CHUNK_LEN, 0);
        o += n;
        i += piece;
        if (i == pt_len && tu_rng_below(&rng, 2)) {
            break;
        }
    }
    size_t n = 0;
    assert_int_equal(mbgcm_cobble_sealer_finish(s, out + o, &n, MBGCM_COBBLE_SEAL_FINISH_MAX),
                     MBGCM_OK);
    /* finished: further calls are misuse */
    size_t junk;
    assert_int_equal(mbgcm_cobble_sealer_finish(s, out + o, &junk, 0), MBGCM_ERR_INVALID);
    mbgcm_cobble_sealer_free(s);
    return o + n;
}

/* Open with the streaming API in random pieces (the header too: first 56 bytes). */
static size_t stream_open(const uint8_t *key, size_t kl, const uint8_t *ctx, size_t cl,
                          const uint8_t *ct, size_t ct_len, uint8_t *out,
                          const mbgcm_cobble_opts *opts, size_t max_piece)
{
    mbgcm_cobble_opener *o;
    assert_int_equal(mbgcm_cobble_opener_new(&o, key, kl, ctx, cl, ct, 56, opts), MBGCM_OK);
    size_t w = 0, i = 56;
    while (i < ct_len) {
        size_t piece =
            tu_rng_below(&rng, 3) == 0 ? tu_rng_below(&rng, 40) : tu_rng_below(&rng, max_piece + 1);
        if (piece > ct_len - i) {
            piece = ct_len - i;
        }
        size_t n = 0;
        assert_int_equal(mbgcm_cobble_opener_update(o, out + w, &n,
                                                    MBGCM_COBBLE_OPEN_UPDATE_MAX(piece),
                                                    piece ? ct + i : NULL, piece),
                         MBGCM_OK);
        assert_int_equal(n % MBGCM_COBBLE_CHUNK_LEN, 0);
        w += n;
        i += piece;
    }
    size_t n = 0;
    assert_int_equal(mbgcm_cobble_opener_finish(o, out + w, &n, MBGCM_COBBLE_OPEN_FINISH_MAX),
                     MBGCM_OK);
    uint64_t idx;
    assert_int_equal(mbgcm_cobble_opener_failed_chunk(o, &idx), MBGCM_ERR_INVALID);
    mbgcm_cobble_opener_free(o);
    return w + n;
}

static void check_ref_open(const uint8_t *key, size_t kl, const uint8_t *ctx, size_t cl,
                           const uint8_t *ct, size_t ct_len, const uint8_t *pt, size_t pt_len)
{
    uint8_t *back = tu_xmalloc(ct_len);
    size_t n = 0;
    TU_CHECK(tc_ref_open(key, kl, ctx, cl, ct, ct_len, back, &n) == 0,
             "the OpenSSL reference rejects a message sealed by mbgcm (%zu bytes)", pt_len);
    assert_int_equal(n, pt_len);
    TU_MEM_EQ(back, pt, pt_len, "reference open");
    free(back);
}

static void roundtrip(const char *arch, size_t kl, size_t pt_len, int fast)
{
    uint8_t key[32], ctx[40];
    tu_rng_fill(&rng, key, kl);
    const size_t cl = tu_rng_below(&rng, 3) == 0 ? 0 : tu_rng_below(&rng, sizeof ctx + 1);
    tu_rng_fill(&rng, ctx, cl);
    uint8_t *pt = tu_xmalloc(pt_len), *pt2 = tu_xmalloc(pt_len + 1);
    tu_rng_fill(&rng, pt, pt_len);
    const size_t clen = tc_sealed_len(pt_len);
    uint8_t *ct = tu_xmalloc(clen + 1), *ct2 = tu_xmalloc(clen + 1);
    const unsigned threads = fast ? 1 + (unsigned)tu_rng_below(&rng, 3) : 1;
    const mbgcm_cobble_opts opts = {.threads = threads, .arch = arch};
    char what[128];
    snprintf(what, sizeof what, "arch %s, AES-%zu, %zu bytes, %u thread(s)", arch ? arch : "auto",
             kl * 8, pt_len, threads);

    /* one-shot seal, one-shot open */
    size_t n = 0;
    ct[clen] = 0x5A;
    assert_int_equal(
        mbgcm_cobble_seal(ct, &n, clen, key, kl, ctx, cl, pt_len ? pt : NULL, pt_len, &opts),
        MBGCM_OK);
    assert_int_equal(n, clen);
    assert_int_equal(ct[clen], 0x5A);
    memset(pt2, 0xEE, pt_len + 1);
    assert_int_equal(mbgcm_cobble_open(pt2, &n, pt_len, key, kl, ctx, cl, ct, clen, &opts),
                     MBGCM_OK);
    assert_int_equal(n, pt_len);
    TU_MEM_EQ(pt2, pt, pt_len, "one-shot round trip, %s", what);
    assert_int_equal(pt2[pt_len], 0xEE);
    size_t ol = 0;
    assert_int_equal(mbgcm_cobble_opened_len(clen, &ol), MBGCM_OK);
    assert_int_equal(ol, pt_len);
    check_ref_open(key, kl, ctx, cl, ct, clen, pt, pt_len);

    /* a second seal: another salt, so another message */
    assert_int_equal(mbgcm_cobble_seal(ct2, &n, clen, key, kl, ctx, cl, pt, pt_len, &opts),
                     MBGCM_OK);
    TU_CHECK(memcmp(ct, ct2, 24) != 0, "two seals with the same salt");

    /* streaming seal -> one-shot open; one-shot seal -> streaming open */
    const size_t max_piece = fast ? 3 * 16384 + 100 : 20000;
    n = stream_seal(key, kl, ctx, cl, pt, pt_len, ct2, &opts, max_piece);
    assert_int_equal(n, clen);
    memset(pt2, 0, pt_len + 1);
    assert_int_equal(mbgcm_cobble_open(pt2, &n, pt_len, key, kl, ctx, cl, ct2, clen, &opts),
                     MBGCM_OK);
    TU_MEM_EQ(pt2, pt, pt_len, "streaming seal, %s", what);
    check_ref_open(key, kl, ctx, cl, ct2, clen, pt, pt_len);
    memset(pt2, 0, pt_len + 1);
    n = stream_open(key, kl, ctx, cl, ct, clen, pt2, &opts, max_piece);
    assert_int_equal(n, pt_len);
    TU_MEM_EQ(pt2, pt, pt_len, "streaming open, %s", what);

    /* reference seal with a chosen salt -> the library opens it */
    uint8_t salt[24];
    tu_rng_fill(&rng, salt, sizeof salt);
    n = tc_ref_seal(key, kl, ctx, cl, salt, pt, pt_len, ct2);
    assert_int_equal(n, clen);
    memset(pt2, 0, pt_len + 1);
    assert_int_equal(mbgcm_cobble_open(pt2, &n, pt_len, key, kl, ctx, cl, ct2, clen, &opts),
                     MBGCM_OK);
    TU_MEM_EQ(pt2, pt, pt_len, "open of a reference-sealed message, %s", what);

    /* the reader reads it all */
    mbgcm_cobble_reader *r;
    uint64_t size = 0;
    assert_int_equal(mbgcm_cobble_reader_new(&r, key, kl, ctx, cl, ct, clen, &opts), MBGCM_OK);
    assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_OK);
    assert_int_equal(size, pt_len);
    memset(pt2, 0, pt_len + 1);
    assert_int_equal(mbgcm_cobble_reader_read(r, pt2, 0, pt_len), MBGCM_OK);
    TU_MEM_EQ(pt2, pt, pt_len, "reader, %s", what);
    mbgcm_cobble_reader_free(r);

    free(pt), free(pt2), free(ct), free(ct2);
}

static void test_lengths(void **state)
{
    (void)state;
    const char *arches[5];
    int fast[5];
    const int na = tc_arches(arches, fast);
    static const size_t lens[] = {0, 1, 16383, 16384, 16385, 32768};
    for (int a = 0; a < na; a++) {
        for (size_t kl = 16; kl <= 32; kl += 16) {
            for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
                if (!fast[a] && lens[i] > 16385) {
                    continue; /* the portable C path runs at about 15 MB/s */
                }
                roundtrip(arches[a], kl, lens[i], fast[a]);
            }
        }
    }
}

static void test_multi_mib(void **state)
{
    (void)state;
    const int fast = tu_arch_best() != TU_ARCH("generic");
    /* several MiB with vector kernels; one MiB and change on the portable C path */
    const size_t len = fast ? (5u << 20) + 12345 : (1u << 20) + 777;
    roundtrip(NULL, 32, len, fast);
    roundtrip(NULL, 16, fast ? (2u << 20) : 65536 + 1, fast);
}

/* A caller-supplied manager with ring jobs in flight: Cobblestone bursts leave them alone. */
static void test_caller_manager(void **state)
{
    (void)state;
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    assert_non_null(m);
    tu_key k;
    tu_key_random(&rng, &k, 16);
    uint8_t iv[12] = {1}, src[100], dst[100], tag[16];
    tu_rng_fill(&rng, src, sizeof src);
    mbgcm_job *job = mbgcm_get_next_job(m);
    memset(job, 0, sizeof *job);
    job->key = &k.key, job->dir = MBGCM_ENCRYPT, job->iv = iv, job->iv_len = 12;
    job->src = src, job->dst = dst, job->len = sizeof src, job->tag = tag, job->tag_len = 16;
    job->user_data = src;
    job = mbgcm_submit_job(m);

    uint8_t key[32], pt[40000], ct[40200], back[40000];
    tu_rng_fill(&rng, key, sizeof key);
    tu_rng_fill(&rng, pt, sizeof pt);
    const mbgcm_cobble_opts opts = {.mgr = m, .threads = 2};
    size_t n;
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 32, NULL, 0, pt, sizeof pt, &opts),
                     MBGCM_OK);
    assert_int_equal(mbgcm_cobble_open(back, &n, sizeof back, key, 32, NULL, 0, ct, n, &opts),
                     MBGCM_OK);
    TU_MEM_EQ(back, pt, sizeof pt, "with the caller's manager");

    if (job == NULL) {
        job = mbgcm_flush_job(m);
    }
    assert_non_null(job);
    assert_ptr_equal(job->user_data, src);
    assert_int_equal(job->status, MBGCM_OK);
    uint8_t want[100], want_tag[16];
    tu_ref_encrypt(&k, iv, 12, NULL, 0, src, sizeof src, want, want_tag);
    TU_MEM_EQ(dst, want, sizeof want, "ring job beside Cobblestone bursts");
    assert_null(mbgcm_flush_job(m));
    mbgcm_mgr_free(m);
}

int main(void)
{
    tu_rng_init(&rng, "cobble-roundtrip");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_multi_mib),
        cmocka_unit_test(test_caller_manager),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
