/*
 * arch.h — the arch descriptor and the registry (arch/registry.c, core/arch.c).
 *
 * An arch is one folder arch/<name>/ with its kernels and one descriptor, a
 * `const struct mbgcmi_arch mbgcmi_arch_<name>`, listed once in arch/registry.c. Everything
 * else — names, "auto", support checks, the one-shot choice, what the scheduler runs — is read
 * from the descriptors: no other code names an arch.
 */
#ifndef MBGCM_CORE_ARCH_H
#define MBGCM_CORE_ARCH_H

#include <stddef.h>
#include <stdint.h>

#include "gcm.h"
#include "group.h"
#include "key.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mbgcmi_arch {
    const char *name;      /* what MBGCM_ARCH and mbgcm_config.arch accept */
    unsigned requires;     /* MBGCMI_F_* bits the CPU and OS must have (core/cpu.h) */
    int portable;          /* C kernels: callers burn the stack after using them
                              (mbgcmi_burn_stack), since the compiler may spill secrets */
    /* Fill k->rk[0..rounds] (k->rounds and k->key_len are set), hpow[] and hkar[] from the
       raw key; every arch writes identical bytes (test_gcm_internal checks it). */
    void (*key_expand)(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len);
    const struct mbgcmi_gcm_ops *ops;     /* single-message kernels (never NULL) */
    mbgcmi_lane_kernel_fn lanes;          /* four-lane kernel, or NULL: every job of a manager
                                             runs single-stream */
    mbgcmi_short_kernel_fn short_kernel;  /* one-pass short-job kernel, or NULL */
    uint64_t single_min_len;              /* with lanes: jobs this long or longer run
                                             single-stream, and a lone lane with this much
                                             left finishes so (UINT64_MAX: never; measured
                                             per arch, docs/design.md) */
};

/* The registry (arch/registry.c): the arches this build has, slowest to fastest; generic is
   always first. */
#define MBGCMI_MAX_ARCHES 8
extern const struct mbgcmi_arch *const mbgcmi_arches[];
extern const unsigned mbgcmi_narches;

/* Registry entry |i| (0 = generic), NULL past the end. */
const struct mbgcmi_arch *mbgcmi_arch_at(unsigned i);
/* Position of |a| in the registry, or -1. */
int mbgcmi_arch_index(const struct mbgcmi_arch *a);
/* The arch called |name| exactly, or NULL ("auto" is not a name: see mbgcmi_arch_parse). */
const struct mbgcmi_arch *mbgcmi_arch_find(const char *name);
/* 1 when |a| is not NULL and the CPU and OS have everything it requires. */
int mbgcmi_arch_supported(const struct mbgcmi_arch *a);
/* The fastest supported arch (never NULL: generic is always supported). */
const struct mbgcmi_arch *mbgcmi_arch_best(void);
/* NULL and "auto" give the best arch; a name gives that arch (support not checked); anything
   else, the empty string included, gives NULL. */
const struct mbgcmi_arch *mbgcmi_arch_parse(const char *name);
/* Arch used by the one-shot and incremental API: MBGCM_ARCH read once, or auto. NULL when the
   variable names an unknown or unsupported arch. */
const struct mbgcmi_arch *mbgcmi_oneshot_arch(void);
/* Test hook: force the one-shot arch (NULL simulates an unsupported one). */
void mbgcmi_set_oneshot_arch(const struct mbgcmi_arch *a);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_CORE_ARCH_H */
