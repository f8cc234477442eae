/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mk_dp_vectors — AES-GCM and AES-GMAC test vectors for the CPU-crypto, raw data-path and
 * GMAC tests of crypto_mbgcm, computed with OpenSSL (EVP) from deterministic inputs.
 *
 *   mk_dp_vectors header OUT.h          the C header dp_vectors.h (committed; the ctest
 *                                       dpdk_dp_vectors_current checks it is this output)
 *   mk_dp_vectors perf OUT.data OUT.cases
 *                                       dpdk-test-crypto-perf --test-file sections for
 *                                       --optype auth-only --auth-algo aes-gmac, one a case,
 *                                       and the case list: `name key_len iv_len len tag_len`
 *
 * The header uses the layout of DPDK's own GCM test vectors (its unit tests' aead_test_data
 * and gmac_test_data): key, iv, aad, plaintext, ciphertext and tag, or key, iv, plaintext
 * and GMAC tag, each as data and length.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

struct aead_shape { unsigned key, iv, aad, pt; };
struct gmac_shape { unsigned key, iv, len; };

/* Lengths chosen for the paths they take: empty, shorter than a block, one block, the short
   (lane) kernels' range, a segment list's worth, single-stream lengths; 12-byte IVs mostly,
   and the GHASHed IV lengths (1, 8, 16, 60). */
static const struct aead_shape g_aead[] = {
    {16, 12, 0, 0},   {16, 12, 16, 1},   {16, 12, 8, 16},  {16, 12, 12, 60},
    {16, 12, 20, 64}, {24, 12, 16, 65},  {24, 8, 0, 255},  {32, 12, 16, 256},
    {32, 16, 24, 1420}, {32, 60, 13, 100}, {16, 12, 64, 600}, {32, 12, 16, 64},
};
static const struct gmac_shape g_gmac[] = {
    {16, 12, 0},  {16, 12, 1},   {16, 12, 20},   {24, 12, 64},  {32, 12, 65},
    {32, 16, 512}, {16, 1, 100}, {32, 12, 1420}, {16, 12, 1000},
};
#define NA (sizeof(g_aead) / sizeof(g_aead[0]))
#define NG (sizeof(g_gmac) / sizeof(g_gmac[0]))

static uint64_t g_rng = 0x6d6267636d2d6470ull; /* "mbgcm-dp" */
static void fill(uint8_t *p, size_t n)
{
    while (n--) {
        g_rng ^= g_rng >> 12;
        g_rng ^= g_rng << 25;
        g_rng ^= g_rng >> 27;
        *p++ = (uint8_t)((g_rng * 0x2545f4914f6cdd1dull) >> 56);
    }
}

static const EVP_CIPHER *gcm(unsigned key)
{
    return key == 16 ? EVP_aes_128_gcm() : key == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
}

static void die(const char *what)
{
    fprintf(stderr, "mk_dp_vectors: %s failed\n", what);
    exit(1);
}

/* GCM encryption with OpenSSL: ct and the full 16-byte tag. */
static void gcm_encrypt(const uint8_t *key, unsigned klen, const uint8_t *iv, unsigned ivlen,
                        const uint8_t *aad, unsigned aadlen, const uint8_t *pt, unsigned len,
                        uint8_t *ct, uint8_t tag[16])
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    int n;

    if (c == NULL || EVP_EncryptInit_ex(c, gcm(klen), NULL, NULL, NULL) != 1 ||
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, (int)ivlen, NULL) != 1 ||
        EVP_EncryptInit_ex(c, NULL, NULL, key, iv) != 1)
        die("EVP init");
    if (aadlen != 0 && EVP_EncryptUpdate(c, NULL, &n, aad, (int)aadlen) != 1)
        die("EVP aad");
    if (len != 0 && EVP_EncryptUpdate(c, ct, &n, pt, (int)len) != 1)
        die("EVP update");
    if (EVP_EncryptFinal_ex(c, ct + len, &n) != 1 ||
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1)
        die("EVP final");
    EVP_CIPHER_CTX_free(c);
}

static void put_array(FILE *f, const char *name, const uint8_t *p, unsigned n)
{
    unsigned i;

    fprintf(f, "static const uint8_t %s[%u] = {", name, n ? n : 1);
    for (i = 0; i < n; i++)
        fprintf(f, "%s0x%02x,", i % 12 ? " " : "\n    ", p[i]);
    fprintf(f, "%s};\n", n ? "\n" : "0");
}

static void header(FILE *f)
{
    static uint8_t key[32], iv[64], aad[64], pt[2048], ct[2048], tag[16];
    char nm[64];
    unsigned i;

    fprintf(f, "/*\n * dp_vectors.h — AES-GCM and AES-GMAC vectors for crypto_mbgcm's "
               "CPU-crypto, raw data-path\n * and GMAC tests, in the layout of DPDK's own GCM "
               "test vectors. Written by\n * dpdk/test/mk_dp_vectors.c with OpenSSL from "
               "deterministic inputs: do not edit.\n */\n");
    fprintf(f, "#ifndef MBGCM_DPDK_DP_VECTORS_H\n#define MBGCM_DPDK_DP_VECTORS_H\n\n"
               "#include <stdint.h>\n\n");
    fprintf(f, "struct dp_bytes {\n    const uint8_t *data;\n    unsigned len;\n};\n\n");
    fprintf(f, "struct dp_aead_vector {\n    struct dp_bytes key, iv, aad, plaintext, "
               "ciphertext, auth_tag;\n};\n\n");
    fprintf(f, "struct dp_gmac_vector {\n    struct dp_bytes key, iv, plaintext, gmac_tag;\n};\n\n");
    for (i = 0; i < NA; i++) {
        const struct aead_shape *a = &g_aead[i];

        fill(key, a->key);
        fill(iv, a->iv);
        fill(aad, a->aad);
        fill(pt, a->pt);
        gcm_encrypt(key, a->key, iv, a->iv, aad, a->aad, pt, a->pt, ct, tag);
        snprintf(nm, sizeof(nm), "dp_aead%u_key", i);
        put_array(f, nm, key, a->key);
        snprintf(nm, sizeof(nm), "dp_aead%u_iv", i);
        put_array(f, nm, iv, a->iv);
        snprintf(nm, sizeof(nm), "dp_aead%u_aad", i);
        put_array(f, nm, aad, a->aad);
        snprintf(nm, sizeof(nm), "dp_aead%u_pt", i);
        put_array(f, nm, pt, a->pt);
        snprintf(nm, sizeof(nm), "dp_aead%u_ct", i);
        put_array(f, nm, ct, a->pt);
        snprintf(nm, sizeof(nm), "dp_aead%u_tag", i);
        put_array(f, nm, tag, 16);
        fputc('\n', f);
    }
    for (i = 0; i < NG; i++) {
        const struct gmac_shape *g = &g_gmac[i];

        fill(key, g->key);
        fill(iv, g->iv);
        fill(pt, g->len);
        gcm_encrypt(key, g->key, iv, g->iv, pt, g->len, NULL, 0, ct, tag);
        snprintf(nm, sizeof(nm), "dp_gmac%u_key", i);
        put_array(f, nm, key, g->key);
        snprintf(nm, sizeof(nm), "dp_gmac%u_iv", i);
        put_array(f, nm, iv, g->iv);
        snprintf(nm, sizeof(nm), "dp_gmac%u_data", i);
        put_array(f, nm, pt, g->len);
        snprintf(nm, sizeof(nm), "dp_gmac%u_tag", i);
        put_array(f, nm, tag, 16);
        fputc('\n', f);
    }
    fprintf(f, "static const struct dp_aead_vector dp_aead_vectors[%zu] = {\n", NA);
    for (i = 0; i < NA; i++)
        fprintf(f, "    {{dp_aead%u_key, %u}, {dp_aead%u_iv, %u}, {dp_aead%u_aad, %u},\n"
                   "     {dp_aead%u_pt, %u}, {dp_aead%u_ct, %u}, {dp_aead%u_tag, 16}},\n",
                i, g_aead[i].key, i, g_aead[i].iv, i, g_aead[i].aad, i, g_aead[i].pt, i,
                g_aead[i].pt, i);
    fprintf(f, "};\n\nstatic const struct dp_gmac_vector dp_gmac_vectors[%zu] = {\n", NG);
    for (i = 0; i < NG; i++)
        fprintf(f, "    {{dp_gmac%u_key, %u}, {dp_gmac%u_iv, %u}, {dp_gmac%u_data, %u}, "
                   "{dp_gmac%u_tag, 16}},\n",
                i, g_gmac[i].key, i, g_gmac[i].iv, i, g_gmac[i].len, i);
    fprintf(f, "};\n\n#endif\n");
}

static void put_perf(FILE *f, const char *name, const uint8_t *p, unsigned n)
{
    unsigned i;

    fprintf(f, "%s =", name);
    for (i = 0; i < n; i++)
        fprintf(f, "%s 0x%02x", i ? "," : "", p[i]);
    fputc('\n', f);
}

/* crypto-perf auth-only cases: 12-byte IVs (what --auth-iv-sz takes with a test file) and
   buffer sizes crypto-perf accepts (at least one byte). */
static void perf(FILE *data, FILE *cases)
{
    static const struct gmac_shape pc[] = {
        {16, 12, 16}, {16, 12, 64}, {24, 12, 100}, {32, 12, 256}, {32, 12, 1420}, {16, 12, 2048},
    };
    static uint8_t key[32], iv[12], pt[4096], tag[16];
    unsigned i;

    fprintf(data, "# dpdk-test-crypto-perf AES-GMAC vectors, written by mk_dp_vectors with "
                  "OpenSSL. Do not edit.\n\n");
    fprintf(cases, "# name key_len iv_len len tag_len (written by mk_dp_vectors)\n");
    for (i = 0; i < sizeof(pc) / sizeof(pc[0]); i++) {
        fill(key, pc[i].key);
        fill(iv, pc[i].iv);
        fill(pt, pc[i].len);
        gcm_encrypt(key, pc[i].key, iv, pc[i].iv, pt, pc[i].len, NULL, 0, NULL, tag);
        fprintf(data, "[gmac%u_len%u]\n", pc[i].key * 8, pc[i].len);
        put_perf(data, "plaintext", pt, pc[i].len);
        put_perf(data, "auth_key", key, pc[i].key);
        put_perf(data, "auth_iv", iv, pc[i].iv);
        put_perf(data, "digest", tag, 16);
        fputc('\n', data);
        fprintf(cases, "gmac%u_len%u %u %u %u 16\n", pc[i].key * 8, pc[i].len, pc[i].key,
                pc[i].iv, pc[i].len);
    }
}

int main(int argc, char **argv)
{
    FILE *f, *g;

    if (argc == 3 && strcmp(argv[1], "header") == 0) {
        f = fopen(argv[2], "w");
        if (f == NULL)
            die("fopen");
        header(f);
        return fclose(f) != 0;
    }
    if (argc == 4 && strcmp(argv[1], "perf") == 0) {
        f = fopen(argv[2], "w");
        g = fopen(argv[3], "w");
        if (f == NULL || g == NULL)
            die("fopen");
        perf(f, g);
        return (fclose(f) != 0) | (fclose(g) != 0);
    }
    fprintf(stderr, "usage: mk_dp_vectors header OUT.h | perf OUT.data OUT.cases\n");
    return 2;
}
