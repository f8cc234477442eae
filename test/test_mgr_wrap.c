/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mgr_wrap.c — the 32-bit counter wraps mod 2^32 on the lane path, without carrying into
 * the upper 96 bits of the counter block (SP 800-38D inc32), on every supported arch and
 * "auto".
 *
 * J0 only reaches the low word 0xFFFFFFxx from an IV whose length is not 12, which no test
 * can aim at; the manager's test hook (mbgcmi_mgr_set_j0_hook) rewrites J0 as each job enters
 * a lane instead. The hook sets random upper 96 bits and a low word of 0xFFFFFFFF,
 * 0xFFFFFFFE, 0xFFFFFFF0 (and a few other values near the wrap), so the first counter
 * inc32(J0) is at or just before 2^32. Jobs of 40 blocks and odd lengths, in mixed lane
 * groups (four jobs with different key sizes, directions, AAD and message lengths in one
 * group; some groups part-filled), are compared with the textbook reference in test_util
 * that takes J0 directly. The single-stream threshold is UINT64_MAX so every job takes the
 * lanes; the hook counts its calls to prove it ran for every job.
 */
#include "jobs_internal.h"
#include "test_util.h"

static const uint32_t low_words[] = {0xFFFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFF0u, 0xFFFFFFFDu,
                                     0xFFFFFFE0u, 0xFFFFFFD8u, 0x00000000u};
static const size_t lens[] = {640, 641, 639, 655, 1, 15, 16, 17, 33, 255, 257, 0, 528, 1023};
static const size_t aad_lens[] = {0, 1, 13, 16, 20, 64, 70};

static uint64_t counts[TU_MGR_NCFG];

struct wjob {
    const tu_key *k;
    uint8_t j0[16];
    int dir, tamper, in_place;
    size_t len, aad_len, tag_len;
    uint8_t iv[12], aad[80], tag[32], tag_want[32], *src, *dst, *want, want_tag[16];
    int expect;
    int hooked; /* the J0 hook saw this job */
};

struct hook_ctx {
    uint64_t calls;
};

static void j0_hook(void *ctx, const mbgcm_job *job, uint8_t j0[16])
{
    struct hook_ctx *h = ctx;
    struct wjob *w = job->user_data;
    memcpy(j0, w->j0, 16);
    w->hooked++;
    h->calls++;
}

static void wjob_make(tu_rng *r, struct wjob *w, const tu_key *k)
{
    memset(w, 0, sizeof *w);
    w->k = k;
    tu_rng_fill(r, w->j0, 12);
    const uint32_t lw = low_words[tu_rng_below(r, sizeof low_words / sizeof low_words[0])];
    w->j0[12] = (uint8_t)(lw >> 24);
    w->j0[13] = (uint8_t)(lw >> 16);
    w->j0[14] = (uint8_t)(lw >> 8);
    w->j0[15] = (uint8_t)lw;
    w->dir = tu_rng_below(r, 2) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    w->tamper = w->dir == MBGCM_DECRYPT && tu_rng_below(r, 6) == 0;
    w->in_place = (int)tu_rng_below(r, 2);
    w->len = lens[tu_rng_below(r, sizeof lens / sizeof lens[0])];
    w->aad_len = aad_lens[tu_rng_below(r, sizeof aad_lens / sizeof aad_lens[0])];
    w->tag_len = tu_pick_tag_len(r);
    tu_rng_fill(r, w->iv, sizeof w->iv);
    tu_rng_fill(r, w->aad, sizeof w->aad);
    /* buffers with 16 canary bytes on each side */
    w->src = tu_xmalloc(w->len + 32);
    w->dst = w->in_place ? w->src : tu_xmalloc(w->len + 32);
    w->want = tu_xmalloc(w->len + 32);
    tu_rng_fill(r, w->src, w->len + 32);
    if (!w->in_place) tu_rng_fill(r, w->dst, w->len + 32);
    uint8_t full[16];
    memcpy(w->want, w->dst, w->len + 32); /* canaries of dst */
    if (w->dir == MBGCM_ENCRYPT) {
        tu_tb_gcm_j0(k->raw, k->len, w->j0, w->aad, w->aad_len, w->src + 16, w->len,
                     w->want + 16, 0, full);
        tu_rng_fill(r, w->tag, sizeof w->tag);
        memcpy(w->want_tag, full, 16);
    } else {
        /* src := ciphertext of the plaintext now in src; want := that plaintext */
        memcpy(w->want + 16, w->src + 16, w->len);
        tu_tb_gcm_j0(k->raw, k->len, w->j0, w->aad, w->aad_len, w->want + 16, w->len,
                     w->src + 16, 0, full);
        tu_rng_fill(r, w->tag, sizeof w->tag);
        memcpy(w->tag + 8, full, w->tag_len);
        if (w->tamper) {
            w->tag[8 + tu_rng_below(r, w->tag_len)] ^= (uint8_t)(1u << tu_rng_below(r, 8));
            memset(w->want + 16, 0, w->len);
        }
    }
    w->expect = w->tamper ? MBGCM_ERR_AUTH : MBGCM_OK;
    /* the tag area afterwards: tag_len bytes written for encrypt, nothing else touched */
    memcpy(w->tag_want, w->tag, sizeof w->tag);
    if (w->dir == MBGCM_ENCRYPT) {
        memcpy(w->tag_want + 8, w->want_tag, w->tag_len);
    }
}

static void wjob_load(struct wjob *w, mbgcm_job *j)
{
    memset(j, 0, sizeof *j);
    j->key = &w->k->key;
    j->dir = w->dir;
    j->iv = w->iv;
    j->iv_len = 12;
    j->aad = w->aad;
    j->aad_len = w->aad_len;
    j->src = w->src + 16;
    j->dst = w->dst + 16;
    j->len = w->len;
    j->tag = w->tag + 8;
    j->tag_len = w->tag_len;
    j->user_data = w;
    j->status = -1;
}

static void wjob_check(struct wjob *w, const mbgcm_job *j, const char *ctx)
{
    char c[400];
    snprintf(c, sizeof c, "%s: %s key_len=%zu J0 low word %02x%02x%02x%02x len=%zu aad_len=%zu "
             "tag_len=%zu%s%s", ctx, w->dir == MBGCM_ENCRYPT ? "enc" : "dec", w->k->len,
             w->j0[12], w->j0[13], w->j0[14], w->j0[15], w->len, w->aad_len, w->tag_len,
             w->in_place ? " in-place" : "", w->tamper ? " tampered" : "");
    TU_CHECK(w->hooked == 1, "%s: the J0 hook ran %d times for this job (expected once: with "
             "single_min_len = UINT64_MAX every job must take the lane path and the hook)", c,
             w->hooked);
    TU_CHECK(j->status == w->expect, "%s: status %d, expected %d", c, j->status, w->expect);
    TU_MEM_EQ(w->dst, w->want, w->len + 32, "%s: output (with 16 canary bytes each side)", c);
    TU_MEM_EQ(w->tag, w->tag_want, sizeof w->tag, "%s: tag area (tag at byte 8)", c);
    free(w->src);
    if (!w->in_place) free(w->dst);
    free(w->want);
}

static void wrap_cfg(int cfg)
{
    tu_mgr_need_cfg(cfg);
    tu_mgr_need_lanes(cfg);
    tu_rng r;
    tu_mgr_rng_init(&r, "mgr_wrap", cfg);
    tu_key *keys = tu_keys_new(&r, 3, 16);
    tu_key_random(&r, &keys[1], 24);
    tu_key_random(&r, &keys[2], 32);
    const unsigned ngroups = (unsigned)tu_scaled(tu_mgr_fast_lanes(cfg) ? 600 : 300);
    static const unsigned lane_set[4] = {4, 4, 8, 16};
    uint64_t jobs = 0;
    for (unsigned gi = 0; gi < ngroups; gi++) {
        const unsigned lanes = lane_set[gi % 4];
        mbgcm_mgr *m = tu_mgr_open(cfg, lanes, 64, 0);
        mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
        struct hook_ctx h = {0};
        mbgcmi_mgr_set_j0_hook(m, j0_hook, &h);
        /* mostly full groups; some part-filled (idle lanes) */
        const unsigned n = tu_rng_below(&r, 4) ? lanes : 1 + (unsigned)tu_rng_below(&r, lanes);
        struct wjob w[16];
        mbgcm_job *slot[16];
        for (unsigned i = 0; i < n; i++) {
            wjob_make(&r, &w[i], &keys[tu_rng_below(&r, 3)]);
        }
        char ctx[160];
        snprintf(ctx, sizeof ctx, "arch=%s group %u lanes=%u jobs=%u (seed 0x%016llx)",
                 tu_mgr_label(cfg), gi, lanes, n, (unsigned long long)tu_seed());
        unsigned back = 0;
        for (unsigned i = 0; i < n; i++) {
            slot[i] = mbgcm_get_next_job(m);
            wjob_load(&w[i], slot[i]);
            for (mbgcm_job *j = mbgcm_submit_job(m); j != NULL; j = mbgcm_get_completed_job(m)) {
                TU_CHECK(back < n && j == slot[back], "%s: out of order", ctx);
                wjob_check(&w[back], j, ctx);
                back++;
            }
        }
        for (mbgcm_job *j; (j = mbgcm_flush_job(m)) != NULL;) {
            TU_CHECK(back < n && j == slot[back], "%s: out of order (flush)", ctx);
            wjob_check(&w[back], j, ctx);
            back++;
        }
        TU_CHECK(back == n, "%s: %u of %u jobs came back", ctx, back, n);
        TU_CHECK(h.calls == n, "%s: the J0 hook ran %llu times for %u jobs", ctx,
                 (unsigned long long)h.calls, n);
        jobs += n;
        /* the same through a burst */
        h.calls = 0;
        mbgcm_job bj[16];
        unsigned want = 0;
        for (unsigned i = 0; i < n; i++) {
            wjob_make(&r, &w[i], &keys[tu_rng_below(&r, 3)]);
            wjob_load(&w[i], &bj[i]);
            want += w[i].expect == MBGCM_OK;
        }
        const unsigned ok = mbgcm_submit_burst(m, bj, n);
        TU_CHECK(ok == want, "%s: burst returned %u, expected %u", ctx, ok, want);
        for (unsigned i = 0; i < n; i++) {
            wjob_check(&w[i], &bj[i], ctx);
        }
        TU_CHECK(h.calls == n, "%s: burst: the J0 hook ran %llu times for %u jobs", ctx,
                 (unsigned long long)h.calls, n);
        jobs += n;
        mbgcm_mgr_free(m);
    }
    tu_keys_free(keys, 3);
    counts[cfg] = jobs;
    print_message("%-8s %u groups, %llu jobs with J0 near the 2^32 wrap\n", tu_mgr_label(cfg),
                  ngroups, (unsigned long long)jobs);
}

/* The reference itself: inc32 wraps without a carry (one block at J0 low word 0xFFFFFFFF
   uses counter ...FFFFFFFF+1 = ...00000000 with the upper 96 bits unchanged). */
static void wrap_reference_self_check(void **state)
{
    (void)state;
    uint8_t cb[16];
    memset(cb, 0xAB, 12);
    cb[12] = cb[13] = cb[14] = cb[15] = 0xFF;
    tu_tb_inc32(cb);
    for (int i = 0; i < 12; i++) assert_int_equal(cb[i], 0xAB);
    for (int i = 12; i < 16; i++) assert_int_equal(cb[i], 0);
    /* with J0 = IV || 00000001 the textbook core equals OpenSSL */
    tu_rng r;
    tu_rng_init(&r, "mgr_wrap/self");
    tu_key k;
    tu_key_random(&r, &k, 24);
    uint8_t iv[12], j0[16], pt[100], ct1[100], ct2[100], t1[16], t2[16];
    tu_rng_fill(&r, iv, 12);
    tu_rng_fill(&r, pt, sizeof pt);
    tu_tb_j0(k.raw, k.len, iv, 12, j0);
    tu_tb_gcm_j0(k.raw, k.len, j0, iv, 7, pt, sizeof pt, ct1, 0, t1);
    tu_ossl_gcm_encrypt(k.raw, k.len, iv, 12, iv, 7, pt, sizeof pt, ct2, t2, 16);
    TU_MEM_EQ(ct1, ct2, sizeof ct1, "textbook vs OpenSSL ciphertext");
    TU_MEM_EQ(t1, t2, 16, "textbook vs OpenSSL tag");
    mbgcm_key_wipe(&k.key);
}

static void wrap_generic(void **state) { (void)state; wrap_cfg(TU_ARCH("generic")); }
static void wrap_aesni(void **state) { (void)state; wrap_cfg(TU_ARCH("aesni")); }
static void wrap_avx2(void **state) { (void)state; wrap_cfg(TU_ARCH("avx2")); }
static void wrap_avx512(void **state) { (void)state; wrap_cfg(TU_ARCH("avx512")); }
static void wrap_auto(void **state) { (void)state; wrap_cfg(TU_MGR_AUTO); }

int main(void)
{
    tu_seed();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wrap_reference_self_check),
        cmocka_unit_test(wrap_generic),
        cmocka_unit_test(wrap_aesni),
        cmocka_unit_test(wrap_avx2),
        cmocka_unit_test(wrap_avx512),
        cmocka_unit_test(wrap_auto),
    };
    const int fails = cmocka_run_group_tests_name("mgr_wrap", tests, NULL, NULL);
    tu_print_mgr_counts("jobs", counts);
    return fails ? 1 : 0;
}
