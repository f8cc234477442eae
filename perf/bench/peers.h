/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peers.h — intel-ipsec-mb peers: the adapters mbgcm-bench loads (peer_api.h) and the engines
 * over them (peers.c).
 */
#ifndef MBGCM_BENCH_PEERS_H
#define MBGCM_BENCH_PEERS_H

#include "common.h"
#include "peer_api.h"

struct peer {
    char path[1024];                 /* the adapter file */
    void *handle;
    const struct bench_peer_ops *ops;
    struct bench_peer_info info;
    char arch[32];                   /* the manager's arch, as --imb-arch made it */
    int ref;                         /* the reference: ratios are against its fastest API */
};

/* Load the adapters of --peers (default: those built with the binary) once. */
void peers_load(void);
/* The reference peer (the newest version that is not Debian's; Debian's only when it is
   the only one), or NULL without peers. */
const struct peer *peers_ref(void);
/* "intel-ipsec-mb 1.3.0, 3.0.0-dev" (the versions loaded), or "no intel-ipsec-mb". */
const char *peers_versions(char *buf, size_t n);
/* Header lines: each peer's build, library, manager and APIs, and what ratios compare. */
void peers_print(void);

#endif /* MBGCM_BENCH_PEERS_H */
