/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mgr.c — the job manager: ring, in-order return, when the scheduler must finish jobs (ring
 * full, timeout, flush, burst), bursts, stats. Where and how a job runs is sched.c's.
 *
 * Invariants
 *  - head and tail count the jobs returned and submitted (free-running, slot = count & qmask):
 *    slots head .. tail-1 are the jobs submitted and not returned, in submission order; slot
 *    tail is the one get_next_job hands out. A job that submit runs and returns at once in
 *    an empty ring counts in neither: its slot is handed out again. submit never leaves the
 *    ring full: when tail - head reaches queue_size it completes the oldest job and returns
 *    it. (Two counters, each written by one call, rather than a head and a count that submit
 *    and return both update: one load and store fewer per job.)
 *  - Every valid job goes into a lane or a short-job class at submit (or runs single-stream),
 *    so a job still PENDING is always in a lane or a class (sched.c, short.c). After each submit at
 *    least one lane is free: when the last free lane is taken, every group runs once (each run
 *    finishes at least one lane).
 *  - Lane state is wiped when the manager goes idle (no busy lane) in flush, poll or at the
 *    end of a burst, and at free; not per job.
 */
#include <limits.h>
#include <stdlib.h>

#include "ct.h"
#include "jobs_internal.h"
#include "validate.h"
#if defined(MBGCM_HAVE_NASM) && defined(__x86_64__)
#include "x86.h"
#define MBGCMI_X86_BURST12 1
#else
#define MBGCMI_X86_BURST12 0
#endif

static uint64_t clock_monotonic(void *ctx)
{
    (void)ctx;
    return mbgcmi_mono_ns();
}

/* The clock and m->timeout in its units: |fn| (ns) when given; else, with a timeout, the
   time-stamp counter where it is invariant (its rate calibrated once per process, rounded up, and
   the tick count rounded up: the timeout never ends before flush_timeout_ns of CLOCK_MONOTONIC
   have passed), else CLOCK_MONOTONIC. */
static void clock_setup(mbgcm_mgr *m, mbgcmi_clock_fn fn, void *ctx)
{
    m->clock = fn != NULL ? fn : clock_monotonic;
    m->clock_ctx = ctx;
    m->timeout = m->timeout_ns;
    const uint64_t hz = fn == NULL && m->timeout_ns != 0 ? mbgcmi_tsc_hz() : 0;
    if (hz != 0) {
        const double t = (double)m->timeout_ns * (double)hz / 1e9;
        m->clock = NULL;
        m->timeout = t >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)t + 1;
    }
}

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

int mbgcm_mgr_create(mbgcm_mgr **out, const mbgcm_config *cfg)
{
    if (out == NULL) {
        return MBGCM_ERR_INVALID;
    }
    *out = NULL;
    static const mbgcm_config defaults = {0};
    if (cfg == NULL) {
        cfg = &defaults;
    }
    if ((cfg->mem_alloc == NULL) != (cfg->mem_free == NULL)) {
        return MBGCM_ERR_INVALID;
    }
    const char *name = cfg->arch;
    if (name == NULL || strcmp(name, "auto") == 0) {
        const char *env = getenv("MBGCM_ARCH");
        if (env != NULL && env[0] != '\0') {
            name = env;
        }
    }
    const struct mbgcmi_arch *arch = mbgcmi_arch_parse(name);
    if (!mbgcmi_arch_supported(arch)) {
        return MBGCM_ERR_UNSUPPORTED;
    }
    const unsigned lanes = cfg->lanes ? cfg->lanes : MBGCMI_DEFAULT_LANES;
    if (lanes % MBGCMI_GL != 0 || lanes / MBGCMI_GL < 1 || lanes / MBGCMI_GL > MBGCMI_MAX_GROUPS) {
        return MBGCM_ERR_INVALID;
    }
    const unsigned q = cfg->queue_size ? cfg->queue_size : MBGCMI_DEFAULT_QUEUE;
    if (q > MBGCMI_MAX_QUEUE || (q & (q - 1)) != 0) {
        return MBGCM_ERR_INVALID;
    }
    /* an arch without a lane kernel runs every job single-stream: no lane state */
    const unsigned ngroups = arch->lanes != NULL ? lanes / MBGCMI_GL : 0;
    const size_t off_groups = align64(sizeof(struct mbgcm_mgr));
    const size_t off_ring = off_groups + ngroups * sizeof(struct mbgcmi_group);
    const size_t off_sc = align64(off_ring + (size_t)q * sizeof(mbgcm_job));
    const size_t nsc = arch->short_jobs != NULL ? MBGCMI_SHORT_CLASSES : 0;
    const size_t size = align64(off_sc + nsc * sizeof(struct mbgcmi_short_class));
    uint8_t *mem = cfg->mem_alloc ? cfg->mem_alloc(cfg->mem_ctx, size, 64) : mbgcmi_alloc(size);
    if (mem == NULL) {
        return MBGCM_ERR_NOMEM;
    }
    if (((uintptr_t)mem & 63) != 0) { /* a hook that broke its contract: give it back */
        cfg->mem_free(cfg->mem_ctx, mem, size);
        return MBGCM_ERR_NOMEM;
    }
    memset(mem, 0, size);
    mbgcm_mgr *m = (mbgcm_mgr *)(void *)mem;
    m->mem = mem;
    m->mem_size = size;
    m->mem_free = cfg->mem_free;
    m->mem_ctx = cfg->mem_ctx;
    m->ring = (mbgcm_job *)(void *)(mem + off_ring);
    m->sc = nsc ? (struct mbgcmi_short_class *)(void *)(mem + off_sc) : NULL;
    m->qmask = q - 1;
    m->arch = arch;
    m->timeout_ns = cfg->flush_timeout_ns;
    m->short_ring = lanes > MBGCMI_SHORT_RING ? lanes : MBGCMI_SHORT_RING;
    clock_setup(m, NULL, NULL);
    m->key_ahead_force = -1;
    m->ks_left = MBGCMI_KS_WINDOW;
    mbgcmi_sched_init(m, (struct mbgcmi_group *)(void *)(mem + off_groups), ngroups);
    mbgcmi_mgr_route_update(m);
    *out = m;
    return MBGCM_OK;
}

mbgcm_mgr *mbgcm_mgr_new(const mbgcm_config *cfg)
{
    mbgcm_mgr *m = NULL;
    return mbgcm_mgr_create(&m, cfg) == MBGCM_OK ? m : NULL;
}

void mbgcm_mgr_free(mbgcm_mgr *m)
{
    if (m == NULL) {
        return;
    }
    void *mem = m->mem;
    const size_t size = m->mem_size;
    void (*mem_free)(void *, void *, size_t) = m->mem_free;
    void *mem_ctx = m->mem_ctx;
    /* ring slots may hold pointers and tags of returned jobs; the lanes hold key tables */
    mbgcmi_wipe(mem, size);
    if (mem_free != NULL) {
        mem_free(mem_ctx, mem, size);
    } else {
        mbgcmi_free(mem, size);
    }
}

const char *mbgcm_mgr_arch(const mbgcm_mgr *m)
{
    return m ? m->arch->name : "none";
}

int mbgcm_mgr_last_error(const mbgcm_mgr *m)
{
    return m ? m->last_error : MBGCM_ERR_INVALID;
}

unsigned mbgcm_queue_size(const mbgcm_mgr *m)
{
    return m ? m->tail - m->head : 0;
}

void mbgcmi_mgr_set_clock(mbgcm_mgr *m, mbgcmi_clock_fn fn, void *ctx)
{
    clock_setup(m, fn, ctx);
}

/* The estimate's window is over: the look-ahead on or off by the bits set (struct mbgcm_mgr's
   comment, jobs_internal.h), unless the test hook forces it; the map cleared. */
static __attribute__((noinline, cold)) void ks_window(mbgcm_mgr *m)
{
    unsigned set = 0;
    for (unsigned w = 0; w < MBGCMI_KS_BITS / 64; w++) {
        set += (unsigned)__builtin_popcountll(m->ks_map[w]);
        m->ks_map[w] = 0;
    }
    m->ks_left = MBGCMI_KS_WINDOW;
    if (m->key_ahead_force < 0 && m->arch->ops->whole12_next != NULL) {
        m->key_ahead = set >= MBGCMI_KS_ON ? 1 : set < MBGCMI_KS_OFF ? 0 : m->key_ahead;
    }
}

/* One sampled burst of |n| jobs: the bit of the key of its job ks_j (0..30, one on per
   sample: a period no benchmark's power-of-two pattern divides; the first job when the burst
   is shorter), a multiplicative hash of the address's line number, its top bits */
static inline __attribute__((always_inline)) void ks_sample(mbgcm_mgr *m, const mbgcm_job *jobs,
                                                           unsigned n)
{
    unsigned j = m->ks_j;
    m->ks_j = j == 30 ? 0 : j + 1;
    j = j < n ? j : 0;
    const uint64_t h =
        ((uint64_t)(uintptr_t)jobs[j].key >> 6) * UINT64_C(0x9E3779B97F4A7C15) >> 52;
    _Static_assert(MBGCMI_KS_BITS == 1u << (64 - 52), "the hash's bits");
    m->ks_map[h >> 6] |= UINT64_C(1) << (h & 63);
    if (__builtin_expect(--m->ks_left == 0, 0)) {
        ks_window(m);
    }
}

void mbgcmi_mgr_set_key_ahead(mbgcm_mgr *m, int mode)
{
    m->key_ahead_force = mode < 0 ? -1 : mode != 0;
    m->key_ahead = mode > 0 && m->arch->ops->whole12_next != NULL;
}

int mbgcmi_mgr_key_ahead(const mbgcm_mgr *m)
{
    return m->key_ahead;
}

void mbgcmi_mgr_set_single_min_len(mbgcm_mgr *m, uint64_t len)
{
    m->single_min_len = m->arch->lanes != NULL ? len : 0;
    /* below the threshold only: 0 sends every job single-stream, as before */
    const uint64_t lim = m->arch->short_jobs != NULL ? 16 * MBGCMI_SHORT_MAX_BLOCKS + 1 : 0;
    m->short_lim = m->single_min_len < lim ? m->single_min_len : lim;
    /* an overridden threshold decides alone (tests that send such jobs to the lanes) */
    m->short_msg_lim = m->burst_short_msg_lim = m->burst_short_dec_lim = m->short_lim;
    m->burst_short_min_jobs = 0;
    m->wide_aad_max = m->wide_aad_span = 0;
    mbgcmi_mgr_route_update(m);
}

void mbgcmi_mgr_set_j0_hook(mbgcm_mgr *m, void (*fn)(void *ctx, const mbgcm_job *job,
                                                    uint8_t j0[16]), void *ctx)
{
    m->j0_hook = fn;
    m->j0_ctx = ctx;
    mbgcmi_mgr_route_update(m);
}

/* ---- ring ---------------------------------------------------------------------------------- */

static mbgcm_job *pop_if_done(mbgcm_mgr *m)
{
    const unsigned head = m->head;
    if (head == m->tail) {
        return NULL;
    }
    mbgcm_job *job = &m->ring[head & m->qmask];
    if (job->status == MBGCM_PENDING) {
        return NULL;
    }
    m->head = head + 1;
    return job;
}

/* A valid linear job with a 12-byte IV, run now through the arch's whole12 and completed.
   Returns 1 when its tag failed. */
static inline __attribute__((always_inline)) unsigned
single12_now(mbgcm_mgr *m, const struct mbgcmi_gcm_ops *ops, mbgcm_job *job, uint64_t next)
{
    const int dec = job->dir == MBGCM_DECRYPT;
    mbgcmi_whole12_op *const fn = next != 0 ? ops->whole12_next : ops->whole12;
    int fail = fn(mbgcmi_key_c(job->key), job->iv, job->aad, job->aad_len, job->src, job->len,
                  job->dst, job->tag, job->tag_len | (size_t)dec << 8 | next);
    MBGCMI_DECLASSIFY(&fail, sizeof fail); /* the authentication outcome is public */
    mbgcmi_complete(m, job, fail ? MBGCM_ERR_AUTH : MBGCM_OK);
    return fail != 0;
}

/* 1 when |job| is valid, linear and has a 12-byte IV: what whole12 takes (the one-pass checks
   of jobs/validate.h, with the API's limits). */
static inline __attribute__((always_inline)) int linear12_valid(const mbgcm_job *job)
{
    return job->iv_len == 12 && ((uintptr_t)job->src_sgl | (uintptr_t)job->dst_sgl) == 0 &&
           mbgcmi_job12_valid(job, MBGCMI_MAX_TEXT_LEN, MBGCMI_MAX_AAD_LEN);
}

/* 1 when |job| (not a valid short job, or the manager has no short-job classes) is a valid
   linear job with a 12-byte IV that goes single-stream by its whole work, message and AAD (a
   GMAC job is all AAD; a length sum that wraps is caught by the check), or by its message
   alone from |single_from| (UINT64_MAX: not so), as the scheduler's accept routes it, on an
   arch with a whole12. */
static inline __attribute__((always_inline)) int
single12_ok(const mbgcm_mgr *m, const mbgcm_job *job, uint64_t single_from)
{
    const uint64_t len = job->len, aad = job->aad_len;
    return (len + aad >= m->single_min_len || len >= single_from ||
            mbgcmi_wide_aad_whole12(m->wide_aad_max, m->wide_aad_span, len, aad)) &&
           linear12_valid(job);
}

/* ---- ring API -------------------------------------------------------------------------------- */

mbgcm_job *mbgcm_get_next_job(mbgcm_mgr *m)
{
    return m ? &m->ring[m->tail & m->qmask] : NULL;
}

/* Everything mbgcm_submit_job does besides its quick path: the job at ring slot |tail|, the
   tail already advanced. Out of line, so the quick path needs no frame of its own. */
static __attribute__((noinline)) mbgcm_job *submit_routed(mbgcm_mgr *m, mbgcm_job *job,
                                                          unsigned tail)
{
    const uint64_t now = m->timeout ? mbgcmi_now(m) : 0;
    unsigned cls;
    uint32_t shape;
    if (m->sc != NULL && m->j0_hook == NULL &&
        mbgcmi_short_fast(job, m->short_lim, m->short_msg_lim, &cls, &shape)) {
        /* the common short job: checked in one pass, straight to its class */
        m->jobs++;
        m->bytes += job->len;
        mbgcmi_short_add(m, job, cls, shape, now, m->short_ring, MBGCMI_RUN_FULL);
    } else if (m->arch->ops->whole12 != NULL && m->j0_hook == NULL &&
               single12_ok(m, job,
                           m->short_msg_lim < m->short_lim ? m->short_msg_lim : UINT64_MAX)) {
        /* the common single-stream job: checked once, straight to whole12 (accept would check
           it again and go through the general driver); where the arch sets a short-job limit
           for the ring, a valid job it turns away goes here too */
        m->jobs++;
        m->bytes += job->len;
        m->single++;
        single12_now(m, m->arch->ops, job, 0);
    } else {
        mbgcmi_sched_accept(m, job, now, MBGCMI_RUN_FULL);
    }
    if (m->timeout) {
        mbgcmi_sched_expire(m, now);
    }
    if (tail + 1 - m->head > m->qmask) { /* ring full: make room by completing the oldest */
        mbgcmi_sched_finish(m, &m->ring[m->head & m->qmask], MBGCMI_RUN_RING_FULL);
    }
    return pop_if_done(m);
}

void mbgcmi_mgr_route_update(mbgcm_mgr *m)
{
    uint64_t from = UINT64_MAX;
    if (m->arch->ops->whole12 != NULL && m->j0_hook == NULL) {
        /* single12_ok's rule by the message alone: from the arch's ring limit where it is
           below the short-job limit, else from the single-stream threshold (len + aad_len
           >= len); never a job the short-job classes would take first */
        from = m->short_msg_lim < m->short_lim ? m->short_msg_lim : m->single_min_len;
        if (m->sc != NULL && from < m->short_msg_lim) {
            from = m->short_msg_lim;
        }
    }
    m->ring12_from = from;
}

mbgcm_job *mbgcm_submit_job(mbgcm_mgr *m)
{
    if (m == NULL) {
        return NULL;
    }
    const unsigned tail = m->tail;
    mbgcm_job *job = &m->ring[tail & m->qmask];
    /* The quick path: a job submit_routed would send straight to whole12 (ring12_from),
       submitted to an empty ring. Nothing is pending then, in the lanes or the short-job
       classes (burst jobs never stay), so there is no timeout to check and no room to make:
       the job runs, completes and comes back as the oldest. The ring stays empty and its
       counters where they were: the next mbgcm_get_next_job hands out this slot again (a
       returned job stays valid until then), so a ring run one job at a time writes one slot,
       which stays in the L1 cache, rather than walking all queue_size of them. */
    if (tail == m->head && (uint64_t)job->len >= m->ring12_from && linear12_valid(job)) {
        m->jobs++;
        m->bytes += job->len;
        m->single++;
        single12_now(m, m->arch->ops, job, 0);
        return job;
    }
    m->tail = tail + 1;
    return submit_routed(m, job, tail);
}

mbgcm_job *mbgcm_get_completed_job(mbgcm_mgr *m)
{
    return m ? pop_if_done(m) : NULL;
}

mbgcm_job *mbgcm_flush_job(mbgcm_mgr *m)
{
    if (m == NULL) {
        return NULL;
    }
    if (m->head == m->tail) {
        mbgcmi_sched_wipe_idle(m);
        return NULL;
    }
    mbgcmi_sched_finish(m, &m->ring[m->head & m->qmask], MBGCMI_RUN_FLUSH);
    mbgcm_job *job = pop_if_done(m);
    mbgcmi_sched_wipe_idle(m);
    return job;
}

mbgcm_job *mbgcm_mgr_poll(mbgcm_mgr *m)
{
    if (m == NULL) {
        return NULL;
    }
    if (m->timeout) {
        mbgcmi_sched_expire(m, mbgcmi_now(m));
    }
    mbgcmi_sched_wipe_idle(m);
    return pop_if_done(m);
}

/* ---- burst ----------------------------------------------------------------------------------- */

/* A burst's short jobs, added class by class: the class being filled lives in locals (its
   count, whether every job has its key), so consecutive jobs of one shape — the common burst —
   cost two stores each and no read-modify-write of the manager. */
struct burst_fill {
    struct mbgcmi_short_class *c; /* the class being filled, or NULL */
    unsigned cls, n, n0, same;    /* its index, jobs now, jobs when taken up, one key so far */
    uint64_t touched;             /* classes this burst added to */
    /* the last job classified (its class is cls while c is not NULL: a class is taken only
       after a job was classified) and its shape word */
    struct mbgcmi_shape_memo memo;
    uint32_t shape;
    /* single-stream jobs met between short ones: taken on the spot when the arch has a whole12
       (single12), by single12_ok with this message limit (see fill_single12) */
    int single12;
    uint64_t single_from;
};

/* A burst job's message limit for the short-job kernel: its direction's */
static inline __attribute__((always_inline)) uint64_t burst_mlim(const mbgcm_job *job,
                                                                 uint64_t mlim_enc,
                                                                 uint64_t mlim_dec)
{
    return job->dir == MBGCM_DECRYPT ? mlim_dec : mlim_enc;
}

static void fill_put(mbgcm_mgr *m, struct burst_fill *f)
{
    if (f->c != NULL) {
        f->c->n = f->n;
        f->c->same = f->same;
        m->staged += f->n - f->n0;
        f->c = NULL;
    }
}

static void fill_take(mbgcm_mgr *m, struct burst_fill *f, unsigned cls, const mbgcm_job *job,
                      uint64_t now)
{
    fill_put(m, f);
    struct mbgcmi_short_class *c = &m->sc[cls];
    if (c->n == 0) {
        c->key = job->key;
        c->same = 1;
        c->t_first = now;
        m->sc_used |= UINT64_C(1) << cls;
    }
    f->c = c;
    f->cls = cls;
    f->n = f->n0 = c->n;
    f->same = c->same;
    f->touched |= UINT64_C(1) << cls;
}

/* A valid linear burst job with a 12-byte IV, single-stream: gathered for the arch's pipelined
   call where its ops say that pays, else run now through whole12 (or whole12_next naming
   |next|, a later job's key in its form; 0: none) and completed. Returns how many jobs failed
   their tag: 1 when it ran and failed, or those of the pipelined call when gathering it filled
   the list and ran it. */
static inline __attribute__((always_inline)) unsigned
burst_single12(mbgcm_mgr *m, const struct mbgcmi_gcm_ops *ops, mbgcm_job *job, uint64_t next)
{
    if (mbgcmi_jobs12_takes(ops, job->dir == MBGCM_DECRYPT, job->len, job->aad_len)) {
        m->defer[m->ndefer++] = job;
        return m->ndefer == MBGCMI_JOBS12_MAX ? mbgcmi_sched_run_deferred(m) : 0;
    }
    return single12_now(m, ops, job, next);
}

/* One job fill_short met that is too long for the short-job kernel: when single12_ok takes it
   (with the burst's |single_from|), single-stream (burst_single12) and counted; returns how
   many jobs failed their tag (it, or those of the pipelined call its gathering ran: any
   number), or FILL_NOT_TAKEN (nothing done). Out of line, so that the short-job loop keeps
   its registers. */
#define FILL_NOT_TAKEN UINT_MAX
static __attribute__((noinline)) unsigned fill_single_one(mbgcm_mgr *m, mbgcm_job *job,
                                                          uint64_t single_from)
{
    if (!single12_ok(m, job, single_from)) {
        return FILL_NOT_TAKEN;
    }
    m->single++;
    return burst_single12(m, m->arch->ops, job, 0);
}

/* Take jobs[i..) into short-job classes while they are valid short jobs shorter than
   |short_lim| bytes of hashed rows and |mlim_enc| / |mlim_dec| of message (the burst's limits,
   by direction: burst_mlim), a longer job between them single-stream (fill_single_one);
   returns the index of the first job it does not take (or n). Kept small so that the fill
   state stays in registers. */
static unsigned fill_short(mbgcm_mgr *m, mbgcm_job *jobs, unsigned i, unsigned n,
                           uint64_t short_lim, uint64_t mlim_enc, uint64_t mlim_dec,
                           struct burst_fill *f, uint64_t now, uint64_t *bytes,
                           unsigned *failed)
{
    uint64_t b = 0;
    /* the class being filled in locals, back in *f around the calls that read it */
    struct mbgcmi_short_class *c = f->c;
    unsigned fcls = f->cls, k = f->n, same = f->same;
    mbgcm_job *job = jobs + i;
    mbgcm_job *const end = jobs + n;
    const mbgcm_job *after_single = NULL; /* the job after the last fill_single_one took */
    for (; job != end; job++) {
        /* a job of the shape before (its class is c's) needs only the checks that shape leaves
           open; any other is checked and classified in full */
        if (__builtin_expect(c == NULL || !mbgcmi_shape_memo_same(&f->memo, job) ||
                                 !mbgcmi_job12_valid_as(job, f->memo.rounds),
                             0)) {
            const uint64_t mlim = burst_mlim(job, mlim_enc, mlim_dec);
            if (!mbgcmi_short_valid(job, mlim)) {
                /* A message too long for the short-job kernel between short jobs (a burst
                   of mixed sizes): single-stream here, without leaving the loop. The second of
                   two such jobs in a row ends the loop: fill_single12 takes a run of them for
                   less. */
                if (job->len >= mlim && f->single12 && job != after_single) {
                    const unsigned r = fill_single_one(m, job, f->single_from);
                    if (r != FILL_NOT_TAKEN) {
                        b += job->len;
                        *failed += r;
                        after_single = job + 1;
                        continue;
                    }
                }
                break;
            }
            unsigned ncls;
            uint32_t nshape;
            if (!mbgcmi_short_classify(job->len, job->aad_len, job->tag_len, (unsigned)job->dir,
                                       mbgcmi_key_c(job->key)->rounds, short_lim, mlim, &ncls,
                                       &nshape)) {
                break; /* (the memo keeps the last classification that succeeded) */
            }
            mbgcmi_shape_memo_set(&f->memo, job);
            f->shape = nshape;
            if (c == NULL || ncls != fcls) {
                f->n = k;
                f->same = same;
                fill_take(m, f, ncls, job, now);
                c = f->c;
                fcls = ncls;
                k = f->n;
                same = f->same;
            }
        }
        const unsigned cls = fcls;
        const uint32_t shape = f->shape;
        b += job->len;
        same &= job->key == c->key;
        /* The kernel runs when the class fills or the burst ends, so these lines load while
           the rest of the burst is checked: with keys and buffers beyond the caches (a gateway
           with thousands of SAs) each group of four otherwise waited on its misses in turn.
           The key's first line (the check above read the one with its rounds), the IV, the
           AAD and the message's first and middle lines: prefetching every line of the message
           and the tag gained more there but cost 3-7% with everything in the caches
           (docs/perf.md). A prefetch never faults: a NULL AAD or a GMAC job's NULL src is
           fine. */
        __builtin_prefetch(job->key);
        __builtin_prefetch(job->iv);
        __builtin_prefetch(job->aad);
        __builtin_prefetch(job->src);
        __builtin_prefetch((const void *)((uintptr_t)job->src + (job->len >> 1)));
        c->job[k] = job;
        c->shape[k] = shape;
        if (__builtin_expect(++k == MBGCMI_SHORT_MAX_JOBS, 0)) {
            f->n = k;
            f->same = same;
            fill_put(m, f);
            *failed += mbgcmi_short_run(m, cls, MBGCMI_RUN_BURST);
            c = NULL;
        }
    }
    f->n = k;
    f->same = same;
    *bytes += b;
    return (unsigned)(job - jobs);
}

/* 1 when the lengths of |job| are those of a short job the burst's fill_short could take
   (mbgcmi_short_fast with the burst's limits): a message under its direction's limit
   (|mlim_enc|, |mlim_dec|) and |short_lim| with at most MBGCMI_SHORT_MAX_AAD bytes of AAD, or
   no message and AAD of at most MBGCMI_SHORT_MAX_AAD or under |short_lim| bytes (a GMAC job).
   Lengths only: a job it names may still fail the checks. */
static inline __attribute__((always_inline)) int may_be_short(const mbgcm_job *job,
                                                              uint64_t short_lim,
                                                              uint64_t mlim_enc,
                                                              uint64_t mlim_dec)
{
    const uint64_t len = job->len, aad = job->aad_len;
    if (len >= burst_mlim(job, mlim_enc, mlim_dec)) {
        return 0;
    }
    return len != 0 ? aad <= MBGCMI_SHORT_MAX_AAD && len < short_lim
                    : aad <= MBGCMI_SHORT_MAX_AAD || aad < short_lim;
}

/* mbgcmi_x86_burst12's window of lengths (without it, the same fields for burst12_window) */
#if MBGCMI_X86_BURST12
typedef struct mbgcmi_x86_burst12 burst12_t;
/* Where the lengths a burst sends straight to whole12 end, by direction: below those the
   pipelined call takes (mbgcmi_jobs12_takes; a GMAC job never comes here: from >= 1) and
   within the longest message (mbgcmi_x86_burst12 relies on it). */
static uint64_t burst12_below(const struct mbgcmi_gcm_ops *ops, int dec)
{
    const size_t lo = dec ? ops->jobs12_dec_from : ops->jobs12_enc_from;
    const size_t hi = dec ? ops->jobs12_dec_below : ops->jobs12_enc_below;
    return ops->jobs12 != NULL && lo < hi && lo <= MBGCMI_MAX_TEXT_LEN ? lo
                                                                       : MBGCMI_MAX_TEXT_LEN + 1;
}
/* Where the lengths that mbgcmi_x86_burst12 gathers for the pipelined call end, by direction:
   from |below| (burst12_below's) up to this (0: none) */
static uint64_t burst12_dbelow(const struct mbgcmi_gcm_ops *ops, int dec, uint64_t below)
{
    const size_t hi = dec ? ops->jobs12_dec_below : ops->jobs12_enc_below;
    if (below > MBGCMI_MAX_TEXT_LEN) {
        return 0;
    }
    return hi < MBGCMI_MAX_TEXT_LEN + 1 ? hi : MBGCMI_MAX_TEXT_LEN + 1;
}
#else
typedef struct {
    uint64_t from, below[2];
} burst12_t;
#endif

/* 1 when mbgcmi_x86_burst12 with window |b| may take |job| by its lengths (its checks
   aside) */
static inline int burst12_window(const burst12_t *b, const mbgcm_job *job)
{
    const uint64_t len = job->len;
    return len >= b->from && len < b->below[job->dir == MBGCM_DECRYPT];
}

/* Take jobs[i..) single-stream (burst_single12) while single12_ok says so, with single_from
   the burst's short-job limit where the arch sets one (below short_lim; else UINT64_MAX);
   returns the index of the first job it does not take (or n). jobs[i] itself is known not to
   be a valid short job; a later job that may be one (may_be_short, with the burst's limits;
   |mlim_enc| = |mlim_dec| = 0: no short-job kernel) ends the run, so that the short-job
   classes get it first. With |ahead| each job names the key of the job three on to whole12
   (this job's own key at the burst's end: none), whatever that job turns out to be; a
   constant in each of fill_single12's two copies, so that the copy without pays nothing.
   With |win| (not NULL) a later job in mbgcmi_x86_burst12's window ends the run too, so that
   the caller's asm loop takes it. */
static inline __attribute__((always_inline)) unsigned
single12_run(mbgcm_mgr *m, const struct mbgcmi_gcm_ops *ops, mbgcm_job *jobs, unsigned i,
             unsigned n, uint64_t mlim_enc, uint64_t mlim_dec, uint64_t short_lim,
             uint64_t single_from, uint64_t *bytes, unsigned *failed, const int ahead,
             const burst12_t *win)
{
    const unsigned first = i;
    uint64_t b = 0;
    unsigned f = 0;
    for (; i < n; i++) {
        mbgcm_job *job = &jobs[i];
        if ((i != first && (may_be_short(job, short_lim, mlim_enc, mlim_dec) ||
                            (win != NULL && burst12_window(win, job)))) ||
            !single12_ok(m, job, single_from)) {
            break;
        }
        b += job->len;
        f += burst_single12(m, ops, job,
                            ahead ? (uint64_t)(uintptr_t)jobs[i + 3 < n ? i + 3 : i].key
                                        << MBGCMI_W12_NEXT_SHIFT
                                  : 0);
    }
    m->single += i - first;
    *bytes += b;
    *failed += f;
    return i;
}
/* One loop for a run of such jobs, out of line so that the short-job loop keeps its
   registers; two copies, without the key look-ahead and with it (struct mbgcm_mgr.key_ahead
   chooses at the call): as one function taking both, the compiler spilled more around the
   call and the copy without cost burst jobs of 160-384 bytes 1-2% (docs/perf.md). */
static __attribute__((noinline)) unsigned
fill_single12(mbgcm_mgr *m, const struct mbgcmi_gcm_ops *ops, mbgcm_job *jobs, unsigned i,
              unsigned n, uint64_t mlim_enc, uint64_t mlim_dec, uint64_t short_lim,
              uint64_t single_from, uint64_t *bytes, unsigned *failed)
{
    return single12_run(m, ops, jobs, i, n, mlim_enc, mlim_dec, short_lim, single_from, bytes,
                        failed, 0, NULL);
}
#if MBGCMI_X86_BURST12
/* The third copy: a run that ends at the next job in mbgcmi_x86_burst12's window |win|, for
   bursts of mixed lengths (the window's test in the plain copy's loop cost jobs it never
   stops, such as 1-2 KiB encrypts for the pipelined call, about 1%). */
static __attribute__((noinline)) unsigned
fill_single12_win(mbgcm_mgr *m, const struct mbgcmi_gcm_ops *ops, mbgcm_job *jobs, unsigned i,
                  unsigned n, uint64_t mlim_enc, uint64_t mlim_dec, uint64_t short_lim,
                  uint64_t single_from, uint64_t *bytes, unsigned *failed, const burst12_t *win)
{
    return single12_run(m, ops, jobs, i, n, mlim_enc, mlim_dec, short_lim, single_from, bytes,
                        failed, 0, win);
}
#endif
static __attribute__((noinline)) unsigned
fill_single12_ahead(mbgcm_mgr *m, const struct mbgcmi_gcm_ops *ops, mbgcm_job *jobs,
                    unsigned i, unsigned n, uint64_t mlim_enc, uint64_t mlim_dec,
                    uint64_t short_lim, uint64_t single_from, uint64_t *bytes, unsigned *failed)
{
    return single12_run(m, ops, jobs, i, n, mlim_enc, mlim_dec, short_lim, single_from, bytes,
                        failed, 1, NULL);
}

unsigned mbgcm_submit_burst(mbgcm_mgr *m, mbgcm_job *jobs, unsigned n)
{
    if (m == NULL) {
        return 0;
    }
    if (jobs == NULL && n > 0) {
        m->last_error = MBGCM_ERR_INVALID;
        return 0;
    }
    if (n >= MBGCMI_KS_MIN_JOBS) {
        ks_sample(m, jobs, n);
    }
    const uint64_t now = m->timeout ? mbgcmi_now(m) : 0;
    /* The two common burst jobs skip the general accept: a valid short job goes straight to
       its short-job class (run at the end, or when it fills up); a valid linear single-stream
       job with a 12-byte IV either waits for the pipelined call (where the arch's ops say it
       pays) or runs at once through whole12. Anything else, invalid jobs included, goes
       through the scheduler's accept. */
    const int shortfast = m->sc != NULL && m->j0_hook == NULL;
    const struct mbgcmi_gcm_ops *const ops = m->arch->ops; /* (not reloaded per job) */
    const int single12 = ops->whole12 != NULL;
    unsigned direct = 0, failed = 0;
    uint64_t direct_bytes = 0;
    const unsigned staged0 = m->staged; /* ring jobs waiting in short-job classes */
    struct burst_fill f = {.c = NULL};
    const int short_on = shortfast && mbgcmi_burst_short_on(m, jobs, n);
    /* the message limits of its short jobs, by direction (the arch's crossovers) */
    const uint64_t mlim_enc = !shortfast ? 0 : short_on ? m->burst_short_msg_lim : 1;
    const uint64_t mlim_dec = !shortfast ? 0 : short_on ? m->burst_short_dec_lim : 1;
    const uint64_t short_mlim = mlim_enc < mlim_dec ? mlim_enc : mlim_dec;
    /* A burst the rule turns away keeps only its GMAC jobs on the short-job kernel (message
       limit 1); where the arch runs GMAC jobs single-stream (gmac_single), only those with at
       most MBGCMI_SHORT_MAX_AAD bytes of AAD (the row limit 1: such a job hashes no rows in
       the message's place), and every other valid job with a 12-byte IV goes single-stream. */
    const int gmac_off = shortfast && !short_on && m->arch->gmac_single;
    const uint64_t short_lim = gmac_off ? 1 : m->short_lim;
    /* where the arch sets a short-job limit for bursts, what it leaves goes single-stream */
    const uint64_t single_from = gmac_off                                 ? 0
                                 : shortfast && short_mlim < m->short_lim ? short_mlim
                                                                          : UINT64_MAX;
    f.single12 = single12;
    f.single_from = single_from;
#if MBGCMI_X86_BURST12
    /* The jobs the lines below would run at once through whole12 whatever their place in the
       burst, as a window of lengths: never a short job (at least either direction's short-job
       message limit), single-stream by the message alone (single12_ok: from single_from or
       the single-stream threshold), not one the pipelined call waits for. Those run in
       mbgcmi_x86_burst12's loop (arch/x86/burst_x86.asm), checked the same way; it stops at
       any other job, which the C path below takes (fill_single12's run ends at the next job
       in the window, which goes back to the loop). Not with the key look-ahead
       (whole12_next). */
    int run12 = single12 && m->j0_hook == NULL && !m->key_ahead;
    burst12_t b12 = {.w12 = ops->whole12};
    if (run12) {
        const uint64_t route = single_from < m->single_min_len ? single_from : m->single_min_len;
        uint64_t from = mlim_enc > mlim_dec ? mlim_enc : mlim_dec;
        from = from > route ? from : route;
        b12.from = from > 1 ? from : 1;
        b12.below[0] = burst12_below(ops, 0);
        b12.below[1] = burst12_below(ops, 1);
        run12 = b12.from < b12.below[0] || b12.from < b12.below[1]; /* (else an empty window) */
        b12.dbelow[0] = burst12_dbelow(ops, 0, b12.below[0]);
        b12.dbelow[1] = burst12_dbelow(ops, 1, b12.below[1]);
        b12.defer = m->defer;
    }
#endif
    for (unsigned i = 0; i < n;) {
#if MBGCMI_X86_BURST12
        if (run12) {
            b12.ndefer = m->ndefer;
            mbgcm_job *const stop = mbgcmi_x86_burst12(jobs + i, jobs + n, &b12);
            m->ndefer = (unsigned)b12.ndefer;
            unsigned took = (unsigned)(stop - (jobs + i));
            direct_bytes += b12.bytes;
            if (b12.failed != 0) { /* it ran and failed its tag */
                mbgcmi_complete(m, stop, MBGCM_ERR_AUTH);
                failed++;
                took++;
            }
            direct += took;
            m->single += took;
            if ((i += took) == n) {
                break;
            }
        }
#endif
        if (__builtin_expect(((uintptr_t)jobs[i].src_sgl | (uintptr_t)jobs[i].dst_sgl) != 0,
                             0)) {
            /* a scatter-gather job: neither a short job nor one for whole12 */
            fill_put(m, &f);
            mbgcmi_sched_accept(m, &jobs[i], now, MBGCMI_RUN_BURST);
            i++;
            continue;
        }
        if ((mlim_enc | mlim_dec) != 0) { /* (0: no job of this burst takes that kernel) */
            const unsigned stop =
                fill_short(m, jobs, i, n, short_lim, mlim_enc, mlim_dec, &f, now, &direct_bytes,
                           &failed);
            direct += stop - i;
            if ((i = stop) == n) {
                break;
            }
        }
        /* jobs[i] is not a valid short job; a scatter-gather job is not one whole12 takes
           either (fill_single12 would only turn it away) */
        if (single12 && ((uintptr_t)jobs[i].src_sgl | (uintptr_t)jobs[i].dst_sgl) == 0) {
            unsigned stop;
#if MBGCMI_X86_BURST12
            /* a run with a job in the window just after its first: a burst of mixed lengths */
            if (run12 && i + 1 < n && burst12_window(&b12, &jobs[i + 1])) {
                stop = fill_single12_win(m, ops, jobs, i, n, mlim_enc, mlim_dec, short_lim,
                                         single_from, &direct_bytes, &failed, &b12);
            } else
#endif
            {
                stop = m->key_ahead ? fill_single12_ahead(m, ops, jobs, i, n, mlim_enc,
                                                          mlim_dec, short_lim, single_from,
                                                          &direct_bytes, &failed)
                                    : fill_single12(m, ops, jobs, i, n, mlim_enc, mlim_dec,
                                                    short_lim, single_from, &direct_bytes,
                                                    &failed);
            }
            if (stop != i) {
                direct += stop - i;
                i = stop;
                continue;
            }
        }
        fill_put(m, &f); /* accept may add to the same classes */
        mbgcmi_sched_accept(m, &jobs[i], now, MBGCMI_RUN_BURST);
        i++;
    }
    fill_put(m, &f);
    m->jobs += direct;
    m->bytes += direct_bytes;
    /* the classes this burst filled (ring jobs waiting in them finish too) */
    for (uint64_t u = f.touched & m->sc_used; u != 0; u &= u - 1) {
        failed += mbgcmi_short_run(m, (unsigned)__builtin_ctzll(u), MBGCMI_RUN_BURST);
    }
    failed += mbgcmi_sched_run_deferred(m);
    if (direct == n && staged0 == 0) {
        /* every job took a fast path and completed above, and no ring job shared a run */
        mbgcmi_sched_wipe_idle(m);
        return n - failed;
    }
    unsigned ok = 0;
    for (unsigned i = 0; i < n; i++) {
        if (__builtin_expect(jobs[i].status == MBGCM_PENDING, 0)) {
            mbgcmi_sched_finish(m, &jobs[i], MBGCMI_RUN_BURST);
        }
        ok += jobs[i].status == MBGCM_OK;
    }
    mbgcmi_sched_wipe_idle(m);
    return ok;
}

/* ---- stats ----------------------------------------------------------------------------------- */

int mbgcm_mgr_stats(const mbgcm_mgr *m, mbgcm_stats *out)
{
    if (m == NULL || out == NULL) {
        return MBGCM_ERR_INVALID;
    }
    memset(out, 0, sizeof *out);
    out->jobs = m->jobs;
    out->jobs_invalid = m->jobs_invalid;
    out->auth_failures = m->auth_failures;
    out->bytes = m->bytes;
    out->single_stream = m->single;
    out->lane_single_finish = m->single_finish;
    for (int i = 0; i < 4; i++) {
        out->kernel_calls[i] = m->kernel_calls[i];
    }
    out->runs_lanes_full = m->runs[MBGCMI_RUN_FULL];
    out->runs_timeout = m->runs[MBGCMI_RUN_TIMEOUT];
    out->runs_flush = m->runs[MBGCMI_RUN_FLUSH];
    out->runs_ring_full = m->runs[MBGCMI_RUN_RING_FULL];
    out->runs_burst = m->runs[MBGCMI_RUN_BURST];
    return MBGCM_OK;
}
