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

/* The common short job in one pass: 1 when |job| is valid, linear, has a 12-byte IV, at most
   |max_aad| bytes of AAD and at most |max_len| of message, with *cls and *shape set for the
   short-job classes; 0 for anything else (which then takes the general path, where every
   check gives its status). The checks are the ones above, folded into one test: each term
   is non-zero exactly when its check fails. */
static inline int mbgcmi_short_fast(const mbgcm_job *job, size_t max_aad, size_t max_len,
                                    unsigned *cls, uint32_t *shape)
{
    const size_t len = job->len, aad = job->aad_len;
    if (__builtin_expect(((job->iv_len ^ 12) | (uintptr_t)job->src_sgl | (uintptr_t)job->dst_sgl |
                          (uintptr_t)job->reserved_ | (aad > max_aad) | (len > max_len)) != 0, 0)) {
        return 0;
    }
    const mbgcm_key *key = job->key;
    const size_t tl = job->tag_len;
    const uintptr_t src = (uintptr_t)job->src, dst = (uintptr_t)job->dst;
    const uint64_t d = (uint64_t)(src - dst);
    const unsigned dir = (unsigned)job->dir;
    const uint64_t bad =
        (uint64_t)(dir - 1u > 1u) | ((uintptr_t)key & 63) | (uint64_t)(key == NULL) |
        (uint64_t)(tl > 16) | (uint64_t)(((0x1F110u >> (tl & 31)) & 1u) ^ 1u) |
        (uint64_t)(job->iv == NULL) | (uint64_t)(job->tag == NULL) |
        (uint64_t)((aad != 0) & (job->aad == NULL)) |
        (uint64_t)((len != 0) & ((src == 0) | (dst == 0) |
                                 ((d != 0) & (d + len - 1 < 2 * (uint64_t)len - 1))));
    if (__builtin_expect(bad != 0, 0) || !mbgcmi_key_ok(key)) {
        return 0;
    }
    *cls = (unsigned)((len + 15) >> 4) * 3 + (mbgcmi_key_c(key)->rounds - 10) / 2;
    *shape = (uint32_t)aad | (uint32_t)tl << 8 |
             (uint32_t)(len ? len - 16 * ((len - 1) >> 4) : 0) << 16 |
             (dir == MBGCM_ENCRYPT ? UINT32_C(0xFF000000) : 0);
    return 1;
}

#endif
