/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_jobs.c — libFuzzer harness: random job sequences through the ring and
 * burst APIs of one manager, every result checked against OpenSSL and against the portable
 * `generic` single-message path (which must agree with each other first).
 *
 * The input drives everything: the manager (arch among the supported ones, lanes, ring size,
 * single-stream threshold, flush timeout with an injected clock), three keys, then a sequence
 * of operations: submit a ring job, submit a burst of up to 12 jobs, flush until empty, poll
 * (the clock advances), take completed jobs. A job has a key, a direction, IV/AAD/message/tag
 * lengths (IV 1..64, AAD 0..80, message 0..600), in place or not, a tampered tag, scatter-gather
 * lists, or one defect of the documented kinds (bad direction, reserved field, NULL, wiped or
 * misaligned key, bad lengths, NULL pointers, overlap). Checks: ring jobs come back in
 * submission order exactly once; every status is the expected one; outputs and tags are
 * byte-exact; a failed tag leaves the output zeroed; nothing is written past a buffer (canary
 * bytes, and AddressSanitizer for the C code); the queue drains to zero.
 */
#include "fuzz_common.h"
#include "jobs_internal.h"
#include "test_util.h"

#define MAXLEN 600
#define CANARY 32
#define MAXQ 64

enum { D_NONE, D_DIR, D_RESERVED, D_KEY_NULL, D_KEY_WIPED, D_KEY_MISALIGNED, D_IV_LEN0,
       D_IV_LEN_HUGE, D_AAD_LEN, D_LEN, D_TAG_LEN, D_IV_NULL, D_TAG_NULL, D_AAD_NULL,
       D_SRC_NULL, D_DST_NULL, D_OVERLAP, D_COUNT };

struct fj {
    mbgcm_job *job;      /* where the library has it (ring slot or burst array) */
    int expect;
    size_t len, tl;
    int enc;
    uint8_t *buf;        /* [src | canary | dst | canary] or [dst | canary] in place */
    uint8_t *dst;
    uint8_t *want;       /* expected dst */
    uint8_t tagbuf[16 + CANARY], wanttag[16 + CANARY];
    uint8_t iv[64], aad[80];
    mbgcm_seg segs[2][6];
};

static mbgcm_key keys[3];
static uint8_t raw[3][32];
static size_t kl[3];
static mbgcm_key wiped;
static uint8_t misaligned_store[sizeof(mbgcm_key) + 64] __attribute__((aligned(64)));
static uint64_t now;

static uint64_t fake_clock(void *ctx)
{
    (void)ctx;
    return now;
}

/* Build job |j| from the input into |job| (a ring slot or a burst entry). */
static void make_job(struct fz *f, struct fj *x, mbgcm_job *job)
{
    memset(x, 0, sizeof *x);
    memset(job, 0, sizeof *job);
    const unsigned k = fz_below(f, 3);
    const uint8_t shape = fz_u8(f);
    x->enc = !(shape & 1);
    const int tamper = !x->enc && ((shape >> 2) & 1);
    const unsigned defect = (shape >> 5) == 7 ? 1 + fz_below(f, D_COUNT - 1) : D_NONE;
    /* scatter-gather: 1 source list, 2 destination list, 3 both (in place: the same list);
       a list against a plain pointer is out of place */
    const int sgl = defect == D_NONE ? (shape >> 3) & 3 : 0;
    const int inpl = ((shape >> 1) & 1) && (sgl == 0 || sgl == 3);
    size_t ivl = (fz_u8(f) & 3) ? 12 : 1 + fz_below(f, 64);
    size_t al = fz_below(f, 81);
    x->len = fz_below(f, MAXLEN + 1);
    static const size_t tls[7] = {4, 8, 12, 13, 14, 15, 16};
    x->tl = tls[fz_below(f, 7)];
    const uint64_t seed = fz_u32(f);
    fz_expand(seed, x->iv, sizeof x->iv);
    fz_expand(seed + 1, x->aad, sizeof x->aad);
    const size_t len = x->len;
    x->buf = malloc(2 * (len + CANARY) + 1);
    memset(x->buf, 0xC5, 2 * (len + CANARY) + 1);
    uint8_t *src = x->buf;
    x->dst = inpl ? src : x->buf + len + CANARY;
    uint8_t *pt = malloc(len + 1), *ct = malloc(len + 1), tag[16], tag2[16];
    fz_expand(seed + 2, pt, len);
    /* the two references must agree */
    tu_ossl_gcm_encrypt(raw[k], kl[k], x->iv, ivl, x->aad, al, pt, len, ct, tag, 16);
    uint8_t *ct2 = malloc(len + 1);
    mbgcmi_gcm_message(tu_arch(TU_ARCH("generic")), mbgcmi_key_c(&keys[k]), x->iv, ivl, x->aad, al,
                       pt, len, ct2, tag2, 16, 0);
    FZ_CHECK(memcmp(ct, ct2, len) == 0 && memcmp(tag, tag2, 16) == 0,
             "generic path and OpenSSL disagree (len %zu aad %zu iv %zu)", len, al, ivl);
    free(ct2);
    memcpy(src, x->enc ? pt : ct, len);
    x->want = malloc(len + 1);
    memset(x->tagbuf, 0xA7, sizeof x->tagbuf);
    memcpy(x->wanttag, x->tagbuf, sizeof x->wanttag);
    if (x->enc) {
        memcpy(x->want, ct, len);
        memcpy(x->wanttag, tag, x->tl);
    } else {
        memcpy(x->tagbuf, tag, x->tl);
        if (tamper) {
            x->tagbuf[fz_below(f, (unsigned)x->tl)] ^= (uint8_t)(1u << fz_below(f, 8));
        }
        memcpy(x->wanttag, x->tagbuf, sizeof x->wanttag);
        if (tamper) {
            memset(x->want, 0, len);
        } else {
            memcpy(x->want, pt, len);
        }
    }
    x->expect = tamper ? MBGCM_ERR_AUTH : MBGCM_OK;
    job->key = &keys[k];
    job->dir = x->enc ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
    job->iv = x->iv;
    job->iv_len = ivl;
    job->aad = al ? x->aad : (fz_u8(f) & 1 ? NULL : x->aad);
    job->aad_len = al;
    job->src = src;
    job->dst = x->dst;
    job->len = len;
    job->tag = x->tagbuf;
    job->tag_len = x->tl;
    if (sgl) { /* cut the linear buffers into segments */
        for (int side = 0; side < 2; side++) {
            if (!(sgl >> side & 1)) {
                continue;
            }
            uint8_t *base = side ? x->dst : src;
            const unsigned ns = 1 + fz_below(f, 6);
            size_t off = 0;
            for (unsigned s = 0; s < ns; s++) {
                const size_t n = s + 1 == ns ? len - off : fz_below(f, (unsigned)(len - off + 1));
                x->segs[side][s].ptr = n || fz_u8(f) & 1 ? base + off : NULL;
                x->segs[side][s].len = n;
                off += n;
            }
            if (side == 0) {
                job->src = NULL;
                job->src_sgl = x->segs[0];
                job->src_nseg = ns;
            } else {
                job->dst = NULL;
                job->dst_sgl = x->segs[1];
                job->dst_nseg = ns;
            }
        }
        if (inpl && sgl == 3) { /* in place with lists: the same list */
            job->dst_sgl = job->src_sgl;
            job->dst_nseg = job->src_nseg;
        }
    }
    switch (defect) {
    case D_NONE: break;
    case D_DIR: job->dir = (int)fz_u8(f) + 3; break;
    case D_RESERVED: job->reserved_ = x; break;
    case D_KEY_NULL: job->key = NULL; break;
    case D_KEY_WIPED: job->key = &wiped; break;
    case D_KEY_MISALIGNED: job->key = (const mbgcm_key *)(const void *)(misaligned_store + 16);
        break;
    case D_IV_LEN0: job->iv_len = 0; break;
    case D_IV_LEN_HUGE: job->iv_len = (size_t)1 << (61 + fz_below(f, 3)); break;
    case D_AAD_LEN: job->aad_len = (size_t)MBGCMI_MAX_AAD_LEN + 1 + fz_u8(f); break;
    case D_LEN: job->len = (size_t)MBGCMI_MAX_TEXT_LEN + 1 + fz_u8(f); break;
    case D_TAG_LEN: {
        static const size_t bad[8] = {0, 1, 3, 5, 9, 11, 17, 255};
        job->tag_len = bad[fz_below(f, 8)];
        break;
    }
    case D_IV_NULL: job->iv = NULL; break;
    case D_TAG_NULL: job->tag = NULL; break;
    case D_AAD_NULL: job->aad = NULL; job->aad_len = al ? al : 1; break;
    case D_SRC_NULL: job->src = NULL; job->len = len ? len : 1; break;
    case D_DST_NULL: job->dst = NULL; job->len = len ? len : 1; break;
    case D_OVERLAP:
        if (len >= 2) {
            job->src = x->buf;
            job->dst = x->buf + 1 + fz_below(f, (unsigned)len - 1);
        } else {
            job->dst = NULL; job->len = 1; /* too short to overlap: a NULL instead */
        }
        break;
    }
    if (defect != D_NONE) {
        static const int st[D_COUNT] = {
            [D_DIR] = MBGCM_ERR_INVALID, [D_RESERVED] = MBGCM_ERR_INVALID,
            [D_KEY_NULL] = MBGCM_ERR_INVALID, [D_KEY_WIPED] = MBGCM_ERR_INVALID,
            [D_KEY_MISALIGNED] = MBGCM_ERR_INVALID, [D_IV_LEN0] = MBGCM_ERR_IV_LEN,
            [D_IV_LEN_HUGE] = MBGCM_ERR_IV_LEN, [D_AAD_LEN] = MBGCM_ERR_LEN,
            [D_LEN] = MBGCM_ERR_LEN, [D_TAG_LEN] = MBGCM_ERR_TAG_LEN,
            [D_IV_NULL] = MBGCM_ERR_INVALID, [D_TAG_NULL] = MBGCM_ERR_INVALID,
            [D_AAD_NULL] = MBGCM_ERR_INVALID, [D_SRC_NULL] = MBGCM_ERR_INVALID,
            [D_DST_NULL] = MBGCM_ERR_INVALID, [D_OVERLAP] = MBGCM_ERR_INVALID};
        x->expect = st[defect];
    }
    if (x->expect != MBGCM_OK && x->expect != MBGCM_ERR_AUTH) {
        /* rejected: nothing written */
        memcpy(x->want, x->dst, len);
        memcpy(x->wanttag, x->tagbuf, sizeof x->wanttag);
    }
    free(pt);
    free(ct);
    x->job = job;
}

static unsigned long long st_ok, st_auth, st_invalid, st_jobs, st_bytes;
static void print_stats(void)
{
    fprintf(stderr, "fuzz_jobs: %llu jobs checked (%llu bytes): ok %llu, auth failed %llu, "
            "rejected %llu\n", st_jobs, st_bytes, st_ok, st_auth, st_invalid);
}

static void check_job(struct fj *x, const mbgcm_job *job, const char *how)
{
    st_jobs++;
    st_bytes += x->len;
    st_ok += x->expect == MBGCM_OK;
    st_auth += x->expect == MBGCM_ERR_AUTH;
    st_invalid += x->expect != MBGCM_OK && x->expect != MBGCM_ERR_AUTH;
    FZ_CHECK(job->status == x->expect, "%s: status %d, expected %d (len %zu)", how, job->status,
             x->expect, x->len);
    FZ_CHECK(memcmp(x->dst, x->want, x->len) == 0, "%s: output differs (len %zu, status %d)",
             how, x->len, job->status);
    for (size_t i = 0; i < CANARY; i++) {
        FZ_CHECK(x->dst[x->len + i] == 0xC5, "%s: byte %zu past the output written", how, i);
    }
    FZ_CHECK(memcmp(x->tagbuf, x->wanttag, sizeof x->tagbuf) == 0, "%s: tag buffer differs",
             how);
}

static void free_job(struct fj *x)
{
    free(x->buf);
    free(x->want);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    for (int k = 0; k < 3; k++) {
        kl[k] = 16 + 8 * (size_t)k;
        fz_expand((uint64_t)k * 77 + 5, raw[k], 32);
        mbgcm_key_init(&keys[k], raw[k], kl[k]);
    }
    mbgcm_key_init(&wiped, raw[0], 16);
    mbgcm_key_wipe(&wiped);
    memcpy(misaligned_store + 16, &keys[0], sizeof keys[0]);
    atexit(print_stats);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    const uint8_t c0 = fz_u8(&f), c1 = fz_u8(&f);
    mbgcm_config cfg = {0};
    cfg.arch = tu_arch_name(arches[c0 % na]);
    cfg.lanes = 4 * (1 + ((c0 >> 3) & 3));
    cfg.queue_size = 1u << (c1 & 7); /* 1 .. 128 */
    cfg.queue_size = cfg.queue_size > MAXQ ? MAXQ : cfg.queue_size;
    cfg.flush_timeout_ns = (c1 >> 3) & 1 ? 100 : 0;
    mbgcm_mgr *m = mbgcm_mgr_new(&cfg);
    FZ_CHECK(m != NULL, "manager");
    mbgcmi_mgr_set_clock(m, fake_clock, NULL);
    switch (c0 >> 5) {
    case 1: mbgcmi_mgr_set_single_min_len(m, 0); break;
    case 2: mbgcmi_mgr_set_single_min_len(m, UINT64_MAX); break;
    case 3: mbgcmi_mgr_set_single_min_len(m, fz_below(&f, 700)); break;
    default: break;
    }
    struct fj *ring = calloc(MAXQ, sizeof *ring); /* pending ring jobs in submission order */
    unsigned head = 0, count = 0, ops = 0;
    while (f.n > 0 && ops++ < 48) {
        const uint8_t op = fz_u8(&f) % 8;
        if (op <= 3) { /* ring submit */
            if (count == cfg.queue_size) { /* a full ring never happens: submit pops it */
                FZ_CHECK(0, "ring model full");
            }
            struct fj *x = &ring[(head + count) % MAXQ];
            mbgcm_job *slot = mbgcm_get_next_job(m);
            make_job(&f, x, slot);
            count++;
            now += fz_u8(&f);
            for (mbgcm_job *b = mbgcm_submit_job(m); b; b = mbgcm_get_completed_job(m)) {
                FZ_CHECK(count > 0 && b == ring[head % MAXQ].job, "ring order");
                check_job(&ring[head % MAXQ], b, "ring");
                free_job(&ring[head % MAXQ]);
                head = (head + 1) % MAXQ;
                count--;
            }
        } else if (op == 4) { /* burst */
            const unsigned n = 1 + fz_below(&f, 12);
            mbgcm_job bj[12];
            struct fj bx[12];
            unsigned ok = 0;
            for (unsigned i = 0; i < n; i++) {
                make_job(&f, &bx[i], &bj[i]);
                ok += bx[i].expect == MBGCM_OK;
            }
            FZ_CHECK(mbgcm_submit_burst(m, bj, n) == ok, "burst OK count");
            for (unsigned i = 0; i < n; i++) {
                check_job(&bx[i], &bj[i], "burst");
                free_job(&bx[i]);
            }
        } else if (op == 5 || op == 6) { /* flush everything / poll */
            now += op == 6 ? 50 + fz_u8(&f) : 0;
            mbgcm_job *b = op == 5 ? mbgcm_flush_job(m) : mbgcm_mgr_poll(m);
            for (; b; b = op == 5 ? mbgcm_flush_job(m) : mbgcm_get_completed_job(m)) {
                FZ_CHECK(count > 0 && b == ring[head % MAXQ].job, "flush/poll order");
                check_job(&ring[head % MAXQ], b, op == 5 ? "flush" : "poll");
                free_job(&ring[head % MAXQ]);
                head = (head + 1) % MAXQ;
                count--;
            }
            if (op == 5) {
                FZ_CHECK(count == 0 && mbgcm_queue_size(m) == 0, "flush left jobs");
            }
        } else { /* completed only: never runs kernels */
            for (mbgcm_job *b; (b = mbgcm_get_completed_job(m)) != NULL;) {
                FZ_CHECK(count > 0 && b == ring[head % MAXQ].job, "completed order");
                check_job(&ring[head % MAXQ], b, "completed");
                free_job(&ring[head % MAXQ]);
                head = (head + 1) % MAXQ;
                count--;
            }
        }
        FZ_CHECK(mbgcm_queue_size(m) == count, "queue size %u, model %u", mbgcm_queue_size(m),
                 count);
    }
    for (mbgcm_job *b; (b = mbgcm_flush_job(m)) != NULL;) {
        FZ_CHECK(count > 0 && b == ring[head % MAXQ].job, "final flush order");
        check_job(&ring[head % MAXQ], b, "final flush");
        free_job(&ring[head % MAXQ]);
        head = (head + 1) % MAXQ;
        count--;
    }
    FZ_CHECK(count == 0, "jobs never returned: %u", count);
    free(ring);
    mbgcm_mgr_free(m);
    return 0;
}
