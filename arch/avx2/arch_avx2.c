/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch_avx2.c — the `avx2` arch: VAES and VPCLMULQDQ on ymm with AVX2 (and BMI1/2), with OS
 * AVX state. Every job runs single-stream through the by-16 kernel (no lane kernel: see
 * docs/design.md, "What each arch runs"); one block and the key setup use AES-NI.
 */
#include "aesni.h"
#include "arch.h"
#include "avx2.h"
#include "cpu.h"

#include <string.h>

/* The op table of a variant whose one-shot call with a 12-byte IV is |w12| */
#define AVX2_OPS(w12)                                                                           \
    {                                                                                           \
        .block = mbgcmi_avx_block, .ghash = mbgcmi_avx2_ghash, .ctr_enc = mbgcmi_avx2_ctr_enc,  \
        .ctr_dec = mbgcmi_avx2_ctr_dec, .whole = mbgcmi_avx2_gcm, .whole12 = w12,               \
    }
static const struct mbgcmi_gcm_ops ops = AVX2_OPS(mbgcmi_avx2_gcm12);

/* The short1k variant: one-shot messages with a 12-byte IV and at most 16 bytes of AAD take the
   short path (unstitched passes of 16 blocks, each pass's GHASH left to the out-of-order core to
   run under the next pass's rounds) up to 1024 bytes instead of 768. On the Zen 4 guest forced
   to this arch it took 3-11% off 784-1024 bytes (docs/perf.md, "The avx2 arch on Zen 4"); on
   the Zen 5 guest the same limit was 9% slower at 1024 bytes. */
static const struct mbgcmi_gcm_ops ops_short1k = AVX2_OPS(mbgcmi_avx2_gcm12_1k);

/* short1k on AMD family 0x19 (Zen 3, whose AVX2 code this arch is for, and Zen 4: the same
   family's vector unit, measured), the default elsewhere (docs/design.md, "Variants") */
static unsigned choose(const struct mbgcmi_cpu_id *cpu, unsigned features)
{
    (void)features;
    return strcmp(cpu->vendor, "AuthenticAMD") == 0 && cpu->family == 0x19;
}

extern const struct mbgcmi_arch mbgcmi_arch_avx2, mbgcmi_arch_avx2_short1k;
static const struct mbgcmi_arch *const variants[] = {&mbgcmi_arch_avx2,
                                                     &mbgcmi_arch_avx2_short1k};

/* What both variants' descriptors share: all but the variant's name and op table */
#define AVX2_COMMON                                                                             \
    .name = "avx2",                                                                             \
    .requires = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL |              \
                MBGCMI_F_AVX | MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL |                \
                MBGCMI_F_BMI1 | MBGCMI_F_BMI2,                                                  \
    .portable = 0, .key_expand = mbgcmi_avx2_key_expand, .lanes = NULL, .short_jobs = NULL,     \
    .single_min_len = 0

const struct mbgcmi_arch mbgcmi_arch_avx2 = {
    .variant = "by16",
    .variants = variants,
    .nvariants = 2,
    .choose = choose,
    AVX2_COMMON,
    .ops = &ops,
};

const struct mbgcmi_arch mbgcmi_arch_avx2_short1k = {
    .variant = "short1k",
    AVX2_COMMON,
    .ops = &ops_short1k,
};
