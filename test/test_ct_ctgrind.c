/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ct_ctgrind.c — constant-time check of the generic and aesni paths and of all C code
 * under valgrind memcheck (the "ctgrind" technique).
 *
 * Secrets are marked undefined with VALGRIND_MAKE_MEM_UNDEFINED: raw key bytes, the expanded
 * key (round keys, hash-key powers and their Karatsuba halves; the round count, key length
 * and magic stay defined: they are public), plaintext, and the expected tag of every decrypt.
 * memcheck then tracks everything computed from them and reports any conditional jump or
 * move, any address and any system call argument that depends on them. Values the library
 * makes public on purpose are marked defined again inside it with MBGCMI_DECLASSIFY (active
 * only in a -DMBGCM_CTGRIND=ON build): tag-comparison results, whether a lane's cached key
 * changed (docs/security.md lists them). This program marks outputs defined before it checks
 * them against OpenSSL.
 *
 * Paths (each on `generic` and on `aesni`): key expansion; one-shot encrypt/decrypt (IV 12
 * and other lengths, AAD and message lengths around block boundaries, every tag length, good
 * and bad tags); the incremental API in random pieces; the job manager (ring and burst, lanes
 * 4 and 8, mixed key sizes and lengths, in place, tampered tags, invalid jobs in between,
 * scatter-gather jobs, single-stream jobs and a lone lane finished single-stream, timeouts
 * through an injected clock); the short-job stages (the avx512 manager's staging by shape, run
 * here with a C short kernel so the C bookkeeping is checked under memcheck); the tag compare
 * alone; Cobblestone open (one-shot, streaming and random access, authentic, tampered,
 * trailing data, wrong context).
 *
 * Run it under valgrind (ctest: ct_ctgrind in a -DMBGCM_CTGRIND=ON build; scripts/test.sh
 * stage "ctgrind"); without valgrind it is an ordinary functional test. With
 * --selftest-leak it branches on a secret on purpose: memcheck must report it (ctest
 * ct_ctgrind_selftest expects the failure).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <valgrind/memcheck.h>

#include "jobs_internal.h"
#include "test_cobble_common.h"

#define SECRET(p, n) ((void)VALGRIND_MAKE_MEM_UNDEFINED((p), (n)))
#define PUBLIC(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))

static tu_rng rng;
static unsigned long long cases[8];
enum { C_KEY, C_ONESHOT, C_CTX, C_MGR_JOBS, C_STAGE_JOBS, C_TAGCMP, C_COBBLE, C_NCAT };
static const char *const cat_names[C_NCAT] = {"key expansion", "one-shot", "incremental",
                                              "manager jobs", "stage jobs", "tag compare",
                                              "Cobblestone open"};
static unsigned long long errors_seen;
static char case_desc[256];

/* Attribute memcheck errors to the case that caused them. */
__attribute__((format(printf, 1, 2))) static void case_begin(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(case_desc, sizeof case_desc, fmt, ap);
    va_end(ap);
}

static void case_end(int cat)
{
    cases[cat]++;
    const unsigned long long e = VALGRIND_COUNT_ERRORS;
    if (e != errors_seen) {
        print_error("ctgrind: %llu memcheck error(s) in case: %s\n", e - errors_seen, case_desc);
        errors_seen = e;
    }
}

static int arches[2]; /* generic and aesni by registry position (set in main) */

static int arch_ok(int arch)
{
    if (!tu_arch_supported(arch)) {
        print_message("%s: not supported here\n", tu_arch_name(arch));
        return 0;
    }
    return 1;
}

/* The secret parts of an expanded key (not rounds/key_len/magic: public). */
static void secret_key(mbgcm_key *k)
{
    struct mbgcmi_key *ik = mbgcmi_key_w(k);
    SECRET(ik->rk, sizeof ik->rk);
    SECRET(ik->hpow, sizeof ik->hpow);
    SECRET(ik->hkar, sizeof ik->hkar);
}

/* A key whose raw bytes stay defined in |raw| (for the OpenSSL reference) and whose expanded
   form is secret. */
struct ckey {
    mbgcm_key key;
    uint8_t raw[32];
    size_t len;
};

static struct ckey *ckeys_new(size_t n)
{
    struct ckey *k = aligned_alloc(64, n * sizeof *k);
    assert_non_null(k);
    static const size_t lens[3] = {16, 24, 32};
    for (size_t i = 0; i < n; i++) {
        k[i].len = lens[i % 3];
        tu_rng_fill(&rng, k[i].raw, sizeof k[i].raw);
        assert_int_equal(mbgcm_key_init(&k[i].key, k[i].raw, k[i].len), MBGCM_OK);
        secret_key(&k[i].key);
    }
    return k;
}

static void ckeys_free(struct ckey *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        mbgcm_key_wipe(&k[i].key);
    }
    free(k);
}

/* ---- key expansion ---------------------------------------------------------------------- */

static void t_key_expand(void **state)
{
    (void)state;
    for (int ai = 0; ai < 2; ai++) {
        if (!arch_ok(arches[ai])) {
            continue;
        }
        for (size_t kl = 16; kl <= 32; kl += 8) {
            for (int rep = 0; rep < 2; rep++) {
                mbgcm_key ref, k;
                uint8_t raw[32];
                tu_rng_fill(&rng, raw, sizeof raw);
                mbgcmi_key_expand(&ref, raw, kl, tu_arch(TU_ARCH("generic"))); /* defined reference */
                case_begin("key expansion arch=%s key_len=%zu", tu_arch_name(arches[ai]), kl);
                SECRET(raw, kl);
                mbgcmi_key_expand(&k, raw, kl, tu_arch(arches[ai]));
                PUBLIC(&k, sizeof k);
                PUBLIC(raw, kl);
                case_end(C_KEY);
                TU_MEM_EQ(&k, &ref, sizeof k, "key expansion on %s", tu_arch_name(arches[ai]));
                mbgcm_key_wipe(&k);
                mbgcm_key_wipe(&ref);
            }
        }
    }
}

/* ---- one-shot ------------------------------------------------------------------------------ */

static const size_t msg_lens[] = {0,   1,   2,   7,   8,   15,  16,  17,  31,  32,  33,  47,
                                  48,  63,  64,  65,  79,  95,  96,  100, 111, 127, 128, 129,
                                  143, 160, 191, 200, 255, 256, 257, 300, 383, 384, 511, 512,
                                  513, 640, 777, 799};
static const size_t aad_lens[] = {0, 1, 13, 16, 17, 20, 33, 64, 70};
static const size_t iv_lens[] = {12, 12, 12, 1, 8, 16, 17, 60};
static const size_t tag_lens[] = {16, 4, 8, 12, 13, 14, 15};

static void t_oneshot(void **state)
{
    (void)state;
    struct ckey *keys = ckeys_new(3);
    uint8_t iv[64], aad[80], pt[800], ct[800], out[800], ref[800], rtag[16], tag[16];
    for (int ai = 0; ai < 2; ai++) {
        if (!arch_ok(arches[ai])) {
            continue;
        }
        tu_set_oneshot_arch(arches[ai]);
        for (size_t li = 0; li < sizeof msg_lens / sizeof msg_lens[0]; li++) {
            const size_t len = msg_lens[li];
            const size_t al = aad_lens[li % (sizeof aad_lens / sizeof aad_lens[0])];
            const size_t ivl = iv_lens[li % (sizeof iv_lens / sizeof iv_lens[0])];
            const size_t tl = tag_lens[li % (sizeof tag_lens / sizeof tag_lens[0])];
            const struct ckey *k = &keys[li % 3];
            tu_rng_fill(&rng, iv, sizeof iv);
            tu_rng_fill(&rng, aad, sizeof aad);
            tu_rng_fill(&rng, pt, len);
            tu_ossl_gcm_encrypt(k->raw, k->len, iv, ivl, aad, al, pt, len, ref, rtag, 16);
            /* encrypt: plaintext secret */
            case_begin("one-shot encrypt arch=%s len=%zu aad=%zu iv=%zu tag=%zu",
                       tu_arch_name(arches[ai]), len, al, ivl, tl);
            SECRET(pt, len);
            assert_int_equal(mbgcm_encrypt(&k->key, iv, ivl, aad, al, pt, len, ct, tag, tl),
                             MBGCM_OK);
            PUBLIC(ct, len);
            PUBLIC(tag, tl);
            PUBLIC(pt, len);
            case_end(C_ONESHOT);
            TU_MEM_EQ(ct, ref, len, "ciphertext");
            TU_MEM_EQ(tag, rtag, tl, "tag");
            /* decrypt, good and bad tag: expected tag secret, output secret until checked */
            for (int bad = 0; bad < 2; bad++) {
                uint8_t et[16];
                memcpy(et, rtag, tl);
                if (bad) {
                    et[tu_rng_below(&rng, tl)] ^= (uint8_t)(1u << tu_rng_below(&rng, 8));
                }
                case_begin("one-shot decrypt arch=%s len=%zu aad=%zu iv=%zu tag=%zu %s",
                           tu_arch_name(arches[ai]), len, al, ivl, tl, bad ? "bad" : "good");
                SECRET(et, tl);
                const int st = mbgcm_decrypt(&k->key, iv, ivl, aad, al, ref, len, out, et, tl);
                PUBLIC(out, len);
                case_end(C_ONESHOT);
                assert_int_equal(st, bad ? MBGCM_ERR_AUTH : MBGCM_OK);
                if (!bad) {
                    TU_MEM_EQ(out, pt, len, "plaintext");
                } else {
                    assert_true(tu_all_byte(out, len, 0));
                }
            }
        }
        /* in place */
        for (size_t len = 0; len < 70; len += 23) {
            const struct ckey *k = &keys[len % 3];
            tu_rng_fill(&rng, iv, 12);
            tu_rng_fill(&rng, pt, len);
            memcpy(out, pt, len);
            tu_ossl_gcm_encrypt(k->raw, k->len, iv, 12, NULL, 0, pt, len, ref, rtag, 16);
            case_begin("one-shot in place arch=%s len=%zu", tu_arch_name(arches[ai]), len);
            SECRET(out, len);
            assert_int_equal(mbgcm_encrypt(&k->key, iv, 12, NULL, 0, out, len, out, tag, 16),
                             MBGCM_OK);
            PUBLIC(out, len);
            PUBLIC(tag, 16);
            case_end(C_ONESHOT);
            TU_MEM_EQ(out, ref, len, "in place");
        }
    }
    tu_set_oneshot_arch(tu_arch_best());
    ckeys_free(keys, 3);
}

/* ---- incremental ---------------------------------------------------------------------------- */

static void t_ctx(void **state)
{
    (void)state;
    struct ckey *keys = ckeys_new(3);
    uint8_t iv[32], aad[40], pt[600], ct[600], out[600], ref[600], rtag[16], tag[16];
    for (int ai = 0; ai < 2; ai++) {
        if (!arch_ok(arches[ai])) {
            continue;
        }
        tu_set_oneshot_arch(arches[ai]);
        for (int m = 0; m < 8; m++) {
            const struct ckey *k = &keys[m % 3];
            const size_t len = (size_t)tu_rng_below(&rng, sizeof pt + 1);
            const size_t al = (size_t)tu_rng_below(&rng, sizeof aad + 1);
            const size_t ivl = m % 3 ? 12 : (size_t)tu_rng_range(&rng, 1, sizeof iv);
            const size_t tl = tag_lens[m % 7];
            tu_rng_fill(&rng, iv, sizeof iv);
            tu_rng_fill(&rng, aad, al);
            tu_rng_fill(&rng, pt, len);
            tu_ossl_gcm_encrypt(k->raw, k->len, iv, ivl, aad, al, pt, len, ref, rtag, 16);
            for (int dir = 0; dir < 2; dir++) {
                for (int bad = 0; bad <= dir; bad++) {
                    mbgcm_ctx ctx;
                    uint8_t et[16];
                    memcpy(et, rtag, 16);
                    if (bad) {
                        et[0] ^= 0x80;
                    }
                    case_begin("incremental %s arch=%s len=%zu aad=%zu iv=%zu%s",
                               dir ? "decrypt" : "encrypt", tu_arch_name(arches[ai]), len, al,
                               ivl, bad ? " bad tag" : "");
                    const uint8_t *src = dir ? ref : pt;
                    uint8_t *dst = dir ? out : ct;
                    if (!dir) {
                        SECRET(pt, len);
                    } else {
                        SECRET(et, tl);
                    }
                    assert_int_equal(mbgcm_ctx_init(&ctx, &k->key, dir ? MBGCM_DECRYPT
                                                                       : MBGCM_ENCRYPT,
                                                    iv, ivl, aad, al),
                                     MBGCM_OK);
                    for (size_t off = 0; off < len;) {
                        size_t n = (size_t)tu_rng_range(&rng, 0, 40);
                        n = n > len - off ? len - off : n;
                        assert_int_equal(mbgcm_ctx_update(&ctx, src + off, n, dst + off),
                                         MBGCM_OK);
                        off += n;
                    }
                    int st;
                    if (!dir) {
                        st = mbgcm_ctx_final(&ctx, tag, tl);
                        PUBLIC(tag, tl);
                    } else {
                        st = mbgcm_ctx_verify(&ctx, et, tl);
                    }
                    PUBLIC(dst, len);
                    PUBLIC(pt, len);
                    case_end(C_CTX);
                    assert_int_equal(st, bad ? MBGCM_ERR_AUTH : MBGCM_OK);
                    TU_MEM_EQ(dst, dir ? pt : ref, len, "incremental output");
                    if (!dir) {
                        TU_MEM_EQ(tag, rtag, tl, "incremental tag");
                    }
                }
            }
        }
    }
    tu_set_oneshot_arch(tu_arch_best());
    ckeys_free(keys, 3);
}

/* ---- job manager ---------------------------------------------------------------------------- */

struct cjob {
    const struct ckey *k;
    int dir, bad, tamper, in_place, sgl, expect;
    size_t len, al, ivl, tl;
    uint8_t *iv, *aad, *src, *dst, *pt, *ref, tag[16], rtag[16];
    mbgcm_seg segs[8];
    unsigned nseg;
};

static void cjob_make(struct cjob *j, const struct ckey *k, size_t maxlen)
{
    memset(j, 0, sizeof *j);
    j->k = k;
    j->dir = tu_rng_below(&rng, 2) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    const unsigned shape = (unsigned)tu_rng_below(&rng, 4);
    j->len = shape == 0 ? (size_t)tu_rng_below(&rng, 17) : (size_t)tu_rng_below(&rng, maxlen + 1);
    j->al = tu_rng_below(&rng, 3) ? (size_t)tu_rng_below(&rng, 21) : (size_t)tu_rng_below(&rng, 70);
    j->ivl = tu_rng_below(&rng, 4) ? 12 : (size_t)tu_rng_range(&rng, 1, 40);
    j->tl = tu_pick_tag_len(&rng);
    j->in_place = tu_rng_below(&rng, 4) == 0;
    j->tamper = j->dir == MBGCM_DECRYPT && tu_rng_below(&rng, 4) == 0;
    j->bad = tu_rng_below(&rng, 10) == 0;
    j->sgl = !j->bad && tu_rng_below(&rng, 8) == 0;
    j->iv = tu_xmalloc(j->ivl);
    j->aad = tu_xmalloc(j->al);
    j->src = tu_xmalloc(j->len);
    j->dst = j->in_place ? j->src : tu_xmalloc(j->len);
    j->pt = tu_xmalloc(j->len);
    j->ref = tu_xmalloc(j->len);
    tu_rng_fill(&rng, j->iv, j->ivl);
    tu_rng_fill(&rng, j->aad, j->al);
    tu_rng_fill(&rng, j->pt, j->len);
    tu_ossl_gcm_encrypt(k->raw, k->len, j->iv, j->ivl, j->aad, j->al, j->pt, j->len, j->ref,
                        j->rtag, 16);
    if (j->dir == MBGCM_ENCRYPT) {
        memcpy(j->src, j->pt, j->len);
        SECRET(j->src, j->len);
    } else {
        memcpy(j->src, j->ref, j->len);
        memcpy(j->tag, j->rtag, j->tl);
        if (j->tamper) {
            j->tag[tu_rng_below(&rng, j->tl)] ^= 1;
        }
        SECRET(j->tag, j->tl);
    }
    j->expect = j->bad ? MBGCM_ERR_TAG_LEN : j->tamper ? MBGCM_ERR_AUTH : MBGCM_OK;
    if (j->sgl) { /* source (and, out of place, destination) as random segments */
        size_t off = 0;
        j->nseg = 0;
        while (j->nseg < 7 && off < j->len) {
            const size_t n = (size_t)tu_rng_range(&rng, 0, j->len - off);
            j->segs[j->nseg].ptr = j->src + off;
            j->segs[j->nseg].len = n;
            j->nseg++;
            off += n;
        }
        j->segs[j->nseg].ptr = j->src + off;
        j->segs[j->nseg].len = j->len - off;
        j->nseg++;
    }
}

static void cjob_load(const struct cjob *j, mbgcm_job *job)
{
    memset(job, 0, sizeof *job);
    job->key = &j->k->key;
    job->dir = j->dir;
    job->iv = j->iv;
    job->iv_len = j->ivl;
    job->aad = j->aad;
    job->aad_len = j->al;
    job->len = j->len;
    job->tag = (uint8_t *)(uintptr_t)j->tag;
    job->tag_len = j->bad ? 11 : j->tl;
    if (j->sgl) {
        job->src_sgl = j->segs;
        job->src_nseg = j->nseg;
        if (j->in_place) {
            job->dst_sgl = j->segs;
            job->dst_nseg = j->nseg;
        } else {
            job->dst = j->dst;
        }
    } else {
        job->src = j->src;
        job->dst = j->dst;
    }
}

static void cjob_check(struct cjob *j, const mbgcm_job *job)
{
    PUBLIC(j->dst, j->len);
    PUBLIC(j->tag, 16);
    assert_int_equal(job->status, j->expect);
    if (j->expect == MBGCM_OK) {
        if (j->dir == MBGCM_ENCRYPT) {
            TU_MEM_EQ(j->dst, j->ref, j->len, "job ciphertext");
            TU_MEM_EQ(j->tag, j->rtag, j->tl, "job tag");
        } else {
            TU_MEM_EQ(j->dst, j->pt, j->len, "job plaintext");
        }
    } else if (j->expect == MBGCM_ERR_AUTH) {
        assert_true(tu_all_byte(j->dst, j->len, 0));
    }
}

static void cjob_free(struct cjob *j)
{
    free(j->iv);
    free(j->aad);
    free(j->src);
    if (!j->in_place) {
        free(j->dst);
    }
    free(j->pt);
    free(j->ref);
}

static uint64_t fake_now;
static uint64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

/* One manager session: |njobs| jobs through the ring (random flush/poll/timeouts) or bursts. */
static void mgr_session(mbgcm_mgr *m, const struct ckey *keys, size_t nkeys, unsigned njobs,
                        size_t maxlen, const char *what, int cat)
{
    struct cjob *js = tu_xmalloc(njobs * sizeof *js);
    for (unsigned i = 0; i < njobs; i++) {
        cjob_make(&js[i], &keys[tu_rng_below(&rng, nkeys)], maxlen);
    }
    unsigned pos = 0;
    while (pos < njobs) {
        unsigned n = 1 + (unsigned)tu_rng_below(&rng, 9);
        n = n > njobs - pos ? njobs - pos : n;
        case_begin("%s: jobs %u..%u", what, pos, pos + n - 1);
        if (tu_rng_below(&rng, 3) == 0) {
            mbgcm_job bj[9];
            for (unsigned i = 0; i < n; i++) {
                cjob_load(&js[pos + i], &bj[i]);
            }
            mbgcm_submit_burst(m, bj, n);
            for (unsigned i = 0; i < n; i++) {
                cjob_check(&js[pos + i], &bj[i]);
            }
        } else {
            mbgcm_job *slot[9];
            unsigned back = 0;
            for (unsigned i = 0; i < n; i++) {
                slot[i] = mbgcm_get_next_job(m);
                cjob_load(&js[pos + i], slot[i]);
                fake_now += (uint64_t)tu_rng_below(&rng, 600);
                for (mbgcm_job *x = mbgcm_submit_job(m); x; x = mbgcm_get_completed_job(m)) {
                    assert_ptr_equal(x, slot[back]);
                    cjob_check(&js[pos + back], x);
                    back++;
                }
                if (tu_rng_below(&rng, 4) == 0) {
                    for (mbgcm_job *x = mbgcm_mgr_poll(m); x; x = mbgcm_get_completed_job(m)) {
                        assert_ptr_equal(x, slot[back]);
                        cjob_check(&js[pos + back], x);
                        back++;
                    }
                }
            }
            for (mbgcm_job *x; (x = mbgcm_flush_job(m)) != NULL;) {
                assert_ptr_equal(x, slot[back]);
                cjob_check(&js[pos + back], x);
                back++;
            }
            assert_int_equal(back, n);
        }
        cases[cat] += n - 1; /* case_end counts the last one */
        case_end(cat);
        pos += n;
    }
    for (unsigned i = 0; i < njobs; i++) {
        cjob_free(&js[i]);
    }
    free(js);
}

static void t_mgr(void **state)
{
    (void)state;
    struct ckey *keys = ckeys_new(6);
    for (int ai = 0; ai < 2; ai++) {
        if (!arch_ok(arches[ai])) {
            continue;
        }
        const unsigned lanes_cfg[2] = {4, 8};
        for (int li = 0; li < 2; li++) {
            for (int variant = 0; variant < 3; variant++) {
                mbgcm_config cfg = {0};
                cfg.arch = tu_arch_name(arches[ai]);
                cfg.lanes = lanes_cfg[li];
                cfg.queue_size = variant == 2 ? 4 : 16;
                cfg.flush_timeout_ns = variant == 1 ? 1000 : 0;
                mbgcm_mgr *m = NULL;
                assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
                mbgcmi_mgr_set_clock(m, fake_clock, NULL);
                if (variant == 0) {
                    mbgcmi_mgr_set_single_min_len(m, UINT64_MAX); /* lanes only */
                } else if (variant == 2) {
                    mbgcmi_mgr_set_single_min_len(m, 200); /* single-stream, lone-lane finish */
                }
                char what[96];
                snprintf(what, sizeof what, "manager arch=%s lanes=%u variant=%d",
                         tu_arch_name(arches[ai]), cfg.lanes, variant);
                mgr_session(m, keys, 6, arches[ai] == TU_ARCH("generic") ? 60 : 120, 400, what,
                            C_MGR_JOBS);
                mbgcm_mgr_free(m);
            }
        }
    }
    ckeys_free(keys, 6);
}

/* A C short-job kernel with the contract of mbgcmi_short_jobs_fn (core/group.h), on the generic
   single-stream ops: lets the manager's short-job classes run under memcheck. */
static size_t c_short_calls, c_short_long; /* calls; jobs of 9..16 blocks */

static uint64_t c_short_jobs(mbgcm_job *const *jobs, const uint32_t *shapes, size_t n,
                             unsigned nblk, unsigned flags)
{
    (void)flags;
    c_short_calls++;
    c_short_long += nblk > 8 ? n : 0;
    uint64_t fail = 0;
    for (size_t i = 0; i < n; i++) {
        const mbgcm_job *job = jobs[i];
        uint8_t j0[16], t[16];
        mbgcmi_gcm_j0(tu_arch(TU_ARCH("generic")), mbgcmi_key_c(job->key), job->iv, 12, j0);
        if ((shapes[i] & 0x40000000u) == 0) { /* compare the tag: decrypt, GMAC verify */
            uint8_t expect[16];
            memcpy(expect, job->tag, job->tag_len);
            mbgcmi_gcm_crypt_j0(tu_arch(TU_ARCH("generic")), mbgcmi_key_c(job->key), j0, job->aad,
                                job->aad_len, job->src, job->len, job->dst, 1, t);
            const int bad = !mbgcmi_ct_equal(t, expect, job->tag_len);
            fail |= (uint64_t)bad << i;
            jobs[i]->status = bad ? MBGCM_ERR_AUTH : MBGCM_OK;
        } else {
            mbgcmi_gcm_crypt_j0(tu_arch(TU_ARCH("generic")), mbgcmi_key_c(job->key), j0, job->aad,
                                job->aad_len, job->src, job->len, job->dst, 0, t);
            memcpy(job->tag, t, job->tag_len);
            jobs[i]->status = MBGCM_OK;
        }
    }
    return fail;
}

static void t_stages(void **state)
{
    (void)state;
    struct ckey *keys = ckeys_new(3);
    static struct mbgcmi_arch arch;
    arch = *tu_arch(TU_ARCH("generic"));
    arch.short_jobs = c_short_jobs;
    /* a generic manager has no short-job classes: give it some for the swapped-in arch */
    struct mbgcmi_short_class *classes =
        tu_xmalloc(MBGCMI_SHORT_CLASSES * sizeof(struct mbgcmi_short_class));
    for (int variant = 0; variant < 2; variant++) {
        mbgcm_config cfg = {0};
        cfg.arch = "generic";
        cfg.queue_size = 16;
        cfg.flush_timeout_ns = variant ? 1000 : 0;
        mbgcm_mgr *m = NULL;
        assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
        m->arch = &arch;
        memset(classes, 0, MBGCMI_SHORT_CLASSES * sizeof(struct mbgcmi_short_class));
        m->sc = classes;
        m->short_lim = 16 * MBGCMI_SHORT_MAX_BLOCKS + 1; /* as the manager of such an arch */
        m->short_msg_lim = m->short_lim;
        mbgcmi_mgr_route_update(m);
        mbgcmi_mgr_set_clock(m, fake_clock, NULL);
        c_short_calls = c_short_long = 0;
        mgr_session(m, keys, 3, 100, 16 * MBGCMI_SHORT_MAX_BLOCKS + 2,
                    variant ? "short classes with timeout" : "short classes", C_STAGE_JOBS);
        assert_true(c_short_calls > 0 && c_short_long > 0); /* the classes did run */
        m->sc = NULL;
        mbgcm_mgr_free(m);
    }
    free(classes);
    ckeys_free(keys, 3);
}

/* ---- tag compare ------------------------------------------------------------------------------ */

static void t_tagcmp(void **state)
{
    (void)state;
    for (size_t n = 1; n <= 16; n++) {
        for (int diff = 0; diff < 2; diff++) {
            uint8_t a[16], b[16];
            tu_rng_fill(&rng, a, sizeof a);
            memcpy(b, a, sizeof b);
            if (diff) {
                b[tu_rng_below(&rng, n)] ^= (uint8_t)(1u << tu_rng_below(&rng, 8));
            }
            case_begin("mbgcmi_ct_equal n=%zu %s", n, diff ? "differ" : "equal");
            SECRET(a, sizeof a);
            SECRET(b, sizeof b);
            const int eq = mbgcmi_ct_equal(a, b, n);
            case_end(C_TAGCMP);
            assert_int_equal(eq, !diff);
        }
    }
}

/* ---- Cobblestone open ---------------------------------------------------------------------------- */

static void t_cobble(void **state)
{
    (void)state;
    static const size_t pt_lens[] = {0, 15, 100, 1000, MBGCM_COBBLE_CHUNK_LEN,
                                     MBGCM_COBBLE_CHUNK_LEN + 37};
    for (int ai = 0; ai < 2; ai++) {
        if (!arch_ok(arches[ai])) {
            continue;
        }
        mbgcm_cobble_opts opts = {0};
        opts.arch = tu_arch_name(arches[ai]);
        for (size_t pi = 0; pi < sizeof pt_lens / sizeof pt_lens[0]; pi++) {
            const size_t pt_len = pt_lens[pi];
            const size_t kl = pi % 2 ? 16 : 32;
            uint8_t key[32], ctx[9];
            tu_rng_fill(&rng, key, sizeof key);
            tu_rng_fill(&rng, ctx, sizeof ctx);
            uint8_t *pt = tu_xmalloc(pt_len);
            tu_rng_fill(&rng, pt, pt_len);
            const size_t ct_len = tc_sealed_len(pt_len);
            uint8_t *ct = tu_xmalloc(ct_len + 8);
            uint8_t *out = tu_xmalloc(ct_len + 8);
            size_t n = 0;
            assert_int_equal(mbgcm_cobble_seal(ct, &n, ct_len, key, kl, ctx, sizeof ctx, pt,
                                               pt_len, &opts),
                             MBGCM_OK);
            /* kinds: 0 authentic, 1 tampered last chunk, 2 trailing bytes, 3 wrong context */
            for (int kind = 0; kind < 4; kind++) {
                size_t in_len = ct_len;
                uint8_t *in = tu_xmalloc(ct_len + 8);
                memcpy(in, ct, ct_len);
                int want = MBGCM_OK;
                size_t cl = sizeof ctx;
                if (kind == 1) {
                    in[ct_len - 1 - tu_rng_below(&rng, 16)] ^= 4;
                    want = MBGCM_ERR_AUTH;
                } else if (kind == 2) {
                    tu_rng_fill(&rng, in + ct_len, 5);
                    in_len += 5;
                    want = MBGCM_ERR_TRAILING;
                } else if (kind == 3) {
                    cl--;
                    want = MBGCM_ERR_COMMITMENT;
                }
                case_begin("Cobblestone open arch=%s pt_len=%zu kind=%d", opts.arch, pt_len, kind);
                SECRET(key, sizeof key);
                size_t got = 0;
                int st = mbgcm_cobble_open(out, &got, ct_len, key, kl, ctx, cl, in, in_len, &opts);
                PUBLIC(out, ct_len);
                case_end(C_COBBLE);
                assert_int_equal(st, want);
                if (st == MBGCM_OK) {
                    assert_int_equal(got, pt_len);
                    TU_MEM_EQ(out, pt, pt_len, "Cobblestone plaintext");
                }
                /* streaming open in two pieces */
                case_begin("Cobblestone opener arch=%s pt_len=%zu kind=%d", opts.arch, pt_len,
                           kind);
                mbgcm_cobble_opener *o = NULL;
                st = mbgcm_cobble_opener_new(&o, key, kl, ctx, cl, in, MBGCM_COBBLE_HEADER_LEN,
                                             &opts);
                size_t total = 0;
                if (st == MBGCM_OK) {
                    const size_t body = in_len - MBGCM_COBBLE_HEADER_LEN;
                    const size_t cut = body / 2;
                    size_t w = 0;
                    st = mbgcm_cobble_opener_update(o, out, &w, ct_len,
                                                    in + MBGCM_COBBLE_HEADER_LEN, cut);
                    total += st == MBGCM_OK ? w : 0;
                    if (st == MBGCM_OK) {
                        st = mbgcm_cobble_opener_update(o, out + total, &w, ct_len - total,
                                                        in + MBGCM_COBBLE_HEADER_LEN + cut,
                                                        body - cut);
                        total += st == MBGCM_OK ? w : 0;
                    }
                    if (st == MBGCM_OK) {
                        st = mbgcm_cobble_opener_finish(o, out + total, &w, ct_len - total);
                        total += st == MBGCM_OK ? w : 0;
                    }
                }
                mbgcm_cobble_opener_free(o);
                PUBLIC(out, ct_len);
                case_end(C_COBBLE);
                assert_int_equal(st, want);
                if (st == MBGCM_OK) {
                    assert_int_equal(total, pt_len);
                    TU_MEM_EQ(out, pt, pt_len, "Cobblestone streaming plaintext");
                }
                /* random access: size, then a range */
                case_begin("Cobblestone reader arch=%s pt_len=%zu kind=%d", opts.arch, pt_len,
                           kind);
                mbgcm_cobble_reader *r = NULL;
                st = mbgcm_cobble_reader_new(&r, key, kl, ctx, cl, in, in_len, &opts);
                if (st == MBGCM_OK) {
                    uint64_t sz = 0;
                    st = mbgcm_cobble_reader_size(r, &sz);
                    if (st == MBGCM_OK && pt_len > 0) {
                        const size_t off = (size_t)tu_rng_below(&rng, pt_len);
                        const size_t len = (size_t)tu_rng_range(&rng, 1, pt_len - off);
                        st = mbgcm_cobble_reader_read(r, out, off, len);
                        PUBLIC(out, len);
                        if (st == MBGCM_OK) {
                            TU_MEM_EQ(out, pt + off, len, "reader range");
                        }
                    }
                }
                mbgcm_cobble_reader_free(r);
                case_end(C_COBBLE);
                assert_int_equal(st, want);
                PUBLIC(key, sizeof key);
                free(in);
            }
            free(pt);
            free(ct);
            free(out);
        }
    }
}

/* ---- the harness must see a leak --------------------------------------------------------------- */

static int __attribute__((noinline)) leaky_compare(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (a[i] != b[i]) { /* early exit: timing depends on the secret */
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    tu_seed();
    arches[0] = TU_ARCH("generic");
    arches[1] = TU_ARCH("aesni");
    tu_rng_init(&rng, "ct_ctgrind");
    if (argc > 1 && strcmp(argv[1], "--selftest-leak") == 0) {
        uint8_t a[16], b[16];
        memset(a, 1, sizeof a);
        memset(b, 1, sizeof b);
        SECRET(a, sizeof a);
        volatile int r = leaky_compare(a, b, sizeof a);
        printf("selftest-leak: compared; memcheck errors so far: %u (must be > 0)\n",
               VALGRIND_COUNT_ERRORS);
        (void)r;
        return RUNNING_ON_VALGRIND ? 0 : 1; /* under valgrind the exit code comes from memcheck */
    }
    printf("ctgrind: %s valgrind\n", RUNNING_ON_VALGRIND ? "running under" : "NOT under");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_key_expand), cmocka_unit_test(t_oneshot), cmocka_unit_test(t_ctx),
        cmocka_unit_test(t_mgr),        cmocka_unit_test(t_stages),  cmocka_unit_test(t_tagcmp),
        cmocka_unit_test(t_cobble),
    };
    const int fails = cmocka_run_group_tests_name("ct_ctgrind", tests, NULL, NULL);
    unsigned long long total = 0;
    printf("ctgrind cases:");
    for (int c = 0; c < C_NCAT; c++) {
        printf(" %s=%llu", cat_names[c], cases[c]);
        total += cases[c];
    }
    printf(" (total %llu); memcheck errors %u\n", total, VALGRIND_COUNT_ERRORS);
    return fails || VALGRIND_COUNT_ERRORS ? 1 : 0;
}
