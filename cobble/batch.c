/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * batch.c — the same-key chunk batch call: one key, one contiguous buffer cut into fixed-size
 * chunks, one IV / AAD / tag per chunk, through the caller's manager as bursts of
 * MBGCMI_COB_BURST jobs (a multiple of the four lanes). Every argument is checked before the
 * first burst, so a rejected call writes nothing; per-chunk results of a decrypt come back in
 * |statuses|.
 */
#include "cobble_internal.h"

/* Length of chunk i. */
static size_t chunk_len_at(size_t i, size_t nchunks, size_t chunk_len, size_t len)
{
    return i + 1 < nchunks ? chunk_len : len - i * chunk_len;
}

static int overlap_nz(const void *a, size_t alen, const void *b, size_t blen)
{
    return alen && blen && mbgcmi_cob_overlap(a, alen, b, blen);
}

/* 1 when |key| is an initialised key: a zero-length probe job through the caller's manager is
   accepted (the engine's key check, with nothing written outside this frame). */
static int key_usable(mbgcm_mgr *m, const mbgcm_key *key)
{
    static const uint8_t iv[12];
    uint8_t tag[16];
    mbgcm_job j;
    memset(&j, 0, sizeof j);
    j.key = key;
    j.dir = MBGCM_ENCRYPT;
    j.iv = iv;
    j.iv_len = sizeof iv;
    j.tag = tag;
    j.tag_len = sizeof tag;
    const unsigned ok = mbgcm_submit_burst(m, &j, 1);
    mbgcmi_cob_wipe(tag, sizeof tag);
    return ok == 1;
}

static int check(mbgcm_mgr *m, const mbgcm_key *key, size_t nchunks, size_t chunk_len,
                 const uint8_t *ivs, size_t iv_len, const uint8_t *const *aads,
                 const size_t *aad_lens, const uint8_t *in, size_t len, const uint8_t *out,
                 const uint8_t *tags, size_t tag_len, int encrypt)
{
    if (m == NULL || key == NULL || ((uintptr_t)key & 63) != 0 || !key_usable(m, key)) {
        return MBGCM_ERR_INVALID;
    }
    if (nchunks == 0) {
        return len == 0 ? MBGCM_OK : MBGCM_ERR_INVALID;
    }
    if (iv_len == 0 || (uint64_t)iv_len > MBGCMI_COB_MAX_IV_LEN) {
        return MBGCM_ERR_IV_LEN;
    }
    if (chunk_len == 0 || (uint64_t)chunk_len > MBGCMI_COB_MAX_TEXT_LEN) {
        return chunk_len == 0 ? MBGCM_ERR_INVALID : MBGCM_ERR_LEN;
    }
    /* (nchunks-1)*chunk_len <= len <= nchunks*chunk_len, without overflow */
    if ((nchunks - 1) > len / chunk_len || len - (nchunks - 1) * chunk_len > chunk_len) {
        return MBGCM_ERR_INVALID;
    }
    if (aad_lens != NULL) {
        for (size_t i = 0; i < nchunks; i++) {
            if ((uint64_t)aad_lens[i] > MBGCMI_COB_MAX_AAD_LEN) {
                return MBGCM_ERR_LEN;
            }
        }
    }
    if (!mbgcmi_cob_tag_len_ok(tag_len)) {
        return MBGCM_ERR_TAG_LEN;
    }
    if (nchunks > SIZE_MAX / iv_len || nchunks > SIZE_MAX / tag_len) {
        return MBGCM_ERR_INVALID;
    }
    const size_t ivs_len = nchunks * iv_len, tags_len = nchunks * tag_len;
    if (ivs == NULL || tags == NULL || (len && (in == NULL || out == NULL)) ||
        ((aads == NULL) != (aad_lens == NULL))) {
        return MBGCM_ERR_INVALID;
    }
    if (aads != NULL) {
        for (size_t i = 0; i < nchunks; i++) {
            if (aad_lens[i] && aads[i] == NULL) {
                return MBGCM_ERR_INVALID;
            }
        }
    }
    /* in == out, or disjoint; nothing the calls read later may be overwritten by outputs */
    if ((in != out && overlap_nz(in, len, out, len)) || overlap_nz(ivs, ivs_len, out, len) ||
        overlap_nz(tags, tags_len, out, len) ||
        (encrypt &&
         (overlap_nz(tags, tags_len, in, len) || overlap_nz(tags, tags_len, ivs, ivs_len)))) {
        return MBGCM_ERR_INVALID;
    }
    if (aads != NULL) {
        for (size_t i = 0; i < nchunks; i++) {
            if (overlap_nz(aads[i], aad_lens[i], out, len) ||
                (encrypt && overlap_nz(aads[i], aad_lens[i], tags, tags_len))) {
                return MBGCM_ERR_INVALID;
            }
        }
    }
    return MBGCM_OK;
}

static int run(mbgcm_mgr *m, const mbgcm_key *key, int dir, size_t nchunks, size_t chunk_len,
               const uint8_t *ivs, size_t iv_len, const uint8_t *const *aads,
               const size_t *aad_lens, const uint8_t *in, size_t len, uint8_t *out, uint8_t *tags,
               size_t tag_len, int *statuses)
{
    mbgcm_job jobs[MBGCMI_COB_BURST];
    int result = MBGCM_OK;
    for (size_t done = 0; done < nchunks;) {
        const unsigned nb =
            (unsigned)(nchunks - done < MBGCMI_COB_BURST ? nchunks - done : MBGCMI_COB_BURST);
        memset(jobs, 0, nb * sizeof jobs[0]);
        for (unsigned j = 0; j < nb; j++) {
            const size_t i = done + j;
            const size_t clen = chunk_len_at(i, nchunks, chunk_len, len);
            mbgcm_job *job = &jobs[j];
            job->key = key;
            job->dir = dir;
            job->iv = ivs + i * iv_len;
            job->iv_len = iv_len;
            if (aads != NULL && aad_lens[i]) {
                job->aad = aads[i];
                job->aad_len = aad_lens[i];
            }
            if (clen) {
                job->src = in + i * chunk_len;
                job->dst = out + i * chunk_len;
            }
            job->len = clen;
            job->tag = tags + i * tag_len;
            job->tag_len = tag_len;
        }
        const unsigned ok = mbgcm_submit_burst(m, jobs, nb);
        if (ok != nb) {
            for (unsigned j = 0; j < nb; j++) {
                const int st = jobs[j].status;
                if (st != MBGCM_OK && (result == MBGCM_OK || result == MBGCM_ERR_AUTH)) {
                    result = st;
                }
            }
        }
        if (statuses != NULL) {
            for (unsigned j = 0; j < nb; j++) {
                statuses[done + j] = jobs[j].status;
            }
        }
        done += nb;
    }
    return result;
}

int mbgcm_batch_encrypt(mbgcm_mgr *m, const mbgcm_key *key, size_t nchunks, size_t chunk_len,
                        const uint8_t *ivs, size_t iv_len, const uint8_t *const *aads,
                        const size_t *aad_lens, const uint8_t *in, size_t len, uint8_t *out,
                        uint8_t *tags, size_t tag_len)
{
    const int st = check(m, key, nchunks, chunk_len, ivs, iv_len, aads, aad_lens, in, len, out,
                         tags, tag_len, 1);
    if (st != MBGCM_OK || nchunks == 0) {
        return st;
    }
    return run(m, key, MBGCM_ENCRYPT, nchunks, chunk_len, ivs, iv_len, aads, aad_lens, in, len, out,
               tags, tag_len, NULL);
}

int mbgcm_batch_decrypt(mbgcm_mgr *m, const mbgcm_key *key, size_t nchunks, size_t chunk_len,
                        const uint8_t *ivs, size_t iv_len, const uint8_t *const *aads,
                        const size_t *aad_lens, const uint8_t *in, size_t len, uint8_t *out,
                        const uint8_t *tags, size_t tag_len, int *statuses)
{
    const int st = check(m, key, nchunks, chunk_len, ivs, iv_len, aads, aad_lens, in, len, out,
                         tags, tag_len, 0);
    if (st != MBGCM_OK || nchunks == 0) {
        return st;
    }
    return run(m, key, MBGCM_DECRYPT, nchunks, chunk_len, ivs, iv_len, aads, aad_lens, in, len, out,
               (uint8_t *)(uintptr_t)tags, tag_len, statuses);
}
