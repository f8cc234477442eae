/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch_generic.c — the `generic` arch: portable constant-time C (bitsliced AES, GHASH with
 * integer multiplies), always available, the reference and the fallback. Its single-message
 * kernels, its key expansion and its descriptor.
 */
#include "arch.h"
#include "generic.h"

static void gen_encrypt_blocks(const struct mbgcmi_key *k, const uint8_t in[64],
                               uint8_t out[64])
{
    const uint8_t *const rk[4] = {k->rk[0], k->rk[0], k->rk[0], k->rk[0]};
    const unsigned rounds[4] = {k->rounds, k->rounds, k->rounds, k->rounds};
    mbgcmi_aes_ct_encrypt4(rk, 16, rounds, in, out);
}

static void gen_block(const struct mbgcmi_key *k, const uint8_t in[16], uint8_t out[16])
{
    uint8_t b[64] = {0}, o[64];
    memcpy(b, in, 16);
    gen_encrypt_blocks(k, b, o);
    memcpy(out, o, 16);
    mbgcmi_wipe(b, sizeof b);
    mbgcmi_wipe(o, sizeof o);
}

static void gen_ctr(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                    const uint8_t *in, uint8_t *out, size_t nblocks, int decrypt)
{
    uint8_t cb[64], ks[64];
    while (nblocks > 0) {
        const size_t n = nblocks < 4 ? nblocks : 4;
        for (size_t i = 0; i < 4; i++) {
            memcpy(cb + 16 * i, ctr, 16);
            if (i < n) {
                mbgcmi_inc32(ctr);
            }
        }
        gen_encrypt_blocks(k, cb, ks);
        if (decrypt) { /* hash the ciphertext before an in-place write replaces it */
            mbgcmi_ghash_ct(k, s, in, n);
        }
        for (size_t i = 0; i < 16 * n; i++) {
            out[i] = in[i] ^ ks[i];
        }
        if (!decrypt) {
            mbgcmi_ghash_ct(k, s, out, n);
        }
        in += 16 * n;
        out += 16 * n;
        nblocks -= n;
    }
    mbgcmi_wipe(ks, sizeof ks);
    mbgcmi_wipe(cb, sizeof cb);
}

static void gen_ctr_enc(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                        const uint8_t *in, uint8_t *out, size_t nblocks)
{
    gen_ctr(k, ctr, s, in, out, nblocks, 0);
}

static void gen_ctr_dec(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                        const uint8_t *in, uint8_t *out, size_t nblocks)
{
    gen_ctr(k, ctr, s, in, out, nblocks, 1);
}

static void gen_key_expand(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len)
{
    static const uint8_t zero[16] = {0};
    uint8_t h[16];
    mbgcmi_aes_ct_expand(raw, raw_len, k->rk);
    gen_block(k, zero, h);
    mbgcmi_hkey_from_h(h, k->hpow[MBGCMI_HIDX(1)]);
    mbgcmi_hpowers_ct(k);
    mbgcmi_wipe(h, sizeof h);
}

static const struct mbgcmi_gcm_ops ops = {
    .block = gen_block,
    .ghash = mbgcmi_ghash_ct,
    .ctr_enc = gen_ctr_enc,
    .ctr_dec = gen_ctr_dec,
};

/* Lanes and single-stream run the same C, so no job goes single-stream by length. */
const struct mbgcmi_arch mbgcmi_arch_generic = {
    .name = "generic",
    .requires = 0,
    .portable = 1,
    .key_expand = gen_key_expand,
    .ops = &ops,
    .lanes = mbgcmi_lanes_generic,
    .short_jobs = NULL,
    .single_min_len = UINT64_MAX,
};
