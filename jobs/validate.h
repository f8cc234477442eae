/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validate.h — argument checks for one-shot calls and jobs, inline so the submit path pays
 * no call. Every limit is checked before any buffer is touched; the first failing check
 * decides the status, in the documented order: key, IV length, AAD/message length, tag
 * length, NULL pointers, overlap (and for jobs first the direction and reserved fields).
 */
#ifndef MBGCM_VALIDATE_H
#define MBGCM_VALIDATE_H

#include "key.h"
#include "util.h"
#include "group.h"

/* Out-of-line entry points (jobs/validate.c) for the API calls. */
int mbgcmi_check_args(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                      size_t aad_len, const void *in, size_t len, const void *out,
                      const void *tag, size_t tag_len);
int mbgcmi_check_job(const mbgcm_job *job);

static inline int mbgcmi_check_args_inline(const mbgcm_key *key, const void *iv, size_t iv_len,
                                           const void *aad, size_t aad_len, const void *in,
                                           size_t len, const void *out, const void *tag,
                                           size_t tag_len)
{
    if (key == NULL || ((uintptr_t)key & 63) != 0 || !mbgcmi_key_ok(key)) {
        return MBGCM_ERR_INVALID;
    }
    if (iv_len == 0 || (uint64_t)iv_len > MBGCMI_MAX_IV_LEN) {
        return MBGCM_ERR_IV_LEN;
    }
    if ((uint64_t)aad_len > MBGCMI_MAX_AAD_LEN || (uint64_t)len > MBGCMI_MAX_TEXT_LEN) {
        return MBGCM_ERR_LEN;
    }
    if (!mbgcmi_tag_len_ok(tag_len)) {
        return MBGCM_ERR_TAG_LEN;
    }
    if (iv == NULL || tag == NULL || (aad_len && aad == NULL) ||
        (len && (in == NULL || out == NULL))) {
        return MBGCM_ERR_INVALID;
    }
    if (len && in != out && mbgcmi_overlap(in, len, out, len)) {
        return MBGCM_ERR_INVALID;
    }
    return MBGCM_OK;
}

/* Scatter-gather jobs (jobs/sgl.c): the same checks plus the segment lists. */
int mbgcmi_check_sgl_job(const mbgcm_job *job);

static inline int mbgcmi_check_job_inline(const mbgcm_job *job)
{
    if (job->dir != MBGCM_ENCRYPT && job->dir != MBGCM_DECRYPT) {
        return MBGCM_ERR_INVALID;
    }
    if (job->reserved_ != NULL) {
        return MBGCM_ERR_INVALID; /* an extension this version does not know */
    }
    if (__builtin_expect(job->src_sgl != NULL || job->dst_sgl != NULL, 0)) {
        return mbgcmi_check_sgl_job(job);
    }
    return mbgcmi_check_args_inline(job->key, job->iv, job->iv_len, job->aad, job->aad_len,
                                    job->src, job->len, job->dst, job->tag, job->tag_len);
}

#define MBGCMI_NO_(c) if (__builtin_expect(!!(c), 0)) return 0

/* The pointer checks of a linear job with |len| bytes of message and |aad| of AAD, as one yes /
   no: IV and tag always, AAD with a length, source and destination with a message, which are
   the same buffer or disjoint (distance outside -len .. len). */
static inline __attribute__((always_inline)) int
mbgcmi_job_ptrs_ok(const mbgcm_job *job, uint64_t len, uint64_t aad)
{
    MBGCMI_NO_(job->iv == NULL || job->tag == NULL);
    MBGCMI_NO_(aad != 0 && job->aad == NULL);
    if (len != 0) {
        const uintptr_t src = (uintptr_t)job->src, dst = (uintptr_t)job->dst;
        const uint64_t d = src - dst;
        MBGCMI_NO_(src == 0 || dst == 0);
        MBGCMI_NO_(d != 0 && d + len - 1 < 2 * len - 1);
    }
    return 1;
}

/* The checks of mbgcmi_check_job_inline for a job already known to have a 12-byte IV and no
   segment lists, as one yes / no (1: valid) with a message of at most |lim_len| bytes and at
   most |lim_aad| bytes of AAD (the API's limits, or tighter ones), where the full check gives
   each failure its own status. They are separate branches on purpose: for valid jobs each is a
   not-taken compare-and-branch, one fused operation, where folding the terms into one value
   with flag-to-register moves measured about three times the instructions. None of them
   depends on secret data. */
static inline __attribute__((always_inline)) int
mbgcmi_job12_valid(const mbgcm_job *job, uint64_t lim_len, uint64_t lim_aad)
{
    const uint64_t len = job->len, aad = job->aad_len, tl = job->tag_len;
    const mbgcm_key *key = job->key;
    const unsigned dir = (unsigned)job->dir;
    MBGCMI_NO_(job->reserved_ != NULL); /* an extension this version does not know */
    MBGCMI_NO_(len > lim_len || aad > lim_aad);
    /* direction; tag length 4, 8 or 12..16; the key present, aligned and initialized */
    MBGCMI_NO_(dir - 1u > 1u);
    MBGCMI_NO_(tl - 4 > 12 || ((0x1F110u >> tl) & 1u) == 0);
    MBGCMI_NO_(key == NULL || ((uintptr_t)key & 63) != 0 || !mbgcmi_key_ok(key));
    return mbgcmi_job_ptrs_ok(job, len, aad);
}

/* The common short job in one pass: 1 when |job| is valid, linear, has a 12-byte IV and is a
   short job under |lim| bytes of hashed rows and |mlim| bytes of message
   (mbgcmi_short_classify: at most MBGCMI_SHORT_MAX_AAD bytes of AAD and a message, or no
   message and the AAD), with *cls and *shape set for the short-job classes; 0 for anything
   else (which then takes the general path, where every check gives its status).
   mbgcmi_short_valid is its first half: the checks, and a message under |mlim|. */
static inline __attribute__((always_inline)) int
mbgcmi_short_valid(const mbgcm_job *job, uint64_t mlim)
{
    const uint64_t len = job->len;
    /* shape and kind: a 12-byte IV, linear, short lengths */
    if (job->iv_len != 12 || ((uintptr_t)job->src_sgl | (uintptr_t)job->dst_sgl) != 0 ||
        len >= mlim) {
        return 0;
    }
    /* AAD: at most MBGCMI_SHORT_MAX_AAD bytes beside a message; a GMAC job's up to 256 */
    return mbgcmi_job12_valid(job, UINT64_MAX, len != 0 ? MBGCMI_SHORT_MAX_AAD
                                                        : 16 * MBGCMI_SHORT_MAX_BLOCKS);
}

static inline __attribute__((always_inline)) int
mbgcmi_short_fast(const mbgcm_job *job, uint64_t lim, uint64_t mlim, unsigned *cls,
                  uint32_t *shape)
{
    return mbgcmi_short_valid(job, mlim) &&
           mbgcmi_short_classify(job->len, job->aad_len, job->tag_len, (unsigned)job->dir,
                                 mbgcmi_key_c(job->key)->rounds, lim, mlim, cls, shape);
}

/* A burst's jobs mostly share one shape: what decides a valid short job's limits and class
   is its len, aad_len, tag_len, dir and its key's rounds. A memo of those fields of a job that
   passed mbgcmi_short_valid and was classified under a burst's limits lets a later job equal
   in all of them skip the checks they settle (the lengths' limits, the tag length, the
   direction, the rounds' values) and the classification: it needs only
   mbgcmi_job12_valid_as. */
struct mbgcmi_shape_memo {
    uint64_t len, aad, tl;
    int dir;
    uint32_t rounds;
};

static inline __attribute__((always_inline)) void
mbgcmi_shape_memo_set(struct mbgcmi_shape_memo *s, const mbgcm_job *job)
{
    s->len = job->len;
    s->aad = job->aad_len;
    s->tl = job->tag_len;
    s->dir = job->dir;
    s->rounds = mbgcmi_key_c(job->key)->rounds;
}

static inline __attribute__((always_inline)) int
mbgcmi_shape_memo_same(const struct mbgcmi_shape_memo *s, const mbgcm_job *job)
{
    return job->len == s->len && job->aad_len == s->aad && job->tag_len == s->tl &&
           job->dir == s->dir;
}

/* The rest of the checks for a job that mbgcmi_shape_memo_same matched: a 12-byte IV, linear,
   no extension, the key present, aligned and initialised with |rounds| rounds (the memo's),
   and the pointers. For such a job this and the full checks the memo's job passed agree. */
static inline __attribute__((always_inline)) int mbgcmi_job12_valid_as(const mbgcm_job *job,
                                                                      uint32_t rounds)
{
    const mbgcm_key *key = job->key;
    MBGCMI_NO_(job->iv_len != 12 || ((uintptr_t)job->src_sgl | (uintptr_t)job->dst_sgl) != 0);
    MBGCMI_NO_(job->reserved_ != NULL);
    MBGCMI_NO_(key == NULL || ((uintptr_t)key & 63) != 0);
    MBGCMI_NO_(mbgcmi_key_c(key)->magic != MBGCMI_KEY_MAGIC ||
               mbgcmi_key_c(key)->rounds != rounds);
    return mbgcmi_job_ptrs_ok(job, job->len, job->aad_len);
}

#undef MBGCMI_NO_

#endif
