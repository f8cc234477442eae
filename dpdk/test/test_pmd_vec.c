/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_vec.c — crypto_mbgcm's paths without rte_crypto_op, AES-GMAC and telemetry,
 * through the public cryptodev API (the PMD is linked into this program; EAL runs without
 * hugepages or PCI, on lcores 0 and 1).
 *
 *   - CPU crypto (rte_cryptodev_sym_cpu_crypto_process): AES-GCM and AES-GMAC vectors in
 *     DPDK's test-vector layout (dp_vectors.h, computed with OpenSSL), vectors of 70
 *     elements (two burst chunks) in seven layouts (linear, head/tail offsets, 7-byte and
 *     1-byte segments — the latter past a job's segment list —, out of place), truncated
 *     tags, corrupted tags (EBADMSG, output zeroed, neighbours intact); every error path;
 *     a second lcore and threads without an lcore id;
 *   - the raw data path (a raw_dp=1 device) with the same vectors and layouts, in batch mode
 *     and in ring mode (flush_timeout_us=50): enqueue_burst/dequeue_burst with and without
 *     a dequeue count, single enqueue/enqueue_done/dequeue, back-pressure, error paths;
 *   - AES-GMAC through rte_crypto_op (generate, verify, chained mbufs), both modes;
 *   - the feature flags against the table in docs/dpdk.md; telemetry over EAL's socket;
 *     managers in rte_malloc memory (mbgcm_config's allocation hooks).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_bus_vdev.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "dp_vectors.h"

#ifndef MBGCM_DOC_DPDK
#error "MBGCM_DOC_DPDK (docs/dpdk.md) must be defined by the build"
#endif

#define NA (sizeof(dp_aead_vectors) / sizeof(dp_aead_vectors[0]))
#define NG (sizeof(dp_gmac_vectors) / sizeof(dp_gmac_vectors[0]))
#define IV_OFF ((uint16_t)(sizeof(struct rte_crypto_op) + sizeof(struct rte_crypto_sym_op)))
#define FILL 0xA5
#define NELEM 70 /* more than one 64-job chunk */

static struct rte_mempool *g_sess, *g_mbufs, *g_ops;

/* ---- devices and sessions ----------------------------------------------------------------- */

static uint8_t dev_open(const char *name, const char *args, uint32_t ndesc)
{
    struct rte_cryptodev_config conf = {.socket_id = (int)rte_socket_id(), .nb_queue_pairs = 2};
    struct rte_cryptodev_qp_conf qc = {.nb_descriptors = ndesc, .mp_session = g_sess};
    int id;

    assert_int_equal(rte_vdev_init(name, args), 0);
    id = rte_cryptodev_get_dev_id(name);
    assert_true(id >= 0);
    assert_int_equal(rte_cryptodev_configure((uint8_t)id, &conf), 0);
    assert_int_equal(rte_cryptodev_queue_pair_setup((uint8_t)id, 0, &qc, (int)rte_socket_id()), 0);
    assert_int_equal(rte_cryptodev_queue_pair_setup((uint8_t)id, 1, &qc, (int)rte_socket_id()), 0);
    assert_int_equal(rte_cryptodev_start((uint8_t)id), 0);
    return (uint8_t)id;
}

static void dev_close(uint8_t id, const char *name)
{
    rte_cryptodev_stop(id);
    assert_int_equal(rte_vdev_uninit(name), 0);
}

static void *aead_session(uint8_t dev, const struct dp_aead_vector *v, int enc, unsigned tag)
{
    struct rte_crypto_sym_xform xf;

    memset(&xf, 0, sizeof(xf));
    xf.type = RTE_CRYPTO_SYM_XFORM_AEAD;
    xf.aead.algo = RTE_CRYPTO_AEAD_AES_GCM;
    xf.aead.op = enc ? RTE_CRYPTO_AEAD_OP_ENCRYPT : RTE_CRYPTO_AEAD_OP_DECRYPT;
    xf.aead.key.data = v->key.data;
    xf.aead.key.length = (uint16_t)v->key.len;
    xf.aead.iv.offset = IV_OFF;
    xf.aead.iv.length = (uint16_t)v->iv.len;
    xf.aead.aad_length = (uint16_t)v->aad.len;
    xf.aead.digest_length = (uint16_t)tag;
    return rte_cryptodev_sym_session_create(dev, &xf, g_sess);
}

static void *gmac_session(uint8_t dev, const struct dp_gmac_vector *v, int gen, unsigned tag)
{
    struct rte_crypto_sym_xform xf;

    memset(&xf, 0, sizeof(xf));
    xf.type = RTE_CRYPTO_SYM_XFORM_AUTH;
    xf.auth.algo = RTE_CRYPTO_AUTH_AES_GMAC;
    xf.auth.op = gen ? RTE_CRYPTO_AUTH_OP_GENERATE : RTE_CRYPTO_AUTH_OP_VERIFY;
    xf.auth.key.data = v->key.data;
    xf.auth.key.length = (uint16_t)v->key.len;
    xf.auth.iv.offset = IV_OFF;
    xf.auth.iv.length = (uint16_t)v->iv.len;
    xf.auth.digest_length = (uint16_t)tag;
    return rte_cryptodev_sym_session_create(dev, &xf, g_sess);
}

/* ---- elements ----------------------------------------------------------------------------- */

/* A layout: head/tail bytes around the data, segment sizes (0: one), out of place. */
struct layout {
    const char *name;
    uint32_t head, tail, seg, dseg;
    int oop;
};

static const struct layout g_layouts[] = {
    {"linear", 0, 0, 0, 0, 0},
    {"linear, head 13 tail 7", 13, 7, 0, 0, 0},
    {"7-byte segments, head 5 tail 3", 5, 3, 7, 0, 0},
    {"1-byte segments (incremental path past 256)", 2, 1, 1, 0, 0},
    {"out of place, linear", 4, 4, 0, 0, 1},
    {"out of place, 64-byte -> 7-byte segments", 3, 9, 64, 7, 1},
    {"out of place, linear -> 100-byte segments", 0, 5, 0, 100, 1},
};
#define NLAYOUT (sizeof(g_layouts) / sizeof(g_layouts[0]))

/* One message's buffers: head + data + tail in |buf| (|dbuf| out of place), cut into
   rte_crypto_vec entries; iv, aad, digest of their own. */
struct elem {
    uint8_t *buf, *dbuf, iv[64], aad[64], digest[16];
    struct rte_crypto_vec *v, *dv;
    struct rte_crypto_sgl sgl, dsgl;
    uint32_t total, len;
    const struct layout *l;
};

static uint32_t cut(uint8_t *buf, uint32_t total, uint32_t seg, struct rte_crypto_vec **out)
{
    uint32_t n = seg == 0 ? 1 : (total + seg - 1) / seg, i, pos = 0;
    struct rte_crypto_vec *v = calloc(n ? n : 1, sizeof(*v));

    if (total == 0)
        n = 0;
    for (i = 0; i < n; i++) {
        uint32_t take = seg == 0 || total - pos < seg ? total - pos : seg;

        v[i].base = buf + pos;
        v[i].iova = 0;
        v[i].len = take;
        v[i].tot_len = take;
        pos += take;
    }
    *out = v;
    return n;
}

static void elem_make(struct elem *e, const struct layout *l, const uint8_t *in, uint32_t len,
                      const uint8_t *iv, uint32_t ivlen, const uint8_t *aad, uint32_t aadlen,
                      const uint8_t *digest, uint32_t tag)
{
    memset(e, 0, sizeof(*e));
    e->l = l;
    e->len = len;
    e->total = l->head + len + l->tail;
    e->buf = malloc(e->total + 1);
    memset(e->buf, FILL, e->total);
    if (len)
        memcpy(e->buf + l->head, in, len);
    e->sgl.num = cut(e->buf, e->total, l->seg, &e->v);
    e->sgl.vec = e->v;
    if (l->oop) {
        e->dbuf = malloc(e->total + 1);
        memset(e->dbuf, FILL, e->total);
        e->dsgl.num = cut(e->dbuf, e->total, l->dseg, &e->dv);
        e->dsgl.vec = e->dv;
    }
    memcpy(e->iv, iv, ivlen);
    if (aadlen)
        memcpy(e->aad, aad, aadlen);
    memset(e->digest, 0xEE, sizeof(e->digest));
    if (digest != NULL)
        memcpy(e->digest, digest, tag);
}

static void elem_free(struct elem *e)
{
    free(e->buf);
    free(e->dbuf);
    free(e->v);
    free(e->dv);
}

static int all(const uint8_t *p, size_t n, uint8_t b)
{
    while (n--)
        if (*p++ != b)
            return 0;
    return 1;
}

/* Check an element's output: |want| (NULL: zeroed) in the data range, head and tail intact. */
static void elem_check(const struct elem *e, const uint8_t *want, const char *what)
{
    const uint8_t *out = e->l->oop ? e->dbuf : e->buf;

    if (!all(out, e->l->head, FILL) || !all(out + e->l->head + e->len, e->l->tail, FILL))
        fail_msg("%s: bytes outside the data range changed", what);
    if (want == NULL) {
        if (!all(out + e->l->head, e->len, 0))
            fail_msg("%s: output not zeroed", what);
    } else if (e->len && memcmp(out + e->l->head, want, e->len) != 0) {
        fail_msg("%s: wrong output", what);
    }
}

/* The symmetric vector over elements e[0..n). */
struct svec {
    struct rte_crypto_sym_vec vec;
    struct rte_crypto_sgl *sgl, *dsgl;
    struct rte_crypto_va_iova_ptr *iv, *aad, *digest;
    int32_t *status;
    union rte_crypto_sym_ofs ofs;
};

static void svec_make(struct svec *s, struct elem *e, uint32_t n, int gmac)
{
    uint32_t i;

    memset(s, 0, sizeof(*s));
    s->sgl = calloc(n + 1, sizeof(*s->sgl));
    s->dsgl = calloc(n + 1, sizeof(*s->dsgl));
    s->iv = calloc(n + 1, sizeof(*s->iv));
    s->aad = calloc(n + 1, sizeof(*s->aad));
    s->digest = calloc(n + 1, sizeof(*s->digest));
    s->status = calloc(n + 1, sizeof(*s->status));
    for (i = 0; i < n; i++) {
        s->sgl[i] = e[i].sgl;
        s->dsgl[i] = e[i].l->oop ? e[i].dsgl : e[i].sgl;
        s->iv[i].va = e[i].iv;
        s->aad[i].va = gmac ? NULL : e[i].aad;
        s->digest[i].va = e[i].digest;
        s->status[i] = -12345;
    }
    s->vec.num = n;
    s->vec.src_sgl = s->sgl;
    s->vec.dest_sgl = s->dsgl;
    s->vec.iv = s->iv;
    s->vec.aad = s->aad;
    s->vec.digest = s->digest;
    s->vec.status = s->status;
    /* one ofs per call: every element of a call uses the same layout's head and tail */
    s->ofs.raw = 0;
    if (n != 0) {
        if (gmac) {
            s->ofs.ofs.auth.head = (uint16_t)e[0].l->head;
            s->ofs.ofs.auth.tail = (uint16_t)e[0].l->tail;
        } else {
            s->ofs.ofs.cipher.head = (uint16_t)e[0].l->head;
            s->ofs.ofs.cipher.tail = (uint16_t)e[0].l->tail;
        }
    }
}

static void svec_free(struct svec *s)
{
    free(s->sgl);
    free(s->dsgl);
    free(s->iv);
    free(s->aad);
    free(s->digest);
    free(s->status);
}

/* ---- the two vector APIs behind one call ---------------------------------------------------- */

enum api { API_CPU, API_RAW };

struct raw_res {
    int32_t status[NELEM * 2];
    uint32_t order[NELEM * 2], n;
};

static void raw_post(void *user_data, uint32_t index, uint8_t ok)
{
    struct raw_res *r = *(struct raw_res **)user_data;
    uint32_t me = (uint32_t)(((uintptr_t *)user_data)[1]);

    (void)index;
    r->order[r->n++] = me;
    r->status[me] = ok ? 0 : EBADMSG;
}

/* Process |s| on |dev| (qp 0 for the raw path): statuses land in s->status (raw: 0 or
   EBADMSG for a failed op). Returns how many succeeded. */
static uint32_t run_vec(enum api api, uint8_t dev, void *sess, struct svec *s, int gmac)
{
    if (api == API_CPU)
        return rte_cryptodev_sym_cpu_crypto_process(dev, sess, s->ofs, &s->vec);
    {
        int sz = rte_cryptodev_get_raw_dp_ctx_size(dev);
        struct rte_crypto_raw_dp_ctx *ctx;
        union rte_cryptodev_session_ctx sc = {.crypto_sess = sess};
        struct raw_res res;
        uintptr_t (*ud)[2] = calloc(s->vec.num + 1, sizeof(*ud));
        void **uds = calloc(s->vec.num + 1, sizeof(*uds));
        uint32_t i, got = 0, nok = 0, taken;
        int st = 0;
        uint64_t spins = 0;

        assert_true(sz > 0);
        ctx = calloc(1, (size_t)sz);
        assert_int_equal(rte_cryptodev_configure_raw_dp_ctx(dev, 0, ctx, RTE_CRYPTO_OP_WITH_SESSION,
                                                             sc, 0), 0);
        memset(&res, 0, sizeof(res));
        for (i = 0; i < s->vec.num; i++) {
            ud[i][0] = (uintptr_t)&res;
            ud[i][1] = i;
            uds[i] = ud[i];
        }
        if (gmac) /* the auth IV travels as aad_or_auth_iv */
            for (i = 0; i < s->vec.num; i++)
                s->aad[i].va = s->iv[i].va;
        /* enqueue what the queue pair takes (its segment arena is a FIFO in ring mode),
           dequeue, offer the rest again */
        taken = 0;
        while (got < s->vec.num) {
            if (taken < s->vec.num) {
                struct rte_crypto_sym_vec sub = s->vec;
                uint32_t t;

                sub.num = s->vec.num - taken;
                sub.src_sgl += taken;
                sub.dest_sgl += taken;
                sub.iv += taken;
                sub.aad += taken;
                sub.digest += taken;
                sub.status += taken;
                t = rte_cryptodev_raw_enqueue_burst(ctx, &sub, s->ofs, uds + taken, &st);
                if (t < sub.num && sub.status[t] != ENOSPC)
                    fail_msg("raw enqueue stopped at %u: status %d", taken + t, sub.status[t]);
                if (st == 0)
                    assert_int_equal(rte_cryptodev_raw_enqueue_done(ctx, t), 0);
                taken += t;
            }
            {
                uint32_t ok = 0;
                void *first = NULL;
                int dst = -1;

                got += rte_cryptodev_raw_dequeue_burst(ctx, NULL, taken - got, raw_post, &first,
                                                       0, &ok, &dst);
                nok += ok;
            }
            if (++spins > 50000000ull)
                fail_msg("raw descriptors do not come back: %u of %u", got, taken);
        }
        assert_int_equal(res.n, taken);
        for (i = 0; i < taken; i++) {
            if (res.order[i] != i)
                fail_msg("raw descriptor %u came back out of order", i);
            s->status[i] = res.status[i];
        }
        free(ctx);
        free(ud);
        free(uds);
        return nok;
    }
}

/* ---- AEAD and GMAC vectors through either API ------------------------------------------- */

static const unsigned g_tags[] = {16, 8, 12, 4, 13, 15};

static void aead_vectors(enum api api, uint8_t dev)
{
    size_t r, l;
    unsigned checked = 0;

    for (r = 0; r < NA; r++) {
        const struct dp_aead_vector *v = &dp_aead_vectors[r];

        for (l = 0; l < NLAYOUT; l++) {
            const struct layout *lay = &g_layouts[l];
            const unsigned tag = g_tags[(r + l) % 6];
            int enc;

            for (enc = 1; enc >= 0; enc--) {
                struct elem e[NELEM];
                struct svec s;
                void *sess = aead_session(dev, v, enc, tag);
                uint32_t i, ok, want_ok = 0;

                assert_non_null(sess);
                for (i = 0; i < NELEM; i++) {
                    uint8_t bad[16];

                    memcpy(bad, v->auth_tag.data, 16);
                    if (!enc && i % 11 == 10)
                        bad[i % tag] ^= 0x40; /* a forged tag among good ones */
                    elem_make(&e[i], lay, enc ? v->plaintext.data : v->ciphertext.data,
                              v->plaintext.len, v->iv.data, v->iv.len, v->aad.data, v->aad.len,
                              enc ? NULL : bad, tag);
                    want_ok += enc || i % 11 != 10;
                }
                svec_make(&s, e, NELEM, 0);
                ok = run_vec(api, dev, sess, &s, 0);
                for (i = 0; i < NELEM; i++) {
                    char what[200];
                    const int forged = !enc && i % 11 == 10;

                    snprintf(what, sizeof(what), "%s, aead vector %zu, %s, %s, tag %u, element %u",
                             api == API_CPU ? "cpu crypto" : "raw", r, lay->name,
                             enc ? "encrypt" : "decrypt", tag, i);
                    if (s.status[i] != (forged ? EBADMSG : 0))
                        fail_msg("%s: status %d", what, s.status[i]);
                    elem_check(&e[i], forged ? NULL : enc ? v->ciphertext.data : v->plaintext.data,
                               what);
                    if (enc && memcmp(e[i].digest, v->auth_tag.data, tag) != 0)
                        fail_msg("%s: wrong tag", what);
                    elem_free(&e[i]);
                }
                assert_int_equal(ok, want_ok);
                svec_free(&s);
                assert_int_equal(rte_cryptodev_sym_session_free(dev, sess), 0);
                checked += NELEM;
            }
        }
    }
    print_message("  %u AES-GCM elements checked\n", checked);
}

static void gmac_vectors(enum api api, uint8_t dev)
{
    static const size_t lays[] = {0, 1, 2, 3};
    size_t r, l;
    unsigned checked = 0;

    for (r = 0; r < NG; r++) {
        const struct dp_gmac_vector *v = &dp_gmac_vectors[r];

        for (l = 0; l < sizeof(lays) / sizeof(lays[0]); l++) {
            const struct layout *lay = &g_layouts[lays[l]];
            const unsigned tag = g_tags[(r + l) % 6];
            int gen;

            for (gen = 1; gen >= 0; gen--) {
                struct elem e[NELEM / 2];
                struct svec s;
                void *sess = gmac_session(dev, v, gen, tag);
                uint32_t i, n = NELEM / 2, ok, want_ok = 0;

                assert_non_null(sess);
                for (i = 0; i < n; i++) {
                    uint8_t bad[16];

                    memcpy(bad, v->gmac_tag.data, 16);
                    if (!gen && i % 7 == 3)
                        bad[(i * 5) % tag] ^= 0x01;
                    elem_make(&e[i], lay, v->plaintext.data, v->plaintext.len, v->iv.data,
                              v->iv.len, NULL, 0, gen ? NULL : bad, tag);
                    want_ok += gen || i % 7 != 3;
                }
                svec_make(&s, e, n, 1);
                ok = run_vec(api, dev, sess, &s, 1);
                for (i = 0; i < n; i++) {
                    char what[200];
                    const int forged = !gen && i % 7 == 3;

                    snprintf(what, sizeof(what), "%s, gmac vector %zu, %s, %s, tag %u, element %u",
                             api == API_CPU ? "cpu crypto" : "raw", r, lay->name,
                             gen ? "generate" : "verify", tag, i);
                    if (s.status[i] != (forged ? EBADMSG : 0))
                        fail_msg("%s: status %d", what, s.status[i]);
                    elem_check(&e[i], v->plaintext.data, what); /* GMAC writes no data */
                    if (gen && memcmp(e[i].digest, v->gmac_tag.data, tag) != 0)
                        fail_msg("%s: wrong tag", what);
                    elem_free(&e[i]);
                }
                assert_int_equal(ok, want_ok);
                svec_free(&s);
                assert_int_equal(rte_cryptodev_sym_session_free(dev, sess), 0);
                checked += n;
            }
        }
    }
    print_message("  %u AES-GMAC elements checked\n", checked);
}

/* ---- CPU crypto ------------------------------------------------------------------------- */

static uint8_t g_cpu_dev;
static int cpu_setup(void **state)
{
    (void)state;
    g_cpu_dev = dev_open("crypto_mbgcm_cpu", "", 64);
    return 0;
}
static int cpu_teardown(void **state)
{
    (void)state;
    dev_close(g_cpu_dev, "crypto_mbgcm_cpu");
    return 0;
}

static void test_cpu_aead_vectors(void **state)
{
    (void)state;
    aead_vectors(API_CPU, g_cpu_dev);
}

static void test_cpu_gmac_vectors(void **state)
{
    (void)state;
    gmac_vectors(API_CPU, g_cpu_dev);
}

/* One-element helpers for the error tests. */
static void one_elem(struct elem *e, struct svec *s, const struct layout *l, int gmac)
{
    const struct dp_aead_vector *v = &dp_aead_vectors[4];

    elem_make(e, l, v->plaintext.data, v->plaintext.len, v->iv.data, v->iv.len, v->aad.data,
              v->aad.len, NULL, 16);
    svec_make(s, e, 1, gmac);
}

static void test_cpu_errors(void **state)
{
    const struct dp_aead_vector *v = &dp_aead_vectors[4]; /* 64 bytes, 20 bytes of AAD */
    const struct dp_gmac_vector *g = &dp_gmac_vectors[3];
    static const unsigned bad_tags[] = {0, 1, 3, 5, 6, 7, 9, 10, 11, 17, 32};
    struct elem e[3];
    struct svec s;
    void *sess, *gsess;
    uint8_t raw;
    size_t i;

    (void)state;
    /* bad digest lengths: no session (AEAD and GMAC) */
    for (i = 0; i < sizeof(bad_tags) / sizeof(bad_tags[0]); i++) {
        if (aead_session(g_cpu_dev, v, 1, bad_tags[i]) != NULL)
            fail_msg("AEAD digest length %u accepted", bad_tags[i]);
        if (gmac_session(g_cpu_dev, g, 1, bad_tags[i]) != NULL)
            fail_msg("GMAC digest length %u accepted", bad_tags[i]);
    }
    sess = aead_session(g_cpu_dev, v, 1, 16);
    gsess = gmac_session(g_cpu_dev, g, 1, 16);
    assert_non_null(sess);
    assert_non_null(gsess);

    /* bad offsets: head + tail beyond the data, for the cipher and the auth range */
    one_elem(&e[0], &s, &g_layouts[1], 0);
    s.ofs.ofs.cipher.head = (uint16_t)(e[0].total - 3);
    s.ofs.ofs.cipher.tail = 4;
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, sess, s.ofs, &s.vec), 0);
    assert_int_equal(s.status[0], EINVAL);
    elem_check(&e[0], v->plaintext.data, "bad offsets");
    svec_free(&s);
    elem_free(&e[0]);
    one_elem(&e[0], &s, &g_layouts[0], 1);
    s.ofs.ofs.auth.head = 60;
    s.ofs.ofs.auth.tail = 5;
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, gsess, s.ofs, &s.vec), 0);
    assert_int_equal(s.status[0], EINVAL);
    svec_free(&s);
    elem_free(&e[0]);
    /* out of place: a destination shorter than head + data */
    one_elem(&e[0], &s, &g_layouts[4], 0);
    s.dsgl[0].vec[0].len = 10;
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, sess, s.ofs, &s.vec), 0);
    assert_int_equal(s.status[0], EINVAL);
    svec_free(&s);
    elem_free(&e[0]);

    /* per element: NULL digest, NULL IV, NULL AAD with an AAD length: EINVAL, neighbours done */
    for (i = 0; i < 3; i++)
        elem_make(&e[i], &g_layouts[0], v->plaintext.data, v->plaintext.len, v->iv.data,
                  v->iv.len, v->aad.data, v->aad.len, NULL, 16);
    svec_make(&s, e, 3, 0);
    for (i = 0; i < 3; i++) {
        s.digest[1].va = i == 0 ? NULL : e[1].digest;
        s.iv[1].va = i == 1 ? NULL : e[1].iv;
        s.aad[1].va = i == 2 ? NULL : e[1].aad;
        memcpy(e[0].buf, v->plaintext.data, v->plaintext.len);
        memcpy(e[2].buf, v->plaintext.data, v->plaintext.len);
        assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, sess, s.ofs, &s.vec), 2);
        assert_int_equal(s.status[0], 0);
        assert_int_equal(s.status[1], EINVAL);
        assert_int_equal(s.status[2], 0);
        elem_check(&e[0], v->ciphertext.data, "neighbour of a bad element");
        elem_check(&e[1], v->plaintext.data, "bad element");
        elem_check(&e[2], v->ciphertext.data, "neighbour of a bad element");
    }
    svec_free(&s);
    for (i = 0; i < 3; i++)
        elem_free(&e[i]);

    /* wrong session: none, a cleared one: every element EINVAL, nothing written */
    one_elem(&e[0], &s, &g_layouts[0], 0);
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, NULL, s.ofs, &s.vec), 0);
    assert_int_equal(s.status[0], EINVAL);
    {
        void *tmp = aead_session(g_cpu_dev, v, 1, 16);
        uint8_t saved[4096];
        size_t sz = rte_cryptodev_sym_get_private_session_size(g_cpu_dev) + 256;

        /* a freed session's memory (kept readable in a copy): the key is wiped, magic gone */
        assert_true(sz <= sizeof(saved));
        assert_int_equal(rte_cryptodev_sym_session_free(g_cpu_dev, tmp), 0);
        memcpy(saved, tmp, sz);
        s.status[0] = -1;
        assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, saved, s.ofs, &s.vec), 0);
        assert_int_equal(s.status[0], EINVAL);
    }
    elem_check(&e[0], v->plaintext.data, "wrong session");
    svec_free(&s);
    elem_free(&e[0]);

    /* an empty vector is fine */
    memset(&s, 0, sizeof(s));
    s.vec.status = (int32_t *)&raw;
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, sess, s.ofs, &s.vec), 0);
    /* the raw data-path API is not this device's */
    assert_int_equal(rte_cryptodev_get_raw_dp_ctx_size(g_cpu_dev), -ENOTSUP);
    assert_int_equal(rte_cryptodev_sym_session_free(g_cpu_dev, sess), 0);
    assert_int_equal(rte_cryptodev_sym_session_free(g_cpu_dev, gsess), 0);
}

/* Two lcores at once and threads without an lcore id, on one session. */
struct par {
    void *sess;
    int fails;
    int registered;
};

static void par_work(struct par *p, unsigned rounds)
{
    const struct dp_aead_vector *v = &dp_aead_vectors[7];
    static const struct layout seg7 = {"7-byte segments", 0, 0, 7, 0, 0};
    unsigned r;
    uint32_t i;

    for (r = 0; r < rounds; r++) {
        struct elem e[40];
        struct svec s;

        for (i = 0; i < 40; i++)
            elem_make(&e[i], i % 4 == 3 ? &seg7 : &g_layouts[0], v->plaintext.data,
                      v->plaintext.len, v->iv.data, v->iv.len, v->aad.data, v->aad.len, NULL, 16);
        svec_make(&s, e, 40, 0);
        if (rte_cryptodev_sym_cpu_crypto_process(g_cpu_dev, p->sess, s.ofs, &s.vec) != 40)
            p->fails++;
        for (i = 0; i < 40; i++) {
            if (memcmp(e[i].buf, v->ciphertext.data, v->plaintext.len) != 0 ||
                memcmp(e[i].digest, v->auth_tag.data, 16) != 0)
                p->fails++;
            elem_free(&e[i]);
        }
        svec_free(&s);
    }
}

static int par_lcore(void *arg)
{
    par_work(arg, 200);
    return 0;
}

static void *par_thread(void *arg)
{
    struct par *p = arg;

    if (p->registered && rte_thread_register() != 0)
        p->fails++;
    par_work(p, 50);
    if (p->registered)
        rte_thread_unregister();
    return NULL;
}

static void test_cpu_threads(void **state)
{
    struct par a, b, c, d;
    pthread_t t1, t2;
    unsigned worker;

    (void)state;
    memset(&a, 0, sizeof(a));
    a.sess = aead_session(g_cpu_dev, &dp_aead_vectors[7], 1, 16);
    assert_non_null(a.sess);
    b = c = d = a;
    c.registered = 1;
    worker = rte_get_next_lcore(-1, 1, 0);
    assert_true(worker < RTE_MAX_LCORE);
    assert_int_equal(rte_eal_remote_launch(par_lcore, &b, worker), 0);
    assert_int_equal(pthread_create(&t1, NULL, par_thread, &c), 0);
    assert_int_equal(pthread_create(&t2, NULL, par_thread, &d), 0);
    par_work(&a, 200);
    assert_int_equal(rte_eal_wait_lcore(worker), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert_int_equal(a.fails + b.fails + c.fails + d.fails, 0);
    assert_int_equal(rte_cryptodev_sym_session_free(g_cpu_dev, a.sess), 0);
}

/* ---- raw data path ---------------------------------------------------------------------- */

struct raw_dev {
    uint8_t id;
    const char *name, *args;
};

static int raw_setup_dev(void **state, struct raw_dev *d)
{
    d->id = dev_open(d->name, d->args, 512);
    *state = d;
    return 0;
}
static int raw_setup_batch(void **state)
{
    static struct raw_dev d = {0, "crypto_mbgcm_raw", "raw_dp=1"};

    return raw_setup_dev(state, &d);
}
static int raw_setup_ring(void **state)
{
    static struct raw_dev d = {0, "crypto_mbgcm_raw_ring", "raw_dp=1,flush_timeout_us=50"};

    return raw_setup_dev(state, &d);
}
static int raw_teardown(void **state)
{
    struct raw_dev *d = *state;

    dev_close(d->id, d->name);
    return 0;
}

static void test_raw_aead_vectors(void **state)
{
    const struct raw_dev *d = *state;

    aead_vectors(API_RAW, d->id);
}

static void test_raw_gmac_vectors(void **state)
{
    const struct raw_dev *d = *state;

    gmac_vectors(API_RAW, d->id);
}

static uint32_t count_of_first(void *user_data)
{
    return (uint32_t)(uintptr_t)user_data; /* the test stores the group size there */
}

/* Single enqueue, enqueue_done, single and counted dequeue, back-pressure, error paths. */
static void test_raw_api(void **state)
{
    const struct raw_dev *d = *state;
    const struct dp_aead_vector *v = &dp_aead_vectors[3];
    const struct dp_gmac_vector *g = &dp_gmac_vectors[2];
    union rte_cryptodev_session_ctx sc;
    struct rte_crypto_raw_dp_ctx *ctx = calloc(1, (size_t)rte_cryptodev_get_raw_dp_ctx_size(d->id));
    struct rte_crypto_va_iova_ptr ivp, dg, ad;
    union rte_crypto_sym_ofs ofs = {.raw = 0};
    enum rte_crypto_op_status ost;
    struct elem e[600];
    struct svec s;
    void *sess, *gsess, *uds[600];
    uint32_t i, n, got, ok;
    int st, dst;
    uint64_t spins = 0;

    sess = aead_session(d->id, v, 1, 16);
    gsess = gmac_session(d->id, g, 0, 16);
    assert_non_null(sess);
    assert_non_null(gsess);

    /* configure: sessionless and security sessions are refused, a foreign pointer too */
    sc.xform = NULL;
    assert_int_equal(rte_cryptodev_configure_raw_dp_ctx(d->id, 0, ctx, RTE_CRYPTO_OP_SESSIONLESS,
                                                        sc, 0), -ENOTSUP);
    assert_int_equal(rte_cryptodev_configure_raw_dp_ctx(d->id, 0, ctx,
                                                        RTE_CRYPTO_OP_SECURITY_SESSION, sc, 0),
                     -ENOTSUP);
    sc.crypto_sess = NULL;
    assert_int_equal(rte_cryptodev_configure_raw_dp_ctx(d->id, 0, ctx, RTE_CRYPTO_OP_WITH_SESSION,
                                                        sc, 0), -EINVAL);
    sc.crypto_sess = sess;
    assert_int_equal(rte_cryptodev_configure_raw_dp_ctx(d->id, 9, ctx, RTE_CRYPTO_OP_WITH_SESSION,
                                                        sc, 0), -EINVAL);
    assert_int_equal(rte_cryptodev_configure_raw_dp_ctx(d->id, 0, ctx, RTE_CRYPTO_OP_WITH_SESSION,
                                                        sc, 0), 0);
    /* CPU crypto is not this device's */
    one_elem(&e[0], &s, &g_layouts[0], 0);
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(d->id, sess, s.ofs, &s.vec), 0);
    assert_int_equal(s.status[0], ENOTSUP);
    svec_free(&s);
    elem_free(&e[0]);

    /* single enqueues: each message with its user data; batch mode runs them at done */
    for (i = 0; i < 10; i++) {
        elem_make(&e[i], &g_layouts[i % 3], v->plaintext.data, v->plaintext.len, v->iv.data,
                  v->iv.len, v->aad.data, v->aad.len, NULL, 16);
        ofs.ofs.cipher.head = (uint16_t)e[i].l->head;
        ofs.ofs.cipher.tail = (uint16_t)e[i].l->tail;
        ivp.va = e[i].iv;
        dg.va = e[i].digest;
        ad.va = e[i].aad;
        st = rte_cryptodev_raw_enqueue(ctx, e[i].v, (uint16_t)e[i].sgl.num, ofs, &ivp, &dg, &ad,
                                       (void *)(uintptr_t)(i == 0 ? 4 : 100 + i));
        assert_true(st == 0 || st == 1);
    }
    /* a bad one: head + tail beyond the data; a NULL digest */
    ofs.ofs.cipher.head = 60;
    ofs.ofs.cipher.tail = 60;
    assert_int_equal(rte_cryptodev_raw_enqueue(ctx, e[0].v, (uint16_t)e[0].sgl.num, ofs, &ivp,
                                               &dg, &ad, NULL), -EINVAL);
    ofs.raw = 0;
    assert_int_equal(rte_cryptodev_raw_enqueue(ctx, e[0].v, (uint16_t)e[0].sgl.num, ofs, &ivp,
                                               NULL, &ad, NULL), -EINVAL);
    assert_int_equal(rte_cryptodev_raw_enqueue_done(ctx, 10), 0);
    /* counted dequeue: the first user data says 4 */
    got = 0;
    while ((n = rte_cryptodev_raw_dequeue_burst(ctx, count_of_first, 0, NULL, uds, 1, &ok, &dst)) == 0)
        if (++spins > 50000000ull)
            fail_msg("counted dequeue never returned");
    assert_int_equal(n, 4);
    assert_int_equal(ok, 4);
    assert_int_equal(dst, 1);
    assert_ptr_equal(uds[0], (void *)(uintptr_t)4);
    for (i = 1; i < 4; i++)
        assert_ptr_equal(uds[i], (void *)(uintptr_t)(100 + i));
    got = n;
    while (got < 10) {
        void *u = rte_cryptodev_raw_dequeue(ctx, &dst, &ost);

        if (u == NULL) {
            if (++spins > 50000000ull)
                fail_msg("single dequeue never returned");
            continue;
        }
        assert_ptr_equal(u, (void *)(uintptr_t)(100 + got));
        assert_int_equal(ost, RTE_CRYPTO_OP_STATUS_SUCCESS);
        got++;
    }
    assert_int_equal(rte_cryptodev_raw_dequeue_done(ctx, 10), 0);
    for (i = 0; i < 10; i++) {
        elem_check(&e[i], v->ciphertext.data, "raw single enqueue");
        assert_memory_equal(e[i].digest, v->auth_tag.data, 16);
        elem_free(&e[i]);
    }
    assert_null(rte_cryptodev_raw_dequeue(ctx, &dst, &ost));

    /* a burst stops at its first bad element: status EINVAL, the rest not taken */
    for (i = 0; i < 5; i++)
        elem_make(&e[i], &g_layouts[0], v->plaintext.data, v->plaintext.len, v->iv.data,
                  v->iv.len, v->aad.data, v->aad.len, NULL, 16);
    svec_make(&s, e, 5, 0);
    s.digest[2].va = NULL;
    for (i = 0; i < 5; i++)
        uds[i] = (void *)(uintptr_t)(i + 1);
    assert_int_equal(rte_cryptodev_raw_enqueue_burst(ctx, &s.vec, s.ofs, uds, &st), 2);
    assert_int_equal(s.status[0], 0);
    assert_int_equal(s.status[1], 0);
    assert_int_equal(s.status[2], EINVAL);
    if (st == 0)
        rte_cryptodev_raw_enqueue_done(ctx, 2);
    for (got = 0, spins = 0; got < 2;) {
        got += rte_cryptodev_raw_dequeue_burst(ctx, NULL, 2 - got, NULL, uds, 1, &ok, &dst);
        if (++spins > 50000000ull)
            fail_msg("burst dequeue never returned");
    }
    svec_free(&s);
    for (i = 0; i < 5; i++)
        elem_free(&e[i]);

    /* back-pressure: 600 descriptors on a 512-slot queue pair: enqueue takes 512 */
    for (i = 0; i < 600; i++) {
        static const struct layout seg7 = {"7-byte segments", 0, 0, 7, 0, 0};

        elem_make(&e[i], i % 2 ? &seg7 : &g_layouts[0], v->plaintext.data, v->plaintext.len,
                  v->iv.data, v->iv.len, v->aad.data, v->aad.len, NULL, 16);
        uds[i] = (void *)(uintptr_t)i;
    }
    svec_make(&s, e, 600, 0);
    n = rte_cryptodev_raw_enqueue_burst(ctx, &s.vec, s.ofs, uds, &st);
    assert_int_equal(n, 512);
    assert_int_equal(s.status[512], ENOSPC);
    if (st == 0)
        rte_cryptodev_raw_enqueue_done(ctx, n);
    for (got = 0, spins = 0; got < 512;) {
        got += rte_cryptodev_raw_dequeue_burst(ctx, NULL, 512 - got, NULL, uds, 1, &ok, &dst);
        if (++spins > 50000000ull)
            fail_msg("back-pressure dequeue never returned");
    }
    for (i = 0; i < 512; i++)
        if (memcmp(e[i].buf, v->ciphertext.data, v->plaintext.len) != 0)
            fail_msg("back-pressure: element %u wrong", i);
    svec_free(&s);
    for (i = 0; i < 600; i++)
        elem_free(&e[i]);

    /* GMAC verify through a session update (is_update = 1); a forged tag fails the op */
    sc.crypto_sess = gsess;
    assert_int_equal(rte_cryptodev_configure_raw_dp_ctx(d->id, 0, ctx, RTE_CRYPTO_OP_WITH_SESSION,
                                                        sc, 1), 0);
    for (i = 0; i < 2; i++) {
        uint8_t t[16];

        memcpy(t, g->gmac_tag.data, 16);
        t[0] ^= (uint8_t)i;
        elem_make(&e[i], &g_layouts[0], g->plaintext.data, g->plaintext.len, g->iv.data,
                  g->iv.len, NULL, 0, t, 16);
        ivp.va = e[i].iv;
        dg.va = e[i].digest;
        ofs.raw = 0;
        st = rte_cryptodev_raw_enqueue(ctx, e[i].v, (uint16_t)e[i].sgl.num, ofs, NULL, &dg, &ivp,
                                       (void *)(uintptr_t)(i + 1));
        assert_true(st == 0 || st == 1);
    }
    rte_cryptodev_raw_enqueue_done(ctx, 2);
    for (got = 0, spins = 0; got < 2;) {
        void *u = rte_cryptodev_raw_dequeue(ctx, &dst, &ost);

        if (u != NULL) {
            assert_ptr_equal(u, (void *)(uintptr_t)(got + 1));
            assert_int_equal(ost, got == 0 ? RTE_CRYPTO_OP_STATUS_SUCCESS
                                           : RTE_CRYPTO_OP_STATUS_AUTH_FAILED);
            got++;
        } else if (++spins > 50000000ull) {
            fail_msg("GMAC raw dequeue never returned");
        }
    }
    for (i = 0; i < 2; i++)
        elem_free(&e[i]);
    /* a queue pair that serves a raw context takes no ops */
    {
        struct rte_crypto_op *op = rte_crypto_op_alloc(g_ops, RTE_CRYPTO_OP_TYPE_SYMMETRIC);

        assert_non_null(op);
        assert_int_equal(rte_cryptodev_enqueue_burst(d->id, 0, &op, 1), 0);
        rte_crypto_op_free(op);
    }
    free(ctx);
    assert_int_equal(rte_cryptodev_sym_session_free(d->id, sess), 0);
    assert_int_equal(rte_cryptodev_sym_session_free(d->id, gsess), 0);
}

/* ---- AES-GMAC through rte_crypto_op ---------------------------------------------------- */

static void op_gmac(const char *name, const char *args)
{
    enum { N = 3 * (sizeof(dp_gmac_vectors) / sizeof(dp_gmac_vectors[0])) };
    struct rte_crypto_op *ops[N], *out[N];
    struct rte_mbuf *m[N];
    uint8_t digest[N][16];
    void *sess[N];
    uint8_t dev = dev_open(name, args, 128);
    unsigned i, got = 0;
    uint64_t spins = 0;

    for (i = 0; i < N; i++) {
        const struct dp_gmac_vector *v = &dp_gmac_vectors[i / 3];
        const int gen = i % 3 == 0, forged = i % 3 == 2, chained = (i / 3) % 2 == 1;
        const uint32_t off = 7;
        struct rte_crypto_sym_op *sym;
        uint8_t *p;

        sess[i] = gmac_session(dev, v, gen, 16);
        assert_non_null(sess[i]);
        ops[i] = rte_crypto_op_alloc(g_ops, RTE_CRYPTO_OP_TYPE_SYMMETRIC);
        assert_non_null(ops[i]);
        rte_crypto_op_attach_sym_session(ops[i], sess[i]);
        memcpy(rte_crypto_op_ctod_offset(ops[i], uint8_t *, IV_OFF), v->iv.data, v->iv.len);
        m[i] = rte_pktmbuf_alloc(g_mbufs);
        assert_non_null(m[i]);
        if (chained && v->plaintext.len > 1) { /* two segments: the gathered path */
            const uint32_t first = off + v->plaintext.len / 2;
            struct rte_mbuf *m2 = rte_pktmbuf_alloc(g_mbufs);

            p = (uint8_t *)rte_pktmbuf_append(m[i], (uint16_t)first);
            memset(p, FILL, off);
            memcpy(p + off, v->plaintext.data, first - off);
            p = (uint8_t *)rte_pktmbuf_append(m2, (uint16_t)(v->plaintext.len - (first - off)));
            memcpy(p, v->plaintext.data + (first - off), v->plaintext.len - (first - off));
            assert_int_equal(rte_pktmbuf_chain(m[i], m2), 0);
        } else {
            p = (uint8_t *)rte_pktmbuf_append(m[i], (uint16_t)(off + v->plaintext.len));
            memset(p, FILL, off);
            memcpy(p + off, v->plaintext.data, v->plaintext.len);
        }
        memcpy(digest[i], v->gmac_tag.data, 16);
        if (gen)
            memset(digest[i], 0, 16);
        if (forged)
            digest[i][15] ^= 0x80;
        sym = ops[i]->sym;
        sym->m_src = m[i];
        sym->auth.data.offset = off;
        sym->auth.data.length = v->plaintext.len;
        sym->auth.digest.data = digest[i];
    }
    assert_int_equal(rte_cryptodev_enqueue_burst(dev, 0, ops, N), N);
    while (got < N) {
        got += rte_cryptodev_dequeue_burst(dev, 0, out + got, N - got);
        if (++spins > 50000000ull)
            fail_msg("GMAC ops do not come back");
    }
    for (i = 0; i < N; i++) {
        const struct dp_gmac_vector *v = &dp_gmac_vectors[i / 3];

        assert_ptr_equal(out[i], ops[i]);
        assert_int_equal(ops[i]->status, i % 3 == 2 ? RTE_CRYPTO_OP_STATUS_AUTH_FAILED
                                                    : RTE_CRYPTO_OP_STATUS_SUCCESS);
        if (i % 3 == 0 && memcmp(digest[i], v->gmac_tag.data, 16) != 0)
            fail_msg("%s: GMAC op %u: wrong digest", name, i);
        rte_pktmbuf_free(m[i]);
        rte_crypto_op_free(ops[i]);
        assert_int_equal(rte_cryptodev_sym_session_free(dev, sess[i]), 0);
    }
    dev_close(dev, name);
}

static void test_op_gmac(void **state)
{
    (void)state;
    op_gmac("crypto_mbgcm_gmac", "");
    op_gmac("crypto_mbgcm_gmac_ring", "flush_timeout_us=50");
}

/* ---- feature flags against docs/dpdk.md ------------------------------------------------- */

/* Every feature flag of DPDK 22.11 by its macro's name (rte_cryptodev_get_feature_name has
   no name for some of them, SYM_RAW_DP among them). */
static const struct {
    const char *name;
    uint64_t flag;
} g_ff[] = {
    {"SYMMETRIC_CRYPTO", RTE_CRYPTODEV_FF_SYMMETRIC_CRYPTO},
    {"ASYMMETRIC_CRYPTO", RTE_CRYPTODEV_FF_ASYMMETRIC_CRYPTO},
    {"SYM_OPERATION_CHAINING", RTE_CRYPTODEV_FF_SYM_OPERATION_CHAINING},
    {"CPU_SSE", RTE_CRYPTODEV_FF_CPU_SSE},
    {"CPU_AVX", RTE_CRYPTODEV_FF_CPU_AVX},
    {"CPU_AVX2", RTE_CRYPTODEV_FF_CPU_AVX2},
    {"CPU_AESNI", RTE_CRYPTODEV_FF_CPU_AESNI},
    {"HW_ACCELERATED", RTE_CRYPTODEV_FF_HW_ACCELERATED},
    {"CPU_AVX512", RTE_CRYPTODEV_FF_CPU_AVX512},
    {"IN_PLACE_SGL", RTE_CRYPTODEV_FF_IN_PLACE_SGL},
    {"OOP_SGL_IN_SGL_OUT", RTE_CRYPTODEV_FF_OOP_SGL_IN_SGL_OUT},
    {"OOP_SGL_IN_LB_OUT", RTE_CRYPTODEV_FF_OOP_SGL_IN_LB_OUT},
    {"OOP_LB_IN_SGL_OUT", RTE_CRYPTODEV_FF_OOP_LB_IN_SGL_OUT},
    {"OOP_LB_IN_LB_OUT", RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT},
    {"CPU_NEON", RTE_CRYPTODEV_FF_CPU_NEON},
    {"CPU_ARM_CE", RTE_CRYPTODEV_FF_CPU_ARM_CE},
    {"SECURITY", RTE_CRYPTODEV_FF_SECURITY},
    {"RSA_PRIV_OP_KEY_EXP", RTE_CRYPTODEV_FF_RSA_PRIV_OP_KEY_EXP},
    {"RSA_PRIV_OP_KEY_QT", RTE_CRYPTODEV_FF_RSA_PRIV_OP_KEY_QT},
    {"DIGEST_ENCRYPTED", RTE_CRYPTODEV_FF_DIGEST_ENCRYPTED},
    {"ASYM_SESSIONLESS", RTE_CRYPTODEV_FF_ASYM_SESSIONLESS},
    {"SYM_CPU_CRYPTO", RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO},
    {"SYM_SESSIONLESS", RTE_CRYPTODEV_FF_SYM_SESSIONLESS},
    {"NON_BYTE_ALIGNED_DATA", RTE_CRYPTODEV_FF_NON_BYTE_ALIGNED_DATA},
    {"SYM_RAW_DP", RTE_CRYPTODEV_FF_SYM_RAW_DP},
    {"CIPHER_MULTIPLE_DATA_UNITS", RTE_CRYPTODEV_FF_CIPHER_MULTIPLE_DATA_UNITS},
    {"CIPHER_WRAPPED_KEY", RTE_CRYPTODEV_FF_CIPHER_WRAPPED_KEY},
    {"SECURITY_INNER_CSUM", RTE_CRYPTODEV_FF_SECURITY_INNER_CSUM},
};

/*
 * The features table of docs/dpdk.md (between <!-- features:begin --> and <!-- features:end
 * -->): rows "| `NAME` | default | raw_dp=1 |" with yes, no or arch. Every row must hold for
 * both kinds of device, and every flag a device reports must have a "yes" (or "arch") row.
 */
static void test_feature_flags_match_docs(void **state)
{
    FILE *f = fopen(MBGCM_DOC_DPDK, "r");
    char line[512];
    int in = 0, rows = 0, k;
    uint64_t documented = 0;
    uint8_t devs[2];
    struct rte_cryptodev_info info[2];

    (void)state;
    assert_non_null(f);
    devs[0] = dev_open("crypto_mbgcm_ff", "", 64);
    devs[1] = dev_open("crypto_mbgcm_ff_raw", "raw_dp=1", 64);
    for (k = 0; k < 2; k++)
        rte_cryptodev_info_get(devs[k], &info[k]);
    while (fgets(line, sizeof(line), f) != NULL) {
        char name[64], col[2][16];
        int bit;

        if (strstr(line, "<!-- features:begin -->") != NULL) {
            in = 1;
            continue;
        }
        if (strstr(line, "<!-- features:end -->") != NULL)
            break;
        if (!in || sscanf(line, "| `%63[A-Z0-9_]` | %15[a-z] | %15[a-z] |", name, col[0],
                          col[1]) != 3)
            continue;
        for (bit = 0; bit < (int)(sizeof(g_ff) / sizeof(g_ff[0])); bit++)
            if (strcmp(g_ff[bit].name, name) == 0)
                break;
        if (bit == (int)(sizeof(g_ff) / sizeof(g_ff[0])))
            fail_msg("docs/dpdk.md: no feature flag named %s", name);
        bit = __builtin_ctzll(g_ff[bit].flag);
        documented |= 1ull << bit;
        rows++;
        for (k = 0; k < 2; k++) {
            const int has = (info[k].feature_flags >> bit) & 1;

            if (strcmp(col[k], "arch") == 0)
                continue;
            if (has != (strcmp(col[k], "yes") == 0))
                fail_msg("docs/dpdk.md says %s is '%s' for the %s device, the code says %s", name,
                         col[k], k ? "raw_dp=1" : "default", has ? "yes" : "no");
        }
    }
    fclose(f);
    assert_true(rows >= 10);
    for (k = 0; k < 2; k++)
        if ((info[k].feature_flags & ~documented) != 0)
            fail_msg("feature flags 0x%" PRIx64 " are not in the docs/dpdk.md table",
                     info[k].feature_flags & ~documented);
    dev_close(devs[0], "crypto_mbgcm_ff");
    dev_close(devs[1], "crypto_mbgcm_ff_raw");
}

/* ---- telemetry ------------------------------------------------------------------------ */

/* One command over EAL's telemetry socket; the reply (JSON) in |out|. */
static int telemetry(const char *cmd, char *out, size_t outsz)
{
    struct sockaddr_un sa;
    int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    ssize_t n;

    if (fd < 0)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/dpdk_telemetry.v2", rte_eal_get_runtime_dir());
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        read(fd, out, outsz - 1) <= 0 /* the greeting */ ||
        write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd) || (n = read(fd, out, outsz - 1)) <= 0) {
        close(fd);
        return -1;
    }
    out[n] = '\0';
    close(fd);
    return 0;
}

static uint64_t json_u64(const char *json, const char *key)
{
    char pat[64];
    const char *p;

    snprintf(pat, sizeof(pat), "\"%s\":", key);
    p = strstr(json, pat);
    if (p == NULL)
        fail_msg("telemetry reply has no %s: %s", key, json);
    return strtoull(p + strlen(pat), NULL, 10);
}

static void test_telemetry(void **state)
{
    const struct dp_aead_vector *v = &dp_aead_vectors[1]; /* 1 byte: lanes */
    char reply[8192], cmd[64];
    uint8_t dev = dev_open("crypto_mbgcm_tel", "", 64);
    struct elem e[8];
    struct svec s;
    void *sess;
    uint32_t i;

    (void)state;
    sess = aead_session(dev, v, 0, 16);
    assert_non_null(sess);
    for (i = 0; i < 8; i++) {
        uint8_t t[16];

        memcpy(t, v->auth_tag.data, 16);
        t[3] ^= i == 5; /* one forged tag */
        elem_make(&e[i], &g_layouts[0], v->ciphertext.data, v->plaintext.len, v->iv.data,
                  v->iv.len, v->aad.data, v->aad.len, t, 16);
    }
    svec_make(&s, e, 8, 0);
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(dev, sess, s.ofs, &s.vec), 7);
    if (telemetry("/cryptodev_mbgcm/list", reply, sizeof(reply)) != 0) {
        print_message("  telemetry socket unavailable here: skipped\n");
    } else {
        snprintf(cmd, sizeof(cmd), "%u", dev);
        assert_non_null(strstr(reply, cmd));
        snprintf(cmd, sizeof(cmd), "/cryptodev_mbgcm/stats,%u", dev);
        assert_int_equal(telemetry(cmd, reply, sizeof(reply)), 0);
        print_message("  %s\n", reply);
        assert_int_equal(json_u64(reply, "ops"), 8);
        assert_int_equal(json_u64(reply, "op_errors"), 1);
        assert_int_equal(json_u64(reply, "jobs"), 8);
        assert_int_equal(json_u64(reply, "auth_failures"), 1);
        assert_int_equal(json_u64(reply, "cpu_crypto_lcores"), 1);
        assert_true(json_u64(reply, "lane_runs_4_busy") >= 1);
        assert_true(json_u64(reply, "lane_occupancy_permille") > 0);
        assert_int_equal(telemetry("/cryptodev_mbgcm/stats,250", reply, sizeof(reply)), 0);
        assert_null(strstr(reply, "\"jobs\""));
    }
    svec_free(&s);
    for (i = 0; i < 8; i++)
        elem_free(&e[i]);
    assert_int_equal(rte_cryptodev_sym_session_free(dev, sess), 0);
    dev_close(dev, "crypto_mbgcm_tel");
}

/* ---- manager memory --------------------------------------------------------------------- */

/* An lcore's first CPU-crypto call makes two rte_malloc allocations on its socket: the
   context and, through mbgcm_config's allocation hooks, the manager itself. */
static void test_managers_in_rte_malloc(void **state)
{
    const struct dp_aead_vector *v = &dp_aead_vectors[2];
    struct rte_malloc_socket_stats before, after, closed;
    uint8_t dev = dev_open("crypto_mbgcm_mem", "", 64);
    const int socket = (int)rte_socket_id();
    struct elem e;
    struct svec s;
    void *sess = aead_session(dev, v, 1, 16);

    (void)state;
    assert_non_null(sess);
    elem_make(&e, &g_layouts[0], v->plaintext.data, v->plaintext.len, v->iv.data, v->iv.len,
              v->aad.data, v->aad.len, NULL, 16);
    svec_make(&s, &e, 1, 0);
    assert_int_equal(rte_malloc_get_socket_stats(socket, &before), 0);
    assert_int_equal(rte_cryptodev_sym_cpu_crypto_process(dev, sess, s.ofs, &s.vec), 1);
    assert_int_equal(rte_malloc_get_socket_stats(socket, &after), 0);
    assert_int_equal(after.alloc_count - before.alloc_count, 2);
    elem_check(&e, v->ciphertext.data, "first call on an lcore");
    svec_free(&s);
    elem_free(&e);
    assert_int_equal(rte_cryptodev_sym_session_free(dev, sess), 0);
    dev_close(dev, "crypto_mbgcm_mem");
    assert_int_equal(rte_malloc_get_socket_stats(socket, &closed), 0);
    assert_true(closed.alloc_count < before.alloc_count); /* queue pairs and lcore: all freed */
}

/* ---- main ----------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    char prefix[64];
    char *eal_argv[16];
    int eal_argc = 0, ret;
    unsigned sess_sz;

    (void)argc;
    snprintf(prefix, sizeof(prefix), "mbgcm_pmd_vec_%d", (int)getpid());
    eal_argv[eal_argc++] = argv[0];
    eal_argv[eal_argc++] = (char *)"-l";
    eal_argv[eal_argc++] = (char *)"0,1";
    eal_argv[eal_argc++] = (char *)"--no-huge";
    eal_argv[eal_argc++] = (char *)"-m";
    eal_argv[eal_argc++] = (char *)"512";
    eal_argv[eal_argc++] = (char *)"--no-pci";
    eal_argv[eal_argc++] = (char *)"--file-prefix";
    eal_argv[eal_argc++] = prefix;
    eal_argv[eal_argc++] = (char *)"--log-level";
    eal_argv[eal_argc++] = (char *)"*:warning";
    eal_argv[eal_argc] = NULL;
    if (rte_eal_init(eal_argc, eal_argv) < 0) {
        fprintf(stderr, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    if (rte_vdev_init("crypto_mbgcm_probe", "") != 0) {
        fprintf(stderr, "cannot create a crypto_mbgcm device\n");
        return 1;
    }
    sess_sz = rte_cryptodev_sym_get_private_session_size(
        (uint8_t)rte_cryptodev_get_dev_id("crypto_mbgcm_probe"));
    rte_vdev_uninit("crypto_mbgcm_probe");
    g_sess = rte_cryptodev_sym_session_pool_create("v_sess", 1024, sess_sz, 0, 0,
                                                   (int)rte_socket_id());
    g_mbufs = rte_pktmbuf_pool_create("v_mbufs", 1023, 0, 0, 4096 + RTE_PKTMBUF_HEADROOM,
                                      (int)rte_socket_id());
    g_ops = rte_crypto_op_pool_create("v_ops", RTE_CRYPTO_OP_TYPE_SYMMETRIC, 1023, 0, 128,
                                      (int)rte_socket_id());
    if (g_sess == NULL || g_mbufs == NULL || g_ops == NULL) {
        fprintf(stderr, "mempool creation failed: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    {
        const struct CMUnitTest cpu[] = {
            cmocka_unit_test(test_cpu_aead_vectors),
            cmocka_unit_test(test_cpu_gmac_vectors),
            cmocka_unit_test(test_cpu_errors),
            cmocka_unit_test(test_cpu_threads),
        };
        const struct CMUnitTest raw[] = {
            cmocka_unit_test(test_raw_aead_vectors),
            cmocka_unit_test(test_raw_gmac_vectors),
            cmocka_unit_test(test_raw_api),
        };
        const struct CMUnitTest solo[] = {
            cmocka_unit_test(test_op_gmac),
            cmocka_unit_test(test_feature_flags_match_docs),
            cmocka_unit_test(test_telemetry),
            cmocka_unit_test(test_managers_in_rte_malloc),
        };

        ret = cmocka_run_group_tests_name("crypto_mbgcm CPU crypto", cpu, cpu_setup, cpu_teardown);
        ret |= cmocka_run_group_tests_name("crypto_mbgcm raw data path (batch mode)", raw,
                                           raw_setup_batch, raw_teardown);
        ret |= cmocka_run_group_tests_name("crypto_mbgcm raw data path (ring mode)", raw,
                                           raw_setup_ring, raw_teardown);
        ret |= cmocka_run_group_tests_name("crypto_mbgcm GMAC ops, flags, telemetry", solo, NULL,
                                           NULL);
    }
    rte_mempool_free(g_sess);
    rte_mempool_free(g_mbufs);
    rte_mempool_free(g_ops);
    rte_eal_cleanup();
    return ret != 0;
}
