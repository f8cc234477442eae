/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sgl.c — scatter-gather jobs: checking the segment lists, and running a job whose input or
 * output is a list of segments. Where the arch has the chunk-list ops and they pay
 * (list_route), the message is a list of 512-byte groups that lie where they are or,
 * straddling segments, in bounce slots: one whole-message call over it when it fits in one
 * list (whole_list), else calls of the chunk-list ctr op inside a stream (core/gcm_stream.c).
 * Otherwise the job streams one piece per stretch where both the current source segment and
 * the current destination segment are contiguous, a 16-byte block that straddles segments
 * completed through the stream's one-block slot. The message is never copied as a whole. A
 * message that lies in one segment on each side takes the linear path instead
 * (docs/design.md, "Scatter-gather jobs"). The common job (an mbuf chain's shape) is checked,
 * routed and listed in one walk first (mbgcmi_sgl_fast); the rest takes the general path.
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
    if (job->src_sgl != NULL && job->src_sgl == job->dst_sgl &&
        job->src_nseg == job->dst_nseg) {
        /* the same list on both sides (in place: an mbuf chain): one scan */
        if (job->src != NULL || job->dst != NULL ||
            check_list(job->src_sgl, job->src_nseg, len, &ss) != 0 ||
            (!ss.ascending && !segs_disjoint(job->src_sgl, job->src_nseg))) {
            return MBGCM_ERR_INVALID;
        }
        return MBGCM_OK;
    }
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

/* A position in a segment list: the current segment's next byte and the bytes left in it,
   and the segments after it (a linear buffer is one segment). */
struct run {
    const mbgcm_seg *next, *end;
    uint8_t *p;
    size_t rem;
};

static void run_init(struct run *r, const mbgcm_seg *l, uint32_t n, uint8_t *buf, size_t len)
{
    r->next = l;
    r->end = l ? l + n : l;
    r->p = l ? NULL : buf;
    r->rem = l ? 0 : len;
}

/* On to the next non-empty segment when the current one is used up. */
static inline void run_fill(struct run *r)
{
    while (r->rem == 0 && r->next != r->end) {
        r->p = r->next->ptr;
        r->rem = r->next->len;
        r->next++;
    }
}

/* The general walk: |left| bytes through the stream, each piece as long as both the current
   source segment and the current destination segment allow. */
static void sgl_walk(struct mbgcmi_stream *st, struct run *in, struct run *out, size_t left)
{
    while (left != 0) {
        run_fill(in);
        run_fill(out);
        size_t k = in->rem < out->rem ? in->rem : out->rem;
        k = k < left ? k : left;
        mbgcmi_stream_update(st, in->p, k, out->p);
        in->p += k;
        in->rem -= k;
        out->p += k;
        out->rem -= k;
        left -= k;
    }
}

/* |n| bytes from the run's position on copied to |buf| (COPY_IN), or from |buf| to them
   (COPY_OUT), or only passed (COPY_NONE). The copies are the arch's copy op, which leaves no
   message byte in a register: the C library's memcpy may use vector registers beyond xmm15
   (EVEX ones on an AVX-512 CPU), which C code cannot clear afterwards, and the bytes are
   plaintext on one side or the other. */
enum { COPY_NONE, COPY_IN, COPY_OUT };
typedef void copy_fn(uint8_t *dst, const uint8_t *src, size_t n);
static void run_copy(struct run *r, uint8_t *buf, size_t n, int how, copy_fn *cp)
{
    while (n != 0) {
        run_fill(r);
        const size_t k = r->rem < n ? r->rem : n;
        if (how == COPY_OUT) {
            cp(r->p, buf, k);
        } else if (how == COPY_IN) {
            cp(buf, r->p, k);
        }
        if (how != COPY_NONE) {
            buf += k; /* (NULL when only passing: no arithmetic on it) */
        }
        r->p += k;
        r->rem -= k;
        n -= k;
    }
}

/* Groups per chunk-list call (32 KiB of message), and bounce slots for the groups that
   straddle segments (8 KiB on the stack): a call ends when either runs out. */
#define LIST_GROUPS 64
#define BOUNCE_SLOTS 16
#define GROUP_BYTES (16 * MBGCMI_CHUNK_BLOCKS)

/* Bounce slots for the groups of one chunk-list call that straddle segments, where their
   outputs go, and how many slots were ever written (for the wipe). */
struct bounces {
    _Alignas(64) uint8_t slot[BOUNCE_SLOTS][GROUP_BYTES];
    struct run back[BOUNCE_SLOTS];
    size_t back_n[BOUNCE_SLOTS];
    uint32_t n, used;
};

/* One call's list: groups of the next |*left| bytes from the runs' positions on (512 bytes
   each, the last one what is left), until LIST_GROUPS groups, BOUNCE_SLOTS bounces or the
   bytes run out; each group that lies in one source and one destination segment is read and
   written where it is, a group that straddles segments on either side is gathered into a
   bounce slot (run there in place, scattered back by list_scatter). With |same| (a job in
   place through one list: its output run would follow the input's step by step) only |in| is
   walked and |out| is not touched. Ends the list with the entry the kernels read after the
   last group; returns the bytes the list covers. */
static inline __attribute__((always_inline)) size_t
list_fill(struct run *in, struct run *out, const int same, size_t *left_p,
          struct mbgcmi_chunk *list, struct bounces *b, copy_fn *cp)
{
    size_t left = *left_p;
    const size_t call = left;
    uint32_t g = 0, nb = 0;
    do {
        const size_t n = left < GROUP_BYTES ? left : GROUP_BYTES;
        if (__builtin_expect(in->rem == 0, 0)) {
            run_fill(in);
        }
        if (!same && __builtin_expect(out->rem == 0, 0)) {
            run_fill(out);
        }
        const size_t orem = same ? in->rem : out->rem;
        uint8_t *const op = same ? in->p : out->p;
        if (in->rem >= 2 * GROUP_BYTES && orem >= 2 * GROUP_BYTES &&
            left >= 2 * GROUP_BYTES && g + 1 < LIST_GROUPS) {
            /* long segments: as many whole groups as both hold, in one go */
            size_t k = (in->rem < orem ? in->rem : orem) / GROUP_BYTES;
            k = k < left / GROUP_BYTES ? k : left / GROUP_BYTES;
            k = k < LIST_GROUPS - g ? k : LIST_GROUPS - g;
            const uint8_t *ip = in->p;
            for (size_t i = 0; i < k; i++) {
                list[g + i].in = ip + i * GROUP_BYTES;
                list[g + i].out = op + i * GROUP_BYTES;
            }
            const size_t adv = k * GROUP_BYTES;
            in->p += adv;
            in->rem -= adv;
            if (!same) {
                out->p += adv;
                out->rem -= adv;
            }
            g += (uint32_t)k;
            left -= adv;
            continue;
        }
        if (__builtin_expect(in->rem >= n && orem >= n, 1)) {
            list[g].in = in->p;
            list[g].out = op;
            in->p += n;
            in->rem -= n;
            if (!same) {
                out->p += n;
                out->rem -= n;
            }
        } else {
            b->back[nb] = same ? *in : *out; /* (in place: before the input moves on) */
            b->back_n[nb] = n;
            run_copy(in, b->slot[nb], n, COPY_IN, cp);
            if (!same) {
                run_copy(out, NULL, n, COPY_NONE, cp);
            }
            list[g].in = b->slot[nb];
            list[g].out = b->slot[nb];
            nb++;
        }
        g++;
        left -= n;
    } while (g < LIST_GROUPS && nb < BOUNCE_SLOTS && left != 0);
    /* the entry read after the last group (its pointers are not used): set by scalar
       stores, as the kernel reads it (a 16-byte copy of the entry before would load
       across its two 8-byte stores, which cannot be forwarded: a stall) */
    list[g].in = NULL;
    list[g].out = NULL;
    b->n = nb;
    *left_p = left;
    return call - left;
}

/* list_fill for a job, in place through one list (|same|) or not, each form compiled with
   its |same| known. */
static inline __attribute__((always_inline)) size_t
list_fill_job(struct run *in, struct run *out, int same, size_t *left_p,
              struct mbgcmi_chunk *list, struct bounces *b, copy_fn *cp)
{
    return same ? list_fill(in, out, 1, left_p, list, b, cp)
                : list_fill(in, out, 0, left_p, list, b, cp);
}

/* 1 when the job runs in place through one list for both sides. */
static int one_list(const mbgcm_job *job)
{
    return job->src_sgl != NULL && job->src_sgl == job->dst_sgl &&
           job->src_nseg == job->dst_nseg;
}

/* The bounced groups' outputs back where they belong. */
static void list_scatter(struct bounces *b, copy_fn *cp)
{
    for (uint32_t j = 0; j < b->n; j++) {
        run_copy(&b->back[j], b->slot[j], b->back_n[j], COPY_OUT, cp);
    }
    b->used = b->n > b->used ? b->n : b->used;
}

/* The job's whole blocks through the arch's chunk-list ctr op, LIST_GROUPS groups per call
   (list_fill), so the kernel's groups stay in flight across segments, where a call per
   segment would start and drain its pipeline at each one. The last partial block (len % 16
   bytes) goes through the stream's one-block slot. */
static void sgl_list(struct mbgcmi_stream *st, const mbgcm_job *job)
{
    /* the runs are set up here, field by field: passed in as structures they were copied in
       16-byte moves that load across 8-byte stores (not forwarded: a stall per job) */
    struct run ri, ro;
    const size_t len = job->len;
    run_init(&ri, job->src_sgl, job->src_nseg, (uint8_t *)(uintptr_t)job->src, len);
    run_init(&ro, job->dst_sgl, job->dst_nseg, job->dst, len);
    const struct mbgcmi_gcm_ops *ops = st->arch->ops;
    copy_fn *const cp = ops->copy; /* (given with the chunk-list ops) */
    struct mbgcmi_chunk list[LIST_GROUPS + 1];
    struct bounces b;
    b.used = 0;
    size_t left = len & ~(size_t)15;
    st->len += left;
    const int same = one_list(job);
    while (left != 0) {
        const size_t bytes = list_fill_job(&ri, &ro, same, &left, list, &b, cp);
        (st->decrypt ? ops->ctr_list_dec : ops->ctr_list_enc)(st->key, st->ctr, st->s, list,
                                                               bytes / 16);
        list_scatter(&b, cp);
    }
    mbgcmi_wipe(b.slot, (size_t)b.used * GROUP_BYTES);
    if (same) {
        ro = ri; /* (the output run stood still) */
    }
    sgl_walk(st, &ri, &ro, len & 15); /* the last partial block, over segment ends */
}

/* The whole job in one call of the arch's whole_list op (J0 to the full tag |t|): every group
   in one list, which the route (list_route) has made sure fits. */
static void sgl_whole(const struct mbgcmi_arch *a, const mbgcm_job *job, uint8_t t[16])
{
    struct run ri, ro;
    const size_t len = job->len;
    run_init(&ri, job->src_sgl, job->src_nseg, (uint8_t *)(uintptr_t)job->src, len);
    run_init(&ro, job->dst_sgl, job->dst_nseg, job->dst, len);
    const struct mbgcmi_gcm_ops *ops = a->ops;
    const struct mbgcmi_key *k = mbgcmi_key_c(job->key);
    uint8_t j0[16];
    if (job->iv_len == 12) {
        mbgcmi_j0_12(job->iv, j0);
    } else {
        mbgcmi_gcm_j0(a, k, job->iv, job->iv_len, j0);
    }
    struct mbgcmi_chunk list[LIST_GROUPS + 1];
    struct bounces b;
    b.used = 0;
    size_t left = len;
    if (len != 0) {
        (void)list_fill_job(&ri, &ro, one_list(job), &left, list, &b, ops->copy);
    } else {
        list[0].in = NULL;
        list[0].out = NULL;
        b.n = 0;
    }
    ops->whole_list(k, j0, job->aad, job->aad_len, list, len, t,
                    job->dir == MBGCM_DECRYPT);
    if (b.n != 0) { /* (a job whose groups all lie where they are bounced nothing) */
        list_scatter(&b, ops->copy);
        mbgcmi_wipe(b.slot, (size_t)b.used * GROUP_BYTES);
    }
}

/* What the route costs depend on: a list's cuts (segment ends inside the message), those off
   the 512-byte group grid, and those inside a block. */
struct cuts {
    size_t all, off_group, off_block;
};

static void list_cuts(const mbgcm_seg *l, uint32_t n, size_t len, struct cuts *c)
{
    size_t o = 0;
    for (uint32_t i = 0; i < n; i++) {
        o += l[i].len;
        const int cut = l[i].len != 0 && o != len;
        c->all += (size_t)cut;
        c->off_group += (size_t)(cut && (o & (GROUP_BYTES - 1)) != 0);
        c->off_block += (size_t)(cut && (o & 15) != 0);
    }
}

/* For an arch with list_grid_only: the cuts of a list (as list_cuts' all) while every one is
   on the group grid; SIZE_MAX at the first that is not (the walk stops there). */
static size_t grid_cuts(const mbgcm_seg *l, uint32_t n, size_t len)
{
    size_t o = 0, all = 0;
    for (uint32_t i = 0; i < n; i++) {
        o += l[i].len;
        if (l[i].len != 0 && o != len) {
            if ((o & (GROUP_BYTES - 1)) != 0) {
                return SIZE_MAX;
            }
            all++;
        }
    }
    return all;
}

/* Which route a job takes: the chunk list where it is expected to beat a kernel call per
   stretch (ROUTE_LIST, or ROUTE_WHOLE: the same list in one whole-message call, where the
   arch has that op and every group fits in one list), else the stretches. A cut off the
   group grid costs the list one bounced group (two copies of 512 bytes) at most once per
   group; a stretch costs the other route a kernel call (its pipeline started and drained),
   and a cut inside a block two one-block calls more. Measured on Zen 5 (docs/perf.md,
   "fifteenth stop"), the list against the stretches: pieces of 64-300 bytes 0.73-0.83, 500 and
   1998 bytes (cuts inside blocks) 0.95-0.98, 400 bytes (cuts on the block grid, each group
   bounced) 1.08-1.12: a bounce weighs about 1.5 stretches. With every cut on the block grid,
   long stretches drain the pipeline rarely and the list pays only while they average under
   4 KiB (encrypting) or 1 KiB (decrypting: a decrypt hashes each group in its own pass, so a
   call per stretch drains nothing); decrypts of 2 KiB pieces ran 5-8% slower through it. An
   arch that says list_grid_only (by16) takes the list only when every cut is on the group
   grid (its whole_list in both directions, below); otherwise an arch without a chunk-list
   ctr op for the job's direction takes the stretches. */
enum { ROUTE_STRETCHES, ROUTE_LIST, ROUTE_WHOLE };
/* For an arch with list_grid_only (by16): the whole-message list call (its own kernel) while
   the stretches average under this many bytes; more groups than one list holds take the
   chunk-list ctr op where the direction has one while they average under GRID_LIST_MAX. On
   the Intel Xeon guest by16's list against a call per stretch: 1 KiB pieces 0.81-0.90 of the
   time (decrypts 0.92-0.96), 2 KiB 0.93-0.97 (0.97-0.99), 4 KiB level, 8 KiB 1.00-1.03; over
   64 groups by32's chunk-list ctr op in 512-byte pieces 0.77-1.0, 2 KiB pieces level, its
   decrypt 2-5% slower (docs/perf.md). */
#define GRID_WHOLE_MAX 4096
#define GRID_LIST_MAX 1024
static int list_route(const struct mbgcmi_gcm_ops *ops, const mbgcm_job *job)
{
    const int has_ctr =
        (job->dir == MBGCM_DECRYPT ? ops->ctr_list_dec : ops->ctr_list_enc) != NULL;
    if (ops->list_grid_only) {
        /* every cut on the group grid, and stretches shorter than GRID_WHOLE_MAX on average:
           not with too few segments for that, which needs no walk */
        const uint32_t nseg = job->src_nseg > job->dst_nseg ? job->src_nseg : job->dst_nseg;
        if (ops->whole_list == NULL || (size_t)nseg * GRID_WHOLE_MAX <= job->len) {
            return ROUTE_STRETCHES;
        }
        const size_t cs = job->src_sgl != NULL ? grid_cuts(job->src_sgl, job->src_nseg, job->len)
                                               : 0;
        const size_t cd = job->dst_sgl != NULL && job->dst_sgl != job->src_sgl
                              ? grid_cuts(job->dst_sgl, job->dst_nseg, job->len)
                              : 0;
        const size_t cuts = cs > cd ? cs : cd;
        if (cuts == SIZE_MAX || (cuts + 1) * GRID_WHOLE_MAX <= job->len) {
            return ROUTE_STRETCHES;
        }
        const size_t groups = (job->len + GROUP_BYTES - 1) / GROUP_BYTES;
        if (groups <= LIST_GROUPS) {
            return ROUTE_WHOLE;
        }
        return has_ctr && (cuts + 1) * GRID_LIST_MAX > job->len ? ROUTE_LIST : ROUTE_STRETCHES;
    }
    if (!has_ctr) {
        return ROUTE_STRETCHES;
    }
    struct cuts s = {0, 0, 0}, d = {0, 0, 0};
    if (job->src_sgl != NULL) {
        list_cuts(job->src_sgl, job->src_nseg, job->len, &s);
    }
    if (job->dst_sgl != NULL && job->dst_sgl != job->src_sgl) {
        list_cuts(job->dst_sgl, job->dst_nseg, job->len, &d);
    }
    /* two lists: as if cut at the same offsets (mbuf chains of one shape) */
    const size_t cuts = d.all > s.all ? d.all : s.all;
    const size_t off_group = d.off_group > s.off_group ? d.off_group : s.off_group;
    const size_t off_block = d.off_block > s.off_block ? d.off_block : s.off_block;
    const size_t groups = (job->len + GROUP_BYTES - 1) / GROUP_BYTES;
    const size_t bounced = off_group < groups ? off_group : groups;
    const size_t stretch_max = job->dir == MBGCM_DECRYPT ? 1024 : 4096;
    if (!(3 * bounced < 2 * (cuts + 1 + off_block) &&
          (off_block != 0 || (cuts + 1) * stretch_max > job->len))) {
        return ROUTE_STRETCHES;
    }
    /* One list for the whole job: at most LIST_GROUPS groups, and fewer groups that straddle
       segments than bounce slots (each group with a cut of either list inside it straddles;
       with at most BOUNCE_SLOTS groups the slots cannot run out before the groups do) */
    const int fits = groups <= LIST_GROUPS &&
                     (groups <= BOUNCE_SLOTS || s.off_group + d.off_group < BOUNCE_SLOTS);
    return ops->whole_list != NULL && fits ? ROUTE_WHOLE : ROUTE_LIST;
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

/* The job through a stream (the full tag to |t|): the chunk list's calls (ROUTE_LIST), or a
   stream update per stretch. */
static void sgl_stream(const struct mbgcmi_arch *a, const mbgcm_job *job, int route,
                       uint8_t t[16])
{
    struct mbgcmi_stream st;
    struct run in, out;
    mbgcmi_stream_init(&st, a, mbgcmi_key_c(job->key), job->iv, job->iv_len, job->aad,
                       job->aad_len, job->dir == MBGCM_DECRYPT);
    if (route == ROUTE_LIST) {
        sgl_list(&st, job);
    } else if (same_cuts(job)) {
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
        run_init(&in, job->src_sgl, job->src_nseg, (uint8_t *)(uintptr_t)job->src, job->len);
        run_init(&out, job->dst_sgl, job->dst_nseg, job->dst, job->len);
        sgl_walk(&st, &in, &out, job->len);
    }
    mbgcmi_stream_tag(&st, t);
}

/* The job's tag from the full tag |t|: a decrypt compares its tag_len bytes with |expect|
   (copied before any output was written: the tag may lie inside dst) in constant time, an
   encrypt stores them; both wiped. Returns 1 when a decrypt's tag failed. */
static int tag_finish(const mbgcm_job *job, int dec, uint8_t t[16], uint8_t expect[16])
{
    int fail = 0;
    if (dec) {
        fail = !mbgcmi_ct_equal(t, expect, job->tag_len);
        mbgcmi_wipe(expect, 16);
    } else {
        memcpy(job->tag, t, job->tag_len);
    }
    mbgcmi_wipe(t, 16);
    return fail;
}

/* What mbgcmi_sgl_fast's walk found: groups written to the list, whether a cut lies off the
   group grid, whether the groups outgrew one list, the source's first and last byte addresses
   and, for two lists, the destination's. */
struct fast_scan {
    uint32_t g;
    int off_grid, over;
    uintptr_t s_lo, s_hi, d_lo, d_hi;
};

/* mbgcmi_sgl_fast's walk, compiled once per destination form (|mode|, a constant): checks n
   >= 2 source segments (|sl|) and their destinations (FAST_SAME: the same segments;
   FAST_LINEAR: |dbase| + offset; FAST_LISTS: |dl|'s segments, of the same lengths) as
   mbgcmi_check_sgl_job would (non-empty, inside the message, no address wrap, after the one
   before it: ascending segments are disjoint), and with |fill| writes the chunk list while
   every cut is on the group grid and the groups fit. 1 when the lists are such, else 0. */
enum { FAST_SAME, FAST_LINEAR, FAST_LISTS };
static inline __attribute__((always_inline)) int
fast_walk(const mbgcm_seg *sl, const mbgcm_seg *dl, uint8_t *dbase, uint32_t n, size_t len,
          const int mode, int fill, struct mbgcmi_chunk *list, struct fast_scan *sc)
{
    uintptr_t s_end = 0, d_end = 0;
    size_t sum = 0;
    uint32_t g = 0;
    int off = 0;
    for (uint32_t i = 0; i < n; i++) {
        const size_t k = sl[i].len;
        const uintptr_t p = (uintptr_t)sl[i].ptr;
        if (k == 0 || p == 0 || k > len - sum || p > UINTPTR_MAX - (k - 1) ||
            (i != 0 && p <= s_end)) {
            return 0;
        }
        s_end = p + (k - 1);
        uintptr_t q = p;
        if (mode == FAST_LINEAR) {
            q = (uintptr_t)dbase + sum;
        } else if (mode == FAST_LISTS) {
            q = (uintptr_t)dl[i].ptr;
            if (dl[i].len != k || q == 0 || q > UINTPTR_MAX - (k - 1) ||
                (i != 0 && q <= d_end)) {
                return 0;
            }
            sc->d_lo = i == 0 ? q : sc->d_lo;
            d_end = q + (k - 1);
        }
        sum += k;
        off |= sum != len && (k & (GROUP_BYTES - 1)) != 0; /* a cut off the group grid */
        if (fill) {
            if (off || k > (size_t)(LIST_GROUPS - g) * GROUP_BYTES) {
                fill = 0;
                sc->over = !off;
                continue;
            }
            list[g].in = (const uint8_t *)p;
            list[g].out = (uint8_t *)q;
            g++;
            for (size_t j = GROUP_BYTES; j < k; j += GROUP_BYTES) { /* (longer segments) */
                list[g].in = (const uint8_t *)(p + j);
                list[g].out = (uint8_t *)(q + j);
                g++;
            }
        }
    }
    sc->g = g;
    sc->off_grid = off;
    sc->s_lo = (uintptr_t)sl[0].ptr;
    sc->s_hi = s_end;
    sc->d_hi = d_end;
    return sum == len;
}

/* The common scatter-gather job in one walk of its lists: what an mbuf chain makes, in place
   through one list, from a list into a linear buffer, or between two lists of the same segment
   lengths, with a 12-byte IV and every segment non-empty and, on each list, in ascending
   address order. The walk checks what mbgcmi_check_sgl_job would and writes the chunk list as
   it goes, where the general path checks the lists, walks them again for the route
   (list_route) and again to fill the list (list_fill). It takes the jobs whose route does not
   depend on bounced groups: one segment (the linear path), every cut on the group grid with
   the stretches shorter than list_route's stretch_max on average (one whole_list call), or
   the stretches where list_route sends them whatever the cuts (no list op for the direction,
   or list_grid_only), or with every cut on the grid. Anything else, an invalid job included,
   is left to the general path untouched (-1), which gives it its own status: every job taken
   here is one the general path would have accepted and run the same way. Returns -1 (not
   taken), 0 (done) or 1 (a decrypt whose tag failed: the caller completes the job, which
   zeroes its output). */
int mbgcmi_sgl_fast(const struct mbgcmi_arch *a, const mbgcm_job *job)
{
    const struct mbgcmi_gcm_ops *const ops = a->ops;
    const int dec = job->dir == MBGCM_DECRYPT;
    const mbgcm_seg *const sl = job->src_sgl, *const dl = job->dst_sgl;
    const uint32_t n = job->src_nseg;
    const size_t len = job->len;
    if ((job->dir != MBGCM_ENCRYPT && !dec) || job->reserved_ != NULL || job->iv_len != 12 ||
        sl == NULL || job->src != NULL || n == 0 || n > MBGCM_MAX_SEGS || len == 0) {
        return -1;
    }
    /* the destination: the same list (in place), a linear buffer, or a list of n segments */
    const int mode = dl == sl ? FAST_SAME : dl == NULL ? FAST_LINEAR : FAST_LISTS;
    uint8_t *const dbase = job->dst;
    if (mode == FAST_LINEAR ? dbase == NULL || job->dst_nseg != 0
                            : dbase != NULL || job->dst_nseg != n) {
        return -1;
    }
    static const uint8_t dummy[1];
    if (mbgcmi_check_args_inline(job->key, job->iv, 12, job->aad, job->aad_len, dummy, len,
                                 dummy, job->tag, job->tag_len) != MBGCM_OK) {
        return -1;
    }
    const struct mbgcmi_key *const k = mbgcmi_key_c(job->key);
    if (n == 1) {
        /* one segment on each side: the linear path (as mbgcmi_sgl_run's only_seg) */
        const uintptr_t p = (uintptr_t)sl[0].ptr;
        const uintptr_t q = mode == FAST_SAME     ? p
                            : mode == FAST_LINEAR ? (uintptr_t)dbase
                                                  : (uintptr_t)dl[0].ptr;
        if (sl[0].len != len || p == 0 || q == 0 || p > UINTPTR_MAX - (len - 1) ||
            q > UINTPTR_MAX - (len - 1) || (mode == FAST_LISTS && dl[0].len != len) ||
            (mode != FAST_SAME && !(p + (len - 1) < q || q + (len - 1) < p))) {
            return -1;
        }
        return mbgcmi_gcm_message(a, k, job->iv, 12, job->aad, job->aad_len, (const uint8_t *)p,
                                  len, (uint8_t *)q, job->tag, job->tag_len, dec);
    }
    /* list_route's choice: the whole-message list call only where every cut is on the group
       grid (no bounce) and the stretches average under stretch_max (a list_grid_only arch:
       its whole_list in both directions) */
    const int grid_only = ops->list_grid_only;
    const int has_list = grid_only ? ops->whole_list != NULL
                                   : (dec ? ops->ctr_list_dec : ops->ctr_list_enc) != NULL;
    if (has_list && ops->whole_list == NULL) {
        return -1;
    }
    const size_t stretch_max = grid_only ? GRID_WHOLE_MAX : dec ? 1024 : 4096;
    const int fill = has_list && (size_t)n * stretch_max > len;
    struct mbgcmi_chunk list[LIST_GROUPS + 1];
    struct fast_scan sc = {0, 0, 0, 0, 0, UINTPTR_MAX, 0};
    const int ok =
        mode == FAST_SAME     ? fast_walk(sl, dl, dbase, n, len, FAST_SAME, fill, list, &sc)
        : mode == FAST_LINEAR ? fast_walk(sl, dl, dbase, n, len, FAST_LINEAR, fill, list, &sc)
                              : fast_walk(sl, dl, dbase, n, len, FAST_LISTS, fill, list, &sc);
    if (!ok) {
        return -1;
    }
    /* out of place: the source bytes and the destination bytes apart as wholes */
    if (mode == FAST_LINEAR) {
        sc.d_lo = (uintptr_t)dbase;
        if (sc.d_lo > UINTPTR_MAX - (len - 1)) {
            return -1;
        }
        sc.d_hi = sc.d_lo + (len - 1);
    }
    if (mode != FAST_SAME && !(sc.s_hi < sc.d_lo || sc.d_hi < sc.s_lo)) {
        return -1;
    }
    const int whole = fill && !sc.off_grid && !sc.over;
    /* the rest of list_route: more groups than one list (its chunk-list calls in a stream),
       or a cut off the grid where bounces weigh in (not list_grid_only): the general path */
    if (!whole && has_list && (sc.over || (sc.off_grid && !grid_only))) {
        return -1;
    }
    uint8_t t[16], expect[16];
    if (dec) {
        memcpy(expect, job->tag, job->tag_len); /* before any output is written */
    }
    if (whole) {
        uint8_t j0[16];
        list[sc.g].in = NULL;
        list[sc.g].out = NULL;
        mbgcmi_j0_12(job->iv, j0);
        ops->whole_list(k, j0, job->aad, job->aad_len, list, len, t, dec);
    } else {
        /* a stream update per segment (sgl_stream's loop for lists cut alike) */
        struct mbgcmi_stream st;
        mbgcmi_stream_init(&st, a, k, job->iv, 12, job->aad, job->aad_len, dec);
        size_t off = 0;
        for (uint32_t i = 0; i < n; i++) {
            const size_t sn = sl[i].len;
            uint8_t *const q = mode == FAST_SAME     ? sl[i].ptr
                               : mode == FAST_LINEAR ? dbase + off
                                                     : dl[i].ptr;
            mbgcmi_stream_update(&st, sl[i].ptr, sn, q);
            off += sn;
        }
        mbgcmi_stream_tag(&st, t);
    }
    return tag_finish(job, dec, t, expect);
}

int mbgcmi_sgl_run(const struct mbgcmi_arch *a, const mbgcm_job *job)
{
    if (job->len != 0) {
        /* one segment on each side (empty ones aside; a one-segment mbuf, say): the linear
           whole-message path, whose kernels hash the AAD and the length block in the same
           call as the message (the stream pays one more call at each end) */
        const uint8_t *s1 = only_seg(job->src_sgl, job->src_nseg,
                                     (uint8_t *)(uintptr_t)job->src, job->len);
        uint8_t *d1 = one_list(job) ? (uint8_t *)(uintptr_t)s1
                                    : only_seg(job->dst_sgl, job->dst_nseg, job->dst, job->len);
        if (s1 != NULL && d1 != NULL) {
            return mbgcmi_gcm_message(a, mbgcmi_key_c(job->key), job->iv, job->iv_len,
                                      job->aad, job->aad_len, s1, job->len, d1, job->tag,
                                      job->tag_len, job->dir == MBGCM_DECRYPT);
        }
    }
    uint8_t t[16], expect[16];
    const int dec = job->dir == MBGCM_DECRYPT;
    if (dec) {
        memcpy(expect, job->tag, job->tag_len); /* before any output is written */
    }
    const int route = list_route(a->ops, job);
    if (route == ROUTE_WHOLE) {
        sgl_whole(a, job, t);
    } else {
        sgl_stream(a, job, route, t);
    }
    return tag_finish(job, dec, t, expect);
}
