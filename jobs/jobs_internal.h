/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jobs_internal.h — the job manager: one struct for the ring, the scheduler and the stats;
 * the one completion function every path uses; test hooks.
 *
 * Files: mgr.c (create/free, the ring API, bursts, stats), sched.c (the scheduler: where a job
 * runs — single-stream, a short-job class or a lane —, lane entry and retirement, running the
 * kernels, expiry, finishing a lone lane single-stream, wiping lane state), sgl.c
 * (scatter-gather jobs), validate.h/.c (argument checks).
 */
#ifndef MBGCM_JOBS_INTERNAL_H
#define MBGCM_JOBS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "arch.h"
#include "cpu.h"
#include "group.h"
#include "key.h"
#include "util.h"
#include "validate.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MBGCMI_DEFAULT_QUEUE 256u
#define MBGCMI_MAX_QUEUE 65536u
/* Lanes when the config says 0 (measured: docs/design.md, "Lanes and ring size defaults"). */
#define MBGCMI_DEFAULT_LANES 4u

typedef uint64_t (*mbgcmi_clock_fn)(void *ctx);

/* Why kernels are run (for the stats). */
enum mbgcmi_run_cause {
    MBGCMI_RUN_FULL = 0,
    MBGCMI_RUN_TIMEOUT,
    MBGCMI_RUN_FLUSH,
    MBGCMI_RUN_RING_FULL,
    MBGCMI_RUN_BURST,
    MBGCMI_RUN_CAUSES
};

/* The scheduler's record of a lane (never read by kernels). */
struct mbgcmi_lane_info {
    mbgcm_job *job;           /* the job in this lane, NULL when free */
    const mbgcm_key *key;     /* key whose tables are in the lane's rows (cache) */
    unsigned npow;            /* how many hash-key powers of that key the rows hold */
    uint64_t t_submit;        /* submit time, for the timeout */
};

/* Short jobs waiting for the short-job kernel, by class: message blocks (0..8) x key size
   (10, 12, 14 rounds) (short.c). */
#define MBGCMI_SHORT_CLASSES ((MBGCMI_SHORT_MAX_BLOCKS + 1) * 3)
/* The ring runs a class once it holds this many jobs (two lane groups, which the kernel
   overlaps), or the manager's lanes when more were configured (docs/design.md, "Short
   jobs"). */
#define MBGCMI_SHORT_RING 8u
struct mbgcmi_short_class {
    mbgcm_job *job[MBGCMI_SHORT_MAX_JOBS];
    uint32_t shape[MBGCMI_SHORT_MAX_JOBS]; /* mbgcmi_short_classify()'s shape of each job */
    const mbgcm_key *key;     /* the first job's key */
    uint64_t t_first;         /* the first (oldest) job's submit time */
    unsigned n;               /* jobs waiting */
    unsigned same;            /* 1 while every job has |key| */
};

/* Keys beyond the caches. A burst's jobs that run at once through whole12 can name the key of
   a later job for the kernel to request while it works (whole12_next): with thousands of keys
   met in random order that halves the time of burst decrypts of 256 bytes to 4 KiB on Zen 5,
   but with the keys in the caches the requests cost those of 160-594 bytes 3-6% (docs/perf.md,
   "twenty-second stop"). So the manager estimates how many keys are in use, by linear
   counting: each burst of MBGCMI_KS_MIN_JOBS jobs or more sets one bit of an MBGCMI_KS_BITS-bit
   map chosen by a hash of one job's key address (a public value; the job's index moves
   from burst to burst, so that bursts of a fixed pattern do not show only the same few
   keys), and after MBGCMI_KS_WINDOW such bursts the bits set turn the look-ahead on
   (MBGCMI_KS_ON or more: about 900 keys in use, 1.2 MB of key tables, beyond a 1 MB L2) or
   off (fewer than MBGCMI_KS_OFF: about 650 keys), and the map starts again. A few
   instructions per burst; 64 keys set at most 64 bits, 16384 keys about 880. */
#define MBGCMI_KS_BITS 4096u
#define MBGCMI_KS_WINDOW 1024u
#define MBGCMI_KS_MIN_JOBS 4u
#define MBGCMI_KS_ON 560u
#define MBGCMI_KS_OFF 448u

struct mbgcm_mgr {
    /* ---- scheduler (sched.c) ---- */
    const struct mbgcmi_arch *arch; /* kernels and thresholds (tests may point it at a copy) */
    uint64_t single_min_len;     /* valid linear jobs this long go single-stream, and a lone
                                    lane with this much left finishes so (the arch's value;
                                    0 when the arch has no lane kernel; test hook) */
    struct mbgcmi_group *g;      /* ngroups groups, 64-byte aligned (none without lanes) */
    unsigned ngroups;
    unsigned busy;               /* busy lanes in total */
    unsigned freemask;           /* bit per lane (4 * group + slot): free */
    unsigned staged;             /* short jobs waiting in classes */
    unsigned dirty;              /* some lane state not wiped since it was used */
    struct mbgcmi_short_class *sc; /* MBGCMI_SHORT_CLASSES classes (none without a kernel) */
    uint64_t sc_used;            /* bit per class holding jobs */
    uint64_t short_lim;          /* jobs shorter than this may take the short-job kernel
                                    (16 * MBGCMI_SHORT_MAX_BLOCKS + 1; the test hook lowers it
                                    with the single-stream threshold) */
    uint64_t short_msg_lim;      /* and ring jobs with a message shorter than this (at most
                                    short_lim: mbgcmi_short_msg_lim) */
    uint64_t burst_short_msg_lim; /* a burst's jobs: shorter than this (at most short_lim:
                                    mbgcmi_burst_short_msg_lim). Where either limit is below
                                    short_lim, longer valid linear jobs with a 12-byte IV run
                                    single-stream */
    uint64_t burst_short_dec_lim; /* the same for a burst's decrypts (at most short_lim:
                                    mbgcmi_burst_short_dec_lim) */
    unsigned burst_short_min_jobs; /* the arch's (struct mbgcmi_arch; 0: the test hook) */
    unsigned short_ring;         /* the ring runs a short-job class once it holds this many
                                    jobs: the configured lanes, at least MBGCMI_SHORT_RING */
    /* 12-byte-IV jobs with more AAD than the short-job kernel takes that go single-stream
       (mbgcmi_wide_aad_whole12: the ops' limits; zero with the threshold test hook) */
    uint64_t wide_aad_max, wide_aad_span;
    /* ring jobs with a message this long that the routing sends to whole12 by the message
       alone (mbgcmi_mgr_route_update); UINT64_MAX: none */
    uint64_t ring12_from;
    struct mbgcmi_lane_info info[MBGCMI_MAX_GROUPS * MBGCMI_GL];
    /* test hook: may rewrite J0 when a job enters a lane (counter-wrap tests) */
    void (*j0_hook)(void *ctx, const mbgcm_job *job, uint8_t j0[16]);
    void *j0_ctx;
    /* ---- ring (mgr.c) ---- */
    mbgcm_job *ring;             /* queue_size slots */
    unsigned qmask;              /* queue_size - 1 */
    unsigned head;               /* jobs returned, free-running: the oldest not returned is
                                    ring[head & qmask] */
    unsigned tail;               /* jobs submitted, free-running: tail - head are waiting and
                                    ring[tail & qmask] is the next one handed out */
    int last_error;
    uint64_t timeout_ns;         /* flush_timeout_ns as configured; 0: no timeout */
    uint64_t timeout;            /* the same in the clock's units (0: no timeout) */
    mbgcmi_clock_fn clock;       /* NULL: the time-stamp counter (mbgcmi_now); else a monotonic
                                    clock in ns (injectable for tests) */
    void *clock_ctx;
    /* burst: single-stream jobs with 12-byte IVs gathered for one pipelined kernel call */
    mbgcm_job *defer[MBGCMI_JOBS12_MAX];
    unsigned ndefer;
    /* burst: 1 while its jobs that run at once through whole12 name the key three jobs on
       (struct mbgcmi_gcm_ops.whole12_next; ks_window in mgr.c decides, or the test hook) */
    int key_ahead;
    int key_ahead_force;         /* -1: as the estimate says; 0 / 1: off / on (test hook) */
    unsigned ks_left;            /* sampled bursts left in the window */
    unsigned ks_j;               /* the job the next sampled burst shows (ks_sample) */
    /* ---- stats ---- */
    uint64_t jobs, jobs_invalid, bytes, single, auth_failures, single_finish;
    uint64_t kernel_calls[MBGCMI_GL];     /* by busy lanes of the group: 1..4 */
    uint64_t runs[MBGCMI_RUN_CAUSES];
    /* keys in use, estimated (ks_sample in mgr.c): a bit per hash of a sampled key's address */
    uint64_t ks_map[MBGCMI_KS_BITS / 64];
    /* ---- memory ---- */
    void *mem;                   /* the one allocation holding all of the above */
    size_t mem_size;
    void (*mem_free)(void *ctx, void *p, size_t size); /* the config's hook, or NULL */
    void *mem_ctx;
};

/* Zero a job's whole output: dst, or every destination segment (sched.c). Out of line and
   cold: the completion below is on every job's path, its failure branch almost never. */
__attribute__((cold, noinline)) void mbgcmi_job_wipe_dst(const mbgcm_job *job);

/* The one way a job completes, for every outcome and every path: MBGCM_OK; MBGCM_ERR_AUTH
   (the output is zeroed first: no unauthenticated plaintext is released; counted); or an
   argument error (counted). */
/* The manager's time, in the units of m->timeout: time-stamp counter ticks (a read costs about
   a third of clock_gettime's on the cores measured, and submit reads it for every job when a
   timeout is set), or the injected clock's ns. */
static inline uint64_t mbgcmi_now(const mbgcm_mgr *m)
{
    return m->clock == NULL ? mbgcmi_tsc() : m->clock(m->clock_ctx);
}

static inline void mbgcmi_complete(mbgcm_mgr *m, mbgcm_job *job, int status)
{
    if (__builtin_expect(status != MBGCM_OK, 0)) {
        if (status == MBGCM_ERR_AUTH) {
            mbgcmi_job_wipe_dst(job);
            m->auth_failures++;
        } else {
            m->jobs_invalid++;
        }
    }
    job->status = status;
}

/* ---- scheduler (sched.c) ---- */
/* Set up the scheduler of |m| for m->arch over |ngroups| 64-byte aligned groups. */
void mbgcmi_sched_init(mbgcm_mgr *m, struct mbgcmi_group *groups, unsigned ngroups);
/* Run whatever holds pending job |job| until it is complete (no-op when it is not pending). */
void mbgcmi_sched_finish(mbgcm_mgr *m, const mbgcm_job *job, enum mbgcmi_run_cause why);
/* Complete every pending job that has waited m->timeout or longer at time |now|. */
void mbgcmi_sched_expire(mbgcm_mgr *m, uint64_t now);
/* Run the burst jobs gathered in m->defer (one pipelined call) and complete them. */
unsigned mbgcmi_sched_run_deferred(mbgcm_mgr *m); /* returns how many failed their tag */
/* Wipe all lane state if nothing is pending in it and it was used since the last wipe. */
void mbgcmi_sched_wipe_idle(mbgcm_mgr *m);
/* Wipe all lane state and forget every lane's key (free). */
void mbgcmi_sched_wipe_all(mbgcm_mgr *m);

/* Whether a burst of |n| jobs at |jobs| gives its short jobs to the short-job kernel: at least
   m->burst_short_min_jobs jobs (2 or more) whose first two point to the same key, or always
   where that is 0. Otherwise its short-job limit is one byte: only GMAC jobs take the kernel
   (the key pointers are public; no key byte is read). */
static inline int mbgcmi_burst_short_on(const mbgcm_mgr *m, const mbgcm_job *jobs, unsigned n)
{
    const unsigned min = m->burst_short_min_jobs;
    return min == 0 || (n >= min && jobs[0].key == jobs[1].key);
}

/* The steps accept() composes, for kbench (per-job C-path cycles) and tests. */
/* Whether the short-job kernel takes validated job |job| (12-byte IV, linear, a short job under
   m->short_lim bytes of hashed rows and m->short_msg_lim of message: mbgcmi_short_classify),
   with its class and shape. */
static inline int mbgcmi_sched_short_ok(const mbgcm_mgr *m, const mbgcm_job *job,
                                        unsigned *cls, uint32_t *shape)
{
    /* with the J0 test hook set, every job takes the lane path, where the hook applies */
    return m->sc != NULL && m->j0_hook == NULL && job->iv_len == 12 && job->src_sgl == NULL &&
           job->dst_sgl == NULL &&
           mbgcmi_short_classify(job->len, job->aad_len, job->tag_len, (unsigned)job->dir,
                                 mbgcmi_key_c(job->key)->rounds, m->short_lim, m->short_msg_lim,
                                 cls, shape);
}
/* Run class |cls| (holding at least one job) and complete its jobs (short.c). Returns how many
   failed their tag. */
unsigned mbgcmi_short_run(mbgcm_mgr *m, unsigned cls, enum mbgcmi_run_cause why);
/* Run every class holding jobs. */
void mbgcmi_short_run_all(mbgcm_mgr *m, enum mbgcmi_run_cause why);
/* Run every class whose oldest job has waited m->timeout or longer at |now|. */
void mbgcmi_short_expire(mbgcm_mgr *m, uint64_t now);
/* Add validated short job |job| (shape |shape|) to class |cls| (status := PENDING); the class
   runs once it holds |run_at| jobs. */
static inline void mbgcmi_short_add(mbgcm_mgr *m, mbgcm_job *job, unsigned cls, uint32_t shape,
                                    uint64_t t_submit, unsigned run_at,
                                    enum mbgcmi_run_cause why)
{
    struct mbgcmi_short_class *c = &m->sc[cls];
    const unsigned i = c->n;
    if (i == 0) {
        c->key = job->key;
        c->same = 1;
        c->t_first = t_submit;
        m->sc_used |= UINT64_C(1) << cls;
    }
    c->same &= job->key == c->key;
    c->job[i] = job;
    c->shape[i] = shape;
    c->n = i + 1;
    m->staged++;
    job->status = MBGCM_PENDING;
    if (i + 1 >= run_at) {
        mbgcmi_short_run(m, cls, why);
    }
}
/* A free lane (4 * group + slot) for a job with |key|, or -1 when every lane is busy: a lane
   whose rows already hold that key, else a free lane in a group whose busy lanes all have the
   key's round count (measured: docs/design.md, "Mixed key sizes"), else the lowest. */
int mbgcmi_sched_free_lane(const mbgcm_mgr *m, const mbgcm_key *key);
/* Put a validated job into free lane |lane|; J0 computed here; status := PENDING. */
void mbgcmi_sched_enter(mbgcm_mgr *m, int lane, mbgcm_job *job, uint64_t t_submit);
/* Run group |gi|'s kernel once (at least one lane finishes) and complete the finished lanes'
   jobs. Returns the mask of those lanes. */
unsigned mbgcmi_sched_run_group(mbgcm_mgr *m, unsigned gi, enum mbgcmi_run_cause why);

/* Run every group's kernel once (each run finishes at least one lane). */
void mbgcmi_sched_run_all(mbgcm_mgr *m, enum mbgcmi_run_cause why);
/* Run a validated job single-stream now (linear: the whole-message driver; scatter-gather: the
   stream) and complete it. */
void mbgcmi_sched_run_single(mbgcm_mgr *m, mbgcm_job *job);

/* Check and run the common scatter-gather job in one walk of its lists (sgl.c): -1 when it is
   not one (nothing done: the general path checks and runs it), else as mbgcmi_sgl_run. */
int mbgcmi_sgl_fast(const struct mbgcmi_arch *a, const mbgcm_job *job);

/* Take one job: validate it (an invalid job completes at once), then run it single-stream,
   stage it or put it into a lane (running the lanes when that took the last free one).
   Inline: it is the per-job path of every submit. */
static inline void mbgcmi_sched_accept(mbgcm_mgr *m, mbgcm_job *job, uint64_t now,
                                       enum mbgcmi_run_cause why)
{
    m->jobs++;
    if (__builtin_expect(((uintptr_t)job->src_sgl | (uintptr_t)job->dst_sgl) != 0, 0)) {
        const int r = mbgcmi_sgl_fast(m->arch, job); /* the common one: checked as it runs */
        if (r >= 0) {
            m->bytes += job->len;
            m->single++;
            mbgcmi_complete(m, job, r ? MBGCM_ERR_AUTH : MBGCM_OK);
            return;
        }
    }
    const int st = mbgcmi_check_job_inline(job);
    if (st != MBGCM_OK) {
        mbgcmi_complete(m, job, st); /* keeps its place in the order, touches no lane */
        return;
    }
    m->bytes += job->len;
    /* the short-job kernel takes what it can (up to 16 blocks); long and scatter-gather jobs
       run single-stream (docs/design.md) */
    unsigned cls;
    uint32_t shape;
    if (mbgcmi_sched_short_ok(m, job, &cls, &shape)) {
        mbgcmi_short_add(m, job, cls, shape, now, m->short_ring, why);
        return;
    }
    /* so do jobs whose whole work, message and AAD, is long (a GMAC job is all AAD), and
       short ones with more AAD than the short-job kernel takes where whole12 is quick for
       them */
    if ((uint64_t)job->len >= m->single_min_len || job->src_sgl != NULL ||
        job->dst_sgl != NULL || (uint64_t)job->len + (uint64_t)job->aad_len >= m->single_min_len ||
        (job->iv_len == 12 && mbgcmi_wide_aad_whole12(m->wide_aad_max, m->wide_aad_span, job->len,
                                                       job->aad_len))) {
        mbgcmi_sched_run_single(m, job);
        return;
    }
    int lane = mbgcmi_sched_free_lane(m, job->key);
    if (lane < 0) { /* not reached while a lane is always free; keep the manager safe anyway */
        mbgcmi_sched_run_all(m, why);
        lane = mbgcmi_sched_free_lane(m, job->key);
    }
    mbgcmi_sched_enter(m, lane, job, now);
    if (m->freemask == 0) { /* that took the last free lane: each run frees at least one */
        mbgcmi_sched_run_all(m, why);
    }
}

/* Run a validated scatter-gather job through the single-stream kernels of |a| (sgl.c).
   Returns 1 when a decrypt's tag failed (the caller completes the job), else 0. */
int mbgcmi_sgl_run(const struct mbgcmi_arch *a, const mbgcm_job *job);

/* ---- test hooks (mgr.c) ---- */
void mbgcmi_mgr_set_clock(mbgcm_mgr *m, mbgcmi_clock_fn fn, void *ctx);
/* Force the burst's key look-ahead (struct mbgcm_mgr.key_ahead) on (1; only where the arch's
   whole12 takes a key: whole12_next) or off (0), or leave it to the estimate (-1: the
   default); mbgcmi_mgr_key_ahead reads it. */
void mbgcmi_mgr_set_key_ahead(mbgcm_mgr *m, int mode);
int mbgcmi_mgr_key_ahead(const mbgcm_mgr *m);
/* Override the single-stream threshold (ignored by arches without a lane kernel). */
void mbgcmi_mgr_set_single_min_len(mbgcm_mgr *m, uint64_t len);
/* Recompute what follows from the routing fields (ring12_from) after any of them, the arch,
   the short-job classes or the J0 hook changed (the manager's setup and hooks call it; tests
   that swap fields in call it too). */
void mbgcmi_mgr_route_update(mbgcm_mgr *m);
/* Called with each job's J0 as it enters a lane; may rewrite it (lane path only, so set the
   single-stream threshold to UINT64_MAX when using it). */
void mbgcmi_mgr_set_j0_hook(mbgcm_mgr *m, void (*fn)(void *ctx, const mbgcm_job *job,
                                                    uint8_t j0[16]), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_JOBS_INTERNAL_H */
