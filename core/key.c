/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * key.c — key setup around an arch's key expansion (round keys and H powers; every arch
 * writes the same bytes), the Montgomery form of H, and the GCM length block.
 */
#include "arch.h"
#include "key.h"

void mbgcmi_hkey_from_h(const uint8_t h[16], uint64_t p[2])
{
    uint64_t v[2];
    mbgcmi_block_to_v(h, v);
    /* Hs = V(H) * y mod P': shift left, conditionally fold bit 128 with P' */
    uint64_t carry = v[1] >> 63;
    uint64_t mask = (uint64_t)0 - carry;
    p[1] = (v[1] << 1) | (v[0] >> 63);
    p[0] = v[0] << 1;
    p[1] ^= mask & UINT64_C(0xC200000000000000);
    p[0] ^= mask & 1;
    mbgcmi_wipe(v, sizeof v);
}

void mbgcmi_key_expand(mbgcm_key *key, const uint8_t *raw, size_t raw_len,
                       const struct mbgcmi_arch *arch)
{
    struct mbgcmi_key *k = mbgcmi_key_w(key);
    if (!mbgcmi_arch_supported(arch)) {
        arch = mbgcmi_arch_at(0);
    }
    const uint32_t rounds = (uint32_t)(raw_len / 4 + 6);
    /* zero what the expansion does not write (the round keys past this size's last, the
       reserved words), so no byte of an earlier key stays; not the whole 1536 bytes first:
       that memset compiles to a string store (rep stos), ~15% of this call on AMD cores */
    mbgcmi_wipe(k->rk[rounds + 1], 16 * (MBGCMI_MAX_ROUNDS - rounds));
    k->reserved0 = 0;
    mbgcmi_wipe(k->reserved, sizeof k->reserved);
    k->magic = 0;
    k->key_len = (uint32_t)raw_len;
    k->rounds = rounds;
    arch->key_expand(k, raw, raw_len);
    k->magic = MBGCMI_KEY_MAGIC;
    if (arch->portable) {
        mbgcmi_burn_stack(); /* S-box and GHASH intermediates the compiler spilled */
    }
}

int mbgcmi_len_block(uint64_t aad_len, uint64_t text_len, uint8_t blk[16])
{
    if (aad_len > MBGCMI_MAX_AAD_LEN || text_len > MBGCMI_MAX_TEXT_LEN) {
        return -1;
    }
    /* aad_len < 2^61 so aad_len * 8 < 2^64: no overflow */
    mbgcmi_store_be64(blk, aad_len << 3);
    mbgcmi_store_be64(blk + 8, text_len << 3);
    return 0;
}
