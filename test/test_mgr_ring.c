/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_ring.c — the job ring and the manager API edges, on every supported arch and
 * "auto":
 *
 *   ring_full          queue sizes 1, 2, 4, 8 with 4..16 lanes: submit always makes progress
 *                      and hands back the oldest job when the ring fills; never an error or a
 *                      lost job; get_next_job is never NULL and returns the same slot until it
 *                      is submitted (whatever else is called in between); in half the runs
 *                      the ring's job counters start just below 2^32, so they wrap
 *   ring_capacity      a ring of Q slots (1 .. 1024, the default 256, 65536): with the oldest
 *                      job pending, submits 2..Q-1 keep every job, submit Q returns the oldest
 *   free_pending       mbgcm_mgr_free with jobs pending in lanes, finished behind a pending
 *                      one, single-stream, after bursts, right after create: abandoned, and
 *                      nothing leaks (LeakSanitizer in the ASan build, valgrind elsewhere)
 *   many_managers      64 managers of random configurations alive at once, used in random
 *                      interleaving, sharing one pool of keys; each returns its jobs in order
 *   threads            four threads, one manager each (arches mixed), sharing one pool of keys
 *   after_invalid      every kind of invalid job, through the ring and through a burst, between
 *                      valid lane jobs: completes at once with its status, in its place, and the
 *                      manager keeps working
 *   bad_tag            a flipped bit in the tag, ciphertext, AAD or IV: MBGCM_ERR_AUTH and dst
 *                      all zero, in place and out of place, lanes and single-stream, ring and
 *                      burst, every tag length
 *   wipe_idle          once idle (drained by flush, after a burst, poll with nothing queued) the
 *                      lane state holds no key-derived data: every group is all zero
 *   one_slot           the manager's own routing: a job that runs at once through an empty ring
 *                      (12-byte IV, linear, from the arch's ring12_from) comes back from its
 *                      submit and the next get_next_job hands out its slot again (the ring
 *                      stays empty, so a ring run one job at a time keeps writing one slot);
 *                      mixed with jobs that wait in lanes, every job still comes back in order
 *                      with its outputs
 *   create_errors      bad lanes and queue sizes, unknown arch names, NULL out, mbgcm_mgr_new
 *                      returning NULL, mbgcm_mgr_arch names
 *   null_and_last_error  NULL-manager calls, submit_burst(NULL, n>0) and mbgcm_mgr_last_error,
 *                      bursts of 0 jobs, stats with NULL arguments
 *
 * Process-level modes (one ctest registration each, since the CPU features and MBGCM_ARCH are
 * read once per process):
 *   test_mgr_ring mask-avx512   AVX-512 hidden: arch "avx512" gives MBGCM_ERR_UNSUPPORTED,
 *                               "auto" runs the best remaining arch correctly
 *   test_mgr_ring mask-all      every feature hidden: only "generic" is created
 *   test_mgr_ring env-generic   MBGCM_ARCH=generic replaces "auto"; named arches unaffected
 *   test_mgr_ring env-bogus     MBGCM_ARCH=bogus: "auto" gives MBGCM_ERR_UNSUPPORTED
 */
#include <pthread.h>

#include "jobs_internal.h"
#include "test_util.h"

static uint64_t counts[TU_MGR_NCFG];

static void need(int cfg)
{
    tu_mgr_need_cfg(cfg);
}

/* A per-arch test's start: skipped where |cfg| is not supported; |label| "mgr_ring/what/arch"
   names the test in messages and seeds |r|. */
static void cfg_begin(int cfg, const char *what, char label[64], tu_rng *r)
{
    need(cfg);
    snprintf(label, 64, "mgr_ring/%s/%s", what, tu_mgr_label(cfg));
    tu_rng_init(r, label);
}

/* ---- a small checked driver: one manager, its jobs in flight ------------------------------- */
struct drv {
    mbgcm_mgr *m;
    int cfg;
    unsigned q;
    tu_tjob **t;
    mbgcm_job **slot;
    unsigned head, cnt, cap;
    uint64_t submitted, returned;
    char ctx[200];
};

/* drv_init's |thr| that leaves the manager's routing as the arch sets it */
#define DRV_ARCH_ROUTING (UINT64_MAX - 1)

static void drv_init(struct drv *d, int cfg, unsigned lanes, unsigned q, uint64_t thr,
                     const char *what)
{
    memset(d, 0, sizeof *d);
    d->cfg = cfg;
    d->q = q ? q : MBGCMI_DEFAULT_QUEUE;
    d->m = tu_mgr_open(cfg, lanes, q, 0);
    if (thr != DRV_ARCH_ROUTING) {
        mbgcmi_mgr_set_single_min_len(d->m, thr);
    }
    d->cap = d->q;
    d->t = tu_xmalloc(d->cap * sizeof *d->t);
    d->slot = tu_xmalloc(d->cap * sizeof *d->slot);
    char route[32] = "the arch's";
    if (thr != DRV_ARCH_ROUTING) {
        snprintf(route, sizeof route, "%llu", (unsigned long long)thr);
    }
    snprintf(d->ctx, sizeof d->ctx, "%s arch=%s lanes=%u queue=%u single_min=%s (seed "
             "0x%016llx)", what, tu_mgr_label(cfg), lanes, q, route,
             (unsigned long long)tu_seed());
}

static void drv_got(struct drv *d, mbgcm_job *j, const char *how)
{
    TU_CHECK(d->cnt > 0, "%s: %s returned a job with none in flight", d->ctx, how);
    TU_CHECK(j == d->slot[d->head], "%s: %s returned %p, expected the oldest %p", d->ctx, how,
             (void *)j, (void *)d->slot[d->head]);
    TU_CHECK(j->status != MBGCM_PENDING, "%s: %s returned a pending job", d->ctx, how);
    tu_tjob_check(d->t[d->head], j, d->ctx);
    tu_tjob_free(d->t[d->head]);
    d->head = (d->head + 1) % d->cap;
    d->cnt--;
    d->returned++;
}

static void drv_qcheck(struct drv *d)
{
    TU_CHECK(mbgcm_queue_size(d->m) == d->cnt, "%s: queue_size %u, %u in flight", d->ctx,
             mbgcm_queue_size(d->m), d->cnt);
}

/* Submit |t|; returns the slot it went into. */
static mbgcm_job *drv_submit(struct drv *d, tu_tjob *t, tu_rng *r)
{
    mbgcm_job *s = mbgcm_get_next_job(d->m);
    TU_CHECK(s != NULL, "%s: get_next_job NULL", d->ctx);
    tu_tjob_load(t, s, NULL, r);
    d->t[(d->head + d->cnt) % d->cap] = t;
    d->slot[(d->head + d->cnt) % d->cap] = s;
    d->cnt++;
    d->submitted++;
    const int fills = d->cnt == d->q;
    mbgcm_job *j = mbgcm_submit_job(d->m);
    TU_CHECK(j != NULL || !fills, "%s: submit into a full ring returned NULL", d->ctx);
    for (; j != NULL; j = mbgcm_get_completed_job(d->m)) {
        drv_got(d, j, "submit/get_completed");
    }
    drv_qcheck(d);
    TU_CHECK(d->cnt < d->q, "%s: %u jobs in a ring of %u after submit", d->ctx, d->cnt, d->q);
    return s;
}

static void drv_drain(struct drv *d)
{
    for (;;) {
        const unsigned before = d->cnt;
        mbgcm_job *j = mbgcm_flush_job(d->m);
        if (j == NULL) {
            TU_CHECK(before == 0, "%s: flush NULL with %u in flight", d->ctx, before);
            break;
        }
        drv_got(d, j, "flush");
    }
    drv_qcheck(d);
}

static void drv_close(struct drv *d)
{
    drv_drain(d);
    mbgcm_stats s;
    assert_int_equal(mbgcm_mgr_stats(d->m, &s), MBGCM_OK);
    TU_CHECK(s.jobs >= d->submitted, "%s: stats.jobs %llu < %llu ring jobs", d->ctx,
             (unsigned long long)s.jobs, (unsigned long long)d->submitted);
    mbgcm_mgr_free(d->m);
    free(d->t);
    free(d->slot);
    counts[d->cfg] += d->submitted;
}

static tu_tjob *rand_job(tu_rng *r, const tu_key *keys, size_t nkeys, int fast, int bad_pct)
{
    tu_jspec sp;
    memset(&sp, 0, sizeof sp);
    sp.key = &keys[tu_rng_below(r, nkeys)];
    sp.dir = tu_rng_below(r, 2) ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
    sp.iv_len = tu_rng_below(r, 10) ? 12 : (size_t)tu_rng_range(r, 1, 200);
    sp.aad_len = (size_t)tu_rng_below(r, 10) ? (size_t)tu_rng_below(r, 40)
                                             : (size_t)tu_rng_below(r, 600);
    sp.len = (size_t)(tu_rng_below(r, 10) ? tu_rng_below(r, 300)
                                         : tu_rng_below(r, fast ? 20000 : 3000));
    sp.tag_len = tu_pick_tag_len(r);
    sp.in_place = (int)tu_rng_below(r, 2);
    sp.tamper = tu_rng_below(r, 8) == 0;
    sp.null_empty = (int)tu_rng_below(r, 2);
    if ((int)tu_rng_below(r, 100) < bad_pct) {
        sp.bad = (int)tu_rng_range(r, 1, TU_BAD_COUNT - 1);
    }
    return tu_tjob_new(r, &sp);
}

/* ---- ring_full ------------------------------------------------------------------------------ */
static void ring_full_cfg(int cfg)
{
    char label[64];
    tu_rng r;
    cfg_begin(cfg, "full", label, &r);
    tu_mgr_need_lanes(cfg);
    const int fast = tu_mgr_fast_lanes(cfg);
    tu_key *keys = tu_keys_new(&r, 4, 0);
    static const unsigned qs[4] = {1, 2, 4, 8};
    static const unsigned lanes[4] = {4, 8, 12, 16};
    for (int qi = 0; qi < 4; qi++) {
        for (int li = 0; li < 4; li++) {
            struct drv d;
            const uint64_t thr = tu_rng_below(&r, 3) ? UINT64_MAX : 2048;
            drv_init(&d, cfg, lanes[li], qs[qi], thr, "ring_full");
            if (tu_rng_below(&r, 2)) {
                /* the ring's free-running counters start just below 2^32 and wrap mid-run */
                d.m->head = d.m->tail = UINT32_MAX - (unsigned)tu_rng_below(&r, 64);
            }
            const unsigned n = (unsigned)tu_scaled(fast ? 1500 : 300);
            for (unsigned i = 0; i < n; i++) {
                /* the same slot until submitted, whatever is called in between */
                mbgcm_job *s = mbgcm_get_next_job(d.m);
                TU_CHECK(s != NULL, "%s: get_next_job NULL", d.ctx);
                switch (tu_rng_below(&r, 5)) {
                case 0: {
                    mbgcm_job *j = mbgcm_get_completed_job(d.m);
                    if (j) drv_got(&d, j, "get_completed");
                    break;
                }
                case 1: {
                    mbgcm_job *j = mbgcm_flush_job(d.m);
                    TU_CHECK((j == NULL) == (d.cnt == 0), "%s: flush with %u in flight: %p",
                             d.ctx, d.cnt, (void *)j);
                    if (j) drv_got(&d, j, "flush");
                    break;
                }
                case 2: {
                    mbgcm_job *j = mbgcm_mgr_poll(d.m);
                    if (j) drv_got(&d, j, "poll");
                    break;
                }
                case 3: {
                    tu_tjob *b = rand_job(&r, keys, 4, fast, 10);
                    mbgcm_job bj;
                    tu_tjob_load(b, &bj, NULL, &r);
                    const unsigned ok = mbgcm_submit_burst(d.m, &bj, 1);
                    TU_CHECK(ok == (b->expect == MBGCM_OK), "%s: burst of one", d.ctx);
                    tu_tjob_check(b, &bj, d.ctx);
                    tu_tjob_free(b);
                    break;
                }
                default: break;
                }
                drv_qcheck(&d);
                TU_CHECK(mbgcm_get_next_job(d.m) == s, "%s: get_next_job moved before submit",
                         d.ctx);
                mbgcm_job *got = drv_submit(&d, rand_job(&r, keys, 4, fast, 8), &r);
                TU_CHECK(got == s, "%s: submitted a different slot", d.ctx);
                if (qs[qi] == 1) {
                    TU_CHECK(d.cnt == 0, "%s: a ring of one kept a job", d.ctx);
                }
            }
            mbgcm_stats st;
            assert_int_equal(mbgcm_mgr_stats(d.m, &st), MBGCM_OK);
            if (qs[qi] < lanes[li] && thr == UINT64_MAX) {
                TU_CHECK(st.runs_ring_full > 0, "%s: no ring-full run", d.ctx);
            }
            drv_close(&d);
        }
    }
    tu_keys_free(keys, 4);
}

/* ---- ring_capacity ---------------------------------------------------------------------------- */
static void ring_capacity_cfg(int cfg)
{
    char label[64];
    tu_rng r;
    cfg_begin(cfg, "capacity", label, &r);
    tu_mgr_need_lanes(cfg);
    tu_key *keys = tu_keys_new(&r, 1, 0);
    static const unsigned qs[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 0, 65536};
    for (size_t qi = 0; qi < sizeof qs / sizeof qs[0]; qi++) {
        const unsigned Q = qs[qi] ? qs[qi] : 256; /* 0: the default, 256 */
        char ctx[160];
        snprintf(ctx, sizeof ctx, "arch=%s queue_size=%u (seed 0x%016llx)", tu_mgr_label(cfg),
                 qs[qi], (unsigned long long)tu_seed());
        mbgcm_mgr *m = tu_mgr_open(cfg, 16, qs[qi], 0);
        mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
        /* the oldest job: valid, pending in a lane (16 lanes never fill here) */
        tu_jspec sp;
        memset(&sp, 0, sizeof sp);
        sp.key = &keys[0];
        sp.dir = MBGCM_ENCRYPT;
        sp.iv_len = 12;
        sp.len = 100;
        sp.tag_len = 16;
        tu_tjob *first = tu_tjob_new(&r, &sp);
        sp.bad = TU_BAD_DIR; /* fillers: complete at once, wait behind the first */
        tu_tjob *filler = tu_tjob_new(&r, &sp);
        mbgcm_job *s0 = mbgcm_get_next_job(m);
        tu_tjob_load(first, s0, NULL, &r);
        mbgcm_job *j = mbgcm_submit_job(m);
        if (Q == 1) {
            TU_CHECK(j == s0, "%s: a ring of one must return the job at once", ctx);
            tu_tjob_check(first, j, ctx);
        } else {
            TU_CHECK(j == NULL, "%s: first job back at once", ctx);
            for (unsigned i = 2; i <= Q; i++) {
                mbgcm_job *s = mbgcm_get_next_job(m);
                TU_CHECK(s != s0, "%s: slot of the pending job handed out", ctx);
                tu_tjob_load(filler, s, NULL, NULL);
                j = mbgcm_submit_job(m);
                if (i < Q) {
                    TU_CHECK(j == NULL, "%s: submit %u of %u returned a job", ctx, i, Q);
                    TU_CHECK(mbgcm_queue_size(m) == i, "%s: queue_size %u after %u", ctx,
                             mbgcm_queue_size(m), i);
                } else {
                    TU_CHECK(j == s0, "%s: submit %u (ring full) did not return the oldest",
                             ctx, i);
                    tu_tjob_check(first, j, ctx);
                    TU_CHECK(mbgcm_queue_size(m) == Q - 1, "%s: queue_size %u", ctx,
                             mbgcm_queue_size(m));
                }
            }
            /* the fillers come back in order, complete */
            unsigned n = 0;
            while ((j = mbgcm_get_completed_job(m)) != NULL) {
                TU_CHECK(j->status == MBGCM_ERR_INVALID, "%s: filler status %d", ctx, j->status);
                n++;
            }
            TU_CHECK(n == Q - 1 && mbgcm_queue_size(m) == 0, "%s: %u fillers back of %u", ctx,
                     n, Q - 1);
        }
        mbgcm_stats st;
        assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
        TU_CHECK(st.runs_ring_full >= 1 && st.jobs == Q && st.jobs_invalid == Q - 1,
                 "%s: runs_ring_full %llu jobs %llu invalid %llu", ctx,
                 (unsigned long long)st.runs_ring_full, (unsigned long long)st.jobs,
                 (unsigned long long)st.jobs_invalid);
        counts[cfg] += Q;
        tu_tjob_free(first);
        tu_tjob_free(filler);
        mbgcm_mgr_free(m);
    }
    tu_keys_free(keys, 1);
}

/* ---- free_pending ------------------------------------------------------------------------------ */
static void free_pending_cfg(int cfg)
{
    char label[64];
    tu_rng r;
    cfg_begin(cfg, "free", label, &r);
    const int fast = tu_mgr_fast_lanes(cfg);
    tu_key *keys = tu_keys_new(&r, 3, 0);
    for (int scen = 0; scen < 40; scen++) {
        static const unsigned lane_set[4] = {4, 8, 12, 16};
        const unsigned lanes = lane_set[scen % 4];
        const unsigned q = 1u << tu_rng_range(&r, 0, 7);
        mbgcm_mgr *m = tu_mgr_open(cfg, lanes, q, scen % 3 ? 0 : 1000);
        mbgcmi_mgr_set_single_min_len(m, scen % 5 == 0 ? 1000 : UINT64_MAX);
        tu_tjob *t[600];
        unsigned nt = 0;
        if (scen % 7 != 0) { /* 7, 14, ...: free right after create */
            const unsigned n = 1 + (unsigned)tu_rng_below(&r, 3 * lanes);
            for (unsigned i = 0; i < n && nt < 600; i++) {
                tu_tjob *x = rand_job(&r, keys, 3, fast, 10);
                t[nt++] = x;
                tu_tjob_load(x, mbgcm_get_next_job(m), NULL, &r);
                mbgcm_submit_job(m); /* whatever comes back is dropped too */
                if (tu_rng_below(&r, 6) == 0) {
                    mbgcm_job bj[5];
                    for (int b = 0; b < 5 && nt < 600; b++) {
                        t[nt] = rand_job(&r, keys, 3, fast, 10);
                        tu_tjob_load(t[nt], &bj[b], NULL, &r);
                        nt++;
                    }
                    mbgcm_submit_burst(m, bj, 5);
                }
            }
        }
        mbgcm_mgr_free(m); /* pending jobs abandoned */
        for (unsigned i = 0; i < nt; i++) {
            tu_tjob_free(t[i]);
        }
        counts[cfg] += nt;
    }
    mbgcm_mgr_free(NULL);
    tu_keys_free(keys, 3);
}

/* ---- many_managers --------------------------------------------------------------------------- */
static void many_managers(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "mgr_ring/many");
    int cfgs[TU_MGR_NCFG];
    const int ncfg = tu_mgr_configs(cfgs);
    enum { NM = 64 };
    tu_key *keys = tu_keys_new(&r, 8, 0); /* shared by every manager */
    struct drv *d = tu_xmalloc(NM * sizeof *d);
    int fast[NM];
    for (int i = 0; i < NM; i++) {
        static const unsigned lane_set[4] = {4, 8, 12, 16};
        const int cfg = cfgs[i % ncfg];
        fast[i] = tu_mgr_fast_lanes(cfg);
        drv_init(&d[i], cfg, lane_set[tu_rng_below(&r, 4)], 1u << tu_rng_below(&r, 8),
                 tu_rng_below(&r, 4) ? UINT64_MAX : 4096, "many_managers");
    }
    const unsigned ops = (unsigned)tu_scaled(60000);
    for (unsigned op = 0; op < ops; op++) {
        struct drv *x = &d[tu_rng_below(&r, NM)];
        const int f = fast[x - d];
        const uint64_t c = tu_rng_below(&r, 10);
        if (c < 7) {
            drv_submit(x, rand_job(&r, keys, 8, f, 5), &r);
        } else if (c < 8) {
            mbgcm_job *j = mbgcm_get_completed_job(x->m);
            if (j) drv_got(x, j, "get_completed");
        } else if (c < 9) {
            mbgcm_job *j = mbgcm_flush_job(x->m);
            TU_CHECK((j == NULL) == (x->cnt == 0), "%s: flush", x->ctx);
            if (j) drv_got(x, j, "flush");
        } else {
            mbgcm_job bj[8];
            tu_tjob *bt[8];
            const unsigned n = (unsigned)tu_rng_below(&r, 9);
            for (unsigned i = 0; i < n; i++) {
                bt[i] = rand_job(&r, keys, 8, f, 5);
                tu_tjob_load(bt[i], &bj[i], NULL, &r);
            }
            mbgcm_submit_burst(x->m, bj, n);
            for (unsigned i = 0; i < n; i++) {
                tu_tjob_check(bt[i], &bj[i], x->ctx);
                tu_tjob_free(bt[i]);
            }
            counts[x->cfg] += n;
        }
        drv_qcheck(x);
    }
    uint64_t total = 0;
    for (int i = 0; i < NM; i++) {
        total += d[i].submitted;
        drv_close(&d[i]);
    }
    print_message("64 managers, %llu ring jobs\n", (unsigned long long)total);
    free(d);
    tu_keys_free(keys, 8);
}

/* ---- after_invalid --------------------------------------------------------------------------- */
static void after_invalid_cfg(int cfg)
{
    char label[64];
    tu_rng r;
    cfg_begin(cfg, "invalid", label, &r);
    const int fast = tu_mgr_fast_lanes(cfg);
    tu_key *keys = tu_keys_new(&r, 3, 0);
    for (int bad = 1; bad < TU_BAD_COUNT; bad++) {
        for (int rep = 0; rep < 8; rep++) {
            static const unsigned lane_set[4] = {4, 8, 12, 16};
            struct drv d;
            char what[64];
            snprintf(what, sizeof what, "after_invalid(%s)", tu_bad_name(bad));
            drv_init(&d, cfg, lane_set[rep % 4], 64, rep % 3 == 2 ? 500 : UINT64_MAX, what);
            /* some valid jobs pending in lanes, the bad one, then more valid jobs */
            const unsigned before = (unsigned)tu_rng_below(&r, 6), after = 1 + (unsigned)tu_rng_below(&r, 20);
            for (unsigned i = 0; i < before; i++) drv_submit(&d, rand_job(&r, keys, 3, fast, 0), &r);
            tu_jspec sp;
            memset(&sp, 0, sizeof sp);
            sp.key = &keys[tu_rng_below(&r, 3)];
            sp.dir = tu_rng_below(&r, 2) ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
            sp.iv_len = 12;
            sp.aad_len = (size_t)tu_rng_below(&r, 50);
            sp.len = (size_t)tu_rng_below(&r, 300);
            sp.tag_len = tu_pick_tag_len(&r);
            sp.in_place = (int)tu_rng_below(&r, 2);
            sp.bad = bad;
            tu_tjob *bt = tu_tjob_new(&r, &sp);
            const unsigned pending_before = d.cnt;
            drv_submit(&d, bt, &r);
            if (pending_before == 0) {
                TU_CHECK(d.cnt == 0, "%s: an invalid job with nothing ahead was not returned "
                         "by its submit", d.ctx);
            }
            for (unsigned i = 0; i < after; i++) drv_submit(&d, rand_job(&r, keys, 3, fast, 0), &r);
            /* the same kind inside a burst */
            mbgcm_job bj[3];
            tu_tjob *b3[3] = {rand_job(&r, keys, 3, fast, 0), tu_tjob_new(&r, &sp),
                              rand_job(&r, keys, 3, fast, 0)};
            for (int i = 0; i < 3; i++) tu_tjob_load(b3[i], &bj[i], NULL, &r);
            const unsigned ok = mbgcm_submit_burst(d.m, bj, 3);
            TU_CHECK(ok == (unsigned)(b3[0]->expect == MBGCM_OK) + (b3[2]->expect == MBGCM_OK),
                     "%s: burst OK count %u", d.ctx, ok);
            for (int i = 0; i < 3; i++) {
                tu_tjob_check(b3[i], &bj[i], d.ctx);
                tu_tjob_free(b3[i]);
            }
            TU_CHECK(mbgcm_mgr_last_error(d.m) == MBGCM_OK, "%s: a job error set last_error",
                     d.ctx);
            mbgcm_stats st;
            assert_int_equal(mbgcm_mgr_stats(d.m, &st), MBGCM_OK);
            TU_CHECK(st.jobs_invalid == 2, "%s: jobs_invalid %llu", d.ctx,
                     (unsigned long long)st.jobs_invalid);
            counts[cfg] += 3;
            drv_close(&d);
        }
    }
    tu_keys_free(keys, 3);
}

/* ---- bad_tag ----------------------------------------------------------------------------------- */
static void bad_tag_cfg(int cfg)
{
    char label[64];
    tu_rng r;
    cfg_begin(cfg, "badtag", label, &r);
    tu_key *keys = tu_keys_new(&r, 3, 0);
    static const size_t tls[7] = {4, 8, 12, 13, 14, 15, 16};
    for (int single = 0; single < 2; single++) {
        for (int burst = 0; burst < 2; burst++) {
            mbgcm_mgr *m = tu_mgr_open(cfg, 4, 16, 0);
            mbgcmi_mgr_set_single_min_len(m, single ? 0 : UINT64_MAX);
            for (int inpl = 0; inpl < 2; inpl++) {
                for (int ti = 0; ti < 7; ti++) {
                    for (int what = 0; what < 4; what++) { /* tag, ciphertext, aad, iv */
                        const size_t len = (size_t)tu_rng_range(&r, what == 1 ? 1 : 0, 700);
                        const tu_key *k = &keys[tu_rng_below(&r, 3)];
                        uint8_t iv[12], aad[40], tag[16], full[16];
                        tu_rng_fill(&r, iv, 12);
                        tu_rng_fill(&r, aad, sizeof aad);
                        uint8_t *pt = tu_xmalloc(len), *buf = tu_xmalloc(len + 16);
                        uint8_t *out = tu_xmalloc(len + 16);
                        tu_rng_fill(&r, pt, len);
                        tu_ref_encrypt(k, iv, 12, aad, sizeof aad, pt, len, buf, full);
                        memcpy(tag, full, 16);
                        memset(buf + len, 0xC5, 16);
                        memset(out, 0xA5, len + 16);
                        switch (what) {
                        case 0: tag[tu_rng_below(&r, tls[ti])] ^= (uint8_t)(1u << tu_rng_below(&r, 8)); break;
                        case 1: buf[tu_rng_below(&r, len)] ^= (uint8_t)(1u << tu_rng_below(&r, 8)); break;
                        case 2: aad[tu_rng_below(&r, sizeof aad)] ^= 0x80; break;
                        default: iv[tu_rng_below(&r, 12)] ^= 1; break;
                        }
                        mbgcm_job bj, *j;
                        j = burst ? &bj : mbgcm_get_next_job(m);
                        memset(j, 0, sizeof *j);
                        j->key = &k->key;
                        j->dir = MBGCM_DECRYPT;
                        j->iv = iv;
                        j->iv_len = 12;
                        j->aad = aad;
                        j->aad_len = sizeof aad;
                        j->src = buf;
                        j->dst = inpl ? buf : out;
                        j->len = len;
                        j->tag = tag;
                        j->tag_len = tls[ti];
                        if (burst) {
                            TU_CHECK(mbgcm_submit_burst(m, &bj, 1) == 0, "burst OK count");
                        } else {
                            mbgcm_job *x = mbgcm_submit_job(m);
                            if (x == NULL) x = mbgcm_flush_job(m);
                            TU_CHECK(x == j, "ring job not back");
                        }
                        char ctx[200];
                        snprintf(ctx, sizeof ctx, "arch=%s %s %s %s tag_len=%zu flipped=%s "
                                 "len=%zu (seed 0x%016llx)", tu_mgr_label(cfg),
                                 single ? "single-stream" : "lanes", burst ? "burst" : "ring",
                                 inpl ? "in place" : "out of place", tls[ti],
                                 what == 0 ? "tag" : what == 1 ? "ciphertext" : what == 2 ? "aad" : "iv",
                                 len, (unsigned long long)tu_seed());
                        TU_CHECK(j->status == MBGCM_ERR_AUTH, "%s: status %d", ctx, j->status);
                        uint8_t *o = inpl ? buf : out;
                        TU_CHECK(tu_all_byte(o, len, 0), "%s: dst not zeroed", ctx);
                        TU_CHECK(tu_all_byte(o + len, 16, inpl ? 0xC5 : 0xA5),
                                 "%s: wrote past dst", ctx);
                        free(pt);
                        free(buf);
                        free(out);
                        counts[cfg]++;
                    }
                }
            }
            mbgcm_stats st;
            assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
            TU_CHECK(st.auth_failures == 2 * 7 * 4, "auth_failures %llu",
                     (unsigned long long)st.auth_failures);
            mbgcm_mgr_free(m);
        }
    }
    tu_keys_free(keys, 3);
}

/* ---- threads --------------------------------------------------------------------------------- */
/* One manager per thread, all sharing one pool of keys (read-only): no global mutable state
   may mix them up. Jobs and their expected results are built on the main thread (the
   references are not thread-safe); the threads only drive their managers and compare. */
struct thr {
    pthread_t tid;
    int cfg;
    unsigned lanes, q, n;
    uint64_t seed;
    tu_tjob **t;
    unsigned errors, order_errors, returned;
    int first_bad;
};

static void *thr_main(void *arg)
{
    struct thr *T = arg;
    tu_rng r = {{T->seed, T->seed ^ 0x9E3779B97F4A7C15u, ~T->seed, T->seed * 3 + 1}};
    mbgcm_config c;
    memset(&c, 0, sizeof c);
    c.arch = tu_mgr_cfg_arch(T->cfg);
    c.lanes = T->lanes;
    c.queue_size = T->q;
    mbgcm_mgr *m = mbgcm_mgr_new(&c);
    if (m == NULL) {
        T->errors++;
        return NULL;
    }
    mbgcm_job **slot = calloc(T->n, sizeof *slot);
    mbgcm_job bj[8];
    unsigned next = 0, back = 0;
    T->first_bad = -1;
    while (back < T->n) {
        const uint64_t c2 = tu_rng_next(&r) % 10;
        mbgcm_job *j = NULL;
        if (next < T->n && c2 < 7) {
            slot[next] = mbgcm_get_next_job(m);
            tu_tjob_load(T->t[next], slot[next], (void *)(uintptr_t)next, NULL);
            next++;
            j = mbgcm_submit_job(m);
        } else if (next < T->n && c2 < 8) {
            /* a burst of up to 8 */
            unsigned k = 0;
            while (k < 8 && next < T->n) {
                tu_tjob_load(T->t[next], &bj[k], (void *)(uintptr_t)next, NULL);
                slot[next] = NULL;
                next++;
                k++;
            }
            mbgcm_submit_burst(m, bj, k);
            for (unsigned i = 0; i < k; i++) {
                const unsigned idx = next - k + i;
                if (!tu_tjob_ok(T->t[idx], &bj[i])) {
                    T->errors++;
                    if (T->first_bad < 0) T->first_bad = (int)idx;
                }
            }
        } else {
            j = mbgcm_flush_job(m);
        }
        for (; j != NULL; j = mbgcm_get_completed_job(m)) {
            while (back < T->n && back < next && slot[back] == NULL) back++; /* burst jobs */
            const unsigned idx = (unsigned)(uintptr_t)j->user_data;
            if (back >= next || j != slot[back] || idx != back) {
                T->order_errors++;
                break;
            }
            if (!tu_tjob_ok(T->t[idx], j)) {
                T->errors++;
                if (T->first_bad < 0) T->first_bad = (int)idx;
            }
            back++;
            T->returned++;
        }
        while (back < T->n && back < next && slot[back] == NULL) back++;
        if (T->order_errors) break;
        if (next == T->n && back < T->n && mbgcm_queue_size(m) == 0) {
            T->order_errors++; /* jobs lost */
            break;
        }
    }
    free(slot);
    mbgcm_mgr_free(m);
    return NULL;
}

static void threads(void **state)
{
    (void)state;
    tu_rng r;
    tu_rng_init(&r, "mgr_ring/threads");
    int cfgs[TU_MGR_NCFG];
    const int ncfg = tu_mgr_configs(cfgs);
    enum { NT = 4 };
    tu_key *keys = tu_keys_new(&r, 6, 0); /* shared by all threads */
    struct thr T[NT];
    for (int i = 0; i < NT; i++) {
        static const unsigned lane_set[4] = {4, 8, 12, 16};
        memset(&T[i], 0, sizeof T[i]);
        T[i].cfg = cfgs[(unsigned)i % (unsigned)ncfg == 0 ? (unsigned)ncfg - 1
                                                           : (unsigned)i % (unsigned)ncfg];
        const int fast = tu_mgr_fast_lanes(T[i].cfg);
        T[i].lanes = lane_set[tu_rng_below(&r, 4)];
        T[i].q = 1u << tu_rng_below(&r, 9);
        T[i].n = (unsigned)tu_scaled(fast ? 6000 : 1500);
        T[i].seed = tu_rng_next(&r);
        T[i].t = tu_xmalloc(T[i].n * sizeof *T[i].t);
        for (unsigned k = 0; k < T[i].n; k++) {
            T[i].t[k] = rand_job(&r, keys, 6, fast, 5);
        }
    }
    for (int i = 0; i < NT; i++) {
        assert_int_equal(pthread_create(&T[i].tid, NULL, thr_main, &T[i]), 0);
    }
    for (int i = 0; i < NT; i++) {
        assert_int_equal(pthread_join(T[i].tid, NULL), 0);
    }
    for (int i = 0; i < NT; i++) {
        char d[300] = "";
        if (T[i].first_bad >= 0) tu_tjob_describe(T[i].t[T[i].first_bad], d, sizeof d);
        TU_CHECK(T[i].errors == 0 && T[i].order_errors == 0,
                 "thread %d (arch=%s lanes=%u queue=%u, seed 0x%016llx): %u wrong jobs, %u "
                 "order errors; first wrong job #%d: %s", i, tu_mgr_label(T[i].cfg), T[i].lanes,
                 T[i].q, (unsigned long long)tu_seed(), T[i].errors, T[i].order_errors,
                 T[i].first_bad, d);
        for (unsigned k = 0; k < T[i].n; k++) tu_tjob_free(T[i].t[k]);
        free(T[i].t);
        counts[T[i].cfg] += T[i].n;
    }
    print_message("%d threads, one manager each, shared keys: all jobs correct\n", NT);
    tu_keys_free(keys, 6);
}

/* ---- wipe_idle -------------------------------------------------------------------------------- */
/* Lane state holding key-derived data (round keys, hash powers, E_K(J0), counters, GHASH state,
   expected tags) is wiped once the manager goes idle: after a drain by flush, at the end of a
   burst with nothing queued, and by poll with nothing queued. Checked on the internal layout
   (core/group.h): every byte zero except the idle lanes' pointers, which point at scratch. */
static void check_wiped(mbgcm_mgr *m, const char *ctx)
{
    const mbgcm_mgr *L = m;
    for (unsigned gi = 0; gi < L->ngroups; gi++) {
        struct mbgcmi_group g;
        memcpy(&g, &L->g[gi], sizeof g);
        for (int s = 0; s < MBGCMI_GL; s++) {
            const uint8_t *sc = L->g[gi].scratch;
            TU_CHECK(g.aad[s] == sc && g.src[s] == sc && g.dst[s] == sc && g.tag[s] == sc,
                     "%s: group %u lane %d: idle pointers not at scratch", ctx, gi, s);
            g.aad[s] = g.src[s] = NULL;
            g.dst[s] = g.tag[s] = NULL;
        }
        const long d = tu_first_diff(&g, (const uint8_t[sizeof g]){0}, sizeof g);
        TU_CHECK(d < 0, "%s: group %u not wiped: byte %ld (offset in struct mbgcmi_group) is "
                 "0x%02x", ctx, gi, d, d >= 0 ? ((const uint8_t *)&g)[d] : 0);
    }
    for (unsigned i = 0; i < L->ngroups * MBGCMI_GL; i++) {
        TU_CHECK(L->info[i].job == NULL && L->info[i].key == NULL,
                 "%s: lane %u still refers to a job or key", ctx, i);
    }
}

static void wipe_idle_cfg(int cfg)
{
    char label[64];
    tu_rng r;
    cfg_begin(cfg, "wipe", label, &r);
    const int fast = tu_mgr_fast_lanes(cfg);
    tu_key *keys = tu_keys_new(&r, 4, 0);
    for (int rep = 0; rep < 12; rep++) {
        static const unsigned lane_set[4] = {4, 8, 12, 16};
        struct drv d;
        drv_init(&d, cfg, lane_set[rep % 4], 64, UINT64_MAX, "wipe_idle");
        /* ring jobs, drained by flush */
        const unsigned n = 1 + (unsigned)tu_rng_below(&r, 40);
        for (unsigned i = 0; i < n; i++) drv_submit(&d, rand_job(&r, keys, 4, fast, 5), &r);
        drv_drain(&d);
        check_wiped(d.m, d.ctx);
        /* a burst with nothing queued */
        mbgcm_job bj[12];
        tu_tjob *bt[12];
        const unsigned nb = 1 + (unsigned)tu_rng_below(&r, 12);
        for (unsigned i = 0; i < nb; i++) {
            bt[i] = rand_job(&r, keys, 4, fast, 5);
            tu_tjob_load(bt[i], &bj[i], NULL, &r);
        }
        mbgcm_submit_burst(d.m, bj, nb);
        for (unsigned i = 0; i < nb; i++) {
            tu_tjob_check(bt[i], &bj[i], d.ctx);
            tu_tjob_free(bt[i]);
        }
        check_wiped(d.m, d.ctx);
        /* jobs completed by full lanes and collected with get_completed, then poll */
        for (unsigned i = 0; i < 4 * d.q && (d.cnt || i == 0 || i % lane_set[rep % 4]); i++) {
            drv_submit(&d, rand_job(&r, keys, 4, fast, 0), &r);
        }
        if (d.cnt == 0) {
            mbgcm_job *j = mbgcm_mgr_poll(d.m);
            TU_CHECK(j == NULL, "%s: poll returned a job", d.ctx);
            check_wiped(d.m, d.ctx);
        }
        counts[cfg] += nb;
        drv_close(&d);
    }
    tu_keys_free(keys, 4);
}

/* ---- create_errors ---------------------------------------------------------------------------- */
static void expect_create(const mbgcm_config *c, int want, const char *what)
{
    mbgcm_mgr *m = (mbgcm_mgr *)(uintptr_t)0x1234; /* must become NULL on error */
    const int s = mbgcm_mgr_create(&m, c);
    TU_CHECK(s == want, "%s: mbgcm_mgr_create = %d (%s), expected %d", what, s,
             mbgcm_strerror(s), want);
    mbgcm_mgr *n = mbgcm_mgr_new(c);
    if (want == MBGCM_OK) {
        TU_CHECK(m != NULL && n != NULL, "%s: no manager", what);
    } else {
        TU_CHECK(m == NULL, "%s: *out not NULL after an error", what);
        TU_CHECK(n == NULL, "%s: mbgcm_mgr_new did not return NULL", what);
    }
    mbgcm_mgr_free(want == MBGCM_OK ? m : NULL);
    mbgcm_mgr_free(n);
}

static void create_errors(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int ncfg = tu_mgr_configs(cfgs);
    char what[120];
    for (int ci = 0; ci < ncfg; ci++) {
        mbgcm_config c;
        memset(&c, 0, sizeof c);
        c.arch = tu_mgr_cfg_arch(cfgs[ci]);
        static const unsigned bad_lanes[] = {1, 2, 3, 5, 6, 7, 9, 13, 17, 20, 32, 64, 0x80000004u,
                                             UINT32_MAX};
        for (size_t i = 0; i < sizeof bad_lanes / sizeof bad_lanes[0]; i++) {
            c.lanes = bad_lanes[i];
            snprintf(what, sizeof what, "arch=%s lanes=%u", tu_mgr_label(cfgs[ci]), c.lanes);
            expect_create(&c, MBGCM_ERR_INVALID, what);
        }
        static const unsigned ok_lanes[] = {0, 4, 8, 12, 16};
        for (size_t i = 0; i < sizeof ok_lanes / sizeof ok_lanes[0]; i++) {
            c.lanes = ok_lanes[i];
            snprintf(what, sizeof what, "arch=%s lanes=%u", tu_mgr_label(cfgs[ci]), c.lanes);
            expect_create(&c, MBGCM_OK, what);
        }
        c.lanes = 0;
        static const unsigned bad_q[] = {3, 5, 6, 7, 12, 100, 1000, 65535, 65537, 131072,
                                         1u << 31, UINT32_MAX};
        for (size_t i = 0; i < sizeof bad_q / sizeof bad_q[0]; i++) {
            c.queue_size = bad_q[i];
            snprintf(what, sizeof what, "arch=%s queue_size=%u", tu_mgr_label(cfgs[ci]),
                     c.queue_size);
            expect_create(&c, MBGCM_ERR_INVALID, what);
        }
        for (unsigned q = 0; q <= 65536; q = q ? 2 * q : 1) {
            c.queue_size = q;
            snprintf(what, sizeof what, "arch=%s queue_size=%u", tu_mgr_label(cfgs[ci]), q);
            expect_create(&c, MBGCM_OK, what);
        }
        c.queue_size = 0;
        c.flush_timeout_ns = UINT64_MAX;
        snprintf(what, sizeof what, "arch=%s timeout=max", tu_mgr_label(cfgs[ci]));
        expect_create(&c, MBGCM_OK, what);
    }
    /* arch names */
    static const char *const bogus[] = {"bogus", "AVX512", "Generic", "avx512 ", " avx2",
                                        "avx-512", "sse", "none", "avx512f", "autoo", "neon"};
    for (size_t i = 0; i < sizeof bogus / sizeof bogus[0]; i++) {
        mbgcm_config c;
        memset(&c, 0, sizeof c);
        c.arch = bogus[i];
        snprintf(what, sizeof what, "arch=\"%s\"", bogus[i]);
        expect_create(&c, MBGCM_ERR_UNSUPPORTED, what);
    }
    for (int a = 0; a < tu_arch_count(); a++) {
        mbgcm_config c;
        memset(&c, 0, sizeof c);
        c.arch = tu_arch_name(a);
        snprintf(what, sizeof what, "arch=%s (supported: %d)", c.arch, tu_arch_supported(a));
        expect_create(&c, tu_arch_supported(a) ? MBGCM_OK : MBGCM_ERR_UNSUPPORTED, what);
        if (tu_arch_supported(a)) {
            mbgcm_mgr *m = mbgcm_mgr_new(&c);
            assert_non_null(m);
            assert_string_equal(mbgcm_mgr_arch(m), tu_arch_name(a));
            mbgcm_mgr_free(m);
        }
    }
    /* NULL config and "auto": the best arch */
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    assert_non_null(m);
    assert_string_equal(mbgcm_mgr_arch(m), tu_arch_name(tu_arch_best()));
    mbgcm_mgr_free(m);
    mbgcm_config c;
    memset(&c, 0, sizeof c);
    c.arch = "auto";
    m = mbgcm_mgr_new(&c);
    assert_non_null(m);
    assert_string_equal(mbgcm_mgr_arch(m), tu_arch_name(tu_arch_best()));
    mbgcm_mgr_free(m);
    /* NULL out */
    assert_int_equal(mbgcm_mgr_create(NULL, NULL), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_mgr_create(NULL, &c), MBGCM_ERR_INVALID);
}

/* ---- null_and_last_error ----------------------------------------------------------------------- */
static void null_and_last_error(void **state)
{
    (void)state;
    /* NULL manager: no crash, nothing returned */
    mbgcm_job j;
    memset(&j, 0, sizeof j);
    assert_null(mbgcm_get_next_job(NULL));
    assert_null(mbgcm_submit_job(NULL));
    assert_null(mbgcm_get_completed_job(NULL));
    assert_null(mbgcm_flush_job(NULL));
    assert_null(mbgcm_mgr_poll(NULL));
    assert_int_equal(mbgcm_queue_size(NULL), 0);
    assert_int_equal(mbgcm_submit_burst(NULL, &j, 1), 0);
    assert_int_equal(mbgcm_submit_burst(NULL, NULL, 3), 0);
    assert_int_equal(mbgcm_submit_burst(NULL, NULL, 0), 0);
    mbgcm_stats st;
    assert_int_equal(mbgcm_mgr_stats(NULL, &st), MBGCM_ERR_INVALID);
    mbgcm_mgr_free(NULL);
    (void)mbgcm_mgr_last_error(NULL);
    (void)mbgcm_mgr_arch(NULL);

    int cfgs[TU_MGR_NCFG];
    const int ncfg = tu_mgr_configs(cfgs);
    tu_rng r;
    tu_rng_init(&r, "mgr_ring/null");
    tu_key *k = tu_keys_new(&r, 1, 0);
    for (int ci = 0; ci < ncfg; ci++) {
        const char *a = tu_mgr_label(cfgs[ci]);
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 0, 0, 0);
        assert_int_equal(mbgcm_mgr_stats(m, NULL), MBGCM_ERR_INVALID);
        assert_int_equal(mbgcm_mgr_last_error(m), MBGCM_OK);
        /* bursts of zero jobs: nothing happens */
        assert_int_equal(mbgcm_submit_burst(m, &j, 0), 0);
        assert_int_equal(mbgcm_submit_burst(m, NULL, 0), 0);
        assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
        TU_CHECK(st.jobs == 0 && tu_stats_calls(&st) == 0, "arch=%s: empty burst counted", a);
        TU_CHECK(mbgcm_mgr_last_error(m) == MBGCM_OK, "arch=%s: empty burst set last_error", a);
        /* a NULL job array with n > 0 */
        assert_int_equal(mbgcm_submit_burst(m, NULL, 5), 0);
        TU_CHECK(mbgcm_mgr_last_error(m) == MBGCM_ERR_INVALID,
                 "arch=%s: last_error %d after submit_burst(NULL, 5)", a, mbgcm_mgr_last_error(m));
        assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
        TU_CHECK(st.jobs == 0, "arch=%s: a NULL burst counted jobs", a);
        /* per-job errors never reach last_error; the manager keeps working; last_error keeps
           the last manager-level failure */
        tu_jspec sp;
        memset(&sp, 0, sizeof sp);
        sp.key = k;
        sp.dir = MBGCM_ENCRYPT;
        sp.iv_len = 12;
        sp.len = 33;
        sp.tag_len = 16;
        tu_tjob *good = tu_tjob_new(&r, &sp);
        mbgcm_job bj;
        tu_tjob_load(good, &bj, NULL, &r);
        assert_int_equal(mbgcm_submit_burst(m, &bj, 1), 1);
        tu_tjob_check(good, &bj, a);
        mbgcm_job *s = mbgcm_get_next_job(m);
        tu_tjob_load(good, s, NULL, &r);
        mbgcm_job *x = mbgcm_submit_job(m);
        if (x == NULL) x = mbgcm_flush_job(m);
        TU_CHECK(x == s, "arch=%s: ring job", a);
        tu_tjob_check(good, x, a);
        TU_CHECK(mbgcm_mgr_last_error(m) == MBGCM_ERR_INVALID,
                 "arch=%s: last_error %d: it must keep the last manager-level failure", a,
                 mbgcm_mgr_last_error(m));
        tu_tjob_free(good);
        counts[cfgs[ci]] += 2;
        mbgcm_mgr_free(m);
    }
    tu_keys_free(k, 1);
}

/* ---- process-level modes --------------------------------------------------------------------- */
static const char *mode;

/* A few hundred random jobs on a manager of |arch_name| (NULL: auto) through the driver. */
static void exercise(const char *arch_name, const char *want_arch)
{
    tu_rng r;
    tu_rng_init(&r, "mgr_ring/mode");
    tu_key *keys = tu_keys_new(&r, 3, 0);
    mbgcm_config c;
    memset(&c, 0, sizeof c);
    c.arch = arch_name;
    c.lanes = 8;
    mbgcm_mgr *m = NULL;
    const int s = mbgcm_mgr_create(&m, &c);
    TU_CHECK(s == MBGCM_OK && m != NULL, "mode %s: create(%s) = %d", mode,
             arch_name ? arch_name : "NULL", s);
    TU_CHECK(strcmp(mbgcm_mgr_arch(m), want_arch) == 0, "mode %s: create(%s) runs %s, "
             "expected %s", mode, arch_name ? arch_name : "NULL", mbgcm_mgr_arch(m), want_arch);
    struct drv d;
    memset(&d, 0, sizeof d);
    d.m = m;
    d.q = d.cap = MBGCMI_DEFAULT_QUEUE;
    d.t = tu_xmalloc(d.cap * sizeof *d.t);
    d.slot = tu_xmalloc(d.cap * sizeof *d.slot);
    snprintf(d.ctx, sizeof d.ctx, "mode %s arch %s (seed 0x%016llx)", mode, want_arch,
             (unsigned long long)tu_seed());
    for (int i = 0; i < 300; i++) {
        drv_submit(&d, rand_job(&r, keys, 3, 0, 5), &r);
    }
    drv_drain(&d);
    mbgcm_mgr_free(m);
    free(d.t);
    free(d.slot);
    tu_keys_free(keys, 3);
}

static void expect_arch(const char *name, int want_status)
{
    mbgcm_config c;
    memset(&c, 0, sizeof c);
    c.arch = name;
    char what[120];
    snprintf(what, sizeof what, "mode %s: arch %s", mode, name ? name : "NULL");
    expect_create(&c, want_status, what);
}

static void process_mode(void **state)
{
    (void)state;
    const char *env = getenv("MBGCM_ARCH");
    print_message("mode %s, MBGCM_ARCH=%s, best arch %s\n", mode, env ? env : "(unset)",
                  tu_arch_name(tu_arch_best()));
    if (strcmp(mode, "mask-avx512") == 0 || strcmp(mode, "mask-all") == 0) {
        /* main() applied the mask before anything read the CPU features */
        assert_null(env);
        expect_arch("avx512", MBGCM_ERR_UNSUPPORTED);
        if (strcmp(mode, "mask-all") == 0) {
            expect_arch("avx2", MBGCM_ERR_UNSUPPORTED);
            expect_arch("aesni", MBGCM_ERR_UNSUPPORTED);
            assert_int_equal(tu_arch_best(), TU_ARCH("generic"));
        }
        const int best = tu_arch_best();
        assert_int_not_equal(best, TU_ARCH("avx512"));
        exercise(NULL, tu_arch_name(best));
        exercise("auto", tu_arch_name(best));
        exercise("generic", "generic");
        if (best != TU_ARCH("generic")) {
            exercise(tu_arch_name(best), tu_arch_name(best));
        }
    } else if (strcmp(mode, "env-generic") == 0) {
        assert_non_null(env);
        assert_string_equal(env, "generic");
        exercise(NULL, "generic");   /* the variable replaces "auto" */
        exercise("auto", "generic");
        exercise("generic", "generic");
        const int best = tu_arch_best();
        exercise(tu_arch_name(best), tu_arch_name(best)); /* a named arch wins */
    } else if (strcmp(mode, "env-bogus") == 0) {
        assert_non_null(env);
        assert_string_equal(env, "bogus");
        expect_arch(NULL, MBGCM_ERR_UNSUPPORTED);
        expect_arch("auto", MBGCM_ERR_UNSUPPORTED);
        exercise("generic", "generic");
        const int best = tu_arch_best();
        exercise(tu_arch_name(best), tu_arch_name(best));
    } else {
        fail_msg("unknown mode %s", mode);
    }
}

/* ---- one_slot ------------------------------------------------------------------------------- */
static void one_slot_cfg(int cfg)
{
    char label[64];
    tu_rng r;
    cfg_begin(cfg, "one_slot", label, &r);
    const int fast = tu_mgr_fast_lanes(cfg);
    tu_key *keys = tu_keys_new(&r, 3, 0);
    unsigned quick = 0;
    uint64_t from = UINT64_MAX;
    for (int rep = 0; rep < 4; rep++) {
        static const unsigned lane_set[4] = {4, 8, 12, 16};
        struct drv d;
        drv_init(&d, cfg, lane_set[rep], 64, DRV_ARCH_ROUTING, "one_slot");
        from = d.m->ring12_from;
        for (int i = 0; i < 120; i++) {
            tu_tjob *t;
            tu_jspec sp;
            memset(&sp, 0, sizeof sp);
            if (tu_rng_below(&r, 6) == 0) {
                t = rand_job(&r, keys, 3, fast, 5); /* may wait in lanes, or be invalid */
            } else {
                sp.key = &keys[tu_rng_below(&r, 3)];
                sp.dir = tu_rng_below(&r, 2) ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
                sp.iv_len = 12;
                sp.aad_len = (size_t)tu_rng_below(&r, 40);
                /* (from the arch's ring12_from, where it has one, mostly) */
                sp.len = (size_t)(tu_rng_below(&r, 4) ? tu_rng_below(&r, 300)
                                                      : tu_rng_below(&r, 5000));
                if (from != UINT64_MAX && tu_rng_below(&r, 4) != 0) {
                    sp.len += (size_t)from;
                }
                sp.tag_len = tu_pick_tag_len(&r);
                sp.in_place = (int)tu_rng_below(&r, 2);
                sp.tamper = tu_rng_below(&r, 8) == 0;
                t = tu_tjob_new(&r, &sp);
            }
            /* the quick path's rule (mgr.c): an empty ring and a valid linear job with a 12-byte
               IV and at least ring12_from bytes of message */
            const int at_once = d.cnt == 0 && sp.iv_len == 12 && (uint64_t)sp.len >= from;
            mbgcm_job *s = drv_submit(&d, t, &r);
            if (sp.key == NULL && tu_rng_below(&r, 2)) {
                drv_drain(&d); /* (flush what waits: the ring is empty again) */
            }
            if (at_once) {
                TU_CHECK(d.cnt == 0, "%s: a %zu-byte job into an empty ring did not come back "
                         "from its submit", d.ctx, sp.len);
                TU_CHECK(mbgcm_get_next_job(d.m) == s, "%s: after a job that ran at once, "
                         "get_next_job did not hand out its slot again", d.ctx);
                quick++;
            }
        }
        drv_close(&d);
    }
    tu_keys_free(keys, 3);
    if (from != UINT64_MAX) {
        TU_CHECK(quick > 100, "%s: only %u jobs took the quick path", label, quick);
    }
    print_message("%s: %u jobs ran at once (ring12_from %llu)\n", label, quick,
                  (unsigned long long)from);
}

#define PER_CFG(fn)                                                                             \
    static void fn##_generic(void **s) { (void)s; fn##_cfg(TU_ARCH("generic")); }              \
    static void fn##_aesni(void **s) { (void)s; fn##_cfg(TU_ARCH("aesni")); }                  \
    static void fn##_avx2(void **s) { (void)s; fn##_cfg(TU_ARCH("avx2")); }                    \
    static void fn##_avx512(void **s) { (void)s; fn##_cfg(TU_ARCH("avx512")); }                \
    static void fn##_auto(void **s) { (void)s; fn##_cfg(TU_MGR_AUTO); }
PER_CFG(ring_full)
PER_CFG(ring_capacity)
PER_CFG(free_pending)
PER_CFG(after_invalid)
PER_CFG(bad_tag)
PER_CFG(wipe_idle)
PER_CFG(one_slot)
#define TESTS(fn)                                                                               \
    cmocka_unit_test(fn##_generic), cmocka_unit_test(fn##_aesni), cmocka_unit_test(fn##_avx2), \
        cmocka_unit_test(fn##_avx512), cmocka_unit_test(fn##_auto)

int main(int argc, char **argv)
{
    if (argc == 2) {
        mode = argv[1];
        if (strcmp(mode, "mask-avx512") == 0) {
            mbgcmi_cpu_features_mask(~(MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW | MBGCMI_F_AVX512VL));
        } else if (strcmp(mode, "mask-all") == 0) {
            mbgcmi_cpu_features_mask(0);
        }
        tu_seed();
        const struct CMUnitTest tests[] = {cmocka_unit_test(process_mode)};
        return cmocka_run_group_tests_name("mgr_ring_mode", tests, NULL, NULL) ? 1 : 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: %s [mask-avx512|mask-all|env-generic|env-bogus]\n", argv[0]);
        return 2;
    }
    tu_seed();
    const struct CMUnitTest tests[] = {
        TESTS(ring_full),
        TESTS(ring_capacity),
        TESTS(free_pending),
        cmocka_unit_test(many_managers),
        cmocka_unit_test(threads),
        TESTS(after_invalid),
        TESTS(bad_tag),
        TESTS(wipe_idle),
        TESTS(one_slot),
        cmocka_unit_test(create_errors),
        cmocka_unit_test(null_and_last_error),
    };
    const int fails = cmocka_run_group_tests_name("mgr_ring", tests, NULL, NULL);
    tu_print_mgr_counts("jobs", counts);
    return fails ? 1 : 0;
}
