/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch.c — choosing an arch from the registry (arch/registry.c): support, the best one,
 * names, and the one-shot API's choice. No arch is named here: every answer comes from the
 * descriptors.
 *
 * The one-shot API reads MBGCM_ARCH once; managers take the arch from their config.
 *
 * Variants: an arch with variants is looked up as the variant chosen for it, once per process:
 * MBGCM_<ARCH>_VARIANT (the arch's name in capitals) when set, else its choose() for this
 * CPU; the test hook mbgcmi_arch_set_variant overrides both.
 */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cpu.h"

/* Per registry slot: 0 not chosen yet, 1 + the variant's index, or BAD (the environment names
   a variant the arch lacks); forced[]: the test hook's 1 + index, or 0. Relaxed atomics:
   concurrent first callers compute the same value. */
#define BAD 255
static unsigned char chosen[MBGCMI_MAX_ARCHES];
static unsigned char forced[MBGCMI_MAX_ARCHES];

static int variant_index(const struct mbgcmi_arch *base, const char *name)
{
    for (unsigned v = 0; v < base->nvariants; v++) {
        if (strcmp(name, base->variants[v]->variant) == 0) {
            return (int)v;
        }
    }
    return -1;
}

static unsigned choose(unsigned slot)
{
    const struct mbgcmi_arch *base = mbgcmi_arches[slot];
    char env[48] = "MBGCM_";
    size_t n = 6;
    for (const char *c = base->name; *c != '\0' && n < sizeof env - 9; c++) {
        env[n++] = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
    }
    memcpy(env + n, "_VARIANT", 9);
    const char *v = getenv(env);
    if (v != NULL && v[0] != '\0' && strcmp(v, "auto") != 0) {
        const int i = variant_index(base, v);
        return i >= 0 ? (unsigned)i + 1 : BAD;
    }
    struct mbgcmi_cpu_id id;
    mbgcmi_cpu_id(&id);
    const unsigned i = base->choose != NULL ? base->choose(&id, mbgcmi_cpu_features()) : 0;
    return (i < base->nvariants ? i : 0) + 1;
}

/* Slot |slot|'s variant (1 + index) or BAD */
static unsigned slot_choice(unsigned slot)
{
    unsigned c = __atomic_load_n(&forced[slot], __ATOMIC_RELAXED);
    if (c != 0) {
        return c;
    }
    c = __atomic_load_n(&chosen[slot], __ATOMIC_RELAXED);
    if (c == 0) {
        c = choose(slot);
        __atomic_store_n(&chosen[slot], (unsigned char)c, __ATOMIC_RELAXED);
    }
    return c;
}

/* Slot |slot| as the lookups give it: its chosen variant, the default for BAD (|bad| set) */
static const struct mbgcmi_arch *resolve(unsigned slot, int *bad)
{
    const struct mbgcmi_arch *base = mbgcmi_arches[slot];
    if (base->nvariants == 0) {
        return base;
    }
    const unsigned c = slot_choice(slot);
    if (c == BAD) {
        if (bad != NULL) {
            *bad = 1;
        }
        return base;
    }
    return base->variants[c - 1];
}

const struct mbgcmi_arch *mbgcmi_arch_at(unsigned i)
{
    return i < mbgcmi_narches ? resolve(i, NULL) : NULL;
}

int mbgcmi_arch_index(const struct mbgcmi_arch *a)
{
    for (unsigned i = 0; a != NULL && i < mbgcmi_narches; i++) {
        const struct mbgcmi_arch *base = mbgcmi_arches[i];
        if (base == a) {
            return (int)i;
        }
        for (unsigned v = 0; v < base->nvariants; v++) {
            if (base->variants[v] == a) {
                return (int)i;
            }
        }
    }
    return -1;
}

static int find_slot(const char *name)
{
    for (unsigned i = 0; name != NULL && i < mbgcmi_narches; i++) {
        if (strcmp(name, mbgcmi_arches[i]->name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const struct mbgcmi_arch *mbgcmi_arch_find(const char *name)
{
    const int i = find_slot(name);
    return i >= 0 ? resolve((unsigned)i, NULL) : NULL;
}

int mbgcmi_arch_supported(const struct mbgcmi_arch *a)
{
    if (a == NULL) {
        return 0;
    }
    const unsigned need = a->requires;
    return (mbgcmi_cpu_features() & need) == need;
}

static unsigned best_slot(void)
{
    for (unsigned i = mbgcmi_narches; i-- > 1;) {
        if (mbgcmi_arch_supported(mbgcmi_arches[i])) {
            return i;
        }
    }
    return 0;
}

const struct mbgcmi_arch *mbgcmi_arch_best(void)
{
    return resolve(best_slot(), NULL);
}

const struct mbgcmi_arch *mbgcmi_arch_parse(const char *name)
{
    const int i = name == NULL || strcmp(name, "auto") == 0 ? (int)best_slot() : find_slot(name);
    if (i < 0) {
        return NULL;
    }
    int bad = 0;
    const struct mbgcmi_arch *a = resolve((unsigned)i, &bad);
    return bad ? NULL : a;
}

/* One-shot arch: &unchosen until the first call reads the environment. Concurrent first calls
   compute the same value, so relaxed atomics suffice. */
static const struct mbgcmi_arch unchosen;
static const struct mbgcmi_arch *oneshot = &unchosen;

mbgcmi_whole12_fn mbgcmi_oneshot_whole12;

static void set_oneshot(const struct mbgcmi_arch *a)
{
    /* the arch first: a reader that sees the fast path's pointer needs nothing else */
    __atomic_store_n(&oneshot, a, __ATOMIC_RELAXED);
    __atomic_store_n(&mbgcmi_oneshot_whole12, a != NULL ? a->ops->whole12 : NULL,
                     __ATOMIC_RELAXED);
}

const struct mbgcmi_arch *mbgcmi_oneshot_arch(void)
{
    const struct mbgcmi_arch *a = __atomic_load_n(&oneshot, __ATOMIC_RELAXED);
    if (a == &unchosen) {
        const char *env = getenv("MBGCM_ARCH");
        a = mbgcmi_arch_parse(env != NULL && env[0] != '\0' ? env : NULL); /* set but empty: unset */
        if (!mbgcmi_arch_supported(a)) {
            a = NULL;
        }
        set_oneshot(a);
    }
    return a;
}

void mbgcmi_set_oneshot_arch(const struct mbgcmi_arch *a)
{
    set_oneshot(a);
}

void mbgcmi_reset_oneshot_arch(void)
{
    __atomic_store_n(&mbgcmi_oneshot_whole12, NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&oneshot, &unchosen, __ATOMIC_RELAXED);
}

unsigned mbgcmi_arch_nvariants(const struct mbgcmi_arch *a)
{
    const int i = mbgcmi_arch_index(a);
    return i >= 0 ? mbgcmi_arches[i]->nvariants : 0;
}

const struct mbgcmi_arch *mbgcmi_arch_variant(const struct mbgcmi_arch *a, const char *variant)
{
    const int i = mbgcmi_arch_index(a);
    if (i < 0 || variant == NULL) {
        return NULL;
    }
    const int v = variant_index(mbgcmi_arches[i], variant);
    return v >= 0 ? mbgcmi_arches[i]->variants[v] : NULL;
}

int mbgcmi_arch_set_variant(const struct mbgcmi_arch *a, const char *variant)
{
    const int i = mbgcmi_arch_index(a);
    if (i < 0) {
        return -1;
    }
    int v = -1;
    if (variant != NULL && (v = variant_index(mbgcmi_arches[i], variant)) < 0) {
        return -1;
    }
    __atomic_store_n(&forced[i], (unsigned char)(v + 1), __ATOMIC_RELAXED);
    return 0;
}
