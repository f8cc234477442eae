/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm_pmd.c — the crypto_mbgcm virtual device: flavour table and capabilities, devargs,
 * probe/remove on the vdev bus, driver registration.
 *
 *   --vdev 'crypto_mbgcm0[,max_nb_queue_pairs=N][,socket_id=S][,flush_timeout_us=T][,raw_dp=1]
 *          [,lanes=L]'
 *
 * flush_timeout_us = 0 (default): batch mode, the jobs of an enqueue call run with mbgcm's
 * burst API before it returns, so every op comes back on the next dequeue. T > 0: ring mode,
 * jobs wait in the manager's lanes across enqueue calls; dequeue only polls, a job waits at
 * most about T us (while the application keeps calling dequeue) for its lanes to fill, and an
 * enqueue of zero ops flushes.
 *
 * lanes: mbgcm_config.lanes of the queue pairs' managers, 0 (mbgcm's default), 4, 8, 12 or 16.
 * In ring mode short ops (up to 256 bytes, 12-byte IV, AAD <= 16) then run once 8 of one
 * shape wait, or L when that is more: 16 costs less per op, and an op may wait for twice as
 * many arrivals (at most about T us).
 *
 * raw_dp: DPDK 22.11's struct rte_cryptodev_ops keeps sym_cpu_process in a union with
 * sym_get_raw_dp_ctx_size, so one device can offer the synchronous CPU-crypto API or the raw
 * data-path API, not both. raw_dp=0 (default): CPU crypto; raw_dp=1: the raw data path. An
 * application that wants both creates two devices.
 *
 * Telemetry: /cryptodev_mbgcm/list and /cryptodev_mbgcm/stats,<dev_id> report the managers'
 * counters (lane occupancy, what started each lane run, the single-stream share, auth
 * failures) from what each queue pair and each CPU-crypto lcore publishes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>
#include <rte_telemetry.h>

#include "mbgcm_pmd_priv.h"

RTE_LOG_REGISTER(mbgcm_pmd_logtype, pmd.crypto.mbgcm, INFO);

static uint8_t mbgcm_pmd_driver_id;

/*
 * AES-GCM AEAD and AES-GMAC auth. Digest: mbgcm takes 4, 8 and 12..16 bytes (the tag lengths
 * NIST SP 800-38D allows); a capability range cannot say that, so the range advertised is
 * 4..16 step 4 and session setup also accepts 13..15 and rejects every other length. IV: any
 * length mbgcm takes that the xform's 16-bit length field can carry (12 is the fast path; 0,
 * "the IV is J0", is not supported). GMAC authenticates any number of bytes (the op's range).
 */
static const struct rte_cryptodev_capabilities mbgcm_pmd_caps[] = {
    {
        .op = RTE_CRYPTO_OP_TYPE_SYMMETRIC,
        .sym = {
            .xform_type = RTE_CRYPTO_SYM_XFORM_AEAD,
            .aead = {
                .algo = RTE_CRYPTO_AEAD_AES_GCM,
                .block_size = 16,
                .key_size = {.min = 16, .max = 32, .increment = 8},
                .digest_size = {.min = 4, .max = 16, .increment = 4},
                .aad_size = {.min = 0, .max = 65535, .increment = 1},
                .iv_size = {.min = 1, .max = 65535, .increment = 1},
            },
        },
    },
    {
        .op = RTE_CRYPTO_OP_TYPE_SYMMETRIC,
        .sym = {
            .xform_type = RTE_CRYPTO_SYM_XFORM_AUTH,
            .auth = {
                .algo = RTE_CRYPTO_AUTH_AES_GMAC,
                .block_size = 16,
                .key_size = {.min = 16, .max = 32, .increment = 8},
                .digest_size = {.min = 4, .max = 16, .increment = 4},
                .aad_size = {.min = 0, .max = 0, .increment = 0},
                .iv_size = {.min = 1, .max = 65535, .increment = 1},
            },
        },
    },
    RTE_CRYPTODEV_END_OF_CAPABILITIES_LIST()
};

#define MBGCM_PMD_FF_COMMON                                                                    \
    (RTE_CRYPTODEV_FF_SYMMETRIC_CRYPTO | RTE_CRYPTODEV_FF_IN_PLACE_SGL |                      \
     RTE_CRYPTODEV_FF_OOP_SGL_IN_SGL_OUT | RTE_CRYPTODEV_FF_OOP_SGL_IN_LB_OUT |               \
     RTE_CRYPTODEV_FF_OOP_LB_IN_SGL_OUT | RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT |                 \
     RTE_CRYPTODEV_FF_SYM_SESSIONLESS)
/* One of the two (see raw_dp above). */
#define MBGCM_PMD_FF_CPU_CRYPTO RTE_CRYPTODEV_FF_SYM_CPU_CRYPTO
#define MBGCM_PMD_FF_RAW_DP RTE_CRYPTODEV_FF_SYM_RAW_DP

/* The generic ops plus the datapath API of the device's choice. */
static struct rte_cryptodev_ops mbgcm_pmd_ops_cpu, mbgcm_pmd_ops_raw;

RTE_INIT(mbgcm_pmd_ops_init)
{
    mbgcm_pmd_ops_cpu = mbgcm_pmd_ops;
    mbgcm_pmd_ops_cpu.sym_cpu_process = mbgcm_pmd_cpu_process;
    mbgcm_pmd_ops_raw = mbgcm_pmd_ops;
    mbgcm_pmd_ops_raw.sym_get_raw_dp_ctx_size = mbgcm_pmd_raw_ctx_size;
    mbgcm_pmd_ops_raw.sym_configure_raw_dp_ctx = mbgcm_pmd_raw_configure;
}

const struct mbgcm_pmd_flavour mbgcm_pmd_flavours[MBGCM_PMD_TYPE_COUNT] = {
    [MBGCM_PMD_TYPE_MBGCM] = {
        .drv_name = MBGCM_PMD_DRV_NAME_STR,
        .arch = NULL,
        .caps = mbgcm_pmd_caps,
        .feature_flags = MBGCM_PMD_FF_COMMON,
        .driver_id = &mbgcm_pmd_driver_id,
    },
};

/* CPU feature flags for the arch a manager runs. */
static uint64_t
mbgcm_pmd_cpu_flags(const char *arch)
{
    if (strcmp(arch, "avx512") == 0)
        return RTE_CRYPTODEV_FF_CPU_AVX512 | RTE_CRYPTODEV_FF_CPU_AVX2 | RTE_CRYPTODEV_FF_CPU_AVX |
               RTE_CRYPTODEV_FF_CPU_AESNI | RTE_CRYPTODEV_FF_CPU_SSE;
    if (strcmp(arch, "avx2") == 0)
        return RTE_CRYPTODEV_FF_CPU_AVX2 | RTE_CRYPTODEV_FF_CPU_AVX | RTE_CRYPTODEV_FF_CPU_AESNI |
               RTE_CRYPTODEV_FF_CPU_SSE;
    if (strcmp(arch, "aesni") == 0)
        return RTE_CRYPTODEV_FF_CPU_AESNI | RTE_CRYPTODEV_FF_CPU_SSE;
    return 0; /* generic: portable C */
}

/* ---- devargs ------------------------------------------------------------------------------ */

struct mbgcm_pmd_args {
    struct rte_cryptodev_pmd_init_params init;
    uint64_t flush_timeout_us;
    uint64_t raw_dp;
    uint64_t lanes;
};

static const char *const mbgcm_pmd_valid_args[] = {
    RTE_CRYPTODEV_PMD_NAME_ARG,
    RTE_CRYPTODEV_PMD_MAX_NB_QP_ARG,
    RTE_CRYPTODEV_PMD_SOCKET_ID_ARG,
    MBGCM_PMD_FLUSH_TIMEOUT_ARG,
    MBGCM_PMD_RAW_DP_ARG,
    MBGCM_PMD_LANES_ARG,
    NULL,
};

/* A decimal integer in [0, max], the whole string. */
static int
mbgcm_pmd_parse_uint(const char *value, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    unsigned long long v;

    if (value == NULL || *value < '0' || *value > '9')
        return -EINVAL;
    errno = 0;
    v = strtoull(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v > max)
        return -EINVAL;
    *out = v;
    return 0;
}

static int
mbgcm_pmd_arg_name(const char *key __rte_unused, const char *value, void *opaque)
{
    struct mbgcm_pmd_args *a = opaque;

    if (value == NULL || strlen(value) >= sizeof(a->init.name))
        return -EINVAL;
    strlcpy(a->init.name, value, sizeof(a->init.name));
    return 0;
}

static int
mbgcm_pmd_arg_max_qp(const char *key __rte_unused, const char *value, void *opaque)
{
    struct mbgcm_pmd_args *a = opaque;
    uint64_t v;

    if (mbgcm_pmd_parse_uint(value, UINT16_MAX, &v) != 0 || v == 0)
        return -EINVAL;
    a->init.max_nb_queue_pairs = (unsigned int)v;
    return 0;
}

static int
mbgcm_pmd_arg_socket(const char *key __rte_unused, const char *value, void *opaque)
{
    struct mbgcm_pmd_args *a = opaque;
    uint64_t v;

    if (mbgcm_pmd_parse_uint(value, RTE_MAX_NUMA_NODES - 1, &v) != 0)
        return -EINVAL;
    a->init.socket_id = (int)v;
    return 0;
}

static int
mbgcm_pmd_arg_timeout(const char *key __rte_unused, const char *value, void *opaque)
{
    struct mbgcm_pmd_args *a = opaque;

    return mbgcm_pmd_parse_uint(value, MBGCM_PMD_MAX_TIMEOUT_US, &a->flush_timeout_us);
}

static int
mbgcm_pmd_arg_raw_dp(const char *key __rte_unused, const char *value, void *opaque)
{
    struct mbgcm_pmd_args *a = opaque;

    return mbgcm_pmd_parse_uint(value, 1, &a->raw_dp);
}

static int
mbgcm_pmd_arg_lanes(const char *key __rte_unused, const char *value, void *opaque)
{
    struct mbgcm_pmd_args *a = opaque;

    if (mbgcm_pmd_parse_uint(value, 16, &a->lanes) != 0 || a->lanes % 4 != 0)
        return -EINVAL;
    return 0;
}

static int
mbgcm_pmd_parse_args(const char *args, struct mbgcm_pmd_args *a)
{
    struct rte_kvargs *kv;
    int ret = 0;

    if (args == NULL || *args == '\0')
        return 0;
    kv = rte_kvargs_parse(args, mbgcm_pmd_valid_args);
    if (kv == NULL)
        return -EINVAL; /* an unknown key or a malformed list */
    if (rte_kvargs_process(kv, RTE_CRYPTODEV_PMD_NAME_ARG, mbgcm_pmd_arg_name, a) < 0 ||
        rte_kvargs_process(kv, RTE_CRYPTODEV_PMD_MAX_NB_QP_ARG, mbgcm_pmd_arg_max_qp, a) < 0 ||
        rte_kvargs_process(kv, RTE_CRYPTODEV_PMD_SOCKET_ID_ARG, mbgcm_pmd_arg_socket, a) < 0 ||
        rte_kvargs_process(kv, MBGCM_PMD_FLUSH_TIMEOUT_ARG, mbgcm_pmd_arg_timeout, a) < 0 ||
        rte_kvargs_process(kv, MBGCM_PMD_RAW_DP_ARG, mbgcm_pmd_arg_raw_dp, a) < 0 ||
        rte_kvargs_process(kv, MBGCM_PMD_LANES_ARG, mbgcm_pmd_arg_lanes, a) < 0)
        ret = -EINVAL;
    rte_kvargs_free(kv);
    return ret;
}

/* ---- create / remove ---------------------------------------------------------------------- */

static int
mbgcm_pmd_create(struct rte_vdev_device *vdev, enum mbgcm_pmd_type type)
{
    const struct mbgcm_pmd_flavour *fl = &mbgcm_pmd_flavours[type];
    const char *name = rte_vdev_device_name(vdev);
    const char *args = rte_vdev_device_args(vdev);
    struct mbgcm_pmd_args a;
    struct mbgcm_pmd_internals *in;
    struct rte_cryptodev *dev;
    mbgcm_config cfg;
    mbgcm_mgr *probe_mgr = NULL;
    int ret;

    if (name == NULL)
        return -EINVAL;
    memset(&a, 0, sizeof(a));
    a.init.private_data_size = sizeof(struct mbgcm_pmd_internals);
    a.init.socket_id = (int)rte_socket_id();
    a.init.max_nb_queue_pairs = RTE_CRYPTODEV_PMD_DEFAULT_MAX_NB_QUEUE_PAIRS;
    if (mbgcm_pmd_parse_args(args, &a) != 0) {
        MBGCM_PMD_LOG(ERR, "%s: bad devargs '%s' (valid: name, max_nb_queue_pairs, socket_id, "
                      MBGCM_PMD_FLUSH_TIMEOUT_ARG "=0..%u, " MBGCM_PMD_RAW_DP_ARG "=0|1, "
                      MBGCM_PMD_LANES_ARG "=0|4|8|12|16)",
                      name, args, MBGCM_PMD_MAX_TIMEOUT_US);
        return -EINVAL;
    }
    if (a.init.name[0] == '\0')
        strlcpy(a.init.name, name, sizeof(a.init.name));

    /* The arch every manager of this device will run; fail now if mbgcm cannot run here. */
    memset(&cfg, 0, sizeof(cfg));
    cfg.arch = fl->arch;
    cfg.queue_size = 1;
    mbgcm_pmd_mem_config(&cfg, a.init.socket_id);
    ret = mbgcm_mgr_create(&probe_mgr, &cfg);
    if (ret != MBGCM_OK) {
        MBGCM_PMD_LOG(ERR, "%s: mbgcm manager unavailable: %s", name, mbgcm_strerror(ret));
        return -ENOTSUP;
    }

    dev = rte_cryptodev_pmd_create(a.init.name, &vdev->device, &a.init);
    if (dev == NULL) {
        MBGCM_PMD_LOG(ERR, "%s: rte_cryptodev_pmd_create failed", name);
        mbgcm_mgr_free(probe_mgr);
        return -ENODEV;
    }
    in = dev->data->dev_private;
    in->type = type;
    in->max_nb_queue_pairs = a.init.max_nb_queue_pairs;
    in->flush_timeout_ns = a.flush_timeout_us * 1000u;
    in->raw_dp = a.raw_dp != 0;
    in->lanes = (unsigned int)a.lanes;
    strlcpy(in->arch, mbgcm_mgr_arch(probe_mgr), sizeof(in->arch));
    mbgcm_mgr_free(probe_mgr);

    dev->driver_id = *fl->driver_id;
    dev->dev_ops = in->raw_dp ? &mbgcm_pmd_ops_raw : &mbgcm_pmd_ops_cpu;
    dev->enqueue_burst = mbgcm_pmd_enqueue_burst;
    dev->dequeue_burst = mbgcm_pmd_dequeue_burst;
    dev->feature_flags = fl->feature_flags | mbgcm_pmd_cpu_flags(in->arch) |
                         (in->raw_dp ? MBGCM_PMD_FF_RAW_DP : MBGCM_PMD_FF_CPU_CRYPTO);

    rte_cryptodev_pmd_probing_finish(dev);
    MBGCM_PMD_LOG(INFO, "%s: mbgcm %s, arch %s, %u queue pairs, flush_timeout_us %" PRIu64
                  ", lanes %u, %s", a.init.name, mbgcm_version(), in->arch,
                  in->max_nb_queue_pairs, a.flush_timeout_us, in->lanes,
                  in->raw_dp ? "raw data path" : "CPU crypto");
    return 0;
}

static int
mbgcm_pmd_probe(struct rte_vdev_device *vdev)
{
    return mbgcm_pmd_create(vdev, MBGCM_PMD_TYPE_MBGCM);
}

static int
mbgcm_pmd_remove(struct rte_vdev_device *vdev)
{
    const char *name = rte_vdev_device_name(vdev);
    struct rte_cryptodev *dev;

    if (name == NULL)
        return -EINVAL;
    dev = rte_cryptodev_pmd_get_named_dev(name);
    if (dev == NULL)
        return -ENODEV;
    return rte_cryptodev_pmd_destroy(dev); /* calls dev_close: queue pairs are released */
}

/* ---- telemetry ---------------------------------------------------------------------------- */

void
mbgcm_pmd_pub_read(const struct mbgcm_pmd_pub *p, struct mbgcm_pmd_pub *out)
{
    const uint64_t *src = (const uint64_t *)&p->mgr;
    uint64_t *dst = (uint64_t *)&out->mgr;
    unsigned int tries;
    size_t i;

    /* the owner writes a few hundred bytes at most every few microseconds: a retry is rare,
       and a bounded number of them keeps a stalled writer from hanging the telemetry thread */
    for (tries = 0; tries < 1000; tries++) {
        const uint32_t s1 = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);

        if (s1 & 1) {
            rte_pause();
            continue;
        }
        out->ops = __atomic_load_n(&p->ops, __ATOMIC_RELAXED);
        out->errors = __atomic_load_n(&p->errors, __ATOMIC_RELAXED);
        for (i = 0; i < sizeof(out->mgr) / sizeof(uint64_t); i++)
            dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) == s1)
            return;
    }
}

static void
mbgcm_pmd_pub_add(struct mbgcm_pmd_pub *sum, const struct mbgcm_pmd_pub *p)
{
    struct mbgcm_pmd_pub v;
    const uint64_t *src = (const uint64_t *)&v.mgr;
    uint64_t *dst = (uint64_t *)&sum->mgr;
    size_t i;

    memset(&v, 0, sizeof(v));
    mbgcm_pmd_pub_read(p, &v);
    sum->ops += v.ops;
    sum->errors += v.errors;
    for (i = 0; i < sizeof(v.mgr) / sizeof(uint64_t); i++)
        dst[i] += src[i];
}

/* A crypto_mbgcm device from a telemetry parameter "<dev_id>", or NULL. */
static struct rte_cryptodev *
mbgcm_pmd_tel_dev(const char *params)
{
    struct rte_cryptodev *dev;
    char *end = NULL;
    unsigned long id;

    if (params == NULL || *params < '0' || *params > '9')
        return NULL;
    id = strtoul(params, &end, 10);
    if (*end != '\0' || id >= RTE_CRYPTO_MAX_DEVS || !rte_cryptodev_is_valid_dev((uint8_t)id))
        return NULL;
    dev = rte_cryptodev_pmd_get_dev((uint8_t)id);
    if (dev == NULL || dev->driver_id != mbgcm_pmd_driver_id || dev->data == NULL ||
        dev->data->dev_private == NULL)
        return NULL;
    return dev;
}

static int
mbgcm_pmd_tel_list(const char *cmd __rte_unused, const char *params __rte_unused,
                   struct rte_tel_data *d)
{
    uint8_t id;

    rte_tel_data_start_array(d, RTE_TEL_INT_VAL);
    for (id = 0; id < RTE_CRYPTO_MAX_DEVS - 1; id++) {
        if (!rte_cryptodev_is_valid_dev(id))
            continue;
        if (rte_cryptodev_pmd_get_dev(id)->driver_id == mbgcm_pmd_driver_id)
            rte_tel_data_add_array_int(d, id);
    }
    return 0;
}

/* Parts per thousand of a / b (0 when b is 0). */
static uint64_t
mbgcm_pmd_permille(uint64_t a, uint64_t b)
{
    return b == 0 ? 0 : (a * 1000u + b / 2) / b;
}

static int
mbgcm_pmd_tel_stats(const char *cmd __rte_unused, const char *params, struct rte_tel_data *d)
{
    struct rte_cryptodev *dev = mbgcm_pmd_tel_dev(params);
    const struct mbgcm_pmd_internals *in;
    struct mbgcm_pmd_pub sum;
    const mbgcm_stats *m = &sum.mgr;
    uint64_t runs, busy;
    unsigned int i, nqp = 0, nlc = 0;

    if (dev == NULL)
        return -EINVAL;
    in = dev->data->dev_private;
    memset(&sum, 0, sizeof(sum));
    for (i = 0; i < dev->data->nb_queue_pairs && dev->data->queue_pairs != NULL; i++) {
        const struct mbgcm_pmd_qp *qp = dev->data->queue_pairs[i];

        if (qp != NULL) {
            mbgcm_pmd_pub_add(&sum, &qp->pub);
            nqp++;
        }
    }
    for (i = 0; i < RTE_MAX_LCORE; i++) {
        const struct mbgcm_pmd_lcore *lc = __atomic_load_n(&in->lcore[i], __ATOMIC_ACQUIRE);

        if (lc != NULL) {
            mbgcm_pmd_pub_add(&sum, &lc->pub);
            nlc++;
        }
    }
    sum.ops += __atomic_load_n(&in->unregistered_ops, __ATOMIC_RELAXED);
    sum.errors += __atomic_load_n(&in->unregistered_errors, __ATOMIC_RELAXED);
    runs = m->kernel_calls[0] + m->kernel_calls[1] + m->kernel_calls[2] + m->kernel_calls[3];
    busy = m->kernel_calls[0] + 2 * m->kernel_calls[1] + 3 * m->kernel_calls[2] +
           4 * m->kernel_calls[3];

    rte_tel_data_start_dict(d);
    rte_tel_data_add_dict_string(d, "arch", in->arch);
    rte_tel_data_add_dict_string(d, "mode", in->flush_timeout_ns != 0 ? "ring" : "batch");
    rte_tel_data_add_dict_string(d, "datapath_api", in->raw_dp ? "raw_dp" : "cpu_crypto");
    rte_tel_data_add_dict_u64(d, "queue_pairs", nqp);
    rte_tel_data_add_dict_u64(d, "cpu_crypto_lcores", nlc);
    rte_tel_data_add_dict_u64(d, "ops", sum.ops);
    rte_tel_data_add_dict_u64(d, "op_errors", sum.errors);
    rte_tel_data_add_dict_u64(d, "jobs", m->jobs);
    rte_tel_data_add_dict_u64(d, "jobs_invalid", m->jobs_invalid);
    rte_tel_data_add_dict_u64(d, "auth_failures", m->auth_failures);
    rte_tel_data_add_dict_u64(d, "bytes", m->bytes);
    rte_tel_data_add_dict_u64(d, "single_stream", m->single_stream);
    rte_tel_data_add_dict_u64(d, "single_stream_permille",
                              mbgcm_pmd_permille(m->single_stream, m->jobs - m->jobs_invalid));
    rte_tel_data_add_dict_u64(d, "lane_runs_1_busy", m->kernel_calls[0]);
    rte_tel_data_add_dict_u64(d, "lane_runs_2_busy", m->kernel_calls[1]);
    rte_tel_data_add_dict_u64(d, "lane_runs_3_busy", m->kernel_calls[2]);
    rte_tel_data_add_dict_u64(d, "lane_runs_4_busy", m->kernel_calls[3]);
    rte_tel_data_add_dict_u64(d, "lane_occupancy_permille", mbgcm_pmd_permille(busy, 4 * runs));
    rte_tel_data_add_dict_u64(d, "runs_lanes_full", m->runs_lanes_full);
    rte_tel_data_add_dict_u64(d, "runs_timeout", m->runs_timeout);
    rte_tel_data_add_dict_u64(d, "runs_flush", m->runs_flush);
    rte_tel_data_add_dict_u64(d, "runs_ring_full", m->runs_ring_full);
    rte_tel_data_add_dict_u64(d, "runs_burst", m->runs_burst);
    rte_tel_data_add_dict_u64(d, "lane_single_finish", m->lane_single_finish);
    return 0;
}

/* (help texts: shorter than RTE_TEL_MAX_STRING_LEN, or the command is refused) */
RTE_INIT(mbgcm_pmd_telemetry_init)
{
    if (rte_telemetry_register_cmd("/cryptodev_mbgcm/list", mbgcm_pmd_tel_list,
                                   "Returns the crypto_mbgcm device ids.") != 0 ||
        rte_telemetry_register_cmd("/cryptodev_mbgcm/stats", mbgcm_pmd_tel_stats,
                                   "Returns a crypto_mbgcm device's job-manager counters "
                                   "(all queue pairs and lcores). Parameters: int dev_id") != 0)
        MBGCM_PMD_LOG(WARNING, "telemetry commands not registered");
}

static struct rte_vdev_driver mbgcm_pmd_vdev_drv = {
    .probe = mbgcm_pmd_probe,
    .remove = mbgcm_pmd_remove,
};

static struct cryptodev_driver mbgcm_pmd_crypto_drv;

RTE_PMD_REGISTER_VDEV(MBGCM_PMD_DRV_NAME, mbgcm_pmd_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(MBGCM_PMD_DRV_NAME,
                              "max_nb_queue_pairs=<int> socket_id=<int> "
                              MBGCM_PMD_FLUSH_TIMEOUT_ARG "=<int> " MBGCM_PMD_RAW_DP_ARG "=0|1");
RTE_PMD_REGISTER_CRYPTO_DRIVER(mbgcm_pmd_crypto_drv, mbgcm_pmd_vdev_drv.driver,
                               mbgcm_pmd_driver_id);
