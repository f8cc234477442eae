/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * short.c — short jobs: the classes they wait in and the runs of the arch's short-job kernel.
 *
 * A short job (12-byte IV, AAD <= 16 bytes, message <= 16 blocks; arch with a short-job kernel)
 * waits in the class of its shape: message blocks (0..16) x key size (10, 12 or 14 rounds), so
 * that one kernel call runs jobs of one shape only. The ring runs a class once it holds
 * m->short_ring jobs (8: two lane groups, which the kernel overlaps; more when the manager was
 * configured with more lanes), a burst lets its classes
 * fill up to the kernel's limit and runs them at its end; flush and the timeout run the class
 * that holds the job they need. A class remembers whether all its jobs share one key (the
 * kernel then broadcasts round keys instead of gathering them) and its first job's submit time
 * (its oldest).
 */
#include "ct.h"
#include "jobs_internal.h"

/* Run class |cls| (it holds at least one job) and complete its jobs: the kernel has set every
   status; a failed tag's output is zeroed here and counted. Returns how many failed. */
unsigned mbgcmi_short_run(mbgcm_mgr *m, unsigned cls, enum mbgcmi_run_cause why)
{
    struct mbgcmi_short_class *c = &m->sc[cls];
    const unsigned n = c->n;
    const unsigned nb = cls / 3, rounds = 10 + 2 * (cls % 3);
    unsigned flags = rounds | (c->same ? MBGCMI_SHORT_SAMEKEY : 0);
    if (nb >= 2) { /* GMAC jobs (17..256 bytes of AAD): all of them, no key stream */
        uint32_t all = ~UINT32_C(0);
        for (unsigned i = 0; i < n; i++) {
            all &= c->shape[i];
        }
        if ((all & MBGCMI_SHAPE_GMAC_BIT) != 0) {
            flags |= MBGCMI_SHORT_ALLGMAC;
        }
    }
    uint64_t fail = m->arch->short_jobs(c->job, c->shape, n, nb, flags);
    MBGCMI_DECLASSIFY(&fail, sizeof fail); /* the authentication outcomes are public */
    m->runs[why]++;
    m->kernel_calls[MBGCMI_GL - 1] += n / MBGCMI_GL;
    if (n % MBGCMI_GL) {
        m->kernel_calls[n % MBGCMI_GL - 1]++;
    }
    unsigned failed = 0;
    for (uint64_t f = fail; __builtin_expect(f != 0, 0); f &= f - 1) {
        mbgcmi_complete(m, c->job[__builtin_ctzll(f)], MBGCM_ERR_AUTH);
        failed++;
    }
    c->n = 0;
    m->sc_used &= ~(UINT64_C(1) << cls);
    m->staged -= n;
    return failed;
}

void mbgcmi_short_run_all(mbgcm_mgr *m, enum mbgcmi_run_cause why)
{
    for (uint64_t u = m->sc_used; u != 0; u &= u - 1) {
        mbgcmi_short_run(m, (unsigned)__builtin_ctzll(u), why);
    }
}

void mbgcmi_short_expire(mbgcm_mgr *m, uint64_t now)
{
    for (uint64_t u = m->sc_used; u != 0; u &= u - 1) {
        const unsigned cls = (unsigned)__builtin_ctzll(u);
        if (now - m->sc[cls].t_first >= m->timeout) {
            mbgcmi_short_run(m, cls, MBGCMI_RUN_TIMEOUT);
        }
    }
}
