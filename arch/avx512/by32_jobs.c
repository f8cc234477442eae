/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * by32_jobs.c — the burst call (struct mbgcmi_gcm_ops.jobs12) of the avx512 arch's by32
 * variant: every decrypt, and every encrypt of at least MBGCMI_BY32_ENC_MIN bytes, one after
 * the other through the by32 whole-message kernel; the shorter encrypts together through the
 * by16 kernel's pipelined call (gcm_by16_avx512.asm: each job's final GHASH rides in the next
 * job's first AES pass). The by32 kernel hashes a decrypt's final blocks inside its last AES
 * pass (they are the input), so it has no idle GHASH to hide and is the faster one at every
 * size; an encrypt's final GHASH follows its last pass, which the pipelined call hides, and that
 * wins while the message is at most three of by16's 256-byte groups. The crossovers were
 * measured (docs/perf.md).
 */
#include "avx512.h"
#include "gcm.h"

#ifndef MBGCMI_BY32_ENC_MIN
#define MBGCMI_BY32_ENC_MIN 769
#endif

uint64_t mbgcmi_avx512_by32_jobs12(mbgcm_job *const *jobs, size_t n)
{
    mbgcm_job *rest[MBGCMI_JOBS12_MAX];
    unsigned char pos[MBGCMI_JOBS12_MAX];
    size_t nr = 0;
    uint64_t fail = 0;
    for (size_t i = 0; i < n; i++) {
        mbgcm_job *j = jobs[i];
        if (j->dir == MBGCM_DECRYPT || j->len >= MBGCMI_BY32_ENC_MIN) {
            const size_t dec = j->dir == MBGCM_DECRYPT ? (size_t)1 << 8 : 0;
            const int f = mbgcmi_avx512_by32_gcm12(mbgcmi_key_c(j->key), j->iv, j->aad,
                                                   j->aad_len, j->src, j->len, j->dst, j->tag,
                                                   j->tag_len | dec);
            fail |= (uint64_t)(f & 1) << i;
        } else {
            pos[nr] = (unsigned char)i;
            rest[nr++] = j;
        }
    }
    if (nr != 0) {
        const uint64_t f = mbgcmi_avx512_gcm12_jobs(rest, nr);
        for (size_t k = 0; k < nr; k++) {
            fail |= (f >> k & 1) << pos[k];
        }
    }
    return fail;
}
