/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gcm_single.c — the single-message GCM driver and the portable (`generic`) op table.
 *
 * The driver is the same for every arch: J0, E_K(J0), AAD (full blocks, then the last block
 * zero-padded), CTR + GHASH over the full blocks, the partial final block, the length block,
 * and T = E_K(J0) ^ S. Each arch supplies four kernels (struct mbgcmi_gcm_ops, optionally a
 * whole-message call); the tail and padding handling lives here once, on 16-byte stack
 * buffers that are wiped afterwards.
 */
#include "arch.h"
#include "ct.h"
#include "gcm.h"

/* ---- driver ----------------------------------------------------------------------------- */

/* GHASH |len| bytes: full blocks through the kernel, the rest zero-padded. */
static void ghash_padded(const struct mbgcmi_gcm_ops *ops, const struct mbgcmi_key *k,
                         uint64_t s[2], const uint8_t *p, size_t len)
{
    const size_t full = len / 16, rem = len % 16;
    if (full) {
        ops->ghash(k, s, p, full);
    }
    if (rem) {
        uint8_t b[16] = {0};
        memcpy(b, p + 16 * full, rem);
        ops->ghash(k, s, b, 1);
        mbgcmi_wipe(b, sizeof b);
    }
}

void mbgcmi_gcm_j0(const struct mbgcmi_arch *a, const struct mbgcmi_key *k, const uint8_t *iv,
                   size_t iv_len, uint8_t j0[16])
{
    if (iv_len == 12) {
        mbgcmi_j0_12(iv, j0);
        return;
    }
    const struct mbgcmi_gcm_ops *ops = a->ops;
    uint64_t s[2] = {0, 0};
    uint8_t lb[16] = {0};
    ghash_padded(ops, k, s, iv, iv_len);
    mbgcmi_store_be64(lb + 8, (uint64_t)iv_len << 3); /* iv_len < 2^61: no overflow */
    ops->ghash(k, s, lb, 1);
    mbgcmi_v_to_block(s, j0);
    mbgcmi_wipe(s, sizeof s);
}

void mbgcmi_gcm_resume(const struct mbgcmi_arch *a, const struct mbgcmi_key *k,
                       const uint8_t ek0[16], uint64_t s[2], uint8_t ctr[16],
                       const uint8_t *aad, size_t aad_left, const uint8_t *in, uint8_t *out,
                       size_t text_left, const uint8_t lenblk[16], int decrypt,
                       uint8_t tag[16])
{
    const struct mbgcmi_gcm_ops *ops = a->ops;
    uint8_t b[16];
    ghash_padded(ops, k, s, aad, aad_left);
    const size_t full = text_left / 16, rem = text_left % 16;
    if (full) {
        (decrypt ? ops->ctr_dec : ops->ctr_enc)(k, ctr, s, in, out, full);
    }
    if (rem) {
        uint8_t ks[16];
        memset(b, 0, sizeof b);
        memcpy(b, in + 16 * full, rem); /* copy first: in and out may be the same buffer */
        ops->block(k, ctr, ks);
        if (decrypt) {
            ops->ghash(k, s, b, 1); /* padded ciphertext */
        }
        for (size_t i = 0; i < rem; i++) {
            b[i] ^= ks[i];
        }
        if (!decrypt) {
            ops->ghash(k, s, b, 1); /* padded ciphertext: bytes past rem are still zero */
        }
        memcpy(out + 16 * full, b, rem);
        mbgcmi_wipe(ks, sizeof ks);
    }
    ops->ghash(k, s, lenblk, 1);
    mbgcmi_v_to_block(s, tag);
    for (int i = 0; i < 16; i++) {
        tag[i] ^= ek0[i];
    }
    mbgcmi_wipe(b, sizeof b);
}

void mbgcmi_gcm_crypt_j0(const struct mbgcmi_arch *a, const struct mbgcmi_key *k,
                         const uint8_t j0[16], const uint8_t *aad, size_t aad_len,
                         const uint8_t *in, size_t len, uint8_t *out, int decrypt,
                         uint8_t tag[16])
{
    const struct mbgcmi_gcm_ops *ops = a->ops;
    if (ops->whole != NULL) {
        ops->whole(k, j0, aad, aad_len, in, len, out, tag, decrypt);
        return;
    }
    uint64_t s[2] = {0, 0};
    uint8_t ek0[16], ctr[16], lb[16];
    ops->block(k, j0, ek0);
    memcpy(ctr, j0, 16);
    mbgcmi_inc32(ctr);
    mbgcmi_len_block(aad_len, len, lb);
    mbgcmi_gcm_resume(a, k, ek0, s, ctr, aad, aad_len, in, out, len, lb, decrypt, tag);
    mbgcmi_wipe(s, sizeof s);
    mbgcmi_wipe(ek0, sizeof ek0);
    mbgcmi_wipe(ctr, sizeof ctr);
}

int mbgcmi_gcm_message(const struct mbgcmi_arch *a, const struct mbgcmi_key *k,
                       const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                       const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag,
                       size_t tag_len, int decrypt)
{
    const struct mbgcmi_gcm_ops *ops = a->ops;
    if (iv_len == 12 && ops->whole12 != NULL) { /* one call does it all, tag included */
        int fail = ops->whole12(k, iv, aad, aad_len, in, len, out, tag,
                                tag_len | (size_t)(decrypt ? 1u << 8 : 0));
        MBGCMI_DECLASSIFY(&fail, sizeof fail); /* the authentication outcome is public */
        return fail != 0;
    }
    uint8_t j0[16], t[16], expect[16];
    if (decrypt) {
        memcpy(expect, tag, tag_len); /* before |out| is written: the tag may live inside it */
    }
    mbgcmi_gcm_j0(a, k, iv, iv_len, j0);
    mbgcmi_gcm_crypt_j0(a, k, j0, aad, aad_len, in, len, out, decrypt, t);
    int fail = 0;
    if (decrypt) {
        fail = !mbgcmi_ct_equal(t, expect, tag_len);
        mbgcmi_wipe(expect, sizeof expect);
    } else {
        memcpy(tag, t, tag_len);
    }
    mbgcmi_wipe(t, sizeof t);
    mbgcmi_wipe(j0, sizeof j0);
    if (a->portable) {
        mbgcmi_burn_stack(); /* compiler spills of the portable kernels */
    }
    return fail;
}
