/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.h — mbgcm-bench's command line (options.c parses it; --help lists it).
 */
#ifndef MBGCM_BENCH_OPTIONS_H
#define MBGCM_BENCH_OPTIONS_H

#include "common.h"

enum { MODE_TPUT = 1, MODE_LAT = 2, MODE_THR = 4, MODE_KEYS = 8, MODE_STREAM = 16 };

struct options {
    unsigned modes;
    size_t sizes[MAX_SIZES];
    unsigned nsizes;
    unsigned bits[2], nbits;
    int dirs[2], ndirs;
    unsigned keysets[MAX_KEYSETS]; /* --keys: one throughput workload per key count */
    unsigned nkeysets;
    unsigned keys;                 /* the first key count: latency and threads modes */
    unsigned bufs, reps, aad_len, lanes, queue, burst;
    int key_random;                /* --key-order random: slots take the keys in a shuffled order */
    int single_set;                /* --single-min-len given */
    uint64_t single_min_len;
    double seconds;                /* per point and engine, all reps together */
    double warmup;                 /* seconds */
    double capped_share;           /* share of the budget for engines on portable C kernels */
    int cpu;                       /* -1: the one we start on; -2: no pinning */
    int all_arches, quiet;
    const char *engines;           /* comma list of name fragments, NULL = all */
    const char *csv, *label;
    const char *imb_arch;          /* ipsec-mb manager: init_mb_mgr_<imb_arch> */
    const char *peers;             /* adapter files, NULL: the ones built with the bench */
    /* latency */
    size_t lat_sizes[MAX_SIZES];
    unsigned nlat_sizes;
    double lat_loads[8];
    unsigned nlat_loads;
    double lat_timeout_us, lat_seconds;
    /* threads */
    unsigned threads;
    size_t thr_sizes[MAX_SIZES];
    unsigned nthr_sizes;
    double thr_seconds;
    unsigned thr_reps;
    /* stream */
    size_t stream_sizes[MAX_SIZES];
    unsigned nstream_sizes;
    size_t piece;                  /* bytes per ctx update and per segment */
};
extern struct options opt;

void parse_options(int argc, char **argv);

/* 1 when --engines is absent or one of its words occurs in |name|. */
int engine_wanted(const char *name);

#endif /* MBGCM_BENCH_OPTIONS_H */
