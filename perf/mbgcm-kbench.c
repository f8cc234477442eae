/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm-kbench.c — where do the cycles of the ring API go?
 *
 * For each message size and key mix it measures, interleaved (A B C D A B C D ...), median
 * of --reps repetitions:
 *   lane kernel   mbgcmi_avx512_lanes alone on a lane group prepared once: four jobs entered
 *                 with mbgcmi_sched_enter, the per-call summaries filled as the scheduler does,
 *                 the group snapshotted; timed as (restore + kernel) - (restore alone). All
 *                 four lanes have the same length, so one call finishes all four.
 *   short kernel  mbgcmi_avx512_short_jobs alone on the four jobs, with the shape words the
 *                 scheduler builds (one call; with mixed key sizes one call per key size, as
 *                 the scheduler's classes split them; only for messages of at most 256 bytes).
 *   C path        the ring API (get_next_job, every field set, submit, drain, flush at the end
 *                 of each batch) on an avx512 manager whose arch descriptor was replaced by a
 *                 copy with no-op kernels (the lane kernel reports every busy lane finished, the
 *                 short kernel returns "no tag failure"): classes, lane entry, key-table copies,
 *                 summaries, retiring, ordering; everything but the arithmetic.
 *   ring API      the same loop with the real kernels.
 * Key mixes: uniform AES-256 (the kernels: four different AES-256 keys; the ring: --keys keys
 * round-robin), and mixed AES-128/AES-256 (lanes 1 and 3 AES-128; the ring: odd keys AES-128).
 * Every kernel's output is checked against mbgcm_encrypt before timing.
 * Encrypt, 12-byte IV, 16-byte AAD, 16-byte tag, out of place.
 */
#define _GNU_SOURCE
#define BENCH_PROG "mbgcm-kbench"
#include <getopt.h>

#include "bench_util.h"
#include "jobs_internal.h"

#if !defined(MBGCM_HAVE_NASM)
int main(void)
{
    printf("mbgcm-kbench: built without the NASM kernels: nothing to measure\n");
    return 0;
}
#else
#include "avx512.h"

#define MAX_SIZES 16
#define MAX_REPS  101
#define AAD_LEN   16
#define TAG_LEN   16

struct kopts {
    size_t sizes[MAX_SIZES];
    unsigned nsizes, reps, keys;
    double ms;  /* per repetition */
    int cpu;
    int smoke;
};
static struct kopts ko;

/* Data shared by the cases of one (size, key mix). */
struct kctx {
    size_t len;
    int mixed;
    /* kernels: four jobs, four keys */
    mbgcm_key *k4;
    uint8_t *src4[4], *dst4[4], tag4[4][TAG_LEN], iv4[4][12], aad4[4][AAD_LEN];
    mbgcm_job jobs4[4];
    mbgcm_mgr *L; /* a one-group manager whose scheduler prepares the kernels' inputs */
    struct mbgcmi_group *g, *snap;
    mbgcm_job *sj[4];         /* the short kernel's job list: by key size when mixed */
    uint32_t ssh[4];          /* their shape words */
    unsigned scalls, sn[2], sflags[2];
    /* ring: nkeys keys round-robin over nslots slots */
    mbgcm_key *keys;
    unsigned nkeys, nslots;
    uint8_t **src, **dst, (*tag)[TAG_LEN], (*iv)[12], (*aad)[AAD_LEN];
    uint8_t *arena;
    mbgcm_mgr *ring, *noop, *ringdef; /* lanes only (no single-stream), no-op, default */
    struct mbgcmi_arch noop_arch, cap_arch;
    unsigned pos_ring, pos_noop, pos_def;
};

static unsigned noop_lanes(struct mbgcmi_group *g)
{
    return g->active; /* "every busy lane finished"; the manager retires them */
}

static uint64_t noop_short(mbgcm_job *const *jobs, const uint32_t *shapes, size_t n,
                           unsigned nblk, unsigned flags)
{
    (void)shapes;
    (void)nblk;
    (void)flags;
    for (size_t i = 0; i < n; i++) {
        jobs[i]->status = MBGCM_OK; /* the kernel sets the statuses; no tag failed */
    }
    return 0;
}

static void fill_rand(uint64_t *s, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        *s ^= *s >> 12;
        *s ^= *s << 25;
        *s ^= *s >> 27;
        p[i] = (uint8_t)((*s * 0x2545f4914f6cdd1du) >> 56);
    }
}

/* A pass-through lane kernel that snapshots what the manager hands to the real one, so the
   benchmark times the kernel on exactly the lane group the library builds (no copy of its
   layout or summaries here). */
static struct mbgcmi_group *cap_group;
static int cap_lanes_calls;

static unsigned capture_lanes(struct mbgcmi_group *g)
{
    memcpy(cap_group, g, sizeof *g);
    cap_lanes_calls++;
    return mbgcmi_avx512_lanes(g);
}

/* The short kernel on the four jobs: one call per key size. */
static uint64_t short_calls(const struct kctx *c)
{
    uint64_t fail = 0;
    unsigned first = 0;
    for (unsigned k = 0; k < c->scalls; k++) {
        fail |= mbgcmi_avx512_short_jobs(&c->sj[first], &c->ssh[first], c->sn[k],
                                         (unsigned)((c->len + 15) / 16), c->sflags[k]);
        first += c->sn[k];
    }
    return fail;
}

static void check4(const struct kctx *c, const char *what)
{
    uint8_t *ref = xaligned(64, c->len ? c->len : 1);
    uint8_t t[TAG_LEN];
    for (int i = 0; i < 4; i++) {
        if (mbgcm_encrypt(&c->k4[i], c->iv4[i], 12, c->aad4[i], AAD_LEN, c->src4[i], c->len, ref,
                          t, TAG_LEN) != MBGCM_OK) {
            die("mbgcm_encrypt failed");
        }
        if (memcmp(ref, c->dst4[i], c->len) != 0 || memcmp(t, c->tag4[i], TAG_LEN) != 0) {
            die("%s: lane %d differs from mbgcm_encrypt (%zu bytes, %s keys)", what, i, c->len,
                c->mixed ? "mixed" : "uniform");
        }
    }
    free(ref);
}

static void ctx_init(struct kctx *c, size_t len, int mixed)
{
    memset(c, 0, sizeof *c);
    c->len = len;
    c->mixed = mixed;
    uint64_t s = 0x243f6a8885a308d3u ^ len;
    uint8_t raw[32];
    /* ---- kernels: four jobs ---- */
    c->k4 = xaligned(64, 4 * sizeof(mbgcm_key));
    for (int i = 0; i < 4; i++) {
        fill_rand(&s, raw, sizeof raw);
        if (mbgcm_key_init(&c->k4[i], raw, (mixed && (i & 1)) ? 16 : 32) != MBGCM_OK) {
            die("mbgcm_key_init failed");
        }
        c->src4[i] = xaligned(64, len + 64);
        c->dst4[i] = xaligned(64, len + 64);
        fill_rand(&s, c->src4[i], len);
        fill_rand(&s, c->iv4[i], 12);
        fill_rand(&s, c->aad4[i], AAD_LEN);
        mbgcm_job *j = &c->jobs4[i];
        memset(j, 0, sizeof *j);
        j->key = &c->k4[i];
        j->dir = MBGCM_ENCRYPT;
        j->iv = c->iv4[i];
        j->iv_len = 12;
        j->aad = c->aad4[i];
        j->aad_len = AAD_LEN;
        j->src = c->src4[i];
        j->dst = c->dst4[i];
        j->len = len;
        j->tag = c->tag4[i];
        j->tag_len = TAG_LEN;
    }
    /* lane group: the four jobs entered with mbgcmi_sched_enter, run once by
       mbgcmi_sched_run_group (which fills the per-call summaries); the pass-through kernel
       keeps the group as the real kernel received it */
    c->g = xaligned(64, sizeof *c->g);
    c->snap = xaligned(64, sizeof *c->snap);
    c->cap_arch = *mbgcmi_arch_find("avx512");
    c->cap_arch.lanes = capture_lanes;
    const mbgcm_config one_group = {.arch = "avx512", .lanes = 4};
    if (mbgcm_mgr_create(&c->L, &one_group) != MBGCM_OK) {
        die("mbgcm_mgr_create(avx512) failed");
    }
    c->L->arch = &c->cap_arch;
    /* the short kernel is timed at every length it takes, whatever the variant routes to it */
    c->L->short_msg_lim = c->L->short_lim;
    mbgcmi_mgr_route_update(c->L);
    for (int i = 0; i < 4; i++) {
        mbgcmi_sched_enter(c->L, i, &c->jobs4[i], 0);
    }
    cap_group = c->snap;
    cap_lanes_calls = 0;
    if (mbgcmi_sched_run_group(c->L, 0, MBGCMI_RUN_FLUSH) != 0xFu || cap_lanes_calls != 1) {
        die("lane kernel did not finish all four lanes in one call");
    }
    check4(c, "lane kernel");
    if (len <= 16 * MBGCMI_SHORT_MAX_BLOCKS) {
        /* the short kernel's inputs as the scheduler builds them: one list per key size */
        for (int i = 0; i < 4; i++) {
            memset(c->dst4[i], 0, len);
            memset(c->tag4[i], 0, TAG_LEN);
            unsigned cls;
            uint32_t shape;
            if (!mbgcmi_sched_short_ok(c->L, &c->jobs4[i], &cls, &shape)) {
                die("a %zu-byte job does not qualify for the short kernel", len);
            }
        }
        unsigned n = 0;
        for (int pass = 0; pass < (mixed ? 2 : 1); pass++) {
            unsigned start = n;
            for (int i = 0; i < 4; i++) {
                if (mixed && (i & 1) != pass) {
                    continue;
                }
                const mbgcm_job *j = &c->jobs4[i];
                c->sj[n] = &c->jobs4[i];
                unsigned cls;
                mbgcmi_short_classify(j->len, j->aad_len, j->tag_len, (unsigned)j->dir,
                                      mbgcmi_key_c(j->key)->rounds,
                                      16 * MBGCMI_SHORT_MAX_BLOCKS + 1,
                                      16 * MBGCMI_SHORT_MAX_BLOCKS + 1, &cls, &c->ssh[n++]);
            }
            c->sn[c->scalls] = n - start;
            c->sflags[c->scalls++] = mbgcmi_key_c(c->sj[start]->key)->rounds;
        }
        if (short_calls(c) != 0) {
            die("short kernel reported tag failures on encrypt");
        }
        check4(c, "short kernel");
    }
    /* the timed lane-kernel case restores the snapshot into the manager's group memory (idle
       lanes' pointers point at that group's scratch) */
    free(c->g);
    c->g = c->L->g;
    memcpy(c->g, c->snap, sizeof *c->g);
    /* ---- ring: nkeys keys round-robin over nslots slots at varying addresses ---- */
    c->nkeys = ko.keys;
    c->nslots = ko.keys < 64 ? 64 : ko.keys;
    c->keys = xaligned(64, c->nkeys * sizeof(mbgcm_key));
    for (unsigned k = 0; k < c->nkeys; k++) {
        fill_rand(&s, raw, sizeof raw);
        if (mbgcm_key_init(&c->keys[k], raw, (mixed && (k & 1)) ? 16 : 32) != MBGCM_OK) {
            die("mbgcm_key_init failed");
        }
    }
    const size_t lines = (len + 64 + 63) / 64, stride = (lines | 1) * 64 + 64;
    c->arena = xaligned(4096, 2 * stride * c->nslots + 4096);
    c->src = xaligned(64, c->nslots * sizeof *c->src);
    c->dst = xaligned(64, c->nslots * sizeof *c->dst);
    c->tag = xaligned(64, c->nslots * sizeof *c->tag);
    c->iv = xaligned(64, c->nslots * sizeof *c->iv);
    c->aad = xaligned(64, c->nslots * sizeof *c->aad);
    for (unsigned j = 0; j < c->nslots; j++) {
        c->src[j] = c->arena + (size_t)j * stride + (24u * j) % 64;
        c->dst[j] = c->arena + (size_t)(c->nslots + j) * stride + (24u * j) % 64 + 512;
        fill_rand(&s, c->src[j], len);
    }
    fill_rand(&s, &c->iv[0][0], c->nslots * sizeof *c->iv);
    fill_rand(&s, &c->aad[0][0], c->nslots * sizeof *c->aad);
    const mbgcm_config cfg = {.arch = "avx512"};
    if (mbgcm_mgr_create(&c->ring, &cfg) != MBGCM_OK ||
        mbgcm_mgr_create(&c->noop, &cfg) != MBGCM_OK ||
        mbgcm_mgr_create(&c->ringdef, &cfg) != MBGCM_OK) {
        die("mbgcm_mgr_create(avx512) failed");
    }
    /* the lane path at every size: long jobs stay in the lanes */
    mbgcmi_mgr_set_single_min_len(c->ring, UINT64_MAX);
    mbgcmi_mgr_set_single_min_len(c->noop, UINT64_MAX);
    c->noop_arch = *c->noop->arch;
    c->noop_arch.lanes = noop_lanes;
    if (c->noop_arch.short_jobs != NULL) {
        c->noop_arch.short_jobs = noop_short;
    }
    c->noop->arch = &c->noop_arch;
}

static void ctx_free(struct kctx *c)
{
    mbgcm_mgr_free(c->ring);
    mbgcm_mgr_free(c->noop);
    mbgcm_mgr_free(c->ringdef);
    mbgcm_mgr_free(c->L); /* holds c->g */
    for (int i = 0; i < 4; i++) {
        mbgcm_key_wipe(&c->k4[i]);
        free(c->src4[i]);
        free(c->dst4[i]);
    }
    for (unsigned k = 0; k < c->nkeys; k++) {
        mbgcm_key_wipe(&c->keys[k]);
    }
    free(c->k4);
    free(c->keys);
    free(c->snap);
    free(c->arena);
    free(c->src);
    free(c->dst);
    free(c->tag);
    free(c->iv);
    free(c->aad);
}

/* ---- the cases: each runs |n| iterations and returns the elapsed ns ---- */
typedef double (*case_fn)(struct kctx *c, uint64_t n);

static double case_restore(struct kctx *c, uint64_t n)
{
    const uint64_t t0 = run_ns();
    for (uint64_t i = 0; i < n; i++) {
        memcpy(c->g, c->snap, sizeof *c->g);
        __asm__ volatile("" : : "r"(c->g) : "memory"); /* the copy must happen */
    }
    return (double)(run_ns() - t0);
}

static double case_lanes(struct kctx *c, uint64_t n)
{
    unsigned bad = 0;
    const uint64_t t0 = run_ns();
    for (uint64_t i = 0; i < n; i++) {
        memcpy(c->g, c->snap, sizeof *c->g);
        bad += mbgcmi_avx512_lanes(c->g) != 0xFu;
    }
    const double dt = (double)(run_ns() - t0);
    if (bad) {
        die("lane kernel: %u calls did not finish all lanes", bad);
    }
    return dt;
}

static double case_short(struct kctx *c, uint64_t n)
{
    unsigned bad = 0;
    const uint64_t t0 = run_ns();
    for (uint64_t i = 0; i < n; i++) {
        bad += short_calls(c) != 0;
    }
    const double dt = (double)(run_ns() - t0);
    if (bad) {
        die("short kernel reported tag failures on encrypt");
    }
    return dt;
}

static double ring_loop(struct kctx *c, mbgcm_mgr *m, unsigned *pos, uint64_t n)
{
    unsigned j = *pos, bad = 0;
    mbgcm_job *d;
    const uint64_t t0 = run_ns();
    for (uint64_t i = 0; i < n; i++) {
        mbgcm_job *job = mbgcm_get_next_job(m);
        job->key = &c->keys[j % c->nkeys];
        job->dir = MBGCM_ENCRYPT;
        job->iv = c->iv[j];
        job->iv_len = 12;
        job->aad = c->aad[j];
        job->aad_len = AAD_LEN;
        job->src = c->src[j];
        job->dst = c->dst[j];
        job->len = c->len;
        job->tag = c->tag[j];
        job->tag_len = TAG_LEN;
        job->user_data = NULL;
        job->src_sgl = job->dst_sgl = NULL;
        job->src_nseg = job->dst_nseg = 0;
        job->reserved_ = NULL;
        d = mbgcm_submit_job(m);
        while (d != NULL) {
            bad += d->status != MBGCM_OK;
            d = mbgcm_get_completed_job(m);
        }
        if (++j == c->nslots) {
            j = 0;
        }
    }
    while ((d = mbgcm_flush_job(m)) != NULL) {
        bad += d->status != MBGCM_OK;
    }
    const double dt = (double)(run_ns() - t0);
    if (bad) {
        die("ring API: %u jobs failed", bad);
    }
    *pos = j;
    return dt;
}

static double case_ring(struct kctx *c, uint64_t n)
{
    return ring_loop(c, c->ring, &c->pos_ring, n);
}

static double case_ringdef(struct kctx *c, uint64_t n)
{
    return ring_loop(c, c->ringdef, &c->pos_def, n);
}

static double case_noop(struct kctx *c, uint64_t n)
{
    return ring_loop(c, c->noop, &c->pos_noop, n);
}

static uint64_t calibrate(struct kctx *c, case_fn f, double target_ns)
{
    uint64_t n = 1;
    for (;;) {
        const double dt = f(c, n);
        if (dt >= target_ns / 8 || n >= (UINT64_C(1) << 36)) {
            const double per = dt / (double)n;
            const uint64_t m = (uint64_t)(target_ns / per);
            return m ? m : 1;
        }
        n *= dt < target_ns / 256 ? 16 : 2;
    }
}

enum { C_RESTORE, C_LANES, C_SHORT, C_NOOP, C_RING, C_RINGDEF, C_COUNT };

struct kresult {
    double med[C_COUNT], min[C_COUNT], max[C_COUNT]; /* ns per iteration */
    int have[C_COUNT];
};

static void measure(struct kctx *c, struct kresult *r)
{
    case_fn fn[C_COUNT] = {NULL};
    memset(r, 0, sizeof *r);
    fn[C_RESTORE] = case_restore;
    fn[C_LANES] = case_lanes;
    if (c->len <= 16 * MBGCMI_SHORT_MAX_BLOCKS) {
        fn[C_SHORT] = case_short;
    }
    fn[C_NOOP] = case_noop;
    fn[C_RING] = case_ring;
    fn[C_RINGDEF] = case_ringdef;
    uint64_t n[C_COUNT] = {0};
    for (int k = 0; k < C_COUNT; k++) {
        if (fn[k]) {
            n[k] = calibrate(c, fn[k], ko.ms * 1e6);
        }
    }
    static double v[C_COUNT][MAX_REPS];
    for (unsigned rep = 0; rep < ko.reps; rep++) { /* interleaved */
        for (int k = 0; k < C_COUNT; k++) {
            if (fn[k]) {
                v[k][rep] = fn[k](c, n[k]) / (double)n[k];
            }
        }
    }
    for (int k = 0; k < C_COUNT; k++) {
        if (fn[k]) {
            r->med[k] = median(v[k], ko.reps);
            r->min[k] = v[k][0];
            r->max[k] = v[k][ko.reps - 1];
            r->have[k] = 1;
        }
    }
}

static void usage(FILE *f)
{
    fputs("usage: mbgcm-kbench [--sizes LIST] [--reps N] [--ms-per-rep MS] [--keys K] [--cpu N]\n"
          "                    [--smoke]\n"
          "  --sizes LIST     message sizes (default 64,256,1420,16384)\n"
          "  --reps N         repetitions, median reported (default 7)\n"
          "  --ms-per-rep MS  milliseconds per repetition and case (default 20)\n"
          "  --keys K         keys round-robin in the ring API cases (default 64)\n"
          "  --cpu N          pin to CPU N (default: the CPU it starts on)\n"
          "  --smoke          check outputs, tiny budgets (for ctest)\n"
          "  --wall-clock     time with CLOCK_MONOTONIC instead of the thread's CPU time\n",
          f);
}

int main(int argc, char **argv)
{
    static const struct option lo[] = {{"sizes", required_argument, NULL, 's'},
                                       {"reps", required_argument, NULL, 'r'},
                                       {"ms-per-rep", required_argument, NULL, 'm'},
                                       {"keys", required_argument, NULL, 'k'},
                                       {"cpu", required_argument, NULL, 'c'},
                                       {"smoke", no_argument, NULL, 'S'},
                                       {"wall-clock", no_argument, NULL, 'W'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
    static const size_t defsizes[] = {64, 256, 1420, 16384};
    ko.nsizes = 4;
    memcpy(ko.sizes, defsizes, sizeof defsizes);
    ko.reps = 7;
    ko.ms = 20;
    ko.keys = 64;
    ko.cpu = -1;
    int c;
    while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (c) {
        case 's': {
            ko.nsizes = 0;
            char *copy = strdup(optarg), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *end;
                const unsigned long v = strtoul(t, &end, 10);
                if (*end || end == t || ko.nsizes == MAX_SIZES || v > (1u << 24)) {
                    die("bad --sizes '%s'", optarg);
                }
                ko.sizes[ko.nsizes++] = v;
            }
            free(copy);
            break;
        }
        case 'r': ko.reps = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'm': ko.ms = strtod(optarg, NULL); break;
        case 'k': ko.keys = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'c': ko.cpu = (int)strtol(optarg, NULL, 10); break;
        case 'S': ko.smoke = 1; break;
        case 'W': bench_wall_clock = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (ko.reps < 1 || ko.reps > MAX_REPS || !(ko.ms > 0) || ko.keys < 1 || ko.keys > 4096 ||
        ko.nsizes == 0) {
        die("bad options (reps 1..%d, ms > 0, keys 1..4096)", MAX_REPS);
    }
    if (ko.smoke) {
        ko.nsizes = 2;
        ko.sizes[0] = 64;
        ko.sizes[1] = 1420;
        ko.reps = 1;
        ko.ms = 0.5;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!mbgcmi_arch_supported(mbgcmi_arch_find("avx512"))) {
        printf("mbgcm-kbench: this CPU/OS lacks the avx512 arch: nothing to measure\n");
        return 0;
    }
    const int cpu = ko.cpu >= 0 ? ko.cpu : sched_getcpu();
    if (cpu >= 0 && pin_to(cpu) != 0) {
        fprintf(stderr, "mbgcm-kbench: warning: cannot pin to CPU %d\n", cpu);
    }
    char model[256], flags[256];
    cpu_describe(model, sizeof model, flags, sizeof flags);
    /* warm-up, then the core clock */
    {
        struct kctx w;
        ctx_init(&w, 1420, 0);
        const uint64_t t_end = now_ns() + (ko.smoke ? 0 : 300000000u);
        do {
            (void)case_ring(&w, 256);
        } while (now_ns() < t_end);
        ctx_free(&w);
    }
    const double ghz = measure_ghz(5, 4.0);
    printf("mbgcm-kbench: mbgcm %s, avx512 lane kernels; CPU %s, pinned to CPU %d, core clock "
           "%.2f GHz\n",
           mbgcm_version(), model, cpu, ghz);
    printf("encrypt, 12-byte IV, 16-byte AAD, 16-byte tag; median of %u reps of ~%.0f ms of %s "
           "time, interleaved; ns per kernel call (4 jobs) and per job\n",
           ko.reps, ko.ms, bench_wall_clock ? "wall-clock" : "thread CPU");
    const uint64_t thr = mbgcmi_arch_find("avx512")->single_min_len;
    printf("kernels: 4 lanes of 4 different keys; C path and ring API: %u keys round-robin, "
           "manager with %u lanes; the default manager\nsends jobs of ",
           ko.keys, MBGCMI_DEFAULT_LANES);
    if (thr == UINT64_MAX) {
        printf("any length to the lanes\n");
    } else {
        printf("%llu bytes or more single-stream (struct mbgcmi_arch.single_min_len) unless "
               "the short-job kernel takes them (12-byte IV, AAD <= 16, up to %u bytes)\n",
               (unsigned long long)thr, 16u * MBGCMI_SHORT_MAX_BLOCKS);
    }
    unsigned nwarn = 0;
    for (int mixed = 0; mixed < 2; mixed++) {
        printf("\n%s\n", mixed ? "mixed AES-128/AES-256 (kernels: lanes 1 and 3 AES-128; ring: "
                                 "odd keys AES-128)"
                               : "uniform AES-256");
        printf("  %6s %8s %10s %9s %10s %9s %8s %10s %8s %8s %10s %7s\n", "bytes", "restore",
               "lanes/call", "lanes/job", "short/call", "short/job", "C path", "ring lanes",
               "unexpl.", "kernel%", "ring dflt", "cyc/B");
        for (unsigned si = 0; si < ko.nsizes; si++) {
            struct kctx cx;
            ctx_init(&cx, ko.sizes[si], mixed);
            struct kresult r;
            measure(&cx, &r);
            ctx_free(&cx);
            const double lanes_call = r.med[C_LANES] - r.med[C_RESTORE];
            const double lanes_job = lanes_call / 4;
            const double short_call = r.have[C_SHORT] ? r.med[C_SHORT] : 0;
            const double kjob = r.have[C_SHORT] ? short_call / 4 : lanes_job;
            const double ring = r.med[C_RING], cpath = r.med[C_NOOP], rdef = r.med[C_RINGDEF];
            char sc[16] = "-", sj[16] = "-";
            if (r.have[C_SHORT]) {
                snprintf(sc, sizeof sc, "%.1f", short_call);
                snprintf(sj, sizeof sj, "%.1f", short_call / 4);
            }
            /* the noisiest case, marked when its (max-min)/median exceeds 10% */
            static const char *const cname[C_COUNT] = {"restore", "lanes", "short", "C path",
                                                       "ring lanes", "ring dflt"};
            int worst = -1;
            double wsp = 0;
            for (int k = 0; k < C_COUNT; k++) {
                const double sp = r.have[k] ? (r.max[k] - r.min[k]) / r.med[k] : 0;
                if (sp > wsp) {
                    wsp = sp;
                    worst = k;
                }
            }
            const int warn = wsp > 0.10;
            nwarn += warn;
            char wtxt[48] = "";
            if (warn) {
                snprintf(wtxt, sizeof wtxt, " ! %s %.0f%%", cname[worst], 100 * wsp);
            }
            printf("  %6zu %8.1f %10.1f %9.1f %10s %9s %8.1f %10.1f %8.1f %7.0f%% %10.1f %7.2f%s\n",
                   ko.sizes[si], r.med[C_RESTORE], lanes_call, lanes_job, sc, sj, cpath, ring,
                   ring - cpath - kjob, 100 * kjob / ring, rdef,
                   rdef * ghz / (double)ko.sizes[si], wtxt);
        }
    }
    printf("\nrestore: copying the 2816-byte group snapshot; lanes/call: restore + "
           "mbgcmi_avx512_lanes, minus the restore; short: mbgcmi_avx512_short\n"
           "(<= 256 bytes; the ring sends it such jobs up to the variant's limit); C path: ring API "
           "with no-op kernels and single-stream off; ring lanes: ring API,\n"
           "single-stream off (every job in the lanes); unexpl. = ring lanes - C path - kernel "
           "per job (short kernel for <= 256 bytes,\n"
           "else lane kernel): cache and pipeline effects of running them together; kernel%% = "
           "that kernel per job / ring lanes;\n"
           "ring dflt: the default manager (jobs of at least the threshold above run "
           "single-stream), with its cycles per byte.\n");
    if (nwarn) {
        printf("warning: %u line(s) marked '!': the case named varies by more than 10%% "
               "between repetitions (noisy machine?)\n",
               nwarn);
    }
    return 0;
}
#endif /* MBGCM_HAVE_NASM */
