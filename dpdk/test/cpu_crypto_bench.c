/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpu_crypto_bench — the synchronous CPU-crypto API (rte_cryptodev_sym_cpu_crypto_process)
 * of crypto_mbgcm and crypto_aesni_gcm, side by side in one process.
 *
 *   cpu_crypto_bench EAL-ARGS -- [-r REPS] [-t MS] [-k "16 32"] [-s "64 256 1420"] [-n VEC]
 *                               [--check] DEV...
 *
 * Each DEV (a vdev name, e.g. crypto_mbgcm0 crypto_aesni_gcm0: given with --vdev, or created
 * here when its driver is loaded) gets an
 * AES-GCM encrypt session (12-byte IV, 16-byte AAD, 16-byte tag) and vectors of VEC (32)
 * one-segment, in-place elements of each size; the timed loop calls the API for MS ms per
 * measurement. REPS rounds, the devices' order alternating; every measurement prints
 *
 *   cpu DEV KEY SIZE MOPS GBPS
 *
 * (Mops = elements per microsecond). --check instead encrypts the same inputs on every device
 * (and AES-GMAC generate, where the device has it) and fails unless all agree: exit 0, 1 on a
 * mismatch, 77 when a device cannot be created (crypto_aesni_gcm not installed: ctest skips).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_bus_vdev.h>
#include <rte_crypto.h>
#include <rte_cryptodev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#define MAXDEV 4
#define MAXVEC 64

struct dev {
    const char *name;
    int id;
    void *sess;
};

static struct rte_mempool *g_sess_pool;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    while (n--) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        *p++ = (uint8_t)(seed >> 56);
    }
}

static int dev_setup(struct dev *d)
{
    struct rte_cryptodev_config conf = {.socket_id = (int)rte_socket_id(), .nb_queue_pairs = 1};
    struct rte_cryptodev_qp_conf qc = {.nb_descriptors = 128, .mp_session = g_sess_pool};

    d->id = rte_cryptodev_get_dev_id(d->name);
    if (d->id < 0 && rte_vdev_init(d->name, NULL) == 0) /* not given with --vdev: make it */
        d->id = rte_cryptodev_get_dev_id(d->name);
    if (d->id < 0)
        return -1;
    if (rte_cryptodev_configure((uint8_t)d->id, &conf) != 0 ||
        rte_cryptodev_queue_pair_setup((uint8_t)d->id, 0, &qc, (int)rte_socket_id()) != 0 ||
        rte_cryptodev_start((uint8_t)d->id) != 0)
        return -1;
    return 0;
}

static void *session(const struct dev *d, const uint8_t *key, unsigned klen, int gmac)
{
    struct rte_crypto_sym_xform xf;

    memset(&xf, 0, sizeof(xf));
    if (gmac) {
        xf.type = RTE_CRYPTO_SYM_XFORM_AUTH;
        xf.auth.algo = RTE_CRYPTO_AUTH_AES_GMAC;
        xf.auth.op = RTE_CRYPTO_AUTH_OP_GENERATE;
        xf.auth.key.data = key;
        xf.auth.key.length = (uint16_t)klen;
        xf.auth.iv.length = 12;
        xf.auth.digest_length = 16;
    } else {
        xf.type = RTE_CRYPTO_SYM_XFORM_AEAD;
        xf.aead.algo = RTE_CRYPTO_AEAD_AES_GCM;
        xf.aead.op = RTE_CRYPTO_AEAD_OP_ENCRYPT;
        xf.aead.key.data = key;
        xf.aead.key.length = (uint16_t)klen;
        xf.aead.iv.length = 12;
        xf.aead.aad_length = 16;
        xf.aead.digest_length = 16;
    }
    return rte_cryptodev_sym_session_create((uint8_t)d->id, &xf, g_sess_pool);
}

/* A vector of |n| one-segment elements of |size| bytes over |buf| (n * size bytes). */
struct vecset {
    struct rte_crypto_vec v[MAXVEC];
    struct rte_crypto_sgl sgl[MAXVEC];
    struct rte_crypto_va_iova_ptr iv[MAXVEC], aad[MAXVEC], digest[MAXVEC];
    int32_t status[MAXVEC];
    struct rte_crypto_sym_vec vec;
};

static void vecset_make(struct vecset *s, uint8_t *buf, uint8_t *ivs, uint8_t *aads,
                        uint8_t *tags, unsigned n, unsigned size, int gmac)
{
    unsigned i;

    memset(s, 0, sizeof(*s));
    for (i = 0; i < n; i++) {
        s->v[i].base = buf + (size_t)i * size;
        s->v[i].len = size;
        s->v[i].tot_len = size;
        s->sgl[i].vec = &s->v[i];
        s->sgl[i].num = 1;
        s->iv[i].va = ivs + 16 * i;
        s->aad[i].va = gmac ? NULL : aads + 16 * i;
        s->digest[i].va = tags + 16 * i;
    }
    s->vec.num = n;
    s->vec.src_sgl = s->sgl;
    s->vec.iv = s->iv;
    s->vec.aad = s->aad;
    s->vec.digest = s->digest;
    s->vec.status = s->status;
}

static int check(struct dev *devs, unsigned ndev, unsigned vecn)
{
    static const unsigned sizes[] = {0, 1, 16, 64, 65, 256, 1420, 2048};
    uint8_t key[32];
    int bad = 0, gmac;
    unsigned s, d, kl;

    for (gmac = 0; gmac <= 1; gmac++)
        for (kl = 16; kl <= 32; kl += 8)
            for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
                const unsigned size = sizes[s];
                uint8_t *ref = NULL, *reftag = NULL;
                unsigned have = 0;

                fill(key, kl, kl * 131 + s);
                for (d = 0; d < ndev; d++) {
                    uint8_t *buf = malloc((size_t)vecn * size + 1);
                    uint8_t *ivs = malloc(16 * vecn), *aads = malloc(16 * vecn);
                    uint8_t *tags = calloc(vecn, 16);
                    struct vecset *vs = malloc(sizeof(*vs));
                    void *sess = session(&devs[d], key, kl, gmac);
                    uint32_t ok;

                    if (sess == NULL) { /* (a device without this transform) */
                        free(buf), free(ivs), free(aads), free(tags), free(vs);
                        continue;
                    }
                    fill(buf, (size_t)vecn * size, 7 + s);
                    fill(ivs, 16 * vecn, 11 + s);
                    fill(aads, 16 * vecn, 13 + s);
                    vecset_make(vs, buf, ivs, aads, tags, vecn, size, gmac);
                    ok = rte_cryptodev_sym_cpu_crypto_process((uint8_t)devs[d].id, sess,
                                                              (union rte_crypto_sym_ofs){.raw = 0},
                                                              &vs->vec);
                    if (ok != vecn) {
                        printf("check: %s %s key %u size %u: %u of %u ok (status %d)\n",
                               devs[d].name, gmac ? "gmac" : "gcm", kl, size, ok, vecn,
                               vs->status[0]);
                        bad = 1;
                    } else if (have == 0) {
                        ref = buf;
                        reftag = tags;
                        buf = tags = NULL;
                    } else if (memcmp(ref, buf, (size_t)vecn * size) != 0 ||
                               memcmp(reftag, tags, 16 * vecn) != 0) {
                        printf("check: %s differs from %s: %s key %u size %u\n", devs[d].name,
                               devs[0].name, gmac ? "gmac" : "gcm", kl, size);
                        bad = 1;
                    }
                    have += ok == vecn;
                    rte_cryptodev_sym_session_free((uint8_t)devs[d].id, sess);
                    free(buf), free(ivs), free(aads), free(tags), free(vs);
                }
                if (have >= 2)
                    printf("check: %s AES-%u %4u B x %u: %u devices agree\n",
                           gmac ? "gmac" : "gcm ", kl * 8, size, vecn, have);
                free(ref);
                free(reftag);
            }
    return bad;
}

int main(int argc, char **argv)
{
    unsigned reps = 5, ms = 200, vecn = 32, ndev = 0, nkeys = 0, nsizes = 0, i, r, k, s;
    unsigned keys[4], sizes[16];
    const char *keystr = "16 32", *sizestr = "64 256 1420";
    struct dev devs[MAXDEV];
    int docheck = 0, ret;
    char *tok, *copy;

    ret = rte_eal_init(argc, argv);
    if (ret < 0) {
        fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    argc -= ret;
    argv += ret;
    for (i = 1; i < (unsigned)argc; i++) {
        if (strcmp(argv[i], "-r") == 0 && i + 1 < (unsigned)argc)
            reps = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < (unsigned)argc)
            ms = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "-k") == 0 && i + 1 < (unsigned)argc)
            keystr = argv[++i];
        else if (strcmp(argv[i], "-s") == 0 && i + 1 < (unsigned)argc)
            sizestr = argv[++i];
        else if (strcmp(argv[i], "-n") == 0 && i + 1 < (unsigned)argc)
            vecn = (unsigned)atoi(argv[++i]);
        else if (strcmp(argv[i], "--check") == 0)
            docheck = 1;
        else if (ndev < MAXDEV)
            devs[ndev++].name = argv[i];
    }
    if (vecn == 0 || vecn > MAXVEC) {
        fprintf(stderr, "-n: 1..%d\n", MAXVEC);
        return 2;
    }
    copy = strdup(keystr);
    for (tok = strtok(copy, " ,"); tok != NULL && nkeys < 4; tok = strtok(NULL, " ,"))
        keys[nkeys++] = (unsigned)atoi(tok);
    free(copy);
    copy = strdup(sizestr);
    for (tok = strtok(copy, " ,"); tok != NULL && nsizes < 16; tok = strtok(NULL, " ,"))
        sizes[nsizes++] = (unsigned)atoi(tok);
    free(copy);

    g_sess_pool = rte_cryptodev_sym_session_pool_create("bench_sess", 64, 4096, 0, 0,
                                                         (int)rte_socket_id());
    if (g_sess_pool == NULL) {
        fprintf(stderr, "session pool: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    for (i = 0; i < ndev; i++)
        if (dev_setup(&devs[i]) != 0) {
            fprintf(stderr, "cpu_crypto_bench: device %s unavailable\n", devs[i].name);
            if (docheck) {
                printf("cpu_crypto_bench: %s unavailable: check skipped\n", devs[i].name);
                return 77;
            }
            return 1;
        }
    if (docheck)
        return ndev < 2 ? 77 : check(devs, ndev, vecn);

    for (r = 0; r < reps; r++)
        for (k = 0; k < nkeys; k++)
            for (i = 0; i < ndev; i++) {
                struct dev *d = &devs[(r % 2) ? ndev - 1 - i : i];
                uint8_t key[32];

                fill(key, keys[k], 1);
                d->sess = session(d, key, keys[k], 0);
                if (d->sess == NULL) {
                    fprintf(stderr, "%s: no session\n", d->name);
                    return 1;
                }
                for (s = 0; s < nsizes; s++) {
                    uint8_t *buf = malloc((size_t)vecn * sizes[s]);
                    uint8_t ivs[16 * MAXVEC], aads[16 * MAXVEC], tags[16 * MAXVEC];
                    struct vecset *vs = malloc(sizeof(*vs));
                    uint64_t t0, t1, calls = 0;
                    unsigned w;

                    fill(buf, (size_t)vecn * sizes[s], 3);
                    fill(ivs, sizeof(ivs), 5);
                    fill(aads, sizeof(aads), 9);
                    vecset_make(vs, buf, ivs, aads, tags, vecn, sizes[s], 0);
                    /* warm-up, then whole calls until MS ms have passed */
                    for (w = 0; w < 200; w++)
                        rte_cryptodev_sym_cpu_crypto_process((uint8_t)d->id, d->sess,
                                                             (union rte_crypto_sym_ofs){.raw = 0},
                                                             &vs->vec);
                    t0 = now_ns();
                    do {
                        unsigned j;

                        for (j = 0; j < 64; j++)
                            if (rte_cryptodev_sym_cpu_crypto_process(
                                    (uint8_t)d->id, d->sess, (union rte_crypto_sym_ofs){.raw = 0},
                                    &vs->vec) != vecn) {
                                fprintf(stderr, "%s: element failed (%d)\n", d->name,
                                        vs->status[0]);
                                return 1;
                            }
                        calls += 64;
                        t1 = now_ns();
                    } while (t1 - t0 < (uint64_t)ms * 1000000u);
                    printf("cpu %s %u %u %.3f %.2f\n", d->name, keys[k], sizes[s],
                           (double)(calls * vecn) * 1e3 / (double)(t1 - t0),
                           (double)(calls * vecn) * sizes[s] * 8.0 / (double)(t1 - t0));
                    fflush(stdout);
                    free(buf);
                    free(vs);
                }
                rte_cryptodev_sym_session_free((uint8_t)d->id, d->sess);
            }
    rte_eal_cleanup();
    return 0;
}
