/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_util.h — helpers shared by the CMocka suites in test/:
 *   - a PRNG (xoshiro256** seeded through splitmix64), one seed per test program, printed at
 *     start as "seed=0x...", replayable with MBGCM_SEED=0x...;
 *   - the count scale (1.0; 0.1 in sanitizer builds; MBGCM_TEST_SCALE overrides);
 *   - hex parsing, small buffer helpers, the arch loop;
 *   - three independent GCM references:
 *       (a) OpenSSL EVP AES-GCM (any key size, IV 1..128 bytes, tag 1..16 bytes),
 *       (b) intel-ipsec-mb's direct GCM API (any IV length),
 *       (c) a textbook GCM written from NIST SP 800-38D (bitwise GF(2^128) multiply, GCTR
 *           with inc32, OpenSSL AES-ECB as the block cipher) that can take J0 directly.
 * Only (c)'s block cipher and nothing else of it comes from a library.
 */
#ifndef MBGCM_TEST_UTIL_H
#define MBGCM_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arch.h"
#include "cpu.h"
#include "gcm.h"
#include "key.h"
#include "util.h"

/* ---- PRNG and seed -------------------------------------------------------------------- */
typedef struct tu_rng {
    uint64_t s[4];
} tu_rng;

/* The program's seed: MBGCM_SEED (strtoull base 0: hex with 0x, or decimal) when set, else a
   fresh one; printed once as "seed=0x%016llx" on the first call (call it from main). */
uint64_t tu_seed(void);
/* A stream for one test: derived from the program seed and |label| (so test order and the
   set of supported arches do not change what a given test sees). */
void tu_rng_init(tu_rng *r, const char *label);
uint64_t tu_rng_next(tu_rng *r);
/* uniform in [0, n) (n > 0), without modulo bias */
uint64_t tu_rng_below(tu_rng *r, uint64_t n);
/* uniform in [lo, hi] */
uint64_t tu_rng_range(tu_rng *r, uint64_t lo, uint64_t hi);
void tu_rng_fill(tu_rng *r, void *p, size_t n);

/* ---- scale ----------------------------------------------------------------------------- */
/* 1.0 in normal builds, 0.1 when built with sanitizers (MBGCM_TEST_SANITIZED); the
   environment variable MBGCM_TEST_SCALE (a positive float) overrides both. */
double tu_scale(void);
/* n * scale, at least 1 */
size_t tu_scaled(size_t n);

/* ---- buffers and hex ------------------------------------------------------------------- */
/* malloc(n) that never returns NULL (fails the test); n == 0 allocates 1 byte so that the
   pointer is distinct and non-NULL. */
void *tu_xmalloc(size_t n);
/* Decode |slen| hex chars at |s| into |out| (slen/2 bytes). Returns 0, or -1 on an odd
   length or a non-hex character. */
int tu_hex_decode(const char *s, size_t slen, uint8_t *out);
/* 1 if every byte of p[0..n) equals b */
int tu_all_byte(const void *p, size_t n, uint8_t b);
/* Print a hex dump "label: 0011..." (at most 64 bytes, then "...") */
void tu_print_hex(const char *label, const void *p, size_t n);
/* Fails the running test with |what| and the first differing offset when a != b. */
#define TU_MEM_EQ(a, b, n, ...)                                                              \
    do {                                                                                     \
        const size_t tu_n_ = (n);                                                            \
        const long tu_d_ = tu_first_diff((a), (b), tu_n_);                                   \
        if (tu_d_ >= 0) {                                                                    \
            print_error("mismatch at byte %ld of %zu: ", tu_d_, tu_n_);                      \
            print_error(__VA_ARGS__);                                                        \
            print_error("\n");                                                               \
            tu_print_hex("  got     ", (const uint8_t *)(a) + tu_d_, tu_n_ - (size_t)tu_d_); \
            tu_print_hex("  expected", (const uint8_t *)(b) + tu_d_, tu_n_ - (size_t)tu_d_); \
            fail();                                                                          \
        }                                                                                    \
    } while (0)
/* Fails the running test with a formatted message when cond is false. */
#define TU_CHECK(cond, ...)                                                                  \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            print_error("check failed: %s: ", #cond);                                        \
            print_error(__VA_ARGS__);                                                        \
            print_error("\n");                                                               \
            fail();                                                                          \
        }                                                                                    \
    } while (0)
long tu_first_diff(const void *a, const void *b, size_t n);

/* ---- arches ------------------------------------------------------------------------------ */
/* Tests name arches by their position in the library's registry (arch/registry.c: 0 is
   generic, slowest to fastest) and look them up by name; TU_ARCH_NONE (-1) is an arch this
   build does not have (or, for the one-shot hook, an unsupported one). */
#define TU_ARCH_NONE (-1)
#define TU_ARCH(name) tu_arch_idx(name)
int tu_arch_count(void);
/* Registry position of the arch called |name|, or TU_ARCH_NONE. */
int tu_arch_idx(const char *name);
/* The descriptor at position |a| (NULL for TU_ARCH_NONE). */
const struct mbgcmi_arch *tu_arch(int a);
const char *tu_arch_name(int a);         /* "none" for TU_ARCH_NONE */
int tu_arch_supported(int a);
unsigned tu_arch_requires(int a);
int tu_arch_best(void);
/* mbgcmi_arch_parse as a position ("auto"/NULL: best; unknown: TU_ARCH_NONE). */
int tu_arch_parse(const char *name);
/* The one-shot hook by position (TU_ARCH_NONE: simulate an unsupported arch). */
void tu_set_oneshot_arch(int a);
int tu_oneshot_arch(void);
/* Fill |out| with the supported arches in increasing order; returns how many (>= 1). */
int tu_supported_arches(int out[MBGCMI_MAX_ARCHES]);
/* Print "label: generic=N aesni=N ... (total N)" for the supported arches. */
void tu_print_arch_counts(const char *label, const uint64_t counts[MBGCMI_MAX_ARCHES]);

/* ---- reference (a): OpenSSL EVP ---------------------------------------------------------- */
/* key_len 16/24/32, iv_len 1..128, tag_len 1..16. Return 0; decrypt returns 1 when the tag
   does not match. Pointers may be NULL when their length is 0. Fails the test on an OpenSSL
   error. */
int tu_ossl_gcm_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                        uint8_t *out, uint8_t *tag, size_t tag_len);
int tu_ossl_gcm_decrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                        uint8_t *out, const uint8_t *tag, size_t tag_len);
/* AES-ECB of whole blocks with OpenSSL (the textbook reference's block cipher). */
void tu_ossl_aes_ecb(const uint8_t *key, size_t key_len, const uint8_t *in, uint8_t *out,
                     size_t nblocks);

/* ---- reference (b): intel-ipsec-mb direct GCM API ----------------------------------------- */
/* Any IV length >= 1; tag_len 1..16. Same return convention as (a). */
int tu_imb_gcm_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                       uint8_t *out, uint8_t *tag, size_t tag_len);
int tu_imb_gcm_decrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                       uint8_t *out, const uint8_t *tag, size_t tag_len);
/* Name of the ipsec-mb arch the manager picked ("avx512", "sse", ...). */
const char *tu_imb_arch_name(void);

/* ---- reference (c): textbook GCM (SP 800-38D) ---------------------------------------------- */
/* Algorithm 1: Z = X * Y in GF(2^128), bit 0 = MSB of byte 0, right shifts, R = 0xE1||0^120. */
void tu_tb_gf_mul(const uint8_t x[16], const uint8_t y[16], uint8_t z[16]);
/* y = GHASH_H continued over |nblocks| full blocks (y is the running state, in and out). */
void tu_tb_ghash(const uint8_t h[16], uint8_t y[16], const uint8_t *x, size_t nblocks);
/* inc32: the last 32 bits + 1 mod 2^32; the first 96 bits never change. */
void tu_tb_inc32(uint8_t cb[16]);
/* H = CIPH_K(0^128) */
void tu_tb_hash_key(const uint8_t *key, size_t key_len, uint8_t h[16]);
/* J0 from the IV (section 7.1 step 2) */
void tu_tb_j0(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
              uint8_t j0[16]);
/* GCM-AE / GCM-AD core from J0: out = GCTR(inc32(J0), in); full 16-byte tag over the
   ciphertext (|out| when encrypting, |in| when decrypting). in == out allowed. */
void tu_tb_gcm_j0(const uint8_t *key, size_t key_len, const uint8_t j0[16], const uint8_t *aad,
                  size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, int decrypt,
                  uint8_t tag[16]);

/* ---- job manager helpers (test_mgr_*.c) ----------------------------------------------------- */
/* Manager configurations every manager test loops over: each supported arch by name (index =
   registry position), then "auto" (config arch NULL) as TU_MGR_AUTO. */
#define TU_MGR_AUTO MBGCMI_MAX_ARCHES
#define TU_MGR_NCFG (MBGCMI_MAX_ARCHES + 1)
/* Fill |out| with the supported configurations (arches in increasing order, then auto). */
int tu_mgr_configs(int out[TU_MGR_NCFG]);
/* "generic" .. "avx512", or "auto" */
const char *tu_mgr_label(int cfg);
/* What to put in mbgcm_config.arch: the arch name, or NULL for auto. */
const char *tu_mgr_cfg_arch(int cfg);
/* The arch a manager of this configuration runs (auto resolved; MBGCM_ARCH must be unset). */
int tu_mgr_runs_arch(int cfg);
/* 0 when the configuration runs the portable C kernels (about 200 cycles/byte: give it fewer
   and shorter jobs), else 1. */
int tu_mgr_fast_lanes(int cfg);
/* 1 when the configuration's arch has a four-lane kernel (else every job runs single-stream). */
int tu_mgr_has_lanes(int cfg);
/* Skip the running test (with a message) when the configuration has no lane kernel: for
   tests of lane behaviour (staging, lane timeouts, lane runs, the J0 lane hook). */
void tu_mgr_need_lanes(int cfg);
/* Skip the running test (with a message) when configuration |cfg| (an arch index, or
   TU_MGR_AUTO) does not run on this CPU. */
void tu_mgr_need_cfg(int cfg);
/* Seed |r| for configuration |cfg| of test |test|: the label "test/<configuration>". */
void tu_mgr_rng_init(tu_rng *r, const char *test, int cfg);
/* mbgcm_mgr_create with that configuration; fails the test on error; checks mbgcm_mgr_arch. */
mbgcm_mgr *tu_mgr_open(int cfg, unsigned lanes, unsigned queue_size, uint64_t timeout_ns);
/* Print "label: generic=N ... auto=N (total N)" for the supported configurations. */
void tu_print_mgr_counts(const char *label, const uint64_t counts[TU_MGR_NCFG]);

/* A key with its raw bytes (the references need them). 64-byte aligned like mbgcm_key. */
typedef struct tu_key {
    mbgcm_key key;
    uint8_t raw[32];
    size_t len; /* 16, 24 or 32 */
} tu_key;
/* (Re)initialise |k| with a random raw key of |len| bytes (0: a random size). */
void tu_key_random(tu_rng *r, tu_key *k, size_t len);
/* |n| random keys (sizes as above) in one aligned allocation; release with tu_keys_free. */
tu_key *tu_keys_new(tu_rng *r, size_t n, size_t len);
void tu_keys_free(tu_key *k, size_t n);

/* Reference encryption with the full 16-byte tag: OpenSSL for iv_len <= 128, else ipsec-mb. */
void tu_ref_encrypt(const tu_key *k, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                    uint8_t tag[16]);

/* Invalid-job kinds: each makes exactly one field wrong; tu_bad_status gives the status the
   job must complete with. */
enum tu_bad {
    TU_BAD_NONE = 0,
    TU_BAD_DIR,           /* dir not ENCRYPT/DECRYPT                  -> INVALID */
    TU_BAD_RESERVED,      /* a reserved_ pointer non-zero             -> INVALID */
    TU_BAD_KEY_NULL,      /* key NULL                                 -> INVALID */
    TU_BAD_KEY_WIPED,     /* key initialised, then wiped              -> INVALID */
    TU_BAD_KEY_UNINIT,    /* all-zero key object                      -> INVALID */
    TU_BAD_KEY_MISALIGNED,/* a valid key image at a 16-byte offset    -> INVALID */
    TU_BAD_IV_LEN0,       /* iv_len 0                                 -> IV_LEN */
    TU_BAD_IV_LEN_HUGE,   /* iv_len >= 2^61                           -> IV_LEN */
    TU_BAD_AAD_LEN,       /* aad_len >= 2^61                          -> LEN */
    TU_BAD_LEN,           /* len > 2^36-32                            -> LEN */
    TU_BAD_TAG_LEN,       /* tag_len not 4, 8, 12..16                 -> TAG_LEN */
    TU_BAD_IV_NULL,       /* iv NULL                                  -> INVALID */
    TU_BAD_TAG_NULL,      /* tag NULL                                 -> INVALID */
    TU_BAD_AAD_NULL,      /* aad NULL with aad_len > 0                -> INVALID */
    TU_BAD_SRC_NULL,      /* src NULL with len > 0                    -> INVALID */
    TU_BAD_DST_NULL,      /* dst NULL with len > 0                    -> INVALID */
    TU_BAD_OVERLAP,       /* src and dst partially overlap            -> INVALID */
    TU_BAD_KEY_NOMAGIC,   /* an AES-128 key, its magic cleared        -> INVALID */
    TU_BAD_COUNT
};
const char *tu_bad_name(int bad);
int tu_bad_status(int bad);

/* What a test job looks like. */
typedef struct tu_jspec {
    const tu_key *key;
    int dir;            /* MBGCM_ENCRYPT or MBGCM_DECRYPT */
    size_t iv_len, aad_len, len, tag_len;
    int in_place;       /* dst == src */
    int tamper;         /* decrypt: one tag bit flipped -> MBGCM_ERR_AUTH, dst zeroed */
    int null_empty;     /* empty AAD / message passed as NULL */
    int tag_in_dst;     /* decrypt out of place: the expected tag lives inside dst */
    int bad;            /* enum tu_bad */
} tu_jspec;
/* 1 when a valid linear job of shape |sp| runs single-stream on manager |m| whose
   single-stream threshold is |thr| (the scheduler's routing, jobs_internal.h: long jobs
   single-stream; short jobs to the short-job kernel when the arch has one; then jobs whose
   message and AAD together are long, and 12-byte-IV jobs with more AAD than the short-job
   kernel takes where the arch's whole12 is quick for them: tu_goes_wide). tu_goes_single_burst:
   the same for a job in a burst, whose short-job limit may differ (burst_short_msg_lim, for
   a decrypt burst_short_dec_lim: 12-byte-IV jobs with that much message or more run
   single-stream), and where |short_on| is
   0 (tu_burst_short_on of its burst) is one byte: only GMAC jobs take the short-job kernel,
   where the arch runs GMAC jobs single-stream (struct mbgcmi_arch.gmac_single) only those
   with at most 16 bytes of AAD; that arch's ring sends the kernel no job (its limit is 0). */
int tu_goes_single(const mbgcm_mgr *m, uint64_t thr, const tu_jspec *sp);
int tu_goes_single_burst(const mbgcm_mgr *m, uint64_t thr, const tu_jspec *sp, int short_on);
/* 1 when the burst of |n| jobs at |jobs| (loaded) gives its short jobs to the short-job
   kernel on manager |m| (struct mbgcmi_arch.burst_short_min_jobs). */
int tu_burst_short_on(const mbgcm_mgr *m, const mbgcm_job *jobs, unsigned n);
/* 1 when a valid linear job of shape |sp| goes to whole12 on manager |m| for its AAD of 17 or
   more bytes (struct mbgcmi_gcm_ops.wide_aad_max; off once a test set the threshold). */
int tu_goes_wide(const mbgcm_mgr *m, const tu_jspec *sp);

/* A test job: its buffers live in one block |mem| laid out as
     [gap][src][gap][dst][gap][tag 16][gap][iv][aad]   (gaps: 32 random canary bytes)
   and |want| is the image |mem| must have once the job is returned (output and tag written,
   everything else untouched). */
typedef struct tu_tjob {
    tu_jspec sp;
    int expect;          /* status the job must complete with */
    mbgcm_job job;       /* every field as submitted (status and user_data set at load) */
    uint8_t *mem, *want;
    size_t mem_len;
    size_t off_src, off_dst, off_tag, off_iv, off_aad, dst_room;
} tu_tjob;

/* Random job spec helpers. */
size_t tu_pick_tag_len(tu_rng *r);
/* Build a job: buffers, inputs and the reference result. Fails the test on errors. */
tu_tjob *tu_tjob_new(tu_rng *r, const tu_jspec *sp);
/* Set every field of |job| from |t|; user_data = |user|; status set to a junk value (the
   library must not rely on what the slot held). */
void tu_tjob_load(const tu_tjob *t, mbgcm_job *job, void *user, tu_rng *r);
/* Check a returned job: status, fields unchanged, output/tag/canaries byte for byte. |ctx|
   prefixes the failure message (the job spec is appended). */
void tu_tjob_check(const tu_tjob *t, const mbgcm_job *job, const char *ctx);
/* The same checks without failing (for threads): 1 if the job is as expected, else 0. */
int tu_tjob_ok(const tu_tjob *t, const mbgcm_job *job);
/* One-line description of the spec (for messages). */
void tu_tjob_describe(const tu_tjob *t, char *buf, size_t n);
void tu_tjob_free(tu_tjob *t);

/* Stats helpers: sum of kernel_calls[] and of runs_*. */
uint64_t tu_stats_calls(const mbgcm_stats *s);
uint64_t tu_stats_runs(const mbgcm_stats *s);
/* Fails unless every counter of |now| is >= the one in |before| (they only grow). */
void tu_stats_monotonic(const mbgcm_stats *before, const mbgcm_stats *now, const char *ctx);

#endif /* MBGCM_TEST_UTIL_H */
