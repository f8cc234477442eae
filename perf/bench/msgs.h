/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * msgs.h — the messages every engine processes, as plain arrays indexed by slot. Shared by
 * mbgcm-bench and the ipsec-mb peer adapters (peer_imb.c), so it depends on nothing but the C
 * library: an adapter compiled against one ipsec-mb version sees the same layout.
 */
#ifndef MBGCM_BENCH_MSGS_H
#define MBGCM_BENCH_MSGS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BENCH_IV_LEN  12
#define BENCH_TAG_LEN 16
#define BENCH_MAX_AAD 4096 /* --aad: GMAC-sized AAD (--sizes 0) too */

enum { DIR_ENC = 0, DIR_DEC = 1 };

/* One point's messages. Slot j uses key key_of[j], IV iv[j], AAD aad[j] (aad_len bytes) and
   len[j] bytes: plaintext pt[j], reference ciphertext ct[j] and tag tag[j] (made with
   OpenSSL), output out[j]. Engines write the tag of an encryption, or the tag they computed
   while decrypting when their API hands it back, to otag[j]. */
struct bench_msgs {
    unsigned bits;       /* AES key size: 128 or 256 */
    unsigned nkeys;
    unsigned nslots;
    size_t aad_len;
    uint8_t (*raw)[32];  /* nkeys raw keys (the first bits/8 bytes are used) */
    size_t *len;
    unsigned *key_of;
    uint8_t **pt, **ct, **out;
    uint8_t (*iv)[BENCH_IV_LEN];
    uint8_t **aad;       /* per slot, aad_len bytes (workload.c: the stride) */
    uint8_t (*tag)[BENCH_TAG_LEN];
    uint8_t (*otag)[BENCH_TAG_LEN];
};

/* Completion of an asynchronous message (latency mode): |id| as submitted, |ok| 0 when the
   engine reported a failure. */
typedef void (*bench_done_fn)(void *ctx, uint64_t id, int ok);

static inline int bench_tag_equal16(const uint8_t *a, const uint8_t *b)
{
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&a1, a + 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, b + 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* The slot after |j|, round-robin. */
static inline unsigned bench_next_slot(const struct bench_msgs *m, unsigned j)
{
    return j + 1 == m->nslots ? 0 : j + 1;
}

#endif /* MBGCM_BENCH_MSGS_H */
