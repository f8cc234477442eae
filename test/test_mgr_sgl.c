/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_sgl.c — scatter-gather jobs against the linear path: random messages, random
 * segmentations of the input and/or the output (empty segments, 1-byte segments, segments
 * that split blocks, long segments; some jobs of 2-14 KiB in up to 250 pieces of 0..300
 * bytes; some of 0.5-40 KiB in mbuf-like pieces of 512-2048 bytes on the 512-byte grid, cut
 * off it now and then), in place (one list for both) and out of place, encrypt
 * and decrypt, through the ring and the burst API, on every arch and auto; chains cut evenly
 * in each form the one-walk path takes and the ones beside it it leaves; a flipped tag
 * zeroes every destination segment; malformed lists are MBGCM_ERR_INVALID and leave the
 * manager working. Seed printed; MBGCM_SEED replays.
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

/* Cut |len| bytes at |buf| into up to |max| random segments (with empty ones sprinkled). */
static uint32_t segment(uint8_t *buf, size_t len, mbgcm_seg *segs, uint32_t max)
{
    uint32_t n = 0;
    size_t off = 0;
    while (n + 1 < max && (off < len || tu_rng_below(&rng, 4) == 0)) {
        size_t k;
        switch (tu_rng_below(&rng, 5)) {
        case 0: k = 0; break;
        case 1: k = 1 + tu_rng_below(&rng, 3); break;
        case 2: k = tu_rng_below(&rng, 33); break;
        case 3: k = 16 * tu_rng_below(&rng, 4); break;
        default: k = tu_rng_below(&rng, len - off + 1); break;
        }
        if (k > len - off) {
            k = len - off;
        }
        segs[n].ptr = k ? buf + off : (tu_rng_below(&rng, 2) ? NULL : buf);
        segs[n].len = k;
        n++;
        off += k;
        if (off == len && tu_rng_below(&rng, 2)) {
            break;
        }
    }
    segs[n].ptr = buf + off; /* the rest */
    segs[n].len = len - off;
    return n + 1;
}

/* The length of the next piece: short (0..300 bytes: most cuts inside a block, many pieces
   per kernel call), or as mbuf chains are (mostly 512-2048 bytes on the 512-byte grid of the
   message, so that the by32 variants' 32-block groups run where they lie, many per kernel
   call, more groups than one call takes; a cut off the grid now and then, whose group is
   bounced; empty pieces). */
static size_t piece_len(int grid)
{
    if (!grid) {
        return tu_rng_below(&rng, 8) == 0 ? 0 : 1 + tu_rng_below(&rng, 300);
    }
    const unsigned r = tu_rng_below(&rng, 16);
    return r == 0 ? 0 : r == 1 ? 1 + tu_rng_below(&rng, 700) : 512 * (1 + r % 4);
}

/* Cut |len| bytes into pieces of piece_len(grid) bytes, at most |max|, the last one taking
   the rest. */
static uint32_t segment_pieces(uint8_t *buf, size_t len, mbgcm_seg *segs, uint32_t max,
                               int grid)
{
    uint32_t n = 0;
    size_t off = 0;
    while (n + 1 < max && off < len) {
        size_t k = piece_len(grid);
        k = k < len - off ? k : len - off;
        segs[n].ptr = buf + off;
        segs[n].len = k;
        n++;
        off += k;
    }
    segs[n].ptr = buf + off;
    segs[n].len = len - off;
    return n + 1;
}

struct sjob {
    tu_key *k;
    uint8_t iv[12], aad[32], tag[16], want_tag[16];
    size_t aad_len, len, tag_len;
    uint8_t *src, *dst, *want;       /* separate buffers, or src == dst for in place */
    mbgcm_seg s_segs[256], d_segs[256];
    uint32_t sn, dn;
    int dec, bad, mode, many, grid; /* mode: 0 in place one list, 1 both lists, 2 src list +
                                       linear dst, 3 linear src + dst list */
};

/* The job's buffers and expected outputs for its key, length, direction, mode and tag length
   (a random IV and AAD of aad_len bytes; a flipped tag when |bad|). */
static void job_data(struct sjob *j)
{
    tu_rng_fill(&rng, j->iv, 12);
    tu_rng_fill(&rng, j->aad, j->aad_len);
    j->src = tu_xmalloc(j->len + 1);
    j->dst = j->mode == 0 ? j->src : tu_xmalloc(j->len + 1);
    j->want = tu_xmalloc(j->len + 1);
    uint8_t *plain = tu_xmalloc(j->len + 1);
    tu_rng_fill(&rng, plain, j->len);
    if (j->dec) { /* a valid ciphertext to decrypt, expected output = plain */
        tu_ref_encrypt(j->k, j->iv, 12, j->aad, j->aad_len, plain, j->len, j->src, j->tag);
        memcpy(j->want, plain, j->len);
        if (j->bad) {
            j->tag[tu_rng_below(&rng, j->tag_len)] ^= 0x80;
            memset(j->want, 0, j->len);
        }
    } else {
        memcpy(j->src, plain, j->len);
        tu_ref_encrypt(j->k, j->iv, 12, j->aad, j->aad_len, plain, j->len, j->want,
                       j->want_tag);
    }
    free(plain);
    if (j->mode != 0) {
        memset(j->dst, 0xA5, j->len);
    }
}

static void make_job(struct sjob *j, tu_key *keys, size_t nkeys, int fast)
{
    j->k = &keys[tu_rng_below(&rng, nkeys)];
    j->aad_len = tu_rng_below(&rng, 33);
    j->many = tu_rng_below(&rng, 8) == 0; /* many short pieces */
    j->grid = !j->many && tu_rng_below(&rng, 7) == 0; /* chain-like pieces on the grid */
    j->len = j->grid                  ? 512 * (1 + tu_rng_below(&rng, fast ? 80 : 12)) +
                                            (tu_rng_below(&rng, 2) ? tu_rng_below(&rng, 600) : 0)
             : j->many                ? 2000 + tu_rng_below(&rng, fast ? 12000 : 3000)
             : tu_rng_below(&rng, 4) ? tu_rng_below(&rng, 300)
                                      : tu_rng_below(&rng, fast ? 5000 : 800);
    j->tag_len = (size_t[]){4, 8, 12, 13, 14, 15, 16}[tu_rng_below(&rng, 7)];
    j->dec = (int)tu_rng_below(&rng, 2);
    j->bad = j->dec && tu_rng_below(&rng, 5) == 0;
    j->mode = (int)tu_rng_below(&rng, 4);
    job_data(j);
    if (j->grid || j->many) {
        j->sn = segment_pieces(j->src, j->len, j->s_segs, 250, j->grid);
        j->dn = j->mode == 0 ? j->sn : segment_pieces(j->dst, j->len, j->d_segs, 250, j->grid);
    } else {
        j->sn = segment(j->src, j->len, j->s_segs, 20);
        j->dn = j->mode == 0 ? j->sn : segment(j->dst, j->len, j->d_segs, 20);
    }
}

/* Cut |len| bytes into pieces of 512 bytes on the 512-byte grid, the first |nodd| cuts
   |shift| bytes off it (a first piece of |shift| bytes, the grid regained after |nodd| cuts):
   |nodd| groups straddle two pieces. */
static uint32_t segment_512(uint8_t *buf, size_t len, mbgcm_seg *segs, size_t shift,
                            uint32_t nodd)
{
    uint32_t n = 0;
    for (size_t off = 0; off < len; n++) {
        const size_t want = shift == 0 ? 512 : n == 0 ? shift : n == nodd ? 512 - shift : 512;
        const size_t k = want < len - off ? want : len - off;
        segs[n].ptr = buf + off;
        segs[n].len = k;
        off += k;
    }
    return n;
}

static void fill(mbgcm_job *job, struct sjob *j)
{
    memset(job, 0, sizeof *job);
    job->key = &j->k->key;
    job->dir = j->dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    job->iv = j->iv;
    job->iv_len = 12;
    job->aad = j->aad;
    job->aad_len = j->aad_len;
    job->len = j->len;
    job->tag = j->tag;
    job->tag_len = j->tag_len;
    job->user_data = j;
    switch (j->mode) {
    case 0: job->src_sgl = job->dst_sgl = j->s_segs; job->src_nseg = job->dst_nseg = j->sn; break;
    case 1: job->src_sgl = j->s_segs; job->src_nseg = j->sn;
            job->dst_sgl = j->d_segs; job->dst_nseg = j->dn; break;
    case 2: job->src_sgl = j->s_segs; job->src_nseg = j->sn; job->dst = j->dst; break;
    default: job->src = j->src; job->dst_sgl = j->d_segs; job->dst_nseg = j->dn; break;
    }
}

static void check(const mbgcm_job *job, const char *ctx)
{
    struct sjob *j = job->user_data;
    const int want_st = j->bad ? MBGCM_ERR_AUTH : MBGCM_OK;
    TU_CHECK(job->status == want_st, "%s: status %d want %d (mode %d len %zu segs %u/%u)", ctx,
             job->status, want_st, j->mode, j->len, j->sn, j->dn);
    TU_CHECK(memcmp(j->dst, j->want, j->len) == 0, "%s: output differs at %ld (mode %d len %zu "
             "dec %d segs %u/%u)", ctx, tu_first_diff(j->dst, j->want, j->len), j->mode, j->len,
             j->dec, j->sn, j->dn);
    if (!j->dec) {
        TU_CHECK(memcmp(j->tag, j->want_tag, j->tag_len) == 0, "%s: tag differs", ctx);
    }
}

static void release(struct sjob *j)
{
    if (j->dst != j->src) {
        free(j->dst);
    }
    free(j->src);
    free(j->want);
}

/* Jobs js[0..n) through |m|, each checked: in bursts of |burst| jobs (the last one what is
   left), or with |burst| 0 through the ring, in order. */
static void submit_all(mbgcm_mgr *m, struct sjob *js, int n, int burst, const char *ctx)
{
    if (burst > 0) {
        mbgcm_job *b = tu_xmalloc((size_t)burst * sizeof *b);
        for (int i0 = 0; i0 < n; i0 += burst) {
            const int k = n - i0 < burst ? n - i0 : burst;
            unsigned want_ok = 0;
            for (int i = 0; i < k; i++) {
                fill(&b[i], &js[i0 + i]);
                want_ok += !js[i0 + i].bad;
            }
            const unsigned ok = mbgcm_submit_burst(m, b, (unsigned)k);
            for (int i = 0; i < k; i++) {
                check(&b[i], ctx);
            }
            TU_CHECK(ok == want_ok, "%s: burst ok %u want %u", ctx, ok, want_ok);
        }
        free(b);
        return;
    }
    int next = 0;
    for (int i = 0; i < n; i++) {
        fill(mbgcm_get_next_job(m), &js[i]);
        for (mbgcm_job *c = mbgcm_submit_job(m); c; c = mbgcm_get_completed_job(m)) {
            TU_CHECK(c->user_data == &js[next], "%s: order", ctx);
            next++;
            check(c, ctx);
        }
    }
    for (mbgcm_job *c; (c = mbgcm_flush_job(m)) != NULL;) {
        TU_CHECK(c->user_data == &js[next], "%s: order", ctx);
        next++;
        check(c, ctx);
    }
    TU_CHECK(next == n, "%s: %d jobs returned", ctx, next);
}

static void test_sgl_vs_linear(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    uint64_t counts[TU_MGR_NCFG] = {0};
    tu_key *keys = tu_keys_new(&rng, 6, 0);
    for (int ci = 0; ci < nc; ci++) {
        const int cfg = cfgs[ci];
        const int fast = tu_mgr_fast_lanes(cfg);
        mbgcm_mgr *m = tu_mgr_open(cfg, 4 << tu_rng_below(&rng, 2), 64, 0);
        const size_t rounds = tu_scaled(fast ? 60 : 12);
        for (size_t r = 0; r < rounds; r++) {
            enum { N = 24 };
            struct sjob js[N];
            char ctx[96];
            snprintf(ctx, sizeof ctx, "arch %s round %zu", tu_mgr_label(cfg), r);
            for (int i = 0; i < N; i++) {
                make_job(&js[i], keys, 6, fast);
            }
            submit_all(m, js, N, r % 2 ? N : 0, ctx); /* odd rounds: one burst */
            for (int i = 0; i < N; i++) {
                release(&js[i]);
            }
            counts[cfg] += N;
        }
        mbgcm_mgr_free(m);
    }
    tu_print_mgr_counts("sgl jobs", counts);
    tu_keys_free(keys, 6);
}

static void test_sgl_invalid(void **state)
{
    (void)state;
    tu_key *keys = tu_keys_new(&rng, 1, 16);
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    assert_non_null(m);
    uint8_t a[256], b[256], iv[12] = {0}, tag[16] = {0};
    mbgcm_seg s2[2] = {{a, 100}, {a + 100, 28}}, d2[2] = {{b, 64}, {b + 64, 64}};
    mbgcm_seg many[MBGCM_MAX_SEGS + 1];
    for (int i = 0; i <= MBGCM_MAX_SEGS; i++) {
        many[i].ptr = a;
        many[i].len = i == 0 ? 128 : 0;
    }
    struct { const char *what; int kind; } cases[] = {
        {"src sum short", 0}, {"dst sum long", 1}, {"NULL segment ptr", 2}, {"0 segments", 3},
        {"too many segments", 4}, {"src and src_sgl both", 5}, {"overlap src/dst", 6},
        {"nseg without list", 7}, {"in place, segments overlapping", 8},
        {"two lists cut alike, overlapping", 9}, {"list into a linear buffer, overlapping", 10},
        {"two lists cut alike, destination segments overlapping", 11},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        mbgcm_job j;
        memset(&j, 0, sizeof j);
        j.key = &keys[0].key;
        j.dir = MBGCM_ENCRYPT;
        j.iv = iv;
        j.iv_len = 12;
        j.len = 128;
        j.tag = tag;
        j.tag_len = 16;
        j.src_sgl = s2;
        j.src_nseg = 2;
        j.dst_sgl = d2;
        j.dst_nseg = 2;
        mbgcm_seg bad[2], s2b[2];
        switch (cases[c].kind) {
        case 0: j.len = 129; j.dst_sgl = NULL; j.dst_nseg = 0; j.dst = b; break;
        case 1: bad[0] = d2[0]; bad[1] = (mbgcm_seg){b + 64, 65}; j.dst_sgl = bad; break;
        case 2: bad[0] = (mbgcm_seg){NULL, 100}; bad[1] = s2[1]; j.src_sgl = bad; break;
        case 3: j.src_nseg = 0; break;
        case 4: j.src_sgl = many; j.src_nseg = MBGCM_MAX_SEGS + 1; break;
        case 5: j.src = a; break;
        case 6: bad[0] = (mbgcm_seg){a + 8, 64}; bad[1] = (mbgcm_seg){b + 64, 64}; j.dst_sgl = bad;
                break;
        case 7: j.src_sgl = NULL; j.src = a; j.src_nseg = 3; break;
        case 8: bad[0] = (mbgcm_seg){a, 64}; bad[1] = (mbgcm_seg){a + 32, 64};
                j.src_sgl = j.dst_sgl = bad; break;
        case 9: s2b[0] = (mbgcm_seg){a, 64}; s2b[1] = (mbgcm_seg){a + 64, 64};
                bad[0] = (mbgcm_seg){a + 8, 64}; bad[1] = (mbgcm_seg){a + 72, 64};
                j.src_sgl = s2b; j.dst_sgl = bad; break;
        case 10: s2b[0] = (mbgcm_seg){a, 64}; s2b[1] = (mbgcm_seg){a + 64, 64};
                 j.src_sgl = s2b; j.dst_sgl = NULL; j.dst_nseg = 0; j.dst = a + 8; break;
        default: s2b[0] = (mbgcm_seg){a, 64}; s2b[1] = (mbgcm_seg){a + 64, 64};
                 bad[0] = (mbgcm_seg){b, 64}; bad[1] = (mbgcm_seg){b + 32, 64};
                 j.src_sgl = s2b; j.dst_sgl = bad; break;
        }
        const unsigned ok = mbgcm_submit_burst(m, &j, 1);
        TU_CHECK(ok == 0 && j.status == MBGCM_ERR_INVALID, "%s: status %d", cases[c].what,
                 j.status);
    }
    /* the most segments allowed, and the manager still works */
    mbgcm_job j;
    memset(&j, 0, sizeof j);
    j.key = &keys[0].key;
    j.dir = MBGCM_ENCRYPT;
    j.iv = iv;
    j.iv_len = 12;
    j.len = 128;
    j.tag = tag;
    j.tag_len = 16;
    j.src_sgl = j.dst_sgl = many;
    j.src_nseg = j.dst_nseg = MBGCM_MAX_SEGS;
    assert_int_equal(mbgcm_submit_burst(m, &j, 1), 1);
    mbgcm_mgr_free(m);
    tu_keys_free(keys, 1);
}

/* The bounds of one scatter-gather list, exactly: the by32 variants take a job whose groups
   of 512 bytes fit in one list (64 groups, fewer than 16 of them bounced because they
   straddle pieces, or at most 16 groups) in one whole-message call, and other jobs on the
   chunk-list route in several chunk-list calls. Jobs of 64 and 65 groups in pieces of 512
   bytes (the last group full or 1 byte); jobs of 16 to 21 groups whose first 15 or 16 groups
   straddle pieces (cut 200 bytes off the grid, inside blocks: that route), both directions,
   in place and out of place (the destination cut on the grid, so that the bounces come from
   the source alone, or cut as the source: twice the bounced groups), through the burst API on
   every arch and auto. */
static void test_sgl_list_bounds(void **state)
{
    (void)state;
    static const struct {
        size_t len, shift;
        uint32_t nodd;
    } cases[] = {{32768, 0, 0}, {32769, 0, 0}, {33280, 0, 0}, {33281, 0, 0},
                 {8192, 200, 16}, {8200, 200, 16}, {10240, 200, 15}, {10240, 200, 16},
                 {10250, 200, 15}, {4096, 200, 8}};
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 3, 0);
    for (int ci = 0; ci < nc; ci++) {
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 4, 64, 0);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            for (int v = 0; v < 8; v++) {
                struct sjob *j = tu_xmalloc(sizeof *j);
                memset(j, 0, sizeof *j);
                j->k = &keys[v % 3];
                j->aad_len = 16;
                j->len = cases[c].len;
                j->tag_len = 16;
                j->dec = v & 1;
                j->mode = (v >> 1) & 1;
                j->bad = j->dec && v == 5;
                job_data(j);
                j->sn = segment_512(j->src, j->len, j->s_segs, cases[c].shift, cases[c].nodd);
                j->dn = j->mode == 0 ? j->sn
                                     : segment_512(j->dst, j->len, j->d_segs,
                                                   v >= 4 ? cases[c].shift : 0, cases[c].nodd);
                mbgcm_job job;
                fill(&job, j);
                char ctx[96];
                snprintf(ctx, sizeof ctx, "arch %s len %zu shift %zu x%u variant %d",
                         tu_mgr_label(cfgs[ci]), j->len, cases[c].shift, cases[c].nodd, v);
                const unsigned ok = mbgcm_submit_burst(m, &job, 1);
                TU_CHECK(ok == (unsigned)!j->bad, "%s: ok %u", ctx, ok);
                check(&job, ctx);
                release(j);
                free(j);
            }
        }
        mbgcm_mgr_free(m);
    }
    tu_keys_free(keys, 3);
}

/* Cut |len| bytes into pieces of |piece| bytes (the last one what is left); with |empty| an
   empty segment after the first. */
static uint32_t segment_even(uint8_t *buf, size_t len, mbgcm_seg *segs, size_t piece,
                             int empty)
{
    uint32_t n = 0;
    for (size_t off = 0; off < len; n++) {
        if (empty && n == 1) {
            segs[n].ptr = NULL;
            segs[n++].len = 0;
        }
        const size_t k = piece < len - off ? piece : len - off;
        segs[n].ptr = buf + off;
        segs[n].len = k;
        off += k;
    }
    return n;
}

/* Chains as DPDK's mbufs make them, each form of the one-walk path (jobs/sgl.c,
   mbgcmi_sgl_fast) and the jobs next to it that it leaves to the general path: pieces of 512,
   1024, 2048 and 4096 bytes on the group grid (the whole-message list call where the arch has
   one and the pieces are short enough, else a stream update per piece) and one piece holding
   the whole message (the linear path); in place through one list, through two lists of the same
   cuts (separate buffers, or the same buffer: in place piece by piece), from a list into a
   linear buffer; an empty segment after the first, a cut 16 bytes off the grid; encrypt,
   decrypt and a failed tag; 700 bytes to 40 KiB (more groups than one list holds), in bursts
   and through the ring, on every arch and auto. */
static void test_sgl_chains(void **state)
{
    (void)state;
    static const size_t lens[] = {700, 1024, 2148, 4096, 8192, 16401, 32768, 40960};
    static const size_t pieces[] = {512, 1024, 2048, 4096, 65536, 528};
    enum { FORMS = 7, NJ = 6 * FORMS * 3 };
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 3, 0);
    for (int ci = 0; ci < nc; ci++) {
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 4, 64, 0);
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            struct sjob *js = tu_xmalloc(NJ * sizeof *js);
            memset(js, 0, NJ * sizeof *js);
            for (int i = 0; i < NJ; i++) {
                struct sjob *j = &js[i];
                const int form = (i / 3) % FORMS, d = i % 3;
                const size_t piece = pieces[i / (3 * FORMS)];
                j->k = &keys[i % 3];
                j->aad_len = (size_t)(i % 4) * 8;
                j->len = lens[l];
                j->tag_len = (size_t[]){16, 12, 8, 4}[i % 4];
                j->dec = d != 0;
                j->bad = d == 2;
                /* forms: 0 in place, 1 two lists cut alike, 2 list into a linear buffer,
                   3 two lists over one buffer, 4 in place with an empty segment, 5 two
                   lists, the destination's in one piece, 6 two lists of as many pieces, the
                   destination's first cut 16 bytes later */
                j->mode = form == 0 || form == 3 || form == 4 ? 0 : form == 2 ? 2 : 1;
                job_data(j);
                j->sn = segment_even(j->src, j->len, j->s_segs, piece, form == 4);
                if (form == 1 || form == 5 || form == 6) {
                    j->dn = segment_even(j->dst, j->len, j->d_segs,
                                         form == 5 ? j->len : piece, 0);
                    if (form == 6 && j->dn > 1 && j->d_segs[1].len > 16) {
                        j->d_segs[0].len += 16;
                        j->d_segs[1].ptr += 16;
                        j->d_segs[1].len -= 16;
                    }
                } else if (form == 3) {
                    memcpy(j->d_segs, j->s_segs, j->sn * sizeof j->s_segs[0]);
                    j->dn = j->sn;
                    j->mode = 1;
                } else {
                    j->dn = j->sn;
                }
            }
            char ctx[96];
            snprintf(ctx, sizeof ctx, "arch %s len %zu", tu_mgr_label(cfgs[ci]), lens[l]);
            submit_all(m, js, NJ, l % 2 == 0 ? 14 : 0, ctx); /* bursts of 14, or the ring */
            for (int i = 0; i < NJ; i++) {
                release(&js[i]);
            }
            free(js);
        }
        mbgcm_mgr_free(m);
    }
    tu_keys_free(keys, 3);
}

int main(void)
{
    tu_rng_init(&rng, "sgl");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sgl_vs_linear),
        cmocka_unit_test(test_sgl_invalid),
        cmocka_unit_test(test_sgl_list_bounds),
        cmocka_unit_test(test_sgl_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
