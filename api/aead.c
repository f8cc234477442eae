/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * aead.c — the one-shot calls: argument checks (all of them before any memory is touched,
 * jobs/validate.h), then the single-message driver of the arch chosen for this process. On
 * x86-64 with the assembler the public functions enter arch/x86/oneshot_x86.asm first, which
 * runs the checked common call itself and hands everything else to the C code here.
 */
#include <stddef.h>

#include "arch.h"
#include "ct.h"
#include "gcm.h"
#include "validate.h"

static inline __attribute__((always_inline)) int
oneshot(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad, size_t aad_len,
        const void *in, size_t len, void *out, const void *tag, size_t tag_len, int decrypt)
{
    /* The common call, a 12-byte IV once the arch is chosen: the checks inline and the arch's
       whole12 directly (the general driver makes the same call, a few levels down). */
    const mbgcmi_whole12_fn w12 = __atomic_load_n(&mbgcmi_oneshot_whole12, __ATOMIC_RELAXED);
    uint8_t *const t = (uint8_t *)(uintptr_t)tag;
    int fail;
    if (__builtin_expect(w12 != NULL && iv_len == 12, 1)) {
        const int st = mbgcmi_check_args_inline(key, iv, iv_len, aad, aad_len, in, len, out,
                                                tag, tag_len);
        if (st != MBGCM_OK) {
            return st;
        }
        fail = w12(mbgcmi_key_c(key), iv, aad, aad_len, in, len, out, t,
                   tag_len | (size_t)decrypt << 8);
        MBGCMI_DECLASSIFY(&fail, sizeof fail); /* the authentication outcome is public */
    } else {
        const int st = mbgcmi_check_args(key, iv, iv_len, aad, aad_len, in, len, out, tag,
                                         tag_len);
        if (st != MBGCM_OK) {
            return st;
        }
        const struct mbgcmi_arch *a = mbgcmi_oneshot_arch();
        if (a == NULL) {
            return MBGCM_ERR_UNSUPPORTED;
        }
        fail = mbgcmi_gcm_message(a, mbgcmi_key_c(key), iv, iv_len, aad, aad_len, in, len, out,
                                  t, tag_len, decrypt);
    }
    if (fail) {
        mbgcmi_wipe(out, len); /* never release unauthenticated plaintext */
        return MBGCM_ERR_AUTH;
    }
    return MBGCM_OK;
}

#if defined(MBGCM_HAVE_NASM) && defined(__x86_64__)
/* x86-64 with the assembler: the public calls jump to arch/x86/oneshot_x86.asm, which runs the
   common call (whole12, a 12-byte IV, every check passed) itself and sends everything else,
   arguments untouched, to the C implementation below (under the names it knows). A naked
   function keeps each public symbol a C function with its type (the ABI check reads it) at
   the cost of one jump. The asm's constants are pinned to the C checks here. */
#define ONESHOT_ENCRYPT mbgcmi_encrypt_c
#define ONESHOT_DECRYPT mbgcmi_decrypt_c
_Static_assert(offsetof(struct mbgcmi_key, magic) == 248 && MBGCMI_KEY_MAGIC == 0x6b67626du &&
                   MBGCMI_MAX_AAD_LEN == (UINT64_C(1) << 61) - 1 &&
                   MBGCMI_MAX_TEXT_LEN == UINT64_C(0xFFFFFFFE0),
               "arch/x86/oneshot_x86.asm: key layout and limits");
int mbgcmi_encrypt_c(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                     size_t aad_len, const void *in, size_t len, void *out, void *tag,
                     size_t tag_len);
int mbgcmi_decrypt_c(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                     size_t aad_len, const void *in, size_t len, void *out, const void *tag,
                     size_t tag_len);

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter" /* a naked function reads none of them */
__attribute__((naked)) int mbgcm_encrypt(const mbgcm_key *key, const void *iv, size_t iv_len,
                                         const void *aad, size_t aad_len, const void *in,
                                         size_t len, void *out, void *tag, size_t tag_len)
{
    __asm__("jmp mbgcmi_x86_encrypt"); /* (-fcf-protection: the compiler adds ENDBR64) */
}

__attribute__((naked)) int mbgcm_decrypt(const mbgcm_key *key, const void *iv, size_t iv_len,
                                         const void *aad, size_t aad_len, const void *in,
                                         size_t len, void *out, const void *tag, size_t tag_len)
{
    __asm__("jmp mbgcmi_x86_decrypt");
}
#pragma GCC diagnostic pop
#else
#define ONESHOT_ENCRYPT mbgcm_encrypt
#define ONESHOT_DECRYPT mbgcm_decrypt
#endif

int ONESHOT_ENCRYPT(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                    size_t aad_len, const void *in, size_t len, void *out, void *tag,
                    size_t tag_len)
{
    return oneshot(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len, 0);
}

int ONESHOT_DECRYPT(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
                    size_t aad_len, const void *in, size_t len, void *out, const void *tag,
                    size_t tag_len)
{
    return oneshot(key, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len, 1);
}
