/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch_aesni.c — the `aesni` arch: AES-NI + PCLMULQDQ on xmm (SSSE3, SSE4.1). Every job runs
 * single-stream through the by-8 kernel (no lane kernel: see docs/design.md, "What each arch
 * runs").
 */
#include "aesni.h"
#include "arch.h"
#include "cpu.h"

void mbgcmi_aesni_key_expand(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len)
{
    mbgcmi_x86_key_expand(k, raw, raw_len, 0, mbgcmi_aesni_hpowers);
}

static const struct mbgcmi_gcm_ops ops = {
    .block = mbgcmi_aesni_block,
    .ghash = mbgcmi_aesni_ghash,
    .ctr_enc = mbgcmi_aesni_ctr_enc,
    .ctr_dec = mbgcmi_aesni_ctr_dec,
    .whole = mbgcmi_aesni_gcm,
};

const struct mbgcmi_arch mbgcmi_arch_aesni = {
    .name = "aesni",
    .requires = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL,
    .portable = 0,
    .key_expand = mbgcmi_aesni_key_expand,
    .ops = &ops,
    .lanes = NULL,
    .short_jobs = NULL,
    .single_min_len = 0,
};
