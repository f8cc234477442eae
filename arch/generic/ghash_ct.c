/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ghash_ct.c — portable, constant-time GHASH, and the derivation every GHASH kernel in mbgcm
 * follows (the asm kernels point here).
 *
 * 1. Representation ("V form"). GCM numbers the bits of a block from the most significant
 *    bit of byte 0: that bit is the coefficient of x^0 of the field element. Reading the block
 *    as a big-endian 128-bit integer V (one byte reversal of the little-endian load), bit j of
 *    V is the coefficient of x^(127-j). Write v(y) = sum_j V_j y^j: then v = y^127 * a(1/y).
 *    With y = 1/x, GCM's field GF(2)[x]/P, P = x^128 + x^7 + x^2 + x + 1, is isomorphic to
 *    GF(2)[y]/P' with the reversed polynomial P'(y) = y^128 + y^127 + y^126 + y^121 + 1.
 *
 * 2. Products. A carry-less product of two V values is v_a * v_b = y^254 * (ab)(1/y), i.e.
 *    y^127 * (V form of ab) — one factor y^127 too many. Montgomery reduction with R = y^128
 *    removes y^128; the missing y is put into the hash key once: the key stores
 *    Hs = V(H) * y mod P' (a left shift by one with a conditional xor of
 *    0xC2000000000000000000000000000001: the classic "H << 1 mod poly"). Then
 *        mont(V(a), Hs) = V(a) * V(H) * y * y^-128 = V(a * H).
 *    The same holds for the stored powers V(H^k) * y, and mont(V(H^k)*y, Hs) = V(H^(k+1))*y,
 *    so the powers are built by repeated Montgomery products.
 *
 * 3. The 128x128 product T = LO + MI*y^64 + HI*y^128 (three 128-bit parts; with Karatsuba
 *    MI = (a_lo ^ a_hi)(b_lo ^ b_hi) ^ LO ^ HI, and the key stores b_lo ^ b_hi precomputed).
 *
 * 4. Reduction, 64 bits at a time. P' = 1 mod y^64, so to clear the low 64 bits t0 of T add
 *    t0 * P' and divide by y^64:
 *        (T + t0 P') / y^64 = T>>64 + t0 * (y^57 + y^62 + y^63) + t0 * y^64.
 *    t0 * (y^57 + y^62 + y^63) is a carry-less multiply by the constant 0xC200000000000000;
 *    t0 * y^64 together with T>>64's low qword is a swap of LO's halves. So:
 *        MI ^= swap64(LO) ^ clmul(LO.lo, 0xC2..);   HI ^= swap64(MI) ^ clmul(MI.lo, 0xC2..);
 *    and HI is the reduced 128-bit result. Sums of several unreduced products are reduced
 *    once (aggregated reduction): S' = (S ^ X1) H^n ^ X2 H^(n-1) ^ ... ^ Xn H.
 *
 * The portable carry-less 64x64 multiply below uses integer multiplies on masked operands
 * (bits spaced 5 apart, so column sums of at most 13 never carry into the next live column);
 * integer MUL is constant time on every x86-64, so nothing here depends on data in timing.
 */
#include "generic.h"

typedef unsigned __int128 u128;

static inline u128 clmul64(uint64_t x, uint64_t y)
{
    static const uint64_t m[5] = {
        UINT64_C(0x1084210842108421), UINT64_C(0x2108421084210842),
        UINT64_C(0x4210842108421084), UINT64_C(0x8421084210842108),
        UINT64_C(0x0842108421084210),
    };
    uint64_t xs[5], ys[5];
    for (int i = 0; i < 5; i++) {
        xs[i] = x & m[i];
        ys[i] = y & m[i];
    }
    u128 z = 0;
    for (int r = 0; r < 5; r++) {
        u128 acc = 0;
        for (int i = 0; i < 5; i++) {
            acc ^= (u128)xs[i] * ys[(r - i + 5) % 5];
        }
        /* keep the columns == r (mod 5): low qword m[r]; high qword positions 64+q with
           q == r - 64 == r + 1 (mod 5) */
        const u128 mask = ((u128)m[(r + 1) % 5] << 64) | m[r];
        z |= acc & mask;
    }
    return z;
}

static inline u128 fold_c2(uint64_t t) /* t * (y^57 + y^62 + y^63) */
{
    return ((u128)t << 57) ^ ((u128)t << 62) ^ ((u128)t << 63);
}

static inline u128 swap64(u128 v)
{
    return (v << 64) | (v >> 64);
}

/* Reduce T = LO + MI y^64 + HI y^128 to 128 bits (times y^-128). */
static inline u128 mont_reduce(u128 lo, u128 mi, u128 hi)
{
    mi ^= swap64(lo) ^ fold_c2((uint64_t)lo);
    hi ^= swap64(mi) ^ fold_c2((uint64_t)mi);
    return hi;
}

static inline u128 ld(const uint64_t v[2])
{
    return ((u128)v[1] << 64) | v[0];
}

static inline void st(uint64_t v[2], u128 x)
{
    v[0] = (uint64_t)x;
    v[1] = (uint64_t)(x >> 64);
}

void mbgcmi_gf128_mont(uint64_t r[2], const uint64_t a[2], const uint64_t b[2])
{
    u128 lo = clmul64(a[0], b[0]);
    u128 hi = clmul64(a[1], b[1]);
    u128 mi = clmul64(a[0] ^ a[1], b[0] ^ b[1]) ^ lo ^ hi;
    st(r, mont_reduce(lo, mi, hi));
}

void mbgcmi_hpowers_ct(struct mbgcmi_key *k)
{
    const uint64_t *p = k->hpow[MBGCMI_HIDX(1)];
    for (int e = 2; e <= MBGCMI_NPOWERS; e++) {
        mbgcmi_gf128_mont(k->hpow[MBGCMI_HIDX(e)], k->hpow[MBGCMI_HIDX(e - 1)], p);
    }
    for (int i = 0; i < MBGCMI_NPOWERS; i++) {
        uint64_t kk = k->hpow[i][0] ^ k->hpow[i][1];
        k->hkar[i][0] = kk;
        k->hkar[i][1] = kk;
    }
}

/* GHASH, aggregated by up to 8 blocks: one reduction per group, Karatsuba middle terms from
   the precomputed halves (the same arithmetic the vector kernels do). */
void mbgcmi_ghash_ct_tab(uint64_t s[2], const uint8_t *in, size_t nblocks, const uint8_t *h1,
                         const uint8_t *k1, ptrdiff_t stride)
{
    u128 acc = ld(s);
    while (nblocks > 0) {
        const size_t n = nblocks < 8 ? nblocks : 8;
        u128 lo = 0, mi = 0, hi = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t xv[2], h[2], kk;
            mbgcmi_block_to_v(in + 16 * i, xv);
            u128 x = ld(xv);
            if (i == 0) {
                x ^= acc;
            }
            const ptrdiff_t off = (ptrdiff_t)(n - i - 1) * stride; /* block i gets H^(n-i) */
            memcpy(h, h1 + off, 16);
            memcpy(&kk, k1 + off, 8);
            const uint64_t xl = (uint64_t)x, xh = (uint64_t)(x >> 64);
            const u128 l = clmul64(xl, h[0]), hh = clmul64(xh, h[1]);
            lo ^= l;
            hi ^= hh;
            mi ^= clmul64(xl ^ xh, kk) ^ l ^ hh;
        }
        acc = mont_reduce(lo, mi, hi);
        in += 16 * n;
        nblocks -= n;
    }
    st(s, acc);
}

void mbgcmi_ghash_ct(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                     size_t nblocks)
{
    mbgcmi_ghash_ct_tab(s, in, nblocks, (const uint8_t *)k->hpow[MBGCMI_HIDX(1)],
                        (const uint8_t *)k->hkar[MBGCMI_HIDX(1)], -16);
}
