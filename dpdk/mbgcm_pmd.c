/*
 * mbgcm_pmd.c — the crypto_mbgcm virtual device: flavour table and capabilities, devargs,
 * probe/remove on the vdev bus, driver registration.
 *
 *   --vdev 'crypto_mbgcm0[,max_nb_queue_pairs=N][,socket_id=S][,flush_timeout_us=T]'
 *
 * flush_timeout_us = 0 (default): batch mode, the jobs of an enqueue call run with mbgcm's
 * burst API before it returns, so every op comes back on the next dequeue. T > 0: ring mode,
 * jobs wait in the manager's lanes across enqueue calls; dequeue only polls, a job waits at
 * most about T us (while the application keeps calling dequeue) for its lanes to fill, and an
 * enqueue of zero ops flushes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <rte_kvargs.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>

#include "mbgcm_pmd_priv.h"

RTE_LOG_REGISTER(mbgcm_pmd_logtype, pmd.crypto.mbgcm, INFO);

static uint8_t mbgcm_pmd_driver_id;

/*
 * AES-GCM AEAD. Digest: mbgcm takes 4, 8 and 12..16 bytes; a capability range cannot say
 * that, so the range advertised is 4..16 step 4 and session setup also accepts 13..15 and
 * rejects every other length. IV: any length mbgcm takes that the op's 16-bit length field
 * can carry (12 is the fast path; 0, "the IV is J0", is not supported).
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
    RTE_CRYPTODEV_END_OF_CAPABILITIES_LIST()
};

#define MBGCM_PMD_FF_COMMON                                                                    \
    (RTE_CRYPTODEV_FF_SYMMETRIC_CRYPTO | RTE_CRYPTODEV_FF_IN_PLACE_SGL |                      \
     RTE_CRYPTODEV_FF_OOP_SGL_IN_SGL_OUT | RTE_CRYPTODEV_FF_OOP_SGL_IN_LB_OUT |               \
     RTE_CRYPTODEV_FF_OOP_LB_IN_SGL_OUT | RTE_CRYPTODEV_FF_OOP_LB_IN_LB_OUT |                 \
     RTE_CRYPTODEV_FF_SYM_SESSIONLESS)

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
};

static const char *const mbgcm_pmd_valid_args[] = {
    RTE_CRYPTODEV_PMD_NAME_ARG,
    RTE_CRYPTODEV_PMD_MAX_NB_QP_ARG,
    RTE_CRYPTODEV_PMD_SOCKET_ID_ARG,
    MBGCM_PMD_FLUSH_TIMEOUT_ARG,
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
        rte_kvargs_process(kv, MBGCM_PMD_FLUSH_TIMEOUT_ARG, mbgcm_pmd_arg_timeout, a) < 0)
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
                      MBGCM_PMD_FLUSH_TIMEOUT_ARG "=0..%u)", name, args, MBGCM_PMD_MAX_TIMEOUT_US);
        return -EINVAL;
    }
    if (a.init.name[0] == '\0')
        strlcpy(a.init.name, name, sizeof(a.init.name));

    /* The arch every manager of this device will run; fail now if mbgcm cannot run here. */
    memset(&cfg, 0, sizeof(cfg));
    cfg.arch = fl->arch;
    cfg.queue_size = 1;
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
    strlcpy(in->arch, mbgcm_mgr_arch(probe_mgr), sizeof(in->arch));
    mbgcm_mgr_free(probe_mgr);

    dev->driver_id = *fl->driver_id;
    dev->dev_ops = &mbgcm_pmd_ops;
    dev->enqueue_burst = mbgcm_pmd_enqueue_burst;
    dev->dequeue_burst = mbgcm_pmd_dequeue_burst;
    dev->feature_flags = fl->feature_flags | mbgcm_pmd_cpu_flags(in->arch);

    rte_cryptodev_pmd_probing_finish(dev);
    MBGCM_PMD_LOG(INFO, "%s: mbgcm %s, arch %s, %u queue pairs, flush_timeout_us %" PRIu64,
                  a.init.name, mbgcm_version(), in->arch, in->max_nb_queue_pairs,
                  a.flush_timeout_us);
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

static struct rte_vdev_driver mbgcm_pmd_vdev_drv = {
    .probe = mbgcm_pmd_probe,
    .remove = mbgcm_pmd_remove,
};

static struct cryptodev_driver mbgcm_pmd_crypto_drv;

RTE_PMD_REGISTER_VDEV(MBGCM_PMD_DRV_NAME, mbgcm_pmd_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(MBGCM_PMD_DRV_NAME,
                              "max_nb_queue_pairs=<int> socket_id=<int> "
                              MBGCM_PMD_FLUSH_TIMEOUT_ARG "=<int>");
RTE_PMD_REGISTER_CRYPTO_DRIVER(mbgcm_pmd_crypto_drv, mbgcm_pmd_vdev_drv.driver,
                               mbgcm_pmd_driver_id);
