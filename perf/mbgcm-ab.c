/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm-ab — one workload through two or more builds of libmbgcm.so in one process, batch by
 * batch in turn, to measure a change (docs/perf.md, "Measuring a change").
 *
 * Why not two runs of mbgcm-bench: on a shared host the same binary runs at different speeds
 * from one minute to the next, often by more than the change being measured, and a different
 * build places its data differently (the keys, the buffers, the frames), which alone moved a
 * by32 burst by up to 10%. Here every library runs the same messages, at the same addresses,
 * with the same expanded keys (the public mbgcm_key has one layout in every build of this API:
 * the first library expands them, the others must produce the same bytes), one batch each in
 * rotating order, so slow periods of the host hit all of them alike; the per-batch times give a
 * minimum, a 10th percentile and a median per library. Before timing, every library's output for
 * every slot is checked against the first one's (encrypt: ciphertext and tag; decrypt: the
 * plaintext and an accepted tag).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "mbgcm.h"

enum { MAX_LIBS = 8, NSLOTS = 64, IMIX_SLOTS = 192, MAX_SLOTS = 16384, MAX_BURST = 64, TAG = 16 };
#define SIZE_IMIX ((size_t)0 - 1) /* --sizes imix */
/* 7 x 64, 4 x 594, 1 x 1518 in mbgcm-bench's interleaved order */
static const size_t imix_pattern[12] = {64, 594, 64, 64, 1518, 64, 594, 64, 594, 64, 64, 594};

typedef int (*key_init_fn)(mbgcm_key *, const void *, size_t);
typedef mbgcm_mgr *(*mgr_new_fn)(const mbgcm_config *);
typedef void (*mgr_free_fn)(mbgcm_mgr *);
typedef unsigned (*burst_fn)(mbgcm_mgr *, mbgcm_job *, unsigned);
typedef mbgcm_job *(*ring_fn)(mbgcm_mgr *);
typedef int (*oneshot_fn)(const mbgcm_key *, const void *, size_t, const void *, size_t,
                          const void *, size_t, void *, void *, size_t);
typedef int (*ctx_init_fn)(mbgcm_ctx *, const mbgcm_key *, int, const void *, size_t,
                           const void *, size_t);
typedef int (*ctx_update_fn)(mbgcm_ctx *, const void *, size_t, void *);
typedef int (*ctx_end_fn)(mbgcm_ctx *, const void *, size_t);

struct lib {
    const char *path, *arg; /* the .so; the command-line argument (path@lanes) */
    unsigned lanes;         /* mbgcm_config.lanes of its manager (0: the default) */
    void *h;
    key_init_fn key_init;
    mgr_new_fn mgr_new;
    mgr_free_fn mgr_free;
    burst_fn submit_burst;
    ring_fn get_next, submit, get_completed, flush;
    oneshot_fn encrypt, decrypt;
    ctx_init_fn ctx_init;
    ctx_update_fn ctx_update;
    ctx_end_fn ctx_final, ctx_verify;
    mbgcm_mgr *mgr;
    mbgcm_key *keys; /* the point's keys, expanded by this library */
    uint64_t *t; /* TSC ticks per batch */
};

static struct {
    char sizes[256], bits[64], dirs[64], apis[64];
    unsigned burst, trials, keys, aad, slots;
    size_t piece;
    int cpu, timing_only;
} opt = {"1420", "128,256", "enc", "burst,oneshot", 32, 1500, 64, 16, NSLOTS, 16384, -1, 0};

__attribute__((format(printf, 1, 2), noreturn)) static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mbgcm-ab: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mbgcm-ab [options] LIB_A.so LIB_B.so [more .so, up to %d]\n"
            "  (LIB.so@N: that library with a manager of N lanes, mbgcm_config.lanes)\n"
            "  --sizes LIST   message bytes (default 1420); 'imix': 7:4:1 of 64/594/1518 bytes\n"
            "                 in mbgcm-bench's order over %d slots (needs --burst 12k)\n"
            "  --bits LIST    128,256 (default both)\n"
            "  --dirs LIST    enc,dec (default enc)\n"
            "  --api LIST     burst,oneshot,ring (default burst,oneshot): mbgcm_submit_burst of\n"
            "                 N jobs, N mbgcm_encrypt / mbgcm_decrypt calls, or N ring jobs\n"
            "                 (get_next, submit, get_completed) and a flush, per timed batch;\n"
            "                 ctx: N messages through mbgcm_ctx_init, mbgcm_ctx_update per\n"
            "                 --piece bytes, final / verify; sgl: one mbgcm_submit_burst of N\n"
            "                 jobs whose source and destination are lists of --piece-byte\n"
            "                 segments of the slots' buffers; sgli: the same in place (one\n"
            "                 list for both sides, as a DPDK op on a chained mbuf; enc only)\n"
            "  --piece N      bytes per ctx update and per sgl segment (default 16384; the\n"
            "                 last one shorter; at most %d segments)\n"
            "  --burst N      jobs per batch, 1..%d (default 32)\n"
            "  --trials N     batches per library and point (default 1500)\n"
            "  --keys N       keys round-robin over the message slots, 1..slots (default 64;\n"
            "                 with --slots, up to %d: keys far beyond the caches)\n"
            "  --slots N      message slots, each with its own buffers, 1..%d (default %d):\n"
            "                 many slots of long messages leave the caches cold\n"
            "  --aad N        AAD bytes, 0..4096 (default 16); with --sizes 0: GMAC\n"
            "  --cpu N        pin to CPU N (default: the last one online; -1: no pinning)\n"
            "  --timing-only  libraries B.. may give other outputs and fail tags (builds with\n"
            "                 parts of a kernel deleted, to time what is left); A is checked.\n"
            "                 A failed decrypt also zeroes its output: such builds time that\n"
            "                 wipe too unless their api/aead.c skips it\n"
            "Prints per point and library the minimum, 10th percentile and median ns per\n"
            "message over the batches, and each library's p10 against the first's.\n",
            MAX_LIBS, IMIX_SLOTS, MBGCM_MAX_SEGS, MAX_BURST, MAX_SLOTS, MAX_SLOTS, NSLOTS);
}

static uint64_t ticks(void)
{
    unsigned aux;
    return __rdtscp(&aux);
}

static double ns_of(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e9 + (double)(b->tv_nsec - a->tv_nsec);
}

/* TSC ticks per ns, over 50 ms */
static double tsc_per_ns(void)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const uint64_t c0 = ticks();
    do {
        clock_gettime(CLOCK_MONOTONIC, &t1);
    } while (ns_of(&t0, &t1) < 5e7);
    return (double)(ticks() - c0) / ns_of(&t0, &t1);
}

static void *sym(struct lib *l, const char *name)
{
    void *p = dlsym(l->h, name);
    if (p == NULL) {
        die("no %s in the library", name);
    }
    return p;
}

static void load(struct lib *l)
{
    l->h = dlopen(l->path, RTLD_NOW | RTLD_LOCAL);
    if (l->h == NULL) {
        die("%s", dlerror());
    }
    l->key_init = (key_init_fn)sym(l, "mbgcm_key_init");
    l->mgr_new = (mgr_new_fn)sym(l, "mbgcm_mgr_new");
    l->mgr_free = (mgr_free_fn)sym(l, "mbgcm_mgr_free");
    l->submit_burst = (burst_fn)sym(l, "mbgcm_submit_burst");
    l->get_next = (ring_fn)sym(l, "mbgcm_get_next_job");
    l->submit = (ring_fn)sym(l, "mbgcm_submit_job");
    l->get_completed = (ring_fn)sym(l, "mbgcm_get_completed_job");
    l->flush = (ring_fn)sym(l, "mbgcm_flush_job");
    l->encrypt = (oneshot_fn)sym(l, "mbgcm_encrypt");
    l->decrypt = (oneshot_fn)sym(l, "mbgcm_decrypt");
    l->ctx_init = (ctx_init_fn)sym(l, "mbgcm_ctx_init");
    l->ctx_update = (ctx_update_fn)sym(l, "mbgcm_ctx_update");
    l->ctx_final = (ctx_end_fn)sym(l, "mbgcm_ctx_final");
    l->ctx_verify = (ctx_end_fn)sym(l, "mbgcm_ctx_verify");
    const mbgcm_config cfg = {.lanes = l->lanes};
    l->mgr = l->mgr_new(&cfg);
    if (l->mgr == NULL) {
        die("%s: mbgcm_mgr_new failed", l->path);
    }
}

/* the workload of one point: --slots messages (IMIX_SLOTS for imix) at offsets 24 * j mod 64 */
struct work {
    unsigned nslots;
    size_t len[MAX_SLOTS];
    int dec;
    mbgcm_key *keys;
    uint8_t *pt[MAX_SLOTS], *ct[MAX_SLOTS], *in[MAX_SLOTS], *out[MAX_SLOTS], *ref[MAX_SLOTS];
    uint8_t *aad[MAX_SLOTS];
    uint8_t iv[MAX_SLOTS][12], tag[MAX_SLOTS][TAG], otag[MAX_SLOTS][TAG];
};

static uint8_t *buf(size_t len, unsigned j)
{
    uint8_t *p = aligned_alloc(64, (len + 191) / 64 * 64);
    if (p == NULL) {
        die("%s", "out of memory");
    }
    return p + (24 * j) % 64;
}

static void unbuf(uint8_t *p, unsigned j)
{
    free(p - (24 * j) % 64);
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static void fill(void *p, size_t n)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        b[i] = (uint8_t)rng;
    }
}

enum api { API_ONESHOT, API_BURST, API_RING, API_CTX, API_SGL, API_SGLI };
static const char *const api_name[] = {"oneshot", "burst", "ring", "ctx", "sgl", "sgli"};

/* the sgl jobs' segment lists: one source and one destination list per job of a batch */
static mbgcm_seg sgl_segs[MAX_BURST][2][MBGCM_MAX_SEGS];

/* |len| bytes at |p| as --piece-byte segments; the count */
static uint32_t segs_of(mbgcm_seg *l, uint8_t *p, size_t len)
{
    uint32_t n = 0;
    for (size_t o = 0; o < len || n == 0; o += opt.piece) {
        if (n == MBGCM_MAX_SEGS) {
            die("--piece %zu: more than %d segments", opt.piece, MBGCM_MAX_SEGS);
        }
        l[n].ptr = p + o;
        l[n].len = len - o < opt.piece ? len - o : opt.piece;
        n++;
    }
    return n;
}

/* one job's fields for slot |s|, every field set (as a caller of the ring must: the slot keeps
   the previous job's) one by one: a memset or a compound literal compiles to a `rep stos`,
   whose start-up cost on some cores (Zen 4) rivals a short job's */
static void fill_job(mbgcm_job *j, const struct lib *l, const struct work *w, unsigned s)
{
    j->key = &l->keys[s % opt.keys];
    j->dir = w->dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    j->iv = w->iv[s];
    j->iv_len = 12;
    j->aad = w->aad[s];
    j->aad_len = opt.aad;
    j->src = w->in[s];
    j->dst = w->out[s];
    j->len = w->len[s];
    j->tag = w->dec ? (uint8_t *)w->tag[s] : (uint8_t *)w->otag[s];
    j->tag_len = TAG;
    j->user_data = NULL;
    j->src_sgl = j->dst_sgl = NULL;
    j->src_nseg = j->dst_nseg = 0;
    j->reserved_ = NULL;
}

/* one batch of |n| messages from slot |s0| through library |l|; 0 when all succeeded */
static int batch(struct lib *l, struct work *w, enum api api, unsigned s0, unsigned n,
                 mbgcm_job *jobs)
{
    if (api == API_RING) {
        unsigned done = 0;
        int bad = 0;
        for (unsigned q = 0; q < n; q++) {
            fill_job(l->get_next(l->mgr), l, w, (s0 + q) % w->nslots);
            for (mbgcm_job *j = l->submit(l->mgr); j != NULL; j = l->get_completed(l->mgr)) {
                bad |= j->status != MBGCM_OK;
                done++;
            }
        }
        for (mbgcm_job *j = l->flush(l->mgr); j != NULL; j = l->flush(l->mgr)) {
            bad |= j->status != MBGCM_OK;
            done++;
        }
        return bad || done != n;
    }
    if (api == API_BURST || api == API_SGL || api == API_SGLI) {
        for (unsigned q = 0; q < n; q++) {
            const unsigned s = (s0 + q) % w->nslots;
            fill_job(&jobs[q], l, w, s);
            if (api == API_SGLI) { /* in place: the output buffer, encrypted again */
                jobs[q].src = jobs[q].dst = NULL;
                jobs[q].src_nseg = segs_of(sgl_segs[q][0], w->out[s], w->len[s]);
                jobs[q].dst_nseg = jobs[q].src_nseg;
                jobs[q].src_sgl = jobs[q].dst_sgl = sgl_segs[q][0];
            } else if (api == API_SGL) {
                jobs[q].src = jobs[q].dst = NULL;
                jobs[q].src_nseg = segs_of(sgl_segs[q][0], w->in[s], w->len[s]);
                jobs[q].dst_nseg = segs_of(sgl_segs[q][1], w->out[s], w->len[s]);
                jobs[q].src_sgl = sgl_segs[q][0];
                jobs[q].dst_sgl = sgl_segs[q][1];
            }
        }
        return l->submit_burst(l->mgr, jobs, n) != n;
    }
    int bad = 0;
    if (api == API_CTX) {
        for (unsigned q = 0; q < n; q++) {
            const unsigned s = (s0 + q) % w->nslots;
            mbgcm_ctx c;
            bad |= l->ctx_init(&c, &l->keys[s % opt.keys], w->dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT,
                               w->iv[s], 12, w->aad[s], opt.aad);
            for (size_t o = 0; o < w->len[s]; o += opt.piece) {
                const size_t t = w->len[s] - o < opt.piece ? w->len[s] - o : opt.piece;
                bad |= l->ctx_update(&c, w->in[s] + o, t, w->out[s] + o);
            }
            bad |= w->dec ? l->ctx_verify(&c, w->tag[s], TAG) : l->ctx_final(&c, w->otag[s], TAG);
        }
        return bad;
    }
    for (unsigned q = 0; q < n; q++) {
        const unsigned s = (s0 + q) % w->nslots;
        bad |= (w->dec ? l->decrypt : l->encrypt)(&l->keys[s % opt.keys], w->iv[s], 12,
                                                   w->aad[s], opt.aad, w->in[s], w->len[s],
                                                   w->out[s], w->dec ? w->tag[s] : w->otag[s],
                                                   TAG);
    }
    return bad;
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void point(struct lib *libs, int nl, size_t size, unsigned bits, int dec, enum api api,
                  double tpn)
{
    struct work *w = calloc(1, sizeof *w);
    if (w == NULL || (w->keys = aligned_alloc(64, sizeof(mbgcm_key) * opt.keys)) == NULL) {
        die("%s", "out of memory");
    }
    w->nslots = size == SIZE_IMIX ? IMIX_SLOTS : opt.slots;
    for (unsigned s = 0; s < w->nslots; s++) {
        w->len[s] = size == SIZE_IMIX ? imix_pattern[s % 12] : size;
    }
    w->dec = dec;
    uint8_t raw[32];
    for (unsigned k = 0; k < opt.keys; k++) {
        fill(raw, sizeof raw);
        if (libs[0].key_init(&w->keys[k], raw, bits / 8) != MBGCM_OK) {
            die("%s: mbgcm_key_init failed", libs[0].path);
        }
        libs[0].keys = w->keys;
        for (int l = 1; l < nl; l++) {
            /* each library its own keys: a build that changes the key layout is measured
               with keys it expanded itself (and told) */
            if (libs[l].keys == NULL &&
                (libs[l].keys = aligned_alloc(64, sizeof(mbgcm_key) * opt.keys)) == NULL) {
                die("%s", "out of memory");
            }
            libs[l].key_init(&libs[l].keys[k], raw, bits / 8);
            static int told;
            if (memcmp(&libs[l].keys[k], &w->keys[k], sizeof(mbgcm_key)) != 0 && !told) {
                told = 1;
                fprintf(stderr, "mbgcm-ab: note: %s expands keys differently from the first "
                                "library (a key layout change?); each library uses its own\n",
                        libs[l].path);
            }
        }
    }
    for (unsigned s = 0; s < w->nslots; s++) {
        const size_t len = w->len[s];
        w->pt[s] = buf(len, s), w->ct[s] = buf(len, s), w->out[s] = buf(len, s);
        w->ref[s] = buf(len, s), w->aad[s] = buf(opt.aad, s);
        fill(w->pt[s], len);
        fill(w->iv[s], 12);
        fill(w->aad[s], opt.aad);
        if (libs[0].encrypt(&w->keys[s % opt.keys], w->iv[s], 12, w->aad[s], opt.aad,
                            w->pt[s], len, w->ct[s], w->tag[s], TAG) != MBGCM_OK) {
            die("%s: mbgcm_encrypt failed", libs[0].path);
        }
        w->in[s] = dec ? w->ct[s] : w->pt[s];
    }
    mbgcm_job jobs[MAX_BURST];
    /* every library must give the first one's output for every slot */
    for (int l = 0; l < nl; l++) {
        for (unsigned s0 = 0; s0 < w->nslots; s0 += opt.burst) {
            const unsigned n = w->nslots - s0 < opt.burst ? w->nslots - s0 : opt.burst;
            for (unsigned q = 0; q < n; q++) {
                if (api == API_SGLI) { /* in place: the plaintext where the output goes */
                    memcpy(w->out[s0 + q], w->pt[s0 + q], w->len[s0 + q]);
                } else {
                    memset(w->out[s0 + q], 0xA5, w->len[s0 + q]);
                }
                memset(w->otag[s0 + q], 0xA5, TAG);
            }
            if (batch(&libs[l], w, api, s0, n, jobs) != 0 && !(l && opt.timing_only)) {
                die("%s: a message of the workload failed", libs[l].path);
            }
        }
        for (unsigned s = 0; s < w->nslots; s++) {
            const size_t len = w->len[s];
            if (l == 0 && !dec) {
                memcpy(w->ref[s], w->out[s], len);
            }
            const uint8_t *want = dec ? w->pt[s] : w->ref[s];
            if ((memcmp(w->out[s], want, len) != 0 ||
                 (!dec && memcmp(w->otag[s], w->tag[s], TAG) != 0)) &&
                !(l && opt.timing_only)) {
                die("%s: output differs from the first library's", libs[l].path);
            }
        }
    }
    for (int l = 0; l < nl; l++) {
        libs[l].t = malloc(sizeof(uint64_t) * opt.trials);
        if (libs[l].t == NULL) {
            die("%s", "out of memory");
        }
    }
    unsigned s0 = 0;
    for (unsigned t = 0; t < opt.trials; t++) {
        for (int i = 0; i < nl; i++) {
            const int l = (int)((t + (unsigned)i) % (unsigned)nl); /* rotating order */
            /* with more slots than the default (cold caches), each library takes its own part
               of the slots in a trial, so that none runs on lines another just brought in */
            const unsigned sl = opt.slots > NSLOTS && size != SIZE_IMIX
                                    ? (s0 + (unsigned)l * (w->nslots / (unsigned)nl)) % w->nslots
                                    : s0;
            const uint64_t a = ticks();
            const int bad = batch(&libs[l], w, api, sl, opt.burst, jobs);
            libs[l].t[t] = ticks() - a;
            if (bad && !(l && opt.timing_only)) {
                die("%s: a message failed while timed", libs[l].path);
            }
        }
        s0 = (s0 + opt.burst) % w->nslots;
    }
    if (size == SIZE_IMIX) {
        printf("AES-%u %s   imix   %-7s", bits, dec ? "dec" : "enc", api_name[api]);
    } else {
        printf("AES-%u %s %6zu B %-7s", bits, dec ? "dec" : "enc", size,
               api_name[api]);
    }
    double p10_0 = 0;
    for (int l = 0; l < nl; l++) {
        qsort(libs[l].t, opt.trials, sizeof(uint64_t), cmp_u64);
        const double k = 1.0 / (tpn * opt.burst);
        const double mn = (double)libs[l].t[0] * k, p10 = (double)libs[l].t[opt.trials / 10] * k;
        const double med = (double)libs[l].t[opt.trials / 2] * k;
        if (l == 0) {
            p10_0 = p10;
        }
        printf(" | %c: min %7.1f p10 %7.1f med %7.1f", 'A' + l, mn, p10, med);
        if (l > 0) {
            printf(" (%c/A %.3f)", 'A' + l, p10 / p10_0);
        }
        free(libs[l].t);
    }
    printf("\n");
    fflush(stdout);
    for (unsigned s = 0; s < w->nslots; s++) {
        unbuf(w->pt[s], s), unbuf(w->ct[s], s), unbuf(w->out[s], s), unbuf(w->ref[s], s);
        unbuf(w->aad[s], s);
    }
    free(w->keys);
    for (int l = 0; l < nl; l++) {
        if (l > 0) {
            free(libs[l].keys);
        }
        libs[l].keys = NULL;
    }
    free(w);
}

static unsigned num(const char *s, unsigned lo, unsigned hi, const char *what)
{
    char *e;
    const unsigned long v = strtoul(s, &e, 10);
    if (*s == '\0' || *e != '\0' || v < lo || v > hi) {
        die("bad %s", what);
    }
    return (unsigned)v;
}

static void copy_list(char *dst, size_t n, const char *s)
{
    if (strlen(s) >= n) {
        die("list too long: %s", s);
    }
    strcpy(dst, s);
}

int main(int argc, char **argv)
{
    struct lib libs[MAX_LIBS];
    int nl = 0;
    memset(libs, 0, sizeof libs);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--timing-only")) {
            opt.timing_only = 1;
        } else if (a[0] == '-' && a[1] == '-' && v == NULL) {
            die("%s needs a value", a);
        } else if (!strcmp(a, "--sizes")) {
            copy_list(opt.sizes, sizeof opt.sizes, v), i++;
        } else if (!strcmp(a, "--bits")) {
            copy_list(opt.bits, sizeof opt.bits, v), i++;
        } else if (!strcmp(a, "--dirs")) {
            copy_list(opt.dirs, sizeof opt.dirs, v), i++;
        } else if (!strcmp(a, "--api")) {
            copy_list(opt.apis, sizeof opt.apis, v), i++;
        } else if (!strcmp(a, "--burst")) {
            opt.burst = num(v, 1, MAX_BURST, "--burst"), i++;
        } else if (!strcmp(a, "--trials")) {
            opt.trials = num(v, 1, 10000000, "--trials"), i++;
        } else if (!strcmp(a, "--keys")) {
            opt.keys = num(v, 1, MAX_SLOTS, "--keys"), i++;
        } else if (!strcmp(a, "--slots")) {
            opt.slots = num(v, 1, MAX_SLOTS, "--slots"), i++;
        } else if (!strcmp(a, "--piece")) {
            opt.piece = num(v, 1, 1u << 30, "--piece"), i++;
        } else if (!strcmp(a, "--aad")) {
            opt.aad = num(v, 0, 4096, "--aad"), i++;
        } else if (!strcmp(a, "--cpu")) {
            opt.cpu = strcmp(v, "-1") == 0 ? -2 : (int)num(v, 0, 4095, "--cpu"), i++;
        } else if (a[0] == '-') {
            usage(stderr);
            return 2;
        } else if (nl == MAX_LIBS) {
            die("%s", "too many libraries");
        } else {
            /* PATH@N: that library with a manager of N lanes */
            struct lib *l = &libs[nl++];
            l->arg = a;
            const char *at = strrchr(a, '@');
            if (at != NULL) {
                l->lanes = num(at + 1, 4, 16, "lanes after @");
                l->path = strndup(a, (size_t)(at - a));
            } else {
                l->path = a;
            }
        }
    }
    if (nl < 1) {
        usage(stderr);
        return 2;
    }
    if (opt.keys > opt.slots && opt.keys > NSLOTS) {
        die("--keys %u: at most one key per slot (--slots %u)", opt.keys, opt.slots);
    }
    if (opt.cpu != -2) {
        const int cpu = opt.cpu >= 0 ? opt.cpu : (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) {
            fprintf(stderr, "mbgcm-ab: could not pin to CPU %d, running unpinned\n", cpu);
        }
    }
    for (int l = 0; l < nl; l++) {
        load(&libs[l]);
    }
    const double tpn = tsc_per_ns();
    printf("mbgcm-ab: %d libraries, %u trials of %u messages each, %u keys, %u-byte AAD; ns per "
           "message\n",
           nl, opt.trials, opt.burst, opt.keys, opt.aad);
    for (int l = 0; l < nl; l++) {
        printf("  %c = %s\n", 'A' + l, libs[l].arg);
    }
    char *sv, *bv, *dv, *av;
    for (char *s = strtok_r(opt.sizes, ",", &sv); s != NULL; s = strtok_r(NULL, ",", &sv)) {
        const size_t len = strcmp(s, "imix") == 0 ? SIZE_IMIX : num(s, 0, 1u << 20, "--sizes");
        if (len == SIZE_IMIX && opt.burst % 12 != 0) {
            die("--sizes imix needs a --burst that is a multiple of 12 (every batch the same mix)");
        }
        char bits[sizeof opt.bits];
        strcpy(bits, opt.bits);
        for (char *b = strtok_r(bits, ",", &bv); b != NULL; b = strtok_r(NULL, ",", &bv)) {
            const unsigned kb = num(b, 128, 256, "--bits");
            if (kb != 128 && kb != 192 && kb != 256) {
                die("bad --bits %s", b);
            }
            char dirs[sizeof opt.dirs];
            strcpy(dirs, opt.dirs);
            for (char *d = strtok_r(dirs, ",", &dv); d != NULL; d = strtok_r(NULL, ",", &dv)) {
                if (strcmp(d, "enc") != 0 && strcmp(d, "dec") != 0) {
                    die("bad --dirs %s", d);
                }
                char apis[sizeof opt.apis];
                strcpy(apis, opt.apis);
                for (char *p = strtok_r(apis, ",", &av); p != NULL;
                     p = strtok_r(NULL, ",", &av)) {
                    enum api api = API_ONESHOT;
                    while (strcmp(p, api_name[api]) != 0) {
                        if (++api > API_SGLI) {
                            die("bad --api %s", p);
                        }
                    }
                    if (api == API_SGLI && !strcmp(d, "dec")) {
                        die("--api sgli: encrypt only (in place, a decrypt's input is gone)");
                    }
                    point(libs, nl, len, kb, !strcmp(d, "dec"), api, tpn);
                }
            }
        }
    }
    for (int l = 0; l < nl; l++) {
        libs[l].mgr_free(libs[l].mgr);
    }
    return 0;
}
