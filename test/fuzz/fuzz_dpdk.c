/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_dpdk.c — libFuzzer harness (issue 9, (c)): the crypto_mbgcm PMD's op translation
 * (dpdk/mbgcm_pmd_dp.c and the xform parser in dpdk/mbgcm_pmd_ops.c), without EAL.
 *
 * The harness builds a queue pair the way mbgcm_pmd_qp_setup does (a manager, the slot ring,
 * the segment arena, the sessionless scratch session) and feeds enqueue_burst/dequeue_burst
 * with ops made from the input: sessions and sessionless xforms with any algorithm, direction,
 * key, IV, AAD and digest lengths (valid or not), a wrong driver id; mbuf chains of 1..300
 * segments of any lengths (empty ones too), in place or to a second chain; data offset and
 * length anywhere, past the end of the chain included; NULL digest or AAD pointers. A model of
 * the documented behaviour predicts each op's status (INVALID_SESSION, INVALID_ARGS, SUCCESS,
 * AUTH_FAILED); valid ops are checked byte for byte against OpenSSL over the gathered chain
 * bytes; ops come back exactly once, in enqueue order, also across ENOSPC (an arena full of
 * long chains: the op is not taken and is enqueued again after a dequeue).
 */
#include <rte_mbuf.h>

#include "fuzz_common.h"
#include "mbgcm_pmd_priv.h"
#include "test_util.h"

/* defined in dpdk/mbgcm_pmd.c, which registers the driver (not linked here) */
int mbgcm_pmd_logtype;
const struct mbgcm_pmd_flavour mbgcm_pmd_flavours[MBGCM_PMD_TYPE_COUNT];

#define DRIVER_ID 7
#define SLOTS 32
#define MAXOPS 24
#define IV_OFF (sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op))
#define MAXSEG 300

struct chain {
    struct rte_mbuf *m;   /* nseg mbufs */
    uint8_t **bufs;
    unsigned nseg;
    size_t total;
};

struct fop {
    struct rte_crypto_op *op;
    struct rte_crypto_sym_xform xf;     /* sessionless */
    uint8_t key[32];
    struct chain src, dst;
    int inpl, expect, dec;
    size_t len, tl;
    uint8_t *want;                      /* expected bytes at the destination range */
    uint8_t digest[16 + 8], wantdig[16 + 8], aad[64];
};

static struct mbgcm_pmd_qp *qp_new(int timeout)
{
    struct mbgcm_pmd_qp *qp = calloc(1, sizeof *qp + SLOTS * sizeof(struct mbgcm_pmd_slot));
    qp->mask = SLOTS - 1;
    qp->driver_id = DRIVER_ID;
    qp->timeout_ns = timeout ? 1000 : 0;
    qp->nsegs = 2 * MBGCM_MAX_SEGS + 8 * SLOTS;
    qp->segs = calloc(qp->nsegs, sizeof(mbgcm_seg));
    qp->sl_sess = aligned_alloc(64, sizeof(struct mbgcm_pmd_session));
    memset(qp->sl_sess, 0, sizeof *qp->sl_sess);
    mbgcm_config cfg = {0};
    cfg.queue_size = SLOTS;
    cfg.flush_timeout_ns = qp->timeout_ns;
    qp->mgr = mbgcm_mgr_new(&cfg);
    FZ_CHECK(qp->mgr != NULL, "manager");
    return qp;
}

static void qp_free(struct mbgcm_pmd_qp *qp)
{
    mbgcm_mgr_free(qp->mgr);
    mbgcm_pmd_session_wipe(qp->sl_sess);
    free(qp->sl_sess);
    free(qp->segs);
    free(qp);
}

/* A chain of segments whose lengths come from the input; with |want| > 0 the lengths are a
   cut of |want| bytes (the last segment takes the rest). */
static void chain_make(struct fz *f, struct chain *c, unsigned maxseg, size_t want)
{
    c->nseg = 1 + fz_below(f, maxseg);
    c->m = calloc(c->nseg, sizeof *c->m);
    c->bufs = calloc(c->nseg, sizeof *c->bufs);
    c->total = 0;
    const uint64_t seed = fz_u32(f);
    for (unsigned i = 0; i < c->nseg; i++) {
        const uint8_t sz = fz_u8(f);
        uint16_t len = sz < 16 ? 0 : sz < 200 ? sz - 16 : (uint16_t)(sz * 3);
        if (want) {
            const size_t left = want - c->total;
            len = i + 1 == c->nseg ? (uint16_t)left : (uint16_t)(len < left ? len : left);
        }
        const uint16_t head = fz_u8(f) & 31;
        c->bufs[i] = malloc((size_t)head + len + 1);
        fz_expand(seed + i, c->bufs[i], (size_t)head + len);
        c->m[i].buf_addr = c->bufs[i];
        c->m[i].data_off = head;
        c->m[i].data_len = len;
        c->m[i].next = i + 1 < c->nseg ? &c->m[i + 1] : NULL;
        c->m[i].nb_segs = (uint16_t)(c->nseg - i);
        c->total += len;
    }
    c->m[0].pkt_len = (uint32_t)c->total;
}

static void chain_free(struct chain *c)
{
    for (unsigned i = 0; i < c->nseg; i++) {
        free(c->bufs[i]);
    }
    free(c->bufs);
    free(c->m);
}

/* Copy |len| bytes at |off| of a chain out (dir 0) or in (dir 1). */
static void chain_io(struct chain *c, size_t off, size_t len, uint8_t *p, int in)
{
    for (unsigned i = 0; i < c->nseg && len; i++) {
        const size_t dl = c->m[i].data_len;
        if (off >= dl) {
            off -= dl;
            continue;
        }
        const size_t n = dl - off < len ? dl - off : len;
        uint8_t *q = c->bufs[i] + c->m[i].data_off + off;
        if (in) {
            memcpy(q, p, n);
        } else {
            memcpy(p, q, n);
        }
        p += n;
        len -= n;
        off = 0;
    }
}

static int tag_ok(unsigned n)
{
    return n == 4 || n == 8 || (n >= 12 && n <= 16);
}

/* Build op |x| from the input; returns its session (or NULL for sessionless). */
static void op_make(struct fz *f, struct fop *x, void *sess_mem, int *sess_ok, uint8_t *skey,
                    struct rte_crypto_sym_xform *sxf)
{
    memset(x, 0, offsetof(struct fop, digest));
    const uint8_t shape = fz_u8(f);
    const int sessionless = shape & 1;
    x->op = aligned_alloc(64, (IV_OFF + 64 + 63) & ~(size_t)63);
    memset(x->op, 0, IV_OFF + 64);
    struct rte_crypto_op *op = x->op;
    /* (an input that has run out reads as zeros: zeros make a plain valid op) */
    op->type = ((shape >> 1) & 7) != 7 ? RTE_CRYPTO_OP_TYPE_SYMMETRIC
                                       : RTE_CRYPTO_OP_TYPE_ASYMMETRIC;
    op->sess_type = sessionless ? RTE_CRYPTO_OP_SESSIONLESS : RTE_CRYPTO_OP_WITH_SESSION;
    const struct rte_crypto_sym_xform *xf;
    const uint8_t *key;
    int ok;
    if (sessionless) {
        /* an xform of its own, mostly valid */
        const uint8_t v = fz_u8(f);
        static const uint16_t kls[4] = {16, 24, 32, 20};
        memset(&x->xf, 0, sizeof x->xf);
        x->xf.type = (v & 0xC0) == 0x80 ? RTE_CRYPTO_SYM_XFORM_CIPHER : RTE_CRYPTO_SYM_XFORM_AEAD;
        x->xf.aead.algo = (v & 0xC0) == 0xC0 ? RTE_CRYPTO_AEAD_AES_CCM : RTE_CRYPTO_AEAD_AES_GCM;
        x->xf.aead.op = v & 0x20 ? RTE_CRYPTO_AEAD_OP_DECRYPT : RTE_CRYPTO_AEAD_OP_ENCRYPT;
        fz_bytes(f, x->key, 32);
        x->xf.aead.key.data = x->key;
        x->xf.aead.key.length = kls[(v >> 3) & 3];
        x->xf.aead.iv.offset = IV_OFF;
        x->xf.aead.iv.length = v & 4 ? 1 + fz_below(f, 64) : 12;
        x->xf.aead.digest_length = v & 2 ? (uint16_t)fz_below(f, 18) : 16;
        x->xf.aead.aad_length = (uint16_t)fz_below(f, 65);
        op->sym->xform = &x->xf;
        xf = &x->xf;
        key = x->key;
        ok = x->xf.type == RTE_CRYPTO_SYM_XFORM_AEAD && x->xf.aead.algo == RTE_CRYPTO_AEAD_AES_GCM &&
             x->xf.aead.key.length != 20 && tag_ok(x->xf.aead.digest_length);
    } else {
        op->sym->session = sess_mem;
        xf = sxf;
        key = skey;
        ok = *sess_ok;
    }
    const struct rte_crypto_aead_xform *a = &xf->aead;
    x->dec = a->op == RTE_CRYPTO_AEAD_OP_DECRYPT;
    x->tl = a->digest_length;
    /* data */
    chain_make(f, &x->src, shape & 0x10 ? MAXSEG : 4, 0);
    x->inpl = !(shape & 0x20);
    if (!x->inpl) { /* the same length cut differently, or (1 in 8) any length */
        const size_t want = (fz_u8(f) & 7) && x->src.total && x->src.total < 65000 ? x->src.total : 0;
        chain_make(f, &x->dst, shape & 0x10 ? MAXSEG : 4, want);
    }
    op->sym->m_src = (shape & 0xC0) == 0xC0 && (fz_u8(f) & 15) == 0 ? NULL : x->src.m;
    op->sym->m_dst = x->inpl ? (fz_u8(f) & 1 ? x->src.m : NULL) : x->dst.m;
    const uint8_t r = fz_u8(f);
    /* mostly inside the chain; now and then past its end (must be rejected) */
    size_t off = fz_below(f, (unsigned)x->src.total + 1), len;
    if ((r & 7) == 7) {
        off = x->src.total + 1 + (r >> 5);
    }
    const size_t room = x->src.total - (off < x->src.total ? off : x->src.total);
    if ((r & 0x48) == 0x48) {
        len = room + 1 + fz_below(f, 40);
    } else {
        len = r & 8 ? fz_below(f, (unsigned)room + 1) : room;
    }
    op->sym->aead.data.offset = (uint32_t)off;
    op->sym->aead.data.length = (uint32_t)len;
    x->len = len;
    uint8_t *iv = (uint8_t *)op + IV_OFF;
    fz_bytes(f, iv, 64);
    fz_bytes(f, x->aad, sizeof x->aad);
    op->sym->aead.aad.data = (r & 0x30) == 0x30 && (fz_u8(f) & 3) == 0 ? NULL : x->aad;
    op->sym->aead.digest.data = (r & 0x30) == 0x20 && (fz_u8(f) & 3) == 0 ? NULL : x->digest;
    memset(x->digest, 0x77, sizeof x->digest);
    /* the model */
    const size_t dtotal = x->inpl ? x->src.total : x->dst.total;
    int st;
    if (op->type != RTE_CRYPTO_OP_TYPE_SYMMETRIC) {
        st = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
    } else if (!ok) {
        st = sessionless ? RTE_CRYPTO_OP_STATUS_INVALID_ARGS : RTE_CRYPTO_OP_STATUS_INVALID_SESSION;
    } else if (op->sym->m_src == NULL || op->sym->aead.digest.data == NULL ||
               (a->aad_length && op->sym->aead.aad.data == NULL) ||
               (uint64_t)off + len > x->src.total || (uint64_t)off + len > dtotal) {
        st = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
    } else {
        st = RTE_CRYPTO_OP_STATUS_SUCCESS;
    }
    x->expect = st;
    x->want = malloc(len + 1);
    if (st == RTE_CRYPTO_OP_STATUS_SUCCESS) {
        uint8_t *in = malloc(len + 1), full[16];
        chain_io(&x->src, off, len, in, 0);
        if (!x->dec) {
            tu_ossl_gcm_encrypt(key, a->key.length, iv, a->iv.length, x->aad, a->aad_length, in,
                                len, x->want, full, 16);
            memcpy(x->wantdig, x->digest, sizeof x->digest);
            memcpy(x->wantdig, full, x->tl);
        } else {
            /* a genuine tag most of the time, so that decrypts succeed too: CTR is its own
               inverse, so pt = CTR(in) and encrypting pt gives back in with its tag */
            uint8_t *pt = malloc(len + 1), *ct2 = malloc(len + 1);
            tu_ossl_gcm_encrypt(key, a->key.length, iv, a->iv.length, x->aad, a->aad_length, in,
                                len, pt, full, 16);
            tu_ossl_gcm_encrypt(key, a->key.length, iv, a->iv.length, x->aad, a->aad_length, pt,
                                len, ct2, full, 16);
            FZ_CHECK(memcmp(ct2, in, len) == 0, "reference CTR round trip");
            free(ct2);
            if (fz_u8(f) & 7) {
                memcpy(x->digest, full, x->tl);
                memcpy(x->want, pt, len);
            } else {
                x->expect = RTE_CRYPTO_OP_STATUS_AUTH_FAILED; /* 0x77.. is not the tag */
                memset(x->want, 0, len);
            }
            memcpy(x->wantdig, x->digest, sizeof x->digest);
            free(pt);
        }
        free(in);
    } else {
        memcpy(x->wantdig, x->digest, sizeof x->digest);
    }
    /* what the destination range holds before (for the untouched check) */
    if (st != RTE_CRYPTO_OP_STATUS_SUCCESS && (uint64_t)off + len <= dtotal) {
        chain_io(x->inpl ? &x->src : &x->dst, off, len, x->want, 0);
    }
}

static unsigned long long by_status[8], segs_seen, ops_seen;
static void print_stats(void)
{
    fprintf(stderr, "fuzz_dpdk: %llu ops (%llu mbuf segments): success %llu, auth failed %llu, "
            "invalid args %llu, invalid session %llu\n", ops_seen, segs_seen,
            by_status[RTE_CRYPTO_OP_STATUS_SUCCESS], by_status[RTE_CRYPTO_OP_STATUS_AUTH_FAILED],
            by_status[RTE_CRYPTO_OP_STATUS_INVALID_ARGS],
            by_status[RTE_CRYPTO_OP_STATUS_INVALID_SESSION]);
}

static void op_check(struct fop *x)
{
    ops_seen++;
    segs_seen += x->src.nseg + (x->inpl ? 0 : x->dst.nseg);
    by_status[x->expect & 7]++;
    struct rte_crypto_op *op = x->op;
    FZ_CHECK(op->status == x->expect, "op status %d, expected %d (len %zu)", op->status,
             x->expect, x->len);
    const size_t off = op->sym->aead.data.offset;
    const size_t dtotal = x->inpl ? x->src.total : x->dst.total;
    if ((uint64_t)off + x->len <= dtotal) {
        uint8_t *got = malloc(x->len + 1);
        chain_io(x->inpl ? &x->src : &x->dst, off, x->len, got, 0);
        FZ_CHECK(memcmp(got, x->want, x->len) == 0, "output bytes differ (status %d)",
                 op->status);
        free(got);
    }
    FZ_CHECK(memcmp(x->digest, x->wantdig, sizeof x->digest) == 0, "digest buffer differs");
}

static void op_free(struct fop *x)
{
    chain_free(&x->src);
    if (!x->inpl) {
        chain_free(&x->dst);
    }
    free(x->want);
    free(x->op);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    atexit(print_stats);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    const uint8_t c = fz_u8(&f);
    struct mbgcm_pmd_qp *qp = qp_new(c & 1);
    /* one session for the session ops */
    uint8_t *sess_mem = aligned_alloc(64, sizeof(struct rte_cryptodev_sym_session) +
                                              sizeof(struct mbgcm_pmd_session) + 128);
    memset(sess_mem, 0, sizeof(struct rte_cryptodev_sym_session));
    struct rte_cryptodev_sym_session *sess = (void *)sess_mem;
    sess->driver_id = (c & 2) ? DRIVER_ID + 1 : DRIVER_ID;
    struct rte_crypto_sym_xform sxf;
    uint8_t skey[32];
    memset(&sxf, 0, sizeof sxf);
    const uint8_t v = fz_u8(&f);
    static const uint16_t kls[4] = {16, 24, 32, 17};
    fz_bytes(&f, skey, 32);
    sxf.type = RTE_CRYPTO_SYM_XFORM_AEAD;
    sxf.aead.algo = v & 0x40 ? RTE_CRYPTO_AEAD_AES_CCM : RTE_CRYPTO_AEAD_AES_GCM;
    sxf.aead.op = v & 0x20 ? RTE_CRYPTO_AEAD_OP_DECRYPT : RTE_CRYPTO_AEAD_OP_ENCRYPT;
    sxf.aead.key.data = skey;
    sxf.aead.key.length = kls[(v >> 3) & 3];
    sxf.aead.iv.offset = IV_OFF;
    sxf.aead.iv.length = v & 4 ? (uint16_t)fz_below(&f, 65) : 12; /* 0: "J0 in the IV": refused */
    sxf.aead.digest_length = v & 2 ? (uint16_t)fz_below(&f, 18) : 16;
    sxf.aead.aad_length = (uint16_t)fz_below(&f, 65);
    struct mbgcm_pmd_session *s = mbgcm_pmd_session_get(sess);
    memset(s, 0, sizeof *s);
    const int pr = mbgcm_pmd_session_parse(s, &sxf, 0);
    int sess_ok = pr == 0 && sess->driver_id == DRIVER_ID;
    const int parse_should = sxf.aead.algo == RTE_CRYPTO_AEAD_AES_GCM && sxf.aead.key.length != 17 &&
                             sxf.aead.iv.length != 0 && tag_ok(sxf.aead.digest_length);
    FZ_CHECK((pr == 0) == parse_should, "session parse %d, expected %s", pr,
             parse_should ? "success" : "failure");
    /* ops: enqueue in bursts, dequeue in between; order and exactly-once checked */
    struct fop *ops = calloc(MAXOPS, sizeof *ops);
    const unsigned nops = 1 + fz_below(&f, MAXOPS);
    for (unsigned i = 0; i < nops; i++) {
        op_make(&f, &ops[i], sess_mem, &sess_ok, skey, &sxf);
    }
    unsigned enq = 0, deq = 0;
    struct rte_crypto_op *out[MAXOPS];
    while (deq < nops) {
        if (enq < nops) {
            struct rte_crypto_op *in[MAXOPS];
            const unsigned want = 1 + fz_below(&f, nops - enq);
            for (unsigned i = 0; i < want; i++) {
                in[i] = ops[enq + i].op;
            }
            const uint16_t took = mbgcm_pmd_enqueue_burst(qp, in, (uint16_t)want);
            FZ_CHECK(took <= want, "enqueue took more than offered");
            enq += took;
        }
        const uint16_t got = mbgcm_pmd_dequeue_burst(qp, out, (uint16_t)(1 + fz_below(&f, 8)));
        for (unsigned i = 0; i < got; i++) {
            FZ_CHECK(deq < enq && out[i] == ops[deq].op, "dequeue order");
            op_check(&ops[deq]);
            deq++;
        }
        if (got == 0 && enq == deq && enq < nops) {
            continue; /* nothing in flight: enqueue more */
        }
        FZ_CHECK(got > 0 || enq > deq || enq < nops, "stuck");
    }
    for (unsigned i = 0; i < nops; i++) {
        op_free(&ops[i]);
    }
    free(ops);
    mbgcm_pmd_session_wipe(s);
    free(sess_mem);
    qp_free(qp);
    return 0;
}
