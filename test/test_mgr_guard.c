/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_guard.c — no lane kernel reads or writes a byte outside a job's buffers:
 * guard pages around every buffer, through the job API, on every supported arch and "auto".
 *
 * Every buffer of a job (src, dst, aad, iv, tag) lives in its own mapping
 *     [PROT_NONE page][read/write pages][PROT_NONE page]
 * placed either so that its last byte is the last byte before the upper guard page (END), or
 * so that its first byte is the first byte after the lower guard page (START). A zero-length
 * buffer's pointer then points into a guard page. Any stray access faults; a SIGSEGV handler
 * names the buffer, the side and the job before the process dies.
 *
 * Jobs: message length 16*B + t for every tail t = 0..64 and AAD length 0..64 (all 4225
 * pairs), with B blocks of bulk in front (0, 1, 3, 8, 17, 40 or 100, cycling), so the bulk,
 * partial-block and tail paths all run; IV 12 bytes or 1..64 (hashed J0); random tag length;
 * some decrypt jobs with a flipped tag bit (dst zeroing). Each pair runs 8 times with every
 * combination of {END, START} x {in place, out of place} x {encrypt, decrypt}; the jobs of a
 * pass are shuffled and cut into lane groups of 1..4 jobs (a lanes=4 manager, flush after each
 * group), so lanes of different lengths share kernel calls and idle lanes occur; in passes 4..7
 * jobs of one shape (message blocks) are kept together so that the avx512 short-job kernel
 * (12-byte IV, AAD <= 16, <= 128 bytes) runs with one to four busy lanes as well. Two more
 * passes send the jobs single-stream (threshold 0). Where the guard page is not used (the other
 * side of each buffer), 256 bytes of canary around dst, tag and every input must be unchanged.
 * Results are checked against OpenSSL (ipsec-mb for IVs over 128 bytes: none here). Scaled-down
 * runs (sanitizers) keep every (tail, AAD) pair but run 4 of the 10 passes.
 */
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobs_internal.h"
#include "test_util.h"

#define RW_PAGES 3       /* 12 KiB: 100 blocks of bulk + 64 tail bytes fit */
#define WIN 256          /* canary bytes checked on the unguarded side */
#define NSLOT 4
enum { B_SRC, B_DST, B_AAD, B_IV, B_TAG, NBUF };
static const char *const buf_names[NBUF] = {"src", "dst", "aad", "iv", "tag"};

struct region {
    uint8_t *map;   /* guard page at map, rw at map + page, guard at rw + RW_PAGES*page */
    uint8_t *rw;
    size_t rw_len;
};

static size_t page;
static struct region reg[NSLOT][NBUF];
static char crash_ctx[512];
static uint64_t counts[TU_MGR_NCFG];

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    char msg[900];
    const uint8_t *a = si->si_addr;
    const char *what = "an address outside every guard page";
    int slot = -1, b = -1;
    for (int s = 0; s < NSLOT; s++) {
        for (int k = 0; k < NBUF; k++) {
            const struct region *g = &reg[s][k];
            if (a >= g->map && a < g->rw) {
                what = "the guard page BEFORE", slot = s, b = k;
            } else if (a >= g->rw + g->rw_len && a < g->rw + g->rw_len + page) {
                what = "the guard page AFTER", slot = s, b = k;
            }
        }
    }
    const int n = snprintf(msg, sizeof msg,
                           "\nSIGNAL %d: access at %p: %s %s of lane-group job %d (offset %ld "
                           "from the buffer's page edge)\n  while: %s\n",
                           sig, si->si_addr, what, b >= 0 ? buf_names[b] : "-", slot,
                           b >= 0 ? (long)(a < reg[slot][b].rw ? a - reg[slot][b].rw
                                                               : a - (reg[slot][b].rw +
                                                                      reg[slot][b].rw_len))
                                  : 0L,
                           crash_ctx);
    if (n > 0) {
        ssize_t w = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        (void)w;
    }
    _exit(3);
}

static int setup(void **state)
{
    (void)state;
    page = (size_t)sysconf(_SC_PAGESIZE);
    for (int s = 0; s < NSLOT; s++) {
        for (int k = 0; k < NBUF; k++) {
            const size_t total = (RW_PAGES + 2) * page;
            uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
            if (m == MAP_FAILED) {
                return -1;
            }
            if (mprotect(m, page, PROT_NONE) != 0 ||
                mprotect(m + (RW_PAGES + 1) * page, page, PROT_NONE) != 0) {
                return -1;
            }
            reg[s][k].map = m;
            reg[s][k].rw = m + page;
            reg[s][k].rw_len = RW_PAGES * page;
        }
    }
    return 0;
}

/* CMocka installs its own SIGSEGV handler around each test: put ours in place inside the test
   so that a fault names the buffer and the job. */
static void install_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = segv_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

static int teardown(void **state)
{
    (void)state;
    for (int s = 0; s < NSLOT; s++) {
        for (int k = 0; k < NBUF; k++) {
            munmap(reg[s][k].map, (RW_PAGES + 2) * page);
        }
    }
    return 0;
}

/* One job of a group, in slot |slot|'s regions. */
struct gjob {
    int slot, end, inpl, dir, tamper, expect;
    size_t len, aad_len, iv_len, tag_len;
    const tu_key *k;
    uint8_t *p[NBUF];       /* buffer pointers (src == dst in place) */
    size_t n[NBUF];         /* buffer lengths */
    uint8_t *want;          /* expected dst content */
    uint8_t want_tag[16];
    uint8_t *orig_in;       /* src content (to check it is unchanged out of place) */
    uint8_t pat;            /* canary byte */
};

static uint8_t *place(int slot, int b, size_t n, int end)
{
    struct region *g = &reg[slot][b];
    return end ? g->rw + g->rw_len - n : g->rw;
}

/* The window [lo, hi) of region |b| around a buffer [p, p+n) that the test fills and checks. */
static void window(int slot, int b, const uint8_t *p, size_t n, uint8_t **lo, uint8_t **hi)
{
    const struct region *g = &reg[slot][b];
    uint8_t *l = (uint8_t *)(uintptr_t)p - (p - g->rw < WIN ? (size_t)(p - g->rw) : WIN);
    const uint8_t *e = g->rw + g->rw_len;
    uint8_t *h = (uint8_t *)(uintptr_t)p + n + ((size_t)(e - (p + n)) < WIN ? (size_t)(e - (p + n)) : WIN);
    *lo = l;
    *hi = h;
}

static void gjob_make(tu_rng *r, struct gjob *j)
{
    /* canaries around every buffer */
    j->pat = (uint8_t)(0x11 * (j->slot + 1) + 0x80 * j->end);
    for (int b = 0; b < NBUF; b++) {
        if (j->inpl && b == B_SRC) continue;
        uint8_t *lo, *hi;
        window(j->slot, b, j->p[b], j->n[b], &lo, &hi);
        memset(lo, j->pat, (size_t)(hi - lo));
    }
    uint8_t *iv = j->p[B_IV], *aad = j->p[B_AAD], *src = j->p[B_SRC], *tag = j->p[B_TAG];
    tu_rng_fill(r, iv, j->iv_len);
    tu_rng_fill(r, aad, j->aad_len);
    j->want = tu_xmalloc(j->len);
    j->orig_in = tu_xmalloc(j->len);
    uint8_t full[16];
    tu_rng_fill(r, src, j->len);
    if (j->dir == MBGCM_ENCRYPT) {
        tu_ref_encrypt(j->k, iv, j->iv_len, aad, j->aad_len, src, j->len, j->want, full);
        memcpy(j->want_tag, full, 16);
        tu_rng_fill(r, tag, j->tag_len);
    } else {
        memcpy(j->want, src, j->len); /* plaintext */
        tu_ref_encrypt(j->k, iv, j->iv_len, aad, j->aad_len, j->want, j->len, src, full);
        memcpy(tag, full, j->tag_len);
        if (j->tamper) {
            tag[tu_rng_below(r, j->tag_len)] ^= (uint8_t)(1u << tu_rng_below(r, 8));
            memset(j->want, 0, j->len);
        }
    }
    memcpy(j->orig_in, src, j->len);
    if (!j->inpl && j->len) {
        memset(j->p[B_DST], 0xEE, j->len);
    }
    j->expect = j->tamper ? MBGCM_ERR_AUTH : MBGCM_OK;
}

static void gjob_load(const struct gjob *j, mbgcm_job *job)
{
    memset(job, 0, sizeof *job);
    job->key = &j->k->key;
    job->dir = j->dir;
    job->iv = j->p[B_IV];
    job->iv_len = j->iv_len;
    job->aad = j->p[B_AAD];
    job->aad_len = j->aad_len;
    job->src = j->p[B_SRC];
    job->dst = j->p[B_DST];
    job->len = j->len;
    job->tag = j->p[B_TAG];
    job->tag_len = j->tag_len;
    job->status = -7;
}

static void describe(const struct gjob *j, char *buf, size_t n)
{
    snprintf(buf, n, "slot %d %s %s %s key_len=%zu len=%zu aad_len=%zu iv_len=%zu tag_len=%zu%s",
             j->slot, j->end ? "END" : "START", j->inpl ? "in-place" : "out-of-place",
             j->dir == MBGCM_ENCRYPT ? "enc" : "dec", j->k->len, j->len, j->aad_len, j->iv_len,
             j->tag_len, j->tamper ? " tampered" : "");
}

/* Check one buffer's window: canary outside [p, p+n), |want| inside (NULL: not checked). */
static void check_window(const struct gjob *j, int b, const uint8_t *want, const char *ctx)
{
    uint8_t *lo, *hi;
    const uint8_t *p = j->p[b];
    window(j->slot, b, p, j->n[b], &lo, &hi);
    for (const uint8_t *q = lo; q < hi; q++) {
        if (q >= p && q < p + j->n[b]) {
            if (want != NULL && *q != want[q - p]) {
                char d[200];
                describe(j, d, sizeof d);
                fail_msg("%s: %s byte %ld is %02x, expected %02x; job %s", ctx, buf_names[b],
                         (long)(q - p), *q, want[q - p], d);
            }
        } else if (*q != j->pat) {
            char d[200];
            describe(j, d, sizeof d);
            fail_msg("%s: canary %s %s byte %ld changed (%02x); job %s", ctx,
                     q < p ? "before" : "after", buf_names[b],
                     q < p ? (long)(q - p) : (long)(q - (p + j->n[b])), *q, d);
        }
    }
}

static void gjob_check(struct gjob *j, const mbgcm_job *job, const char *ctx)
{
    char d[200];
    if (job->status != j->expect) {
        describe(j, d, sizeof d);
        fail_msg("%s: status %d, expected %d; job %s", ctx, job->status, j->expect, d);
    }
    check_window(j, B_DST, j->want, ctx);
    if (!j->inpl) {
        check_window(j, B_SRC, j->orig_in, ctx);
    }
    check_window(j, B_AAD, NULL, ctx);
    check_window(j, B_IV, NULL, ctx);
    check_window(j, B_TAG, j->dir == MBGCM_ENCRYPT ? j->want_tag : NULL, ctx);
    free(j->want);
    free(j->orig_in);
}

static const unsigned bulk_cycle[7] = {0, 1, 3, 8, 17, 40, 100};

/* message length of pair i (tail i % 65, AAD i / 65) in pass |pass| */
static size_t pair_len(unsigned i, unsigned pass)
{
    return 16 * (size_t)bulk_cycle[(i / 65 + pass) % 7] + i % 65;
}

static void guard_cfg(int cfg)
{
    tu_mgr_need_cfg(cfg);
    install_handler();
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_guard", cfg);
    tu_key *keys = tu_keys_new(&r, 3, 16);
    tu_key_random(&r, &keys[1], 24);
    tu_key_random(&r, &keys[2], 32);
    enum { NPAIR = 65 * 65 };
    unsigned *order = tu_xmalloc(NPAIR * sizeof *order);
    uint64_t jobs = 0, groups = 0, calls[4] = {0, 0, 0, 0};
    /* passes 0..7: lanes; 8, 9: single-stream (threshold 0). Scaled-down runs (sanitizers)
       keep every (tail, AAD) pair but run passes 0 and 7 (complementary END/START, in/out of
       place and direction for every pair), 4 (shape-grouped) and 8. */
    static const unsigned all_passes[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const unsigned few_passes[4] = {0, 7, 4, 8};
    const int few = tu_scale() < 1.0;
    const unsigned npass = few ? 4 : 10;
    for (unsigned pi = 0; pi < npass; pi++) {
        const unsigned pass = few ? few_passes[pi] : all_passes[pi];
        const int single = pass >= 8;
        mbgcm_mgr *m = tu_mgr_open(cfg, 4, 8, 0);
        mbgcmi_mgr_set_single_min_len(m, single ? 0 : UINT64_MAX);
        for (unsigned i = 0; i < NPAIR; i++) order[i] = i;
        for (unsigned i = NPAIR - 1; i > 0; i--) { /* shuffle */
            const unsigned k = (unsigned)tu_rng_below(&r, i + 1), t = order[i];
            order[i] = order[k];
            order[k] = t;
        }
        if (pass >= 4 && pass < 8) {
            /* group jobs of one shape (message blocks) together, so that the short-job
               kernel runs with several busy lanes too; stable, so random within a shape */
            unsigned *tmp = tu_xmalloc(NPAIR * sizeof *tmp);
            unsigned k = 0;
            for (unsigned nb = 0; nb <= 100 + 5; nb++) { /* up to 100 blocks + 64 bytes */
                for (unsigned i = 0; i < NPAIR; i++) {
                    if (pair_len(order[i], pass) / 16 + (pair_len(order[i], pass) % 16 != 0) == nb) {
                        tmp[k++] = order[i];
                    }
                }
            }
            TU_CHECK(k == NPAIR, "shape sort lost pairs (%u)", k);
            memcpy(order, tmp, NPAIR * sizeof *order);
            free(tmp);
        }
        unsigned pos = 0;
        while (pos < NPAIR) {
            unsigned n = 1 + (unsigned)tu_rng_below(&r, 4);
            if (n > NPAIR - pos) n = NPAIR - pos;
            struct gjob g[NSLOT];
            mbgcm_job *slot[NSLOT];
            for (unsigned s = 0; s < n; s++) {
                const unsigned i = order[pos + s];
                struct gjob *j = &g[s];
                memset(j, 0, sizeof *j);
                const unsigned p = single ? (pass & 1) | (unsigned)(tu_rng_below(&r, 8) & 6) : pass;
                j->slot = (int)s;
                j->end = (int)((p ^ (i >> 2)) & 1);
                j->inpl = (int)(((p >> 1) ^ (i >> 1)) & 1);
                j->dir = (((p >> 2) ^ i) & 1) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
                j->tamper = j->dir == MBGCM_DECRYPT && tu_rng_below(&r, 8) == 0;
                j->len = pair_len(i, pass);
                j->aad_len = i / 65;
                j->iv_len = tu_rng_below(&r, 4) ? 12 : (size_t)tu_rng_range(&r, 1, 64);
                j->tag_len = tu_pick_tag_len(&r);
                j->k = &keys[tu_rng_below(&r, 3)];
                j->n[B_SRC] = j->n[B_DST] = j->len;
                j->n[B_AAD] = j->aad_len;
                j->n[B_IV] = j->iv_len;
                j->n[B_TAG] = j->tag_len;
                for (int b = 0; b < NBUF; b++) j->p[b] = place(j->slot, b, j->n[b], j->end);
                if (j->inpl) j->p[B_SRC] = j->p[B_DST];
                gjob_make(&r, j);
            }
            char ctx[300];
            snprintf(ctx, sizeof ctx, "arch=%s pass=%u (%s) group of %u at pair %u (seed "
                     "0x%016llx)", tu_mgr_label(cfg), pass, single ? "single-stream" : "lanes",
                     n, pos, (unsigned long long)tu_seed());
            {
                int k = snprintf(crash_ctx, sizeof crash_ctx, "%s; jobs:", ctx);
                for (unsigned s = 0; s < n && k > 0 && (size_t)k < sizeof crash_ctx; s++) {
                    char d[200];
                    describe(&g[s], d, sizeof d);
                    k += snprintf(crash_ctx + k, sizeof crash_ctx - (size_t)k, " [%s]", d);
                }
            }
            const int use_burst = tu_rng_below(&r, 4) == 0;
            if (use_burst) {
                mbgcm_job bj[NSLOT];
                unsigned want = 0;
                for (unsigned s = 0; s < n; s++) {
                    gjob_load(&g[s], &bj[s]);
                    want += g[s].expect == MBGCM_OK;
                }
                const unsigned ok = mbgcm_submit_burst(m, bj, n);
                TU_CHECK(ok == want, "%s: burst OK count %u, expected %u", ctx, ok, want);
                for (unsigned s = 0; s < n; s++) gjob_check(&g[s], &bj[s], ctx);
            } else {
                unsigned back = 0;
                for (unsigned s = 0; s < n; s++) {
                    slot[s] = mbgcm_get_next_job(m);
                    gjob_load(&g[s], slot[s]);
                    for (mbgcm_job *x = mbgcm_submit_job(m); x; x = mbgcm_get_completed_job(m)) {
                        TU_CHECK(back < n && x == slot[back], "%s: order", ctx);
                        gjob_check(&g[back], x, ctx);
                        back++;
                    }
                }
                for (mbgcm_job *x; (x = mbgcm_flush_job(m)) != NULL;) {
                    TU_CHECK(back < n && x == slot[back], "%s: order (flush)", ctx);
                    gjob_check(&g[back], x, ctx);
                    back++;
                }
                TU_CHECK(back == n, "%s: %u of %u back", ctx, back, n);
            }
            pos += n;
            jobs += n;
            groups++;
        }
        mbgcm_stats st;
        assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
        for (int b = 0; b < 4; b++) calls[b] += st.kernel_calls[b];
        mbgcm_mgr_free(m);
    }
    crash_ctx[0] = '\0';
    free(order);
    tu_keys_free(keys, 3);
    counts[cfg] = jobs;
    print_message("%-8s %llu jobs in %llu groups with guard pages; kernel calls with 1/2/3/4 "
                  "busy lanes %llu/%llu/%llu/%llu\n", tu_mgr_label(cfg),
                  (unsigned long long)jobs, (unsigned long long)groups,
                  (unsigned long long)calls[0], (unsigned long long)calls[1],
                  (unsigned long long)calls[2], (unsigned long long)calls[3]);
}

static void guard_generic(void **state) { (void)state; guard_cfg(TU_ARCH("generic")); }
static void guard_aesni(void **state) { (void)state; guard_cfg(TU_ARCH("aesni")); }
static void guard_avx2(void **state) { (void)state; guard_cfg(TU_ARCH("avx2")); }
static void guard_avx512(void **state) { (void)state; guard_cfg(TU_ARCH("avx512")); }
static void guard_auto(void **state) { (void)state; guard_cfg(TU_MGR_AUTO); }

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(guard_generic), cmocka_unit_test(guard_aesni),
        cmocka_unit_test(guard_avx2),    cmocka_unit_test(guard_avx512),
        cmocka_unit_test(guard_auto),
    };
    const int fails = cmocka_run_group_tests_name("mgr_guard", tests, setup, teardown);
    tu_print_mgr_counts("jobs", counts);
    return fails ? 1 : 0;
}
