/*
 * arch.c — choosing an arch from the registry (arch/registry.c): support, the best one,
 * names, and the one-shot API's choice. No arch is named here: every answer comes from the
 * descriptors.
 *
 * The one-shot API reads MBGCM_ARCH once; managers take the arch from their config.
 */
#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "cpu.h"

const struct mbgcmi_arch *mbgcmi_arch_at(unsigned i)
{
    return i < mbgcmi_narches ? mbgcmi_arches[i] : NULL;
}

int mbgcmi_arch_index(const struct mbgcmi_arch *a)
{
    for (unsigned i = 0; i < mbgcmi_narches; i++) {
        if (mbgcmi_arches[i] == a) {
            return (int)i;
        }
    }
    return -1;
}

const struct mbgcmi_arch *mbgcmi_arch_find(const char *name)
{
    for (unsigned i = 0; name != NULL && i < mbgcmi_narches; i++) {
        if (strcmp(name, mbgcmi_arches[i]->name) == 0) {
            return mbgcmi_arches[i];
        }
    }
    return NULL;
}

int mbgcmi_arch_supported(const struct mbgcmi_arch *a)
{
    if (a == NULL) {
        return 0;
    }
    const unsigned need = a->requires;
    return (mbgcmi_cpu_features() & need) == need;
}

const struct mbgcmi_arch *mbgcmi_arch_best(void)
{
    for (unsigned i = mbgcmi_narches; i-- > 1;) {
        if (mbgcmi_arch_supported(mbgcmi_arches[i])) {
            return mbgcmi_arches[i];
        }
    }
    return mbgcmi_arches[0];
}

const struct mbgcmi_arch *mbgcmi_arch_parse(const char *name)
{
    if (name == NULL || strcmp(name, "auto") == 0) {
        return mbgcmi_arch_best();
    }
    return mbgcmi_arch_find(name);
}

/* One-shot arch: &unchosen until the first call reads the environment. Concurrent first calls
   compute the same value, so relaxed atomics suffice. */
static const struct mbgcmi_arch unchosen;
static const struct mbgcmi_arch *oneshot = &unchosen;

const struct mbgcmi_arch *mbgcmi_oneshot_arch(void)
{
    const struct mbgcmi_arch *a = __atomic_load_n(&oneshot, __ATOMIC_RELAXED);
    if (a == &unchosen) {
        const char *env = getenv("MBGCM_ARCH");
        a = mbgcmi_arch_parse(env != NULL && env[0] != '\0' ? env : NULL); /* set but empty: unset */
        if (!mbgcmi_arch_supported(a)) {
            a = NULL;
        }
        __atomic_store_n(&oneshot, a, __ATOMIC_RELAXED);
    }
    return a;
}

void mbgcmi_set_oneshot_arch(const struct mbgcmi_arch *a)
{
    __atomic_store_n(&oneshot, a, __ATOMIC_RELAXED);
}
