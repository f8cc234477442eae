/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stream.c — streaming seal and open (push design).
 *
 * Each object buffers at most one chunk: 16384 plaintext bytes (sealer) or 16400 sealed bytes
 * (opener). An update first completes the buffered chunk, if the input allows, then runs every
 * whole chunk of the input straight from the caller's buffer into the caller's output as one
 * run (bursts through the manager; split over the object's threads when large), and keeps the
 * tail. A full-size chunk is never the final one (the final chunk is always shorter), so the
 * opener checks and releases it at once; finish takes what is left as the final chunk.
 *
 * Failures are sticky: the first error other than an argument error (AUTH, TRAILING,
 * TRUNCATED, LEN) is stored and returned by every later update and finish.
 */
#include "cobble_internal.h"

struct mbgcm_cobble_sealer {
    struct mbgcmi_cob_keys keys; /* first: the object is 64-byte aligned */
    struct mbgcmi_cob_pool *pool;
    uint64_t next;   /* index of the next chunk */
    size_t buffered; /* plaintext bytes in buf */
    int status;      /* sticky failure (MBGCM_OK while healthy) */
    int finished;
    uint8_t buf[MBGCMI_COB_CHUNK];
};

struct mbgcm_cobble_opener {
    struct mbgcmi_cob_keys keys;
    struct mbgcmi_cob_pool *pool;
    uint64_t next;
    size_t buffered; /* sealed bytes in buf */
    int status;
    int finished;
    int failed_set;
    uint64_t failed_chunk;
    uint8_t buf[MBGCMI_COB_SCHUNK];
};

static void *alloc64(size_t n)
{
    void *p = mbgcmi_cob_alloc(n);
    if (p != NULL) {
        memset(p, 0, n);
    }
    return p;
}

static int in_out_ok(const uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len)
{
    return !(out_len && in_len && mbgcmi_cob_overlap(in, in_len, out, out_len));
}

/* ---- sealer -------------------------------------------------------------------------------------
 */

int mbgcm_cobble_sealer_new(mbgcm_cobble_sealer **out_s,
                            uint8_t out_header[MBGCM_COBBLE_HEADER_LEN], const uint8_t *key,
                            size_t key_len, const uint8_t *context, size_t context_len,
                            const mbgcm_cobble_opts *opts)
{
    if (out_s != NULL) {
        *out_s = NULL;
    }
    if (key_len != 16 && key_len != 32) {
        return MBGCM_ERR_KEY_LEN;
    }
    if (out_s == NULL || out_header == NULL || key == NULL || (context_len && !context) ||
        !mbgcmi_cob_opts_ok(opts)) {
        return MBGCM_ERR_INVALID;
    }
    mbgcm_cobble_sealer *s = alloc64(sizeof *s);
    if (s == NULL) {
        return MBGCM_ERR_NOMEM;
    }
    uint8_t salt[MBGCMI_COB_SALT], commit[MBGCMI_COB_COMMIT];
    int st = mbgcmi_cob_pool_new(&s->pool, opts, 0);
    if (st == MBGCM_OK && (st = mbgcmi_cob_salt(salt)) == MBGCM_OK) {
        st = mbgcmi_cob_setup(&s->keys, key, key_len, salt, context, context_len, commit);
    }
    if (st != MBGCM_OK) {
        mbgcm_cobble_sealer_free(s);
        return st;
    }
    memcpy(out_header, salt, MBGCMI_COB_SALT);
    memcpy(out_header + MBGCMI_COB_SALT, commit, MBGCMI_COB_COMMIT);
    *out_s = s;
    return MBGCM_OK;
}

int mbgcm_cobble_sealer_update(mbgcm_cobble_sealer *s, uint8_t *out, size_t *out_len,
                               size_t max_out_len, const uint8_t *in, size_t in_len)
{
    if (s == NULL || out_len == NULL || (in_len && in == NULL) || (max_out_len && !out) ||
        s->finished) {
        return MBGCM_ERR_INVALID;
    }
    if (s->status != MBGCM_OK) {
        return s->status;
    }
    if (in_len > SIZE_MAX - MBGCMI_COB_CHUNK) {
        return MBGCM_ERR_LEN;
    }
    size_t n = (s->buffered + in_len) / MBGCMI_COB_CHUNK;
    if (n > SIZE_MAX / MBGCMI_COB_SCHUNK) {
        return MBGCM_ERR_LEN;
    }
    const size_t need = n * MBGCMI_COB_SCHUNK;
    if (max_out_len < need) {
        return MBGCM_ERR_OUT_SPACE;
    }
    if (!in_out_ok(out, need, in, in_len)) {
        return MBGCM_ERR_INVALID;
    }
    /* these n chunks and the final one after them must all have indices below 2^38 */
    if ((uint64_t)n >= MBGCM_COBBLE_MAX_CHUNKS - s->next) {
        s->status = MBGCM_ERR_LEN;
        return s->status;
    }
    size_t used = 0, bad;
    uint8_t *o = out;
    int st = MBGCM_OK;
    if (n > 0 && s->buffered > 0) {
        used = MBGCMI_COB_CHUNK - s->buffered;
        memcpy(s->buf + s->buffered, in, used);
        const struct mbgcmi_cob_run r = {.dir = MBGCM_ENCRYPT,
                                         .index0 = s->next,
                                         .n = 1,
                                         .src = s->buf,
                                         .dst = o,
                                         .last_len = MBGCMI_COB_CHUNK};
        st = mbgcmi_cob_pool_run(s->pool, &s->keys, &r, &bad);
        s->buffered = 0;
        s->next++;
        o += MBGCMI_COB_SCHUNK;
        n--;
    }
    if (n > 0 && st == MBGCM_OK) {
        const struct mbgcmi_cob_run r = {.dir = MBGCM_ENCRYPT,
                                         .index0 = s->next,
                                         .n = n,
                                         .src = in + used,
                                         .src_stride = MBGCMI_COB_CHUNK,
                                         .dst = o,
                                         .dst_stride = MBGCMI_COB_SCHUNK,
                                         .last_len = MBGCMI_COB_CHUNK};
        st = mbgcmi_cob_pool_run(s->pool, &s->keys, &r, &bad);
        used += n * MBGCMI_COB_CHUNK;
        s->next += n;
    }
    if (st != MBGCM_OK) { /* not reached with valid arguments */
        mbgcmi_cob_wipe(out, need);
        s->status = st;
        return st;
    }
    if (in_len > used) {
        memcpy(s->buf + s->buffered, in + used, in_len - used);
        s->buffered += in_len - used;
    }
    *out_len = need;
    return MBGCM_OK;
}

int mbgcm_cobble_sealer_finish(mbgcm_cobble_sealer *s, uint8_t *out, size_t *out_len,
                               size_t max_out_len)
{
    if (s == NULL || out_len == NULL || (max_out_len && !out) || s->finished) {
        return MBGCM_ERR_INVALID;
    }
    if (s->status != MBGCM_OK) {
        return s->status;
    }
    const size_t need = s->buffered + MBGCMI_COB_TAG;
    if (max_out_len < need) {
        return MBGCM_ERR_OUT_SPACE;
    }
    const struct mbgcmi_cob_run r = {.dir = MBGCM_ENCRYPT,
                                     .index0 = s->next,
                                     .n = 1,
                                     .src = s->buf,
                                     .dst = out,
                                     .last_len = s->buffered};
    size_t bad;
    const int st = mbgcmi_cob_pool_run(s->pool, &s->keys, &r, &bad);
    mbgcmi_cob_wipe(s->buf, sizeof s->buf);
    s->buffered = 0;
    s->finished = 1;
    if (st != MBGCM_OK) {
        mbgcmi_cob_wipe(out, need);
        s->status = st;
        return st;
    }
    mbgcmi_cob_keys_wipe(&s->keys);
    *out_len = need;
    return MBGCM_OK;
}

void mbgcm_cobble_sealer_free(mbgcm_cobble_sealer *s)
{
    if (s == NULL) {
        return;
    }
    mbgcmi_cob_pool_free(s->pool);
    mbgcmi_cob_keys_wipe(&s->keys);
    mbgcmi_cob_wipe(s, sizeof *s);
    mbgcmi_cob_free(s, sizeof *s);
}

void mbgcmi_cob_sealer_set_index(mbgcm_cobble_sealer *s, uint64_t index)
{
    s->next = index;
}

/* ---- opener -------------------------------------------------------------------------------------
 */

int mbgcm_cobble_opener_new(mbgcm_cobble_opener **out_o, const uint8_t *key, size_t key_len,
                            const uint8_t *context, size_t context_len, const uint8_t *header,
                            size_t header_len, const mbgcm_cobble_opts *opts)
{
    if (out_o != NULL) {
        *out_o = NULL;
    }
    if (key_len != 16 && key_len != 32) {
        return MBGCM_ERR_KEY_LEN;
    }
    if (out_o == NULL || key == NULL || (context_len && !context) ||
        (header_len && header == NULL) || header_len > MBGCMI_COB_HDR ||
        !mbgcmi_cob_opts_ok(opts)) {
        return MBGCM_ERR_INVALID;
    }
    if (header_len < MBGCMI_COB_HDR) {
        return MBGCM_ERR_TRUNCATED;
    }
    mbgcm_cobble_opener *o = alloc64(sizeof *o);
    if (o == NULL) {
        return MBGCM_ERR_NOMEM;
    }
    uint8_t commit[MBGCMI_COB_COMMIT];
    int st = mbgcmi_cob_setup(&o->keys, key, key_len, header, context, context_len, commit);
    if (st == MBGCM_OK && !mbgcmi_cob_equal(commit, header + MBGCMI_COB_SALT, sizeof commit)) {
        st = MBGCM_ERR_COMMITMENT;
    }
    mbgcmi_cob_wipe(commit, sizeof commit);
    if (st == MBGCM_OK) {
        st = mbgcmi_cob_pool_new(&o->pool, opts, 0);
    }
    if (st != MBGCM_OK) {
        mbgcm_cobble_opener_free(o);
        return st;
    }
    *out_o = o;
    return MBGCM_OK;
}

/* Record the failure of chunk |index| (sealed bytes region[0 .. len)) and make it sticky. */
static int opener_fail(mbgcm_cobble_opener *o, int st, uint64_t index, const uint8_t *region,
                       size_t len)
{
    if (st == MBGCM_ERR_AUTH) {
        st = mbgcmi_cob_classify(&o->keys, index, region, len);
        o->failed_set = 1;
        o->failed_chunk = index;
    }
    o->status = st;
    return st;
}

int mbgcm_cobble_opener_update(mbgcm_cobble_opener *o, uint8_t *out, size_t *out_len,
                               size_t max_out_len, const uint8_t *in, size_t in_len)
{
    if (o == NULL || out_len == NULL || (in_len && in == NULL) || (max_out_len && !out) ||
        o->finished) {
        return MBGCM_ERR_INVALID;
    }
    if (o->status != MBGCM_OK) {
        return o->status;
    }
    if (in_len > SIZE_MAX - MBGCMI_COB_SCHUNK) {
        return MBGCM_ERR_LEN;
    }
    size_t n = (o->buffered + in_len) / MBGCMI_COB_SCHUNK;
    const size_t need = n * MBGCMI_COB_CHUNK;
    if (max_out_len < need) {
        return MBGCM_ERR_OUT_SPACE;
    }
    if (!in_out_ok(out, need, in, in_len)) {
        return MBGCM_ERR_INVALID;
    }
    if ((uint64_t)n >= MBGCM_COBBLE_MAX_CHUNKS - o->next) {
        o->status = MBGCM_ERR_LEN;
        return o->status;
    }
    *out_len = 0;
    size_t used = 0, bad = 0;
    uint8_t *p = out;
    if (n > 0 && o->buffered > 0) {
        used = MBGCMI_COB_SCHUNK - o->buffered;
        memcpy(o->buf + o->buffered, in, used);
        const struct mbgcmi_cob_run r = {.dir = MBGCM_DECRYPT,
                                         .index0 = o->next,
                                         .n = 1,
                                         .src = o->buf,
                                         .dst = p,
                                         .last_len = MBGCMI_COB_CHUNK};
        const int st = mbgcmi_cob_pool_run(o->pool, &o->keys, &r, &bad);
        if (st != MBGCM_OK) {
            mbgcmi_cob_wipe(out, need);
            return opener_fail(o, st, o->next, o->buf, MBGCMI_COB_SCHUNK);
        }
        o->buffered = 0;
        o->next++;
        p += MBGCMI_COB_CHUNK;
        n--;
    }
    if (n > 0) {
        const struct mbgcmi_cob_run r = {.dir = MBGCM_DECRYPT,
                                         .index0 = o->next,
                                         .n = n,
                                         .src = in + used,
                                         .src_stride = MBGCMI_COB_SCHUNK,
                                         .dst = p,
                                         .dst_stride = MBGCMI_COB_CHUNK,
                                         .last_len = MBGCMI_COB_CHUNK};
        const int st = mbgcmi_cob_pool_run(o->pool, &o->keys, &r, &bad);
        if (st != MBGCM_OK) {
            mbgcmi_cob_wipe(out, need);
            return opener_fail(o, st, o->next + bad, in + used + bad * MBGCMI_COB_SCHUNK,
                               MBGCMI_COB_SCHUNK);
        }
        used += n * MBGCMI_COB_SCHUNK;
        o->next += n;
    }
    if (in_len > used) {
        memcpy(o->buf + o->buffered, in + used, in_len - used);
        o->buffered += in_len - used;
    }
    *out_len = need;
    return MBGCM_OK;
}

int mbgcm_cobble_opener_finish(mbgcm_cobble_opener *o, uint8_t *out, size_t *out_len,
                               size_t max_out_len)
{
    if (o == NULL || out_len == NULL || (max_out_len && !out) || o->finished) {
        return MBGCM_ERR_INVALID;
    }
    if (o->status != MBGCM_OK) {
        return o->status;
    }
    *out_len = 0;
    if (o->buffered < MBGCMI_COB_TAG) {
        o->status = MBGCM_ERR_TRUNCATED;
        return o->status;
    }
    const size_t need = o->buffered - MBGCMI_COB_TAG;
    if (max_out_len < need) {
        return MBGCM_ERR_OUT_SPACE;
    }
    const struct mbgcmi_cob_run r = {.dir = MBGCM_DECRYPT,
                                     .index0 = o->next,
                                     .n = 1,
                                     .src = o->buf,
                                     .dst = out,
                                     .last_len = need};
    size_t bad;
    const int st = mbgcmi_cob_pool_run(o->pool, &o->keys, &r, &bad);
    if (st != MBGCM_OK) {
        mbgcmi_cob_wipe(out, need);
        return opener_fail(o, st, o->next, o->buf, o->buffered);
    }
    mbgcmi_cob_wipe(o->buf, sizeof o->buf);
    o->buffered = 0;
    o->finished = 1;
    mbgcmi_cob_keys_wipe(&o->keys);
    *out_len = need;
    return MBGCM_OK;
}

int mbgcm_cobble_opener_failed_chunk(const mbgcm_cobble_opener *o, uint64_t *out_index)
{
    if (o == NULL || out_index == NULL || !o->failed_set) {
        return MBGCM_ERR_INVALID;
    }
    *out_index = o->failed_chunk;
    return MBGCM_OK;
}

void mbgcm_cobble_opener_free(mbgcm_cobble_opener *o)
{
    if (o == NULL) {
        return;
    }
    mbgcmi_cob_pool_free(o->pool);
    mbgcmi_cob_keys_wipe(&o->keys);
    mbgcmi_cob_wipe(o, sizeof *o);
    mbgcmi_cob_free(o, sizeof *o);
}

void mbgcmi_cob_opener_set_index(mbgcm_cobble_opener *o, uint64_t index)
{
    o->next = index;
}
