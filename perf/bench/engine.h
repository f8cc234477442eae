/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.h — an engine is one API of one library, driven over the workload's slots. Each
 * family has its module: engine_mbgcm.c (one-shot, ring and burst APIs per arch),
 * engine_imb.c (ipsec-mb through the peer adapters: direct, job, burst, QUIC) and
 * engine_evp.c (OpenSSL EVP). engines.c builds the list and answers questions about it.
 */
#ifndef MBGCM_BENCH_ENGINE_H
#define MBGCM_BENCH_ENGINE_H

#include "common.h"

enum family { FAM_MBGCM, FAM_IMB, FAM_EVP };

/* What an engine calls; names in the CSV's api column. */
enum api { API_ONESHOT, API_RING, API_BURST, API_DIRECT, API_JOB, API_QUIC, API_EVP };

struct engine;
struct peer; /* peers.h */

/* Extra figures of an asynchronous engine after a latency run. */
struct lat_stats {
    double lanes_per_call;
    uint64_t kernel_calls, runs_timeout;
};

struct engine_ops {
    /* Create the engine's state on first use; (re)key it for m->bits and m->nkeys. */
    void (*setup)(struct engine *e, const struct bench_msgs *m);
    /* |n| messages from slot *pos on (round-robin), nothing left in flight; returns how many
       failed (decrypt: tag mismatch). Never fails on valid input. */
    unsigned (*run)(struct engine *e, const struct bench_msgs *m, int dir, uint64_t n,
                    unsigned *pos);
    void (*teardown)(struct engine *e);
    /* Asynchronous engines only (NULL otherwise), for the latency mode: submit one
       encryption; take completions (|final|: no more arrivals will come). */
    void (*submit)(struct engine *e, const struct bench_msgs *m, unsigned slot, uint64_t id,
                   bench_done_fn done, void *dctx);
    void (*poll)(struct engine *e, int final, bench_done_fn done, void *dctx);
    void (*stats)(struct engine *e, struct lat_stats *s);
    /* Key setup again for every key of |m| (after setup with the same |m|), as a user
       re-keying would: the keys mode times it. NULL: not timed. */
    void (*rekey)(struct engine *e, const struct bench_msgs *m);
};

struct engine {
    char name[48];
    const struct engine_ops *ops;
    enum family family;
    enum api api;
    int arch;            /* mbgcm: one-shot arch or manager arch; others: -1 */
    int lane_arch;       /* mbgcm ring/burst: arch of the lane kernel that runs */
    int is_mbgcm;
    int selected;
    int capped;          /* portable C kernels: small time budget */
    int dup;             /* same kernels as a lower arch's engine of the same API */
    int one_key;         /* runs only when every message uses the same key */
    int ref;             /* an API of the reference peer: ratios are against these */
    uint64_t timeout_ns; /* ring: flush_timeout_ns */
    const struct peer *peer; /* ipsec-mb: the adapter */
    char note[400];
    void *st;            /* the family's state, created by setup */
};

/* Engines selected and runnable with |nkeys| keys. */
static inline int engine_active(const struct engine *e, unsigned nkeys)
{
    return e->selected && (!e->one_key || nkeys == 1);
}

static inline void engine_setup(struct engine *e, const struct bench_msgs *m)
{
    e->ops->setup(e, m);
}

static inline unsigned engine_run(struct engine *e, const struct bench_msgs *m, int dir,
                                  uint64_t n, unsigned *pos)
{
    return e->ops->run(e, m, dir, n, pos);
}

static inline void engine_teardown(struct engine *e)
{
    if (e->st != NULL) {
        e->ops->teardown(e);
    }
    e->st = NULL;
}

/* A copy of |e| without state (a second instance: threads, latency variants). */
static inline struct engine engine_clone(const struct engine *e)
{
    struct engine c = *e;
    c.st = NULL;
    return c;
}

/* engines.c */
const char *api_name(enum api a);
struct engine *engine_add(struct engine *eng, unsigned *ne, enum family fam, enum api api);
/* Every engine: mbgcm ring, burst, one-shot (best arch first), ipsec-mb peers, OpenSSL. */
unsigned build_engines(struct engine *eng);
/* The engine of mbgcm API |api| with the fastest kernels (highest arch that is not a
   duplicate of a lower one), or NULL. */
const struct engine *best_mbgcm(const struct engine *eng, unsigned ne, enum api api);
/* The reference peer's engine of |api|, or NULL. */
const struct engine *ref_engine(const struct engine *eng, unsigned ne, enum api api);

/* engine_mbgcm.c, engine_imb.c, engine_evp.c: append the family's engines. */
void mbgcm_add_engines(struct engine *eng, unsigned *ne);
void imb_add_engines(struct engine *eng, unsigned *ne);
void evp_add_engine(struct engine *eng, unsigned *ne);
/* The name of mbgcm arch |arch| (engine_mbgcm.c). */
const char *mbgcm_arch_label(int arch);

#endif /* MBGCM_BENCH_ENGINE_H */
