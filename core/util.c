/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * util.c — small helpers every layer uses: a wipe the compiler keeps, a stack burn, a
 * constant-time compare, and the library's one allocator (with its test hooks).
 */
#include <stdlib.h>

#include "ct.h"
#include "util.h"

void mbgcmi_wipe(void *p, size_t n)
{
    if (n == 0) {
        return;
    }
    if (n <= 64 && (n & 7) == 0) {
        /* small wipes (tags, counter blocks, hash states) with plain 8-byte stores: the
           C library's memset may use a masked vector store for these sizes, and a later
           load that overlaps a masked store cannot be forwarded from it (a stall each time
           the same stack slot is reused by the next call) */
        static const uint8_t z[64];
        uint8_t *b = (uint8_t *)p;
        switch (n / 8) { /* fixed-size copies: plain stores, never a string instruction */
        case 8: memcpy(b + 56, z, 8); /* fall through */
        case 7: memcpy(b + 48, z, 8); /* fall through */
        case 6: memcpy(b + 40, z, 8); /* fall through */
        case 5: memcpy(b + 32, z, 8); /* fall through */
        case 4: memcpy(b + 24, z, 8); /* fall through */
        case 3: memcpy(b + 16, z, 8); /* fall through */
        case 2: memcpy(b + 8, z, 8); /* fall through */
        default: memcpy(b, z, 8); break;
        }
        __asm__ __volatile__("" : : "r"(p) : "memory"); /* the stores are observable */
        return;
    }
    memset(p, 0, n);
    /* The empty asm takes p as input and clobbers memory: the compiler must assume the
       zeros are read, so the memset cannot be removed as a dead store. */
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

__attribute__((noinline)) void mbgcmi_burn_stack(void)
{
    uint8_t area[MBGCMI_BURN_STACK];
    mbgcmi_wipe(area, sizeof area); /* the frame of this call covers the callees' old frames */
}

int mbgcmi_ct_equal(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = (const volatile uint8_t *)a;
    const volatile uint8_t *y = (const volatile uint8_t *)b;
    uint32_t d = 0;
    for (size_t i = 0; i < n; i++) {
        d |= (uint32_t)(x[i] ^ y[i]);
    }
    /* d in 0..255: (d - 1) >> 8 is 0xFFFFFF.. only for d == 0; take bit 0 */
    int eq = (int)(((d - 1u) >> 8) & 1u);
    MBGCMI_DECLASSIFY(&eq, sizeof eq); /* equal or not is the public outcome */
    return eq;
}

static void *default_alloc(size_t size)
{
    return aligned_alloc(64, (size + 63) & ~(size_t)63);
}

static void default_free(void *p, size_t size)
{
    (void)size;
    free(p);
}

static mbgcmi_alloc_fn alloc_hook = default_alloc;
static mbgcmi_free_fn free_hook = default_free;

void mbgcmi_set_alloc_hooks(mbgcmi_alloc_fn a, mbgcmi_free_fn f)
{
    alloc_hook = a ? a : default_alloc;
    free_hook = f ? f : default_free;
}

void *mbgcmi_alloc(size_t size)
{
    return alloc_hook(size);
}

void mbgcmi_free(void *p, size_t size)
{
    if (p != NULL) {
        free_hook(p, size);
    }
}
