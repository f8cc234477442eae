/* SPDX-License-Identifier: BSD-3-Clause */
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

#include "cpu.h"
#include "gcm.h"
#include "group.h"
#include "key.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mbgcmi_arch {
    const char *name;      /* what MBGCM_ARCH and mbgcm_config.arch accept */
    const char *variant;   /* this descriptor's tuning of the arch (a variant's name), or NULL
                              for an arch with one tuning */
    unsigned requires;     /* MBGCMI_F_* bits the CPU and OS must have (core/cpu.h) */
    int portable;          /* C kernels: callers burn the stack after using them
                              (mbgcmi_burn_stack), since the compiler may spill secrets */
    /* Fill k->rk[0..rounds] (k->rounds and k->key_len are set), hpow[] and hkar[] from the
       raw key; every arch writes identical bytes (test_gcm_internal checks it). */
    void (*key_expand)(struct mbgcmi_key *k, const uint8_t *raw, size_t raw_len);
    const struct mbgcmi_gcm_ops *ops;     /* single-message kernels (never NULL) */
    mbgcmi_lane_kernel_fn lanes;          /* four-lane kernel, or NULL: every job of a manager
                                             runs single-stream */
    mbgcmi_short_jobs_fn short_jobs;      /* the short-job kernel (core/group.h), or NULL */
    uint64_t short_msg_below;             /* with short_jobs: jobs with a message this long or
                                             longer skip it (where the single-message kernels
                                             run them faster; GMAC jobs are not held to it); 0:
                                             no limit beyond MBGCMI_SHORT_MAX_BLOCKS */
    uint64_t burst_short_msg_below;       /* the same for a burst's jobs, where a burst
                                             runs them faster elsewhere than the ring does;
                                             0: as short_msg_below; UINT64_MAX: no limit
                                             beyond MBGCMI_SHORT_MAX_BLOCKS (bursts keep
                                             the kernel where the ring does not). Valid jobs
                                             with a 12-byte IV that either limit turns away
                                             run one by one through ops->whole12 */
    uint64_t burst_short_dec_below;       /* the same for a burst's decrypts (0: as
                                             burst_short_msg_below), where the two directions
                                             cross over at different lengths */
    unsigned gmac_single;                 /* with short_jobs and short_msg_below = 1: 1 when
                                             the ring's GMAC jobs (no message) skip that
                                             kernel too, and so do those with more than
                                             MBGCMI_SHORT_MAX_AAD bytes of AAD in a burst
                                             the rule below turns away: valid with a 12-byte
                                             IV, they run through ops->whole12, which was
                                             quicker there; 0: GMAC jobs keep the kernel */
    unsigned burst_short_min_jobs;        /* with short_jobs: a burst gives its short jobs to
                                             that kernel only when it has this many jobs or
                                             more and its first two share a key (else they go,
                                             valid with a 12-byte IV, through ops->whole12:
                                             where few jobs, or jobs of many keys, make the
                                             lanes slower than one job at a time); 0: always */
    uint64_t single_min_len;              /* with lanes: jobs this long or longer run
                                             single-stream, and a lone lane with this much
                                             left finishes so (UINT64_MAX: never; measured
                                             per arch, docs/design.md) */
    /* Variants (docs/design.md, "Variants"): tunings of one arch for different
       microarchitectures, each a full descriptor with the same name, requires and key_expand
       and its own kernels or thresholds. Only the registry's entry lists them: |variants|
       (the entry itself first: the default), |nvariants|, and |choose|, which picks the index
       for a CPU from its vendor, family and features, never its model. NULL / 0 / NULL for an
       arch with one tuning. */
    const struct mbgcmi_arch *const *variants;
    unsigned nvariants;
    unsigned (*choose)(const struct mbgcmi_cpu_id *cpu, unsigned features);
};

/* The message limit of the short-job kernel for a manager of |a| whose limit on hashed rows is
   |lim|: the arch's short_msg_below where it is set and lower, else |lim|; where that leaves
   GMAC jobs only and the arch runs them single-stream (gmac_single), 0. */
static inline uint64_t mbgcmi_short_msg_lim(const struct mbgcmi_arch *a, uint64_t lim)
{
    const uint64_t l = a->short_msg_below != 0 && a->short_msg_below < lim ? a->short_msg_below
                                                                           : lim;
    return l == 1 && a->gmac_single ? 0 : l; /* 0: no job takes the kernel */
}
/* The same for a burst's jobs: burst_short_msg_below where it is set (|lim| where that is
   lower), else the ring's (0 where gmac_single leaves the ring's kernel no job: a burst's then
   gets none either). */
static inline uint64_t mbgcmi_burst_short_msg_lim(const struct mbgcmi_arch *a, uint64_t lim)
{
    if (a->burst_short_msg_below == 0) {
        return mbgcmi_short_msg_lim(a, lim);
    }
    return a->burst_short_msg_below < lim ? a->burst_short_msg_below : lim;
}
/* The same for a burst's decrypts */
static inline uint64_t mbgcmi_burst_short_dec_lim(const struct mbgcmi_arch *a, uint64_t lim)
{
    if (a->burst_short_dec_below == 0) {
        return mbgcmi_burst_short_msg_lim(a, lim);
    }
    return a->burst_short_dec_below < lim ? a->burst_short_dec_below : lim;
}

/* The registry (arch/registry.c): the arches this build has, slowest to fastest; generic is
   always first. */
#define MBGCMI_MAX_ARCHES 8
extern const struct mbgcmi_arch *const mbgcmi_arches[];
extern const unsigned mbgcmi_narches;

/* Every lookup below gives an arch with variants as its chosen variant: the one the
   environment names (MBGCM_<ARCH>_VARIANT, e.g. MBGCM_AVX512_VARIANT=by32; read once per
   process; unset, empty or "auto": the CPU's), else the one its choose() picks for this CPU;
   the test hook mbgcmi_arch_set_variant overrides both. */

/* Registry entry |i| (0 = generic), NULL past the end. */
const struct mbgcmi_arch *mbgcmi_arch_at(unsigned i);
/* Position in the registry of |a| or of the arch |a| is a variant of, or -1. */
int mbgcmi_arch_index(const struct mbgcmi_arch *a);
/* The arch called |name| exactly, or NULL ("auto" is not a name: see mbgcmi_arch_parse). */
const struct mbgcmi_arch *mbgcmi_arch_find(const char *name);
/* 1 when |a| is not NULL and the CPU and OS have everything it requires. */
int mbgcmi_arch_supported(const struct mbgcmi_arch *a);
/* The fastest supported arch (never NULL: generic is always supported). */
const struct mbgcmi_arch *mbgcmi_arch_best(void);
/* NULL and "auto" give the best arch; a name gives that arch (support not checked); anything
   else, the empty string included, gives NULL, and so does an arch whose variant the
   environment names but the arch does not have (the one-shot API and managers then return
   MBGCM_ERR_UNSUPPORTED, as for an unknown MBGCM_ARCH; the lookups above give its default). */
const struct mbgcmi_arch *mbgcmi_arch_parse(const char *name);
/* Arch used by the one-shot and incremental API: MBGCM_ARCH read once, or auto. NULL when the
   variable names an unknown or unsupported arch. */
const struct mbgcmi_arch *mbgcmi_oneshot_arch(void);
/* Test hook: force the one-shot arch (NULL simulates an unsupported one). */
void mbgcmi_set_oneshot_arch(const struct mbgcmi_arch *a);
/* Test hook: forget the one-shot arch; the next use chooses it again as on first use. */
void mbgcmi_reset_oneshot_arch(void);
/* The one-shot arch's whole12 (12-byte IV, tag included) once that arch is chosen and has
   one, else NULL: the one-shot calls' fast path reads it (relaxed atomic) instead of going
   through mbgcmi_oneshot_arch and the general driver. Kept in step by the two calls above. */
typedef int (*mbgcmi_whole12_fn)(const struct mbgcmi_key *k, const uint8_t *iv,
                                 const uint8_t *aad, size_t aad_len, const uint8_t *in,
                                 size_t len, uint8_t *out, uint8_t *tag, size_t tag_len_dec);
extern mbgcmi_whole12_fn mbgcmi_oneshot_whole12;

/* Variants of the arch |a| is (or is a variant of): how many (0: one tuning), the one called
   |variant| (NULL if none), and the one this CPU and environment choose. */
unsigned mbgcmi_arch_nvariants(const struct mbgcmi_arch *a);
const struct mbgcmi_arch *mbgcmi_arch_variant(const struct mbgcmi_arch *a, const char *variant);
/* Test hook: make the lookups give the variant called |variant| of |a|'s arch from now on
   (NULL: back to the environment's or the CPU's choice). Returns 0, or -1 when the arch has
   no such variant. Set it before creating managers or resetting the one-shot arch
   (mbgcmi_set_oneshot_arch), which keep the descriptor they were given. */
int mbgcmi_arch_set_variant(const struct mbgcmi_arch *a, const char *variant);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_CORE_ARCH_H */
