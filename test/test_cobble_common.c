/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cobble_common.c — see test_cobble_common.h. The reference here shares no code with
 * cobble/: its HKDF is OpenSSL's EVP_KDF (never the HMAC chain the library falls back to), its
 * GCM is OpenSSL EVP, and the layout is re-derived from the format text.
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "test_cobble_common.h"

void tc_pat(uint8_t *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        b[i] = (uint8_t)((i * 131u + seed * 7u + (i >> 8)) & 0xffu);
    }
}

void tc_ref_derive(const uint8_t *key, size_t key_len, const uint8_t salt[24], const uint8_t *ctx,
                   size_t ctx_len, uint8_t *aes_key, uint8_t nonce[12], uint8_t commit[32])
{
    static const char prefix[] = "c2sp.org/chunked-encryption@v1+";
    const char *name = key_len == 16 ? "AEAD_AES_128_GCM" : "AEAD_AES_256_GCM";
    const size_t info_len = 31 + 16 + 1 + 24 + ctx_len;
    uint8_t *info = tu_xmalloc(info_len);
    memcpy(info, prefix, 31);
    memcpy(info + 31, name, 16);
    info[47] = 0;
    memcpy(info + 48, salt, 24);
    if (ctx_len) {
        memcpy(info + 72, ctx, ctx_len);
    }
    uint8_t okm[76];
    const size_t okm_len = key_len + 44;
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *kc = EVP_KDF_CTX_new(kdf);
    int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA512", 0),
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)(uintptr_t)key, key_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, info_len),
        OSSL_PARAM_construct_end(),
    };
    TU_CHECK(kc != NULL && EVP_KDF_derive(kc, okm, okm_len, p) == 1, "reference HKDF failed");
    EVP_KDF_CTX_free(kc);
    EVP_KDF_free(kdf);
    free(info);
    memcpy(aes_key, okm, key_len);
    memcpy(nonce, okm + key_len, 12);
    memcpy(commit, okm + key_len + 12, 32);
}

static void ref_nonce(const uint8_t base[12], uint64_t k, uint8_t n[12])
{
    memcpy(n, base, 12);
    for (int i = 0; i < 8; i++) {
        n[11 - i] ^= (uint8_t)(k >> (8 * i));
    }
}

size_t tc_ref_seal(const uint8_t *key, size_t key_len, const uint8_t *ctx, size_t ctx_len,
                   const uint8_t salt[24], const uint8_t *pt, size_t pt_len, uint8_t *out)
{
    uint8_t ak[32], base[12], commit[32], n[12];
    tc_ref_derive(key, key_len, salt, ctx, ctx_len, ak, base, commit);
    memcpy(out, salt, 24);
    memcpy(out + 24, commit, 32);
    size_t o = 56;
    for (uint64_t k = 0;; k++) {
        const size_t off = (size_t)k * 16384;
        const size_t len = pt_len - off < 16384 ? pt_len - off : 16384;
        ref_nonce(base, k, n);
        tu_ossl_gcm_encrypt(ak, key_len, n, 12, NULL, 0, len ? pt + off : NULL, len, out + o,
                            out + o + len, 16);
        o += len + 16;
        if (len < 16384) {
            break;
        }
    }
    return o;
}

int tc_ref_open(const uint8_t *key, size_t key_len, const uint8_t *ctx, size_t ctx_len,
                const uint8_t *ct, size_t ct_len, uint8_t *out, size_t *pt_len)
{
    uint8_t ak[32], base[12], commit[32], n[12];
    if (ct_len < 56) {
        return -1;
    }
    tc_ref_derive(key, key_len, ct, ctx, ctx_len, ak, base, commit);
    if (memcmp(commit, ct + 24, 32) != 0) {
        return -1;
    }
    size_t i = 56, o = 0;
    for (uint64_t k = 0;; k++) {
        const size_t left = ct_len - i;
        if (left < 16) {
            return -1;
        }
        const size_t clen = left >= 16400 ? 16384 : left - 16;
        ref_nonce(base, k, n);
        if (tu_ossl_gcm_decrypt(ak, key_len, n, 12, NULL, 0, ct + i, clen, out + o, ct + i + clen,
                                16) != 0) {
            return -1;
        }
        i += clen + 16;
        o += clen;
        if (clen < 16384) {
            break;
        }
    }
    if (i != ct_len) {
        return -1;
    }
    *pt_len = o;
    return 0;
}

void tc_sha256(const uint8_t *p, size_t n, uint8_t out[32])
{
    unsigned int len = 32;
    TU_CHECK(EVP_Digest(p, n, out, &len, EVP_sha256(), NULL) == 1, "sha256");
}

int tc_arches(const char *names[5], int fast[5])
{
    int n = 0;
    for (int a = 0; a < tu_arch_count(); a++) {
        if (tu_arch_supported(a)) {
            if (fast) {
                fast[n] = a != TU_ARCH("generic");
            }
            names[n++] = tu_arch_name(a);
        }
    }
    if (fast) {
        fast[n] = tu_arch_best() != TU_ARCH("generic");
    }
    names[n++] = NULL; /* auto */
    return n;
}

size_t tc_sealed_len(size_t pt_len)
{
    size_t n = 0;
    TU_CHECK(mbgcm_cobble_sealed_len(pt_len, &n) == MBGCM_OK, "sealed_len(%zu)", pt_len);
    return n;
}
