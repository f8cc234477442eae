/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diag.c — what a failed chunk means: "trailing data" or "modified".
 *
 * The format has no end-of-message flag: the final chunk is the one shorter than 16400 bytes,
 * and the nonce of chunk k does not depend on whether it is final. So when bytes are appended
 * to a sealed message, the true final chunk (f bytes, 16 <= f <= 16399) and the first appended
 * bytes land in one chunk slot, which then fails. The chunk slot holds an authentic final
 * chunk as a proper prefix exactly in that case (short of a 2^-128 forgery), which is what this
 * file checks: GCM over the region's ciphertext bytes one at a time with the engine's
 * incremental calls (mbgcm_ctx_*), and at every candidate length f a copy of the context
 * (mbgcm_ctx_copy) verifies region[f-16 .. f) as the tag of region[0 .. f-16), in constant
 * time. The incremental calls run the one-shot arch (MBGCM_ARCH or auto): the same bytes as
 * the managers' arch, at that arch's speed; if it is unavailable the failure stays "AUTH".
 * One pass: about len AES blocks' worth of work plus two GHASH blocks per candidate, i.e.
 * a few milliseconds even on the portable C path; it only runs after a failure.
 */
#include "cobble_internal.h"

int mbgcmi_cob_classify(const struct mbgcmi_cob_keys *k, uint64_t index, const uint8_t *region,
                        size_t len)
{
    if (len <= MBGCMI_COB_TAG) {
        return MBGCM_ERR_AUTH;
    }
    const size_t fmax = len - 1 < MBGCMI_COB_SCHUNK - 1 ? len - 1 : MBGCMI_COB_SCHUNK - 1;
    uint8_t nonce[12], sink[1];
    mbgcm_ctx st, probe;
    mbgcmi_cob_nonce(k->nonce, index, nonce);
    if (mbgcm_ctx_init(&st, &k->key, MBGCM_DECRYPT, nonce, 12, NULL, 0) != MBGCM_OK) {
        return MBGCM_ERR_AUTH;
    }
    int found = 0;
    /* state after m ciphertext bytes; the candidate final chunk is region[0 .. m + 16) */
    for (size_t m = 0; m + MBGCMI_COB_TAG <= fmax; m++) {
        mbgcm_ctx_copy(&probe, &st);
        /* verify compares in constant time and wipes |probe|; its outcome is public */
        found |= mbgcm_ctx_verify(&probe, region + m, MBGCMI_COB_TAG) == MBGCM_OK;
        mbgcm_ctx_update(&st, region + m, 1, sink);
    }
    mbgcm_ctx_wipe(&st);
    mbgcmi_cob_wipe(sink, sizeof sink);
    return found ? MBGCM_ERR_TRAILING : MBGCM_ERR_AUTH;
}
