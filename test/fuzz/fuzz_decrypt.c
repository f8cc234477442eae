/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_decrypt.c — libFuzzer harness: mbgcm_decrypt and scatter-gather jobs on
 * malformed input.
 *
 * Part 1, one-shot decrypt: key (16/24/32 bytes), IV (1..128 bytes), AAD, ciphertext and tag
 * straight from the input (so almost every tag is wrong), or a genuine message made from the
 * input and then damaged at a fuzzer-chosen bit (or not at all); every tag length, valid or
 * not; sometimes in place. On every supported arch the status must match OpenSSL's verdict
 * (plaintext equal on success, output all zero on MBGCM_ERR_AUTH, untouched on an argument
 * error) and the tag buffer is never written.
 *
 * Part 2, scatter-gather: source and destination lists built from the input over one arena:
 * 0..300 segments, lengths that may not add up, may overflow size_t, may be zero, NULL
 * pointers, segments overlapping each other or the other list, the same list on both sides.
 * An independent model of the documented rules (jobs/sgl.c's contract in api/mbgcm.h) says
 * whether the job is valid; a valid job must give the linear result (OpenSSL), an invalid one
 * MBGCM_ERR_INVALID with the arena untouched. Through a burst on a manager of a
 * fuzzer-chosen arch.
 */
#include "fuzz_common.h"
#include "jobs_internal.h"
#include "test_util.h"

#define ARENA 4096
#define MAXSEG 300

static int arches[MBGCMI_MAX_ARCHES], narch;
static void print_stats(void);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    narch = tu_supported_arches(arches);
    atexit(print_stats);
    return 0;
}

static unsigned long long d_calls, d_ok, d_auth, d_taglen, s_jobs, s_valid;
static void print_stats(void)
{
    fprintf(stderr, "fuzz_decrypt: %llu one-shot decrypts (ok %llu, auth failed %llu, bad tag "
            "length %llu); %llu scatter-gather jobs (%llu valid, %llu rejected)\n", d_calls,
            d_ok, d_auth, d_taglen, s_jobs, s_valid, s_jobs - s_valid);
}

static int tag_len_ok(size_t t)
{
    return t == 4 || t == 8 || (t >= 12 && t <= 16);
}

static void part_oneshot(struct fz *f)
{
    uint8_t raw[32], iv[128], aad[64], tag[16 + 16], tagcopy[sizeof tag];
    static const size_t kls[3] = {16, 24, 32};
    const size_t kl = kls[fz_below(f, 3)];
    fz_bytes(f, raw, kl);
    const uint8_t mode = fz_u8(f);
    const size_t ivl = mode & 1 ? 12 : 1 + fz_below(f, 128);
    const size_t al = fz_below(f, sizeof aad + 1);
    const size_t len = fz_below(f, 400);
    size_t tl = fz_below(f, 18); /* 0..17: invalid ones too */
    fz_bytes(f, iv, ivl);
    fz_bytes(f, aad, al);
    uint8_t *ct = malloc(len + 1), *out = malloc(len + 1), *ref = malloc(len + 1);
    fz_bytes(f, ct, len);
    memset(tag, 0x3C, sizeof tag);
    if (mode & 2) { /* genuine, then maybe damaged */
        uint8_t full[16];
        uint8_t *pt = malloc(len + 1);
        memcpy(pt, ct, len);
        tu_ossl_gcm_encrypt(raw, kl, iv, ivl, aad, al, pt, len, ct, full, 16);
        memcpy(tag, full, 16);
        free(pt);
        const unsigned where = fz_u16(f);
        if (mode & 4) {
            const size_t nbits = 8 * (len + 16 + al);
            const size_t b = where % (nbits ? nbits : 1);
            if (b < 8 * len) {
                ct[b / 8] ^= (uint8_t)(1u << (b % 8));
            } else if (b < 8 * (len + 16)) {
                tag[(b - 8 * len) / 8] ^= (uint8_t)(1u << (b % 8));
            } else if (al) {
                aad[(b - 8 * (len + 16)) / 8 % al] ^= (uint8_t)(1u << (b % 8));
            }
        }
    } else {
        fz_bytes(f, tag, 16);
    }
    memcpy(tagcopy, tag, sizeof tag);
    mbgcm_key key;
    FZ_CHECK(mbgcm_key_init(&key, raw, kl) == MBGCM_OK, "key");
    int want = MBGCM_OK;
    if (!tag_len_ok(tl)) {
        want = MBGCM_ERR_TAG_LEN;
    } else {
        want = tu_ossl_gcm_decrypt(raw, kl, iv, ivl, aad, al, ct, len, ref, tag, tl) == 0
                   ? MBGCM_OK
                   : MBGCM_ERR_AUTH;
    }
    const int inpl = (mode >> 3) & 1;
    for (int a = 0; a < narch; a++) {
        tu_set_oneshot_arch(arches[a]);
        uint8_t *in = ct;
        if (inpl) {
            memcpy(out, ct, len);
            in = out;
        } else {
            memset(out, 0x5A, len);
        }
        const int st = mbgcm_decrypt(&key, iv, ivl, al ? aad : NULL, al, len ? in : NULL, len,
                                     len ? out : NULL, tag, tl);
        d_calls++;
        d_ok += st == MBGCM_OK;
        d_auth += st == MBGCM_ERR_AUTH;
        d_taglen += st == MBGCM_ERR_TAG_LEN;
        FZ_CHECK(st == want, "decrypt arch %s: status %d, expected %d (len %zu tl %zu)",
                 tu_arch_name(arches[a]), st, want, len, tl);
        FZ_CHECK(memcmp(tag, tagcopy, sizeof tag) == 0, "the tag buffer was written");
        if (st == MBGCM_OK) {
            FZ_CHECK(memcmp(out, ref, len) == 0, "plaintext differs from OpenSSL");
        } else if (st == MBGCM_ERR_AUTH) {
            for (size_t i = 0; i < len; i++) {
                FZ_CHECK(out[i] == 0, "unauthenticated byte %zu released", i);
            }
        } else if (!inpl) {
            for (size_t i = 0; i < len; i++) {
                FZ_CHECK(out[i] == 0x5A, "rejected call wrote byte %zu", i);
            }
        }
    }
    tu_set_oneshot_arch(tu_arch_best());
    mbgcm_key_wipe(&key);
    free(ct);
    free(out);
    free(ref);
}

/* The documented rules for segment lists, written independently of jobs/sgl.c. */
static int list_ok(const mbgcm_seg *l, uint32_t n, size_t len)
{
    if (n < 1 || n > MBGCM_MAX_SEGS) {
        return 0;
    }
    unsigned __int128 sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (l[i].len && l[i].ptr == NULL) {
            return 0;
        }
        sum += l[i].len;
    }
    return sum == len;
}

static int bytes_shared(const mbgcm_seg *a, const mbgcm_seg *b)
{
    if (a->len == 0 || b->len == 0) {
        return 0;
    }
    const uintptr_t x = (uintptr_t)a->ptr, y = (uintptr_t)b->ptr;
    return x < y + b->len && y < x + a->len;
}

static void part_sgl(struct fz *f)
{
    static uint8_t arena[ARENA + 64];
    static mbgcm_seg sl[MAXSEG], dl[MAXSEG];
    uint8_t raw[16], iv[12], tag[16], full[16];
    fz_bytes(f, raw, 16);
    fz_bytes(f, iv, 12);
    const int dec = fz_u8(f) & 1;
    const size_t len = fz_below(f, 600);
    const uint8_t shape = fz_u8(f);
    const unsigned ns = shape & 1 ? fz_below(f, MAXSEG + 1) : 1 + fz_below(f, 8);
    const unsigned nd = shape & 2 ? fz_below(f, MAXSEG + 1) : 1 + fz_below(f, 8);
    const int same_list = (shape >> 2) & 1;
    const int linear_dst = (shape >> 3) & 1 && !same_list;
    fz_expand(fz_u32(f), arena, sizeof arena);
    uint8_t *msg = malloc(len + 1), *ref = malloc(len + 1);
    fz_expand(fz_u32(f), msg, len);
    tu_ossl_gcm_encrypt(raw, 16, iv, 12, NULL, 0, msg, len, ref, full, 16);
    /* lists: mostly a clean cut of the message into the arena, then fuzzer damage */
    for (int side = 0; side < 2; side++) {
        mbgcm_seg *l = side ? dl : sl;
        const unsigned n = side ? nd : ns;
        const size_t base = side ? ARENA / 2 : 0; /* clean cuts: sources [0, 600), destinations
                                                     [2048, 2648) */
        size_t off = 0;
        for (unsigned i = 0; i < n; i++) {
            size_t sz = i + 1 == n ? len - (off < len ? off : len)
                                   : fz_below(f, (unsigned)(len - (off < len ? off : len) + 1));
            const uint8_t dmg = fz_u8(f);
            size_t at = base + off;
            switch (dmg >> 5) {
            case 1: sz += 1 + (dmg & 7); break;                   /* too long */
            case 2: sz = (size_t)-1 - (dmg & 7); break;           /* overflowing */
            case 3: at = fz_below(f, ARENA - 640); break;         /* anywhere (overlaps) */
            default: break;
            }
            l[i].len = sz;
            l[i].ptr = (dmg & 0x1F) == 0x1F ? NULL : arena + at;
            off += sz < ARENA ? sz : 0;
        }
    }
    mbgcm_job job;
    memset(&job, 0, sizeof job);
    mbgcm_key key;
    FZ_CHECK(mbgcm_key_init(&key, raw, 16) == MBGCM_OK, "key");
    job.key = &key;
    job.dir = dec ? MBGCM_DECRYPT : MBGCM_ENCRYPT;
    job.iv = iv;
    job.iv_len = 12;
    job.len = len;
    memcpy(tag, full, 16);
    job.tag = tag;
    job.tag_len = 16;
    job.src_sgl = sl;
    job.src_nseg = ns;
    uint8_t *lin = NULL;
    if (linear_dst) {
        lin = malloc(len + 1);
        job.dst = lin;
    } else {
        job.dst_sgl = same_list ? sl : dl;
        job.dst_nseg = same_list ? ns : nd;
    }
    /* the model */
    int valid = list_ok(sl, ns, len) && (linear_dst || list_ok(job.dst_sgl, job.dst_nseg, len));
    /* destination segments never share memory with each other (the same list in place too) */
    for (unsigned i = 0; valid && !linear_dst && i < job.dst_nseg; i++) {
        for (unsigned j = i + 1; valid && j < job.dst_nseg; j++) {
            valid = !bytes_shared(&job.dst_sgl[i], &job.dst_sgl[j]);
        }
    }
    if (valid && !same_list && !linear_dst) {
        /* shared bytes only between a source and a destination segment that are the same
           buffer at the same message offset */
        size_t so = 0;
        for (unsigned i = 0; i < ns && valid; so += sl[i].len, i++) {
            size_t d0 = 0;
            for (unsigned j = 0; j < nd && valid; d0 += dl[j].len, j++) {
                if (sl[i].ptr == dl[j].ptr && sl[i].len == dl[j].len && so == d0) {
                    continue;
                }
                valid = !bytes_shared(&sl[i], &dl[j]);
            }
        }
    }
    /* source segments overlapping each other are allowed, but then what is read depends on the
       order of the copies: only the status is checked for those */
    int exact = 1;
    for (int side = 0; side < 2 && valid; side++) {
        const mbgcm_seg *l = side ? job.dst_sgl : sl;
        const unsigned n = side ? (linear_dst ? 0 : job.dst_nseg) : ns;
        for (unsigned i = 0; i < n; i++) {
            for (unsigned j = i + 1; j < n; j++) {
                exact &= !bytes_shared(&l[i], &l[j]);
            }
        }
    }
    /* fill the source segments with the input (ciphertext when decrypting) */
    if (valid && exact) {
        size_t off = 0;
        for (unsigned i = 0; i < ns; i++) {
            if (sl[i].len) {
                memcpy(sl[i].ptr, (dec ? ref : msg) + off, sl[i].len);
            }
            off += sl[i].len;
        }
    }
    if (getenv("MBGCM_FUZZ_DEBUG")) { /* triage: the job as built */
        fprintf(stderr, "sgl: %s len %zu, %s, valid %d exact %d\n", dec ? "decrypt" : "encrypt",
                len, same_list ? "same list" : linear_dst ? "linear dst" : "two lists", valid,
                exact);
        for (unsigned i = 0; i < ns; i++) {
            fprintf(stderr, "  src[%u] arena+%td len %zu\n", i,
                    sl[i].ptr ? sl[i].ptr - arena : -1, sl[i].len);
        }
        for (unsigned i = 0; !linear_dst && !same_list && i < nd; i++) {
            fprintf(stderr, "  dst[%u] arena+%td len %zu\n", i,
                    dl[i].ptr ? dl[i].ptr - arena : -1, dl[i].len);
        }
    }
    uint8_t *before = malloc(sizeof arena);
    memcpy(before, arena, sizeof arena);
    mbgcm_config cfg = {0};
    cfg.arch = tu_arch_name(arches[shape % narch]);
    cfg.queue_size = 4;
    mbgcm_mgr *m = mbgcm_mgr_new(&cfg);
    FZ_CHECK(m != NULL, "manager");
    mbgcm_submit_burst(m, &job, 1);
    s_jobs++;
    s_valid += valid;
    if (!valid) {
        FZ_CHECK(job.status == MBGCM_ERR_INVALID, "invalid lists accepted (status %d, %u/%u "
                 "segments, len %zu)", job.status, ns, nd, len);
        FZ_CHECK(memcmp(before, arena, sizeof arena) == 0, "a rejected job wrote memory");
    } else {
        FZ_CHECK(job.status == MBGCM_OK || (!exact && dec && job.status == MBGCM_ERR_AUTH),
                 "valid lists rejected (status %d, %u/%u segments)", job.status, ns, nd);
    }
    if (valid && exact) {
        const mbgcm_seg *out = job.dst_sgl;
        size_t off = 0;
        if (linear_dst) {
            FZ_CHECK(memcmp(lin, dec ? msg : ref, len) == 0, "linear output differs");
        } else {
            for (unsigned i = 0; i < job.dst_nseg; i++) {
                FZ_CHECK(out[i].len == 0 ||
                             memcmp(out[i].ptr, (dec ? msg : ref) + off, out[i].len) == 0,
                         "segment %u differs", i);
                off += out[i].len;
            }
        }
        if (!dec) {
            FZ_CHECK(memcmp(tag, full, 16) == 0, "tag differs");
        }
    }
    mbgcm_mgr_free(m);
    mbgcm_key_wipe(&key);
    free(before);
    free(lin);
    free(msg);
    free(ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    if (fz_u8(&f) & 1) {
        part_sgl(&f);
    } else {
        part_oneshot(&f);
    }
    return 0;
}
