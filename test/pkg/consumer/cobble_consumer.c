/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cobble_consumer.c — a minimal outside user of an installed libmbgcm-cobble.
 *
 * Built like consumer.c (CMake find_package(mbgcm COMPONENTS cobble) + mbgcm::cobble and
 * mbgcm::cobble_static; `cc $(pkg-config --cflags --libs mbgcm-cobble)`). It seals a message
 * of two chunks and a bit, opens it, and checks that a flipped byte is refused and a trailing
 * byte is reported as such. Exit status 0 means every check passed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mbgcm.h>
#include <mbgcm_cobble.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "cobble_consumer: FAIL: %s\n", what);
        failures++;
    }
}

int main(void)
{
    const size_t pt_len = 2 * MBGCM_COBBLE_CHUNK_LEN + 100;
    uint8_t key[32];
    for (size_t i = 0; i < sizeof key; i++) {
        key[i] = (uint8_t)(7 * i + 1);
    }
    size_t ct_len = 0;
    check(mbgcm_cobble_sealed_len(pt_len, &ct_len) == MBGCM_OK, "sealed_len");
    uint8_t *pt = malloc(pt_len), *ct = malloc(ct_len + 1), *out = malloc(pt_len + 1);
    if (pt == NULL || ct == NULL || out == NULL) {
        fprintf(stderr, "cobble_consumer: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < pt_len; i++) {
        pt[i] = (uint8_t)(i * 13);
    }
    static const uint8_t context[] = "consumer";
    size_t n = 0;
    check(mbgcm_cobble_seal(ct, &n, ct_len, key, sizeof key, context, sizeof context, pt, pt_len,
                            NULL) == MBGCM_OK && n == ct_len, "seal");
    size_t got = 0;
    check(mbgcm_cobble_open(out, &got, pt_len, key, sizeof key, context, sizeof context, ct,
                            ct_len, NULL) == MBGCM_OK && got == pt_len &&
              memcmp(out, pt, pt_len) == 0, "open");
    ct[ct_len] = 0x5a; /* one byte appended */
    check(mbgcm_cobble_open(out, &got, pt_len + 1, key, sizeof key, context, sizeof context, ct,
                            ct_len + 1, NULL) == MBGCM_ERR_TRAILING, "trailing byte reported");
    ct[ct_len - 20] ^= 1;
    check(mbgcm_cobble_open(out, &got, pt_len, key, sizeof key, context, sizeof context, ct,
                            ct_len, NULL) == MBGCM_ERR_AUTH, "modified byte refused");
    check(strcmp(mbgcm_version(), "") != 0, "engine linked");
    free(pt);
    free(ct);
    free(out);
    if (failures == 0) {
        printf("cobble_consumer: libmbgcm %s + libmbgcm-cobble: seal, open, trailing and "
               "modified checks passed\n", mbgcm_version());
    }
    return failures ? 1 : 0;
}
