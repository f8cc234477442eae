/*
 * diag.c — what a failed chunk means: "trailing data" or "modified".
 *
 * The format has no end-of-message flag: the final chunk is the one shorter than 16400 bytes,
 * and the nonce of chunk k does not depend on whether it is final. So when bytes are appended
 * to a sealed message, the true final chunk (f bytes, 16 <= f <= 16399) and the first appended
 * bytes land in one chunk slot, which then fails. The chunk slot holds an authentic final
 * chunk as a proper prefix exactly in that case (short of a 2^-128 forgery), which is what this
 * file checks: GCM over the region's ciphertext bytes one at a time with the library's
 * incremental core (mb/gcm_stream.c), and at every candidate length f a copy of the state
 * yields the tag of region[0 .. f-16), compared in constant time with region[f-16 .. f).
 * One pass: about len AES blocks' worth of work plus two GHASH blocks per candidate, i.e.
 * a few milliseconds even on the portable C path; it only runs after a failure.
 */
#include "cobble_internal.h"

int mbgcmi_cob_classify(int arch, const struct mbgcmi_cob_keys *k, uint64_t index,
                        const uint8_t *region, size_t len)
{
    if (arch < 0 || arch >= MBGCMI_ARCH_COUNT || len <= MBGCMI_COB_TAG) {
        return MBGCM_ERR_AUTH;
    }
    const size_t fmax = len - 1 < MBGCMI_COB_SCHUNK - 1 ? len - 1 : MBGCMI_COB_SCHUNK - 1;
    uint8_t nonce[12], sink[1], tag[16];
    struct mbgcmi_stream st, probe;
    mbgcmi_cob_nonce(k->nonce, index, nonce);
    mbgcmi_stream_init(&st, mbgcmi_gcm_ops_for(arch), mbgcmi_key_c(&k->key), nonce, 12, NULL, 0, 1);
    int found = 0;
    /* state after m ciphertext bytes; the candidate final chunk is region[0 .. m + 16) */
    for (size_t m = 0; m + MBGCMI_COB_TAG <= fmax; m++) {
        probe = st;
        mbgcmi_stream_tag(&probe, tag); /* wipes |probe| */
        found |= mbgcmi_ct_equal(tag, region + m, MBGCMI_COB_TAG);
        mbgcmi_stream_update(&st, region + m, 1, sink);
    }
    mbgcmi_wipe(&st, sizeof st);
    mbgcmi_wipe(tag, sizeof tag);
    mbgcmi_wipe(sink, sizeof sink);
    return found ? MBGCM_ERR_TRAILING : MBGCM_ERR_AUTH;
}
