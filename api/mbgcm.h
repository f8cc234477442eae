/*
 * mbgcm.h — public API of mbgcm, a multi-buffer batch AES-GCM engine.
 *
 * Conventions (said once, true for every call in this header)
 * ------------------------------------------------------------
 *  - A function that can fail returns an |int| status: MBGCM_OK (0) on success or one of the
 *    MBGCM_ERR_* codes below. The return value means only that; results come back through
 *    output parameters.
 *  - All lengths are in bytes and have type size_t. Parameters go context, then inputs and
 *    outputs in the order of the DESIGN contract (the one-shot calls keep GCM's natural order:
 *    key, iv, aad, input, output, tag).
 *  - Every argument is checked before any memory is touched: a bad call returns a specific
 *    status and changes nothing (except mbgcm_decrypt's documented zeroing of |out| when
 *    authentication fails).
 *  - Keys are caller-allocated (struct mbgcm_key), expanded once by mbgcm_key_init, and then
 *    only read: one key may be used by any number of calls in any number of threads at once.
 *  - No global mutable state besides the one-time arch choice (MBGCM_ARCH, read once).
 *
 * Limits (NIST SP 800-38D): key 16, 24 or 32 bytes; IV 1 .. 2^61-1 bytes (12 is the fast
 * path, other lengths are hashed into the counter block); AAD 0 .. 2^61-1 bytes; message
 * 0 .. 2^36-32 bytes; tag 4, 8, 12, 13, 14, 15 or 16 bytes (short tags weaken forgery
 * resistance: see SP 800-38D appendix C before using 4 or 8).
 *
 * This header is C99 and C++ compatible.
 */
#ifndef MBGCM_H
#define MBGCM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(MBGCM_BUILDING) && (defined(__GNUC__) || defined(__clang__))
#define MBGCM_API __attribute__((visibility("default")))
#else
#define MBGCM_API
#endif

/* Library version (also returned as a string by mbgcm_version()). */
#define MBGCM_VERSION_MAJOR 0
#define MBGCM_VERSION_MINOR 1
#define MBGCM_VERSION_PATCH 0

/*
 * Status codes. The values are part of the ABI and never change.
 */
enum mbgcm_status {
    MBGCM_OK = 0,              /* success */
    MBGCM_ERR_AUTH = 1,        /* decrypt: tag mismatch; the output was zeroed */
    MBGCM_ERR_INVALID = 2,     /* NULL pointer with a non-zero length, partially overlapping
                                  buffers, misaligned or uninitialised key, bad direction */
    MBGCM_ERR_KEY_LEN = 3,     /* raw key is not 16, 24 or 32 bytes */
    MBGCM_ERR_IV_LEN = 4,      /* IV length 0 or >= 2^61 */
    MBGCM_ERR_TAG_LEN = 5,     /* tag length not in {4, 8, 12, 13, 14, 15, 16} */
    MBGCM_ERR_LEN = 6,         /* message longer than 2^36-32 bytes or AAD >= 2^61 bytes */
    MBGCM_ERR_NOMEM = 7,       /* allocation failed */
    MBGCM_ERR_UNSUPPORTED = 8, /* the requested arch is unknown or this CPU/OS lacks it */
    MBGCM_PENDING = 9          /* job submitted and not yet returned (job API) */
};

/*
 * mbgcm_strerror returns a static, human-readable description of |status|; values outside the
 * list above give "unknown status". The text never contains key or data material.
 */
MBGCM_API const char *mbgcm_strerror(int status);

/* mbgcm_version returns the library version as "MAJOR.MINOR.PATCH". */
MBGCM_API const char *mbgcm_version(void);

/* ---------------------------------------------------------------------------------------------
 * Keys
 * ------------------------------------------------------------------------------------------- */

/* Size in bytes of struct mbgcm_key (ABI: fixed for a given SONAME). */
#define MBGCM_KEY_SIZE 1536

/*
 * struct mbgcm_key — an expanded AES-GCM key: the AES round keys, the round count and the
 * GHASH key H with its powers H^1..H^32 and their Karatsuba halves, in the layout the kernels
 * read. The contents are private; the type is complete so that callers can place keys where
 * they like (stack, static, arrays, inside their own structs). It must be 64-byte aligned: the
 * type carries that alignment, so declared objects are aligned automatically; heap users must
 * use aligned_alloc(64, sizeof(mbgcm_key)) or posix_memalign. mbgcm_key_init does not allocate.
 * A key holds secret material: release it with mbgcm_key_wipe.
 */
typedef struct mbgcm_key {
#if defined(__cplusplus)
    alignas(64) unsigned char opaque_[MBGCM_KEY_SIZE];
#elif defined(__GNUC__) || defined(__clang__)
    unsigned char opaque_[MBGCM_KEY_SIZE] __attribute__((aligned(64)));
#else
    _Alignas(64) unsigned char opaque_[MBGCM_KEY_SIZE];
#endif
} mbgcm_key;

/*
 * mbgcm_key_init expands the |raw_len|-byte AES key at |raw| into |key|.
 *   key      where to write the expanded key; must be 64-byte aligned.
 *   raw      the raw AES key bytes (read only during this call; not retained).
 *   raw_len  16 (AES-128), 24 (AES-192) or 32 (AES-256).
 * Returns MBGCM_OK; MBGCM_ERR_INVALID if |key| or |raw| is NULL or |key| is not 64-byte
 * aligned; MBGCM_ERR_KEY_LEN for any other length. On error |key| is not modified.
 * Never allocates. Safe to call from several threads on different keys.
 */
MBGCM_API int mbgcm_key_init(mbgcm_key *key, const void *raw, size_t raw_len);

/*
 * mbgcm_key_wipe overwrites every byte of |key| with zeros in a way the compiler cannot
 * elide. Afterwards the key is uninitialised: using it returns MBGCM_ERR_INVALID until it is
 * initialised again. NULL is accepted and ignored. The caller must make sure no call or
 * pending job still uses the key.
 */
MBGCM_API void mbgcm_key_wipe(mbgcm_key *key);

/* ---------------------------------------------------------------------------------------------
 * One-shot AEAD calls
 *
 * The implementation is chosen once per process: MBGCM_ARCH=auto (or unset) picks the fastest
 * path this CPU and OS support; MBGCM_ARCH=generic|aesni|avx2|avx512 forces one, and an arch
 * that is unknown or not supported here makes every one-shot call return MBGCM_ERR_UNSUPPORTED.
 * ------------------------------------------------------------------------------------------- */

/*
 * mbgcm_encrypt encrypts and authenticates one message.
 *   key      an initialised key (read only; may be shared between threads).
 *   iv       |iv_len| bytes of nonce; 1 <= iv_len < 2^61. 12 bytes is the standard, fast
 *            case. WARNING: never reuse an (key, iv) pair for two messages.
 *   aad      |aad_len| bytes of additional authenticated data (not encrypted); may be NULL
 *            when aad_len is 0.
 *   in       |len| bytes of plaintext; may be NULL when len is 0. len <= 2^36-32.
 *   out      |len| bytes of ciphertext output; may equal |in| (in-place) but must not
 *            otherwise overlap it; may be NULL when len is 0.
 *   tag      |tag_len| bytes of authentication tag output, written last.
 *   tag_len  4, 8, 12, 13, 14, 15 or 16 (the first tag_len bytes of the full GCM tag).
 * Returns MBGCM_OK, or MBGCM_ERR_INVALID / _IV_LEN / _LEN / _TAG_LEN / _UNSUPPORTED (then
 * nothing was written).
 */
MBGCM_API int mbgcm_encrypt(const mbgcm_key *key, const void *iv, size_t iv_len,
                            const void *aad, size_t aad_len, const void *in, size_t len,
                            void *out, void *tag, size_t tag_len);

/*
 * mbgcm_decrypt checks and decrypts one message. Parameters as for mbgcm_encrypt, with |in|
 * the ciphertext, |out| the plaintext output and |tag| the received tag (read once, at the
 * start, so it may live anywhere, even inside |out|).
 * Returns MBGCM_OK when the tag matches (compared in constant time). Returns MBGCM_ERR_AUTH
 * when it does not: then all |len| bytes of |out| have been set to zero before returning, so
 * no unauthenticated plaintext is ever released (with in == out the ciphertext is gone too).
 * Other errors as for mbgcm_encrypt, with nothing written.
 */
MBGCM_API int mbgcm_decrypt(const mbgcm_key *key, const void *iv, size_t iv_len,
                            const void *aad, size_t aad_len, const void *in, size_t len,
                            void *out, const void *tag, size_t tag_len);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_H */
