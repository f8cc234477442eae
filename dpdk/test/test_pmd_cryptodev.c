/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_cryptodev.c — crypto_mbgcm driven through the public rte_cryptodev API (the PMD is
 * linked into this program; EAL runs without hugepages or PCI).
 *
 *   - every record of the project's vector files, encrypt and decrypt, in place and out of
 *     place, linear and chained mbufs (segments of 1, 7, 64 and 500 bytes; mixed source and
 *     destination layouts), a data offset, the digest in its own buffer or in the packet,
 *     truncated tags;
 *   - bad tags (AUTH_FAILED, destination zeroed, neighbours unaffected), bad ops;
 *   - sessionless ops, mixed with session ops;
 *   - bursts of 1..128 random ops (ordering, mixed keys, sizes, layouts, directions) against
 *     mbgcm's one-shot calls; back-pressure with a small ring and long chains;
 *   - zero-length enqueue flush, the flush_timeout_us and lanes devargs, devarg validation, stats,
 *     several queue pairs.
 * The first groups of tests and the back-pressure test run in both datapath modes: batch mode
 * (flush_timeout_us=0, the default) and ring mode (flush_timeout_us=50).
 *
 * Environment: MBGCM_VECTORS_DIR overrides the vector folder; MBGCM_SEED (hex or decimal)
 * replays the random tests (the seed is printed first).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "gcm_vectors.h"
#include "mbgcm.h"

#ifndef MBGCM_VECTORS_DIR
#error "MBGCM_VECTORS_DIR must be defined by the build"
#endif

#define DRV_NAME "crypto_mbgcm"
#define XFORM_ROOM (2 * sizeof(struct rte_crypto_sym_xform))
#define IV_OFF ((uint16_t)(sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op) + XFORM_ROOM))
#define MAX_IV 128
#define DATA_ROOM 4096
#define GUARD 16   /* bytes after the data region that must not change */
#define HDR_FILL 0xA5
#define GUARD_FILL 0x5A
#define DST_FILL 0xC3

static struct rte_mempool *g_mbufs, *g_small_mbufs, *g_ops, *g_sess;
#define SMALL_ROOM 512 /* segments up to this size come from g_small_mbufs */
static struct gv_record *g_recs;
static size_t g_nrec;
static uint64_t g_seed;

/* ---- small PRNG (xorshift64*), one stream per test -------------------------------------- */

static uint64_t g_rng;
static void rng_seed(const char *label)
{
    uint64_t h = g_seed ^ 0x9e3779b97f4a7c15ull;

    for (; *label; label++)
        h = (h ^ (uint8_t)*label) * 0x100000001b3ull;
    g_rng = h ? h : 1;
}
static uint64_t rng(void)
{
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545f4914f6cdd1dull;
}
static uint32_t rng_below(uint32_t n)
{
    return (uint32_t)(rng() % n);
}
static void rng_fill(uint8_t *p, size_t n)
{
    while (n--)
        *p++ = (uint8_t)rng();
}

/* ---- devices ------------------------------------------------------------------------------ */

/* Create vdev |name| with |args|, |nqp| queue pairs of |ndesc| descriptors, started. */
static uint8_t dev_open(const char *name, const char *args, uint16_t nqp, uint32_t ndesc)
{
    struct rte_cryptodev_config conf = {.socket_id = (int)rte_socket_id(), .nb_queue_pairs = nqp};
    struct rte_cryptodev_qp_conf qc = {.nb_descriptors = ndesc, .mp_session = g_sess};
    int id;
    uint16_t q;

    assert_int_equal(rte_vdev_init(name, args), 0);
    id = rte_cryptodev_get_dev_id(name);
    assert_true(id >= 0);
    assert_int_equal(rte_cryptodev_configure((uint8_t)id, &conf), 0);
    for (q = 0; q < nqp; q++)
        assert_int_equal(rte_cryptodev_queue_pair_setup((uint8_t)id, q, &qc, (int)rte_socket_id()), 0);
    assert_int_equal(rte_cryptodev_start((uint8_t)id), 0);
    return (uint8_t)id;
}

static void dev_close(uint8_t id, const char *name)
{
    rte_cryptodev_stop(id);
    assert_int_equal(rte_vdev_uninit(name), 0);
}

/* ---- ops ---------------------------------------------------------------------------------- */

/* What one op does and what must come out. */
struct t_spec {
    const uint8_t *key;
    size_t key_len;
    const uint8_t *iv;
    size_t iv_len;
    const uint8_t *aad;
    size_t aad_len;
    const uint8_t *in;   /* input data, len bytes */
    size_t len;
    const uint8_t *out;  /* expected output, len bytes */
    const uint8_t *tag;  /* encrypt: expected tag; decrypt: the tag handed to the op */
    size_t tag_len;
    int dir;             /* MBGCM_ENCRYPT / MBGCM_DECRYPT */
    uint32_t off;        /* aead.data.offset */
    uint32_t src_seg;    /* 0: one segment; else segment size of the source chain */
    uint32_t dst_seg;    /* same for an out-of-place destination */
    int oop;             /* out of place */
    int sessionless;
    int digest_in_packet;/* linear in place only: the digest follows the data in the mbuf */
    uint8_t status;      /* expected op status */
    void *sess;          /* a session to use instead of making one (not freed by t_free) */
};

struct t_op {
    struct t_spec s;
    struct rte_crypto_op *op;
    struct rte_mbuf *msrc, *mdst;
    uint8_t *aad, *digest, *key; /* owned copies */
    void *sess;                  /* made for this op (freed by t_free) */
    uint8_t dev;
    int done;
};

static struct rte_crypto_sym_xform make_xform(const struct t_spec *s, const uint8_t *key)
{
    struct rte_crypto_sym_xform xf;

    memset(&xf, 0, sizeof(xf));
    xf.type = RTE_CRYPTO_SYM_XFORM_AEAD;
    xf.aead.op = s->dir == MBGCM_ENCRYPT ? RTE_CRYPTO_AEAD_OP_ENCRYPT : RTE_CRYPTO_AEAD_OP_DECRYPT;
    xf.aead.algo = RTE_CRYPTO_AEAD_AES_GCM;
    xf.aead.key.data = key;
    xf.aead.key.length = (uint16_t)s->key_len;
    xf.aead.iv.offset = IV_OFF;
    xf.aead.iv.length = (uint16_t)s->iv_len;
    xf.aead.digest_length = (uint16_t)s->tag_len;
    xf.aead.aad_length = (uint16_t)s->aad_len;
    return xf;
}

static void *make_session(uint8_t dev, const struct t_spec *s)
{
    struct rte_crypto_sym_xform xf = make_xform(s, s->key);
    void *sess = rte_cryptodev_sym_session_create(dev, &xf, g_sess);

    if (sess == NULL)
        fail_msg("session create failed: rte_errno %d", rte_errno);
    return sess;
}

/* A chain holding |fill_hdr| x off, then data[len], then GUARD guard bytes (+ extra room at
   the end of the last segment when |tail| > 0), cut into |seg|-byte segments (0: one). */
static struct rte_mbuf *make_chain(const uint8_t *data, size_t len, uint32_t off, uint32_t seg,
                                   uint8_t fill_hdr, size_t tail)
{
    size_t total = off + len + GUARD, pos = 0;
    uint8_t *flat = malloc(total + 1);
    struct rte_mbuf *head = NULL;

    assert_non_null(flat);
    memset(flat, fill_hdr, off);
    if (len != 0)
        memcpy(flat + off, data, len);
    memset(flat + off + len, GUARD_FILL, GUARD);
    if (seg == 0)
        seg = (uint32_t)total;
    while (pos < total) {
        size_t n = total - pos < seg ? total - pos : seg;
        struct rte_mempool *mp = seg <= SMALL_ROOM && tail == 0 ? g_small_mbufs : g_mbufs;
        struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
        char *p;

        if (m == NULL)
            fail_msg("mbuf pool %s empty (%u in use)", mp->name, rte_mempool_in_use_count(mp));
        p = rte_pktmbuf_append(m, (uint16_t)n);
        assert_non_null(p);
        memcpy(p, flat + pos, n);
        if (head == NULL)
            head = m;
        else
            assert_int_equal(rte_pktmbuf_chain(head, m), 0);
        pos += n;
    }
    if (tail != 0) {
        struct rte_mbuf *last = rte_pktmbuf_lastseg(head);

        assert_true(rte_pktmbuf_tailroom(last) >= tail);
    }
    free(flat);
    return head;
}

static void t_build(struct t_op *t, uint8_t dev, const struct t_spec *s)
{
    struct rte_crypto_sym_op *sym;
    uint8_t *iv;

    memset(t, 0, sizeof(*t));
    t->s = *s;
    t->dev = dev;
    t->op = rte_crypto_op_alloc(g_ops, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
    assert_non_null(t->op);
    sym = t->op->sym;
    t->key = malloc(s->key_len ? s->key_len : 1);
    memcpy(t->key, s->key, s->key_len);
    if (s->sessionless) {
        struct rte_crypto_sym_xform *xf = rte_crypto_op_sym_xforms_alloc(t->op, 1);

        assert_non_null(xf);
        *xf = make_xform(s, t->key);
        t->op->sess_type = RTE_CRYPTO_OP_SESSIONLESS;
    } else {
        void *sess = s->sess;

        if (sess == NULL)
            sess = t->sess = make_session(dev, s);
        assert_int_equal(rte_crypto_op_attach_sym_session(t->op, sess), 0);
    }
    assert_true(s->iv_len <= MAX_IV);
    iv = rte_crypto_op_ctod_offset(t->op, uint8_t *, IV_OFF);
    memcpy(iv, s->iv, s->iv_len);
    t->aad = malloc(s->aad_len + 1);
    memcpy(t->aad, s->aad, s->aad_len);
    t->msrc = make_chain(s->in, s->len, s->off, s->src_seg, HDR_FILL,
                         s->digest_in_packet ? s->tag_len : 0);
    if (s->oop) {
        uint8_t *junk = malloc(s->len + 1);

        memset(junk, DST_FILL, s->len);
        t->mdst = make_chain(junk, s->len, s->off, s->dst_seg, HDR_FILL, 0);
        free(junk);
    }
    sym->m_src = t->msrc;
    sym->m_dst = t->mdst;
    sym->aead.data.offset = s->off;
    sym->aead.data.length = (uint32_t)s->len;
    sym->aead.aad.data = s->aad_len ? t->aad : NULL;
    if (s->digest_in_packet) {
        struct rte_mbuf *last = rte_pktmbuf_lastseg(t->msrc);

        assert_false(s->oop);
        t->digest = (uint8_t *)rte_pktmbuf_append(t->msrc, (uint16_t)s->tag_len);
        assert_non_null(t->digest);
        (void)last;
    } else {
        t->digest = malloc(16);
    }
    if (s->dir == MBGCM_DECRYPT)
        memcpy(t->digest, s->tag, s->tag_len);
    else
        memset(t->digest, 0xEE, s->tag_len);
    sym->aead.digest.data = t->digest;
}

static void t_free(struct t_op *t)
{
    if (t->sess != NULL)
        assert_int_equal(rte_cryptodev_sym_session_free(t->dev, t->sess), 0);
    if (!t->s.digest_in_packet)
        free(t->digest);
    rte_pktmbuf_free(t->msrc);
    if (t->mdst != NULL)
        rte_pktmbuf_free(t->mdst);
    rte_crypto_op_free(t->op);
    free(t->aad);
    free(t->key);
    memset(t, 0, sizeof(*t));
}

static const char *status_name(int st)
{
    switch (st) {
    case RTE_CRYPTO_OP_STATUS_SUCCESS: return "SUCCESS";
    case RTE_CRYPTO_OP_STATUS_NOT_PROCESSED: return "NOT_PROCESSED";
    case RTE_CRYPTO_OP_STATUS_AUTH_FAILED: return "AUTH_FAILED";
    case RTE_CRYPTO_OP_STATUS_INVALID_SESSION: return "INVALID_SESSION";
    case RTE_CRYPTO_OP_STATUS_INVALID_ARGS: return "INVALID_ARGS";
    case RTE_CRYPTO_OP_STATUS_ERROR: return "ERROR";
    default: return "?";
    }
}

/* Read |n| bytes at |off| of chain |m| into |buf|. */
static void chain_read(const struct rte_mbuf *m, uint32_t off, size_t n, uint8_t *buf)
{
    const void *p;

    if (n == 0)
        return;
    p = rte_pktmbuf_read(m, off, (uint32_t)n, buf);
    assert_non_null(p);
    if (p != buf)
        memcpy(buf, p, n);
}

static int all_bytes(const uint8_t *p, size_t n, uint8_t b)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != b)
            return 0;
    return 1;
}

/* Check one completed op against its spec; |what| names it in failures. */
static void t_check(const struct t_op *t, const char *what)
{
    const struct t_spec *s = &t->s;
    const struct rte_mbuf *out = s->oop ? t->mdst : t->msrc;
    size_t n = s->off + s->len + GUARD;
    uint8_t *buf = malloc(n + 1);

    if (t->op->status != s->status)
        fail_msg("%s: status %s, expected %s", what, status_name(t->op->status),
                 status_name(s->status));
    chain_read(out, 0, n, buf);
    if (!all_bytes(buf, s->off, HDR_FILL))
        fail_msg("%s: bytes before aead.data.offset changed", what);
    if (!all_bytes(buf + s->off + s->len, GUARD, GUARD_FILL))
        fail_msg("%s: bytes after the data changed", what);
    if (s->status == RTE_CRYPTO_OP_STATUS_SUCCESS) {
        if (s->len && memcmp(buf + s->off, s->out, s->len) != 0)
            fail_msg("%s: wrong output data", what);
        if (s->dir == MBGCM_ENCRYPT && memcmp(t->digest, s->tag, s->tag_len) != 0)
            fail_msg("%s: wrong tag", what);
    } else if (s->status == RTE_CRYPTO_OP_STATUS_AUTH_FAILED) {
        if (!all_bytes(buf + s->off, s->len, 0))
            fail_msg("%s: AUTH_FAILED but the output is not zeroed", what);
    }
    if (s->oop) { /* the source is never written */
        uint8_t *src = malloc(s->len + 1);

        chain_read(t->msrc, s->off, s->len, src);
        if (s->len && memcmp(src, s->in, s->len) != 0)
            fail_msg("%s: out of place, but the source changed", what);
        free(src);
    }
    free(buf);
}

/*
 * Enqueue |n| ops on (dev, qp) in bursts of |burst| and dequeue until all are back; ops must
 * come back in enqueue order. Enqueue may take fewer than offered (back-pressure): the rest is
 * offered again after a dequeue. Returns how many enqueue calls took fewer than offered.
 */
static unsigned run_ops(uint8_t dev, uint16_t qp, struct t_op *t, size_t n, uint16_t burst)
{
    struct rte_crypto_op **in = calloc(n + 1, sizeof(*in)), **out = calloc(n + 1, sizeof(*out));
    size_t enq = 0, deq = 0, i;
    unsigned partial = 0;
    uint64_t spins = 0;

    for (i = 0; i < n; i++)
        in[i] = t[i].op;
    while (deq < n) {
        if (enq < n) {
            uint16_t want = (uint16_t)(n - enq < burst ? n - enq : burst);
            uint16_t got = rte_cryptodev_enqueue_burst(dev, qp, in + enq, want);

            partial += got < want;
            enq += got;
        }
        {
            uint16_t want = (uint16_t)(n - deq < 128 ? n - deq : 128);
            uint16_t got = rte_cryptodev_dequeue_burst(dev, qp, out + deq, want);

            deq += got;
        }
        if (++spins > 100000000ull)
            fail_msg("ops do not come back: %zu of %zu enqueued, %zu dequeued", enq, n, deq);
    }
    for (i = 0; i < n; i++)
        if (out[i] != in[i])
            fail_msg("op %zu came back out of order", i);
    free(in);
    free(out);
    return partial;
}

/* ---- the vector files --------------------------------------------------------------------- */

struct layout {
    const char *name;
    uint32_t src_seg, dst_seg;
    int oop;
};

static const struct layout g_layouts[] = {
    {"linear in place", 0, 0, 0},
    {"linear out of place", 0, 0, 1},
    {"chain1 in place", 1, 0, 0},
    {"chain7 in place", 7, 0, 0},
    {"chain64 in place", 64, 0, 0},
    {"chain500 in place", 500, 0, 0},
    {"chain1 -> chain1", 1, 1, 1},
    {"chain7 -> chain7", 7, 7, 1},
    {"chain64 -> chain64", 64, 64, 1},
    {"chain500 -> chain500", 500, 500, 1},
    {"chain7 -> linear", 7, 0, 1},
    {"linear -> chain64", 0, 64, 1},
    {"chain1 -> chain500", 1, 500, 1},
    {"chain64 -> chain7", 64, 7, 1},
};

static struct t_spec rec_spec(const struct gv_record *r, int dir, const struct layout *l,
                              uint32_t off, size_t tag_len)
{
    struct t_spec s;

    memset(&s, 0, sizeof(s));
    s.key = r->key;
    s.key_len = r->key_len;
    s.iv = r->nonce;
    s.iv_len = r->nonce_len;
    s.aad = r->aad;
    s.aad_len = r->aad_len;
    s.len = r->pt_len;
    s.in = dir == MBGCM_ENCRYPT ? r->pt : r->ct;
    s.out = dir == MBGCM_ENCRYPT ? r->ct : r->pt;
    s.tag = r->tag;
    s.tag_len = tag_len;
    s.dir = dir;
    s.off = off;
    s.src_seg = l->src_seg;
    s.dst_seg = l->dst_seg;
    s.oop = l->oop;
    s.status = RTE_CRYPTO_OP_STATUS_SUCCESS;
    return s;
}

struct vec_dev {
    uint8_t id;
    const char *name;
    const char *args;
};

/* The group runs twice: batch mode (the default, flush_timeout_us=0: every op is done when
   enqueue returns) and ring mode (a 50 us timeout: jobs wait in the manager's lanes across
   enqueue calls and come back through dequeue's polling). */
static int vec_setup_dev(void **state, struct vec_dev *d)
{
    d->id = dev_open(d->name, d->args, 1, 512);
    *state = d;
    return 0;
}
static int vec_setup(void **state)
{
    static struct vec_dev d = {0, "crypto_mbgcm_vec", ""};

    return vec_setup_dev(state, &d);
}
static int vec_setup_ring(void **state)
{
    static struct vec_dev d = {0, "crypto_mbgcm_vec_ring", "flush_timeout_us=50"};

    return vec_setup_dev(state, &d);
}

static int vec_teardown(void **state)
{
    struct vec_dev *d = *state;

    dev_close(d->id, d->name);
    return 0;
}

/* All records through one layout and direction, 32 ops per burst. */
static void run_records(uint8_t dev, const struct layout *l, int dir, int sessionless,
                        size_t tag_len, int digest_in_packet)
{
    struct t_op *t = calloc(g_nrec, sizeof(*t));
    size_t i;

    for (i = 0; i < g_nrec; i++) {
        struct t_spec s = rec_spec(&g_recs[i], dir, l, (uint32_t)(i % 3 == 1 ? 13 : 0), tag_len);

        s.sessionless = sessionless;
        s.digest_in_packet = digest_in_packet;
        t_build(&t[i], dev, &s);
    }
    run_ops(dev, 0, t, g_nrec, 32);
    for (i = 0; i < g_nrec; i++) {
        char what[256];

        snprintf(what, sizeof(what), "%s, %s%s, tag %zu: record %s", l->name,
                 dir == MBGCM_ENCRYPT ? "encrypt" : "decrypt", sessionless ? ", sessionless" : "",
                 tag_len, g_recs[i].where);
        t_check(&t[i], what);
        t_free(&t[i]);
    }
    free(t);
}

static void test_vectors_all_layouts(void **state)
{
    const struct vec_dev *d = *state;
    size_t l;

    for (l = 0; l < sizeof(g_layouts) / sizeof(g_layouts[0]); l++) {
        run_records(d->id, &g_layouts[l], MBGCM_ENCRYPT, 0, 16, 0);
        run_records(d->id, &g_layouts[l], MBGCM_DECRYPT, 0, 16, 0);
    }
    print_message("  %zu records x %zu layouts x 2 directions\n", g_nrec,
                  sizeof(g_layouts) / sizeof(g_layouts[0]));
}

static void test_vectors_digest_in_packet_and_short_tags(void **state)
{
    const struct vec_dev *d = *state;
    static const size_t tags[] = {4, 8, 12, 13, 14, 15};
    size_t i;

    run_records(d->id, &g_layouts[0], MBGCM_ENCRYPT, 0, 16, 1);
    run_records(d->id, &g_layouts[0], MBGCM_DECRYPT, 0, 16, 1);
    for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
        run_records(d->id, &g_layouts[i % 2 ? 3 : 0], MBGCM_ENCRYPT, 0, tags[i], 0);
        run_records(d->id, &g_layouts[i % 2 ? 3 : 0], MBGCM_DECRYPT, 0, tags[i], 0);
    }
}

static void test_vectors_sessionless(void **state)
{
    const struct vec_dev *d = *state;
    static const size_t layouts[] = {0, 1, 2, 3, 7, 10};
    size_t i;

    for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
        run_records(d->id, &g_layouts[layouts[i]], MBGCM_ENCRYPT, 1, 16, 0);
        run_records(d->id, &g_layouts[layouts[i]], MBGCM_DECRYPT, 1, 16, 0);
    }
}

/* Every record decrypted with a corrupted tag or ciphertext, between good ops. */
static void test_bad_tags(void **state)
{
    const struct vec_dev *d = *state;
    static const size_t layouts[] = {0, 1, 2, 3, 7, 13};
    size_t li;

    for (li = 0; li < sizeof(layouts) / sizeof(layouts[0]); li++) {
        const struct layout *l = &g_layouts[layouts[li]];
        size_t n = 2 * g_nrec, i;
        struct t_op *t = calloc(n, sizeof(*t));
        uint8_t **bad = calloc(n, sizeof(*bad));

        for (i = 0; i < n; i++) {
            const struct gv_record *r = &g_recs[i / 2];
            struct t_spec s = rec_spec(r, MBGCM_DECRYPT, l, (uint32_t)(i % 5), 16);

            s.sessionless = i % 7 == 3;
            if (i % 2 == 1) { /* corrupt: the tag, or the ciphertext when there is one */
                bad[i] = malloc(r->pt_len + 16);
                memcpy(bad[i], r->ct, r->pt_len);
                memcpy(bad[i] + r->pt_len, r->tag, 16);
                if (r->pt_len != 0 && i % 4 == 3) {
                    bad[i][(i * 31) % r->pt_len] ^= 0x10;
                    s.in = bad[i];
                } else {
                    bad[i][r->pt_len + (i % 16)] ^= 0x01;
                    s.tag = bad[i] + r->pt_len;
                }
                s.status = RTE_CRYPTO_OP_STATUS_AUTH_FAILED;
            }
            t_build(&t[i], d->id, &s);
        }
        run_ops(d->id, 0, t, n, 32);
        for (i = 0; i < n; i++) {
            char what[256];

            snprintf(what, sizeof(what), "bad tags, %s: record %s (%s)", l->name,
                     g_recs[i / 2].where, i % 2 ? "corrupted" : "good");
            t_check(&t[i], what);
            t_free(&t[i]);
            free(bad[i]);
        }
        free(t);
        free(bad);
    }
}

/* ---- capabilities, sessions, devargs ------------------------------------------------------ */

static void test_device_info(void **state)
{
    const struct vec_dev *d = *state;
    struct rte_cryptodev_info info;
    struct rte_cryptodev_sym_capability_idx idx = {.type = RTE_CRYPTO_SYM_XFORM_AEAD,
                                                   .algo.aead = RTE_CRYPTO_AEAD_AES_GCM};
    const struct rte_cryptodev_symmetric_capability *cap;
    const uint64_t need = RTE_CRYPTODEV_FF_SYMMETRIC_CRYPTO | RTE_CRYPTODEV_FF_IN_PLACE_SGL |
                          RTE_CRYPTODEV_FF_OOP_SGL_IN_SGL_OUT | RTE_CRYPTODEV_FF_OOP_SGL_IN_LB_OUT |
                          RTE_CRYPTODEV_FF_OOP_LB_IN_SGL_OUT | RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT |
                          RTE_CRYPTODEV_FF_SYM_SESSIONLESS;

    rte_cryptodev_info_get(d->id, &info);
    assert_string_equal(info.driver_name, DRV_NAME);
    assert_int_equal(rte_cryptodev_driver_id_get(DRV_NAME), info.driver_id);
    assert_true((info.feature_flags & need) == need);
    assert_false(info.feature_flags & RTE_CRYPTODEV_FF_HW_ACCELERATED);
    cap = rte_cryptodev_sym_capability_get(d->id, &idx);
    assert_non_null(cap);
    assert_int_equal(rte_cryptodev_sym_capability_check_aead(cap, 16, 16, 0, 12), 0);
    assert_int_equal(rte_cryptodev_sym_capability_check_aead(cap, 24, 16, 65535, 12), 0);
    assert_int_equal(rte_cryptodev_sym_capability_check_aead(cap, 32, 4, 20, 12), 0);
    assert_int_equal(rte_cryptodev_sym_capability_check_aead(cap, 32, 8, 20, 60), 0);
    assert_int_not_equal(rte_cryptodev_sym_capability_check_aead(cap, 20, 16, 0, 12), 0);
    assert_int_not_equal(rte_cryptodev_sym_capability_check_aead(cap, 16, 20, 0, 12), 0);
    assert_int_not_equal(rte_cryptodev_sym_capability_check_aead(cap, 16, 16, 0, 0), 0);
    idx.algo.aead = RTE_CRYPTO_AEAD_AES_CCM;
    assert_null(rte_cryptodev_sym_capability_get(d->id, &idx));
    idx.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
    idx.algo.cipher = RTE_CRYPTO_CIPHER_AES_CTR;
    assert_null(rte_cryptodev_sym_capability_get(d->id, &idx));
}

static void test_session_setup(void **state)
{
    const struct vec_dev *d = *state;
    static const uint8_t key[32];
    struct t_spec s;
    struct rte_crypto_sym_xform xf;
    size_t tl;
    void *sess;

    memset(&s, 0, sizeof(s));
    s.key = key;
    s.key_len = 16;
    s.iv_len = 12;
    s.dir = MBGCM_ENCRYPT;
    for (tl = 0; tl <= 17; tl++) { /* mbgcm's tag lengths only */
        int ok = tl == 4 || tl == 8 || (tl >= 12 && tl <= 16);

        s.tag_len = tl;
        xf = make_xform(&s, key);
        sess = rte_cryptodev_sym_session_create(d->id, &xf, g_sess);
        if (ok) {
            assert_non_null(sess);
            assert_int_equal(rte_cryptodev_sym_session_free(d->id, sess), 0);
        } else if (sess != NULL) {
            fail_msg("tag length %zu accepted", tl);
        }
    }
    s.tag_len = 16;
    for (s.key_len = 0; s.key_len <= 32; s.key_len++) {
        int ok = s.key_len == 16 || s.key_len == 24 || s.key_len == 32;

        xf = make_xform(&s, key);
        sess = rte_cryptodev_sym_session_create(d->id, &xf, g_sess);
        assert_int_equal(sess != NULL, ok);
        if (sess)
            rte_cryptodev_sym_session_free(d->id, sess);
    }
    s.key_len = 32;
    s.iv_len = 0; /* "J0 in the IV field" is not supported */
    xf = make_xform(&s, key);
    assert_null(rte_cryptodev_sym_session_create(d->id, &xf, g_sess));
    s.iv_len = 12;
    xf = make_xform(&s, key);
    xf.aead.algo = RTE_CRYPTO_AEAD_AES_CCM;
    assert_null(rte_cryptodev_sym_session_create(d->id, &xf, g_sess));
    assert_int_equal(rte_errno, ENOTSUP);
    xf = make_xform(&s, key);
    xf.aead.key.data = NULL;
    assert_null(rte_cryptodev_sym_session_create(d->id, &xf, g_sess));
    memset(&xf, 0, sizeof(xf));
    xf.type = RTE_CRYPTO_SYM_XFORM_CIPHER;
    xf.cipher.algo = RTE_CRYPTO_CIPHER_AES_CTR;
    xf.cipher.key.data = key;
    xf.cipher.key.length = 16;
    assert_null(rte_cryptodev_sym_session_create(d->id, &xf, g_sess));
}

static void test_devargs(void **state)
{
    static const char *const bad[] = {
        "flush_timeout_us=abc", "flush_timeout_us=-1", "flush_timeout_us=60000001",
        "flush_timeout_us=", "nosuchkey=1", "max_nb_queue_pairs=0", "socket_id=abc",
        "lanes=2", "lanes=20", "lanes=", "lanes=x",
    };
    struct rte_cryptodev_info info;
    size_t i;
    int id;

    (void)state;
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (rte_vdev_init("crypto_mbgcm_badarg", bad[i]) == 0) {
            rte_vdev_uninit("crypto_mbgcm_badarg");
            fail_msg("devargs '%s' accepted", bad[i]);
        }
    }
    assert_int_equal(rte_vdev_init("crypto_mbgcm_args", "flush_timeout_us=60000000,max_nb_queue_pairs=3"), 0);
    id = rte_cryptodev_get_dev_id("crypto_mbgcm_args");
    assert_true(id >= 0);
    rte_cryptodev_info_get((uint8_t)id, &info);
    assert_int_equal(info.max_nb_queue_pairs, 3);
    assert_int_equal(rte_vdev_uninit("crypto_mbgcm_args"), 0);
}

/* ---- bad ops ------------------------------------------------------------------------------ */

static void test_bad_ops(void **state)
{
    const struct vec_dev *d = *state;
    const struct gv_record *r = &g_recs[4];
    enum { N = 9 };
    struct t_op t[N];
    struct rte_cryptodev_stats st;
    struct t_spec s;
    int i;

    rte_cryptodev_stats_reset(d->id);
    for (i = 0; i < N; i++) {
        s = rec_spec(r, MBGCM_ENCRYPT, &g_layouts[i % 2 ? 3 : 0], 0, 16);
        t_build(&t[i], d->id, &s);
    }
    /* 1: no session */
    t[1].op->sym->session = NULL;
    t[1].s.status = RTE_CRYPTO_OP_STATUS_INVALID_SESSION;
    t[1].s.out = r->pt; /* untouched */
    /* 3: data beyond the packet */
    t[3].op->sym->aead.data.offset = 10000;
    t[3].s.status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
    t[3].s.out = r->pt;
    /* 5: no digest pointer */
    t[5].op->sym->aead.digest.data = NULL;
    t[5].s.status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
    t[5].s.out = r->pt;
    /* 6: sessionless with an unsupported xform (AES-CCM) */
    {
        struct rte_crypto_sym_xform *xf = rte_crypto_op_sym_xforms_alloc(t[6].op, 1);

        *xf = make_xform(&t[6].s, t[6].key);
        xf->aead.algo = RTE_CRYPTO_AEAD_AES_CCM;
        t[6].op->sess_type = RTE_CRYPTO_OP_SESSIONLESS;
        t[6].s.status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
        t[6].s.out = r->pt;
    }
    /* 7: a length past the end of the chain */
    t[7].op->sym->aead.data.length = (uint32_t)r->pt_len + GUARD + 1;
    t[7].s.status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
    t[7].s.out = r->pt;
    /* 8: no source mbuf */
    {
        struct rte_mbuf *m = t[8].op->sym->m_src;

        t[8].op->sym->m_src = NULL;
        run_ops(d->id, 0, t, N, N);
        t[8].op->sym->m_src = m;
    }
    t[8].s.status = RTE_CRYPTO_OP_STATUS_INVALID_ARGS;
    t[8].s.out = r->pt;
    for (i = 0; i < N; i++) {
        char what[64];

        snprintf(what, sizeof(what), "bad ops: op %d", i);
        t_check(&t[i], what);
        t_free(&t[i]);
    }
    assert_int_equal(rte_cryptodev_stats_get(d->id, &st), 0);
    assert_int_equal(st.enqueued_count, N);
    assert_int_equal(st.dequeued_count, N);
    assert_int_equal(st.dequeue_err_count, 6);
    assert_int_equal(st.enqueue_err_count, 0);
}

/* ---- random bursts ------------------------------------------------------------------------ */

/* A random op with one of |nsess| sessions (|specs| hold their parameters). */
struct rnd_ctx {
    uint8_t keys[6][32];
    struct t_spec base[6]; /* key, lengths, direction of each session */
    void *sess[6];
};

static void rnd_ctx_init(struct rnd_ctx *c, uint8_t dev)
{
    static const size_t klen[6] = {16, 24, 32, 16, 32, 16};
    static const size_t alen[6] = {0, 8, 16, 20, 64, 13};
    static const size_t tlen[6] = {16, 16, 12, 16, 8, 16};
    static const size_t ivlen[6] = {12, 12, 12, 12, 12, 16};
    int i;

    for (i = 0; i < 6; i++) {
        struct t_spec *s = &c->base[i];

        rng_fill(c->keys[i], 32);
        memset(s, 0, sizeof(*s));
        s->key = c->keys[i];
        s->key_len = klen[i];
        s->aad_len = alen[i];
        s->tag_len = tlen[i];
        s->iv_len = ivlen[i];
        s->dir = i % 2 ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
        c->sess[i] = make_session(dev, s);
    }
}

static void rnd_ctx_free(struct rnd_ctx *c, uint8_t dev)
{
    int i;

    for (i = 0; i < 6; i++)
        assert_int_equal(rte_cryptodev_sym_session_free(dev, c->sess[i]), 0);
}

/* Buffers that must outlive the op: in, out, iv, aad, tag. */
struct rnd_bufs {
    uint8_t *in, *out, iv[16], aad[64], tag[16];
};

/* A random op; |force_len| >= 0 forces the length and one-byte source segments. */
static void rnd_spec(struct rnd_ctx *c, struct t_spec *s, struct rnd_bufs *b, uint32_t maxlen,
                     int allow_long_chains, long force_len)
{
    static const uint32_t segs[] = {0, 1, 7, 64, 500, 0, 0, 100};
    int k = (int)rng_below(6);
    uint8_t full[16];
    size_t len = force_len >= 0 ? (size_t)force_len : rng_below(maxlen + 1);
    uint32_t sseg = force_len >= 0 ? 1 : segs[rng_below(8)], dseg = segs[rng_below(8)];

    /* one-byte segments: up to 300 (a job's segment list), or 600 (the incremental path) */
    if (force_len < 0 && sseg == 1 && len > (allow_long_chains ? 600u : 300u))
        len = rng_below(allow_long_chains ? 601 : 301);
    if (dseg == 1 && len > (allow_long_chains ? 600u : 300u))
        dseg = 7;
    *s = c->base[k];
    s->sess = c->sess[k];
    b->in = malloc(len + 1);
    b->out = malloc(len + 1);
    rng_fill(b->iv, sizeof(b->iv));
    rng_fill(b->aad, sizeof(b->aad));
    rng_fill(b->in, len);
    /* reference: mbgcm's one-shot call on linear buffers */
    {
        mbgcm_key *key = aligned_alloc(64, sizeof(mbgcm_key));
        uint8_t *pt = malloc(len + 1), *ct = malloc(len + 1);

        assert_int_equal(mbgcm_key_init(key, s->key, s->key_len), MBGCM_OK);
        rng_fill(pt, len);
        assert_int_equal(mbgcm_encrypt(key, b->iv, s->iv_len, b->aad, s->aad_len, pt, len, ct,
                                       full, 16), MBGCM_OK);
        memcpy(b->tag, full, 16);
        if (s->dir == MBGCM_ENCRYPT) {
            memcpy(b->in, pt, len);
            memcpy(b->out, ct, len);
        } else {
            memcpy(b->in, ct, len);
            memcpy(b->out, pt, len);
        }
        mbgcm_key_wipe(key);
        free(key);
        free(pt);
        free(ct);
    }
    s->iv = b->iv;
    s->aad = b->aad;
    s->in = b->in;
    s->out = b->out;
    s->tag = b->tag;
    s->len = len;
    s->off = rng_below(4) == 0 ? rng_below(40) : 0;
    s->oop = (int)rng_below(2);
    s->src_seg = sseg;
    s->dst_seg = s->oop ? dseg : 0;
    s->status = RTE_CRYPTO_OP_STATUS_SUCCESS;
    if (s->dir == MBGCM_DECRYPT && rng_below(16) == 0) {
        b->tag[rng_below((uint32_t)s->tag_len)] ^= 0x80;
        s->status = RTE_CRYPTO_OP_STATUS_AUTH_FAILED;
    }
    if (rng_below(10) == 0) { /* now and then a sessionless op in the same burst */
        s->sess = NULL;
        s->sessionless = 1;
    }
}

static void test_bursts_1_to_128(void **state)
{
    const struct vec_dev *d = *state;
    struct rnd_ctx c;
    uint16_t b;
    size_t total = 0;
    unsigned partial = 0;

    rng_seed("bursts");
    rnd_ctx_init(&c, d->id);
    for (b = 1; b <= 128; b++) {
        struct t_op *t = calloc(b, sizeof(*t));
        struct rnd_bufs *bufs = calloc(b, sizeof(*bufs));
        uint16_t i;

        for (i = 0; i < b; i++) {
            struct t_spec s;

            rnd_spec(&c, &s, &bufs[i], b % 3 == 0 ? 2048 : 600, 0, -1);
            t_build(&t[i], d->id, &s);
        }
        /* the 512-slot ring takes any burst; long chains may fill the segment arena */
        partial += run_ops(d->id, 0, t, b, b);
        for (i = 0; i < b; i++) {
            char what[128];

            snprintf(what, sizeof(what), "burst %u, op %u (len %zu, seg %u/%u, %s)", b, i,
                     t[i].s.len, t[i].s.src_seg, t[i].s.dst_seg, t[i].s.oop ? "oop" : "in place");
            t_check(&t[i], what);
            t_free(&t[i]);
            free(bufs[i].in);
            free(bufs[i].out);
        }
        total += b;
        free(t);
        free(bufs);
    }
    rnd_ctx_free(&c, d->id);
    print_message("  %zu random ops in bursts of 1..128 (%u bursts taken in part)\n", total,
                  partial);
}

/* A 32-slot ring, bursts of 64, chains of up to 600 one-byte segments: enqueue takes fewer ops
   than offered (ring or segment arena full), the rest follows after dequeues, and the long
   chains (more segments than a job's list may have) take the incremental path. */
static void backpressure(const char *args)
{
    enum { N = 200 };
    struct rnd_ctx c;
    struct t_op *t = calloc(N, sizeof(*t));
    struct rnd_bufs *bufs = calloc(N, sizeof(*bufs));
    struct rte_cryptodev_stats st;
    uint8_t dev;
    unsigned partial;
    int i;

    rng_seed("backpressure");
    dev = dev_open("crypto_mbgcm_bp", args, 1, 32);
    rnd_ctx_init(&c, dev);
    for (i = 0; i < N; i++) {
        struct t_spec s;

        /* every fourth: 200..255 one-byte segments, a job's list and a big arena share */
        rnd_spec(&c, &s, &bufs[i], 2048, 1, i % 4 == 0 ? (long)(200 + rng_below(56)) : -1);
        t_build(&t[i], dev, &s);
    }
    partial = run_ops(dev, 0, t, N, 64);
    for (i = 0; i < N; i++) {
        char what[96];

        snprintf(what, sizeof(what), "backpressure op %d (len %zu, seg %u/%u)", i, t[i].s.len,
                 t[i].s.src_seg, t[i].s.dst_seg);
        t_check(&t[i], what);
        t_free(&t[i]);
        free(bufs[i].in);
        free(bufs[i].out);
    }
    assert_true(partial > 0);
    assert_int_equal(rte_cryptodev_stats_get(dev, &st), 0);
    assert_int_equal(st.enqueued_count, N);
    assert_int_equal(st.dequeued_count, N);
    assert_true(st.enqueue_err_count > 0); /* ops offered and not taken */
    rnd_ctx_free(&c, dev);
    dev_close(dev, "crypto_mbgcm_bp");
    free(t);
    free(bufs);
}

static void test_backpressure(void **state)
{
    (void)state;
    backpressure("");                    /* batch mode */
    backpressure("flush_timeout_us=50"); /* ring mode */
}

/* ---- flush and timeout -------------------------------------------------------------------- */

/* |n| ops that wait in the ring for their batch: AES-GCM with a 16-byte IV, no data and 64
   bytes of AAD (GMAC), which every avx512 variant's ring gives to the lanes (ops with a
   12-byte IV may run at once where that measured quicker, as the by16 variant's do). Fewer
   than a lane group's four stay there and wait for a flush or the timeout. Key and AAD from a
   64-byte record, the IV its first 16 bytes; the expected tag from mbgcm's one-shot call. */
static void small_ops(struct t_op *t, uint8_t dev, int n)
{
    static uint8_t tag[16];
    const uint8_t *iv;
    mbgcm_key key;
    size_t i;
    int k;

    for (i = 0; i < g_nrec; i++)
        if (g_recs[i].pt_len == 64 && g_recs[i].nonce_len == 12)
            break;
    assert_true(i < g_nrec);
    iv = g_recs[i].pt;
    assert_int_equal(mbgcm_key_init(&key, g_recs[i].key, g_recs[i].key_len), MBGCM_OK);
    assert_int_equal(mbgcm_encrypt(&key, iv, 16, g_recs[i].pt, 64, NULL, 0, NULL, tag,
                                   sizeof(tag)),
                     MBGCM_OK);
    mbgcm_key_wipe(&key);
    for (k = 0; k < n; k++) {
        struct t_spec s = rec_spec(&g_recs[i], MBGCM_ENCRYPT, &g_layouts[0], 0, 16);

        s.iv = iv;
        s.iv_len = 16;
        s.aad = g_recs[i].pt;
        s.aad_len = 64;
        s.len = 0;
        s.tag = tag;
        t_build(&t[k], dev, &s);
    }
}

static void test_zero_length_enqueue_flushes(void **state)
{
    struct t_op t[3];
    struct rte_crypto_op *ops[3], *out[3];
    uint8_t dev;
    int i;

    (void)state;
    /* the longest timeout: only the zero-length enqueue can complete the jobs */
    dev = dev_open("crypto_mbgcm_flush", "flush_timeout_us=60000000", 1, 64);
    small_ops(t, dev, 3);
    for (i = 0; i < 3; i++)
        ops[i] = t[i].op;
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, ops, 3), 3);
    for (i = 0; i < 100; i++)
        assert_int_equal(rte_cryptodev_dequeue_burst(dev, 0, out, 3), 0);
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, NULL, 0), 0); /* flush */
    assert_int_equal(rte_cryptodev_dequeue_burst(dev, 0, out, 3), 3);
    for (i = 0; i < 3; i++) {
        assert_ptr_equal(out[i], ops[i]);
        t_check(&t[i], "flushed op");
        t_free(&t[i]);
    }
    /* a flush with nothing pending is harmless */
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, NULL, 0), 0);
    assert_int_equal(rte_cryptodev_dequeue_burst(dev, 0, out, 3), 0);
    dev_close(dev, "crypto_mbgcm_flush");
}

/* lanes=16 in ring mode: on the avx512 arch small_ops' ops run once 16 of them wait (every
   lane busy), so fifteen stay pending and the sixteenth brings all back; with the default
   lanes (one group), four bring ops back. On other arches only the results and the order are
   checked. */
static void lanes_run(const char *args, int want_first)
{
    struct t_op t[16];
    struct rte_crypto_op *ops[16], *out[16];
    struct rte_cryptodev_info info;
    uint8_t dev;
    int i, got = 0, avx512;

    dev = dev_open("crypto_mbgcm_lanes", args, 1, 64);
    rte_cryptodev_info_get(dev, &info);
    avx512 = (info.feature_flags & RTE_CRYPTODEV_FF_CPU_AVX512) != 0;
    small_ops(t, dev, 16);
    for (i = 0; i < 16; i++) {
        int n;

        ops[i] = t[i].op;
        assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, &ops[i], 1), 1);
        n = rte_cryptodev_dequeue_burst(dev, 0, out + got, (uint16_t)(16 - got));
        if (avx512 && got == 0 && n > 0 && i + 1 != want_first)
            fail_msg("%s: %d ops back after %d enqueued, want the first after %d", args, n,
                     i + 1, want_first);
        got += n;
    }
    if (avx512)
        assert_int_equal(got, 16);
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, NULL, 0), 0); /* flush */
    got += rte_cryptodev_dequeue_burst(dev, 0, out + got, (uint16_t)(16 - got));
    assert_int_equal(got, 16);
    for (i = 0; i < 16; i++) {
        assert_ptr_equal(out[i], ops[i]);
        t_check(&t[i], args);
        t_free(&t[i]);
    }
    dev_close(dev, "crypto_mbgcm_lanes");
}

static void test_lanes_devarg(void **state)
{
    (void)state;
    lanes_run("flush_timeout_us=60000000", 4);
    lanes_run("flush_timeout_us=60000000,lanes=16", 16);
}

/*
 * The clock that defines a ring-mode timeout: mbgcm's manager counts time-stamp counter ticks
 * at a rate calibrated against CLOCK_MONOTONIC and rounded up, so that its timeout never ends
 * before the same time has passed on CLOCK_MONOTONIC. Timing assertions read that clock:
 * DPDK's TSC calibration can disagree with it by a few tenths of a percent.
 */
static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void test_timeout_devarg(void **state)
{
    struct t_op t[3];
    struct rte_crypto_op *ops[3], *out[3];
    uint64_t t0, el_us = 0;
    uint8_t dev;
    int i, got = 0, first;

    (void)state;
    /* flush_timeout_us=0 (default, batch mode): three jobs, fewer than a lane group, are done
       when enqueue returns */
    dev = dev_open("crypto_mbgcm_t0", "flush_timeout_us=0", 1, 64);
    small_ops(t, dev, 3);
    for (i = 0; i < 3; i++)
        ops[i] = t[i].op;
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, ops, 3), 3);
    for (i = 0; i < 3; i++)
        assert_int_equal(ops[i]->status, RTE_CRYPTO_OP_STATUS_SUCCESS);
    assert_int_equal(rte_cryptodev_dequeue_burst(dev, 0, out, 3), 3);
    for (i = 0; i < 3; i++) {
        t_check(&t[i], "timeout 0");
        t_free(&t[i]);
    }
    dev_close(dev, "crypto_mbgcm_t0");

    /* 20 ms: dequeue only polls; no op may come back before the timeout has passed. Measured
       on the manager's own clock (mono_ns) from before the enqueue to after the dequeue call
       that returned the op, an interval that contains the manager's submit-to-poll interval:
       exact, no tolerance needed, and a stalled machine can only make it longer. */
    dev = dev_open("crypto_mbgcm_t20ms", "flush_timeout_us=20000", 1, 64);
    small_ops(t, dev, 3);
    for (i = 0; i < 3; i++)
        ops[i] = t[i].op;
    t0 = mono_ns();
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, ops, 3), 3);
    first = -1;
    while (got < 3 && mono_ns() - t0 < 5000000000ull) {
        int n = rte_cryptodev_dequeue_burst(dev, 0, out + got, (uint16_t)(3 - got));

        el_us = (mono_ns() - t0) / 1000;
        if (first < 0)
            first = n;
        if (n > 0 && el_us < 20000)
            fail_msg("%d ops back after %" PRIu64 " us, before the 20 ms timeout", n, el_us);
        got += n;
    }
    print_message("  flush_timeout_us=20000: first dequeue %d ops, all back after %" PRIu64 " us\n",
                  first, el_us);
    assert_int_equal(got, 3);
    for (i = 0; i < 3; i++) {
        assert_ptr_equal(out[i], ops[i]);
        t_check(&t[i], "timeout 20 ms");
        t_free(&t[i]);
    }
    dev_close(dev, "crypto_mbgcm_t20ms");
}

/* ---- stats and queue pairs ---------------------------------------------------------------- */

static void test_stats_and_queue_pairs(void **state)
{
    enum { N = 40 };
    struct t_op t[2][N];
    struct rte_crypto_op *ops[2][N], *out[N];
    struct rte_cryptodev_stats st;
    uint8_t dev;
    int q, i, n;

    (void)state;
    dev = dev_open("crypto_mbgcm_qp", "", 2, 64);
    for (q = 0; q < 2; q++)
        for (i = 0; i < N; i++) {
            const struct gv_record *r = &g_recs[(size_t)(q * N + i) % g_nrec];
            static const size_t lay[4] = {0, 1, 3, 10}; /* short chains: no back-pressure */
            struct t_spec s = rec_spec(r, MBGCM_DECRYPT, &g_layouts[lay[i % 4]], 0, 16);

            if (i % 10 == 9) {
                s.tag = r->ct; /* a wrong tag (the tag is never the ciphertext's head) */
                s.status = RTE_CRYPTO_OP_STATUS_AUTH_FAILED;
                if (r->pt_len < 16)
                    s.tag = (const uint8_t *)"0123456789abcdef";
            }
            t_build(&t[q][i], dev, &s);
            ops[q][i] = t[q][i].op;
        }
    /* interleave the two queue pairs */
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, ops[0], N / 2), N / 2);
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 1, ops[1], N), N);
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, ops[0] + N / 2, N / 2), N / 2);
    for (q = 0; q < 2; q++) {
        for (n = 0; n < N;)
            n += rte_cryptodev_dequeue_burst(dev, (uint16_t)q, out + n, (uint16_t)(N - n));
        for (i = 0; i < N; i++) {
            assert_ptr_equal(out[i], ops[q][i]);
            t_check(&t[q][i], "two queue pairs");
            t_free(&t[q][i]);
        }
    }
    assert_int_equal(rte_cryptodev_stats_get(dev, &st), 0);
    assert_int_equal(st.enqueued_count, 2 * N);
    assert_int_equal(st.dequeued_count, 2 * N);
    assert_int_equal(st.dequeue_err_count, 2 * (N / 10));
    assert_int_equal(st.enqueue_err_count, 0);
    rte_cryptodev_stats_reset(dev);
    assert_int_equal(rte_cryptodev_stats_get(dev, &st), 0);
    assert_int_equal(st.enqueued_count + st.dequeued_count + st.dequeue_err_count, 0);
    dev_close(dev, "crypto_mbgcm_qp");
}

/* ---- main --------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *vdir = getenv("MBGCM_VECTORS_DIR");
    const char *seed = getenv("MBGCM_SEED");
    char prefix[64];
    char *eal_argv[16];
    int eal_argc = 0, ret;
    unsigned sess_sz;

    (void)argc;
    g_seed = seed ? strtoull(seed, NULL, 0) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
    printf("seed=0x%016" PRIx64 "\n", g_seed);
    if (vdir == NULL || *vdir == '\0')
        vdir = MBGCM_VECTORS_DIR;
    if (gv_load(vdir, &g_recs, &g_nrec) != 0 || g_nrec == 0) {
        fprintf(stderr, "no vectors in %s\n", vdir);
        return 1;
    }
    printf("%zu vector records from %s\n", g_nrec, vdir);

    snprintf(prefix, sizeof(prefix), "mbgcm_pmd_test_%d", (int)getpid());
    eal_argv[eal_argc++] = argv[0];
    eal_argv[eal_argc++] = (char *)"-l";
    eal_argv[eal_argc++] = (char *)"0";
    eal_argv[eal_argc++] = (char *)"--no-huge";
    eal_argv[eal_argc++] = (char *)"-m";
    eal_argv[eal_argc++] = (char *)"1024";
    eal_argv[eal_argc++] = (char *)"--no-pci";
    eal_argv[eal_argc++] = (char *)"--file-prefix";
    eal_argv[eal_argc++] = prefix;
    eal_argv[eal_argc++] = (char *)"--log-level";
    eal_argv[eal_argc++] = (char *)"*:warning";
    eal_argv[eal_argc] = NULL;
    ret = rte_eal_init(eal_argc, eal_argv);
    if (ret < 0) {
        fprintf(stderr, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    g_mbufs = rte_pktmbuf_pool_create("t_mbufs", 8191, 256, 0, DATA_ROOM + RTE_PKTMBUF_HEADROOM,
                                      (int)rte_socket_id());
    g_small_mbufs = rte_pktmbuf_pool_create("t_small_mbufs", 131071, 256, 0,
                                            SMALL_ROOM + RTE_PKTMBUF_HEADROOM, (int)rte_socket_id());
    g_ops = rte_crypto_op_pool_create("t_ops", RTE_CRYPTO_OP_TYPE_SYMMETRIC, 4096, 128,
                                      (uint16_t)(XFORM_ROOM + MAX_IV), (int)rte_socket_id());
    /* the session size of this driver: create a device to ask it */
    if (rte_vdev_init("crypto_mbgcm_probe", "") != 0) {
        fprintf(stderr, "cannot create a crypto_mbgcm device\n");
        return 1;
    }
    sess_sz = rte_cryptodev_sym_get_private_session_size(
        (uint8_t)rte_cryptodev_get_dev_id("crypto_mbgcm_probe"));
    rte_vdev_uninit("crypto_mbgcm_probe");
    g_sess = rte_cryptodev_sym_session_pool_create("t_sess", 2048, sess_sz, 0, 0,
                                                   (int)rte_socket_id());
    if (g_mbufs == NULL || g_small_mbufs == NULL || g_ops == NULL || g_sess == NULL) {
        fprintf(stderr, "mempool creation failed: %s\n", rte_strerror(rte_errno));
        return 1;
    }

    {
        const struct CMUnitTest tests[] = {
            cmocka_unit_test(test_device_info),
            cmocka_unit_test(test_session_setup),
            cmocka_unit_test(test_vectors_all_layouts),
            cmocka_unit_test(test_vectors_digest_in_packet_and_short_tags),
            cmocka_unit_test(test_vectors_sessionless),
            cmocka_unit_test(test_bad_tags),
            cmocka_unit_test(test_bad_ops),
            cmocka_unit_test(test_bursts_1_to_128),
        };
        const struct CMUnitTest solo[] = {
            cmocka_unit_test(test_devargs),
            cmocka_unit_test(test_backpressure),
            cmocka_unit_test(test_zero_length_enqueue_flushes),
            cmocka_unit_test(test_timeout_devarg),
            cmocka_unit_test(test_lanes_devarg),
            cmocka_unit_test(test_stats_and_queue_pairs),
        };

        ret = cmocka_run_group_tests_name("crypto_mbgcm (one device, batch mode)", tests,
                                          vec_setup, vec_teardown);
        ret |= cmocka_run_group_tests_name("crypto_mbgcm (one device, ring mode)", tests,
                                           vec_setup_ring, vec_teardown);
        ret |= cmocka_run_group_tests_name("crypto_mbgcm (own devices)", solo, NULL, NULL);
    }
    gv_free(g_recs, g_nrec);
    rte_mempool_free(g_sess);
    rte_mempool_free(g_ops);
    rte_mempool_free(g_mbufs);
    rte_mempool_free(g_small_mbufs);
    rte_eal_cleanup();
    return ret != 0;
}
