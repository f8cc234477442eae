/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * x86.h — arch/x86/cpu_x86.asm: CPUID and XGETBV for core/cpu.c; arch/x86/burst_x86.asm: a
 * burst's common jobs for jobs/mgr.c.
 */
#ifndef MBGCM_ARCH_X86_H
#define MBGCM_ARCH_X86_H

#include <stddef.h>
#include <stdint.h>

#include "gcm.h"
#include "mbgcm.h"

/* CPUID leaf/subleaf into out[4] = {eax, ebx, ecx, edx}. */
void mbgcmi_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);
/* XGETBV(index); only call when CPUID.1:ECX.OSXSAVE is set. */
uint64_t mbgcmi_xgetbv(uint32_t index);

/* mbgcmi_x86_burst12's window and results (arch/x86/burst_x86.asm): it runs jobs whose
   checks pass and whose len lies in [from, below[dir - 1]) through w12, and says how far it
   got. */
struct mbgcmi_x86_burst12 {
    uint64_t from;            /* the shortest message taken */
    uint64_t below[2];        /* encrypt, decrypt: every message taken is shorter */
    mbgcmi_whole12_op *w12;   /* the arch's whole12 */
    uint64_t bytes;           /* out: the message bytes of the jobs run */
    uint64_t failed;          /* out: 1 when the job returned ran and failed its tag */
    uint64_t dbelow[2];       /* encrypt, decrypt: jobs of below <= len < dbelow are gathered */
    mbgcm_job **defer;        /* for the pipelined call (the manager's list) */
    uint64_t ndefer;          /* in/out: the jobs in it */
};
_Static_assert(offsetof(struct mbgcmi_x86_burst12, from) == 0 &&
                   offsetof(struct mbgcmi_x86_burst12, below) == 8 &&
                   offsetof(struct mbgcmi_x86_burst12, w12) == 24 &&
                   offsetof(struct mbgcmi_x86_burst12, bytes) == 32 &&
                   offsetof(struct mbgcmi_x86_burst12, failed) == 40 &&
                   offsetof(struct mbgcmi_x86_burst12, dbelow) == 48 &&
                   offsetof(struct mbgcmi_x86_burst12, defer) == 64 &&
                   offsetof(struct mbgcmi_x86_burst12, ndefer) == 72 &&
                   MBGCMI_JOBS12_MAX == 64 && MBGCM_ENCRYPT == 1 &&
                   MBGCM_DECRYPT == 2 && MBGCM_OK == 0,
               "arch/x86/burst_x86.asm: struct mbgcmi_x86_burst12 and the job constants");
/* Runs job, job + 1, ... before end through p->w12 while each is valid (the checks of
   jobs/validate.h; a 12-byte IV, linear) with p->from <= len < p->below[dir - 1], each
   completed MBGCM_OK, and gathers those with p->below[dir - 1] <= len < p->dbelow[dir - 1]
   into p->defer (while p->ndefer < MBGCMI_JOBS12_MAX - 1) for the caller's pipelined call;
   returns the first job not completed: one it did not take (untouched),
   or end (p->failed 0), or one that ran and failed its tag (p->failed 1: the caller completes
   it). p->bytes: the message bytes of the jobs run, that one's included. */
mbgcm_job *mbgcmi_x86_burst12(mbgcm_job *job, mbgcm_job *end, struct mbgcmi_x86_burst12 *p);

#endif /* MBGCM_ARCH_X86_H */
