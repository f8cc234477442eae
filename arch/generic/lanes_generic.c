/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lanes_generic.c — the portable four-lane kernel: the lane-kernel contract of core/group.h in
 * constant-time C, on the same lane state the NASM kernels use.
 *
 * Each block step encrypts the four lanes' counter blocks in one bitsliced AES call (each lane
 * with its own round-key rows and round count), XORs, writes, and collects the blocks to hash
 * per lane; every up to eight blocks each lane's GHASH is updated with one aggregated
 * reduction using the lane's rows of H^8..H^1. All branches depend only on lengths, phases
 * and lane masks (public), never on key or data bytes.
 */
#include "generic.h"

/* Blocks lane i can advance before its next phase boundary (0: it has finished). A partial
   block counts as one. */
static uint64_t blocks_to_boundary(const struct mbgcmi_group *g, int i)
{
    const uint64_t left = g->aad_left[i] ? g->aad_left[i] : g->text_left[i];
    return left >= 16 ? left / 16 : (left ? 1 : 0);
}

static void aes4(const struct mbgcmi_group *g, const uint8_t in[MBGCMI_GL][16], uint8_t out[64])
{
    const uint8_t *const rk[4] = {g->rk[0][0], g->rk[0][1], g->rk[0][2], g->rk[0][3]};
    mbgcmi_aes_ct_encrypt4(rk, 64, g->rounds, (const uint8_t *)in, out);
}

static void ghash_lane(struct mbgcmi_group *g, int i, const uint8_t *blocks, size_t n)
{
    uint64_t s[2];
    memcpy(s, g->s[i], 16);
    mbgcmi_ghash_ct_tab(s, blocks, n, g->hp[0][i], g->hk[0][i], 64);
    memcpy(g->s[i], s, 16);
    mbgcmi_wipe(s, sizeof s);
}

/* Advance every busy lane by n blocks (no lane crosses a phase boundary). */
static void step(struct mbgcmi_group *g, unsigned act, uint64_t n)
{
    uint8_t hb[MBGCMI_GL][8][16]; /* blocks to hash, per lane */
    uint8_t ks[64], in[16], out[16];
    unsigned text = 0;
    for (int i = 0; i < MBGCMI_GL; i++) {
        if ((act >> i & 1) && g->aad_left[i] == 0) {
            text |= 1u << i;
        }
    }
    while (n > 0) {
        const unsigned c = n < 8 ? (unsigned)n : 8;
        for (unsigned j = 0; j < c; j++) {
            if (text) {
                aes4(g, g->ctr, ks);
            }
            for (int i = 0; i < MBGCMI_GL; i++) {
                if (!(act >> i & 1)) {
                    continue;
                }
                uint8_t *h = hb[i][j];
                if (!(text >> i & 1)) { /* AAD: hash only */
                    const size_t take = g->aad_left[i] < 16 ? (size_t)g->aad_left[i] : 16;
                    memset(h, 0, 16);
                    memcpy(h, g->aad[i], take);
                    g->aad[i] += take;
                    g->aad_left[i] -= take;
                    continue;
                }
                const size_t take = g->text_left[i] < 16 ? (size_t)g->text_left[i] : 16;
                memset(in, 0, 16);
                memcpy(in, g->src[i], take); /* read before writing: src may equal dst */
                memset(out, 0, 16);
                for (size_t b = 0; b < take; b++) {
                    out[b] = in[b] ^ ks[16 * i + b];
                }
                memcpy(g->dst[i], out, take);
                memcpy(h, (g->decrypt >> i & 1) ? in : out, 16); /* the ciphertext, padded */
                g->src[i] += take;
                g->dst[i] += take;
                g->text_left[i] -= take;
                mbgcmi_inc32(g->ctr[i]);
            }
        }
        for (int i = 0; i < MBGCMI_GL; i++) {
            if (act >> i & 1) {
                ghash_lane(g, i, hb[i][0], c);
            }
        }
        n -= c;
    }
    mbgcmi_wipe(hb, sizeof hb);
    mbgcmi_wipe(ks, sizeof ks);
    mbgcmi_wipe(in, sizeof in);
    mbgcmi_wipe(out, sizeof out);
}

/* Length block, final multiply, tag out or constant-time compare. */
static void finish(struct mbgcmi_group *g, unsigned fin)
{
    uint8_t t[16];
    for (int i = 0; i < MBGCMI_GL; i++) {
        if (!(fin >> i & 1)) {
            continue;
        }
        uint64_t s[2];
        ghash_lane(g, i, g->lenblk[i], 1);
        memcpy(s, g->s[i], 16);
        mbgcmi_v_to_block(s, t);
        for (int b = 0; b < 16; b++) {
            t[b] ^= g->ek0[i][b];
        }
        const unsigned bit = 1u << i;
        if (g->decrypt & bit) {
            const unsigned ok = (unsigned)mbgcmi_ct_equal(t, g->etag[i], g->tag_len[i]);
            g->auth_fail = (g->auth_fail & ~bit) | (bit & (0u - (ok ^ 1u)));
        } else {
            memcpy(g->tag[i], t, g->tag_len[i]);
        }
        mbgcmi_wipe(s, sizeof s);
    }
    mbgcmi_wipe(t, sizeof t);
}

unsigned mbgcmi_lanes_generic(struct mbgcmi_group *g)
{
    const unsigned act = g->active;
    if (g->init & act) { /* E_K(J0) for newly entered lanes */
        uint8_t e[64];
        aes4(g, g->ek0, e);
        for (int i = 0; i < MBGCMI_GL; i++) {
            if (g->init >> i & 1) {
                memcpy(g->ek0[i], e + 16 * i, 16);
            }
        }
        g->init = 0;
        mbgcmi_wipe(e, sizeof e);
    }
    for (;;) {
        unsigned fin = 0;
        uint64_t n = UINT64_MAX;
        for (int i = 0; i < MBGCMI_GL; i++) {
            if (!(act >> i & 1)) {
                continue;
            }
            const uint64_t b = blocks_to_boundary(g, i);
            if (b == 0) {
                fin |= 1u << i;
            } else if (b < n) {
                n = b;
            }
        }
        if (fin) {
            finish(g, fin);
            return fin;
        }
        step(g, act, n);
    }
}
