/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_robust.c — robustness: lengths at and around every limit, invalid job mixes,
 * out-of-memory paths.
 *
 *  - limits: IV and AAD lengths 2^61-1 (accepted: the call then fails on the NULL pointer that
 *    comes next in the documented check order, proving the length passed) and 2^61, 2^62,
 *    SIZE_MAX (rejected); message 2^36-32 / 2^36-31 / SIZE_MAX; the same through ring jobs,
 *    bursts, the incremental API (including the running total of update lengths), the GCM
 *    length block at its exact maxima, scatter-gather lists whose lengths overflow size_t,
 *    the overlap test at the top of the address space, Cobblestone and batch-call length
 *    arithmetic near SIZE_MAX and 2^38 chunks. Real long inputs where they cost no memory: an
 *    AAD and an IV of 2^29 + 17 bytes (bit lengths past 2^32) from a zero-page mapping, checked
 *    against OpenSSL and intel-ipsec-mb (fast arches only).
 *  - invalid job mixes: on every arch, random sequences of valid jobs, every kind of invalid
 *    job (tu_bad), malformed scatter-gather lists, refused bursts, flushes and polls; every
 *    job returns in order with its status and byte-exact memory image, the manager stays
 *    usable (queue drains to 0, stats add up). Bursts of one short-job shape with invalid
 *    jobs and valid ones of another key size or IV length among them (the shorter checks a job
 *    of the shape before takes).
 *  - out of memory: every allocation the libraries make fails in turn (allocation hooks:
 *    mbgcmi_alloc, mbgcmi_cob_alloc) for mbgcm_mgr_create and every Cobblestone call that creates managers
 *    (1 to 3 threads): MBGCM_ERR_NOMEM, outputs untouched, nothing leaked (the hook counts
 *    outstanding blocks), and the same call succeeds once allocation works again.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "jobs_internal.h"
#include "test_cobble_common.h"

static tu_rng rng;
#define MAXIV ((size_t)MBGCMI_MAX_IV_LEN)
#define MAXAAD ((size_t)MBGCMI_MAX_AAD_LEN)
#define MAXLEN ((size_t)MBGCMI_MAX_TEXT_LEN)

static mbgcm_key gkey;

static int setup(void **state)
{
    (void)state;
    uint8_t raw[32];
    tu_rng_fill(&rng, raw, sizeof raw);
    return mbgcm_key_init(&gkey, raw, sizeof raw) == MBGCM_OK ? 0 : -1;
}

/* ---- limits ------------------------------------------------------------------------------- */

static void t_limits_oneshot(void **state)
{
    (void)state;
    uint8_t iv[12] = {0}, tag[16], buf[32];
    const uint8_t *n = NULL;
    unsigned cases = 0;
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    for (int ai = 0; ai < na; ai++) {
        tu_set_oneshot_arch(arches[ai]);
        for (int dec = 0; dec < 2; dec++) {
#define CALL(ivp, ivl, aadp, al, inp, len, outp) \
    (dec ? mbgcm_decrypt(&gkey, ivp, ivl, aadp, al, inp, len, outp, tag, 16)                 \
         : mbgcm_encrypt(&gkey, ivp, ivl, aadp, al, inp, len, outp, tag, 16))
            /* IV length: the largest accepted length passes the length check (then NULL) */
            assert_int_equal(CALL(n, MAXIV, NULL, 0, buf, 0, buf), MBGCM_ERR_INVALID);
            assert_int_equal(CALL(iv, MAXIV + 1, NULL, 0, buf, 0, buf), MBGCM_ERR_IV_LEN);
            assert_int_equal(CALL(iv, (size_t)1 << 62, NULL, 0, buf, 0, buf), MBGCM_ERR_IV_LEN);
            assert_int_equal(CALL(iv, SIZE_MAX, NULL, 0, buf, 0, buf), MBGCM_ERR_IV_LEN);
            assert_int_equal(CALL(iv, 0, NULL, 0, buf, 0, buf), MBGCM_ERR_IV_LEN);
            /* AAD */
            assert_int_equal(CALL(iv, 12, n, MAXAAD, buf, 0, buf), MBGCM_ERR_INVALID);
            assert_int_equal(CALL(iv, 12, buf, MAXAAD + 1, buf, 0, buf), MBGCM_ERR_LEN);
            assert_int_equal(CALL(iv, 12, buf, SIZE_MAX, buf, 0, buf), MBGCM_ERR_LEN);
            /* message */
            assert_int_equal(CALL(iv, 12, NULL, 0, n, MAXLEN, buf), MBGCM_ERR_INVALID);
            assert_int_equal(CALL(iv, 12, NULL, 0, buf, MAXLEN + 1, buf), MBGCM_ERR_LEN);
            assert_int_equal(CALL(iv, 12, NULL, 0, buf, SIZE_MAX, buf), MBGCM_ERR_LEN);
            assert_int_equal(CALL(iv, 12, NULL, 0, buf, (size_t)1 << 36, buf), MBGCM_ERR_LEN);
            /* overlap tested without wrapping: buffers at the top of the address space are
               rejected by arithmetic alone (nothing is read) */
            assert_int_equal(CALL(iv, 12, NULL, 0, (const uint8_t *)(uintptr_t)(UINTPTR_MAX - 15),
                                  16, (uint8_t *)(uintptr_t)(UINTPTR_MAX - 23)),
                             MBGCM_ERR_INVALID);
#undef CALL
            cases += 13;
        }
    }
    tu_set_oneshot_arch(tu_arch_best());
    /* the overlap helper at the ends of the address space */
    const uint8_t *top = (const uint8_t *)(uintptr_t)(UINTPTR_MAX - 9);
    assert_true(mbgcmi_overlap(top, 10, top + 5, 5));
    assert_false(mbgcmi_overlap(top - 10, 10, top, 10));
    assert_true(mbgcmi_overlap(top - 10, 11, top, 10));
    assert_false(mbgcmi_overlap((const void *)(uintptr_t)16, 16, top, 10));
    assert_true(mbgcmi_overlap((const void *)(uintptr_t)16, SIZE_MAX - 16, top, 10));
    /* the length block at its exact maxima, and one past */
    uint8_t lb[16];
    assert_int_equal(mbgcmi_len_block(MBGCMI_MAX_AAD_LEN, MBGCMI_MAX_TEXT_LEN, lb), 0);
    assert_int_equal(mbgcmi_load_be64(lb), MBGCMI_MAX_AAD_LEN << 3);
    assert_int_equal(mbgcmi_load_be64(lb + 8), MBGCMI_MAX_TEXT_LEN << 3);
    assert_int_equal(mbgcmi_len_block(MBGCMI_MAX_AAD_LEN + 1, 0, lb), -1);
    assert_int_equal(mbgcmi_len_block(0, MBGCMI_MAX_TEXT_LEN + 1, lb), -1);
    assert_int_equal(mbgcmi_len_block(UINT64_MAX, UINT64_MAX, lb), -1);
    print_message("one-shot limits: %u calls rejected as documented\n", cases);
}

static void t_limits_ctx(void **state)
{
    (void)state;
    uint8_t iv[12] = {0}, buf[64], data[64];
    tu_rng_fill(&rng, data, sizeof data);
    mbgcm_ctx c;
    assert_int_equal(mbgcm_ctx_init(&c, &gkey, MBGCM_ENCRYPT, NULL, MAXIV, NULL, 0),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_init(&c, &gkey, MBGCM_ENCRYPT, iv, MAXIV + 1, NULL, 0),
                     MBGCM_ERR_IV_LEN);
    assert_int_equal(mbgcm_ctx_init(&c, &gkey, MBGCM_ENCRYPT, iv, 12, NULL, MAXAAD),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_init(&c, &gkey, MBGCM_ENCRYPT, iv, 12, buf, MAXAAD + 1),
                     MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_ctx_init(&c, &gkey, MBGCM_ENCRYPT, iv, 12, buf, SIZE_MAX),
                     MBGCM_ERR_LEN);
    /* the running total: 40 bytes in, then exactly what is left passes the length check
       (NULL pointers come next), one more does not; SIZE_MAX cannot wrap the sum */
    assert_int_equal(mbgcm_ctx_init(&c, &gkey, MBGCM_ENCRYPT, iv, 12, NULL, 0), MBGCM_OK);
    assert_int_equal(mbgcm_ctx_update(&c, data, 40, buf), MBGCM_OK);
    assert_int_equal(mbgcm_ctx_update(&c, NULL, MAXLEN - 40, NULL), MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_ctx_update(&c, buf, MAXLEN - 39, buf), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_ctx_update(&c, buf, SIZE_MAX, buf), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_ctx_update(&c, buf, SIZE_MAX - 39, buf), MBGCM_ERR_LEN);
    /* the rejected calls changed nothing: the message completes as the one-shot call */
    uint8_t tag[16], rtag[16], ref[64];
    assert_int_equal(mbgcm_ctx_update(&c, data + 40, 24, buf + 40), MBGCM_OK);
    assert_int_equal(mbgcm_ctx_final(&c, tag, 16), MBGCM_OK);
    assert_int_equal(mbgcm_encrypt(&gkey, iv, 12, NULL, 0, data, 64, ref, rtag, 16), MBGCM_OK);
    TU_MEM_EQ(buf, ref, 64, "ciphertext after rejected updates");
    TU_MEM_EQ(tag, rtag, 16, "tag after rejected updates");
}

/* Long AAD and IV without allocating: zero pages, a few random bytes at each end. */
static void t_long_inputs(void **state)
{
    (void)state;
    if (tu_arch_best() == TU_ARCH("generic")) {
        print_message("long inputs: skipped on the portable path (about 200 cycles/byte)\n");
        skip();
    }
    const size_t big = ((size_t)1 << 29) + 17; /* 8 * big > 2^32: the bit length needs 33+ bits */
    const size_t map = (big + 4095) & ~(size_t)4095;
    uint8_t *p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
                      MAP_NORESERVE, -1, 0);
    assert_true(p != MAP_FAILED);
    tu_rng_fill(&rng, p, 64);
    tu_rng_fill(&rng, p + big - 64, 64);
    uint8_t raw[16], iv[12], pt[100], ct[100], rct[100], tag[16], rtag[16];
    tu_rng_fill(&rng, raw, sizeof raw);
    tu_rng_fill(&rng, iv, sizeof iv);
    tu_rng_fill(&rng, pt, sizeof pt);
    mbgcm_key k;
    assert_int_equal(mbgcm_key_init(&k, raw, sizeof raw), MBGCM_OK);
    tu_set_oneshot_arch(tu_arch_best());
    /* AAD of 2^29 + 17 bytes */
    assert_int_equal(mbgcm_encrypt(&k, iv, 12, p, big, pt, sizeof pt, ct, tag, 16), MBGCM_OK);
    tu_ossl_gcm_encrypt(raw, sizeof raw, iv, 12, p, big, pt, sizeof pt, rct, rtag, 16);
    TU_MEM_EQ(ct, rct, sizeof ct, "long AAD ciphertext");
    TU_MEM_EQ(tag, rtag, 16, "long AAD tag");
    /* IV of 2^29 + 17 bytes (J0 = GHASH of the IV and its 64-bit bit length) */
    assert_int_equal(mbgcm_encrypt(&k, p, big, NULL, 0, pt, sizeof pt, ct, tag, 16), MBGCM_OK);
    tu_imb_gcm_encrypt(raw, sizeof raw, p, big, NULL, 0, pt, sizeof pt, rct, rtag, 16);
    TU_MEM_EQ(ct, rct, sizeof ct, "long IV ciphertext");
    TU_MEM_EQ(tag, rtag, 16, "long IV tag");
    /* and through a job (lanes hash the long IV for J0 single-stream, then run the AAD) */
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    assert_non_null(m);
    mbgcm_job *j = mbgcm_get_next_job(m);
    memset(j, 0, sizeof *j);
    j->key = &k;
    j->dir = MBGCM_DECRYPT;
    j->iv = p;
    j->iv_len = big;
    j->src = rct;
    j->dst = ct;
    j->len = sizeof pt;
    j->tag = rtag;
    j->tag_len = 16;
    mbgcm_job *x = mbgcm_submit_job(m);
    if (x == NULL) {
        x = mbgcm_flush_job(m);
    }
    assert_ptr_equal(x, j);
    assert_int_equal(x->status, MBGCM_OK);
    TU_MEM_EQ(ct, pt, sizeof pt, "long IV job plaintext");
    mbgcm_mgr_free(m);
    mbgcm_key_wipe(&k);
    munmap(p, map);
    print_message("long inputs: AAD and IV of %zu bytes (bit length %#llx) match OpenSSL / "
                  "ipsec-mb\n", big, (unsigned long long)big * 8);
}

static void t_limits_jobs(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    uint8_t iv[12] = {0}, tag[16] = {0}, buf[64] = {0};
    struct {
        size_t ivl, al, len;
        int null_iv, null_aad, null_src;
        int want;
    } lim[] = {
        {MAXIV, 0, 0, 1, 0, 0, MBGCM_ERR_INVALID}, {MAXIV + 1, 0, 0, 0, 0, 0, MBGCM_ERR_IV_LEN},
        {SIZE_MAX, 0, 0, 0, 0, 0, MBGCM_ERR_IV_LEN}, {12, MAXAAD, 0, 0, 1, 0, MBGCM_ERR_INVALID},
        {12, MAXAAD + 1, 0, 0, 0, 0, MBGCM_ERR_LEN}, {12, SIZE_MAX, 0, 0, 0, 0, MBGCM_ERR_LEN},
        {12, 0, MAXLEN, 0, 0, 1, MBGCM_ERR_INVALID}, {12, 0, MAXLEN + 1, 0, 0, 0, MBGCM_ERR_LEN},
        {12, 0, SIZE_MAX, 0, 0, 0, MBGCM_ERR_LEN},
    };
    const unsigned nl = sizeof lim / sizeof lim[0];
    unsigned cases = 0;
    for (int ci = 0; ci < nc; ci++) {
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 4, 8, 0);
        mbgcm_job bj[16];
        for (unsigned i = 0; i < nl; i++) {
            for (int via = 0; via < 3; via++) { /* ring, burst, scatter-gather */
                mbgcm_job *j = via == 0 ? mbgcm_get_next_job(m) : &bj[0];
                mbgcm_seg seg = {buf, lim[i].len};
                memset(j, 0, sizeof *j);
                j->key = &gkey;
                j->dir = MBGCM_ENCRYPT;
                j->iv = lim[i].null_iv ? NULL : iv;
                j->iv_len = lim[i].ivl;
                j->aad = lim[i].null_aad ? NULL : buf;
                j->aad_len = lim[i].al;
                j->len = lim[i].len;
                j->tag = tag;
                j->tag_len = 16;
                if (via == 2) {
                    j->src_sgl = &seg;
                    j->src_nseg = 1;
                    if (lim[i].null_src) {
                        seg.ptr = NULL;
                    }
                    j->dst = buf;
                } else {
                    j->src = lim[i].null_src ? NULL : buf;
                    j->dst = buf;
                }
                if (via == 0) {
                    mbgcm_job *x = mbgcm_submit_job(m);
                    assert_ptr_equal(x, j);
                } else {
                    assert_int_equal(mbgcm_submit_burst(m, j, 1), 0);
                }
                TU_CHECK(j->status == lim[i].want, "limit %u via %d: status %d, expected %d", i,
                         via, j->status, lim[i].want);
                cases++;
            }
        }
        /* scatter-gather lists whose lengths overflow or do not add up */
        mbgcm_seg segs[300];
        for (unsigned i = 0; i < 300; i++) {
            segs[i].ptr = buf;
            segs[i].len = 0;
        }
        struct {
            unsigned nseg;
            size_t l0, l1, len;
        } sg[] = {
            {2, SIZE_MAX, 2, 1},       /* sum wraps to 1 == len: must still be rejected */
            {2, SIZE_MAX, 1, 0},       /* wraps to 0 */
            {2, (size_t)1 << 63, (size_t)1 << 63, 0},
            {2, 10, 10, 19},           /* more than the message */
            {2, 10, 10, 21},           /* less */
            {0, 0, 0, 0},              /* no segment */
            {MBGCM_MAX_SEGS + 1, 1, 0, 1},
        };
        for (unsigned i = 0; i < sizeof sg / sizeof sg[0]; i++) {
            mbgcm_job *j = &bj[0];
            memset(j, 0, sizeof *j);
            segs[0].len = sg[i].l0;
            segs[1].len = sg[i].l1;
            j->key = &gkey;
            j->dir = MBGCM_DECRYPT;
            j->iv = iv;
            j->iv_len = 12;
            j->len = sg[i].len;
            j->tag = tag;
            j->tag_len = 16;
            j->src_sgl = segs;
            j->src_nseg = sg[i].nseg;
            j->dst_sgl = segs + 100;
            j->dst_nseg = sg[i].nseg;
            segs[100].len = sg[i].l0;
            segs[101].len = sg[i].l1;
            assert_int_equal(mbgcm_submit_burst(m, j, 1), 0);
            TU_CHECK(j->status == MBGCM_ERR_INVALID, "sgl case %u: status %d", i, j->status);
            segs[0].len = segs[1].len = segs[100].len = segs[101].len = 0;
            cases++;
        }
        /* a source and a destination segment that are the same buffer but at different
           offsets of the message (found by fuzz_decrypt): the output would overwrite input
           not read yet, so it must be rejected; at the same offset it is in place */
        {
            uint8_t a[16], b[40], c2[16], t2[16];
            memset(a, 1, sizeof a);
            memset(b, 2, sizeof b);
            mbgcm_seg src2[2] = {{a, 3}, {b, 37}}, dst2[2] = {{b, 37}, {c2, 3}};
            mbgcm_seg src3[2] = {{a, 3}, {b, 37}}, dst3[2] = {{c2, 3}, {b, 37}};
            for (int same_off = 0; same_off < 2; same_off++) {
                mbgcm_job *j = &bj[0];
                memset(j, 0, sizeof *j);
                j->key = &gkey;
                j->dir = MBGCM_ENCRYPT;
                j->iv = iv;
                j->iv_len = 12;
                j->len = 40;
                j->tag = t2;
                j->tag_len = 16;
                j->src_sgl = same_off ? src3 : src2;
                j->src_nseg = 2;
                j->dst_sgl = same_off ? dst3 : dst2;
                j->dst_nseg = 2;
                mbgcm_submit_burst(m, j, 1);
                TU_CHECK(j->status == (same_off ? MBGCM_OK : MBGCM_ERR_INVALID),
                         "same buffer at %s offset: status %d", same_off ? "the same" : "another",
                         j->status);
                cases++;
            }
        }
        assert_int_equal(mbgcm_queue_size(m), 0);
        mbgcm_mgr_free(m);
    }
    print_message("job limits: %u jobs rejected as documented (ring, burst, scatter-gather)\n",
                  cases);
}

static void t_limits_cobble(void **state)
{
    (void)state;
    size_t n = 0;
    const size_t C = MBGCM_COBBLE_CHUNK_LEN, S = MBGCM_COBBLE_SEALED_CHUNK_LEN;
    assert_int_equal(mbgcm_cobble_sealed_len(SIZE_MAX, &n), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_cobble_sealed_len(SIZE_MAX - 100, &n), MBGCM_ERR_LEN);
    /* the last length with 2^38 chunks, and the first with 2^38 + 1 */
    const size_t last = (size_t)(MBGCM_COBBLE_MAX_CHUNKS * C) - 1;
    assert_int_equal(mbgcm_cobble_sealed_len(last, &n), MBGCM_OK);
    assert_int_equal(n, last + 56 + 16 * (size_t)MBGCM_COBBLE_MAX_CHUNKS);
    assert_int_equal(mbgcm_cobble_sealed_len(last + 1, &n), MBGCM_ERR_LEN);
    size_t pt = 0;
    assert_int_equal(mbgcm_cobble_opened_len(n, &pt), MBGCM_OK);
    assert_int_equal(pt, last);
    assert_int_equal(mbgcm_cobble_opened_len(SIZE_MAX, &pt), MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_cobble_opened_len(55, &pt), MBGCM_ERR_TRUNCATED);
    assert_int_equal(mbgcm_cobble_opened_len(56 + S + 15, &pt), MBGCM_ERR_TRUNCATED);
    assert_int_equal(mbgcm_cobble_opened_len(56 + S + 16, &pt), MBGCM_OK);
    assert_int_equal(pt, C);
    /* open / reader with a length far beyond the buffer: rejected from the length alone */
    uint8_t key[32] = {1}, hdr[MBGCM_COBBLE_HEADER_LEN] = {0}, out[16];
    mbgcm_cobble_reader *r = (mbgcm_cobble_reader *)(uintptr_t)1;
    assert_int_equal(mbgcm_cobble_reader_new(&r, key, 32, NULL, 0, hdr, SIZE_MAX - 7, NULL),
                     MBGCM_ERR_LEN);
    assert_null(r);
    assert_int_equal(mbgcm_cobble_open(out, &n, sizeof out, key, 32, NULL, 0, hdr, SIZE_MAX,
                                       NULL),
                     MBGCM_ERR_LEN);
    /* batch: nchunks * chunk_len past SIZE_MAX, chunk length past the GCM limit */
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    uint8_t ivs[12] = {0}, tags[16] = {0}, buf[64] = {0};
    assert_int_equal(mbgcm_batch_encrypt(m, &gkey, SIZE_MAX / 2, 4, ivs, 12, NULL, NULL, buf, 64,
                                         buf, tags, 16),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_batch_encrypt(m, &gkey, 2, MAXLEN + 1, ivs, 12, NULL, NULL, buf, 64,
                                         buf, tags, 16),
                     MBGCM_ERR_LEN);
    assert_int_equal(mbgcm_batch_encrypt(m, &gkey, (SIZE_MAX / 12) + 2, 1, ivs, 12, NULL, NULL,
                                         buf, (SIZE_MAX / 12) + 2, buf, tags, 16),
                     MBGCM_ERR_INVALID);
    assert_int_equal(mbgcm_queue_size(m), 0);
    mbgcm_mgr_free(m);
}

/* ---- invalid job mixes ---------------------------------------------------------------------- */

/* Load the |n| test jobs |t| into |bj|, submit them as one burst on |m|: the burst counts the
   jobs that should succeed, and each job returns its status and memory image. */
static void burst_check(mbgcm_mgr *m, tu_tjob *const *t, mbgcm_job *bj, unsigned n,
                        const char *ctx)
{
    unsigned ok = 0;
    for (unsigned i = 0; i < n; i++) {
        tu_tjob_load(t[i], &bj[i], t[i], &rng);
        ok += t[i]->expect == MBGCM_OK;
    }
    assert_int_equal(mbgcm_submit_burst(m, bj, n), ok);
    for (unsigned i = 0; i < n; i++) {
        tu_tjob_check(t[i], &bj[i], ctx);
    }
}

static void tjobs_free(tu_tjob *const *t, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        tu_tjob_free(t[i]);
    }
}

/* The manager counted |done| jobs since |st0|, |want_invalid| of them invalid; then freed. */
static void mgr_stats_free(mbgcm_mgr *m, const mbgcm_stats *st0, uint64_t done,
                           uint64_t want_invalid)
{
    mbgcm_stats st1;
    assert_int_equal(mbgcm_mgr_stats(m, &st1), MBGCM_OK);
    assert_int_equal(st1.jobs - st0->jobs, done);
    assert_int_equal(st1.jobs_invalid - st0->jobs_invalid, want_invalid);
    mbgcm_mgr_free(m);
}

static void t_invalid_mix(void **state)
{
    (void)state;
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *keys = tu_keys_new(&rng, 4, 0);
    uint64_t total = 0, invalid = 0;
    for (int ci = 0; ci < nc; ci++) {
        const int fast = tu_mgr_fast_lanes(cfgs[ci]);
        for (unsigned qi = 0; qi < 2; qi++) {
            mbgcm_mgr *m = tu_mgr_open(cfgs[ci], qi ? 8 : 4, qi ? 4 : 32, 0);
            if (tu_rng_below(&rng, 2)) {
                mbgcmi_mgr_set_single_min_len(m, UINT64_MAX); /* everything in the lanes */
            }
            mbgcm_stats st0;
            assert_int_equal(mbgcm_mgr_stats(m, &st0), MBGCM_OK);
            const unsigned njobs = fast ? 400 : 120;
            uint64_t want_invalid = 0;
            unsigned done = 0;
            while (done < njobs) {
                const unsigned n = 1 + (unsigned)tu_rng_below(&rng, 12);
                tu_tjob *t[12];
                for (unsigned i = 0; i < n; i++) {
                    tu_jspec sp;
                    memset(&sp, 0, sizeof sp);
                    sp.key = &keys[tu_rng_below(&rng, 4)];
                    sp.dir = tu_rng_below(&rng, 2) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
                    sp.iv_len = tu_rng_below(&rng, 4) ? 12 : (size_t)tu_rng_range(&rng, 1, 70);
                    sp.aad_len = (size_t)tu_rng_below(&rng, 40);
                    sp.len = (size_t)tu_rng_below(&rng, fast ? 700 : 200);
                    sp.tag_len = tu_pick_tag_len(&rng);
                    sp.in_place = tu_rng_below(&rng, 3) == 0;
                    sp.tamper = tu_rng_below(&rng, 5) == 0;
                    sp.null_empty = tu_rng_below(&rng, 2);
                    sp.tag_in_dst = tu_rng_below(&rng, 4) == 0;
                    sp.bad = tu_rng_below(&rng, 3) == 0 ? 1 + (int)tu_rng_below(&rng, TU_BAD_COUNT - 1)
                                                        : TU_BAD_NONE;
                    t[i] = tu_tjob_new(&rng, &sp);
                    want_invalid += sp.bad != TU_BAD_NONE;
                }
                const unsigned how = (unsigned)tu_rng_below(&rng, 4);
                if (how == 0) { /* burst */
                    mbgcm_job bj[12];
                    burst_check(m, t, bj, n, "invalid mix (burst)");
                    /* a refused burst sets last_error and changes nothing */
                    assert_int_equal(mbgcm_submit_burst(m, NULL, 3), 0);
                    assert_int_equal(mbgcm_mgr_last_error(m), MBGCM_ERR_INVALID);
                } else {
                    unsigned back = 0;
                    mbgcm_job *slots[12];
                    for (unsigned i = 0; i < n; i++) {
                        slots[i] = mbgcm_get_next_job(m);
                        tu_tjob_load(t[i], slots[i], t[i], &rng);
                        for (mbgcm_job *x = mbgcm_submit_job(m); x;
                             x = mbgcm_get_completed_job(m)) {
                            assert_ptr_equal(x->user_data, t[back]);
                            tu_tjob_check(t[back], x, "invalid mix (ring)");
                            back++;
                        }
                        if (how == 2 && tu_rng_below(&rng, 3) == 0) {
                            for (mbgcm_job *x = mbgcm_mgr_poll(m); x;
                                 x = mbgcm_get_completed_job(m)) {
                                assert_ptr_equal(x->user_data, t[back]);
                                tu_tjob_check(t[back], x, "invalid mix (poll)");
                                back++;
                            }
                        }
                    }
                    for (mbgcm_job *x; (x = mbgcm_flush_job(m)) != NULL;) {
                        assert_ptr_equal(x->user_data, t[back]);
                        tu_tjob_check(t[back], x, "invalid mix (flush)");
                        back++;
                    }
                    assert_int_equal(back, n);
                }
                assert_int_equal(mbgcm_queue_size(m), 0);
                tjobs_free(t, n);
                done += n;
                total += n;
            }
            mgr_stats_free(m, &st0, done, want_invalid);
            invalid += want_invalid;
        }
    }
    tu_keys_free(keys, 4);
    print_message("invalid mixes: %llu jobs (%llu invalid) on every arch; manager usable "
                  "after each\n", (unsigned long long)total, (unsigned long long)invalid);
}

/* ---- bursts of one shape with invalid jobs among them ---------------------------------------- */

/* A burst job with the len, aad_len, tag_len and dir of the short job classified before it
   takes shorter checks (jobs/validate.h, mbgcmi_shape_memo: those fields' limits are settled).
   Bursts of one such shape, with, at random places after the first job, every kind of invalid
   job that keeps the shape, valid jobs that differ only in what the shorter checks must still
   tell apart (the key's size, the IV's length) and valid jobs of another shape in one of the
   fields compared, on every arch: each job returns its own status and memory image. */
static void t_invalid_same_shape(void **state)
{
    (void)state;
    static const int kinds[] = {TU_BAD_RESERVED,   TU_BAD_KEY_NULL,       TU_BAD_KEY_WIPED,
                                TU_BAD_KEY_UNINIT, TU_BAD_KEY_MISALIGNED, TU_BAD_IV_LEN0,
                                TU_BAD_IV_LEN_HUGE, TU_BAD_IV_NULL,       TU_BAD_TAG_NULL,
                                TU_BAD_AAD_NULL,   TU_BAD_SRC_NULL,       TU_BAD_DST_NULL,
                                TU_BAD_OVERLAP,    TU_BAD_KEY_NOMAGIC};
    const unsigned nkinds = sizeof kinds / sizeof kinds[0];
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key *ka = tu_keys_new(&rng, 3, 16), *kb = tu_keys_new(&rng, 3, 32);
    uint64_t total = 0, invalid = 0, other = 0;
    enum { NB = 40 };
    for (int ci = 0; ci < nc; ci++) {
        const int fast = tu_mgr_fast_lanes(cfgs[ci]);
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 4, 64, 0);
        mbgcm_stats st0;
        assert_int_equal(mbgcm_mgr_stats(m, &st0), MBGCM_OK);
        uint64_t want_invalid = 0, done = 0;
        for (unsigned rep = 0; rep < (fast ? 60u : 12u); rep++) {
            /* the burst's shape: a short job (or a GMAC job: no message, up to 256 bytes of
               AAD) */
            const int ka_first = tu_rng_below(&rng, 2) != 0;
            tu_jspec base;
            memset(&base, 0, sizeof base);
            base.dir = tu_rng_below(&rng, 2) ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
            base.iv_len = 12;
            base.tag_len = tu_pick_tag_len(&rng);
            base.len = tu_rng_below(&rng, 8) == 0 ? 0 : (size_t)tu_rng_range(&rng, 1, 256);
            base.aad_len = base.len == 0 ? (size_t)tu_rng_range(&rng, 1, 256)
                                         : (size_t)tu_rng_below(&rng, 17);
            const unsigned n = 4 + (unsigned)tu_rng_below(&rng, NB - 3);
            tu_tjob *t[NB];
            mbgcm_job bj[NB];
            for (unsigned i = 0; i < n; i++) {
                tu_jspec sp = base;
                const int other_size = i > 0 && tu_rng_below(&rng, 10) == 0;
                const tu_key *set = ka_first != other_size ? ka : kb;
                sp.key = &set[tu_rng_below(&rng, 3)];
                sp.in_place = tu_rng_below(&rng, 3) == 0;
                sp.tamper = tu_rng_below(&rng, 5) == 0;
                sp.null_empty = tu_rng_below(&rng, 2);
                sp.tag_in_dst = tu_rng_below(&rng, 4) == 0;
                int moved = 0;
                if (i > 0 && tu_rng_below(&rng, 10) == 0) {
                    sp.iv_len = (size_t)tu_rng_range(&rng, 1, 70); /* valid, not 12 (mostly) */
                } else if (i > 0 && tu_rng_below(&rng, 8) == 0) {
                    /* a valid job of another shape in one field */
                    moved = 1;
                    switch (tu_rng_below(&rng, 4)) {
                    case 0: sp.tag_len = tu_pick_tag_len(&rng); break;
                    case 1: sp.dir = sp.dir == MBGCM_ENCRYPT ? MBGCM_DECRYPT : MBGCM_ENCRYPT; break;
                    case 2:
                        sp.aad_len = sp.len == 0 ? (size_t)tu_rng_range(&rng, 1, 256)
                                                 : (size_t)tu_rng_below(&rng, 17);
                        break;
                    default:
                        if (sp.len != 0) {
                            sp.len = (size_t)tu_rng_range(&rng, 1, 256);
                        }
                    }
                }
                other += other_size || moved || sp.iv_len != 12;
                sp.bad = TU_BAD_NONE;
                if (i > 0 && tu_rng_below(&rng, 4) == 0) {
                    const int kind = kinds[tu_rng_below(&rng, nkinds)];
                    const int fits = (kind != TU_BAD_AAD_NULL || sp.aad_len > 0) &&
                                     ((kind != TU_BAD_SRC_NULL && kind != TU_BAD_DST_NULL) ||
                                      sp.len > 0) &&
                                     (kind != TU_BAD_OVERLAP || sp.len > 1);
                    sp.bad = fits ? kind : TU_BAD_IV_NULL;
                }
                t[i] = tu_tjob_new(&rng, &sp);
                want_invalid += sp.bad != TU_BAD_NONE;
                invalid += sp.bad != TU_BAD_NONE;
            }
            burst_check(m, t, bj, n, "one shape (burst)");
            assert_int_equal(mbgcm_queue_size(m), 0);
            tjobs_free(t, n);
            done += n;
            total += n;
        }
        mgr_stats_free(m, &st0, done, want_invalid);
    }
    tu_keys_free(ka, 3);
    tu_keys_free(kb, 3);
    print_message("one-shape bursts: %llu jobs, %llu invalid, %llu valid of another key size, "
                  "IV length or shape, on every arch\n",
                  (unsigned long long)total, (unsigned long long)invalid,
                  (unsigned long long)other);
}

/* ---- out of memory --------------------------------------------------------------------------- */

static long fail_countdown = -1; /* the n-th allocation from now fails (1 = the next one) */
static long outstanding;
static unsigned long long allocs_seen, fails_injected;

static void *nomem_alloc(size_t size)
{
    allocs_seen++;
    if (fail_countdown > 0 && --fail_countdown == 0) {
        fails_injected++;
        return NULL;
    }
    void *p = aligned_alloc(64, (size + 63) & ~(size_t)63);
    if (p != NULL) {
        outstanding++;
    }
    return p;
}

static void nomem_free(void *p, size_t size)
{
    (void)size;
    outstanding--;
    free(p);
}

/* Run |call| with the 1st, 2nd, ... allocation failing until it succeeds; each failure must be
   MBGCM_ERR_NOMEM with nothing outstanding afterwards. Returns the points tried. */
static unsigned sweep(const char *what, int (*call)(void *), void *arg, void (*cleanup)(void *))
{
    mbgcmi_set_alloc_hooks(nomem_alloc, nomem_free);
    mbgcmi_cob_set_alloc_hooks(nomem_alloc, nomem_free);
    unsigned k;
    for (k = 1;; k++) {
        fail_countdown = (long)k;
        const long before = outstanding;
        const int st = call(arg);
        const int injected = fail_countdown == 0;
        fail_countdown = -1;
        if (!injected) {
            TU_CHECK(st == MBGCM_OK, "%s: status %d without an allocation failure", what, st);
            if (cleanup) {
                cleanup(arg);
            }
            TU_CHECK(outstanding == before, "%s: %ld blocks outstanding after cleanup", what,
                     outstanding - before);
            break;
        }
        TU_CHECK(st == MBGCM_ERR_NOMEM, "%s: allocation %u failed, status %d (%s)", what, k, st,
                 mbgcm_strerror(st));
        TU_CHECK(outstanding == before, "%s: allocation %u failed, %ld blocks leaked", what, k,
                 outstanding - before);
        TU_CHECK(k < 64, "%s: still failing after %u allocations", what, k);
    }
    mbgcmi_set_alloc_hooks(NULL, NULL);
    mbgcmi_cob_set_alloc_hooks(NULL, NULL);
    return k - 1;
}

struct nm {
    mbgcm_mgr *m;
    const char *arch;
    unsigned threads;
    uint8_t key[32], ctx[4], pt[40000];
    uint8_t *sealed;
    size_t sealed_len;
    uint8_t out[40000 + 200], hdr[MBGCM_COBBLE_HEADER_LEN];
    mbgcm_cobble_sealer *s;
    mbgcm_cobble_opener *o;
    mbgcm_cobble_reader *r;
};

static int c_mgr(void *a)
{
    struct nm *x = a;
    mbgcm_config cfg = {0};
    cfg.arch = x->arch;
    cfg.lanes = 16;
    x->m = (mbgcm_mgr *)(uintptr_t)1;
    const int st = mbgcm_mgr_create(&x->m, &cfg);
    if (st != MBGCM_OK && x->m != NULL) {
        return -100; /* *out must be NULL on error */
    }
    return st;
}
static void f_mgr(void *a)
{
    struct nm *x = a;
    mbgcm_mgr_free(x->m);
}
static mbgcm_cobble_opts nm_opts(const struct nm *x)
{
    mbgcm_cobble_opts o = {0};
    o.threads = x->threads;
    o.arch = x->arch;
    return o;
}
static int c_seal(void *a)
{
    struct nm *x = a;
    const mbgcm_cobble_opts o = nm_opts(x);
    size_t n = 7;
    memset(x->out, 0xEE, sizeof x->out);
    const int st = mbgcm_cobble_seal(x->out, &n, sizeof x->out, x->key, 32, x->ctx, 4, x->pt,
                                     sizeof x->pt, &o);
    if (st != MBGCM_OK && (n != 7 || !tu_all_byte(x->out, sizeof x->out, 0xEE))) {
        return -100; /* nothing written on error */
    }
    return st;
}
static int c_open(void *a)
{
    struct nm *x = a;
    const mbgcm_cobble_opts o = nm_opts(x);
    size_t n = 0;
    const int st = mbgcm_cobble_open(x->out, &n, sizeof x->out, x->key, 32, x->ctx, 4, x->sealed,
                                     x->sealed_len, &o);
    if (st == MBGCM_OK && (n != sizeof x->pt || memcmp(x->out, x->pt, n) != 0)) {
        return -100;
    }
    return st;
}
static int c_raw_seal(void *a)
{
    struct nm *x = a;
    const mbgcm_cobble_opts o = nm_opts(x);
    size_t n = 0;
    return mbgcm_cobble_hazmat_raw_seal(x->out, &n, sizeof x->out, x->key, 16, x->key + 16,
                                        x->pt, 100, &o);
}
static int c_sealer(void *a)
{
    struct nm *x = a;
    const mbgcm_cobble_opts o = nm_opts(x);
    x->s = (mbgcm_cobble_sealer *)(uintptr_t)1;
    const int st = mbgcm_cobble_sealer_new(&x->s, x->hdr, x->key, 32, x->ctx, 4, &o);
    if (st != MBGCM_OK && x->s != NULL) {
        return -100;
    }
    return st;
}
static void f_sealer(void *a)
{
    struct nm *x = a;
    mbgcm_cobble_sealer_free(x->s);
}
static int c_opener(void *a)
{
    struct nm *x = a;
    const mbgcm_cobble_opts o = nm_opts(x);
    x->o = (mbgcm_cobble_opener *)(uintptr_t)1;
    const int st = mbgcm_cobble_opener_new(&x->o, x->key, 32, x->ctx, 4, x->sealed,
                                           MBGCM_COBBLE_HEADER_LEN, &o);
    if (st != MBGCM_OK && x->o != NULL) {
        return -100;
    }
    return st;
}
static void f_opener(void *a)
{
    struct nm *x = a;
    mbgcm_cobble_opener_free(x->o);
}
static int c_reader(void *a)
{
    struct nm *x = a;
    const mbgcm_cobble_opts o = nm_opts(x);
    x->r = (mbgcm_cobble_reader *)(uintptr_t)1;
    const int st = mbgcm_cobble_reader_new(&x->r, x->key, 32, x->ctx, 4, x->sealed,
                                           x->sealed_len, &o);
    if (st != MBGCM_OK && x->r != NULL) {
        return -100;
    }
    return st;
}
static void f_reader(void *a)
{
    struct nm *x = a;
    mbgcm_cobble_reader_free(x->r);
}

static void t_nomem(void **state)
{
    (void)state;
    struct nm *x = calloc(1, sizeof *x);
    assert_non_null(x);
    tu_rng_fill(&rng, x->key, sizeof x->key);
    tu_rng_fill(&rng, x->ctx, sizeof x->ctx);
    tu_rng_fill(&rng, x->pt, sizeof x->pt);
    x->sealed_len = tc_sealed_len(sizeof x->pt);
    x->sealed = tu_xmalloc(x->sealed_len);
    size_t n;
    assert_int_equal(mbgcm_cobble_seal(x->sealed, &n, x->sealed_len, x->key, 32, x->ctx, 4,
                                       x->pt, sizeof x->pt, NULL),
                     MBGCM_OK);
    unsigned points = 0, calls = 0;
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    for (int ai = 0; ai < na; ai++) {
        x->arch = tu_arch_name(arches[ai]);
        points += sweep("mbgcm_mgr_create", c_mgr, x, f_mgr);
        calls++;
        for (unsigned th = 1; th <= 3; th++) {
            x->threads = th;
            points += sweep("mbgcm_cobble_seal", c_seal, x, NULL);
            points += sweep("mbgcm_cobble_open", c_open, x, NULL);
            points += sweep("mbgcm_cobble_hazmat_raw_seal", c_raw_seal, x, NULL);
            points += sweep("mbgcm_cobble_sealer_new", c_sealer, x, f_sealer);
            points += sweep("mbgcm_cobble_opener_new", c_opener, x, f_opener);
            points += sweep("mbgcm_cobble_reader_new", c_reader, x, f_reader);
            calls += 6;
        }
    }
    /* mbgcm_mgr_new: NULL on NOMEM */
    mbgcmi_set_alloc_hooks(nomem_alloc, nomem_free);
    mbgcmi_cob_set_alloc_hooks(nomem_alloc, nomem_free);
    fail_countdown = 1;
    assert_null(mbgcm_mgr_new(NULL));
    fail_countdown = -1;
    mbgcmi_set_alloc_hooks(NULL, NULL);
    mbgcmi_cob_set_alloc_hooks(NULL, NULL);
    free(x->sealed);
    free(x);
    print_message("out of memory: %u calls, %u failing allocation points, each "
                  "MBGCM_ERR_NOMEM with nothing leaked (%llu allocations, %llu failed)\n",
                  calls, points, allocs_seen, fails_injected);
}

int main(void)
{
    tu_seed();
    tu_rng_init(&rng, "robust");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_limits_oneshot), cmocka_unit_test(t_limits_ctx),
        cmocka_unit_test(t_long_inputs),    cmocka_unit_test(t_limits_jobs),
        cmocka_unit_test(t_limits_cobble),  cmocka_unit_test(t_invalid_mix),
        cmocka_unit_test(t_invalid_same_shape),
        cmocka_unit_test(t_nomem),
    };
    const int fails = cmocka_run_group_tests_name("robust", tests, setup, NULL);
    mbgcm_key_wipe(&gkey);
    return fails ? 1 : 0;
}
