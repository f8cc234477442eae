/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_mbgcm_internal.c — the one place mbgcm-bench touches mbgcm internals (see the
 * header). Everything else in the benchmark uses the public API of <mbgcm.h>.
 */
#include "engine_mbgcm_internal.h"

#include "arch.h"          /* the arch registry */
#include "jobs_internal.h" /* mbgcmi_mgr_set_single_min_len */

/* Arches are positions in the registry (arch/registry.c), generic first. */
int mbint_arch_count(void)
{
    return (int)mbgcmi_narches;
}

int mbint_arch_generic(void)
{
    return mbgcmi_arch_index(mbgcmi_arch_find("generic"));
}

const char *mbint_arch_name(int arch)
{
    const struct mbgcmi_arch *a = arch >= 0 ? mbgcmi_arch_at((unsigned)arch) : NULL;
    return a ? a->name : "none";
}

int mbint_arch_supported(int arch)
{
    return arch >= 0 && mbgcmi_arch_supported(mbgcmi_arch_at((unsigned)arch));
}

int mbint_arch_parse(const char *name)
{
    return mbgcmi_arch_index(mbgcmi_arch_parse(name));
}

void mbint_force_oneshot_arch(int arch)
{
    mbgcmi_set_oneshot_arch(arch >= 0 ? mbgcmi_arch_at((unsigned)arch) : NULL);
}

/* The library's own choice, as on first use (MBGCM_ARCH, else auto), after a forced one. */
int mbint_oneshot_arch_default(void)
{
    mbgcmi_reset_oneshot_arch();
    return mbgcmi_arch_index(mbgcmi_oneshot_arch());
}

int mbint_same_oneshot(int a, int b)
{
    return mbgcmi_arch_at((unsigned)a)->ops == mbgcmi_arch_at((unsigned)b)->ops;
}

/* An arch without a lane kernel runs every job single-stream: its "lane arch" is itself. */
int mbint_lane_arch(int arch)
{
    return arch;
}

int mbint_same_lanes(int a, int b)
{
    const struct mbgcmi_arch *x = mbgcmi_arch_at((unsigned)a), *y = mbgcmi_arch_at((unsigned)b);
    return x->lanes == y->lanes && x->short_jobs == y->short_jobs && x->ops == y->ops;
}

uint64_t mbint_single_min_len(int arch)
{
    const struct mbgcmi_arch *a = mbgcmi_arch_at((unsigned)arch);
    return a->lanes != NULL ? a->single_min_len : 0;
}

uint64_t mbint_short_max_len(int arch, int burst)
{
    const struct mbgcmi_arch *a = mbgcmi_arch_at((unsigned)arch);
    const uint64_t lim = 16 * MBGCMI_SHORT_MAX_BLOCKS + 1;
    /* the longest message the chosen variant sends there (GMAC jobs may have more AAD) */
    if (a->short_jobs == NULL) {
        return 0;
    }
    const uint64_t mlim =
        burst ? mbgcmi_burst_short_msg_lim(a, lim) : mbgcmi_short_msg_lim(a, lim);
    return mlim != 0 ? mlim - 1 : 0;
}

int mbint_gmac_single(int arch)
{
    const struct mbgcmi_arch *a = mbgcmi_arch_at((unsigned)arch);
    return a->short_jobs != NULL && a->gmac_single;
}

unsigned mbint_burst_short_min_jobs(int arch)
{
    return mbgcmi_arch_at((unsigned)arch)->burst_short_min_jobs;
}

void mbint_set_single_min_len(mbgcm_mgr *m, uint64_t len)
{
    mbgcmi_mgr_set_single_min_len(m, len);
}
