/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errors.c — texts of the Cobblestone status codes (fixed strings: never key or data bytes).
 * The codes of mbgcm.h are described by mbgcm_strerror; the Cobblestone calls use some of them
 * with a more specific meaning, given here.
 */
#include "cobble_internal.h"

const char *mbgcm_cobble_strerror(int status)
{
    switch (status) {
    case MBGCM_ERR_AUTH:
        return "authentication failed: a chunk was modified, reordered or cut (output zeroed)";
    case MBGCM_ERR_KEY_LEN: return "invalid key length (Cobblestone keys are 16 or 32 bytes)";
    case MBGCM_ERR_LEN:
        return "length out of range (a Cobblestone message has fewer than 2^38 chunks)";
    case MBGCM_ERR_COMMITMENT:
        return "key commitment mismatch: wrong key or context, or the header was modified";
    case MBGCM_ERR_TRUNCATED: return "truncated: the sealed message ends before its final chunk";
    case MBGCM_ERR_TRAILING: return "trailing data after the final chunk of the sealed message";
    case MBGCM_ERR_OUT_SPACE: return "output buffer too small (nothing written)";
    case MBGCM_ERR_RANGE: return "range outside the sealed message's plaintext";
    case MBGCM_ERR_LIBCRYPTO: return "OpenSSL libcrypto failed (HKDF or random salt)";
    default: return mbgcm_strerror(status);
    }
}
