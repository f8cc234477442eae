/*
 * engine_mbgcm_internal.c — the one place mbgcm-bench touches mbgcm internals (see the
 * header). Everything else in the benchmark uses the public API of <mbgcm.h>.
 */
#include "engine_mbgcm_internal.h"

#include "jobs_internal.h" /* mbgcmi_mgr_set_single_min_len, lanes.h, mbgcm_internal.h */

int mbint_arch_count(void)
{
    return MBGCMI_ARCH_COUNT;
}

int mbint_arch_generic(void)
{
    return MBGCMI_ARCH_GENERIC;
}

const char *mbint_arch_name(int arch)
{
    return mbgcmi_arch_name(arch);
}

int mbint_arch_supported(int arch)
{
    return mbgcmi_arch_supported(arch);
}

int mbint_arch_parse(const char *name)
{
    const int a = mbgcmi_arch_parse(name);
    return a == MBGCMI_ARCH_NONE ? -1 : a;
}

void mbint_force_oneshot_arch(int arch)
{
    mbgcmi_set_oneshot_arch(arch);
}

int mbint_same_oneshot(int a, int b)
{
    return mbgcmi_gcm_ops_for(a) == mbgcmi_gcm_ops_for(b);
}

int mbint_lane_arch(int arch)
{
    return mbgcmi_lane_ops_for(arch)->arch;
}

int mbint_same_lanes(int a, int b)
{
    const struct mbgcmi_lane_ops *x = mbgcmi_lane_ops_for(a), *y = mbgcmi_lane_ops_for(b);
    return x->kernel == y->kernel && x->short_kernel == y->short_kernel;
}

uint64_t mbint_single_min_len(int arch)
{
    return mbgcmi_lane_ops_for(arch)->single_min_len;
}

void mbint_set_single_min_len(mbgcm_mgr *m, uint64_t len)
{
    mbgcmi_mgr_set_single_min_len(m, len);
}
