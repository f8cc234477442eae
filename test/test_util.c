/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_util.c — see test_util.h.
 */
#include "test_util.h"
#include "jobs_internal.h"


#include <errno.h>
#include <time.h>
#include <unistd.h>

#include <intel-ipsec-mb.h>
#include <openssl/err.h>
#include <openssl/evp.h>

/* ---- PRNG -------------------------------------------------------------------------------- */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t tu_rng_next(tu_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t tu_rng_below(tu_rng *r, uint64_t n)
{
    if (n == 0) {
        fail_msg("tu_rng_below(0)");
    }
    const uint64_t lim = UINT64_MAX - UINT64_MAX % n; /* reject the biased top */
    uint64_t v;
    do {
        v = tu_rng_next(r);
    } while (v >= lim);
    return v % n;
}

uint64_t tu_rng_range(tu_rng *r, uint64_t lo, uint64_t hi)
{
    if (hi - lo == UINT64_MAX) {
        return tu_rng_next(r);
    }
    return lo + tu_rng_below(r, hi - lo + 1);
}

void tu_rng_fill(tu_rng *r, void *p, size_t n)
{
    uint8_t *b = (uint8_t *)p;
    while (n >= 8) {
        const uint64_t v = tu_rng_next(r);
        memcpy(b, &v, 8);
        b += 8;
        n -= 8;
    }
    if (n) {
        const uint64_t v = tu_rng_next(r);
        memcpy(b, &v, n);
    }
}

static int seed_ready;
static uint64_t seed_value;

uint64_t tu_seed(void)
{
    if (seed_ready) {
        return seed_value;
    }
    const char *e = getenv("MBGCM_SEED");
    if (e != NULL && e[0] != '\0') {
        char *end = NULL;
        errno = 0;
        seed_value = strtoull(e, &end, 0);
        if (errno != 0 || end == e || *end != '\0') {
            fprintf(stderr, "MBGCM_SEED=%s is not a number\n", e);
            exit(2);
        }
        printf("seed=0x%016llx (from MBGCM_SEED)\n", (unsigned long long)seed_value);
    } else {
        uint64_t x = 0;
        FILE *f = fopen("/dev/urandom", "rb");
        if (f == NULL || fread(&x, sizeof x, 1, f) != 1) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
        }
        if (f != NULL) {
            fclose(f);
        }
        seed_value = x;
        printf("seed=0x%016llx (replay with MBGCM_SEED=0x%016llx)\n",
               (unsigned long long)seed_value, (unsigned long long)seed_value);
    }
    fflush(stdout);
    seed_ready = 1;
    return seed_value;
}

void tu_rng_init(tu_rng *r, const char *label)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a of the label */
    for (const char *p = label; *p; p++) {
        h = (h ^ (uint8_t)*p) * UINT64_C(0x100000001b3);
    }
    uint64_t x = tu_seed() ^ h;
    for (int i = 0; i < 4; i++) {
        r->s[i] = splitmix64(&x);
    }
}

/* ---- scale ------------------------------------------------------------------------------- */
double tu_scale(void)
{
    static double scale = -1.0;
    if (scale > 0) {
        return scale;
    }
#if defined(MBGCM_TEST_SANITIZED)
    scale = 0.1;
#else
    scale = 1.0;
#endif
    const char *e = getenv("MBGCM_TEST_SCALE");
    if (e != NULL && e[0] != '\0') {
        char *end = NULL;
        const double v = strtod(e, &end);
        if (end == e || *end != '\0' || !(v > 0.0) || v > 1e6) {
            fprintf(stderr, "MBGCM_TEST_SCALE=%s is not a positive number\n", e);
            exit(2);
        }
        scale = v;
    }
    return scale;
}

size_t tu_scaled(size_t n)
{
    const double v = (double)n * tu_scale() + 0.5;
    return v < 1.0 ? 1 : (size_t)v;
}

/* ---- buffers and hex ----------------------------------------------------------------------- */
void *tu_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fail_msg("out of memory allocating %zu bytes", n);
    }
    return p;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int tu_hex_decode(const char *s, size_t slen, uint8_t *out)
{
    if (slen % 2) {
        return -1;
    }
    for (size_t i = 0; i < slen / 2; i++) {
        const int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return -1;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

int tu_all_byte(const void *p, size_t n, uint8_t b)
{
    const uint8_t *q = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) {
        if (q[i] != b) {
            return 0;
        }
    }
    return 1;
}

long tu_first_diff(const void *a, const void *b, size_t n)
{
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    for (size_t i = 0; i < n; i++) {
        if (x[i] != y[i]) {
            return (long)i;
        }
    }
    return -1;
}

void tu_print_hex(const char *label, const void *p, size_t n)
{
    const uint8_t *q = (const uint8_t *)p;
    char buf[160];
    size_t k = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%02x", q[i]);
    }
    print_error("%s: %s%s\n", label, buf, n > 64 ? "..." : "");
}

/* ---- arches -------------------------------------------------------------------------------- */
int tu_arch_count(void)
{
    return (int)mbgcmi_narches;
}

int tu_arch_idx(const char *name)
{
    return mbgcmi_arch_index(mbgcmi_arch_find(name));
}

const struct mbgcmi_arch *tu_arch(int a)
{
    return a >= 0 ? mbgcmi_arch_at((unsigned)a) : NULL;
}

const char *tu_arch_name(int a)
{
    const struct mbgcmi_arch *d = tu_arch(a);
    return d ? d->name : "none";
}

/* MBGCM_TEST_ARCHES=name[,name...] (set by the CMake registrations that run a suite under a
   forced variant, test/CMakeLists.txt): the arch loops skip every arch not listed */
static int arch_listed(const struct mbgcmi_arch *d)
{
    const char *list = getenv("MBGCM_TEST_ARCHES");
    if (list == NULL || list[0] == '\0' || d == NULL) {
        return 1;
    }
    const size_t n = strlen(d->name);
    for (const char *p = list; *p != '\0';) {
        const char *e = strchr(p, ',');
        const size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, d->name, n) == 0) {
            return 1;
        }
        p += len + (e != NULL);
    }
    return 0;
}

int tu_arch_supported(int a)
{
    return mbgcmi_arch_supported(tu_arch(a)) && arch_listed(tu_arch(a));
}

unsigned tu_arch_requires(int a)
{
    const struct mbgcmi_arch *d = tu_arch(a);
    return d ? d->requires : ~0u;
}

int tu_arch_best(void)
{
    return mbgcmi_arch_index(mbgcmi_arch_best());
}

int tu_arch_parse(const char *name)
{
    return mbgcmi_arch_index(mbgcmi_arch_parse(name));
}

void tu_set_oneshot_arch(int a)
{
    mbgcmi_set_oneshot_arch(tu_arch(a));
}

int tu_oneshot_arch(void)
{
    return mbgcmi_arch_index(mbgcmi_oneshot_arch());
}

int tu_supported_arches(int out[MBGCMI_MAX_ARCHES])
{
    int n = 0;
    for (int a = 0; a < tu_arch_count(); a++) {
        if (tu_arch_supported(a)) {
            out[n++] = a;
        }
    }
    return n;
}

void tu_print_arch_counts(const char *label, const uint64_t counts[MBGCMI_MAX_ARCHES])
{
    uint64_t total = 0;
    printf("%s:", label);
    for (int a = 0; a < tu_arch_count(); a++) {
        if (tu_arch_supported(a)) {
            printf(" %s=%llu", tu_arch_name(a), (unsigned long long)counts[a]);
            total += counts[a];
        }
    }
    printf(" (total %llu)\n", (unsigned long long)total);
    fflush(stdout);
}

/* ---- (a) OpenSSL ------------------------------------------------------------------------------ */
static EVP_CIPHER_CTX *ossl_ctx(void)
{
    static EVP_CIPHER_CTX *ctx;
    if (ctx == NULL) {
        ctx = EVP_CIPHER_CTX_new();
        if (ctx == NULL) {
            fail_msg("EVP_CIPHER_CTX_new failed");
        }
    }
    return ctx;
}

static const EVP_CIPHER *ossl_cipher(size_t key_len, int gcm)
{
    static EVP_CIPHER *c[2][3];
    static const char *const names[2][3] = {{"AES-128-ECB", "AES-192-ECB", "AES-256-ECB"},
                                            {"AES-128-GCM", "AES-192-GCM", "AES-256-GCM"}};
    int i;
    switch (key_len) {
    case 16: i = 0; break;
    case 24: i = 1; break;
    case 32: i = 2; break;
    default: fail_msg("reference: bad key length %zu", key_len); return NULL;
    }
    if (c[gcm][i] == NULL) {
        c[gcm][i] = EVP_CIPHER_fetch(NULL, names[gcm][i], NULL);
        if (c[gcm][i] == NULL) {
            fail_msg("EVP_CIPHER_fetch(%s) failed", names[gcm][i]);
        }
    }
    return c[gcm][i];
}

static void ossl_die(const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    fail_msg("OpenSSL %s failed: %s", what, buf);
}

static int ossl_gcm(int enc, const uint8_t *key, size_t key_len, const uint8_t *iv,
                    size_t iv_len, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, uint8_t *tag, size_t tag_len)
{
    EVP_CIPHER_CTX *ctx = ossl_ctx();
    int outl = 0;
    uint8_t fin[16], full[16];
    if (iv_len < 1 || iv_len > 128 || tag_len < 1 || tag_len > 16 || len > INT32_MAX ||
        aad_len > INT32_MAX) {
        fail_msg("OpenSSL reference: unsupported lengths iv=%zu tag=%zu", iv_len, tag_len);
    }
    if (EVP_CipherInit_ex(ctx, ossl_cipher(key_len, 1), NULL, NULL, NULL, enc) != 1) {
        ossl_die("CipherInit(cipher)");
    }
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, (int)iv_len, NULL) != 1) {
        ossl_die("SET_IVLEN");
    }
    if (EVP_CipherInit_ex(ctx, NULL, NULL, key, iv, enc) != 1) {
        ossl_die("CipherInit(key, iv)");
    }
    if (aad_len && EVP_CipherUpdate(ctx, NULL, &outl, aad, (int)aad_len) != 1) {
        ossl_die("Update(aad)");
    }
    if (len) {
        if (EVP_CipherUpdate(ctx, out, &outl, in, (int)len) != 1 || (size_t)outl != len) {
            ossl_die("Update(text)");
        }
    }
    if (!enc) {
        memcpy(full, tag, tag_len);
        if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, (int)tag_len, full) != 1) {
            ossl_die("SET_TAG");
        }
        return EVP_CipherFinal_ex(ctx, fin, &outl) == 1 ? 0 : 1;
    }
    if (EVP_CipherFinal_ex(ctx, fin, &outl) != 1) {
        ossl_die("Final(enc)");
    }
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, full) != 1) {
        ossl_die("GET_TAG");
    }
    memcpy(tag, full, tag_len);
    return 0;
}

int tu_ossl_gcm_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                        uint8_t *out, uint8_t *tag, size_t tag_len)
{
    return ossl_gcm(1, key, key_len, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
}

int tu_ossl_gcm_decrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                        const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                        uint8_t *out, const uint8_t *tag, size_t tag_len)
{
    return ossl_gcm(0, key, key_len, iv, iv_len, aad, aad_len, in, len, out, (uint8_t *)tag,
                    tag_len);
}

void tu_ossl_aes_ecb(const uint8_t *key, size_t key_len, const uint8_t *in, uint8_t *out,
                     size_t nblocks)
{
    static EVP_CIPHER_CTX *ctx;
    int outl = 0;
    if (ctx == NULL && (ctx = EVP_CIPHER_CTX_new()) == NULL) {
        fail_msg("EVP_CIPHER_CTX_new failed");
    }
    if (EVP_EncryptInit_ex(ctx, ossl_cipher(key_len, 0), NULL, key, NULL) != 1 ||
        EVP_CIPHER_CTX_set_padding(ctx, 0) != 1) {
        ossl_die("ECB init");
    }
    if (nblocks && (EVP_EncryptUpdate(ctx, out, &outl, in, (int)(16 * nblocks)) != 1 ||
                    (size_t)outl != 16 * nblocks)) {
        ossl_die("ECB update");
    }
}

/* ---- (b) intel-ipsec-mb ---------------------------------------------------------------------- */
static IMB_MGR *imb_mgr;
static IMB_ARCH imb_arch;
static struct gcm_key_data *imb_key;

static void imb_setup(void)
{
    if (imb_mgr != NULL) {
        return;
    }
    imb_mgr = alloc_mb_mgr(0);
    if (imb_mgr == NULL) {
        fail_msg("alloc_mb_mgr failed");
    }
    init_mb_mgr_auto(imb_mgr, &imb_arch);
    if (imb_get_errno(imb_mgr) != 0) {
        fail_msg("init_mb_mgr_auto failed: %s", imb_get_strerror(imb_get_errno(imb_mgr)));
    }
    imb_key = aligned_alloc(64, (sizeof *imb_key + 63) & ~(size_t)63);
    if (imb_key == NULL) {
        fail_msg("aligned_alloc failed");
    }
}

const char *tu_imb_arch_name(void)
{
    imb_setup();
    switch (imb_arch) {
    case IMB_ARCH_NOAESNI: return "noaesni";
    case IMB_ARCH_SSE: return "sse";
    case IMB_ARCH_AVX: return "avx";
    case IMB_ARCH_AVX2: return "avx2";
    case IMB_ARCH_AVX512: return "avx512";
    default: return "?";
    }
}

static void imb_gcm(int enc, const uint8_t *key, size_t key_len, const uint8_t *iv,
                    size_t iv_len, const uint8_t *aad, size_t aad_len, const uint8_t *in,
                    size_t len, uint8_t *out, uint8_t *tag, size_t tag_len)
{
    static const uint8_t dummy[16];
    struct gcm_context_data ctx;
    imb_setup();
    if (iv_len < 1 || tag_len < 1 || tag_len > 16) {
        fail_msg("ipsec-mb reference: unsupported lengths iv=%zu tag=%zu", iv_len, tag_len);
    }
    /* never hand NULL to ipsec-mb, even with a zero length */
    if (aad == NULL) aad = dummy;
    if (in == NULL) in = dummy;
    if (out == NULL) out = (uint8_t *)(uintptr_t)dummy; /* never written: len == 0 */
    IMB_MGR *m = imb_mgr;
    switch (key_len) {
    case 16:
        IMB_AES128_GCM_PRE(m, key, imb_key);
        IMB_AES128_GCM_INIT_VAR_IV(m, imb_key, &ctx, iv, iv_len, aad, aad_len);
        if (enc) {
            IMB_AES128_GCM_ENC_UPDATE(m, imb_key, &ctx, out, in, len);
            IMB_AES128_GCM_ENC_FINALIZE(m, imb_key, &ctx, tag, tag_len);
        } else {
            IMB_AES128_GCM_DEC_UPDATE(m, imb_key, &ctx, out, in, len);
            IMB_AES128_GCM_DEC_FINALIZE(m, imb_key, &ctx, tag, tag_len);
        }
        break;
    case 24:
        IMB_AES192_GCM_PRE(m, key, imb_key);
        IMB_AES192_GCM_INIT_VAR_IV(m, imb_key, &ctx, iv, iv_len, aad, aad_len);
        if (enc) {
            IMB_AES192_GCM_ENC_UPDATE(m, imb_key, &ctx, out, in, len);
            IMB_AES192_GCM_ENC_FINALIZE(m, imb_key, &ctx, tag, tag_len);
        } else {
            IMB_AES192_GCM_DEC_UPDATE(m, imb_key, &ctx, out, in, len);
            IMB_AES192_GCM_DEC_FINALIZE(m, imb_key, &ctx, tag, tag_len);
        }
        break;
    case 32:
        IMB_AES256_GCM_PRE(m, key, imb_key);
        IMB_AES256_GCM_INIT_VAR_IV(m, imb_key, &ctx, iv, iv_len, aad, aad_len);
        if (enc) {
            IMB_AES256_GCM_ENC_UPDATE(m, imb_key, &ctx, out, in, len);
            IMB_AES256_GCM_ENC_FINALIZE(m, imb_key, &ctx, tag, tag_len);
        } else {
            IMB_AES256_GCM_DEC_UPDATE(m, imb_key, &ctx, out, in, len);
            IMB_AES256_GCM_DEC_FINALIZE(m, imb_key, &ctx, tag, tag_len);
        }
        break;
    default:
        fail_msg("ipsec-mb reference: bad key length %zu", key_len);
    }
    if (imb_get_errno(m) != 0) {
        fail_msg("ipsec-mb GCM failed: %s", imb_get_strerror(imb_get_errno(m)));
    }
}

int tu_imb_gcm_encrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                       uint8_t *out, uint8_t *tag, size_t tag_len)
{
    imb_gcm(1, key, key_len, iv, iv_len, aad, aad_len, in, len, out, tag, tag_len);
    return 0;
}

int tu_imb_gcm_decrypt(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
                       const uint8_t *aad, size_t aad_len, const uint8_t *in, size_t len,
                       uint8_t *out, const uint8_t *tag, size_t tag_len)
{
    uint8_t t[16];
    imb_gcm(0, key, key_len, iv, iv_len, aad, aad_len, in, len, out, t, tag_len);
    return memcmp(t, tag, tag_len) == 0 ? 0 : 1;
}

/* ---- (c) textbook GCM, NIST SP 800-38D -------------------------------------------------------- */
void tu_tb_gf_mul(const uint8_t x[16], const uint8_t y[16], uint8_t z[16])
{
    uint8_t zz[16] = {0}, v[16];
    memcpy(v, y, 16);
    for (int i = 0; i < 128; i++) {
        if ((x[i / 8] >> (7 - i % 8)) & 1) { /* x_i: bit 0 is the MSB of byte 0 */
            for (int j = 0; j < 16; j++) {
                zz[j] ^= v[j];
            }
        }
        const int lsb = v[15] & 1; /* LSB_1(V) */
        for (int j = 15; j > 0; j--) {
            v[j] = (uint8_t)((v[j] >> 1) | (v[j - 1] << 7));
        }
        v[0] >>= 1;
        if (lsb) {
            v[0] ^= 0xE1; /* R = 11100001 || 0^120 */
        }
    }
    memcpy(z, zz, 16);
}

void tu_tb_ghash(const uint8_t h[16], uint8_t y[16], const uint8_t *x, size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++) {
        uint8_t t[16];
        for (int j = 0; j < 16; j++) {
            t[j] = y[j] ^ x[16 * i + j];
        }
        tu_tb_gf_mul(t, h, y);
    }
}

void tu_tb_inc32(uint8_t cb[16])
{
    uint32_t c = ((uint32_t)cb[12] << 24) | ((uint32_t)cb[13] << 16) | ((uint32_t)cb[14] << 8) |
                 (uint32_t)cb[15];
    c = (uint32_t)(c + 1u); /* mod 2^32 */
    cb[12] = (uint8_t)(c >> 24);
    cb[13] = (uint8_t)(c >> 16);
    cb[14] = (uint8_t)(c >> 8);
    cb[15] = (uint8_t)c;
}

void tu_tb_hash_key(const uint8_t *key, size_t key_len, uint8_t h[16])
{
    static const uint8_t zero[16];
    tu_ossl_aes_ecb(key, key_len, zero, h, 1);
}

/* GHASH over X || 0^pad (whole byte string, zero-padded to a block) */
static void tb_ghash_padded(const uint8_t h[16], uint8_t y[16], const uint8_t *x, size_t n)
{
    if (n / 16) {
        tu_tb_ghash(h, y, x, n / 16);
    }
    if (n % 16) {
        uint8_t b[16] = {0};
        memcpy(b, x + 16 * (n / 16), n % 16);
        tu_tb_ghash(h, y, b, 1);
    }
}

static void tb_len_block(uint64_t a_bits, uint64_t b_bits, uint8_t blk[16])
{
    for (int i = 0; i < 8; i++) {
        blk[i] = (uint8_t)(a_bits >> (56 - 8 * i));
        blk[8 + i] = (uint8_t)(b_bits >> (56 - 8 * i));
    }
}

void tu_tb_j0(const uint8_t *key, size_t key_len, const uint8_t *iv, size_t iv_len,
              uint8_t j0[16])
{
    if (iv_len == 12) { /* len(IV) = 96: J0 = IV || 0^31 || 1 */
        memcpy(j0, iv, 12);
        j0[12] = 0, j0[13] = 0, j0[14] = 0, j0[15] = 1;
        return;
    }
    /* J0 = GHASH_H(IV || 0^(s+64) || [len(IV)]_64) */
    uint8_t h[16], y[16] = {0}, lb[16];
    tu_tb_hash_key(key, key_len, h);
    tb_ghash_padded(h, y, iv, iv_len);
    tb_len_block(0, (uint64_t)iv_len * 8, lb);
    tu_tb_ghash(h, y, lb, 1);
    memcpy(j0, y, 16);
}

/* GCTR_K(ICB, X) (section 6.5), |n| bytes */
static void tb_gctr(const uint8_t *key, size_t key_len, const uint8_t icb[16], const uint8_t *x,
                    size_t n, uint8_t *y)
{
    uint8_t cb[16], ks[16];
    memcpy(cb, icb, 16);
    for (size_t off = 0; off < n; off += 16) {
        tu_ossl_aes_ecb(key, key_len, cb, ks, 1);
        const size_t m = n - off < 16 ? n - off : 16;
        for (size_t j = 0; j < m; j++) {
            y[off + j] = x[off + j] ^ ks[j];
        }
        tu_tb_inc32(cb);
    }
}

void tu_tb_gcm_j0(const uint8_t *key, size_t key_len, const uint8_t j0[16], const uint8_t *aad,
                  size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, int decrypt,
                  uint8_t tag[16])
{
    uint8_t h[16], y[16] = {0}, icb[16], lb[16];
    tu_tb_hash_key(key, key_len, h);
    /* S = GHASH_H(A || 0^v || C || 0^u || [len(A)]_64 || [len(C)]_64) */
    tb_ghash_padded(h, y, aad, aad_len);
    if (decrypt) {
        tb_ghash_padded(h, y, in, len); /* before an in-place write */
    }
    memcpy(icb, j0, 16);
    tu_tb_inc32(icb);
    tb_gctr(key, key_len, icb, in, len, out);
    if (!decrypt) {
        tb_ghash_padded(h, y, out, len);
    }
    tb_len_block((uint64_t)aad_len * 8, (uint64_t)len * 8, lb);
    tu_tb_ghash(h, y, lb, 1);
    /* T = MSB_t(GCTR_K(J0, S)) */
    tb_gctr(key, key_len, j0, y, 16, tag);
}

/* ---- job manager helpers --------------------------------------------------------------------- */
int tu_mgr_configs(int out[TU_MGR_NCFG])
{
    int n = 0;
    for (int a = 0; a < tu_arch_count(); a++) {
        if (tu_arch_supported(a)) {
            out[n++] = a;
        }
    }
    out[n++] = TU_MGR_AUTO;
    return n;
}

const char *tu_mgr_label(int cfg)
{
    return cfg == TU_MGR_AUTO ? "auto" : tu_arch_name(cfg);
}

const char *tu_mgr_cfg_arch(int cfg)
{
    return cfg == TU_MGR_AUTO ? NULL : tu_arch_name(cfg);
}

int tu_mgr_runs_arch(int cfg)
{
    return cfg == TU_MGR_AUTO ? tu_arch_best() : cfg;
}

int tu_mgr_fast_lanes(int cfg)
{
    const struct mbgcmi_arch *a = tu_arch(tu_mgr_runs_arch(cfg));
    return a != NULL && !a->portable;
}

int tu_mgr_has_lanes(int cfg)
{
    const struct mbgcmi_arch *a = tu_arch(tu_mgr_runs_arch(cfg));
    return a != NULL && a->lanes != NULL;
}

static int goes_single(const mbgcm_mgr *m, uint64_t thr, const tu_jspec *sp, int burst,
                       int short_on)
{
    unsigned cls;
    uint32_t shape;
    const int shortfast = m->sc != NULL && m->j0_hook == NULL;
    /* a burst that keeps its short jobs off the short-job kernel: GMAC jobs only, and of
       those only the ones with at most 16 bytes of AAD where the arch runs GMAC jobs
       single-stream (every other valid 12-byte-IV job of such a burst: whole12) */
    const uint64_t blim = sp->dir == MBGCM_DECRYPT ? m->burst_short_dec_lim
                                                   : m->burst_short_msg_lim;
    const uint64_t mlim = !burst ? m->short_msg_lim : short_on ? blim : 1;
    const int gmac_off = burst && !short_on && m->arch->gmac_single;
    if (shortfast && sp->iv_len == 12 &&
        mbgcmi_short_classify(sp->len, sp->aad_len, 16, MBGCM_ENCRYPT, 10,
                              gmac_off ? 1 : m->short_lim, mlim, &cls, &shape)) {
        return 0; /* the short-job kernel (GMAC jobs included) */
    }
    if (shortfast && sp->iv_len == 12 && mlim < m->short_lim &&
        ((uint64_t)sp->len >= mlim || gmac_off)) {
        return 1; /* past the arch's lower short-job limit (ring or burst): whole12 */
    }
    return (uint64_t)sp->len >= thr || (uint64_t)sp->len + (uint64_t)sp->aad_len >= thr ||
           tu_goes_wide(m, sp); /* more AAD than the short-job kernel takes, whole12's */
}

int tu_goes_single(const mbgcm_mgr *m, uint64_t thr, const tu_jspec *sp)
{
    return goes_single(m, thr, sp, 0, 0);
}

int tu_goes_single_burst(const mbgcm_mgr *m, uint64_t thr, const tu_jspec *sp, int short_on)
{
    return goes_single(m, thr, sp, 1, short_on);
}

int tu_burst_short_on(const mbgcm_mgr *m, const mbgcm_job *jobs, unsigned n)
{
    /* the arch's rule, restated: enough jobs, and the first two with one key */
    return m->burst_short_min_jobs == 0 ||
           (n >= m->burst_short_min_jobs && jobs[0].key == jobs[1].key);
}

int tu_goes_wide(const mbgcm_mgr *m, const tu_jspec *sp)
{
    return sp->iv_len == 12 && mbgcmi_wide_aad_whole12(m->wide_aad_max, m->wide_aad_span, sp->len,
                                                      sp->aad_len);
}

void tu_mgr_need_cfg(int cfg)
{
    if (cfg != TU_MGR_AUTO && !tu_arch_supported(cfg)) {
        print_message("%s: not supported here\n", tu_mgr_label(cfg));
        skip();
    }
}

void tu_mgr_rng_init(tu_rng *r, const char *test, int cfg)
{
    char label[96];
    snprintf(label, sizeof label, "%s/%s", test, tu_mgr_label(cfg));
    tu_rng_init(r, label);
}

void tu_mgr_need_lanes(int cfg)
{
    if (!tu_mgr_has_lanes(cfg)) {
        print_message("%s: no lane kernel (every job runs single-stream): nothing to test\n",
                      tu_mgr_label(cfg));
        skip();
    }
}

mbgcm_mgr *tu_mgr_open(int cfg, unsigned lanes, unsigned queue_size, uint64_t timeout_ns)
{
    mbgcm_config c;
    memset(&c, 0, sizeof c);
    c.arch = tu_mgr_cfg_arch(cfg);
    c.lanes = lanes;
    c.queue_size = queue_size;
    c.flush_timeout_ns = timeout_ns;
    mbgcm_mgr *m = (mbgcm_mgr *)(uintptr_t)1;
    const int s = mbgcm_mgr_create(&m, &c);
    if (s != MBGCM_OK || m == NULL) {
        fail_msg("mbgcm_mgr_create(arch=%s lanes=%u queue=%u timeout=%llu) = %d (%s)",
                 tu_mgr_label(cfg), lanes, queue_size, (unsigned long long)timeout_ns, s,
                 mbgcm_strerror(s));
    }
    const char *name = mbgcm_mgr_arch(m);
    const char *want = tu_arch_name(tu_mgr_runs_arch(cfg));
    if (name == NULL || strcmp(name, want) != 0) {
        fail_msg("mbgcm_mgr_arch = %s, expected %s (config %s)", name ? name : "(null)", want,
                 tu_mgr_label(cfg));
    }
    if (mbgcm_queue_size(m) != 0 || mbgcm_mgr_last_error(m) != MBGCM_OK) {
        fail_msg("new manager: queue_size %u last_error %d", mbgcm_queue_size(m),
                 mbgcm_mgr_last_error(m));
    }
    return m;
}

void tu_print_mgr_counts(const char *label, const uint64_t counts[TU_MGR_NCFG])
{
    int cfgs[TU_MGR_NCFG];
    const int n = tu_mgr_configs(cfgs);
    uint64_t total = 0;
    printf("%s:", label);
    for (int i = 0; i < n; i++) {
        printf(" %s=%llu", tu_mgr_label(cfgs[i]), (unsigned long long)counts[cfgs[i]]);
        total += counts[cfgs[i]];
    }
    printf(" (total %llu)\n", (unsigned long long)total);
    fflush(stdout);
}

void tu_key_random(tu_rng *r, tu_key *k, size_t len)
{
    static const size_t lens[3] = {16, 24, 32};
    k->len = len ? len : lens[tu_rng_below(r, 3)];
    memset(k->raw, 0, sizeof k->raw);
    tu_rng_fill(r, k->raw, k->len);
    const int s = mbgcm_key_init(&k->key, k->raw, k->len);
    if (s != MBGCM_OK) {
        fail_msg("mbgcm_key_init(%zu) = %d", k->len, s);
    }
}

tu_key *tu_keys_new(tu_rng *r, size_t n, size_t len)
{
    tu_key *k = aligned_alloc(64, (n ? n : 1) * sizeof(tu_key));
    if (k == NULL) {
        fail_msg("out of memory (keys)");
    }
    for (size_t i = 0; i < n; i++) {
        tu_key_random(r, &k[i], len);
    }
    return k;
}

void tu_keys_free(tu_key *k, size_t n)
{
    if (k == NULL) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        mbgcm_key_wipe(&k[i].key);
    }
    free(k);
}

void tu_ref_encrypt(const tu_key *k, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                    size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
                    uint8_t tag[16])
{
    if (iv_len <= 128) {
        tu_ossl_gcm_encrypt(k->raw, k->len, iv, iv_len, aad, aad_len, in, len, out, tag, 16);
    } else {
        tu_imb_gcm_encrypt(k->raw, k->len, iv, iv_len, aad, aad_len, in, len, out, tag, 16);
    }
}

static const char *const bad_names[TU_BAD_COUNT] = {
    "none",    "dir",        "reserved", "key-null", "key-wiped", "key-uninit",
    "key-misaligned", "iv_len-0", "iv_len-huge", "aad_len-huge", "len-huge", "tag_len",
    "iv-null", "tag-null",   "aad-null", "src-null", "dst-null",  "overlap",
    "key-nomagic"};

const char *tu_bad_name(int bad)
{
    return (bad >= 0 && bad < TU_BAD_COUNT) ? bad_names[bad] : "?";
}

int tu_bad_status(int bad)
{
    switch (bad) {
    case TU_BAD_NONE: return MBGCM_OK;
    case TU_BAD_IV_LEN0:
    case TU_BAD_IV_LEN_HUGE: return MBGCM_ERR_IV_LEN;
    case TU_BAD_AAD_LEN:
    case TU_BAD_LEN: return MBGCM_ERR_LEN;
    case TU_BAD_TAG_LEN: return MBGCM_ERR_TAG_LEN;
    default: return MBGCM_ERR_INVALID;
    }
}

size_t tu_pick_tag_len(tu_rng *r)
{
    static const size_t t[7] = {4, 8, 12, 13, 14, 15, 16};
    return t[tu_rng_below(r, 7)];
}

/* Bad keys: a wiped key, an all-zero key object, a valid key image at a 16-byte offset and an
   AES-128 key whose magic alone is cleared (its rounds and round keys intact). */
static tu_key bad_wiped, bad_nomagic;
static mbgcm_key bad_uninit;
static mbgcm_key bad_misaligned_store[2];
static int bad_keys_ready;

static void bad_keys_setup(void)
{
    if (bad_keys_ready) {
        return;
    }
    tu_rng r;
    tu_rng_init(&r, "tu_bad_keys");
    tu_key_random(&r, &bad_wiped, 32);
    tu_key good;
    tu_key_random(&r, &good, 16);
    memcpy((uint8_t *)bad_misaligned_store + 16, &good.key, sizeof good.key);
    mbgcm_key_wipe(&good.key);
    mbgcm_key_wipe(&bad_wiped.key);
    memset(&bad_uninit, 0, sizeof bad_uninit);
    tu_key_random(&r, &bad_nomagic, 16);
    memset((uint8_t *)&bad_nomagic.key + offsetof(struct mbgcmi_key, magic), 0,
           sizeof(uint32_t));
    bad_keys_ready = 1;
}

#define TU_GAP 32

tu_tjob *tu_tjob_new(tu_rng *r, const tu_jspec *spec)
{
    tu_tjob *t = calloc(1, sizeof *t);
    if (t == NULL) {
        fail_msg("out of memory (tjob)");
        return NULL;
    }
    t->sp = *spec;
    tu_jspec *sp = &t->sp;
    const int bad = sp->bad;
    /* a defect needs the field it breaks to be present */
    if (bad == TU_BAD_AAD_NULL && sp->aad_len == 0) sp->aad_len = 1 + tu_rng_below(r, 40);
    if ((bad == TU_BAD_SRC_NULL || bad == TU_BAD_DST_NULL) && sp->len == 0) sp->len = 1;
    if (bad == TU_BAD_OVERLAP) {
        if (sp->len < 2) sp->len = 2 + tu_rng_below(r, 64);
        sp->in_place = 0;
    }
    if (sp->dir != MBGCM_DECRYPT) {
        sp->tamper = 0;
        sp->tag_in_dst = 0;
    }
    if (sp->tag_in_dst && (sp->in_place || sp->len < sp->tag_len || bad != TU_BAD_NONE)) {
        sp->tag_in_dst = 0;
    }
    const size_t len = sp->len, adl = sp->aad_len, ivl = sp->iv_len, tl = sp->tag_len;
    /* overlap jobs get room for src and dst shifted inside the dst area */
    t->dst_room = bad == TU_BAD_OVERLAP ? 2 * len : len;
    t->off_src = TU_GAP;
    t->off_dst = t->off_src + (sp->in_place ? 0 : len) + TU_GAP;
    t->off_tag = t->off_dst + t->dst_room + TU_GAP;
    t->off_iv = t->off_tag + 16 + TU_GAP;
    t->off_aad = t->off_iv + ivl;
    t->mem_len = t->off_aad + adl + TU_GAP;
    t->mem = tu_xmalloc(t->mem_len);
    t->want = tu_xmalloc(t->mem_len);
    uint8_t *mem = t->mem;
    tu_rng_fill(r, mem, t->mem_len); /* gaps and untouched bytes: random canaries */

    uint8_t *iv = mem + t->off_iv, *aad = mem + t->off_aad, *tag = mem + t->off_tag;
    uint8_t *dst = mem + t->off_dst;
    uint8_t *src = sp->in_place ? dst : mem + t->off_src;
    uint8_t *out = NULL; /* expected output */
    uint8_t rtag[16];
    t->expect = tu_bad_status(bad);
    if (bad == TU_BAD_NONE) {
        out = tu_xmalloc(len);
        if (sp->dir == MBGCM_ENCRYPT) {
            tu_ref_encrypt(sp->key, iv, ivl, aad, adl, src, len, out, rtag);
        } else {
            /* src holds the ciphertext of a random plaintext |out| */
            memcpy(out, src, len);
            tu_ref_encrypt(sp->key, iv, ivl, aad, adl, out, len, src, rtag);
            uint8_t *tp = sp->tag_in_dst ? dst + tu_rng_below(r, len - tl + 1) : tag;
            memcpy(tp, rtag, tl);
            if (sp->tamper) {
                tp[tu_rng_below(r, tl)] ^= (uint8_t)(1u << tu_rng_below(r, 8));
                t->expect = MBGCM_ERR_AUTH;
            }
            tag = tp;
        }
    }
    mbgcm_job *j = &t->job;
    memset(j, 0, sizeof *j);
    j->key = &sp->key->key;
    j->dir = sp->dir;
    j->iv = iv;
    j->iv_len = ivl;
    j->aad = (adl == 0 && sp->null_empty) ? NULL : aad;
    j->aad_len = adl;
    j->src = (len == 0 && sp->null_empty) ? NULL : src;
    j->dst = (len == 0 && sp->null_empty) ? NULL : dst;
    j->len = len;
    j->tag = tag;
    j->tag_len = tl;
    switch (bad) {
    case TU_BAD_NONE: break;
    case TU_BAD_DIR: {
        static const int dirs[5] = {0, 3, -1, 0x7fffffff, MBGCM_ENCRYPT | MBGCM_DECRYPT};
        j->dir = dirs[tu_rng_below(r, 5)];
        break;
    }
    case TU_BAD_RESERVED:
        j->reserved_ = tu_rng_below(r, 2) ? (void *)mem : (void *)(uintptr_t)1;
        break;
    case TU_BAD_KEY_NULL: j->key = NULL; break;
    case TU_BAD_KEY_WIPED: bad_keys_setup(); j->key = &bad_wiped.key; break;
    case TU_BAD_KEY_UNINIT: bad_keys_setup(); j->key = &bad_uninit; break;
    case TU_BAD_KEY_NOMAGIC: bad_keys_setup(); j->key = &bad_nomagic.key; break;
    case TU_BAD_KEY_MISALIGNED:
        bad_keys_setup();
        j->key = (const mbgcm_key *)(const void *)((const uint8_t *)bad_misaligned_store + 16);
        break;
    case TU_BAD_IV_LEN0: j->iv_len = 0; break;
    case TU_BAD_IV_LEN_HUGE: {
        static const uint64_t v[3] = {UINT64_C(1) << 61, UINT64_C(1) << 62, UINT64_MAX};
        j->iv_len = (size_t)v[tu_rng_below(r, 3)];
        break;
    }
    case TU_BAD_AAD_LEN: {
        static const uint64_t v[3] = {UINT64_C(1) << 61, UINT64_C(1) << 63, UINT64_MAX};
        j->aad_len = (size_t)v[tu_rng_below(r, 3)];
        break;
    }
    case TU_BAD_LEN: {
        static const uint64_t v[4] = {(UINT64_C(1) << 36) - 31, UINT64_C(1) << 36,
                                      UINT64_C(1) << 40, UINT64_MAX};
        j->len = (size_t)v[tu_rng_below(r, 4)];
        break;
    }
    case TU_BAD_TAG_LEN: {
        static const uint64_t v[13] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 17, 32, UINT64_MAX};
        j->tag_len = (size_t)v[tu_rng_below(r, 13)];
        break;
    }
    case TU_BAD_IV_NULL: j->iv = NULL; break;
    case TU_BAD_TAG_NULL: j->tag = NULL; break;
    case TU_BAD_AAD_NULL: j->aad = NULL; break;
    case TU_BAD_SRC_NULL: j->src = NULL; break;
    case TU_BAD_DST_NULL: j->dst = NULL; break;
    case TU_BAD_OVERLAP: {
        const size_t d = 1 + tu_rng_below(r, len - 1); /* 1 .. len-1 */
        if (tu_rng_below(r, 2)) {
            j->src = dst;
            j->dst = dst + d;
        } else {
            j->dst = dst;
            j->src = dst + d;
        }
        break;
    }
    default: fail_msg("bad kind %d", bad);
    }
    /* the image after completion */
    memcpy(t->want, mem, t->mem_len);
    if (bad == TU_BAD_NONE) {
        if (t->expect == MBGCM_ERR_AUTH) {
            memset(t->want + t->off_dst, 0, len);
        } else {
            memcpy(t->want + t->off_dst, out, len);
        }
        if (sp->dir == MBGCM_ENCRYPT) {
            memcpy(t->want + t->off_tag, rtag, tl);
        }
    }
    free(out);
    return t;
}

void tu_tjob_load(const tu_tjob *t, mbgcm_job *job, void *user, tu_rng *r)
{
    static const int junk[4] = {MBGCM_PENDING, MBGCM_OK, MBGCM_ERR_AUTH, -12345};
    *job = t->job;
    job->user_data = user;
    job->status = r ? junk[tu_rng_below(r, 4)] : MBGCM_PENDING;
}

void tu_tjob_describe(const tu_tjob *t, char *buf, size_t n)
{
    const tu_jspec *sp = &t->sp;
    snprintf(buf, n,
             "%s key_len=%zu iv_len=%zu aad_len=%zu len=%zu tag_len=%zu%s%s%s%s bad=%s "
             "expect=%d",
             sp->dir == MBGCM_ENCRYPT ? "enc" : "dec", sp->key ? sp->key->len : 0, sp->iv_len,
             sp->aad_len, sp->len, sp->tag_len, sp->in_place ? " in-place" : " out-of-place",
             sp->tamper ? " tampered" : "", sp->null_empty ? " null-empty" : "",
             sp->tag_in_dst ? " tag-in-dst" : "", tu_bad_name(sp->bad), t->expect);
}

static const char *region_of(const tu_tjob *t, size_t off, size_t *rel)
{
    const size_t len = t->sp.len;
    struct {
        const char *name;
        size_t lo, hi;
    } reg[] = {
        {"src", t->off_src, t->off_src + (t->sp.in_place ? 0 : len)},
        {"dst", t->off_dst, t->off_dst + t->dst_room},
        {"tag", t->off_tag, t->off_tag + 16},
        {"iv", t->off_iv, t->off_iv + t->sp.iv_len},
        {"aad", t->off_aad, t->off_aad + t->sp.aad_len},
    };
    for (size_t i = 0; i < sizeof reg / sizeof reg[0]; i++) {
        if (off >= reg[i].lo && off < reg[i].hi) {
            *rel = off - reg[i].lo;
            return reg[i].name;
        }
    }
    *rel = off;
    return "canary gap";
}

void tu_tjob_check(const tu_tjob *t, const mbgcm_job *job, const char *ctx)
{
    char d[320];
    const mbgcm_job *w = &t->job;
    if (job->status != t->expect) {
        tu_tjob_describe(t, d, sizeof d);
        fail_msg("%s: status %d (%s), expected %d (%s); job %s", ctx, job->status,
                 mbgcm_strerror(job->status), t->expect, mbgcm_strerror(t->expect), d);
    }
    if (job->key != w->key || job->dir != w->dir || job->iv != w->iv ||
        job->iv_len != w->iv_len || job->aad != w->aad || job->aad_len != w->aad_len ||
        job->src != w->src || job->dst != w->dst || job->len != w->len || job->tag != w->tag ||
        job->tag_len != w->tag_len || job->reserved_ != w->reserved_ ||
        job->src_sgl != w->src_sgl || job->dst_sgl != w->dst_sgl ||
        job->src_nseg != w->src_nseg || job->dst_nseg != w->dst_nseg) {
        tu_tjob_describe(t, d, sizeof d);
        fail_msg("%s: the library changed a job field; job %s", ctx, d);
    }
    const long diff = tu_first_diff(t->mem, t->want, t->mem_len);
    if (diff >= 0) {
        size_t rel;
        const char *reg = region_of(t, (size_t)diff, &rel);
        tu_tjob_describe(t, d, sizeof d);
        print_error("%s: memory differs from the expected image at %s byte %zu; job %s\n", ctx,
                    reg, rel, d);
        const size_t n = t->mem_len - (size_t)diff;
        tu_print_hex("  got     ", t->mem + diff, n < 48 ? n : 48);
        tu_print_hex("  expected", t->want + diff, n < 48 ? n : 48);
        fail();
    }
}

int tu_tjob_ok(const tu_tjob *t, const mbgcm_job *job)
{
    const mbgcm_job *w = &t->job;
    return job->status == t->expect && job->key == w->key && job->dir == w->dir &&
           job->iv == w->iv && job->iv_len == w->iv_len && job->aad == w->aad &&
           job->aad_len == w->aad_len && job->src == w->src && job->dst == w->dst &&
           job->len == w->len && job->tag == w->tag && job->tag_len == w->tag_len &&
           job->reserved_ == w->reserved_ && job->src_sgl == w->src_sgl &&
           job->dst_sgl == w->dst_sgl && job->src_nseg == w->src_nseg &&
           job->dst_nseg == w->dst_nseg &&
           memcmp(t->mem, t->want, t->mem_len) == 0;
}

void tu_tjob_free(tu_tjob *t)
{
    if (t == NULL) {
        return;
    }
    free(t->mem);
    free(t->want);
    free(t);
}

uint64_t tu_stats_calls(const mbgcm_stats *s)
{
    return s->kernel_calls[0] + s->kernel_calls[1] + s->kernel_calls[2] + s->kernel_calls[3];
}

uint64_t tu_stats_runs(const mbgcm_stats *s)
{
    return s->runs_lanes_full + s->runs_timeout + s->runs_flush + s->runs_ring_full +
           s->runs_burst;
}

void tu_stats_monotonic(const mbgcm_stats *before, const mbgcm_stats *now, const char *ctx)
{
    const uint64_t *a = (const uint64_t *)(const void *)before;
    const uint64_t *b = (const uint64_t *)(const void *)now;
    for (size_t i = 0; i < sizeof *now / sizeof(uint64_t); i++) {
        if (b[i] < a[i]) {
            fail_msg("%s: stats counter #%zu went down (%llu -> %llu)", ctx, i,
                     (unsigned long long)a[i], (unsigned long long)b[i]);
        }
    }
}
