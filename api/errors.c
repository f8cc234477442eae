/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * errors.c — status texts and the version string. The texts are fixed strings: they never
 * include key, IV or data bytes.
 */
#include "mbgcm.h"

#define STR2(x) #x
#define STR(x) STR2(x)

const char *mbgcm_strerror(int status)
{
    switch (status) {
    case MBGCM_OK: return "success";
    case MBGCM_ERR_AUTH: return "authentication failed: tag mismatch (output zeroed)";
    case MBGCM_ERR_INVALID: return "invalid argument (NULL pointer, overlapping buffers, "
                                   "misaligned or uninitialised key, or bad direction)";
    case MBGCM_ERR_KEY_LEN: return "invalid key length (AES keys are 16, 24 or 32 bytes)";
    case MBGCM_ERR_IV_LEN: return "invalid IV length (1 to 2^61-1 bytes)";
    case MBGCM_ERR_TAG_LEN: return "invalid tag length (4, 8 or 12 to 16 bytes)";
    case MBGCM_ERR_LEN: return "length out of range (message <= 2^36-32 bytes, AAD < 2^61 bytes)";
    case MBGCM_ERR_NOMEM: return "out of memory";
    case MBGCM_ERR_UNSUPPORTED: return "arch unknown or not supported by this CPU/OS";
    case MBGCM_PENDING: return "job pending (submitted, not yet returned)";
    default: return "unknown status";
    }
}

const char *mbgcm_version(void)
{
    return STR(MBGCM_VERSION_MAJOR) "." STR(MBGCM_VERSION_MINOR) "." STR(MBGCM_VERSION_PATCH);
}
