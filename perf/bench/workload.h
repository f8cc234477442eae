/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * workload.h — the messages of a point: slots at varying addresses, keys, IVs, AAD, plaintext,
 * and the reference ciphertexts and tags made with OpenSSL (workload.c).
 */
#ifndef MBGCM_BENCH_WORKLOAD_H
#define MBGCM_BENCH_WORKLOAD_H

#include "common.h"

struct workload {
    struct bench_msgs m;  /* what the engines see */
    unsigned base_slots;  /* fixed sizes: bufs rounded up to a multiple of nkeys */
    unsigned imix_slots;  /* imix: a multiple of lcm(nkeys, 12) */
    unsigned max_slots;
    size_t cap;           /* largest message */
    size_t size;          /* current message size, or SIZE_IMIX */
    double avg_len;       /* mean message bytes over the slots */
    uint8_t *arena[3];    /* plaintexts, ciphertexts, outputs */
    uint8_t *aad_arena;   /* the slots' AAD */
    size_t aad_stride;
    uint64_t seed;
    unsigned *key_perm;   /* NULL: slot j takes key j mod nkeys; else key_perm[j mod nkeys] */
};

/* |nkeys| random keys, room for messages up to |cap| bytes (at least IMIX_MAX). */
void workload_init(struct workload *w, unsigned nkeys, unsigned nbufs, size_t cap,
                   size_t aad_len, uint64_t seed);
/* Lay out the slots for |size| (SIZE_IMIX: the mix), fill the plaintexts, make the reference
   ciphertexts and tags. */
void workload_point(struct workload *w, unsigned bits, size_t size);
/* Slots take the keys in a fixed shuffled order from now on (--key-order random). */
void workload_shuffle_keys(struct workload *w);
void workload_free(struct workload *w);

/* xorshift64*: deterministic test data and arrival times, not cryptographic. */
static inline uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1du;
}

#endif /* MBGCM_BENCH_WORKLOAD_H */
