/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch_avx2.c — the `avx2` arch: VAES and VPCLMULQDQ on ymm with AVX2 (and BMI1/2), with OS
 * AVX state. Every job runs single-stream through the by-16 kernel (no lane kernel: see
 * docs/design.md, "What each arch runs"); one block and the key setup use AES-NI.
 */
#include "aesni.h"
#include "arch.h"
#include "avx2.h"

static const struct mbgcmi_gcm_ops ops = {
    .block = mbgcmi_avx_block,
    .ghash = mbgcmi_avx2_ghash,
    .ctr_enc = mbgcmi_avx2_ctr_enc,
    .ctr_dec = mbgcmi_avx2_ctr_dec,
    .whole = mbgcmi_avx2_gcm,
    .whole12 = mbgcmi_avx2_gcm12,
};

/* One tuning for every CPU: whole12's short path runs up to 1024 bytes, where it beat the
   groups' loop on the Intel guest and on a Zen 4 guest (docs/design.md, "Variants"). */
const struct mbgcmi_arch mbgcmi_arch_avx2 = {
    .name = "avx2",
    .variant = NULL,
    .requires = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL | MBGCMI_F_AVX |
                MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL | MBGCMI_F_BMI1 | MBGCMI_F_BMI2,
    .portable = 0,
    .key_expand = mbgcmi_avx2_key_expand,
    .ops = &ops,
    .lanes = NULL,
    .short_jobs = NULL,
    .single_min_len = 0,
};
