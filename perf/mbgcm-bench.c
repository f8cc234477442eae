/*
 * mbgcm-bench.c — one-process benchmark of mbgcm's one-shot API against OpenSSL EVP and
 * intel-ipsec-mb's direct GCM API.
 *
 * What is measured
 *   Engines: mbgcm_encrypt/mbgcm_decrypt once per arch this CPU supports (forced with the
 *   internal hook mbgcmi_set_oneshot_arch; arches whose one-shot kernels are identical to a
 *   lower arch's are listed but not re-run unless --all-arches), OpenSSL EVP (one context per
 *   key and direction, reused; the IV reset per message with EVP_*Init_ex(ctx, NULL, NULL,
 *   NULL, iv) as servers do), intel-ipsec-mb IMB_AES*_GCM_ENC/DEC with keys precomputed by
 *   IMB_AES*_GCM_PRE and a manager from alloc_mb_mgr + init_mb_mgr_auto (decrypt compares
 *   the computed tag itself, as every caller of that API must).
 *   Workload: AES-128 and AES-256, encrypt and decrypt, 12-byte IV, 16-byte AAD, 16-byte tag,
 *   out-of-place, message sizes from --sizes. K raw keys (--keys) are used round-robin; the
 *   messages live in a pool of buffers (--bufs, at least K) at varying addresses: slot j sits
 *   at its own offset (24*j mod 64 bytes from a cache line) in an arena with a non-power-of-two
 *   stride. Decrypt inputs are the reference ciphertexts and tags (made with OpenSSL).
 *   Before any timing, every engine's output is checked against the reference for every slot
 *   (encrypt: ciphertext and tag; decrypt: status and plaintext); a mismatch aborts the run.
 *
 * How
 *   One thread, pinned with sched_setaffinity (the CPU it starts on, or --cpu). A warm-up
 *   brings the core to its running clock. For each (key size, direction, message size) point
 *   every engine is calibrated to a batch of n messages lasting about --seconds-per-point /
 *   --reps, then the repetitions are interleaved across engines (A B C A B C ...) so that drift
 *   and neighbours' noise hit all engines alike. A figure is the median of the repetitions'
 *   ns per message, with min and max; figures whose (max-min)/median exceeds 10% are flagged.
 *   Cycles are core cycles: the core clock is measured before every point with a chain of
 *   dependent adds (one per cycle) timed by clock_gettime. The TSC is not used: on this machine
 *   kind it ticks at 2.1 GHz while the cores run at about 3.2-3.4 GHz.
 *   The generic arch (portable constant-time C, ~100 cycles/byte) gets a quarter of the time
 *   budget per point, so a quick run stays short.
 *   ratio = best peer ns / mbgcm ns (> 1: mbgcm faster), i.e. mbgcm throughput over the best
 *   peer's, for the best mbgcm arch in the summary and for every arch in the CSV.
 *
 * Output: a readable table on stdout, progress on stderr, CSV with --csv FILE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <intel-ipsec-mb.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "mbgcm_internal.h"

#define IV_LEN      12
#define AAD_LEN     16
#define TAG_LEN     16
#define MAX_SIZES   32
#define MAX_ENGINES 8
#define SPREAD_WARN 0.10

enum { DIR_ENC = 0, DIR_DEC = 1 };
static const char *const dir_name[2] = {"encrypt", "decrypt"};
static const char *const dir_short[2] = {"enc", "dec"};

/* ---------------------------------------------------------------------------------------------
 * Small utilities
 * ------------------------------------------------------------------------------------------- */
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mbgcm-bench: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void *xaligned(size_t align, size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, align, n ? n : align) != 0) {
        die("out of memory (%zu bytes)", n);
    }
    memset(p, 0, n);
    return p;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, unsigned n) /* sorts v */
{
    qsort(v, n, sizeof *v, cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* xorshift64*: deterministic test data (not cryptographic) */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static void fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rng_state ^= rng_state >> 12;
        rng_state ^= rng_state << 25;
        rng_state ^= rng_state >> 27;
        p[i] = (uint8_t)((rng_state * 0x2545f4914f6cdd1du) >> 56);
    }
}

/* Tag comparison for the ipsec-mb decrypt path (the direct API only computes the tag). */
static inline int tag_equal16(const uint8_t *a, const uint8_t *b)
{
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&a1, a + 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, b + 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* Core clock: N dependent register-register additions take N core cycles (latency 1 each);
   the empty asm keeps every addition in the chain. The addend is a register the compiler
   cannot see through: Golden Cove cores (Sapphire Rapids) fold chains of add-immediate at
   rename and run them at several per cycle, which made `x += 1` read ~20 GHz here.
   Median of |trials| runs of ~|ms| milliseconds. */
static double measure_ghz(unsigned trials, double ms)
{
    double g[16];
    if (trials > 16) {
        trials = 16;
    }
    for (unsigned t = 0; t < trials; t++) {
        uint64_t iters = 4096, x = 0, one = 1;
        __asm__ volatile("" : "+r"(one)); /* the compiler must not know it is 1 */
        for (;;) {
            const uint64_t t0 = now_ns();
            for (uint64_t i = 0; i < iters; i++) {
#define ADD1 x += one; __asm__ volatile("" : "+r"(x));
#define ADD8 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1
                ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8
#undef ADD8
#undef ADD1
            }
            const uint64_t dt = now_ns() - t0;
            if (dt >= ms * 1e6) {
                g[t] = (double)(iters * 64) / (double)dt;
                break;
            }
            iters *= 2;
        }
    }
    return median(g, trials);
}

/* ---------------------------------------------------------------------------------------------
 * Workload: slots of messages (key index, IV, AAD, plaintext, reference ciphertext and tag,
 * output buffer, output tag), all at varying addresses.
 * ------------------------------------------------------------------------------------------- */
struct workload {
    unsigned nslots, nkeys;
    size_t cap;               /* capacity of each buffer (largest size) */
    size_t size;              /* current message size */
    unsigned bits;            /* current key size */
    unsigned *key_of;         /* slot -> key index */
    uint8_t (*raw)[32];       /* nkeys raw keys (first bits/8 bytes used) */
    uint8_t **pt, **ct, **out;
    uint8_t (*iv)[IV_LEN];
    uint8_t (*aad)[AAD_LEN];
    uint8_t (*tag)[TAG_LEN];  /* reference tags */
    uint8_t (*otag)[TAG_LEN]; /* tags written by encrypt */
    uint8_t *arena[3];
};

static void workload_init(struct workload *w, unsigned nkeys, unsigned nbufs, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->nkeys = nkeys;
    /* at least one slot per key, and a whole number of key rounds */
    unsigned n = nbufs > nkeys ? nbufs : nkeys;
    w->nslots = (n + nkeys - 1) / nkeys * nkeys;
    w->cap = cap;
    w->key_of = xaligned(64, w->nslots * sizeof *w->key_of);
    w->raw = xaligned(64, nkeys * sizeof *w->raw);
    w->iv = xaligned(64, w->nslots * sizeof *w->iv);
    w->aad = xaligned(64, w->nslots * sizeof *w->aad);
    w->tag = xaligned(64, w->nslots * sizeof *w->tag);
    w->otag = xaligned(64, w->nslots * sizeof *w->otag);
    w->pt = xaligned(64, w->nslots * sizeof *w->pt);
    w->ct = xaligned(64, w->nslots * sizeof *w->ct);
    w->out = xaligned(64, w->nslots * sizeof *w->out);
    /* stride: an odd number of cache lines beyond the capacity (no power-of-two stride) */
    const size_t lines = (cap + 64 + 63) / 64;
    const size_t stride = (lines | 1) * 64 + 64;
    uint8_t **const which[3] = {w->pt, w->ct, w->out};
    for (int a = 0; a < 3; a++) {
        w->arena[a] = xaligned(4096, stride * w->nslots + 4096);
        for (unsigned j = 0; j < w->nslots; j++) {
            /* offsets 0, 24, 48, 8, 32, 56, 16, 40 from a cache line; arenas shifted apart */
            which[a][j] = w->arena[a] + (size_t)j * stride + (24u * j) % 64 + 512u * (unsigned)a;
        }
    }
    fill_random(&w->raw[0][0], nkeys * sizeof *w->raw);
    fill_random(&w->iv[0][0], w->nslots * sizeof *w->iv);
    fill_random(&w->aad[0][0], w->nslots * sizeof *w->aad);
    for (unsigned j = 0; j < w->nslots; j++) {
        w->key_of[j] = j % nkeys;
        fill_random(w->pt[j], cap);
    }
}

static void workload_free(struct workload *w)
{
    for (int a = 0; a < 3; a++) {
        free(w->arena[a]);
    }
    free(w->key_of);
    free(w->raw);
    free(w->iv);
    free(w->aad);
    free(w->tag);
    free(w->otag);
    free(w->pt);
    free(w->ct);
    free(w->out);
}

static const EVP_CIPHER *evp_gcm(unsigned bits)
{
    return bits == 128 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
}

/* Reference ciphertexts and tags for the current bits/size, with a fresh OpenSSL context. */
static void workload_reference(struct workload *w)
{
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (c == NULL) {
        die("EVP_CIPHER_CTX_new failed");
    }
    for (unsigned j = 0; j < w->nslots; j++) {
        int l1 = 0, l2 = 0, la = 0;
        if (EVP_EncryptInit_ex(c, evp_gcm(w->bits), NULL, w->raw[w->key_of[j]], w->iv[j]) != 1 ||
            EVP_EncryptUpdate(c, NULL, &la, w->aad[j], AAD_LEN) != 1 ||
            EVP_EncryptUpdate(c, w->ct[j], &l1, w->pt[j], (int)w->size) != 1 ||
            EVP_EncryptFinal_ex(c, w->ct[j] + l1, &l2) != 1 ||
            EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, w->tag[j]) != 1) {
            die("OpenSSL reference encryption failed");
        }
    }
    EVP_CIPHER_CTX_free(c);
}

/* ---------------------------------------------------------------------------------------------
 * Engines. run() processes |n| messages from slot *pos on (round-robin) and returns the number
 * of calls that failed (for decrypt: tag mismatch); it must never fail on valid input.
 * ------------------------------------------------------------------------------------------- */
struct engine {
    const char *name;
    int arch;           /* mbgcm arch, or -1 for peers */
    int is_mbgcm;
    int selected;       /* run in this invocation */
    double budget;      /* share of --seconds-per-point */
    const char *note;
    void (*setup)(struct engine *e, const struct workload *w); /* keys for w->bits */
    unsigned (*run)(struct engine *e, const struct workload *w, int dir, uint64_t n,
                    unsigned *pos);
    void (*teardown)(struct engine *e);
    void *st;
};

/* ---- mbgcm one-shot ---- */
struct mbgcm_state {
    mbgcm_key *keys;
    unsigned nkeys;
};

static void mbgcm_setup(struct engine *e, const struct workload *w)
{
    struct mbgcm_state *s = e->st;
    if (s == NULL) {
        s = e->st = xaligned(64, sizeof *s);
        s->keys = xaligned(64, w->nkeys * sizeof(mbgcm_key));
        s->nkeys = w->nkeys;
    }
    for (unsigned k = 0; k < w->nkeys; k++) {
        int st = mbgcm_key_init(&s->keys[k], w->raw[k], w->bits / 8);
        if (st != MBGCM_OK) {
            die("mbgcm_key_init: %s", mbgcm_strerror(st));
        }
    }
}

static unsigned mbgcm_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                          unsigned *pos)
{
    const struct mbgcm_state *s = e->st;
    const size_t len = w->size;
    unsigned j = *pos, bad = 0;
    mbgcmi_set_oneshot_arch(e->arch);
    if (dir == DIR_ENC) {
        for (uint64_t i = 0; i < n; i++) {
            bad += mbgcm_encrypt(&s->keys[w->key_of[j]], w->iv[j], IV_LEN, w->aad[j], AAD_LEN,
                                 w->pt[j], len, w->out[j], w->otag[j], TAG_LEN) != MBGCM_OK;
            if (++j == w->nslots) {
                j = 0;
            }
        }
    } else {
        for (uint64_t i = 0; i < n; i++) {
            bad += mbgcm_decrypt(&s->keys[w->key_of[j]], w->iv[j], IV_LEN, w->aad[j], AAD_LEN,
                                 w->ct[j], len, w->out[j], w->tag[j], TAG_LEN) != MBGCM_OK;
            if (++j == w->nslots) {
                j = 0;
            }
        }
    }
    *pos = j;
    return bad;
}

static void mbgcm_teardown(struct engine *e)
{
    struct mbgcm_state *s = e->st;
    if (s != NULL) {
        for (unsigned k = 0; k < s->nkeys; k++) {
            mbgcm_key_wipe(&s->keys[k]);
        }
        free(s->keys);
        free(s);
        e->st = NULL;
    }
}

/* ---- OpenSSL EVP: one context per key and direction, reused ---- */
struct evp_state {
    EVP_CIPHER_CTX **enc, **dec;
    unsigned nkeys;
};

static void evp_teardown(struct engine *e)
{
    struct evp_state *s = e->st;
    if (s != NULL) {
        for (unsigned k = 0; k < s->nkeys; k++) {
            EVP_CIPHER_CTX_free(s->enc[k]);
            EVP_CIPHER_CTX_free(s->dec[k]);
        }
        free(s->enc);
        free(s->dec);
        free(s);
        e->st = NULL;
    }
}

static void evp_setup(struct engine *e, const struct workload *w)
{
    evp_teardown(e);
    struct evp_state *s = e->st = xaligned(64, sizeof *s);
    s->nkeys = w->nkeys;
    s->enc = xaligned(64, w->nkeys * sizeof *s->enc);
    s->dec = xaligned(64, w->nkeys * sizeof *s->dec);
    for (unsigned k = 0; k < w->nkeys; k++) {
        s->enc[k] = EVP_CIPHER_CTX_new();
        s->dec[k] = EVP_CIPHER_CTX_new();
        if (s->enc[k] == NULL || s->dec[k] == NULL ||
            EVP_EncryptInit_ex(s->enc[k], evp_gcm(w->bits), NULL, w->raw[k], NULL) != 1 ||
            EVP_DecryptInit_ex(s->dec[k], evp_gcm(w->bits), NULL, w->raw[k], NULL) != 1) {
            die("OpenSSL context setup failed");
        }
    }
}

static unsigned evp_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                        unsigned *pos)
{
    const struct evp_state *s = e->st;
    const int len = (int)w->size;
    unsigned j = *pos, bad = 0;
    int l1, l2, la;
    if (dir == DIR_ENC) {
        for (uint64_t i = 0; i < n; i++) {
            EVP_CIPHER_CTX *c = s->enc[w->key_of[j]];
            bad += EVP_EncryptInit_ex(c, NULL, NULL, NULL, w->iv[j]) != 1;
            bad += EVP_EncryptUpdate(c, NULL, &la, w->aad[j], AAD_LEN) != 1;
            bad += EVP_EncryptUpdate(c, w->out[j], &l1, w->pt[j], len) != 1;
            bad += EVP_EncryptFinal_ex(c, w->out[j] + l1, &l2) != 1;
            bad += EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, w->otag[j]) != 1;
            if (++j == w->nslots) {
                j = 0;
            }
        }
    } else {
        for (uint64_t i = 0; i < n; i++) {
            EVP_CIPHER_CTX *c = s->dec[w->key_of[j]];
            bad += EVP_DecryptInit_ex(c, NULL, NULL, NULL, w->iv[j]) != 1;
            bad += EVP_DecryptUpdate(c, NULL, &la, w->aad[j], AAD_LEN) != 1;
            bad += EVP_DecryptUpdate(c, w->out[j], &l1, w->ct[j], len) != 1;
            bad += EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, TAG_LEN, w->tag[j]) != 1;
            bad += EVP_DecryptFinal_ex(c, w->out[j] + l1, &l2) <= 0;
            if (++j == w->nslots) {
                j = 0;
            }
        }
    }
    *pos = j;
    return bad;
}

/* ---- intel-ipsec-mb direct GCM API ---- */
struct imb_state {
    IMB_MGR *mgr;
    IMB_ARCH arch;
    struct gcm_key_data *keys; /* 64-byte aligned array */
    struct gcm_context_data ctx;
    unsigned nkeys;
};

static const char *imb_arch_name(IMB_ARCH a)
{
    switch (a) {
    case IMB_ARCH_NOAESNI: return "no-aesni";
    case IMB_ARCH_SSE: return "sse";
    case IMB_ARCH_AVX: return "avx";
    case IMB_ARCH_AVX2: return "avx2";
    case IMB_ARCH_AVX512: return "avx512";
    default: return "none";
    }
}

static struct imb_state *imb_new(void)
{
    struct imb_state *s = xaligned(64, sizeof *s);
    s->mgr = alloc_mb_mgr(0);
    if (s->mgr == NULL) {
        die("alloc_mb_mgr failed");
    }
    init_mb_mgr_auto(s->mgr, &s->arch);
    if (imb_get_errno(s->mgr) != 0) {
        die("init_mb_mgr_auto failed: %s", imb_get_strerror(imb_get_errno(s->mgr)));
    }
    return s;
}

static void imb_setup(struct engine *e, const struct workload *w)
{
    struct imb_state *s = e->st;
    if (s->keys == NULL) {
        s->keys = xaligned(64, w->nkeys * sizeof *s->keys);
        s->nkeys = w->nkeys;
    }
    for (unsigned k = 0; k < w->nkeys; k++) {
        if (w->bits == 128) {
            IMB_AES128_GCM_PRE(s->mgr, w->raw[k], &s->keys[k]);
        } else {
            IMB_AES256_GCM_PRE(s->mgr, w->raw[k], &s->keys[k]);
        }
    }
}

static unsigned imb_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                        unsigned *pos)
{
    struct imb_state *s = e->st;
    IMB_MGR *m = s->mgr;
    const uint64_t len = w->size;
    unsigned j = *pos, bad = 0;
    uint8_t t[TAG_LEN];
    for (uint64_t i = 0; i < n; i++) {
        const struct gcm_key_data *k = &s->keys[w->key_of[j]];
        if (dir == DIR_ENC) {
            if (w->bits == 128) {
                IMB_AES128_GCM_ENC(m, k, &s->ctx, w->out[j], w->pt[j], len, w->iv[j], w->aad[j],
                                   AAD_LEN, w->otag[j], TAG_LEN);
            } else {
                IMB_AES256_GCM_ENC(m, k, &s->ctx, w->out[j], w->pt[j], len, w->iv[j], w->aad[j],
                                   AAD_LEN, w->otag[j], TAG_LEN);
            }
        } else {
            if (w->bits == 128) {
                IMB_AES128_GCM_DEC(m, k, &s->ctx, w->out[j], w->ct[j], len, w->iv[j], w->aad[j],
                                   AAD_LEN, t, TAG_LEN);
            } else {
                IMB_AES256_GCM_DEC(m, k, &s->ctx, w->out[j], w->ct[j], len, w->iv[j], w->aad[j],
                                   AAD_LEN, t, TAG_LEN);
            }
            bad += !tag_equal16(t, w->tag[j]);
        }
        if (++j == w->nslots) {
            j = 0;
        }
    }
    *pos = j;
    return bad;
}

static void imb_teardown(struct engine *e)
{
    struct imb_state *s = e->st;
    if (s != NULL) {
        free(s->keys);
        free_mb_mgr(s->mgr);
        free(s);
        e->st = NULL;
    }
}

/* ---------------------------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------------------------- */
struct options {
    size_t sizes[MAX_SIZES];
    unsigned nsizes;
    unsigned bits[2], nbits;
    int dirs[2], ndirs;
    unsigned keys, bufs, reps;
    double seconds;     /* per point and engine, all reps together */
    double warmup;      /* seconds */
    int cpu;            /* -1: the one we start on; -2: no pinning */
    int all_arches;
    int quiet;
    const char *engines; /* comma list of name fragments, NULL = all */
    const char *csv;
};

static void usage(FILE *f)
{
    fputs("usage: mbgcm-bench [options]\n"
          "  --sizes LIST            message sizes in bytes (default 16,64,256,1024,1420,4096,16384)\n"
          "  --bits LIST             AES key sizes: 128,256 (default both)\n"
          "  --dirs LIST             enc,dec (default both)\n"
          "  --keys K                keys used round-robin (default 64)\n"
          "  --bufs B                message buffers (slots) at varying addresses (default 64, >= K)\n"
          "  --reps N                repetitions per figure, median reported (default 7, >= 5)\n"
          "  --seconds-per-point S   measured seconds per figure, all reps (default 0.5)\n"
          "  --warmup S              warm-up seconds before measuring (default 0.5)\n"
          "  --quick                 --reps 5 --seconds-per-point 0.2 --warmup 0.3\n"
          "  --engines LIST          only engines whose name contains one of these words\n"
          "                          (generic, aesni, avx2, avx512, openssl, ipsec-mb)\n"
          "  --all-arches            also run mbgcm arches whose one-shot kernels equal a lower arch's\n"
          "  --cpu N                 pin to CPU N (default: the CPU the process starts on)\n"
          "  --no-pin                do not pin\n"
          "  --csv FILE              also write the figures as CSV\n"
          "  --quiet                 no progress on stderr\n",
          f);
}

static unsigned parse_list(const char *s, double *out, unsigned max, const char *what)
{
    unsigned n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || n == max) {
            die("bad %s list '%s'", what, s);
        }
        out[n++] = v;
        p = end;
        if (*p == ',') {
            p++;
        } else if (*p) {
            die("bad %s list '%s'", what, s);
        }
    }
    if (n == 0) {
        die("empty %s list", what);
    }
    return n;
}

static double parse_num(const char *s, const char *what, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || v < lo || v > hi) {
        die("bad %s '%s' (want %g .. %g)", what, s, lo, hi);
    }
    return v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"sizes", required_argument, NULL, 's'},  {"bits", required_argument, NULL, 'b'},
        {"dirs", required_argument, NULL, 'd'},   {"keys", required_argument, NULL, 'k'},
        {"bufs", required_argument, NULL, 'B'},   {"reps", required_argument, NULL, 'r'},
        {"seconds-per-point", required_argument, NULL, 'S'},
        {"warmup", required_argument, NULL, 'w'}, {"quick", no_argument, NULL, 'q'},
        {"engines", required_argument, NULL, 'e'}, {"all-arches", no_argument, NULL, 'A'},
        {"cpu", required_argument, NULL, 'c'},    {"no-pin", no_argument, NULL, 'P'},
        {"csv", required_argument, NULL, 'o'},    {"quiet", no_argument, NULL, 'Q'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
    static const size_t default_sizes[] = {16, 64, 256, 1024, 1420, 4096, 16384};
    double tmp[MAX_SIZES];
    int quick = 0, reps_set = 0, secs_set = 0, warm_set = 0;

    memset(o, 0, sizeof *o);
    o->nsizes = sizeof default_sizes / sizeof default_sizes[0];
    memcpy(o->sizes, default_sizes, sizeof default_sizes);
    o->bits[0] = 128;
    o->bits[1] = 256;
    o->nbits = 2;
    o->dirs[0] = DIR_ENC;
    o->dirs[1] = DIR_DEC;
    o->ndirs = 2;
    o->keys = 64;
    o->bufs = 64;
    o->reps = 7;
    o->seconds = 0.5;
    o->warmup = 0.5;
    o->cpu = -1;

    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            o->nsizes = parse_list(optarg, tmp, MAX_SIZES, "size");
            for (unsigned i = 0; i < o->nsizes; i++) {
                if (tmp[i] < 0 || tmp[i] > (1 << 30) || tmp[i] != (double)(size_t)tmp[i]) {
                    die("bad size %g", tmp[i]);
                }
                o->sizes[i] = (size_t)tmp[i];
            }
            break;
        case 'b':
            o->nbits = parse_list(optarg, tmp, 2, "bits");
            for (unsigned i = 0; i < o->nbits; i++) {
                if (tmp[i] != 128 && tmp[i] != 256) {
                    die("--bits takes 128 and/or 256");
                }
                o->bits[i] = (unsigned)tmp[i];
            }
            break;
        case 'd': {
            o->ndirs = 0;
            char *copy = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (o->ndirs == 2) {
                    die("bad --dirs '%s'", optarg);
                }
                if (strcmp(t, "enc") == 0 || strcmp(t, "encrypt") == 0) {
                    o->dirs[o->ndirs++] = DIR_ENC;
                } else if (strcmp(t, "dec") == 0 || strcmp(t, "decrypt") == 0) {
                    o->dirs[o->ndirs++] = DIR_DEC;
                } else {
                    die("bad --dirs '%s' (enc,dec)", optarg);
                }
            }
            free(copy);
            if (o->ndirs == 0) {
                die("empty --dirs");
            }
            break;
        }
        case 'k': o->keys = (unsigned)parse_num(optarg, "--keys", 1, 65536); break;
        case 'B': o->bufs = (unsigned)parse_num(optarg, "--bufs", 1, 65536); break;
        case 'r': o->reps = (unsigned)parse_num(optarg, "--reps", 1, 1001); reps_set = 1; break;
        case 'S': o->seconds = parse_num(optarg, "--seconds-per-point", 1e-4, 3600); secs_set = 1; break;
        case 'w': o->warmup = parse_num(optarg, "--warmup", 0, 600); warm_set = 1; break;
        case 'q': quick = 1; break;
        case 'e': o->engines = optarg; break;
        case 'A': o->all_arches = 1; break;
        case 'c': o->cpu = (int)parse_num(optarg, "--cpu", 0, CPU_SETSIZE - 1); break;
        case 'P': o->cpu = -2; break;
        case 'o': o->csv = optarg; break;
        case 'Q': o->quiet = 1; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); exit(2);
        }
    }
    if (optind != argc) {
        usage(stderr);
        exit(2);
    }
    if (quick) { /* explicit options win over --quick */
        if (!reps_set) {
            o->reps = 5;
        }
        if (!secs_set) {
            o->seconds = 0.2;
        }
        if (!warm_set) {
            o->warmup = 0.3;
        }
    }
    if (o->reps < 5) {
        fprintf(stderr, "mbgcm-bench: warning: --reps %u < 5: figures are not reliable\n", o->reps);
    }
}

static int engine_wanted(const struct options *o, const char *name)
{
    if (o->engines == NULL) {
        return 1;
    }
    char *copy = strdup(o->engines), *save = NULL;
    int hit = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !hit; t = strtok_r(NULL, ",", &save)) {
        hit = strstr(name, t) != NULL;
    }
    free(copy);
    return hit;
}

/* ---------------------------------------------------------------------------------------------
 * Measurement
 * ------------------------------------------------------------------------------------------- */
struct figure {
    double med, min, max; /* ns per message */
    double ghz;           /* core clock for this point */
    uint64_t n;           /* messages per repetition */
    int valid;
};

static double time_batch(struct engine *e, const struct workload *w, int dir, uint64_t n,
                         unsigned *pos)
{
    const uint64_t t0 = now_ns();
    const unsigned bad = e->run(e, w, dir, n, pos);
    const uint64_t dt = now_ns() - t0;
    if (bad) {
        die("%s: %u of %llu %s calls failed (%u-bit, %zu bytes)", e->name, bad,
            (unsigned long long)n, dir_name[dir], w->bits, w->size);
    }
    return (double)dt;
}

/* Messages per repetition so that one repetition takes about |target_ns|. Also warms up. */
static uint64_t calibrate(struct engine *e, const struct workload *w, int dir, double target_ns,
                          unsigned *pos)
{
    uint64_t n = 1;
    for (;;) {
        const double dt = time_batch(e, w, dir, n, pos);
        if (dt >= target_ns / 4 || n >= (UINT64_C(1) << 40)) {
            /* one more batch at the predicted size, then the final estimate */
            uint64_t m = (uint64_t)(target_ns / (dt / (double)n));
            m = m ? m : 1;
            const double dt2 = time_batch(e, w, dir, m, pos);
            m = (uint64_t)(target_ns / (dt2 / (double)m));
            return m ? m : 1;
        }
        n = dt < target_ns / 64 ? n * 8 : n * 2;
    }
}

/* Every engine must reproduce the reference for every slot before it is timed. */
static void verify(struct engine *e, struct workload *w)
{
    unsigned pos = 0;
    for (unsigned j = 0; j < w->nslots; j++) {
        memset(w->out[j], 0xa5, w->size);
        memset(w->otag[j], 0xa5, TAG_LEN);
    }
    if (e->run(e, w, DIR_ENC, w->nslots, &pos) != 0) {
        die("%s: encrypt failed (%u-bit, %zu bytes)", e->name, w->bits, w->size);
    }
    for (unsigned j = 0; j < w->nslots; j++) {
        if (memcmp(w->out[j], w->ct[j], w->size) != 0 || memcmp(w->otag[j], w->tag[j], TAG_LEN)) {
            die("%s: encrypt output differs from OpenSSL's reference (%u-bit, %zu bytes, slot %u)",
                e->name, w->bits, w->size, j);
        }
        memset(w->out[j], 0xa5, w->size);
    }
    pos = 0;
    if (e->run(e, w, DIR_DEC, w->nslots, &pos) != 0) {
        die("%s: decrypt rejected a valid message (%u-bit, %zu bytes)", e->name, w->bits, w->size);
    }
    for (unsigned j = 0; j < w->nslots; j++) {
        if (memcmp(w->out[j], w->pt[j], w->size) != 0) {
            die("%s: decrypt output differs from the plaintext (%u-bit, %zu bytes, slot %u)",
                e->name, w->bits, w->size, j);
        }
    }
}

static int pin_cpu(int want)
{
    if (want == -2) {
        return -1;
    }
    int cpu = want >= 0 ? want : sched_getcpu();
    if (cpu < 0) {
        return -1;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "mbgcm-bench: warning: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
        return -1;
    }
    return cpu;
}

static void cpu_model(char *buf, size_t n)
{
    snprintf(buf, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ') {
                    p++;
                }
                snprintf(buf, n, "%s", p);
                buf[strcspn(buf, "\n")] = '\0';
            }
            break;
        }
    }
    fclose(f);
}

/* ---------------------------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------------------------- */
int main(int argc, char **argv)
{
    struct options o;
    parse_options(argc, argv, &o);
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* ---- engines ---- */
    struct engine eng[MAX_ENGINES];
    unsigned ne = 0;
    const struct mbgcmi_gcm_ops *seen_ops[MBGCMI_ARCH_COUNT];
    int seen_arch[MBGCMI_ARCH_COUNT];
    unsigned nseen = 0;
    static char notes[MBGCMI_ARCH_COUNT][96];
    static char names[MBGCMI_ARCH_COUNT][32];
    for (int a = 0; a < MBGCMI_ARCH_COUNT; a++) {
        if (!mbgcmi_arch_supported(a)) {
            continue;
        }
        const struct mbgcmi_gcm_ops *ops = mbgcmi_gcm_ops_for(a);
        struct engine *e = &eng[ne++];
        memset(e, 0, sizeof *e);
        snprintf(names[a], sizeof names[a], "mbgcm-%s", mbgcmi_arch_name(a));
        e->name = names[a];
        e->arch = a;
        e->is_mbgcm = 1;
        e->budget = a == MBGCMI_ARCH_GENERIC ? 0.25 : 1.0;
        e->setup = mbgcm_setup;
        e->run = mbgcm_run;
        e->teardown = mbgcm_teardown;
        e->selected = engine_wanted(&o, e->name);
        for (unsigned i = 0; i < nseen; i++) {
            if (seen_ops[i] == ops && !o.all_arches) {
                snprintf(notes[a], sizeof notes[a], "same one-shot kernels as mbgcm-%s: not re-run",
                         mbgcmi_arch_name(seen_arch[i]));
                e->note = notes[a];
                e->selected = 0;
                break;
            }
        }
        seen_ops[nseen] = ops;
        seen_arch[nseen++] = a;
    }
    const unsigned first_peer = ne;
    struct engine *evp = &eng[ne++];
    memset(evp, 0, sizeof *evp);
    evp->name = "openssl-evp";
    evp->arch = -1;
    evp->budget = 1.0;
    evp->setup = evp_setup;
    evp->run = evp_run;
    evp->teardown = evp_teardown;
    evp->selected = engine_wanted(&o, evp->name);
    struct engine *imb = &eng[ne++];
    memset(imb, 0, sizeof *imb);
    imb->name = "ipsec-mb-direct";
    imb->arch = -1;
    imb->budget = 1.0;
    imb->setup = imb_setup;
    imb->run = imb_run;
    imb->teardown = imb_teardown;
    imb->selected = engine_wanted(&o, imb->name);
    struct imb_state *imb_st = imb_new();
    imb->st = imb_st;

    unsigned nsel = 0, nsel_mbgcm = 0, nsel_peer = 0;
    for (unsigned i = 0; i < ne; i++) {
        if (eng[i].selected) {
            nsel++;
            nsel_mbgcm += eng[i].is_mbgcm;
            nsel_peer += !eng[i].is_mbgcm;
        }
    }
    if (nsel == 0) {
        die("no engine selected");
    }

    /* ---- setup ---- */
    size_t cap = 16;
    for (unsigned i = 0; i < o.nsizes; i++) {
        cap = o.sizes[i] > cap ? o.sizes[i] : cap;
    }
    struct workload w;
    workload_init(&w, o.keys, o.bufs, cap);
    const int cpu = pin_cpu(o.cpu);
    char model[128];
    cpu_model(model, sizeof model);

    printf("mbgcm-bench: mbgcm %s one-shot API vs %s and intel-ipsec-mb %s direct API (%s)\n",
           mbgcm_version(), OpenSSL_version(OPENSSL_VERSION), imb_get_version_str(),
           imb_arch_name(imb_st->arch));
    printf("CPU: %s, %s", model, cpu >= 0 ? "pinned to CPU " : "not pinned");
    if (cpu >= 0) {
        printf("%d", cpu);
    }
    printf("\nworkload: 12-byte IV, 16-byte AAD, 16-byte tag, out-of-place, %u keys round-robin "
           "over %u buffers (offsets 24*j mod 64)\n",
           w.nkeys, w.nslots);
    printf("figures: median of %u reps [min .. max], ns per message; ~%.3g s per figure "
           "(mbgcm-generic %.3g s); '!' = (max-min)/median > %.0f%%\n",
           o.reps, o.seconds, o.seconds * 0.25, SPREAD_WARN * 100);
    for (unsigned i = 0; i < ne; i++) {
        if (eng[i].note) {
            printf("note: %s: %s\n", eng[i].name, eng[i].note);
        } else if (!eng[i].selected) {
            printf("note: %s: not selected\n", eng[i].name);
        }
    }

    /* ---- warm-up: run the first selected non-generic engine, then measure the clock ---- */
    struct engine *warm = NULL;
    for (unsigned i = 0; i < ne && warm == NULL; i++) {
        if (eng[i].selected && eng[i].arch != MBGCMI_ARCH_GENERIC) {
            warm = &eng[i];
        }
    }
    if (warm == NULL) {
        warm = &eng[0];
        for (unsigned i = 0; i < ne; i++) {
            if (eng[i].selected) {
                warm = &eng[i];
                break;
            }
        }
    }
    w.bits = o.bits[0];
    w.size = o.sizes[0];
    workload_reference(&w);
    warm->setup(warm, &w);
    {
        unsigned pos = 0;
        const uint64_t t_end = now_ns() + (uint64_t)(o.warmup * 1e9);
        do {
            (void)time_batch(warm, &w, DIR_ENC, 64, &pos);
        } while (now_ns() < t_end);
    }
    const double ghz_start = measure_ghz(5, 4.0);
    if (!o.quiet) {
        fprintf(stderr, "mbgcm-bench: core clock %.2f GHz after %.1f s warm-up\n", ghz_start,
                o.warmup);
    }

    /* ---- measure: bits -> size -> dir -> reps x engines (interleaved) ---- */
    const unsigned npoints = o.nbits * o.nsizes * (unsigned)o.ndirs;
    struct figure *fig = calloc((size_t)npoints * ne, sizeof *fig);
    double *samples = calloc((size_t)o.reps * ne, sizeof *samples);
    double *ghz_all = calloc(npoints + 1, sizeof *ghz_all);
    if (fig == NULL || samples == NULL || ghz_all == NULL) {
        die("out of memory");
    }
#define FIG(b, d, s, e) fig[((((size_t)(b) * (unsigned)o.ndirs + (d)) * o.nsizes + (s)) * ne) + (e)]
    unsigned done = 0, nghz = 0;
    const uint64_t t_start = now_ns();
    double ghz_prev = ghz_start;
    ghz_all[nghz++] = ghz_start;
    for (unsigned bi = 0; bi < o.nbits; bi++) {
        w.bits = o.bits[bi];
        for (unsigned i = 0; i < ne; i++) {
            if (eng[i].selected) {
                eng[i].setup(&eng[i], &w);
            }
        }
        for (unsigned si = 0; si < o.nsizes; si++) {
            w.size = o.sizes[si];
            workload_reference(&w);
            for (unsigned i = 0; i < ne; i++) {
                if (eng[i].selected) {
                    verify(&eng[i], &w);
                }
            }
            for (int di = 0; di < o.ndirs; di++) {
                const int dir = o.dirs[di];
                uint64_t n[MAX_ENGINES] = {0};
                unsigned pos[MAX_ENGINES] = {0};
                for (unsigned i = 0; i < ne; i++) {
                    if (eng[i].selected) {
                        n[i] = calibrate(&eng[i], &w, dir, o.seconds * eng[i].budget / o.reps * 1e9,
                                         &pos[i]);
                    }
                }
                for (unsigned r = 0; r < o.reps; r++) {
                    for (unsigned i = 0; i < ne; i++) {
                        if (eng[i].selected) {
                            samples[i * o.reps + r] =
                                time_batch(&eng[i], &w, dir, n[i], &pos[i]) / (double)n[i];
                        }
                    }
                }
                const double ghz_now = measure_ghz(3, 2.0);
                ghz_all[nghz++] = ghz_now;
                for (unsigned i = 0; i < ne; i++) {
                    if (!eng[i].selected) {
                        continue;
                    }
                    struct figure *f = &FIG(bi, di, si, i);
                    double *v = &samples[i * o.reps];
                    f->med = median(v, o.reps);
                    f->min = v[0];
                    f->max = v[o.reps - 1];
                    f->ghz = 0.5 * (ghz_prev + ghz_now);
                    f->n = n[i];
                    f->valid = 1;
                }
                ghz_prev = ghz_now;
                done++;
                if (!o.quiet) {
                    const double el = (double)(now_ns() - t_start) * 1e-9;
                    fprintf(stderr, "[%2u/%u] AES-%u %s %6zu B:", done, npoints, w.bits,
                            dir_short[dir], w.size);
                    for (unsigned i = 0; i < ne; i++) {
                        if (eng[i].selected) {
                            fprintf(stderr, "  %s %.1f", eng[i].name, FIG(bi, di, si, i).med);
                        }
                    }
                    fprintf(stderr, " ns  (%.0f s, ~%.0f s left)\n", el,
                            el / done * (npoints - done));
                }
            }
        }
    }
    const double ghz_end = ghz_prev;
    const double ghz_med = median(ghz_all, nghz);

    /* ---- table ---- */
    unsigned nwarn = 0;
    printf("core clock (dependent-add loop): median %.2f GHz over %u measurements; start %.2f, "
           "end %.2f\n",
           ghz_med, nghz, ghz_start, ghz_end);
    for (unsigned bi = 0; bi < o.nbits; bi++) {
        for (int di = 0; di < o.ndirs; di++) {
            printf("\nAES-%u-GCM %s\n", o.bits[bi], dir_name[o.dirs[di]]);
            printf("  %6s  %-16s %11s  %-25s %8s %8s %7s\n", "bytes", "engine", "ns/msg",
                   "[min .. max]", "GB/s", "cyc/B", "ratio");
            for (unsigned si = 0; si < o.nsizes; si++) {
                double peer = 0;
                for (unsigned i = first_peer; i < ne; i++) {
                    const struct figure *f = &FIG(bi, di, si, i);
                    if (f->valid && (peer == 0 || f->med < peer)) {
                        peer = f->med;
                    }
                }
                for (unsigned i = 0; i < ne; i++) {
                    const struct figure *f = &FIG(bi, di, si, i);
                    if (!f->valid) {
                        continue;
                    }
                    const double spread = (f->max - f->min) / f->med;
                    const int warn = spread > SPREAD_WARN;
                    nwarn += warn;
                    char range[64], ratio[16] = "";
                    snprintf(range, sizeof range, "[%.1f .. %.1f]", f->min, f->max);
                    if (eng[i].is_mbgcm && peer > 0) {
                        snprintf(ratio, sizeof ratio, "%.2fx", peer / f->med);
                    }
                    char cpb[24] = "-"; /* cycles per byte: undefined for empty messages */
                    if (o.sizes[si]) {
                        snprintf(cpb, sizeof cpb, "%.2f", f->med * f->ghz / (double)o.sizes[si]);
                    }
                    printf("  %6zu  %-16s %11.1f  %-25s %8.2f %8s %7s%s\n", o.sizes[si],
                           eng[i].name, f->med, range, (double)o.sizes[si] / f->med, cpb, ratio,
                           warn ? " !" : "");
                }
            }
        }
    }

    /* ---- summary: best mbgcm arch vs best peer ---- */
    if (nsel_mbgcm && nsel_peer) {
        printf("\nSummary: best mbgcm arch vs best peer; ratio = peer ns / mbgcm ns "
               "(> 1: mbgcm faster)\n");
        printf("  %-7s %-4s %6s  %-16s %10s  %-16s %10s %7s\n", "AES", "dir", "bytes",
               "mbgcm best", "ns", "peer best", "ns", "ratio");
        for (unsigned bi = 0; bi < o.nbits; bi++) {
            for (int di = 0; di < o.ndirs; di++) {
                for (unsigned si = 0; si < o.nsizes; si++) {
                    int bm = -1, bp = -1;
                    for (unsigned i = 0; i < ne; i++) {
                        const struct figure *f = &FIG(bi, di, si, i);
                        if (!f->valid) {
                            continue;
                        }
                        int *best = eng[i].is_mbgcm ? &bm : &bp;
                        if (*best < 0 || f->med < FIG(bi, di, si, *best).med) {
                            *best = (int)i;
                        }
                    }
                    const double m = FIG(bi, di, si, bm).med, p = FIG(bi, di, si, bp).med;
                    printf("  AES-%-3u %-4s %6zu  %-16s %10.1f  %-16s %10.1f %6.2fx\n",
                           o.bits[bi], dir_short[o.dirs[di]], o.sizes[si], eng[bm].name, m,
                           eng[bp].name, p, p / m);
                }
            }
        }
    }
    if (nwarn) {
        printf("\nwarning: %u figure(s) marked '!' vary by more than %.0f%% between repetitions "
               "(noisy machine?): rerun or raise --reps/--seconds-per-point\n",
               nwarn, SPREAD_WARN * 100);
    }
    if (ghz_start > 0 && (ghz_end - ghz_start) / ghz_start > 0.05) {
        printf("warning: core clock drifted from %.2f to %.2f GHz during the run\n", ghz_start,
               ghz_end);
    }
    printf("total measuring time %.1f s\n", (double)(now_ns() - t_start) * 1e-9);

    /* ---- CSV ---- */
    if (o.csv) {
        FILE *f = fopen(o.csv, "w");
        if (f == NULL) {
            die("cannot write %s: %s", o.csv, strerror(errno));
        }
        fprintf(f, "aes_bits,direction,bytes,engine,reps,msgs_per_rep,ns_median,ns_min,ns_max,"
                   "spread_pct,gb_per_s,cycles_per_byte,core_ghz,ratio_vs_best_peer\n");
        for (unsigned bi = 0; bi < o.nbits; bi++) {
            for (int di = 0; di < o.ndirs; di++) {
                for (unsigned si = 0; si < o.nsizes; si++) {
                    double peer = 0;
                    for (unsigned i = first_peer; i < ne; i++) {
                        const struct figure *g = &FIG(bi, di, si, i);
                        if (g->valid && (peer == 0 || g->med < peer)) {
                            peer = g->med;
                        }
                    }
                    for (unsigned i = 0; i < ne; i++) {
                        const struct figure *g = &FIG(bi, di, si, i);
                        if (!g->valid) {
                            continue;
                        }
                        fprintf(f, "%u,%s,%zu,%s,%u,%llu,%.2f,%.2f,%.2f,%.1f,%.4f,",
                                o.bits[bi], dir_short[o.dirs[di]], o.sizes[si], eng[i].name,
                                o.reps, (unsigned long long)g->n, g->med, g->min, g->max,
                                100.0 * (g->max - g->min) / g->med,
                                (double)o.sizes[si] / g->med);
                        if (o.sizes[si]) {
                            fprintf(f, "%.4f", g->med * g->ghz / (double)o.sizes[si]);
                        }
                        fprintf(f, ",%.3f,", g->ghz);
                        if (eng[i].is_mbgcm && peer > 0) {
                            fprintf(f, "%.3f", peer / g->med);
                        }
                        fputc('\n', f);
                    }
                }
            }
        }
        if (fclose(f) != 0) {
            die("error writing %s", o.csv);
        }
        printf("CSV written to %s\n", o.csv);
    }
#undef FIG

    for (unsigned i = 0; i < ne; i++) {
        eng[i].teardown(&eng[i]);
    }
    workload_free(&w);
    free(fig);
    free(samples);
    free(ghz_all);
    return 0;
}
