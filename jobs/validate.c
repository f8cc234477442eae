/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * validate.c — out-of-line entry points of the checks in validate.h (one-shot calls).
 */
#include "validate.h"

int mbgcmi_check_args(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                      size_t aad_len, const void *in, size_t len, const void *out,
                      const void *tag, size_t tag_len)
{
    return mbgcmi_check_args_inline(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
}

int mbgcmi_check_job(const mbgcm_job *job)
{
    return mbgcmi_check_job_inline(job);
}
