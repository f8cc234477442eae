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

#include "mbgcm_internal.h"

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
/* Fill |out| with the supported arches in increasing order; returns how many (>= 1). */
int tu_supported_arches(int out[MBGCMI_ARCH_COUNT]);
/* Print "label: generic=N aesni=N ... (total N)" for the supported arches. */
void tu_print_arch_counts(const char *label, const uint64_t counts[MBGCMI_ARCH_COUNT]);

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

#endif /* MBGCM_TEST_UTIL_H */
