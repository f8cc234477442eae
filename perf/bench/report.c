/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.c — the throughput tables: every figure, the summary (best mbgcm engine vs the
 * reference peer's fastest API per point) and the small-message targets (best mbgcm API vs
 * the reference peer's best API).
 *   ratio = reference ns / mbgcm ns: mbgcm's throughput over the fastest API of the reference
 *   peer at that point (> 1: mbgcm faster); that API's row says "ref".
 */
#include <math.h>

#include "tput.h"

double ref_ns(const struct tput *T, const struct engine *eng, struct point p, int *which)
{
    double best = 0;
    for (unsigned i = 0; i < T->ne; i++) {
        const struct figure *f = tput_fig(T, p, i);
        if (eng[i].ref && f->valid && (best == 0 || f->med < best)) {
            best = f->med;
            if (which) {
                *which = (int)i;
            }
        }
    }
    return best;
}

static const char *keys_str(unsigned ki, char *buf, size_t n)
{
    const unsigned k = opt.keysets[ki];
    snprintf(buf, n, k == 1 ? "1 key for all messages" : "%u keys round-robin", k);
    return buf;
}

/* One row of the full table; returns 1 when its spread is above SPREAD_WARN. */
static int print_row(const struct tput *T, const struct engine *eng, struct point p, unsigned i,
                     double ref, int ref_row)
{
    const struct figure *f = tput_fig(T, p, i);
    const int warn = (f->max - f->min) / f->med > SPREAD_WARN;
    char range[64], ratio[16] = "", cpb[24] = "-", sz[24];
    snprintf(range, sizeof range, "[%.1f .. %.1f]", f->min, f->max);
    if (eng[i].is_mbgcm && ref > 0) {
        snprintf(ratio, sizeof ratio, "%.2fx", ref / f->med);
    } else if (ref_row) {
        snprintf(ratio, sizeof ratio, "ref");
    }
    if (f->avg_len > 0) { /* cycles per byte: undefined for empty messages */
        snprintf(cpb, sizeof cpb, "%.2f", f->med * f->ghz / f->avg_len);
    }
    printf("  %6s  %-26s %10.1f  %-21s %7.2f %7s %7s%s\n",
           size_str(opt.sizes[p.si], sz, sizeof sz), eng[i].name, f->med, range,
           f->avg_len / f->med, cpb, ratio, warn ? " !" : "");
    return warn;
}

/* The full table; returns the number of figures marked '!'. */
static unsigned print_table(const struct tput *T, const struct engine *eng)
{
    unsigned nwarn = 0;
    char kb[48];
    for (unsigned ki = 0; ki < opt.nkeysets; ki++) {
        for (unsigned bi = 0; bi < opt.nbits; bi++) {
            for (unsigned di = 0; di < (unsigned)opt.ndirs; di++) {
                printf("\nAES-%u-GCM %s, %s\n", opt.bits[bi], dir_name[opt.dirs[di]],
                       keys_str(ki, kb, sizeof kb));
                printf("  %6s  %-26s %10s  %-21s %7s %7s %7s\n", "bytes", "engine", "ns/msg",
                       "[min .. max]", "GB/s", "cyc/B", "ratio");
                for (unsigned si = 0; si < opt.nsizes; si++) {
                    const struct point p = {ki, bi, di, si};
                    int which = -1;
                    const double ref = ref_ns(T, eng, p, &which);
                    for (unsigned i = 0; i < T->ne; i++) {
                        if (tput_fig(T, p, i)->valid) {
                            nwarn += (unsigned)print_row(T, eng, p, i, ref, (int)i == which);
                        }
                    }
                }
            }
        }
    }
    return nwarn;
}

static void summary_row(const struct tput *T, const struct engine *eng, struct point p)
{
    int bm = -1, bp = -1;
    for (unsigned i = 0; i < T->ne; i++) {
        const struct figure *f = tput_fig(T, p, i);
        if (f->valid && eng[i].is_mbgcm && (bm < 0 || f->med < tput_fig(T, p, (unsigned)bm)->med)) {
            bm = (int)i;
        }
    }
    ref_ns(T, eng, p, &bp);
    if (bm < 0 || bp < 0) {
        return;
    }
    const struct figure *m = tput_fig(T, p, (unsigned)bm), *r = tput_fig(T, p, (unsigned)bp);
    char sz[24];
    printf("  %5u AES-%-3u %-4s %6s  %-26s %7.2f  %-26s %7.2f %6.2fx\n", opt.keysets[p.ki],
           opt.bits[p.bi], dir_short[opt.dirs[p.di]], size_str(opt.sizes[p.si], sz, sizeof sz),
           eng[bm].name, m->avg_len / m->med, eng[bp].name, r->avg_len / r->med, r->med / m->med);
}

static void print_summary(const struct tput *T, const struct engine *eng)
{
    printf("\nSummary: best mbgcm engine vs the reference peer's fastest API (GB/s; ratio > 1: "
           "mbgcm faster)\n");
    printf("  %5s %-7s %-4s %6s  %-26s %7s  %-26s %7s %7s\n", "keys", "AES", "dir", "bytes",
           "mbgcm best", "GB/s", "reference best", "GB/s", "ratio");
    for (unsigned ki = 0; ki < opt.nkeysets; ki++) {
        for (unsigned bi = 0; bi < opt.nbits; bi++) {
            for (unsigned di = 0; di < (unsigned)opt.ndirs; di++) {
                for (unsigned si = 0; si < opt.nsizes; si++) {
                    summary_row(T, eng, (struct point){ki, bi, di, si});
                }
            }
        }
    }
}

/* The small-message targets: the best mbgcm API over the reference peer's best API at 16, 64,
   256, 512 and 1420 bytes and IMIX, and the ring API alone at 64 bytes (docs/perf.md). */
static const size_t target_size[] = {16, 64, 256, 512, 1420, SIZE_IMIX};
static const double target_best[] = {2.0, 2.0, 1.5, 1.3, 1.15, 1.5};
#define TARGET_RING_64 1.5
#define API_ANY (-1)

/* The fastest valid mbgcm figure at |p| among engines of |api| (API_ANY: any), or -1. */
static int best_at(const struct tput *T, const struct engine *eng, struct point p, int api)
{
    int bm = -1;
    for (unsigned i = 0; i < T->ne; i++) {
        const struct figure *f = tput_fig(T, p, i);
        if (f->valid && eng[i].is_mbgcm && (api == API_ANY || (int)eng[i].api == api) &&
            (bm < 0 || f->med < tput_fig(T, p, (unsigned)bm)->med)) {
            bm = (int)i;
        }
    }
    return bm;
}

static void print_targets(const struct tput *T, const struct engine *eng, unsigned ki)
{
    int header = 0;
    for (unsigned bi = 0; bi < opt.nbits; bi++) {
        for (unsigned di = 0; di < (unsigned)opt.ndirs; di++) {
            for (size_t t = 0; t < sizeof target_size / sizeof target_size[0]; t++) {
                for (unsigned si = 0; si < opt.nsizes; si++) {
                    const struct point p = {ki, bi, di, si};
                    int bp = -1;
                    if (opt.sizes[si] != target_size[t] || ref_ns(T, eng, p, &bp) <= 0) {
                        continue;
                    }
                    for (int ring = 0; ring < 2; ring++) {
                        if (ring && target_size[t] != 64) {
                            continue;
                        }
                        const int bm = best_at(T, eng, p, ring ? (int)API_RING : API_ANY);
                        if (bm < 0) {
                            continue;
                        }
                        if (!header) {
                            printf("\nSmall-message targets (%u keys): best mbgcm API (and the ring "
                                   "API at 64 B) vs the reference's best API, ns/msg\n",
                                   opt.keysets[ki]);
                            printf("  %-7s %-4s %6s  %-26s %8s  %-26s %8s %7s %7s\n", "AES", "dir",
                                   "bytes", "mbgcm", "ns", "reference", "ns", "ratio", "target");
                            header = 1;
                        }
                        const double m = tput_fig(T, p, (unsigned)bm)->med,
                                     r = tput_fig(T, p, (unsigned)bp)->med,
                                     goal = ring ? TARGET_RING_64 : target_best[t];
                        char sz[24];
                        printf("  AES-%-3u %-4s %6s  %-26s %8.1f  %-26s %8.1f %6.2fx %6.2fx%s\n",
                               opt.bits[bi], dir_short[opt.dirs[di]],
                               size_str(opt.sizes[si], sz, sizeof sz), eng[bm].name, m,
                               eng[bp].name, r, r / m, goal, r / m >= goal ? "  met" : "");
                    }
                }
            }
        }
    }
}

void report_tput(const struct tput *T, const struct engine *eng)
{
    printf("\n== Throughput (one thread) ==\n");
    printf("core clock (dependent-add loop): median %.2f GHz over %u measurements; start %.2f, "
           "end %.2f\n", T->ghz_med, T->nghz, T->ghz_start, T->ghz_end);
    printf("ns/msg: median of %u reps [min .. max] of the thread's %s time; GB/s = bytes / ns; "
           "cyc/B in core cycles;\nratio = reference ns / mbgcm ns, the reference being the "
           "fastest API of the reference peer\n(row 'ref'; see 'ratio:' above) at that point "
           "(> 1: mbgcm faster); '!' = (max-min)/median > %.0f%%\n",
           opt.reps, bench_wall_clock ? "wall-clock" : "CPU", SPREAD_WARN * 100);
    const unsigned nwarn = print_table(T, eng);
    print_summary(T, eng);
    for (unsigned ki = 0; ki < opt.nkeysets; ki++) {
        print_targets(T, eng, ki);
    }
    if (nwarn) {
        printf("\nwarning: %u figure(s) marked '!' vary by more than %.0f%% between repetitions "
               "(noisy machine?): rerun or raise --reps/--seconds-per-point\n",
               nwarn, SPREAD_WARN * 100);
    }
    if (T->ghz_start > 0 && fabs(T->ghz_end - T->ghz_start) / T->ghz_start > 0.05) {
        printf("warning: core clock drifted from %.2f to %.2f GHz during the run\n", T->ghz_start,
               T->ghz_end);
    }
    printf("throughput measuring time %.1f s\n", T->seconds);
}
