/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_common.h — helpers shared by the libFuzzer harnesses in test/fuzz (issue 9): a reader
 * over the fuzzer's input (every field comes from it, so a run is a pure function of the
 * input and libFuzzer's -seed makes CI runs reproducible), a deterministic byte expander for
 * bulk data (a few input bytes seed long plaintexts), and a failure macro that aborts (libFuzzer
 * reports the input that crashed).
 */
#ifndef MBGCM_FUZZ_COMMON_H
#define MBGCM_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fz {
    const uint8_t *p;
    size_t n;
};

static inline uint8_t fz_u8(struct fz *f)
{
    if (f->n == 0) {
        return 0;
    }
    f->n--;
    return *f->p++;
}

static inline uint16_t fz_u16(struct fz *f)
{
    const uint16_t lo = fz_u8(f);
    return (uint16_t)(lo | (uint16_t)fz_u8(f) << 8);
}

static inline uint32_t fz_u32(struct fz *f)
{
    const uint32_t lo = fz_u16(f);
    return lo | (uint32_t)fz_u16(f) << 16;
}

/* |n| bytes: from the input while it lasts, then zeros */
static inline void fz_bytes(struct fz *f, void *out, size_t n)
{
    const size_t k = n < f->n ? n : f->n;
    memcpy(out, f->p, k);
    memset((uint8_t *)out + k, 0, n - k);
    f->p += k;
    f->n -= k;
}

/* value in [0, n) (n > 0) */
static inline unsigned fz_below(struct fz *f, unsigned n)
{
    return n ? (unsigned)(fz_u16(f) % n) : 0;
}

/* Deterministic filler: splitmix64 stream from a seed. */
static inline void fz_expand(uint64_t seed, void *out, size_t n)
{
    uint8_t *o = out;
    uint64_t x = seed;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t z = (x += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        z ^= z >> 31;
        const size_t k = n - i < 8 ? n - i : 8;
        memcpy(o + i, &z, k);
    }
}

#define FZ_CHECK(cond, ...)                                                                   \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            fprintf(stderr, "FUZZ CHECK FAILED: %s: ", #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                                     \
            fprintf(stderr, "\n");                                                            \
            abort();                                                                          \
        }                                                                                     \
    } while (0)

#endif
