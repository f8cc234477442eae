/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api_promises.c — promises of api/mbgcm.h that are easy to break without noticing:
 *   - the raw key may lie inside the key object it initialises (read before it is written);
 *   - a decrypt job's expected tag may lie inside its own dst (read before any output), on
 *     every arch and every path (ring: short jobs, lanes, single-stream; burst; SGL);
 *   - an expected tag changed before its job is returned breaks the contract, yet never
 *     releases wrong plaintext: each such job ends OK with the exact plaintext or
 *     MBGCM_ERR_AUTH with dst zeroed;
 *   - scatter-gather destinations whose segments share memory are MBGCM_ERR_INVALID (the
 *     same list in place, or a separate destination list), and the manager keeps working;
 *   - a short job with any one defect gets the status the general checks give (ring and
 *     burst, every arch), its neighbours come out right and the manager keeps working;
 *   - mbgcm_config.arch "" is an unknown arch (MBGCM_ERR_UNSUPPORTED) whatever MBGCM_ARCH
 *     says, and MBGCM_ARCH set but empty counts as unset;
 *   - ring jobs for the short-job kernel run in batches of 8, or of |lanes| when that is more;
 *   - mbgcm_config's memory hooks: used for the one allocation, 64-byte aligned, wiped before
 *     they get it back; one hook without the other is MBGCM_ERR_INVALID; NULL is NOMEM.
 * Seed printed; MBGCM_SEED replays.
 */
#include "jobs_internal.h"
#include "test_util.h"

static tu_rng rng;

/* ---- key from inside the key object --------------------------------------------------- */

/* Encrypt a fixed message under |k| and compare with OpenSSL under |raw|. */
static void check_key_encrypts_as(const mbgcm_key *k, const uint8_t *raw, size_t len,
                                  const char *what)
{
    uint8_t iv[12], pt[40], ct[40], tag[16], want[40], wtag[16];
    tu_rng_fill(&rng, iv, sizeof iv);
    tu_rng_fill(&rng, pt, sizeof pt);
    tu_ossl_gcm_encrypt(raw, len, iv, 12, NULL, 0, pt, sizeof pt, want, wtag, 16);
    assert_int_equal(mbgcm_encrypt(k, iv, 12, NULL, 0, pt, sizeof pt, ct, tag, 16), MBGCM_OK);
    TU_MEM_EQ(ct, want, sizeof ct, "%s: ciphertext", what);
    TU_MEM_EQ(tag, wtag, 16, "%s: tag", what);
}

static void test_key_from_inside_key(void **state)
{
    (void)state;
    static const size_t lens[] = {16, 24, 32};
    /* room before the key object, so a raw key can start before it and run into it */
    struct {
        uint8_t before[64];
        mbgcm_key key;
    } __attribute__((aligned(64))) box;
    for (size_t li = 0; li < 3; li++) {
        const size_t len = lens[li];
        uint8_t raw[32];
        for (int way = 0; way < 3; way++) {
            tu_rng_fill(&rng, raw, len);
            mbgcm_key_init(&box.key, raw, 16); /* some earlier contents */
            uint8_t *at;
            const char *what;
            switch (way) {
            case 0: /* the raw key at the very start of the key object */
                at = (uint8_t *)&box.key;
                what = "raw key at the start of the key object";
                break;
            case 1: /* inside it, where the GHASH powers live */
                at = (uint8_t *)&box.key + 300;
                what = "raw key in the middle of the key object";
                break;
            default: /* starting before the object and ending inside it */
                at = (uint8_t *)&box.key - len / 2;
                what = "raw key running into the key object";
                break;
            }
            memcpy(at, raw, len);
            assert_int_equal(mbgcm_key_init(&box.key, at, len), MBGCM_OK);
            char msg[96];
            snprintf(msg, sizeof msg, "AES-%zu, %s", 8 * len, what);
            check_key_encrypts_as(&box.key, raw, len, msg);
        }
    }
    mbgcm_key_wipe(&box.key);
}

/* ---- the expected tag ------------------------------------------------------------------- */

/* Paths a job can take, chosen by its shape and the manager's threshold. */
enum path { P_SHORT, P_LANES, P_SINGLE, P_SGL, P_COUNT };
static const char *const path_name[P_COUNT] = {"short", "lanes", "single-stream", "sgl"};

struct msg {
    tu_key *key;
    uint8_t iv[12], aad[32], pt[600], ct[600], tag[16];
    size_t aad_len, len;
};

static void msg_make(struct msg *m, tu_key *key, enum path p)
{
    m->key = key;
    /* short: <= 128 bytes and <= 16 AAD; lanes: AAD 20 keeps it off the short kernel;
       single-stream: long enough for every arch's threshold */
    m->aad_len = p == P_SHORT ? tu_rng_below(&rng, 17) : 17 + tu_rng_below(&rng, 15);
    m->len = p == P_SHORT ? 16 + tu_rng_below(&rng, 113) : 200 + tu_rng_below(&rng, 400);
    tu_rng_fill(&rng, m->iv, 12);
    tu_rng_fill(&rng, m->aad, m->aad_len);
    tu_rng_fill(&rng, m->pt, m->len);
    tu_ossl_gcm_encrypt(key->raw, key->len, m->iv, 12, m->aad, m->aad_len, m->pt, m->len,
                        m->ct, m->tag, 16);
}

static void job_set(mbgcm_job *j, const struct msg *m, uint8_t *dst, uint8_t *tag,
                    mbgcm_seg *seg)
{
    memset(j, 0, sizeof *j);
    j->key = &m->key->key;
    j->dir = MBGCM_DECRYPT;
    j->iv = m->iv;
    j->iv_len = 12;
    j->aad = m->aad;
    j->aad_len = m->aad_len;
    j->src = m->ct;
    j->dst = dst;
    j->len = m->len;
    j->tag = tag;
    j->tag_len = 16;
    if (seg != NULL) { /* the destination as two segments of |dst| in reverse order */
        const size_t cut = m->len / 3;
        seg[0].ptr = dst + (m->len - cut) + 64;
        seg[0].len = cut;
        seg[1].ptr = dst;
        seg[1].len = m->len - cut;
        j->dst = NULL;
        j->dst_sgl = seg;
        j->dst_nseg = 2;
    }
}

/* Plaintext of |m| as the job wrote it (undoing job_set's segment layout). */
static void gathered(const struct msg *m, const uint8_t *dst, int sgl, uint8_t *out)
{
    if (!sgl) {
        memcpy(out, dst, m->len);
        return;
    }
    const size_t cut = m->len / 3;
    memcpy(out, dst + (m->len - cut) + 64, cut);
    memcpy(out + cut, dst, m->len - cut);
}

#define NJ 8
#define DROOM 800

static mbgcm_mgr *open_for(int cfg, enum path p)
{
    mbgcm_mgr *m = tu_mgr_open(cfg, 4, 16, 0);
    if (p == P_LANES || p == P_SHORT) {
        mbgcmi_mgr_set_single_min_len(m, UINT64_MAX); /* lanes on every arch */
    } else {
        mbgcmi_mgr_set_single_min_len(m, 0);
    }
    return m;
}

/* Run |n| prepared jobs through the ring (burst = 0) or one burst; the ring jobs are copied
   into slots and back so the caller can look at them the same way. |between| runs after
   each ring submit (the caller's misuse), with the index of the job just submitted. */
static void run_jobs(mbgcm_mgr *m, mbgcm_job *jobs, unsigned n, int burst,
                     void (*between)(unsigned i, void *ctx), void *ctx)
{
    if (burst) {
        if (between) {
            between(n - 1, ctx);
        }
        mbgcm_submit_burst(m, jobs, n);
        return;
    }
    unsigned back = 0;
    for (unsigned i = 0; i < n; i++) {
        mbgcm_job *slot = mbgcm_get_next_job(m);
        *slot = jobs[i];
        slot->user_data = &jobs[i];
        mbgcm_job *done = mbgcm_submit_job(m);
        if (between) {
            between(i, ctx);
        }
        for (; done != NULL; done = mbgcm_get_completed_job(m), back++) {
            ((mbgcm_job *)done->user_data)->status = done->status;
        }
    }
    for (mbgcm_job *done; (done = mbgcm_flush_job(m)) != NULL; back++) {
        ((mbgcm_job *)done->user_data)->status = done->status;
    }
    assert_int_equal(back, n);
}

static void test_tag_inside_dst(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 3, 0);
    struct msg *msgs = tu_xmalloc(NJ * sizeof *msgs);
    uint8_t *dst = tu_xmalloc(NJ * DROOM);
    mbgcm_seg seg[NJ][2];
    mbgcm_job jobs[NJ];
    uint8_t got[600];
    for (int c = 0; c < nc; c++) {
        for (int p = 0; p < P_COUNT; p++) {
            for (int burst = 0; burst < 2; burst++) {
                mbgcm_mgr *m = open_for(cfgs[c], (enum path)p);
                for (unsigned i = 0; i < NJ; i++) {
                    msg_make(&msgs[i], &keys[i % 3], p == P_SHORT ? P_SHORT : P_LANES);
                    uint8_t *d = dst + i * DROOM;
                    memset(d, 0xA5, DROOM);
                    /* the expected tag inside dst: at its start, middle or last 16 bytes */
                    const size_t len = msgs[i].len;
                    const size_t at = i % 3 == 0 ? 0 : i % 3 == 1 ? len / 2 - 3 : len - 16;
                    job_set(&jobs[i], &msgs[i], d, d + at, p == P_SGL ? seg[i] : NULL);
                    if (p == P_SGL) { /* the tag inside the first destination segment */
                        memcpy(seg[i][0].ptr + (i % 2 ? 0 : seg[i][0].len - 16),
                               msgs[i].tag, 16);
                        jobs[i].tag = seg[i][0].ptr + (i % 2 ? 0 : seg[i][0].len - 16);
                    } else {
                        memcpy(d + at, msgs[i].tag, 16);
                    }
                }
                run_jobs(m, jobs, NJ, burst, NULL, NULL);
                for (unsigned i = 0; i < NJ; i++) {
                    TU_CHECK(jobs[i].status == MBGCM_OK, "%s, %s, %s: job %u status %d",
                             tu_mgr_label(cfgs[c]), path_name[p], burst ? "burst" : "ring", i,
                             jobs[i].status);
                    gathered(&msgs[i], dst + i * DROOM, p == P_SGL, got);
                    TU_MEM_EQ(got, msgs[i].pt, msgs[i].len, "%s, %s, %s: job %u plaintext",
                              tu_mgr_label(cfgs[c]), path_name[p], burst ? "burst" : "ring", i);
                }
                mbgcm_mgr_free(m);
            }
        }
    }
    free(dst);
    free(msgs);
    tu_keys_free(keys, 3);
}

/* The caller reuses one tag buffer: after submitting job i it copies in job i+1's tag
   (and garbage after the last). */
struct reuse {
    uint8_t *tagbuf;
    const struct msg *msgs;
    unsigned n;
};

static void reuse_tag(unsigned i, void *ctx)
{
    struct reuse *r = ctx;
    if (i + 1 < r->n) {
        memcpy(r->tagbuf, r->msgs[i + 1].tag, 16);
    } else {
        memset(r->tagbuf, 0x5A, 16);
    }
}

static void test_tag_changed_too_early(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 3, 0);
    struct msg *msgs = tu_xmalloc(NJ * sizeof *msgs);
    uint8_t *dst = tu_xmalloc(NJ * DROOM);
    mbgcm_seg seg[NJ][2];
    mbgcm_job jobs[NJ];
    uint8_t tagbuf[16], got[600];
    uint64_t ok = 0, auth = 0;
    for (int c = 0; c < nc; c++) {
        for (int p = 0; p < P_COUNT; p++) {
            mbgcm_mgr *m = open_for(cfgs[c], (enum path)p);
            for (unsigned i = 0; i < NJ; i++) {
                msg_make(&msgs[i], &keys[i % 3], p == P_SHORT ? P_SHORT : P_LANES);
                memset(dst + i * DROOM, 0xA5, DROOM);
                job_set(&jobs[i], &msgs[i], dst + i * DROOM, tagbuf, p == P_SGL ? seg[i] : NULL);
            }
            memcpy(tagbuf, msgs[0].tag, 16);
            struct reuse r = {tagbuf, msgs, NJ};
            run_jobs(m, jobs, NJ, 0, reuse_tag, &r);
            for (unsigned i = 0; i < NJ; i++) {
                gathered(&msgs[i], dst + i * DROOM, p == P_SGL, got);
                if (jobs[i].status == MBGCM_OK) {
                    ok++;
                    TU_MEM_EQ(got, msgs[i].pt, msgs[i].len, "%s, %s: job %u OK but wrong",
                              tu_mgr_label(cfgs[c]), path_name[p], i);
                } else {
                    auth++;
                    TU_CHECK(jobs[i].status == MBGCM_ERR_AUTH, "%s, %s: job %u status %d",
                             tu_mgr_label(cfgs[c]), path_name[p], i, jobs[i].status);
                    TU_CHECK(tu_all_byte(got, msgs[i].len, 0), "%s, %s: job %u not zeroed",
                             tu_mgr_label(cfgs[c]), path_name[p], i);
                }
            }
            /* the manager still works: a well-behaved job afterwards */
            msg_make(&msgs[0], &keys[0], (enum path)(p == P_SHORT ? P_SHORT : P_LANES));
            job_set(&jobs[0], &msgs[0], dst, msgs[0].tag, NULL);
            run_jobs(m, jobs, 1, 0, NULL, NULL);
            assert_int_equal(jobs[0].status, MBGCM_OK);
            mbgcm_mgr_free(m);
        }
    }
    printf("tag changed too early: %llu jobs OK (tag already read), %llu ERR_AUTH\n",
           (unsigned long long)ok, (unsigned long long)auth);
    free(dst);
    free(msgs);
    tu_keys_free(keys, 3);
}

/* ---- scatter-gather destinations that share memory ------------------------------------- */

static void test_sgl_overlapping_segments(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 1, 16);
    struct msg *msg = tu_xmalloc(sizeof *msg);
    uint8_t *buf = tu_xmalloc(2048), *src = tu_xmalloc(600);
    for (int c = 0; c < nc; c++) {
        for (int burst = 0; burst < 2; burst++) {
            mbgcm_mgr *m = tu_mgr_open(cfgs[c], 4, 16, 0);
            for (int kind = 0; kind < 5; kind++) {
                msg_make(msg, &keys[0], P_LANES);
                const size_t len = msg->len, h = len / 2;
                mbgcm_seg segs[3];
                mbgcm_job j;
                memset(&j, 0, sizeof j);
                j.key = &keys[0].key;
                j.dir = MBGCM_ENCRYPT;
                j.iv = msg->iv;
                j.iv_len = 12;
                j.aad = msg->aad;
                j.aad_len = msg->aad_len;
                j.len = len;
                j.tag = msg->tag;
                j.tag_len = 16;
                memcpy(src, msg->pt, len);
                int want = MBGCM_ERR_INVALID;
                const char *what;
                switch (kind) {
                case 0: /* in place, the second segment starts inside the first */
                    what = "in-place list, segments overlap";
                    memcpy(buf, msg->pt, len);
                    segs[0] = (mbgcm_seg){buf, h};
                    segs[1] = (mbgcm_seg){buf + h - 5, len - h};
                    j.src_sgl = j.dst_sgl = segs;
                    j.src_nseg = j.dst_nseg = 2;
                    break;
                case 1: /* in place, the same buffer twice */
                    what = "in-place list, a segment repeated";
                    segs[0] = (mbgcm_seg){buf, h};
                    segs[1] = (mbgcm_seg){buf, h};
                    segs[2] = (mbgcm_seg){buf + 1000, len - 2 * h};
                    j.src_sgl = j.dst_sgl = segs;
                    j.src_nseg = j.dst_nseg = 3;
                    break;
                case 2: /* separate source; destination segments overlap (listed backwards) */
                    what = "destination segments overlap";
                    segs[0] = (mbgcm_seg){buf + 1000, h};
                    segs[1] = (mbgcm_seg){buf + 1000 - (len - h) + 1, len - h};
                    j.src = src;
                    j.dst_sgl = segs;
                    j.dst_nseg = 2;
                    break;
                case 3: /* one segment inside another, with a gap segment between them */
                    what = "a destination segment inside another";
                    segs[0] = (mbgcm_seg){buf, len - 20};
                    segs[1] = (mbgcm_seg){buf + 1500, 10};
                    segs[2] = (mbgcm_seg){buf + 100, 10};
                    j.src = src;
                    j.dst_sgl = segs;
                    j.dst_nseg = 3;
                    break;
                default: /* disjoint, listed out of address order, touching: valid */
                    what = "disjoint destination segments";
                    want = MBGCM_OK;
                    segs[0] = (mbgcm_seg){buf + h, len - h};
                    segs[1] = (mbgcm_seg){buf, h};
                    j.src = src;
                    j.dst_sgl = segs;
                    j.dst_nseg = 2;
                    break;
                }
                run_jobs(m, &j, 1, burst, NULL, NULL);
                TU_CHECK(j.status == want, "%s, %s: %s: status %d, want %d",
                         tu_mgr_label(cfgs[c]), burst ? "burst" : "ring", what, j.status, want);
                if (want == MBGCM_OK) {
                    uint8_t ct[600];
                    memcpy(ct, buf + h, len - h);
                    memcpy(ct + (len - h), buf, h);
                    TU_MEM_EQ(ct, msg->ct, len, "%s: %s", tu_mgr_label(cfgs[c]), what);
                }
            }
            /* still working */
            msg_make(msg, &keys[0], P_SHORT);
            mbgcm_job j;
            job_set(&j, msg, buf, msg->tag, NULL);
            run_jobs(m, &j, 1, burst, NULL, NULL);
            assert_int_equal(j.status, MBGCM_OK);
            mbgcm_mgr_free(m);
        }
    }
    free(src);
    free(buf);
    free(msg);
    tu_keys_free(keys, 1);
}

/* ---- short jobs with one defect ------------------------------------------------------ */

/* The short-job path checks a job in one pass; every single defect must still get the status
   the general checks give, on each side of it valid jobs must come out right, and the
   manager must keep working. */
#define NDEF 20

static int defect_apply(mbgcm_job *j, int d, uint8_t *scratch, const mbgcm_key *zero_key)
{
    switch (d) {
    case 0: j->dir = 0; return MBGCM_ERR_INVALID;
    case 1: j->dir = 3; return MBGCM_ERR_INVALID;
    case 2: j->key = NULL; return MBGCM_ERR_INVALID;
    case 3: j->key = (const mbgcm_key *)((const uint8_t *)j->key + 16); return MBGCM_ERR_INVALID;
    case 4: j->key = zero_key; return MBGCM_ERR_INVALID; /* never initialised */
    case 5: j->tag_len = 0; return MBGCM_ERR_TAG_LEN;
    case 6: j->tag_len = 3; return MBGCM_ERR_TAG_LEN;
    case 7: j->tag_len = 5; return MBGCM_ERR_TAG_LEN;
    case 8: j->tag_len = 11; return MBGCM_ERR_TAG_LEN;
    case 9: j->tag_len = 17; return MBGCM_ERR_TAG_LEN;
    case 10: j->tag_len = 36; return MBGCM_ERR_TAG_LEN; /* 36 & 31 = 4, a valid length */
    case 11: j->iv = NULL; return MBGCM_ERR_INVALID;
    case 12: j->tag = NULL; return MBGCM_ERR_INVALID;
    case 13: j->aad = NULL; j->aad_len = 5; return MBGCM_ERR_INVALID;
    case 14: j->src = NULL; return MBGCM_ERR_INVALID;
    case 15: j->dst = NULL; return MBGCM_ERR_INVALID;
    case 16: /* destination one byte after the source, which holds the message */
        memcpy(scratch, j->src, j->len);
        j->src = scratch;
        j->dst = scratch + 1;
        return MBGCM_ERR_INVALID;
    case 17: /* destination ends one byte into the source */
        memcpy(scratch + j->len - 1, j->src, j->len);
        j->src = scratch + j->len - 1;
        j->dst = scratch;
        return MBGCM_ERR_INVALID;
    case 18: j->iv_len = 0; return MBGCM_ERR_IV_LEN;
    default: j->reserved_ = scratch; return MBGCM_ERR_INVALID; /* unknown extension */
    }
}

static void test_short_job_defects(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 3, 0);
    mbgcm_key *zero_key = aligned_alloc(64, (sizeof *zero_key + 63) & ~(size_t)63);
    assert_non_null(zero_key);
    memset(zero_key, 0, sizeof *zero_key);
    struct msg *msg = tu_xmalloc(2 * NDEF * sizeof *msg);
    uint8_t *out = tu_xmalloc(2 * NDEF * 160), *scratch = tu_xmalloc(2 * NDEF * 320);
    mbgcm_job jobs[2 * NDEF];
    uint8_t tags[2 * NDEF][16];
    for (int c = 0; c < nc; c++) {
        for (int burst = 0; burst < 2; burst++) {
            mbgcm_mgr *m = tu_mgr_open(cfgs[c], 4, 16, 0);
            int want[2 * NDEF];
            for (unsigned i = 0; i < 2 * NDEF; i++) {
                msg_make(&msg[i], &keys[i % 3], P_SHORT);
                job_set(&jobs[i], &msg[i], out + 160 * i, msg[i].tag, NULL);
                want[i] = MBGCM_OK;
                if (i & 1) { /* odd jobs carry one defect, even ones none */
                    jobs[i].dir = MBGCM_ENCRYPT;
                    jobs[i].src = msg[i].pt;
                    jobs[i].tag = tags[i];
                    want[i] = defect_apply(&jobs[i], (int)i / 2, scratch + 320 * i, zero_key);
                }
                jobs[i].status = 12345;
            }
            run_jobs(m, jobs, 2 * NDEF, burst, NULL, NULL);
            for (unsigned i = 0; i < 2 * NDEF; i++) {
                TU_CHECK(jobs[i].status == want[i], "%s, %s: job %u (defect %d): status %d, want %d",
                         tu_mgr_label(cfgs[c]), burst ? "burst" : "ring", i,
                         i & 1 ? (int)i / 2 : -1, jobs[i].status, want[i]);
                if (want[i] == MBGCM_OK) {
                    TU_MEM_EQ(out + 160 * i, msg[i].pt, msg[i].len, "%s: job %u plaintext",
                              tu_mgr_label(cfgs[c]), i);
                }
            }
            /* still working: the same jobs without their defects */
            for (unsigned i = 0; i < 2 * NDEF; i++) {
                job_set(&jobs[i], &msg[i], out + 160 * i, msg[i].tag, NULL);
            }
            run_jobs(m, jobs, 2 * NDEF, burst, NULL, NULL);
            for (unsigned i = 0; i < 2 * NDEF; i++) {
                TU_CHECK(jobs[i].status == MBGCM_OK, "%s: job %u status %d after the defects",
                         tu_mgr_label(cfgs[c]), i, jobs[i].status);
                TU_MEM_EQ(out + 160 * i, msg[i].pt, msg[i].len, "%s: job %u plaintext",
                          tu_mgr_label(cfgs[c]), i);
            }
            mbgcm_mgr_free(m);
        }
    }
    free(scratch);
    free(out);
    free(msg);
    free(zero_key);
    tu_keys_free(keys, 3);
}

/* ---- arch names ------------------------------------------------------------------------ */

static void test_arch_empty_string(void **state)
{
    (void)state;
    mbgcm_mgr *m = (mbgcm_mgr *)&rng; /* must be set to NULL */
    const mbgcm_config empty = {.arch = ""};
    unsetenv("MBGCM_ARCH");
    assert_int_equal(mbgcm_mgr_create(&m, &empty), MBGCM_ERR_UNSUPPORTED);
    assert_null(m);
    setenv("MBGCM_ARCH", "generic", 1);
    assert_int_equal(mbgcm_mgr_create(&m, &empty), MBGCM_ERR_UNSUPPORTED);
    /* NULL and "auto" take MBGCM_ARCH */
    const mbgcm_config aut = {.arch = "auto"};
    assert_int_equal(mbgcm_mgr_create(&m, &aut), MBGCM_OK);
    assert_string_equal(mbgcm_mgr_arch(m), "generic");
    mbgcm_mgr_free(m);
    assert_int_equal(mbgcm_mgr_create(&m, NULL), MBGCM_OK);
    assert_string_equal(mbgcm_mgr_arch(m), "generic");
    mbgcm_mgr_free(m);
    /* MBGCM_ARCH set but empty: as if unset */
    setenv("MBGCM_ARCH", "", 1);
    assert_int_equal(mbgcm_mgr_create(&m, NULL), MBGCM_OK);
    assert_string_equal(mbgcm_mgr_arch(m), tu_arch_name(tu_arch_best()));
    mbgcm_mgr_free(m);
    unsetenv("MBGCM_ARCH");
}

/* ---- lanes = 0 ---------------------------------------------------------------------------- */
/* The header: lanes 0 = 4 (one group); lanes serve the jobs an arch runs multi-buffer, and an
   arch without a lane kernel runs every job single-stream (the setting does not apply). Eight
   64-byte ring jobs per arch with a 16-byte IV (a 12-byte one may take the short-job kernel
   or, on avx512's by16, run single-stream): on an arch with lanes none goes single-stream and
   the kernels see at most 4 busy lanes; without lanes all eight do and no lane kernel runs. */
static void test_lanes_zero(void **state)
{
    (void)state;
    uint8_t raw[16] = {7}, iv[16] = {1}, src[8][64], dst[8][64], tag[8][16];
    memset(src, 0x5A, sizeof src);
    mbgcm_key key;
    assert_int_equal(mbgcm_key_init(&key, raw, sizeof raw), MBGCM_OK);
    for (int a = 0; a < tu_arch_count(); a++) {
        if (!tu_arch_supported(a)) {
            continue;
        }
        const mbgcm_config cfg = {.arch = tu_arch_name(a), .lanes = 0};
        mbgcm_mgr *m = NULL;
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
        for (unsigned i = 0; i < 8; i++) {
            mbgcm_job *j = mbgcm_get_next_job(m);
            memset(j, 0, sizeof *j);
            j->key = &key;
            j->dir = MBGCM_ENCRYPT;
            j->iv = iv;
            j->iv_len = sizeof iv;
            j->src = src[i];
            j->dst = dst[i];
            j->len = sizeof src[i];
            j->tag = tag[i];
            j->tag_len = 16;
            for (mbgcm_job *x = mbgcm_submit_job(m); x != NULL; x = mbgcm_get_completed_job(m)) {
                assert_int_equal(x->status, MBGCM_OK);
            }
        }
        for (mbgcm_job *x = mbgcm_flush_job(m); x != NULL; x = mbgcm_flush_job(m)) {
            assert_int_equal(x->status, MBGCM_OK);
        }
        mbgcm_stats st;
        assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
        assert_int_equal(st.jobs, 8);
        const uint64_t calls = st.kernel_calls[0] + st.kernel_calls[1] + st.kernel_calls[2] +
                               st.kernel_calls[3];
        if (tu_arch(a)->lanes != NULL) {
            assert_int_equal(st.single_stream, 0);
            assert_true(calls >= 2); /* eight jobs, at most four per call */
        } else {
            assert_int_equal(st.single_stream, 8);
            assert_int_equal(calls, 0);
        }
        mbgcm_mgr_free(m);
    }
    mbgcm_key_wipe(&key);
}

/* ---- lanes and the short-job ring batch ------------------------------------------------- */
/* The header: ring jobs for the short-job kernel run when one shape has 8 waiting, or |lanes|
   when that is more. Per arch with a short-job kernel and lanes 0, 4, 8, 12, 16: submits
   1..depth-1 return nothing and leave every job pending (queue_size counts them), submit
   |depth| returns the first job and the rest follow in order, each with OpenSSL's output; one
   more job and a flush show the manager going on with the next batch. The jobs: 64-byte
   messages where the arch's ring sends them to that kernel, else GMAC jobs where it takes
   those; where it takes neither (by16, whose whole12 was quicker), 64-byte messages on a
   manager whose single-stream threshold the test hook set. */
static void test_lanes_short_ring(void **state)
{
    (void)state;
    static const unsigned lanes[] = {0, 4, 8, 12, 16};
    enum { MAXLEN = 64, MAXJ = 17 };
    uint8_t raw[16], iv[MAXJ][12], aad[16], src[MAXJ][MAXLEN], dst[MAXJ][MAXLEN],
        tag[MAXJ][16];
    uint8_t want[MAXLEN], wtag[16];
    tu_rng_fill(&rng, raw, sizeof raw);
    tu_rng_fill(&rng, aad, sizeof aad);
    mbgcm_key key;
    assert_int_equal(mbgcm_key_init(&key, raw, sizeof raw), MBGCM_OK);
    for (int a = 0; a < tu_arch_count(); a++) {
        if (!tu_arch_supported(a) || tu_arch(a)->short_jobs == NULL) {
            continue;
        }
        const uint64_t mlim = mbgcmi_short_msg_lim(tu_arch(a), 16 * MBGCMI_SHORT_MAX_BLOCKS + 1);
        /* where the arch's ring gives that kernel no job at all (mlim 0), the threshold hook
           does: a manager whose single-stream threshold is set routes by it alone */
        const size_t mlen = mlim > MAXLEN || mlim == 0 ? MAXLEN : 0;
        for (size_t li = 0; li < sizeof lanes / sizeof lanes[0]; li++) {
            const unsigned depth = lanes[li] > 8 ? lanes[li] : 8;
            const mbgcm_config cfg = {.arch = tu_arch_name(a), .lanes = lanes[li]};
            mbgcm_mgr *m = NULL;
            assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
            if (mlim == 0) {
                mbgcmi_mgr_set_single_min_len(m, UINT64_MAX);
            }
            unsigned back = 0;
            for (unsigned i = 0; i <= depth; i++) {
                tu_rng_fill(&rng, iv[i], 12);
                tu_rng_fill(&rng, src[i], mlen);
                mbgcm_job *j = mbgcm_get_next_job(m);
                *j = (mbgcm_job){.key = &key, .dir = MBGCM_ENCRYPT, .iv = iv[i], .iv_len = 12,
                                 .aad = aad, .aad_len = sizeof aad, .src = src[i],
                                 .dst = dst[i], .len = mlen, .tag = tag[i], .tag_len = 16};
                for (mbgcm_job *x = mbgcm_submit_job(m); x != NULL;
                     x = mbgcm_get_completed_job(m)) {
                    if (i + 1 < depth) {
                        fail_msg("%s lanes %u: job returned at submit %u of %u", tu_arch_name(a),
                                 lanes[li], i + 1, depth);
                    }
                    assert_ptr_equal(x->dst, dst[back]);
                    assert_int_equal(x->status, MBGCM_OK);
                    back++;
                }
                if (i + 1 < depth) {
                    assert_int_equal(mbgcm_queue_size(m), i + 1);
                }
            }
            TU_CHECK(back == depth, "%s lanes %u: %u jobs back after %u submits, want %u",
                     tu_arch_name(a), lanes[li], back, depth + 1, depth);
            for (mbgcm_job *x = mbgcm_flush_job(m); x != NULL; x = mbgcm_flush_job(m)) {
                assert_ptr_equal(x->dst, dst[back]);
                assert_int_equal(x->status, MBGCM_OK);
                back++;
            }
            assert_int_equal(back, depth + 1);
            for (unsigned i = 0; i <= depth; i++) {
                tu_ossl_gcm_encrypt(raw, sizeof raw, iv[i], 12, aad, sizeof aad, src[i], mlen,
                                    want, wtag, 16);
                TU_MEM_EQ(dst[i], want, mlen, "%s lanes %u job %u", tu_arch_name(a), lanes[li],
                          i);
                TU_MEM_EQ(tag[i], wtag, 16, "%s lanes %u job %u tag", tu_arch_name(a),
                          lanes[li], i);
            }
            mbgcm_stats st;
            assert_int_equal(mbgcm_mgr_stats(m, &st), MBGCM_OK);
            assert_int_equal(st.runs_lanes_full, 1);
            assert_int_equal(st.runs_flush, 1);
            mbgcm_mgr_free(m);
        }
    }
    mbgcm_key_wipe(&key);
}

/* ---- memory hooks ------------------------------------------------------------------------ */

struct pool {
    unsigned allocs, frees, fail;
    size_t size, align;
    void *p;
    int wiped;
};

static void *pool_alloc(void *ctx, size_t size, size_t align)
{
    struct pool *pl = ctx;
    pl->allocs++;
    pl->size = size;
    pl->align = align;
    if (pl->fail) {
        return NULL;
    }
    pl->p = aligned_alloc(align, (size + align - 1) / align * align);
    return pl->p;
}

static void pool_free(void *ctx, void *p, size_t size)
{
    struct pool *pl = ctx;
    pl->frees++;
    assert_ptr_equal(p, pl->p);
    assert_int_equal(size, pl->size);
    pl->wiped = tu_all_byte(p, size, 0);
    free(p);
}

static void test_mem_hooks(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 2, 0);
    struct msg *msg = tu_xmalloc(sizeof *msg);
    uint8_t dst[600];
    for (int c = 0; c < nc; c++) {
        struct pool pl = {0};
        mbgcm_config cfg = {.arch = tu_mgr_cfg_arch(cfgs[c]), .mem_alloc = pool_alloc,
                            .mem_free = pool_free, .mem_ctx = &pl};
        mbgcm_mgr *m = NULL;
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
        assert_int_equal(pl.allocs, 1);
        assert_int_equal(pl.align, 64);
        for (int p = 0; p < 2; p++) { /* jobs leave key tables and tags in the manager */
            msg_make(msg, &keys[p], p ? P_LANES : P_SHORT);
            mbgcm_job j;
            job_set(&j, msg, dst, msg->tag, NULL);
            mbgcm_job *slot = mbgcm_get_next_job(m);
            *slot = j;
            mbgcm_job *done = mbgcm_submit_job(m);
            if (done == NULL) {
                done = mbgcm_flush_job(m);
            }
            assert_non_null(done);
            assert_int_equal(done->status, MBGCM_OK);
        }
        mbgcm_mgr_free(m);
        assert_int_equal(pl.frees, 1);
        TU_CHECK(pl.wiped, "%s: manager memory not wiped before mem_free", tu_mgr_label(cfgs[c]));
        /* failures */
        pl.fail = 1;
        m = (mbgcm_mgr *)&pl;
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_ERR_NOMEM);
        assert_null(m);
        cfg.mem_free = NULL;
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_ERR_INVALID);
        cfg.mem_free = pool_free;
        cfg.mem_alloc = NULL;
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_ERR_INVALID);
    }
    free(msg);
    tu_keys_free(keys, 2);
}

int main(void)
{
    tu_seed();
    tu_rng_init(&rng, "api_promises");
    unsetenv("MBGCM_ARCH");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_from_inside_key),
        cmocka_unit_test(test_tag_inside_dst),
        cmocka_unit_test(test_tag_changed_too_early),
        cmocka_unit_test(test_sgl_overlapping_segments),
        cmocka_unit_test(test_short_job_defects),
        cmocka_unit_test(test_arch_empty_string),
        cmocka_unit_test(test_lanes_zero),
        cmocka_unit_test(test_lanes_short_ring),
        cmocka_unit_test(test_mem_hooks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
