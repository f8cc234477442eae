/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_mbgcm_internal.h — everything mbgcm-bench needs from mbgcm's internals, and nothing
 * else: arch names and support, forcing the one-shot arch, which arches share kernels, and
 * the managers' single-stream threshold. Only engine_mbgcm_internal.c includes the library's
 * internal headers, so that a change there is adapted in one place.
 */
#ifndef MBGCM_BENCH_ENGINE_MBGCM_INTERNAL_H
#define MBGCM_BENCH_ENGINE_MBGCM_INTERNAL_H

#include <stdint.h>

#include <mbgcm.h>

/* Arches are 0 .. mbint_arch_count() - 1, lowest first; mbint_arch_generic() is the portable
   C one. */
int mbint_arch_count(void);
int mbint_arch_generic(void);
const char *mbint_arch_name(int arch);
int mbint_arch_supported(int arch);
/* An arch from its name ("avx2", ...; "auto": the best one), or -1. */
int mbint_arch_parse(const char *name);

/* Make mbgcm_encrypt / mbgcm_decrypt use |arch| from now on. */
void mbint_force_oneshot_arch(int arch);
/* Give mbgcm_encrypt / mbgcm_decrypt and the incremental API back the arch they choose by
   themselves (MBGCM_ARCH, else auto), undoing mbint_force_oneshot_arch. Returns that arch,
   or -1 when MBGCM_ARCH names none this CPU has (the calls then return
   MBGCM_ERR_UNSUPPORTED). */
int mbint_oneshot_arch_default(void);
/* 1 when arches |a| and |b| run the same one-shot kernels. */
int mbint_same_oneshot(int a, int b);

/* The arch of the lane kernel a manager created for |arch| runs. */
int mbint_lane_arch(int arch);
/* 1 when managers of arches |a| and |b| run the same lane and short-job kernels. */
int mbint_same_lanes(int a, int b);
/* Jobs of this many bytes or more go single-stream in a manager of |arch| by default
   (UINT64_MAX: never). */
uint64_t mbint_single_min_len(int arch);
/* The longest message the arch's short-job kernel takes (12-byte IV, AAD <= 16) from the ring
   (burst 0) or a burst (1) in the chosen variant's routing, 0 without (or when only GMAC jobs
   go there); longer valid jobs with a 12-byte IV run single-stream. */
uint64_t mbint_short_max_len(int arch, int burst);
/* A burst gives short jobs to that kernel only with this many jobs whose first two share a
   key (0: always). */
unsigned mbint_burst_short_min_jobs(int arch);
/* 1 when the ring's GMAC jobs leave the arch's short-job kernel with its messages, and a
   turned-away burst's with more than 16 bytes of AAD: they run single-stream too (struct
   mbgcmi_arch.gmac_single). */
int mbint_gmac_single(int arch);
void mbint_set_single_min_len(mbgcm_mgr *m, uint64_t len);

#endif /* MBGCM_BENCH_ENGINE_MBGCM_INTERNAL_H */
