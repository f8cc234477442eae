/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm_pmd_dp.c — crypto_mbgcm datapath: rte_crypto_op to mbgcm_job and back.
 *
 * AES-GCM ops use aead.data, AES-GMAC ops auth.data: a GMAC op is a job with len 0 and the
 * data range as its AAD (gathered first when it spans mbuf segments), so it takes the same
 * lanes and the same short path as an AES-GCM op.
 *
 * Enqueue gives each op the next queue-pair slot and, for an op with a session, fills a job:
 * linear data as src/dst, chained mbufs as segment lists (src_sgl/dst_sgl) built in the queue
 * pair's FIFO arena, starting at aead.data.offset. Batch mode (flush_timeout_us=0, the
 * default): the jobs of one enqueue call are gathered in the queue pair's batch[] and run by
 * mbgcm_submit_burst before enqueue returns. Ring mode (a timeout): each job is a ring job of
 * the queue pair's manager (mbgcm_get_next_job / mbgcm_submit_job), completed when its lanes
 * fill, the timeout expires (dequeue polls) or a zero-length enqueue flushes. Three kinds of op are finished at enqueue instead:
 * bad ops (error status), sessionless ops (the scratch session and mbgcm's one-shot or
 * incremental calls), and chains of more than MBGCM_MAX_SEGS segments (mbgcm_ctx_* over the
 * segments). Dequeue collects the jobs the manager has finished and returns slots from the
 * oldest while they are done, so ops always come back in enqueue order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "mbgcm_pmd_priv.h"

/* ---- completion --------------------------------------------------------------------------- */

static inline uint8_t
mbgcm_pmd_status(int st)
{
    switch (st) {
    case MBGCM_OK:
        return RTE_CRYPTO_OP_STATUS_SUCCESS;
    case MBGCM_ERR_AUTH:
        return RTE_CRYPTO_OP_STATUS_AUTH_FAILED;
    case MBGCM_ERR_INVALID:
    case MBGCM_ERR_KEY_LEN:
    case MBGCM_ERR_IV_LEN:
    case MBGCM_ERR_TAG_LEN:
    case MBGCM_ERR_LEN:
        return RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
    default:
        return RTE_CRYPTO_OP_STATUS_ERROR;
    }
}

uint8_t
mbgcm_pmd_op_status(int st)
{
    return mbgcm_pmd_status(st);
}

/* A job came back from the manager: its op (or raw descriptor) is done. */
static inline void
mbgcm_pmd_job_done(struct mbgcm_pmd_qp *qp, const mbgcm_job *job)
{
    struct mbgcm_pmd_slot *sl = job->user_data;

    if (likely(!qp->raw))
        sl->op->status = mbgcm_pmd_status(job->status);
    else
        sl->status = mbgcm_pmd_status(job->status);
    sl->done = 1;
    qp->in_mgr--;
}

void
mbgcm_pmd_qp_flush(struct mbgcm_pmd_qp *qp)
{
    mbgcm_job *job;

    while (qp->in_mgr != 0 && (job = mbgcm_flush_job(qp->mgr)) != NULL)
        mbgcm_pmd_job_done(qp, job);
}

void
mbgcm_pmd_qp_poll(struct mbgcm_pmd_qp *qp)
{
    mbgcm_job *job;

    if (qp->in_mgr != 0)
        for (job = mbgcm_mgr_poll(qp->mgr); job != NULL; job = mbgcm_get_completed_job(qp->mgr))
            mbgcm_pmd_job_done(qp, job);
}

void
mbgcm_pmd_qp_submit(struct mbgcm_pmd_qp *qp)
{
    mbgcm_job *job;

    for (job = mbgcm_submit_job(qp->mgr); job != NULL; job = mbgcm_get_completed_job(qp->mgr))
        mbgcm_pmd_job_done(qp, job);
}

/* Batch mode: run the gathered jobs with the burst API; their ops are done. */
static void
mbgcm_pmd_batch_run(struct mbgcm_pmd_qp *qp)
{
    uint32_t i, n = qp->nbatch;

    if (n == 0)
        return;
    if (likely(mbgcm_submit_burst(qp->mgr, qp->batch, n) == n)) {
        for (i = 0; i < n; i++) /* batch jobs carry their op (ring jobs their slot) */
            ((struct rte_crypto_op *)qp->batch[i].user_data)->status =
                RTE_CRYPTO_OP_STATUS_SUCCESS;
    } else {
        for (i = 0; i < n; i++) {
            const mbgcm_job *job = &qp->batch[i];
            struct rte_crypto_op *op = job->user_data;

            op->status = mbgcm_pmd_status(job->status);
        }
    }
    qp->in_mgr -= n;
    qp->nbatch = 0;
}

/* ---- mbuf chains -------------------------------------------------------------------------- */

/* Where |len| bytes at |off| of chain |m| start, and over how many non-empty segments. */
struct mbgcm_pmd_span {
    struct rte_mbuf *m;  /* segment holding the first byte */
    uint32_t off;        /* offset of the first byte in it */
    uint32_t nseg;       /* non-empty pieces (0 when len is 0) */
};

/* 0, or -1 when the chain is shorter than off + len. */
static inline int
mbgcm_pmd_span(struct rte_mbuf *m, uint32_t off, uint32_t len, struct mbgcm_pmd_span *sp)
{
    uint32_t rem = len, n = 0, o;

    while (m != NULL && off >= m->data_len && !(len == 0 && off == m->data_len)) {
        off -= m->data_len;
        m = m->next;
    }
    if (m == NULL)
        return -1;
    sp->m = m;
    sp->off = off;
    if (likely(m->data_len - off >= len)) { /* one piece: the common, linear case */
        sp->nseg = len != 0;
        return 0;
    }
    for (o = off; rem != 0; m = m->next, o = 0) {
        uint32_t take;

        if (m == NULL)
            return -1;
        take = RTE_MIN((uint32_t)m->data_len - o, rem);
        n += take != 0;
        rem -= take;
    }
    sp->nseg = n;
    return 0;
}

static inline uint8_t *
mbgcm_pmd_span_ptr(const struct mbgcm_pmd_span *sp)
{
    return rte_pktmbuf_mtod_offset(sp->m, uint8_t *, sp->off);
}

/* Write the span's pieces (sp->nseg of them) to |out|. */
static __rte_noinline void
mbgcm_pmd_span_fill(const struct mbgcm_pmd_span *sp, uint32_t len, mbgcm_seg *out)
{
    struct rte_mbuf *m = sp->m;
    uint32_t o = sp->off, rem = len, i = 0;

    for (; rem != 0; m = m->next, o = 0) {
        uint32_t take = RTE_MIN((uint32_t)m->data_len - o, rem);

        if (take != 0) {
            out[i].ptr = rte_pktmbuf_mtod_offset(m, uint8_t *, o);
            out[i].len = take;
            i++;
        }
        rem -= take;
    }
}

/* FIFO arena: |n| consecutive entries, or NULL when they do not fit now. */
static inline mbgcm_seg *
mbgcm_pmd_seg_alloc(struct mbgcm_pmd_qp *qp, uint32_t n)
{
    uint32_t pos = (uint32_t)(qp->seg_head % qp->nsegs);
    uint32_t waste = pos + n > qp->nsegs ? qp->nsegs - pos : 0;

    if (qp->seg_head - qp->seg_tail + waste + n > qp->nsegs)
        return NULL;
    qp->seg_head += waste + n;
    return &qp->segs[waste != 0 ? 0 : pos];
}

/* ---- synchronous paths -------------------------------------------------------------------- */

/*
 * One message over any segmentation with mbgcm's incremental API: pieces are cut at every
 * source and destination segment boundary. Used for sessionless ops and for chains longer than
 * a job's segment lists may be. A failed tag zeroes the destination, as a job does.
 */
static __rte_noinline int
mbgcm_pmd_crypt_pieces(const struct mbgcm_pmd_session *s, const uint8_t *iv, const uint8_t *aad,
                       const struct mbgcm_pmd_span *src, const struct mbgcm_pmd_span *dst,
                       uint32_t len, uint8_t *digest)
{
    struct rte_mbuf *ms = src->m, *md = dst->m;
    uint32_t os = src->off, od = dst->off, rem = len;
    uint8_t tag[16];
    mbgcm_ctx ctx;
    int ret;

    if (s->dir == MBGCM_DECRYPT)
        memcpy(tag, digest, s->tag_len); /* read once, before any output is written */
    ret = mbgcm_ctx_init(&ctx, &s->key, s->dir, iv, s->iv_len, aad, s->aad_len);
    if (ret != MBGCM_OK)
        return ret;
    while (rem != 0) {
        uint32_t take;

        while (os == ms->data_len) {
            ms = ms->next;
            os = 0;
        }
        while (od == md->data_len) {
            md = md->next;
            od = 0;
        }
        take = RTE_MIN(rem, RTE_MIN((uint32_t)ms->data_len - os, (uint32_t)md->data_len - od));
        ret = mbgcm_ctx_update(&ctx, rte_pktmbuf_mtod_offset(ms, uint8_t *, os), take,
                               rte_pktmbuf_mtod_offset(md, uint8_t *, od));
        if (ret != MBGCM_OK) {
            mbgcm_ctx_wipe(&ctx);
            return ret;
        }
        os += take;
        od += take;
        rem -= take;
    }
    if (s->dir == MBGCM_ENCRYPT)
        return mbgcm_ctx_final(&ctx, digest, s->tag_len);
    ret = mbgcm_ctx_verify(&ctx, tag, s->tag_len);
    if (ret == MBGCM_ERR_AUTH) { /* release no unauthenticated plaintext */
        md = dst->m;
        od = dst->off;
        for (rem = len; rem != 0; md = md->next, od = 0) {
            uint32_t take = RTE_MIN((uint32_t)md->data_len - od, rem);

            memset(rte_pktmbuf_mtod_offset(md, uint8_t *, od), 0, take);
            rem -= take;
        }
    }
    return ret;
}

/*
 * AES-GMAC over |len| bytes of a chain: the data is the AAD of an empty message. mbgcm takes
 * the AAD in one piece, so data spread over several segments is gathered into a temporary
 * buffer first (the slow path of a rare layout).
 */
static __rte_noinline int
mbgcm_pmd_gmac_sync(const struct mbgcm_pmd_session *s, const uint8_t *iv,
                    const struct mbgcm_pmd_span *src, uint32_t len, uint8_t *digest)
{
    const uint8_t *aad = len != 0 ? mbgcm_pmd_span_ptr(src) : NULL;
    uint8_t *flat = NULL;
    int ret;

    if (src->nseg > 1) {
        struct rte_mbuf *m = src->m;
        uint32_t o = src->off, pos = 0;

        flat = malloc(len);
        if (flat == NULL)
            return MBGCM_ERR_NOMEM;
        for (; pos < len; m = m->next, o = 0) {
            uint32_t take = RTE_MIN((uint32_t)m->data_len - o, len - pos);

            memcpy(flat + pos, rte_pktmbuf_mtod_offset(m, uint8_t *, o), take);
            pos += take;
        }
        aad = flat;
    }
    if (s->dir == MBGCM_ENCRYPT)
        ret = mbgcm_encrypt(&s->key, iv, s->iv_len, aad, len, NULL, 0, NULL, digest, s->tag_len);
    else
        ret = mbgcm_decrypt(&s->key, iv, s->iv_len, aad, len, NULL, 0, NULL, digest, s->tag_len);
    free(flat);
    return ret;
}

static __rte_noinline int
mbgcm_pmd_crypt_sync(const struct mbgcm_pmd_session *s, const uint8_t *iv, const uint8_t *aad,
                     const struct mbgcm_pmd_span *src, const struct mbgcm_pmd_span *dst,
                     uint32_t len, uint8_t *digest)
{
    if (s->gmac)
        return mbgcm_pmd_gmac_sync(s, iv, src, len, digest);
    if (src->nseg <= 1 && dst->nseg <= 1) {
        const uint8_t *in = len != 0 ? mbgcm_pmd_span_ptr(src) : NULL;
        uint8_t *out = len != 0 ? mbgcm_pmd_span_ptr(dst) : NULL;

        if (s->dir == MBGCM_ENCRYPT)
            return mbgcm_encrypt(&s->key, iv, s->iv_len, aad, s->aad_len, in, len, out, digest,
                                 s->tag_len);
        return mbgcm_decrypt(&s->key, iv, s->iv_len, aad, s->aad_len, in, len, out, digest,
                             s->tag_len);
    }
    return mbgcm_pmd_crypt_pieces(s, iv, aad, src, dst, len, digest);
}

/* ---- enqueue ------------------------------------------------------------------------------ */

/* The session of |op|, or NULL with op->status set. */
static inline const struct mbgcm_pmd_session *
mbgcm_pmd_op_session(struct mbgcm_pmd_qp *qp, struct rte_crypto_op *op, int *sync)
{
    struct rte_cryptodev_sym_session *sess;
    const struct mbgcm_pmd_session *s;

    if (likely(op->sess_type == RTE_CRYPTO_OP_WITH_SESSION)) {
        sess = op->sym->session;
        if (unlikely(sess == NULL || sess->driver_id != qp->driver_id))
            goto bad_session;
        s = mbgcm_pmd_session_get(sess);
        if (unlikely(s->magic != MBGCM_PMD_SESSION_MAGIC))
            goto bad_session;
        *sync = 0;
        return s;
    }
    if (op->sess_type == RTE_CRYPTO_OP_SESSIONLESS) {
        if (mbgcm_pmd_session_parse(qp->sl_sess, op->sym->xform, 1) != 0) {
            op->status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
            return NULL;
        }
        *sync = 1;
        return qp->sl_sess;
    }
bad_session:
    op->status = RTE_CRYPTO_OP_STATUS_INVALID_SESSION;
    return NULL;
}

/* The job fields that come from the session and the op (both enqueue paths). */
static inline void
mbgcm_pmd_job_fields(mbgcm_job *job, const struct mbgcm_pmd_session *s,
                     const struct rte_crypto_op *op, uint32_t len)
{
    job->key = &s->key;
    job->dir = s->dir;
    job->iv = rte_crypto_op_ctod_offset(op, const uint8_t *, s->iv_offset);
    job->iv_len = s->iv_len;
    job->aad = op->sym->aead.aad.data;
    job->aad_len = s->aad_len;
    job->len = len;
    job->tag = op->sym->aead.digest.data;
    job->tag_len = s->tag_len;
    job->reserved_ = NULL;
}

/*
 * The common op, filled into |job| with few loads and branches: a session of this driver, a
 * source (and destination) whose first segment holds the whole data range (a chain whose data
 * lies in its first mbuf too). Returns 0 (|job|
 * untouched or partly written) when anything else is the case: the general path below then
 * decides, with the same outcome it would have without this one.
 */
static inline int
mbgcm_pmd_fast_job(const struct mbgcm_pmd_qp *qp, struct rte_crypto_op *op, mbgcm_job *job)
{
    struct rte_crypto_sym_op *sym = op->sym;
    struct rte_cryptodev_sym_session *sess = sym->session;
    struct rte_mbuf *ms = sym->m_src, *md = sym->m_dst;
    const struct mbgcm_pmd_session *s;
    uint32_t off, len;
    uint8_t *src;

    if (unlikely(op->type != RTE_CRYPTO_OP_TYPE_SYMMETRIC ||
                 op->sess_type != RTE_CRYPTO_OP_WITH_SESSION || sess == NULL ||
                 sess->driver_id != qp->driver_id || ms == NULL))
        return 0;
    s = mbgcm_pmd_session_get(sess);
    if (unlikely(s->magic != MBGCM_PMD_SESSION_MAGIC))
        return 0;
    if (unlikely(s->gmac)) {
        /* AES-GMAC: the data range is the AAD of an empty message; nothing is written but
           the digest (an m_dst is not used) */
        off = sym->auth.data.offset;
        len = sym->auth.data.length;
        if (unlikely((uint64_t)off + len > ms->data_len || sym->auth.digest.data == NULL))
            return 0;
        job->key = &s->key;
        job->dir = s->dir;
        job->iv = rte_crypto_op_ctod_offset(op, const uint8_t *, s->iv_offset);
        job->iv_len = s->iv_len;
        job->aad = rte_pktmbuf_mtod_offset(ms, const uint8_t *, off);
        job->aad_len = len;
        job->len = 0;
        job->tag = sym->auth.digest.data;
        job->tag_len = s->tag_len;
        job->reserved_ = NULL;
        job->src = NULL;
        job->dst = NULL;
        job->src_sgl = NULL;
        job->dst_sgl = NULL;
        job->src_nseg = 0;
        job->dst_nseg = 0;
        return 1;
    }
    off = sym->aead.data.offset;
    len = sym->aead.data.length;
    if (unlikely((uint64_t)off + len > ms->data_len || sym->aead.digest.data == NULL))
        return 0;
    if (md == ms)
        md = NULL;
    if (unlikely(md != NULL && (uint64_t)off + len > md->data_len))
        return 0;
    if (unlikely(s->aad_len != 0 && sym->aead.aad.data == NULL))
        return 0;
    src = rte_pktmbuf_mtod_offset(ms, uint8_t *, off);
    mbgcm_pmd_job_fields(job, s, op, len);
    job->src = src;
    job->dst = md == NULL ? src : rte_pktmbuf_mtod_offset(md, uint8_t *, off);
    job->src_sgl = NULL;
    job->dst_sgl = NULL;
    job->src_nseg = 0;
    job->dst_nseg = 0;
    return 1;
}

/*
 * Take one op: 0 (it has a slot; done or in the manager), or -ENOSPC when its segment lists
 * do not fit in the arena now (the op is not taken; enqueue stops there).
 */
static inline int
mbgcm_pmd_enqueue_one(struct mbgcm_pmd_qp *qp, struct rte_crypto_op *op)
{
    struct mbgcm_pmd_slot *sl = &qp->slots[qp->head & qp->mask];
    const struct mbgcm_pmd_session *s;
    struct rte_crypto_sym_op *sym;
    struct mbgcm_pmd_span src, dst_out, *dst = &dst_out;
    struct rte_mbuf *m_dst;
    const uint8_t *iv;
    uint32_t len, off;
    mbgcm_job *job, *ret;
    int sync = 0, in_place;

    job = qp->timeout_ns == 0 ? &qp->batch[qp->nbatch] : mbgcm_get_next_job(qp->mgr);
    if (likely(mbgcm_pmd_fast_job(qp, op, job)))
        goto submit;
    sl->op = op;
    sl->done = 1; /* unless it becomes a job */
    op->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
    if (unlikely(op->type != RTE_CRYPTO_OP_TYPE_SYMMETRIC || op->sym == NULL)) {
        op->status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
        goto taken;
    }
    sym = op->sym;
    s = mbgcm_pmd_op_session(qp, op, &sync);
    if (unlikely(s == NULL))
        goto taken;
    if (unlikely(s->gmac)) {
        len = sym->auth.data.length;
        off = sym->auth.data.offset;
        if (unlikely(sym->m_src == NULL || sym->auth.digest.data == NULL ||
                     mbgcm_pmd_span(sym->m_src, off, len, &src) != 0)) {
            op->status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
            goto taken;
        }
        iv = rte_crypto_op_ctod_offset(op, const uint8_t *, s->iv_offset);
        if (sync || src.nseg > 1) {
            op->status = mbgcm_pmd_status(
                mbgcm_pmd_gmac_sync(s, iv, &src, len, sym->auth.digest.data));
            goto taken;
        }
        job->key = &s->key;
        job->dir = s->dir;
        job->iv = iv;
        job->iv_len = s->iv_len;
        job->aad = len != 0 ? mbgcm_pmd_span_ptr(&src) : NULL;
        job->aad_len = len;
        job->len = 0;
        job->tag = sym->auth.digest.data;
        job->tag_len = s->tag_len;
        job->reserved_ = NULL;
        job->src = NULL;
        job->dst = NULL;
        job->src_sgl = NULL;
        job->dst_sgl = NULL;
        job->src_nseg = 0;
        job->dst_nseg = 0;
        goto submit;
    }
    len = sym->aead.data.length;
    off = sym->aead.data.offset;
    m_dst = sym->m_dst;
    in_place = m_dst == NULL || m_dst == sym->m_src;
    if (unlikely(sym->m_src == NULL || sym->aead.digest.data == NULL ||
                 (s->aad_len != 0 && sym->aead.aad.data == NULL) ||
                 mbgcm_pmd_span(sym->m_src, off, len, &src) != 0 ||
                 (!in_place && mbgcm_pmd_span(m_dst, off, len, dst) != 0))) {
        op->status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
        goto taken;
    }
    if (in_place)
        dst = &src; /* (not a copy: a 16-byte load across the span's separate stores stalls) */
    iv = rte_crypto_op_ctod_offset(op, const uint8_t *, s->iv_offset);

    if (unlikely(sync || src.nseg > MBGCM_MAX_SEGS || dst->nseg > MBGCM_MAX_SEGS)) {
        op->status = mbgcm_pmd_status(
            mbgcm_pmd_crypt_sync(s, iv, sym->aead.aad.data, &src, dst, len,
                                 sym->aead.digest.data));
        goto taken;
    }

    job->src = NULL;
    job->dst = NULL;
    job->src_sgl = NULL;
    job->dst_sgl = NULL;
    job->src_nseg = 0;
    job->dst_nseg = 0;
    if (likely(src.nseg <= 1 && dst->nseg <= 1)) {
        if (len != 0) {
            job->src = mbgcm_pmd_span_ptr(&src);
            job->dst = in_place ? (uint8_t *)job->src : mbgcm_pmd_span_ptr(dst);
        }
    } else {
        uint32_t nsrc = src.nseg > 1 ? src.nseg : 0;
        uint32_t ndst = !in_place && dst->nseg > 1 ? dst->nseg : 0;
        mbgcm_seg *segs = mbgcm_pmd_seg_alloc(qp, nsrc + ndst);

        if (segs == NULL)
            return -ENOSPC; /* the slot stays free; the job slot is refilled next time */
        if (nsrc != 0) {
            mbgcm_pmd_span_fill(&src, len, segs);
            job->src_sgl = segs;
            job->src_nseg = nsrc;
        } else {
            job->src = mbgcm_pmd_span_ptr(&src);
        }
        if (in_place) {
            job->dst_sgl = segs; /* the same array: in place */
            job->dst_nseg = nsrc;
        } else if (ndst != 0) {
            mbgcm_pmd_span_fill(dst, len, segs + nsrc);
            job->dst_sgl = segs + nsrc;
            job->dst_nseg = ndst;
        } else {
            job->dst = mbgcm_pmd_span_ptr(dst);
        }
    }
    mbgcm_pmd_job_fields(job, s, op, len);
submit:
    job->user_data = qp->timeout_ns == 0 ? (void *)op : (void *)sl;
    op->status = RTE_CRYPTO_OP_STATUS_NOT_PROCESSED;
    sl->op = op;
    sl->done = 0;
    sl->seg_end = qp->seg_head;
    qp->head++;
    qp->in_mgr++;
    if (qp->timeout_ns == 0) {
        if (++qp->nbatch == MBGCM_PMD_BATCH)
            mbgcm_pmd_batch_run(qp);
        return 0;
    }
    for (ret = mbgcm_submit_job(qp->mgr); ret != NULL; ret = mbgcm_get_completed_job(qp->mgr))
        mbgcm_pmd_job_done(qp, ret);
    return 0;

taken:
    sl->seg_end = qp->seg_head;
    qp->head++;
    return 0;
}

uint16_t
mbgcm_pmd_enqueue_burst(void *qpv, struct rte_crypto_op **ops, uint16_t nb_ops)
{
    struct mbgcm_pmd_qp *qp = qpv;
    uint32_t room, n, i;

    if (unlikely(nb_ops == 0)) { /* a zero-length enqueue drains the manager */
        mbgcm_pmd_qp_flush(qp);
        return 0;
    }
    if (unlikely(qp->raw)) { /* it serves a raw data-path context: its slots hold no ops */
        qp->stats.enqueue_err_count += nb_ops;
        return 0;
    }
    room = qp->mask + 1 - (qp->head - qp->tail);
    n = RTE_MIN((uint32_t)nb_ops, room);
    if (qp->timeout_ns == 0) {
        /* batch mode: the common op in a tight loop with the queue-pair counters in locals
           (the op and slot stores cannot be proven not to alias them), the rest through
           mbgcm_pmd_enqueue_one */
        const uint32_t mask = qp->mask;
        uint32_t head = qp->head, nb = qp->nbatch;

        for (i = 0; i < n; i++) {
            struct rte_crypto_op *op = ops[i];
            struct mbgcm_pmd_slot *sl = &qp->slots[head & mask];
            mbgcm_job *job = &qp->batch[nb];

            if (likely(mbgcm_pmd_fast_job(qp, op, job))) {
                /* status, done flag and arena position are not needed: the op is done
                   before this call returns and the arena is reset then (below) */
                job->user_data = op;
                sl->op = op;
                head++;
                if (++nb == MBGCM_PMD_BATCH) {
                    qp->head = head;
                    qp->in_mgr += nb - qp->nbatch;
                    qp->nbatch = nb;
                    mbgcm_pmd_batch_run(qp);
                    nb = 0;
                }
                continue;
            }
            qp->in_mgr += nb - qp->nbatch;
            qp->head = head;
            qp->nbatch = nb;
            if (unlikely(mbgcm_pmd_enqueue_one(qp, op) != 0))
                break;
            head = qp->head;
            nb = qp->nbatch;
        }
        qp->in_mgr += nb - qp->nbatch;
        qp->head = head;
        qp->nbatch = nb;
        mbgcm_pmd_batch_run(qp);
        /* every op taken is done and no job holds a segment list any more */
        qp->seg_head = qp->seg_tail = 0;
    } else {
        for (i = 0; i < n; i++)
            if (unlikely(mbgcm_pmd_enqueue_one(qp, ops[i]) != 0))
                break;
    }
    qp->stats.enqueued_count += i;
    qp->stats.enqueue_err_count += nb_ops - i;
    if (unlikely(++qp->pub_calls >= MBGCM_PMD_PUB_EVERY))
        mbgcm_pmd_qp_publish(qp);
    return (uint16_t)i;
}

/* ---- dequeue ------------------------------------------------------------------------------ */

static inline uint16_t
mbgcm_pmd_pop(struct mbgcm_pmd_qp *qp, struct rte_crypto_op **ops, uint16_t nb_ops)
{
    uint16_t n = 0;

    while (n < nb_ops && qp->tail != qp->head) {
        struct mbgcm_pmd_slot *sl = &qp->slots[qp->tail & qp->mask];

        if (!sl->done)
            break;
        ops[n++] = sl->op;
        qp->stats.dequeue_err_count += sl->op->status != RTE_CRYPTO_OP_STATUS_SUCCESS;
        qp->seg_tail = sl->seg_end;
        qp->tail++;
    }
    if (qp->tail == qp->head) /* empty: restart the arena at its beginning */
        qp->seg_head = qp->seg_tail = 0;
    qp->stats.dequeued_count += n;
    return n;
}

uint16_t
mbgcm_pmd_dequeue_burst(void *qpv, struct rte_crypto_op **ops, uint16_t nb_ops)
{
    struct mbgcm_pmd_qp *qp = qpv;
    mbgcm_job *job;
    uint32_t n;

    if (qp->timeout_ns == 0) {
        /* batch mode: every op taken ran before its enqueue call returned */
        uint32_t i, err = 0;

        n = RTE_MIN((uint32_t)nb_ops, qp->head - qp->tail);

        for (i = 0; i < n; i++) {
            struct rte_crypto_op *op = qp->slots[(qp->tail + i) & qp->mask].op;

            ops[i] = op;
            err += op->status != RTE_CRYPTO_OP_STATUS_SUCCESS;
        }
        qp->tail += n;
        qp->stats.dequeue_err_count += err;
        qp->stats.dequeued_count += n;
        if (unlikely(n == 0 && qp->pub_calls != 0))
            mbgcm_pmd_qp_publish(qp); /* an idle poll: telemetry sees the final counts */
        return (uint16_t)n;
    }
    if (qp->in_mgr != 0)
        for (job = mbgcm_mgr_poll(qp->mgr); job != NULL; job = mbgcm_get_completed_job(qp->mgr))
            mbgcm_pmd_job_done(qp, job);
    n = mbgcm_pmd_pop(qp, ops, nb_ops);
    if (unlikely(n == 0 && qp->tail == qp->head && qp->pub_calls != 0))
        mbgcm_pmd_qp_publish(qp);
    return (uint16_t)n;
}
