/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * consumer.c — a minimal outside user of an installed mbgcm.
 *
 * Built three ways by test/pkg (against the install prefix, never the build tree): CMake
 * find_package + mbgcm::mbgcm (shared), CMake + mbgcm::mbgcm_static, and plain
 * `cc $(pkg-config --cflags --libs mbgcm)`. It checks that the header and the library agree on
 * the version, then encrypts and decrypts McGrew-Viega test case 2 (AES-128, key 0^128,
 * IV 0^96, plaintext 0^128) and rejects a forged tag. Exit status 0 means every check passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbgcm.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "consumer: FAIL: %s\n", what);
        failures++;
    }
}

int main(void)
{
    static const unsigned char want_ct[16] = {0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92,
                                              0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe, 0x78};
    static const unsigned char want_tag[16] = {0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd,
                                               0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57, 0xbd, 0xdf};
    const unsigned char raw[16] = {0};
    const unsigned char iv[12] = {0};
    const unsigned char pt[16] = {0};
    unsigned char ct[16], tag[16], back[16];
    mbgcm_key key; /* the type carries its 64-byte alignment */
    char want_version[32];

    snprintf(want_version, sizeof want_version, "%d.%d.%d", MBGCM_VERSION_MAJOR,
             MBGCM_VERSION_MINOR, MBGCM_VERSION_PATCH);
    check(strcmp(mbgcm_version(), want_version) == 0, "mbgcm_version() matches the header");

    check(mbgcm_key_init(&key, raw, sizeof raw) == MBGCM_OK, "mbgcm_key_init");
    check(mbgcm_encrypt(&key, iv, sizeof iv, NULL, 0, pt, sizeof pt, ct, tag, sizeof tag) ==
              MBGCM_OK,
          "mbgcm_encrypt returns MBGCM_OK");
    check(memcmp(ct, want_ct, sizeof ct) == 0, "ciphertext of test case 2");
    check(memcmp(tag, want_tag, sizeof tag) == 0, "tag of test case 2");

    check(mbgcm_decrypt(&key, iv, sizeof iv, NULL, 0, ct, sizeof ct, back, tag, sizeof tag) ==
              MBGCM_OK,
          "mbgcm_decrypt returns MBGCM_OK");
    check(memcmp(back, pt, sizeof back) == 0, "decrypted plaintext");

    tag[0] ^= 1;
    check(mbgcm_decrypt(&key, iv, sizeof iv, NULL, 0, ct, sizeof ct, back, tag, sizeof tag) ==
              MBGCM_ERR_AUTH,
          "a forged tag gives MBGCM_ERR_AUTH");
    check(mbgcm_strerror(MBGCM_ERR_AUTH) != NULL, "mbgcm_strerror");
    mbgcm_key_wipe(&key);

    if (failures) {
        fprintf(stderr, "consumer: %d check(s) failed (library %s)\n", failures, mbgcm_version());
        return EXIT_FAILURE;
    }
    printf("consumer: OK (mbgcm %s, test case 2 encrypt/decrypt)\n", mbgcm_version());
    return EXIT_SUCCESS;
}
