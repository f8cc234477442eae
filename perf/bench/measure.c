/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * measure.c — batches, calibration and the reference check (measure.h).
 */
#include "measure.h"

double time_batch(struct engine *e, const struct workload *w, int dir, uint64_t n,
                  unsigned *pos)
{
    const uint64_t t0 = run_ns();
    const unsigned bad = engine_run(e, &w->m, dir, n, pos);
    const uint64_t dt = run_ns() - t0;
    if (bad) {
        char sz[24];
        die("%s: %u of %llu %s calls failed (%u-bit, %s bytes)", e->name, bad,
            (unsigned long long)n, dir_name[dir], w->m.bits, size_str(w->size, sz, sizeof sz));
    }
    return (double)dt;
}

uint64_t calibrate_batches(double (*batch)(void *ctx, uint64_t n), void *ctx, double target_ns)
{
    uint64_t n = 1;
    for (;;) {
        const double dt = batch(ctx, n);
        if (dt >= target_ns / 4 || n >= (UINT64_C(1) << 40)) {
            /* one more batch at the predicted size, then the final estimate */
            uint64_t m = (uint64_t)(target_ns / (dt / (double)n));
            m = m ? m : 1;
            const double dt2 = batch(ctx, m);
            m = (uint64_t)(target_ns / (dt2 / (double)m));
            return m ? m : 1;
        }
        n = dt < target_ns / 64 ? n * 8 : n * 2;
    }
}

/* An engine's batches, for calibrate_batches. */
struct engine_batch {
    struct engine *e;
    const struct workload *w;
    int dir;
    unsigned *pos;
};

static double engine_batch(void *ctx, uint64_t n)
{
    struct engine_batch *b = ctx;
    return time_batch(b->e, b->w, b->dir, n, b->pos);
}

uint64_t calibrate(struct engine *e, const struct workload *w, int dir, double target_ns,
                   unsigned *pos)
{
    struct engine_batch b = {e, w, dir, pos};
    return calibrate_batches(engine_batch, &b, target_ns);
}

static void verify_encrypt(struct engine *e, struct workload *w, const char *sz)
{
    const struct bench_msgs *m = &w->m;
    unsigned pos = 0;
    for (unsigned j = 0; j < m->nslots; j++) {
        memset(m->out[j], 0xa5, m->len[j]);
        memset(m->otag[j], 0xa5, BENCH_TAG_LEN);
    }
    if (engine_run(e, m, DIR_ENC, m->nslots, &pos) != 0) {
        die("%s: encrypt failed (%u-bit, %s bytes, %u keys)", e->name, m->bits, sz, m->nkeys);
    }
    for (unsigned j = 0; j < m->nslots; j++) {
        if (memcmp(m->out[j], m->ct[j], m->len[j]) != 0 ||
            memcmp(m->otag[j], m->tag[j], BENCH_TAG_LEN) != 0) {
            die("%s: encrypt output differs from OpenSSL's reference (%u-bit, %s bytes, "
                "%u keys, slot %u)", e->name, m->bits, sz, m->nkeys, j);
        }
    }
}

static void verify_decrypt(struct engine *e, struct workload *w, const char *sz)
{
    const struct bench_msgs *m = &w->m;
    unsigned pos = 0;
    for (unsigned j = 0; j < m->nslots; j++) {
        memset(m->out[j], 0xa5, m->len[j]);
    }
    if (engine_run(e, m, DIR_DEC, m->nslots, &pos) != 0) {
        die("%s: decrypt rejected a valid message (%u-bit, %s bytes, %u keys)", e->name,
            m->bits, sz, m->nkeys);
    }
    for (unsigned j = 0; j < m->nslots; j++) {
        if (memcmp(m->out[j], m->pt[j], m->len[j]) != 0) {
            die("%s: decrypt output differs from the plaintext (%u-bit, %s bytes, %u keys, "
                "slot %u)", e->name, m->bits, sz, m->nkeys, j);
        }
    }
}

void verify(struct engine *e, struct workload *w)
{
    char sz[24];
    size_str(w->size, sz, sizeof sz);
    verify_encrypt(e, w, sz);
    verify_decrypt(e, w, sz);
}

void engine_prepare(struct engine *e, struct workload *w)
{
    engine_setup(e, &w->m);
    verify(e, w);
}
