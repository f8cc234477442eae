/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * key.c — mbgcm_key_init / mbgcm_key_wipe: the key expanded by the best arch (every arch writes
 * the same bytes; layout in core/key.h). No allocation.
 */
#include "arch.h"
#include "key.h"

int mbgcm_key_init(mbgcm_key *key, const void *raw, size_t raw_len)
{
    if (key == NULL || raw == NULL || ((uintptr_t)key & 63) != 0) {
        return MBGCM_ERR_INVALID;
    }
    if (raw_len != 16 && raw_len != 24 && raw_len != 32) {
        return MBGCM_ERR_KEY_LEN;
    }
    /* Raw key bytes inside the key object (re-keying from bytes kept in the object's own
       memory) are copied first: the expansion clears parts of |key| before it reads them. */
    if (mbgcmi_overlap(raw, raw_len, key, sizeof *key)) {
        uint8_t copy[32];
        memcpy(copy, raw, raw_len);
        mbgcmi_key_expand(key, copy, raw_len, mbgcmi_arch_best());
        mbgcmi_wipe(copy, sizeof copy);
    } else {
        mbgcmi_key_expand(key, raw, raw_len, mbgcmi_arch_best());
    }
    return MBGCM_OK;
}

void mbgcm_key_wipe(mbgcm_key *key)
{
    if (key != NULL) {
        mbgcmi_wipe(key, sizeof *key);
    }
}
