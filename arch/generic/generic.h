/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * generic.h — the portable constant-time primitives (arch/generic/aes_ct.c, ghash_ct.c) and
 * the portable four-lane kernel (lanes_generic.c). Other arches' key setup reuses the GHASH
 * power table builder; the tests check the primitives directly.
 */
#ifndef MBGCM_ARCH_GENERIC_H
#define MBGCM_ARCH_GENERIC_H

#include <stddef.h>
#include <stdint.h>

#include "group.h"
#include "key.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FIPS-197 key expansion; SubWord through the bitsliced S-box. */
void mbgcmi_aes_ct_expand(const uint8_t *raw, size_t key_len, uint8_t rk[][16]);
/* Encrypt four blocks, block b with its own key schedule: round key r of block b at
   rk[b] + r * stride (stride 16 for a key's rk[], 64 for a lane group's four-lane table), and
   rounds[b] rounds (keys and round counts may differ between blocks). */
void mbgcmi_aes_ct_encrypt4(const uint8_t *const rk[4], size_t stride,
                            const unsigned rounds[4], const uint8_t in[64], uint8_t out[64]);
/* AES S-box applied to 64 bytes in place (bitsliced; exposed for tests). */
void mbgcmi_aes_ct_sbox64(uint8_t b[64]);

/* Montgomery product in V form: r = a * b * y^-128 mod P' (see ghash_ct.c). */
void mbgcmi_gf128_mont(uint64_t r[2], const uint64_t a[2], const uint64_t b[2]);
/* GHASH |nblocks| full blocks into |s| (V form) with the key's powers, portable C. */
void mbgcmi_ghash_ct(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                     size_t nblocks);
/* Same with the powers read from a table: H^k at h1 + (k-1)*stride and its Karatsuba operand
   at k1 + (k-1)*stride, for k = 1..8 (a key: stride -16; a lane group: stride 64). */
void mbgcmi_ghash_ct_tab(uint64_t s[2], const uint8_t *in, size_t nblocks, const uint8_t *h1,
                         const uint8_t *k1, ptrdiff_t stride);
/* Fill hpow[H^2..H^32] and hkar[] of |k| from hpow[H^1] (already set). Portable C. */
void mbgcmi_hpowers_ct(struct mbgcmi_key *k);

/* The portable four-lane kernel (the lane-kernel contract of core/group.h). */
unsigned mbgcmi_lanes_generic(struct mbgcmi_group *g);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_ARCH_GENERIC_H */
