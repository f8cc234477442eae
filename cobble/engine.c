/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.c — runs of Cobblestone chunks through job managers, and the worker pool.
 *
 * A run (struct mbgcmi_cob_run) is a sequence of consecutive chunks at fixed strides; one
 * manager takes it as bursts of MBGCMI_COB_BURST same-key jobs (mbgcm_submit_burst): four
 * chunks per lane group, or the manager's wide single-stream kernel for chunks at or above
 * its threshold (16 KiB chunks on avx512). The per-chunk nonce is computed into the burst's
 * IV array; each tag sits right after its chunk's ciphertext.
 *
 * The pool splits a run into contiguous pieces, one per worker: worker 0 is the calling
 * thread, workers 1..n-1 are pthreads created once (per call for the one-shot functions, per
 * object for the streaming ones and the reader) and woken per run. Each worker owns its
 * manager; the run description and the per-worker results are handed over under the pool
 * mutex, so no mutable state is shared while chunks are processed.
 */
#include <pthread.h>

#include "cobble_internal.h"

int mbgcmi_cob_run_mgr(mbgcm_mgr *m, const struct mbgcmi_cob_keys *k,
                       const struct mbgcmi_cob_run *r, size_t first, size_t count, size_t *bad)
{
    mbgcm_job jobs[MBGCMI_COB_BURST];
    uint8_t ivs[MBGCMI_COB_BURST][12];
    const int enc = r->dir == MBGCM_ENCRYPT;
    for (size_t done = 0; done < count;) {
        const unsigned nb =
            (unsigned)(count - done < MBGCMI_COB_BURST ? count - done : MBGCMI_COB_BURST);
        memset(jobs, 0, nb * sizeof jobs[0]);
        for (unsigned j = 0; j < nb; j++) {
            const size_t i = first + done + j;
            const size_t len = i + 1 == r->n ? r->last_len : MBGCMI_COB_CHUNK;
            const uint8_t *src = mbgcmi_cob_at(r->src, i * r->src_stride);
            uint8_t *dst = mbgcmi_cob_atw(r->dst, i * r->dst_stride);
            mbgcmi_cob_nonce(k->nonce, r->index0 + i, ivs[j]);
            mbgcm_job *job = &jobs[j];
            job->key = &k->key;
            job->dir = r->dir;
            job->iv = ivs[j];
            job->iv_len = 12;
            job->src = len ? src : NULL;
            job->dst = len ? dst : NULL;
            job->len = len;
            job->tag =
                enc ? mbgcmi_cob_atw(dst, len) : (uint8_t *)(uintptr_t)mbgcmi_cob_at(src, len);
            job->tag_len = MBGCMI_COB_TAG;
        }
        const unsigned ok = mbgcm_submit_burst(m, jobs, nb);
        if (ok != nb) {
            for (unsigned j = 0; j < nb; j++) {
                if (jobs[j].status != MBGCM_OK) {
                    *bad = first + done + j;
                    return jobs[j].status;
                }
            }
            /* a count that does not match the statuses: the manager refused the burst */
            *bad = first + done;
            const int le = mbgcm_mgr_last_error(m);
            return le != MBGCM_OK ? le : MBGCM_ERR_INVALID;
        }
        done += nb;
    }
    return MBGCM_OK;
}

/* ---- pool ------------------------------------------------------------------------------------ */

struct worker {
    struct mbgcmi_cob_pool *pool;
    mbgcm_mgr *mgr;
    pthread_t tid;
    unsigned idx;
    int started;
    /* results of the current run, written by the worker, read after the hand-back */
    int status;
    size_t bad;
};

struct mbgcmi_cob_pool {
    size_t size;       /* of this allocation */
    unsigned nworkers; /* 1 + threads started */
    int own_mgr0;      /* worker 0's manager was created here */
    pthread_mutex_t mu;
    pthread_cond_t go;
    pthread_cond_t done;
    int sync_ok;      /* mu/go/done initialised */
    uint64_t gen;     /* run number; a worker runs when it sees a new one */
    unsigned active;  /* workers taking part in the current run */
    unsigned pending; /* helper workers of the current run not finished yet */
    int quit;
    const struct mbgcmi_cob_keys *keys;
    struct mbgcmi_cob_run run;
    struct worker w[];
};

/* Worker |i|'s share of |n| chunks among |a| workers: [lo, hi). */
static void share(size_t n, unsigned a, unsigned i, size_t *lo, size_t *hi)
{
    *lo = (size_t)((unsigned __int128)n * i / a);
    *hi = (size_t)((unsigned __int128)n * (i + 1) / a);
}

static void work(struct worker *w, const struct mbgcmi_cob_keys *k, const struct mbgcmi_cob_run *r,
                 unsigned active)
{
    size_t lo, hi;
    share(r->n, active, w->idx, &lo, &hi);
    w->bad = 0;
    w->status = mbgcmi_cob_run_mgr(w->mgr, k, r, lo, hi - lo, &w->bad);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct mbgcmi_cob_pool *p = w->pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->quit && p->gen == seen) {
            pthread_cond_wait(&p->go, &p->mu);
        }
        if (p->quit) {
            break;
        }
        seen = p->gen;
        if (w->idx >= p->active) {
            continue;
        }
        const struct mbgcmi_cob_keys *k = p->keys;
        const struct mbgcmi_cob_run r = p->run;
        const unsigned active = p->active;
        pthread_mutex_unlock(&p->mu);
        work(w, k, &r, active);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int mbgcmi_cob_opts_ok(const mbgcm_cobble_opts *opts)
{
    return opts == NULL || opts->threads <= MBGCMI_COB_MAXTHREADS;
}

int mbgcmi_cob_pool_new(struct mbgcmi_cob_pool **out, const mbgcm_cobble_opts *opts,
                        uint64_t max_chunks)
{
    *out = NULL;
    if (!mbgcmi_cob_opts_ok(opts)) {
        return MBGCM_ERR_INVALID;
    }
    unsigned n = opts != NULL && opts->threads > 1 ? opts->threads : 1;
    /* no thread that could never get its share of MBGCM_COBBLE_THREAD_MIN_CHUNKS */
    if (max_chunks != 0 && max_chunks / MBGCM_COBBLE_THREAD_MIN_CHUNKS < n) {
        n = max_chunks < MBGCM_COBBLE_THREAD_MIN_CHUNKS
                ? 1
                : (unsigned)(max_chunks / MBGCM_COBBLE_THREAD_MIN_CHUNKS);
    }
    const size_t size = sizeof(struct mbgcmi_cob_pool) + n * sizeof(struct worker);
    struct mbgcmi_cob_pool *p = mbgcmi_cob_alloc(size);
    if (p == NULL) {
        return MBGCM_ERR_NOMEM;
    }
    memset(p, 0, size);
    p->size = size;
    mbgcm_config cfg = {0};
    cfg.arch = opts ? opts->arch : NULL;
    cfg.queue_size = 1; /* bursts only: the ring stays empty */
    int st = MBGCM_OK;
    for (unsigned i = 0; i < n && st == MBGCM_OK; i++) {
        p->w[i].pool = p;
        p->w[i].idx = i;
        if (i == 0 && opts != NULL && opts->mgr != NULL) {
            p->w[0].mgr = opts->mgr;
        } else {
            st = mbgcm_mgr_create(&p->w[i].mgr, &cfg);
            p->own_mgr0 |= i == 0;
        }
    }
    p->nworkers = 1;
    if (st == MBGCM_OK && n > 1) {
        if (pthread_mutex_init(&p->mu, NULL) != 0) {
            st = MBGCM_ERR_NOMEM;
        } else if (pthread_cond_init(&p->go, NULL) != 0) {
            pthread_mutex_destroy(&p->mu);
            st = MBGCM_ERR_NOMEM;
        } else if (pthread_cond_init(&p->done, NULL) != 0) {
            pthread_cond_destroy(&p->go);
            pthread_mutex_destroy(&p->mu);
            st = MBGCM_ERR_NOMEM;
        } else {
            p->sync_ok = 1;
        }
        for (unsigned i = 1; i < n && st == MBGCM_OK; i++) {
            if (pthread_create(&p->w[i].tid, NULL, worker_main, &p->w[i]) != 0) {
                st = MBGCM_ERR_NOMEM;
                break;
            }
            p->w[i].started = 1;
            p->nworkers = i + 1;
        }
    }
    if (st != MBGCM_OK) {
        /* managers of workers that never started are freed too */
        p->nworkers = n;
        mbgcmi_cob_pool_free(p);
        return st;
    }
    *out = p;
    return MBGCM_OK;
}

void mbgcmi_cob_pool_free(struct mbgcmi_cob_pool *p)
{
    if (p == NULL) {
        return;
    }
    if (p->sync_ok) {
        pthread_mutex_lock(&p->mu);
        p->quit = 1;
        pthread_cond_broadcast(&p->go);
        pthread_mutex_unlock(&p->mu);
    }
    const unsigned n = p->nworkers;
    for (unsigned i = 0; i < n; i++) {
        if (p->w[i].started) {
            pthread_join(p->w[i].tid, NULL);
        }
        if (i > 0 || p->own_mgr0) {
            mbgcm_mgr_free(p->w[i].mgr);
        }
    }
    if (p->sync_ok) {
        pthread_cond_destroy(&p->done);
        pthread_cond_destroy(&p->go);
        pthread_mutex_destroy(&p->mu);
    }
    const size_t size = p->size;
    mbgcmi_cob_wipe(p, size);
    mbgcmi_cob_free(p, size);
}

int mbgcmi_cob_pool_run(struct mbgcmi_cob_pool *p, const struct mbgcmi_cob_keys *k,
                        const struct mbgcmi_cob_run *r, size_t *bad)
{
    if (r->n == 0) {
        return MBGCM_OK;
    }
    size_t a = r->n / MBGCM_COBBLE_THREAD_MIN_CHUNKS;
    if (a > p->nworkers) {
        a = p->nworkers;
    }
    if (a <= 1) {
        *bad = 0;
        return mbgcmi_cob_run_mgr(p->w[0].mgr, k, r, 0, r->n, bad);
    }
    const unsigned active = (unsigned)a;
    pthread_mutex_lock(&p->mu);
    p->keys = k;
    p->run = *r;
    p->active = active;
    p->pending = active - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);

    work(&p->w[0], k, r, active);

    pthread_mutex_lock(&p->mu);
    while (p->pending != 0) {
        pthread_cond_wait(&p->done, &p->mu);
    }
    p->keys = NULL;
    pthread_mutex_unlock(&p->mu);

    /* the lowest failing chunk wins: workers hold increasing ranges */
    for (unsigned i = 0; i < active; i++) {
        if (p->w[i].status != MBGCM_OK) {
            *bad = p->w[i].bad;
            return p->w[i].status;
        }
    }
    return MBGCM_OK;
}
