/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_common.h — helpers shared by the Cobblestone suites (test/test_cobble_*.c):
 *   - deterministic patterns (the same formula as test/data/cobble/gen_kat.py);
 *   - an independent reference of the format built only on OpenSSL (EVP_KDF HKDF-SHA-512 in
 *     expand-only mode, EVP AES-GCM through test_util's tu_ossl_gcm_*): seal with a given salt
 *     and open, so random messages sealed by mbgcm are checked chunk by chunk by other code;
 *   - the arches a test loops over (opts.arch), SHA-256, buffer helpers.
 */
#ifndef MBGCM_TEST_COBBLE_COMMON_H
#define MBGCM_TEST_COBBLE_COMMON_H

#include "cobble_internal.h"
#include "test_util.h"

/* b[i] = (i*131 + seed*7 + (i>>8)) & 0xff (gen_kat.py's "pat:N:S") */
void tc_pat(uint8_t *b, size_t n, unsigned seed);

/* Reference derivation (OpenSSL EVP_KDF HKDF, expand-only, SHA-512): key || nonce || commit. */
void tc_ref_derive(const uint8_t *key, size_t key_len, const uint8_t salt[24], const uint8_t *ctx,
                   size_t ctx_len, uint8_t *aes_key, uint8_t nonce[12], uint8_t commit[32]);
/* Reference seal with the given salt into |out| (room: sealed length). Returns its length. */
size_t tc_ref_seal(const uint8_t *key, size_t key_len, const uint8_t *ctx, size_t ctx_len,
                   const uint8_t salt[24], const uint8_t *pt, size_t pt_len, uint8_t *out);
/* Reference open: 0 and *pt_len when the message is well formed and every chunk
   authenticates, -1 otherwise. |out| needs ct_len bytes. */
int tc_ref_open(const uint8_t *key, size_t key_len, const uint8_t *ctx, size_t ctx_len,
                const uint8_t *ct, size_t ct_len, uint8_t *out, size_t *pt_len);

/* SHA-256 (OpenSSL) */
void tc_sha256(const uint8_t *p, size_t n, uint8_t out[32]);

/* Arch names a test loops over: every supported arch ("generic" .. "avx512") and NULL for
   auto; returns how many. |fast| (optional) says which run vector kernels (generic is about
   1000 times slower: give it small messages). */
int tc_arches(const char *names[5], int fast[5]);

/* Sealed length of pt_len (asserts success). */
size_t tc_sealed_len(size_t pt_len);

#endif
