/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm_pmd_priv.h — private types of the crypto_mbgcm cryptodev PMD: the flavour table,
 * the device's private data, the session and the queue pair.
 *
 * The PMD is a thin converter between rte_crypto_op (or a CPU-crypto vector, or a raw
 * data-path descriptor) and mbgcm_job: every cryptographic step is done by the public mbgcm
 * API (api/mbgcm.h). One mbgcm job manager per queue pair, and one per lcore that calls the
 * synchronous CPU-crypto API.
 */
#ifndef MBGCM_PMD_PRIV_H
#define MBGCM_PMD_PRIV_H

#include <stdint.h>
#include <string.h>

#include <cryptodev_pmd.h>
#include <rte_common.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "mbgcm.h"

/* vdev driver name (also the prefix of device names: crypto_mbgcm0, crypto_mbgcm_1, ...). */
#define MBGCM_PMD_DRV_NAME crypto_mbgcm
#define MBGCM_PMD_DRV_NAME_STR RTE_STR(MBGCM_PMD_DRV_NAME)

/* Devargs (besides the generic name, max_nb_queue_pairs, socket_id). */
#define MBGCM_PMD_FLUSH_TIMEOUT_ARG "flush_timeout_us"
/* raw_dp=1: the device offers the raw data-path API instead of CPU crypto (see mbgcm_pmd.c). */
#define MBGCM_PMD_RAW_DP_ARG "raw_dp"
/* lanes=0|4|8|12|16: mbgcm_config.lanes of every queue pair's manager (see mbgcm_pmd.c). */
#define MBGCM_PMD_LANES_ARG "lanes"
/* Longest accepted flush_timeout_us: one minute. */
#define MBGCM_PMD_MAX_TIMEOUT_US (60u * 1000u * 1000u)

/* Ring slots per queue pair: a power of two in [min, mbgcm's largest ring]. */
#define MBGCM_PMD_MIN_SLOTS 32u
#define MBGCM_PMD_MAX_SLOTS 65536u
/* Jobs per mbgcm_submit_burst call in batch mode (flush_timeout_us=0) and CPU crypto. */
#define MBGCM_PMD_BATCH 64u
/* Segment-list entries of one CPU-crypto chunk: two maximal lists plus 8 per job. */
#define MBGCM_PMD_VEC_SEGS (2u * MBGCM_MAX_SEGS + 8u * MBGCM_PMD_BATCH)
/* A queue pair publishes its counters for telemetry every this many enqueue calls, and on an
   empty dequeue of a drained queue pair (so an idle one shows its final counts). */
#define MBGCM_PMD_PUB_EVERY 16u

extern int mbgcm_pmd_logtype;
#define MBGCM_PMD_LOG(level, fmt, ...)                                                         \
    rte_log(RTE_LOG_##level, mbgcm_pmd_logtype, "%s(): " fmt "\n", __func__, ##__VA_ARGS__)

/*
 * Flavours. Per-flavour callbacks, capabilities and names live in a table indexed by the
 * type, so another flavour (a different mbgcm arch, say) is one more row, not more switches.
 */
enum mbgcm_pmd_type {
    MBGCM_PMD_TYPE_MBGCM = 0, /* crypto_mbgcm: mbgcm's fastest arch ("auto") */
    MBGCM_PMD_TYPE_COUNT
};

struct mbgcm_pmd_flavour {
    const char *drv_name;                          /* vdev driver name */
    const char *arch;                              /* mbgcm_config.arch (NULL: auto) */
    const struct rte_cryptodev_capabilities *caps; /* END_OF_CAPABILITIES terminated */
    uint64_t feature_flags;                        /* before the CPU flags of the arch */
    uint8_t *driver_id;                            /* set by RTE_PMD_REGISTER_CRYPTO_DRIVER */
};

extern const struct mbgcm_pmd_flavour mbgcm_pmd_flavours[MBGCM_PMD_TYPE_COUNT];
extern struct rte_cryptodev_ops mbgcm_pmd_ops;

/*
 * Counters published for the telemetry thread by the one thread that owns a manager (a queue
 * pair's or an lcore's CPU-crypto context). The owner writes under a sequence count (odd while
 * writing); readers copy until they see the same even count before and after. The telemetry
 * callback never touches a manager.
 */
struct mbgcm_pmd_pub {
    uint32_t seq;
    uint64_t ops;      /* ops, vector elements or raw descriptors completed */
    uint64_t errors;   /* of which not successful (authentication failures included) */
    mbgcm_stats mgr;   /* mbgcm_mgr_stats() of the owner's manager */
} __rte_cache_aligned;

/* Copy mbgcm_mgr_stats(m) and the two PMD counters into |p| (owner only). */
static inline void
mbgcm_pmd_publish(struct mbgcm_pmd_pub *p, const mbgcm_mgr *m, uint64_t ops, uint64_t errors)
{
    mbgcm_stats st;
    const uint64_t *src = (const uint64_t *)&st;
    uint64_t *dst = (uint64_t *)&p->mgr;
    const uint32_t seq = p->seq;
    size_t i;

    if (mbgcm_mgr_stats(m, &st) != MBGCM_OK)
        memset(&st, 0, sizeof(st));
    __atomic_store_n(&p->seq, seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&p->ops, ops, __ATOMIC_RELAXED);
    __atomic_store_n(&p->errors, errors, __ATOMIC_RELAXED);
    for (i = 0; i < sizeof(st) / sizeof(uint64_t); i++)
        __atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
    __atomic_store_n(&p->seq, seq + 2, __ATOMIC_RELEASE);
}

/*
 * One lcore's CPU-crypto context: its own manager (a manager belongs to one thread, and
 * sym_cpu_process may be called from any lcore without a queue pair), the jobs of the chunk
 * being gathered and the segment lists of its scatter-gather elements. Created by the first
 * call on that lcore, on the lcore's NUMA socket; freed when the device is closed.
 */
struct mbgcm_pmd_lcore {
    mbgcm_mgr *mgr;
    uint64_t ops, errors;          /* owner's running counts, published in pub */
    struct mbgcm_pmd_pub pub;
    mbgcm_job jobs[MBGCM_PMD_BATCH];
    mbgcm_seg segs[MBGCM_PMD_VEC_SEGS];
};

/*
 * Manager memory from rte_malloc on a NUMA socket: mbgcm_config's allocation hooks, with the
 * socket id as mem_ctx (SOCKET_ID_ANY allowed). mbgcm wipes the manager before mem_free.
 */
static inline void *
mbgcm_pmd_mem_alloc(void *ctx, size_t size, size_t align)
{
    return rte_malloc_socket("mbgcm_mgr", size, (unsigned int)align, (int)(intptr_t)ctx);
}

static inline void
mbgcm_pmd_mem_free(void *ctx __rte_unused, void *p, size_t size __rte_unused)
{
    rte_free(p);
}

static inline void
mbgcm_pmd_mem_config(mbgcm_config *cfg, int socket)
{
    cfg->mem_alloc = mbgcm_pmd_mem_alloc;
    cfg->mem_free = mbgcm_pmd_mem_free;
    cfg->mem_ctx = (void *)(intptr_t)socket;
}

/* The device's private data (rte_cryptodev_data.dev_private). */
struct mbgcm_pmd_internals {
    enum mbgcm_pmd_type type;
    unsigned int max_nb_queue_pairs;
    uint64_t flush_timeout_ns;  /* from flush_timeout_us; 0: batch mode, else ring mode */
    int raw_dp;                 /* raw_dp=1: raw data-path API instead of CPU crypto */
    unsigned int lanes;         /* the managers' mbgcm_config.lanes (0: mbgcm's default) */
    char arch[16];              /* the arch the managers run ("avx512", ...) */
    /* CPU crypto: one context per lcore id (set once by that lcore, release order, read by
       telemetry with acquire), and what threads without an lcore id did (one-shot calls) */
    struct mbgcm_pmd_lcore *lcore[RTE_MAX_LCORE];
    uint64_t unregistered_ops, unregistered_errors; /* atomic adds */
};

/*
 * Session private data. The key comes first: mbgcm_key must be 64-byte aligned, and
 * mbgcm_pmd_session_get() aligns the driver's area (sym_session_get_size reserves the slack).
 */
#define MBGCM_PMD_SESSION_MAGIC 0x6d626763u /* "mbgc": configured and not cleared */
struct mbgcm_pmd_session {
    mbgcm_key key;
    uint32_t magic;
    int dir;             /* MBGCM_ENCRYPT or MBGCM_DECRYPT (GMAC: generate or verify) */
    uint16_t iv_offset;  /* IV at this offset from the rte_crypto_op */
    uint16_t iv_len;     /* 1 .. 65535 */
    uint16_t aad_len;    /* 0 .. 65535 (AEAD; GMAC takes the op's data range as its AAD) */
    uint16_t tag_len;    /* 4, 8, 12 .. 16 */
    uint16_t key_len;    /* 16, 24, 32 */
    uint8_t gmac;        /* 1: AES-GMAC auth-only: a job with len 0 and the data as AAD */
    uint8_t raw_key[32]; /* sessionless only: the raw key of the cached expansion */
};

static inline struct mbgcm_pmd_session *
mbgcm_pmd_session_get(struct rte_cryptodev_sym_session *sess)
{
    return (struct mbgcm_pmd_session *)RTE_PTR_ALIGN_CEIL(CRYPTODEV_GET_SYM_SESS_PRIV(sess), 64);
}

/* Parse an AEAD AES-GCM or auth AES-GMAC xform into |s| and expand the key. 0, -ENOTSUP or
   -EINVAL.
   |sessionless|: |s| is a queue pair's scratch session; it keeps the raw key and skips the
   expansion when the next op brings the same key. */
int mbgcm_pmd_session_parse(struct mbgcm_pmd_session *s, const struct rte_crypto_sym_xform *xf,
                            int sessionless);
/* Wipe |s|: no key material is left behind in the session mempool. */
void mbgcm_pmd_session_wipe(struct mbgcm_pmd_session *s);

/* One queue-pair slot: an op (or a raw descriptor's user data) between enqueue and dequeue. */
struct mbgcm_pmd_slot {
    union {
        struct rte_crypto_op *op;
        void *user_data;   /* raw data path */
    };
    uint64_t seg_end;  /* segment arena position after this op's lists (freed at dequeue) */
    uint8_t done;      /* status final; may be returned once every older op was */
    uint8_t status;    /* raw data path: the rte_crypto_op_status */
};

/*
 * Queue pair. Ops take slots in enqueue order (head); dequeue returns them from tail while
 * they are done. Two modes. Batch mode (flush_timeout_us=0, the default): an enqueue call
 * gathers its ops' jobs in batch[] and runs them with mbgcm_submit_burst (the call's short
 * jobs share lanes), so every op is done when enqueue returns. Ring mode (a timeout): ops
 * become ring jobs of the manager and are done when the manager returns their job (in
 * submission order), so lanes fill across enqueue calls. In both modes ops handled
 * synchronously (bad ops, sessionless ops, chains longer than MBGCM_MAX_SEGS) are done at
 * enqueue. Segment lists of chained mbufs live in a FIFO arena
 * (positions seg_tail .. seg_head) until their op is dequeued.
 */
struct mbgcm_pmd_qp {
    mbgcm_mgr *mgr;
    uint32_t mask;        /* slots - 1 */
    uint32_t head, tail;  /* free-running slot counters */
    uint32_t in_mgr;      /* jobs submitted and not yet returned by the manager */
    uint64_t timeout_ns;  /* the device's flush_timeout_ns */
    uint8_t driver_id;    /* sessions must carry it */
    mbgcm_seg *segs;      /* segment arena */
    uint32_t nsegs;       /* arena entries */
    uint64_t seg_head, seg_tail; /* free-running arena positions (never wrap) */
    struct rte_cryptodev_stats stats;
    struct mbgcm_pmd_session *sl_sess; /* sessionless scratch session (64-byte aligned) */
    uint16_t id;
    uint8_t raw;          /* a raw data-path context was configured on it: it takes no ops */
    uint32_t pub_calls;   /* enqueue calls since the last publication */
    char name[RTE_CRYPTODEV_NAME_MAX_LEN + 16];
    struct mbgcm_pmd_pub pub; /* for telemetry */
    uint32_t nbatch;      /* batch mode (timeout_ns == 0): jobs gathered in batch[] */
    mbgcm_job batch[MBGCM_PMD_BATCH];
    struct mbgcm_pmd_slot slots[];
};

static inline void
mbgcm_pmd_qp_publish(struct mbgcm_pmd_qp *qp)
{
    qp->pub_calls = 0;
    mbgcm_pmd_publish(&qp->pub, qp->mgr, qp->stats.dequeued_count, qp->stats.dequeue_err_count);
}

/* Datapath (mbgcm_pmd_dp.c). */
uint16_t mbgcm_pmd_enqueue_burst(void *qp, struct rte_crypto_op **ops, uint16_t nb_ops);
uint16_t mbgcm_pmd_dequeue_burst(void *qp, struct rte_crypto_op **ops, uint16_t nb_ops);
/* Complete every job in the manager (used by flush and queue-pair release). */
void mbgcm_pmd_qp_flush(struct mbgcm_pmd_qp *qp);
/* Ring mode: mark the jobs the manager returns done (mbgcm_mgr_poll, or the submission of
   the job from mbgcm_get_next_job). */
void mbgcm_pmd_qp_poll(struct mbgcm_pmd_qp *qp);
void mbgcm_pmd_qp_submit(struct mbgcm_pmd_qp *qp);
/* mbgcm status -> rte_crypto_op_status. */
uint8_t mbgcm_pmd_op_status(int st);

/* CPU crypto and the raw data path (mbgcm_pmd_vec.c). */
uint32_t mbgcm_pmd_cpu_process(struct rte_cryptodev *dev, struct rte_cryptodev_sym_session *sess,
                               union rte_crypto_sym_ofs ofs, struct rte_crypto_sym_vec *vec);
int mbgcm_pmd_raw_ctx_size(struct rte_cryptodev *dev);
int mbgcm_pmd_raw_configure(struct rte_cryptodev *dev, uint16_t qp_id,
                            struct rte_crypto_raw_dp_ctx *ctx,
                            enum rte_crypto_op_sess_type sess_type,
                            union rte_cryptodev_session_ctx session_ctx, uint8_t is_update);

/* Telemetry (mbgcm_pmd.c): read a publication consistently. */
void mbgcm_pmd_pub_read(const struct mbgcm_pmd_pub *p, struct mbgcm_pmd_pub *out);

#endif /* MBGCM_PMD_PRIV_H */
