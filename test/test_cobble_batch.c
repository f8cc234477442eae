/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_batch.c — the same-key chunk batch calls (mbgcm_batch_encrypt/_decrypt) against
 * OpenSSL chunk by chunk: random chunk sizes (1 byte .. 16 KiB, blocks split every way), chunk
 * counts 0..70 (more than one burst), a last chunk that is short, empty or full, 12-byte and
 * odd IV lengths, per-chunk AADs or none, every tag length, in place and out of place, on a
 * manager of every arch and auto. Decrypt: all authentic; then random tags flipped: the call
 * returns MBGCM_ERR_AUTH, |statuses| names exactly those chunks, their output is zero and the
 * others are plaintext. A ring job in flight in the same manager comes back intact and in
 * order. Every argument error is reported before anything is written. Seed printed.
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

struct batch {
    size_t n, chunk, len, iv_len, tag_len;
    uint8_t *pt, *ct, *out, *ivs, *tags, *want_tags;
    uint8_t **aads;
    size_t *aad_lens;
    int *st;
};

static size_t clen(const struct batch *b, size_t i)
{
    return i + 1 < b->n ? b->chunk : b->len - i * b->chunk;
}

static void make(struct batch *b, const tu_key *k, int fast)
{
    static const size_t sizes[] = {1, 15, 16, 17, 100, 512, 4096, 16384};
    b->chunk = tu_rng_below(&rng, 2) ? sizes[tu_rng_below(&rng, 8)] : 1 + tu_rng_below(&rng, 5000);
    if (!fast && b->chunk > 600) {
        b->chunk = 1 + b->chunk % 600;
    }
    b->n = tu_rng_below(&rng, 6) == 0 ? tu_rng_below(&rng, 3) : tu_rng_below(&rng, fast ? 71 : 20);
    if (b->n == 0) {
        b->len = 0;
    } else {
        const size_t last = tu_rng_below(&rng, 3) == 0 ? (tu_rng_below(&rng, 2) ? 0 : b->chunk)
                                                       : tu_rng_below(&rng, b->chunk + 1);
        b->len = (b->n - 1) * b->chunk + last;
    }
    b->iv_len = tu_rng_below(&rng, 4) ? 12 : (size_t[]){1, 8, 16, 60}[tu_rng_below(&rng, 4)];
    b->tag_len = tu_pick_tag_len(&rng);
    const size_t n1 = b->n + 1;
    b->pt = tu_xmalloc(b->len + 1);
    b->ct = tu_xmalloc(b->len + 1);
    b->out = tu_xmalloc(b->len + 1);
    b->ivs = tu_xmalloc(n1 * b->iv_len);
    b->tags = tu_xmalloc(n1 * b->tag_len);
    b->want_tags = tu_xmalloc(n1 * 16);
    b->st = calloc(n1, sizeof *b->st);
    tu_rng_fill(&rng, b->pt, b->len);
    tu_rng_fill(&rng, b->ivs, b->n * b->iv_len);
    b->aads = NULL;
    b->aad_lens = NULL;
    if (tu_rng_below(&rng, 2)) {
        b->aads = calloc(n1, sizeof *b->aads);
        b->aad_lens = calloc(n1, sizeof *b->aad_lens);
        for (size_t i = 0; i < b->n; i++) {
            b->aad_lens[i] = tu_rng_below(&rng, 3) ? tu_rng_below(&rng, 41) : 0;
            b->aads[i] =
                b->aad_lens[i] || tu_rng_below(&rng, 2) ? tu_xmalloc(b->aad_lens[i]) : NULL;
            if (b->aads[i]) {
                tu_rng_fill(&rng, b->aads[i], b->aad_lens[i]);
            }
        }
    }
    for (size_t i = 0; i < b->n; i++) {
        const size_t l = clen(b, i);
        tu_ref_encrypt(k, b->ivs + i * b->iv_len, b->iv_len, b->aads ? b->aads[i] : NULL,
                       b->aads ? b->aad_lens[i] : 0, l ? b->pt + i * b->chunk : NULL, l,
                       l ? b->ct + i * b->chunk : b->ct, b->want_tags + 16 * i);
    }
}

static void drop(struct batch *b)
{
    if (b->aads) {
        for (size_t i = 0; i < b->n; i++) {
            free(b->aads[i]);
        }
    }
    free(b->aads), free(b->aad_lens), free(b->pt), free(b->ct), free(b->out), free(b->ivs);
    free(b->tags), free(b->want_tags), free(b->st);
}

static void one(mbgcm_mgr *m, const tu_key *k, int fast, const char *label)
{
    struct batch b;
    make(&b, k, fast);
    char what[160];
    snprintf(what, sizeof what, "%s: %zu chunks of %zu, len %zu, iv %zu, tag %zu, aad %s", label,
             b.n, b.chunk, b.len, b.iv_len, b.tag_len, b.aads ? "yes" : "no");
    const int in_place = (int)tu_rng_below(&rng, 2);
    const uint8_t *const *aads = (const uint8_t *const *)b.aads;
    /* encrypt */
    uint8_t *dst = b.out;
    memcpy(b.out, b.pt, b.len);
    const uint8_t *src = in_place ? b.out : b.pt;
    assert_int_equal(mbgcm_batch_encrypt(m, &k->key, b.n, b.chunk, b.ivs, b.iv_len, aads,
                                         b.aad_lens, src, b.len, dst, b.tags, b.tag_len),
                     MBGCM_OK);
    TU_MEM_EQ(b.out, b.ct, b.len, "%s: ciphertext", what);
    for (size_t i = 0; i < b.n; i++) {
        TU_MEM_EQ(b.tags + i * b.tag_len, b.want_tags + 16 * i, b.tag_len, "%s: tag %zu", what, i);
    }
    /* decrypt, all authentic */
    const uint8_t *csrc = in_place ? b.out : b.ct;
    for (size_t i = 0; i < b.n; i++) {
        b.st[i] = 99;
    }
    assert_int_equal(mbgcm_batch_decrypt(m, &k->key, b.n, b.chunk, b.ivs, b.iv_len, aads,
                                         b.aad_lens, csrc, b.len, b.out, b.tags, b.tag_len, b.st),
                     MBGCM_OK);
    TU_MEM_EQ(b.out, b.pt, b.len, "%s: decrypt", what);
    for (size_t i = 0; i < b.n; i++) {
        assert_int_equal(b.st[i], MBGCM_OK);
    }
    /* decrypt with some tags flipped */
    if (b.n > 0) {
        uint8_t *bad = calloc(b.n, 1);
        size_t nbad = 0;
        for (size_t i = 0; i < b.n; i++) {
            if (tu_rng_below(&rng, 3) == 0) {
                bad[i] = 1;
                nbad++;
                b.tags[i * b.tag_len + tu_rng_below(&rng, b.tag_len)] ^= 0x20;
            }
        }
        if (in_place) {
            memcpy(b.out, b.ct, b.len);
        }
        const int want = nbad ? MBGCM_ERR_AUTH : MBGCM_OK;
        int *sp = tu_rng_below(&rng, 4) ? b.st : NULL;
        assert_int_equal(mbgcm_batch_decrypt(m, &k->key, b.n, b.chunk, b.ivs, b.iv_len, aads,
                                             b.aad_lens, in_place ? b.out : b.ct, b.len, b.out,
                                             b.tags, b.tag_len, sp),
                         want);
        for (size_t i = 0; i < b.n; i++) {
            const size_t l = clen(&b, i);
            if (sp != NULL) {
                TU_CHECK(sp[i] == (bad[i] ? MBGCM_ERR_AUTH : MBGCM_OK),
                         "%s: status of chunk "
                         "%zu is %d",
                         what, i, sp[i]);
            }
            if (bad[i]) {
                TU_CHECK(tu_all_byte(b.out + i * b.chunk, l, 0), "%s: failed chunk %zu not zeroed",
                         what, i);
            } else {
                TU_MEM_EQ(b.out + i * b.chunk, b.pt + i * b.chunk, l,
                          "%s: chunk %zu beside "
                          "failed ones",
                          what, i);
            }
        }
        free(bad);
    }
    drop(&b);
}

static void test_vs_openssl(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key k;
    for (int ci = 0; ci < nc; ci++) {
        const int fast = tu_mgr_fast_lanes(cfgs[ci]) || tu_arch_best() != TU_ARCH("generic");
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 0, 16, 0);
        const size_t rounds = tu_scaled(fast ? 40 : 8);
        for (size_t r = 0; r < rounds; r++) {
            tu_key_random(&rng, &k, 0);
            one(m, &k, cfgs[ci] != TU_ARCH("generic"), tu_mgr_label(cfgs[ci]));
        }
        mbgcm_mgr_free(m);
    }
}

/* A ring job submitted before a batch comes back intact, in order. */
static void test_ring_job_beside(void **state)
{
    (void)state;
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    tu_key k;
    tu_key_random(&rng, &k, 32);
    uint8_t iv[12] = {9}, src[300], dst[300], tag[16], want[300], want_tag[16];
    tu_rng_fill(&rng, src, sizeof src);
    mbgcm_job *job = mbgcm_get_next_job(m);
    memset(job, 0, sizeof *job);
    job->key = &k.key, job->dir = MBGCM_ENCRYPT, job->iv = iv, job->iv_len = 12;
    job->src = src, job->dst = dst, job->len = sizeof src, job->tag = tag, job->tag_len = 16;
    mbgcm_job *done = mbgcm_submit_job(m); /* waits in a lane, or ran single-stream */
    one(m, &k, 1, "beside a ring job");
    job = done != NULL ? done : mbgcm_flush_job(m);
    assert_non_null(job);
    assert_int_equal(job->status, MBGCM_OK);
    tu_ref_encrypt(&k, iv, 12, NULL, 0, src, sizeof src, want, want_tag);
    TU_MEM_EQ(dst, want, sizeof want, "ring job");
    TU_MEM_EQ(tag, want_tag, 16, "ring job tag");
    mbgcm_mgr_free(m);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    tu_key k, wiped;
    tu_key_random(&rng, &k, 16);
    tu_key_random(&rng, &wiped, 16);
    mbgcm_key_wipe(&wiped.key);
    enum { N = 4, CH = 100, LEN = 350 };
    uint8_t buf[2 * LEN + 64], ivs[N * 12 + 16], tags[N * 16 + 16], aad[10] = {0};
    const uint8_t *aads[N] = {aad, aad, NULL, aad};
    size_t aad_lens[N] = {10, 0, 0, 3};
    size_t huge_lens[N] = {10, (size_t)1 << 61, 0, 0};
    const uint8_t *null_aads[N] = {aad, NULL, NULL, NULL};
    size_t one_lens[N] = {1, 1, 0, 0};
    int st[N];
    uint8_t *in = buf, *out = buf + LEN + 32;
    _Alignas(64) uint8_t misaligned_store[sizeof(mbgcm_key) + 64];
    memcpy(misaligned_store + 16, &k.key, sizeof k.key); /* a valid image, misplaced */
    const mbgcm_key *misaligned = (const mbgcm_key *)(void *)(misaligned_store + 16);
    const struct {
        const char *what;
        int want;
        mbgcm_mgr *m;
        const mbgcm_key *key;
        size_t n, chunk, iv_len, len, tag_len;
        const uint8_t *const *aads;
        const size_t *aad_lens;
        const uint8_t *in;
        uint8_t *out, *ivs, *tags;
    } cases[] = {
        {"NULL manager", MBGCM_ERR_INVALID, NULL, &k.key, N, CH, 12, LEN, 16, NULL, NULL, in, out,
         ivs, tags},
        {"NULL key", MBGCM_ERR_INVALID, m, NULL, N, CH, 12, LEN, 16, NULL, NULL, in, out, ivs,
         tags},
        {"misaligned key", MBGCM_ERR_INVALID, m, misaligned, N, CH, 12, LEN, 16, NULL, NULL, in,
         out, ivs, tags},
        {"wiped key", MBGCM_ERR_INVALID, m, &wiped.key, N, CH, 12, LEN, 16, NULL, NULL, in, out,
         ivs, tags},
        {"no chunks, some bytes", MBGCM_ERR_INVALID, m, &k.key, 0, CH, 12, 5, 16, NULL, NULL, in,
         out, ivs, tags},
        {"IV length 0", MBGCM_ERR_IV_LEN, m, &k.key, N, CH, 0, LEN, 16, NULL, NULL, in, out, ivs,
         tags},
        {"chunk length 0", MBGCM_ERR_INVALID, m, &k.key, N, 0, 12, 0, 16, NULL, NULL, in, out, ivs,
         tags},
        {"chunk length 2^36", MBGCM_ERR_LEN, m, &k.key, 1, (size_t)1 << 36, 12, 10, 16, NULL, NULL,
         in, out, ivs, tags},
        {"len too long", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, N * CH + 1, 16, NULL, NULL, in,
         out, ivs, tags},
        {"len too short", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, (N - 1) * CH - 1, 16, NULL, NULL,
         in, out, ivs, tags},
        {"AAD length 2^61", MBGCM_ERR_LEN, m, &k.key, N, CH, 12, LEN, 16, aads, huge_lens, in, out,
         ivs, tags},
        {"tag length 3", MBGCM_ERR_TAG_LEN, m, &k.key, N, CH, 12, LEN, 3, NULL, NULL, in, out, ivs,
         tags},
        {"NULL ivs", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, NULL, in, out, NULL,
         tags},
        {"NULL tags", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, NULL, in, out, ivs,
         NULL},
        {"NULL in", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, NULL, NULL, out, ivs,
         tags},
        {"NULL out", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, NULL, in, NULL, ivs,
         tags},
        {"aads without lengths", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, aads, NULL, in,
         out, ivs, tags},
        {"lengths without aads", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, aad_lens,
         in, out, ivs, tags},
        {"NULL AAD with a length", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, null_aads,
         one_lens, in, out, ivs, tags},
        {"in/out overlap", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, NULL, in, in + 1,
         ivs, tags},
        {"ivs inside out", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, NULL, in, out,
         out + 8, tags},
        {"tags inside out", MBGCM_ERR_INVALID, m, &k.key, N, CH, 12, LEN, 16, NULL, NULL, in, out,
         ivs, out + 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int dec = 0; dec < 2; dec++) {
            tu_rng_fill(&rng, buf, sizeof buf);
            tu_rng_fill(&rng, ivs, sizeof ivs);
            tu_rng_fill(&rng, tags, sizeof tags);
            uint8_t buf0[sizeof buf], tags0[sizeof tags];
            memcpy(buf0, buf, sizeof buf);
            memcpy(tags0, tags, sizeof tags);
            for (int j = 0; j < N; j++) {
                st[j] = 1234;
            }
            const int got =
                dec ? mbgcm_batch_decrypt(cases[i].m, cases[i].key, cases[i].n, cases[i].chunk,
                                          cases[i].ivs, cases[i].iv_len, cases[i].aads,
                                          cases[i].aad_lens, cases[i].in, cases[i].len,
                                          cases[i].out, cases[i].tags, cases[i].tag_len, st)
                    : mbgcm_batch_encrypt(cases[i].m, cases[i].key, cases[i].n, cases[i].chunk,
                                          cases[i].ivs, cases[i].iv_len, cases[i].aads,
                                          cases[i].aad_lens, cases[i].in, cases[i].len,
                                          cases[i].out, cases[i].tags, cases[i].tag_len);
            TU_CHECK(got == cases[i].want, "%s (%s): got %d, expected %d", cases[i].what,
                     dec ? "decrypt" : "encrypt", got, cases[i].want);
            TU_MEM_EQ(buf, buf0, sizeof buf, "%s: buffers written", cases[i].what);
            TU_MEM_EQ(tags, tags0, sizeof tags, "%s: tags written", cases[i].what);
            for (int j = 0; j < N; j++) {
                assert_int_equal(st[j], 1234);
            }
        }
    }
    /* no chunks at all: nothing to do */
    assert_int_equal(
        mbgcm_batch_encrypt(m, &k.key, 0, 16, ivs, 12, NULL, NULL, NULL, 0, NULL, tags, 16),
        MBGCM_OK);
    mbgcm_mgr_free(m);
}

int main(void)
{
    tu_rng_init(&rng, "cobble-batch");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_openssl),
        cmocka_unit_test(test_ring_job_beside),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
