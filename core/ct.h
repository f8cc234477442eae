/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ct.h — constant-time checking hooks (docs/security.md, "ctgrind").
 *
 * With MBGCM_CTGRIND defined, the tests mark secret inputs undefined for valgrind memcheck and
 * every value computed from them stays undefined; MBGCMI_DECLASSIFY marks a value defined again
 * where it becomes public on purpose (a tag comparison result, whether a key changed). A no-op
 * in normal builds.
 */
#ifndef MBGCM_CORE_CT_H
#define MBGCM_CORE_CT_H

#if defined(MBGCM_CTGRIND)
#include <valgrind/memcheck.h>
#define MBGCMI_DECLASSIFY(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define MBGCMI_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif

#endif /* MBGCM_CORE_CT_H */
