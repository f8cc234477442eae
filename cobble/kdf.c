/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kdf.c — Cobblestone key schedule: HKDF-Expand with SHA-512 from OpenSSL's libcrypto (no
 * Extract step: the uniformly random input key is the PRK), the commitment, the per-chunk
 * nonces and the random salt.
 *
 *   info = "c2sp.org/chunked-encryption@v1+" || aead_name || 0x00 || salt || context
 *   key || base_nonce || commitment = HKDF-Expand(PRK = input key, info, key_len + 12 + 32)
 *
 * OpenSSL's HKDF provider caps the info it accepts (32768 bytes in 3.0.19; the cap has
 * differed between releases), while a context may be any length. So: EVP_KDF "HKDF" in
 * expand-only mode whenever the info is at most 1024 bytes (every context up to 952 bytes),
 * otherwise RFC 5869's Expand chain T(i) = HMAC-SHA-512(PRK, T(i-1) || info || i) over
 * EVP_MAC "HMAC", which has no cap.
 * Both give identical bytes (the tests compare them and check Python-computed answers).
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "cobble_internal.h"

static const char info_prefix[] = "c2sp.org/chunked-encryption@v1+"; /* 31 bytes */
#define PREFIX_LEN   (sizeof info_prefix - 1)
#define NAME_LEN     16 /* "AEAD_AES_128_GCM" / "AEAD_AES_256_GCM" */
#define KDF_INFO_MAX 1024

static int expand_kdf(const uint8_t *prk, size_t prk_len, const uint8_t *info, size_t info_len,
                      uint8_t *okm, size_t okm_len)
{
    int st = MBGCM_ERR_LIBCRYPTO;
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *kc = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    if (kc != NULL) {
        int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA512", 0),
            OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)(uintptr_t)prk, prk_len),
            OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)(uintptr_t)info,
                                              info_len),
            OSSL_PARAM_construct_end(),
        };
        if (EVP_KDF_derive(kc, okm, okm_len, params) == 1) {
            st = MBGCM_OK;
        }
    }
    EVP_KDF_CTX_free(kc); /* clears its copy of the key */
    EVP_KDF_free(kdf);
    return st;
}

static int expand_hmac(const uint8_t *prk, size_t prk_len, const uint8_t *info, size_t info_len,
                       uint8_t *okm, size_t okm_len)
{
    int st = MBGCM_ERR_LIBCRYPTO;
    uint8_t t[64];
    size_t tlen = 0, done = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *mc = mac ? EVP_MAC_CTX_new(mac) : NULL;
    if (mc == NULL) {
        goto out;
    }
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA512", 0),
        OSSL_PARAM_construct_end(),
    };
    for (unsigned char i = 1; done < okm_len; i++) {
        size_t got = 0;
        if (EVP_MAC_init(mc, prk, prk_len, params) != 1 || EVP_MAC_update(mc, t, tlen) != 1 ||
            EVP_MAC_update(mc, info, info_len) != 1 || EVP_MAC_update(mc, &i, 1) != 1 ||
            EVP_MAC_final(mc, t, &got, sizeof t) != 1 || got != sizeof t) {
            goto out;
        }
        tlen = got;
        const size_t take = okm_len - done < tlen ? okm_len - done : tlen;
        memcpy(okm + done, t, take);
        done += take;
    }
    st = MBGCM_OK;
out:
    mbgcmi_cob_wipe(t, sizeof t);
    EVP_MAC_CTX_free(mc);
    EVP_MAC_free(mac);
    return st;
}

int mbgcmi_cob_derive(const uint8_t *ikm, size_t key_len, const uint8_t salt[24],
                      const uint8_t *context, size_t context_len, int force_hmac, uint8_t *okm)
{
    const size_t fixed = PREFIX_LEN + NAME_LEN + 1 + MBGCMI_COB_SALT;
    if (context_len > SIZE_MAX - fixed) {
        return MBGCM_ERR_NOMEM;
    }
    const size_t info_len = fixed + context_len;
    uint8_t small[KDF_INFO_MAX];
    uint8_t *info = info_len <= sizeof small ? small : mbgcmi_cob_alloc(info_len);
    if (info == NULL) {
        return MBGCM_ERR_NOMEM;
    }
    uint8_t *p = info;
    memcpy(p, info_prefix, PREFIX_LEN);
    p += PREFIX_LEN;
    memcpy(p, key_len == 16 ? "AEAD_AES_128_GCM" : "AEAD_AES_256_GCM", NAME_LEN);
    p += NAME_LEN;
    *p++ = 0x00;
    memcpy(p, salt, MBGCMI_COB_SALT);
    p += MBGCMI_COB_SALT;
    if (context_len) {
        memcpy(p, context, context_len);
    }
    const size_t okm_len = key_len + 12 + MBGCMI_COB_COMMIT;
    const int st = (!force_hmac && info_len <= KDF_INFO_MAX)
                       ? expand_kdf(ikm, key_len, info, info_len, okm, okm_len)
                       : expand_hmac(ikm, key_len, info, info_len, okm, okm_len);
    mbgcmi_cob_wipe(info, info_len); /* salt and context: not secret, but wiped like all */
    if (info != small) {
        mbgcmi_cob_free(info, info_len);
    }
    return st;
}

int mbgcmi_cob_setup(struct mbgcmi_cob_keys *k, const uint8_t *ikm, size_t key_len,
                     const uint8_t salt[24], const uint8_t *context, size_t context_len,
                     uint8_t commit[32])
{
    uint8_t okm[32 + 12 + 32];
    const int st = mbgcmi_cob_derive(ikm, key_len, salt, context, context_len, 0, okm);
    if (st == MBGCM_OK) {
        mbgcmi_cob_setup_raw(k, okm, key_len, okm + key_len);
        memcpy(commit, okm + key_len + 12, MBGCMI_COB_COMMIT);
    }
    mbgcmi_cob_wipe(okm, sizeof okm);
    return st;
}

void mbgcmi_cob_setup_raw(struct mbgcmi_cob_keys *k, const uint8_t *aes_key, size_t key_len,
                          const uint8_t nonce[12])
{
    (void)mbgcm_key_init(&k->key, aes_key, key_len); /* 16/32, aligned: cannot fail */
    memcpy(k->nonce, nonce, 12);
    k->key_len = (uint32_t)key_len;
}

void mbgcmi_cob_keys_wipe(struct mbgcmi_cob_keys *k)
{
    mbgcm_key_wipe(&k->key);
    mbgcmi_cob_wipe(k->nonce, sizeof k->nonce);
}

void mbgcmi_cob_nonce(const uint8_t base[12], uint64_t index, uint8_t out[12])
{
    /* the index is below 2^38 < 2^64: bytes 0..3 of the 96-bit value are zero */
    memcpy(out, base, 4);
    mbgcmi_cob_store_be64(out + 4, mbgcmi_cob_load_be64(base + 4) ^ index);
}

int mbgcmi_cob_salt(uint8_t salt[24])
{
    return RAND_bytes(salt, MBGCMI_COB_SALT) == 1 ? MBGCM_OK : MBGCM_ERR_LIBCRYPTO;
}
