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

#endif
