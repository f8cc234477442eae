/*
 * validate.c — argument checks for one-shot calls and jobs. Every limit is checked before
 * any buffer is touched; the first failing check decides the status.
 */
#include "jobs_internal.h"

int mbgcmi_check_args(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                      size_t aad_len, const void *in, size_t len, const void *out,
                      const void *tag, size_t tag_len)
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

int mbgcmi_check_job(const mbgcm_job *job)
{
    if (job->dir != MBGCM_ENCRYPT && job->dir != MBGCM_DECRYPT) {
        return MBGCM_ERR_INVALID;
    }
    for (size_t i = 0; i < sizeof job->reserved_ / sizeof job->reserved_[0]; i++) {
        if (job->reserved_[i] != NULL) {
            return MBGCM_ERR_INVALID; /* an extension this version does not know */
        }
    }
    return mbgcmi_check_args(job->key, job->iv, job->iv_len, job->aad, job->aad_len,
                             job->src, job->len, job->dst, job->tag, job->tag_len);
}
