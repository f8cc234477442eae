/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tput.c — throughput mode: one thread (pinned by main). A warm-up brings the core to its
 * running clock. For each point (key count, key size, message size, direction) every engine is
 * calibrated to a batch lasting about --seconds-per-point / --reps, then the repetitions are
 * interleaved across engines (A B C A B C ...) so that drift and neighbours' noise hit all
 * engines alike. A figure is the median of the repetitions' ns per message, with min and max.
 * The core clock is measured after every point with a chain of dependent adds (bench_util.h).
 * Engines on portable C kernels get --capped-share of the time budget.
 */
#include "measure.h"
#include "tput.h"
#include "workload.h"

#define WORKLOAD_SEED 0x9e3779b97f4a7c15u

struct tput_run {
    struct engine *eng;
    unsigned ne;
    struct tput *T;
    double *samples;   /* reps per engine */
    double *ghz_all;   /* every clock measurement */
    double ghz_prev;
    unsigned done, npoints;
    int warm;          /* warmed up */
    uint64_t t_start;
};

/* Warm the core up on the first selected engine that is not capped, then read the clock;
   -1 when no engine runs with this workload's keys. */
static double warm_up(struct engine *eng, unsigned ne, struct workload *w)
{
    struct engine *warm = NULL;
    for (unsigned i = 0; i < ne && warm == NULL; i++) {
        if (engine_active(&eng[i], w->m.nkeys) && !eng[i].capped) {
            warm = &eng[i];
        }
    }
    for (unsigned i = 0; i < ne && warm == NULL; i++) {
        if (engine_active(&eng[i], w->m.nkeys)) {
            warm = &eng[i];
        }
    }
    if (warm == NULL) {
        return -1;
    }
    workload_point(w, opt.bits[0], opt.sizes[0] == SIZE_IMIX ? 1024 : opt.sizes[0]);
    engine_setup(warm, &w->m);
    unsigned pos = 0;
    const uint64_t t_end = now_ns() + (uint64_t)(opt.warmup * 1e9);
    do {
        (void)time_batch(warm, w, DIR_ENC, 64, &pos);
    } while (now_ns() < t_end);
    const double ghz = measure_ghz(5, 4.0);
    progress("mbgcm-bench: core clock %.2f GHz after %.1f s warm-up\n", ghz, opt.warmup);
    return ghz;
}

static void progress_point(const struct tput_run *r, const struct workload *w, struct point p)
{
    if (opt.quiet) {
        return;
    }
    char sz[24];
    const double el = (double)(now_ns() - r->t_start) * 1e-9;
    fprintf(stderr, "[%2u/%u] AES-%u %s %5s B, %u keys:", r->done, r->npoints, w->m.bits,
            dir_short[opt.dirs[p.di]], size_str(w->size, sz, sizeof sz), w->m.nkeys);
    for (unsigned i = 0; i < r->ne; i++) {
        const struct figure *f = tput_fig(r->T, p, i);
        if (f->valid) {
            fprintf(stderr, " %s %.0f", r->eng[i].name + (r->eng[i].is_mbgcm ? 6 : 0), f->med);
        }
    }
    fprintf(stderr, " ns (%.0f s, ~%.0f s left)\n", el, el / r->done * (r->npoints - r->done));
}

/* One direction of a point: calibrate, interleaved repetitions, figures. */
static void measure_dir(struct tput_run *r, struct workload *w, struct point p)
{
    const int dir = opt.dirs[p.di];
    const unsigned nk = w->m.nkeys, R = opt.reps;
    uint64_t n[MAX_ENGINES] = {0};
    unsigned pos[MAX_ENGINES] = {0};
    for (unsigned i = 0; i < r->ne; i++) {
        if (engine_active(&r->eng[i], nk)) {
            const double share = r->eng[i].capped ? opt.capped_share : 1.0;
            n[i] = calibrate(&r->eng[i], w, dir, opt.seconds * share / R * 1e9, &pos[i]);
        }
    }
    for (unsigned k = 0; k < R; k++) { /* interleaved: A B C A B C ... */
        for (unsigned i = 0; i < r->ne; i++) {
            if (engine_active(&r->eng[i], nk)) {
                r->samples[i * R + k] =
                    time_batch(&r->eng[i], w, dir, n[i], &pos[i]) / (double)n[i];
            }
        }
    }
    const double ghz_now = measure_ghz(3, 2.0);
    r->ghz_all[r->T->nghz++] = ghz_now;
    for (unsigned i = 0; i < r->ne; i++) {
        if (!engine_active(&r->eng[i], nk)) {
            continue;
        }
        struct figure *f = tput_fig(r->T, p, i);
        double *v = &r->samples[i * R];
        f->med = median(v, R);
        f->min = v[0];
        f->max = v[R - 1];
        f->ghz = 0.5 * (r->ghz_prev + ghz_now);
        f->avg_len = w->avg_len;
        f->n = n[i];
        f->valid = 1;
    }
    r->ghz_prev = ghz_now;
    r->done++;
    progress_point(r, w, p);
}

/* Every point of key count |ki|. */
static void measure_keyset(struct tput_run *r, unsigned ki, size_t cap)
{
    struct workload w;
    workload_init(&w, opt.keysets[ki], opt.bufs, cap, opt.aad_len, WORKLOAD_SEED);
    if (opt.key_random) {
        workload_shuffle_keys(&w);
    }
    if (!r->warm) {
        const double ghz = warm_up(r->eng, r->ne, &w);
        if (ghz < 0) { /* e.g. only the QUIC call selected, and this is not one key */
            r->done += opt.nbits * opt.nsizes * (unsigned)opt.ndirs;
            workload_free(&w);
            return;
        }
        r->ghz_prev = r->T->ghz_start = ghz;
        r->ghz_all[r->T->nghz++] = ghz;
        r->t_start = now_ns();
        r->warm = 1;
    }
    for (unsigned bi = 0; bi < opt.nbits; bi++) {
        for (unsigned si = 0; si < opt.nsizes; si++) {
            workload_point(&w, opt.bits[bi], opt.sizes[si]);
            for (unsigned i = 0; i < r->ne; i++) {
                if (engine_active(&r->eng[i], w.m.nkeys)) {
                    engine_prepare(&r->eng[i], &w);
                }
            }
            for (unsigned di = 0; di < (unsigned)opt.ndirs; di++) {
                measure_dir(r, &w, (struct point){ki, bi, di, si});
            }
        }
    }
    workload_free(&w);
}

void run_tput(struct engine *eng, unsigned ne, size_t cap, FILE *csv)
{
    struct tput T;
    memset(&T, 0, sizeof T);
    T.ne = ne;
    struct tput_run r = {.eng = eng, .ne = ne, .T = &T};
    r.npoints = opt.nkeysets * opt.nbits * opt.nsizes * (unsigned)opt.ndirs;
    T.fig = calloc((size_t)r.npoints * ne, sizeof *T.fig);
    r.samples = calloc((size_t)opt.reps * ne, sizeof *r.samples);
    r.ghz_all = calloc(r.npoints + 1, sizeof *r.ghz_all);
    if (T.fig == NULL || r.samples == NULL || r.ghz_all == NULL) {
        die("out of memory");
    }
    for (unsigned ki = 0; ki < opt.nkeysets; ki++) {
        measure_keyset(&r, ki, cap);
    }
    if (!r.warm) {
        die("no engine selected");
    }
    T.ghz_end = r.ghz_prev;
    T.ghz_med = median(r.ghz_all, T.nghz);
    T.seconds = (double)(now_ns() - r.t_start) * 1e-9;
    report_tput(&T, eng);
    if (csv) {
        csv_tput(csv, &T, eng);
    }
    free(T.fig);
    free(r.samples);
    free(r.ghz_all);
}
