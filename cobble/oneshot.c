/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * oneshot.c — whole-buffer Cobblestone calls: lengths, seal, open, and raw mode (hazmat).
 *
 * Seal: salt, keys, header, then one run of every chunk (split over threads when asked).
 * Open: argument checks, header length, output room, commitment (constant time) before any
 * chunk, the length structure, then one run of every chunk; on any failure the output written
 * so far is zeroed and the first failing chunk is classified (diag.c).
 */
#include "cobble_internal.h"

static void free_keys(struct mbgcmi_cob_keys *k)
{
    mbgcmi_cob_keys_wipe(k);
    mbgcmi_cob_wipe(k, sizeof *k);
    mbgcmi_cob_free(k, sizeof *k);
}

int mbgcm_cobble_sealed_len(size_t pt_len, size_t *out_len)
{
    if (out_len == NULL) {
        return MBGCM_ERR_INVALID;
    }
    const uint64_t chunks = (uint64_t)(pt_len / MBGCMI_COB_CHUNK) + 1;
    if (chunks > MBGCM_COBBLE_MAX_CHUNKS) {
        return MBGCM_ERR_LEN;
    }
    const size_t extra = MBGCMI_COB_HDR + (size_t)chunks * MBGCMI_COB_TAG;
    if (pt_len > SIZE_MAX - extra) {
        return MBGCM_ERR_LEN;
    }
    *out_len = pt_len + extra;
    return MBGCM_OK;
}

/* Plaintext length of a raw body of |body| bytes: MBGCM_OK, _TRUNCATED or _LEN. */
static int body_pt_len(size_t body, size_t *pt)
{
    size_t nfull, rem;
    mbgcmi_cob_split(body, &nfull, &rem);
    if ((uint64_t)nfull + 1 > MBGCM_COBBLE_MAX_CHUNKS) {
        return MBGCM_ERR_LEN;
    }
    if (rem < MBGCMI_COB_TAG) {
        return MBGCM_ERR_TRUNCATED;
    }
    *pt = nfull * MBGCMI_COB_CHUNK + (rem - MBGCMI_COB_TAG);
    return MBGCM_OK;
}

int mbgcm_cobble_opened_len(size_t ct_len, size_t *out_len)
{
    if (out_len == NULL) {
        return MBGCM_ERR_INVALID;
    }
    if (ct_len < MBGCMI_COB_HDR) {
        return MBGCM_ERR_TRUNCATED;
    }
    return body_pt_len(ct_len - MBGCMI_COB_HDR, out_len);
}

/* ---- shared seal/open cores over a body (no header) -------------------------------------------
 */

static int seal_body(struct mbgcmi_cob_pool *pool, const struct mbgcmi_cob_keys *k, uint8_t *body,
                     const uint8_t *in, size_t in_len)
{
    struct mbgcmi_cob_run r = {
        .dir = MBGCM_ENCRYPT,
        .index0 = 0,
        .n = in_len / MBGCMI_COB_CHUNK + 1,
        .src = in,
        .src_stride = MBGCMI_COB_CHUNK,
        .dst = body,
        .dst_stride = MBGCMI_COB_SCHUNK,
        .last_len = in_len % MBGCMI_COB_CHUNK,
    };
    size_t bad;
    return mbgcmi_cob_pool_run(pool, k, &r, &bad);
}

/* Open a body of |body_len| bytes whose structure may be broken. *pt_len is the plaintext
   length when the structure is sound. On failure out[0 .. pt_len) is zero. */
static int open_body(struct mbgcmi_cob_pool *pool, const struct mbgcmi_cob_keys *k, uint8_t *out,
                     const uint8_t *body, size_t body_len, size_t pt_len)
{
    size_t nfull, rem;
    mbgcmi_cob_split(body_len, &nfull, &rem);
    if (rem < MBGCMI_COB_TAG) {
        /* No final chunk. Appended bytes can make this shape too: when the last whole
           chunk is an authentic final chunk plus extra bytes, say so. */
        if (nfull == 0) {
            return MBGCM_ERR_TRUNCATED;
        }
        const uint8_t *last = body + (nfull - 1) * MBGCMI_COB_SCHUNK;
        uint8_t *scratch = mbgcmi_cob_alloc(MBGCMI_COB_CHUNK);
        if (scratch == NULL) {
            return MBGCM_ERR_NOMEM;
        }
        const struct mbgcmi_cob_run r = {
            .dir = MBGCM_DECRYPT,
            .index0 = nfull - 1,
            .n = 1,
            .src = last,
            .dst = scratch,
            .last_len = MBGCMI_COB_CHUNK,
        };
        size_t bad;
        const int st = mbgcmi_cob_pool_run(pool, k, &r, &bad);
        mbgcmi_cob_wipe(scratch, MBGCMI_COB_CHUNK);
        mbgcmi_cob_free(scratch, MBGCMI_COB_CHUNK);
        if (st == MBGCM_ERR_AUTH && mbgcmi_cob_classify(k, nfull - 1, last,
                                                        MBGCMI_COB_SCHUNK) == MBGCM_ERR_TRAILING) {
            return MBGCM_ERR_TRAILING;
        }
        return st == MBGCM_OK || st == MBGCM_ERR_AUTH ? MBGCM_ERR_TRUNCATED : st;
    }
    struct mbgcmi_cob_run r = {
        .dir = MBGCM_DECRYPT,
        .index0 = 0,
        .n = nfull + 1,
        .src = body,
        .src_stride = MBGCMI_COB_SCHUNK,
        .dst = out,
        .dst_stride = MBGCMI_COB_CHUNK,
        .last_len = rem - MBGCMI_COB_TAG,
    };
    size_t bad = 0;
    int st = mbgcmi_cob_pool_run(pool, k, &r, &bad);
    if (st != MBGCM_OK) {
        mbgcmi_cob_wipe(out, pt_len);
        if (st == MBGCM_ERR_AUTH) {
            const size_t rlen = bad == nfull ? rem : MBGCMI_COB_SCHUNK;
            st = mbgcmi_cob_classify(k, bad, body + bad * MBGCMI_COB_SCHUNK, rlen);
        }
    }
    return st;
}

/* Common argument checks: key length, NULLs, opts. */
static int check_common(const uint8_t *out, const size_t *out_len, const uint8_t *key,
                        size_t key_len, const uint8_t *in, size_t in_len,
                        const mbgcm_cobble_opts *opts)
{
    if (key_len != 16 && key_len != 32) {
        return MBGCM_ERR_KEY_LEN;
    }
    if (out == NULL || out_len == NULL || key == NULL || (in_len && in == NULL) ||
        !mbgcmi_cob_opts_ok(opts)) {
        return MBGCM_ERR_INVALID;
    }
    return MBGCM_OK;
}

static int overlaps(const void *a, size_t alen, const void *b, size_t blen)
{
    return alen && blen && mbgcmi_cob_overlap(a, alen, b, blen);
}

/* ---- sealed messages ----------------------------------------------------------------------------
 */

int mbgcm_cobble_seal(uint8_t *out, size_t *out_len, size_t max_out_len, const uint8_t *key,
                      size_t key_len, const uint8_t *context, size_t context_len, const uint8_t *in,
                      size_t in_len, const mbgcm_cobble_opts *opts)
{
    int st = check_common(out, out_len, key, key_len, in, in_len, opts);
    if (st != MBGCM_OK) {
        return st;
    }
    if (context_len && context == NULL) {
        return MBGCM_ERR_INVALID;
    }
    size_t need;
    st = mbgcm_cobble_sealed_len(in_len, &need);
    if (st != MBGCM_OK) {
        return st;
    }
    if (max_out_len < need) {
        return MBGCM_ERR_OUT_SPACE;
    }
    if (overlaps(in, in_len, out, need)) {
        return MBGCM_ERR_INVALID;
    }
    struct mbgcmi_cob_pool *pool;
    st = mbgcmi_cob_pool_new(&pool, opts, in_len / MBGCMI_COB_CHUNK + 1);
    if (st != MBGCM_OK) {
        return st;
    }
    struct mbgcmi_cob_keys *k = mbgcmi_cob_alloc(sizeof *k);
    uint8_t salt[MBGCMI_COB_SALT], commit[MBGCMI_COB_COMMIT];
    if (k == NULL) {
        st = MBGCM_ERR_NOMEM;
    } else if ((st = mbgcmi_cob_salt(salt)) == MBGCM_OK &&
               (st = mbgcmi_cob_setup(k, key, key_len, salt, context, context_len, commit)) ==
                   MBGCM_OK) {
        memcpy(out, salt, MBGCMI_COB_SALT);
        memcpy(out + MBGCMI_COB_SALT, commit, MBGCMI_COB_COMMIT);
        st = seal_body(pool, k, out + MBGCMI_COB_HDR, in, in_len);
        if (st != MBGCM_OK) {
            mbgcmi_cob_wipe(out, need); /* not reached with valid arguments */
        }
    }
    if (k != NULL) {
        free_keys(k);
    }
    mbgcmi_cob_pool_free(pool);
    if (st == MBGCM_OK) {
        *out_len = need;
    }
    return st;
}

int mbgcm_cobble_open(uint8_t *out, size_t *out_len, size_t max_out_len, const uint8_t *key,
                      size_t key_len, const uint8_t *context, size_t context_len, const uint8_t *in,
                      size_t in_len, const mbgcm_cobble_opts *opts)
{
    int st = check_common(out, out_len, key, key_len, in, in_len, opts);
    if (st != MBGCM_OK) {
        return st;
    }
    if (context_len && context == NULL) {
        return MBGCM_ERR_INVALID;
    }
    *out_len = 0;
    if (in_len < MBGCMI_COB_HDR) {
        return MBGCM_ERR_TRUNCATED;
    }
    size_t pt_len = 0;
    const int shape = body_pt_len(in_len - MBGCMI_COB_HDR, &pt_len);
    if (shape == MBGCM_ERR_LEN) {
        return shape;
    }
    if (shape == MBGCM_OK) {
        if (max_out_len < pt_len) {
            return MBGCM_ERR_OUT_SPACE;
        }
        if (overlaps(in, in_len, out, pt_len)) {
            return MBGCM_ERR_INVALID;
        }
    }
    struct mbgcmi_cob_pool *pool;
    st = mbgcmi_cob_pool_new(&pool, opts, (in_len - MBGCMI_COB_HDR) / MBGCMI_COB_SCHUNK + 1);
    if (st != MBGCM_OK) {
        return st;
    }
    struct mbgcmi_cob_keys *k = mbgcmi_cob_alloc(sizeof *k);
    uint8_t commit[MBGCMI_COB_COMMIT];
    if (k == NULL) {
        st = MBGCM_ERR_NOMEM;
    } else if ((st = mbgcmi_cob_setup(k, key, key_len, in, context, context_len, commit)) ==
               MBGCM_OK) {
        if (!mbgcmi_cob_equal(commit, in + MBGCMI_COB_SALT, MBGCMI_COB_COMMIT)) {
            st = MBGCM_ERR_COMMITMENT;
        } else {
            st = open_body(pool, k, out, in + MBGCMI_COB_HDR, in_len - MBGCMI_COB_HDR, pt_len);
        }
    }
    mbgcmi_cob_wipe(commit, sizeof commit);
    if (k != NULL) {
        free_keys(k);
    }
    mbgcmi_cob_pool_free(pool);
    if (st == MBGCM_OK) {
        *out_len = pt_len;
    }
    return st;
}

/* ---- raw mode (hazmat) --------------------------------------------------------------------------
 */

int mbgcm_cobble_hazmat_raw_seal(uint8_t *out, size_t *out_len, size_t max_out_len,
                                 const uint8_t *key, size_t key_len,
                                 const uint8_t base_nonce[MBGCM_COBBLE_NONCE_LEN],
                                 const uint8_t *in, size_t in_len, const mbgcm_cobble_opts *opts)
{
    int st = check_common(out, out_len, key, key_len, in, in_len, opts);
    if (st != MBGCM_OK) {
        return st;
    }
    if (base_nonce == NULL) {
        return MBGCM_ERR_INVALID;
    }
    size_t need;
    st = mbgcm_cobble_sealed_len(in_len, &need);
    if (st != MBGCM_OK) {
        return st;
    }
    need -= MBGCMI_COB_HDR;
    if (max_out_len < need) {
        return MBGCM_ERR_OUT_SPACE;
    }
    if (overlaps(in, in_len, out, need)) {
        return MBGCM_ERR_INVALID;
    }
    struct mbgcmi_cob_pool *pool;
    st = mbgcmi_cob_pool_new(&pool, opts, in_len / MBGCMI_COB_CHUNK + 1);
    if (st != MBGCM_OK) {
        return st;
    }
    struct mbgcmi_cob_keys *k = mbgcmi_cob_alloc(sizeof *k);
    if (k == NULL) {
        st = MBGCM_ERR_NOMEM;
    } else {
        mbgcmi_cob_setup_raw(k, key, key_len, base_nonce);
        st = seal_body(pool, k, out, in, in_len);
        free_keys(k);
    }
    mbgcmi_cob_pool_free(pool);
    if (st == MBGCM_OK) {
        *out_len = need;
    }
    return st;
}

int mbgcm_cobble_hazmat_raw_open(uint8_t *out, size_t *out_len, size_t max_out_len,
                                 const uint8_t *key, size_t key_len,
                                 const uint8_t base_nonce[MBGCM_COBBLE_NONCE_LEN],
                                 const uint8_t *in, size_t in_len, const mbgcm_cobble_opts *opts)
{
    int st = check_common(out, out_len, key, key_len, in, in_len, opts);
    if (st != MBGCM_OK) {
        return st;
    }
    if (base_nonce == NULL) {
        return MBGCM_ERR_INVALID;
    }
    *out_len = 0;
    size_t pt_len = 0;
    const int shape = body_pt_len(in_len, &pt_len);
    if (shape == MBGCM_ERR_LEN) {
        return shape;
    }
    if (shape == MBGCM_OK) {
        if (max_out_len < pt_len) {
            return MBGCM_ERR_OUT_SPACE;
        }
        if (overlaps(in, in_len, out, pt_len)) {
            return MBGCM_ERR_INVALID;
        }
    }
    struct mbgcmi_cob_pool *pool;
    st = mbgcmi_cob_pool_new(&pool, opts, in_len / MBGCMI_COB_SCHUNK + 1);
    if (st != MBGCM_OK) {
        return st;
    }
    struct mbgcmi_cob_keys *k = mbgcmi_cob_alloc(sizeof *k);
    if (k == NULL) {
        st = MBGCM_ERR_NOMEM;
    } else {
        mbgcmi_cob_setup_raw(k, key, key_len, base_nonce);
        st = open_body(pool, k, out, in, in_len, pt_len);
        free_keys(k);
    }
    mbgcmi_cob_pool_free(pool);
    if (st == MBGCM_OK) {
        *out_len = pt_len;
    }
    return st;
}
