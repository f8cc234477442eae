/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_random.c — random access (mbgcm_cobble_reader_*) against a full decrypt:
 * random ranges and every boundary kind (chunk starts/ends +-1, single bytes, empty ranges,
 * whole chunks, ranges over many chunks, the final chunk, the whole message), 1 and 2 threads;
 * offsets from the end only after reader_size authenticated the final chunk; ranges past the
 * end are MBGCM_ERR_RANGE; a modified chunk fails exactly the reads that touch it (output
 * zeroed) and leaves the others readable; a truncated message can be read up to its last
 * whole chunk while reader_size reports the truncation. Seed printed; MBGCM_SEED replays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_cobble_common.h"

#define C MBGCM_COBBLE_CHUNK_LEN
#define S MBGCM_COBBLE_SEALED_CHUNK_LEN

static tu_rng rng;

struct sealed {
    uint8_t key[32];
    uint8_t *pt, *ct;
    size_t pt_len, ct_len;
};

static void seal(struct sealed *m, size_t pt_len)
{
    tu_rng_fill(&rng, m->key, 32);
    m->pt_len = pt_len;
    m->pt = tu_xmalloc(pt_len);
    tu_rng_fill(&rng, m->pt, pt_len);
    m->ct_len = tc_sealed_len(pt_len);
    m->ct = tu_xmalloc(m->ct_len);
    size_t n;
    assert_int_equal(
        mbgcm_cobble_seal(m->ct, &n, m->ct_len, m->key, 32, NULL, 0, m->pt, pt_len, NULL),
        MBGCM_OK);
}

/* A range: mostly around chunk boundaries, sometimes anywhere. */
static void pick(size_t total, uint64_t *off, size_t *len)
{
    const size_t nch = total / C + 1;
    switch (tu_rng_below(&rng, 6)) {
    case 0: { /* around a chunk start */
        const uint64_t b = tu_rng_below(&rng, nch) * (uint64_t)C;
        const int64_t d = (int64_t)tu_rng_below(&rng, 5) - 2;
        *off = (int64_t)b + d < 0 ? 0 : (uint64_t)((int64_t)b + d);
        break;
    }
    case 1: *off = total; break;
    case 2: *off = total - tu_rng_below(&rng, total < 40 ? total + 1 : 40); break;
    default: *off = tu_rng_below(&rng, total + 1); break;
    }
    if (*off > total) {
        *off = total;
    }
    const size_t left = total - (size_t)*off;
    switch (tu_rng_below(&rng, 6)) {
    case 0: *len = 0; break;
    case 1: *len = 1; break;
    case 2: *len = C; break;
    case 3: *len = C - (size_t)(*off % C); break; /* to the end of its chunk */
    case 4: *len = left; break;
    default: *len = tu_rng_below(&rng, left + 1); break;
    }
    if (*len > left) {
        *len = left;
    }
}

static void random_reads(const struct sealed *m, unsigned threads, size_t count)
{
    const mbgcm_cobble_opts opts = {.threads = threads};
    mbgcm_cobble_reader *r;
    assert_int_equal(mbgcm_cobble_reader_new(&r, m->key, 32, NULL, 0, m->ct, m->ct_len, &opts),
                     MBGCM_OK);
    uint8_t *buf = tu_xmalloc(m->pt_len + 2);
    for (size_t i = 0; i < count; i++) {
        uint64_t off;
        size_t len;
        pick(m->pt_len, &off, &len);
        buf[len] = 0x77;
        assert_int_equal(mbgcm_cobble_reader_read(r, buf, off, len), MBGCM_OK);
        TU_MEM_EQ(buf, m->pt + off, len, "read [%llu, +%zu) of %zu (%u threads)",
                  (unsigned long long)off, len, m->pt_len, threads);
        assert_int_equal(buf[len], 0x77);
    }
    /* whole message, then offsets from the end (after the size is authenticated) */
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 0, m->pt_len), MBGCM_OK);
    TU_MEM_EQ(buf, m->pt, m->pt_len, "whole message");
    uint64_t size = 0;
    assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_OK);
    assert_int_equal(size, m->pt_len);
    for (size_t back = 0; back <= 40 && back <= size; back += 13) {
        assert_int_equal(mbgcm_cobble_reader_read(r, buf, size - back, back), MBGCM_OK);
        TU_MEM_EQ(buf, m->pt + size - back, back, "last %zu bytes", back);
    }
    /* outside */
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, size, 1), MBGCM_ERR_RANGE);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, size + 1, 0), MBGCM_ERR_RANGE);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, UINT64_MAX, 2), MBGCM_ERR_RANGE);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 1, SIZE_MAX), MBGCM_ERR_RANGE);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, size, 0), MBGCM_OK);
    /* misuse */
    assert_int_equal(mbgcm_cobble_reader_read(r, NULL, 0, 1), MBGCM_ERR_INVALID);
    if (m->pt_len >= 10) {
        assert_int_equal(mbgcm_cobble_reader_read(r, m->ct + 60, 0, 10), MBGCM_ERR_INVALID);
    }
    assert_int_equal(mbgcm_cobble_reader_size(r, NULL), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_cobble_reader_read(NULL, buf, 0, 1), MBGCM_ERR_INVALID);
    free(buf);
    mbgcm_cobble_reader_free(r);
    mbgcm_cobble_reader_free(NULL);
}

static void test_random_ranges(void **state)
{
    (void)state;
    const int fast = tu_arch_best() != TU_ARCH("generic");
    static const size_t lens[] = {0, 1, C - 1, C, C + 1, 7 * C + 1234, 4 * C};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        struct sealed m;
        seal(&m, lens[i]);
        random_reads(&m, 1, tu_scaled(fast ? 300 : 40));
        free(m.pt), free(m.ct);
    }
    /* long enough for two threads to split a read (>= 32 chunks) */
    struct sealed m;
    seal(&m, 40 * C + 99);
    random_reads(&m, 2, tu_scaled(fast ? 200 : 10));
    free(m.pt), free(m.ct);
}

static void test_damaged(void **state)
{
    (void)state;
    struct sealed m;
    seal(&m, 5 * C + 300); /* chunks 0..4 full, 5 final (316 bytes) */
    const size_t total = m.pt_len;
    mbgcm_cobble_reader *r;
    uint8_t *buf = tu_xmalloc(total);
    uint64_t size;

    /* chunk 2 modified: reads touching it fail and are zeroed, the others work */
    m.ct[56 + 2 * S + 77] ^= 4;
    assert_int_equal(mbgcm_cobble_reader_new(&r, m.key, 32, NULL, 0, m.ct, m.ct_len, NULL),
                     MBGCM_OK);
    assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_OK); /* final chunk intact */
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 0, 2 * C), MBGCM_OK);
    TU_MEM_EQ(buf, m.pt, 2 * C, "chunks 0-1 beside a damaged chunk 2");
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 3 * C, total - 3 * C), MBGCM_OK);
    TU_MEM_EQ(buf, m.pt + 3 * C, total - 3 * C, "chunks 3-5 beside a damaged chunk 2");
    const struct {
        uint64_t off;
        size_t len;
    } bad[] = {{2 * C - 5, 10}, {2 * C + 100, 1}, {2 * C, C}, {0, 5 * C + 300}, {C + 1, 3 * C}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(buf, 0xAA, total);
        assert_int_equal(mbgcm_cobble_reader_read(r, buf, bad[i].off, bad[i].len), MBGCM_ERR_AUTH);
        TU_CHECK(tu_all_byte(buf, bad[i].len, 0), "failed read %zu not zeroed", i);
        TU_CHECK(tu_all_byte(buf + bad[i].len, total - bad[i].len, 0xAA),
                 "failed read %zu wrote past its range", i);
    }
    /* a failed read does not spoil later ones */
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 10, 100), MBGCM_OK);
    TU_MEM_EQ(buf, m.pt + 10, 100, "read after a failed read");
    mbgcm_cobble_reader_free(r);
    m.ct[56 + 2 * S + 77] ^= 4;

    /* final chunk modified: the size is not trusted, reads of it fail */
    m.ct[m.ct_len - 3] ^= 1;
    assert_int_equal(mbgcm_cobble_reader_new(&r, m.key, 32, NULL, 0, m.ct, m.ct_len, NULL),
                     MBGCM_OK);
    assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_ERR_AUTH);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, total - 1, 1), MBGCM_ERR_AUTH);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 0, C), MBGCM_OK);
    mbgcm_cobble_reader_free(r);
    m.ct[m.ct_len - 3] ^= 1;

    /* cut 7 bytes into chunk 3: readable up to chunk 2, no size */
    assert_int_equal(mbgcm_cobble_reader_new(&r, m.key, 32, NULL, 0, m.ct, 56 + 3 * S + 7, NULL),
                     MBGCM_OK);
    assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_ERR_TRUNCATED);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 0, 3 * C), MBGCM_OK);
    TU_MEM_EQ(buf, m.pt, 3 * C, "truncated message, whole chunks");
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 3 * C, 1), MBGCM_ERR_RANGE);
    mbgcm_cobble_reader_free(r);

    /* cut 100 bytes into chunk 3: chunk 3 looks final and fails */
    assert_int_equal(mbgcm_cobble_reader_new(&r, m.key, 32, NULL, 0, m.ct, 56 + 3 * S + 100, NULL),
                     MBGCM_OK);
    assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_ERR_AUTH);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, 3 * C, 84), MBGCM_ERR_AUTH);
    assert_int_equal(mbgcm_cobble_reader_read(r, buf, C, C), MBGCM_OK);
    mbgcm_cobble_reader_free(r);

    /* trailing bytes: the size is refused as TRAILING */
    uint8_t *longer = tu_xmalloc(m.ct_len + 5);
    memcpy(longer, m.ct, m.ct_len);
    memset(longer + m.ct_len, 0x42, 5);
    assert_int_equal(mbgcm_cobble_reader_new(&r, m.key, 32, NULL, 0, longer, m.ct_len + 5, NULL),
                     MBGCM_OK);
    assert_int_equal(mbgcm_cobble_reader_size(r, &size), MBGCM_ERR_TRAILING);
    mbgcm_cobble_reader_free(r);
    free(longer);

    /* header problems stop the reader at once */
    assert_int_equal(mbgcm_cobble_reader_new(&r, m.key, 32, NULL, 0, m.ct, 55, NULL),
                     MBGCM_ERR_TRUNCATED);
    assert_null(r);
    m.key[0] ^= 1;
    assert_int_equal(mbgcm_cobble_reader_new(&r, m.key, 32, NULL, 0, m.ct, m.ct_len, NULL),
                     MBGCM_ERR_COMMITMENT);
    assert_null(r);
    free(buf);
    free(m.pt), free(m.ct);
}

int main(void)
{
    tu_rng_init(&rng, "cobble-random");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ranges),
        cmocka_unit_test(test_damaged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
