/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm_dudect.c — dudect-style timing test: for each path, time the same operation
 * on two classes of secret input, interleaved in random order, and apply Welch's t-test to the
 * two timing distributions (after cropping at several percentiles, as dudect does). A |t|
 * that stays below 4.5 means no timing difference was detected at this number of samples; a
 * growing |t| above 10 is a leak. Not a CI gate (shared, noisy machines): scripts/dudect.sh
 * builds and runs it pinned to one CPU, and docs/security.md keeps a sample result.
 *
 * Targets (every supported arch where it applies):
 *   key-init    fixed raw key vs random raw keys (the portable schedule and the AES-NI one)
 *   encrypt     one-shot, 256-byte message: fixed key and plaintext vs random ones
 *   decrypt-tag one-shot decrypt with a wrong tag: only byte 0 wrong vs every byte wrong (both
 *               fail: an early-exit compare would separate them)
 *   ctx         incremental encrypt in 3 pieces: fixed vs random plaintext
 *   lanes       manager (lane kernels forced): 4 jobs of 200 bytes with 20 bytes of AAD, fixed
 *               vs random plaintexts and keys, through the ring and a flush
 *   short       the short-job kernel: 4 jobs of 64 bytes (arches that have one: avx512)
 *   short-split the same with 200-byte jobs (the kernel's two-stage groups)
 *   cobble-open Cobblestone open of a 1000-byte message: fixed vs random plaintext
 *   selftest-leaky  (only with --target selftest-leaky) an early-exit compare of 1024 bytes:
 *               must be reported as a leak, or the measurement is not sensitive enough
 * Usage: mbgcm_dudect [--samples N] [--target NAME[,NAME]] [--arch NAME] [--list]
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "arch.h"
#include "jobs_internal.h"
#include "mbgcm_cobble.h"

/* ---- timing and statistics ------------------------------------------------------------------ */
static inline uint64_t ticks(void)
{
    unsigned aux;
    _mm_lfence();
    const uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
}

#define NCROP 12
struct welch {
    double n[2], mean[2], m2[2];
};

static void welch_add(struct welch *w, int c, double x)
{
    w->n[c] += 1;
    const double d = x - w->mean[c];
    w->mean[c] += d / w->n[c];
    w->m2[c] += d * (x - w->mean[c]);
}

static double welch_t(const struct welch *w)
{
    if (w->n[0] < 2 || w->n[1] < 2) {
        return 0;
    }
    const double v0 = w->m2[0] / (w->n[0] - 1), v1 = w->m2[1] / (w->n[1] - 1);
    const double den = sqrt(v0 / w->n[0] + v1 / w->n[1]);
    return den > 0 ? (w->mean[0] - w->mean[1]) / den : 0;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- randomness (xoshiro256**) ---------------------------------------------------------------- */
static uint64_t rs[4] = {0x9E3779B97F4A7C15u, 0xBF58476D1CE4E5B9u, 0x94D049BB133111EBu, 1};
static uint64_t rnd(void)
{
    const uint64_t r = ((rs[1] * 5) << 7 | (rs[1] * 5) >> 57) * 9, t = rs[1] << 17;
    rs[2] ^= rs[0];
    rs[3] ^= rs[1];
    rs[1] ^= rs[2];
    rs[0] ^= rs[3];
    rs[2] ^= t;
    rs[3] = rs[3] << 45 | rs[3] >> 19;
    return r;
}
static void rnd_fill(void *p, size_t n)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        b[i] = (uint8_t)rnd();
    }
}

/* ---- targets -------------------------------------------------------------------------------------- */
/* A target prepares input |i| of class |c| (outside the timed region) and runs it (timed). */
struct target {
    const char *name;
    int arch;  /* -1: not per arch */
    void (*prepare)(int c, size_t i);
    void (*run)(size_t i);
};

#define NBUF 64 /* inputs prepared per batch, used round-robin */
static mbgcm_key *keys;           /* NBUF keys */
static uint8_t rawk[NBUF][32];
static uint8_t pt[NBUF][1024], ct[NBUF][1024], out[1024], tagv[NBUF][16], tagout[16];
static uint8_t iv[12] = {1, 2, 3}, aad[20] = {4, 5, 6};
static const struct mbgcmi_arch *cur_arch;
static mbgcm_mgr *mgr;
static uint8_t *sealed[NBUF];
static size_t sealed_len;
static const uint8_t fixed_key[32] = {0x2b, 0x7e, 0x15, 0x16};

static void prep_key(int c, size_t i)
{
    if (c == 0) {
        memcpy(rawk[i], fixed_key, 32);
    } else {
        rnd_fill(rawk[i], 32);
    }
}
static void run_key_init(size_t i)
{
    mbgcmi_key_expand(&keys[i], rawk[i], 32, cur_arch);
}

static void prep_enc(int c, size_t i)
{
    if (c == 0) {
        memcpy(rawk[i], fixed_key, 32);
        memset(pt[i], 0, sizeof pt[i]);
    } else {
        rnd_fill(rawk[i], 32);
        rnd_fill(pt[i], sizeof pt[i]);
    }
    mbgcm_key_init(&keys[i], rawk[i], 32);
}
static void run_enc(size_t i)
{
    mbgcm_encrypt(&keys[i], iv, 12, aad, 16, pt[i], 256, out, tagout, 16);
}

static void prep_dec_tag(int c, size_t i)
{
    memcpy(rawk[i], fixed_key, 32);
    mbgcm_key_init(&keys[i], rawk[i], 32);
    rnd_fill(pt[i], 256);
    uint8_t t[16];
    mbgcm_encrypt(&keys[i], iv, 12, aad, 16, pt[i], 256, ct[i], t, 16);
    memcpy(tagv[i], t, 16);
    if (c == 0) {
        tagv[i][0] ^= 1; /* only the first byte wrong */
    } else {
        for (int b = 0; b < 16; b++) {
            tagv[i][b] ^= (uint8_t)(1 + (rnd() % 255)); /* every byte wrong */
        }
    }
}
static void run_dec_tag(size_t i)
{
    mbgcm_decrypt(&keys[i], iv, 12, aad, 16, ct[i], 256, out, tagv[i], 16);
}

static void run_ctx(size_t i)
{
    mbgcm_ctx c;
    mbgcm_ctx_init(&c, &keys[i], MBGCM_ENCRYPT, iv, 12, aad, 16);
    mbgcm_ctx_update(&c, pt[i], 37, out);
    mbgcm_ctx_update(&c, pt[i] + 37, 100, out + 37);
    mbgcm_ctx_update(&c, pt[i] + 137, 119, out + 137);
    mbgcm_ctx_final(&c, tagout, 16);
}

static void run_lanes_len(size_t i, size_t len, size_t aad_len)
{
    for (int j = 0; j < 4; j++) {
        mbgcm_job *job = mbgcm_get_next_job(mgr);
        memset(job, 0, sizeof *job);
        job->key = &keys[i]; /* the four jobs of a sample share its class */
        job->dir = MBGCM_ENCRYPT;
        job->iv = iv;
        job->iv_len = 12;
        job->aad = aad;
        job->aad_len = aad_len;
        job->src = pt[i] + 200 * (size_t)j;
        job->dst = ct[(i + (size_t)j) % NBUF];
        job->len = len;
        job->tag = tagv[(i + (size_t)j) % NBUF];
        job->tag_len = 16;
        for (mbgcm_job *x = mbgcm_submit_job(mgr); x != NULL; x = mbgcm_get_completed_job(mgr)) {
        }
    }
    while (mbgcm_flush_job(mgr) != NULL) {
    }
}
static void run_lanes(size_t i)
{
    run_lanes_len(i, 200, 20); /* AAD > 16 bytes: not a short-job shape */
}
static void run_short(size_t i)
{
    run_lanes_len(i, 64, 16);
}
static void run_short_split(size_t i)
{
    run_lanes_len(i, 200, 16); /* 13 blocks: the kernel's two-stage groups */
}

static void prep_cobble(int c, size_t i)
{
    uint8_t m[1000];
    if (c == 0) {
        memset(m, 0, sizeof m);
    } else {
        rnd_fill(m, sizeof m);
    }
    mbgcm_cobble_seal(sealed[i], &sealed_len, sealed_len, fixed_key, 32, NULL, 0, m, sizeof m,
                      NULL);
}
static void run_cobble(size_t i)
{
    size_t n;
    mbgcm_cobble_opts o = {0};
    o.arch = cur_arch->name;
    o.mgr = mgr;
    mbgcm_cobble_open(out, &n, sizeof out, fixed_key, 32, NULL, 0, sealed[i], sealed_len, &o);
}

/* selftest: an early-exit comparison, which the test must flag (run only when named) */
static void prep_leaky(int c, size_t i)
{
    memset(pt[i], 0x5A, sizeof pt[i]);
    if (c == 1) {
        pt[i][rnd() % 8] ^= 1; /* differs early: the loop stops early */
    }
}
static void run_leaky(size_t i)
{
    static const uint8_t ref[1024] = {[0 ... 1023] = 0x5A};
    volatile int eq = 1;
    for (size_t b = 0; b < sizeof ref; b++) {
        if (pt[i][b] != ref[b]) {
            eq = 0;
            break;
        }
    }
    (void)eq;
}

static const struct target targets[] = {
    {"key-init", 0, prep_key, run_key_init},
    {"encrypt", 0, prep_enc, run_enc},
    {"decrypt-tag", 0, prep_dec_tag, run_dec_tag},
    {"ctx", 0, prep_enc, run_ctx},
    {"lanes", 0, prep_enc, run_lanes},
    {"short", 0, prep_enc, run_short},
    {"short-split", 0, prep_enc, run_short_split},
    {"cobble-open", 0, prep_cobble, run_cobble},
    {"selftest-leaky", 0, prep_leaky, run_leaky},
};
#define NTARGETS (sizeof targets / sizeof targets[0])

static double run_target(const struct target *t, const struct mbgcmi_arch *arch,
                         size_t samples, double *meanc)
{
    cur_arch = arch;
    mbgcmi_set_oneshot_arch(arch);
    mbgcm_config cfg = {0};
    cfg.arch = arch->name;
    cfg.queue_size = 16;
    mgr = mbgcm_mgr_new(&cfg);
    if (strcmp(t->name, "lanes") == 0 || strncmp(t->name, "short", 5) == 0) {
        mbgcmi_mgr_set_single_min_len(mgr, UINT64_MAX);
    }
    uint64_t *tm = malloc(samples * sizeof *tm);
    uint8_t *cls = malloc(samples);
    int cl[NBUF];
    /* warm-up, then measure in batches: prepare NBUF inputs of random classes, run them */
    for (size_t s = 0; s < samples;) {
        for (size_t i = 0; i < NBUF; i++) {
            cl[i] = (int)(rnd() & 1);
            t->prepare(cl[i], i);
        }
        for (size_t i = 0; i < NBUF && s < samples; i++, s++) {
            const uint64_t a = ticks();
            t->run(i);
            const uint64_t b = ticks();
            tm[s] = b - a;
            cls[s] = (uint8_t)cl[i];
        }
    }
    /* crop thresholds: percentiles of all samples (dudect: 1 - 0.5^(10 (k+1)/NCROP)) */
    uint64_t *sorted = malloc(samples * sizeof *sorted);
    memcpy(sorted, tm, samples * sizeof *sorted);
    qsort(sorted, samples, sizeof *sorted, cmp_u64);
    struct welch w[NCROP + 1];
    memset(w, 0, sizeof w);
    uint64_t thr[NCROP];
    for (int k = 0; k < NCROP; k++) {
        const double p = 1.0 - pow(0.5, 10.0 * (k + 1) / NCROP);
        thr[k] = sorted[(size_t)(p * (double)(samples - 1))];
    }
    const size_t skip = samples / 20; /* the first 5% are warm-up */
    for (size_t s = skip; s < samples; s++) {
        welch_add(&w[NCROP], cls[s], (double)tm[s]);
        for (int k = 0; k < NCROP; k++) {
            if (tm[s] <= thr[k]) {
                welch_add(&w[k], cls[s], (double)tm[s]);
            }
        }
    }
    double maxt = 0;
    for (int k = 0; k <= NCROP; k++) {
        const double v = fabs(welch_t(&w[k]));
        maxt = v > maxt ? v : maxt;
    }
    meanc[0] = w[NCROP].mean[0];
    meanc[1] = w[NCROP].mean[1];
    free(sorted);
    free(tm);
    free(cls);
    mbgcm_mgr_free(mgr);
    mgr = NULL;
    return maxt;
}

int main(int argc, char **argv)
{
    size_t samples = 200000;
    const char *only = NULL, *only_arch = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
            samples = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--target") && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--arch") && i + 1 < argc) {
            only_arch = argv[++i];
        } else if (!strcmp(argv[i], "--list")) {
            for (size_t t = 0; t < NTARGETS; t++) {
                printf("%s\n", targets[t].name);
            }
            return 0;
        } else {
            fprintf(stderr, "usage: %s [--samples N] [--target A,B] [--arch NAME] [--list]\n",
                    argv[0]);
            return 2;
        }
    }
    keys = aligned_alloc(64, NBUF * sizeof *keys);
    sealed_len = 0;
    mbgcm_cobble_sealed_len(1000, &sealed_len);
    for (int i = 0; i < NBUF; i++) {
        sealed[i] = malloc(sealed_len);
    }
    printf("%-12s %-8s %10s %12s %12s %8s  %s\n", "target", "arch", "samples", "mean fixed",
           "mean random", "max |t|", "verdict");
    int leaks = 0;
    for (size_t t = 0; t < NTARGETS; t++) {
        if (only ? !strstr(only, targets[t].name) : !strcmp(targets[t].name, "selftest-leaky")) {
            continue;
        }
        for (unsigned ai = 0; ai < mbgcmi_narches; ai++) {
            const struct mbgcmi_arch *a = mbgcmi_arch_at(ai);
            if (!mbgcmi_arch_supported(a) || (only_arch && strcmp(only_arch, a->name))) {
                continue;
            }
            if ((!strncmp(targets[t].name, "short", 5) && a->short_jobs == NULL) ||
                (!strcmp(targets[t].name, "lanes") && a->lanes == NULL) ||
                (!strcmp(targets[t].name, "selftest-leaky") && !a->portable)) {
                continue;
            }
            double mc[2];
            const double tv = run_target(&targets[t], a, samples, mc);
            const char *v = tv < 4.5 ? "no leak detected" : tv < 10 ? "inconclusive (rerun)"
                                                                     : "LEAK?";
            leaks += tv >= 10;
            printf("%-12s %-8s %10zu %12.1f %12.1f %8.2f  %s\n", targets[t].name,
                   a->name, samples, mc[0], mc[1], tv, v);
            fflush(stdout);
        }
    }
    for (int i = 0; i < NBUF; i++) {
        mbgcm_key_wipe(&keys[i]);
        free(sealed[i]);
    }
    free(keys);
    return leaks ? 1 : 0;
}
