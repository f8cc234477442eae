/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * key_avx512.c — the avx512 arch's key setup (struct mbgcmi_arch.key_expand of both variants):
 * the x86 key setup of aesni.h with the hash-key powers four to a 512-bit VPCLMULQDQ
 * (hpowers_avx512.asm). Same bytes as every other arch's key_expand.
 */
#include "aesni.h"
#include "avx512.h"

void mbgcmi_avx512_key_expand(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len)
{
    mbgcmi_x86_key_expand(k, raw, raw_len, 1, mbgcmi_avx512_hpowers);
}
