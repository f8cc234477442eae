/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpu.h — what the CPU and the OS support (core/cpu.c), as feature bits the arch descriptors
 * require (struct mbgcmi_arch.requires).
 */
#ifndef MBGCM_CORE_CPU_H
#define MBGCM_CORE_CPU_H

#ifdef __cplusplus
extern "C" {
#endif

/* Feature bits, each set only when both the CPU reports it and (for AVX state) the OS
   enabled the register state in XCR0. */
#define MBGCMI_F_SSSE3      (1u << 0)
#define MBGCMI_F_SSE41      (1u << 1)
#define MBGCMI_F_AESNI      (1u << 2)
#define MBGCMI_F_PCLMUL     (1u << 3)
#define MBGCMI_F_AVX        (1u << 4)  /* CPUID.1:ECX.AVX and XCR0 & 0x6 == 0x6 */
#define MBGCMI_F_AVX2       (1u << 5)
#define MBGCMI_F_VAES       (1u << 6)
#define MBGCMI_F_VPCLMUL    (1u << 7)
#define MBGCMI_F_AVX512F    (1u << 8)  /* and XCR0 & 0xE6 == 0xE6 */
#define MBGCMI_F_AVX512BW   (1u << 9)
#define MBGCMI_F_AVX512VL   (1u << 10)
#define MBGCMI_F_BMI2       (1u << 11)
#define MBGCMI_F_BMI1       (1u << 12)

/* What CPUID says the CPU is, for an arch's choice among its variants (core/arch.h). The
   model number is kept for the record only: hypervisors report what they like there. */
struct mbgcmi_cpu_id {
    char vendor[13];     /* CPUID.0 EBX, EDX, ECX: "GenuineIntel", "AuthenticAMD", ...; "" when
                            there is no CPUID (portable build) */
    unsigned family;     /* CPUID.1:EAX base family, plus the extended family when it is 0xF */
    unsigned model;      /* base model, with the extended model for families 6 and 0xF */
};

/* Features the running CPU and OS support (probed once; masked by the test hook). */
unsigned mbgcmi_cpu_features(void);
/* Test hook: pretend the CPU lacks every feature not in |mask| (call before anything else). */
void mbgcmi_cpu_features_mask(unsigned mask);
/* The running CPU's vendor, family and model (probed once). */
void mbgcmi_cpu_id(struct mbgcmi_cpu_id *out);
/* Ticks per second of the time-stamp counter when it is invariant (CPUID.80000007H:EDX[8]:
   constant rate, running in every power state) and can stand in for the monotonic clock,
   else 0 (also in the portable build). Calibrated against CLOCK_MONOTONIC on the first call
   (a spin of about 200 us), then cached. The value is an upper bound of the rate measured
   against CLOCK_MONOTONIC: the calibration's own reading error is added, and 0.1% for the
   clock's frequency slewing (NTP adjusts it by at most 0.05% either way), so that a count of
   t * hz / 1e9 ticks never spans less than t ns of CLOCK_MONOTONIC; at most about 0.2% more.
   mbgcmi_tsc() reads the counter. */
uint64_t mbgcmi_tsc_hz(void);
static inline uint64_t mbgcmi_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return 0; /* never called: mbgcmi_tsc_hz() is 0 */
#endif
}
/* CLOCK_MONOTONIC in ns. */
uint64_t mbgcmi_mono_ns(void);
/* The two clocks at one instant: *ticks a counter read between two CLOCK_MONOTONIC reads, *ns
   their midpoint and *err half their distance (the counter was read within *err ns of *ns).
   The narrowest of 16 tries where the reads lie at most 2 us apart (a preempted try is wider).
   Returns 0 when no try came out that narrow (100 tries), else 1. */
int mbgcmi_tsc_mono_pair(uint64_t *ns, uint64_t *ticks, uint64_t *err);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_CORE_CPU_H */
