/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * avx512.h — the avx512 arch's kernels (contracts repeated from the .asm files).
 */
#ifndef MBGCM_ARCH_AVX512_H
#define MBGCM_ARCH_AVX512_H

#include <stddef.h>
#include <stdint.h>

#include "gcm.h"
#include "group.h"
#include "key.h"

/* gcm_by16_avx512.asm: single-stream VAES/VPCLMULQDQ zmm kernels, 16 blocks per iteration.
   Contracts as the struct mbgcmi_gcm_ops members (core/gcm.h). */
void mbgcmi_avx512_ghash(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                         size_t nblocks);
void mbgcmi_avx512_stream12_start(const struct mbgcmi_key *k, const uint8_t *iv,
                                  const uint8_t *aad, size_t aad_len, uint64_t *st);
void mbgcmi_avx512_stream_finish(const struct mbgcmi_key *k, const uint64_t *st, uint8_t t[16]);
void mbgcmi_avx512_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                           const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx512_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                           const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx512_gcm(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                       size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                       uint8_t tag[16], int decrypt);
uint64_t mbgcmi_avx512_gcm12_jobs(mbgcm_job *const *jobs, size_t n);
int mbgcmi_avx512_gcm12(const struct mbgcmi_key *k, const uint8_t *iv, const uint8_t *aad,
                        size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                        uint8_t *tag, size_t tag_len_dec);

/* gcm_by32_avx512.asm: the by32 variant's single-stream kernels, 32 blocks per iteration
   (contracts as above). */
void mbgcmi_avx512_by32_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                                const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx512_by32_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                                const uint8_t *in, uint8_t *out, size_t nblocks);
void mbgcmi_avx512_by32_ctr_list_enc(const struct mbgcmi_key *k, uint8_t ctr[16],
                                     uint64_t s[2], const struct mbgcmi_chunk *list,
                                     size_t nblocks);
void mbgcmi_avx512_copy(uint8_t *dst, const uint8_t *src, size_t n);
void mbgcmi_avx512_by32_gcm_list(const struct mbgcmi_key *k, const uint8_t j0[16],
                                 const uint8_t *aad, size_t aad_len,
                                 const struct mbgcmi_chunk *list, size_t len, uint8_t tag[16],
                                 int decrypt);
void mbgcmi_avx512_by16_gcm_list(const struct mbgcmi_key *k, const uint8_t j0[16],
                                 const uint8_t *aad, size_t aad_len,
                                 const struct mbgcmi_chunk *list, size_t len, uint8_t tag[16],
                                 int decrypt);
void mbgcmi_avx512_by32_ctr_list_dec(const struct mbgcmi_key *k, uint8_t ctr[16],
                                     uint64_t s[2], const struct mbgcmi_chunk *list,
                                     size_t nblocks);
void mbgcmi_avx512_by32_gcm(const struct mbgcmi_key *k, const uint8_t j0[16],
                            const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                            uint8_t *out, uint8_t tag[16], int decrypt);
int mbgcmi_avx512_by32_gcm12(const struct mbgcmi_key *k, const uint8_t *iv, const uint8_t *aad,
                             size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                             uint8_t *tag, size_t tag_len_dec);
/* The by32 variant's pipelined burst call for encrypts (each job's final GHASH and tag in the
   next one's first pass): n (1..64) validated linear encrypts with 12-byte IVs, 1 or more
   bytes of message and at most 16 of AAD (arch_avx512.c's jobs12_by32 picks them). */
void mbgcmi_avx512_by32_jobs12(mbgcm_job *const *jobs, size_t n);
/* gcm_small_avx512.asm: whole12 for messages of at most 512 bytes with at most 16 bytes of
   AAD, nothing on the stack; small12 makes an encrypt's key stream in one pass of zmm (AMD
   cores), small12p in up to three (Intel cores); small12p and small12k (small12 with the
   chunks) also take 513..2048 bytes with at most 64 bytes of AAD, in chunks of 32 blocks. */
mbgcmi_whole12_op mbgcmi_avx512_small12, mbgcmi_avx512_small12p, mbgcmi_avx512_small12k;
/* gcm_small_avx512.asm: whole12 for a message of one block or less (1..16 bytes) with at most
   16 bytes of AAD, no frame, one zmm for the AES chain and one for GHASH; tiny12g the same for
   a GMAC call (no message) with at most 16 bytes of AAD. */
mbgcmi_whole12_op mbgcmi_avx512_tiny12, mbgcmi_avx512_tiny12g;

/* gcm_small_avx512.asm: the variants' whole12 (arch_avx512.c has the routing and why), each
   choosing small12, tiny12, the avx2 short path or the variant's own kernel by the lengths:
   by16's, by32's and by32h's. */
mbgcmi_whole12_op mbgcmi_avx512_by16_whole12, mbgcmi_avx512_by32_whole12,
    mbgcmi_avx512_by32h_whole12;
/* by32's whole12 with a key to request (struct mbgcmi_gcm_ops.whole12_next) */
mbgcmi_whole12_op mbgcmi_avx512_by32_whole12_next;

/* gcm_x4_avx512.asm: the four-lane kernel (core/group.h's lane-kernel contract). */
unsigned mbgcmi_avx512_lanes(struct mbgcmi_group *g);
/* gcm_short_avx512.asm: the short-job kernel (core/group.h, mbgcmi_short_jobs_fn). */
uint64_t mbgcmi_avx512_short_jobs(mbgcm_job *const *jobs, const uint32_t *shapes, size_t n,
                                  unsigned nblk, unsigned flags);

/* hpowers_avx512.asm: mbgcmi_aesni_hpowers's contract and bytes (fill hpow[]/hkar[] from
   hpow[H^1]), four powers per 512-bit VPCLMULQDQ. */
void mbgcmi_avx512_hpowers(struct mbgcmi_key *k);
/* key_avx512.c: the arch's key setup (struct mbgcmi_arch.key_expand), with the above. */
void mbgcmi_avx512_key_expand(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len);

#endif /* MBGCM_ARCH_AVX512_H */
