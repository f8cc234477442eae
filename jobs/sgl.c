/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sgl.c — scatter-gather jobs: checking the segment lists, and running a job whose input or
 * output is a list of segments. The job streams through the arch's single-stream kernels
 * (core/gcm_stream.c), one piece per stretch where both the current source segment and the
 * current destination segment are contiguous; a 16-byte block that straddles segments is
 * completed through the stream's one-block slot. The message is never copied as a whole. A
 * message that lies in one segment on each side takes the linear path instead.
 */
#include "gcm.h"
#include "jobs_internal.h"
#include "validate.h"

/* What one pass over a list tells: the first and last byte addresses of its non-empty
   segments (|span| 0 when a segment's end would wrap, or every segment is empty), and whether
   its non-empty segments come in ascending address order without sharing a byte (then they are
   disjoint without a sort). */
struct list_scan {
    uintptr_t lo, hi;
    int span, ascending;
};

/* Check one list (count, NULL pointers, lengths adding up to |len| without overflow) and scan
   it. */
static inline __attribute__((always_inline)) int check_list(const mbgcm_seg *l, uint32_t n,
                                                         size_t len, struct list_scan *sc)
{
    if (n == 0 || n > MBGCM_MAX_SEGS) {
        return MBGCM_ERR_INVALID;
    }
    size_t sum = 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0, last = 0;
    int wrap = 0, asc = 1, any = 0;
    for (uint32_t i = 0; i < n; i++) {
        const size_t sl = l[i].len;
        if (sl == 0) {
            continue;
        }
        if (l[i].ptr == NULL || sl > len - sum) {
            return MBGCM_ERR_INVALID; /* (or more bytes than the message) */
        }
        sum += sl;
        const uintptr_t p = (uintptr_t)l[i].ptr;
        if (p > UINTPTR_MAX - (sl - 1)) {
            wrap = 1;
            continue;
        }
        asc &= !any || p > last;
        any = 1;
        last = p + (sl - 1);
        lo = p < lo ? p : lo;
        hi = last > hi ? last : hi;
    }
    sc->lo = lo;
    sc->hi = hi;
    sc->span = any && !wrap;
    sc->ascending = asc && !wrap;
    return sum == len ? MBGCM_OK : MBGCM_ERR_INVALID;
}

/* 1 when no two non-empty segments of |l| share a byte. The segments are sorted by address
   (insertion sort: lists are short, and at most MBGCM_MAX_SEGS long), then neighbours are
   compared. Addresses are public, so the branches leak nothing. */
static int segs_disjoint(const mbgcm_seg *l, uint32_t n)
{
    struct span {
        uintptr_t p;
        size_t len;
    } s[MBGCM_MAX_SEGS];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (l[i].len == 0) {
            continue;
        }
        const struct span x = {(uintptr_t)l[i].ptr, l[i].len};
        uint32_t j = m++;
        for (; j > 0 && s[j - 1].p > x.p; j--) {
            s[j] = s[j - 1];
        }
        s[j] = x;
    }
    for (uint32_t i = 1; i < m; i++) {
        if (s[i].p - s[i - 1].p < s[i - 1].len) {
            return 0;
        }
    }
    return 1;
}

int mbgcmi_check_sgl_job(const mbgcm_job *job)
{
    /* the one-shot checks in their order (key, IV length, lengths, tag length, NULLs), with
       one placeholder standing in for both data buffers; the buffers are checked below */
    static const uint8_t dummy[1];
    const size_t len = job->len;
    int st = mbgcmi_check_args_inline(job->key, job->iv, job->iv_len, job->aad, job->aad_len,
                                      dummy, len, dummy, job->tag, job->tag_len);
    if (st != MBGCM_OK) {
        return st;
    }
    /* a linear buffer is scanned as a list of one */
    const mbgcm_seg one_src = {(uint8_t *)(uintptr_t)job->src, len};
    const mbgcm_seg one_dst = {job->dst, len};
    struct list_scan ss = {0, 0, 0, 0}, ds = {0, 0, 0, 0};
    if (job->src_sgl != NULL) {
        if (job->src != NULL || check_list(job->src_sgl, job->src_nseg, len, &ss) != 0) {
            return MBGCM_ERR_INVALID;
        }
    } else if (job->src_nseg != 0 || (len && job->src == NULL)) {
        return MBGCM_ERR_INVALID;
    } else {
        (void)check_list(&one_src, 1, len, &ss);
    }
    if (job->dst_sgl != NULL) {
        if (job->dst != NULL || check_list(job->dst_sgl, job->dst_nseg, len, &ds) != 0) {
            return MBGCM_ERR_INVALID;
        }
        if (!ds.ascending && !segs_disjoint(job->dst_sgl, job->dst_nseg)) {
            return MBGCM_ERR_INVALID; /* two destination segments share memory */
        }
    } else if (job->dst_nseg != 0 || (len && job->dst == NULL)) {
        return MBGCM_ERR_INVALID;
    } else {
        (void)check_list(&one_dst, 1, len, &ds);
    }
    if (job->src_sgl == job->dst_sgl && job->src_nseg == job->dst_nseg) {
        return MBGCM_OK; /* the same list: in place, segments disjoint (checked above) */
    }
    /* the common case: the source bytes and the destination bytes lie apart as wholes (out of
       place); else every pair of segments, below */
    if (ss.span && ds.span && (ss.hi < ds.lo || ds.hi < ss.lo)) {
        return MBGCM_OK;
    }
    /* no source byte may share memory with a destination byte, unless the two segments are
       the same buffer at the same position of the message (in place segment by segment; the
       same buffer at another position would be overwritten before it is read) */
    const mbgcm_seg *sl = job->src_sgl ? job->src_sgl : &one_src;
    const mbgcm_seg *dl = job->dst_sgl ? job->dst_sgl : &one_dst;
    const uint32_t sn = job->src_sgl ? job->src_nseg : 1, dn = job->dst_sgl ? job->dst_nseg : 1;
    size_t soff = 0; /* message offset of source segment i (lengths checked above: no wrap) */
    for (uint32_t i = 0; i < sn; soff += sl[i].len, i++) {
        if (sl[i].len == 0) {
            continue;
        }
        size_t doff = 0;
        for (uint32_t j = 0; j < dn; doff += dl[j].len, j++) {
            if (dl[j].len == 0 ||
                (sl[i].ptr == dl[j].ptr && sl[i].len == dl[j].len && soff == doff)) {
                continue;
            }
            if (mbgcmi_overlap(sl[i].ptr, sl[i].len, dl[j].ptr, dl[j].len)) {
                return MBGCM_ERR_INVALID;
            }
        }
    }
    return MBGCM_OK;
}

/* A cursor over a segment list (a linear buffer is a list of one). */
struct cursor {
    const mbgcm_seg *l;
    uint32_t n, i;
    size_t off;
    mbgcm_seg one;
};

static void cursor_init(struct cursor *c, const mbgcm_seg *l, uint32_t n, uint8_t *buf,
                        size_t len)
{
    c->one.ptr = buf;
    c->one.len = len;
    c->l = l ? l : &c->one;
    c->n = l ? n : 1;
    c->i = 0;
    c->off = 0;
}

/* Bytes available in the current segment, skipping exhausted (and empty) ones. */
static size_t cursor_avail(struct cursor *c)
{
    while (c->i < c->n && c->off == c->l[c->i].len) {
        c->i++;
        c->off = 0;
    }
    return c->i < c->n ? c->l[c->i].len - c->off : 0;
}

/* The one segment of a list (or the linear buffer) that holds all |len| bytes, or NULL when
   they are spread over several. */
static uint8_t *only_seg(const mbgcm_seg *l, uint32_t n, uint8_t *buf, size_t len)
{
    if (l == NULL) {
        return buf;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (l[i].len != 0) {
            return l[i].len == len ? l[i].ptr : NULL; /* the lengths add up to |len| */
        }
    }
    return NULL;
}

/* The general walk: each piece as long as both the current source segment and the current
   destination segment allow. */
static void sgl_walk(struct mbgcmi_stream *st, struct cursor *in, struct cursor *out,
                     size_t left)
{
    while (left != 0) {
        const size_t na = cursor_avail(in), nb = cursor_avail(out);
        size_t n = na < nb ? na : nb;
        n = n < left ? n : left;
        mbgcmi_stream_update(st, in->l[in->i].ptr + in->off, n, out->l[out->i].ptr + out->off);
        in->off += n;
        out->off += n;
        left -= n;
    }
}

/* 1 when the job's source and destination are cut at the same message offsets: one of them
   linear, or two lists of the same segment lengths. */
static int same_cuts(const mbgcm_job *job)
{
    if (job->src_sgl == NULL || job->dst_sgl == NULL) {
        return 1;
    }
    if (job->src_nseg != job->dst_nseg) {
        return 0;
    }
    for (uint32_t i = 0; i < job->src_nseg; i++) {
        if (job->src_sgl[i].len != job->dst_sgl[i].len) {
            return 0;
        }
    }
    return 1;
}

int mbgcmi_sgl_run(const struct mbgcmi_arch *a, const mbgcm_job *job)
{
    if (job->len != 0) {
        /* one segment on each side (empty ones aside; a one-segment mbuf, say): the linear
           whole-message path, whose kernels hash the AAD and the length block in the same
           call as the message (the stream pays one more call at each end) */
        const uint8_t *s1 = only_seg(job->src_sgl, job->src_nseg,
                                     (uint8_t *)(uintptr_t)job->src, job->len);
        uint8_t *d1 = only_seg(job->dst_sgl, job->dst_nseg, job->dst, job->len);
        if (s1 != NULL && d1 != NULL) {
            return mbgcmi_gcm_message(a, mbgcmi_key_c(job->key), job->iv, job->iv_len,
                                      job->aad, job->aad_len, s1, job->len, d1, job->tag,
                                      job->tag_len, job->dir == MBGCM_DECRYPT);
        }
    }
    struct mbgcmi_stream st;
    struct cursor in, out;
    uint8_t t[16], expect[16];
    const int dec = job->dir == MBGCM_DECRYPT;
    if (dec) {
        memcpy(expect, job->tag, job->tag_len); /* before any output is written */
    }
    mbgcmi_stream_init(&st, a, mbgcmi_key_c(job->key), job->iv, job->iv_len, job->aad,
                       job->aad_len, dec);
    if (same_cuts(job)) {
        /* one stream update per segment: one side linear, or both lists cut at the same
           offsets (the same shape: an mbuf chain in place or into a chain like it) */
        const mbgcm_seg *sl = job->src_sgl, *dl = job->dst_sgl;
        const uint32_t n = sl ? job->src_nseg : job->dst_nseg;
        size_t off = 0;
        for (uint32_t i = 0; i < n; i++) {
            const size_t len = sl ? sl[i].len : dl[i].len;
            if (len != 0) {
                mbgcmi_stream_update(&st, sl ? sl[i].ptr : job->src + off, len,
                                     dl ? dl[i].ptr : job->dst + off);
                off += len;
            }
        }
    } else {
        cursor_init(&in, job->src_sgl, job->src_nseg, (uint8_t *)(uintptr_t)job->src,
                    job->len);
        cursor_init(&out, job->dst_sgl, job->dst_nseg, job->dst, job->len);
        sgl_walk(&st, &in, &out, job->len);
    }
    mbgcmi_stream_tag(&st, t);
    int fail = 0;
    if (dec) {
        fail = !mbgcmi_ct_equal(t, expect, job->tag_len);
        mbgcmi_wipe(expect, sizeof expect);
    } else {
        memcpy(job->tag, t, job->tag_len);
    }
    mbgcmi_wipe(t, sizeof t);
    return fail;
}
