/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_threads.c — the thread model (docs/security.md "Threads"): keys are shared
 * read-only by any number of threads; a manager, a context or a Cobblestone object belongs to
 * one thread at a time; the one-time choices (CPU features, the one-shot arch) may be made by
 * concurrent first callers. Run under ThreadSanitizer in CI (scripts/test.sh stage "tsan",
 * clang -fsanitize=thread); elsewhere it is a functional multi-thread test.
 *
 *   phase 1  all threads make their first library calls at once (CPU probe, one-shot arch,
 *            manager creation, key setup on private keys).
 *   phase 2  NTHREADS threads x 2 managers each (one per arch in turn, one "auto") share
 *            NKEYS keys initialised by one thread; every thread pushes every message through
 *            ring jobs, bursts, one-shot calls and the incremental API, encrypt and decrypt,
 *            and compares with answers computed by OpenSSL before the threads started (the
 *            OpenSSL reference helper is not thread-safe, the library must be).
 *   phase 3  every thread seals and opens Cobblestone messages with opts.threads = 2 (the
 *            library's own worker threads, a pool per call) and through its own manager.
 * ThreadSanitizer sees the C code (manager, lanes bookkeeping, Cobblestone pool); accesses
 * inside the NASM kernels are not instrumented (they touch only the caller's job buffers and
 * the calling manager's lane state).
 */
#include <pthread.h>

#include "jobs_internal.h"
#include "test_cobble_common.h"

#define NTHREADS 4
#define NKEYS 6
#define NMSG 48
#define MAXLEN 600

struct msg {
    int key;
    size_t len, al, ivl, tl;
    uint8_t iv[32], aad[32], pt[MAXLEN], ct[MAXLEN], tag[16];
};

static struct msg *msgs;
static tu_key *keys;          /* shared, read-only once phase 2 starts */
static pthread_barrier_t bar;
static int arches[MBGCMI_MAX_ARCHES], narch;
static unsigned reps = 10;

struct thr {
    pthread_t tid;
    unsigned idx;
    unsigned long long checked, failures;
    char err[256];
};

static void note(struct thr *t, const char *what, unsigned m)
{
    if (t->failures++ == 0) {
        snprintf(t->err, sizeof t->err, "thread %u: %s (message %u)", t->idx, what, m);
    }
}

static void load(mbgcm_job *j, const struct msg *x, int dec, uint8_t *out, uint8_t *tag)
{
    memset(j, 0, sizeof *j);
    j->key = &keys[x->key].key;
    j->dir = dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    j->iv = x->iv;
    j->iv_len = x->ivl;
    j->aad = x->aad;
    j->aad_len = x->al;
    j->src = dec ? x->ct : x->pt;
    j->dst = out;
    j->len = x->len;
    if (dec) {
        memcpy(tag, x->tag, x->tl);
    }
    j->tag = tag;
    j->tag_len = x->tl;
}

static void verify(struct thr *t, const struct msg *x, int dec, const uint8_t *out,
                   const uint8_t *tag, int st, unsigned m, const char *path)
{
    t->checked++;
    if (st != MBGCM_OK || memcmp(out, dec ? x->pt : x->ct, x->len) != 0 ||
        (!dec && memcmp(tag, x->tag, x->tl) != 0)) {
        note(t, path, m);
    }
}

static void *thr_main(void *arg)
{
    struct thr *t = arg;
    uint8_t out[MAXLEN], tag[16];
    /* ---- phase 1: concurrent first calls ---- */
    pthread_barrier_wait(&bar);
    {
        uint8_t raw[32], iv[12] = {0}, buf[64] = {0};
        memset(raw, (int)t->idx + 1, sizeof raw);
        mbgcm_key *k = aligned_alloc(64, sizeof *k);
        if (mbgcm_key_init(k, raw, 16 + 8 * (t->idx % 3)) != MBGCM_OK ||
            mbgcm_encrypt(k, iv, 12, NULL, 0, buf, sizeof buf, buf, tag, 16) != MBGCM_OK) {
            note(t, "first calls", 0);
        }
        mbgcm_mgr *m = mbgcm_mgr_new(NULL);
        if (m == NULL) {
            note(t, "first manager", 0);
        }
        mbgcm_mgr_free(m);
        mbgcm_key_wipe(k);
        free(k);
    }
    pthread_barrier_wait(&bar); /* thread 0 (main) sets up the shared keys here */
    pthread_barrier_wait(&bar);
    /* ---- phase 2: managers per thread, keys shared ---- */
    mbgcm_config ca = {0}, cb = {0};
    ca.arch = tu_arch_name(arches[t->idx % (unsigned)narch]);
    ca.lanes = 4 + 4 * (t->idx % 2);
    ca.queue_size = 8;
    cb.lanes = 8;
    mbgcm_mgr *ma = mbgcm_mgr_new(&ca), *mb = mbgcm_mgr_new(&cb);
    if (ma == NULL || mb == NULL) {
        note(t, "manager", 0);
        return NULL;
    }
    for (unsigned r = 0; r < reps; r++) {
        for (unsigned i = 0; i < NMSG; i++) {
            const unsigned mi = (i + t->idx * 7 + r) % NMSG;
            const struct msg *x = &msgs[mi];
            for (int dec = 0; dec < 2; dec++) {
                /* ring: a few jobs in flight, returned in order */
                mbgcm_job *j = mbgcm_get_next_job(ma);
                uint8_t jout[MAXLEN], jtag[16];
                load(j, x, dec, jout, jtag);
                mbgcm_job *back = mbgcm_submit_job(ma);
                while (back == NULL) {
                    back = mbgcm_flush_job(ma);
                }
                if (back != j) {
                    note(t, "ring order", mi);
                }
                verify(t, x, dec, jout, jtag, j->status, mi, "ring job");
                /* burst of two on the auto manager */
                mbgcm_job bj[2];
                uint8_t bout[2][MAXLEN], btag[2][16];
                load(&bj[0], x, dec, bout[0], btag[0]);
                load(&bj[1], &msgs[(mi + 1) % NMSG], dec, bout[1], btag[1]);
                mbgcm_submit_burst(mb, bj, 2);
                verify(t, x, dec, bout[0], btag[0], bj[0].status, mi, "burst job");
                verify(t, &msgs[(mi + 1) % NMSG], dec, bout[1], btag[1], bj[1].status, mi,
                       "burst job 2");
                /* one-shot */
                int st;
                if (dec) {
                    memcpy(tag, x->tag, x->tl);
                    st = mbgcm_decrypt(&keys[x->key].key, x->iv, x->ivl, x->aad, x->al, x->ct,
                                       x->len, out, tag, x->tl);
                } else {
                    st = mbgcm_encrypt(&keys[x->key].key, x->iv, x->ivl, x->aad, x->al, x->pt,
                                       x->len, out, tag, x->tl);
                }
                verify(t, x, dec, out, tag, st, mi, "one-shot");
                /* incremental, in three pieces */
                mbgcm_ctx c;
                st = mbgcm_ctx_init(&c, &keys[x->key].key, dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT,
                                    x->iv, x->ivl, x->aad, x->al);
                const uint8_t *src = dec ? x->ct : x->pt;
                const size_t a = x->len / 3, b = 2 * x->len / 3;
                if (st == MBGCM_OK) st = mbgcm_ctx_update(&c, src, a, out);
                if (st == MBGCM_OK) st = mbgcm_ctx_update(&c, src + a, b - a, out + a);
                if (st == MBGCM_OK) st = mbgcm_ctx_update(&c, src + b, x->len - b, out + b);
                if (st == MBGCM_OK) {
                    st = dec ? mbgcm_ctx_verify(&c, x->tag, x->tl) : mbgcm_ctx_final(&c, tag, x->tl);
                }
                verify(t, x, dec, out, tag, st, mi, "incremental");
            }
        }
    }
    mbgcm_mgr_free(ma);
    mbgcm_mgr_free(mb);
    /* ---- phase 3: Cobblestone with the library's own threads ---- */
    {
        const size_t plen = 5 * MBGCM_COBBLE_CHUNK_LEN + 77;
        const size_t sl = tc_sealed_len(plen);
        uint8_t *pt = malloc(plen), *sealed = malloc(sl), *opened = malloc(plen);
        uint8_t ikey[32];
        memset(ikey, 0x30 + (int)t->idx, sizeof ikey);
        for (size_t i = 0; i < plen; i++) {
            pt[i] = (uint8_t)(i * 7 + t->idx);
        }
        mbgcm_cobble_opts o = {0};
        o.threads = 2;
        size_t n = 0, got = 0;
        /* runs are split over threads from MBGCM_COBBLE_THREAD_MIN_CHUNKS chunks: use the
           streaming sealer with a manager of this thread too */
        if (mbgcm_cobble_seal(sealed, &n, sl, ikey, 32, NULL, 0, pt, plen, &o) != MBGCM_OK ||
            mbgcm_cobble_open(opened, &got, plen, ikey, 32, NULL, 0, sealed, n, &o) != MBGCM_OK ||
            got != plen || memcmp(opened, pt, plen) != 0) {
            note(t, "Cobblestone with threads", 0);
        }
        mbgcm_mgr *m = mbgcm_mgr_new(NULL);
        mbgcm_cobble_opts om = {0};
        om.mgr = m;
        if (m == NULL ||
            mbgcm_cobble_open(opened, &got, plen, ikey, 32, NULL, 0, sealed, n, &om) !=
                MBGCM_OK ||
            memcmp(opened, pt, plen) != 0) {
            note(t, "Cobblestone with the thread's manager", 0);
        }
        mbgcm_mgr_free(m);
        t->checked += 3;
        free(pt);
        free(sealed);
        free(opened);
    }
    return NULL;
}

/* A large run so that a call really splits over 2 threads (>= 2 * 16 chunks). */
static int cobble_split_run(void)
{
    const size_t plen = 40 * MBGCM_COBBLE_CHUNK_LEN;
    const size_t sl = tc_sealed_len(plen);
    uint8_t *pt = calloc(1, plen), *sealed = malloc(sl), *opened = malloc(plen);
    uint8_t ikey[16] = {9};
    mbgcm_cobble_opts o = {0};
    o.threads = 3;
    size_t n = 0, got = 0;
    int ok = pt && sealed && opened &&
             mbgcm_cobble_seal(sealed, &n, sl, ikey, 16, NULL, 0, pt, plen, &o) == MBGCM_OK &&
             mbgcm_cobble_open(opened, &got, plen, ikey, 16, NULL, 0, sealed, n, &o) == MBGCM_OK &&
             got == plen && memcmp(opened, pt, plen) == 0;
    free(pt);
    free(sealed);
    free(opened);
    return ok;
}

struct split_arg {
    int ok;
};
static void *split_main(void *arg)
{
    ((struct split_arg *)arg)->ok = cobble_split_run();
    return NULL;
}

/* --selftest-race: two threads on ONE manager (a misuse the thread model forbids), so that
   ThreadSanitizer must report a data race (ctest threads_tsan_selftest expects the report). */
static mbgcm_mgr *shared_mgr;
static tu_key *race_key;
static void *race_main(void *arg)
{
    (void)arg;
    uint8_t iv[12] = {0}, buf[64] = {0}, tag[16];
    for (int i = 0; i < 200; i++) {
        mbgcm_job *j = mbgcm_get_next_job(shared_mgr);
        memset(j, 0, sizeof *j);
        j->key = &race_key->key;
        j->dir = MBGCM_ENCRYPT;
        j->iv = iv;
        j->iv_len = 12;
        j->src = buf;
        j->dst = buf;
        j->len = 0;
        j->tag = tag;
        j->tag_len = 16;
        mbgcm_submit_job(shared_mgr);
        while (mbgcm_get_completed_job(shared_mgr) != NULL) {
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--selftest-race") == 0) {
        tu_rng r;
        tu_rng_init(&r, "race");
        race_key = tu_keys_new(&r, 1, 16);
        shared_mgr = mbgcm_mgr_new(NULL);
        pthread_t a, b;
        pthread_create(&a, NULL, race_main, NULL);
        pthread_create(&b, NULL, race_main, NULL);
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        printf("selftest-race: done (ThreadSanitizer must have reported a race above)\n");
        return 0;
    }
    tu_seed();
    tu_rng rng;
    tu_rng_init(&rng, "threads");
    if (getenv("MBGCM_THREADS_REPS")) {
        reps = (unsigned)atoi(getenv("MBGCM_THREADS_REPS"));
    }
    /* references first, with OpenSSL only (no library call yet: phase 1 makes the first) */
    msgs = calloc(NMSG, sizeof *msgs);
    uint8_t raw[NKEYS][32];
    size_t kl[NKEYS];
    for (int k = 0; k < NKEYS; k++) {
        kl[k] = 16 + 8 * (size_t)(k % 3);
        tu_rng_fill(&rng, raw[k], 32);
    }
    for (unsigned i = 0; i < NMSG; i++) {
        struct msg *x = &msgs[i];
        x->key = (int)(i % NKEYS);
        x->len = i % 4 == 0 ? (size_t)tu_rng_below(&rng, 64) : (size_t)tu_rng_below(&rng, MAXLEN + 1);
        x->al = (size_t)tu_rng_below(&rng, 33);
        x->ivl = i % 5 == 0 ? (size_t)tu_rng_range(&rng, 1, 32) : 12;
        x->tl = tu_pick_tag_len(&rng);
        tu_rng_fill(&rng, x->iv, sizeof x->iv);
        tu_rng_fill(&rng, x->aad, sizeof x->aad);
        tu_rng_fill(&rng, x->pt, x->len);
        uint8_t full[16];
        tu_ossl_gcm_encrypt(raw[x->key], kl[x->key], x->iv, x->ivl, x->aad, x->al, x->pt, x->len,
                            x->ct, full, 16);
        memcpy(x->tag, full, x->tl);
    }
    struct thr T[NTHREADS];
    pthread_barrier_init(&bar, NULL, NTHREADS + 1);
    for (unsigned i = 0; i < NTHREADS; i++) {
        memset(&T[i], 0, sizeof T[i]);
        T[i].idx = i;
        if (pthread_create(&T[i].tid, NULL, thr_main, &T[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    pthread_barrier_wait(&bar); /* phase 1 runs */
    pthread_barrier_wait(&bar); /* phase 1 done: set up the shared keys */
    narch = tu_supported_arches(arches);
    keys = aligned_alloc(64, NKEYS * sizeof *keys);
    for (int k = 0; k < NKEYS; k++) {
        memcpy(keys[k].raw, raw[k], 32);
        keys[k].len = kl[k];
        if (mbgcm_key_init(&keys[k].key, raw[k], kl[k]) != MBGCM_OK) {
            fprintf(stderr, "key init failed\n");
            return 1;
        }
    }
    pthread_barrier_wait(&bar); /* phase 2 */
    /* meanwhile a Cobblestone call that splits its run over its own workers */
    struct split_arg sa = {0};
    pthread_t st;
    pthread_create(&st, NULL, split_main, &sa);
    unsigned long long checked = 0, failures = 0;
    for (unsigned i = 0; i < NTHREADS; i++) {
        pthread_join(T[i].tid, NULL);
        checked += T[i].checked;
        failures += T[i].failures;
        if (T[i].failures) {
            fprintf(stderr, "FAIL: %s\n", T[i].err);
        }
    }
    pthread_join(st, NULL);
    if (!sa.ok) {
        fprintf(stderr, "FAIL: Cobblestone split run\n");
        failures++;
    }
    printf("threads: %d threads x 2 managers sharing %d keys on %d arches: %llu operations "
           "checked, %llu failures; Cobblestone split over 3 workers: %s\n", NTHREADS, NKEYS,
           narch, checked, failures, sa.ok ? "ok" : "FAILED");
    for (int k = 0; k < NKEYS; k++) {
        mbgcm_key_wipe(&keys[k].key);
    }
    free(keys);
    free(msgs);
    pthread_barrier_destroy(&bar);
    return failures ? 1 : 0;
}
