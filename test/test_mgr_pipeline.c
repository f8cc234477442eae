/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_pipeline.c — the burst path's pipelined single-stream kernels (avx512:
 * mbgcmi_avx512_gcm12_jobs, on the by32 variant mbgcmi_avx512_by32_jobs12 for encrypts from 513
 * bytes, through the scheduler), exhaustively over the classes that
 * shape its stitching, on every supported arch and "auto" (the path is taken only where the
 * arch's single-stream ops have jobs12, for the jobs in their ranges jobs12_enc_from ..
 * jobs12_enc_below and jobs12_dec_from .. jobs12_dec_below; the burst runs its other 12-byte-IV
 * jobs at once through whole12, and those bursts must come out just as right).
 *
 * The kernel runs up to 64 single-stream jobs with 12-byte IVs per call; job i's final GHASH
 * (F = 0..16 blocks + the length block) and its tag store or constant-time compare ride in the
 * first AES pass of job i+1, whose AAD is hashed after that pass; the first job of a call has
 * a dummy predecessor, the last job's final runs alone; a 65th job starts a new call. So what
 * matters is the ordered pair (previous job, current job): their lengths (F and the shape of
 * the first pass), directions, tag lengths, keys (sizes and schedules differ), AAD lengths
 * (>= 256: the 16-block AAD loop), and which of them fails authentication.
 *
 * Part 1, pairs: every ordered pair of 43 length classes (0, 1, 15, 16, 17, ..., 1024, 1025,
 * ..., 1281, 1420, 2049, ..., 2305; by16's pipelined call takes encrypts of 1025 bytes and
 * more, decrypts of 2049 and more) times the four direction pairs, as a burst [prev, cur]
 * (prev beside the dummy, cur's
 * final alone) and as [filler, prev, cur, filler] (both stitched on both sides). The previous
 * job's other attributes cycle deterministically with the pair counter (tag length mod 7, AAD
 * length mod 11, key size mod 3, decrypt outcome: tag ok / tampered tag / tampered ciphertext
 * / tampered AAD); the current job's and the fillers' are drawn from the seed (key: another
 * key object than prev's, of any size, 1 in 8 the same object). In place / out of place, NULL
 * for empty buffers and the decrypt expected tag inside dst are drawn from the seed. Run with
 * the single-stream threshold 0 (mbgcmi_mgr_set_single_min_len: every valid job goes
 * single-stream, every 12-byte-IV job into the pipelined call) and once with the arch's
 * default threshold (short jobs go to the lanes in the same burst). Where the pipelined kernel
 * exists, threshold 0 runs two variants of every (pair, direction pair).
 * Part 2, long bursts: 63, 64, 65, 100, 128, 129, 130 pipelined jobs (the 64-job call flushes
 * mid-burst), alone or interleaved with jobs of IV length 1, 13 or 64 (single-stream, not
 * pipelined), invalid jobs (bad tag_len, NULL src with len > 0) and, under the default
 * threshold, short lane jobs.
 * Part 3, fail masks: bursts of 1, 2, 63, 64, 65, 66, 127, 128, 129 decrypt jobs where all
 * fail, none fail, only the first, only the last, only job 63 (bit 63), only job 64 (the 65th:
 * bit 0 of the second call), 63 and 64, first and last, all but 63; and all-fail with encrypt
 * jobs interleaved.
 *
 * Every burst: the return count (jobs with MBGCM_OK), every job's status, output, tag, fields
 * and canaries (tu_tjob_check), the stats deltas (jobs, jobs_invalid, bytes, auth_failures,
 * single_stream) and an empty queue. On a failure the whole burst is listed in order (route,
 * spec, outcome, status) before the failing job's details. Random parts print the seed
 * ("seed=0x..."; replay with MBGCM_SEED=0x...). A scale below 1 (sanitizer builds,
 * MBGCM_TEST_SCALE) keeps every pair and direction pair but one variant, drops the four-job
 * bursts of every other pair and runs part 2 once instead of three times. About 7.5 s in a
 * Release build for generic, aesni, avx2, avx512 and auto.
 */
#include "jobs_internal.h"
#include "test_util.h"

/* (past 1024: the final blocks F = 1..16 of the lengths by16's pipelined call still takes:
   encrypts of more than 1024 bytes, decrypts of more than 2048) */
static const size_t len_classes[] = {
    0,    1,    15,   16,   17,   63,   64,   65,   127,  128,  129,  191,  192,  193,  240,
    241,  255,  256,  257,  383,  511,  512,  513,  767,  768,  1024, 1025, 1041, 1088, 1151,
    1152, 1153, 1279, 1280, 1281, 1420, 2049, 2053, 2111, 2176, 2177, 2304, 2305};
#define NCLS (sizeof len_classes / sizeof len_classes[0])
static const size_t tag_lens[] = {4, 8, 12, 13, 14, 15, 16};
#define NTAG (sizeof tag_lens / sizeof tag_lens[0])
static const size_t aad_lens[] = {0, 1, 15, 16, 17, 64, 255, 256, 257, 300, 768, 769, 1000};
#define NAAD (sizeof aad_lens / sizeof aad_lens[0])
static const size_t odd_ivs[] = {1, 13, 64};

/* What a decrypt job is given. */
enum outcome { O_OK, O_TAG, O_CT, O_AAD, O_N };
static const char *const outcome_name[O_N] = {"tag-ok", "tampered-tag", "tampered-ct",
                                              "tampered-aad"};

/* A job of a burst: the tu job and how it was tampered with. */
struct pj {
    tu_tjob *t;
    int oc;
};

struct cfg_count {
    uint64_t pairs, bursts, jobs, pipelined, whole12, auth;
};
static struct cfg_count cc[TU_MGR_NCFG];

struct run {
    tu_rng r;
    int cfg;
    mbgcm_mgr *m;
    uint64_t thr;       /* threshold in force */
    int thr_default;    /* 1: the arch's default */
    int jobs12;         /* the arch's single-stream ops have the pipelined kernel */
    const struct mbgcmi_gcm_ops *ops; /* those ops */
    tu_key *keys;       /* [3 sizes][2 objects]: keys[2 * size + obj] */
    int short_on;       /* the burst being run gives short jobs to the short-job kernel */
    char ctx[160];
};

/* ---- jobs ------------------------------------------------------------------------------------ */

/* A job from |sp| (bad must be TU_BAD_NONE for outcomes other than O_OK). Decrypt only:
   O_TAG flips a tag bit (tu), O_CT a ciphertext bit, O_AAD an AAD bit; every one of them must
   give MBGCM_ERR_AUTH with dst zeroed. An outcome the job cannot have (no ciphertext, no AAD)
   falls back to the next one that it can. */
static struct pj make_job(tu_rng *r, const tu_jspec *spec, int oc)
{
    tu_jspec sp = *spec;
    if (sp.dir != MBGCM_DECRYPT || sp.bad != TU_BAD_NONE) oc = O_OK;
    if (oc == O_CT && sp.len == 0) oc = O_AAD;
    if (oc == O_AAD && sp.aad_len == 0) oc = O_TAG;
    sp.tamper = oc == O_TAG;
    tu_tjob *t = tu_tjob_new(r, &sp);
    if (oc == O_CT || oc == O_AAD) {
        size_t off;
        if (oc == O_CT) {
            off = (t->sp.in_place ? t->off_dst : t->off_src) + (size_t)tu_rng_below(r, t->sp.len);
        } else {
            off = t->off_aad + (size_t)tu_rng_below(r, t->sp.aad_len);
        }
        const uint8_t bit = (uint8_t)(1u << tu_rng_below(r, 8));
        t->mem[off] ^= bit;
        if (!(oc == O_CT && t->sp.in_place)) {
            t->want[off] ^= bit; /* an input the library must leave alone */
        }
        memset(t->want + t->off_dst, 0, t->sp.len); /* never release unauthenticated data */
        t->expect = MBGCM_ERR_AUTH;
    }
    struct pj p = {t, oc};
    return p;
}

static const tu_key *key_of(const struct run *R, unsigned size_idx, unsigned obj)
{
    return &R->keys[2 * size_idx + obj];
}

/* A key other than |not| (object), 1 in 8 the same object. */
static const tu_key *key_other(struct run *R, const tu_key *not)
{
    if (not != NULL && tu_rng_below(&R->r, 8) == 0) return not;
    for (;;) {
        const tu_key *k = key_of(R, (unsigned)tu_rng_below(&R->r, 3),
                                 (unsigned)tu_rng_below(&R->r, 2));
        if (k != not) return k;
    }
}

/* The random parts of a valid spec: in place, NULL for empty buffers, tag inside dst. */
static void spec_random_bits(tu_rng *r, tu_jspec *sp)
{
    sp->in_place = (int)tu_rng_below(r, 2);
    sp->null_empty = (int)tu_rng_below(r, 2);
    sp->tag_in_dst = tu_rng_below(r, 3) == 0; /* tu drops it where it cannot apply */
}

/* A random valid spec (key, direction, lengths, tag) with 12-byte IV and |len|. */
static void spec_random(struct run *R, tu_jspec *sp, size_t len, int *oc)
{
    tu_rng *r = &R->r;
    memset(sp, 0, sizeof *sp);
    sp->key = key_other(R, NULL);
    sp->dir = tu_rng_below(r, 2) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    sp->iv_len = 12;
    sp->aad_len = aad_lens[tu_rng_below(r, NAAD)];
    sp->len = len;
    sp->tag_len = tag_lens[tu_rng_below(r, NTAG)];
    spec_random_bits(r, sp);
    *oc = (int)tu_rng_below(r, O_N);
}

static size_t random_class(tu_rng *r)
{
    return len_classes[tu_rng_below(r, NCLS)];
}

/* A class length the manager sends single-stream (>= threshold); any class if none is. */
static size_t random_single_class(struct run *R)
{
    if (R->thr > len_classes[NCLS - 1]) return random_class(&R->r);
    for (;;) {
        const size_t l = random_class(&R->r);
        if (l >= R->thr) return l;
    }
}

/* ---- one burst ------------------------------------------------------------------------------- */

static const char *route_of(const struct run *R, const struct pj *p)
{
    const tu_jspec *sp = &p->t->sp;
    if (sp->bad != TU_BAD_NONE) return "invalid";
    if (!tu_goes_single_burst(R->m, R->thr, sp, R->short_on)) return "lanes or short";
    if ((uint64_t)sp->len < R->thr && !tu_goes_wide(R->m, sp)) return "single";
    if (sp->iv_len == 12 && R->ops != NULL && R->ops->whole12 != NULL) {
        /* the burst gathers what the ops' limits give to jobs12 and runs the rest at once */
        return mbgcmi_jobs12_takes(R->ops, sp->dir == MBGCM_DECRYPT, sp->len, sp->aad_len)
                   ? "pipelined"
                   : "whole12";
    }
    return "single";
}

static void dump_burst(const struct run *R, const struct pj *p, const mbgcm_job *bj, unsigned n,
                       const char *what, unsigned ret, unsigned want)
{
    print_error("%s: %s: burst of %u jobs returned %u, expected %u; jobs in burst order:\n",
                R->ctx, what, n, ret, want);
    unsigned npipe = 0;
    for (unsigned i = 0; i < n; i++) {
        char d[320];
        tu_tjob_describe(p[i].t, d, sizeof d);
        const char *route = route_of(R, &p[i]);
        const int pipe = strcmp(route, "pipelined") == 0;
        char where[48] = "";
        if (pipe) {
            snprintf(where, sizeof where, " (call %u, bit %u)", npipe / MBGCMI_JOBS12_MAX,
                     npipe % MBGCMI_JOBS12_MAX);
            npipe++;
        }
        print_error("  [%u] %s%s: %s %s status=%d%s\n", i, route, where, d,
                    outcome_name[p[i].oc], bj[i].status,
                    tu_tjob_ok(p[i].t, &bj[i]) ? "" : "   <== WRONG");
    }
}

/* Submit p[0..n) as one burst and check everything. */
static void run_burst(struct run *R, struct pj *p, unsigned n, const char *what)
{
    mbgcm_job *bj = tu_xmalloc(n * sizeof *bj);
    unsigned want = 0;
    uint64_t auth = 0, invalid = 0, single = 0, bytes = 0, pipelined = 0, whole12 = 0;
    for (unsigned i = 0; i < n; i++) {
        tu_tjob_load(p[i].t, &bj[i], (void *)(uintptr_t)i, &R->r);
    }
    R->short_on = tu_burst_short_on(R->m, bj, n);
    for (unsigned i = 0; i < n; i++) {
        const tu_tjob *t = p[i].t;
        want += t->expect == MBGCM_OK;
        auth += t->expect == MBGCM_ERR_AUTH;
        if (t->sp.bad != TU_BAD_NONE) {
            invalid++;
        } else {
            bytes += t->sp.len;
            if (tu_goes_single_burst(R->m, R->thr, &t->sp, R->short_on)) single++;
            pipelined += strcmp(route_of(R, &p[i]), "pipelined") == 0;
            whole12 += strcmp(route_of(R, &p[i]), "whole12") == 0;
        }
    }
    mbgcm_stats s0, s1;
    assert_int_equal(mbgcm_mgr_stats(R->m, &s0), MBGCM_OK);
    const unsigned ret = mbgcm_submit_burst(R->m, bj, n);
    assert_int_equal(mbgcm_mgr_stats(R->m, &s1), MBGCM_OK);
    int good = ret == want;
    for (unsigned i = 0; i < n && good; i++) {
        good = tu_tjob_ok(p[i].t, &bj[i]);
    }
    if (!good) {
        dump_burst(R, p, bj, n, what, ret, want);
        char ctx[480];
        for (unsigned i = 0; i < n; i++) {
            snprintf(ctx, sizeof ctx, "%s: %s: job [%u] (%s)", R->ctx, what, i,
                     outcome_name[p[i].oc]);
            tu_tjob_check(p[i].t, &bj[i], ctx);
        }
        fail_msg("%s: %s: mbgcm_submit_burst returned %u, expected %u", R->ctx, what, ret, want);
    }
    TU_CHECK(s1.jobs - s0.jobs == n, "%s: %s: stats.jobs +%llu for %u jobs", R->ctx, what,
             (unsigned long long)(s1.jobs - s0.jobs), n);
    TU_CHECK(s1.jobs_invalid - s0.jobs_invalid == invalid, "%s: %s: stats.jobs_invalid +%llu, "
             "expected +%llu", R->ctx, what,
             (unsigned long long)(s1.jobs_invalid - s0.jobs_invalid), (unsigned long long)invalid);
    TU_CHECK(s1.auth_failures - s0.auth_failures == auth, "%s: %s: stats.auth_failures +%llu, "
             "expected +%llu", R->ctx, what,
             (unsigned long long)(s1.auth_failures - s0.auth_failures), (unsigned long long)auth);
    TU_CHECK(s1.bytes - s0.bytes == bytes, "%s: %s: stats.bytes +%llu, expected +%llu", R->ctx,
             what, (unsigned long long)(s1.bytes - s0.bytes), (unsigned long long)bytes);
    TU_CHECK(s1.single_stream - s0.single_stream == single, "%s: %s: stats.single_stream +%llu, "
             "expected +%llu", R->ctx, what,
             (unsigned long long)(s1.single_stream - s0.single_stream), (unsigned long long)single);
    TU_CHECK(mbgcm_queue_size(R->m) == 0, "%s: %s: queue_size %u after a burst", R->ctx, what,
             mbgcm_queue_size(R->m));
    free(bj);
    cc[R->cfg].bursts++;
    cc[R->cfg].jobs += n;
    cc[R->cfg].pipelined += pipelined;
    cc[R->cfg].whole12 += whole12;
    cc[R->cfg].auth += auth;
}

static void free_jobs(struct pj *p, unsigned n)
{
    for (unsigned i = 0; i < n; i++) tu_tjob_free(p[i].t);
}

/* ---- part 1: pairs --------------------------------------------------------------------------- */

/* One ordered pair (prev class pi, cur class ci) with direction pair dp, as [prev, cur] and
   [filler, prev, cur, filler]. The previous job's attributes are deterministic cycles in |k|
   (tag length k mod 7, AAD length k mod 11, key size k mod 3, key object (k / 3) mod 2,
   decrypt outcome (k / 4) mod 4; k mod 4 is dp): over the >= 112 consecutive k of one prev
   class every tag length, AAD length and key meets every direction pair. */
static void one_pair(struct run *R, size_t pi, size_t ci, unsigned dp, uint64_t k, int four)
{
    tu_rng *r = &R->r;
    tu_jspec ps;
    memset(&ps, 0, sizeof ps);
    ps.key = key_of(R, (unsigned)(k % 3), (unsigned)(k / 3 % 2));
    ps.dir = (dp & 1) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    ps.iv_len = 12;
    ps.aad_len = aad_lens[k % NAAD];
    ps.len = len_classes[pi];
    ps.tag_len = tag_lens[k % NTAG];
    spec_random_bits(r, &ps);
    const int poc = (int)(k / 4 % O_N);
    /* cur: from the seed, another key object (1 in 8 the same) */
    tu_jspec cs;
    int coc;
    spec_random(R, &cs, len_classes[ci], &coc);
    cs.key = key_other(R, ps.key);
    cs.dir = (dp & 2) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;

    char what[140];
    snprintf(what, sizeof what, "pair #%llu prev len %zu %s, cur len %zu %s, burst [prev, cur]",
             (unsigned long long)k, ps.len, ps.dir == MBGCM_ENCRYPT ? "enc" : "dec", cs.len,
             cs.dir == MBGCM_ENCRYPT ? "enc" : "dec");
    struct pj p[4];
    p[0] = make_job(r, &ps, poc);
    p[1] = make_job(r, &cs, coc);
    run_burst(R, p, 2, what);
    free_jobs(p, 2);
    if (!four) return;

    snprintf(what, sizeof what,
             "pair #%llu prev len %zu %s, cur len %zu %s, burst [filler, prev, cur, filler]",
             (unsigned long long)k, ps.len, ps.dir == MBGCM_ENCRYPT ? "enc" : "dec", cs.len,
             cs.dir == MBGCM_ENCRYPT ? "enc" : "dec");
    tu_jspec fs;
    int foc;
    spec_random(R, &fs, random_class(r), &foc);
    p[0] = make_job(r, &fs, foc);
    p[1] = make_job(r, &ps, poc);
    p[2] = make_job(r, &cs, coc);
    spec_random(R, &fs, random_class(r), &foc);
    p[3] = make_job(r, &fs, foc);
    run_burst(R, p, 4, what);
    free_jobs(p, 4);
}

static void part_pairs(struct run *R)
{
    const int full = tu_scale() >= 1.0;
    /* where the pipelined kernel runs every job (threshold 0), two variants of each pair */
    const unsigned variants = (full && R->jobs12 && R->thr == 0) ? 2 : 1;
    uint64_t k = 0;
    for (size_t pi = 0; pi < NCLS; pi++) {
        for (size_t ci = 0; ci < NCLS; ci++) {
            for (unsigned v = 0; v < variants; v++) {
                for (unsigned dp = 0; dp < 4; dp++, k++) {
                    /* scaled down (sanitizers): four-job bursts for every other pair */
                    one_pair(R, pi, ci, dp, k, full || (k / 4) % 2 == 0);
                }
            }
            cc[R->cfg].pairs++;
        }
    }
}

/* ---- part 2: bursts longer than one pipelined call ------------------------------------------- */

enum kind { K_PIPE, K_ODD_IV, K_BAD_TAG_LEN, K_SRC_NULL, K_SHORT, K_N };

static struct pj make_kind(struct run *R, int kind)
{
    tu_rng *r = &R->r;
    tu_jspec sp;
    int oc;
    switch (kind) {
    case K_PIPE:
        spec_random(R, &sp, random_single_class(R), &oc);
        break;
    case K_ODD_IV:
        spec_random(R, &sp, random_class(r), &oc);
        sp.iv_len = odd_ivs[tu_rng_below(r, 3)];
        break;
    case K_BAD_TAG_LEN:
    case K_SRC_NULL:
        spec_random(R, &sp, random_class(r), &oc);
        sp.bad = kind == K_BAD_TAG_LEN ? TU_BAD_TAG_LEN : TU_BAD_SRC_NULL;
        sp.tag_in_dst = 0;
        oc = O_OK;
        break;
    default: { /* K_SHORT: below the threshold (lanes) */
        size_t l;
        do {
            l = random_class(r);
        } while ((uint64_t)l >= R->thr);
        spec_random(R, &sp, l, &oc);
        if (tu_rng_below(r, 4) == 0) sp.iv_len = odd_ivs[tu_rng_below(r, 3)];
        break;
    }
    }
    if (tu_rng_below(r, 2)) oc = O_OK; /* half of the decrypt jobs authenticate */
    return make_job(r, &sp, oc);
}

static void part_long(struct run *R)
{
    static const unsigned npipe[] = {63, 64, 65, 100, 128, 129, 130};
    tu_rng *r = &R->r;
    const int have_short = R->thr > 0; /* a class below the threshold exists (0 < thr) */
    const unsigned reps = tu_scale() >= 1.0 ? 3 : 1;
    for (size_t ni = 0; ni < sizeof npipe / sizeof npipe[0]; ni++) {
        for (unsigned mixed = 0; mixed < 2; mixed++) {
            for (unsigned rep = 0; rep < reps; rep++) {
                const unsigned nd = npipe[ni];
                const unsigned nx = mixed ? nd / 4 + 4 : 0;
                const unsigned n = nd + nx;
                int *kinds = tu_xmalloc(n * sizeof *kinds);
                for (unsigned i = 0; i < nd; i++) kinds[i] = K_PIPE;
                const int nkinds = have_short ? 4 : 3;
                for (unsigned i = 0; i < nx; i++) {
                    /* each extra kind at least once, then any */
                    kinds[nd + i] =
                        1 + (int)(i < (unsigned)nkinds ? i : tu_rng_below(r, (uint64_t)nkinds));
                }
                for (unsigned i = n - 1; i > 0; i--) { /* shuffle */
                    const unsigned j = (unsigned)tu_rng_below(r, i + 1);
                    const int x = kinds[i];
                    kinds[i] = kinds[j];
                    kinds[j] = x;
                }
                if (mixed && rep == 0 && nd > MBGCMI_JOBS12_MAX) {
                    /* an extra job right at the call boundary: after the 64th pipelined job */
                    unsigned seen = 0, at = 0;
                    for (unsigned i = 0; i < n; i++) {
                        if (kinds[i] == K_PIPE && ++seen == MBGCMI_JOBS12_MAX) {
                            at = i + 1;
                            break;
                        }
                    }
                    for (unsigned i = at; i < n; i++) {
                        if (kinds[i] != K_PIPE) {
                            const int x = kinds[i];
                            kinds[i] = kinds[at];
                            kinds[at] = x;
                            break;
                        }
                    }
                }
                struct pj *p = tu_xmalloc(n * sizeof *p);
                for (unsigned i = 0; i < n; i++) p[i] = make_kind(R, kinds[i]);
                char what[120];
                snprintf(what, sizeof what,
                         "long burst: %u pipelined-path jobs%s, %u others, rep %u", nd,
                         R->thr > len_classes[NCLS - 1] ? " (threshold above every class)" : "",
                         nx, rep);
                run_burst(R, p, n, what);
                free_jobs(p, n);
                free(p);
                free(kinds);
            }
        }
    }
}

/* ---- part 3: fail masks ---------------------------------------------------------------------- */

enum mask_pat {
    M_ALL, M_NONE, M_FIRST, M_LAST, M_63, M_64, M_63_64, M_FIRST_LAST, M_ALL_BUT_63,
    M_ALL_ENC_MIX, M_N
};
static const char *const mask_name[M_N] = {
    "all fail", "none fail", "only the first fails", "only the last fails",
    "only job 63 fails", "only job 64 (the 65th) fails", "jobs 63 and 64 fail",
    "the first and the last fail", "all but job 63 fail", "all decrypt jobs fail, encrypt between"};

static int mask_fails(int pat, unsigned i, unsigned n)
{
    switch (pat) {
    case M_ALL: return 1;
    case M_NONE: return 0;
    case M_FIRST: return i == 0;
    case M_LAST: return i == n - 1;
    case M_63: return i == 63;
    case M_64: return i == 64;
    case M_63_64: return i == 63 || i == 64;
    case M_FIRST_LAST: return i == 0 || i == n - 1;
    case M_ALL_BUT_63: return i != 63;
    default: return i % 3 != 1; /* M_ALL_ENC_MIX: jobs 1, 4, 7, ... encrypt */
    }
}

static void part_masks(struct run *R)
{
    static const unsigned ns[] = {1, 2, 63, 64, 65, 66, 127, 128, 129};
    tu_rng *r = &R->r;
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {
        const unsigned n = ns[ni];
        for (int pat = 0; pat < M_N; pat++) {
            if ((pat == M_63 || pat == M_63_64 || pat == M_ALL_BUT_63) && n <= 63) continue;
            if (pat == M_64 && n <= 64) continue;
            struct pj *p = tu_xmalloc(n * sizeof *p);
            for (unsigned i = 0; i < n; i++) {
                tu_jspec sp;
                int oc;
                spec_random(R, &sp, random_single_class(R), &oc);
                const int fails = mask_fails(pat, i, n);
                sp.dir = (pat == M_ALL_ENC_MIX && !fails) ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
                oc = fails ? 1 + (int)tu_rng_below(r, O_N - 1) : O_OK;
                p[i] = make_job(r, &sp, oc);
            }
            char what[120];
            snprintf(what, sizeof what, "fail mask: %s, %u jobs", mask_name[pat], n);
            run_burst(R, p, n, what);
            free_jobs(p, n);
            free(p);
        }
    }
}

/* ---- per configuration ----------------------------------------------------------------------- */

static void pipeline_cfg(int cfg)
{
    tu_mgr_need_cfg(cfg);
    const int arch = tu_mgr_runs_arch(cfg);
    const int jobs12 = tu_arch(arch) != NULL && tu_arch(arch)->ops->jobs12 != NULL;
#if defined(MBGCM_HAVE_NASM)
    if (arch == TU_ARCH("avx512")) {
        TU_CHECK(jobs12, "arch=%s: the avx512 single-stream ops have no jobs12 kernel",
                 tu_mgr_label(cfg));
    }
#endif
    uint64_t thr_default = 0;
    for (int thr_mode = 0; thr_mode < 2; thr_mode++) {
        struct run R;
        memset(&R, 0, sizeof R);
        R.cfg = cfg;
        R.jobs12 = jobs12;
        R.ops = tu_arch(arch) != NULL ? tu_arch(arch)->ops : NULL;
        char label[64];
        snprintf(label, sizeof label, "mgr_pipeline/%s/%s", tu_mgr_label(cfg),
                 thr_mode ? "default" : "thr0");
        tu_rng_init(&R.r, label);
        R.keys = tu_keys_new(&R.r, 6, 16);
        for (unsigned s = 0; s < 3; s++) {
            for (unsigned o = 0; o < 2; o++) tu_key_random(&R.r, &R.keys[2 * s + o], 16 + 8 * s);
        }
        R.m = tu_mgr_open(cfg, 0, 0, 0);
        if (thr_mode == 0) {
            mbgcmi_mgr_set_single_min_len(R.m, 0);
            /* and the key look-ahead on where the arch has it (the estimate would leave it off
               with six keys): every job whole12 runs names the key three jobs on */
            mbgcmi_mgr_set_key_ahead(R.m, 1);
            TU_CHECK(mbgcmi_mgr_key_ahead(R.m) == (R.ops != NULL && R.ops->whole12_next != NULL),
                     "arch=%s: the key look-ahead forced on reads %d", tu_mgr_label(cfg),
                     mbgcmi_mgr_key_ahead(R.m));
        } else {
            R.thr_default = 1;
        }
        R.thr = R.m->single_min_len;
        if (thr_mode) thr_default = R.thr;
        snprintf(R.ctx, sizeof R.ctx, "arch=%s threshold=%s%llu%s key look-ahead %s (seed "
                 "0x%016llx)", tu_mgr_label(cfg), thr_mode ? "default " : "",
                 (unsigned long long)R.thr, jobs12 ? "" : " (no pipelined kernel on this arch)",
                 mbgcmi_mgr_key_ahead(R.m) ? "on" : "off", (unsigned long long)tu_seed());
        part_pairs(&R);
        part_long(&R);
        part_masks(&R);
        assert_int_equal(mbgcm_queue_size(R.m), 0);
        mbgcm_mgr_free(R.m);
        tu_keys_free(R.keys, 6);
    }
    const struct cfg_count *c = &cc[cfg];
    char thr_s[32];
    if (thr_default == UINT64_MAX) {
        snprintf(thr_s, sizeof thr_s, "never");
    } else {
        snprintf(thr_s, sizeof thr_s, "%llu", (unsigned long long)thr_default);
    }
    print_message("%-7s pipelined kernel %s, thresholds 0 and default (%s): %zu ordered pairs "
                  "x 4 direction pairs x 2 thresholds (%llu pair runs), %llu bursts, %llu jobs "
                  "(%llu on the pipelined path, %llu run at once through whole12, %llu auth "
                  "failures)\n",
                  tu_mgr_label(cfg), jobs12 ? "yes" : "no", thr_s, NCLS * NCLS,
                  (unsigned long long)c->pairs, (unsigned long long)c->bursts,
                  (unsigned long long)c->jobs, (unsigned long long)c->pipelined,
                  (unsigned long long)c->whole12,
                  (unsigned long long)c->auth);
}

/* The key look-ahead's estimate (jobs/jobs_internal.h, struct mbgcm_mgr): bursts whose keys
   come from 4096 key objects turn it on within two windows where the arch's whole12 takes a
   key (whole12_next), bursts over four keys turn it off again within two more, and a forced
   mode stays whatever the bursts show; every job completes MBGCM_OK throughout and a job's
   output matches the reference at each switch (the bursts' correctness with the look-ahead
   on is the pipeline test's: threshold 0 forces it). */
static void estimate_bursts(mbgcm_mgr *m, const tu_key *keys, unsigned nkeys, unsigned nbursts,
                            tu_rng *r, const char *what)
{
    enum { N = 8, LEN = 600 };
    static uint8_t in[N][LEN], out[N][LEN], tag[N][16], iv[N][12];
    mbgcm_job jobs[N];
    for (unsigned b = 0; b < nbursts; b++) {
        for (unsigned i = 0; i < N; i++) {
            mbgcm_job *j = &jobs[i];
            memset(j, 0, sizeof *j);
            j->key = &keys[tu_rng_below(r, nkeys)].key;
            j->dir = MBGCM_ENCRYPT;
            j->iv = iv[i];
            j->iv_len = 12;
            j->src = in[i];
            j->dst = out[i];
            j->len = b & 1 ? (i & 1 ? LEN : 300) : 64 * (1 + i % 4);
            j->tag = tag[i];
            j->tag_len = 16;
        }
        TU_CHECK(mbgcm_submit_burst(m, jobs, N) == N, "%s: burst %u: not every job OK", what, b);
    }
    /* the last burst's jobs against the reference */
    for (unsigned i = 0; i < N; i++) {
        const tu_key *k = (const tu_key *)(const void *)jobs[i].key;
        uint8_t ref[LEN], rtag[16];
        tu_ref_encrypt(k, iv[i], 12, NULL, 0, in[i], jobs[i].len, ref, rtag);
        TU_CHECK(memcmp(ref, out[i], jobs[i].len) == 0 && memcmp(rtag, tag[i], 16) == 0,
                 "%s: job %u differs from the reference", what, i);
    }
}

static void key_ahead_cfg(int cfg)
{
    tu_mgr_need_cfg(cfg);
    const int arch = tu_mgr_runs_arch(cfg);
    const int has = tu_arch(arch) != NULL && tu_arch(arch)->ops->whole12_next != NULL;
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_pipeline/key_ahead", cfg);
    const unsigned nk = 4096;
    tu_key *keys = tu_keys_new(&r, nk, 16);
    for (unsigned i = 0; i < 8; i++) tu_rng_next(&r);
    char what[96];
    mbgcm_mgr *m = tu_mgr_open(cfg, 0, 0, 0);
    snprintf(what, sizeof what, "arch=%s, auto, 4096 keys", tu_mgr_label(cfg));
    TU_CHECK(mbgcmi_mgr_key_ahead(m) == 0, "%s: on at the start", what);
    estimate_bursts(m, keys, nk, 2 * MBGCMI_KS_WINDOW, &r, what);
    TU_CHECK(mbgcmi_mgr_key_ahead(m) == has, "%s: look-ahead %d, expected %d", what,
             mbgcmi_mgr_key_ahead(m), has);
    snprintf(what, sizeof what, "arch=%s, auto, then 4 keys", tu_mgr_label(cfg));
    estimate_bursts(m, keys, 4, 2 * MBGCMI_KS_WINDOW, &r, what);
    TU_CHECK(mbgcmi_mgr_key_ahead(m) == 0, "%s: still on", what);
    snprintf(what, sizeof what, "arch=%s, forced on, 4 keys", tu_mgr_label(cfg));
    mbgcmi_mgr_set_key_ahead(m, 1);
    estimate_bursts(m, keys, 4, 2 * MBGCMI_KS_WINDOW, &r, what);
    TU_CHECK(mbgcmi_mgr_key_ahead(m) == has, "%s: look-ahead %d", what, mbgcmi_mgr_key_ahead(m));
    snprintf(what, sizeof what, "arch=%s, forced off, 4096 keys", tu_mgr_label(cfg));
    mbgcmi_mgr_set_key_ahead(m, 0);
    estimate_bursts(m, keys, nk, 2 * MBGCMI_KS_WINDOW, &r, what);
    TU_CHECK(mbgcmi_mgr_key_ahead(m) == 0, "%s: on", what);
    mbgcm_mgr_free(m);
    tu_keys_free(keys, nk);
}

static void key_ahead_all(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int n = tu_mgr_configs(cfgs);
    for (int i = 0; i < n; i++) {
        if (tu_mgr_fast_lanes(cfgs[i])) {
            key_ahead_cfg(cfgs[i]);
        }
    }
}

/* A full pipelined list with failed tags: bursts of 64, 65 and 130 jobs where every second
   job (or every job) is a decrypt the pipelined call gathers (4096 bytes: by16 and by32h
   gather decrypts from 2049 bytes; by32 runs them at once, which must come out just as right)
   and every fifth of those carries a flipped tag, the others 64-byte jobs between. The job
   that fills the list runs the call from whichever path met it, and the burst's count of
   successes and every job's status and output must come out as if each ran alone (the path
   between the short-job fill and the list once read a count of 2 or more failed tags from
   that run as "not taken" and ran the job again). */
static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= p[i];
    }
    return acc == 0;
}

static void full_list_failures(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "full-list");
    tu_key *keys = tu_keys_new(&r, 3, 0);
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    enum { NMAX = 130, BIG = 4096, SMALL = 64 };
    static const unsigned ns[] = {64, 65, 130};
    uint8_t *in = tu_xmalloc((size_t)NMAX * BIG), *ct = tu_xmalloc((size_t)NMAX * BIG);
    uint8_t *out = tu_xmalloc((size_t)NMAX * BIG);
    static uint8_t ivs[NMAX][12], tags[NMAX][16];
    static mbgcm_job jobs[NMAX];
    tu_rng_fill(&r, in, (size_t)NMAX * BIG);
    for (int ci = 0; ci < nc; ci++) {
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 4, 256, 0);
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
            for (int mixed = 0; mixed < 2; mixed++) {
                const unsigned n = ns[t];
                unsigned want_ok = 0;
                for (unsigned i = 0; i < n; i++) {
                    const int big = !mixed || i % 2 == 0;
                    const size_t len = big ? BIG : SMALL;
                    const int bad = big && (i / (mixed ? 2 : 1)) % 5 == 3;
                    tu_rng_fill(&r, ivs[i], 12);
                    tu_ref_encrypt(&keys[i % 3], ivs[i], 12, NULL, 0, in + (size_t)i * BIG, len,
                                   ct + (size_t)i * BIG, tags[i]);
                    tags[i][0] ^= (uint8_t)bad;
                    want_ok += !bad;
                    mbgcm_job *j = &jobs[i];
                    memset(j, 0, sizeof *j);
                    j->key = &keys[i % 3].key;
                    j->dir = MBGCM_DECRYPT;
                    j->iv = ivs[i];
                    j->iv_len = 12;
                    j->src = ct + (size_t)i * BIG;
                    j->dst = out + (size_t)i * BIG;
                    j->len = len;
                    j->tag = tags[i];
                    j->tag_len = 16;
                }
                const unsigned ok = mbgcm_submit_burst(m, jobs, n);
                TU_CHECK(ok == want_ok, "%s: burst of %u (mixed %d): ok %u want %u",
                         tu_mgr_label(cfgs[ci]), n, mixed, ok, want_ok);
                for (unsigned i = 0; i < n; i++) {
                    const int big = !mixed || i % 2 == 0;
                    const int want_bad = big && (i / (mixed ? 2 : 1)) % 5 == 3;
                    const size_t len = big ? BIG : SMALL;
                    TU_CHECK(jobs[i].status == (want_bad ? MBGCM_ERR_AUTH : MBGCM_OK),
                             "%s: burst of %u (mixed %d): job %u status %d",
                             tu_mgr_label(cfgs[ci]), n, mixed, i, jobs[i].status);
                    TU_CHECK(want_bad ? all_zero(out + (size_t)i * BIG, len)
                                      : memcmp(out + (size_t)i * BIG, in + (size_t)i * BIG,
                                               len) == 0,
                             "%s: burst of %u (mixed %d): job %u output",
                             tu_mgr_label(cfgs[ci]), n, mixed, i);
                }
            }
        }
        mbgcm_mgr_free(m);
    }
    free(in);
    free(ct);
    free(out);
    tu_keys_free(keys, 3);
}

static void pipeline_generic(void **state) { (void)state; pipeline_cfg(TU_ARCH("generic")); }
static void pipeline_aesni(void **state) { (void)state; pipeline_cfg(TU_ARCH("aesni")); }
static void pipeline_avx2(void **state) { (void)state; pipeline_cfg(TU_ARCH("avx2")); }
static void pipeline_avx512(void **state) { (void)state; pipeline_cfg(TU_ARCH("avx512")); }
static void pipeline_auto(void **state) { (void)state; pipeline_cfg(TU_MGR_AUTO); }

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pipeline_generic), cmocka_unit_test(pipeline_aesni),
        cmocka_unit_test(pipeline_avx2),    cmocka_unit_test(pipeline_avx512),
        cmocka_unit_test(pipeline_auto),    cmocka_unit_test(key_ahead_all),
        cmocka_unit_test(full_list_failures),
    };
    const int fails = cmocka_run_group_tests_name("mgr_pipeline", tests, NULL, NULL);
    uint64_t counts[TU_MGR_NCFG];
    for (int i = 0; i < TU_MGR_NCFG; i++) counts[i] = cc[i].jobs;
    tu_print_mgr_counts("jobs", counts);
    return fails ? 1 : 0;
}
