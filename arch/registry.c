/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * registry.c — the one list of arches, slowest to fastest (generic first). Names, "auto",
 * support and the one-shot choice are all derived from it (core/arch.c). A portable build
 * (MBGCM_USE_NASM=OFF) lists only generic. Adding an arch: docs/design.md, "Adding an arch".
 */
#include "arch.h"

extern const struct mbgcmi_arch mbgcmi_arch_generic;
#if defined(MBGCM_HAVE_NASM)
extern const struct mbgcmi_arch mbgcmi_arch_aesni;
extern const struct mbgcmi_arch mbgcmi_arch_avx2;
extern const struct mbgcmi_arch mbgcmi_arch_avx512;
#endif

const struct mbgcmi_arch *const mbgcmi_arches[] = {
    &mbgcmi_arch_generic,
#if defined(MBGCM_HAVE_NASM)
    &mbgcmi_arch_aesni,
    &mbgcmi_arch_avx2,
    &mbgcmi_arch_avx512,
#endif
};
const unsigned mbgcmi_narches = sizeof mbgcmi_arches / sizeof mbgcmi_arches[0];
_Static_assert(sizeof mbgcmi_arches / sizeof mbgcmi_arches[0] <= MBGCMI_MAX_ARCHES,
               "raise MBGCMI_MAX_ARCHES");
