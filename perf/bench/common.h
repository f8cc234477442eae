/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * common.h — what every mbgcm-bench module shares: limits, the size and direction names,
 * progress output, and the helpers of bench_util.h. The build defines _GNU_SOURCE.
 */
#ifndef MBGCM_BENCH_COMMON_H
#define MBGCM_BENCH_COMMON_H

#define BENCH_PROG "mbgcm-bench"
#include "bench_util.h"
#include "msgs.h"

#define MAX_SIZES   32
#define MAX_KEYSETS 4
#define MAX_ENGINES 40
#define MAX_BURST   256
#define MAX_THREADS 256
#define MAX_PEERS   4
#define SPREAD_WARN 0.10
#define SIZE_IMIX   ((size_t)0 - 1) /* the IMIX mix in a size list */
#define IMIX_MAX    1518

extern const char *const dir_name[2];  /* "encrypt", "decrypt" */
extern const char *const dir_short[2]; /* "enc", "dec" */

/* "imix" or the decimal size, in |buf|. */
const char *size_str(size_t s, char *buf, size_t n);

/* Progress on stderr, unless --quiet. */
void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* MBGCM_BENCH_COMMON_H */
