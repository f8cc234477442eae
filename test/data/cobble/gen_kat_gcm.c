/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_kat_gcm.c — AES-GCM with OpenSSL's EVP interface, for test/data/cobble/gen_kat.py
 * (Python's standard library has no AES). Nothing of mbgcm is used.
 *
 * Reads lines "KEYHEX NONCEHEX PTHEX" (PTHEX may be "-" for an empty plaintext) from stdin
 * and writes "CTHEX TAGHEX" (CTHEX "-" when empty) per line: AES-128/256-GCM, 12-byte nonce,
 * empty AAD, 16-byte tag. Build: cc -O2 gen_kat_gcm.c -lcrypto
 */
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t unhex(const char *s, unsigned char *out)
{
    size_t n = 0;
    if (strcmp(s, "-") == 0) {
        return 0;
    }
    for (; s[0] && s[1]; s += 2) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) {
            exit(2);
        }
        out[n++] = (unsigned char)v;
    }
    return n;
}

static void puthex(const unsigned char *p, size_t n)
{
    if (n == 0) {
        putchar('-');
    }
    for (size_t i = 0; i < n; i++) {
        printf("%02x", p[i]);
    }
}

int main(void)
{
    static char line[1 << 18];
    static unsigned char key[64], nonce[64], pt[1 << 17], ct[1 << 17];
    static char k[256], nh[256], ph[1 << 18];
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%255s %255s %262143s", k, nh, ph) != 3) {
            return 2;
        }
        const size_t kl = unhex(k, key), nl = unhex(nh, nonce), pl = unhex(ph, pt);
        const EVP_CIPHER *c = kl == 16 ? EVP_aes_128_gcm() : kl == 32 ? EVP_aes_256_gcm() : NULL;
        EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
        unsigned char tag[16];
        int n = 0, m = 0;
        if (c == NULL || nl != 12 || x == NULL || EVP_EncryptInit_ex(x, c, NULL, key, nonce) != 1 ||
            (pl && EVP_EncryptUpdate(x, ct, &n, pt, (int)pl) != 1) ||
            EVP_EncryptFinal_ex(x, ct + n, &m) != 1 ||
            EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1) {
            return 1;
        }
        EVP_CIPHER_CTX_free(x);
        puthex(ct, pl);
        putchar(' ');
        puthex(tag, 16);
        putchar('\n');
        fflush(stdout); /* the generator waits for each line */
    }
    return 0;
}
