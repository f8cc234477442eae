/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_fail.c — every way a sealed message can be wrong, and what open says:
 *   bit flips in the salt and the commitment (MBGCM_ERR_COMMITMENT), in chunk ciphertexts and
 *   tags (MBGCM_ERR_AUTH, at that chunk); truncation at every kind of boundary (inside the
 *   header, header only, inside a chunk, at a chunk boundary, the final chunk removed or cut
 *   below 16 bytes: MBGCM_ERR_TRUNCATED; cut inside a chunk leaving >= 16 bytes: the last
 *   chunk fails, MBGCM_ERR_AUTH); trailing garbage of many sizes, a valid extra chunk
 *   appended, the final chunk repeated (MBGCM_ERR_TRAILING); chunks swapped, duplicated,
 *   dropped (MBGCM_ERR_AUTH); wrong key, key of the other size, wrong context
 *   (MBGCM_ERR_COMMITMENT).
 * Each case runs through one-shot open (1 and 2 threads; its output must hold no plaintext:
 * only the 0xAA fill or zeros), streaming open in random pieces (what it released must be
 * whole chunks before the failing one; the failure is sticky; the failing chunk index is
 * reported), the reader (reading everything fails the same way; whole chunks before the bad
 * one still read), and the OpenSSL reference (which must reject it too). Seed printed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_cobble_common.h"

#define S MBGCM_COBBLE_SEALED_CHUNK_LEN
#define C MBGCM_COBBLE_CHUNK_LEN

static tu_rng rng;

struct msg {
    uint8_t key[32];
    size_t kl;
    uint8_t ctx[16];
    size_t cl;
    uint8_t *pt;
    size_t pt_len;
    uint8_t *ct;
    size_t ct_len;
};

static void make_msg(struct msg *m, size_t kl, size_t pt_len)
{
    m->kl = kl;
    tu_rng_fill(&rng, m->key, sizeof m->key); /* all 32: some cases use the other size */
    m->cl = 7;
    tu_rng_fill(&rng, m->ctx, sizeof m->ctx); /* the rest for the "longer context" case */
    m->pt_len = pt_len;
    m->pt = tu_xmalloc(pt_len);
    tu_rng_fill(&rng, m->pt, pt_len);
    m->ct_len = tc_sealed_len(pt_len);
    m->ct = tu_xmalloc(m->ct_len);
    size_t n;
    assert_int_equal(
        mbgcm_cobble_seal(m->ct, &n, m->ct_len, m->key, kl, m->ctx, m->cl, m->pt, pt_len, NULL),
        MBGCM_OK);
}

static void free_msg(struct msg *m)
{
    free(m->pt);
    free(m->ct);
}

/* A working copy with room to grow. */
static uint8_t *copy(const struct msg *m, size_t room)
{
    uint8_t *b = tu_xmalloc(m->ct_len + room);
    memcpy(b, m->ct, m->ct_len);
    return b;
}

/* The expectation: status, and the failing chunk (for AUTH/TRAILING). Key/context to open
   with may differ from the message's. */
struct expect {
    const char *what;
    int status;
    uint64_t chunk;
    const uint8_t *key;
    size_t kl;
    const uint8_t *ctx;
    size_t cl;
};

static void check_no_plaintext(const uint8_t *out, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        TU_CHECK(out[i] == 0 || out[i] == 0xAA,
                 "%s: byte %zu of the output is 0x%02x: "
                 "unauthenticated plaintext released",
                 what, i, out[i]);
    }
}

static void check_oneshot(const struct msg *m, const uint8_t *ct, size_t len,
                          const struct expect *e, unsigned threads)
{
    const size_t cap = len + 64;
    uint8_t *out = tu_xmalloc(cap);
    memset(out, 0xAA, cap);
    size_t n = 12345;
    const mbgcm_cobble_opts opts = {.threads = threads};
    const int st = mbgcm_cobble_open(out, &n, cap, e->key, e->kl, e->ctx, e->cl, ct, len, &opts);
    TU_CHECK(st == e->status,
             "%s: one-shot open (%u threads) returned %d (%s), expected %d "
             "(%s)",
             e->what, threads, st, mbgcm_cobble_strerror(st), e->status,
             mbgcm_cobble_strerror(e->status));
    assert_int_equal(n, 0);
    check_no_plaintext(out, cap, e->what);
    (void)m;
    free(out);
}

static void check_stream(const struct msg *m, const uint8_t *ct, size_t len, const struct expect *e)
{
    mbgcm_cobble_opener *o = NULL;
    const size_t hl = len < 56 ? len : 56;
    int st = mbgcm_cobble_opener_new(&o, e->key, e->kl, e->ctx, e->cl, ct, hl, NULL);
    if (st != MBGCM_OK) {
        TU_CHECK(st == e->status, "%s: opener_new returned %d (%s), expected %d", e->what, st,
                 mbgcm_cobble_strerror(st), e->status);
        assert_null(o);
        return;
    }
    uint8_t *out = tu_xmalloc(len + C);
    size_t w = 0, i = hl;
    int at_finish = 0;
    while (st == MBGCM_OK && i < len) {
        size_t piece = tu_rng_below(&rng, 2) ? tu_rng_below(&rng, 100) : tu_rng_below(&rng, 3 * S);
        if (piece > len - i) {
            piece = len - i;
        }
        size_t n = 777;
        st = mbgcm_cobble_opener_update(o, out + w, &n, MBGCM_COBBLE_OPEN_UPDATE_MAX(piece), ct + i,
                                        piece);
        if (st == MBGCM_OK) {
            w += n;
            i += piece;
        } else {
            assert_int_equal(n, 0);
        }
    }
    if (st == MBGCM_OK) {
        size_t n = 777;
        at_finish = 1;
        st = mbgcm_cobble_opener_finish(o, out + w, &n, MBGCM_COBBLE_OPEN_FINISH_MAX);
        if (st == MBGCM_OK) {
            w += n;
        }
    }
    TU_CHECK(st == e->status, "%s: streaming open returned %d (%s) %s, expected %d (%s)", e->what,
             st, mbgcm_cobble_strerror(st), at_finish ? "at finish" : "in an update", e->status,
             mbgcm_cobble_strerror(e->status));
    /* released: whole authentic chunks, all before the failing one */
    assert_int_equal(w % C, 0);
    TU_MEM_EQ(out, m->pt, w, "%s: released output", e->what);
    uint64_t k = 0;
    if (st == MBGCM_ERR_AUTH || st == MBGCM_ERR_TRAILING) {
        assert_int_equal(mbgcm_cobble_opener_failed_chunk(o, &k), MBGCM_OK);
        TU_CHECK(k == e->chunk, "%s: failed chunk %llu, expected %llu", e->what,
                 (unsigned long long)k, (unsigned long long)e->chunk);
        TU_CHECK(w <= k * C, "%s: released %zu bytes, past chunk %llu", e->what, w,
                 (unsigned long long)k);
    } else {
        assert_int_equal(mbgcm_cobble_opener_failed_chunk(o, &k), MBGCM_ERR_INVALID);
    }
    /* sticky */
    size_t n = 5;
    uint8_t one = 1;
    assert_int_equal(mbgcm_cobble_opener_update(o, out, &n, C, &one, 1), e->status);
    assert_int_equal(mbgcm_cobble_opener_finish(o, out, &n, C), e->status);
    mbgcm_cobble_opener_free(o);
    free(out);
}

static void check_reader(const struct msg *m, const uint8_t *ct, size_t len, const struct expect *e)
{
    mbgcm_cobble_reader *r = NULL;
    int st = mbgcm_cobble_reader_new(&r, e->key, e->kl, e->ctx, e->cl, ct, len, NULL);
    if (st != MBGCM_OK) {
        TU_CHECK(st == e->status, "%s: reader_new returned %d, expected %d", e->what, st,
                 e->status);
        return;
    }
    uint64_t size = 0;
    st = mbgcm_cobble_reader_size(r, &size);
    if (e->status == MBGCM_ERR_TRUNCATED) {
        TU_CHECK(st == MBGCM_ERR_TRUNCATED || st == MBGCM_ERR_AUTH, "%s: reader_size returned %d",
                 e->what, st);
    }
    /* read whatever chunks are present, one at a time: those before the failing chunk read */
    const size_t body = len - 56, nfull = body / S, rem = body % S;
    const size_t nchunks = nfull + (rem >= 16);
    uint8_t *buf = tu_xmalloc(C);
    int saw_failure = 0;
    for (size_t k = 0; k < nchunks; k++) {
        const size_t clen = k < nfull ? C : rem - 16;
        memset(buf, 0xAA, C);
        /* an empty final chunk has no bytes to read: reader_size authenticates it */
        st = clen ? mbgcm_cobble_reader_read(r, buf, (uint64_t)k * C, clen)
                  : mbgcm_cobble_reader_size(r, &size);
        if ((e->status == MBGCM_ERR_AUTH || e->status == MBGCM_ERR_TRAILING) && k == e->chunk) {
            TU_CHECK(st == e->status, "%s: reader, chunk %zu returned %d, expected %d", e->what, k,
                     st, e->status);
            check_no_plaintext(buf, C, e->what);
            saw_failure = 1;
        } else if (k < e->chunk || e->status == MBGCM_ERR_TRUNCATED) {
            TU_CHECK(st == MBGCM_OK || (e->status == MBGCM_ERR_TRUNCATED && k + 1 == nchunks),
                     "%s: reader, chunk %zu before the failure returned %d", e->what, k, st);
            if (st == MBGCM_OK) {
                TU_MEM_EQ(buf, m->pt + k * C, clen, "%s: reader chunk %zu", e->what, k);
            }
        }
    }
    if (e->status == MBGCM_ERR_AUTH || e->status == MBGCM_ERR_TRAILING) {
        TU_CHECK(saw_failure, "%s: the reader never met the failing chunk", e->what);
    }
    free(buf);
    mbgcm_cobble_reader_free(r);
}

static void check(const struct msg *m, const uint8_t *ct, size_t len, const char *what, int status,
                  uint64_t chunk)
{
    struct expect e = {what, status, chunk, m->key, m->kl, m->ctx, m->cl};
    check_oneshot(m, ct, len, &e, 1);
    check_oneshot(m, ct, len, &e, 2);
    check_stream(m, ct, len, &e);
    check_reader(m, ct, len, &e);
    uint8_t *out = tu_xmalloc(len + 1);
    size_t n;
    TU_CHECK(tc_ref_open(m->key, m->kl, m->ctx, m->cl, ct, len, out, &n) != 0,
             "%s: the OpenSSL reference accepts it", what);
    free(out);
}

static void test_bit_flips(void **state)
{
    (void)state;
    for (size_t kl = 16; kl <= 32; kl += 16) {
        struct msg m;
        make_msg(&m, kl, 3 * C + 1000); /* chunks 0..2 full, chunk 3 final (1016 bytes) */
        const struct {
            const char *what;
            size_t off;
            int status;
            uint64_t chunk;
        } flips[] = {
            {"salt byte 0", 0, MBGCM_ERR_COMMITMENT, 0},
            {"salt byte 23", 23, MBGCM_ERR_COMMITMENT, 0},
            {"commitment byte 0", 24, MBGCM_ERR_COMMITMENT, 0},
            {"commitment byte 31", 55, MBGCM_ERR_COMMITMENT, 0},
            {"chunk 0 ciphertext", 56, MBGCM_ERR_AUTH, 0},
            {"chunk 2 ciphertext", 56 + 2 * S + 100, MBGCM_ERR_AUTH, 2},
            {"final chunk ciphertext", 56 + 3 * S + 5, MBGCM_ERR_AUTH, 3},
            {"chunk 1 tag", 56 + S + C + 3, MBGCM_ERR_AUTH, 1},
            {"final chunk tag", m.ct_len - 1, MBGCM_ERR_AUTH, 3},
        };
        for (size_t i = 0; i < sizeof flips / sizeof flips[0]; i++) {
            uint8_t *b = copy(&m, 0);
            const unsigned bit = (unsigned)tu_rng_below(&rng, 8);
            b[flips[i].off] ^= (uint8_t)(1u << bit);
            char what[96];
            snprintf(what, sizeof what, "AES-%zu, bit %u flipped in %s", kl * 8, bit,
                     flips[i].what);
            check(&m, b, m.ct_len, what, flips[i].status, flips[i].chunk);
            free(b);
        }
        free_msg(&m);
    }
}

static void test_truncation(void **state)
{
    (void)state;
    struct msg m;
    make_msg(&m, 32, 3 * C + 1000);
    const size_t L = m.ct_len;
    const struct {
        const char *what;
        size_t len;
        int status;
        uint64_t chunk;
    } cuts[] = {
        {"empty", 0, MBGCM_ERR_TRUNCATED, 0},
        {"inside the salt", 1, MBGCM_ERR_TRUNCATED, 0},
        {"inside the commitment", 55, MBGCM_ERR_TRUNCATED, 0},
        {"header only", 56, MBGCM_ERR_TRUNCATED, 0},
        {"15 bytes of chunk 0", 56 + 15, MBGCM_ERR_TRUNCATED, 0},
        {"16 bytes of chunk 0", 56 + 16, MBGCM_ERR_AUTH, 0},
        {"inside chunk 0", 56 + 100, MBGCM_ERR_AUTH, 0},
        {"at the end of chunk 0", 56 + S, MBGCM_ERR_TRUNCATED, 0},
        {"7 bytes into chunk 1", 56 + S + 7, MBGCM_ERR_TRUNCATED, 0},
        {"inside chunk 2's tag", 56 + 2 * S + C + 8, MBGCM_ERR_AUTH, 2},
        {"final chunk removed", 56 + 3 * S, MBGCM_ERR_TRUNCATED, 0},
        {"final chunk cut to 15 bytes", 56 + 3 * S + 15, MBGCM_ERR_TRUNCATED, 0},
        {"final chunk cut to 16 bytes", 56 + 3 * S + 16, MBGCM_ERR_AUTH, 3},
        {"last byte removed", L - 1, MBGCM_ERR_AUTH, 3},
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        char what[96];
        snprintf(what, sizeof what, "truncated: %s (%zu of %zu bytes)", cuts[i].what, cuts[i].len,
                 L);
        check(&m, m.ct, cuts[i].len, what, cuts[i].status, cuts[i].chunk);
    }
    /* a message whose final chunk is empty (length a multiple of 16384) */
    struct msg m2;
    make_msg(&m2, 16, 2 * C);
    check(&m2, m2.ct, m2.ct_len - 16, "truncated: empty final chunk removed", MBGCM_ERR_TRUNCATED,
          0);
    check(&m2, m2.ct, m2.ct_len - 1, "truncated: empty final chunk cut to 15 bytes",
          MBGCM_ERR_TRUNCATED, 0);
    free_msg(&m2);
    free_msg(&m);
}

static void test_trailing(void **state)
{
    (void)state;
    struct msg m;
    make_msg(&m, 32, 3 * C + 1000); /* final sealed chunk: 1016 bytes */
    const size_t F = 1016;
    const size_t amounts[] = {1,         15,    16,        17,         500,
                              S - F - 1, S - F, S - F + 6, S - F + 16, S - F + S + 100};
    for (size_t i = 0; i < sizeof amounts / sizeof amounts[0]; i++) {
        uint8_t *b = copy(&m, amounts[i]);
        tu_rng_fill(&rng, b + m.ct_len, amounts[i]);
        char what[96];
        snprintf(what, sizeof what, "%zu bytes of trailing garbage", amounts[i]);
        check(&m, b, m.ct_len + amounts[i], what, MBGCM_ERR_TRAILING, 3);
        free(b);
    }
    /* a valid chunk (chunk 0) appended */
    uint8_t *b = copy(&m, S);
    memcpy(b + m.ct_len, m.ct + 56, S);
    check(&m, b, m.ct_len + S, "valid chunk 0 appended", MBGCM_ERR_TRAILING, 3);
    /* the final chunk repeated */
    memcpy(b + m.ct_len, m.ct + m.ct_len - F, F);
    check(&m, b, m.ct_len + F, "final chunk appended again", MBGCM_ERR_TRAILING, 3);
    free(b);
    /* a message ending in an empty chunk, then a valid full chunk */
    struct msg m2;
    make_msg(&m2, 16, 2 * C);
    b = copy(&m2, S);
    memcpy(b + m2.ct_len, m2.ct + 56 + S, S);
    check(&m2, b, m2.ct_len + S, "valid chunk 1 appended after an empty final chunk",
          MBGCM_ERR_TRAILING, 2);
    free(b);
    free_msg(&m2);
    free_msg(&m);
}

static void test_reorder(void **state)
{
    (void)state;
    struct msg m;
    make_msg(&m, 16, 3 * C + 1000);
    uint8_t *b = copy(&m, S);
    /* swap chunks 0 and 1 */
    memcpy(b + 56, m.ct + 56 + S, S);
    memcpy(b + 56 + S, m.ct + 56, S);
    check(&m, b, m.ct_len, "chunks 0 and 1 swapped", MBGCM_ERR_AUTH, 0);
    /* swap chunks 1 and 2 */
    memcpy(b, m.ct, m.ct_len);
    memcpy(b + 56 + S, m.ct + 56 + 2 * S, S);
    memcpy(b + 56 + 2 * S, m.ct + 56 + S, S);
    check(&m, b, m.ct_len, "chunks 1 and 2 swapped", MBGCM_ERR_AUTH, 1);
    /* chunk 0 duplicated: 0 0 1 2 3 */
    memcpy(b, m.ct, 56 + S);
    memcpy(b + 56 + S, m.ct + 56, m.ct_len - 56);
    check(&m, b, m.ct_len + S, "chunk 0 duplicated", MBGCM_ERR_AUTH, 1);
    /* chunk 1 dropped: 0 2 3 */
    memcpy(b, m.ct, 56 + S);
    memcpy(b + 56 + S, m.ct + 56 + 2 * S, m.ct_len - 56 - 2 * S);
    check(&m, b, m.ct_len - S, "chunk 1 dropped", MBGCM_ERR_AUTH, 1);
    /* the final chunk of another message with the same key and salt position: other salt,
       so other keys: fails */
    free(b);
    free_msg(&m);
}

static void test_wrong_key_context(void **state)
{
    (void)state;
    for (size_t kl = 16; kl <= 32; kl += 16) {
        struct msg m;
        make_msg(&m, kl, C + 10);
        uint8_t other[32], ctx2[16];
        memcpy(other, m.key, 32);
        other[tu_rng_below(&rng, kl)] ^= 0x10;
        struct expect e = {"wrong key", MBGCM_ERR_COMMITMENT, 0, other, kl, m.ctx, m.cl};
        check_oneshot(&m, m.ct, m.ct_len, &e, 1);
        check_stream(&m, m.ct, m.ct_len, &e);
        check_reader(&m, m.ct, m.ct_len, &e);
        e = (struct expect){"key of the other size",
                            MBGCM_ERR_COMMITMENT,
                            0,
                            m.key,
                            kl == 16 ? 32 : 16,
                            m.ctx,
                            m.cl};
        check_oneshot(&m, m.ct, m.ct_len, &e, 1);
        check_stream(&m, m.ct, m.ct_len, &e);
        memcpy(ctx2, m.ctx, m.cl);
        ctx2[3] ^= 1;
        e = (struct expect){"wrong context", MBGCM_ERR_COMMITMENT, 0, m.key, kl, ctx2, m.cl};
        check_oneshot(&m, m.ct, m.ct_len, &e, 2);
        check_stream(&m, m.ct, m.ct_len, &e);
        check_reader(&m, m.ct, m.ct_len, &e);
        e = (struct expect){"empty context", MBGCM_ERR_COMMITMENT, 0, m.key, kl, NULL, 0};
        check_oneshot(&m, m.ct, m.ct_len, &e, 1);
        e = (struct expect){"longer context", MBGCM_ERR_COMMITMENT, 0, m.key, kl, m.ctx, m.cl + 1};
        check_stream(&m, m.ct, m.ct_len, &e);
        free_msg(&m);
    }
}

int main(void)
{
    tu_rng_init(&rng, "cobble-fail");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bit_flips),         cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_trailing),          cmocka_unit_test(test_reorder),
        cmocka_unit_test(test_wrong_key_context),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
