/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * avx2.h — the avx2 arch's kernels (arch/avx2/gcm_by16_avx2.asm): single-stream VAES and
 * VPCLMULQDQ on ymm (AVX2, no AVX-512), 16 blocks per iteration, partial blocks bounced through
 * the stack. Contracts as the struct mbgcmi_gcm_ops members (core/gcm.h).
 */
#ifndef MBGCM_ARCH_AVX2_H
#define MBGCM_ARCH_AVX2_H

#include <stddef.h>
#include <stdint.h>

#include "key.h"

void mbgcmi_avx2_ghash(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                       size_t nblocks);
void mbgcmi_avx2_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx2_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx2_gcm(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                     size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                     uint8_t tag[16], int decrypt);
int mbgcmi_avx2_gcm12(const struct mbgcmi_key *k, const uint8_t *iv, const uint8_t *aad,
                      size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                      uint8_t *tag, size_t tag_len_dec);

/* hpowers_avx2.asm: mbgcmi_aesni_hpowers's contract and bytes (fill hpow[]/hkar[] from
   hpow[H^1]), two powers per 256-bit VPCLMULQDQ. */
void mbgcmi_avx2_hpowers(struct mbgcmi_key *k);
/* key_avx2.c: the arch's key setup (struct mbgcmi_arch.key_expand), with the above. */
void mbgcmi_avx2_key_expand(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len);

#endif /* MBGCM_ARCH_AVX2_H */
