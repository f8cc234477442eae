/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * x86.h — arch/x86/cpu_x86.asm: CPUID and XGETBV for core/cpu.c.
 */
#ifndef MBGCM_ARCH_X86_H
#define MBGCM_ARCH_X86_H

#include <stdint.h>

/* CPUID leaf/subleaf into out[4] = {eax, ebx, ecx, edx}. */
void mbgcmi_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);
/* XGETBV(index); only call when CPUID.1:ECX.OSXSAVE is set. */
uint64_t mbgcmi_xgetbv(uint32_t index);

#endif /* MBGCM_ARCH_X86_H */
