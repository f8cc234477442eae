/*
 * arch_avx512.c — the `avx512` arch: VAES and VPCLMULQDQ on zmm with AVX512F/BW/VL (and
 * BMI1/2), with OS AVX-512 state. Jobs up to 128 bytes go to the four-job short kernel (or the
 * four-lane kernel when the short kernel cannot take them); longer jobs run single-stream
 * through the by-16 kernel, a burst's 12-byte-IV jobs pipelined in one call. The thresholds
 * were measured: docs/design.md, "Hybrid scheduling".
 */
#include "aesni.h"
#include "arch.h"
#include "avx512.h"
#include "cpu.h"

static const struct mbgcmi_gcm_ops ops = {
    .block = mbgcmi_aesni_block,
    .ghash = mbgcmi_avx512_ghash,
    .ctr_enc = mbgcmi_avx512_ctr_enc,
    .ctr_dec = mbgcmi_avx512_ctr_dec,
    .whole = mbgcmi_avx512_gcm,
    .whole12 = mbgcmi_avx512_gcm12,
    .jobs12 = mbgcmi_avx512_gcm12_jobs,
};

const struct mbgcmi_arch mbgcmi_arch_avx512 = {
    .name = "avx512",
    .requires = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL |
                MBGCMI_F_AVX | MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL |
                MBGCMI_F_BMI1 | MBGCMI_F_BMI2 | MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW |
                MBGCMI_F_AVX512VL,
    .portable = 0,
    .key_expand = mbgcmi_aesni_key_expand,
    .ops = &ops,
    .lanes = mbgcmi_avx512_lanes,
    .short_kernel = mbgcmi_avx512_short,
    .single_min_len = 16 * MBGCMI_SHORT_MAX_BLOCKS + 1,
};
