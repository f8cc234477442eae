/*
 * dispatch.c — arch names, what each arch needs, and the one-shot API's choice.
 *
 * Arches, from slowest to fastest:
 *   generic  portable constant-time C (always available)
 *   aesni    AES-NI + PCLMULQDQ (+ SSSE3, SSE4.1), xmm
 *   avx2     the above + AVX, AVX2, VAES, VPCLMULQDQ, BMI1, BMI2 (ymm), with OS AVX state
 *   avx512   the above + AVX512F/BW/VL with OS AVX-512 state (zmm, opmasks)
 * The one-shot API reads MBGCM_ARCH once; managers take the arch from their config.
 */
#include <stdlib.h>

#include "mbgcm_internal.h"

static const char *const names[MBGCMI_ARCH_COUNT] = {"generic", "aesni", "avx2", "avx512"};

unsigned mbgcmi_arch_requires(int arch)
{
    const unsigned aesni = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL;
    const unsigned avx2 = aesni | MBGCMI_F_AVX | MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL |
                          MBGCMI_F_BMI1 | MBGCMI_F_BMI2;
    const unsigned avx512 = avx2 | MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW | MBGCMI_F_AVX512VL;
    switch (arch) {
    case MBGCMI_ARCH_GENERIC: return 0;
    case MBGCMI_ARCH_AESNI: return aesni;
    case MBGCMI_ARCH_AVX2: return avx2;
    case MBGCMI_ARCH_AVX512: return avx512;
    default: return ~0u;
    }
}

int mbgcmi_arch_supported(int arch)
{
    if (arch < 0 || arch >= MBGCMI_ARCH_COUNT) {
        return 0;
    }
#if !defined(MBGCM_HAVE_NASM)
    if (arch != MBGCMI_ARCH_GENERIC) {
        return 0; /* built without the assembler */
    }
#endif
    const unsigned need = mbgcmi_arch_requires(arch);
    return (mbgcmi_cpu_features() & need) == need;
}

int mbgcmi_arch_best(void)
{
    for (int a = MBGCMI_ARCH_COUNT - 1; a > MBGCMI_ARCH_GENERIC; a--) {
        if (mbgcmi_arch_supported(a)) {
            return a;
        }
    }
    return MBGCMI_ARCH_GENERIC;
}

int mbgcmi_arch_parse(const char *name)
{
    if (name == NULL || strcmp(name, "auto") == 0) {
        return mbgcmi_arch_best();
    }
    for (int a = 0; a < MBGCMI_ARCH_COUNT; a++) {
        if (strcmp(name, names[a]) == 0) {
            return a;
        }
    }
    return MBGCMI_ARCH_NONE;
}

const char *mbgcmi_arch_name(int arch)
{
    return (arch >= 0 && arch < MBGCMI_ARCH_COUNT) ? names[arch] : "none";
}

/* One-shot arch: -2 = not chosen yet. Chosen from the environment once; concurrent first
   calls compute the same value, so relaxed atomics suffice. */
static int oneshot = -2;

int mbgcmi_oneshot_arch(void)
{
    int a = __atomic_load_n(&oneshot, __ATOMIC_RELAXED);
    if (a == -2) {
        const char *env = getenv("MBGCM_ARCH");
        a = mbgcmi_arch_parse(env != NULL && env[0] != '\0' ? env : NULL); /* set but empty: unset */
        if (a != MBGCMI_ARCH_NONE && !mbgcmi_arch_supported(a)) {
            a = MBGCMI_ARCH_NONE;
        }
        __atomic_store_n(&oneshot, a, __ATOMIC_RELAXED);
    }
    return a;
}

void mbgcmi_set_oneshot_arch(int arch)
{
    __atomic_store_n(&oneshot, arch, __ATOMIC_RELAXED);
}
