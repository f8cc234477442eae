/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm_cobble.h — storage calls of mbgcm: Cobblestone chunked encryption
 * (c2sp.org/chunked-encryption v1) and the same-key chunk batch call.
 *
 * Cobblestone in one paragraph
 * ----------------------------
 * Cobblestone-128 is HKDF-SHA-512 + AES-128-GCM, Cobblestone-256 is HKDF-SHA-512 +
 * AES-256-GCM; the instantiation follows from the input key's length (16 or 32 bytes, which
 * must be uniformly random). Each message gets a fresh random 24-byte salt. From the input key
 * (used directly as the HKDF PRK: Expand only) and
 *     info = "c2sp.org/chunked-encryption@v1+" || aead_name || 0x00 || salt || context
 * (aead_name "AEAD_AES_128_GCM" or "AEAD_AES_256_GCM"; context any caller bytes, possibly
 * none) HKDF-Expand derives key || base_nonce || commitment (key length, 12, 32 bytes). The
 * sealed message is salt (24) || commitment (32) || chunks: the plaintext cut into 16384-byte
 * chunks, the last one always shorter than 16384 and possibly empty (a plaintext whose length
 * is a multiple of 16384, the empty one included, ends with an empty chunk); chunk k is
 * AES-GCM with nonce base_nonce XOR k (k as a 96-bit big-endian integer), empty AAD and a
 * 16-byte tag after its ciphertext, so every non-final sealed chunk is 16400 bytes and the
 * final one 16..16399. k stays below 2^38. Opening checks the commitment (in constant time)
 * before touching any chunk, so a wrong key or context is told apart from damaged data.
 * docs/storage.md has the details, the error classes and measurements.
 *
 * Conventions (in addition to those of mbgcm.h, which all hold here)
 * -----------------------------------------------------------------
 *  - Return values are status codes only: MBGCM_OK, an MBGCM_ERR_* of mbgcm.h, or one of the
 *    Cobblestone codes below. Lengths and objects come back through out parameters.
 *  - Cobblestone calls take their parameters as: object (if any), outputs (buffer, length
 *    written, capacity), then inputs. The batch calls keep the order of mbgcm_encrypt.
 *  - A call that fails because of its arguments (NULL, too small a buffer, bad key length)
 *    writes nothing. A call that fails because the data is not authentic never releases
 *    plaintext that was not authenticated: what it had written is zeroed.
 *  - Unless stated otherwise, input and output buffers must not overlap (the sealed layout
 *    moves every chunk, so in-place operation is not possible).
 *  - Objects (_new/_free) belong to one thread at a time; keys and inputs are only read.
 *  - Every chunk goes through an mbgcm job manager (mbgcm_submit_burst): same-key chunks fill
 *    the lanes, and long chunks take the manager's wide single-stream kernel where that is
 *    faster (docs/design.md, "Hybrid scheduling").
 *
 * Linking: these calls are in libmbgcm, which links OpenSSL's libcrypto (HKDF, SHA-512, the
 * random salt). This header is C99 and C++ compatible.
 */
#ifndef MBGCM_COBBLE_H
#define MBGCM_COBBLE_H

#include <stddef.h>
#include <stdint.h>

#include "mbgcm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Format constants
 * ------------------------------------------------------------------------------------------- */
#define MBGCM_COBBLE_SALT_LEN         24    /* random per message, first in the output */
#define MBGCM_COBBLE_COMMIT_LEN       32    /* key commitment, after the salt */
#define MBGCM_COBBLE_HEADER_LEN       56    /* salt || commitment */
#define MBGCM_COBBLE_NONCE_LEN        12    /* base nonce (raw mode) */
#define MBGCM_COBBLE_CHUNK_LEN        16384 /* plaintext bytes of every non-final chunk */
#define MBGCM_COBBLE_TAG_LEN          16    /* GCM tag after each chunk's ciphertext */
#define MBGCM_COBBLE_SEALED_CHUNK_LEN 16400 /* a non-final chunk as stored */
/* Chunk indices are below 2^38: at most 2^38 chunks per message (about 4.5 PB). */
#define MBGCM_COBBLE_MAX_CHUNKS (UINT64_C(1) << 38)

/* Output room that always suffices for the streaming calls below (exact counts are smaller
   when the object holds fewer buffered bytes): an update of |n| input bytes (a size_t), and
   finish. */
#define MBGCM_COBBLE_SEAL_UPDATE_MAX(n)                                                            \
    (((n) / MBGCM_COBBLE_CHUNK_LEN + 1) * MBGCM_COBBLE_SEALED_CHUNK_LEN)
#define MBGCM_COBBLE_OPEN_UPDATE_MAX(n)                                                            \
    (((n) / MBGCM_COBBLE_SEALED_CHUNK_LEN + 1) * MBGCM_COBBLE_CHUNK_LEN)
#define MBGCM_COBBLE_SEAL_FINISH_MAX (MBGCM_COBBLE_CHUNK_LEN - 1 + MBGCM_COBBLE_TAG_LEN)
#define MBGCM_COBBLE_OPEN_FINISH_MAX (MBGCM_COBBLE_CHUNK_LEN - 1)

/* A run of chunks is split over threads only so that each thread gets at least this many
   chunks (256 KiB of plaintext); smaller inputs run on the calling thread alone. */
#define MBGCM_COBBLE_THREAD_MIN_CHUNKS 16

/* ---------------------------------------------------------------------------------------------
 * Status codes added by the Cobblestone calls (values 64..79 are reserved for them; fixed ABI
 * values). Chunk authentication failures use MBGCM_ERR_AUTH, a message with 2^38 chunks or
 * more MBGCM_ERR_LEN, a key that is not 16 or 32 bytes MBGCM_ERR_KEY_LEN.
 * ------------------------------------------------------------------------------------------- */
enum mbgcm_cobble_status {
    MBGCM_ERR_COMMITMENT = 64, /* the header's commitment does not match: wrong key, wrong
                                  context, or a modified salt or commitment */
    MBGCM_ERR_TRUNCATED = 65,  /* the sealed message ends early: shorter than the header, or
                                  its last chunk is missing or shorter than a tag */
    MBGCM_ERR_TRAILING = 66,   /* an authentic final chunk is followed by more bytes */
    MBGCM_ERR_OUT_SPACE = 67,  /* the output buffer is too small (nothing was written) */
    MBGCM_ERR_RANGE = 68,      /* random access: the range is not inside the message */
    MBGCM_ERR_LIBCRYPTO = 69   /* OpenSSL's libcrypto failed (HKDF or random salt) */
};

/*
 * mbgcm_cobble_strerror returns a static, human-readable description of |status|: the codes
 * above and every code of mbgcm.h (for which it returns what mbgcm_strerror returns). The
 * text never contains key or data bytes.
 */
MBGCM_API const char *mbgcm_cobble_strerror(int status);

/* ---------------------------------------------------------------------------------------------
 * Options (every Cobblestone call and object takes them; NULL means all defaults)
 * ------------------------------------------------------------------------------------------- */
typedef struct mbgcm_cobble_opts {
    unsigned threads; /* 0 or 1: the calling thread only. N (2..256): runs of chunks are
                         split over up to N threads, the caller's and N-1 that the call (or
                         the object, for its lifetime) starts, each with its own manager;
                         nothing mutable is shared between them. A one-shot call or reader
                         starts no more threads than its message can use (one per
                         MBGCM_COBBLE_THREAD_MIN_CHUNKS chunks). */
    const char *arch; /* arch of the managers the call creates, as mbgcm_config.arch
                         (NULL: auto, or MBGCM_ARCH when set) */
    mbgcm_mgr *mgr;   /* NULL, or a manager the calling thread uses instead of creating one
                         (saves the allocation on small messages). It must not be used
                         elsewhere during the call (or, for an object, while the object
                         uses it, i.e. during its calls); it may hold ring jobs, which
                         keep their order. Not freed by the library. */
} mbgcm_cobble_opts;

/* ---------------------------------------------------------------------------------------------
 * Lengths
 * ------------------------------------------------------------------------------------------- */

/*
 * mbgcm_cobble_sealed_len sets *out_len to the sealed length of a |pt_len|-byte plaintext:
 * 56 + pt_len + 16 * (pt_len / 16384 + 1). Returns MBGCM_OK, MBGCM_ERR_INVALID (NULL
 * out_len) or MBGCM_ERR_LEN (2^38 chunks or more, or the length does not fit a size_t).
 * (Raw mode output is this length minus MBGCM_COBBLE_HEADER_LEN.)
 */
MBGCM_API int mbgcm_cobble_sealed_len(size_t pt_len, size_t *out_len);

/*
 * mbgcm_cobble_opened_len sets *out_len to the plaintext length a well-formed |ct_len|-byte
 * sealed message has. Returns MBGCM_OK; MBGCM_ERR_TRUNCATED when no well-formed message has
 * that length (shorter than 72 bytes, or the bytes after the last whole 16400-byte chunk are
 * fewer than 16); MBGCM_ERR_LEN for 2^38 chunks or more; MBGCM_ERR_INVALID for NULL out_len.
 * The length says nothing about authenticity.
 */
MBGCM_API int mbgcm_cobble_opened_len(size_t ct_len, size_t *out_len);

/* ---------------------------------------------------------------------------------------------
 * One-shot calls: a whole message in memory
 * ------------------------------------------------------------------------------------------- */

/*
 * mbgcm_cobble_seal seals |in_len| bytes at |in| under the 16- or 32-byte input key |key|
 * (Cobblestone-128 or -256) and the |context_len| bytes at |context| (NULL when 0), with a
 * fresh random salt from OpenSSL's RAND_bytes.
 *   out          where the sealed message goes; must not overlap |in|.
 *   out_len      set to the sealed length (mbgcm_cobble_sealed_len(in_len)) on success.
 *   max_out_len  room at |out|; less than the sealed length gives MBGCM_ERR_OUT_SPACE.
 *   opts         threads, arch, manager (NULL: defaults).
 * Returns MBGCM_OK; MBGCM_ERR_KEY_LEN; MBGCM_ERR_INVALID (NULL pointer with a length, NULL
 * out/out_len, overlapping buffers, bad opts); MBGCM_ERR_OUT_SPACE; MBGCM_ERR_LEN;
 * MBGCM_ERR_NOMEM; MBGCM_ERR_UNSUPPORTED (arch); MBGCM_ERR_LIBCRYPTO. On error nothing is
 * written. Safe to call from any number of threads at once (with different opts->mgr).
 */
MBGCM_API int mbgcm_cobble_seal(uint8_t *out, size_t *out_len, size_t max_out_len,
                                const uint8_t *key, size_t key_len, const uint8_t *context,
                                size_t context_len, const uint8_t *in, size_t in_len,
                                const mbgcm_cobble_opts *opts);

/*
 * mbgcm_cobble_open checks and opens the sealed message of |in_len| bytes at |in| with the
 * input key and context it was sealed with.
 *   out          where the plaintext goes; must not overlap |in|.
 *   out_len      set to the plaintext length on success, to 0 on a failure after the
 *                argument checks.
 *   max_out_len  room at |out|: at least mbgcm_cobble_opened_len(in_len) (which is at most
 *                in_len - 72), else MBGCM_ERR_OUT_SPACE with nothing written.
 * Order of checks: arguments; shorter than the header (MBGCM_ERR_TRUNCATED); output room;
 * the commitment (MBGCM_ERR_COMMITMENT: wrong key or context, or damaged header), before any
 * chunk is read; a length no well-formed message has (MBGCM_ERR_TRUNCATED, or
 * MBGCM_ERR_TRAILING when the last whole chunk is an authentic final chunk plus extra bytes);
 * then every chunk, where the first failing one decides: MBGCM_ERR_TRAILING when a proper
 * prefix of it is an authentic final chunk (the message ended there and more bytes follow),
 * else MBGCM_ERR_AUTH (modified, reordered, duplicated, or for the last chunk possibly cut
 * short). Returns MBGCM_OK only when every chunk authenticated. On any failure after the
 * argument checks, every byte of out[0 .. opened length) that may have been written has
 * been set to zero: no unauthenticated plaintext is ever released.
 * Other errors as for mbgcm_cobble_seal. Thread safety as for mbgcm_cobble_seal.
 */
MBGCM_API int mbgcm_cobble_open(uint8_t *out, size_t *out_len, size_t max_out_len,
                                const uint8_t *key, size_t key_len, const uint8_t *context,
                                size_t context_len, const uint8_t *in, size_t in_len,
                                const mbgcm_cobble_opts *opts);

/* ---------------------------------------------------------------------------------------------
 * Streaming: push design. The caller pushes bytes in any pieces and gets output back at once
 * in its own buffer; the object buffers at most one chunk (16384 plaintext bytes when
 * sealing, 16400 sealed bytes when opening). Whole chunks of a piece go straight from the
 * caller's input to the caller's output, batched through the manager(s); large pieces
 * (a few MiB) give full lanes and let threads help.
 *
 *     mbgcm_cobble_sealer *s; uint8_t hdr[MBGCM_COBBLE_HEADER_LEN];
 *     mbgcm_cobble_sealer_new(&s, hdr, key, 32, ctx, ctx_len, NULL);   write(hdr)
 *     mbgcm_cobble_sealer_update(s, out, &n, MBGCM_COBBLE_SEAL_UPDATE_MAX(len), in, len);
 *     ... write(out, n), as often as needed ...
 *     mbgcm_cobble_sealer_finish(s, out, &n, MBGCM_COBBLE_SEAL_FINISH_MAX);  write(out, n)
 *     mbgcm_cobble_sealer_free(s);
 *
 * Opening mirrors it (read the 56-byte header first). A chunk is released only after it
 * authenticated; a failure makes every later update and finish return the same status and
 * output nothing. Released chunks are authentic, but the message is only complete and
 * authentic when finish returns MBGCM_OK (a truncated or extended message is detected
 * there): a consumer must not treat the output as the whole message before that.
 * ------------------------------------------------------------------------------------------- */

typedef struct mbgcm_cobble_sealer mbgcm_cobble_sealer;
typedef struct mbgcm_cobble_opener mbgcm_cobble_opener;

/*
 * mbgcm_cobble_sealer_new starts sealing one message: draws the salt, derives the keys, writes
 * the 56-byte header (salt || commitment) to |out_header| and a new sealer to *out_s.
 * Inputs as for mbgcm_cobble_seal (key and context are not retained). Returns MBGCM_OK,
 * MBGCM_ERR_KEY_LEN, MBGCM_ERR_INVALID, MBGCM_ERR_NOMEM, MBGCM_ERR_UNSUPPORTED or
 * MBGCM_ERR_LIBCRYPTO; on error *out_s is NULL (when out_s is not NULL) and the header is not
 * written. With opts->threads > 1 the sealer starts its threads here.
 */
MBGCM_API int mbgcm_cobble_sealer_new(mbgcm_cobble_sealer **out_s,
                                      uint8_t out_header[MBGCM_COBBLE_HEADER_LEN],
                                      const uint8_t *key, size_t key_len, const uint8_t *context,
                                      size_t context_len, const mbgcm_cobble_opts *opts);

/*
 * mbgcm_cobble_sealer_update takes the next |in_len| plaintext bytes and writes every chunk
 * they complete (16400 bytes each) to |out|, setting *out_len to the bytes written (a multiple
 * of 16400, possibly 0). MBGCM_COBBLE_SEAL_UPDATE_MAX(in_len) bytes of room always suffice.
 * Returns MBGCM_OK; MBGCM_ERR_INVALID (NULL arguments, overlap, after finish);
 * MBGCM_ERR_OUT_SPACE (room too small: nothing consumed, the sealer is unchanged);
 * MBGCM_ERR_LEN when the message would reach 2^38 chunks (the sealer then fails for good).
 */
MBGCM_API int mbgcm_cobble_sealer_update(mbgcm_cobble_sealer *s, uint8_t *out, size_t *out_len,
                                         size_t max_out_len, const uint8_t *in, size_t in_len);

/*
 * mbgcm_cobble_sealer_finish writes the final chunk (16..16399 bytes: the buffered plaintext,
 * possibly none, and its tag) and ends the message; the sealer then only accepts _free.
 * Room: MBGCM_COBBLE_SEAL_FINISH_MAX always suffices. Returns MBGCM_OK, MBGCM_ERR_INVALID,
 * MBGCM_ERR_OUT_SPACE (nothing changed) or the status of an earlier failure.
 */
MBGCM_API int mbgcm_cobble_sealer_finish(mbgcm_cobble_sealer *s, uint8_t *out, size_t *out_len,
                                         size_t max_out_len);

/* mbgcm_cobble_sealer_free wipes the keys and buffered plaintext, stops the sealer's threads
   and releases it (NULL is ignored). A message not finished is abandoned. */
MBGCM_API void mbgcm_cobble_sealer_free(mbgcm_cobble_sealer *s);

/*
 * mbgcm_cobble_opener_new starts opening one message from its first |header_len| bytes at
 * |header| (pass the first 56 bytes; fewer means the message ended there). Checks the
 * commitment in constant time before anything else is read.
 * Returns MBGCM_OK with a new opener in *out_o; MBGCM_ERR_TRUNCATED (header_len < 56);
 * MBGCM_ERR_COMMITMENT (wrong key or context, or damaged header); MBGCM_ERR_INVALID
 * (header_len > 56, NULL pointers, bad opts); MBGCM_ERR_KEY_LEN; MBGCM_ERR_NOMEM;
 * MBGCM_ERR_UNSUPPORTED; MBGCM_ERR_LIBCRYPTO. On error *out_o is NULL.
 */
MBGCM_API int mbgcm_cobble_opener_new(mbgcm_cobble_opener **out_o, const uint8_t *key,
                                      size_t key_len, const uint8_t *context, size_t context_len,
                                      const uint8_t *header, size_t header_len,
                                      const mbgcm_cobble_opts *opts);

/*
 * mbgcm_cobble_opener_update takes the next |in_len| sealed bytes (after the header), checks
 * every 16400-byte chunk they complete, and writes the plaintext of those chunks (16384 bytes
 * each) to |out|, setting *out_len. A full-size chunk is never the final one, so it is checked
 * and released at once. MBGCM_COBBLE_OPEN_UPDATE_MAX(in_len) bytes of room always suffice.
 * Returns MBGCM_OK; MBGCM_ERR_AUTH or MBGCM_ERR_TRAILING (see mbgcm_cobble_open) when a chunk
 * fails: then nothing of this call is released (*out_len is 0 and the bytes it had written
 * are zeroed) and the opener fails for good; MBGCM_ERR_LEN (2^38 chunks reached: fails for
 * good); MBGCM_ERR_OUT_SPACE (nothing consumed); MBGCM_ERR_INVALID; or the earlier failure.
 */
MBGCM_API int mbgcm_cobble_opener_update(mbgcm_cobble_opener *o, uint8_t *out, size_t *out_len,
                                         size_t max_out_len, const uint8_t *in, size_t in_len);

/*
 * mbgcm_cobble_opener_finish declares the end of the sealed message: the bytes buffered since
 * the last whole chunk are the final chunk. Writes its plaintext (0..16383 bytes) when it
 * authenticates and returns MBGCM_OK: only then is the message complete and authentic.
 * Returns MBGCM_ERR_TRUNCATED when fewer than 16 bytes are buffered (no final chunk: the
 * message was cut, possibly at a chunk boundary); MBGCM_ERR_AUTH or MBGCM_ERR_TRAILING when
 * the final chunk fails (nothing written); MBGCM_ERR_OUT_SPACE (room below the final chunk's
 * plaintext; MBGCM_COBBLE_OPEN_FINISH_MAX always suffices; nothing changed);
 * MBGCM_ERR_INVALID; or the earlier failure.
 */
MBGCM_API int mbgcm_cobble_opener_finish(mbgcm_cobble_opener *o, uint8_t *out, size_t *out_len,
                                         size_t max_out_len);

/*
 * mbgcm_cobble_opener_failed_chunk sets *out_index to the index of the chunk that failed,
 * when the opener failed with MBGCM_ERR_AUTH or MBGCM_ERR_TRAILING (for TRAILING: the chunk
 * whose prefix is the authentic final chunk). Returns MBGCM_OK, or MBGCM_ERR_INVALID when the
 * opener has not failed on a chunk (or an argument is NULL).
 */
MBGCM_API int mbgcm_cobble_opener_failed_chunk(const mbgcm_cobble_opener *o, uint64_t *out_index);

/* mbgcm_cobble_opener_free wipes the keys and buffered bytes, stops the opener's threads and
   releases it (NULL is ignored). */
MBGCM_API void mbgcm_cobble_opener_free(mbgcm_cobble_opener *o);

/* ---------------------------------------------------------------------------------------------
 * Random access: decrypt any plaintext range of a sealed message in memory (an mmap'd file
 * works). Plaintext byte p lives in chunk p / 16384 at offset p % 16384; chunk k starts at
 * sealed offset 56 + 16400 * k. A read authenticates every chunk it touches, and only those.
 * ------------------------------------------------------------------------------------------- */

typedef struct mbgcm_cobble_reader mbgcm_cobble_reader;

/*
 * mbgcm_cobble_reader_new checks the header of the sealed message at |in| (|in_len| bytes,
 * which must stay valid and unchanged until the reader is freed) and creates a reader.
 * Returns MBGCM_OK; MBGCM_ERR_TRUNCATED (shorter than the header); MBGCM_ERR_COMMITMENT;
 * MBGCM_ERR_LEN (2^38 chunks or more); MBGCM_ERR_KEY_LEN; MBGCM_ERR_INVALID;
 * MBGCM_ERR_NOMEM; MBGCM_ERR_UNSUPPORTED; MBGCM_ERR_LIBCRYPTO. On error *out_r is NULL.
 * A message cut short can still be read up to its last whole chunk.
 */
MBGCM_API int mbgcm_cobble_reader_new(mbgcm_cobble_reader **out_r, const uint8_t *key,
                                      size_t key_len, const uint8_t *context, size_t context_len,
                                      const uint8_t *in, size_t in_len,
                                      const mbgcm_cobble_opts *opts);

/*
 * mbgcm_cobble_reader_size sets *out_size to the plaintext length, after authenticating the
 * final chunk (once; the result is remembered): a length derived from the sealed length alone
 * could have been changed by truncation, so compute offsets relative to the end only from
 * this call. Returns MBGCM_OK; MBGCM_ERR_TRUNCATED (no final chunk); MBGCM_ERR_AUTH or
 * MBGCM_ERR_TRAILING (the final chunk fails); MBGCM_ERR_INVALID (NULL arguments).
 */
MBGCM_API int mbgcm_cobble_reader_size(mbgcm_cobble_reader *r, uint64_t *out_size);

/*
 * mbgcm_cobble_reader_read writes the |len| plaintext bytes starting at plaintext offset
 * |offset| to |out| (must not overlap the sealed message), authenticating every chunk the
 * range touches. Returns MBGCM_OK; MBGCM_ERR_RANGE when the range does not lie within the
 * chunks present (nothing written); MBGCM_ERR_AUTH or MBGCM_ERR_TRAILING when a touched chunk
 * fails (then all |len| bytes at |out| are zero); MBGCM_ERR_INVALID (NULL pointers, overlap).
 * A failed read does not affect later reads of other ranges. len 0 reads nothing.
 */
MBGCM_API int mbgcm_cobble_reader_read(mbgcm_cobble_reader *r, uint8_t *out, uint64_t offset,
                                       size_t len);

/* mbgcm_cobble_reader_free wipes the reader's keys and scratch space, stops its threads and
   releases it (NULL is ignored). The sealed message is not touched. */
MBGCM_API void mbgcm_cobble_reader_free(mbgcm_cobble_reader *r);

/* ---------------------------------------------------------------------------------------------
 * HAZMAT: raw mode. The chunk layer alone: the caller supplies the AES key (16 or 32 bytes)
 * and the 12-byte base nonce; no salt, no commitment, no header. WARNING: nothing here
 * prevents nonce reuse; a (key, base_nonce) pair must never seal two different messages, and
 * nothing binds the key to the data (no key commitment). Use the calls above unless you are
 * implementing a protocol that derives these values itself.
 * ------------------------------------------------------------------------------------------- */

/*
 * mbgcm_cobble_hazmat_raw_seal writes the chunks of |in| (no header): sealed length minus 56
 * bytes, i.e. in_len + 16 * (in_len / 16384 + 1). Errors as mbgcm_cobble_seal (no
 * MBGCM_ERR_LIBCRYPTO). |key_len| is 16 or 32.
 */
MBGCM_API int mbgcm_cobble_hazmat_raw_seal(uint8_t *out, size_t *out_len, size_t max_out_len,
                                           const uint8_t *key, size_t key_len,
                                           const uint8_t base_nonce[MBGCM_COBBLE_NONCE_LEN],
                                           const uint8_t *in, size_t in_len,
                                           const mbgcm_cobble_opts *opts);

/*
 * mbgcm_cobble_hazmat_raw_open checks and opens chunks made by the raw seal. Same result
 * rules as mbgcm_cobble_open without the header (no MBGCM_ERR_COMMITMENT).
 */
MBGCM_API int mbgcm_cobble_hazmat_raw_open(uint8_t *out, size_t *out_len, size_t max_out_len,
                                           const uint8_t *key, size_t key_len,
                                           const uint8_t base_nonce[MBGCM_COBBLE_NONCE_LEN],
                                           const uint8_t *in, size_t in_len,
                                           const mbgcm_cobble_opts *opts);

/* ---------------------------------------------------------------------------------------------
 * Same-key chunk batch (what storage gateways such as Ceph RGW ask an accelerator for): one
 * key, one contiguous input cut into |nchunks| chunks of |chunk_len| bytes (the last one may
 * be shorter, even empty), one IV, AAD and tag per chunk. Synchronous: every chunk is done on
 * return. The chunks go to |m| as bursts (mbgcm_submit_burst) of same-key jobs: ring jobs
 * already in |m| keep their order and are not disturbed.
 *
 *   chunk i: plaintext in[i*chunk_len .. min((i+1)*chunk_len, len)), output at the same
 *            offsets of |out|, IV ivs[i*iv_len .. (i+1)*iv_len), AAD aads[i] of aad_lens[i]
 *            bytes (aads and aad_lens both NULL: no AAD), tag tags[i*tag_len ..).
 *   len:     (nchunks-1)*chunk_len <= len <= nchunks*chunk_len (nchunks 0: len 0).
 * ------------------------------------------------------------------------------------------- */

/*
 * mbgcm_batch_encrypt encrypts the |nchunks| chunks of |in| into |out| (out == in allowed, any
 * other overlap is not) and writes their tags. |m| is the caller's manager (not used by
 * another thread meanwhile). Limits per chunk as mbgcm_encrypt: chunk_len 1 .. 2^36-32,
 * iv_len 1 .. 2^61-1 (12 is the fast path), aad_lens[i] < 2^61, tag_len 4, 8, 12..16.
 * Returns MBGCM_OK; MBGCM_ERR_INVALID (NULL manager or pointers, misaligned or uninitialised
 * key, chunk_len 0, a len that does not match nchunks, overlap of out with in (other than
 * equal), with the IVs, the tags or an AAD, or of the tags with in); MBGCM_ERR_IV_LEN;
 * MBGCM_ERR_LEN; MBGCM_ERR_TAG_LEN. On error nothing was written. Checks run in this order:
 * manager and key, IV length, lengths, tag length, pointers, overlap.
 */
MBGCM_API int mbgcm_batch_encrypt(mbgcm_mgr *m, const mbgcm_key *key, size_t nchunks,
                                  size_t chunk_len, const uint8_t *ivs, size_t iv_len,
                                  const uint8_t *const *aads, const size_t *aad_lens,
                                  const uint8_t *in, size_t len, uint8_t *out, uint8_t *tags,
                                  size_t tag_len);

/*
 * mbgcm_batch_decrypt checks and decrypts the |nchunks| chunks of |in| into |out| (out == in
 * allowed) against |tags|. |statuses| (NULL, or nchunks ints) receives each chunk's result:
 * MBGCM_OK, or MBGCM_ERR_AUTH with that chunk's output zeroed; authentic chunks are released
 * even when others fail. Returns MBGCM_OK when every chunk authenticated, MBGCM_ERR_AUTH when
 * at least one failed (see |statuses|), or an argument error as mbgcm_batch_encrypt (then
 * nothing was written, |statuses| included).
 */
MBGCM_API int mbgcm_batch_decrypt(mbgcm_mgr *m, const mbgcm_key *key, size_t nchunks,
                                  size_t chunk_len, const uint8_t *ivs, size_t iv_len,
                                  const uint8_t *const *aads, const size_t *aad_lens,
                                  const uint8_t *in, size_t len, uint8_t *out, const uint8_t *tags,
                                  size_t tag_len, int *statuses);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_COBBLE_H */
