/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm_pmd_vec.c — crypto_mbgcm without rte_crypto_op: the synchronous CPU-crypto API
 * (sym_cpu_process, RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO) and the raw data-path API
 * (RTE_CRYPTODEV_FF_SYM_RAW_DP). Both describe a message as a scatter-gather list of
 * rte_crypto_vec with head/tail offsets, an IV, a digest and (AEAD) an AAD pointer.
 *
 * An element becomes one mbgcm_job: a range inside one vector entry as a linear job (so that
 * short jobs share lanes), a range over several entries as a segment list (run single-stream
 * by mbgcm), more than MBGCM_MAX_SEGS pieces through mbgcm's incremental calls, and an AES-GMAC
 * element as a job with len 0 and the range as its AAD (gathered first when it spans entries).
 *
 * CPU crypto takes no queue pair and may be called from any lcore: each lcore gets its own
 * manager (struct mbgcm_pmd_lcore, created by its first call, on its NUMA socket); a vector
 * goes through mbgcm_submit_burst in chunks of MBGCM_PMD_BATCH jobs. A thread without an lcore
 * id (rte_lcore_id() == LCORE_ID_ANY) has no manager of its own and uses mbgcm's one-shot
 * calls, which share no state (rte_thread_register gives such a thread an lcore id).
 *
 * The raw data path uses the queue pair's manager, slot ring and segment arena, in the
 * device's datapath mode: batch mode caches the descriptors and runs them with the burst API
 * at the end of enqueue_burst or at enqueue_done (or every MBGCM_PMD_BATCH descriptors); ring
 * mode submits ring jobs that dequeue polls. Descriptors come back in enqueue order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "mbgcm_pmd_priv.h"

/* ---- elements ----------------------------------------------------------------------------- */

/* One message of a vector: where its data is and what goes with it. */
struct mbgcm_pmd_elem {
    const struct rte_crypto_vec *src, *dst; /* dst NULL: in place */
    uint32_t nsrc, ndst;
    uint32_t head, tail;                    /* cipher (AEAD) or auth (GMAC) offsets */
    const uint8_t *iv, *aad;
    uint8_t *digest;
};

/* Where |len| bytes at |off| of a vector start, and over how many non-empty pieces. */
struct mbgcm_pmd_vspan {
    uint32_t idx, off, nseg;
};

/* 0, or -1 when the entries hold fewer than off + len bytes. */
static inline int
mbgcm_pmd_vspan(const struct rte_crypto_vec *v, uint32_t n, uint32_t off, uint32_t len,
                struct mbgcm_pmd_vspan *sp)
{
    uint32_t i = 0, rem, o, cnt = 0;

    while (i < n && off >= v[i].len && !(len == 0 && off == v[i].len)) {
        off -= v[i].len;
        i++;
    }
    if (i == n) {
        if (off != 0 || len != 0)
            return -1;
        sp->idx = i; /* an empty range at the very end */
        sp->off = 0;
        sp->nseg = 0;
        return 0;
    }
    sp->idx = i;
    sp->off = off;
    if (likely(v[i].len - off >= len)) {
        sp->nseg = len != 0;
        return 0;
    }
    for (rem = len, o = off; rem != 0; i++, o = 0) {
        uint32_t take;

        if (i == n)
            return -1;
        take = RTE_MIN(v[i].len - o, rem);
        cnt += take != 0;
        rem -= take;
    }
    sp->nseg = cnt;
    return 0;
}

static inline uint8_t *
mbgcm_pmd_vspan_ptr(const struct rte_crypto_vec *v, const struct mbgcm_pmd_vspan *sp)
{
    return (uint8_t *)v[sp->idx].base + sp->off;
}

static void
mbgcm_pmd_vspan_fill(const struct rte_crypto_vec *v, const struct mbgcm_pmd_vspan *sp,
                     uint32_t len, mbgcm_seg *out)
{
    uint32_t i = sp->idx, o = sp->off, rem = len, k = 0;

    for (; rem != 0; i++, o = 0) {
        uint32_t take = RTE_MIN(v[i].len - o, rem);

        if (take != 0) {
            out[k].ptr = (uint8_t *)v[i].base + o;
            out[k].len = take;
            k++;
        }
        rem -= take;
    }
}

/* What building a job from an element decided (besides 0, "a job", and a positive errno). */
#define MBGCM_PMD_SYNC (-1)   /* run it now with the one-shot or incremental calls */
#define MBGCM_PMD_NOSEG (-2)  /* its segment lists do not fit in the arena now */

/* A segment arena for the jobs being built: |n| entries or NULL. */
struct mbgcm_pmd_arena {
    mbgcm_seg *segs;
    uint32_t size, used;
};

/* Message range of an element: 0 with *len set, or EINVAL (offsets beyond the data). */
static inline int
mbgcm_pmd_elem_len(const struct mbgcm_pmd_elem *e, uint32_t *len)
{
    uint64_t total = 0;
    uint32_t i;

    for (i = 0; i < e->nsrc; i++)
        total += e->src[i].len;
    if ((uint64_t)e->head + e->tail > total || total - e->head - e->tail > UINT32_MAX)
        return EINVAL;
    *len = (uint32_t)(total - e->head - e->tail);
    return 0;
}

/*
 * Fill |job| from element |e| of session |s|: 0, a positive errno for a bad element,
 * MBGCM_PMD_SYNC or MBGCM_PMD_NOSEG. The job's user_data is the caller's.
 */
static inline int
mbgcm_pmd_elem_job(const struct mbgcm_pmd_session *s, const struct mbgcm_pmd_elem *e,
                   struct mbgcm_pmd_arena *ar, mbgcm_job *job)
{
    struct mbgcm_pmd_vspan src, dst;
    uint32_t len;

    if (unlikely(e->iv == NULL || e->digest == NULL || (e->nsrc != 0 && e->src == NULL)))
        return EINVAL;
    if (unlikely(mbgcm_pmd_elem_len(e, &len) != 0 ||
                 mbgcm_pmd_vspan(e->src, e->nsrc, e->head, len, &src) != 0))
        return EINVAL;
    job->key = &s->key;
    job->dir = s->dir;
    job->iv = e->iv;
    job->iv_len = s->iv_len;
    job->tag = e->digest;
    job->tag_len = s->tag_len;
    job->reserved_ = NULL;
    job->src_sgl = NULL;
    job->dst_sgl = NULL;
    job->src_nseg = 0;
    job->dst_nseg = 0;
    job->src = NULL;
    job->dst = NULL;
    if (s->gmac) {
        if (src.nseg > 1)
            return MBGCM_PMD_SYNC; /* mbgcm takes the AAD in one piece */
        job->aad = len != 0 ? mbgcm_pmd_vspan_ptr(e->src, &src) : NULL;
        job->aad_len = len;
        job->len = 0;
        return 0;
    }
    if (unlikely(s->aad_len != 0 && e->aad == NULL))
        return EINVAL;
    if (e->dst != NULL) {
        if (unlikely(mbgcm_pmd_vspan(e->dst, e->ndst, e->head, len, &dst) != 0))
            return EINVAL;
    } else {
        dst = src;
    }
    job->aad = e->aad;
    job->aad_len = s->aad_len;
    job->len = len;
    if (likely(src.nseg <= 1 && dst.nseg <= 1)) {
        if (len != 0) {
            job->src = mbgcm_pmd_vspan_ptr(e->src, &src);
            job->dst = e->dst == NULL ? (uint8_t *)job->src : mbgcm_pmd_vspan_ptr(e->dst, &dst);
        }
        return 0;
    }
    if (src.nseg > MBGCM_MAX_SEGS || dst.nseg > MBGCM_MAX_SEGS)
        return MBGCM_PMD_SYNC;
    {
        const uint32_t nsrc = src.nseg > 1 ? src.nseg : 0;
        const uint32_t ndst = e->dst != NULL && dst.nseg > 1 ? dst.nseg : 0;
        mbgcm_seg *segs;

        if (ar->used + nsrc + ndst > ar->size)
            return MBGCM_PMD_NOSEG;
        segs = ar->segs + ar->used;
        ar->used += nsrc + ndst;
        if (nsrc != 0) {
            mbgcm_pmd_vspan_fill(e->src, &src, len, segs);
            job->src_sgl = segs;
            job->src_nseg = nsrc;
        } else {
            job->src = mbgcm_pmd_vspan_ptr(e->src, &src);
        }
        if (e->dst == NULL) {
            job->dst_sgl = segs; /* the same array: in place */
            job->dst_nseg = nsrc;
        } else if (ndst != 0) {
            mbgcm_pmd_vspan_fill(e->dst, &dst, len, segs + nsrc);
            job->dst_sgl = segs + nsrc;
            job->dst_nseg = ndst;
        } else {
            job->dst = mbgcm_pmd_vspan_ptr(e->dst, &dst);
        }
    }
    return 0;
}

/*
 * An element mbgcm_pmd_elem_job sent here (a GMAC range over several entries, or more pieces
 * than a segment list may have), with mbgcm's one-shot or incremental calls; also every
 * element of a thread without an lcore id. Returns an mbgcm status.
 */
static __rte_noinline int
mbgcm_pmd_elem_sync(const struct mbgcm_pmd_session *s, const struct mbgcm_pmd_elem *e)
{
    struct mbgcm_pmd_vspan src, dst;
    uint32_t len, i, o, di, dof, rem;
    const struct rte_crypto_vec *dv;
    uint8_t tag[16];
    mbgcm_ctx ctx;
    int ret;

    if (e->iv == NULL || e->digest == NULL || (e->nsrc != 0 && e->src == NULL) ||
        mbgcm_pmd_elem_len(e, &len) != 0 || mbgcm_pmd_vspan(e->src, e->nsrc, e->head, len, &src) != 0)
        return MBGCM_ERR_INVALID;
    if (s->gmac) {
        const uint8_t *aad = len != 0 ? mbgcm_pmd_vspan_ptr(e->src, &src) : NULL;
        uint8_t *flat = NULL;

        if (src.nseg > 1) {
            uint32_t pos = 0;

            flat = malloc(len);
            if (flat == NULL)
                return MBGCM_ERR_NOMEM;
            for (i = src.idx, o = src.off; pos < len; i++, o = 0) {
                uint32_t take = RTE_MIN(e->src[i].len - o, len - pos);

                memcpy(flat + pos, (const uint8_t *)e->src[i].base + o, take);
                pos += take;
            }
            aad = flat;
        }
        if (s->dir == MBGCM_ENCRYPT)
            ret = mbgcm_encrypt(&s->key, e->iv, s->iv_len, aad, len, NULL, 0, NULL, e->digest,
                                s->tag_len);
        else
            ret = mbgcm_decrypt(&s->key, e->iv, s->iv_len, aad, len, NULL, 0, NULL, e->digest,
                                s->tag_len);
        free(flat);
        return ret;
    }
    if (s->aad_len != 0 && e->aad == NULL)
        return MBGCM_ERR_INVALID;
    if (e->dst != NULL) {
        if (mbgcm_pmd_vspan(e->dst, e->ndst, e->head, len, &dst) != 0)
            return MBGCM_ERR_INVALID;
        dv = e->dst;
    } else {
        dst = src;
        dv = e->src;
    }
    if (src.nseg <= 1 && dst.nseg <= 1) {
        const uint8_t *in = len != 0 ? mbgcm_pmd_vspan_ptr(e->src, &src) : NULL;
        uint8_t *out = len != 0 ? mbgcm_pmd_vspan_ptr(dv, &dst) : NULL;

        if (s->dir == MBGCM_ENCRYPT)
            return mbgcm_encrypt(&s->key, e->iv, s->iv_len, e->aad, s->aad_len, in, len, out,
                                 e->digest, s->tag_len);
        return mbgcm_decrypt(&s->key, e->iv, s->iv_len, e->aad, s->aad_len, in, len, out,
                             e->digest, s->tag_len);
    }
    /* pieces cut at every source and destination entry boundary */
    if (s->dir == MBGCM_DECRYPT)
        memcpy(tag, e->digest, s->tag_len); /* read once, before any output is written */
    ret = mbgcm_ctx_init(&ctx, &s->key, s->dir, e->iv, s->iv_len, e->aad, s->aad_len);
    if (ret != MBGCM_OK)
        return ret;
    for (i = src.idx, o = src.off, di = dst.idx, dof = dst.off, rem = len; rem != 0;) {
        uint32_t take;

        while (o == e->src[i].len) {
            i++;
            o = 0;
        }
        while (dof == dv[di].len) {
            di++;
            dof = 0;
        }
        take = RTE_MIN(rem, RTE_MIN(e->src[i].len - o, dv[di].len - dof));
        ret = mbgcm_ctx_update(&ctx, (const uint8_t *)e->src[i].base + o, take,
                               (uint8_t *)dv[di].base + dof);
        if (ret != MBGCM_OK) {
            mbgcm_ctx_wipe(&ctx);
            return ret;
        }
        o += take;
        dof += take;
        rem -= take;
    }
    if (s->dir == MBGCM_ENCRYPT)
        return mbgcm_ctx_final(&ctx, e->digest, s->tag_len);
    ret = mbgcm_ctx_verify(&ctx, tag, s->tag_len);
    if (ret == MBGCM_ERR_AUTH) /* release no unauthenticated plaintext */
        for (di = dst.idx, dof = dst.off, rem = len; rem != 0; di++, dof = 0) {
            uint32_t take = RTE_MIN(dv[di].len - dof, rem);

            memset((uint8_t *)dv[di].base + dof, 0, take);
            rem -= take;
        }
    return ret;
}

/* A session of this driver for the vector APIs, or NULL. */
static inline const struct mbgcm_pmd_session *
mbgcm_pmd_vec_session(const struct rte_cryptodev *dev, const struct rte_cryptodev_sym_session *sess)
{
    const struct mbgcm_pmd_session *s;

    if (sess == NULL || sess->driver_id != dev->driver_id)
        return NULL;
    s = mbgcm_pmd_session_get((struct rte_cryptodev_sym_session *)(uintptr_t)sess);
    return s->magic == MBGCM_PMD_SESSION_MAGIC ? s : NULL;
}

/* Element |i| of a symmetric vector. GMAC takes its IV from vec->iv (as rte_ipsec passes it). */
static inline void
mbgcm_pmd_vec_elem(const struct mbgcm_pmd_session *s, const struct rte_crypto_sym_vec *vec,
                   uint32_t i, union rte_crypto_sym_ofs ofs, struct mbgcm_pmd_elem *e)
{
    const struct rte_crypto_sgl *src = &vec->src_sgl[i];
    const struct rte_crypto_sgl *dst = vec->dest_sgl != NULL ? &vec->dest_sgl[i] : NULL;

    e->src = src->vec;
    e->nsrc = src->num;
    e->dst = dst != NULL ? dst->vec : NULL;
    e->ndst = dst != NULL ? dst->num : 0;
    if (s->gmac) {
        e->head = ofs.ofs.auth.head;
        e->tail = ofs.ofs.auth.tail;
        e->aad = NULL;
        e->dst = NULL; /* GMAC writes no data */
    } else {
        e->head = ofs.ofs.cipher.head;
        e->tail = ofs.ofs.cipher.tail;
        e->aad = vec->aad != NULL ? vec->aad[i].va : NULL;
    }
    e->iv = vec->iv != NULL ? vec->iv[i].va : NULL;
    e->digest = vec->digest != NULL ? vec->digest[i].va : NULL;
}

/* mbgcm status -> a CPU-crypto element status (0 or a positive errno). */
static inline int32_t
mbgcm_pmd_errno(int st)
{
    switch (st) {
    case MBGCM_OK:
        return 0;
    case MBGCM_ERR_AUTH:
        return EBADMSG;
    case MBGCM_ERR_NOMEM:
        return ENOMEM;
    case MBGCM_ERR_UNSUPPORTED:
        return ENOTSUP;
    default:
        return EINVAL;
    }
}

/* ---- CPU crypto --------------------------------------------------------------------------- */

static __rte_noinline struct mbgcm_pmd_lcore *
mbgcm_pmd_lcore_create(struct rte_cryptodev *dev, unsigned int lcore)
{
    struct mbgcm_pmd_internals *in = dev->data->dev_private;
    const struct mbgcm_pmd_flavour *fl = &mbgcm_pmd_flavours[in->type];
    const unsigned int sock = rte_lcore_to_socket_id(lcore);
    const int socket = sock == (unsigned int)SOCKET_ID_ANY ? SOCKET_ID_ANY : (int)sock;
    struct mbgcm_pmd_lcore *lc;
    mbgcm_config cfg;
    int ret;

    lc = rte_zmalloc_socket("mbgcm_pmd_lcore", sizeof(*lc), RTE_CACHE_LINE_SIZE, socket);
    if (lc == NULL)
        return NULL;
    memset(&cfg, 0, sizeof(cfg));
    cfg.arch = fl->arch;
    cfg.queue_size = 1; /* bursts only: the ring is not used */
    mbgcm_pmd_mem_config(&cfg, socket); /* the manager on the lcore's socket */
    ret = mbgcm_mgr_create(&lc->mgr, &cfg);
    if (ret != MBGCM_OK) {
        MBGCM_PMD_LOG(ERR, "%s: lcore %u: no manager (%s)", dev->data->name, lcore,
                      mbgcm_strerror(ret));
        rte_free(lc);
        return NULL;
    }
    __atomic_store_n(&in->lcore[lcore], lc, __ATOMIC_RELEASE);
    return lc;
}

/* Run the gathered jobs; their elements' statuses are set. Returns how many were OK. */
static inline uint32_t
mbgcm_pmd_cpu_run(struct mbgcm_pmd_lcore *lc, uint32_t n, int32_t *status)
{
    uint32_t ok, i;

    if (n == 0)
        return 0;
    ok = mbgcm_submit_burst(lc->mgr, lc->jobs, n);
    if (likely(ok == n)) {
        for (i = 0; i < n; i++)
            status[(uintptr_t)lc->jobs[i].user_data] = 0;
    } else {
        for (i = 0; i < n; i++)
            status[(uintptr_t)lc->jobs[i].user_data] = mbgcm_pmd_errno(lc->jobs[i].status);
    }
    return ok;
}

/* A thread without an lcore id: every element with the one-shot calls (no shared state). */
static __rte_noinline uint32_t
mbgcm_pmd_cpu_unregistered(struct mbgcm_pmd_internals *in, const struct mbgcm_pmd_session *s,
                           union rte_crypto_sym_ofs ofs, struct rte_crypto_sym_vec *vec)
{
    struct mbgcm_pmd_elem e;
    uint32_t i, ok = 0;

    for (i = 0; i < vec->num; i++) {
        mbgcm_pmd_vec_elem(s, vec, i, ofs, &e);
        vec->status[i] = mbgcm_pmd_errno(mbgcm_pmd_elem_sync(s, &e));
        ok += vec->status[i] == 0;
    }
    __atomic_fetch_add(&in->unregistered_ops, vec->num, __ATOMIC_RELAXED);
    __atomic_fetch_add(&in->unregistered_errors, vec->num - ok, __ATOMIC_RELAXED);
    return ok;
}

uint32_t
mbgcm_pmd_cpu_process(struct rte_cryptodev *dev, struct rte_cryptodev_sym_session *sess,
                      union rte_crypto_sym_ofs ofs, struct rte_crypto_sym_vec *vec)
{
    struct mbgcm_pmd_internals *in = dev->data->dev_private;
    const struct mbgcm_pmd_session *s;
    struct mbgcm_pmd_lcore *lc;
    struct mbgcm_pmd_arena ar;
    struct mbgcm_pmd_elem e;
    const unsigned int lcore = rte_lcore_id();
    uint32_t i, nj = 0, ok = 0;

    if (unlikely(vec == NULL || vec->status == NULL))
        return 0;
    s = mbgcm_pmd_vec_session(dev, sess);
    if (unlikely(s == NULL || (vec->num != 0 && vec->src_sgl == NULL))) {
        for (i = 0; i < vec->num; i++)
            vec->status[i] = EINVAL;
        return 0;
    }
    if (unlikely(lcore >= RTE_MAX_LCORE))
        return mbgcm_pmd_cpu_unregistered(in, s, ofs, vec);
    lc = in->lcore[lcore];
    if (unlikely(lc == NULL)) {
        lc = mbgcm_pmd_lcore_create(dev, lcore);
        if (lc == NULL)
            return mbgcm_pmd_cpu_unregistered(in, s, ofs, vec);
    }
    ar.segs = lc->segs;
    ar.size = MBGCM_PMD_VEC_SEGS;
    ar.used = 0;
    for (i = 0; i < vec->num; i++) {
        mbgcm_job *job = &lc->jobs[nj];
        int r;

        mbgcm_pmd_vec_elem(s, vec, i, ofs, &e);
        r = mbgcm_pmd_elem_job(s, &e, &ar, job);
        if (unlikely(r == MBGCM_PMD_NOSEG)) { /* run what is gathered: the arena is free */
            ok += mbgcm_pmd_cpu_run(lc, nj, vec->status);
            nj = 0;
            ar.used = 0;
            job = &lc->jobs[0];
            r = mbgcm_pmd_elem_job(s, &e, &ar, job);
        }
        if (likely(r == 0)) {
            job->user_data = (void *)(uintptr_t)i;
            if (++nj == MBGCM_PMD_BATCH) {
                ok += mbgcm_pmd_cpu_run(lc, nj, vec->status);
                nj = 0;
                ar.used = 0;
            }
        } else if (r == MBGCM_PMD_SYNC) {
            vec->status[i] = mbgcm_pmd_errno(mbgcm_pmd_elem_sync(s, &e));
            ok += vec->status[i] == 0;
        } else {
            vec->status[i] = r;
        }
    }
    ok += mbgcm_pmd_cpu_run(lc, nj, vec->status);
    lc->ops += vec->num;
    lc->errors += vec->num - ok;
    mbgcm_pmd_publish(&lc->pub, lc->mgr, lc->ops, lc->errors);
    return ok;
}

/* ---- raw data path ------------------------------------------------------------------------ */

/* The driver's part of an rte_crypto_raw_dp_ctx. */
struct mbgcm_pmd_raw_ctx {
    const struct mbgcm_pmd_session *s;
};

/* Batch mode: run the cached descriptors; their slots are done and the arena is free. */
static void
mbgcm_pmd_raw_run(struct mbgcm_pmd_qp *qp)
{
    uint32_t i, n = qp->nbatch;

    if (n == 0)
        return;
    if (likely(mbgcm_submit_burst(qp->mgr, qp->batch, n) == n)) {
        for (i = 0; i < n; i++) {
            struct mbgcm_pmd_slot *sl = qp->batch[i].user_data;

            sl->status = RTE_CRYPTO_OP_STATUS_SUCCESS;
            sl->done = 1;
        }
    } else {
        for (i = 0; i < n; i++) {
            struct mbgcm_pmd_slot *sl = qp->batch[i].user_data;

            sl->status = mbgcm_pmd_op_status(qp->batch[i].status);
            sl->done = 1;
        }
    }
    qp->in_mgr -= n;
    qp->nbatch = 0;
    qp->seg_head = qp->seg_tail = 0;
}

/* The arena's contiguous free run from seg_head (ring mode keeps the arena a FIFO). */
static inline void
mbgcm_pmd_raw_arena(const struct mbgcm_pmd_qp *qp, struct mbgcm_pmd_arena *ar)
{
    const uint32_t pos = (uint32_t)(qp->seg_head % qp->nsegs);
    const uint32_t avail = qp->nsegs - (uint32_t)(qp->seg_head - qp->seg_tail);

    ar->segs = qp->segs + pos;
    ar->size = RTE_MIN(qp->nsegs - pos, avail);
    ar->used = 0;
}

/*
 * Take one descriptor: 0, a positive errno (a bad element: not taken), or ENOSPC (no slot or,
 * in ring mode, no room for its segment lists now: not taken).
 */
static inline int
mbgcm_pmd_raw_one(struct mbgcm_pmd_qp *qp, const struct mbgcm_pmd_session *s,
                  const struct mbgcm_pmd_elem *e, void *user_data)
{
    struct mbgcm_pmd_slot *sl;
    struct mbgcm_pmd_arena ar;
    mbgcm_job *job;
    int r;

    if (unlikely(qp->head - qp->tail > qp->mask))
        return ENOSPC;
    sl = &qp->slots[qp->head & qp->mask];
    job = qp->timeout_ns == 0 ? &qp->batch[qp->nbatch] : mbgcm_get_next_job(qp->mgr);
    mbgcm_pmd_raw_arena(qp, &ar);
    r = mbgcm_pmd_elem_job(s, e, &ar, job);
    if (unlikely(r == MBGCM_PMD_NOSEG)) {
        if (qp->timeout_ns == 0) {
            /* batch mode: run the cache; no job holds a segment list any more */
            mbgcm_pmd_raw_run(qp);
            job = &qp->batch[0];
        } else {
            /* ring mode: the run to the arena's end is too short; skip it (it is freed
               when the descriptors before it are dequeued) and start again at 0 */
            const uint32_t pos = (uint32_t)(qp->seg_head % qp->nsegs);

            if (pos != 0 && qp->nsegs - pos < qp->nsegs - (uint32_t)(qp->seg_head - qp->seg_tail))
                qp->seg_head += qp->nsegs - pos;
        }
        mbgcm_pmd_raw_arena(qp, &ar);
        r = mbgcm_pmd_elem_job(s, e, &ar, job);
        if (r == MBGCM_PMD_NOSEG)
            return ENOSPC;
    }
    if (unlikely(r > 0))
        return r;
    sl->user_data = user_data;
    qp->head++;
    if (unlikely(r == MBGCM_PMD_SYNC)) {
        sl->status = mbgcm_pmd_op_status(mbgcm_pmd_elem_sync(s, e));
        sl->done = 1;
        sl->seg_end = qp->seg_head;
        return 0;
    }
    qp->seg_head += ar.used;
    sl->seg_end = qp->seg_head;
    sl->done = 0;
    job->user_data = sl;
    qp->in_mgr++;
    if (qp->timeout_ns == 0) {
        if (++qp->nbatch == MBGCM_PMD_BATCH)
            mbgcm_pmd_raw_run(qp);
    } else {
        mbgcm_pmd_qp_submit(qp);
    }
    return 0;
}

static uint32_t
mbgcm_pmd_raw_enqueue_burst(void *qpv, uint8_t *drv, struct rte_crypto_sym_vec *vec,
                            union rte_crypto_sym_ofs ofs, void *user_data[], int *enqueue_status)
{
    struct mbgcm_pmd_qp *qp = qpv;
    const struct mbgcm_pmd_session *s = ((struct mbgcm_pmd_raw_ctx *)drv)->s;
    struct mbgcm_pmd_elem e;
    uint32_t i;

    if (unlikely(vec->num == 0)) { /* as a zero-length op enqueue: run what waits */
        if (qp->timeout_ns == 0)
            mbgcm_pmd_raw_run(qp);
        else
            mbgcm_pmd_qp_flush(qp);
        *enqueue_status = 1;
        return 0;
    }
    for (i = 0; i < vec->num; i++) {
        int r;

        mbgcm_pmd_vec_elem(s, vec, i, ofs, &e);
        /* GMAC: the auth IV travels as aad_or_auth_iv on this path; vec->iv also works */
        if (s->gmac && vec->auth_iv != NULL && vec->auth_iv[i].va != NULL)
            e.iv = vec->auth_iv[i].va;
        r = mbgcm_pmd_raw_one(qp, s, &e, user_data != NULL ? user_data[i] : NULL);
        if (unlikely(r != 0)) {
            if (vec->status != NULL)
                vec->status[i] = r;
            break;
        }
        if (vec->status != NULL)
            vec->status[i] = 0;
    }
    if (qp->timeout_ns == 0)
        mbgcm_pmd_raw_run(qp);
    qp->stats.enqueued_count += i;
    qp->stats.enqueue_err_count += vec->num - i;
    if (unlikely(++qp->pub_calls >= MBGCM_PMD_PUB_EVERY))
        mbgcm_pmd_qp_publish(qp);
    *enqueue_status = 1;
    return i;
}

static int
mbgcm_pmd_raw_enqueue(void *qpv, uint8_t *drv, struct rte_crypto_vec *data_vec,
                      uint16_t n_data_vecs, union rte_crypto_sym_ofs ofs,
                      struct rte_crypto_va_iova_ptr *iv, struct rte_crypto_va_iova_ptr *digest,
                      struct rte_crypto_va_iova_ptr *aad_or_auth_iv, void *user_data)
{
    struct mbgcm_pmd_qp *qp = qpv;
    const struct mbgcm_pmd_session *s = ((struct mbgcm_pmd_raw_ctx *)drv)->s;
    struct mbgcm_pmd_elem e;
    int r;

    e.src = data_vec;
    e.nsrc = n_data_vecs;
    e.dst = NULL;
    e.ndst = 0;
    e.head = s->gmac ? ofs.ofs.auth.head : ofs.ofs.cipher.head;
    e.tail = s->gmac ? ofs.ofs.auth.tail : ofs.ofs.cipher.tail;
    e.iv = iv != NULL ? iv->va : NULL;
    e.digest = digest != NULL ? digest->va : NULL;
    e.aad = aad_or_auth_iv != NULL ? aad_or_auth_iv->va : NULL;
    if (s->gmac) {
        if (e.aad != NULL)
            e.iv = e.aad;
        e.aad = NULL;
    }
    r = mbgcm_pmd_raw_one(qp, s, &e, user_data);
    if (unlikely(r != 0)) {
        qp->stats.enqueue_err_count++;
        return -r;
    }
    qp->stats.enqueued_count++;
    /* batch mode: cached until enqueue_done (or the cache is full) */
    return qp->timeout_ns == 0 ? 0 : 1;
}

static int
mbgcm_pmd_raw_enqueue_done(void *qpv, uint8_t *drv __rte_unused, uint32_t n __rte_unused)
{
    struct mbgcm_pmd_qp *qp = qpv;

    if (qp->timeout_ns == 0)
        mbgcm_pmd_raw_run(qp);
    if (unlikely(++qp->pub_calls >= MBGCM_PMD_PUB_EVERY))
        mbgcm_pmd_qp_publish(qp);
    return 0;
}

/* The done slots at the tail, at most |max|. */
static inline uint32_t
mbgcm_pmd_raw_ready(struct mbgcm_pmd_qp *qp, uint32_t max)
{
    uint32_t n = 0;

    if (qp->timeout_ns != 0)
        mbgcm_pmd_qp_poll(qp);
    while (n < max && qp->tail + n != qp->head && qp->slots[(qp->tail + n) & qp->mask].done)
        n++;
    return n;
}

static inline void
mbgcm_pmd_raw_release(struct mbgcm_pmd_qp *qp, const struct mbgcm_pmd_slot *last, uint32_t n,
                      uint32_t nok)
{
    qp->tail += n;
    if (qp->timeout_ns != 0 && n != 0)
        qp->seg_tail = last->seg_end;
    if (qp->tail == qp->head && qp->nbatch == 0)
        qp->seg_head = qp->seg_tail = 0;
    qp->stats.dequeued_count += n;
    qp->stats.dequeue_err_count += n - nok;
    if (unlikely(n == 0 && qp->tail == qp->head && qp->pub_calls != 0))
        mbgcm_pmd_qp_publish(qp);
}

static uint32_t
mbgcm_pmd_raw_dequeue_burst(void *qpv, uint8_t *drv __rte_unused,
                            rte_cryptodev_raw_get_dequeue_count_t get_dequeue_count,
                            uint32_t max_nb_to_dequeue,
                            rte_cryptodev_raw_post_dequeue_t post_dequeue,
                            void **out_user_data, uint8_t is_user_data_array,
                            uint32_t *n_success, int *dequeue_status)
{
    struct mbgcm_pmd_qp *qp = qpv;
    const struct mbgcm_pmd_slot *sl = NULL;
    uint32_t want = max_nb_to_dequeue, ready, i, nok = 0;

    if (get_dequeue_count != NULL) {
        /* the count comes from the oldest descriptor's user data; all of them must be done */
        ready = mbgcm_pmd_raw_ready(qp, 1);
        if (ready == 0) {
            want = 0;
        } else {
            want = get_dequeue_count(qp->slots[qp->tail & qp->mask].user_data);
            if (mbgcm_pmd_raw_ready(qp, want) < want)
                want = 0;
        }
    } else {
        want = mbgcm_pmd_raw_ready(qp, want);
    }
    for (i = 0; i < want; i++) {
        uint8_t ok;

        sl = &qp->slots[(qp->tail + i) & qp->mask];
        ok = sl->status == RTE_CRYPTO_OP_STATUS_SUCCESS;
        if (post_dequeue != NULL)
            post_dequeue(sl->user_data, i, ok);
        if (out_user_data != NULL && (is_user_data_array || i == 0))
            out_user_data[i] = sl->user_data;
        nok += ok;
    }
    mbgcm_pmd_raw_release(qp, sl, want, nok);
    if (n_success != NULL)
        *n_success = nok;
    if (dequeue_status != NULL)
        *dequeue_status = 1;
    return want;
}

static void *
mbgcm_pmd_raw_dequeue(void *qpv, uint8_t *drv __rte_unused, int *dequeue_status,
                      enum rte_crypto_op_status *op_status)
{
    struct mbgcm_pmd_qp *qp = qpv;
    const struct mbgcm_pmd_slot *sl;

    if (mbgcm_pmd_raw_ready(qp, 1) == 0) {
        mbgcm_pmd_raw_release(qp, NULL, 0, 0);
        return NULL;
    }
    sl = &qp->slots[qp->tail & qp->mask];
    if (op_status != NULL)
        *op_status = sl->status;
    if (dequeue_status != NULL)
        *dequeue_status = 1;
    mbgcm_pmd_raw_release(qp, sl, 1, sl->status == RTE_CRYPTO_OP_STATUS_SUCCESS);
    return sl->user_data;
}

static int
mbgcm_pmd_raw_dequeue_done(void *qp __rte_unused, uint8_t *drv __rte_unused,
                           uint32_t n __rte_unused)
{
    return 0; /* dequeue frees the descriptors it returns */
}

int
mbgcm_pmd_raw_ctx_size(struct rte_cryptodev *dev __rte_unused)
{
    return (int)sizeof(struct mbgcm_pmd_raw_ctx);
}

int
mbgcm_pmd_raw_configure(struct rte_cryptodev *dev, uint16_t qp_id,
                        struct rte_crypto_raw_dp_ctx *ctx, enum rte_crypto_op_sess_type sess_type,
                        union rte_cryptodev_session_ctx session_ctx, uint8_t is_update)
{
    struct mbgcm_pmd_raw_ctx *drv;
    const struct mbgcm_pmd_session *s;
    struct mbgcm_pmd_qp *qp;

    if (ctx == NULL || qp_id >= dev->data->nb_queue_pairs)
        return -EINVAL;
    qp = dev->data->queue_pairs[qp_id];
    if (qp == NULL)
        return -EINVAL;
    if (sess_type != RTE_CRYPTO_OP_WITH_SESSION) /* sessionless and security: not here */
        return -ENOTSUP;
    s = mbgcm_pmd_vec_session(dev, session_ctx.crypto_sess);
    if (s == NULL)
        return -EINVAL;
    drv = (struct mbgcm_pmd_raw_ctx *)ctx->drv_ctx_data;
    if (!is_update) {
        if (!qp->raw && qp->head != qp->tail)
            return -EBUSY; /* ops still in the queue pair */
        ctx->qp_data = qp;
        ctx->enqueue = mbgcm_pmd_raw_enqueue;
        ctx->enqueue_burst = mbgcm_pmd_raw_enqueue_burst;
        ctx->enqueue_done = mbgcm_pmd_raw_enqueue_done;
        ctx->dequeue = mbgcm_pmd_raw_dequeue;
        ctx->dequeue_burst = mbgcm_pmd_raw_dequeue_burst;
        ctx->dequeue_done = mbgcm_pmd_raw_dequeue_done;
        qp->raw = 1;
    } else if (ctx->qp_data != qp) {
        return -EINVAL;
    }
    drv->s = s;
    return 0;
}
