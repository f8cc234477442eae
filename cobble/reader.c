/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reader.c — random access to a sealed message in memory.
 *
 * Plaintext byte p is in chunk p / 16384 at p % 16384; chunk k starts at sealed offset
 * 56 + 16400 k. A read decrypts exactly the chunks its range touches: the chunks it covers
 * completely go straight into the caller's buffer as one run (threads help on long ranges);
 * a chunk covered only in part (at most the first and the last) is decrypted whole into the
 * reader's scratch chunk and the wanted bytes copied out, because a GCM tag covers the whole
 * chunk. The final chunk is the one after the last whole 16400-byte chunk, when at least 16
 * bytes are there; reader_size authenticates it before it reports a length.
 */
#include "cobble_internal.h"

struct mbgcm_cobble_reader {
    struct mbgcmi_cob_keys keys; /* first: 64-byte aligned object */
    struct mbgcmi_cob_pool *pool;
    const uint8_t *body; /* the sealed message after the header */
    size_t body_len;
    size_t nfull;      /* whole 16400-byte slots */
    size_t rem;        /* bytes after them */
    int has_final;     /* rem >= 16: chunk nfull is the final chunk */
    int size_ok;       /* the final chunk authenticated */
    uint64_t readable; /* plaintext bytes present (unauthenticated length) */
    uint8_t scratch[MBGCMI_COB_CHUNK];
};

int mbgcm_cobble_reader_new(mbgcm_cobble_reader **out_r, const uint8_t *key, size_t key_len,
                            const uint8_t *context, size_t context_len, const uint8_t *in,
                            size_t in_len, const mbgcm_cobble_opts *opts)
{
    if (out_r != NULL) {
        *out_r = NULL;
    }
    if (key_len != 16 && key_len != 32) {
        return MBGCM_ERR_KEY_LEN;
    }
    if (out_r == NULL || key == NULL || (context_len && !context) || (in_len && !in) ||
        !mbgcmi_cob_opts_ok(opts)) {
        return MBGCM_ERR_INVALID;
    }
    if (in_len < MBGCMI_COB_HDR) {
        return MBGCM_ERR_TRUNCATED;
    }
    size_t nfull, rem;
    mbgcmi_cob_split(in_len - MBGCMI_COB_HDR, &nfull, &rem);
    if ((uint64_t)nfull + (rem >= MBGCMI_COB_TAG) > MBGCM_COBBLE_MAX_CHUNKS) {
        return MBGCM_ERR_LEN;
    }
    mbgcm_cobble_reader *r = mbgcmi_cob_alloc(sizeof *r);
    if (r == NULL) {
        return MBGCM_ERR_NOMEM;
    }
    memset(r, 0, sizeof *r);
    uint8_t commit[MBGCMI_COB_COMMIT];
    int st = mbgcmi_cob_setup(&r->keys, key, key_len, in, context, context_len, commit);
    if (st == MBGCM_OK && !mbgcmi_cob_equal(commit, in + MBGCMI_COB_SALT, sizeof commit)) {
        st = MBGCM_ERR_COMMITMENT;
    }
    mbgcmi_cob_wipe(commit, sizeof commit);
    if (st == MBGCM_OK) {
        st = mbgcmi_cob_pool_new(&r->pool, opts, (uint64_t)nfull + 1);
    }
    if (st != MBGCM_OK) {
        mbgcm_cobble_reader_free(r);
        return st;
    }
    r->body = in + MBGCMI_COB_HDR;
    r->body_len = in_len - MBGCMI_COB_HDR;
    r->nfull = nfull;
    r->rem = rem;
    r->has_final = rem >= MBGCMI_COB_TAG;
    r->readable = (uint64_t)nfull * MBGCMI_COB_CHUNK + (r->has_final ? rem - MBGCMI_COB_TAG : 0);
    *out_r = r;
    return MBGCM_OK;
}

/* plaintext length of chunk k (k <= nfull, and k == nfull only with a final chunk) */
static size_t chunk_pt_len(const mbgcm_cobble_reader *r, uint64_t k)
{
    return k < r->nfull ? MBGCMI_COB_CHUNK : r->rem - MBGCMI_COB_TAG;
}

static const uint8_t *chunk_at(const mbgcm_cobble_reader *r, uint64_t k)
{
    return r->body + (size_t)k * MBGCMI_COB_SCHUNK;
}

/* Classify a failure of chunk k (MBGCM_ERR_AUTH from the run) or pass other statuses on. */
static int chunk_failure(const mbgcm_cobble_reader *r, int st, uint64_t k)
{
    if (st != MBGCM_ERR_AUTH) {
        return st;
    }
    const size_t len = k < r->nfull ? MBGCMI_COB_SCHUNK : r->rem;
    return mbgcmi_cob_classify(&r->keys, k, chunk_at(r, k), len);
}

/* Decrypt chunk k whole into the scratch chunk; copy |n| bytes from offset |off| to |out|. */
static int read_part(mbgcm_cobble_reader *r, uint64_t k, size_t off, size_t n, uint8_t *out)
{
    const struct mbgcmi_cob_run run = {.dir = MBGCM_DECRYPT,
                                       .index0 = k,
                                       .n = 1,
                                       .src = chunk_at(r, k),
                                       .dst = r->scratch,
                                       .last_len = chunk_pt_len(r, k)};
    size_t bad;
    int st = mbgcmi_cob_pool_run(r->pool, &r->keys, &run, &bad);
    if (st == MBGCM_OK && n) {
        memcpy(out, r->scratch + off, n);
    }
    mbgcmi_cob_wipe(r->scratch, sizeof r->scratch);
    return st == MBGCM_OK ? st : chunk_failure(r, st, k);
}

int mbgcm_cobble_reader_size(mbgcm_cobble_reader *r, uint64_t *out_size)
{
    if (r == NULL || out_size == NULL) {
        return MBGCM_ERR_INVALID;
    }
    if (!r->has_final) {
        return MBGCM_ERR_TRUNCATED;
    }
    if (!r->size_ok) {
        const int st = read_part(r, r->nfull, 0, 0, NULL);
        if (st != MBGCM_OK) {
            return st;
        }
        r->size_ok = 1;
    }
    *out_size = r->readable;
    return MBGCM_OK;
}

int mbgcm_cobble_reader_read(mbgcm_cobble_reader *r, uint8_t *out, uint64_t offset, size_t len)
{
    if (r == NULL || (len && out == NULL)) {
        return MBGCM_ERR_INVALID;
    }
    if (offset > r->readable || len > r->readable - offset) {
        return MBGCM_ERR_RANGE;
    }
    if (len == 0) {
        return MBGCM_OK;
    }
    if (mbgcmi_cob_overlap(out, len, r->body, r->body_len)) {
        return MBGCM_ERR_INVALID;
    }
    const uint64_t end = offset + len;
    const uint64_t k0 = offset / MBGCMI_COB_CHUNK, k1 = (end - 1) / MBGCMI_COB_CHUNK;
    int st = MBGCM_OK;
    uint64_t a = k0, b = k1 + 1; /* chunks [a, b) are covered whole */
    if (offset % MBGCMI_COB_CHUNK != 0 || end < k0 * MBGCMI_COB_CHUNK + chunk_pt_len(r, k0)) {
        /* first chunk in part */
        const size_t off = (size_t)(offset - k0 * MBGCMI_COB_CHUNK);
        const size_t clen = chunk_pt_len(r, k0);
        const size_t n = (size_t)(end - offset) < clen - off ? (size_t)(end - offset) : clen - off;
        st = read_part(r, k0, off, n, out);
        a = k0 + 1;
    }
    if (st == MBGCM_OK && k1 >= a && end < k1 * MBGCMI_COB_CHUNK + chunk_pt_len(r, k1)) {
        /* last chunk in part (a different one from the first) */
        const size_t n = (size_t)(end - k1 * MBGCMI_COB_CHUNK);
        st = read_part(r, k1, 0, n, out + (size_t)(k1 * MBGCMI_COB_CHUNK - offset));
        b = k1;
    }
    if (st == MBGCM_OK && b > a) {
        const struct mbgcmi_cob_run run = {
            .dir = MBGCM_DECRYPT,
            .index0 = a,
            .n = (size_t)(b - a),
            .src = chunk_at(r, a),
            .src_stride = MBGCMI_COB_SCHUNK,
            .dst = out + (size_t)(a * MBGCMI_COB_CHUNK - offset),
            .dst_stride = MBGCMI_COB_CHUNK,
            .last_len = chunk_pt_len(r, b - 1),
        };
        size_t bad = 0;
        st = mbgcmi_cob_pool_run(r->pool, &r->keys, &run, &bad);
        if (st != MBGCM_OK) {
            st = chunk_failure(r, st, a + bad);
        }
    }
    if (st != MBGCM_OK) {
        mbgcmi_cob_wipe(out, len);
    }
    return st;
}

void mbgcm_cobble_reader_free(mbgcm_cobble_reader *r)
{
    if (r == NULL) {
        return;
    }
    mbgcmi_cob_pool_free(r->pool);
    mbgcmi_cob_keys_wipe(&r->keys);
    mbgcmi_cob_wipe(r, sizeof *r);
    mbgcmi_cob_free(r, sizeof *r);
}
