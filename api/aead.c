/*
 * aead.c — the one-shot calls: argument checks (all of them before any memory is touched),
 * then the single-message driver of the arch chosen for this process, then the tag: written
 * truncated on encrypt; on decrypt compared in constant time, the output zeroed on mismatch.
 */
#include "mbgcm_internal.h"

/* Shared checks; returns MBGCM_OK or the specific error. */
static int check_args(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                      size_t aad_len, const void *in, size_t len, const void *out,
                      const void *tag, size_t tag_len)
{
    if (key == NULL || ((uintptr_t)key & 63) != 0 || !mbgcmi_key_ok(key)) {
        return MBGCM_ERR_INVALID;
    }
    if (iv_len == 0 || (uint64_t)iv_len > MBGCMI_MAX_IV_LEN) {
        return MBGCM_ERR_IV_LEN;
    }
    if ((uint64_t)aad_len > MBGCMI_MAX_AAD_LEN || (uint64_t)len > MBGCMI_MAX_TEXT_LEN) {
        return MBGCM_ERR_LEN;
    }
    if (!mbgcmi_tag_len_ok(tag_len)) {
        return MBGCM_ERR_TAG_LEN;
    }
    if (iv == NULL || tag == NULL || (aad_len && aad == NULL) ||
        (len && (in == NULL || out == NULL))) {
        return MBGCM_ERR_INVALID;
    }
    if (len && in != out && mbgcmi_overlap(in, len, out, len)) {
        return MBGCM_ERR_INVALID;
    }
    return MBGCM_OK;
}

int mbgcm_encrypt(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                  size_t aad_len, const void *in, size_t len, void *out, void *tag,
                  size_t tag_len)
{
    int st = check_args(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
    if (st != MBGCM_OK) {
        return st;
    }
    const int arch = mbgcmi_oneshot_arch();
    if (arch == MBGCMI_ARCH_NONE) {
        return MBGCM_ERR_UNSUPPORTED;
    }
    const struct mbgcmi_gcm_ops *ops = mbgcmi_gcm_ops_for(arch);
    const struct mbgcmi_key *k = mbgcmi_key_c(key);
    uint8_t j0[16], t[16];
    mbgcmi_gcm_j0(ops, k, (const uint8_t *)iv, iv_len, j0);
    mbgcmi_gcm_crypt_j0(ops, k, j0, (const uint8_t *)aad, aad_len, (const uint8_t *)in, len,
                        (uint8_t *)out, 0, t);
    memcpy(tag, t, tag_len);
    mbgcmi_wipe(t, sizeof t);
    mbgcmi_wipe(j0, sizeof j0);
    return MBGCM_OK;
}

int mbgcm_decrypt(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                  size_t aad_len, const void *in, size_t len, void *out, const void *tag,
                  size_t tag_len)
{
    int st = check_args(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
    if (st != MBGCM_OK) {
        return st;
    }
    const int arch = mbgcmi_oneshot_arch();
    if (arch == MBGCMI_ARCH_NONE) {
        return MBGCM_ERR_UNSUPPORTED;
    }
    const struct mbgcmi_gcm_ops *ops = mbgcmi_gcm_ops_for(arch);
    const struct mbgcmi_key *k = mbgcmi_key_c(key);
    uint8_t j0[16], t[16], expect[16];
    memcpy(expect, tag, tag_len); /* before |out| is written: the tag may live inside it */
    mbgcmi_gcm_j0(ops, k, (const uint8_t *)iv, iv_len, j0);
    mbgcmi_gcm_crypt_j0(ops, k, j0, (const uint8_t *)aad, aad_len, (const uint8_t *)in, len,
                        (uint8_t *)out, 1, t);
    const int ok = mbgcmi_ct_equal(t, expect, tag_len);
    mbgcmi_wipe(t, sizeof t);
    mbgcmi_wipe(expect, sizeof expect);
    mbgcmi_wipe(j0, sizeof j0);
    if (!ok) {
        mbgcmi_wipe(out, len);
        return MBGCM_ERR_AUTH;
    }
    return MBGCM_OK;
}
