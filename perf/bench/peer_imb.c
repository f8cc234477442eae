/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peer_imb.c — the ipsec-mb peer adapter (peer_api.h): compiled once per ipsec-mb version,
 * against that version's intel-ipsec-mb.h, into a shared object linked to that version's
 * libIPSec_MB (-DPEER_NAME="debian", "current", ...). mbgcm-bench dlopen()s it.
 *
 * Each API is driven the way its documentation asks of a caller:
 *   direct  IMB_AES128/256_GCM_ENC/DEC with keys from IMB_AES*_GCM_PRE; decrypt compares the
 *           returned tag itself, as every caller of that API must.
 *   job     IMB_GET_NEXT_JOB, every GCM field set, IMB_SUBMIT_JOB, completed jobs taken as
 *           they come back, IMB_FLUSH_JOB at the end; cipher IMB_CIPHER_GCM with hash
 *           IMB_AUTH_AES_GMAC, CIPHER_HASH order to encrypt, HASH_CIPHER to decrypt; the
 *           computed tag is compared on completion.
 *   burst   IMB_GET_NEXT_BURST for up to |burst| jobs, the same fields as the job API plus the
 *           suite_id that imb_set_session computed once per direction and key size (1.4 and
 *           later require it; it depends only on cipher, hash, direction and key size), then
 *           IMB_SUBMIT_BURST; IMB_FLUSH_BURST at the end. IMB_SUBMIT_AEAD_BURST is only
 *           probed: up to 3.0.0-dev it accepts AES-CCM only (probe() says what it answers).
 *   quic    imb_quic_aes_gcm over arrays of up to |burst| packets with one key (1.4 and later).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-ipsec-mb.h>

#include "peer_api.h"

#ifndef PEER_NAME
#define PEER_NAME "ipsec-mb"
#endif

#if IMB_VERSION_NUM >= IMB_VERSION(1, 4, 0)
#define PEER_HAVE_SESSION 1 /* imb_set_session, suite_id, imb_quic_aes_gcm */
#else
#define PEER_HAVE_SESSION 0
#endif

#define EXPORT __attribute__((visibility("default")))

struct peer {
    IMB_MGR *mgr;
    const char *arch;
    unsigned nkeys, bits;
    struct gcm_key_data *keys;
    struct gcm_context_data gctx;
    uint32_t suite[2][2]; /* burst: suite_id per direction */
    IMB_JOB *burst[IMB_MAX_JOBS];
};

static const char *arch_name(IMB_ARCH a)
{
#if IMB_VERSION_NUM < IMB_VERSION(2, 0, 0)
    static const char *const names[] = {"none", "no-aesni", "sse", "avx", "avx2", "avx512"};
#else
    static const char *const names[] = {"none", "sse", "avx2", "avx512", "avx10"};
#endif
    return (unsigned)a < sizeof names / sizeof names[0] ? names[a] : "unknown";
}

/* init_mb_mgr_|arch|; the arch name, or NULL for a name this version does not have. */
static const char *init_arch(IMB_MGR *m, const char *arch)
{
    if (strcmp(arch, "auto") == 0) {
        IMB_ARCH a = IMB_ARCH_NONE;
        init_mb_mgr_auto(m, &a);
        return arch_name(a);
    }
    if (strcmp(arch, "sse") == 0) {
        init_mb_mgr_sse(m);
    } else if (strcmp(arch, "avx2") == 0) {
        init_mb_mgr_avx2(m);
    } else if (strcmp(arch, "avx512") == 0) {
        init_mb_mgr_avx512(m);
#if IMB_VERSION_NUM >= IMB_VERSION(3, 0, 0)
    } else if (strcmp(arch, "avx10") == 0) {
        init_mb_mgr_avx10(m);
#endif
    } else {
        return NULL;
    }
    return arch;
}

static void *peer_create(const char *arch, char *err, size_t errlen)
{
    struct peer *p = calloc(1, sizeof *p);
    if (p == NULL || (p->mgr = alloc_mb_mgr(0)) == NULL) {
        snprintf(err, errlen, "alloc_mb_mgr failed");
        free(p);
        return NULL;
    }
    p->arch = init_arch(p->mgr, arch);
    if (p->arch == NULL || imb_get_errno(p->mgr) != 0) {
        snprintf(err, errlen, "init_mb_mgr_%s: %s", arch,
                 p->arch == NULL ? "no such manager in this version"
                                 : imb_get_strerror(imb_get_errno(p->mgr)));
        free_mb_mgr(p->mgr);
        free(p);
        return NULL;
    }
    return p;
}

static void peer_destroy(void *ctx)
{
    struct peer *p = ctx;
    if (p == NULL) {
        return;
    }
    if (p->keys != NULL) {
        memset(p->keys, 0, p->nkeys * sizeof *p->keys);
        free(p->keys);
    }
    free_mb_mgr(p->mgr);
    free(p);
}

static const char *peer_arch(void *ctx)
{
    return ((struct peer *)ctx)->arch;
}

/* ---- job fields, shared by the job and burst APIs ---- */
static void fill_job(const struct peer *p, IMB_JOB *job, const struct bench_msgs *m, int dir,
                     unsigned j)
{
    const struct gcm_key_data *k = &p->keys[m->key_of[j]];
    job->cipher_mode = IMB_CIPHER_GCM;
    job->hash_alg = IMB_AUTH_AES_GMAC;
    if (dir == DIR_ENC) {
        job->cipher_direction = IMB_DIR_ENCRYPT;
        job->chain_order = IMB_ORDER_CIPHER_HASH;
        job->src = m->pt[j];
    } else {
        job->cipher_direction = IMB_DIR_DECRYPT;
        job->chain_order = IMB_ORDER_HASH_CIPHER;
        job->src = m->ct[j];
    }
    job->enc_keys = k;
    job->dec_keys = k;
    job->key_len_in_bytes = m->bits == 128 ? IMB_KEY_128_BYTES : IMB_KEY_256_BYTES;
    job->dst = m->out[j];
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = m->len[j];
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = m->len[j];
    job->iv = m->iv[j];
    job->iv_len_in_bytes = BENCH_IV_LEN;
    job->u.GCM.aad = m->aad[j];
    job->u.GCM.aad_len_in_bytes = m->aad_len;
    job->auth_tag_output = m->otag[j]; /* decrypt: the computed tag, compared on completion */
    job->auth_tag_output_len_in_bytes = BENCH_TAG_LEN;
    job->user_data = (void *)(uintptr_t)j;
}

/* 1 when a completed job failed: bad status, or (decrypt) a tag that differs. */
static unsigned job_bad(const IMB_JOB *job, const struct bench_msgs *m)
{
    if (job->status != IMB_STATUS_COMPLETED) {
        return 1;
    }
    if (job->cipher_direction == IMB_DIR_DECRYPT) {
        const unsigned j = (unsigned)(uintptr_t)job->user_data;
        return !bench_tag_equal16(m->otag[j], m->tag[j]);
    }
    return 0;
}

static void peer_set_keys(void *ctx, const struct bench_msgs *m)
{
    struct peer *p = ctx;
    if (p->keys == NULL || p->nkeys != m->nkeys) {
        free(p->keys);
        p->keys = aligned_alloc(64, ((m->nkeys * sizeof *p->keys) + 63) / 64 * 64);
        if (p->keys == NULL) {
            fprintf(stderr, "ipsec-mb adapter: out of memory\n");
            exit(1);
        }
    }
    for (unsigned k = 0; k < m->nkeys; k++) {
        if (m->bits == 128) {
            IMB_AES128_GCM_PRE(p->mgr, m->raw[k], &p->keys[k]);
        } else {
            IMB_AES256_GCM_PRE(p->mgr, m->raw[k], &p->keys[k]);
        }
    }
    p->nkeys = m->nkeys;
    p->bits = m->bits;
#if PEER_HAVE_SESSION
    for (int dir = DIR_ENC; dir <= DIR_DEC; dir++) {
        IMB_JOB t;
        memset(&t, 0, sizeof t);
        fill_job(p, &t, m, dir, 0);
        imb_set_session(p->mgr, &t);
        memcpy(p->suite[dir], t.suite_id, sizeof p->suite[dir]);
    }
#endif
}

/* ---- direct API ---- */
static unsigned run_direct(struct peer *p, const struct bench_msgs *m, int dir, uint64_t n,
                           unsigned *pos)
{
    const uint64_t alen = m->aad_len;
    unsigned j = *pos, bad = 0;
    uint8_t t[BENCH_TAG_LEN];
    for (uint64_t i = 0; i < n; i++) {
        const struct gcm_key_data *k = &p->keys[m->key_of[j]];
        if (dir == DIR_ENC) {
            if (m->bits == 128) {
                IMB_AES128_GCM_ENC(p->mgr, k, &p->gctx, m->out[j], m->pt[j], m->len[j], m->iv[j],
                                   m->aad[j], alen, m->otag[j], BENCH_TAG_LEN);
            } else {
                IMB_AES256_GCM_ENC(p->mgr, k, &p->gctx, m->out[j], m->pt[j], m->len[j], m->iv[j],
                                   m->aad[j], alen, m->otag[j], BENCH_TAG_LEN);
            }
        } else {
            if (m->bits == 128) {
                IMB_AES128_GCM_DEC(p->mgr, k, &p->gctx, m->out[j], m->ct[j], m->len[j], m->iv[j],
                                   m->aad[j], alen, t, BENCH_TAG_LEN);
            } else {
                IMB_AES256_GCM_DEC(p->mgr, k, &p->gctx, m->out[j], m->ct[j], m->len[j], m->iv[j],
                                   m->aad[j], alen, t, BENCH_TAG_LEN);
            }
            bad += !bench_tag_equal16(t, m->tag[j]);
        }
        j = bench_next_slot(m, j);
    }
    *pos = j;
    return bad;
}

/* ---- job API ---- */
static unsigned run_job(struct peer *p, const struct bench_msgs *m, int dir, uint64_t n,
                        unsigned *pos)
{
    IMB_MGR *mgr = p->mgr;
    unsigned j = *pos, bad = 0;
    IMB_JOB *job;
    for (uint64_t i = 0; i < n; i++) {
        fill_job(p, IMB_GET_NEXT_JOB(mgr), m, dir, j);
        job = IMB_SUBMIT_JOB(mgr);
        while (job != NULL) {
            bad += job_bad(job, m);
            job = IMB_GET_COMPLETED_JOB(mgr);
        }
        j = bench_next_slot(m, j);
    }
    while ((job = IMB_FLUSH_JOB(mgr)) != NULL) {
        bad += job_bad(job, m);
    }
    *pos = j;
    return bad;
}

static void peer_submit(void *ctx, const struct bench_msgs *m, unsigned slot, uint64_t id,
                        bench_done_fn done, void *dctx)
{
    struct peer *p = ctx;
    IMB_JOB *job = IMB_GET_NEXT_JOB(p->mgr);
    fill_job(p, job, m, DIR_ENC, slot);
    job->user_data = (void *)(uintptr_t)id;
    for (job = IMB_SUBMIT_JOB(p->mgr); job != NULL; job = IMB_GET_COMPLETED_JOB(p->mgr)) {
        done(dctx, (uint64_t)(uintptr_t)job->user_data, job->status == IMB_STATUS_COMPLETED);
    }
}

static void peer_poll(void *ctx, int flush, bench_done_fn done, void *dctx)
{
    struct peer *p = ctx;
    IMB_JOB *job = flush ? IMB_FLUSH_JOB(p->mgr) : IMB_GET_COMPLETED_JOB(p->mgr);
    for (; job != NULL; job = IMB_GET_COMPLETED_JOB(p->mgr)) {
        done(dctx, (uint64_t)(uintptr_t)job->user_data, job->status == IMB_STATUS_COMPLETED);
    }
}

/* ---- burst API ---- */
static unsigned burst_done(IMB_JOB **jobs, uint32_t c, const struct bench_msgs *m)
{
    unsigned bad = 0;
    for (uint32_t i = 0; i < c; i++) {
        bad += job_bad(jobs[i], m);
    }
    return bad;
}

static unsigned run_burst(struct peer *p, const struct bench_msgs *m, int dir, uint64_t n,
                          unsigned *pos, unsigned burst)
{
    IMB_MGR *mgr = p->mgr;
    IMB_JOB **jobs = p->burst;
    unsigned j = *pos, bad = 0;
    burst = burst > IMB_MAX_BURST_SIZE ? IMB_MAX_BURST_SIZE : burst;
    for (uint64_t i = 0; i < n;) {
        const uint32_t k = (uint32_t)(n - i < burst ? n - i : burst);
        while (IMB_GET_NEXT_BURST(mgr, k, jobs) < k) { /* queue full: complete some first */
            bad += burst_done(jobs, IMB_FLUSH_BURST(mgr, k, jobs), m);
        }
        for (uint32_t b = 0; b < k; b++) {
            fill_job(p, jobs[b], m, dir, j);
#if PEER_HAVE_SESSION
            memcpy(jobs[b]->suite_id, p->suite[dir], sizeof jobs[b]->suite_id);
#endif
            j = bench_next_slot(m, j);
        }
        const uint32_t c = IMB_SUBMIT_BURST(mgr, k, jobs);
        if (c == 0 && imb_get_errno(mgr) != 0) {
            return (unsigned)(n - i) + bad; /* rejected: every job of the call counts */
        }
        bad += burst_done(jobs, c, m);
        i += k;
    }
    uint32_t c;
    while ((c = IMB_FLUSH_BURST(mgr, IMB_MAX_JOBS, jobs)) > 0) {
        bad += burst_done(jobs, c, m);
    }
    *pos = j;
    return bad;
}

/* ---- QUIC array call: one key for every packet ---- */
#if PEER_HAVE_SESSION
static unsigned run_quic(struct peer *p, const struct bench_msgs *m, int dir, uint64_t n,
                         unsigned *pos, unsigned burst)
{
    void *dst[IMB_MAX_BURST_SIZE], *tag[IMB_MAX_BURST_SIZE];
    const void *src[IMB_MAX_BURST_SIZE], *iv[IMB_MAX_BURST_SIZE], *aad[IMB_MAX_BURST_SIZE];
    uint64_t len[IMB_MAX_BURST_SIZE];
    unsigned slot[IMB_MAX_BURST_SIZE];
    const IMB_KEY_SIZE_BYTES ks = m->bits == 128 ? IMB_KEY_128_BYTES : IMB_KEY_256_BYTES;
    const IMB_CIPHER_DIRECTION cd = dir == DIR_ENC ? IMB_DIR_ENCRYPT : IMB_DIR_DECRYPT;
    unsigned j = *pos, bad = 0;
    if (m->nkeys != 1) {
        return (unsigned)n; /* the call takes one key */
    }
    burst = burst > IMB_MAX_BURST_SIZE ? IMB_MAX_BURST_SIZE : burst;
    for (uint64_t i = 0; i < n;) {
        const unsigned k = (unsigned)(n - i < burst ? n - i : burst);
        for (unsigned b = 0; b < k; b++) {
            slot[b] = j;
            dst[b] = m->out[j];
            src[b] = dir == DIR_ENC ? m->pt[j] : m->ct[j];
            len[b] = m->len[j];
            iv[b] = m->iv[j];
            aad[b] = m->aad[j];
            tag[b] = m->otag[j]; /* decrypt: the computed tag */
            j = bench_next_slot(m, j);
        }
        imb_quic_aes_gcm(p->mgr, &p->keys[0], ks, cd, dst, src, len, iv, aad, m->aad_len, tag,
                         BENCH_TAG_LEN, k);
        if (imb_get_errno(p->mgr) != 0) {
            bad += k;
        } else if (dir == DIR_DEC) {
            for (unsigned b = 0; b < k; b++) {
                bad += !bench_tag_equal16(m->otag[slot[b]], m->tag[slot[b]]);
            }
        }
        i += k;
    }
    *pos = j;
    return bad;
}
#endif

static unsigned peer_run(void *ctx, int api, const struct bench_msgs *m, int dir, uint64_t n,
                         unsigned *pos, unsigned burst)
{
    struct peer *p = ctx;
    switch (api) {
    case PEER_DIRECT: return run_direct(p, m, dir, n, pos);
    case PEER_JOB: return run_job(p, m, dir, n, pos);
    case PEER_BURST: return run_burst(p, m, dir, n, pos, burst);
#if PEER_HAVE_SESSION
    case PEER_QUIC: return run_quic(p, m, dir, n, pos, burst);
#endif
    default: return (unsigned)n;
    }
}

/* ---- what this version offers for GCM ---- */

/* One small valid GCM encryption as a job, for the probes. */
struct probe_msg {
    uint8_t raw[32][32], iv[1][BENCH_IV_LEN], aad[16], tag[1][BENCH_TAG_LEN];
    uint8_t otag[1][BENCH_TAG_LEN], buf[64], out[64];
    uint8_t *pt[1], *ct[1], *outp[1], *aadp[1];
    size_t len[1];
    unsigned key_of[1];
    struct bench_msgs m;
};

static void probe_msg_init(struct probe_msg *q)
{
    memset(q, 0, sizeof *q);
    q->pt[0] = q->ct[0] = q->buf;
    q->outp[0] = q->out;
    q->aadp[0] = q->aad;
    q->len[0] = sizeof q->buf;
    q->m = (struct bench_msgs){.bits = 256, .nkeys = 1, .nslots = 1, .aad_len = 16,
                               .raw = q->raw, .len = q->len, .key_of = q->key_of, .pt = q->pt,
                               .ct = q->ct, .out = q->outp, .iv = q->iv, .aad = q->aadp,
                               .tag = q->tag, .otag = q->otag};
}

static void probe_aead_burst(struct peer *p, struct probe_msg *q, struct bench_peer_info *info)
{
#if PEER_HAVE_SESSION
    IMB_JOB job;
    memset(&job, 0, sizeof job);
    fill_job(p, &job, &q->m, DIR_ENC, 0);
    imb_set_session(p->mgr, &job);
    const uint32_t c = IMB_SUBMIT_AEAD_BURST(p->mgr, &job, 1, IMB_CIPHER_GCM, IMB_DIR_ENCRYPT,
                                             IMB_KEY_256_BYTES);
    const int e = imb_get_errno(p->mgr);
    if (c == 1 && e == 0 && job.status == IMB_STATUS_COMPLETED) {
        snprintf(info->aead_burst, sizeof info->aead_burst, "accepts IMB_CIPHER_GCM");
    } else {
        snprintf(info->aead_burst, sizeof info->aead_burst, "rejects IMB_CIPHER_GCM (%s)",
                 e ? imb_get_strerror(e) : "job not completed");
    }
#else
    (void)p;
    (void)q;
    snprintf(info->aead_burst, sizeof info->aead_burst, "not in this version");
#endif
}

static void peer_probe(void *ctx, struct bench_peer_info *info)
{
    struct peer *p = ctx;
    memset(info, 0, sizeof *info);
    info->label = PEER_NAME;
    info->built_against = IMB_VERSION_STR;
    info->version = imb_get_version_str();
    info->version_num = imb_get_version();
    Dl_info dl;
    if (dladdr((void *)imb_get_version_str, &dl) != 0 && dl.dli_fname != NULL) {
        snprintf(info->library, sizeof info->library, "%s", dl.dli_fname);
    }
    info->apis = 1u << PEER_DIRECT | 1u << PEER_JOB;
    struct probe_msg q;
    probe_msg_init(&q);
    peer_set_keys(p, &q.m);
    unsigned pos = 0;
    if (run_burst(p, &q.m, DIR_ENC, 1, &pos, 1) == 0) {
        info->apis |= 1u << PEER_BURST;
        snprintf(info->api_notes[PEER_BURST], sizeof info->api_notes[0], "IMB_SUBMIT_BURST");
    } else {
        snprintf(info->api_notes[PEER_BURST], sizeof info->api_notes[0],
                 "IMB_SUBMIT_BURST rejects GCM jobs (%s)", imb_get_strerror(imb_get_errno(p->mgr)));
    }
#if PEER_HAVE_SESSION
    info->apis |= 1u << PEER_QUIC;
    snprintf(info->api_notes[PEER_QUIC], sizeof info->api_notes[0], "imb_quic_aes_gcm");
#else
    snprintf(info->api_notes[PEER_QUIC], sizeof info->api_notes[0],
             "no imb_quic_aes_gcm before 1.4");
#endif
    probe_aead_burst(p, &q, info);
}

static const struct bench_peer_ops ops = {
    .abi = BENCH_PEER_ABI,
    .create = peer_create,
    .destroy = peer_destroy,
    .arch = peer_arch,
    .probe = peer_probe,
    .set_keys = peer_set_keys,
    .run = peer_run,
    .submit = peer_submit,
    .poll = peer_poll,
};

EXPORT const struct bench_peer_ops *mbgcm_bench_peer_ops(void);
EXPORT const struct bench_peer_ops *mbgcm_bench_peer_ops(void)
{
    return &ops;
}
