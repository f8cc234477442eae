/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_api.c — the Cobblestone API contract apart from the data paths:
 *   lengths (sealed_len/opened_len at every boundary and at the 2^38-chunk limit);
 *   argument errors of every call, each with nothing written (canaries) and no state change
 *   (an update refused for lack of room can be retried and the message still opens);
 *   the chunk-index limit: a sealer or opener moved (test hook) next to 2^38 chunks seals and
 *   opens the last allowed chunk and refuses to go further, for good;
 *   options (bad thread counts, a forced arch, an unknown arch, many threads);
 *   status texts. Seed printed; MBGCM_SEED replays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_cobble_common.h"

#define C    MBGCM_COBBLE_CHUNK_LEN
#define S    MBGCM_COBBLE_SEALED_CHUNK_LEN
#define MAXC MBGCM_COBBLE_MAX_CHUNKS

static tu_rng rng;

static void test_lengths(void **state)
{
    (void)state;
    size_t n = 0;
    assert_int_equal(mbgcm_cobble_sealed_len(0, &n), MBGCM_OK);
    assert_int_equal(n, 72);
    assert_int_equal(mbgcm_cobble_sealed_len(C - 1, &n), MBGCM_OK);
    assert_int_equal(n, 56 + C - 1 + 16);
    assert_int_equal(mbgcm_cobble_sealed_len(C, &n), MBGCM_OK);
    assert_int_equal(n, 56 + C + 32);
    assert_int_equal(mbgcm_cobble_sealed_len((size_t)(MAXC * C - 1), &n), MBGCM_OK);
    assert_int_equal(n, 56 + MAXC * C - 1 + 16 * MAXC);
    assert_int_equal(mbgcm_cobble_sealed_len((size_t)(MAXC * C), &n), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_cobble_sealed_len(SIZE_MAX, &n), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_cobble_sealed_len(5, NULL), MBGCM_ERR_INVALID);

    const struct {
        size_t ct;
        int st;
        size_t pt;
    } o[] = {
        {0, MBGCM_ERR_TRUNCATED, 0},
        {55, MBGCM_ERR_TRUNCATED, 0},
        {56, MBGCM_ERR_TRUNCATED, 0},
        {71, MBGCM_ERR_TRUNCATED, 0},
        {72, MBGCM_OK, 0},
        {73, MBGCM_OK, 1},
        {56 + S - 1, MBGCM_OK, C - 1},
        {56 + S, MBGCM_ERR_TRUNCATED, 0},
        {56 + S + 15, MBGCM_ERR_TRUNCATED, 0},
        {56 + S + 16, MBGCM_OK, C},
        {56 + 3 * S + 17, MBGCM_OK, 3 * C + 1},
        {(size_t)(56 + (MAXC - 1) * S + 16), MBGCM_OK, (size_t)((MAXC - 1) * C)},
        {(size_t)(56 + MAXC * S + 16), MBGCM_ERR_LEN, 0},
    };
    for (size_t i = 0; i < sizeof o / sizeof o[0]; i++) {
        n = 999;
        TU_CHECK(mbgcm_cobble_opened_len(o[i].ct, &n) == o[i].st, "opened_len(%zu)", o[i].ct);
        if (o[i].st == MBGCM_OK) {
            TU_CHECK(n == o[i].pt, "opened_len(%zu) = %zu, expected %zu", o[i].ct, n, o[i].pt);
        }
    }
    assert_int_equal(mbgcm_cobble_opened_len(100, NULL), MBGCM_ERR_INVALID);
}

static void test_oneshot_arguments(void **state)
{
    (void)state;
    uint8_t key[32], pt[1000], ct[2000], back[1100], ctx[3] = {1, 2, 3};
    tu_rng_fill(&rng, key, sizeof key);
    tu_rng_fill(&rng, pt, sizeof pt);
    const size_t clen = tc_sealed_len(sizeof pt);
    size_t n = 7;
    const mbgcm_cobble_opts bad_threads = {.threads = 257};
    const mbgcm_cobble_opts bogus = {.arch = "bogus"};
    memset(ct, 0xCC, sizeof ct);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 24, NULL, 0, pt, 10, NULL),
                     MBGCM_ERR_KEY_LEN);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 0, NULL, 0, pt, 10, NULL),
                     MBGCM_ERR_KEY_LEN);
    assert_int_equal(mbgcm_cobble_seal(NULL, &n, sizeof ct, key, 32, NULL, 0, pt, 10, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_seal(ct, NULL, sizeof ct, key, 32, NULL, 0, pt, 10, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, NULL, 32, NULL, 0, pt, 10, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 32, NULL, 3, pt, 10, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 32, NULL, 0, NULL, 10, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 32, NULL, 0, pt, 10, &bad_threads),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, clen - 1, key, 32, ctx, 3, pt, sizeof pt, NULL),
                     MBGCM_ERR_OUT_SPACE);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 32, NULL, 0, ct + 50, 10, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_seal(ct, &n, sizeof ct, key, 32, NULL, 0, pt, 10, &bogus),
                     MBGCM_ERR_UNSUPPORTED);
    assert_int_equal(n, 7);
    TU_CHECK(tu_all_byte(ct, sizeof ct, 0xCC), "a refused seal wrote");

    /* a good one, with the portable arch forced */
    const mbgcm_cobble_opts generic = {.arch = "generic"};
    assert_int_equal(mbgcm_cobble_seal(ct, &n, clen, key, 32, ctx, 3, pt, sizeof pt, &generic),
                     MBGCM_OK);
    assert_int_equal(n, clen);

    memset(back, 0xCC, sizeof back);
    n = 7;
    assert_int_equal(mbgcm_cobble_open(back, &n, sizeof back, key, 16, ctx, 3, ct, clen, NULL),
                     MBGCM_ERR_COMMITMENT);
    assert_int_equal(n, 0);
    n = 7;
    assert_int_equal(mbgcm_cobble_open(back, &n, sizeof back, key, 31, ctx, 3, ct, clen, NULL),
                     MBGCM_ERR_KEY_LEN);
    assert_int_equal(mbgcm_cobble_open(back, &n, sizeof pt - 1, key, 32, ctx, 3, ct, clen, NULL),
                     MBGCM_ERR_OUT_SPACE);
    assert_int_equal(mbgcm_cobble_open(NULL, &n, sizeof back, key, 32, ctx, 3, ct, clen, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_open(back, &n, sizeof back, key, 32, ctx, 3, NULL, clen, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_open(ct + 60, &n, sizeof pt, key, 32, ctx, 3, ct, clen, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(
        mbgcm_cobble_open(back, &n, sizeof back, key, 32, ctx, 3, ct, clen, &bad_threads),
        MBGCM_ERR_INVALID);
    TU_CHECK(tu_all_byte(back, sizeof back, 0xCC), "a refused open wrote");
    assert_int_equal(mbgcm_cobble_open(back, &n, sizeof pt, key, 32, ctx, 3, ct, clen, &generic),
                     MBGCM_OK);
    TU_MEM_EQ(back, pt, sizeof pt, "open with arch generic");

    /* raw mode */
    const uint8_t nonce[12] = {0};
    assert_int_equal(mbgcm_cobble_hazmat_raw_seal(ct, &n, sizeof ct, key, 32, NULL, pt, 10, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_hazmat_raw_seal(ct, &n, sizeof ct, key, 24, nonce, pt, 10, NULL),
                     MBGCM_ERR_KEY_LEN);
    assert_int_equal(mbgcm_cobble_hazmat_raw_seal(ct, &n, 10 + 15, key, 16, nonce, pt, 10, NULL),
                     MBGCM_ERR_OUT_SPACE);
    assert_int_equal(mbgcm_cobble_hazmat_raw_seal(ct, &n, 26, key, 16, nonce, pt, 10, NULL),
                     MBGCM_OK);
    assert_int_equal(n, 26);
    assert_int_equal(mbgcm_cobble_hazmat_raw_open(back, &n, 9, key, 16, nonce, ct, 26, NULL),
                     MBGCM_ERR_OUT_SPACE);
    assert_int_equal(mbgcm_cobble_hazmat_raw_open(back, &n, 10, key, 16, NULL, ct, 26, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_hazmat_raw_open(back, &n, 10, key, 16, nonce, ct, 15, NULL),
                     MBGCM_ERR_TRUNCATED);
    assert_int_equal(mbgcm_cobble_hazmat_raw_open(back, &n, 10, key, 16, nonce, ct, 26, NULL),
                     MBGCM_OK);
    TU_MEM_EQ(back, pt, 10, "raw round trip");
}

static void test_stream_arguments(void **state)
{
    (void)state;
    /* key: 32 bytes, the wrong-size case reads them all */
    uint8_t key[32], hdr[56], pt[3 * C + 5], ct[4 * S + 100], back[3 * C + 5];
    tu_rng_fill(&rng, key, sizeof key);
    tu_rng_fill(&rng, pt, sizeof pt);
    mbgcm_cobble_sealer *s = (mbgcm_cobble_sealer *)(uintptr_t)1;
    assert_int_equal(mbgcm_cobble_sealer_new(&s, hdr, key, 15, NULL, 0, NULL), MBGCM_ERR_KEY_LEN);
    assert_null(s);
    assert_int_equal(mbgcm_cobble_sealer_new(NULL, hdr, key, 16, NULL, 0, NULL), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_sealer_new(&s, NULL, key, 16, NULL, 0, NULL), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_sealer_new(&s, hdr, key, 16, NULL, 1, NULL), MBGCM_ERR_INVALID);
    const mbgcm_cobble_opts bogus = {.arch = "no-such-arch"};
    assert_int_equal(mbgcm_cobble_sealer_new(&s, hdr, key, 16, NULL, 0, &bogus),
                     MBGCM_ERR_UNSUPPORTED);
    assert_null(s);

    const mbgcm_cobble_opts eight = {.threads = 8};
    assert_int_equal(mbgcm_cobble_sealer_new(&s, hdr, key, 16, NULL, 0, &eight), MBGCM_OK);
    memcpy(ct, hdr, 56);
    size_t o = 56, n = 0;
    /* 100 bytes buffered, then an update completing two chunks with too little room */
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct + o, &n, 0, pt, 100), MBGCM_OK);
    assert_int_equal(n, 0);
    memset(ct + o, 0xCC, 2 * S);
    n = 99;
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct + o, &n, 2 * S - 1, pt + 100, 2 * C),
                     MBGCM_ERR_OUT_SPACE);
    assert_int_equal(n, 99);
    TU_CHECK(tu_all_byte(ct + o, 2 * S, 0xCC), "refused update wrote");
    assert_int_equal(mbgcm_cobble_sealer_update(s, NULL, &n, 0, pt + 100, 2 * C),
                     MBGCM_ERR_OUT_SPACE);
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct + o, &n, 2 * S, NULL, 2 * C),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct + o, NULL, 2 * S, pt + 100, 2 * C),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_sealer_update(NULL, ct + o, &n, 2 * S, pt + 100, 2 * C),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_sealer_update(s, pt + 200, &n, 2 * S, pt + 100, 2 * C),
                     MBGCM_ERR_INVALID); /* overlap */
    /* the same update with room: nothing was lost */
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct + o, &n, 2 * S, pt + 100, 2 * C), MBGCM_OK);
    assert_int_equal(n, 2 * S);
    o += n;
    assert_int_equal(
        mbgcm_cobble_sealer_update(s, ct + o, &n, S, pt + 100 + 2 * C, sizeof pt - 100 - 2 * C),
        MBGCM_OK);
    o += n;
    assert_int_equal(mbgcm_cobble_sealer_finish(s, ct + o, &n, 4), MBGCM_ERR_OUT_SPACE);
    assert_int_equal(mbgcm_cobble_sealer_finish(s, ct + o, &n, MBGCM_COBBLE_SEAL_FINISH_MAX),
                     MBGCM_OK);
    o += n;
    assert_int_equal(o, tc_sealed_len(sizeof pt));
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct, &n, S, pt, 1), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_sealer_finish(s, ct, &n, S), MBGCM_ERR_INVALID);
    mbgcm_cobble_sealer_free(s);
    mbgcm_cobble_sealer_free(NULL);
    assert_int_equal(mbgcm_cobble_open(back, &n, sizeof back, key, 16, NULL, 0, ct, o, NULL),
                     MBGCM_OK);
    TU_MEM_EQ(back, pt, sizeof pt, "stream seal after refused updates");

    /* opener */
    mbgcm_cobble_opener *op = (mbgcm_cobble_opener *)(uintptr_t)1;
    assert_int_equal(mbgcm_cobble_opener_new(&op, key, 16, NULL, 0, ct, 57, NULL),
                     MBGCM_ERR_INVALID);
    assert_null(op);
    assert_int_equal(mbgcm_cobble_opener_new(&op, key, 16, NULL, 0, ct, 55, NULL),
                     MBGCM_ERR_TRUNCATED);
    assert_int_equal(mbgcm_cobble_opener_new(&op, key, 16, NULL, 0, NULL, 0, NULL),
                     MBGCM_ERR_TRUNCATED);
    assert_int_equal(mbgcm_cobble_opener_new(&op, key, 16, NULL, 0, NULL, 56, NULL),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_opener_new(&op, key, 32, NULL, 0, ct, 56, NULL),
                     MBGCM_ERR_COMMITMENT);
    assert_int_equal(mbgcm_cobble_opener_new(&op, key, 16, NULL, 0, ct, 56, &eight), MBGCM_OK);
    uint64_t idx;
    assert_int_equal(mbgcm_cobble_opener_failed_chunk(op, &idx), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_opener_failed_chunk(op, NULL), MBGCM_ERR_INVALID);
    memset(back, 0xCC, sizeof back);
    assert_int_equal(mbgcm_cobble_opener_update(op, back, &n, C - 1, ct + 56, 3 * S),
                     MBGCM_ERR_OUT_SPACE);
    TU_CHECK(tu_all_byte(back, sizeof back, 0xCC), "refused opener update wrote");
    assert_int_equal(mbgcm_cobble_opener_update(op, ct + 100, &n, 3 * C, ct + 56, 3 * S),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_opener_update(op, back, &n, 3 * C, ct + 56, 3 * S), MBGCM_OK);
    assert_int_equal(n, 3 * C);
    assert_int_equal(mbgcm_cobble_opener_update(op, back + n, &n, 0, ct + 56 + 3 * S, 21),
                     MBGCM_OK);
    assert_int_equal(n, 0);
    assert_int_equal(mbgcm_cobble_opener_finish(op, back + 3 * C, &n, 4), MBGCM_ERR_OUT_SPACE);
    assert_int_equal(mbgcm_cobble_opener_finish(op, back + 3 * C, &n, 5), MBGCM_OK);
    TU_MEM_EQ(back, pt, sizeof pt, "stream open");
    assert_int_equal(mbgcm_cobble_opener_finish(op, back, &n, 5), MBGCM_ERR_INVALID);
    mbgcm_cobble_opener_free(op);
    mbgcm_cobble_opener_free(NULL);
}

/* Near 2^38 chunks: the last allowed index works, the next one is refused for good. */
static void test_chunk_limit(void **state)
{
    (void)state;
    uint8_t key[32], hdr[56], pt[C], ct[2 * S], back[C];
    tu_rng_fill(&rng, key, sizeof key);
    tu_rng_fill(&rng, pt, sizeof pt);
    size_t n;
    mbgcm_cobble_sealer *s;
    /* index 2^38-2 full, then the final at 2^38-1 */
    assert_int_equal(mbgcm_cobble_sealer_new(&s, hdr, key, 32, NULL, 0, NULL), MBGCM_OK);
    mbgcmi_cob_sealer_set_index(s, MAXC - 2);
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct, &n, S, pt, C), MBGCM_OK);
    assert_int_equal(n, S);
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct + S, &n, S, pt, 100), MBGCM_OK);
    assert_int_equal(mbgcm_cobble_sealer_finish(s, ct + S, &n, S), MBGCM_OK);
    assert_int_equal(n, 116);
    mbgcm_cobble_sealer_free(s);
    /* open them at the same indices */
    mbgcm_cobble_opener *o;
    assert_int_equal(mbgcm_cobble_opener_new(&o, key, 32, NULL, 0, hdr, 56, NULL), MBGCM_OK);
    mbgcmi_cob_opener_set_index(o, MAXC - 2);
    assert_int_equal(mbgcm_cobble_opener_update(o, back, &n, C, ct, S), MBGCM_OK);
    TU_MEM_EQ(back, pt, C, "chunk 2^38-2");
    assert_int_equal(mbgcm_cobble_opener_update(o, back, &n, C, ct + S, 116), MBGCM_OK);
    assert_int_equal(mbgcm_cobble_opener_finish(o, back, &n, C), MBGCM_OK);
    assert_int_equal(n, 100);
    TU_MEM_EQ(back, pt, 100, "final chunk 2^38-1");
    mbgcm_cobble_opener_free(o);
    /* the same chunk at a wrong index fails */
    assert_int_equal(mbgcm_cobble_opener_new(&o, key, 32, NULL, 0, hdr, 56, NULL), MBGCM_OK);
    mbgcmi_cob_opener_set_index(o, MAXC - 3);
    assert_int_equal(mbgcm_cobble_opener_update(o, back, &n, C, ct, S), MBGCM_ERR_AUTH);
    mbgcm_cobble_opener_free(o);

    /* a full chunk at 2^38-1 would need a final chunk at 2^38: refused, for good */
    assert_int_equal(mbgcm_cobble_sealer_new(&s, hdr, key, 32, NULL, 0, NULL), MBGCM_OK);
    mbgcmi_cob_sealer_set_index(s, MAXC - 1);
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct, &n, S, pt, C - 1), MBGCM_OK);
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct, &n, S, pt, 1), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_cobble_sealer_update(s, ct, &n, S, pt, 0), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_cobble_sealer_finish(s, ct, &n, S), MBGCM_ERR_LEN);
    mbgcm_cobble_sealer_free(s);
    assert_int_equal(mbgcm_cobble_opener_new(&o, key, 32, NULL, 0, hdr, 56, NULL), MBGCM_OK);
    mbgcmi_cob_opener_set_index(o, MAXC - 1);
    assert_int_equal(mbgcm_cobble_opener_update(o, back, &n, C, ct, S), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_cobble_opener_finish(o, back, &n, C), MBGCM_ERR_LEN);
    mbgcm_cobble_opener_free(o);
}

static void test_strerror(void **state)
{
    (void)state;
    const char *seen[80] = {0};
    for (int st = MBGCM_ERR_COMMITMENT; st <= MBGCM_ERR_LIBCRYPTO; st++) {
        const char *t = mbgcm_cobble_strerror(st);
        assert_non_null(t);
        TU_CHECK(strcmp(t, "unknown status") != 0, "status %d has no text", st);
        for (int j = MBGCM_ERR_COMMITMENT; j < st; j++) {
            TU_CHECK(strcmp(seen[j], t) != 0, "statuses %d and %d share a text", j, st);
        }
        seen[st] = t;
    }
    assert_string_equal(mbgcm_cobble_strerror(MBGCM_OK), mbgcm_strerror(MBGCM_OK));
    assert_string_equal(mbgcm_cobble_strerror(MBGCM_ERR_NOMEM), mbgcm_strerror(MBGCM_ERR_NOMEM));
    assert_string_equal(mbgcm_cobble_strerror(79), "unknown status");
    assert_string_equal(mbgcm_cobble_strerror(-1), "unknown status");
}

int main(void)
{
    tu_rng_init(&rng, "cobble-api");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengths),          cmocka_unit_test(test_oneshot_arguments),
        cmocka_unit_test(test_stream_arguments), cmocka_unit_test(test_chunk_limit),
        cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
