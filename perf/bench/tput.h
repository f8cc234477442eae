/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tput.h — throughput mode (tput.c measures, report.c prints the tables, csv.c writes the
 * CSV the plot is drawn from).
 */
#ifndef MBGCM_BENCH_TPUT_H
#define MBGCM_BENCH_TPUT_H

#include "engine.h"
#include "options.h"

struct figure {
    double med, min, max; /* ns per message */
    double ghz;           /* core clock for this point */
    double avg_len;       /* mean bytes per message */
    uint64_t n;           /* messages per repetition */
    int valid;
};

/* Figures of every point (key count, key size, direction, size) and engine. */
struct tput {
    struct figure *fig;
    unsigned ne;
    double ghz_start, ghz_end, ghz_med;
    unsigned nghz;
    double seconds; /* time spent measuring */
};

/* A point's coordinates: indexes into opt.keysets, opt.bits, opt.dirs, opt.sizes. */
struct point {
    unsigned ki, bi, di, si;
};

static inline struct figure *tput_fig(const struct tput *T, struct point p, unsigned e)
{
    const size_t i = (((size_t)p.ki * opt.nbits + p.bi) * (unsigned)opt.ndirs + p.di) * opt.nsizes +
                     p.si;
    return &T->fig[i * T->ne + e];
}

/* Measure every point; print the tables and write |csv| (may be NULL). |cap|: the largest
   message size any mode uses. */
void run_tput(struct engine *eng, unsigned ne, size_t cap, FILE *csv);

/* report.c */
/* ns of the fastest reference engine at |p| (0: none measured); its index in *which. */
double ref_ns(const struct tput *T, const struct engine *eng, struct point p, int *which);
void report_tput(const struct tput *T, const struct engine *eng);

/* csv.c */
void csv_tput(FILE *csv, const struct tput *T, const struct engine *eng);

#endif /* MBGCM_BENCH_TPUT_H */
