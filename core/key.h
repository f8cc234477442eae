/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * key.h — the expanded key's layout (the kernels' view of struct mbgcm_key), the V form of
 * GHASH blocks, and the SP 800-38D limits.
 *
 * The offsets are mirrored in arch/x86/include/key.inc and checked by test/test_layout.c.
 *
 * GHASH representation ("V form"): a 16-byte GCM block b[0..15] is read as the 128-bit
 * big-endian integer V = b[0]<<120 | ... | b[15]; V is stored as two little-endian qwords
 * {lo, hi} (so an xmm load after a byte reversal, or a plain load of the stored value, gives V).
 * Bit j of V is the coefficient of x^(127-j) of the GCM field element. Hash-key powers are
 * stored pre-multiplied for Montgomery reduction: hpow holds V(H^k) * y mod P', where
 * y = x^-1 in GCM's field (see arch/generic/ghash_ct.c for the derivation), so that one
 * Montgomery product mont(V(a), hpow[H^k]) = V(a * H^k).
 */
#ifndef MBGCM_CORE_KEY_H
#define MBGCM_CORE_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "mbgcm.h"
#include "util.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MBGCMI_MAX_ROUNDS   14
#define MBGCMI_NPOWERS      32
#define MBGCMI_KEY_MAGIC    0x6b67626du /* "mbgk": set by key_init, cleared by key_wipe */

struct mbgcmi_key {
    uint8_t  rk[MBGCMI_MAX_ROUNDS + 1][16]; /*    0: encryption round keys rk[0..rounds]    */
    uint32_t rounds;                        /*  240: 10, 12 or 14                           */
    uint32_t key_len;                       /*  244: 16, 24 or 32                           */
    uint32_t magic;                         /*  248: MBGCMI_KEY_MAGIC when initialised      */
    uint32_t reserved0;                     /*  252                                         */
    /* 256: hpow[i] = H^(32-i) in Montgomery V form, {lo, hi}: highest power first, so a
       64-byte load at H^4 gives [H^4, H^3, H^2, H^1] (lane 0 = H^4). */
    uint64_t hpow[MBGCMI_NPOWERS][2];
    /* 768: hkar[i] = {k, k} with k = lo ^ hi of hpow[i] (Karatsuba middle operand). */
    uint64_t hkar[MBGCMI_NPOWERS][2];
    uint8_t  reserved[256];                 /* 1280..1535: room for later layouts           */
};

#define MBGCMI_OFF_RK      0
#define MBGCMI_OFF_ROUNDS  240
#define MBGCMI_OFF_HPOW    256
#define MBGCMI_OFF_HKAR    768
/* index into hpow/hkar of H^k, 1 <= k <= 32 */
#define MBGCMI_HIDX(k)     (MBGCMI_NPOWERS - (k))

_Static_assert(sizeof(struct mbgcmi_key) == MBGCM_KEY_SIZE, "key layout size");
_Static_assert(offsetof(struct mbgcmi_key, rounds) == MBGCMI_OFF_ROUNDS, "rounds offset");
_Static_assert(offsetof(struct mbgcmi_key, hpow) == MBGCMI_OFF_HPOW, "hpow offset");
_Static_assert(offsetof(struct mbgcmi_key, hkar) == MBGCMI_OFF_HKAR, "hkar offset");

/* The library is compiled with -fno-strict-aliasing, so this overlay is well defined. */
static inline const struct mbgcmi_key *mbgcmi_key_c(const mbgcm_key *k)
{
    return (const struct mbgcmi_key *)(const void *)k;
}
static inline struct mbgcmi_key *mbgcmi_key_w(mbgcm_key *k)
{
    return (struct mbgcmi_key *)(void *)k;
}
/* A key is usable when key_init set the magic and a valid round count (public values). */
static inline int mbgcmi_key_ok(const mbgcm_key *k)
{
    const struct mbgcmi_key *ik = mbgcmi_key_c(k);
    return ik->magic == MBGCMI_KEY_MAGIC &&
           (ik->rounds == 10 || ik->rounds == 12 || ik->rounds == 14);
}

/* V form of a 16-byte block, and back. */
static inline void mbgcmi_block_to_v(const uint8_t b[16], uint64_t v[2])
{
    v[1] = mbgcmi_load_be64(b);
    v[0] = mbgcmi_load_be64(b + 8);
}
static inline void mbgcmi_v_to_block(const uint64_t v[2], uint8_t b[16])
{
    mbgcmi_store_be64(b, v[1]);
    mbgcmi_store_be64(b + 8, v[0]);
}
/* Montgomery-form hash key V(H) * y mod P' from H = E_K(0^128) (bytes) (core/key.c). */
void mbgcmi_hkey_from_h(const uint8_t h[16], uint64_t p[2]);

struct mbgcmi_arch;
/* Key setup with the key expansion of |arch| (generic when |arch| is NULL or not supported
   here); every arch produces the same bytes. Arguments validated by the caller.
   mbgcm_key_init uses the best arch. (core/key.c) */
void mbgcmi_key_expand(mbgcm_key *key, const uint8_t *raw, size_t raw_len,
                       const struct mbgcmi_arch *arch);

/* ---- limits (SP 800-38D); every check happens before memory is touched ------------------- */
#define MBGCMI_MAX_IV_LEN   ((UINT64_C(1) << 61) - 1)
#define MBGCMI_MAX_AAD_LEN  ((UINT64_C(1) << 61) - 1)
#define MBGCMI_MAX_TEXT_LEN ((UINT64_C(1) << 36) - 32)

static inline int mbgcmi_tag_len_ok(size_t t)
{
    return t == 4 || t == 8 || (t >= 12 && t <= 16);
}

/* GCM length block [bitlen(A)]_64 || [bitlen(C)]_64 in byte order. Returns 0, or -1 when a
   length exceeds its limit (the caller validated them; the check makes overflow impossible).
   (core/key.c) */
int mbgcmi_len_block(uint64_t aad_len, uint64_t text_len, uint8_t blk[16]);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_CORE_KEY_H */
