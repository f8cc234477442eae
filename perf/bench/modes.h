/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * modes.h — the latency, threads, keys and stream modes (latency.c, threads.c, keys.c,
 * stream.c); throughput is tput.h.
 */
#ifndef MBGCM_BENCH_MODES_H
#define MBGCM_BENCH_MODES_H

#include "engine.h"

/* Latency under Poisson arrivals; |cap|: the largest message size any mode uses. */
void run_latency(const struct engine *eng, unsigned ne, size_t cap, FILE *csv);
/* Scaling over threads pinned to the CPUs in |allowed|. */
void run_threads(const struct engine *eng, unsigned ne, const cpu_set_t *allowed, FILE *csv);
/* Key setup per key: mbgcm_key_init, every peer's GCM key precompute, OpenSSL's re-key. */
void run_keys(struct engine *eng, unsigned ne, FILE *csv);
/* One long message in pieces: mbgcm's incremental API and scatter-gather jobs vs the one-shot
   call (mbgcm only; its own workload and manager). */
void run_stream(FILE *csv);

#endif /* MBGCM_BENCH_MODES_H */
