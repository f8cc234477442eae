/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_stress.c — randomized stress of the job manager (ring and burst API) against the
 * references (OpenSSL for IVs up to 128 bytes, intel-ipsec-mb for longer ones), once per
 * supported arch and for "auto".
 *
 * Each arch runs a sequence of manager sessions. A session picks a random configuration
 * (lanes 4/8/12/16 or the default, queue size a power of two 1..1024 or the default, a
 * single-stream threshold that is "never", the default or low so that bypassed long jobs
 * interleave with lane jobs, and sometimes a flush timeout on an injected clock) and a small
 * pool of keys of random sizes shared by all its jobs. It then makes random calls: submit
 * (one job or a run), get_completed, flush, poll, submit_burst of caller-owned jobs, drain,
 * re-keying a key object while nothing is queued, advancing the clock. Jobs: random key
 * (16/24/32), direction, IV length (mostly 12, some 1..128, a few 129..600), AAD 0..600 (and
 * 0.5% up to 5000 on vector kernels),
 * message length 0..70,000 biased to 0..300 and to the block edges 16k-1/16k/16k+1, every tag
 * length, in place and out of place, NULL pointers for empty buffers, decrypt jobs with a
 * valid tag or one flipped tag bit (MBGCM_ERR_AUTH, dst zeroed), decrypt tags stored inside
 * dst, and invalid jobs of every kind the job path can report (enum tu_bad) interleaved.
 *
 * Checked after every call: ring jobs come back strictly in submission order, each exactly
 * once, never while pending, never a burst job; every job's status, output, tag, untouched
 * bytes (canaries around every buffer) and unchanged fields; queue_size equals the jobs in
 * flight; flush returns NULL only when queue_size is 0; a submit that fills the ring returns
 * the oldest job; get_completed (and poll without a timeout) never runs a kernel; burst
 * returns its OK count, leaves queue_size alone and completes every job; a returned ring job
 * stays unchanged (status, fields, buffers) until the next get_next_job, whatever is called in
 * between (checked again just before that call); the stats only grow,
 * and once a session is drained they match the jobs the test submitted (jobs, jobs_invalid,
 * bytes, auth_failures, single_stream, kernel calls and runs).
 *
 * Counts: configurations running the portable C lane kernel (~200 cycles/byte: generic, and
 * for now aesni and avx2) get fewer, shorter jobs; vector lane kernels get the most. Scaled
 * 0.1 under sanitizers (MBGCM_TEST_SCALE overrides). Replay a run with MBGCM_SEED.
 *
 * `test_mgr_stress valgrind` is the small run for valgrind memcheck: generic and aesni only
 * (valgrind cannot execute AVX-512 or VAES), a few thousand short jobs.
 */
#include <time.h>

#include "jobs_internal.h"
#include "test_util.h"

/* jobs per configuration (before scaling) */
#define N_FAST 600000         /* vector lane kernel (avx512, auto) */
#define N_GENERIC 60000       /* arch generic */
#define N_PORTABLE_OTHER 40000 /* aesni and avx2 (portable lane kernel for now) */
#define N_VALGRIND 5000

static int valgrind_mode;

struct cfg_stats {
    uint64_t jobs, ring, burst, invalid, auth, bytes, single, sessions, abandoned, timeouts;
    uint64_t calls, rekeys, bursts;
    double secs;
};
static struct cfg_stats cst[TU_MGR_NCFG];

/* ---- a session ------------------------------------------------------------------------------ */
struct inflight {
    tu_tjob *t;
    mbgcm_job *slot;
    uint64_t seq;
};

struct sess {
    tu_rng *r;
    int cfg, light;
    mbgcm_mgr *m;
    unsigned lanes, q, qeff;
    uint64_t thr;        /* single-stream threshold; UINT64_MAX never */
    int thr_known;       /* 0: left at the library default */
    uint64_t timeout, now;
    tu_key *keys;
    size_t nkeys;
    struct inflight *fifo; /* ring jobs in flight, oldest first */
    size_t fcap, fhead, fcount;
    uint64_t seq;
    /* what the stats must say once drained */
    uint64_t jobs, invalid, bytes, auth, single, lane_jobs;
    int used_flush, used_burst_lanes;
    mbgcm_stats last;
    /* ring jobs returned since the last get_next_job: they must stay unchanged until then */
    struct inflight *ret;
    size_t nret, capret;
    char ctx[200];
};

static uint64_t fake_clock(void *ctx)
{
    return *(const uint64_t *)ctx;
}

static size_t pick_len(tu_rng *r, int light)
{
    const uint64_t c = tu_rng_below(r, 1000);
    if (light) { /* mostly short: the portable lane kernel is slow */
        if (c < 860) return (size_t)tu_rng_below(r, 301);
        if (c < 960) { /* block edges up to 4 KiB */
            const uint64_t k = tu_rng_range(r, 1, UINT64_C(1) << tu_rng_below(r, 9));
            return (size_t)(16 * k + tu_rng_below(r, 3) - 1);
        }
        if (c < 995) return (size_t)tu_rng_below(r, 4097);
        return (size_t)tu_rng_below(r, 70001);
    }
    if (c < 700) return (size_t)tu_rng_below(r, 301);
    if (c < 820) { /* 16k-1, 16k, 16k+1, k log-biased up to 4375 (70,000 bytes) */
        uint64_t k = tu_rng_range(r, 1, UINT64_C(1) << tu_rng_below(r, 13));
        if (k > 4375) k = 4375;
        return (size_t)(16 * k + tu_rng_below(r, 3) - 1);
    }
    if (c < 920) return (size_t)tu_rng_below(r, 2049);
    if (c < 970) return (size_t)tu_rng_below(r, 70001);
    return (size_t)tu_rng_range(r, 60000, 70000);
}

static size_t pick_aad(tu_rng *r, int light)
{
    const uint64_t c = tu_rng_below(r, 100);
    if (!light && tu_rng_below(r, 200) == 0) return (size_t)tu_rng_range(r, 601, 5000);
    if (c < 15) return 0;
    if (c < 55) return (size_t)tu_rng_below(r, 33);
    if (c < 85) return (size_t)tu_rng_below(r, 601);
    const uint64_t k = tu_rng_range(r, 1, 37); /* 16k-1..16k+1 <= 593 */
    return (size_t)(16 * k + tu_rng_below(r, 3) - 1);
}

static size_t pick_iv(tu_rng *r)
{
    const uint64_t c = tu_rng_below(r, 100);
    if (c < 90) return 12;
    if (c < 98) return (size_t)tu_rng_range(r, 1, 128);
    return (size_t)tu_rng_range(r, 129, 600);
}

static tu_tjob *random_job(struct sess *S)
{
    tu_rng *r = S->r;
    tu_jspec sp;
    memset(&sp, 0, sizeof sp);
    sp.key = &S->keys[tu_rng_below(r, S->nkeys)];
    sp.dir = tu_rng_below(r, 2) ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
    sp.iv_len = pick_iv(r);
    sp.aad_len = pick_aad(r, S->light);
    sp.len = pick_len(r, S->light);
    sp.tag_len = tu_pick_tag_len(r);
    sp.in_place = (int)tu_rng_below(r, 2);
    sp.tamper = tu_rng_below(r, 10) == 0;
    sp.null_empty = (int)tu_rng_below(r, 2);
    sp.tag_in_dst = tu_rng_below(r, 20) == 0;
    if (tu_rng_below(r, 100) < 6) {
        sp.bad = (int)tu_rng_range(r, 1, TU_BAD_COUNT - 1);
    }
    return tu_tjob_new(r, &sp);
}

/* Book-keeping for a job the manager accepted (ring, or |burst|). */
static void account(struct sess *S, const tu_tjob *t, int burst, int short_on)
{
    S->jobs++;
    cst[S->cfg].jobs++;
    if (t->sp.bad != TU_BAD_NONE) {
        S->invalid++;
        cst[S->cfg].invalid++;
        return;
    }
    S->bytes += t->sp.len;
    cst[S->cfg].bytes += t->sp.len;
    if (t->expect == MBGCM_ERR_AUTH) {
        S->auth++;
        cst[S->cfg].auth++;
    }
    if (burst ? tu_goes_single_burst(S->m, S->thr, &t->sp, short_on)
              : tu_goes_single(S->m, S->thr, &t->sp)) {
        S->single++;
        cst[S->cfg].single++;
    } else {
        S->lane_jobs++;
    }
}

static void check_qsize(struct sess *S, const char *after)
{
    const unsigned qs = mbgcm_queue_size(S->m);
    TU_CHECK(qs == S->fcount, "%s: after %s queue_size %u, %zu jobs in flight", S->ctx, after, qs,
             S->fcount);
    TU_CHECK(qs < S->qeff, "%s: after %s queue_size %u with a ring of %u", S->ctx, after, qs,
             S->qeff);
}

/* A ring job came back: it must be the oldest in flight, complete and correct. */
static void got(struct sess *S, mbgcm_job *job, const char *how)
{
    TU_CHECK(S->fcount > 0, "%s: %s returned a job (%p) with none in flight", S->ctx, how,
             (void *)job);
    struct inflight *f = &S->fifo[S->fhead];
    if (job != f->slot) {
        /* a job out of order, twice, or a burst job: say which */
        const uint64_t u = (uint64_t)(uintptr_t)job->user_data;
        fail_msg("%s: %s returned slot %p (user_data %llu), expected the oldest job seq %llu "
                 "in slot %p (%zu in flight)",
                 S->ctx, how, (void *)job, (unsigned long long)u, (unsigned long long)f->seq,
                 (void *)f->slot, S->fcount);
    }
    TU_CHECK(job->user_data == (void *)(uintptr_t)f->seq, "%s: %s: user_data changed", S->ctx,
             how);
    TU_CHECK(job->status != MBGCM_PENDING, "%s: %s returned a pending job (seq %llu)", S->ctx,
             how, (unsigned long long)f->seq);
    char ctx[300];
    snprintf(ctx, sizeof ctx, "%s seq=%llu via %s", S->ctx, (unsigned long long)f->seq, how);
    tu_tjob_check(f->t, job, ctx);
    if (S->nret == S->capret) {
        S->capret = S->capret ? 2 * S->capret : 64;
        S->ret = realloc(S->ret, S->capret * sizeof *S->ret);
        TU_CHECK(S->ret != NULL, "out of memory");
    }
    S->ret[S->nret++] = *f;
    f->t = NULL;
    S->fhead = (S->fhead + 1) % S->fcap;
    S->fcount--;
}

/* Before the next get_next_job: every job returned since the last one is still as it was
   returned (status, fields, buffers), whatever was called in between. */
static void recheck_returned(struct sess *S)
{
    for (size_t i = 0; i < S->nret; i++) {
        const struct inflight *f = &S->ret[i];
        char ctx[300];
        snprintf(ctx, sizeof ctx, "%s seq=%llu: returned job changed before the next "
                 "get_next_job", S->ctx, (unsigned long long)f->seq);
        TU_CHECK(f->slot->user_data == (void *)(uintptr_t)f->seq, "%s: user_data", ctx);
        tu_tjob_check(f->t, f->slot, ctx);
        tu_tjob_free(f->t);
    }
    S->nret = 0;
}

static mbgcm_stats stats_now(struct sess *S)
{
    mbgcm_stats st;
    TU_CHECK(mbgcm_mgr_stats(S->m, &st) == MBGCM_OK, "%s: mbgcm_mgr_stats", S->ctx);
    tu_stats_monotonic(&S->last, &st, S->ctx);
    S->last = st;
    return st;
}

static void op_get_completed(struct sess *S, int until_null)
{
    const mbgcm_stats before = stats_now(S);
    mbgcm_job *j;
    do {
        j = mbgcm_get_completed_job(S->m);
        if (j != NULL) {
            got(S, j, "get_completed");
        }
        check_qsize(S, "get_completed");
    } while (j != NULL && until_null);
    const mbgcm_stats after = stats_now(S);
    TU_CHECK(tu_stats_calls(&after) == tu_stats_calls(&before) &&
                 tu_stats_runs(&after) == tu_stats_runs(&before),
             "%s: get_completed ran a kernel", S->ctx);
}

static void op_submit(struct sess *S)
{
    recheck_returned(S);
    mbgcm_job *slot = mbgcm_get_next_job(S->m);
    TU_CHECK(slot != NULL, "%s: get_next_job returned NULL", S->ctx);
    if (tu_rng_below(S->r, 8) == 0) {
        TU_CHECK(mbgcm_get_next_job(S->m) == slot, "%s: get_next_job moved", S->ctx);
    }
    if (S->fcount <= 256 || tu_rng_below(S->r, 16) == 0) { /* never a slot still in flight */
        for (size_t i = 0; i < S->fcount; i++) {
            TU_CHECK(S->fifo[(S->fhead + i) % S->fcap].slot != slot,
                     "%s: get_next_job handed out the slot of a job in flight", S->ctx);
        }
    }
    tu_tjob *t = random_job(S);
    const uint64_t seq = ++S->seq;
    tu_tjob_load(t, slot, (void *)(uintptr_t)seq, S->r);
    struct inflight *f = &S->fifo[(S->fhead + S->fcount) % S->fcap];
    f->t = t;
    f->slot = slot;
    f->seq = seq;
    S->fcount++;
    account(S, t, 0, 0);
    cst[S->cfg].ring++;
    const int was_full = S->fcount == S->qeff; /* this submit fills the ring */
    mbgcm_job *j = mbgcm_submit_job(S->m);
    if (j != NULL) {
        got(S, j, "submit");
    } else {
        TU_CHECK(!was_full, "%s: submit into a full ring (%u slots) returned NULL", S->ctx,
                 S->qeff);
    }
    check_qsize(S, "submit");
}

static void op_flush(struct sess *S)
{
    const size_t before = S->fcount;
    TU_CHECK(mbgcm_queue_size(S->m) == before, "%s: queue_size before flush", S->ctx);
    mbgcm_job *j = mbgcm_flush_job(S->m);
    if (before == 0) {
        TU_CHECK(j == NULL, "%s: flush returned a job with queue_size 0", S->ctx);
    } else {
        TU_CHECK(j != NULL, "%s: flush returned NULL with queue_size %zu", S->ctx, before);
        got(S, j, "flush");
        S->used_flush = 1;
    }
    check_qsize(S, "flush");
}

static void op_poll(struct sess *S)
{
    const mbgcm_stats before = stats_now(S);
    mbgcm_job *j = mbgcm_mgr_poll(S->m);
    if (j != NULL) {
        got(S, j, "poll");
    }
    check_qsize(S, "poll");
    if (S->timeout == 0) {
        const mbgcm_stats after = stats_now(S);
        TU_CHECK(tu_stats_calls(&after) == tu_stats_calls(&before),
                 "%s: poll without a timeout ran a kernel", S->ctx);
    }
}

static void op_drain(struct sess *S)
{
    for (;;) {
        const size_t before = S->fcount;
        mbgcm_job *j = mbgcm_flush_job(S->m);
        if (j == NULL) {
            TU_CHECK(before == 0, "%s: flush returned NULL with %zu jobs in flight", S->ctx,
                     before);
            break;
        }
        S->used_flush = 1;
        got(S, j, "flush (drain)");
        check_qsize(S, "flush (drain)");
    }
    check_qsize(S, "drain");
}

static void op_burst(struct sess *S)
{
    const unsigned n = (unsigned)tu_rng_below(S->r, 3 * S->lanes + 6);
    mbgcm_job *jobs = tu_xmalloc((n ? n : 1) * sizeof *jobs);
    tu_tjob **tj = tu_xmalloc((n ? n : 1) * sizeof *tj);
    unsigned want_ok = 0;
    for (unsigned i = 0; i < n; i++) {
        tj[i] = random_job(S);
        tu_tjob_load(tj[i], &jobs[i], (void *)(uintptr_t)(UINT64_C(0xB0000000) + i), S->r);
    }
    const int short_on = tu_burst_short_on(S->m, jobs, n);
    for (unsigned i = 0; i < n; i++) {
        account(S, tj[i], 1, short_on);
        want_ok += tj[i]->expect == MBGCM_OK;
        if (tj[i]->sp.bad == TU_BAD_NONE && (uint64_t)tj[i]->sp.len < S->thr) {
            S->used_burst_lanes = 1;
        }
    }
    const size_t inflight = S->fcount;
    const unsigned ok = mbgcm_submit_burst(S->m, n ? jobs : (tu_rng_below(S->r, 2) ? NULL : jobs), n);
    TU_CHECK(ok == want_ok, "%s: submit_burst(%u) returned %u, expected %u OK", S->ctx, n, ok,
             want_ok);
    TU_CHECK(mbgcm_queue_size(S->m) == inflight, "%s: burst changed queue_size", S->ctx);
    TU_CHECK(mbgcm_mgr_last_error(S->m) == MBGCM_OK, "%s: burst set last_error %d", S->ctx,
             mbgcm_mgr_last_error(S->m));
    for (unsigned i = 0; i < n; i++) {
        char ctx[300];
        snprintf(ctx, sizeof ctx, "%s burst job %u of %u", S->ctx, i, n);
        TU_CHECK(jobs[i].status != MBGCM_PENDING, "%s: still pending after the burst", ctx);
        TU_CHECK(jobs[i].user_data == (void *)(uintptr_t)(UINT64_C(0xB0000000) + i),
                 "%s: user_data changed", ctx);
        tu_tjob_check(tj[i], &jobs[i], ctx);
        tu_tjob_free(tj[i]);
    }
    cst[S->cfg].burst += n;
    cst[S->cfg].bursts++;
    free(tj);
    free(jobs);
    check_qsize(S, "burst");
}

/* Re-initialise a key object (maybe to another size) while no job uses it: the lanes must not
   keep the old key's tables. */
static void op_rekey(struct sess *S)
{
    if (S->fcount != 0) {
        return;
    }
    tu_key_random(S->r, &S->keys[tu_rng_below(S->r, S->nkeys)], 0);
    cst[S->cfg].rekeys++;
}

/* Once drained, the counters must match what was submitted. */
static void check_stats_final(struct sess *S)
{
    const mbgcm_stats st = stats_now(S);
    const char *c = S->ctx;
    TU_CHECK(st.jobs == S->jobs, "%s: stats.jobs %llu, submitted %llu", c,
             (unsigned long long)st.jobs, (unsigned long long)S->jobs);
    TU_CHECK(st.jobs_invalid == S->invalid, "%s: stats.jobs_invalid %llu, expected %llu", c,
             (unsigned long long)st.jobs_invalid, (unsigned long long)S->invalid);
    TU_CHECK(st.bytes == S->bytes, "%s: stats.bytes %llu, expected %llu", c,
             (unsigned long long)st.bytes, (unsigned long long)S->bytes);
    TU_CHECK(st.auth_failures == S->auth, "%s: stats.auth_failures %llu, expected %llu", c,
             (unsigned long long)st.auth_failures, (unsigned long long)S->auth);
    if (S->thr_known) {
        TU_CHECK(st.single_stream == S->single, "%s: stats.single_stream %llu, expected %llu",
                 c, (unsigned long long)st.single_stream, (unsigned long long)S->single);
    } else {
        TU_CHECK(st.single_stream <= S->jobs - S->invalid, "%s: stats.single_stream %llu > "
                 "valid jobs", c, (unsigned long long)st.single_stream);
    }
    const uint64_t calls = tu_stats_calls(&st), runs = tu_stats_runs(&st);
    if (S->thr_known) {
        /* every lane job was in at least one call (a call holds at most four lanes), or it
           began in a lane and, being its group's last busy lane, was finished single-stream
           (then it may never have seen a kernel call) */
        const uint64_t busy = st.kernel_calls[0] + 2 * st.kernel_calls[1] +
                              3 * st.kernel_calls[2] + 4 * st.kernel_calls[3];
        TU_CHECK(st.lane_single_finish <= S->lane_jobs, "%s: %llu lane jobs finished "
                 "single-stream of %llu lane jobs", c,
                 (unsigned long long)st.lane_single_finish, (unsigned long long)S->lane_jobs);
        TU_CHECK(busy + st.lane_single_finish >= S->lane_jobs, "%s: kernel calls cover %llu "
                 "lane-jobs and %llu finished single-stream, %llu lane jobs ran", c,
                 (unsigned long long)busy, (unsigned long long)st.lane_single_finish,
                 (unsigned long long)S->lane_jobs);
        TU_CHECK(S->lane_jobs == 0 || calls > 0 || st.lane_single_finish > 0,
                 "%s: no kernel call and no single-stream finish for %llu lane jobs", c,
                 (unsigned long long)S->lane_jobs);
        TU_CHECK(S->lane_jobs > 0 || calls == 0, "%s: %llu kernel calls without lane jobs", c,
                 (unsigned long long)calls);
    }
    TU_CHECK((calls == 0) == (runs == 0) && runs <= calls,
             "%s: %llu runs for %llu kernel calls", c, (unsigned long long)runs,
             (unsigned long long)calls);
    if (S->timeout == 0) {
        TU_CHECK(st.runs_timeout == 0, "%s: runs_timeout %llu without a timeout", c,
                 (unsigned long long)st.runs_timeout);
    }
    if (!S->used_flush) {
        TU_CHECK(st.runs_flush == 0, "%s: runs_flush %llu without a flush", c,
                 (unsigned long long)st.runs_flush);
    }
    if (!S->used_burst_lanes) {
        TU_CHECK(st.runs_burst == 0, "%s: runs_burst %llu without a burst lane job", c,
                 (unsigned long long)st.runs_burst);
    }
    cst[S->cfg].calls += calls;
    cst[S->cfg].timeouts += st.runs_timeout;
}

static void run_session(tu_rng *r, int cfg, uint64_t budget, unsigned sidx)
{
    struct sess S;
    memset(&S, 0, sizeof S);
    S.r = r;
    S.cfg = cfg;
    S.light = !tu_mgr_fast_lanes(cfg);
    static const unsigned lane_set[4] = {4, 8, 12, 16};
    S.lanes = tu_rng_below(r, 20) == 0 ? 0 : lane_set[tu_rng_below(r, 4)];
    S.q = tu_rng_below(r, 20) == 0 ? 0 : 1u << tu_rng_below(r, 11);
    S.qeff = S.q ? S.q : MBGCMI_DEFAULT_QUEUE;
    if (S.lanes == 0) {
        S.lanes = MBGCMI_DEFAULT_LANES;
    }
    static const uint64_t touts[4] = {1, 50, 1000, 1000000};
    S.timeout = tu_rng_below(r, 10) < 3 ? touts[tu_rng_below(r, 4)] : 0;
    const uint64_t tc = tu_rng_below(r, 10);
    static const uint64_t thrs[8] = {0, 1, 16, 64, 256, 1024, 4096, 16384};
    S.thr_known = 1;
    if (tc < 4) {
        S.thr = UINT64_MAX;
    } else if (tc < 5) {
        S.thr_known = 0;
        S.thr = UINT64_MAX; /* only used for the "lane job" guess */
    } else {
        S.thr = thrs[tu_rng_below(r, 8)];
    }
    S.nkeys = 1 + tu_rng_below(r, 8);
    S.keys = tu_keys_new(r, S.nkeys, tu_rng_below(r, 4) == 0 ? 16 + 8 * tu_rng_below(r, 3) : 0);
    S.fcap = S.qeff + 1;
    S.fifo = tu_xmalloc(S.fcap * sizeof *S.fifo);
    S.now = tu_rng_below(r, 2) ? 0 : tu_rng_next(r) >> 2;
    S.m = tu_mgr_open(cfg, S.lanes == MBGCMI_DEFAULT_LANES &&
                               tu_rng_below(r, 2) ? 0 : S.lanes,
                      S.q, S.timeout);
    if (S.timeout) {
        mbgcmi_mgr_set_clock(S.m, fake_clock, &S.now);
    }
    if (S.thr_known) {
        mbgcmi_mgr_set_single_min_len(S.m, S.thr);
        S.thr = S.m->single_min_len; /* 0 on an arch without lanes: every job single-stream */
    }
    /* the burst's key look-ahead: as the estimate says (off with these few keys), forced on
       (where the arch has it) or forced off */
    const int ahead = (int)tu_rng_below(r, 3) - 1;
    mbgcmi_mgr_set_key_ahead(S.m, ahead);
    snprintf(S.ctx, sizeof S.ctx,
             "arch=%s session=%u lanes=%u queue=%u timeout=%llu single_min=%s%llu keys=%zu "
             "key_ahead=%d (seed 0x%016llx)",
             tu_mgr_label(cfg), sidx, S.lanes, S.q, (unsigned long long)S.timeout,
             S.thr_known ? "" : "default/", (unsigned long long)S.thr, S.nkeys,
             mbgcmi_mgr_key_ahead(S.m), (unsigned long long)tu_seed());
    memset(&S.last, 0, sizeof S.last);

    while (S.jobs < budget) {
        const uint64_t c = tu_rng_below(r, 1000);
        if (c < 600) {
            op_submit(&S);
        } else if (c < 680) {
            const unsigned k = 1 + (unsigned)tu_rng_below(r, 3 * S.lanes);
            for (unsigned i = 0; i < k && S.jobs < budget; i++) {
                op_submit(&S);
            }
        } else if (c < 750) {
            op_get_completed(&S, (int)tu_rng_below(r, 2));
        } else if (c < 790) {
            op_flush(&S);
        } else if (c < 840) {
            op_poll(&S);
        } else if (c < 880) {
            op_burst(&S);
        } else if (c < 895) {
            op_drain(&S);
        } else if (c < 910) {
            op_rekey(&S);
        } else if (S.timeout) {
            /* time passes: sometimes less, sometimes more than the timeout */
            S.now += tu_rng_below(r, 2 * S.timeout + 1);
            if (tu_rng_below(r, 2)) op_poll(&S);
        } else {
            op_get_completed(&S, 0);
        }
    }
    if (tu_rng_below(r, 25) == 0 && S.fcount > 0) {
        /* abandon the jobs in flight: free must not touch them afterwards (ASan) */
        mbgcm_mgr_free(S.m);
        cst[cfg].abandoned += S.fcount;
        while (S.fcount) {
            tu_tjob_free(S.fifo[S.fhead].t);
            S.fhead = (S.fhead + 1) % S.fcap;
            S.fcount--;
        }
    } else {
        op_drain(&S);
        TU_CHECK(mbgcm_flush_job(S.m) == NULL, "%s: flush after drain", S.ctx);
        TU_CHECK(mbgcm_get_completed_job(S.m) == NULL, "%s: get_completed after drain", S.ctx);
        TU_CHECK(mbgcm_mgr_poll(S.m) == NULL, "%s: poll after drain", S.ctx);
        check_stats_final(&S);
        recheck_returned(&S);
        mbgcm_mgr_free(S.m);
    }
    for (size_t i = 0; i < S.nret; i++) { /* returned before an abandoning free */
        tu_tjob_free(S.ret[i].t);
    }
    free(S.ret);
    tu_keys_free(S.keys, S.nkeys);
    free(S.fifo);
    cst[cfg].sessions++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t budget_for(int cfg)
{
    if (valgrind_mode) {
        return N_VALGRIND;
    }
    if (tu_mgr_fast_lanes(cfg)) {
        return tu_scaled(N_FAST);
    }
    return tu_scaled(cfg == TU_ARCH("generic") ? N_GENERIC : N_PORTABLE_OTHER);
}

static void stress_cfg(int cfg)
{
    tu_mgr_need_cfg(cfg);
    if (valgrind_mode && cfg != TU_ARCH("generic") && cfg != TU_ARCH("aesni")) {
        print_message("%s: not run under valgrind\n", tu_mgr_label(cfg));
        skip();
    }
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_stress", cfg);
    const uint64_t total = budget_for(cfg);
    const int fast = tu_mgr_fast_lanes(cfg);
    const double t0 = now_s();
    unsigned sidx = 0;
    while (cst[cfg].jobs < total) {
        uint64_t b = fast ? tu_rng_range(&r, 1, 6000) : tu_rng_range(&r, 1, 1500);
        if (tu_rng_below(&r, 8) == 0) b = tu_rng_range(&r, 1, 40); /* short sessions too */
        if (b > total - cst[cfg].jobs) b = total - cst[cfg].jobs;
        run_session(&r, cfg, b, sidx++);
    }
    struct cfg_stats *c = &cst[cfg];
    c->secs = now_s() - t0;
    print_message("%-8s %8llu jobs (ring %llu, burst %llu in %llu bursts), %llu invalid, %llu "
                  "auth failures, %.1f MiB, %llu single-stream, %llu kernel calls, %llu timeout "
                  "runs, %llu sessions (%llu jobs abandoned at free), %llu re-keys, %.1f s\n",
                  tu_mgr_label(cfg), (unsigned long long)c->jobs, (unsigned long long)c->ring,
                  (unsigned long long)c->burst, (unsigned long long)c->bursts,
                  (unsigned long long)c->invalid, (unsigned long long)c->auth,
                  (double)c->bytes / 1048576.0, (unsigned long long)c->single,
                  (unsigned long long)c->calls, (unsigned long long)c->timeouts,
                  (unsigned long long)c->sessions, (unsigned long long)c->abandoned,
                  (unsigned long long)c->rekeys, c->secs);
}

static void stress_generic(void **state) { (void)state; stress_cfg(TU_ARCH("generic")); }
static void stress_aesni(void **state) { (void)state; stress_cfg(TU_ARCH("aesni")); }
static void stress_avx2(void **state) { (void)state; stress_cfg(TU_ARCH("avx2")); }
static void stress_avx512(void **state) { (void)state; stress_cfg(TU_ARCH("avx512")); }
static void stress_auto(void **state) { (void)state; stress_cfg(TU_MGR_AUTO); }

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "valgrind") != 0)) {
        fprintf(stderr, "usage: %s [valgrind]\n", argv[0]);
        return 2;
    }
    valgrind_mode = argc == 2;
    tu_seed();
    printf("scale %.3g%s, best arch %s\n", tu_scale(), valgrind_mode ? " (valgrind mode)" : "",
           tu_arch_name(tu_arch_best()));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stress_generic), cmocka_unit_test(stress_aesni),
        cmocka_unit_test(stress_avx2),    cmocka_unit_test(stress_avx512),
        cmocka_unit_test(stress_auto),
    };
    const int fails = cmocka_run_group_tests_name("mgr_stress", tests, NULL, NULL);
    uint64_t counts[TU_MGR_NCFG];
    for (int a = 0; a < TU_MGR_NCFG; a++) {
        counts[a] = cst[a].jobs;
    }
    tu_print_mgr_counts("jobs", counts);
    return fails ? 1 : 0;
}
