/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gcm.h — single-message GCM: the op table an arch provides, the driver that composes it
 * (core/gcm_single.c) and the stream for messages in pieces (core/gcm_stream.c). Each
 * function takes the arch descriptor (core/arch.h): its op table, and whether its kernels are
 * portable C (then the stack is burnt after use).
 */
#ifndef MBGCM_CORE_GCM_H
#define MBGCM_CORE_GCM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "key.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mbgcmi_arch;

/* The one-shot operation for a 12-byte IV (struct mbgcmi_gcm_ops.whole12, below), as a
   function type: the asm entries that are such an operation are declared with it. */
typedef int mbgcmi_whole12_op(const struct mbgcmi_key *k, const uint8_t *iv, const uint8_t *aad,
                              size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                              uint8_t *tag, size_t tag_len_dec);

/* One group of a chunk-list ctr op (ops->ctr_list_enc): its input and its output (in == out
   allowed). The layout is the asm's (CH_IN, CH_OUT, CH_SIZE in gcm_by32_avx512.asm). */
struct mbgcmi_chunk {
    const uint8_t *in;
    uint8_t *out;
};
#define MBGCMI_CHUNK_BLOCKS 32

struct mbgcmi_gcm_ops {
    /* out = E_K(in), one block */
    void (*block)(const struct mbgcmi_key *k, const uint8_t in[16], uint8_t out[16]);
    /* s = GHASH update of s (V form) over |nblocks| full blocks */
    void (*ghash)(const struct mbgcmi_key *k, uint64_t s[2], const uint8_t *in,
                  size_t nblocks);
    /* CTR over |nblocks| full blocks starting at counter block |ctr| (advanced by inc32 per
       block, left at the next unused value), GHASH of the ciphertext into |s|: for _enc the
       ciphertext is |out|, for _dec it is |in|. in == out allowed. */
    void (*ctr_enc)(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                    const uint8_t *in, uint8_t *out, size_t nblocks);
    void (*ctr_dec)(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                    const uint8_t *in, uint8_t *out, size_t nblocks);
    /* Optional: ctr_enc / ctr_dec over |nblocks| blocks that lie in pieces: group g of
       MBGCMI_CHUNK_BLOCKS blocks (the last one may be shorter) is read from list[g].in and
       written to list[g].out; the list holds one entry more than there are groups (read,
       not used). One call keeps its groups in flight across the pieces where a call per piece
       would start and drain the kernel's pipeline each time (scatter-gather jobs).
       ctr_list_dec may be NULL alone: decrypts then take a call per piece (jobs/sgl.c). */
    void (*ctr_list_enc)(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const struct mbgcmi_chunk *list, size_t nblocks);
    void (*ctr_list_dec)(const struct mbgcmi_key *k, uint8_t ctr[16], uint64_t s[2],
                         const struct mbgcmi_chunk *list, size_t nblocks);
    /* Optional, with the chunk-list ops or alone with list_grid_only (which then takes it in
       both directions): `whole` (below) over a message in pieces: group g of
       MBGCMI_CHUNK_BLOCKS blocks from list[g].in to list[g].out, the last group the message's
       last 1..512 bytes (a partial block included); the list holds one entry more than there
       are groups (read, not used). A scatter-gather job in one call, where a stream spends a
       call on each end (jobs/sgl.c). */
    void (*whole_list)(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                       size_t aad_len, const struct mbgcmi_chunk *list, size_t len,
                       uint8_t tag[16], int decrypt);
    /* Required with the chunk-list ops: n bytes from src to dst (the bounce slots' copies),
       leaving no message byte in a register. */
    void (*copy)(uint8_t *dst, const uint8_t *src, size_t n);
    /* 1: the chunk-list ops and whole_list only for jobs whose pieces are cut on the group
       grid (no group bounced: on the Intel Xeon guest by16 with by32's list took 2-2.8x the
       time of a call per piece at pieces of 64-1998 bytes, docs/perf.md) */
    unsigned char list_grid_only;
    /* Optional: the whole message in one call given J0 (AAD, message, partial blocks, length
       block), writing the full 16-byte tag. NULL: the driver composes the four above. */
    void (*whole)(const struct mbgcmi_key *k, const uint8_t j0[16], const uint8_t *aad,
                  size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[16],
                  int decrypt);
    /* Optional: the whole one-shot operation for a 12-byte IV, tag included: encrypt writes
       tag_len bytes; decrypt reads tag_len bytes first and returns 1 when they do not match
       (the caller zeroes out). tag_len_dec = tag_len | decrypt << 8. */
    mbgcmi_whole12_op *whole12;
    /* Optional: whole12 taking in |tag_len_dec|, from bit MBGCMI_W12_NEXT_SHIFT on, the
       address of the key of a job its caller runs soon after (0, or the call's own key:
       none), whose lines it requests while its own work runs. A burst's jobs that run at
       once through whole12 name the key three jobs on, while the manager sees keys beyond
       the caches (jobs/jobs_internal.h): thousands of SAs met in any order, where a job
       otherwise waits a memory latency or two for its key. In the argument, not a tenth
       one: on these short calls each instruction of C counts (docs/perf.md). Keys are
       public, and a prefetch never faults, so any address will do; one beyond 2^48 is cut
       to its low bits (no key on Linux's 4-level paging; a wasted request otherwise). */
    mbgcmi_whole12_op *whole12_next;
    /* Optional: n (1..MBGCMI_JOBS12_MAX) validated linear jobs with 12-byte IVs in one call,
       software-pipelined (a job's final GHASH rides in the next job's first AES pass).
       Returns the mask of decrypt jobs whose tag failed; never touches a job's status (the
       caller completes the jobs). Jobs in one call must not write into each other's
       buffers. */
    uint64_t (*jobs12)(mbgcm_job *const *jobs, size_t n);
    /* Which burst jobs wait for jobs12 (mbgcmi_jobs12_takes): encrypts of at least
       jobs12_enc_from and fewer than jobs12_enc_below bytes, and decrypts of at least
       jobs12_dec_from and fewer than jobs12_dec_below; and every GMAC job that generates a
       tag (no message) with fewer than jobs12_gmac_below bytes of AAD (0: none), whatever
       the ranges say. The burst runs every other linear job with a 12-byte IV at once
       through whole12: gathering a job for a later
       call costs a few ns, which pays only where the pipelining hides a final GHASH and
       whole12 has no quicker kernel for the length (docs/perf.md). Unused without jobs12. */
    size_t jobs12_enc_from, jobs12_enc_below, jobs12_dec_from, jobs12_dec_below;
    size_t jobs12_gmac_below;
    /* Short messages with more than 16 bytes of AAD (a QUIC header, say) that whole12 runs as
       quickly as the common ones: AAD of 17..wide_aad_max bytes with len + aad_len at most
       wide_aad_span. A manager sends such jobs with a 12-byte IV to whole12 rather than to the
       lane kernel, which the short-job kernel's 16-byte AAD limit would leave them (0: none). */
    size_t wide_aad_max, wide_aad_span;
    /* Optional: the two ends of a message in pieces (struct mbgcmi_stream, below) in one call
       each. |st| is the stream's state from its GHASH field |s| on (the offsets are asserted
       in core/gcm_stream.c). stream12_start: a 12-byte IV and 0..16 bytes of AAD: S =
       GHASH(A), E_K(J0) and the first counter block J0 + 1. stream_finish: S over the partial
       block (when |used| > 0) and the length block, the full tag T = E_K(J0) ^ S to |t|; the
       state is left for the caller to wipe. NULL: the stream composes block and ghash. */
    void (*stream12_start)(const struct mbgcmi_key *k, const uint8_t *iv, const uint8_t *aad,
                           size_t aad_len, uint64_t *st);
    void (*stream_finish)(const struct mbgcmi_key *k, const uint64_t *st, uint8_t t[16]);
};

/* Whether a burst gathers a valid linear 12-byte-IV job (decrypt |dec|, |len| message bytes,
   |aad_len| bytes of AAD) for ops->jobs12: the ops' range for its direction, or
   jobs12_gmac_below for a GMAC job. */
static inline int mbgcmi_jobs12_takes(const struct mbgcmi_gcm_ops *ops, int dec, uint64_t len,
                                      uint64_t aad_len)
{
    if (ops->jobs12 == NULL) {
        return 0;
    }
    if (len == 0 && !dec && aad_len < ops->jobs12_gmac_below) {
        return 1;
    }
    return len < (dec ? ops->jobs12_dec_below : ops->jobs12_enc_below) &&
           len >= (dec ? ops->jobs12_dec_from : ops->jobs12_enc_from);
}

#define MBGCMI_JOBS12_MAX 64u
#define MBGCMI_W12_NEXT_SHIFT 16

/* 1 when a message of |len| bytes with |aad| bytes of AAD over 16 is one of whole12's short
   ones under the limits |max| and |span| (struct mbgcmi_gcm_ops.wide_aad_max, _span); lengths
   validated or not. */
static inline int mbgcmi_wide_aad_whole12(uint64_t max, uint64_t span, uint64_t len,
                                          uint64_t aad)
{
    return aad > 16 && aad <= max && len <= span && len + aad <= span;
}

/* J0 of a 12-byte IV: IV || 0^31 || 1, written as one 16-byte store: the kernels load J0 as
   one 16-byte vector, and a load that spans several smaller stores cannot be forwarded from
   them (a ~20-cycle stall). */
static inline void mbgcmi_j0_12(const uint8_t *iv, uint8_t j0[16])
{
    uint64_t lo;
    uint32_t w2;
    memcpy(&lo, iv, 8);
    memcpy(&w2, iv + 8, 4);
#if defined(__SSE2__)
    _mm_storeu_si128((__m128i *)(void *)j0,
                     _mm_set_epi64x((long long)(w2 | ((uint64_t)0x01000000u << 32)),
                                    (long long)lo));
#else
    const uint64_t hi = w2 | ((uint64_t)0x01000000u << 32);
    memcpy(j0, &lo, 8);
    memcpy(j0 + 8, &hi, 8);
#endif
}

/* J0 from the IV (12 bytes: mbgcmi_j0_12; else GHASH(IV padded || 0^64 || [ivbits]_64)). */
void mbgcmi_gcm_j0(const struct mbgcmi_arch *a, const struct mbgcmi_key *k, const uint8_t *iv,
                   size_t iv_len, uint8_t j0[16]);
/* Full GCM given J0 (test hook for counter wrap, and the one-shot core): writes |len| bytes
   of output and the full 16-byte tag T = E_K(J0) ^ GHASH. |decrypt| selects which side is
   hashed. Arguments must already be validated. */
void mbgcmi_gcm_crypt_j0(const struct mbgcmi_arch *a, const struct mbgcmi_key *k,
                         const uint8_t j0[16], const uint8_t *aad, size_t aad_len,
                         const uint8_t *in, size_t len, uint8_t *out, int decrypt,
                         uint8_t tag[16]);
/* Continue a message from mid-way: E_K(J0) known, GHASH state |s| (V form) and the next
   counter |ctr| as left by earlier blocks, |aad_left| AAD bytes and |text_left| message bytes
   to go (AAD first), and the message's length block. Writes the output and the full tag.
   mbgcmi_gcm_crypt_j0 is the special case of a fresh start; the scheduler uses it to finish a
   lone lane single-stream. |s| and |ctr| are updated. */
void mbgcmi_gcm_resume(const struct mbgcmi_arch *a, const struct mbgcmi_key *k,
                       const uint8_t ek0[16], uint64_t s[2], uint8_t ctr[16],
                       const uint8_t *aad, size_t aad_left, const uint8_t *in, uint8_t *out,
                       size_t text_left, const uint8_t lenblk[16], int decrypt,
                       uint8_t tag[16]);
/* Whole message on validated arguments: J0, GCM, then the tag written (encrypt) or compared
   in constant time (decrypt). Returns 1 when a decrypt's tag did not match (the caller zeroes
   |out|: the one-shot API and the job completion do), else 0. */
int mbgcmi_gcm_message(const struct mbgcmi_arch *a, const struct mbgcmi_key *k,
                       const uint8_t *iv, size_t iv_len, const uint8_t *aad, size_t aad_len,
                       const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag,
                       size_t tag_len, int decrypt);

/* A message in pieces: init hashes the AAD; update takes pieces of any length (in == out
   allowed); tag pads the last partial block, adds the length block, writes the full tag and
   wipes the state. The caller checks lengths (total <= 2^36-32). The state is plain data (no
   pointer into itself): a copy is an independent stream. */
struct mbgcmi_stream {
    const struct mbgcmi_key *key;
    const struct mbgcmi_arch *arch;
    uint64_t s[2];       /* GHASH state, V form */
    uint8_t ek0[16];     /* E_K(J0) */
    uint8_t ctr[16];     /* counter of the next block to encrypt */
    uint8_t ks[16];      /* key stream of the partial block in progress */
    uint8_t cbuf[16];    /* its ciphertext bytes so far, zero past |used| */
    uint64_t aad_len;
    uint64_t len;        /* message bytes so far */
    uint32_t used;       /* bytes of the partial block consumed, 0..15 */
    int decrypt;
};
void mbgcmi_stream_init(struct mbgcmi_stream *c, const struct mbgcmi_arch *a,
                        const struct mbgcmi_key *k, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, int decrypt);
void mbgcmi_stream_update(struct mbgcmi_stream *c, const uint8_t *in, size_t len,
                          uint8_t *out);
void mbgcmi_stream_tag(struct mbgcmi_stream *c, uint8_t t[16]);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_CORE_GCM_H */
