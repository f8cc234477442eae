/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cobble_internal.h — internal interfaces of the Cobblestone layer (cobble/) and its tests.
 *
 * Layering: cobble/ is its own library (libmbgcm-cobble) on top of the engine's public API
 * only (mbgcm.h: the manager's bursts for every chunk, the incremental calls on the failure
 * path that tells "trailing data" from "modified") plus OpenSSL's libcrypto (HKDF, random
 * salts, OPENSSL_cleanse, CRYPTO_memcmp). It never includes an engine-internal header.
 *
 * Files: kdf.c (HKDF-Expand with OpenSSL, commitment, per-chunk nonces), engine.c (runs of
 * chunks through one manager; the thread pool), diag.c (classifying a failed chunk),
 * oneshot.c (seal/open, lengths, raw mode), stream.c (sealer/opener), reader.c (random
 * access), batch.c (same-key batch call), errors.c (status texts), mem.c (allocation).
 */
#ifndef MBGCM_COBBLE_INTERNAL_H
#define MBGCM_COBBLE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include <openssl/crypto.h>

#include "mbgcm.h"
#include "mbgcm_cobble.h"

#define MBGCMI_COB_CHUNK      MBGCM_COBBLE_CHUNK_LEN        /* 16384 */
#define MBGCMI_COB_SCHUNK     MBGCM_COBBLE_SEALED_CHUNK_LEN /* 16400 */
#define MBGCMI_COB_TAG        MBGCM_COBBLE_TAG_LEN          /* 16 */
#define MBGCMI_COB_HDR        MBGCM_COBBLE_HEADER_LEN       /* 56 */
#define MBGCMI_COB_SALT       MBGCM_COBBLE_SALT_LEN         /* 24 */
#define MBGCMI_COB_COMMIT     MBGCM_COBBLE_COMMIT_LEN       /* 32 */
#define MBGCMI_COB_MAXTHREADS 256
/* Jobs per burst: a multiple of the four lanes, small enough for the stack (about 10 KB). */
#define MBGCMI_COB_BURST 64
/* SP 800-38D limits, as the engine's header states them. */
#define MBGCMI_COB_MAX_IV_LEN   ((UINT64_C(1) << 61) - 1)
#define MBGCMI_COB_MAX_AAD_LEN  ((UINT64_C(1) << 61) - 1)
#define MBGCMI_COB_MAX_TEXT_LEN ((UINT64_C(1) << 36) - 32)

/* Constant-time checking (docs/security.md, "ctgrind"): where a value computed from secrets
   becomes public on purpose (a comparison result), it is marked defined for memcheck. */
#if defined(MBGCM_CTGRIND)
#include <valgrind/memcheck.h>
#define MBGCMI_COB_DECLASSIFY(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define MBGCMI_COB_DECLASSIFY(p, n) ((void)(p), (void)(n))
#endif

/* ---- helpers ------------------------------------------------------------------------------ */
/* Zero |n| bytes with a store the compiler may not remove. */
static inline void mbgcmi_cob_wipe(void *p, size_t n)
{
    if (n != 0) {
        OPENSSL_cleanse(p, n);
    }
}
/* Constant-time equality of |n| bytes: 1 if equal (the result is public). */
static inline int mbgcmi_cob_equal(const void *a, const void *b, size_t n)
{
    int eq = CRYPTO_memcmp(a, b, n) == 0;
    MBGCMI_COB_DECLASSIFY(&eq, sizeof eq);
    return eq;
}
/* 1 if [a, a+alen) and [b, b+blen) share a byte; both non-empty; no end pointer formed. */
static inline int mbgcmi_cob_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa <= pb ? pb - pa < alen : pa - pb < blen;
}
static inline int mbgcmi_cob_tag_len_ok(size_t t)
{
    return t == 4 || t == 8 || (t >= 12 && t <= 16);
}
static inline uint64_t mbgcmi_cob_load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v); /* little-endian targets only (checked in CMake) */
}
static inline void mbgcmi_cob_store_be64(uint8_t *p, uint64_t v)
{
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
}

/* ---- mem.c: every allocation of the layer, 64-byte aligned; callers wipe before freeing.
   Tests install hooks (NULL restores aligned_alloc / free) to inject failures and to check
   that memory is wiped before it is released. */
void *mbgcmi_cob_alloc(size_t size);
void mbgcmi_cob_free(void *p, size_t size);
void mbgcmi_cob_set_alloc_hooks(void *(*a)(size_t size), void (*f)(void *p, size_t size));

/* The per-message secrets: the AES key (expanded) and the base nonce. */
struct mbgcmi_cob_keys {
    mbgcm_key key; /* 64-byte aligned by its type */
    uint8_t nonce[12];
    uint32_t key_len; /* 16 or 32 */
};

/* ---- kdf.c ------------------------------------------------------------------------------- */
/* HKDF-Expand(PRK = |ikm| (key_len 16 or 32), info(salt, context)) into |okm| (key_len + 44
   bytes: key || base_nonce || commitment). OpenSSL's EVP_KDF "HKDF" in expand-only mode when
   the info fits the 1024 bytes every OpenSSL 3 accepts; longer contexts (or |force_hmac|, a
   test hook) chain RFC 5869's T(i) = HMAC-SHA-512(PRK, T(i-1) || info || i) with EVP_MAC.
   Returns MBGCM_OK, MBGCM_ERR_NOMEM or MBGCM_ERR_LIBCRYPTO. */
int mbgcmi_cob_derive(const uint8_t *ikm, size_t key_len, const uint8_t salt[24],
                      const uint8_t *context, size_t context_len, int force_hmac, uint8_t *okm);
/* Derive and expand: keys from (ikm, salt, context); the commitment goes to |commit|.
   Returns as mbgcmi_cob_derive. */
int mbgcmi_cob_setup(struct mbgcmi_cob_keys *k, const uint8_t *ikm, size_t key_len,
                     const uint8_t salt[24], const uint8_t *context, size_t context_len,
                     uint8_t commit[32]);
/* Raw mode: keys given directly. */
void mbgcmi_cob_setup_raw(struct mbgcmi_cob_keys *k, const uint8_t *aes_key, size_t key_len,
                          const uint8_t nonce[12]);
void mbgcmi_cob_keys_wipe(struct mbgcmi_cob_keys *k);
/* nonce of chunk |index|: base XOR index as a 96-bit big-endian integer */
void mbgcmi_cob_nonce(const uint8_t base[12], uint64_t index, uint8_t out[12]);
/* 24 random bytes from RAND_bytes: MBGCM_OK or MBGCM_ERR_LIBCRYPTO. */
int mbgcmi_cob_salt(uint8_t salt[24]);

/* ---- engine.c ------------------------------------------------------------------------------ */
/* A run of consecutive chunks at fixed strides: chunk i (0 <= i < n) has index index0 + i,
   input at src + i*src_stride, output at dst + i*dst_stride, and CHUNK plaintext bytes except
   the last (last_len). The tag follows the ciphertext: at dst + len when encrypting, read at
   src + len when decrypting. */
struct mbgcmi_cob_run {
    int dir; /* MBGCM_ENCRYPT or MBGCM_DECRYPT */
    uint64_t index0;
    size_t n;
    const uint8_t *src;
    size_t src_stride;
    uint8_t *dst;
    size_t dst_stride;
    size_t last_len;
};

/* Worker set: the calling thread (worker 0) and threads-1 pthreads, each with its own
   manager, sleeping between runs. Nothing mutable is shared but the hand-off fields under the
   pool's mutex. */
struct mbgcmi_cob_pool;
/* Create from |opts| (NULL: one worker, a new manager). |max_chunks| (0: unknown) is the
   longest run the pool will see: no more threads are started than such a run can use.
   Returns MBGCM_OK, MBGCM_ERR_INVALID (threads > 256), MBGCM_ERR_NOMEM,
   MBGCM_ERR_UNSUPPORTED (arch). */
int mbgcmi_cob_pool_new(struct mbgcmi_cob_pool **out, const mbgcm_cobble_opts *opts,
                        uint64_t max_chunks);
void mbgcmi_cob_pool_free(struct mbgcmi_cob_pool *p);
/* Run |r| split over the workers (each gets at least MBGCM_COBBLE_THREAD_MIN_CHUNKS chunks).
   Returns MBGCM_OK, or the status of the lowest failing chunk (MBGCM_ERR_AUTH for a decrypt
   whose tag failed: its output is zero) with *bad set to its position i in the run. A worker
   stops after the burst in which its first failure happened; outputs of other chunks may or
   may not have been written. */
int mbgcmi_cob_pool_run(struct mbgcmi_cob_pool *p, const struct mbgcmi_cob_keys *k,
                        const struct mbgcmi_cob_run *r, size_t *bad);
/* The same on one manager, calling thread only. */
int mbgcmi_cob_run_mgr(mbgcm_mgr *m, const struct mbgcmi_cob_keys *k,
                       const struct mbgcmi_cob_run *r, size_t first, size_t count, size_t *bad);

/* ---- diag.c -------------------------------------------------------------------------------- */
/* A chunk at |index| failed authentication; its sealed bytes are region[0 .. len) (16400 for a
   full-size chunk, or the final chunk's bytes). Returns MBGCM_ERR_TRAILING when some proper
   prefix of 16 .. min(len - 1, 16399) bytes authenticates as chunk |index| (the message ended
   there and more bytes follow), else MBGCM_ERR_AUTH. One pass over the region with the
   engine's incremental calls (a tag per candidate length). */
int mbgcmi_cob_classify(const struct mbgcmi_cob_keys *k, uint64_t index, const uint8_t *region,
                        size_t len);

/* ---- shared helpers -------------------------------------------------------------------------- */
/* p + off without forming NULL + 0 (undefined in C). */
static inline const uint8_t *mbgcmi_cob_at(const uint8_t *p, size_t off)
{
    return off ? p + off : p;
}
static inline uint8_t *mbgcmi_cob_atw(uint8_t *p, size_t off)
{
    return off ? p + off : p;
}
/* Structure of a sealed body (after the header) of |body| bytes: whole chunks and the bytes
   after them. */
static inline void mbgcmi_cob_split(size_t body, size_t *nfull, size_t *rem)
{
    *nfull = body / MBGCMI_COB_SCHUNK;
    *rem = body % MBGCMI_COB_SCHUNK;
}
/* Validate opts (NULL allowed). */
int mbgcmi_cob_opts_ok(const mbgcm_cobble_opts *opts);

/* Test hooks (internal): move a streaming object's next chunk index, e.g. next to 2^38. */
void mbgcmi_cob_sealer_set_index(mbgcm_cobble_sealer *s, uint64_t index);
void mbgcmi_cob_opener_set_index(mbgcm_cobble_opener *o, uint64_t index);

#endif /* MBGCM_COBBLE_INTERNAL_H */
