/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_guard_paths.c — guard pages on the paths test_mgr_guard.c does not cover: the
 * one-shot calls, the incremental API, scatter-gather jobs and Cobblestone open.
 *
 * Every buffer lives in its own mapping [PROT_NONE page][read/write pages][PROT_NONE page],
 * placed so that its last byte is the last byte before the upper guard page (END) or its
 * first byte the first byte after the lower one (START); a zero-length buffer's pointer then
 * points into a guard page. Any access outside a buffer faults and the SIGSEGV handler names
 * the buffer, the side and the case. Results are checked against OpenSSL (ipsec-mb beyond
 * 128-byte IVs: none here).
 *
 *  - one-shot: on every supported arch (forced with the test hook), message lengths 16*B + t
 *    for every tail t = 0..63 with B cycling through 0, 1, 3, 8, 17, 40, 56 blocks, AAD lengths
 *    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, IV 12 bytes or 1..64, every tag length, encrypt
 *    and decrypt (some tampered: out zeroed), END and START, in place and out of place.
 *  - incremental: the same messages fed in random pieces of 0..40 bytes, each piece copied
 *    into its own guarded input and output buffers (END or START), the tag at END.
 *  - scatter-gather jobs: up to 8 source and 8 destination segments, each in its own guarded
 *    region, lengths 0..40 (so blocks straddle segments), in place (one list) and out of place,
 *    ring and burst, on every manager arch.
 *  - Cobblestone open: the sealed message, the output, the key and the context each against a
 *    guard page, one-shot and streaming in random pieces, authentic and tampered.
 */
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobs_internal.h"
#include "test_cobble_common.h"

#define RW_PAGES 12 /* 48 KiB: a Cobblestone message of 40 000 bytes fits */
#define NREG 40
static size_t page;
static uint8_t *reg_map[NREG];
static char crash_ctx[512];
static tu_rng rng;

static uint8_t *reg_rw(int r)
{
    return reg_map[r] + page;
}

static size_t reg_len(void)
{
    return RW_PAGES * page;
}

/* |n| bytes in region r: at its END (last byte before the upper guard) or START */
static uint8_t *place(int r, size_t n, int end)
{
    return end ? reg_rw(r) + reg_len() - n : reg_rw(r);
}

static void segv_handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    char msg[900];
    const uint8_t *a = si->si_addr;
    int which = -1, after = 0;
    for (int r = 0; r < NREG; r++) {
        if (a >= reg_map[r] && a < reg_rw(r)) {
            which = r;
        } else if (a >= reg_rw(r) + reg_len() && a < reg_rw(r) + reg_len() + page) {
            which = r;
            after = 1;
        }
    }
    const int n = snprintf(msg, sizeof msg, "\nSIGNAL %d at %p: %s guard page of region %d\n"
                           "  while: %s\n", sig, si->si_addr,
                           which < 0 ? "outside every" : after ? "the AFTER" : "the BEFORE", which,
                           crash_ctx);
    if (n > 0) {
        ssize_t w = write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
        (void)w;
    }
    _exit(3);
}

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

static int setup(void **state)
{
    (void)state;
    page = (size_t)sysconf(_SC_PAGESIZE);
    for (int r = 0; r < NREG; r++) {
        const size_t total = (RW_PAGES + 2) * page;
        uint8_t *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                          0);
        if (m == MAP_FAILED || mprotect(m, page, PROT_NONE) != 0 ||
            mprotect(m + (RW_PAGES + 1) * page, page, PROT_NONE) != 0) {
            return -1;
        }
        reg_map[r] = m;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int r = 0; r < NREG; r++) {
        munmap(reg_map[r], (RW_PAGES + 2) * page);
    }
    return 0;
}

enum { R_SRC, R_DST, R_AAD, R_IV, R_TAG, R_KEY, R_CTX, R_SEG0 };

static const unsigned bulk_cycle[7] = {0, 1, 3, 8, 17, 40, 56};
static const size_t aad_set[10] = {0, 1, 15, 16, 17, 31, 32, 33, 63, 64};

/* ---- one-shot and incremental --------------------------------------------------------------- */

static void oneshot_arch(int arch, int incremental, unsigned long long *count)
{
    tu_set_oneshot_arch(arch);
    tu_key k;
    tu_key_random(&rng, &k, 0);
    const int slow = arch == TU_ARCH("generic");
    uint8_t *pt = tu_xmalloc(16 * 56 + 64), *ref = tu_xmalloc(16 * 56 + 64);
    uint8_t *got = tu_xmalloc(16 * 56 + 64);
    for (unsigned pass = 0; pass < 3; pass++) {
    for (unsigned tail = 0; tail < 64; tail++) {
        for (unsigned ai = 0; ai < 10; ai++) {
            if (slow && (tail + ai + pass) % 3 != 0) {
                continue; /* the portable path is slow: a third of the grid */
            }
            const unsigned i = tail * 10 + ai + pass;
            const size_t len = 16 * (size_t)bulk_cycle[(i / 7 + pass * 2) % 7] + tail;
            const size_t al = aad_set[ai];
            const size_t ivl = tu_rng_below(&rng, 3) ? 12 : (size_t)tu_rng_range(&rng, 1, 64);
            const size_t tl = tu_pick_tag_len(&rng);
            const int end = (int)(i & 1), dec = (int)((i >> 1) & 1);
            const int inpl = !incremental && (int)((i >> 2) & 1);
            const int tamper = dec && tu_rng_below(&rng, 6) == 0;
            uint8_t *iv = place(R_IV, ivl, end), *aad = place(R_AAD, al, end);
            uint8_t *tag = place(R_TAG, tl, end);
            tu_rng_fill(&rng, iv, ivl);
            tu_rng_fill(&rng, aad, al);
            tu_rng_fill(&rng, pt, len);
            uint8_t rtag[16];
            tu_ossl_gcm_encrypt(k.raw, k.len, iv, ivl, aad, al, pt, len, ref, rtag, 16);
            snprintf(crash_ctx, sizeof crash_ctx, "%s arch=%s %s len=%zu aad=%zu iv=%zu tag=%zu "
                     "%s %s%s", incremental ? "incremental" : "one-shot", tu_arch_name(arch),
                     dec ? "decrypt" : "encrypt", len, al, ivl, tl, end ? "END" : "START",
                     inpl ? "in place" : "out of place", tamper ? " tampered" : "");
            if (dec) {
                memcpy(tag, rtag, tl);
                if (tamper) {
                    tag[tu_rng_below(&rng, tl)] ^= 1;
                }
            }
            int st;
            if (!incremental) {
                uint8_t *dst = place(R_DST, len, end);
                uint8_t *src = inpl ? dst : place(R_SRC, len, end);
                memcpy(src, dec ? ref : pt, len);
                st = dec ? mbgcm_decrypt(&k.key, iv, ivl, aad, al, src, len, dst, tag, tl)
                         : mbgcm_encrypt(&k.key, iv, ivl, aad, al, src, len, dst, tag, tl);
                memcpy(got, dst, len);
            } else {
                mbgcm_ctx c;
                assert_int_equal(mbgcm_ctx_init(&c, &k.key, dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT,
                                                iv, ivl, aad, al),
                                 MBGCM_OK);
                for (size_t off = 0; off <= len;) {
                    size_t n = (size_t)tu_rng_below(&rng, 41);
                    n = n > len - off ? len - off : n;
                    const int pe = (int)tu_rng_below(&rng, 2);
                    uint8_t *in = place(R_SRC, n, pe), *out = place(R_DST, n, !pe);
                    memcpy(in, (dec ? ref : pt) + off, n);
                    assert_int_equal(mbgcm_ctx_update(&c, n ? in : NULL, n, n ? out : NULL),
                                     MBGCM_OK);
                    memcpy(got + off, out, n);
                    off += n;
                    if (off == len) {
                        break;
                    }
                }
                st = dec ? mbgcm_ctx_verify(&c, tag, tl) : mbgcm_ctx_final(&c, tag, tl);
            }
            assert_int_equal(st, tamper ? MBGCM_ERR_AUTH : MBGCM_OK);
            if (!dec) {
                TU_MEM_EQ(got, ref, len, "%s", crash_ctx);
                TU_MEM_EQ(tag, rtag, tl, "%s", crash_ctx);
            } else if (!tamper) {
                TU_MEM_EQ(got, pt, len, "%s", crash_ctx);
            } else if (!incremental) {
                TU_CHECK(tu_all_byte(got, len, 0), "%s: output not zeroed", crash_ctx);
            }
            (*count)++;
        }
    }
    }
    crash_ctx[0] = '\0';
    free(pt);
    free(ref);
    free(got);
    mbgcm_key_wipe(&k.key);
    tu_set_oneshot_arch(tu_arch_best());
}

static void t_oneshot(void **state)
{
    (void)state;
    install_handler();
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    unsigned long long n = 0;
    for (int ai = 0; ai < na; ai++) {
        oneshot_arch(arches[ai], 0, &n);
    }
    print_message("one-shot: %llu calls with guard pages on %d arches\n", n, na);
}

static void t_incremental(void **state)
{
    (void)state;
    install_handler();
    int arches[MBGCMI_MAX_ARCHES];
    const int na = tu_supported_arches(arches);
    unsigned long long n = 0;
    for (int ai = 0; ai < na; ai++) {
        oneshot_arch(arches[ai], 1, &n);
    }
    print_message("incremental: %llu messages in guarded pieces on %d arches\n", n, na);
}

/* ---- scatter-gather jobs ---------------------------------------------------------------------- */

static void t_sgl(void **state)
{
    (void)state;
    install_handler();
    int cfgs[TU_MGR_NCFG];
    const int nc = tu_mgr_configs(cfgs);
    tu_key k;
    tu_key_random(&rng, &k, 0);
    unsigned long long jobs = 0;
    uint8_t pt[8 * 40], ref[8 * 40], got[8 * 40];
    for (int ci = 0; ci < nc; ci++) {
        mbgcm_mgr *m = tu_mgr_open(cfgs[ci], 4, 8, 0);
        const unsigned reps = tu_mgr_fast_lanes(cfgs[ci]) ? 400 : 120;
        for (unsigned rep = 0; rep < reps; rep++) {
            const int dec = (int)(rep & 1), inpl = (int)((rep >> 1) & 1);
            const int tamper = dec && tu_rng_below(&rng, 5) == 0;
            const unsigned ns = 1 + (unsigned)tu_rng_below(&rng, 8);
            const unsigned nd = inpl ? ns : 1 + (unsigned)tu_rng_below(&rng, 8);
            mbgcm_seg ss[8], ds[8];
            size_t len = 0;
            for (unsigned s = 0; s < ns; s++) {
                ss[s].len = (size_t)tu_rng_below(&rng, 41);
                len += ss[s].len;
            }
            /* destination lengths: a different cut of the same total */
            size_t left = len;
            for (unsigned d = 0; d < nd; d++) {
                ds[d].len = d + 1 == nd ? left : (size_t)tu_rng_below(&rng, left + 1);
                left -= ds[d].len;
            }
            const size_t ivl = tu_rng_below(&rng, 3) ? 12 : (size_t)tu_rng_range(&rng, 1, 64);
            const size_t al = (size_t)tu_rng_below(&rng, 40), tl = tu_pick_tag_len(&rng);
            uint8_t *iv = place(R_IV, ivl, (int)(rep & 4)), *aad = place(R_AAD, al, (int)(rep & 4));
            uint8_t *tag = place(R_TAG, tl, (int)(rep & 8));
            tu_rng_fill(&rng, iv, ivl);
            tu_rng_fill(&rng, aad, al);
            tu_rng_fill(&rng, pt, len);
            uint8_t rtag[16];
            tu_ossl_gcm_encrypt(k.raw, k.len, iv, ivl, aad, al, pt, len, ref, rtag, 16);
            size_t off = 0;
            for (unsigned s = 0; s < ns; s++) {
                ss[s].ptr = place(R_SEG0 + (int)s, ss[s].len, (int)((s + rep) & 1));
                memcpy(ss[s].ptr, (dec ? ref : pt) + off, ss[s].len);
                off += ss[s].len;
            }
            for (unsigned d = 0; d < nd && !inpl; d++) {
                ds[d].ptr = place(R_SEG0 + 8 + (int)d, ds[d].len, (int)((d + rep + 1) & 1));
            }
            if (dec) {
                memcpy(tag, rtag, tl);
                if (tamper) {
                    tag[0] ^= 0x10;
                }
            }
            snprintf(crash_ctx, sizeof crash_ctx, "sgl arch=%s rep=%u %s len=%zu segs %u/%u %s "
                     "aad=%zu iv=%zu tag=%zu", tu_mgr_label(cfgs[ci]), rep,
                     dec ? "decrypt" : "encrypt", len, ns, nd, inpl ? "in place" : "out of place",
                     al, ivl, tl);
            mbgcm_job bj, *j = rep % 3 ? mbgcm_get_next_job(m) : &bj;
            memset(j, 0, sizeof *j);
            j->key = &k.key;
            j->dir = dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
            j->iv = iv;
            j->iv_len = ivl;
            j->aad = aad;
            j->aad_len = al;
            j->len = len;
            j->tag = tag;
            j->tag_len = tl;
            j->src_sgl = ss;
            j->src_nseg = ns;
            j->dst_sgl = inpl ? ss : ds;
            j->dst_nseg = nd;
            if (j == &bj) {
                mbgcm_submit_burst(m, j, 1);
            } else {
                mbgcm_job *x = mbgcm_submit_job(m);
                if (x == NULL) {
                    x = mbgcm_flush_job(m);
                }
                assert_ptr_equal(x, j);
            }
            assert_int_equal(j->status, tamper ? MBGCM_ERR_AUTH : MBGCM_OK);
            const mbgcm_seg *out = inpl ? ss : ds;
            off = 0;
            for (unsigned d = 0; d < nd; d++) {
                memcpy(got + off, out[d].ptr, out[d].len);
                off += out[d].len;
            }
            if (tamper) {
                TU_CHECK(tu_all_byte(got, len, 0), "%s: output not zeroed", crash_ctx);
            } else {
                TU_MEM_EQ(got, dec ? pt : ref, len, "%s", crash_ctx);
                if (!dec) {
                    TU_MEM_EQ(tag, rtag, tl, "%s", crash_ctx);
                }
            }
            jobs++;
        }
        mbgcm_mgr_free(m);
    }
    crash_ctx[0] = '\0';
    mbgcm_key_wipe(&k.key);
    print_message("scatter-gather: %llu jobs, every segment against a guard page\n", jobs);
}

/* ---- Cobblestone open --------------------------------------------------------------------------- */

static void t_cobble(void **state)
{
    (void)state;
    install_handler();
    static const size_t lens[] = {0, 1, 300, MBGCM_COBBLE_CHUNK_LEN - 1, MBGCM_COBBLE_CHUNK_LEN,
                                  40000};
    const char *names[5];
    int fast[5];
    const int na = tc_arches(names, fast);
    unsigned long long opens = 0;
    uint8_t *pt = tu_xmalloc(40000), *sealed = tu_xmalloc(tc_sealed_len(40000));
    for (int ai = 0; ai < na; ai++) {
        mbgcm_cobble_opts opts = {0};
        opts.arch = names[ai];
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
            const size_t len = lens[li];
            if (!fast[ai] && len > 400) {
                continue;
            }
            for (int v = 0; v < 4; v++) {
                const int end = v & 1, tamper = v >> 1;
                const size_t kl = li & 1 ? 16 : 32, cl = li % 3;
                uint8_t *key = place(R_KEY, kl, end), *ctx = place(R_CTX, cl, !end);
                tu_rng_fill(&rng, key, kl);
                tu_rng_fill(&rng, ctx, cl);
                tu_rng_fill(&rng, pt, len);
                const size_t sl = tc_sealed_len(len);
                size_t n;
                assert_int_equal(mbgcm_cobble_seal(sealed, &n, sl, key, kl, ctx, cl, pt, len,
                                                   &opts),
                                 MBGCM_OK);
                uint8_t *in = place(R_SRC, sl, end), *out = place(R_DST, len, end);
                memcpy(in, sealed, sl);
                if (tamper) {
                    in[sl - 1] ^= 1;
                }
                snprintf(crash_ctx, sizeof crash_ctx, "Cobblestone open arch=%s len=%zu %s%s",
                         names[ai] ? names[ai] : "auto", len, end ? "END" : "START",
                         tamper ? " tampered" : "");
                size_t got = 0;
                const int st = mbgcm_cobble_open(out, &got, len, key, kl, ctx, cl, in, sl, &opts);
                assert_int_equal(st, tamper ? MBGCM_ERR_AUTH : MBGCM_OK);
                if (!tamper) {
                    TU_MEM_EQ(out, pt, len, "%s", crash_ctx);
                }
                /* streaming, random pieces, each piece and each output against a guard */
                mbgcm_cobble_opener *o = NULL;
                uint8_t *hdr = place(R_AAD, MBGCM_COBBLE_HEADER_LEN, end);
                memcpy(hdr, in, MBGCM_COBBLE_HEADER_LEN);
                assert_int_equal(mbgcm_cobble_opener_new(&o, key, kl, ctx, cl, hdr,
                                                         MBGCM_COBBLE_HEADER_LEN, &opts),
                                 MBGCM_OK);
                int sst = MBGCM_OK;
                size_t total = 0;
                for (size_t off = MBGCM_COBBLE_HEADER_LEN; off < sl && sst == MBGCM_OK;) {
                    size_t pn = (size_t)tu_rng_range(&rng, 1, 20000);
                    pn = pn > sl - off ? sl - off : pn;
                    uint8_t *piece = place(R_IV, pn, end);
                    memcpy(piece, in + off, pn);
                    const size_t room = MBGCM_COBBLE_OPEN_UPDATE_MAX(pn);
                    uint8_t *po = place(R_TAG, room, !end);
                    size_t w = 0;
                    sst = mbgcm_cobble_opener_update(o, po, &w, room, piece, pn);
                    if (sst == MBGCM_OK) {
                        TU_CHECK(total + w <= len, "%s: streaming released too much", crash_ctx);
                        TU_MEM_EQ(po, pt + total, w, "%s (streaming)", crash_ctx);
                        total += w;
                    }
                    off += pn;
                }
                if (sst == MBGCM_OK) {
                    uint8_t *po = place(R_TAG, MBGCM_COBBLE_OPEN_FINISH_MAX, end);
                    size_t w = 0;
                    sst = mbgcm_cobble_opener_finish(o, po, &w, MBGCM_COBBLE_OPEN_FINISH_MAX);
                    if (sst == MBGCM_OK) {
                        TU_MEM_EQ(po, pt + total, w, "%s (finish)", crash_ctx);
                        total += w;
                    }
                }
                mbgcm_cobble_opener_free(o);
                assert_int_equal(sst, tamper ? MBGCM_ERR_AUTH : MBGCM_OK);
                if (!tamper) {
                    assert_int_equal(total, len);
                }
                opens += 2;
            }
        }
    }
    crash_ctx[0] = '\0';
    free(pt);
    free(sealed);
    print_message("Cobblestone: %llu opens (one-shot and streaming) against guard pages\n", opens);
}

int main(void)
{
    tu_seed();
    tu_rng_init(&rng, "guard_paths");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_oneshot),
        cmocka_unit_test(t_incremental),
        cmocka_unit_test(t_sgl),
        cmocka_unit_test(t_cobble),
    };
    return cmocka_run_group_tests_name("guard_paths", tests, setup, teardown) ? 1 : 0;
}
