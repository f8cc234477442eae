/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * measure.h — timing an engine (measure.c): one batch, calibration of the batch size, and the
 * check against the reference that every engine passes before it is timed.
 */
#ifndef MBGCM_BENCH_MEASURE_H
#define MBGCM_BENCH_MEASURE_H

#include "engine.h"
#include "workload.h"

/* ns of run_ns() time for |n| messages from *pos on; exits if any failed. */
double time_batch(struct engine *e, const struct workload *w, int dir, uint64_t n,
                  unsigned *pos);
/* Messages per batch so that one batch takes about |target_ns|: |batch|(ctx, n) runs n
   messages and returns the ns they took. Also warms up. */
uint64_t calibrate_batches(double (*batch)(void *ctx, uint64_t n), void *ctx, double target_ns);
/* calibrate_batches over time_batch(). */
uint64_t calibrate(struct engine *e, const struct workload *w, int dir, double target_ns,
                   unsigned *pos);
/* Every engine must reproduce the reference for every slot before it is timed: encrypt gives
   the reference ciphertext and tag, decrypt accepts it and gives the plaintext. Exits on a
   mismatch. */
void verify(struct engine *e, struct workload *w);
/* setup + verify for the current point. */
void engine_prepare(struct engine *e, struct workload *w);

#endif /* MBGCM_BENCH_MEASURE_H */
