/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.h — helpers every layer uses: a wipe the compiler keeps, a constant-time compare, the
 * overlap test for buffers, byte order, and the library's one allocator (core/util.c).
 */
#ifndef MBGCM_CORE_UTIL_H
#define MBGCM_CORE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero |n| bytes at |p| with a store the compiler may not remove. */
void mbgcmi_wipe(void *p, size_t n);
/* Zero MBGCMI_BURN_STACK bytes of stack right below the caller's frame, where the functions it
   called had theirs: callers of a portable arch's kernels (struct mbgcmi_arch.portable) call it
   after a step, because the compiler may keep key stream or hash-key values in spill slots
   that no named buffer covers (found by test/test_zeroize.c's stack scan; the asm kernels
   clear their own frames). */
#define MBGCMI_BURN_STACK 4096
void mbgcmi_burn_stack(void);
/* Constant-time equality of |n| bytes: 1 if equal, 0 otherwise; no data-dependent branch.
   The result is public (declassified). */
int mbgcmi_ct_equal(const void *a, const void *b, size_t n);
/* 1 if [a, a+alen) and [b, b+blen) share a byte; both non-empty. Written with
   subtractions so that no end pointer can wrap. */
static inline int mbgcmi_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa <= pb ? pb - pa < alen : pa - pb < blen;
}

/* Every allocation the library makes goes through these: 64-byte aligned; mbgcmi_free takes
   the size, and callers wipe secrets before freeing. Tests install hooks to inject allocation
   failures and to check that memory is wiped before it is released. */
void *mbgcmi_alloc(size_t size);
void mbgcmi_free(void *p, size_t size);
typedef void *(*mbgcmi_alloc_fn)(size_t size);
typedef void (*mbgcmi_free_fn)(void *p, size_t size);
/* Test hook: NULL restores the defaults (aligned_alloc(64, ...) / free). */
void mbgcmi_set_alloc_hooks(mbgcmi_alloc_fn a, mbgcmi_free_fn f);

/* Byte order: little-endian targets only (checked in CMake). */
static inline uint64_t mbgcmi_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}
static inline void mbgcmi_store_be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}
static inline uint64_t mbgcmi_load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline void mbgcmi_store_le64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}
/* GCM's inc32: add 1 to the last 4 bytes (big-endian) mod 2^32; the first 12 never change. */
static inline void mbgcmi_inc32(uint8_t ctr[16])
{
    uint32_t c;
    memcpy(&c, ctr + 12, 4);
    c = __builtin_bswap32(__builtin_bswap32(c) + 1u);
    memcpy(ctr + 12, &c, 4);
}

/* Zero xmm0-15 (x86-64; nothing elsewhere): for a C step that handles a secret GCC may keep in
   a vector register, such as the stream's tag step with E_K(J0) (test_zeroize's register
   scan). The asm kernels clear the registers they use themselves. */
static inline void mbgcmi_clear_xmm(void)
{
#if defined(__x86_64__)
#define MBGCMI_PX_(n) "pxor %%xmm" #n ", %%xmm" #n "\n\t"
    __asm__ volatile(MBGCMI_PX_(0) MBGCMI_PX_(1) MBGCMI_PX_(2) MBGCMI_PX_(3) MBGCMI_PX_(4)
                     MBGCMI_PX_(5) MBGCMI_PX_(6) MBGCMI_PX_(7) MBGCMI_PX_(8) MBGCMI_PX_(9)
                     MBGCMI_PX_(10) MBGCMI_PX_(11) MBGCMI_PX_(12) MBGCMI_PX_(13)
                     MBGCMI_PX_(14) MBGCMI_PX_(15)
                     :
                     :
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#undef MBGCMI_PX_
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_CORE_UTIL_H */
