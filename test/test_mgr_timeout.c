/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_timeout.c — flush_timeout_ns with an injected clock (mbgcmi_mgr_set_clock; the
 * tests never sleep), on every supported arch and "auto".
 *
 * Semantics checked (api/mbgcm.h, docs/api.md): with part-filled lanes a job waits;
 * submit and poll read the clock and complete every job that has waited flush_timeout_ns or
 * longer, so a job never waits past the timeout while the application keeps calling submit or
 * poll. A job that has waited timeout-1 stays pending (lanes not full, nothing else forcing a
 * run); at exactly timeout it is complete and comes back in order. get_completed never runs
 * kernels, even for timed-out jobs. A timeout of 0 means never by time: the clock can run
 * for years and nothing completes until lanes fill, the ring fills or flush. stats.runs_timeout
 * counts the runs the timeout caused (and only those).
 *
 *   boundary      one job: poll at t0+T-1 pending, at t0+T complete and returned; also via
 *                 submit; with lanes 4/8/16 and T = 1, 1000, 10^9, 2^40; clock near 2^64
 *   staggered     jobs entering at different times with the younger ones longer: each one
 *                 completes exactly at its own deadline, never earlier (no side effect run
 *                 can finish a longer job before its time), never later
 *   app_loop      an application submitting at random times and polling at random times:
 *                 after every call no job older than T is still pending; all come back once,
 *                 in order, correct
 *   zero          timeout 0: no completion by time, runs_timeout stays 0
 *   real_clock    the manager's own clock (the time-stamp counter where it is invariant, its
 *                 rate calibrated against CLOCK_MONOTONIC; else CLOCK_MONOTONIC): the counter
 *                 agrees with CLOCK_MONOTONIC within 5% over 20 ms; a job with a 1 s timeout
 *                 stays pending at once; one with a 2 ms timeout comes back from poll, correct,
 *                 after at least 90% of it and within 10 s (this test sleeps, by spinning)
 */
#include "jobs_internal.h"
#include "test_util.h"

static uint64_t counts[TU_MGR_NCFG];

struct clk {
    uint64_t now;
    uint64_t reads;
};

static uint64_t clk_read(void *ctx)
{
    struct clk *c = ctx;
    c->reads++;
    return c->now;
}

static void need(int cfg)
{
    tu_mgr_need_cfg(cfg);
}

static tu_tjob *job_aad(tu_rng *r, const tu_key *k, size_t aad_len, size_t len)
{
    tu_jspec sp;
    memset(&sp, 0, sizeof sp);
    sp.key = k;
    sp.dir = tu_rng_below(r, 2) ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
    sp.iv_len = 12;
    sp.aad_len = aad_len;
    sp.len = len;
    sp.tag_len = tu_pick_tag_len(r);
    sp.in_place = (int)tu_rng_below(r, 2);
    return tu_tjob_new(r, &sp);
}

static tu_tjob *job_of(tu_rng *r, const tu_key *k, size_t len)
{
    return job_aad(r, k, (size_t)tu_rng_below(r, 40), len);
}

static mbgcm_stats stats(mbgcm_mgr *m)
{
    mbgcm_stats s;
    assert_int_equal(mbgcm_mgr_stats(m, &s), MBGCM_OK);
    return s;
}

/* ---- boundary ------------------------------------------------------------------------------- */
static void boundary_cfg(int cfg)
{
    need(cfg);
    tu_mgr_need_lanes(cfg);
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_timeout/boundary", cfg);
    tu_key *k = tu_keys_new(&r, 1, 0);
    static const uint64_t touts[4] = {1, 1000, 1000000000u, UINT64_C(1) << 40};
    static const unsigned lanes[3] = {4, 8, 16};
    static const uint64_t starts[3] = {0, 123456789, UINT64_MAX - (UINT64_C(1) << 41)};
    for (int ti = 0; ti < 4; ti++) {
        for (int li = 0; li < 3; li++) {
            for (int si = 0; si < 3; si++) {
                for (int via = 0; via < 2; via++) { /* 0: poll, 1: submit of another job */
                    const uint64_t T = touts[ti];
                    char ctx[200];
                    snprintf(ctx, sizeof ctx, "arch=%s timeout=%llu lanes=%u start=%llu via %s "
                             "(seed 0x%016llx)", tu_mgr_label(cfg), (unsigned long long)T,
                             lanes[li], (unsigned long long)starts[si], via ? "submit" : "poll",
                             (unsigned long long)tu_seed());
                    struct clk c = {starts[si], 0};
                    mbgcm_mgr *m = tu_mgr_open(cfg, lanes[li], 64, T);
                    mbgcmi_mgr_set_clock(m, clk_read, &c);
                    mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
                    const size_t len = (size_t)tu_rng_below(&r, 2000);
                    tu_tjob *a = job_of(&r, k, len);
                    mbgcm_job *sa = mbgcm_get_next_job(m);
                    tu_tjob_load(a, sa, NULL, &r);
                    TU_CHECK(mbgcm_submit_job(m) == NULL, "%s: a lone job came back at once", ctx);
                    TU_CHECK(sa->status == MBGCM_PENDING, "%s: status %d while waiting", ctx,
                             sa->status);
                    /* just before the deadline: still waiting */
                    c.now = starts[si] + T - 1;
                    TU_CHECK(mbgcm_mgr_poll(m) == NULL, "%s: completed at timeout-1", ctx);
                    TU_CHECK(sa->status == MBGCM_PENDING && mbgcm_queue_size(m) == 1,
                             "%s: not pending at timeout-1", ctx);
                    tu_tjob *b = NULL;
                    mbgcm_job *sb = NULL;
                    if (via) { /* a submit at timeout-1 does not complete it either */
                        b = job_of(&r, k, (size_t)tu_rng_below(&r, 100));
                        sb = mbgcm_get_next_job(m);
                        tu_tjob_load(b, sb, NULL, &r);
                        TU_CHECK(mbgcm_submit_job(m) == NULL, "%s: submit at timeout-1 "
                                 "returned a job", ctx);
                        TU_CHECK(sa->status == MBGCM_PENDING, "%s: completed by a submit at "
                                 "timeout-1", ctx);
                        /* the clock moves on without a call: get_completed never runs lanes */
                        c.now = starts[si] + T;
                        const mbgcm_stats s0 = stats(m);
                        TU_CHECK(mbgcm_get_completed_job(m) == NULL, "%s: get_completed "
                                 "completed a timed-out job", ctx);
                        const mbgcm_stats s1 = stats(m);
                        TU_CHECK(tu_stats_calls(&s1) == tu_stats_calls(&s0),
                                 "%s: get_completed ran a kernel", ctx);
                    }
                    const mbgcm_stats before = stats(m);
                    TU_CHECK(before.runs_timeout == 0, "%s: runs_timeout %llu before the "
                             "deadline", ctx, (unsigned long long)before.runs_timeout);
                    /* exactly at the deadline */
                    c.now = starts[si] + T;
                    mbgcm_job *j;
                    tu_tjob *c2 = NULL;
                    if (via) {
                        c2 = job_of(&r, k, (size_t)tu_rng_below(&r, 100));
                        tu_tjob_load(c2, mbgcm_get_next_job(m), NULL, &r);
                        j = mbgcm_submit_job(m);
                    } else {
                        j = mbgcm_mgr_poll(m);
                    }
                    TU_CHECK(j == sa, "%s: the job that waited exactly the timeout did not "
                             "come back (got %p)", ctx, (void *)j);
                    tu_tjob_check(a, j, ctx);
                    const mbgcm_stats after = stats(m);
                    TU_CHECK(after.runs_timeout >= 1 &&
                                 after.runs_timeout == tu_stats_runs(&after) -
                                                           tu_stats_runs(&before),
                             "%s: runs_timeout %llu, runs %llu -> %llu", ctx,
                             (unsigned long long)after.runs_timeout,
                             (unsigned long long)tu_stats_runs(&before),
                             (unsigned long long)tu_stats_runs(&after));
                    if (via) {
                        /* b entered at timeout-1, c2 at timeout: b's deadline is one later */
                        if (T > 1 && sb->status == MBGCM_PENDING) {
                            c.now = starts[si] + 2 * T - 2;
                            TU_CHECK(mbgcm_mgr_poll(m) == NULL, "%s: second job back at "
                                     "timeout-1", ctx);
                            TU_CHECK(sb->status == MBGCM_PENDING, "%s: second job completed "
                                     "at timeout-1", ctx);
                        }
                        c.now = starts[si] + 2 * T - 1;
                        j = mbgcm_mgr_poll(m);
                        TU_CHECK(j == sb, "%s: second job not back at its deadline", ctx);
                        tu_tjob_check(b, j, ctx);
                        j = mbgcm_flush_job(m);
                        TU_CHECK(j != NULL, "%s: third job", ctx);
                        tu_tjob_check(c2, j, ctx);
                        tu_tjob_free(b);
                        tu_tjob_free(c2);
                        counts[cfg] += 2;
                    }
                    TU_CHECK(mbgcm_queue_size(m) == 0 && mbgcm_flush_job(m) == NULL,
                             "%s: jobs left", ctx);
                    TU_CHECK(c.reads > 0, "%s: the injected clock was never read", ctx);
                    tu_tjob_free(a);
                    counts[cfg]++;
                    mbgcm_mgr_free(m);
                }
            }
        }
    }
    tu_keys_free(k, 1);
}

/* ---- staggered ------------------------------------------------------------------------------ */
/* Jobs j = 0..n-1 enter at t0 + j*gap, each longer than the one before, in one manager with
   more lanes than jobs. Polling every tick, job j must complete exactly at t0 + j*gap + T. */
static void staggered_cfg(int cfg)
{
    need(cfg);
    tu_mgr_need_lanes(cfg);
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_timeout/staggered", cfg);
    tu_key *k = tu_keys_new(&r, 3, 0);
    const unsigned rounds = (unsigned)tu_scaled(tu_mgr_fast_lanes(cfg) ? 60 : 20);
    for (unsigned round = 0; round < rounds; round++) {
        static const unsigned lane_set[3] = {4, 8, 16};
        const unsigned lanes = lane_set[round % 3];
        const unsigned n = 1 + (unsigned)tu_rng_below(&r, lanes - 1); /* lanes never fill */
        const uint64_t T = 1 + tu_rng_below(&r, 50);
        const uint64_t gap = tu_rng_below(&r, 2 * T); /* may be 0: same-time jobs */
        char ctx[200];
        snprintf(ctx, sizeof ctx, "arch=%s round=%u lanes=%u jobs=%u timeout=%llu gap=%llu "
                 "(seed 0x%016llx)", tu_mgr_label(cfg), round, lanes, n, (unsigned long long)T,
                 (unsigned long long)gap, (unsigned long long)tu_seed());
        struct clk c = {1000, 0};
        mbgcm_mgr *m = tu_mgr_open(cfg, lanes, 32, T);
        mbgcmi_mgr_set_clock(m, clk_read, &c);
        mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
        tu_tjob *t[16];
        mbgcm_job *slot[16];
        uint64_t due[16];
        size_t len = 0, aad = 0;
        unsigned sub = 0, back = 0;
        const uint64_t t0 = c.now;
        const uint64_t end = t0 + (uint64_t)(n - 1) * gap + T;
        for (uint64_t now = t0; now <= end; now++) {
            c.now = now;
            mbgcm_job *j = NULL;
            if (sub < n && now == t0 + sub * gap) {
                while (sub < n && now == t0 + sub * gap) {
                    /* more blocks than every earlier job (AAD and message), so a run that
                       finishes an older job cannot finish this one as a side effect */
                    len += 16 + (size_t)tu_rng_below(&r, 300);
                    aad += (size_t)tu_rng_below(&r, 40);
                    t[sub] = job_aad(&r, &k[tu_rng_below(&r, 3)], aad, len);
                    slot[sub] = mbgcm_get_next_job(m);
                    tu_tjob_load(t[sub], slot[sub], NULL, &r);
                    due[sub] = now + T;
                    sub++;
                    j = mbgcm_submit_job(m);
                    for (; j != NULL; j = mbgcm_get_completed_job(m)) {
                        TU_CHECK(back < sub && j == slot[back], "%s: order", ctx);
                        TU_CHECK(now >= due[back], "%s: job %u back at %llu, due %llu (early)",
                                 ctx, back, (unsigned long long)now,
                                 (unsigned long long)due[back]);
                        tu_tjob_check(t[back], j, ctx);
                        back++;
                    }
                }
            } else {
                for (j = mbgcm_mgr_poll(m); j != NULL; j = mbgcm_get_completed_job(m)) {
                    TU_CHECK(back < sub && j == slot[back], "%s: order", ctx);
                    TU_CHECK(now >= due[back], "%s: job %u back at %llu, due %llu (early)", ctx,
                             back, (unsigned long long)now, (unsigned long long)due[back]);
                    tu_tjob_check(t[back], j, ctx);
                    back++;
                }
            }
            /* after the call: every job past its deadline is back, the others still pending */
            for (unsigned i = 0; i < sub; i++) {
                if (now >= due[i]) {
                    TU_CHECK(i < back, "%s: job %u (due %llu) not back at %llu", ctx, i,
                             (unsigned long long)due[i], (unsigned long long)now);
                } else {
                    TU_CHECK(i >= back && slot[i]->status == MBGCM_PENDING,
                             "%s: job %u (due %llu) completed early at %llu", ctx, i,
                             (unsigned long long)due[i], (unsigned long long)now);
                }
            }
        }
        TU_CHECK(back == n, "%s: %u of %u jobs back", ctx, back, n);
        const mbgcm_stats s = stats(m);
        TU_CHECK(s.runs_timeout >= 1 && s.runs_timeout == tu_stats_runs(&s),
                 "%s: runs_timeout %llu of %llu runs", ctx, (unsigned long long)s.runs_timeout,
                 (unsigned long long)tu_stats_runs(&s));
        for (unsigned i = 0; i < n; i++) tu_tjob_free(t[i]);
        counts[cfg] += n;
        mbgcm_mgr_free(m);
    }
    tu_keys_free(k, 3);
}

/* ---- app_loop ------------------------------------------------------------------------------- */
/* An application that keeps calling submit or poll at random times. After every call, every job
   in flight that has waited T or longer must be complete. */
static void app_loop_cfg(int cfg)
{
    need(cfg);
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_timeout/app", cfg);
    const int fast = tu_mgr_fast_lanes(cfg);
    tu_key *k = tu_keys_new(&r, 4, 0);
    const unsigned sessions = (unsigned)tu_scaled(fast ? 40 : 12);
    for (unsigned si = 0; si < sessions; si++) {
        static const unsigned lane_set[4] = {4, 8, 12, 16};
        const unsigned lanes = lane_set[tu_rng_below(&r, 4)];
        const unsigned q = 1u << tu_rng_range(&r, 1, 9);
        const uint64_t T = 1 + tu_rng_below(&r, 1000);
        const uint64_t thr = tu_rng_below(&r, 3) ? UINT64_MAX : 512;
        char ctx[200];
        snprintf(ctx, sizeof ctx, "arch=%s session=%u lanes=%u queue=%u timeout=%llu "
                 "single_min=%llu (seed 0x%016llx)", tu_mgr_label(cfg), si, lanes, q,
                 (unsigned long long)T, (unsigned long long)thr, (unsigned long long)tu_seed());
        struct clk c = {tu_rng_next(&r) >> 8, 0};
        mbgcm_mgr *m = tu_mgr_open(cfg, lanes, q, T);
        mbgcmi_mgr_set_clock(m, clk_read, &c);
        mbgcmi_mgr_set_single_min_len(m, thr);
        /* in flight, oldest first */
        struct fl {
            tu_tjob *t;
            mbgcm_job *slot;
            uint64_t t_sub;
        } *f = tu_xmalloc(q * sizeof *f);
        unsigned head = 0, cnt = 0;
        const unsigned njobs = (unsigned)tu_rng_range(&r, 50, fast ? 2000 : 400);
        unsigned submitted = 0;
        while (submitted < njobs || cnt > 0) {
            c.now += tu_rng_below(&r, 4) == 0 ? tu_rng_below(&r, 2 * T + 2) : tu_rng_below(&r, 3);
            mbgcm_job *j;
            const char *how;
            if (submitted < njobs && tu_rng_below(&r, 3)) {
                tu_tjob *t = job_of(&r, &k[tu_rng_below(&r, 4)],
                                    (size_t)(tu_rng_below(&r, 20) ? tu_rng_below(&r, 300)
                                                                  : tu_rng_below(&r, fast ? 5000 : 1500)));
                mbgcm_job *s = mbgcm_get_next_job(m);
                tu_tjob_load(t, s, NULL, &r);
                f[(head + cnt) % q] = (struct fl){t, s, c.now};
                cnt++;
                submitted++;
                j = mbgcm_submit_job(m);
                how = "submit";
            } else {
                j = mbgcm_mgr_poll(m);
                how = "poll";
            }
            for (; j != NULL; j = mbgcm_get_completed_job(m)) {
                TU_CHECK(cnt > 0 && j == f[head].slot, "%s: %s: order", ctx, how);
                tu_tjob_check(f[head].t, j, ctx);
                tu_tjob_free(f[head].t);
                head = (head + 1) % q;
                cnt--;
                how = "get_completed";
            }
            TU_CHECK(mbgcm_queue_size(m) == cnt, "%s: queue_size %u, %u in flight", ctx,
                     mbgcm_queue_size(m), cnt);
            for (unsigned i = 0; i < cnt; i++) {
                const struct fl *e = &f[(head + i) % q];
                if (c.now - e->t_sub >= T) {
                    TU_CHECK(e->slot->status != MBGCM_PENDING,
                             "%s: a job waited %llu >= timeout and is still pending", ctx,
                             (unsigned long long)(c.now - e->t_sub));
                }
            }
            /* the oldest job is complete whenever it has timed out: it must have come back */
            if (cnt > 0) {
                TU_CHECK(c.now - f[head].t_sub < T, "%s: the oldest job timed out but was not "
                         "returned", ctx);
            }
            if (submitted >= njobs && cnt > 0 && tu_rng_below(&r, 50) == 0) {
                c.now += T; /* an idle application still polls */
            }
        }
        TU_CHECK(mbgcm_flush_job(m) == NULL, "%s: jobs left", ctx);
        const mbgcm_stats s = stats(m);
        TU_CHECK(s.jobs == njobs && s.runs_flush == 0 && s.runs_burst == 0, "%s: stats jobs=%llu "
                 "runs_flush=%llu runs_burst=%llu", ctx, (unsigned long long)s.jobs,
                 (unsigned long long)s.runs_flush, (unsigned long long)s.runs_burst);
        counts[cfg] += njobs;
        free(f);
        mbgcm_mgr_free(m);
    }
    tu_keys_free(k, 4);
}

/* ---- real_clock ---------------------------------------------------------------------------- */
static void real_clock_cfg(int cfg)
{
    need(cfg);
    tu_mgr_need_lanes(cfg);
    char label[64];
    snprintf(label, sizeof label, "mgr_timeout/real_clock/%s", tu_mgr_label(cfg));
    tu_rng r;
    tu_rng_init(&r, label);
    tu_key *k = tu_keys_new(&r, 1, 0);
    const uint64_t hz = mbgcmi_tsc_hz();
    if (hz != 0) {
        /* the calibrated rate is an upper bound (within 2% of the rate over 20 ms): the
           ticks in 20 ms, counted over the longest interval the readings allow, are fewer */
        uint64_t t0 = 0, c0 = 0, e0 = 0, t1 = 0, c1 = 0, e1 = 0;
        int ok = mbgcmi_tsc_mono_pair(&t0, &c0, &e0);
        while (ok && (ok = mbgcmi_tsc_mono_pair(&t1, &c1, &e1)) && t1 - t0 < 20000000u) {
        }
        if (ok) {
            const double ratio =
                (double)(c1 - c0) / ((double)(t1 - t0 + e0 + e1) * (double)hz / 1e9);
            TU_CHECK(ratio > 0.98 && ratio <= 1.0, "%s: %llu Hz calibrated, %.5f of it measured",
                     label, (unsigned long long)hz, ratio);
        } else { /* (the machine, not the library: say so and check the rest) */
            print_message("%s: no undisturbed reading of the two clocks\n", label);
        }
    }
    /* younger than the timeout: pending, whatever poll does */
    mbgcm_mgr *m = tu_mgr_open(cfg, 4, 256, 1000000000u);
    mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
    tu_tjob *t = job_aad(&r, &k[0], 16, 64);
    mbgcm_job *slot = mbgcm_get_next_job(m);
    tu_tjob_load(t, slot, NULL, &r);
    TU_CHECK(mbgcm_submit_job(m) == NULL, "%s: submit returned the job", label);
    TU_CHECK(mbgcm_mgr_poll(m) == NULL && slot->status == MBGCM_PENDING,
             "%s: completed long before its 1 s timeout", label);
    TU_CHECK(mbgcm_flush_job(m) == slot, "%s: flush", label);
    tu_tjob_check(t, slot, label);
    tu_tjob_free(t);
    mbgcm_mgr_free(m);
    /* older than the timeout: poll completes it */
    const uint64_t timeout = 2000000u;
    m = tu_mgr_open(cfg, 4, 256, timeout);
    mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
    t = job_aad(&r, &k[0], 16, 64);
    slot = mbgcm_get_next_job(m);
    tu_tjob_load(t, slot, NULL, &r);
    const uint64_t t_sub = mbgcmi_mono_ns();
    TU_CHECK(mbgcm_submit_job(m) == NULL, "%s: submit returned the job", label);
    mbgcm_job *j;
    uint64_t waited;
    do {
        j = mbgcm_mgr_poll(m);
        waited = mbgcmi_mono_ns() - t_sub;
    } while (j == NULL && waited < 10000000000u);
    TU_CHECK(j == slot, "%s: not back after %llu ns (timeout %llu)", label,
             (unsigned long long)waited, (unsigned long long)timeout);
    TU_CHECK(waited >= timeout, "%s: back after %llu ns, timeout %llu", label,
             (unsigned long long)waited, (unsigned long long)timeout);
    tu_tjob_check(t, slot, label);
    mbgcm_stats st = stats(m);
    TU_CHECK(st.runs_timeout == 1, "%s: runs_timeout %llu", label,
             (unsigned long long)st.runs_timeout);
    tu_tjob_free(t);
    mbgcm_mgr_free(m);
    counts[cfg] += 2;
    tu_keys_free(k, 1);
}

/* ---- zero ----------------------------------------------------------------------------------- */
static void zero_cfg(int cfg)
{
    need(cfg);
    tu_mgr_need_lanes(cfg);
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_timeout/zero", cfg);
    tu_key *k = tu_keys_new(&r, 2, 0);
    static const unsigned lane_set[4] = {4, 8, 12, 16};
    for (int li = 0; li < 4; li++) {
        const unsigned lanes = lane_set[li];
        char ctx[160];
        snprintf(ctx, sizeof ctx, "arch=%s lanes=%u timeout=0 (seed 0x%016llx)",
                 tu_mgr_label(cfg), lanes, (unsigned long long)tu_seed());
        struct clk c = {0, 0};
        mbgcm_mgr *m = tu_mgr_open(cfg, lanes, 256, 0);
        mbgcmi_mgr_set_clock(m, clk_read, &c);
        mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
        tu_tjob *t[16];
        mbgcm_job *slot[16];
        const unsigned n = lanes - 1;
        for (unsigned i = 0; i < n; i++) {
            /* nothing may fill: even jobs take lanes (AAD > 16 keeps them off the short-job
               path), odd ones are short jobs of distinct shapes (a short-job stage runs when
               four of one shape wait) */
            t[i] = (i & 1) ? job_aad(&r, &k[i % 2], (size_t)tu_rng_below(&r, MBGCMI_SHORT_MAX_AAD + 1),
                                     i / 2 * 16 + (i / 2 ? 0 : (size_t)tu_rng_below(&r, 2)))
                           : job_aad(&r, &k[i % 2], MBGCMI_SHORT_MAX_AAD + 1 + (size_t)tu_rng_below(&r, 30),
                                     (size_t)tu_rng_below(&r, 200));
            slot[i] = mbgcm_get_next_job(m);
            tu_tjob_load(t[i], slot[i], NULL, &r);
            TU_CHECK(mbgcm_submit_job(m) == NULL, "%s: submit returned a job", ctx);
            c.now += UINT64_C(1) << 58; /* years */
        }
        for (int p = 0; p < 10; p++) {
            c.now += UINT64_C(1) << 60;
            TU_CHECK(mbgcm_mgr_poll(m) == NULL, "%s: poll completed a job", ctx);
            TU_CHECK(mbgcm_get_completed_job(m) == NULL, "%s: get_completed", ctx);
        }
        for (unsigned i = 0; i < n; i++) {
            TU_CHECK(slot[i]->status == MBGCM_PENDING, "%s: job %u completed by time", ctx, i);
        }
        mbgcm_stats s = stats(m);
        TU_CHECK(tu_stats_calls(&s) == 0 && s.runs_timeout == 0, "%s: %llu kernel calls",
                 ctx, (unsigned long long)tu_stats_calls(&s));
        for (unsigned i = 0; i < n; i++) {
            mbgcm_job *j = mbgcm_flush_job(m);
            TU_CHECK(j == slot[i], "%s: flush order", ctx);
            tu_tjob_check(t[i], j, ctx);
            tu_tjob_free(t[i]);
        }
        s = stats(m);
        TU_CHECK(s.runs_timeout == 0 && s.runs_flush >= 1, "%s: runs_timeout %llu runs_flush "
                 "%llu", ctx, (unsigned long long)s.runs_timeout,
                 (unsigned long long)s.runs_flush);
        counts[cfg] += n;
        mbgcm_mgr_free(m);
    }
    tu_keys_free(k, 2);
}

#define PER_CFG(fn)                                                                             \
    static void fn##_generic(void **s) { (void)s; fn##_cfg(TU_ARCH("generic")); }              \
    static void fn##_aesni(void **s) { (void)s; fn##_cfg(TU_ARCH("aesni")); }                  \
    static void fn##_avx2(void **s) { (void)s; fn##_cfg(TU_ARCH("avx2")); }                    \
    static void fn##_avx512(void **s) { (void)s; fn##_cfg(TU_ARCH("avx512")); }                \
    static void fn##_auto(void **s) { (void)s; fn##_cfg(TU_MGR_AUTO); }
PER_CFG(boundary)
PER_CFG(staggered)
PER_CFG(app_loop)
PER_CFG(zero)
PER_CFG(real_clock)
#define TESTS(fn)                                                                               \
    cmocka_unit_test(fn##_generic), cmocka_unit_test(fn##_aesni), cmocka_unit_test(fn##_avx2), \
        cmocka_unit_test(fn##_avx512), cmocka_unit_test(fn##_auto)

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        TESTS(boundary),
        TESTS(staggered),
        TESTS(app_loop),
        TESTS(zero),
        TESTS(real_clock),
    };
    const int fails = cmocka_run_group_tests_name("mgr_timeout", tests, NULL, NULL);
    tu_print_mgr_counts("jobs", counts);
    return fails ? 1 : 0;
}
