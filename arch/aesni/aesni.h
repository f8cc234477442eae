/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aesni.h — the aesni arch's kernels (contracts repeated from the .asm files). The avx2 and
 * avx512 arches share the key setup (mbgcmi_x86_key_expand, with their own hash-key powers)
 * and the one-block call in their VEX encoding: for one block and for the key schedule, xmm
 * AES-NI is the shortest path on every x86 arch.
 */
#ifndef MBGCM_ARCH_AESNI_H
#define MBGCM_ARCH_AESNI_H

#include <stddef.h>
#include <stdint.h>

#include "key.h"

/* aes_keyexp_aesni.asm (code in arch/x86/include/aes_one.inc): FIPS-197 key expansion with
   AESKEYGENASSIST, writes rk[0..Nr] and hpow[H^1] (H = E_K(0^128) in Montgomery V form:
   mbgcmi_hkey_from_h's bytes, with one 16-byte store); one-block encryption, out = E_K(in).
   Legacy SSE encoding: requires AES-NI + SSE4.1. */
void mbgcmi_aesni_expand128(const uint8_t *raw, struct mbgcmi_key *k);
void mbgcmi_aesni_expand192(const uint8_t *raw, struct mbgcmi_key *k);
void mbgcmi_aesni_expand256(const uint8_t *raw, struct mbgcmi_key *k);
void mbgcmi_aesni_block(const struct mbgcmi_key *k, const uint8_t in[16], uint8_t out[16]);
/* arch/avx2/aes_vex_avx2.asm: the same four VEX-encoded (AES-NI + AVX), for the avx2 and
   avx512 arches: legacy SSE code run while the upper halves of the vector registers are dirty
   pays a state transition on Intel and Zen 5 cores (~40 cycles per call, measured). */
void mbgcmi_avx_expand128(const uint8_t *raw, struct mbgcmi_key *k);
void mbgcmi_avx_expand192(const uint8_t *raw, struct mbgcmi_key *k);
void mbgcmi_avx_expand256(const uint8_t *raw, struct mbgcmi_key *k);
void mbgcmi_avx_block(const struct mbgcmi_key *k, const uint8_t in[16], uint8_t out[16]);

/* gcm_aesni.asm: AES-NI + PCLMULQDQ single-stream kernels (SSE encoding, by-8, GHASH
   stitched into the AES rounds; whole-message call mbgcmi_aesni_gcm). Contracts as the
   struct mbgcmi_gcm_ops members (core/gcm.h). */
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

/* The key setup of every x86 arch's key_expand: round keys with AES-NI and hpow[H^1] (the
   expansion's), then |hpowers| (a kernel with mbgcmi_aesni_hpowers's contract and bytes: the
   arch's widest carry-less multiply) fills the other powers. |vex| (a constant at each call)
   picks the VEX-encoded expansion (arches with AVX). Inline, so each arch's calls are
   direct. */
static inline void mbgcmi_x86_key_expand(struct mbgcmi_key *k, const uint8_t *raw,
                                         size_t raw_len, int vex,
                                         void (*hpowers)(struct mbgcmi_key *))
{
    if (raw_len == 16) {
        (vex ? mbgcmi_avx_expand128 : mbgcmi_aesni_expand128)(raw, k);
    } else if (raw_len == 24) {
        (vex ? mbgcmi_avx_expand192 : mbgcmi_aesni_expand192)(raw, k);
    } else {
        (vex ? mbgcmi_avx_expand256 : mbgcmi_aesni_expand256)(raw, k);
    }
    hpowers(k);
}

#endif /* MBGCM_ARCH_AESNI_H */
