/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_mixed.c — one lane group holding four different jobs at once: different
 * key sizes AND directions AND lengths (AAD, message, tag) in the four lanes of one group,
 * checked against the references, on every supported arch and "auto".
 *
 * A manager with lanes = 4 takes four crafted jobs: the fourth submit fills the group, so the
 * first kernel call has all four lanes busy (checked through stats.kernel_calls[3]); then
 * flush drains them in order. Groups are built for both kernels the avx512 arch has: the
 * lane kernel (jobs longer than the short-job limits) and the short-job kernel (four jobs of
 * one block count: 12-byte IV, AAD <= 16). Short jobs wait in one class per key size, so there
 * the check is one kernel call per key size holding that size's jobs. The same four jobs also
 * go through submit_burst (four caller-owned jobs = one group). Every pattern of key size per lane (3^4 = 81: all the same,
 * one different, two and two, all sizes present, ...) is combined with every pattern of
 * direction per lane (2^4 = 16); the lanes' lengths are drawn from awkward values (0, 1, 15,
 * 16, 17, ..., multi-KiB) so that lanes sit in different phases (AAD, bulk, partial block,
 * finished) within the same kernel calls, and some decrypt lanes carry a flipped tag bit so
 * that failing and passing lanes share a group. Key objects: sometimes one object in several
 * lanes, sometimes distinct objects with the same raw key.
 */
#include "jobs_internal.h"
#include "test_util.h"

static const size_t text_lens[] = {0,   1,   2,   12,  15,  16,  17,   31,   32,   33,  47,
                                   48,  63,  64,  65,  100, 127, 128,  129,  255,  256, 257,
                                   511, 512, 513, 640, 1000, 1023, 1024, 1025, 4111};
static const size_t long_lens[] = {16383, 16384, 16385, 65535, 70000};
static const size_t aad_lens[] = {0, 1, 12, 15, 16, 17, 20, 31, 32, 33, 48, 64, 100, 255, 600};

static uint64_t counts[TU_MGR_NCFG];

static size_t pick(tu_rng *r, const size_t *v, size_t n)
{
    return v[tu_rng_below(r, n)];
}

struct pool {
    tu_key *k;     /* [size][2]: two key objects per size (the second a copy of the first's raw
                      key half of the time) */
};

/* Two key objects per key size; the second a copy of the first's raw key half of the time. */
static void pool_init(tu_rng *r, struct pool *p)
{
    p->k = tu_keys_new(r, 6, 16);
    for (int s = 0; s < 3; s++) {
        tu_key_random(r, &p->k[2 * s], 16 + 8 * (size_t)s);
        tu_key_random(r, &p->k[2 * s + 1], 16 + 8 * (size_t)s);
        if (tu_rng_below(r, 2)) { /* same raw key, another object */
            memcpy(p->k[2 * s + 1].raw, p->k[2 * s].raw, 32);
            assert_int_equal(mbgcm_key_init(&p->k[2 * s + 1].key, p->k[2 * s].raw,
                                            16 + 8 * (size_t)s),
                             MBGCM_OK);
        }
    }
}

static const tu_key *key_for(tu_rng *r, const struct pool *p, size_t ks)
{
    return &p->k[2 * ks + tu_rng_below(r, 2)];
}

/* Four jobs that share one kernel call under the manager's policy:
     LANES  jobs the lane kernel takes (message > 256 bytes, or AAD > 16 with a message, or an
            IV that is not 12 bytes: the short-job path does not take them), lengths all
            different;
     SHORT  jobs of one shape for the short-job kernel where the arch has one (12-byte IV, AAD
            <= 16, the same number of message blocks 0..16, lengths within the last block and
            some of them GMAC jobs (no message, as many blocks of AAD; every job whose message
            would reach the arch's message limit for the short-job kernel, |mlim|), and
            tag lengths differing); without a short kernel they fill a lane group as well.
     GMAC   SHORT with every job a GMAC job of 2..16 blocks of AAD (the kernel's GMAC-only
            calls: no key stream at all). */
enum { M_LANES, M_SHORT, M_GMAC };

static void make_group(tu_rng *r, const struct pool *p, int fast, int mode, uint64_t mlim,
                       unsigned kpat, unsigned dpat, tu_tjob *t[4])
{
    const unsigned nb = mode == M_GMAC ? (unsigned)tu_rng_range(r, 2, MBGCMI_SHORT_MAX_BLOCKS)
                                       : (unsigned)tu_rng_below(r, MBGCMI_SHORT_MAX_BLOCKS + 1);
    for (int i = 0; i < 4; i++) {
        tu_jspec sp;
        memset(&sp, 0, sizeof sp);
        unsigned kp = kpat;
        for (int s = 0; s < i; s++) kp /= 3;
        sp.key = key_for(r, p, kp % 3);
        sp.dir = (dpat >> i & 1) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
        sp.tag_len = tu_pick_tag_len(r);
        sp.in_place = (int)tu_rng_below(r, 2);
        sp.tamper = tu_rng_below(r, 5) == 0;
        if (mode != M_LANES) {
            sp.iv_len = 12;
            sp.aad_len = (size_t)tu_rng_below(r, MBGCMI_SHORT_MAX_AAD + 1);
            sp.len = nb == 0 ? 0 : 16 * (nb - 1) + 1 + (size_t)tu_rng_below(r, 16);
            if (nb >= 2 && (mode == M_GMAC || tu_rng_below(r, 3) == 0 || sp.len >= mlim)) {
                /* a GMAC job of as many AAD blocks */
                sp.aad_len = sp.len;
                sp.len = 0;
            }
        } else {
            sp.iv_len = tu_rng_below(r, 8) == 0 ? (size_t)tu_rng_range(r, 1, 64) : 12;
            sp.aad_len = pick(r, aad_lens, sizeof aad_lens / sizeof aad_lens[0]);
            sp.len = (fast && tu_rng_below(r, 16) == 0)
                         ? pick(r, long_lens, sizeof long_lens / sizeof long_lens[0])
                         : pick(r, text_lens, sizeof text_lens / sizeof text_lens[0]);
            if (sp.iv_len == 12 && ((sp.len <= 16 * MBGCMI_SHORT_MAX_BLOCKS &&
                                     sp.aad_len <= MBGCMI_SHORT_MAX_AAD) ||
                                    (sp.len == 0 && sp.aad_len <= 16 * MBGCMI_SHORT_MAX_BLOCKS))) {
                /* keep it off the short-job path: a longer AAD (with a message: without one
                   the job is a GMAC job, which the short kernel takes) or an odd IV length */
                if (sp.len != 0 && tu_rng_below(r, 2)) {
                    sp.aad_len = MBGCMI_SHORT_MAX_AAD + 1 + (size_t)tu_rng_below(r, 100);
                } else {
                    sp.iv_len = (size_t)tu_rng_range(r, 1, 11);
                }
            }
        }
        t[i] = tu_tjob_new(r, &sp);
    }
}

/* Four short jobs of one block count wait in one class per key size and run as one kernel call
   per class: the calls' lane counts are the key sizes' job counts. */
static void short_calls_check(tu_tjob *const t[4], const mbgcm_stats *s0, const mbgcm_stats *s1,
                              const char *ctx)
{
    unsigned per_size[3] = {0, 0, 0};
    for (int i = 0; i < 4; i++) {
        per_size[(t[i]->sp.key->len - 16) / 8]++;
    }
    uint64_t want[4] = {0, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
        if (per_size[k]) {
            want[per_size[k] - 1]++;
        }
    }
    for (int b = 0; b < 4; b++) {
        TU_CHECK(s1->kernel_calls[b] - s0->kernel_calls[b] == want[b],
                 "%s: %llu short-kernel calls with %d jobs, expected %llu", ctx,
                 (unsigned long long)(s1->kernel_calls[b] - s0->kernel_calls[b]), b + 1,
                 (unsigned long long)want[b]);
    }
}

static void mixed_cfg(int cfg)
{
    tu_mgr_need_cfg(cfg);
    tu_mgr_need_lanes(cfg);
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_mixed", cfg);
    const int fast = tu_mgr_fast_lanes(cfg);
    struct pool p;
    pool_init(&r, &p);
    mbgcm_mgr *m = tu_mgr_open(cfg, 4, 16, 0);
    mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
    const int has_short = tu_arch(tu_mgr_runs_arch(cfg))->short_jobs != NULL;
    const unsigned reps = fast ? 2 : 1; /* each: a lane pass and a short-job pass */
    uint64_t groups = 0;
    for (unsigned rep = 0; rep < 2 * reps; rep++) {
        for (unsigned kpat = 0; kpat < 81; kpat++) {
            /* scaled-down runs (sanitizers): directions 0000, 0101, 1010, 1111 only */
            for (unsigned dpat = 0; dpat < 16; dpat += tu_scale() < 1.0 ? 5 : 1) {
                /* the short-job passes: one group in four all GMAC */
                const int mode = !(rep & 1) ? M_LANES : (kpat + dpat) % 4 == 0 ? M_GMAC : M_SHORT;
                char ctx[200];
                static const char *const mname[] = {"lane", "short-job", "GMAC-only"};
                snprintf(ctx, sizeof ctx, "arch=%s %s group, key sizes %u%u%u%u dirs %x rep %u "
                         "(seed 0x%016llx)", tu_mgr_label(cfg), mname[mode], kpat % 3,
                         kpat / 3 % 3, kpat / 9 % 3, kpat / 27 % 3, dpat, rep,
                         (unsigned long long)tu_seed());
                tu_tjob *t[4];
                /* ring: four submits fill the group, then flush */
                make_group(&r, &p, fast, mode, m->short_msg_lim, kpat, dpat, t);
                mbgcm_stats s0, s1;
                assert_int_equal(mbgcm_mgr_stats(m, &s0), MBGCM_OK);
                mbgcm_job *slot[4];
                int back = 0;
                for (int i = 0; i < 4; i++) {
                    slot[i] = mbgcm_get_next_job(m);
                    tu_tjob_load(t[i], slot[i], (void *)(uintptr_t)i, &r);
                    mbgcm_job *j = mbgcm_submit_job(m);
                    while (j != NULL) {
                        TU_CHECK(back < 4 && j == slot[back], "%s: out of order", ctx);
                        tu_tjob_check(t[back], j, ctx);
                        back++;
                        j = mbgcm_get_completed_job(m);
                    }
                }
                assert_int_equal(mbgcm_mgr_stats(m, &s1), MBGCM_OK);
                if (mode == M_LANES || !has_short) {
                    TU_CHECK(s1.kernel_calls[3] > s0.kernel_calls[3],
                             "%s: no kernel call with four busy lanes", ctx);
                }
                mbgcm_job *j;
                while ((j = mbgcm_flush_job(m)) != NULL) {
                    TU_CHECK(back < 4 && j == slot[back], "%s: out of order (flush)", ctx);
                    tu_tjob_check(t[back], j, ctx);
                    back++;
                }
                TU_CHECK(back == 4, "%s: %d of 4 jobs came back", ctx, back);
                if (mode != M_LANES && has_short) {
                    /* short jobs wait by key size: one kernel call per size, all its jobs */
                    assert_int_equal(mbgcm_mgr_stats(m, &s1), MBGCM_OK);
                    short_calls_check(t, &s0, &s1, ctx);
                }
                for (int i = 0; i < 4; i++) tu_tjob_free(t[i]);

                /* burst: four caller-owned jobs */
                make_group(&r, &p, fast, mode, m->short_msg_lim, kpat, dpat, t);
                mbgcm_job bj[4];
                unsigned want = 0;
                for (int i = 0; i < 4; i++) {
                    tu_tjob_load(t[i], &bj[i], NULL, &r);
                    want += t[i]->expect == MBGCM_OK;
                }
                assert_int_equal(mbgcm_mgr_stats(m, &s0), MBGCM_OK);
                const unsigned ok = mbgcm_submit_burst(m, bj, 4);
                TU_CHECK(ok == want, "%s: burst returned %u, expected %u", ctx, ok, want);
                assert_int_equal(mbgcm_mgr_stats(m, &s1), MBGCM_OK);
                if (mode != M_LANES && has_short) {
                    short_calls_check(t, &s0, &s1, ctx);
                } else {
                    TU_CHECK(s1.kernel_calls[3] > s0.kernel_calls[3],
                             "%s: burst: no kernel call with four busy lanes", ctx);
                }
                for (int i = 0; i < 4; i++) {
                    tu_tjob_check(t[i], &bj[i], ctx);
                    tu_tjob_free(t[i]);
                }
                groups += 2;
                counts[cfg] += 8;
            }
        }
    }
    assert_int_equal(mbgcm_queue_size(m), 0);
    mbgcm_mgr_free(m);
    tu_keys_free(p.k, 6);
    print_message("%-8s %llu mixed groups, %llu jobs\n", tu_mgr_label(cfg),
                  (unsigned long long)groups, (unsigned long long)counts[cfg]);
}

/* Bursts longer than a short-job class holds (MBGCMI_SHORT_MAX_JOBS): 1..200 jobs of one
   block count on the default manager, so that a class fills up and runs in the middle of the
   burst and the jobs after it start the class again; in half of the bursts two key sizes take
   turns job by job (two classes filled in alternation). Directions, tag lengths, AAD, GMAC
   jobs, in place or not and failing tags vary per job; every job is checked, and where all of
   a one-class burst's jobs take the short-job kernel, so is the number of its runs. */
static void bigburst_cfg(int cfg)
{
    tu_mgr_need_cfg(cfg);
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_mixed/bigburst", cfg);
    struct pool p;
    pool_init(&r, &p);
    mbgcm_mgr *m = tu_mgr_open(cfg, 0, 0, 0);
    static const unsigned sizes[] = {1, 63, 64, 65, 127, 128, 129, 130, 200};
    enum { NMAX = 200 };
    tu_tjob **t = tu_xmalloc(NMAX * sizeof *t);
    mbgcm_job *bj = tu_xmalloc(NMAX * sizeof *bj);
    tu_jspec *sp = tu_xmalloc(NMAX * sizeof *sp);
    const unsigned reps = (unsigned)tu_scaled(24);
    uint64_t full_runs = 0;
    for (unsigned rep = 0; rep < reps; rep++) {
        const unsigned n = sizes[tu_rng_below(&r, sizeof sizes / sizeof sizes[0])];
        /* up to 9 blocks: under every variant's burst limits for the short-job kernel */
        const unsigned nb = (unsigned)tu_rng_below(&r, 10);
        const size_t ks0 = tu_rng_below(&r, 3), ks1 = rep & 1 ? (ks0 + 1) % 3 : ks0;
        char ctx[160];
        snprintf(ctx, sizeof ctx, "arch=%s bigburst %u jobs of %u blocks, key sizes %zu/%zu "
                 "(seed 0x%016llx)", tu_mgr_label(cfg), n, nb, ks0, ks1,
                 (unsigned long long)tu_seed());
        for (unsigned i = 0; i < n; i++) {
            memset(&sp[i], 0, sizeof sp[i]);
            sp[i].key = key_for(&r, &p, i & 1 ? ks1 : ks0);
            sp[i].dir = tu_rng_below(&r, 2) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
            sp[i].tag_len = tu_rng_below(&r, 4) == 0 ? tu_pick_tag_len(&r) : 16;
            sp[i].in_place = (int)tu_rng_below(&r, 2);
            sp[i].tamper = tu_rng_below(&r, 8) == 0;
            sp[i].iv_len = 12;
            sp[i].aad_len = (size_t)tu_rng_below(&r, MBGCMI_SHORT_MAX_AAD + 1);
            sp[i].len = nb == 0 ? 0 : 16 * (nb - 1) + 1 + (size_t)tu_rng_below(&r, 16);
            if (nb >= 2 && tu_rng_below(&r, 8) == 0) { /* a GMAC job of as many AAD blocks */
                sp[i].aad_len = sp[i].len;
                sp[i].len = 0;
            }
            t[i] = tu_tjob_new(&r, &sp[i]);
        }
        unsigned want = 0;
        for (unsigned i = 0; i < n; i++) {
            tu_tjob_load(t[i], &bj[i], NULL, &r);
            want += t[i]->expect == MBGCM_OK;
        }
        const int short_on = (n >= 2 || m->burst_short_min_jobs == 0) &&
                             tu_burst_short_on(m, bj, n);
        unsigned nshort = 0;
        for (unsigned i = 0; i < n; i++) {
            nshort += !tu_goes_single_burst(m, m->single_min_len, &sp[i], short_on);
        }
        mbgcm_stats s0, s1;
        assert_int_equal(mbgcm_mgr_stats(m, &s0), MBGCM_OK);
        const unsigned ok = mbgcm_submit_burst(m, bj, n);
        TU_CHECK(ok == want, "%s: burst returned %u, expected %u", ctx, ok, want);
        assert_int_equal(mbgcm_mgr_stats(m, &s1), MBGCM_OK);
        for (unsigned i = 0; i < n; i++) {
            tu_tjob_check(t[i], &bj[i], ctx);
            tu_tjob_free(t[i]);
        }
        if (m->sc != NULL && ks0 == ks1 && nshort == n) {
            const uint64_t runs = (n + MBGCMI_SHORT_MAX_JOBS - 1) / MBGCMI_SHORT_MAX_JOBS;
            TU_CHECK(s1.runs_burst - s0.runs_burst == runs,
                     "%s: %llu short-job runs, expected %llu", ctx,
                     (unsigned long long)(s1.runs_burst - s0.runs_burst),
                     (unsigned long long)runs);
            full_runs += n / MBGCMI_SHORT_MAX_JOBS;
        }
        counts[cfg] += n;
    }
    assert_int_equal(mbgcm_queue_size(m), 0);
    mbgcm_mgr_free(m);
    free(sp);
    free(bj);
    free(t);
    tu_keys_free(p.k, 6);
    print_message("%-8s bigburst: %u bursts, %llu full short-job classes run mid-burst\n",
                  tu_mgr_label(cfg), reps, (unsigned long long)full_runs);
}

static void bigburst_generic(void **state) { (void)state; bigburst_cfg(TU_ARCH("generic")); }
static void bigburst_avx2(void **state) { (void)state; bigburst_cfg(TU_ARCH("avx2")); }
static void bigburst_avx512(void **state) { (void)state; bigburst_cfg(TU_ARCH("avx512")); }

static void mixed_generic(void **state) { (void)state; mixed_cfg(TU_ARCH("generic")); }
static void mixed_aesni(void **state) { (void)state; mixed_cfg(TU_ARCH("aesni")); }
static void mixed_avx2(void **state) { (void)state; mixed_cfg(TU_ARCH("avx2")); }
static void mixed_avx512(void **state) { (void)state; mixed_cfg(TU_ARCH("avx512")); }
static void mixed_auto(void **state) { (void)state; mixed_cfg(TU_MGR_AUTO); }

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mixed_generic), cmocka_unit_test(mixed_aesni),
        cmocka_unit_test(mixed_avx2),    cmocka_unit_test(mixed_avx512),
        cmocka_unit_test(mixed_auto),
        cmocka_unit_test(bigburst_generic), cmocka_unit_test(bigburst_avx2),
        cmocka_unit_test(bigburst_avx512),
    };
    const int fails = cmocka_run_group_tests_name("mgr_mixed", tests, NULL, NULL);
    tu_print_mgr_counts("jobs", counts);
    return fails ? 1 : 0;
}
