/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_cobble.c — libFuzzer harness: Cobblestone open on malformed input.
 *
 * The input gives a key (16 or 32 bytes), a context and either raw bytes to open as a sealed
 * message, or a genuine message (plaintext from the input, sealed by the OpenSSL-only
 * reference of the format with a salt from the input: deterministic) that is then damaged:
 * a flipped bit anywhere, truncation, appended bytes, a chunk repeated or dropped, the key or
 * context changed. It is opened four ways: mbgcm_cobble_open, the streaming opener fed in
 * fuzzer-chosen pieces, the random-access reader (size, then a fuzzer-chosen range), and the
 * hazmat raw open of the body. The verdict must agree with the reference opener: success with
 * the same plaintext, or a failure (one-shot output zeroed; the streaming opener released only
 * whole authentic chunks and a prefix of the plaintext; the reader's failed range zeroed).
 * The one-shot and streaming failure statuses must agree with each other.
 */
#include "fuzz_common.h"
#include "test_cobble_common.h"

#define MAXPT (3 * MBGCM_COBBLE_CHUNK_LEN + 100)

static unsigned long long c_msgs, c_ok, c_bad, c_bytes;
static void print_stats(void)
{
    fprintf(stderr, "fuzz_cobble: %llu messages (%llu bytes) opened 4 ways each: %llu authentic, "
            "%llu rejected\n", c_msgs, c_bytes, c_ok, c_bad);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    atexit(print_stats);
    return 0;
}

static int is_failure(int st)
{
    return st == MBGCM_ERR_COMMITMENT || st == MBGCM_ERR_TRUNCATED || st == MBGCM_ERR_TRAILING ||
           st == MBGCM_ERR_AUTH || st == MBGCM_ERR_LEN;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    uint8_t key[32], ctx[40], salt[24];
    const uint8_t mode = fz_u8(&f);
    const size_t kl = mode & 1 ? 16 : 32;
    fz_bytes(&f, key, kl);
    const size_t cl = fz_below(&f, sizeof ctx + 1);
    fz_bytes(&f, ctx, cl);
    uint8_t *ct;
    size_t ct_len;
    uint8_t *pt = NULL;
    size_t pt_len = 0;
    if (mode & 2) { /* genuine message, then damage */
        pt_len = fz_below(&f, MAXPT + 1);
        pt = malloc(pt_len + 1);
        fz_expand(fz_u32(&f), pt, pt_len);
        fz_bytes(&f, salt, sizeof salt);
        const size_t sl = tc_sealed_len(pt_len);
        ct = malloc(sl + 2 * MBGCM_COBBLE_SEALED_CHUNK_LEN + 64);
        ct_len = tc_ref_seal(key, kl, ctx, cl, salt, pt, pt_len, ct);
        FZ_CHECK(ct_len == sl, "reference seal length");
        const uint8_t dmg = fz_u8(&f);
        const unsigned where = fz_u32(&f);
        switch (dmg % 8) {
        case 0: break; /* authentic */
        case 1: ct[where % ct_len] ^= (uint8_t)(1u << (dmg >> 5)); break;
        case 2: ct_len = where % (ct_len + 1); break;                     /* truncated */
        case 3: { /* appended bytes */
            const size_t n = 1 + where % 40;
            fz_bytes(&f, ct + ct_len, n);
            ct_len += n;
            break;
        }
        case 4: /* the first chunk repeated at the end */
            if (ct_len >= MBGCM_COBBLE_HEADER_LEN + MBGCM_COBBLE_SEALED_CHUNK_LEN) {
                memcpy(ct + ct_len, ct + MBGCM_COBBLE_HEADER_LEN, MBGCM_COBBLE_SEALED_CHUNK_LEN);
                ct_len += MBGCM_COBBLE_SEALED_CHUNK_LEN;
            }
            break;
        case 5: /* a whole chunk dropped */
            if (ct_len >= MBGCM_COBBLE_HEADER_LEN + 2 * MBGCM_COBBLE_SEALED_CHUNK_LEN) {
                memmove(ct + MBGCM_COBBLE_HEADER_LEN,
                        ct + MBGCM_COBBLE_HEADER_LEN + MBGCM_COBBLE_SEALED_CHUNK_LEN,
                        ct_len - MBGCM_COBBLE_HEADER_LEN - MBGCM_COBBLE_SEALED_CHUNK_LEN);
                ct_len -= MBGCM_COBBLE_SEALED_CHUNK_LEN;
            }
            break;
        case 6: key[where % kl] ^= 1; break;                              /* wrong key */
        case 7: if (cl) { ctx[where % cl] ^= 1; } else { ct[0] ^= 1; } break; /* context */
        }
    } else { /* raw bytes */
        ct_len = fz_below(&f, 40000);
        ct = malloc(ct_len + 1);
        fz_bytes(&f, ct, ct_len);
    }
    /* the reference verdict */
    uint8_t *ref = malloc(ct_len + 1);
    size_t ref_len = 0;
    const int ref_ok = tc_ref_open(key, kl, ctx, cl, ct, ct_len, ref, &ref_len) == 0;
    c_msgs++;
    c_bytes += ct_len;
    c_ok += ref_ok;
    c_bad += !ref_ok;
    mbgcm_cobble_opts opts = {0};
    static const char *const archs[3] = {NULL, "generic", NULL};
    opts.arch = ct_len < 4000 ? archs[(mode >> 2) % 3] : NULL;
    if (opts.arch && !tu_arch_supported(tu_arch_parse(opts.arch))) {
        opts.arch = NULL;
    }
    opts.threads = (mode >> 4) & 1 ? 2 : 0;
    /* one-shot */
    const size_t room = ct_len + 16;
    uint8_t *out = malloc(room);
    memset(out, 0xAA, room);
    size_t got = 77;
    const int st = mbgcm_cobble_open(out, &got, room, key, kl, cl ? ctx : NULL, cl, ct_len ? ct : NULL,
                                     ct_len, &opts);
    if (ref_ok) {
        FZ_CHECK(st == MBGCM_OK, "one-shot open failed (%d) on a message the reference opens",
                 st);
        FZ_CHECK(got == ref_len && memcmp(out, ref, ref_len) == 0, "one-shot plaintext differs");
    } else {
        FZ_CHECK(is_failure(st), "one-shot open: status %d on a bad message", st);
        FZ_CHECK(got == 0, "one-shot open: out_len %zu on failure", got);
        for (size_t i = 0; i < room; i++) {
            FZ_CHECK(out[i] == 0 || out[i] == 0xAA, "one-shot open released byte %zu", i);
        }
    }
    /* streaming, pieces from the input */
    mbgcm_cobble_opener *o = NULL;
    int sst = mbgcm_cobble_opener_new(&o, key, kl, cl ? ctx : NULL, cl, ct,
                                      ct_len < MBGCM_COBBLE_HEADER_LEN ? ct_len : MBGCM_COBBLE_HEADER_LEN,
                                      &opts);
    size_t total = 0;
    uint8_t *sout = malloc(ct_len + MBGCM_COBBLE_CHUNK_LEN + 1);
    if (sst == MBGCM_OK) {
        size_t off = MBGCM_COBBLE_HEADER_LEN;
        while (off < ct_len && sst == MBGCM_OK) {
            size_t n = 1 + fz_u16(&f) % 20000;
            n = n > ct_len - off ? ct_len - off : n;
            size_t w = 0;
            sst = mbgcm_cobble_opener_update(o, sout + total, &w, MBGCM_COBBLE_OPEN_UPDATE_MAX(n),
                                             ct + off, n);
            if (sst == MBGCM_OK) {
                FZ_CHECK(w % MBGCM_COBBLE_CHUNK_LEN == 0, "update released a partial chunk");
                total += w;
            } else {
                FZ_CHECK(w == 0, "failed update released %zu bytes", w);
            }
            off += n;
        }
        if (sst == MBGCM_OK) {
            size_t w = 0;
            sst = mbgcm_cobble_opener_finish(o, sout + total, &w, MBGCM_COBBLE_OPEN_FINISH_MAX);
            total += sst == MBGCM_OK ? w : 0;
        }
    }
    mbgcm_cobble_opener_free(o);
    if (ref_ok) {
        FZ_CHECK(sst == MBGCM_OK && total == ref_len && memcmp(sout, ref, ref_len) == 0,
                 "streaming open: status %d, %zu bytes", sst, total);
    } else {
        FZ_CHECK(is_failure(sst), "streaming open: status %d on a bad message", sst);
        FZ_CHECK(sst == st, "streaming status %d, one-shot %d", sst, st);
        /* what was released before the failure is authentic: the start of the plaintext of
           the genuine message (only knowable for damage after it) */
        FZ_CHECK(total % MBGCM_COBBLE_CHUNK_LEN == 0, "partial chunk released before failure");
        if (pt != NULL && total <= pt_len && (mode & 2)) {
            /* chunks released before the failure must be the original plaintext, unless the
               damage made another valid message (not possible without the key) */
            FZ_CHECK(memcmp(sout, pt, total) == 0, "released chunks are not the plaintext");
        }
    }
    /* random access */
    mbgcm_cobble_reader *r = NULL;
    int rst = mbgcm_cobble_reader_new(&r, key, kl, cl ? ctx : NULL, cl, ct, ct_len, &opts);
    if (rst == MBGCM_OK) {
        uint64_t sz = 0;
        const int zst = mbgcm_cobble_reader_size(r, &sz);
        if (ref_ok) {
            FZ_CHECK(zst == MBGCM_OK && sz == ref_len, "reader size: %d, %llu", zst,
                     (unsigned long long)sz);
        }
        const uint64_t off = fz_u32(&f) % (ct_len + 1), len = fz_u32(&f) % (ct_len + 1);
        uint8_t *rout = malloc(len + 1);
        memset(rout, 0xAA, len);
        const int qst = mbgcm_cobble_reader_read(r, rout, off, (size_t)len);
        if (qst == MBGCM_OK) {
            if (ref_ok) {
                FZ_CHECK(off + len <= ref_len && memcmp(rout, ref + off, len) == 0,
                         "reader range differs");
            } else if (pt != NULL && off + len <= pt_len) {
                FZ_CHECK(memcmp(rout, pt + off, len) == 0, "reader returned non-plaintext");
            }
        } else if (qst != MBGCM_ERR_RANGE) {
            FZ_CHECK(is_failure(qst), "reader read status %d", qst);
            for (uint64_t i = 0; i < len; i++) {
                FZ_CHECK(rout[i] == 0, "failed read left byte %llu", (unsigned long long)i);
            }
        }
        free(rout);
    } else {
        FZ_CHECK(!ref_ok && is_failure(rst), "reader_new status %d", rst);
    }
    mbgcm_cobble_reader_free(r);
    free(sout);
    free(out);
    free(ref);
    free(ct);
    free(pt);
    return 0;
}
