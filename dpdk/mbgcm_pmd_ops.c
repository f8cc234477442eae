/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm_pmd_ops.c — the generic cryptodev ops of crypto_mbgcm: configure/start/stop/close,
 * device info, stats, queue pairs (one mbgcm job manager each) and sessions.
 */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_string_fns.h>

#include "mbgcm_pmd_priv.h"

/* ---- device ------------------------------------------------------------------------------- */

static int
mbgcm_pmd_config(struct rte_cryptodev *dev, struct rte_cryptodev_config *config)
{
    const struct mbgcm_pmd_internals *in = dev->data->dev_private;

    if (config == NULL || config->nb_queue_pairs > in->max_nb_queue_pairs)
        return -EINVAL;
    return 0;
}

static int
mbgcm_pmd_start(struct rte_cryptodev *dev __rte_unused)
{
    return 0;
}

static void
mbgcm_pmd_stop(struct rte_cryptodev *dev __rte_unused)
{
}

static int mbgcm_pmd_qp_release(struct rte_cryptodev *dev, uint16_t qp_id);

static int
mbgcm_pmd_close(struct rte_cryptodev *dev)
{
    struct mbgcm_pmd_internals *in = dev->data->dev_private;
    uint16_t i;
    unsigned int l;

    for (i = 0; i < dev->data->nb_queue_pairs; i++)
        mbgcm_pmd_qp_release(dev, i);
    /* the CPU-crypto contexts: no lcore may be inside sym_cpu_process now (as for any
       device close); the manager wipes its lane state */
    for (l = 0; l < RTE_MAX_LCORE; l++) {
        struct mbgcm_pmd_lcore *lc = in->lcore[l];

        if (lc == NULL)
            continue;
        __atomic_store_n(&in->lcore[l], NULL, __ATOMIC_RELEASE);
        mbgcm_mgr_free(lc->mgr);
        rte_free(lc);
    }
    return 0;
}

static void
mbgcm_pmd_info_get(struct rte_cryptodev *dev, struct rte_cryptodev_info *info)
{
    const struct mbgcm_pmd_internals *in = dev->data->dev_private;
    const struct mbgcm_pmd_flavour *fl = &mbgcm_pmd_flavours[in->type];

    if (info == NULL)
        return;
    info->driver_id = dev->driver_id;
    info->feature_flags = dev->feature_flags;
    info->capabilities = fl->caps;
    info->max_nb_queue_pairs = in->max_nb_queue_pairs;
    info->min_mbuf_headroom_req = 0;
    info->min_mbuf_tailroom_req = 0;
    info->sym.max_nb_sessions = 0; /* no limit but the session mempool */
}

static void
mbgcm_pmd_stats_get(struct rte_cryptodev *dev, struct rte_cryptodev_stats *stats)
{
    uint16_t i;

    memset(stats, 0, sizeof(*stats));
    for (i = 0; i < dev->data->nb_queue_pairs; i++) {
        const struct mbgcm_pmd_qp *qp = dev->data->queue_pairs[i];

        if (qp == NULL)
            continue;
        stats->enqueued_count += qp->stats.enqueued_count;
        stats->dequeued_count += qp->stats.dequeued_count;
        stats->enqueue_err_count += qp->stats.enqueue_err_count;
        stats->dequeue_err_count += qp->stats.dequeue_err_count;
    }
}

static void
mbgcm_pmd_stats_reset(struct rte_cryptodev *dev)
{
    uint16_t i;

    for (i = 0; i < dev->data->nb_queue_pairs; i++) {
        struct mbgcm_pmd_qp *qp = dev->data->queue_pairs[i];

        if (qp != NULL)
            memset(&qp->stats, 0, sizeof(qp->stats));
    }
}

/* ---- queue pairs -------------------------------------------------------------------------- */

static int
mbgcm_pmd_qp_release(struct rte_cryptodev *dev, uint16_t qp_id)
{
    const struct mbgcm_pmd_internals *in = dev->data->dev_private;
    struct mbgcm_pmd_qp *qp;

    if (dev->data->queue_pairs == NULL || qp_id >= in->max_nb_queue_pairs)
        return 0;
    qp = dev->data->queue_pairs[qp_id];
    if (qp == NULL)
        return 0;
    /* Ops still in flight are abandoned (cryptodev has no way to hand them back), but the
       manager wipes its lane state and the scratch session its key. */
    mbgcm_mgr_free(qp->mgr);
    if (qp->sl_sess != NULL) {
        mbgcm_pmd_session_wipe(qp->sl_sess);
        rte_free(qp->sl_sess);
    }
    rte_free(qp->segs);
    rte_free(qp);
    dev->data->queue_pairs[qp_id] = NULL;
    return 0;
}

static int
mbgcm_pmd_qp_setup(struct rte_cryptodev *dev, uint16_t qp_id,
                   const struct rte_cryptodev_qp_conf *conf, int socket_id)
{
    const struct mbgcm_pmd_internals *in = dev->data->dev_private;
    const struct mbgcm_pmd_flavour *fl = &mbgcm_pmd_flavours[in->type];
    struct mbgcm_pmd_qp *qp;
    mbgcm_config cfg;
    uint32_t slots;
    int ret;

    if (qp_id >= in->max_nb_queue_pairs || conf == NULL || conf->nb_descriptors == 0 ||
        conf->nb_descriptors > MBGCM_PMD_MAX_SLOTS)
        return -EINVAL;
    if (dev->data->queue_pairs[qp_id] != NULL)
        mbgcm_pmd_qp_release(dev, qp_id);

    slots = rte_align32pow2(RTE_MAX(conf->nb_descriptors, MBGCM_PMD_MIN_SLOTS));
    qp = rte_zmalloc_socket("mbgcm_pmd_qp",
                            sizeof(*qp) + (size_t)slots * sizeof(struct mbgcm_pmd_slot),
                            RTE_CACHE_LINE_SIZE, socket_id);
    if (qp == NULL)
        return -ENOMEM;
    qp->mask = slots - 1;
    qp->timeout_ns = in->flush_timeout_ns;
    qp->id = qp_id;
    qp->driver_id = dev->driver_id;
    snprintf(qp->name, sizeof(qp->name), "%s_qp%u", dev->data->name, qp_id);

    /* Segment arena: room for the largest op (two full lists) plus eight segments per slot,
       so that ordinary short chains never make enqueue stop early. */
    qp->nsegs = 2 * MBGCM_MAX_SEGS + 8 * slots;
    qp->segs = rte_zmalloc_socket("mbgcm_pmd_segs", (size_t)qp->nsegs * sizeof(mbgcm_seg),
                                  RTE_CACHE_LINE_SIZE, socket_id);
    qp->sl_sess = rte_zmalloc_socket("mbgcm_pmd_sl_sess", sizeof(struct mbgcm_pmd_session), 64,
                                     socket_id);
    memset(&cfg, 0, sizeof(cfg));
    cfg.arch = fl->arch;
    cfg.queue_size = slots;
    cfg.flush_timeout_ns = in->flush_timeout_ns;
    cfg.lanes = in->lanes;
    mbgcm_pmd_mem_config(&cfg, socket_id); /* the manager beside its queue pair */
    ret = mbgcm_mgr_create(&qp->mgr, &cfg);
    if (qp->segs == NULL || qp->sl_sess == NULL || ret != MBGCM_OK) {
        MBGCM_PMD_LOG(ERR, "%s: setup failed (%s)", qp->name,
                      ret != MBGCM_OK ? mbgcm_strerror(ret) : "no memory");
        mbgcm_mgr_free(qp->mgr);
        rte_free(qp->segs);
        rte_free(qp->sl_sess);
        rte_free(qp);
        return ret == MBGCM_ERR_NOMEM || ret == MBGCM_OK ? -ENOMEM : -ENOTSUP;
    }
    dev->data->queue_pairs[qp_id] = qp;
    return 0;
}

/* ---- sessions ----------------------------------------------------------------------------- */

static unsigned int
mbgcm_pmd_session_size(struct rte_cryptodev *dev __rte_unused)
{
    /* + 63: room to align the private area to 64 bytes for mbgcm_key. */
    return (unsigned int)(sizeof(struct mbgcm_pmd_session) + 63);
}

static int
mbgcm_tag_len_ok(unsigned int n)
{
    return n == 4 || n == 8 || (n >= 12 && n <= 16);
}

/* 1 when the |n| bytes differ: OR of XORs over all of them, no early exit (memcmp's time
   would tell how many leading bytes of a new key match the cached one). Only the outcome,
   "same key as the previous sessionless op or not", is public. */
static int
mbgcm_pmd_key_differs(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint8_t d = 0;
    size_t i;

    for (i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return d != 0;
}

int
mbgcm_pmd_session_parse(struct mbgcm_pmd_session *s, const struct rte_crypto_sym_xform *xf,
                        int sessionless)
{
    const uint8_t *key;
    uint16_t key_len, iv_offset, iv_len, aad_len, tag_len;
    int dir, gmac;

    if (s == NULL || xf == NULL)
        return -EINVAL;
    if (xf->next != NULL)
        return -ENOTSUP;
    if (xf->type == RTE_CRYPTO_SYM_XFORM_AEAD) {
        const struct rte_crypto_aead_xform *a = &xf->aead;

        if (a->algo != RTE_CRYPTO_AEAD_AES_GCM)
            return -ENOTSUP;
        if (a->op != RTE_CRYPTO_AEAD_OP_ENCRYPT && a->op != RTE_CRYPTO_AEAD_OP_DECRYPT)
            return -EINVAL;
        dir = a->op == RTE_CRYPTO_AEAD_OP_ENCRYPT ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
        key = a->key.data;
        key_len = a->key.length;
        iv_offset = a->iv.offset;
        iv_len = a->iv.length;
        aad_len = a->aad_length;
        tag_len = a->digest_length;
        gmac = 0;
    } else if (xf->type == RTE_CRYPTO_SYM_XFORM_AUTH) {
        /* AES-GMAC: GCM over an empty message with the data as AAD; generate is an
           encryption's tag, verify a decryption's tag check */
        const struct rte_crypto_auth_xform *a = &xf->auth;

        if (a->algo != RTE_CRYPTO_AUTH_AES_GMAC)
            return -ENOTSUP;
        if (a->op != RTE_CRYPTO_AUTH_OP_GENERATE && a->op != RTE_CRYPTO_AUTH_OP_VERIFY)
            return -EINVAL;
        dir = a->op == RTE_CRYPTO_AUTH_OP_GENERATE ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
        key = a->key.data;
        key_len = a->key.length;
        iv_offset = a->iv.offset;
        iv_len = a->iv.length;
        aad_len = 0;
        tag_len = a->digest_length;
        gmac = 1;
    } else {
        return -ENOTSUP;
    }
    if (key == NULL || (key_len != 16 && key_len != 24 && key_len != 32))
        return -EINVAL;
    if (iv_len == 0) /* AEAD: "the IV field holds J0"; GMAC: no IV. Neither is supported */
        return -ENOTSUP;
    if (!mbgcm_tag_len_ok(tag_len))
        return -EINVAL;
    /* A sessionless scratch session keeps its expansion while the raw key stays the same. */
    if (!sessionless || s->magic != MBGCM_PMD_SESSION_MAGIC || s->key_len != key_len ||
        mbgcm_pmd_key_differs(s->raw_key, key, key_len)) {
        s->magic = 0;
        if (mbgcm_key_init(&s->key, key, key_len) != MBGCM_OK)
            return -EINVAL;
        if (sessionless)
            memcpy(s->raw_key, key, key_len);
    }
    s->dir = dir;
    s->iv_offset = iv_offset;
    s->iv_len = iv_len;
    s->aad_len = aad_len;
    s->tag_len = tag_len;
    s->key_len = key_len;
    s->gmac = (uint8_t)gmac;
    s->magic = MBGCM_PMD_SESSION_MAGIC;
    return 0;
}

void
mbgcm_pmd_session_wipe(struct mbgcm_pmd_session *s)
{
    if (s == NULL)
        return;
    mbgcm_key_wipe(&s->key);
    /* The rest holds the sessionless raw key; the barrier keeps the stores. */
    memset((uint8_t *)s + sizeof(s->key), 0, sizeof(*s) - sizeof(s->key));
    __asm__ __volatile__("" : : "r"(s) : "memory");
}

static int
mbgcm_pmd_session_configure(struct rte_cryptodev *dev __rte_unused,
                            struct rte_crypto_sym_xform *xform,
                            struct rte_cryptodev_sym_session *sess)
{
    struct mbgcm_pmd_session *s;
    int ret;

    if (sess == NULL)
        return -EINVAL;
    s = mbgcm_pmd_session_get(sess);
    ret = mbgcm_pmd_session_parse(s, xform, 0);
    if (ret != 0) {
        MBGCM_PMD_LOG(DEBUG, "session rejected: %d", ret);
        mbgcm_pmd_session_wipe(s);
    }
    return ret;
}

/*
 * mbgcm_pmd_session_clear exists so that no key material is left behind: the session object
 * goes back to the application's mempool, and the expanded AES round keys and GHASH powers
 * in it would otherwise stay there until the object is reused. mbgcm_key_wipe zeroes the key
 * with stores the compiler cannot drop.
 */
static void
mbgcm_pmd_session_clear(struct rte_cryptodev *dev __rte_unused,
                        struct rte_cryptodev_sym_session *sess)
{
    struct mbgcm_pmd_session *s;

    if (sess == NULL)
        return;
    s = mbgcm_pmd_session_get(sess);
    mbgcm_key_wipe(&s->key);
    mbgcm_pmd_session_wipe(s);
}

struct rte_cryptodev_ops mbgcm_pmd_ops = {
    .dev_configure = mbgcm_pmd_config,
    .dev_start = mbgcm_pmd_start,
    .dev_stop = mbgcm_pmd_stop,
    .dev_close = mbgcm_pmd_close,
    .dev_infos_get = mbgcm_pmd_info_get,
    .stats_get = mbgcm_pmd_stats_get,
    .stats_reset = mbgcm_pmd_stats_reset,
    .queue_pair_setup = mbgcm_pmd_qp_setup,
    .queue_pair_release = mbgcm_pmd_qp_release,
    .sym_session_get_size = mbgcm_pmd_session_size,
    .sym_session_configure = mbgcm_pmd_session_configure,
    .sym_session_clear = mbgcm_pmd_session_clear,
};
