/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_zeroize.c — secrets do not outlive their use (docs/security.md "Zeroization").
 *
 *  - key wipe: mbgcm_key_wipe leaves all 1536 bytes zero and the key unusable (INVALID) until
 *    it is initialised again.
 *  - context wipe: final, verify (match or not) and mbgcm_ctx_wipe leave the 256-byte context
 *    zero; a rejected tag length leaves it as it was (documented), usable.
 *  - manager free: through the allocation hooks (mbgcmi_set_alloc_hooks and, for the storage
 *    layer, mbgcmi_cob_set_alloc_hooks) every block the libraries release is checked to be all zeros before it goes back to the allocator (never
 *    by reading freed memory), on every supported arch, with lanes busy (pending jobs
 *    abandoned), after flushes and after bursts; a sanity check first sees key material in
 *    the lane rows while jobs are pending, so a test that passes means the wipe happened.
 *  - idle lanes: when the manager goes idle (flush returning NULL or the last job, poll with
 *    nothing pending, end of a burst) every lane row (round keys, powers, E_K(J0), counters,
 *    GHASH state, length blocks, expected tags, scratch) is zero and no lane caches a key.
 *  - stack scratch: every API call is run on a stack of our own (makecontext/swapcontext),
 *    painted before the call and scanned after it for any 8-byte window of the call's
 *    secrets: the raw key, every round key, the hash key H and its stored powers, E_K(J0),
 *    the key stream blocks, the plaintext, and a failed decrypt's computed tag; for manager
 *    jobs also each IV whitened with round key 0 (a short-job kernel's counter row: with the
 *    IV it gives the key) and the key stream of an idle short-job lane's dummy job (zero IV
 *    and plaintext: blocks E_K(0^96 || c)). Paths: key
 *    init; one-shot, incremental, ring, burst, scatter-gather and short jobs on every
 *    supported arch; Cobblestone open. What the stack scan cannot see: bytes smaller than the
 *    8-byte window. Not run in sanitizer builds (their instrumented frames differ).
 *  - vector registers: the same calls start with the vector registers zeroed and end with a
 *    dump of them (zmm0-31, or ymm0-15 / xmm0-15 without AVX-512), scanned for the same
 *    windows; asserted on the asm arches, counted on the portable one (compiled C).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <cmocka.h>

#include "jobs_internal.h"
#include "test_cobble_common.h"

static tu_rng rng;

/* ---- allocation hook: check blocks are zero when released ------------------------------- */
static unsigned long long blocks_checked, blocks_dirty, bytes_checked;
static size_t first_dirty_off, first_dirty_size;

static void *hook_alloc(size_t size)
{
    return aligned_alloc(64, (size + 63) & ~(size_t)63);
}

static void hook_free(void *p, size_t size)
{
    const uint8_t *b = p;
    blocks_checked++;
    bytes_checked += size;
    for (size_t i = 0; i < size; i++) {
        if (b[i] != 0) {
            if (blocks_dirty++ == 0) {
                first_dirty_off = i;
                first_dirty_size = size;
            }
            break;
        }
    }
    free(p);
}

static int setup(void **state)
{
    (void)state;
    mbgcmi_set_alloc_hooks(hook_alloc, hook_free);
    mbgcmi_cob_set_alloc_hooks(hook_alloc, hook_free);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    mbgcmi_set_alloc_hooks(NULL, NULL);
    mbgcmi_cob_set_alloc_hooks(NULL, NULL);
    return 0;
}

/* ---- key and context ----------------------------------------------------------------------- */

static void t_key_wipe(void **state)
{
    (void)state;
    uint8_t raw[32], iv[12] = {0}, tag[16], buf[32] = {0};
    for (size_t kl = 16; kl <= 32; kl += 8) {
        mbgcm_key k;
        tu_rng_fill(&rng, raw, sizeof raw);
        assert_int_equal(mbgcm_key_init(&k, raw, kl), MBGCM_OK);
        assert_false(tu_all_byte(&k, sizeof k, 0));
        mbgcm_key_wipe(&k);
        assert_true(tu_all_byte(&k, sizeof k, 0));
        assert_int_equal(mbgcm_encrypt(&k, iv, 12, NULL, 0, buf, 16, buf, tag, 16),
                         MBGCM_ERR_INVALID);
        assert_int_equal(mbgcm_key_init(&k, raw, kl), MBGCM_OK);
        assert_int_equal(mbgcm_encrypt(&k, iv, 12, NULL, 0, buf, 16, buf, tag, 16), MBGCM_OK);
        mbgcm_key_wipe(&k);
    }
    mbgcm_key_wipe(NULL);
}

static void t_ctx_wipe(void **state)
{
    (void)state;
    mbgcm_key k;
    uint8_t raw[16], iv[12], aad[20], pt[100], ct[100], tag[16];
    tu_rng_fill(&rng, raw, sizeof raw);
    tu_rng_fill(&rng, iv, sizeof iv);
    tu_rng_fill(&rng, aad, sizeof aad);
    tu_rng_fill(&rng, pt, sizeof pt);
    assert_int_equal(mbgcm_key_init(&k, raw, sizeof raw), MBGCM_OK);
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    for (int ai = 0; ai < na; ai++) {
        tu_set_oneshot_arch(arches[ai]);
        for (int end = 0; end < 5; end++) {
            mbgcm_ctx c;
            const int dec = end == 1 || end == 2;
            assert_int_equal(mbgcm_ctx_init(&c, &k, dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT, iv, 12,
                                            aad, sizeof aad),
                             MBGCM_OK);
            /* 37 bytes: a partial block (its key stream) is held in the context */
            assert_int_equal(mbgcm_ctx_update(&c, dec ? ct : pt, 37, dec ? pt : ct), MBGCM_OK);
            assert_false(tu_all_byte(&c, sizeof c, 0));
            switch (end) {
            case 0: /* encrypt: final */
                assert_int_equal(mbgcm_ctx_final(&c, tag, 16), MBGCM_OK);
                break;
            case 1: { /* decrypt, tag matches */
                mbgcm_ctx e;
                uint8_t t2[16];
                assert_int_equal(mbgcm_ctx_init(&e, &k, MBGCM_ENCRYPT, iv, 12, aad, sizeof aad),
                                 MBGCM_OK);
                assert_int_equal(mbgcm_ctx_update(&e, pt, 37, ct), MBGCM_OK);
                assert_int_equal(mbgcm_ctx_final(&e, t2, 16), MBGCM_OK);
                /* restart the decrypt on the real ciphertext */
                mbgcm_ctx_wipe(&c);
                assert_int_equal(mbgcm_ctx_init(&c, &k, MBGCM_DECRYPT, iv, 12, aad, sizeof aad),
                                 MBGCM_OK);
                assert_int_equal(mbgcm_ctx_update(&c, ct, 37, pt + 50), MBGCM_OK);
                assert_int_equal(mbgcm_ctx_verify(&c, t2, 16), MBGCM_OK);
                break;
            }
            case 2: /* decrypt, tag does not match */
                memset(tag, 0x5A, sizeof tag);
                assert_int_equal(mbgcm_ctx_verify(&c, tag, 16), MBGCM_ERR_AUTH);
                break;
            case 3: /* abandoned */
                mbgcm_ctx_wipe(&c);
                break;
            case 4: /* a rejected tag length changes nothing; final still works and wipes */
                assert_int_equal(mbgcm_ctx_final(&c, tag, 11), MBGCM_ERR_TAG_LEN);
                assert_false(tu_all_byte(&c, sizeof c, 0));
                assert_int_equal(mbgcm_ctx_final(&c, tag, 16), MBGCM_OK);
                break;
            }
            TU_CHECK(tu_all_byte(&c, sizeof c, 0), "context not wiped (end %d, arch %s)", end,
                     tu_arch_name(arches[ai]));
        }
    }
    tu_set_oneshot_arch(tu_arch_best());
    mbgcm_ctx_wipe(NULL);
    mbgcm_key_wipe(&k);
}

/* ---- manager ---------------------------------------------------------------------------------- */

/* Lane rows [0, scratch end) of every group are zero and no lane caches a key. */
static int lanes_clean(const mbgcm_mgr *m)
{
    for (unsigned gi = 0; gi < m->ngroups; gi++) {
        if (!tu_all_byte(&m->g[gi], offsetof(struct mbgcmi_group, aad), 0)) {
            return 0;
        }
        const struct mbgcmi_group *g = &m->g[gi];
        if (g->active || g->init || g->auth_fail || g->tagmask || g->rmax) {
            return 0;
        }
    }
    for (unsigned i = 0; i < m->ngroups * MBGCMI_GL; i++) {
        if (m->info[i].key != NULL || m->info[i].job != NULL) {
            return 0;
        }
    }
    return 1;
}

struct zjob {
    uint8_t iv[12], aad[16], src[320], dst[320], tag[16];
};

static void fill_job(mbgcm_job *job, struct zjob *z, const mbgcm_key *k, size_t len, int dir)
{
    memset(job, 0, sizeof *job);
    tu_rng_fill(&rng, z, sizeof *z);
    job->key = k;
    job->dir = dir;
    job->iv = z->iv;
    job->iv_len = 12;
    job->aad = z->aad;
    job->aad_len = sizeof z->aad;
    job->src = z->src;
    job->dst = z->dst;
    job->len = len;
    job->tag = z->tag;
    job->tag_len = 16;
}

static void t_mgr_wipe(void **state)
{
    (void)state;
    mbgcm_key keys[3];
    for (int i = 0; i < 3; i++) {
        uint8_t raw[32];
        tu_rng_fill(&rng, raw, sizeof raw);
        assert_int_equal(mbgcm_key_init(&keys[i], raw, 16 + 8 * (size_t)i), MBGCM_OK);
    }
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    unsigned long long managers = 0, idle_checks = 0;
    struct zjob *z = tu_xmalloc(16 * sizeof *z);
    for (int ci = 0; ci < nc; ci++) {
        for (unsigned lanes = 4; lanes <= 16; lanes += 12) {
            for (int scenario = 0; scenario < 4; scenario++) {
                mbgcm_mgr *m = tu_mgr_open(cfgs[ci], lanes, 16, 0);
                mbgcmi_mgr_set_single_min_len(m, scenario == 3 ? 0 : UINT64_MAX);
                /* an arch without a lane kernel runs every job single-stream */
                const int single = scenario == 3 || !tu_mgr_has_lanes(cfgs[ci]);
                const unsigned long long before = blocks_checked;
                /* three ring jobs: 3 of 4 lanes busy, nothing run yet (300 bytes: never short) */
                for (unsigned j = 0; j < 3; j++) {
                    fill_job(mbgcm_get_next_job(m), &z[j], &keys[j % 3], 300 + j,
                             j == 1 ? MBGCM_DECRYPT : MBGCM_ENCRYPT);
                    mbgcm_job *back = mbgcm_submit_job(m);
                    if (single) { /* single-stream: done at submit */
                        assert_non_null(back);
                    } else {
                        assert_null(back);
                    }
                }
                if (!single) {
                    /* sanity: key material is in the lane rows now */
                    assert_false(lanes_clean(m));
                }
                if (scenario == 1) { /* drain: the manager goes idle and wipes */
                    unsigned got = 0;
                    while (mbgcm_flush_job(m) != NULL) {
                        got++;
                    }
                    assert_int_equal(got, single ? 0 : 3);
                    TU_CHECK(lanes_clean(m), "lanes not wiped after the last flush (%s)",
                             tu_mgr_label(cfgs[ci]));
                    idle_checks++;
                    assert_null(mbgcm_mgr_poll(m));
                    TU_CHECK(lanes_clean(m), "lanes not clean after poll");
                    idle_checks++;
                } else if (scenario == 2) { /* a burst after the ring drained */
                    while (mbgcm_flush_job(m) != NULL) {
                    }
                    mbgcm_job bj[6];
                    for (unsigned j = 0; j < 6; j++) {
                        fill_job(&bj[j], &z[4 + j], &keys[j % 3], (size_t)j * 50, MBGCM_ENCRYPT);
                    }
                    assert_int_equal(mbgcm_submit_burst(m, bj, 6), 6);
                    TU_CHECK(lanes_clean(m), "lanes not wiped after a burst (%s)",
                             tu_mgr_label(cfgs[ci]));
                    idle_checks++;
                }
                /* scenario 0 and 3: freed with jobs pending (abandoned) */
                mbgcm_mgr_free(m);
                managers++;
                assert_int_equal(blocks_checked, before + 1);
                TU_CHECK(blocks_dirty == 0, "block of %zu bytes released with byte %zu non-zero "
                         "(arch %s, scenario %d)", first_dirty_size, first_dirty_off,
                         tu_mgr_label(cfgs[ci]), scenario);
            }
        }
    }
    free(z);
    for (int i = 0; i < 3; i++) {
        mbgcm_key_wipe(&keys[i]);
    }
    print_message("manager free: %llu managers, %llu blocks (%llu bytes) checked zero before "
                  "release; %llu idle-lane checks\n", managers, blocks_checked, bytes_checked,
                  idle_checks);
}

/* ---- stack scratch ------------------------------------------------------------------------------ */

#define STACK_SIZE (512 * 1024)
#define PAINT 0xA5
static uint8_t *wstack;
static ucontext_t uc_main, uc_work;
static void (*work_fn)(void *);
static void *work_arg;

/* Vector registers as the call left them, dumped right after it returns (before any other
   code of this test runs): zmm0-31 where the CPU and OS have AVX-512, else ymm0-15 with AVX,
   else xmm0-15 (x86-64 only). The asm kernels clear the registers they used; C code that
   kept a secret in one would show up here too. */
enum { DUMP_NONE, DUMP_XMM, DUMP_YMM, DUMP_ZMM };
static int dump_kind;
static size_t dump_bytes;
static uint8_t regdump[32 * 64] __attribute__((aligned(64)));

#define DUMP_X(n) "movdqu %%xmm" #n ", " #n "*16(%0)\n\t"
#define DUMP_Y(n) "vmovdqu %%ymm" #n ", " #n "*32(%0)\n\t"
#define DUMP_Z(n) "vmovdqu64 %%zmm" #n ", " #n "*64(%0)\n\t"
#define DUMP_16(M)                                                                                \
    M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define DUMP_HI(M)                                                                                \
    M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30)   \
    M(31)

#define CLR_Z(n) "vpxord %%zmm" #n ", %%zmm" #n ", %%zmm" #n "\n\t"

/* Zero the vector registers (what the test itself computed, OpenSSL's reference included,
   must not count), call fn(arg), dump them. */
static __attribute__((noinline)) void call_and_dump(void (*fn)(void *), void *arg)
{
#if defined(__x86_64__)
    if (dump_kind == DUMP_ZMM) {
        __asm__ volatile(DUMP_16(CLR_Z) DUMP_HI(CLR_Z) ::: "memory");
    } else if (dump_kind == DUMP_YMM) {
        __asm__ volatile("vzeroall" ::: "memory");
    } else if (dump_kind == DUMP_XMM) {
        mbgcmi_clear_xmm();
    }
#endif
    fn(arg);
#if defined(__x86_64__)
    uint8_t *d = regdump;
    if (dump_kind == DUMP_ZMM) {
        __asm__ volatile(DUMP_16(DUMP_Z) DUMP_HI(DUMP_Z) : : "r"(d) : "memory");
    } else if (dump_kind == DUMP_YMM) {
        __asm__ volatile(DUMP_16(DUMP_Y) : : "r"(d) : "memory");
    } else if (dump_kind == DUMP_XMM) {
        __asm__ volatile(DUMP_16(DUMP_X) : : "r"(d) : "memory");
    }
#endif
}

static void dump_setup(void)
{
#if defined(__x86_64__)
    const unsigned f = mbgcmi_cpu_features();
    dump_kind = f & MBGCMI_F_AVX512F ? DUMP_ZMM : f & MBGCMI_F_AVX ? DUMP_YMM : DUMP_XMM;
    dump_bytes = dump_kind == DUMP_ZMM ? 32 * 64 : dump_kind == DUMP_YMM ? 16 * 32 : 16 * 16;
#else
    dump_kind = DUMP_NONE;
    dump_bytes = 0;
#endif
}

static void trampoline(void)
{
    call_and_dump(work_fn, work_arg);
}

/* Run fn(arg) on the painted private stack; returns the deepest byte it touched. */
static size_t run_on_stack(void (*fn)(void *), void *arg)
{
    memset(wstack, PAINT, STACK_SIZE);
    memset(regdump, 0, sizeof regdump);
    work_fn = fn;
    work_arg = arg;
    assert_int_equal(getcontext(&uc_work), 0);
    uc_work.uc_stack.ss_sp = wstack;
    uc_work.uc_stack.ss_size = STACK_SIZE;
    uc_work.uc_link = &uc_main;
    makecontext(&uc_work, trampoline, 0);
    assert_int_equal(swapcontext(&uc_main, &uc_work), 0);
    size_t i = 0;
    while (i < STACK_SIZE && wstack[i] == PAINT) {
        i++;
    }
    return STACK_SIZE - i;
}

/* Secret fragments: every 8-byte window of every secret, sorted for binary search. */
struct frag {
    uint64_t v;
    uint32_t what; /* index into |names| */
};
static struct frag *frags;
static size_t nfrags, cap_frags;
static const char *names[64];
static unsigned nnames;

static void secrets_reset(void)
{
    nfrags = 0;
    nnames = 0;
}

static void secret_add(const char *name, const void *p, size_t n)
{
    if (nnames == 64) {
        return;
    }
    const unsigned w = nnames++;
    names[w] = name;
    const uint8_t *b = p;
    for (size_t i = 0; i + 8 <= n; i++) {
        uint64_t v;
        memcpy(&v, b + i, 8);
        int same = 1;
        for (int j = 1; j < 8; j++) {
            same &= b[i + (size_t)j] == b[i];
        }
        if (same) {
            continue; /* runs of one byte are not evidence */
        }
        if (nfrags == cap_frags) {
            cap_frags = cap_frags ? 2 * cap_frags : 4096;
            frags = realloc(frags, cap_frags * sizeof *frags);
            assert_non_null(frags);
        }
        frags[nfrags].v = v;
        frags[nfrags].what = w;
        nfrags++;
    }
}

static int frag_cmp(const void *a, const void *b)
{
    const uint64_t x = ((const struct frag *)a)->v, y = ((const struct frag *)b)->v;
    return x < y ? -1 : x > y;
}

/* The secrets of a key: raw bytes, round keys, H and the stored powers. */
static void secret_key(const uint8_t *raw, size_t kl, const mbgcm_key *key)
{
    const struct mbgcmi_key *k = mbgcmi_key_c(key);
    secret_add("raw key", raw, kl);
    secret_add("round keys", k->rk, 16 * (k->rounds + 1));
    secret_add("hash-key powers", k->hpow, sizeof k->hpow);
    secret_add("Karatsuba operands", k->hkar, sizeof k->hkar);
    uint8_t zero[16] = {0}, h[16];
    tu_ossl_aes_ecb(raw, kl, zero, h, 1);
    secret_add("H", h, 16);
}

/* E_K(J0) and the key stream of a message (12-byte IV or any other). */
static void secret_stream(const uint8_t *raw, size_t kl, const uint8_t *iv, size_t ivl,
                          size_t len)
{
    uint8_t j0[16];
    tu_tb_j0(raw, kl, iv, ivl, j0);
    const size_t nb = len / 16 + 2;
    uint8_t *cb = tu_xmalloc(16 * nb), *ks = tu_xmalloc(16 * nb);
    for (size_t i = 0; i < nb; i++) {
        memcpy(cb + 16 * i, j0, 16);
        uint32_t c = ((uint32_t)j0[12] << 24 | (uint32_t)j0[13] << 16 | (uint32_t)j0[14] << 8 |
                      j0[15]) + (uint32_t)i;
        cb[16 * i + 12] = (uint8_t)(c >> 24);
        cb[16 * i + 13] = (uint8_t)(c >> 16);
        cb[16 * i + 14] = (uint8_t)(c >> 8);
        cb[16 * i + 15] = (uint8_t)c;
    }
    tu_ossl_aes_ecb(raw, kl, cb, ks, nb);
    secret_add("E_K(J0)", ks, 16);
    secret_add("key stream", ks + 16, 16 * (nb - 1));
    free(cb);
    free(ks);
}

static unsigned long long stack_runs, stack_bytes, stack_leaks, reg_leaks, reg_leaks_c;
static size_t stack_max;
/* Whether the register scan of the next call is asserted: every path of the asm arches (their
   kernels clear what they used; the one C step there that handles a secret, the stream's tag,
   clears xmm0-15). The portable arch and the portable key schedule are compiled C that keeps
   values in vector registers as it likes, and the C library's copies use them too: counted
   and printed, not asserted (docs/security.md, "Zeroization"). */
static int reg_asserted;

/* The secret whose fragment is |v|, or -1. */
static int frag_find(uint64_t v)
{
    size_t lo = 0, hi = nfrags;
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (frags[mid].v < v) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < nfrags && frags[lo].v == v ? (int)frags[lo].what : -1;
}

/* Scan the private stack and the register dump; report each secret found once per place. */
static void scan(const char *what)
{
    qsort(frags, nfrags, sizeof *frags, frag_cmp);
    unsigned found = 0, in_regs = 0;
    uint64_t seen = 0, seen_r = 0;
    for (size_t i = 0; i + 8 <= STACK_SIZE; i++) {
        uint64_t v;
        memcpy(&v, wstack + i, 8);
        const int w = frag_find(v);
        if (w >= 0 && !(seen >> w & 1)) {
            seen |= 1ull << w;
            print_error("stack scan: %s: %s found on the stack %zu bytes below its top\n", what,
                        names[w], STACK_SIZE - i);
            found++;
        }
    }
    /* windows inside one register only: two neighbours' bytes side by side mean nothing */
    const size_t rw = dump_kind == DUMP_ZMM ? 64 : dump_kind == DUMP_YMM ? 32 : 16;
    for (size_t r = 0; r < dump_bytes; r += rw) {
        for (size_t i = r; i + 8 <= r + rw; i++) {
            uint64_t v;
            memcpy(&v, regdump + i, 8);
            const int w = frag_find(v);
            if (w >= 0 && !(seen_r >> w & 1)) {
                seen_r |= 1ull << w;
                if (reg_asserted) {
                    print_error("register scan: %s: %s left in vector register %zu\n", what,
                                names[w], r / rw);
                }
                in_regs++;
            }
        }
    }
    stack_runs++;
    stack_leaks += found;
    if (reg_asserted) {
        reg_leaks += in_regs;
    } else {
        reg_leaks_c += in_regs;
    }
}

/* ---- the operations run on the private stack ----------------------------------------------- */
struct op {
    int kind;  /* 0 key init, 1 encrypt, 2 decrypt good, 3 decrypt bad, 4 ctx enc, 5 ctx dec,
                  6 ring jobs, 7 burst, 8 sgl job, 9 cobble open */
    int arch;
    mbgcm_key *key;
    uint8_t *raw;
    size_t kl;
    const uint8_t *iv;
    size_t ivl;
    const uint8_t *aad;
    size_t al;
    uint8_t *in, *out, *tag;
    size_t len;
    mbgcm_mgr *m;
    mbgcm_job *jobs;
    unsigned njobs;
    int st;
    /* cobble */
    const uint8_t *sealed;
    size_t sealed_len;
};

static void do_op(void *arg)
{
    struct op *o = arg;
    switch (o->kind) {
    case 0:
        o->st = mbgcm_key_init(o->key, o->raw, o->kl);
        break;
    case 10: /* the portable key schedule, whatever the CPU has */
        mbgcmi_key_expand(o->key, o->raw, o->kl, tu_arch(TU_ARCH("generic")));
        o->st = MBGCM_OK;
        break;
    case 1:
        o->st = mbgcm_encrypt(o->key, o->iv, o->ivl, o->aad, o->al, o->in, o->len, o->out,
                              o->tag, 16);
        break;
    case 2:
    case 3:
        o->st = mbgcm_decrypt(o->key, o->iv, o->ivl, o->aad, o->al, o->in, o->len, o->out,
                              o->tag, 16);
        break;
    case 4:
    case 5: {
        mbgcm_ctx *c = malloc(sizeof *c); /* the context itself is the caller's: heap */
        o->st = mbgcm_ctx_init(c, o->key, o->kind == 4 ? MBGCM_ENCRYPT : MBGCM_DECRYPT, o->iv,
                               o->ivl, o->aad, o->al);
        for (size_t off = 0; off < o->len && o->st == MBGCM_OK; off += 23) {
            const size_t n = o->len - off < 23 ? o->len - off : 23;
            o->st = mbgcm_ctx_update(c, o->in + off, n, o->out + off);
        }
        if (o->st == MBGCM_OK) {
            o->st = o->kind == 4 ? mbgcm_ctx_final(c, o->tag, 16) : mbgcm_ctx_verify(c, o->tag, 16);
        }
        free(c);
        break;
    }
    case 6: {
        unsigned back = 0;
        for (unsigned i = 0; i < o->njobs; i++) {
            *mbgcm_get_next_job(o->m) = o->jobs[i];
            for (mbgcm_job *x = mbgcm_submit_job(o->m); x; x = mbgcm_get_completed_job(o->m)) {
                o->jobs[back++].status = x->status;
            }
        }
        for (mbgcm_job *x; (x = mbgcm_flush_job(o->m)) != NULL;) {
            o->jobs[back++].status = x->status;
        }
        o->st = back == o->njobs ? MBGCM_OK : -1;
        break;
    }
    case 7:
    case 8:
        o->st = mbgcm_submit_burst(o->m, o->jobs, o->njobs) == o->njobs ? MBGCM_OK : -1;
        break;
    case 9: {
        size_t got = 0;
        mbgcm_cobble_opts opts = {0};
        opts.arch = tu_arch_name(o->arch);
        o->st = mbgcm_cobble_open(o->out, &got, o->len, o->raw, o->kl, NULL, 0, o->sealed,
                                  o->sealed_len, &opts);
        break;
    }
    }
}

static void t_stack(void **state)
{
    (void)state;
#if defined(MBGCM_TEST_SANITIZED)
    print_message("stack scan skipped in sanitizer builds\n");
    skip();
#endif
    dump_setup();
    wstack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(wstack != MAP_FAILED);
    mbgcm_key *key = aligned_alloc(64, sizeof *key);
    uint8_t raw[32], iv[40], aad[24], tag[16], rtag[16];
    const size_t maxlen = 1700;
    uint8_t *pt = tu_xmalloc(maxlen), *ct = tu_xmalloc(maxlen), *out = tu_xmalloc(maxlen);
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    char what[160];
    for (int ai = 0; ai < na; ai++) {
        const int arch = arches[ai];
        const char *an = tu_arch_name(arch);
        tu_set_oneshot_arch(arch);
        for (size_t kl = 16; kl <= 32; kl += 16) {
            tu_rng_fill(&rng, raw, sizeof raw);
            /* key init */
            struct op o = {0};
            o.kind = 0;
            o.key = key;
            o.raw = raw;
            o.kl = kl;
            stack_max = 0;
            size_t used = run_on_stack(do_op, &o);
            stack_max = used > stack_max ? used : stack_max;
            assert_int_equal(o.st, MBGCM_OK);
            secrets_reset();
            secret_key(raw, kl, key);
            snprintf(what, sizeof what, "mbgcm_key_init(%zu) (best arch)", kl);
            reg_asserted = tu_arch_best() != TU_ARCH("generic");
            scan(what);
            o.kind = 10;
            used = run_on_stack(do_op, &o);
            secrets_reset();
            secret_key(raw, kl, key);
            snprintf(what, sizeof what, "portable key expansion (%zu)", kl);
            reg_asserted = 0;
            scan(what);
            /* 1600 and 1700: three whole 512-byte groups (by32 keeps round-key rows in its
               frame from three); 500 with 16 bytes of AAD: the avx512 one-shot kernel's
               longest shape (eight message zmm, powers past H^32); 5 with 16 bytes of AAD:
               its path for a block or less (tiny12); the last, 0 with 16 bytes of AAD and a
               12-byte IV: its GMAC path for a block (tiny12g) */
            static const size_t lens[] = {0,   5,   16,  33,   64,   100, 257,
                                          500, 700, 1600, 1700, 48, 0};
            for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
                const size_t len = lens[li];
                const size_t ivl = li % 3 == 2 ? 1 + li * 4 : 12;
                tu_rng_fill(&rng, iv, sizeof iv);
                tu_rng_fill(&rng, aad, sizeof aad);
                tu_rng_fill(&rng, pt, len);
                const size_t al = len == 500 || len == 5 || (len == 0 && li > 0) ? 16
                                                                                : sizeof aad;
                tu_ossl_gcm_encrypt(raw, kl, iv, ivl, aad, al, pt, len, ct, rtag, 16);
                for (int kind = 1; kind <= 5; kind++) {
                    memset(&o, 0, sizeof o);
                    o.kind = kind;
                    o.key = key;
                    o.iv = iv;
                    o.ivl = ivl;
                    o.aad = aad;
                    o.al = al;
                    o.len = len;
                    o.in = kind == 1 || kind == 4 ? pt : ct;
                    o.out = out;
                    memcpy(tag, rtag, 16);
                    if (kind == 3) {
                        tag[3] ^= 1;
                    }
                    o.tag = tag;
                    used = run_on_stack(do_op, &o);
                    stack_max = used > stack_max ? used : stack_max;
                    assert_int_equal(o.st, kind == 3 ? MBGCM_ERR_AUTH : MBGCM_OK);
                    secrets_reset();
                    secret_key(raw, kl, key);
                    secret_stream(raw, kl, iv, ivl, len);
                    secret_add("plaintext", pt, len);
                    if (kind == 3) {
                        secret_add("computed tag of a failed decrypt", rtag, 16);
                    }
                    static const char *const kn[] = {"", "encrypt", "decrypt", "decrypt (bad tag)",
                                                     "incremental encrypt",
                                                     "incremental decrypt"};
                    snprintf(what, sizeof what, "%s arch=%s key=%zu len=%zu iv=%zu", kn[kind], an,
                             kl, len, ivl);
                    reg_asserted = arch != TU_ARCH("generic");
                    scan(what);
                }
            }
            /* manager: ring, burst and scatter-gather jobs (short and lane and single-stream),
               then (9) a burst of short jobs only, so that the short-job kernel's frame is the
               last one under the call (no later kernel's frame overwrites it) */
            for (int kind = 6; kind <= 9; kind++) {
                const int op = kind == 9 ? 7 : kind;
                mbgcm_config cfg = {0};
                cfg.arch = an;
                mbgcm_mgr *m = NULL;
                assert_int_equal(mbgcm_mgr_create(&m, &cfg), MBGCM_OK);
                enum { NJ = 6 };
                mbgcm_job jobs[NJ];
                uint8_t jtags[NJ][16], jiv[NJ][12];
                mbgcm_seg segs[NJ][3];
                secrets_reset();
                secret_key(raw, kl, key);
                /* an idle short-job lane's dummy: job 0's key, zero IV, zero plaintext, at
                   most 16 blocks: its output is this key stream */
                static const uint8_t ziv[12] = {0};
                secret_stream(raw, kl, ziv, 12, 16 * 16);
                for (unsigned j = 0; j < NJ; j++) {
                    /* job 3: 150 bytes, a short job of 10 blocks (two stages per lane group) */
                    const size_t len = kind == 9 ? (j % 2 ? 150 : 40 * j + 5)
                                       : j == 3   ? 150
                                                  : j * 97 % 300 + (kind == 6 && j == 5 ? 400 : 0);
                    memset(&jobs[j], 0, sizeof jobs[j]);
                    tu_rng_fill(&rng, jiv[j], 12);
                    jobs[j].key = key;
                    jobs[j].dir = j & 1 ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
                    jobs[j].iv = jiv[j];
                    jobs[j].iv_len = 12;
                    jobs[j].aad = aad;
                    jobs[j].aad_len = kind == 9 ? j * 3 : j * 5 % 24;
                    jobs[j].len = len;
                    jobs[j].tag = jtags[j];
                    jobs[j].tag_len = 16;
                    uint8_t *jsrc = tu_xmalloc(len), *jdst = tu_xmalloc(len);
                    uint8_t *jpt = tu_xmalloc(len);
                    tu_rng_fill(&rng, jpt, len);
                    tu_ossl_gcm_encrypt(raw, kl, jiv[j], 12, aad, jobs[j].aad_len, jpt, len, jsrc,
                                        jtags[j], 16);
                    if (jobs[j].dir == MBGCM_ENCRYPT) {
                        memcpy(jsrc, jpt, len);
                    }
                    secret_stream(raw, kl, jiv[j], 12, len);
                    secret_add("plaintext", jpt, len);
                    uint8_t wj0[16] = {0}; /* IV || 0^32 whitened with round key 0 */
                    memcpy(wj0, jiv[j], 12);
                    for (int b = 0; b < 16; b++) {
                        wj0[b] ^= mbgcmi_key_c(key)->rk[0][b];
                    }
                    secret_add("IV whitened with round key 0", wj0, 16);
                    free(jpt);
                    if (op == 8) {
                        const size_t a = len / 3, b = len / 2;
                        segs[j][0].ptr = jsrc;
                        segs[j][0].len = a;
                        segs[j][1].ptr = jsrc + a;
                        segs[j][1].len = b - a;
                        segs[j][2].ptr = jsrc + b;
                        segs[j][2].len = len - b;
                        jobs[j].src_sgl = segs[j];
                        jobs[j].src_nseg = 3;
                        jobs[j].dst = jdst;
                    } else {
                        jobs[j].src = jsrc;
                        jobs[j].dst = jdst;
                    }
                }
                memset(&o, 0, sizeof o);
                o.kind = op;
                o.m = m;
                o.jobs = jobs;
                o.njobs = NJ;
                used = run_on_stack(do_op, &o);
                stack_max = used > stack_max ? used : stack_max;
                for (unsigned j = 0; j < NJ; j++) {
                    TU_CHECK(jobs[j].status == MBGCM_OK, "job %u status %d", j, jobs[j].status);
                }
                assert_int_equal(o.st, MBGCM_OK);
                static const char *const mk[] = {"ring jobs", "burst", "scatter-gather burst",
                                                 "burst of short jobs"};
                snprintf(what, sizeof what, "%s arch=%s key=%zu", mk[kind - 6], an, kl);
                reg_asserted = arch != TU_ARCH("generic");
                scan(what);
                for (unsigned j = 0; j < NJ; j++) {
                    free((void *)(uintptr_t)(op == 8 ? segs[j][0].ptr : jobs[j].src));
                    free(jobs[j].dst);
                }
                mbgcm_mgr_free(m);
            }
            /* Cobblestone open (derived keys: the chunk keys are mbgcm keys) */
            {
                const size_t plen = 300;
                const size_t sl = tc_sealed_len(plen);
                uint8_t *sealed = tu_xmalloc(sl);
                size_t n = 0;
                tu_rng_fill(&rng, pt, plen);
                assert_int_equal(mbgcm_cobble_seal(sealed, &n, sl, raw, kl, NULL, 0, pt, plen,
                                                   NULL),
                                 MBGCM_OK);
                uint8_t aes_key[32], nonce[12], commit[32];
                tc_ref_derive(raw, kl, sealed, NULL, 0, aes_key, nonce, commit);
                mbgcm_key *ck = aligned_alloc(64, sizeof *ck);
                assert_int_equal(mbgcm_key_init(ck, aes_key, kl), MBGCM_OK);
                memset(&o, 0, sizeof o);
                o.kind = 9;
                o.arch = arch;
                o.raw = raw;
                o.kl = kl;
                o.out = out;
                o.len = maxlen;
                o.sealed = sealed;
                o.sealed_len = sl;
                used = run_on_stack(do_op, &o);
                stack_max = used > stack_max ? used : stack_max;
                assert_int_equal(o.st, MBGCM_OK);
                secrets_reset();
                secret_add("Cobblestone input key", raw, kl);
                secret_key(aes_key, kl, ck);
                secret_stream(aes_key, kl, nonce, 12, plen);
                secret_add("plaintext", pt, plen);
                snprintf(what, sizeof what, "Cobblestone open arch=%s key=%zu", an, kl);
                reg_asserted = arch != TU_ARCH("generic");
                scan(what);
                mbgcm_key_wipe(ck);
                free(ck);
                free(sealed);
            }
        }
        print_message("%-8s stack scans done; deepest stack use %zu bytes\n", an, stack_max);
    }
    tu_set_oneshot_arch(tu_arch_best());
    mbgcm_key_wipe(key);
    free(key);
    free(pt);
    free(ct);
    free(out);
    free(frags);
    frags = NULL;
    cap_frags = 0;
    munmap(wstack, STACK_SIZE);
    print_message("stack scan: %llu calls scanned (%llu bytes each), %llu secrets found\n",
                  stack_runs, (unsigned long long)STACK_SIZE, stack_leaks);
    print_message("register scan: the same calls, %zu bytes of vector registers each: %llu "
                  "secrets found on the asm arches; %llu on the portable C path (not asserted)\n",
                  dump_bytes, reg_leaks, reg_leaks_c);
    (void)stack_bytes;
    TU_CHECK(stack_leaks == 0, "%llu secret(s) left on the stack (listed above)", stack_leaks);
    TU_CHECK(reg_leaks == 0, "%llu secret(s) left in vector registers (listed above)",
             reg_leaks);
}

int main(void)
{
    tu_seed();
    tu_rng_init(&rng, "zeroize");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_key_wipe),
        cmocka_unit_test(t_ctx_wipe),
        cmocka_unit_test(t_mgr_wipe),
        cmocka_unit_test(t_stack),
    };
    return cmocka_run_group_tests_name("zeroize", tests, setup, teardown) ? 1 : 0;
}
