/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aesni.h — the aesni arch's kernels (contracts repeated from the .asm files). The avx2 and
 * avx512 arches reuse the one-block call and the key setup: for one block and for the key
 * schedule, xmm AES-NI is the shortest path on every x86 arch.
 */
#ifndef MBGCM_ARCH_AESNI_H
#define MBGCM_ARCH_AESNI_H

#include <stddef.h>
#include <stdint.h>

#include "key.h"

/* aes_keyexp_aesni.asm: FIPS-197 key expansion with AESKEYGENASSIST; writes rk[0..Nr].
   Requires AES-NI + SSE4.1. */
void mbgcmi_aesni_expand128(const uint8_t *raw, uint8_t rk[][16]);
void mbgcmi_aesni_expand192(const uint8_t *raw, uint8_t rk[][16]);
void mbgcmi_aesni_expand256(const uint8_t *raw, uint8_t rk[][16]);

/* gcm_aesni.asm: AES-NI + PCLMULQDQ single-stream kernels (SSE encoding, by-8, GHASH
   stitched into the AES rounds; whole-message call mbgcmi_aesni_gcm). Contracts as the
   struct mbgcmi_gcm_ops members (core/gcm.h). */
void mbgcmi_aesni_block(const struct mbgcmi_key *k, const uint8_t in[16], uint8_t out[16]);
void mbgcmi_aesni_ghash(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                        size_t nblocks);
void mbgcmi_aesni_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                          const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_aesni_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                          const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_aesni_gcm(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                      size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                      uint8_t tag[16], int decrypt);
/* gcm_aesni.asm: fill hpow[]/hkar[] from hpow[H^1] (already set), with PCLMULQDQ. */
void mbgcmi_aesni_hpowers(struct mbgcmi_key *k);

/* arch_aesni.c: key setup with AES-NI and PCLMULQDQ (struct mbgcmi_arch.key_expand). */
void mbgcmi_aesni_key_expand(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len);

#endif /* MBGCM_ARCH_AESNI_H */
