/*
 * util.c — small helpers every layer uses: a wipe the compiler keeps, a constant-time
 * compare, the overlap test for in/out buffers, and the GCM length block.
 */
#include "mbgcm_internal.h"

void mbgcmi_wipe(void *p, size_t n)
{
    if (n == 0) {
        return;
    }
    memset(p, 0, n);
    /* The empty asm takes p as input and clobbers memory: the compiler must assume the
       zeros are read, so the memset cannot be removed as a dead store. */
    __asm__ __volatile__("" : : "r"(p) : "memory");
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
    return (int)(((d - 1u) >> 8) & 1u);
}

int mbgcmi_len_block(uint64_t aad_len, uint64_t text_len, uint8_t blk[16])
{
    if (aad_len > MBGCMI_MAX_AAD_LEN || text_len > MBGCMI_MAX_TEXT_LEN) {
        return -1;
    }
    /* aad_len < 2^61 so aad_len * 8 < 2^64: no overflow */
    mbgcmi_store_be64(blk, aad_len << 3);
    mbgcmi_store_be64(blk + 8, text_len << 3);
    return 0;
}
