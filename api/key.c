/*
 * key.c — mbgcm_key_init / mbgcm_key_wipe: AES key expansion, H = E_K(0^128), and the
 * GHASH key powers H^1..H^32 with their Karatsuba halves (layout in mb/mbgcm_internal.h).
 * No allocation. With AES-NI and PCLMULQDQ the expansion and the powers use them; the
 * portable path computes the same bytes in constant-time C.
 */
#include "mbgcm_internal.h"

void mbgcmi_key_expand(mbgcm_key *key, const uint8_t *raw, size_t raw_len, int arch)
{
    struct mbgcmi_key *k = mbgcmi_key_w(key);
    static const uint8_t zero[16] = {0};
    uint8_t h[16];

    memset(k, 0, sizeof *k);
    k->key_len = (uint32_t)raw_len;
    k->rounds = (uint32_t)(raw_len / 4 + 6);

#if defined(MBGCM_HAVE_NASM)
    if (arch >= MBGCMI_ARCH_AESNI && mbgcmi_arch_supported(MBGCMI_ARCH_AESNI)) {
        if (raw_len == 16) {
            mbgcmi_aesni_expand128(raw, k->rk);
        } else if (raw_len == 24) {
            mbgcmi_aesni_expand192(raw, k->rk);
        } else {
            mbgcmi_aesni_expand256(raw, k->rk);
        }
        mbgcmi_aesni_block(k, zero, h);
        mbgcmi_hkey_from_h(h, k->hpow[MBGCMI_HIDX(1)]);
        mbgcmi_pclmul_hpowers(k);
        mbgcmi_wipe(h, sizeof h);
        k->magic = MBGCMI_KEY_MAGIC;
        return;
    }
#endif
    (void)arch;
    mbgcmi_aes_ct_expand(raw, raw_len, k->rk);
    mbgcmi_gcm_ops_for(MBGCMI_ARCH_GENERIC)->block(k, zero, h);
    mbgcmi_hkey_from_h(h, k->hpow[MBGCMI_HIDX(1)]);
    mbgcmi_hpowers_ct(k);
    mbgcmi_wipe(h, sizeof h);
    k->magic = MBGCMI_KEY_MAGIC;
    mbgcmi_burn_stack(); /* S-box and GHASH intermediates the compiler spilled */
}

int mbgcm_key_init(mbgcm_key *key, const void *raw, size_t raw_len)
{
    if (key == NULL || raw == NULL || ((uintptr_t)key & 63) != 0) {
        return MBGCM_ERR_INVALID;
    }
    if (raw_len != 16 && raw_len != 24 && raw_len != 32) {
        return MBGCM_ERR_KEY_LEN;
    }
    /* The raw key is copied before |key| is cleared: it may lie inside the key object
       (re-keying from bytes kept in the object's own memory). */
    uint8_t copy[32];
    memcpy(copy, raw, raw_len);
    mbgcmi_key_expand(key, copy, raw_len, mbgcmi_arch_best());
    mbgcmi_wipe(copy, sizeof copy);
    return MBGCM_OK;
}

void mbgcm_key_wipe(mbgcm_key *key)
{
    if (key != NULL) {
        mbgcmi_wipe(key, sizeof *key);
    }
}
