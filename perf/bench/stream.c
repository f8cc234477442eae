/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.c — stream mode: how close mbgcm's incremental API and scatter-gather jobs come to the
 * one-shot call, for one long message that arrives in pieces. Everything timed or checked goes
 * through the public API of <mbgcm.h>; the one internal hook only restores the one-shot arch.
 * Per key size (--bits), direction (--dirs) and message size (--stream-sizes), four ways of
 * processing the same message (12-byte IV, --aad bytes of AAD, 16-byte tag, out of place):
 *   oneshot  mbgcm_encrypt / mbgcm_decrypt of the whole message
 *   ctx      mbgcm_ctx_init, mbgcm_ctx_update every --piece bytes (the last piece shorter if
 *            need be), mbgcm_ctx_final (encrypt) / mbgcm_ctx_verify (decrypt)
 *   sgl      one job through mbgcm_submit_burst whose src_sgl / dst_sgl are lists of
 *            --piece-byte segments pointing into the same linear buffers
 *   burst    the same job with linear src / dst, through the same manager: what sgl costs
 *            over the manager's own path
 * One key per key size (mbgcm_key_init). The one-shot and ctx calls run the arch the library
 * picks by itself (MBGCM_ARCH, else auto: restored here, since the throughput and latency
 * modes force one per engine); the manager has the default config (NULL), which reads
 * MBGCM_ARCH too.
 *
 * Before any timing the one-shot output must equal OpenSSL's (the workload's reference) and
 * every other variant's must equal it: encrypt the same ciphertext and tag; decrypt MBGCM_OK
 * and the plaintext, and MBGCM_ERR_AUTH for a tag with one bit flipped (a variant that did not
 * check the tag would look faster). Any difference exits with a message.
 *
 * Timing as in the throughput mode: each variant is calibrated to batches of about
 * --seconds-per-point / --reps of run_ns() time (thread CPU time unless --wall-clock), then the
 * repetitions interleave the four (A B C D A B C D ...) so that the host's noise hits all
 * alike. Figures: the median ns per message of each variant over the repetitions, and from
 * those medians the throughput ratios oneshot ns / variant ns (1.00: as fast; below 1: slower)
 * and burst ns / sgl ns, so that every ratio can be read off the table's own columns.
 */
#include <mbgcm.h>

#include "measure.h"
#include "modes.h"
#include "options.h"
#include "workload.h"

#include "engine_mbgcm_internal.h" /* only to undo the other modes' forced one-shot arch */

#define STREAM_SEED   0x73747265616d2121u
#define STREAM_TARGET 0.95 /* the project's target for ctx and sgl at 16 KiB pieces */
#define STREAM_TARGET_PIECE 16384

enum { V_ONESHOT, V_CTX, V_SGL, V_BURST, NV };
static const char *const v_name[NV] = {"oneshot", "ctx", "sgl", "burst"};

/* One message in one direction, as every variant sees it. */
struct stream_msg {
    const mbgcm_key *key;
    mbgcm_mgr *mgr;
    int dir;               /* DIR_ENC or DIR_DEC */
    const uint8_t *iv, *aad;
    size_t aad_len;
    const uint8_t *in;     /* plaintext (encrypt) or ciphertext (decrypt) */
    uint8_t *out;
    uint8_t *tag;          /* encrypt: written; decrypt: the expected tag, only read */
    size_t len, piece;
    mbgcm_job linear, sgl; /* job templates: copied into a fresh job per call, as a caller
                              filling every field would */
};

static int run_oneshot(const struct stream_msg *s)
{
    if (s->dir == DIR_ENC) {
        return mbgcm_encrypt(s->key, s->iv, BENCH_IV_LEN, s->aad, s->aad_len, s->in, s->len,
                             s->out, s->tag, BENCH_TAG_LEN);
    }
    return mbgcm_decrypt(s->key, s->iv, BENCH_IV_LEN, s->aad, s->aad_len, s->in, s->len, s->out,
                         s->tag, BENCH_TAG_LEN);
}

static int run_ctx(const struct stream_msg *s)
{
    mbgcm_ctx ctx;
    int rc = mbgcm_ctx_init(&ctx, s->key, s->dir == DIR_ENC ? MBGCM_ENCRYPT : MBGCM_DECRYPT,
                            s->iv, BENCH_IV_LEN, s->aad, s->aad_len);
    for (size_t off = 0; off < s->len && rc == MBGCM_OK; off += s->piece) {
        const size_t n = s->len - off < s->piece ? s->len - off : s->piece;
        rc = mbgcm_ctx_update(&ctx, s->in + off, n, s->out + off);
    }
    if (rc != MBGCM_OK) {
        mbgcm_ctx_wipe(&ctx);
        return rc;
    }
    return s->dir == DIR_ENC ? mbgcm_ctx_final(&ctx, s->tag, BENCH_TAG_LEN)
                             : mbgcm_ctx_verify(&ctx, s->tag, BENCH_TAG_LEN);
}

static int run_job(mbgcm_mgr *m, const mbgcm_job *tmpl)
{
    mbgcm_job job = *tmpl;
    return mbgcm_submit_burst(m, &job, 1) == 1 ? MBGCM_OK : job.status;
}

static int run_sgl(const struct stream_msg *s)
{
    return run_job(s->mgr, &s->sgl);
}

static int run_burst(const struct stream_msg *s)
{
    return run_job(s->mgr, &s->linear);
}

static int (*const v_run[NV])(const struct stream_msg *) = {run_oneshot, run_ctx, run_sgl,
                                                             run_burst};

/* One variant's batches, for calibrate_batches. */
struct stream_batch {
    const struct stream_msg *s;
    int v;
};

/* ns of run_ns() time for |n| messages of variant |b->v|; exits if any failed. */
static double stream_batch(void *ctx, uint64_t n)
{
    const struct stream_batch *b = ctx;
    int (*const run)(const struct stream_msg *) = v_run[b->v];
    unsigned bad = 0;
    const uint64_t t0 = run_ns();
    for (uint64_t i = 0; i < n; i++) {
        bad += run(b->s) != MBGCM_OK;
    }
    const uint64_t dt = run_ns() - t0;
    if (bad) {
        die("stream %s: %u of %llu %s calls failed (%zu bytes)", v_name[b->v], bad,
            (unsigned long long)n, dir_name[b->s->dir], b->s->len);
    }
    return (double)dt;
}

/* The message of |dir| at the workload's one slot; |seg_in| and |seg_out| get |nseg| segments
   of s->piece bytes (nseg 0: too many for one list, sgl not run). */
static void stream_msg_init(struct stream_msg *s, struct workload *w, const mbgcm_key *key,
                            mbgcm_mgr *mgr, int dir, mbgcm_seg *seg_in, mbgcm_seg *seg_out,
                            unsigned nseg)
{
    struct bench_msgs *m = &w->m;
    memset(s, 0, sizeof *s);
    s->key = key;
    s->mgr = mgr;
    s->dir = dir;
    s->iv = m->iv[0];
    s->aad = m->aad[0];
    s->aad_len = m->aad_len;
    s->in = dir == DIR_ENC ? m->pt[0] : m->ct[0];
    s->out = m->out[0];
    s->tag = dir == DIR_ENC ? m->otag[0] : m->tag[0];
    s->len = m->len[0];
    s->piece = opt.piece;
    mbgcm_job *j = &s->linear;
    j->key = key;
    j->dir = dir == DIR_ENC ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
    j->iv = s->iv;
    j->iv_len = BENCH_IV_LEN;
    j->aad = s->aad;
    j->aad_len = s->aad_len;
    j->src = s->in;
    j->dst = s->out;
    j->len = s->len;
    j->tag = s->tag;
    j->tag_len = BENCH_TAG_LEN;
    s->sgl = s->linear;
    s->sgl.src = NULL;
    s->sgl.dst = NULL;
    for (unsigned i = 0; i < nseg; i++) {
        const size_t off = (size_t)i * s->piece;
        const size_t n = s->len - off < s->piece ? s->len - off : s->piece;
        seg_in[i] = (mbgcm_seg){(uint8_t *)s->in + off, n}; /* only read: a source list */
        seg_out[i] = (mbgcm_seg){s->out + off, n};
    }
    s->sgl.src_sgl = seg_in;
    s->sgl.dst_sgl = seg_out;
    s->sgl.src_nseg = s->sgl.dst_nseg = nseg;
}

/* The checks of the file comment, for both directions; exits on any difference. */
static void stream_verify(struct workload *w, const mbgcm_key *key, mbgcm_mgr *mgr,
                          mbgcm_seg *seg_in, mbgcm_seg *seg_out, unsigned nseg)
{
    struct bench_msgs *m = &w->m;
    const size_t len = m->len[0];
    const unsigned bits = m->bits;
    struct stream_msg s;
    stream_msg_init(&s, w, key, mgr, DIR_ENC, seg_in, seg_out, nseg);
    for (int v = 0; v < NV; v++) {
        if (v == V_SGL && nseg == 0) {
            continue;
        }
        memset(s.out, 0xa5, len);
        memset(s.tag, 0xa5, BENCH_TAG_LEN);
        const int rc = v_run[v](&s);
        if (rc != MBGCM_OK) {
            die("stream %s: encrypt failed: %s (AES-%u, %zu bytes)", v_name[v],
                mbgcm_strerror(rc), bits, len);
        }
        if (memcmp(s.out, m->ct[0], len) != 0 || memcmp(s.tag, m->tag[0], BENCH_TAG_LEN) != 0) {
            die("stream %s: ciphertext or tag differs from %s (AES-%u, %zu bytes, %zu-byte "
                "pieces)", v_name[v], v == V_ONESHOT ? "OpenSSL's reference" : "the one-shot's",
                bits, len, opt.piece);
        }
    }
    stream_msg_init(&s, w, key, mgr, DIR_DEC, seg_in, seg_out, nseg);
    uint8_t bad_tag[BENCH_TAG_LEN];
    memcpy(bad_tag, s.tag, BENCH_TAG_LEN);
    bad_tag[BENCH_TAG_LEN - 1] ^= 1;
    for (int v = 0; v < NV; v++) {
        if (v == V_SGL && nseg == 0) {
            continue;
        }
        memset(s.out, 0xa5, len);
        int rc = v_run[v](&s);
        if (rc != MBGCM_OK) {
            die("stream %s: decrypt rejected a valid message: %s (AES-%u, %zu bytes, %zu-byte "
                "pieces)", v_name[v], mbgcm_strerror(rc), bits, len, opt.piece);
        }
        if (memcmp(s.out, m->pt[0], len) != 0) {
            die("stream %s: decrypt output differs from the plaintext (AES-%u, %zu bytes, "
                "%zu-byte pieces)", v_name[v], bits, len, opt.piece);
        }
        struct stream_msg forged = s;
        forged.tag = bad_tag;
        forged.linear.tag = forged.sgl.tag = bad_tag;
        rc = v_run[v](&forged);
        if (rc != MBGCM_ERR_AUTH) {
            die("stream %s: decrypt with a wrong tag returned '%s', not '%s' (AES-%u, %zu "
                "bytes)", v_name[v], mbgcm_strerror(rc), mbgcm_strerror(MBGCM_ERR_AUTH), bits,
                len);
        }
    }
}

/* One point's figures. */
struct stream_fig {
    double med[NV], min[NV], max[NV]; /* ns per message */
    double ctx_ratio, sgl_ratio, sgl_burst; /* throughput ratios of the medians */
    uint64_t n[NV];                   /* messages per batch */
    int has_sgl, warn;
};

/* Calibrate, run the interleaved repetitions, reduce. |t|: NV * R scratch doubles. */
static void stream_measure(const struct stream_msg *s, int has_sgl, double *t,
                           struct stream_fig *f)
{
    const unsigned R = opt.reps;
    const double target = opt.seconds / R * 1e9;
    struct stream_batch b[NV];
    memset(f, 0, sizeof *f);
    f->has_sgl = has_sgl;
    for (int v = 0; v < NV; v++) {
        b[v] = (struct stream_batch){s, v};
        if (v != V_SGL || has_sgl) {
            f->n[v] = calibrate_batches(stream_batch, &b[v], target);
        }
    }
    for (unsigned r = 0; r < R; r++) { /* interleaved: A B C D A B C D ... */
        for (int v = 0; v < NV; v++) {
            if (f->n[v] != 0) {
                t[v * R + r] = stream_batch(&b[v], f->n[v]) / (double)f->n[v];
            }
        }
    }
    for (int v = 0; v < NV; v++) {
        if (f->n[v] != 0) {
            double *x = &t[v * R];
            f->med[v] = median(x, R); /* sorts: x[0] min, x[R-1] max */
            f->min[v] = x[0];
            f->max[v] = x[R - 1];
            f->warn |= (f->max[v] - f->min[v]) / f->med[v] > SPREAD_WARN;
        }
    }
    f->ctx_ratio = f->med[V_ONESHOT] / f->med[V_CTX];
    if (has_sgl) {
        f->sgl_ratio = f->med[V_ONESHOT] / f->med[V_SGL];
        f->sgl_burst = f->med[V_BURST] / f->med[V_SGL];
    }
}

/* Bring the core to its running clock on the first point's one-shot (--warmup seconds). */
static void stream_warm_up(const struct stream_msg *s)
{
    const uint64_t t_end = now_ns() + (uint64_t)(opt.warmup * 1e9);
    struct stream_batch b = {s, V_ONESHOT};
    do {
        (void)stream_batch(&b, 8);
    } while (now_ns() < t_end);
}

static void stream_header(const char *oneshot_arch, const char *mgr_arch, FILE *csv)
{
    printf("\n== Stream: one message fed in %zu-byte pieces vs the one-shot call (mbgcm public "
           "API; 12-byte IV, %u-byte AAD, 16-byte tag, out of place) ==\n", opt.piece, opt.aad_len);
    printf("variants: oneshot = mbgcm_encrypt/decrypt of it all (arch %s); ctx = mbgcm_ctx_init, "
           "mbgcm_ctx_update per piece, final/verify;\n          sgl = one mbgcm_submit_burst job "
           "with src/dst lists of piece-sized segments (manager arch %s); burst = that job "
           "linear\n", oneshot_arch, mgr_arch);
    printf("columns: ns per message, median of %u interleaved reps (~%.3g s per variant and "
           "point); GB/s of the one-shot;\n         x/1shot = oneshot ns / x ns and sgl/burst = "
           "burst ns / sgl ns, of the medians (1.00: as fast; below 1: slower); "
           "'!': a variant's (max-min)/median > %.0f%%\n", opt.reps, opt.seconds,
           SPREAD_WARN * 100);
    printf("  %4s %3s %8s %4s %10s %6s %10s %10s %10s %9s %9s %9s\n", "bits", "dir", "bytes",
           "segs", "oneshot", "GB/s", "ctx", "sgl", "burst", "ctx/1shot", "sgl/1shot",
           "sgl/burst");
    if (csv != NULL) {
        fprintf(csv, "aes_bits,direction,bytes,piece,segments,reps,oneshot_arch,mgr_arch,"
                     "oneshot_ns,ctx_ns,sgl_ns,burst_ns,oneshot_ns_min,oneshot_ns_max,ctx_ns_min,"
                     "ctx_ns_max,sgl_ns_min,sgl_ns_max,burst_ns_min,burst_ns_max,"
                     "oneshot_gb_per_s,ctx_vs_oneshot,sgl_vs_oneshot,sgl_vs_burst,"
                     "msgs_per_rep_oneshot,msgs_per_rep_ctx,msgs_per_rep_sgl,msgs_per_rep_burst\n");
    }
}

static void stream_line(unsigned bits, int dir, size_t len, unsigned nseg, const char *oa,
                        const char *ma, const struct stream_fig *f, FILE *csv)
{
    char sgl[16] = "-", rs[16] = "-", rsb[16] = "-";
    if (f->has_sgl) {
        snprintf(sgl, sizeof sgl, "%.1f", f->med[V_SGL]);
        snprintf(rs, sizeof rs, "%.2f", f->sgl_ratio);
        snprintf(rsb, sizeof rsb, "%.2f", f->sgl_burst);
    }
    const size_t segs = (len + opt.piece - 1) / opt.piece;
    printf("  %4u %3s %8zu %4zu %10.1f %6.2f %10.1f %10s %10.1f %9.2f %9s %9s%s\n", bits,
           dir_short[dir], len, segs, f->med[V_ONESHOT], (double)len / f->med[V_ONESHOT],
           f->med[V_CTX], sgl, f->med[V_BURST], f->ctx_ratio, rs, rsb, f->warn ? " !" : "");
    if (csv == NULL) {
        return;
    }
    fprintf(csv, "%u,%s,%zu,%zu,%u,%u,%s,%s", bits, dir_short[dir], len, opt.piece, nseg,
            opt.reps, oa, ma);
    for (int v = 0; v < NV; v++) {
        if (f->n[v] != 0) {
            fprintf(csv, ",%.2f", f->med[v]);
        } else {
            fputc(',', csv);
        }
    }
    for (int v = 0; v < NV; v++) {
        if (f->n[v] != 0) {
            fprintf(csv, ",%.2f,%.2f", f->min[v], f->max[v]);
        } else {
            fputs(",,", csv);
        }
    }
    fprintf(csv, ",%.4f,%.4f,", (double)len / f->med[V_ONESHOT], f->ctx_ratio);
    if (f->has_sgl) {
        fprintf(csv, "%.4f,%.4f", f->sgl_ratio, f->sgl_burst);
    } else {
        fputc(',', csv);
    }
    for (int v = 0; v < NV; v++) {
        fprintf(csv, ",%llu", (unsigned long long)f->n[v]);
    }
    fputc('\n', csv);
}

void run_stream(FILE *csv)
{
    const int oa = mbint_oneshot_arch_default();
    if (oa < 0) {
        die("stream: MBGCM_ARCH=%s: unknown arch, or not supported on this CPU",
            getenv("MBGCM_ARCH"));
    }
    mbgcm_mgr *mgr = mbgcm_mgr_new(NULL);
    if (mgr == NULL) {
        die("stream: mbgcm_mgr_new(NULL) failed (MBGCM_ARCH=%s)",
            getenv("MBGCM_ARCH") ? getenv("MBGCM_ARCH") : "unset");
    }
    const char *oname = mbint_arch_name(oa), *mname = mbgcm_mgr_arch(mgr);
    size_t cap = 16;
    unsigned maxseg = 1;
    for (unsigned i = 0; i < opt.nstream_sizes; i++) {
        const size_t len = opt.stream_sizes[i], segs = (len + opt.piece - 1) / opt.piece;
        cap = len > cap ? len : cap;
        maxseg = segs > maxseg && segs <= MBGCM_MAX_SEGS ? (unsigned)segs : maxseg;
    }
    /* one key and one slot: each message is processed again and again, as in a stream of
       such messages */
    struct workload w;
    workload_init(&w, 1, 1, cap, opt.aad_len, STREAM_SEED);
    mbgcm_seg *seg_in = xaligned(64, maxseg * sizeof *seg_in);
    mbgcm_seg *seg_out = xaligned(64, maxseg * sizeof *seg_out);
    mbgcm_key *key = aligned_alloc(64, sizeof *key); /* keys must be 64-byte aligned */
    double *t = calloc((size_t)NV * opt.reps, sizeof *t);
    if (key == NULL || t == NULL) {
        die("out of memory");
    }
    stream_header(oname, mname, csv);
    unsigned nwarn = 0, ntarget = 0, nbelow = 0, nskipped = 0, done = 0;
    const unsigned npoints = opt.nbits * (unsigned)opt.ndirs * opt.nstream_sizes;
    int warm = 0;
    for (unsigned bi = 0; bi < opt.nbits; bi++) {
        const unsigned bits = opt.bits[bi];
        const int krc = mbgcm_key_init(key, w.m.raw[0], bits / 8);
        if (krc != MBGCM_OK) {
            die("stream: mbgcm_key_init (AES-%u): %s", bits, mbgcm_strerror(krc));
        }
        for (unsigned di = 0; di < (unsigned)opt.ndirs; di++) {
            const int dir = opt.dirs[di];
            for (unsigned si = 0; si < opt.nstream_sizes; si++) {
                const size_t len = opt.stream_sizes[si];
                const size_t segs = (len + opt.piece - 1) / opt.piece;
                const unsigned nseg = segs <= MBGCM_MAX_SEGS ? (unsigned)segs : 0;
                nskipped += nseg == 0;
                workload_point(&w, bits, len); /* the plaintext and OpenSSL's reference */
                stream_verify(&w, key, mgr, seg_in, seg_out, nseg);
                struct stream_msg s;
                stream_msg_init(&s, &w, key, mgr, dir, seg_in, seg_out, nseg);
                if (!warm) {
                    stream_warm_up(&s);
                    warm = 1;
                }
                struct stream_fig f;
                stream_measure(&s, nseg != 0, t, &f);
                stream_line(bits, dir, len, nseg, oname, mname, &f, csv);
                nwarn += (unsigned)f.warn;
                ntarget += 1 + (unsigned)f.has_sgl;
                nbelow += (f.ctx_ratio < STREAM_TARGET) +
                          (f.has_sgl && f.sgl_ratio < STREAM_TARGET);
                progress("stream [%u/%u] AES-%u %s %zu B: oneshot %.0f ctx %.0f sgl %.0f burst "
                         "%.0f ns\n", ++done, npoints, bits, dir_short[dir], len,
                         f.med[V_ONESHOT], f.med[V_CTX], f.med[V_SGL], f.med[V_BURST]);
            }
        }
    }
    if (nskipped) {
        printf("note: sgl not run ('-') where a message has more than MBGCM_MAX_SEGS (%d) "
               "pieces: use a larger --piece\n", MBGCM_MAX_SEGS);
    }
    if (nwarn) {
        printf("warning: %u line(s) marked '!' vary by more than %.0f%% between repetitions\n",
               nwarn, SPREAD_WARN * 100);
    }
    if (opt.piece == STREAM_TARGET_PIECE) {
        printf("target: ctx/1shot and sgl/1shot >= %.2f with 16 KiB pieces; this run: %u of %u "
               "ratios below\n", STREAM_TARGET, nbelow, ntarget);
    } else {
        printf("target: ctx/1shot and sgl/1shot >= %.2f with 16 KiB pieces (this run used "
               "%zu-byte pieces: --piece 16384 to compare)\n", STREAM_TARGET, opt.piece);
    }
    mbgcm_key_wipe(key);
    free(key);
    free(t);
    free(seg_in);
    free(seg_out);
    mbgcm_mgr_free(mgr);
    workload_free(&w);
}
