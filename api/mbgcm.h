/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm.h — public API of mbgcm, a multi-buffer batch AES-GCM engine.
 *
 * Conventions (said once, true for every call in this header)
 * ------------------------------------------------------------
 *  - A function that can fail returns an |int| status: MBGCM_OK (0) on success or one of the
 *    MBGCM_ERR_* codes below. The return value means only that; results come back through
 *    output parameters.
 *  - All lengths are in bytes and have type size_t. Parameters go context, then inputs and
 *    outputs in the order of docs/api.md (the one-shot calls keep GCM's natural order:
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
#define MBGCM_VERSION_MINOR 2
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
 *   raw      the raw AES key bytes (read only during this call, before |key| is written, so
 *            they may even lie inside |key|; not retained).
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
 * The avx512 arch's variant (tuning per microarchitecture) is chosen from the CPU the same
 * way; MBGCM_AVX512_VARIANT=by16|by32|by32h|auto overrides it (an unknown one:
 * MBGCM_ERR_UNSUPPORTED). Every variant computes the same bytes.
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

/* ---------------------------------------------------------------------------------------------
 * Incremental single-message API, for a message that arrives in pieces.
 *
 *     mbgcm_ctx ctx;
 *     mbgcm_ctx_init(&ctx, &key, MBGCM_ENCRYPT, iv, 12, aad, aad_len);
 *     mbgcm_ctx_update(&ctx, piece1, n1, out1);   // any number of times, any lengths
 *     mbgcm_ctx_update(&ctx, piece2, n2, out2);
 *     mbgcm_ctx_final(&ctx, tag, 16);             // encrypt: the tag
 *     // decrypt instead: mbgcm_ctx_verify(&ctx, tag, 16) == MBGCM_OK
 *
 * It computes exactly what mbgcm_encrypt / mbgcm_decrypt compute on the concatenated pieces,
 * with the one-shot arch (MBGCM_ARCH or auto) and its wide kernels. The context holds a
 * pointer to the key (keep the key initialised until the context is finalised or wiped) and
 * secret state (wiped by final, verify and mbgcm_ctx_wipe). One context per message; not
 * shared between threads while in use.
 *
 * WARNING (decrypt): update releases plaintext before the tag is checked, which streaming
 * decryption cannot avoid. Do not act on any of it until mbgcm_ctx_verify returns MBGCM_OK;
 * on MBGCM_ERR_AUTH discard everything update produced. If you can hold the whole message,
 * mbgcm_decrypt releases nothing unauthenticated.
 * ------------------------------------------------------------------------------------------- */

/* Size in bytes of struct mbgcm_ctx (ABI: fixed for a given SONAME). */
#define MBGCM_CTX_SIZE 256

/* struct mbgcm_ctx — state of one message in progress; contents private, 16-byte aligned. */
typedef struct mbgcm_ctx {
#if defined(__cplusplus)
    alignas(16) unsigned char opaque_[MBGCM_CTX_SIZE];
#elif defined(__GNUC__) || defined(__clang__)
    unsigned char opaque_[MBGCM_CTX_SIZE] __attribute__((aligned(16)));
#else
    _Alignas(16) unsigned char opaque_[MBGCM_CTX_SIZE];
#endif
} mbgcm_ctx;

/*
 * mbgcm_ctx_init starts a message: |key| (initialised, must stay valid while |ctx| is in
 * use), |dir| MBGCM_ENCRYPT or MBGCM_DECRYPT, |iv| of |iv_len| bytes (1 .. 2^61-1), and all the
 * AAD, |aad_len| bytes (0 .. 2^61-1; |aad| may be NULL when 0). Returns MBGCM_OK,
 * MBGCM_ERR_INVALID (NULL/misaligned/uninitialised key, NULL ctx, iv or aad with a length,
 * bad dir), MBGCM_ERR_IV_LEN, MBGCM_ERR_LEN or MBGCM_ERR_UNSUPPORTED (see MBGCM_ARCH).
 */
MBGCM_API int mbgcm_ctx_init(mbgcm_ctx *ctx, const mbgcm_key *key, int dir, const void *iv,
                             size_t iv_len, const void *aad, size_t aad_len);
/*
 * mbgcm_ctx_update processes the next |len| bytes of the message from |in| into |out| (both
 * |len| bytes; out == in allowed, any other overlap is MBGCM_ERR_INVALID; NULL allowed when
 * len is 0). Returns MBGCM_OK; MBGCM_ERR_LEN when the message would exceed 2^36-32 bytes;
 * MBGCM_ERR_INVALID for a context that was not initialised or is already finished.
 */
MBGCM_API int mbgcm_ctx_update(mbgcm_ctx *ctx, const void *in, size_t len, void *out);
/*
 * mbgcm_ctx_final ends an encryption: writes the first |tag_len| (4, 8, 12..16) bytes of the
 * tag and wipes the context. Returns MBGCM_OK, MBGCM_ERR_TAG_LEN (context left as it was),
 * or MBGCM_ERR_INVALID (not an encrypting context in progress, NULL tag).
 */
MBGCM_API int mbgcm_ctx_final(mbgcm_ctx *ctx, void *tag, size_t tag_len);
/*
 * mbgcm_ctx_verify ends a decryption: compares the tag in constant time with the |tag_len|
 * bytes at |tag| and wipes the context. Returns MBGCM_OK or MBGCM_ERR_AUTH (see WARNING
 * above), MBGCM_ERR_TAG_LEN (context left as it was) or MBGCM_ERR_INVALID.
 */
MBGCM_API int mbgcm_ctx_verify(mbgcm_ctx *ctx, const void *tag, size_t tag_len);
/* mbgcm_ctx_wipe abandons a message and zeroes |ctx| (NULL ignored). */
MBGCM_API void mbgcm_ctx_wipe(mbgcm_ctx *ctx);
/*
 * mbgcm_ctx_copy copies a message in progress: afterwards |dst| and |src| are two independent
 * contexts at the same point of the same message (same key, which must stay initialised for
 * both), e.g. to compute the tag of a prefix and then go on with the original. Whatever |dst|
 * held before is overwritten (not finalised). Each copy holds secret state and must be ended
 * on its own by final, verify or mbgcm_ctx_wipe. Returns MBGCM_OK, or MBGCM_ERR_INVALID (NULL
 * argument, or |src| not a context in progress; then |dst| is unchanged). dst == src is
 * allowed and changes nothing. Not thread-safe against concurrent use of |src|.
 */
MBGCM_API int mbgcm_ctx_copy(mbgcm_ctx *dst, const mbgcm_ctx *src);

/* ---------------------------------------------------------------------------------------------
 * Job manager
 *
 * Usage model (ipsec-mb style). A manager belongs to one thread; it has no internal threads
 * and never blocks. The application takes a job slot from the ring, fills every field,
 * submits it, and gets jobs back strictly in submission order:
 *
 *     mbgcm_job *job = mbgcm_get_next_job(m);      // a ring slot, owned by the manager
 *     job->key = &key; job->dir = MBGCM_ENCRYPT; job->iv = ...; ...   // set every field
 *     job = mbgcm_submit_job(m);                   // may return an older, finished job
 *     while (job) { use(job); job = mbgcm_get_completed_job(m); }
 *     ...
 *     while ((job = mbgcm_flush_job(m)) != NULL) use(job);   // drain at the end of a batch
 *
 * The manager packs up to four jobs into the four 128-bit lanes of each vector instruction
 * and runs the lanes when they are full, when the ring is full, when a job has waited longer
 * than flush_timeout_ns (checked by submit and poll), or when flush is called. A job that
 * finished early waits until every earlier job is returned. A job with bad arguments is
 * completed at once with its error status (it keeps its place in the order and disturbs
 * nothing else); the manager keeps working. Between submit and return the job, its key and
 * its buffers must stay valid and untouched; a returned job stays valid and unchanged until
 * the next mbgcm_get_next_job. A decrypt job that fails authentication has |dst| zeroed and
 * status MBGCM_ERR_AUTH. Jobs in flight together (in the ring, in one burst) run
 * concurrently and in no particular order: no job's dst or tag may overlap any buffer of
 * another such job (sharing read-only inputs — keys, IVs, AAD, a source — is fine).
 *
 * Burst: mbgcm_submit_burst takes an array of caller-owned jobs and returns with all of them
 * complete. Burst jobs never enter the ring; ring jobs may make progress meanwhile.
 * ------------------------------------------------------------------------------------------- */

typedef struct mbgcm_mgr mbgcm_mgr;

/* Manager configuration. Zero-initialise and set what you need; NULL means all defaults. */
typedef struct mbgcm_config {
    const char *arch;          /* NULL or "auto": the fastest arch this CPU and OS support, or
                                  the one the environment variable MBGCM_ARCH names when it is
                                  set and not empty; or "avx512", "avx2", "aesni", "generic":
                                  that arch. Any other string, the empty one included, and an
                                  arch this machine lacks give MBGCM_ERR_UNSUPPORTED. */
    unsigned    lanes;         /* lanes per manager: 4, 8, 12 or 16; 0 = 4 (one group). Lanes
                                  serve the jobs an arch runs multi-buffer (see docs/design.md,
                                  "What each arch runs"); jobs it runs single-stream ignore it.
                                  Ring jobs for the short-job kernel (avx512) run when one
                                  shape has 8 of them waiting, or |lanes| when that is more:
                                  16 costs less per job, but at low load a job waits for
                                  twice as many arrivals (flush_timeout_ns bounds the wait) */
    unsigned    queue_size;    /* ring slots, a power of two in 1..65536; 0 = default (256) */
    uint64_t    flush_timeout_ns; /* longest time a job waits for lanes to fill before submit
                                  or poll runs them anyway; 0 = only when lanes or the ring
                                  are full or flush is called */
    /* Memory (optional; both NULL or both set, else MBGCM_ERR_INVALID): the manager makes one
       allocation, at create, through mem_alloc(mem_ctx, size, 64), which must return |size|
       bytes aligned to 64 or NULL (then MBGCM_ERR_NOMEM); mbgcm_mgr_free wipes it and returns
       it with mem_free(mem_ctx, p, size). Use them to place a manager on a NUMA node or in a
       pool. NULL: aligned_alloc / free. */
    void     *(*mem_alloc)(void *mem_ctx, size_t size, size_t align);
    void      (*mem_free)(void *mem_ctx, void *p, size_t size);
    void       *mem_ctx;
} mbgcm_config;

/*
 * mbgcm_mgr_create allocates a manager with configuration |cfg| (NULL: defaults) into *out.
 * Returns MBGCM_OK; MBGCM_ERR_INVALID (NULL out, lanes not 0/4/8/12/16, queue_size not a
 * power of two in range); MBGCM_ERR_UNSUPPORTED (arch unknown or not supported by this CPU);
 * MBGCM_ERR_NOMEM. On error *out is set to NULL (when |out| is not NULL).
 */
MBGCM_API int mbgcm_mgr_create(mbgcm_mgr **out, const mbgcm_config *cfg);
/* mbgcm_mgr_new is mbgcm_mgr_create returning the manager, or NULL on any error. */
MBGCM_API mbgcm_mgr *mbgcm_mgr_new(const mbgcm_config *cfg);
/* mbgcm_mgr_free releases |m| (NULL is ignored). Jobs still pending are abandoned: flush first
   if you need them. All lane state (round keys, hash powers, GHASH state) is wiped. */
MBGCM_API void mbgcm_mgr_free(mbgcm_mgr *m);
/* mbgcm_mgr_arch returns the arch the manager runs: "generic", "aesni", "avx2" or "avx512". */
MBGCM_API const char *mbgcm_mgr_arch(const mbgcm_mgr *m);
/* mbgcm_mgr_last_error returns the status of the last manager-level failure (a bad call such
   as a NULL burst array), or MBGCM_OK. Per-job errors go to each job's status instead. */
MBGCM_API int mbgcm_mgr_last_error(const mbgcm_mgr *m);

/* Job directions. */
enum { MBGCM_ENCRYPT = 1, MBGCM_DECRYPT = 2 };

/*
 * struct mbgcm_seg — one segment of a scatter-gather list (e.g. one mbuf of a chain).
 * A job may take its input, its output or both as segment lists instead of one buffer: the
 * message is the concatenation of the segments, in order. Segments may have any lengths
 * (including 0 and lengths that split a 16-byte block: the block is gathered into a 16-byte
 * lane slot, never the whole message into a bounce buffer).
 */
typedef struct mbgcm_seg {
    uint8_t *ptr;              /* first byte (only read when the list is a source) */
    size_t   len;              /* bytes in this segment; NULL ptr allowed only when 0 */
} mbgcm_seg;

/* Most segments a list may have (MBGCM_ERR_INVALID beyond). */
#define MBGCM_MAX_SEGS 256

/*
 * struct mbgcm_job — one AES-GCM operation. All lengths in bytes.
 */
typedef struct mbgcm_job {
    const mbgcm_key *key;      /* initialised key; read only, may be shared by many jobs */
    int              dir;      /* MBGCM_ENCRYPT or MBGCM_DECRYPT */
    const uint8_t   *iv;       /* nonce, iv_len bytes */
    size_t           iv_len;   /* 1 .. 2^61-1; 12 is the fast path */
    const uint8_t   *aad;      /* additional authenticated data; NULL allowed when aad_len 0 */
    size_t           aad_len;  /* 0 .. 2^61-1 */
    const uint8_t   *src;      /* input: plaintext (encrypt) or ciphertext (decrypt) */
    uint8_t         *dst;      /* output, len bytes; dst == src (in place) or disjoint */
    size_t           len;      /* 0 .. 2^36-32 */
    uint8_t         *tag;      /* encrypt: tag written here; decrypt: the expected tag, which
                                  must stay unchanged until the job is returned (like every
                                  input); it may lie inside dst: it is read before any output
                                  is written */
    size_t           tag_len;  /* 4, 8, 12..16 */
    void            *user_data;/* the caller's; never touched by the library */
    int              status;   /* set by the library: MBGCM_PENDING while in flight, then
                                  MBGCM_OK, MBGCM_ERR_AUTH (dst zeroed) or an argument error */
    /* Scatter-gather (optional; zero = linear buffers src/dst):
       src_sgl: when not NULL the input is these src_nseg segments and src must be NULL;
       dst_sgl: when not NULL the output goes to these dst_nseg segments and dst must be NULL.
       Each list's lengths must add up to len. src_sgl == dst_sgl (the same array) is in-place;
       otherwise no source byte may share memory with a destination byte except when a source
       segment and a destination segment are the same buffer (same ptr and len) at the same
       offset of the message. On a failed tag every destination segment is zeroed. */
    const mbgcm_seg *src_sgl;
    const mbgcm_seg *dst_sgl;
    uint32_t         src_nseg; /* 1 .. MBGCM_MAX_SEGS when src_sgl is set */
    uint32_t         dst_nseg; /* 1 .. MBGCM_MAX_SEGS when dst_sgl is set */
    void            *reserved_; /* must be NULL */
} mbgcm_job;

/* mbgcm_get_next_job returns the ring slot to fill next. Never NULL for a valid manager; the
   same slot until it is submitted. The slot keeps the fields of the job that used it before:
   set them all. It may be the slot of a job returned before this call (which is why a
   returned job is valid only until then): a job that ran at once in an empty ring leaves its
   slot to the next job. */
MBGCM_API mbgcm_job *mbgcm_get_next_job(mbgcm_mgr *m);
/* mbgcm_submit_job submits the slot from mbgcm_get_next_job. It may run the lanes (lanes
   full, ring full, a timed-out job). Returns the oldest job if it is complete (the caller now
   has it), else NULL. A full ring is never an error: submit then completes the oldest job and
   returns it. */
MBGCM_API mbgcm_job *mbgcm_submit_job(mbgcm_mgr *m);
/* mbgcm_get_completed_job never runs kernels: returns the oldest job if complete, else NULL. */
MBGCM_API mbgcm_job *mbgcm_get_completed_job(mbgcm_mgr *m);
/* mbgcm_flush_job returns NULL only when no job is queued; otherwise it runs the lanes until
   the oldest job is complete and returns it. Call it until NULL to drain the manager. */
MBGCM_API mbgcm_job *mbgcm_flush_job(mbgcm_mgr *m);
/* mbgcm_mgr_poll is the idle-loop call: it completes every job older than flush_timeout_ns
   (nothing when the timeout is 0), then behaves like mbgcm_get_completed_job. */
MBGCM_API mbgcm_job *mbgcm_mgr_poll(mbgcm_mgr *m);
/* mbgcm_queue_size returns the number of ring jobs submitted and not yet returned. */
MBGCM_API unsigned mbgcm_queue_size(const mbgcm_mgr *m);

/*
 * mbgcm_submit_burst processes |n| caller-owned jobs and returns when all are complete, each
 * with its status set. Returns how many finished with MBGCM_OK. Burst jobs never enter the
 * ring, never come back from get_completed/flush and do not change mbgcm_queue_size; ring
 * jobs may progress meanwhile and still come back in order. |jobs| NULL with n > 0 returns 0
 * and sets mbgcm_mgr_last_error to MBGCM_ERR_INVALID. A burst is the cheapest way in: short
 * jobs share lanes, and on avx512 consecutive long jobs with 12-byte IVs are pipelined (one
 * job's last GHASH runs inside the next one's first AES pass), so the jobs of one burst must
 * not write into each other's buffers (see above).
 */
MBGCM_API unsigned mbgcm_submit_burst(mbgcm_mgr *m, mbgcm_job *jobs, unsigned n);

/* Counters for tuning; they only grow (monotonic since creation). */
typedef struct mbgcm_stats {
    uint64_t jobs;             /* jobs submitted, ring and burst, valid or not */
    uint64_t jobs_invalid;     /* of which completed at once with an argument error */
    uint64_t auth_failures;    /* decrypt jobs that failed authentication */
    uint64_t bytes;            /* message bytes of valid jobs (AAD not counted) */
    uint64_t single_stream;    /* valid jobs that bypassed the lanes (long messages) */
    uint64_t kernel_calls[4];  /* lane kernel calls with 1, 2, 3, 4 busy lanes of 4 */
    uint64_t runs_lanes_full;  /* lane runs started because every lane was busy */
    uint64_t runs_timeout;     /* ... because a job waited longer than flush_timeout_ns */
    uint64_t runs_flush;       /* ... because mbgcm_flush_job needed the oldest job */
    uint64_t runs_ring_full;   /* ... because the ring was full */
    uint64_t runs_burst;       /* ... to complete a burst */
    uint64_t lane_single_finish; /* jobs begun in a lane and finished by the single-stream
                                    kernel because their lane was the last busy one of its
                                    group when a flush, timeout or burst needed them */
    uint64_t reserved[4];
} mbgcm_stats;

/* mbgcm_mgr_stats copies the counters of |m| into *out. Returns MBGCM_OK, or
   MBGCM_ERR_INVALID for NULL arguments. */
MBGCM_API int mbgcm_mgr_stats(const mbgcm_mgr *m, mbgcm_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_H */
