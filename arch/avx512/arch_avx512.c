/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch_avx512.c — the `avx512` arch: VAES and VPCLMULQDQ on zmm with AVX512F/BW/VL (and
 * BMI1/2), with OS AVX-512 state. Jobs up to 128 bytes go to the short-job kernel (or the
 * four-lane kernel when the short kernel cannot take them); longer jobs run single-stream
 * through the by-16 kernel, a burst's 12-byte-IV jobs pipelined in one call. The thresholds
 * were measured: docs/design.md, "Hybrid scheduling".
 *
 * Variants (docs/design.md, "Variants"; measurements in docs/perf.md): by16 (this descriptor,
 * the default) and by32, the same arch with the single-message kernels of gcm_by32_avx512.asm,
 * for cores with two 512-bit AES units: AMD family 0x1A (Zen 5) and later.
 */
#include "aesni.h"
#include "arch.h"
#include "avx512.h"
#include "cpu.h"

#include <string.h>

static const struct mbgcmi_gcm_ops ops = {
    .block = mbgcmi_aesni_block,
    .ghash = mbgcmi_avx512_ghash,
    .ctr_enc = mbgcmi_avx512_ctr_enc,
    .ctr_dec = mbgcmi_avx512_ctr_dec,
    .whole = mbgcmi_avx512_gcm,
    .whole12 = mbgcmi_avx512_gcm12,
    .jobs12 = mbgcmi_avx512_gcm12_jobs,
};

static const struct mbgcmi_gcm_ops ops_by32 = {
    .block = mbgcmi_aesni_block,
    .ghash = mbgcmi_avx512_ghash,
    .ctr_enc = mbgcmi_avx512_by32_ctr_enc,
    .ctr_dec = mbgcmi_avx512_by32_ctr_dec,
    .whole = mbgcmi_avx512_by32_gcm,
    .whole12 = mbgcmi_avx512_by32_gcm12,
    .jobs12 = mbgcmi_avx512_by32_jobs12,
};

/* by32 on AMD family 0x1A and later (two VAESENC zmm per cycle at latency 4: eight AES chains
   needed); by16 elsewhere: Intel cores (one VAESENC zmm per cycle) and AMD family 0x19 (Zen 4,
   512-bit operations in two 256-bit halves) */
static unsigned choose(const struct mbgcmi_cpu_id *cpu, unsigned features)
{
    (void)features;
    return strcmp(cpu->vendor, "AuthenticAMD") == 0 && cpu->family >= 0x1A ? 1 : 0;
}

extern const struct mbgcmi_arch mbgcmi_arch_avx512, mbgcmi_arch_avx512_by32;
static const struct mbgcmi_arch *const variants[] = {&mbgcmi_arch_avx512,
                                                     &mbgcmi_arch_avx512_by32};

const struct mbgcmi_arch mbgcmi_arch_avx512 = {
    .name = "avx512",
    .variant = "by16",
    .variants = variants,
    .nvariants = 2,
    .choose = choose,
    .requires = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL |
                MBGCMI_F_AVX | MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL |
                MBGCMI_F_BMI1 | MBGCMI_F_BMI2 | MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW |
                MBGCMI_F_AVX512VL,
    .portable = 0,
    .key_expand = mbgcmi_avx512_key_expand,
    .ops = &ops,
    .lanes = mbgcmi_avx512_lanes,
    .short_jobs = mbgcmi_avx512_short_jobs,
    .single_min_len = 129, /* for jobs the short kernel cannot take */
};

/* The by32 variant: the fields above but the name of the variant and the op table (the
   registry lists only mbgcmi_arch_avx512; test_dispatch checks that the two agree) */
const struct mbgcmi_arch mbgcmi_arch_avx512_by32 = {
    .name = "avx512",
    .variant = "by32",
    .requires = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL |
                MBGCMI_F_AVX | MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL |
                MBGCMI_F_BMI1 | MBGCMI_F_BMI2 | MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW |
                MBGCMI_F_AVX512VL,
    .portable = 0,
    .key_expand = mbgcmi_avx512_key_expand,
    .ops = &ops_by32,
    .lanes = mbgcmi_avx512_lanes,
    .short_jobs = mbgcmi_avx512_short_jobs,
    .single_min_len = 129, /* for jobs the short kernel cannot take */
};
