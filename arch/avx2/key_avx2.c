/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * key_avx2.c — the avx2 arch's key setup (struct mbgcmi_arch.key_expand): the x86 key setup of
 * aesni.h with the hash-key powers two to a 256-bit VPCLMULQDQ (hpowers_avx2.asm). Same bytes
 * as every other arch's key_expand.
 */
#include "aesni.h"
#include "avx2.h"

void mbgcmi_avx2_key_expand(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len)
{
    mbgcmi_x86_key_expand(k, raw, raw_len, 1, mbgcmi_avx2_hpowers);
}
