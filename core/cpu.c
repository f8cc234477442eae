/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cpu.c — what the CPU and the OS support, probed once.
 *
 * CPUID tells what the CPU implements; XGETBV tells which register state the OS saves on a
 * context switch. A vector ISA is usable only when both agree:
 *   AVX family:  CPUID.1:ECX.OSXSAVE[27] = 1, CPUID.1:ECX.AVX[28] = 1, (XCR0 & 0x06) == 0x06
 *   AVX-512:     the above and (XCR0 & 0xE6) == 0xE6 (opmask, ZMM_Hi256, Hi16_ZMM state)
 * Leaf 7 subleaf 0: EBX.BMI1[3], EBX.AVX2[5], EBX.BMI2[8], EBX.AVX512F[16], EBX.AVX512BW[30],
 * EBX.AVX512VL[31], ECX.VAES[9], ECX.VPCLMULQDQ[10]. Leaf 1 ECX: SSSE3[9], SSE4.1[19],
 * PCLMULQDQ[1], AES[25].
 *
 * The CPU's identity (vendor string of leaf 0; family and model of leaf 1 EAX) is probed once
 * too, for the arches that choose among variants by it (core/arch.c). So is the time-stamp
 * counter's rate, when leaf 0x80000007 says it is invariant: the managers' flush timeout
 * counts in its ticks (jobs/mgr.c), a third of what clock_gettime costs per read.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "cpu.h"
#if defined(MBGCM_HAVE_NASM)
#include "x86.h"
#endif

#if defined(MBGCM_HAVE_NASM)
static unsigned probe(void)
{
    uint32_t r[4];
    unsigned f = 0;

    mbgcmi_cpuid(0, 0, r);
    const uint32_t max_leaf = r[0];
    if (max_leaf < 1) {
        return 0;
    }
    mbgcmi_cpuid(1, 0, r);
    const uint32_t ecx1 = r[2];
    if (ecx1 & (1u << 9)) f |= MBGCMI_F_SSSE3;
    if (ecx1 & (1u << 19)) f |= MBGCMI_F_SSE41;
    if (ecx1 & (1u << 25)) f |= MBGCMI_F_AESNI;
    if (ecx1 & (1u << 1)) f |= MBGCMI_F_PCLMUL;

    uint64_t xcr0 = 0;
    if (ecx1 & (1u << 27)) { /* OSXSAVE: XGETBV is available */
        xcr0 = mbgcmi_xgetbv(0);
    }
    const int os_avx = (xcr0 & 0x6) == 0x6;
    const int os_avx512 = (xcr0 & 0xE6) == 0xE6;
    if (os_avx && (ecx1 & (1u << 28))) f |= MBGCMI_F_AVX;

    if (max_leaf >= 7) {
        mbgcmi_cpuid(7, 0, r);
        const uint32_t ebx7 = r[1], ecx7 = r[2];
        if (ebx7 & (1u << 3)) f |= MBGCMI_F_BMI1;
        if (ebx7 & (1u << 8)) f |= MBGCMI_F_BMI2;
        if (f & MBGCMI_F_AVX) {
            if (ebx7 & (1u << 5)) f |= MBGCMI_F_AVX2;
            if (ecx7 & (1u << 9)) f |= MBGCMI_F_VAES;
            if (ecx7 & (1u << 10)) f |= MBGCMI_F_VPCLMUL;
            if (os_avx512) {
                if (ebx7 & (1u << 16)) f |= MBGCMI_F_AVX512F;
                if (ebx7 & (1u << 30)) f |= MBGCMI_F_AVX512BW;
                if (ebx7 & (1u << 31)) f |= MBGCMI_F_AVX512VL;
            }
        }
    }
    return f;
}

/* CPUID.80000007H:EDX[8]: the time-stamp counter runs at a constant rate in every state */
static int probe_tsc_invariant(void)
{
    uint32_t r[4];
    mbgcmi_cpuid(0x80000000u, 0, r);
    if (r[0] < 0x80000007u) {
        return 0;
    }
    mbgcmi_cpuid(0x80000007u, 0, r);
    return (r[3] >> 8) & 1u;
}

/* Leaf 0's vendor words and leaf 1's EAX, or zeros */
static void probe_id(uint32_t w[4])
{
    uint32_t r[4];
    mbgcmi_cpuid(0, 0, r);
    w[0] = r[1]; /* EBX, EDX, ECX: the vendor string in that order */
    w[1] = r[3];
    w[2] = r[2];
    w[3] = 0;
    if (r[0] >= 1) {
        mbgcmi_cpuid(1, 0, r);
        w[3] = r[0];
    }
}
#else
static unsigned probe(void)
{
    return 0; /* portable build: only the generic arch exists */
}
static void probe_id(uint32_t w[4])
{
    w[0] = w[1] = w[2] = w[3] = 0;
}
static int probe_tsc_invariant(void)
{
    return 0;
}
#endif

/* Probed once; the value is a pure function of the machine, so a race between two first
   callers stores the same bits twice and is harmless (relaxed atomics keep it defined). */
static unsigned cached;      /* features | READY */
static unsigned mask = ~0u;  /* test hook */
#define READY (1u << 31)

unsigned mbgcmi_cpu_features(void)
{
    unsigned v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (!(v & READY)) {
        v = probe() | READY;
        __atomic_store_n(&cached, v, __ATOMIC_RELAXED);
    }
    return v & ~READY & __atomic_load_n(&mask, __ATOMIC_RELAXED);
}

void mbgcmi_cpu_features_mask(unsigned m)
{
    __atomic_store_n(&mask, m, __ATOMIC_RELAXED);
}

/* The identity as five words (vendor x3, leaf 1 EAX, READY), each stored atomically: concurrent
   first callers store the same values. */
static uint32_t id_words[5];

void mbgcmi_cpu_id(struct mbgcmi_cpu_id *out)
{
    uint32_t w[4];
    if (!(__atomic_load_n(&id_words[4], __ATOMIC_ACQUIRE) & READY)) {
        probe_id(w);
        for (int i = 0; i < 4; i++) {
            __atomic_store_n(&id_words[i], w[i], __ATOMIC_RELAXED);
        }
        __atomic_store_n(&id_words[4], READY, __ATOMIC_RELEASE);
    }
    for (int i = 0; i < 4; i++) {
        w[i] = __atomic_load_n(&id_words[i], __ATOMIC_RELAXED);
    }
    memcpy(out->vendor, w, 12);
    out->vendor[12] = '\0';
    const unsigned base_family = (w[3] >> 8) & 0xF, base_model = (w[3] >> 4) & 0xF;
    out->family = base_family + (base_family == 0xF ? (w[3] >> 20) & 0xFF : 0);
    out->model = base_model |
                 (base_family == 6 || base_family == 0xF ? ((w[3] >> 16) & 0xF) << 4 : 0);
}

uint64_t mbgcmi_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int mbgcmi_tsc_mono_pair(uint64_t *ns, uint64_t *ticks, uint64_t *err)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0, good = 0; i < 100 && good < 16; i++) {
        const uint64_t a = mbgcmi_mono_ns(), c = mbgcmi_tsc(), b = mbgcmi_mono_ns();
        if (b - a <= 2000u) {
            good++;
            if (b - a < best) {
                best = b - a;
                *ns = a + (b - a) / 2;
                *ticks = c;
                *err = (b - a + 1) / 2;
            }
        }
    }
    return best != UINT64_MAX;
}

/* NTP slews CLOCK_MONOTONIC's rate by at most 0.05% either way: the margin on the calibrated
   rate that covers a change of slew between the calibration and a timeout. */
#define SLEW_MARGIN 1.001

/* Ticks per second, or 1 when the counter is unusable (0: not measured yet). Like the feature
   bits, two first callers may both measure; either result is good. */
static uint64_t tsc_hz_cached;

uint64_t mbgcmi_tsc_hz(void)
{
    uint64_t hz = __atomic_load_n(&tsc_hz_cached, __ATOMIC_RELAXED);
    if (hz == 0) {
        hz = 1;
        if (probe_tsc_invariant()) {
            /* both clocks at two instants at least 200 us apart; the rate's upper bound
               divides the ticks by the shortest interval the readings allow */
            uint64_t t0, c0, e0, t1 = 0, c1 = 0, e1 = 0;
            int ok = mbgcmi_tsc_mono_pair(&t0, &c0, &e0);
            while (ok && (ok = mbgcmi_tsc_mono_pair(&t1, &c1, &e1)) && t1 - t0 < 200000u) {
            }
            if (ok && c1 > c0) {
                const double span = (double)(t1 - t0 - e0 - e1);
                hz = (uint64_t)((double)(c1 - c0) * 1e9 * SLEW_MARGIN / span) + 1;
            }
            if (hz < 1000000u) { /* under 1 MHz: not a counter to time microseconds with */
                hz = 1;
            }
        }
        __atomic_store_n(&tsc_hz_cached, hz, __ATOMIC_RELAXED);
    }
    return hz == 1 ? 0 : hz;
}
