/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latency.c — latency mode: AES-256 encrypt, one thread; arrivals are a Poisson process at an
 * offered load (--lat-loads: a value > 1 is messages per second, <= 1 a fraction of the ring's
 * measured capacity at that size). The thread spins, submits each message when it is due
 * and, when idle, polls the asynchronous engines (mbgcm_mgr_poll for the ring,
 * IMB_GET_COMPLETED_JOB for ipsec-mb's job API); synchronous engines finish inside the call.
 * Reported: p50/p99/p99.9/max of submit-to-completion time, throughput, how late the thread
 * submitted (lag), and for the ring the busy lanes per kernel call. The ring runs with
 * flush_timeout_ns 0 and --lat-timeout-us; at the end of the arrivals a ring without timeout
 * is flushed (its last < 4 jobs wait for that). Engines: the best ring (both timeouts), the
 * best one-shot, and the reference peer's direct and job APIs.
 */
#include <math.h>

#include "modes.h"
#include "measure.h"
#include "options.h"
#include "workload.h"

struct lat_result {
    double offered;      /* messages per second */
    double achieved;     /* messages per second */
    double p50, p99, p999, max, mean; /* ns, submit to completion */
    double lag_p99;      /* ns between a message being due and being submitted */
    struct lat_stats st; /* asynchronous engines */
    uint64_t n;
    int truncated;       /* the engine could not keep up: arrivals stopped early */
};

/* One run's arrival times and measurements. */
struct lat_run {
    uint64_t total, next, ndone, t0, t_last, tc, limit;
    uint64_t *arr, *tsub, *lat, *lag;
    unsigned bad;
    int truncated;
};

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double pct(const uint64_t *sorted, uint64_t n, double p)
{
    if (n == 0) {
        return 0;
    }
    const double x = p * (double)(n - 1);
    const uint64_t i = (uint64_t)x;
    return i + 1 < n ? (double)sorted[i] + (x - (double)i) * (double)(sorted[i + 1] - sorted[i])
                     : (double)sorted[n - 1];
}

/* Poisson arrivals at |rate| per second for |seconds|, times in ns from the start. */
static void lat_arrivals(struct lat_run *r, double rate, double seconds)
{
    memset(r, 0, sizeof *r);
    uint64_t total = (uint64_t)(rate * seconds);
    r->total = total < 200 ? 200 : total > 4000000 ? 4000000 : total;
    r->arr = malloc(r->total * sizeof *r->arr);
    r->tsub = malloc(r->total * sizeof *r->tsub);
    r->lat = malloc(r->total * sizeof *r->lat);
    r->lag = malloc(r->total * sizeof *r->lag);
    if (!r->arr || !r->tsub || !r->lat || !r->lag) {
        die("out of memory");
    }
    uint64_t rs = 0x853c49e6748fea9bu ^ (uint64_t)(rate * 1000);
    double t = 0;
    for (uint64_t i = 0; i < r->total; i++) {
        const double u = ((double)(rng_next(&rs) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        t += -log(u) / rate * 1e9;
        r->arr[i] = (uint64_t)t;
    }
    r->limit = (uint64_t)(3 * seconds * 1e9) + 100000000u; /* give up when overloaded */
}

/* A completion: the time is read once per batch of completions (tc reset before each call). */
static void lat_done(void *ctx, uint64_t id, int ok)
{
    struct lat_run *r = ctx;
    if (r->tc == 0) {
        r->tc = now_ns();
    }
    r->lat[id] = r->tc - r->tsub[id];
    r->ndone++;
    r->t_last = r->tc;
    r->bad += !ok;
}

/* 1 when message r->next is due at |now| (and records its submission); stops the arrivals
   when the engine has fallen too far behind. */
static int lat_due(struct lat_run *r, uint64_t now)
{
    if (r->next >= r->total || now < r->t0 + r->arr[r->next]) {
        return 0;
    }
    if (now - r->t0 > r->limit) {
        r->total = r->next; /* overloaded: stop the arrivals, drain */
        r->truncated = 1;
        return 0;
    }
    r->lag[r->next] = now - (r->t0 + r->arr[r->next]);
    r->tsub[r->next] = now;
    return 1;
}

static void lat_loop_async(struct engine *e, const struct workload *w, struct lat_run *r)
{
    while (r->ndone < r->total) {
        const uint64_t now = now_ns();
        r->tc = 0;
        if (lat_due(r, now)) {
            const uint64_t id = r->next++;
            e->ops->submit(e, &w->m, (unsigned)(id % w->m.nslots), id, lat_done, r);
        } else if (r->ndone < r->total) {
            e->ops->poll(e, r->next == r->total, lat_done, r);
        }
    }
}

static void lat_loop_sync(struct engine *e, const struct workload *w, struct lat_run *r)
{
    while (r->next < r->total) {
        const uint64_t now = now_ns();
        if (!lat_due(r, now)) {
            if (r->truncated) {
                break;
            }
            continue;
        }
        unsigned pos = (unsigned)(r->next % w->m.nslots);
        r->bad += engine_run(e, &w->m, DIR_ENC, 1, &pos);
        r->tc = 0;
        lat_done(r, r->next, 1);
        r->next++;
    }
}

static void lat_summarize(struct lat_run *r, double rate, struct lat_result *out)
{
    const uint64_t n = r->total;
    double sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += (double)r->lat[i];
    }
    qsort(r->lat, n, sizeof *r->lat, cmp_u64);
    qsort(r->lag, n, sizeof *r->lag, cmp_u64);
    out->n = n;
    out->offered = rate;
    out->achieved = r->t_last > r->t0 ? (double)n / ((double)(r->t_last - r->t0) * 1e-9) : 0;
    out->p50 = pct(r->lat, n, 0.5);
    out->p99 = pct(r->lat, n, 0.99);
    out->p999 = pct(r->lat, n, 0.999);
    out->max = n ? (double)r->lat[n - 1] : 0;
    out->mean = n ? sum / (double)n : 0;
    out->lag_p99 = pct(r->lag, n, 0.99);
    out->truncated = r->truncated;
    free(r->arr);
    free(r->tsub);
    free(r->lat);
    free(r->lag);
}

/* One latency run of |e| (already set up for |w|) at |rate| messages/s for |seconds|. */
static void lat_measure(struct engine *e, struct workload *w, double rate, double seconds,
                        struct lat_result *out)
{
    memset(out, 0, sizeof *out);
    struct lat_run r;
    lat_arrivals(&r, rate, seconds);
    r.t0 = now_ns() + 1000000;
    while (now_ns() < r.t0) {
    }
    if (e->ops->submit != NULL) {
        lat_loop_async(e, w, &r);
    } else {
        lat_loop_sync(e, w, &r);
    }
    if (r.bad) {
        die("%s: %u messages failed in the latency run", e->name, r.bad);
    }
    if (e->ops->stats != NULL) {
        e->ops->stats(e, &out->st);
    }
    lat_summarize(&r, rate, out);
}

/* ---- the mode: engines, capacity, table ---- */
static void fmt_ns(double ns, char *buf, size_t n)
{
    if (ns >= 1e6) {
        snprintf(buf, n, "%.2f ms", ns * 1e-6);
    } else if (ns >= 1e4) {
        snprintf(buf, n, "%.1f us", ns * 1e-3);
    } else {
        snprintf(buf, n, "%.0f ns", ns);
    }
}

/* The ring without and with timeout, the best one-shot, the reference peer's direct and job
   APIs; selected by --engines. */
static unsigned lat_engines(const struct engine *eng, unsigned ne, struct engine *le)
{
    const struct engine *ring = best_mbgcm(eng, ne, API_RING);
    if (ring == NULL) {
        die("latency mode needs a manager arch");
    }
    const struct engine *list[3] = {best_mbgcm(eng, ne, API_ONESHOT),
                                    ref_engine(eng, ne, API_DIRECT), ref_engine(eng, ne, API_JOB)};
    unsigned n = 0;
    le[n] = engine_clone(ring);
    le[n++].timeout_ns = 0;
    le[n] = engine_clone(ring);
    le[n++].timeout_ns = (uint64_t)(opt.lat_timeout_us * 1000 + 0.5);
    for (int i = 0; i < 3; i++) {
        if (list[i] != NULL) {
            le[n++] = engine_clone(list[i]);
        }
    }
    for (unsigned i = 0; i < n; i++) { /* peers keep their selection (availability too) */
        le[i].selected = le[i].is_mbgcm ? engine_wanted(le[i].name) : le[i].selected;
    }
    return n;
}

static void lat_header(FILE *csv)
{
    printf("\n== Latency (AES-256 encrypt, one thread, Poisson arrivals, %u keys) ==\n", opt.keys);
    printf("submit-to-completion time; load: offered messages/s (%% of the ring's one-thread "
           "capacity at that size);\nring: flush_timeout_ns 0 (lanes run when full, or at the "
           "final flush) or %.0f us (submit and mbgcm_mgr_poll run jobs older than that);\n"
           "lanes/call = busy lanes per kernel call; synchronous engines complete in the call; "
           "lag p99: how late\nthe thread submitted due messages (not in the latency: large "
           "values mean it was descheduled or busy);\n'overloaded': it completed < 95%% of the "
           "offered messages/s.\n",
           opt.lat_timeout_us);
    printf("  %6s %-17s %-26s %7s %9s %9s %9s %9s %9s %8s %6s\n", "bytes", "load", "engine",
           "timeout", "p50", "p99", "p99.9", "max", "lag p99", "Mmsg/s", "lanes");
    if (csv) {
        fprintf(csv, "bytes,avg_bytes,offered_msgs_per_s,load_of_capacity,engine,timeout_ns,msgs,"
                     "p50_ns,p99_ns,p999_ns,max_ns,mean_ns,arrival_lag_p99_ns,achieved_msgs_per_s,"
                     "gb_per_s,lanes_per_kernel_call,runs_timeout,truncated\n");
    }
}

/* Messages per second of the ring without timeout, closed loop, at the current size. */
static double lat_capacity(const struct engine *ring, struct workload *w)
{
    struct engine cap = engine_clone(ring);
    cap.timeout_ns = 0;
    engine_prepare(&cap, w);
    unsigned pos = 0;
    const uint64_t nb = calibrate(&cap, w, DIR_ENC, 0.04e9, &pos);
    double cs[5];
    for (int r = 0; r < 5; r++) {
        cs[r] = time_batch(&cap, w, DIR_ENC, nb, &pos) / (double)nb;
    }
    engine_teardown(&cap);
    return 1e9 / median(cs, 5);
}

static void lat_row(const struct engine *e, const struct workload *w, const char *load,
                    double rate, double capacity, const struct lat_result *r, FILE *csv)
{
    char sz[24], a[24], b[24], c[24], d[24], lg[24], t[24] = "-", lpc[24] = "-";
    fmt_ns(r->lag_p99, lg, sizeof lg);
    fmt_ns(r->p50, a, sizeof a);
    fmt_ns(r->p99, b, sizeof b);
    fmt_ns(r->p999, c, sizeof c);
    fmt_ns(r->max, d, sizeof d);
    if (e->api == API_RING) {
        if (e->timeout_ns) {
            fmt_ns((double)e->timeout_ns, t, sizeof t);
        } else {
            snprintf(t, sizeof t, "0");
        }
        snprintf(lpc, sizeof lpc, "%.2f", r->st.lanes_per_call);
    }
    printf("  %6s %-17s %-26s %7s %9s %9s %9s %9s %9s %8.3f %6s%s\n",
           size_str(w->size, sz, sizeof sz), load, e->name, t, a, b, c, d, lg, r->achieved * 1e-6,
           lpc, r->truncated || r->achieved < 0.95 * rate ? "  overloaded" : "");
    if (csv) {
        fprintf(csv, "%s,%.2f,%.0f,%.4f,%s,%llu,%llu,%.0f,%.0f,%.0f,%.0f,%.1f,%.0f,%.0f,%.4f,"
                     "%.3f,%llu,%d\n",
                sz, w->avg_len, rate, rate / capacity, e->name, (unsigned long long)e->timeout_ns,
                (unsigned long long)r->n, r->p50, r->p99, r->p999, r->max, r->mean, r->lag_p99,
                r->achieved, r->achieved * w->avg_len * 1e-9, r->st.lanes_per_call,
                (unsigned long long)r->st.runs_timeout, r->truncated);
    }
}

/* Every engine at one size and load; returns the worst lag p99. */
static double lat_load(struct engine *le, unsigned nle, struct workload *w, double rate,
                       double capacity, FILE *csv)
{
    char load[40], sz[24];
    double worst = 0;
    snprintf(load, sizeof load, "%.3gM/s %.2g%%", rate * 1e-6, 100 * rate / capacity);
    for (unsigned i = 0; i < nle; i++) {
        if (!le[i].selected) {
            continue;
        }
        struct engine e = engine_clone(&le[i]);
        engine_prepare(&e, w);
        struct lat_result r;
        lat_measure(&e, w, rate, opt.lat_seconds, &r);
        engine_teardown(&e);
        progress("latency %s B, %s, %s timeout %llu ns: p50 %.0f p99 %.0f ns\n",
                 size_str(w->size, sz, sizeof sz), load, e.name,
                 (unsigned long long)e.timeout_ns, r.p50, r.p99);
        worst = r.lag_p99 > worst ? r.lag_p99 : worst;
        lat_row(&e, w, load, rate, capacity, &r, csv);
    }
    return worst;
}

void run_latency(const struct engine *eng, unsigned ne, size_t cap, FILE *csv)
{
    struct engine le[8];
    const unsigned nle = lat_engines(eng, ne, le);
    struct workload w;
    workload_init(&w, opt.keys, opt.bufs, cap, opt.aad_len, 0x9e3779b97f4a7c15u);
    lat_header(csv);
    double worst_lag = 0;
    for (unsigned si = 0; si < opt.nlat_sizes; si++) {
        workload_point(&w, 256, opt.lat_sizes[si]);
        const double capacity = lat_capacity(&le[0], &w);
        for (unsigned li = 0; li < opt.nlat_loads; li++) {
            const double load = opt.lat_loads[li];
            const double rate = load > 1 ? load : load * capacity;
            const double lag = lat_load(le, nle, &w, rate, capacity, csv);
            worst_lag = lag > worst_lag ? lag : worst_lag;
        }
    }
    workload_free(&w);
    if (worst_lag > 20000) {
        char lg[24];
        fmt_ns(worst_lag, lg, sizeof lg);
        printf("warning: the benchmark thread fell up to %s behind the arrivals (lag p99): it was "
               "descheduled or overloaded,\nso tails (p99.9, max) show the scheduler, not the "
               "engines; rerun on a quiet machine\n", lg);
    }
}
