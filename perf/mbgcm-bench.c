/*
 * mbgcm-bench.c — one-process, side-by-side benchmark of mbgcm against intel-ipsec-mb and
 * OpenSSL EVP: throughput (table, CSV, data for the plot), latency under Poisson arrivals,
 * and scaling over threads.
 *
 * Engines (each a name in the output; --engines selects by substring)
 *   mbgcm-oneshot-ARCH   mbgcm_encrypt/mbgcm_decrypt, the arch forced with the internal hook
 *                        mbgcmi_set_oneshot_arch. Arches whose one-shot kernels are the same
 *                        as a lower arch's are listed but not re-run unless --all-arches.
 *   mbgcm-ring-ARCH      the job ring: mbgcm_get_next_job, every field set, mbgcm_submit_job,
 *                        completed jobs drained as they come back; mbgcm_flush_job until NULL
 *                        at the end of every repetition. A manager per engine (--lanes,
 *                        --queue). ARCH is the lane kernel that runs; a manager arch whose
 *                        lanes are still the portable C kernel is shown as
 *                        mbgcm-ring-generic(aesni) and only run with --all-arches.
 *   mbgcm-burst-ARCH     mbgcm_submit_burst over arrays of --burst caller-owned jobs.
 *   ipsec-mb-direct      IMB_AES*_GCM_ENC/DEC, keys from IMB_AES*_GCM_PRE, manager from
 *                        init_mb_mgr_auto; decrypt compares the tag itself, as every caller of
 *                        that API must.
 *   ipsec-mb-job         IMB_GET_NEXT_JOB / IMB_SUBMIT_JOB / IMB_GET_COMPLETED_JOB, flushed with
 *                        IMB_FLUSH_JOB at the end of every repetition; cipher_mode
 *                        IMB_CIPHER_GCM, hash_alg IMB_AUTH_AES_GMAC, CIPHER_HASH order for
 *                        encrypt and HASH_CIPHER for decrypt; the computed tag is compared on
 *                        completion for decrypt.
 *   openssl-evp          one EVP_CIPHER_CTX per key and direction, reused; the IV reset per
 *                        message with EVP_*Init_ex(ctx, NULL, NULL, NULL, iv), as servers do.
 *
 * Workload (same for all): AES-128 and AES-256 GCM, encrypt and decrypt, 12-byte IV, --aad
 * bytes of AAD (16), 16-byte tag, out of place; message sizes from --sizes, "imix" being the
 * 7:4:1 mix of 64/594/1518-byte messages in a fixed interleaved order. K raw keys (--keys)
 * used round-robin; messages live in a pool of slots (--bufs, at least K; a multiple of
 * lcm(K, 12) for imix) at varying addresses: slot j sits 24*j mod 64 bytes from a cache line
 * in an arena with an odd number of cache lines as stride. Decrypt inputs are the reference
 * ciphertexts and tags, made with OpenSSL. Before any timing, every engine's output is checked
 * against the reference for every slot (encrypt: ciphertext and tag; decrypt: status and
 * plaintext); a mismatch aborts the run.
 *
 * Throughput mode (--mode tput)
 *   One thread pinned (sched_setaffinity; the CPU it starts on or --cpu). A warm-up brings the
 *   core to its running clock. For each point (key size, message size, direction) every
 *   engine is calibrated to a batch lasting about --seconds-per-point / --reps, then the
 *   repetitions are interleaved across engines (A B C A B C ...) so that drift and
 *   neighbours' noise hit all engines alike. A figure is the median of the repetitions' ns
 *   per message with min and max; figures whose (max-min)/median exceeds 10% are marked '!'.
 *   Cycles are core cycles: the core clock is measured before every point with a chain of
 *   dependent adds (bench_util.h); the TSC is not used. Engines running portable C kernels
 *   get --capped-share of the time budget (about 200 cycles/byte).
 *   ratio = best peer ns / mbgcm ns: mbgcm throughput over the best peer's (> 1: mbgcm
 *   faster), on every mbgcm row and in the summary.
 * Latency mode (--mode latency): AES-256 encrypt, one thread; arrivals are a Poisson process at
 *   an offered load (--lat-loads: a value > 1 is messages per second, <= 1 a fraction of the
 *   ring's measured capacity at that size); the thread spins, submits each message when it is
 *   due and calls mbgcm_mgr_poll (ring) or IMB_GET_COMPLETED_JOB (ipsec-mb job API) when
 *   idle. Reported: p50/p99/p99.9/max of submit-to-completion time, throughput, and for the
 *   ring the busy lanes per kernel call and the runs started by the timeout; the ring runs
 *   with flush_timeout_ns 0 and --lat-timeout-us. At the end of the arrivals a ring without
 *   timeout is flushed (its last < 4 jobs wait for that).
 * Threads mode (--mode threads): AES-256 encrypt; N threads (--threads, default: the CPUs
 *   this process may use), each pinned to its own CPU with its own engine instance (mbgcm
 *   manager, IMB_MGR, EVP contexts), own keys and buffers; aggregate GB/s over N threads and
 *   over one, and their ratio (scaling).
 *
 * Output: tables on stdout, progress on stderr, CSV with --csv FILE (throughput; latency and
 * threads go to FILE with -latency.csv / -threads.csv in place of .csv). perf/plot.sh turns
 * the throughput CSV into a PNG.
 */
#define _GNU_SOURCE
#define BENCH_PROG "mbgcm-bench"
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <intel-ipsec-mb.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "bench_util.h"
#include "jobs_internal.h"

#define IV_LEN      12
#define TAG_LEN     16
#define MAX_AAD     64
#define MAX_SIZES   32
#define MAX_ENGINES 24
#define MAX_BURST   256
#define MAX_THREADS 256
#define SPREAD_WARN 0.10
#define SIZE_IMIX   ((size_t)0 - 1)
#define IMIX_MAX    1518

/* 7 x 64, 4 x 594, 1 x 1518, interleaved (the classic simple IMIX) */
static const size_t imix_pattern[12] = {64, 594, 64, 64, 1518, 64, 594, 64, 594, 64, 64, 594};

enum { DIR_ENC = 0, DIR_DEC = 1 };
static const char *const dir_name[2] = {"encrypt", "decrypt"};
static const char *const dir_short[2] = {"enc", "dec"};

enum { MODE_TPUT = 1, MODE_LAT = 2, MODE_THR = 4 };

/* ---------------------------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------------------------- */
struct options {
    unsigned modes;
    size_t sizes[MAX_SIZES];
    unsigned nsizes;
    unsigned bits[2], nbits;
    int dirs[2], ndirs;
    unsigned keys, bufs, reps, aad_len, lanes, queue, burst;
    int single_set;       /* --single-min-len given */
    uint64_t single_min_len;
    double seconds;       /* per point and engine, all reps together */
    double warmup;        /* seconds */
    double capped_share;  /* share of the budget for engines running portable C kernels */
    int cpu;              /* -1: the one we start on; -2: no pinning */
    int all_arches, quiet;
    const char *engines;  /* comma list of name fragments, NULL = all */
    const char *csv, *label;
    /* latency */
    size_t lat_sizes[MAX_SIZES];
    unsigned nlat_sizes;
    double lat_loads[8];
    unsigned nlat_loads;
    double lat_timeout_us, lat_seconds;
    /* threads */
    unsigned threads;
    size_t thr_sizes[MAX_SIZES];
    unsigned nthr_sizes;
    double thr_seconds;
    unsigned thr_reps;
};
static struct options opt;

static const char *size_str(size_t s, char *buf, size_t n)
{
    if (s == SIZE_IMIX) {
        snprintf(buf, n, "imix");
    } else {
        snprintf(buf, n, "%zu", s);
    }
    return buf;
}

/* ---------------------------------------------------------------------------------------------
 * Deterministic test data (xorshift64*, not cryptographic)
 * ------------------------------------------------------------------------------------------- */
static inline uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1du;
}

static void fill_random(uint64_t *s, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(rng_next(s) >> 56);
    }
}

static inline int tag_equal16(const uint8_t *a, const uint8_t *b)
{
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&a1, a + 8, 8);
    memcpy(&b0, b, 8);
    memcpy(&b1, b + 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

/* ---------------------------------------------------------------------------------------------
 * Workload: slots of messages (key index, IV, AAD, plaintext, reference ciphertext and tag,
 * output buffer, output tag) at varying addresses.
 * ------------------------------------------------------------------------------------------- */
struct workload {
    unsigned nkeys;
    unsigned nslots;          /* slots of the current point */
    unsigned base_slots;      /* fixed sizes: bufs rounded up to a multiple of nkeys */
    unsigned imix_slots;      /* imix: a multiple of lcm(nkeys, 12) */
    unsigned max_slots;
    size_t cap;               /* largest message */
    size_t aad_len;
    size_t size;              /* current message size, or SIZE_IMIX */
    unsigned bits;            /* current key size */
    double avg_len;           /* mean message bytes over the slots */
    size_t *len;              /* slot -> message length */
    unsigned *key_of;         /* slot -> key index */
    uint8_t (*raw)[32];       /* nkeys raw keys (first bits/8 bytes used) */
    uint8_t **pt, **ct, **out;
    uint8_t (*iv)[IV_LEN];
    uint8_t (*aad)[MAX_AAD];
    uint8_t (*tag)[TAG_LEN];  /* reference tags */
    uint8_t (*otag)[TAG_LEN]; /* tags written by encrypt (ipsec-mb job API: decrypt too) */
    uint8_t *arena[3];
    uint64_t seed;
};

static unsigned gcd_u(unsigned a, unsigned b)
{
    while (b) {
        const unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static size_t slot_stride(size_t maxlen)
{
    /* an odd number of cache lines beyond the message (no power-of-two stride) */
    const size_t lines = (maxlen + 64 + 63) / 64;
    return (lines | 1) * 64 + 64;
}

static void workload_init(struct workload *w, unsigned nkeys, unsigned nbufs, size_t cap,
                          size_t aad_len, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->nkeys = nkeys;
    w->aad_len = aad_len;
    w->seed = seed;
    const unsigned n = nbufs > nkeys ? nbufs : nkeys;
    w->base_slots = (n + nkeys - 1) / nkeys * nkeys;
    unsigned l = nkeys / gcd_u(nkeys, 12) * 12;
    if (l > 4096) {
        l = 12;
    }
    w->imix_slots = (n + l - 1) / l * l;
    w->max_slots = w->base_slots > w->imix_slots ? w->base_slots : w->imix_slots;
    w->cap = cap > IMIX_MAX ? cap : IMIX_MAX;
    const unsigned m = w->max_slots;
    w->len = xaligned(64, m * sizeof *w->len);
    w->key_of = xaligned(64, m * sizeof *w->key_of);
    w->raw = xaligned(64, nkeys * sizeof *w->raw);
    w->iv = xaligned(64, m * sizeof *w->iv);
    w->aad = xaligned(64, m * sizeof *w->aad);
    w->tag = xaligned(64, m * sizeof *w->tag);
    w->otag = xaligned(64, m * sizeof *w->otag);
    w->pt = xaligned(64, m * sizeof *w->pt);
    w->ct = xaligned(64, m * sizeof *w->ct);
    w->out = xaligned(64, m * sizeof *w->out);
    const size_t arena = slot_stride(w->cap) * m + 4096;
    for (int a = 0; a < 3; a++) {
        w->arena[a] = xaligned(4096, arena);
    }
    uint64_t s = seed;
    fill_random(&s, &w->raw[0][0], nkeys * sizeof *w->raw);
    fill_random(&s, &w->iv[0][0], m * sizeof *w->iv);
    fill_random(&s, &w->aad[0][0], m * sizeof *w->aad);
    w->seed = s;
}

static void workload_free(struct workload *w)
{
    for (int a = 0; a < 3; a++) {
        free(w->arena[a]);
    }
    free(w->len);
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

/* Lay out the slots for |size| (SIZE_IMIX: the mix), fill plaintexts, make the reference
   ciphertexts and tags with a fresh OpenSSL context. */
static void workload_point(struct workload *w, unsigned bits, size_t size)
{
    w->bits = bits;
    w->size = size;
    const int imix = size == SIZE_IMIX;
    w->nslots = imix ? w->imix_slots : w->base_slots;
    const size_t maxlen = imix ? IMIX_MAX : size;
    if (maxlen > w->cap) {
        die("size %zu above the workload capacity %zu", maxlen, w->cap);
    }
    const size_t stride = slot_stride(maxlen);
    uint8_t **const which[3] = {w->pt, w->ct, w->out};
    double total = 0;
    uint64_t s = w->seed;
    for (unsigned j = 0; j < w->nslots; j++) {
        w->len[j] = imix ? imix_pattern[j % 12] : size;
        w->key_of[j] = j % w->nkeys;
        total += (double)w->len[j];
        for (int a = 0; a < 3; a++) {
            /* offsets 0, 24, 48, 8, 32, 56, 16, 40 from a cache line; arenas shifted apart */
            which[a][j] = w->arena[a] + (size_t)j * stride + (24u * j) % 64 + 512u * (unsigned)a;
        }
        fill_random(&s, w->pt[j], w->len[j]);
    }
    w->avg_len = total / w->nslots;

    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (c == NULL) {
        die("EVP_CIPHER_CTX_new failed");
    }
    for (unsigned j = 0; j < w->nslots; j++) {
        int l1 = 0, l2 = 0, la = 0;
        if (EVP_EncryptInit_ex(c, evp_gcm(bits), NULL, w->raw[w->key_of[j]], w->iv[j]) != 1 ||
            (w->aad_len && EVP_EncryptUpdate(c, NULL, &la, w->aad[j], (int)w->aad_len) != 1) ||
            EVP_EncryptUpdate(c, w->ct[j], &l1, w->pt[j], (int)w->len[j]) != 1 ||
            EVP_EncryptFinal_ex(c, w->ct[j] + l1, &l2) != 1 ||
            EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, TAG_LEN, w->tag[j]) != 1) {
            die("OpenSSL reference encryption failed");
        }
    }
    EVP_CIPHER_CTX_free(c);
}

/* ---------------------------------------------------------------------------------------------
 * Engines. run() processes |n| messages from slot *pos on (round-robin), leaves nothing in
 * flight, and returns the number of messages that failed (decrypt: tag mismatch); it must
 * never fail on valid input.
 * ------------------------------------------------------------------------------------------- */
enum kind { K_ONESHOT, K_RING, K_BURST, K_IMB_DIRECT, K_IMB_JOB, K_EVP };
static const char *const kind_api[] = {"oneshot", "ring", "burst", "direct", "job", "evp"};

struct estate {
    unsigned keybits, nkeys;
    mbgcm_key *keys;
    mbgcm_mgr *mgr;
    mbgcm_job *bjobs;
    EVP_CIPHER_CTX **enc, **dec;
    IMB_MGR *imb;
    IMB_ARCH imb_arch;
    struct gcm_key_data *gkeys;
    struct gcm_context_data gctx;
};

struct engine {
    char name[40];
    enum kind kind;
    int arch;            /* mbgcm: one-shot arch or manager arch; peers: -1 */
    int lane_arch;       /* ring/burst: arch of the lane kernel that runs */
    int is_mbgcm;
    int selected;
    int capped;          /* portable C kernels: small time budget */
    int dup;             /* same kernels as a lower arch's engine of the same API */
    uint64_t timeout_ns; /* ring: flush_timeout_ns */
    char note[200];
    struct estate *st;
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

static IMB_MGR *imb_create(IMB_ARCH *arch)
{
    IMB_MGR *m = alloc_mb_mgr(0);
    if (m == NULL) {
        die("alloc_mb_mgr failed");
    }
    init_mb_mgr_auto(m, arch);
    if (imb_get_errno(m) != 0) {
        die("init_mb_mgr_auto failed: %s", imb_get_strerror(imb_get_errno(m)));
    }
    return m;
}

static void evp_free_ctxs(struct estate *s)
{
    if (s->enc) {
        for (unsigned k = 0; k < s->nkeys; k++) {
            EVP_CIPHER_CTX_free(s->enc[k]);
            EVP_CIPHER_CTX_free(s->dec[k]);
        }
        free(s->enc);
        free(s->dec);
        s->enc = s->dec = NULL;
    }
}

/* Create the engine's state on first use; (re)key it for w->bits. */
static void engine_setup(struct engine *e, const struct workload *w)
{
    struct estate *s = e->st;
    if (s == NULL) {
        s = e->st = xaligned(64, sizeof *s);
        switch (e->kind) {
        case K_RING:
        case K_BURST: {
            mbgcm_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.arch = mbgcmi_arch_name(e->arch);
            cfg.lanes = opt.lanes;
            cfg.queue_size = opt.queue;
            cfg.flush_timeout_ns = e->timeout_ns;
            const int st = mbgcm_mgr_create(&s->mgr, &cfg);
            if (st != MBGCM_OK) {
                die("%s: mbgcm_mgr_create: %s", e->name, mbgcm_strerror(st));
            }
            if (opt.single_set) {
                mbgcmi_mgr_set_single_min_len(s->mgr, opt.single_min_len);
            }
            if (e->kind == K_BURST) {
                s->bjobs = xaligned(64, MAX_BURST * sizeof *s->bjobs);
            }
            break;
        }
        case K_IMB_DIRECT:
        case K_IMB_JOB: s->imb = imb_create(&s->imb_arch); break;
        default: break;
        }
    }
    if (s->keybits == w->bits && s->nkeys == w->nkeys) {
        return;
    }
    switch (e->kind) {
    case K_ONESHOT:
    case K_RING:
    case K_BURST:
        if (s->keys == NULL || s->nkeys != w->nkeys) {
            free(s->keys);
            s->keys = xaligned(64, w->nkeys * sizeof(mbgcm_key));
        }
        for (unsigned k = 0; k < w->nkeys; k++) {
            const int st = mbgcm_key_init(&s->keys[k], w->raw[k], w->bits / 8);
            if (st != MBGCM_OK) {
                die("mbgcm_key_init: %s", mbgcm_strerror(st));
            }
        }
        break;
    case K_IMB_DIRECT:
    case K_IMB_JOB:
        if (s->gkeys == NULL || s->nkeys != w->nkeys) {
            free(s->gkeys);
            s->gkeys = xaligned(64, w->nkeys * sizeof *s->gkeys);
        }
        for (unsigned k = 0; k < w->nkeys; k++) {
            if (w->bits == 128) {
                IMB_AES128_GCM_PRE(s->imb, w->raw[k], &s->gkeys[k]);
            } else {
                IMB_AES256_GCM_PRE(s->imb, w->raw[k], &s->gkeys[k]);
            }
        }
        break;
    case K_EVP:
        evp_free_ctxs(s);
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
        break;
    }
    s->keybits = w->bits;
    s->nkeys = w->nkeys;
}

static void engine_teardown(struct engine *e)
{
    struct estate *s = e->st;
    if (s == NULL) {
        return;
    }
    if (s->keys) {
        for (unsigned k = 0; k < s->nkeys; k++) {
            mbgcm_key_wipe(&s->keys[k]);
        }
        free(s->keys);
    }
    mbgcm_mgr_free(s->mgr);
    free(s->bjobs);
    evp_free_ctxs(s);
    if (s->imb) {
        free_mb_mgr(s->imb);
    }
    free(s->gkeys);
    free(s);
    e->st = NULL;
}

/* ---- mbgcm one-shot ---- */
static unsigned oneshot_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                            unsigned *pos)
{
    const struct estate *s = e->st;
    const size_t alen = w->aad_len;
    unsigned j = *pos, bad = 0;
    mbgcmi_set_oneshot_arch(e->arch);
    if (dir == DIR_ENC) {
        for (uint64_t i = 0; i < n; i++) {
            bad += mbgcm_encrypt(&s->keys[w->key_of[j]], w->iv[j], IV_LEN, w->aad[j], alen,
                                 w->pt[j], w->len[j], w->out[j], w->otag[j], TAG_LEN) != MBGCM_OK;
            if (++j == w->nslots) {
                j = 0;
            }
        }
    } else {
        for (uint64_t i = 0; i < n; i++) {
            bad += mbgcm_decrypt(&s->keys[w->key_of[j]], w->iv[j], IV_LEN, w->aad[j], alen,
                                 w->ct[j], w->len[j], w->out[j], w->tag[j], TAG_LEN) != MBGCM_OK;
            if (++j == w->nslots) {
                j = 0;
            }
        }
    }
    *pos = j;
    return bad;
}

/* ---- mbgcm job manager: every field of the job is set, as the API asks ---- */
static inline void fill_job(mbgcm_job *job, const struct estate *s, const struct workload *w,
                            int dir, unsigned j)
{
    job->key = &s->keys[w->key_of[j]];
    job->dir = dir == DIR_ENC ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
    job->iv = w->iv[j];
    job->iv_len = IV_LEN;
    job->aad = w->aad[j];
    job->aad_len = w->aad_len;
    job->src = dir == DIR_ENC ? w->pt[j] : w->ct[j];
    job->dst = w->out[j];
    job->len = w->len[j];
    job->tag = dir == DIR_ENC ? w->otag[j] : w->tag[j]; /* decrypt: read at submit */
    job->tag_len = TAG_LEN;
    job->user_data = NULL;
    job->src_sgl = job->dst_sgl = NULL;
    job->src_nseg = job->dst_nseg = 0;
    job->reserved_ = NULL;
}

static unsigned ring_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                         unsigned *pos)
{
    const struct estate *s = e->st;
    mbgcm_mgr *m = s->mgr;
    unsigned j = *pos, bad = 0;
    mbgcm_job *c;
    for (uint64_t i = 0; i < n; i++) {
        fill_job(mbgcm_get_next_job(m), s, w, dir, j);
        c = mbgcm_submit_job(m);
        while (c != NULL) {
            bad += c->status != MBGCM_OK;
            c = mbgcm_get_completed_job(m);
        }
        if (++j == w->nslots) {
            j = 0;
        }
    }
    while ((c = mbgcm_flush_job(m)) != NULL) {
        bad += c->status != MBGCM_OK;
    }
    *pos = j;
    return bad;
}

static unsigned burst_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                          unsigned *pos)
{
    const struct estate *s = e->st;
    unsigned j = *pos, bad = 0;
    for (uint64_t i = 0; i < n;) {
        const unsigned k = (unsigned)(n - i < opt.burst ? n - i : opt.burst);
        for (unsigned b = 0; b < k; b++) {
            fill_job(&s->bjobs[b], s, w, dir, j);
            if (++j == w->nslots) {
                j = 0;
            }
        }
        bad += k - mbgcm_submit_burst(s->mgr, s->bjobs, k);
        i += k;
    }
    *pos = j;
    return bad;
}

/* ---- intel-ipsec-mb direct API ---- */
static unsigned imb_direct_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                               unsigned *pos)
{
    struct estate *s = e->st;
    IMB_MGR *m = s->imb;
    const uint64_t alen = w->aad_len;
    unsigned j = *pos, bad = 0;
    uint8_t t[TAG_LEN];
    for (uint64_t i = 0; i < n; i++) {
        const struct gcm_key_data *k = &s->gkeys[w->key_of[j]];
        if (dir == DIR_ENC) {
            if (w->bits == 128) {
                IMB_AES128_GCM_ENC(m, k, &s->gctx, w->out[j], w->pt[j], w->len[j], w->iv[j],
                                   w->aad[j], alen, w->otag[j], TAG_LEN);
            } else {
                IMB_AES256_GCM_ENC(m, k, &s->gctx, w->out[j], w->pt[j], w->len[j], w->iv[j],
                                   w->aad[j], alen, w->otag[j], TAG_LEN);
            }
        } else {
            if (w->bits == 128) {
                IMB_AES128_GCM_DEC(m, k, &s->gctx, w->out[j], w->ct[j], w->len[j], w->iv[j],
                                   w->aad[j], alen, t, TAG_LEN);
            } else {
                IMB_AES256_GCM_DEC(m, k, &s->gctx, w->out[j], w->ct[j], w->len[j], w->iv[j],
                                   w->aad[j], alen, t, TAG_LEN);
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

/* ---- intel-ipsec-mb job API (GCM fields as in intel-ipsec-mb.h 1.3) ---- */
static inline void imb_fill(IMB_JOB *job, const struct estate *s, const struct workload *w,
                            int dir, unsigned j)
{
    const struct gcm_key_data *k = &s->gkeys[w->key_of[j]];
    job->cipher_mode = IMB_CIPHER_GCM;
    job->hash_alg = IMB_AUTH_AES_GMAC;
    if (dir == DIR_ENC) {
        job->cipher_direction = IMB_DIR_ENCRYPT;
        job->chain_order = IMB_ORDER_CIPHER_HASH;
        job->src = w->pt[j];
    } else {
        job->cipher_direction = IMB_DIR_DECRYPT;
        job->chain_order = IMB_ORDER_HASH_CIPHER;
        job->src = w->ct[j];
    }
    job->enc_keys = k;
    job->dec_keys = k;
    job->key_len_in_bytes = w->bits == 128 ? IMB_KEY_128_BYTES : IMB_KEY_256_BYTES;
    job->dst = w->out[j];
    job->cipher_start_src_offset_in_bytes = 0;
    job->msg_len_to_cipher_in_bytes = w->len[j];
    job->hash_start_src_offset_in_bytes = 0;
    job->msg_len_to_hash_in_bytes = w->len[j];
    job->iv = w->iv[j];
    job->iv_len_in_bytes = IV_LEN;
    job->u.GCM.aad = w->aad[j];
    job->u.GCM.aad_len_in_bytes = w->aad_len;
    job->auth_tag_output = w->otag[j]; /* decrypt: the computed tag, compared on completion */
    job->auth_tag_output_len_in_bytes = TAG_LEN;
    job->user_data = (void *)(uintptr_t)j;
}

static inline unsigned imb_job_bad(const IMB_JOB *job, const struct workload *w, int dir)
{
    if (job->status != IMB_STATUS_COMPLETED) {
        return 1;
    }
    if (dir == DIR_DEC) {
        const unsigned j = (unsigned)(uintptr_t)job->user_data;
        return !tag_equal16(w->otag[j], w->tag[j]);
    }
    return 0;
}

static unsigned imb_job_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                            unsigned *pos)
{
    struct estate *s = e->st;
    IMB_MGR *m = s->imb;
    unsigned j = *pos, bad = 0;
    IMB_JOB *job;
    for (uint64_t i = 0; i < n; i++) {
        imb_fill(IMB_GET_NEXT_JOB(m), s, w, dir, j);
        job = IMB_SUBMIT_JOB(m);
        while (job != NULL) {
            bad += imb_job_bad(job, w, dir);
            job = IMB_GET_COMPLETED_JOB(m);
        }
        if (++j == w->nslots) {
            j = 0;
        }
    }
    while ((job = IMB_FLUSH_JOB(m)) != NULL) {
        bad += imb_job_bad(job, w, dir);
    }
    *pos = j;
    return bad;
}

/* ---- OpenSSL EVP: one context per key and direction, reused ---- */
static unsigned evp_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                        unsigned *pos)
{
    const struct estate *s = e->st;
    const int alen = (int)w->aad_len;
    unsigned j = *pos, bad = 0;
    int l1, l2, la;
    if (dir == DIR_ENC) {
        for (uint64_t i = 0; i < n; i++) {
            EVP_CIPHER_CTX *c = s->enc[w->key_of[j]];
            bad += EVP_EncryptInit_ex(c, NULL, NULL, NULL, w->iv[j]) != 1;
            if (alen) {
                bad += EVP_EncryptUpdate(c, NULL, &la, w->aad[j], alen) != 1;
            }
            bad += EVP_EncryptUpdate(c, w->out[j], &l1, w->pt[j], (int)w->len[j]) != 1;
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
            if (alen) {
                bad += EVP_DecryptUpdate(c, NULL, &la, w->aad[j], alen) != 1;
            }
            bad += EVP_DecryptUpdate(c, w->out[j], &l1, w->ct[j], (int)w->len[j]) != 1;
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

static unsigned engine_run(struct engine *e, const struct workload *w, int dir, uint64_t n,
                           unsigned *pos)
{
    switch (e->kind) {
    case K_ONESHOT: return oneshot_run(e, w, dir, n, pos);
    case K_RING: return ring_run(e, w, dir, n, pos);
    case K_BURST: return burst_run(e, w, dir, n, pos);
    case K_IMB_DIRECT: return imb_direct_run(e, w, dir, n, pos);
    case K_IMB_JOB: return imb_job_run(e, w, dir, n, pos);
    case K_EVP: return evp_run(e, w, dir, n, pos);
    }
    return (unsigned)n;
}

/* ---------------------------------------------------------------------------------------------
 * Measurement helpers
 * ------------------------------------------------------------------------------------------- */
static double time_batch(struct engine *e, const struct workload *w, int dir, uint64_t n,
                         unsigned *pos)
{
    const uint64_t t0 = run_ns();
    const unsigned bad = engine_run(e, w, dir, n, pos);
    const uint64_t dt = run_ns() - t0;
    if (bad) {
        char sz[24];
        die("%s: %u of %llu %s calls failed (%u-bit, %s bytes)", e->name, bad,
            (unsigned long long)n, dir_name[dir], w->bits, size_str(w->size, sz, sizeof sz));
    }
    return (double)dt;
}

/* Messages per batch so that one batch takes about |target_ns|. Also warms up. */
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
    char sz[24];
    size_str(w->size, sz, sizeof sz);
    unsigned pos = 0;
    for (unsigned j = 0; j < w->nslots; j++) {
        memset(w->out[j], 0xa5, w->len[j]);
        memset(w->otag[j], 0xa5, TAG_LEN);
    }
    if (engine_run(e, w, DIR_ENC, w->nslots, &pos) != 0) {
        die("%s: encrypt failed (%u-bit, %s bytes)", e->name, w->bits, sz);
    }
    for (unsigned j = 0; j < w->nslots; j++) {
        if (memcmp(w->out[j], w->ct[j], w->len[j]) != 0 ||
            memcmp(w->otag[j], w->tag[j], TAG_LEN) != 0) {
            die("%s: encrypt output differs from OpenSSL's reference (%u-bit, %s bytes, slot %u)",
                e->name, w->bits, sz, j);
        }
        memset(w->out[j], 0xa5, w->len[j]);
    }
    pos = 0;
    if (engine_run(e, w, DIR_DEC, w->nslots, &pos) != 0) {
        die("%s: decrypt rejected a valid message (%u-bit, %s bytes)", e->name, w->bits, sz);
    }
    for (unsigned j = 0; j < w->nslots; j++) {
        if (memcmp(w->out[j], w->pt[j], w->len[j]) != 0) {
            die("%s: decrypt output differs from the plaintext (%u-bit, %s bytes, slot %u)",
                e->name, w->bits, sz, j);
        }
    }
}

static void progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void progress(const char *fmt, ...)
{
    if (opt.quiet) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* ---------------------------------------------------------------------------------------------
 * Options
 * ------------------------------------------------------------------------------------------- */
static void usage(FILE *f)
{
    fputs(
        "usage: mbgcm-bench [options]\n"
        "modes\n"
        "  --mode LIST             tput,latency,threads (default tput)\n"
        "throughput (tput)\n"
        "  --sizes LIST            message sizes in bytes and/or 'imix' (7:4:1 of 64/594/1518)\n"
        "                          (default 16,64,256,512,1024,1420,4096,16384,imix)\n"
        "  --bits LIST             AES key sizes: 128,256 (default both)\n"
        "  --dirs LIST             enc,dec (default both)\n"
        "  --aad N                 AAD bytes per message, 0..64 (default 16)\n"
        "  --keys K                keys used round-robin (default 64)\n"
        "  --bufs B                message slots at varying addresses (default 64, >= K)\n"
        "  --reps N                repetitions per figure, median reported (default 7, >= 5)\n"
        "  --seconds-per-point S   measured seconds per figure, all reps (default 0.5)\n"
        "  --capped-share F        budget share of engines on portable C kernels (default 0.15)\n"
        "  --warmup S              warm-up seconds before measuring (default 0.5)\n"
        "  --quick                 --reps 5 --seconds-per-point 0.25 --warmup 0.3, short latency\n"
        "                          and threads runs\n"
        "  --engines LIST          only engines whose name contains one of these words\n"
        "                          (oneshot, ring, burst, generic, aesni, avx512, openssl,\n"
        "                          ipsec-mb)\n"
        "  --all-arches            also run mbgcm arches whose kernels equal another arch's\n"
        "  --lanes N, --queue N    manager lanes and ring size (default 0: the library's)\n"
        "  --burst N               jobs per mbgcm_submit_burst call (default 32)\n"
        "  --single-min-len N|off  managers send jobs of >= N bytes single-stream (internal\n"
        "                          hook; default: the arch's threshold, printed in the notes)\n"
        "latency\n"
        "  --lat-sizes LIST        (default 64,256: the short-job path and the lanes)\n"
        "  --lat-loads LIST        offered loads: > 1 messages/s, <= 1 fraction of the ring's\n"
        "                          capacity at that size (default 100000,0.25)\n"
        "  --lat-timeout-us T      flush_timeout_ns of the timed ring, in us (default 10)\n"
        "  --lat-seconds S         arrivals per run, in seconds (default 0.5)\n"
        "threads\n"
        "  --threads N             threads (default: CPUs this process may use)\n"
        "  --thr-sizes LIST        (default 64,1420,16384)\n"
        "  --thr-seconds S         seconds per measurement (default 0.3)\n"
        "  --thr-reps N            repetitions (default 5)\n"
        "general\n"
        "  --cpu N                 pin to CPU N (default: the CPU the process starts on)\n"
        "  --no-pin                do not pin\n"
        "  --csv FILE              throughput CSV; latency/threads CSV next to it\n"
        "  --label TEXT            printed in the header (e.g. the git revision)\n"
        "  --wall-clock            time throughput batches with CLOCK_MONOTONIC instead of the\n"
        "                          thread's CPU time (which ignores time spent descheduled)\n"
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

static unsigned parse_sizes(const char *s, size_t *out)
{
    unsigned n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == MAX_SIZES) {
            die("too many sizes in '%s'", s);
        }
        if (strcmp(t, "imix") == 0) {
            out[n++] = SIZE_IMIX;
            continue;
        }
        char *end;
        errno = 0;
        const unsigned long long v = strtoull(t, &end, 10);
        if (end == t || *end || errno || v > (1u << 30)) {
            die("bad size '%s' in '%s'", t, s);
        }
        out[n++] = (size_t)v;
    }
    free(copy);
    if (n == 0) {
        die("empty size list");
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

static void parse_options(int argc, char **argv)
{
    enum {
        O_SIZES = 256, O_BITS, O_DIRS, O_KEYS, O_BUFS, O_REPS, O_SECS, O_WARM, O_QUICK, O_ENG,
        O_ALL, O_CPU, O_NOPIN, O_CSV, O_QUIET, O_MODE, O_AAD, O_LANES, O_QUEUE, O_BURST,
        O_CAP, O_LATS, O_LATL, O_LATT, O_LATSEC, O_THR, O_THRS, O_THRSEC, O_THRREPS, O_LABEL,
        O_SINGLE, O_WALL
    };
    static const struct option longopts[] = {
        {"sizes", required_argument, NULL, O_SIZES},
        {"bits", required_argument, NULL, O_BITS},
        {"dirs", required_argument, NULL, O_DIRS},
        {"keys", required_argument, NULL, O_KEYS},
        {"bufs", required_argument, NULL, O_BUFS},
        {"reps", required_argument, NULL, O_REPS},
        {"seconds-per-point", required_argument, NULL, O_SECS},
        {"warmup", required_argument, NULL, O_WARM},
        {"quick", no_argument, NULL, O_QUICK},
        {"engines", required_argument, NULL, O_ENG},
        {"all-arches", no_argument, NULL, O_ALL},
        {"cpu", required_argument, NULL, O_CPU},
        {"no-pin", no_argument, NULL, O_NOPIN},
        {"csv", required_argument, NULL, O_CSV},
        {"quiet", no_argument, NULL, O_QUIET},
        {"mode", required_argument, NULL, O_MODE},
        {"aad", required_argument, NULL, O_AAD},
        {"lanes", required_argument, NULL, O_LANES},
        {"queue", required_argument, NULL, O_QUEUE},
        {"burst", required_argument, NULL, O_BURST},
        {"capped-share", required_argument, NULL, O_CAP},
        {"lat-sizes", required_argument, NULL, O_LATS},
        {"lat-loads", required_argument, NULL, O_LATL},
        {"lat-timeout-us", required_argument, NULL, O_LATT},
        {"lat-seconds", required_argument, NULL, O_LATSEC},
        {"threads", required_argument, NULL, O_THR},
        {"thr-sizes", required_argument, NULL, O_THRS},
        {"thr-seconds", required_argument, NULL, O_THRSEC},
        {"thr-reps", required_argument, NULL, O_THRREPS},
        {"label", required_argument, NULL, O_LABEL},
        {"single-min-len", required_argument, NULL, O_SINGLE},
        {"wall-clock", no_argument, NULL, O_WALL},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    static const size_t default_sizes[] = {16, 64, 256, 512, 1024, 1420, 4096, 16384, SIZE_IMIX};
    static const size_t default_lat_sizes[] = {64, 256};
    static const size_t default_thr_sizes[] = {64, 1420, 16384};
    double tmp[MAX_SIZES];
    int quick = 0, reps_set = 0, secs_set = 0, warm_set = 0, lats_set = 0, thrsec_set = 0;

    struct options *o = &opt;
    memset(o, 0, sizeof *o);
    o->modes = MODE_TPUT;
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
    o->aad_len = 16;
    o->burst = 32;
    o->seconds = 0.5;
    o->warmup = 0.5;
    o->capped_share = 0.15;
    o->cpu = -1;
    o->nlat_sizes = sizeof default_lat_sizes / sizeof default_lat_sizes[0];
    memcpy(o->lat_sizes, default_lat_sizes, sizeof default_lat_sizes);
    o->lat_loads[0] = 100000;
    o->lat_loads[1] = 0.25;
    o->nlat_loads = 2;
    o->lat_timeout_us = 10;
    o->lat_seconds = 0.5;
    o->nthr_sizes = sizeof default_thr_sizes / sizeof default_thr_sizes[0];
    memcpy(o->thr_sizes, default_thr_sizes, sizeof default_thr_sizes);
    o->thr_seconds = 0.3;
    o->thr_reps = 5;

    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case O_SIZES: o->nsizes = parse_sizes(optarg, o->sizes); break;
        case O_BITS:
            o->nbits = parse_list(optarg, tmp, 2, "bits");
            for (unsigned i = 0; i < o->nbits; i++) {
                if (tmp[i] != 128 && tmp[i] != 256) {
                    die("--bits takes 128 and/or 256");
                }
                o->bits[i] = (unsigned)tmp[i];
            }
            break;
        case O_DIRS: {
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
        case O_MODE: {
            o->modes = 0;
            char *copy = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (strcmp(t, "tput") == 0 || strcmp(t, "throughput") == 0) {
                    o->modes |= MODE_TPUT;
                } else if (strcmp(t, "latency") == 0 || strcmp(t, "lat") == 0) {
                    o->modes |= MODE_LAT;
                } else if (strcmp(t, "threads") == 0 || strcmp(t, "thr") == 0) {
                    o->modes |= MODE_THR;
                } else if (strcmp(t, "all") == 0) {
                    o->modes |= MODE_TPUT | MODE_LAT | MODE_THR;
                } else {
                    die("bad --mode '%s' (tput,latency,threads)", optarg);
                }
            }
            free(copy);
            if (o->modes == 0) {
                die("empty --mode");
            }
            break;
        }
        case O_KEYS: o->keys = (unsigned)parse_num(optarg, "--keys", 1, 65536); break;
        case O_BUFS: o->bufs = (unsigned)parse_num(optarg, "--bufs", 1, 65536); break;
        case O_AAD: o->aad_len = (unsigned)parse_num(optarg, "--aad", 0, MAX_AAD); break;
        case O_REPS: o->reps = (unsigned)parse_num(optarg, "--reps", 1, 1001); reps_set = 1; break;
        case O_SECS:
            o->seconds = parse_num(optarg, "--seconds-per-point", 1e-4, 3600);
            secs_set = 1;
            break;
        case O_WARM: o->warmup = parse_num(optarg, "--warmup", 0, 600); warm_set = 1; break;
        case O_CAP: o->capped_share = parse_num(optarg, "--capped-share", 0.001, 1); break;
        case O_QUICK: quick = 1; break;
        case O_ENG: o->engines = optarg; break;
        case O_ALL: o->all_arches = 1; break;
        case O_CPU: o->cpu = (int)parse_num(optarg, "--cpu", 0, CPU_SETSIZE - 1); break;
        case O_NOPIN: o->cpu = -2; break;
        case O_CSV: o->csv = optarg; break;
        case O_QUIET: o->quiet = 1; break;
        case O_LABEL: o->label = optarg; break;
        case O_WALL: bench_wall_clock = 1; break;
        case O_SINGLE:
            o->single_set = 1;
            o->single_min_len = strcmp(optarg, "off") == 0
                                    ? UINT64_MAX
                                    : (uint64_t)parse_num(optarg, "--single-min-len", 0, 1e15);
            break;
        case O_LANES: o->lanes = (unsigned)parse_num(optarg, "--lanes", 0, 16); break;
        case O_QUEUE: o->queue = (unsigned)parse_num(optarg, "--queue", 0, 65536); break;
        case O_BURST: o->burst = (unsigned)parse_num(optarg, "--burst", 1, MAX_BURST); break;
        case O_LATS:
            o->nlat_sizes = parse_sizes(optarg, o->lat_sizes);
            lats_set = 1;
            break;
        case O_LATL:
            o->nlat_loads = parse_list(optarg, o->lat_loads, 8, "--lat-loads");
            for (unsigned i = 0; i < o->nlat_loads; i++) {
                if (!(o->lat_loads[i] > 0)) {
                    die("--lat-loads: loads must be > 0");
                }
            }
            break;
        case O_LATT: o->lat_timeout_us = parse_num(optarg, "--lat-timeout-us", 0.001, 1e6); break;
        case O_LATSEC: o->lat_seconds = parse_num(optarg, "--lat-seconds", 0.01, 600); break;
        case O_THR: o->threads = (unsigned)parse_num(optarg, "--threads", 1, MAX_THREADS); break;
        case O_THRS: o->nthr_sizes = parse_sizes(optarg, o->thr_sizes); break;
        case O_THRSEC:
            o->thr_seconds = parse_num(optarg, "--thr-seconds", 0.01, 600);
            thrsec_set = 1;
            break;
        case O_THRREPS: o->thr_reps = (unsigned)parse_num(optarg, "--thr-reps", 1, 101); break;
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
            o->seconds = 0.25;
        }
        if (!warm_set) {
            o->warmup = 0.3;
        }
        if (!lats_set) {
            o->lat_seconds = 0.25;
        }
        if (!thrsec_set) {
            o->thr_seconds = 0.12;
        }
    }
    if (o->reps < 5) {
        fprintf(stderr, "mbgcm-bench: warning: --reps %u < 5: figures are not reliable\n", o->reps);
    }
}

static int engine_wanted(const char *name)
{
    if (opt.engines == NULL) {
        return 1;
    }
    char *copy = strdup(opt.engines), *save = NULL;
    int hit = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !hit; t = strtok_r(NULL, ",", &save)) {
        hit = strstr(name, t) != NULL;
    }
    free(copy);
    return hit;
}

/* ---------------------------------------------------------------------------------------------
 * Engine list: ring, burst, one-shot (best arch first), then the peers.
 * ------------------------------------------------------------------------------------------- */
static struct engine *add_engine(struct engine *eng, unsigned *ne, enum kind kind, int arch)
{
    if (*ne == MAX_ENGINES) {
        die("too many engines");
    }
    struct engine *e = &eng[(*ne)++];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->arch = arch;
    e->lane_arch = arch;
    e->is_mbgcm = kind == K_ONESHOT || kind == K_RING || kind == K_BURST;
    return e;
}

static unsigned build_engines(struct engine *eng)
{
    unsigned ne = 0;
    /* managers: one per distinct lane machinery (kernel + short kernel) unless --all-arches */
    for (int kind = K_RING; kind <= K_BURST; kind++) {
        for (int a = MBGCMI_ARCH_COUNT - 1; a >= 0; a--) {
            if (!mbgcmi_arch_supported(a)) {
                continue;
            }
            const struct mbgcmi_lane_ops *ops = mbgcmi_lane_ops_for(a);
            int same = -1; /* lowest supported arch with the same lane machinery */
            for (int b = 0; b < a; b++) {
                const struct mbgcmi_lane_ops *ob = mbgcmi_lane_ops_for(b);
                if (mbgcmi_arch_supported(b) && ob->kernel == ops->kernel &&
                    ob->short_kernel == ops->short_kernel) {
                    same = b;
                    break;
                }
            }
            struct engine *e = add_engine(eng, &ne, (enum kind)kind, a);
            e->lane_arch = ops->arch;
            const char *api = kind == K_RING ? "ring" : "burst";
            if (ops->arch == a) {
                snprintf(e->name, sizeof e->name, "mbgcm-%s-%s", api, mbgcmi_arch_name(a));
            } else {
                snprintf(e->name, sizeof e->name, "mbgcm-%s-%s(%s)", api,
                         mbgcmi_arch_name(ops->arch), mbgcmi_arch_name(a));
                snprintf(e->note, sizeof e->note,
                         "manager arch %s runs the %s lane kernel today", mbgcmi_arch_name(a),
                         ops->arch == MBGCMI_ARCH_GENERIC ? "portable C"
                                                          : mbgcmi_arch_name(ops->arch));
            }
            e->capped = ops->arch == MBGCMI_ARCH_GENERIC;
            e->selected = engine_wanted(e->name);
            e->dup = same >= 0;
            const uint64_t thr = opt.single_set ? opt.single_min_len : ops->single_min_len;
            if (thr != UINT64_MAX) {
                snprintf(e->note + strlen(e->note), sizeof e->note - strlen(e->note),
                         "%sjobs of %llu bytes or more run single-stream (%s)",
                         e->note[0] ? "; " : "", (unsigned long long)thr,
                         opt.single_set ? "--single-min-len" : "the manager's default");
            }
            if (same >= 0 && !opt.all_arches) {
                snprintf(e->note + strlen(e->note), sizeof e->note - strlen(e->note),
                         "%ssame lane kernels as manager arch %s: not re-run "
                         "(--all-arches runs it)",
                         e->note[0] ? "; " : "", mbgcmi_arch_name(same));
                e->selected = 0;
            }
        }
    }
    for (int a = MBGCMI_ARCH_COUNT - 1; a >= 0; a--) {
        if (!mbgcmi_arch_supported(a)) {
            continue;
        }
        const struct mbgcmi_gcm_ops *ops = mbgcmi_gcm_ops_for(a);
        int same = -1;
        for (int b = 0; b < a; b++) {
            if (mbgcmi_arch_supported(b) && mbgcmi_gcm_ops_for(b) == ops) {
                same = b;
                break;
            }
        }
        struct engine *e = add_engine(eng, &ne, K_ONESHOT, a);
        snprintf(e->name, sizeof e->name, "mbgcm-oneshot-%s", mbgcmi_arch_name(a));
        e->capped = a == MBGCMI_ARCH_GENERIC;
        e->selected = engine_wanted(e->name);
        e->dup = same >= 0;
        if (same >= 0 && !opt.all_arches) {
            snprintf(e->note, sizeof e->note,
                     "same one-shot kernels as mbgcm-oneshot-%s: not re-run (--all-arches runs it)",
                     mbgcmi_arch_name(same));
            e->selected = 0;
        }
    }
    struct engine *e = add_engine(eng, &ne, K_IMB_DIRECT, -1);
    snprintf(e->name, sizeof e->name, "ipsec-mb-direct");
    e->selected = engine_wanted(e->name);
    e = add_engine(eng, &ne, K_IMB_JOB, -1);
    snprintf(e->name, sizeof e->name, "ipsec-mb-job");
    e->selected = engine_wanted(e->name);
    e = add_engine(eng, &ne, K_EVP, -1);
    snprintf(e->name, sizeof e->name, "openssl-evp");
    e->selected = engine_wanted(e->name);
    return ne;
}

/* The engine of |kind| with the fastest kernels: the highest arch among those that are not
   a duplicate of a lower arch's kernels (so the name is what runs), or NULL. */
static const struct engine *best_of_kind(const struct engine *eng, unsigned ne, enum kind kind)
{
    const struct engine *best = NULL;
    for (unsigned i = 0; i < ne; i++) {
        if (eng[i].kind == kind && !eng[i].dup && (best == NULL || eng[i].arch > best->arch)) {
            best = &eng[i];
        }
    }
    return best;
}

/* ---------------------------------------------------------------------------------------------
 * Throughput mode
 * ------------------------------------------------------------------------------------------- */
struct figure {
    double med, min, max; /* ns per message */
    double ghz;           /* core clock for this point */
    double avg_len;       /* mean bytes per message */
    uint64_t n;           /* messages per repetition */
    int valid;
};

struct tput {
    struct figure *fig;
    unsigned ne;
};
#define FIG(T, b, d, s, e) \
    (T)->fig[((((size_t)(b) * (unsigned)opt.ndirs + (d)) * opt.nsizes + (s)) * (T)->ne) + (e)]

static double best_peer_ns(const struct tput *T, const struct engine *eng, unsigned bi, int di,
                           unsigned si, int *which)
{
    double peer = 0;
    for (unsigned i = 0; i < T->ne; i++) {
        const struct figure *f = &FIG(T, bi, di, si, i);
        if (!eng[i].is_mbgcm && f->valid && (peer == 0 || f->med < peer)) {
            peer = f->med;
            if (which) {
                *which = (int)i;
            }
        }
    }
    return peer;
}

static void run_tput(struct engine *eng, unsigned ne, struct workload *w, FILE *csv)
{
    unsigned nsel = 0;
    for (unsigned i = 0; i < ne; i++) {
        nsel += eng[i].selected;
    }
    if (nsel == 0) {
        die("no engine selected");
    }
    /* ---- warm-up on the first selected engine not capped, then the clock ---- */
    struct engine *warm = NULL;
    for (unsigned i = 0; i < ne && warm == NULL; i++) {
        if (eng[i].selected && !eng[i].capped) {
            warm = &eng[i];
        }
    }
    for (unsigned i = 0; i < ne && warm == NULL; i++) {
        if (eng[i].selected) {
            warm = &eng[i];
        }
    }
    workload_point(w, opt.bits[0], opt.sizes[0] == SIZE_IMIX ? 1024 : opt.sizes[0]);
    engine_setup(warm, w);
    {
        unsigned pos = 0;
        const uint64_t t_end = now_ns() + (uint64_t)(opt.warmup * 1e9);
        do {
            (void)time_batch(warm, w, DIR_ENC, 64, &pos);
        } while (now_ns() < t_end);
    }
    const double ghz_start = measure_ghz(5, 4.0);
    progress("mbgcm-bench: core clock %.2f GHz after %.1f s warm-up\n", ghz_start, opt.warmup);

    struct tput T;
    T.ne = ne;
    const unsigned npoints = opt.nbits * opt.nsizes * (unsigned)opt.ndirs;
    T.fig = calloc((size_t)npoints * ne, sizeof *T.fig);
    double *samples = calloc((size_t)opt.reps * ne, sizeof *samples);
    double *ghz_all = calloc(npoints + 1, sizeof *ghz_all);
    if (T.fig == NULL || samples == NULL || ghz_all == NULL) {
        die("out of memory");
    }
    unsigned done = 0, nghz = 0;
    const uint64_t t_start = now_ns();
    double ghz_prev = ghz_start;
    ghz_all[nghz++] = ghz_start;
    char sz[24];
    for (unsigned bi = 0; bi < opt.nbits; bi++) {
        for (unsigned si = 0; si < opt.nsizes; si++) {
            workload_point(w, opt.bits[bi], opt.sizes[si]);
            for (unsigned i = 0; i < ne; i++) {
                if (eng[i].selected) {
                    engine_setup(&eng[i], w);
                    verify(&eng[i], w);
                }
            }
            for (int di = 0; di < opt.ndirs; di++) {
                const int dir = opt.dirs[di];
                uint64_t n[MAX_ENGINES] = {0};
                unsigned pos[MAX_ENGINES] = {0};
                for (unsigned i = 0; i < ne; i++) {
                    if (eng[i].selected) {
                        const double share = eng[i].capped ? opt.capped_share : 1.0;
                        n[i] = calibrate(&eng[i], w, dir, opt.seconds * share / opt.reps * 1e9,
                                         &pos[i]);
                    }
                }
                for (unsigned r = 0; r < opt.reps; r++) { /* interleaved: A B C A B C ... */
                    for (unsigned i = 0; i < ne; i++) {
                        if (eng[i].selected) {
                            samples[i * opt.reps + r] =
                                time_batch(&eng[i], w, dir, n[i], &pos[i]) / (double)n[i];
                        }
                    }
                }
                const double ghz_now = measure_ghz(3, 2.0);
                ghz_all[nghz++] = ghz_now;
                for (unsigned i = 0; i < ne; i++) {
                    if (!eng[i].selected) {
                        continue;
                    }
                    struct figure *f = &FIG(&T, bi, di, si, i);
                    double *v = &samples[i * opt.reps];
                    f->med = median(v, opt.reps);
                    f->min = v[0];
                    f->max = v[opt.reps - 1];
                    f->ghz = 0.5 * (ghz_prev + ghz_now);
                    f->avg_len = w->avg_len;
                    f->n = n[i];
                    f->valid = 1;
                }
                ghz_prev = ghz_now;
                done++;
                if (!opt.quiet) {
                    const double el = (double)(now_ns() - t_start) * 1e-9;
                    fprintf(stderr, "[%2u/%u] AES-%u %s %5s B:", done, npoints, w->bits,
                            dir_short[dir], size_str(w->size, sz, sizeof sz));
                    for (unsigned i = 0; i < ne; i++) {
                        if (eng[i].selected) {
                            fprintf(stderr, " %s %.0f", eng[i].name + (eng[i].is_mbgcm ? 6 : 0),
                                    FIG(&T, bi, di, si, i).med);
                        }
                    }
                    fprintf(stderr, " ns (%.0f s, ~%.0f s left)\n", el,
                            el / done * (npoints - done));
                }
            }
        }
    }
    const double ghz_end = ghz_prev;
    const double ghz_med = median(ghz_all, nghz);

    /* ---- table ---- */
    unsigned nwarn = 0;
    printf("\n== Throughput (one thread) ==\n");
    printf("core clock (dependent-add loop): median %.2f GHz over %u measurements; start %.2f, "
           "end %.2f\n",
           ghz_med, nghz, ghz_start, ghz_end);
    printf("ns/msg: median of %u reps [min .. max] of the thread's %s time; GB/s = bytes / ns; "
           "cyc/B in core cycles;\nratio = best peer ns / mbgcm ns (> 1: mbgcm faster); "
           "'!' = (max-min)/median > %.0f%%\n",
           opt.reps, bench_wall_clock ? "wall-clock" : "CPU", SPREAD_WARN * 100);
    for (unsigned bi = 0; bi < opt.nbits; bi++) {
        for (int di = 0; di < opt.ndirs; di++) {
            printf("\nAES-%u-GCM %s\n", opt.bits[bi], dir_name[opt.dirs[di]]);
            printf("  %6s  %-26s %10s  %-21s %7s %7s %7s\n", "bytes", "engine", "ns/msg",
                   "[min .. max]", "GB/s", "cyc/B", "ratio");
            for (unsigned si = 0; si < opt.nsizes; si++) {
                const double peer = best_peer_ns(&T, eng, bi, di, si, NULL);
                for (unsigned i = 0; i < ne; i++) {
                    const struct figure *f = &FIG(&T, bi, di, si, i);
                    if (!f->valid) {
                        continue;
                    }
                    const int warn = (f->max - f->min) / f->med > SPREAD_WARN;
                    nwarn += warn;
                    char range[64], ratio[16] = "";
                    snprintf(range, sizeof range, "[%.1f .. %.1f]", f->min, f->max);
                    if (eng[i].is_mbgcm && peer > 0) {
                        snprintf(ratio, sizeof ratio, "%.2fx", peer / f->med);
                    }
                    char cpb[24] = "-"; /* cycles per byte: undefined for empty messages */
                    if (f->avg_len > 0) {
                        snprintf(cpb, sizeof cpb, "%.2f", f->med * f->ghz / f->avg_len);
                    }
                    printf("  %6s  %-26s %10.1f  %-21s %7.2f %7s %7s%s\n",
                           size_str(opt.sizes[si], sz, sizeof sz), eng[i].name, f->med, range,
                           f->avg_len / f->med, cpb, ratio, warn ? " !" : "");
                }
            }
        }
    }

    /* ---- summary: best mbgcm engine vs best peer ---- */
    printf("\nSummary: best mbgcm engine vs best peer (GB/s; ratio > 1: mbgcm faster)\n");
    printf("  %-7s %-4s %6s  %-26s %7s  %-16s %7s %7s\n", "AES", "dir", "bytes", "mbgcm best",
           "GB/s", "peer best", "GB/s", "ratio");
    for (unsigned bi = 0; bi < opt.nbits; bi++) {
        for (int di = 0; di < opt.ndirs; di++) {
            for (unsigned si = 0; si < opt.nsizes; si++) {
                int bm = -1, bp = -1;
                for (unsigned i = 0; i < ne; i++) {
                    const struct figure *f = &FIG(&T, bi, di, si, i);
                    if (!f->valid) {
                        continue;
                    }
                    int *best = eng[i].is_mbgcm ? &bm : &bp;
                    if (*best < 0 || f->med < FIG(&T, bi, di, si, *best).med) {
                        *best = (int)i;
                    }
                }
                if (bm < 0 || bp < 0) {
                    continue;
                }
                const struct figure *m = &FIG(&T, bi, di, si, bm), *p = &FIG(&T, bi, di, si, bp);
                printf("  AES-%-3u %-4s %6s  %-26s %7.2f  %-16s %7.2f %6.2fx\n", opt.bits[bi],
                       dir_short[opt.dirs[di]], size_str(opt.sizes[si], sz, sizeof sz),
                       eng[bm].name, m->avg_len / m->med, eng[bp].name, p->avg_len / p->med,
                       p->med / m->med);
            }
        }
    }

    /* ---- DESIGN section 6: ring API, AES-256 encrypt, vs ipsec-mb direct ---- */
    {
        static const size_t tsz[4] = {64, 256, 1420, 16384};
        static const double target[4] = {3.7, 2.1, 2.0, 1.5};
        int b256 = -1, denc = -1, iring = -1, iburst = -1, iimb = -1;
        for (unsigned bi = 0; bi < opt.nbits; bi++) {
            b256 = opt.bits[bi] == 256 ? (int)bi : b256;
        }
        for (int di = 0; di < opt.ndirs; di++) {
            denc = opt.dirs[di] == DIR_ENC ? di : denc;
        }
        for (unsigned i = 0; i < ne; i++) {
            if (!eng[i].selected) {
                continue;
            }
            if (eng[i].kind == K_RING && (iring < 0 || eng[i].lane_arch > eng[iring].lane_arch)) {
                iring = (int)i;
            }
            if (eng[i].kind == K_BURST &&
                (iburst < 0 || eng[i].lane_arch > eng[iburst].lane_arch)) {
                iburst = (int)i;
            }
            if (eng[i].kind == K_IMB_DIRECT) {
                iimb = (int)i;
            }
        }
        if (b256 >= 0 && denc >= 0 && iring >= 0 && iimb >= 0) {
            int header = 0;
            for (int t = 0; t < 4; t++) {
                for (unsigned si = 0; si < opt.nsizes; si++) {
                    if (opt.sizes[si] != tsz[t]) {
                        continue;
                    }
                    if (!header) {
                        printf("\nDESIGN section 6 targets (AES-256 encrypt, %u keys): ring API "
                               "vs ipsec-mb direct API\n", opt.keys);
                        printf("  %6s %-26s %9s %9s %9s %8s %8s %8s\n", "bytes", "ring engine",
                               "ring ns", "burst ns", "imb ns", "ring x", "burst x", "target");
                        header = 1;
                    }
                    const double r = FIG(&T, b256, denc, si, iring).med;
                    const double p = FIG(&T, b256, denc, si, iimb).med;
                    const double b = iburst >= 0 ? FIG(&T, b256, denc, si, iburst).med : 0;
                    char bns[24] = "-", bx[24] = "-";
                    if (b > 0) {
                        snprintf(bns, sizeof bns, "%.1f", b);
                        snprintf(bx, sizeof bx, "%.2fx", p / b);
                    }
                    printf("  %6zu %-26s %9.1f %9s %9.1f %7.2fx %8s %7.1fx%s\n", tsz[t],
                           eng[iring].name, r, bns, p, p / r, bx, target[t],
                           p / r >= target[t] ? "  met" : "");
                }
            }
        }
    }
    if (nwarn) {
        printf("\nwarning: %u figure(s) marked '!' vary by more than %.0f%% between repetitions "
               "(noisy machine?): rerun or raise --reps/--seconds-per-point\n",
               nwarn, SPREAD_WARN * 100);
    }
    if (ghz_start > 0 && fabs(ghz_end - ghz_start) / ghz_start > 0.05) {
        printf("warning: core clock drifted from %.2f to %.2f GHz during the run\n", ghz_start,
               ghz_end);
    }
    printf("throughput measuring time %.1f s\n", (double)(now_ns() - t_start) * 1e-9);

    /* ---- CSV ---- */
    if (csv) {
        fprintf(csv, "aes_bits,direction,bytes,avg_bytes,engine,api,arch,reps,msgs_per_rep,"
                     "ns_median,ns_min,ns_max,spread_pct,gb_per_s,cycles_per_byte,core_ghz,"
                     "ratio_vs_best_peer,best_peer\n");
        for (unsigned bi = 0; bi < opt.nbits; bi++) {
            for (int di = 0; di < opt.ndirs; di++) {
                for (unsigned si = 0; si < opt.nsizes; si++) {
                    int wp = -1;
                    const double peer = best_peer_ns(&T, eng, bi, di, si, &wp);
                    for (unsigned i = 0; i < ne; i++) {
                        const struct figure *g = &FIG(&T, bi, di, si, i);
                        if (!g->valid) {
                            continue;
                        }
                        fprintf(csv, "%u,%s,%s,%.2f,%s,%s,%s,%u,%llu,%.2f,%.2f,%.2f,%.1f,%.4f,",
                                opt.bits[bi], dir_short[opt.dirs[di]],
                                size_str(opt.sizes[si], sz, sizeof sz), g->avg_len, eng[i].name,
                                kind_api[eng[i].kind],
                                eng[i].is_mbgcm ? mbgcmi_arch_name(eng[i].lane_arch) : "",
                                opt.reps, (unsigned long long)g->n, g->med, g->min, g->max,
                                100.0 * (g->max - g->min) / g->med, g->avg_len / g->med);
                        if (g->avg_len > 0) {
                            fprintf(csv, "%.4f", g->med * g->ghz / g->avg_len);
                        }
                        fprintf(csv, ",%.3f,", g->ghz);
                        if (eng[i].is_mbgcm && peer > 0) {
                            fprintf(csv, "%.3f,%s", peer / g->med, eng[wp].name);
                        } else {
                            fputc(',', csv);
                        }
                        fputc('\n', csv);
                    }
                }
            }
        }
    }
    free(T.fig);
    free(samples);
    free(ghz_all);
}
#undef FIG

/* ---------------------------------------------------------------------------------------------
 * Latency mode
 * ------------------------------------------------------------------------------------------- */
struct lat_result {
    double offered;      /* messages per second */
    double achieved;     /* messages per second */
    double p50, p99, p999, max, mean; /* ns, submit to completion */
    double lag_p99;      /* ns between a message being due and being submitted */
    double lanes_per_call;
    uint64_t n, runs_timeout, kernel_calls;
    int truncated;       /* the engine could not keep up: arrivals stopped early */
};

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double pct(const uint64_t *sorted, uint64_t n, double p)
{
    if (n == 0) {
        return 0;
    }
    const double x = p * (double)(n - 1);
    const uint64_t i = (uint64_t)x;
    return i + 1 < n ? (double)sorted[i] + (x - (double)i) * (double)(sorted[i + 1] - sorted[i])
                     : (double)sorted[n - 1];
}

/* One latency run of |e| (already set up for |w|) at |rate| messages/s for |seconds|. */
static void lat_run(struct engine *e, struct workload *w, double rate, double seconds,
                    struct lat_result *r)
{
    memset(r, 0, sizeof *r);
    uint64_t total = (uint64_t)(rate * seconds);
    total = total < 200 ? 200 : total > 4000000 ? 4000000 : total;
    uint64_t *arr = malloc(total * sizeof *arr);
    uint64_t *tsub = malloc(total * sizeof *tsub);
    uint64_t *lat = malloc(total * sizeof *lat);
    uint64_t *lag = malloc(total * sizeof *lag);
    if (!arr || !tsub || !lat || !lag) {
        die("out of memory");
    }
    uint64_t rs = 0x853c49e6748fea9bu ^ (uint64_t)(rate * 1000);
    double t = 0;
    for (uint64_t i = 0; i < total; i++) {
        const double u = ((double)(rng_next(&rs) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
        t += -log(u) / rate * 1e9;
        arr[i] = (uint64_t)t;
    }
    const uint64_t limit = (uint64_t)(3 * seconds * 1e9) + 100000000u; /* give up when overloaded */
    struct estate *s = e->st;
    unsigned bad = 0;
    uint64_t next = 0, ndone = 0, t_last = 0;
    const uint64_t t0 = now_ns() + 1000000;
    while (now_ns() < t0) {
    }

#define RECORD(idx, tc)                               \
    do {                                              \
        lat[idx] = (tc) - tsub[idx];                  \
        ndone++;                                      \
        t_last = (tc);                                \
    } while (0)

    if (e->kind == K_RING) {
        mbgcm_mgr *m = s->mgr;
        mbgcm_job *c;
        while (ndone < total) {
            const uint64_t now = now_ns();
            if (next < total && now >= t0 + arr[next]) {
                if (now - t0 > limit) {
                    total = next; /* overloaded: stop the arrivals, drain */
                    r->truncated = 1;
                    continue;
                }
                const unsigned j = (unsigned)(next % w->nslots);
                mbgcm_job *job = mbgcm_get_next_job(m);
                fill_job(job, s, w, DIR_ENC, j);
                job->user_data = (void *)(uintptr_t)next;
                lag[next] = now - (t0 + arr[next]);
                tsub[next] = now;
                next++;
                c = mbgcm_submit_job(m);
                if (c != NULL) {
                    const uint64_t tc = now_ns();
                    do {
                        bad += c->status != MBGCM_OK;
                        RECORD((uintptr_t)c->user_data, tc);
                    } while ((c = mbgcm_get_completed_job(m)) != NULL);
                }
            } else {
                /* idle: the poll runs jobs older than the timeout; after the last arrival a
                   manager without timeout is flushed */
                c = (next == total && e->timeout_ns == 0) ? mbgcm_flush_job(m) : mbgcm_mgr_poll(m);
                if (c != NULL) {
                    const uint64_t tc = now_ns();
                    do {
                        bad += c->status != MBGCM_OK;
                        RECORD((uintptr_t)c->user_data, tc);
                    } while ((c = mbgcm_get_completed_job(m)) != NULL);
                }
            }
        }
        mbgcm_stats st;
        mbgcm_mgr_stats(m, &st);
        uint64_t calls = 0, lanes = 0;
        for (int i = 0; i < 4; i++) {
            calls += st.kernel_calls[i];
            lanes += (uint64_t)(i + 1) * st.kernel_calls[i];
        }
        r->kernel_calls = calls;
        r->lanes_per_call = calls ? (double)lanes / (double)calls : 0;
        r->runs_timeout = st.runs_timeout;
    } else if (e->kind == K_IMB_JOB) {
        IMB_MGR *m = s->imb;
        IMB_JOB *c;
        while (ndone < total) {
            const uint64_t now = now_ns();
            if (next < total && now >= t0 + arr[next]) {
                if (now - t0 > limit) {
                    total = next;
                    r->truncated = 1;
                    continue;
                }
                const unsigned j = (unsigned)(next % w->nslots);
                IMB_JOB *job = IMB_GET_NEXT_JOB(m);
                imb_fill(job, s, w, DIR_ENC, j);
                job->user_data = (void *)(uintptr_t)next;
                lag[next] = now - (t0 + arr[next]);
                tsub[next] = now;
                next++;
                c = IMB_SUBMIT_JOB(m);
                if (c != NULL) {
                    const uint64_t tc = now_ns();
                    do {
                        bad += c->status != IMB_STATUS_COMPLETED;
                        RECORD((uintptr_t)c->user_data, tc);
                    } while ((c = IMB_GET_COMPLETED_JOB(m)) != NULL);
                }
            } else {
                /* idle: take what is complete; after the last arrival, flush */
                c = next == total ? IMB_FLUSH_JOB(m) : IMB_GET_COMPLETED_JOB(m);
                if (c != NULL) {
                    const uint64_t tc = now_ns();
                    do {
                        bad += c->status != IMB_STATUS_COMPLETED;
                        RECORD((uintptr_t)c->user_data, tc);
                    } while ((c = IMB_GET_COMPLETED_JOB(m)) != NULL);
                }
            }
        }
    } else { /* synchronous engines: done when the call returns */
        while (next < total) {
            const uint64_t now = now_ns();
            if (now < t0 + arr[next]) {
                continue;
            }
            if (now - t0 > limit) {
                total = next;
                r->truncated = 1;
                break;
            }
            unsigned pos = (unsigned)(next % w->nslots);
            lag[next] = now - (t0 + arr[next]);
            tsub[next] = now;
            bad += engine_run(e, w, DIR_ENC, 1, &pos);
            const uint64_t tc = now_ns();
            RECORD(next, tc);
            next++;
        }
    }
#undef RECORD
    if (bad) {
        die("%s: %u messages failed in the latency run", e->name, bad);
    }
    const uint64_t n = total;
    double sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        sum += (double)lat[i];
    }
    qsort(lat, n, sizeof *lat, cmp_u64);
    qsort(lag, n, sizeof *lag, cmp_u64);
    r->n = n;
    r->offered = rate;
    r->achieved = t_last > t0 ? (double)n / ((double)(t_last - t0) * 1e-9) : 0;
    r->p50 = pct(lat, n, 0.5);
    r->p99 = pct(lat, n, 0.99);
    r->p999 = pct(lat, n, 0.999);
    r->max = n ? (double)lat[n - 1] : 0;
    r->mean = n ? sum / (double)n : 0;
    r->lag_p99 = pct(lag, n, 0.99);
    free(arr);
    free(tsub);
    free(lat);
    free(lag);
}

static void fmt_ns(double ns, char *buf, size_t n)
{
    if (ns >= 1e6) {
        snprintf(buf, n, "%.2f ms", ns * 1e-6);
    } else if (ns >= 1e4) {
        snprintf(buf, n, "%.1f us", ns * 1e-3);
    } else {
        snprintf(buf, n, "%.0f ns", ns);
    }
}

static void run_latency(const struct engine *eng, unsigned ne, struct workload *w, FILE *csv)
{
    const struct engine *ring = best_of_kind(eng, ne, K_RING);
    const struct engine *one = best_of_kind(eng, ne, K_ONESHOT);
    if (ring == NULL) {
        die("latency mode needs a manager arch");
    }
    /* the engines of this mode: the ring without and with timeout, and synchronous peers */
    struct engine le[5];
    unsigned nle = 0;
    const uint64_t tmo = (uint64_t)(opt.lat_timeout_us * 1000 + 0.5);
    le[nle] = *ring;
    le[nle].st = NULL;
    le[nle].timeout_ns = 0;
    snprintf(le[nle].name, sizeof le[nle].name, "%s", ring->name);
    nle++;
    le[nle] = *ring;
    le[nle].st = NULL;
    le[nle].timeout_ns = tmo;
    snprintf(le[nle].name, sizeof le[nle].name, "%s", ring->name);
    nle++;
    if (one) {
        le[nle] = *one;
        le[nle].st = NULL;
        nle++;
    }
    for (unsigned i = 0; i < ne; i++) {
        if (eng[i].kind == K_IMB_DIRECT || eng[i].kind == K_IMB_JOB) {
            le[nle] = eng[i];
            le[nle].st = NULL;
            nle++;
        }
    }
    for (unsigned i = 0; i < nle; i++) {
        le[i].selected = engine_wanted(le[i].name);
    }

    printf("\n== Latency (AES-256 encrypt, one thread, Poisson arrivals, %u keys) ==\n", opt.keys);
    printf("submit-to-completion time; load: offered messages/s (%% of the ring's one-thread "
           "capacity at that size);\nring: flush_timeout_ns 0 (lanes run when full, or at the "
           "final flush) or %.0f us (submit and mbgcm_mgr_poll run jobs older than that);\n"
           "lanes/call = busy lanes per kernel call; synchronous engines complete in the call; "
           "lag p99: how late\nthe thread submitted due messages (not in the latency: large "
           "values mean it was descheduled or busy);\n'overloaded': it completed < 95%% of the "
           "offered messages/s.\n",
           opt.lat_timeout_us);
    printf("  %6s %-17s %-20s %7s %9s %9s %9s %9s %9s %8s %6s\n", "bytes", "load", "engine",
           "timeout", "p50", "p99", "p99.9", "max", "lag p99", "Mmsg/s", "lanes");
    double worst_lag = 0;
    if (csv) {
        fprintf(csv, "bytes,avg_bytes,offered_msgs_per_s,load_of_capacity,engine,timeout_ns,msgs,"
                     "p50_ns,p99_ns,p999_ns,max_ns,mean_ns,arrival_lag_p99_ns,achieved_msgs_per_s,"
                     "gb_per_s,lanes_per_kernel_call,runs_timeout,truncated\n");
    }
    char sz[24];
    for (unsigned si = 0; si < opt.nlat_sizes; si++) {
        workload_point(w, 256, opt.lat_sizes[si]);
        /* capacity of the ring without timeout, closed loop */
        struct engine cap = le[0];
        cap.st = NULL;
        engine_setup(&cap, w);
        verify(&cap, w);
        unsigned pos = 0;
        const uint64_t nb = calibrate(&cap, w, DIR_ENC, 0.04e9, &pos);
        double cs[5];
        for (int r = 0; r < 5; r++) {
            cs[r] = time_batch(&cap, w, DIR_ENC, nb, &pos) / (double)nb;
        }
        const double cap_ns = median(cs, 5);
        engine_teardown(&cap);
        const double capacity = 1e9 / cap_ns;
        for (unsigned li = 0; li < opt.nlat_loads; li++) {
            const double rate =
                opt.lat_loads[li] > 1 ? opt.lat_loads[li] : opt.lat_loads[li] * capacity;
            char load[40];
            snprintf(load, sizeof load, "%.3gM/s %.2g%%", rate * 1e-6, 100 * rate / capacity);
            for (unsigned i = 0; i < nle; i++) {
                if (!le[i].selected) {
                    continue;
                }
                struct engine e = le[i];
                e.st = NULL;
                engine_setup(&e, w);
                verify(&e, w);
                struct lat_result r;
                lat_run(&e, w, rate, opt.lat_seconds, &r);
                engine_teardown(&e);
                progress("latency %s B, %s, %s timeout %llu ns: p50 %.0f p99 %.0f ns\n",
                         size_str(w->size, sz, sizeof sz), load, e.name,
                         (unsigned long long)e.timeout_ns, r.p50, r.p99);
                char a[24], b[24], c[24], d[24], lg[24], t[24] = "-", lpc[24] = "-";
                fmt_ns(r.lag_p99, lg, sizeof lg);
                worst_lag = r.lag_p99 > worst_lag ? r.lag_p99 : worst_lag;
                fmt_ns(r.p50, a, sizeof a);
                fmt_ns(r.p99, b, sizeof b);
                fmt_ns(r.p999, c, sizeof c);
                fmt_ns(r.max, d, sizeof d);
                if (e.kind == K_RING) {
                    if (e.timeout_ns) {
                        fmt_ns((double)e.timeout_ns, t, sizeof t);
                    } else {
                        snprintf(t, sizeof t, "0");
                    }
                    snprintf(lpc, sizeof lpc, "%.2f", r.lanes_per_call);
                }
                printf("  %6s %-17s %-20s %7s %9s %9s %9s %9s %9s %8.3f %6s%s\n",
                       size_str(w->size, sz, sizeof sz), load, e.name, t, a, b, c, d, lg,
                       r.achieved * 1e-6, lpc,
                       r.truncated || r.achieved < 0.95 * rate ? "  overloaded" : "");
                if (csv) {
                    fprintf(csv, "%s,%.2f,%.0f,%.4f,%s,%llu,%llu,%.0f,%.0f,%.0f,%.0f,%.1f,"
                                 "%.0f,%.0f,%.4f,%.3f,%llu,%d\n",
                            size_str(w->size, sz, sizeof sz), w->avg_len, rate, rate / capacity,
                            e.name, (unsigned long long)e.timeout_ns, (unsigned long long)r.n,
                            r.p50, r.p99, r.p999, r.max, r.mean, r.lag_p99, r.achieved,
                            r.achieved * w->avg_len * 1e-9, r.lanes_per_call,
                            (unsigned long long)r.runs_timeout, r.truncated);
                }
            }
        }
    }
    if (worst_lag > 20000) {
        char lg[24];
        fmt_ns(worst_lag, lg, sizeof lg);
        printf("warning: the benchmark thread fell up to %s behind the arrivals (lag p99): it was "
               "descheduled or overloaded,\nso tails (p99.9, max) show the scheduler, not the "
               "engines; rerun on a quiet machine\n", lg);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Threads mode
 * ------------------------------------------------------------------------------------------- */
struct thr_shared {
    pthread_barrier_t ready;
    atomic_int stop;
    size_t size;
};

struct thr_arg {
    struct thr_shared *sh;
    struct engine tmpl;
    int cpu;
    unsigned index;
    double rate_bytes; /* result: bytes per second */
    double rate_msgs;
};

static void *thr_main(void *p)
{
    struct thr_arg *a = p;
    if (a->cpu >= 0) {
        (void)pin_to(a->cpu);
    }
    struct workload w;
    workload_init(&w, opt.keys, opt.bufs, a->sh->size == SIZE_IMIX ? IMIX_MAX : a->sh->size,
                  opt.aad_len, 0x9e3779b97f4a7c15u + a->index);
    workload_point(&w, 256, a->sh->size);
    struct engine e = a->tmpl;
    e.st = NULL;
    engine_setup(&e, &w);
    verify(&e, &w);
    unsigned pos = 0;
    const uint64_t n = calibrate(&e, &w, DIR_ENC, 2e6, &pos); /* ~2 ms batches */
    pthread_barrier_wait(&a->sh->ready);
    uint64_t msgs = 0;
    const uint64_t t0 = now_ns();
    do {
        (void)time_batch(&e, &w, DIR_ENC, n, &pos);
        msgs += n;
    } while (!atomic_load_explicit(&a->sh->stop, memory_order_relaxed));
    const double dt = (double)(now_ns() - t0) * 1e-9;
    a->rate_msgs = (double)msgs / dt;
    a->rate_bytes = a->rate_msgs * w.avg_len;
    engine_teardown(&e);
    workload_free(&w);
    return NULL;
}

/* Aggregate bytes/s of |nthr| threads running |tmpl| at |size|. */
static double thr_measure(const struct engine *tmpl, size_t size, unsigned nthr, const int *cpus,
                          unsigned ncpus)
{
    struct thr_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.size = size;
    atomic_init(&sh.stop, 0);
    pthread_barrier_init(&sh.ready, NULL, nthr + 1);
    struct thr_arg *args = calloc(nthr, sizeof *args);
    pthread_t *tid = calloc(nthr, sizeof *tid);
    if (!args || !tid) {
        die("out of memory");
    }
    for (unsigned t = 0; t < nthr; t++) {
        args[t].sh = &sh;
        args[t].tmpl = *tmpl;
        args[t].cpu = ncpus ? cpus[t % ncpus] : -1;
        args[t].index = t;
        if (pthread_create(&tid[t], NULL, thr_main, &args[t]) != 0) {
            die("pthread_create failed");
        }
    }
    pthread_barrier_wait(&sh.ready);
    const struct timespec ts = {(time_t)opt.thr_seconds,
                                (long)((opt.thr_seconds - (double)(time_t)opt.thr_seconds) * 1e9)};
    nanosleep(&ts, NULL);
    atomic_store(&sh.stop, 1);
    double sum = 0;
    for (unsigned t = 0; t < nthr; t++) {
        pthread_join(tid[t], NULL);
        sum += args[t].rate_bytes;
    }
    pthread_barrier_destroy(&sh.ready);
    free(args);
    free(tid);
    return sum;
}

static void run_threads(const struct engine *eng, unsigned ne, const cpu_set_t *allowed, FILE *csv)
{
    int cpus[CPU_SETSIZE];
    unsigned ncpus = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, allowed)) {
            cpus[ncpus++] = c;
        }
    }
    const unsigned N = opt.threads ? opt.threads : (ncpus ? ncpus : 1);
    const struct engine *list[6];
    unsigned nl = 0;
    const struct engine *x;
    if ((x = best_of_kind(eng, ne, K_RING)) != NULL) {
        list[nl++] = x;
    }
    if ((x = best_of_kind(eng, ne, K_BURST)) != NULL) {
        list[nl++] = x;
    }
    for (unsigned i = 0; i < ne; i++) {
        if (eng[i].kind == K_IMB_DIRECT || eng[i].kind == K_IMB_JOB || eng[i].kind == K_EVP) {
            list[nl++] = &eng[i];
        }
    }
    int sel[6];
    for (unsigned i = 0; i < nl; i++) {
        sel[i] = engine_wanted(list[i]->name);
    }
    const unsigned R = opt.thr_reps;
    printf("\n== Threads (AES-256 encrypt, %u keys; one engine instance per thread: manager, "
           "IMB_MGR, EVP contexts) ==\n", opt.keys);
    printf("aggregate GB/s, median of %u reps [min .. max]; threads pinned to CPUs", R);
    for (unsigned t = 0; t < N && t < ncpus; t++) {
        printf("%s%d", t ? "," : " ", cpus[t]);
    }
    if (N > ncpus) {
        printf(" (%u threads on %u CPUs: oversubscribed)", N, ncpus);
    }
    printf("; scaling = %u threads / 1 thread\n", N);
    char nthr[16];
    snprintf(nthr, sizeof nthr, "%u thr", N);
    printf("  %6s  %-20s %8s %-17s %8s %-17s %8s\n", "bytes", "engine", "1 thr", "[min .. max]",
           nthr, "[min .. max]", "scaling");
    if (csv) {
        fprintf(csv, "bytes,engine,threads,reps,gb_per_s_median,gb_per_s_min,gb_per_s_max\n");
    }
    double *v1 = calloc((size_t)R * nl, sizeof *v1), *vn = calloc((size_t)R * nl, sizeof *vn);
    if (!v1 || !vn) {
        die("out of memory");
    }
    char sz[24];
    unsigned nwarn = 0;
    for (unsigned si = 0; si < opt.nthr_sizes; si++) {
        const size_t size = opt.thr_sizes[si];
        for (unsigned r = 0; r < R; r++) { /* interleaved: engines and thread counts */
            for (unsigned i = 0; i < nl; i++) {
                if (!sel[i]) {
                    continue;
                }
                v1[i * R + r] = thr_measure(list[i], size, 1, cpus, ncpus) * 1e-9;
                vn[i * R + r] = N == 1 ? v1[i * R + r]
                                       : thr_measure(list[i], size, N, cpus, ncpus) * 1e-9;
                progress("threads %s B rep %u/%u %s: %.2f GB/s (1), %.2f GB/s (%u)\n",
                         size_str(size, sz, sizeof sz), r + 1, R, list[i]->name, v1[i * R + r],
                         vn[i * R + r], N);
            }
        }
        for (unsigned i = 0; i < nl; i++) {
            if (!sel[i]) {
                continue;
            }
            const double m1 = median(&v1[i * R], R), mn = median(&vn[i * R], R);
            const double s1 = (v1[i * R + R - 1] - v1[i * R]) / m1;
            const double sn = (vn[i * R + R - 1] - vn[i * R]) / mn;
            const int warn = s1 > SPREAD_WARN || sn > SPREAD_WARN;
            nwarn += warn;
            char r1[40], rn[40];
            snprintf(r1, sizeof r1, "[%.2f .. %.2f]", v1[i * R], v1[i * R + R - 1]);
            snprintf(rn, sizeof rn, "[%.2f .. %.2f]", vn[i * R], vn[i * R + R - 1]);
            printf("  %6s  %-20s %8.2f %-17s %8.2f %-17s %7.2fx%s\n", size_str(size, sz, sizeof sz),
                   list[i]->name, m1, r1, mn, rn, mn / m1, warn ? " !" : "");
            if (csv) {
                fprintf(csv, "%s,%s,1,%u,%.4f,%.4f,%.4f\n", sz, list[i]->name, R, m1, v1[i * R],
                        v1[i * R + R - 1]);
                fprintf(csv, "%s,%s,%u,%u,%.4f,%.4f,%.4f\n", sz, list[i]->name, N, R, mn, vn[i * R],
                        vn[i * R + R - 1]);
            }
        }
    }
    if (nwarn) {
        printf("warning: %u line(s) marked '!' vary by more than %.0f%% between repetitions\n",
               nwarn, SPREAD_WARN * 100);
    }
    free(v1);
    free(vn);
}

/* ---------------------------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------------------------- */
/* Other work on the machine is the main source of noise: say how much there was. */
static void print_load(const char *what)
{
    double l1 = -1, l5 = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf %lf", &l1, &l5) != 2) {
            l1 = l5 = -1;
        }
        fclose(f);
    }
    if (l1 >= 0) {
        const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        printf("%s: load average %.2f (1 min), %.2f (5 min) on %ld CPUs%s\n", what, l1, l5, ncpu,
               l1 > 0.5 * (double)ncpu ? ": other work is running, expect noise" : "");
    }
}

static FILE *open_csv(const char *base, const char *suffix, char *path, size_t n)
{
    if (base == NULL) {
        return NULL;
    }
    size_t l = strlen(base);
    if (suffix == NULL) {
        snprintf(path, n, "%s", base);
    } else {
        if (l >= 4 && strcmp(base + l - 4, ".csv") == 0) {
            l -= 4;
        }
        snprintf(path, n, "%.*s-%s.csv", (int)l, base, suffix);
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        die("cannot write %s: %s", path, strerror(errno));
    }
    return f;
}

static void close_csv(FILE *f, const char *path)
{
    if (f == NULL) {
        return;
    }
    if (fclose(f) != 0) {
        die("error writing %s", path);
    }
    printf("CSV written to %s\n", path);
}

int main(int argc, char **argv)
{
    parse_options(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    const uint64_t t_main = now_ns();

    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        CPU_SET(0, &allowed);
    }

    struct engine eng[MAX_ENGINES];
    const unsigned ne = build_engines(eng);

    size_t cap = 16;
    for (unsigned i = 0; i < opt.nsizes; i++) {
        cap = opt.sizes[i] != SIZE_IMIX && opt.sizes[i] > cap ? opt.sizes[i] : cap;
    }
    for (unsigned i = 0; i < opt.nlat_sizes; i++) {
        cap = opt.lat_sizes[i] != SIZE_IMIX && opt.lat_sizes[i] > cap ? opt.lat_sizes[i] : cap;
    }
    struct workload w;
    workload_init(&w, opt.keys, opt.bufs, cap, opt.aad_len, 0x9e3779b97f4a7c15u);

    int cpu = -1;
    if (opt.cpu != -2) {
        cpu = opt.cpu >= 0 ? opt.cpu : sched_getcpu();
        if (cpu >= 0 && pin_to(cpu) != 0) {
            fprintf(stderr, "mbgcm-bench: warning: cannot pin to CPU %d: %s\n", cpu,
                    strerror(errno));
            cpu = -1;
        }
    }
    char model[256], flags[256];
    cpu_describe(model, sizeof model, flags, sizeof flags);
    IMB_ARCH imb_arch;
    IMB_MGR *probe = imb_create(&imb_arch);
    free_mb_mgr(probe);

    printf("mbgcm-bench: mbgcm %s%s%s%s vs intel-ipsec-mb %s (%s manager) and %s\n",
           mbgcm_version(), opt.label ? " (" : "", opt.label ? opt.label : "",
           opt.label ? ")" : "", imb_get_version_str(), imb_arch_name(imb_arch),
           OpenSSL_version(OPENSSL_VERSION));
    printf("CPU: %s; %d CPUs online; %s", model, (int)sysconf(_SC_NPROCESSORS_ONLN),
           cpu >= 0 ? "pinned to CPU " : "not pinned");
    if (cpu >= 0) {
        printf("%d", cpu);
    }
    printf("\nflags: %s\n", flags);
#if defined(__clang__)
    printf("compiler: clang %s", __clang_version__);
#elif defined(__GNUC__)
    printf("compiler: gcc %s", __VERSION__);
#else
    printf("compiler: unknown");
#endif
    printf("; TSC %.2f GHz (not used for cycles)\n", measure_tsc_ghz(20));
    print_load("machine load at start");
    printf("workload: 12-byte IV, %u-byte AAD, 16-byte tag, out of place, %u keys round-robin "
           "over %u slots (%u for imix) at offsets 24*j mod 64\n",
           opt.aad_len, w.nkeys, w.base_slots, w.imix_slots);
    printf("mbgcm managers: lanes %s, queue %s, burst %u jobs; figures ~%.3g s each over %u reps "
           "(engines on portable C kernels: %.0f%% of that)\n",
           opt.lanes ? "set" : "default", opt.queue ? "set" : "default", opt.burst, opt.seconds,
           opt.reps, opt.capped_share * 100);
    for (unsigned i = 0; i < ne; i++) {
        const char *capped = eng[i].capped && eng[i].selected
                                 ? "portable C kernels (~200 cycles/byte): time budget capped"
                                 : "";
        if (eng[i].note[0] || capped[0]) {
            printf("note: %s: %s%s%s\n", eng[i].name, eng[i].note,
                   eng[i].note[0] && capped[0] ? "; " : "", capped);
        } else if (!eng[i].selected) {
            printf("note: %s: not selected\n", eng[i].name);
        }
    }

    char path[1024];
    if (opt.modes & MODE_TPUT) {
        FILE *f = open_csv(opt.csv, NULL, path, sizeof path);
        run_tput(eng, ne, &w, f);
        close_csv(f, path);
    }
    for (unsigned i = 0; i < ne; i++) {
        engine_teardown(&eng[i]);
    }
    if (opt.modes & MODE_LAT) {
        FILE *f = open_csv(opt.csv, "latency", path, sizeof path);
        run_latency(eng, ne, &w, f);
        close_csv(f, path);
    }
    if (opt.modes & MODE_THR) {
        FILE *f = open_csv(opt.csv, "threads", path, sizeof path);
        run_threads(eng, ne, &allowed, f);
        close_csv(f, path);
    }
    workload_free(&w);
    print_load("machine load at end");
    printf("total time %.1f s\n", (double)(now_ns() - t_main) * 1e-9);
    return 0;
}
