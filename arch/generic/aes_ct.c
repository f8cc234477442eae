/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aes_ct.c — portable, constant-time AES encryption (the `generic` path).
 *
 * No table lookups at all: the S-box is computed algebraically, bitsliced over 64 bytes.
 *   SubBytes(a) = Affine(a^254) in GF(2^8) = GF(2)[x] / (x^8 + x^4 + x^3 + x + 1)
 * (a^254 is the multiplicative inverse for a != 0 and 0 for a = 0, exactly as AES wants).
 *
 * Bitslicing: 64 bytes B[0..63] become eight 64-bit "planes" P[0..7] with
 *   bit i of P[k] = bit k of B[i].
 * One GF(2^8) operation on the planes is then 64 S-box lanes in parallel, using only AND/XOR
 * on 64-bit words: no data-dependent branch, no secret-dependent address. The conversion is a
 * bit transpose inside each 64-bit word (8x8 bits) followed by a byte transpose across the
 * eight words (8x8 bytes); both are fixed sequences of shifts and masks, and each is its own
 * inverse.
 *
 * The rest of AES (ShiftRows, MixColumns, AddRoundKey) works on bytes with fixed indices and
 * a masked xtime, so it is constant time as well. Four blocks (64 bytes) go through the S-box
 * together; each block may use its own key schedule and round count (the lane kernels of the
 * generic arch rely on that).
 *
 * Cost: about 1,000 word operations per round for 64 bytes; slow next to AES-NI (it is the
 * reference and the fallback, not a fast path) but fine for tests under ASan and valgrind.
 */
#include "generic.h"

/* ---- 8x8 transposes --------------------------------------------------------------------- */

/* Transpose the 8x8 bit matrix held in x (bit 8*r + c = element (r, c)). */
static inline uint64_t transpose8x8_bits(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & UINT64_C(0x00AA00AA00AA00AA);
    x = x ^ t ^ (t << 7);
    t = (x ^ (x >> 14)) & UINT64_C(0x0000CCCC0000CCCC);
    x = x ^ t ^ (t << 14);
    t = (x ^ (x >> 28)) & UINT64_C(0x00000000F0F0F0F0);
    x = x ^ t ^ (t << 28);
    return x;
}

/* Transpose the 8x8 byte matrix w[r] byte c (swap 4x4 blocks, then 2x2, then single bytes). */
static inline void transpose8x8_bytes(uint64_t w[8])
{
    for (int r = 0; r < 4; r++) {
        uint64_t a = w[r], b = w[r + 4];
        w[r] = (a & UINT64_C(0x00000000FFFFFFFF)) | (b << 32);
        w[r + 4] = (a >> 32) | (b & UINT64_C(0xFFFFFFFF00000000));
    }
    for (int r = 0; r < 8; r += 4) {
        for (int q = 0; q < 2; q++) {
            const uint64_t m = UINT64_C(0x0000FFFF0000FFFF);
            uint64_t a = w[r + q], b = w[r + q + 2];
            w[r + q] = (a & m) | ((b & m) << 16);
            w[r + q + 2] = ((a >> 16) & m) | (b & ~m);
        }
    }
    for (int r = 0; r < 8; r += 2) {
        const uint64_t m = UINT64_C(0x00FF00FF00FF00FF);
        uint64_t a = w[r], b = w[r + 1];
        w[r] = (a & m) | ((b & m) << 8);
        w[r + 1] = ((a >> 8) & m) | (b & ~m);
    }
}

/* ---- GF(2^8) on planes ------------------------------------------------------------------ */

/* Reduce a 15-term product t[0..14] modulo x^8 + x^4 + x^3 + x + 1 into r[0..7]. */
static inline void gf8_reduce(uint64_t r[8], uint64_t t[15])
{
    for (int k = 14; k >= 8; k--) { /* x^k = x^(k-8) * (x^4 + x^3 + x + 1) */
        t[k - 4] ^= t[k];
        t[k - 5] ^= t[k];
        t[k - 7] ^= t[k];
        t[k - 8] ^= t[k];
    }
    for (int i = 0; i < 8; i++) {
        r[i] = t[i];
    }
}

static inline void gf8_mul(uint64_t r[8], const uint64_t a[8], const uint64_t b[8])
{
    uint64_t t[15] = {0};
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            t[i + j] ^= a[i] & b[j];
        }
    }
    gf8_reduce(r, t);
}

static inline void gf8_sqr(uint64_t r[8], const uint64_t a[8])
{
    uint64_t t[15] = {0};
    for (int i = 0; i < 8; i++) {
        t[2 * i] = a[i]; /* squaring is linear in characteristic 2 */
    }
    gf8_reduce(r, t);
}

/* SubBytes on planes: Affine(a^254). a^254 by the chain
   2, 3 = 2+1, 6, 12, 14 = 12+2, 15 = 12+3, 30, 60, 120, 240, 254 = 240+14. */
static void sbox_planes(uint64_t p[8])
{
    uint64_t x2[8], x3[8], x12[8], x14[8], x15[8], t[8];
    gf8_sqr(x2, p);
    gf8_mul(x3, x2, p);
    gf8_sqr(t, x3);    /* x^6 */
    gf8_sqr(x12, t);   /* x^12 */
    gf8_mul(x14, x12, x2);
    gf8_mul(x15, x12, x3);
    gf8_sqr(t, x15);   /* 30 */
    gf8_sqr(t, t);     /* 60 */
    gf8_sqr(t, t);     /* 120 */
    gf8_sqr(t, t);     /* 240 */
    gf8_mul(t, t, x14); /* 254 */
    /* affine: b_i = a_i ^ a_(i+4) ^ a_(i+5) ^ a_(i+6) ^ a_(i+7) ^ c_i, c = 0x63 */
    for (int i = 0; i < 8; i++) {
        uint64_t v = t[i] ^ t[(i + 4) & 7] ^ t[(i + 5) & 7] ^ t[(i + 6) & 7] ^ t[(i + 7) & 7];
        p[i] = ((0x63 >> i) & 1) ? ~v : v; /* i is public: a fixed constant per plane */
    }
}

void mbgcmi_aes_ct_sbox64(uint8_t b[64])
{
    uint64_t w[8];
    for (int r = 0; r < 8; r++) {
        w[r] = transpose8x8_bits(mbgcmi_load_le64(b + 8 * r));
    }
    transpose8x8_bytes(w); /* w[k] is now plane k */
    sbox_planes(w);
    transpose8x8_bytes(w);
    for (int r = 0; r < 8; r++) {
        mbgcmi_store_le64(b + 8 * r, transpose8x8_bits(w[r]));
    }
    mbgcmi_wipe(w, sizeof w);
}

/* ---- key expansion ---------------------------------------------------------------------- */

void mbgcmi_aes_ct_expand(const uint8_t *raw, size_t key_len, uint8_t rk[][16])
{
    const unsigned nk = (unsigned)(key_len / 4), nr = nk + 6, total = 4 * (nr + 1);
    uint8_t w[60][4];
    uint8_t sb[64];
    uint8_t rcon = 1;

    memcpy(w, raw, key_len);
    for (unsigned i = nk; i < total; i++) {
        uint8_t t[4];
        memcpy(t, w[i - 1], 4);
        if (i % nk == 0 || (nk > 6 && i % nk == 4)) {
            memset(sb, 0, sizeof sb);
            if (i % nk == 0) { /* RotWord */
                sb[0] = t[1], sb[1] = t[2], sb[2] = t[3], sb[3] = t[0];
            } else {
                memcpy(sb, t, 4);
            }
            mbgcmi_aes_ct_sbox64(sb);
            memcpy(t, sb, 4);
            if (i % nk == 0) {
                t[0] ^= rcon;
                rcon = (uint8_t)((rcon << 1) ^ ((rcon >> 7) * 0x1b)); /* public constant */
            }
        }
        for (int j = 0; j < 4; j++) {
            w[i][j] = w[i - nk][j] ^ t[j];
        }
    }
    memcpy(rk, w, 16 * (nr + 1));
    mbgcmi_wipe(w, sizeof w);
    mbgcmi_wipe(sb, sizeof sb);
}

/* ---- rounds ----------------------------------------------------------------------------- */

static inline uint32_t xtime32(uint32_t x) /* four independent xtime, no branch */
{
    return ((x & 0x7f7f7f7fu) << 1) ^ (((x >> 7) & 0x01010101u) * 0x1bu);
}

static inline uint32_t ror8(uint32_t x)
{
    return (x >> 8) | (x << 24);
}

/* ShiftRows, then (unless |last|) MixColumns, of one 16-byte block; state byte r + 4c is
   row r, column c. */
static void shift_mix(uint8_t s[16], int last)
{
    uint8_t t[16];
    for (int c = 0; c < 4; c++) {
        for (int r = 0; r < 4; r++) {
            t[r + 4 * c] = s[r + 4 * ((c + r) & 3)];
        }
    }
    for (int c = 0; c < 4; c++) {
        uint32_t w = (uint32_t)t[4 * c] | ((uint32_t)t[4 * c + 1] << 8) |
                     ((uint32_t)t[4 * c + 2] << 16) | ((uint32_t)t[4 * c + 3] << 24);
        if (!last) { /* out_r = 2(a_r + a_(r+1)) + a_(r+1) + a_(r+2) + a_(r+3) */
            uint32_t r1 = ror8(w);
            w = xtime32(w ^ r1) ^ r1 ^ ror8(r1) ^ ror8(ror8(r1));
        }
        s[4 * c] = (uint8_t)w;
        s[4 * c + 1] = (uint8_t)(w >> 8);
        s[4 * c + 2] = (uint8_t)(w >> 16);
        s[4 * c + 3] = (uint8_t)(w >> 24);
    }
    mbgcmi_wipe(t, sizeof t);
}

void mbgcmi_aes_ct_encrypt4(const uint8_t *const rk[4], size_t stride,
                            const unsigned rounds[4], const uint8_t in[64], uint8_t out[64])
{
    uint8_t st[64];
    unsigned maxr = 0;
    for (int b = 0; b < 4; b++) {
        for (int i = 0; i < 16; i++) {
            st[16 * b + i] = in[16 * b + i] ^ rk[b][i];
        }
        maxr = rounds[b] > maxr ? rounds[b] : maxr;
    }
    for (unsigned r = 1; r <= maxr; r++) {
        mbgcmi_aes_ct_sbox64(st);
        for (int b = 0; b < 4; b++) {
            /* round counts are public (key size), so this branch leaks nothing */
            if (r > rounds[b]) {
                continue;
            }
            shift_mix(st + 16 * b, r == rounds[b]);
            const uint8_t *k = rk[b] + r * stride;
            for (int i = 0; i < 16; i++) {
                st[16 * b + i] ^= k[i];
            }
            if (r == rounds[b]) {
                memcpy(out + 16 * b, st + 16 * b, 16);
            }
        }
    }
    mbgcmi_wipe(st, sizeof st);
}
