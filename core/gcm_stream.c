/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gcm_stream.c — GCM over a message that arrives in pieces of any length: whole blocks go
 * straight to the arch's CTR+GHASH kernel; a piece that ends inside a block keeps that block's
 * key stream and ciphertext bytes until the next piece completes it (or the tag pads it).
 * Used by the incremental API (api/ctx.c) and by scatter-gather jobs (jobs/sgl.c), whose
 * segments are pieces.
 */
#include <stddef.h>

#include "arch.h"
#include "gcm.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The kernels load a counter block or a length block as one 16-byte vector; a load that
   spans several smaller stores cannot be forwarded from them and waits until they reach the
   cache (tens of cycles, per call), so those blocks are written here with one 16-byte store. */
static void store16(uint8_t dst[16], uint64_t lo, uint64_t hi)
{
#if defined(__SSE2__)
    _mm_storeu_si128((__m128i *)(void *)dst, _mm_set_epi64x((long long)hi, (long long)lo));
#else
    memcpy(dst, &lo, 8);
    memcpy(dst + 8, &hi, 8);
#endif
}

/* dst = src with GCM's inc32 applied (src == dst allowed) */
static void store_inc32(uint8_t dst[16], const uint8_t src[16])
{
    uint64_t lo, hi;
    memcpy(&lo, src, 8);
    memcpy(&hi, src + 8, 8);
    const uint32_t c = __builtin_bswap32(__builtin_bswap32((uint32_t)(hi >> 32)) + 1u);
    store16(dst, lo, (hi & 0xFFFFFFFFu) | (uint64_t)c << 32);
}

/* The ops' stream12_start and stream_finish take the state from |s| on at these offsets. */
#define ST_OFF(f) (offsetof(struct mbgcmi_stream, f) - offsetof(struct mbgcmi_stream, s))
_Static_assert(ST_OFF(ek0) == 16 && ST_OFF(ctr) == 32 && ST_OFF(cbuf) == 64 &&
                   ST_OFF(aad_len) == 80 && ST_OFF(len) == 88 && ST_OFF(used) == 96,
               "stream layout (arch/avx512/gcm_by16_avx512.asm ST_*)");

void mbgcmi_stream_init(struct mbgcmi_stream *c, const struct mbgcmi_arch *a,
                        const struct mbgcmi_key *k, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, int decrypt)
{
    const struct mbgcmi_gcm_ops *ops = a->ops;
    uint8_t j0[16];
    /* every field set by name: zeroing the whole state first costs a string store (rep stos,
       ~40 cycles to start on some cores), a third of this call */
    c->key = k;
    c->arch = a;
    store16((uint8_t *)c->s, 0, 0); /* the kernels load it as one vector */
    store16(c->ks, 0, 0);
    store16(c->cbuf, 0, 0);
    c->aad_len = aad_len;
    c->len = 0;
    c->used = 0;
    c->decrypt = decrypt;
    if (ops->stream12_start != NULL && iv_len == 12 && aad_len <= 16) {
        ops->stream12_start(k, iv, aad, aad_len, c->s); /* S, E_K(J0), ctr */
        return;
    }
    mbgcmi_gcm_j0(a, k, iv, iv_len, j0);
    ops->block(k, j0, c->ek0);
    store_inc32(c->ctr, j0);
    const size_t full = aad_len / 16, rem = aad_len % 16;
    if (full) {
        ops->ghash(k, c->s, aad, full);
    }
    if (rem) {
        uint8_t pad[16];
        store16(pad, 0, 0);
        memcpy(pad, aad + 16 * full, rem);
        ops->ghash(k, c->s, pad, 1);
        mbgcmi_wipe(pad, sizeof pad);
    }
    mbgcmi_wipe(j0, sizeof j0);
    if (a->portable) {
        mbgcmi_burn_stack(); /* compiler spills of the portable kernels */
    }
}

/* The general case of mbgcmi_stream_update (below): partial blocks at either end. */
__attribute__((noinline)) static void stream_update_any(struct mbgcmi_stream *c,
                                                        const uint8_t *in, size_t len,
                                                        uint8_t *out)
{
    const struct mbgcmi_gcm_ops *ops = c->arch->ops;
    const int dec = c->decrypt;
    /* 1. finish the partial block in progress */
    while (c->used != 0 && len != 0) {
        const uint8_t x = *in++;
        const uint8_t y = x ^ c->ks[c->used];
        c->cbuf[c->used] = dec ? x : y; /* GHASH takes the ciphertext */
        *out++ = y;
        len--;
        if (++c->used == 16) {
            ops->ghash(c->key, c->s, c->cbuf, 1);
            memset(c->cbuf, 0, 16);
            c->used = 0;
        }
    }
    /* 2. whole blocks straight through the kernel */
    const size_t full = len / 16, rem = len % 16;
    if (full) {
        (dec ? ops->ctr_dec : ops->ctr_enc)(c->key, c->ctr, c->s, in, out, full);
        in += 16 * full;
        out += 16 * full;
    }
    /* 3. start a partial block with what is left */
    if (rem) {
        ops->block(c->key, c->ctr, c->ks);
        store_inc32(c->ctr, c->ctr);
        for (size_t i = 0; i < rem; i++) {
            const uint8_t x = in[i];
            const uint8_t y = x ^ c->ks[i];
            c->cbuf[i] = dec ? x : y;
            out[i] = y;
        }
        c->used = (uint32_t)rem;
    }
    if (c->arch->portable) {
        mbgcmi_burn_stack();
    }
}

void mbgcmi_stream_update(struct mbgcmi_stream *c, const uint8_t *in, size_t len, uint8_t *out)
{
    c->len += len;
    if ((c->used | (len & 15)) == 0 && !c->arch->portable) {
        /* whole blocks from a block boundary (an mbuf of whole blocks, a 16 KiB piece): the
           kernel alone, a tail call without a frame of saved registers */
        const struct mbgcmi_gcm_ops *ops = c->arch->ops;
        (c->decrypt ? ops->ctr_dec : ops->ctr_enc)(c->key, c->ctr, c->s, in, out, len / 16);
        return;
    }
    stream_update_any(c, in, len, out);
}

void mbgcmi_stream_tag(struct mbgcmi_stream *c, uint8_t t[16])
{
    const struct mbgcmi_gcm_ops *ops = c->arch->ops;
    if (ops->stream_finish != NULL) {
        ops->stream_finish(c->key, c->s, t);
        mbgcmi_wipe(c, sizeof *c);
        mbgcmi_clear_xmm(); /* the partial blocks' bytes passed through the C code's */
        return;
    }
    /* the zero-padded partial block (if any) and the length block in one GHASH call */
    uint8_t b[32];
    memcpy(b, c->cbuf, 16); /* zero past |used| */
    /* the lengths are validated (aad < 2^61, text <= 2^36-32 bytes): the bit counts fit */
    store16(b + 16, __builtin_bswap64(c->aad_len << 3), __builtin_bswap64(c->len << 3));
    const size_t first = c->used ? 0 : 16;
    ops->ghash(c->key, c->s, b + first, (32 - first) / 16);
    /* T = E_K(J0) ^ S in byte order, written as one 16-byte store: a byte-wise xor over
       two 8-byte stores would load across both (not forwarded, a stall) */
    uint64_t e0, e1;
    memcpy(&e0, c->ek0, 8);
    memcpy(&e1, c->ek0 + 8, 8);
    store16(t, __builtin_bswap64(c->s[1]) ^ e0, __builtin_bswap64(c->s[0]) ^ e1);
    const int portable = c->arch->portable;
    mbgcmi_wipe(b, sizeof b);
    mbgcmi_wipe(c, sizeof *c);
    if (portable) {
        mbgcmi_burn_stack();
    }
    mbgcmi_clear_xmm(); /* E_K(J0) passed through one */
}
