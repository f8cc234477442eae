/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem.c — every allocation the Cobblestone layer makes: 64-byte aligned, through hooks the
 * tests replace (allocation failures, wipe-before-free checks).
 */
#include <stdlib.h>

#include "cobble_internal.h"

static void *default_alloc(size_t size)
{
    return aligned_alloc(64, (size + 63) & ~(size_t)63);
}

static void default_free(void *p, size_t size)
{
    (void)size;
    free(p);
}

static void *(*alloc_hook)(size_t) = default_alloc;
static void (*free_hook)(void *, size_t) = default_free;

void mbgcmi_cob_set_alloc_hooks(void *(*a)(size_t size), void (*f)(void *p, size_t size))
{
    alloc_hook = a ? a : default_alloc;
    free_hook = f ? f : default_free;
}

void *mbgcmi_cob_alloc(size_t size)
{
    return alloc_hook(size);
}

void mbgcmi_cob_free(void *p, size_t size)
{
    if (p != NULL) {
        free_hook(p, size);
    }
}
