/*
 * jobs_internal.h — the manager internals, for the jobs folder and the tests (clock injection,
 * single-stream threshold).
 */
#ifndef MBGCM_JOBS_INTERNAL_H
#define MBGCM_JOBS_INTERNAL_H

#include "lanes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Job checks: direction, reserved fields, then mbgcmi_check_args. */
int mbgcmi_check_job(const mbgcm_job *job);
/* Run a validated scatter-gather job through the single-stream kernels |ops|; sets its
   status (on a failed tag every destination segment is zeroed). */
void mbgcmi_sgl_job(const struct mbgcmi_gcm_ops *ops, mbgcm_job *job);

typedef uint64_t (*mbgcmi_clock_fn)(void *ctx);

struct mbgcm_mgr {
    struct mbgcmi_lanes lanes;
    mbgcm_job *ring;             /* queue_size slots */
    unsigned qmask;              /* queue_size - 1 */
    unsigned head;               /* oldest job not yet returned */
    unsigned count;              /* jobs submitted and not yet returned */
    int arch;
    int last_error;
    uint64_t timeout_ns;         /* 0: no timeout */
    mbgcmi_clock_fn clock;       /* monotonic ns; injectable for tests */
    void *clock_ctx;
    uint64_t single_min_len;     /* valid jobs with len >= this go single-stream */
    uint64_t jobs, jobs_invalid, bytes, single;
    /* burst: single-stream jobs with 12-byte IVs gathered for one pipelined kernel call */
    mbgcm_job *defer[MBGCMI_JOBS12_MAX];
    unsigned ndefer;
    void *mem;                   /* the one allocation holding all of the above */
    size_t mem_size;
    void (*mem_free)(void *ctx, void *p, size_t size); /* the config's hook, or NULL */
    void *mem_ctx;
};

/* Test hooks. */
void mbgcmi_mgr_set_clock(mbgcm_mgr *m, mbgcmi_clock_fn fn, void *ctx);
void mbgcmi_mgr_set_single_min_len(mbgcm_mgr *m, uint64_t len);
/* Called with each job's J0 as it enters a lane; may rewrite it (lane path only, so set the
   single-stream threshold to UINT64_MAX when using it). */
void mbgcmi_mgr_set_j0_hook(mbgcm_mgr *m, void (*fn)(void *ctx, const mbgcm_job *job,
                                                    uint8_t j0[16]), void *ctx);
/* Default lanes for an arch (measured; see docs/design.md). */
unsigned mbgcmi_default_lanes(int arch);

#define MBGCMI_DEFAULT_QUEUE 256u
#define MBGCMI_MAX_QUEUE 65536u

#ifdef __cplusplus
}
#endif

#endif
