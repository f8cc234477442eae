/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ctx.c — the incremental single-message API: argument checks and call order around the
 * streaming core (core/gcm_stream.c), on the one-shot arch's kernels (the wide zmm kernels on
 * avx512), so a message fed in pieces gives exactly the one-shot result.
 */
#include "arch.h"
#include "gcm.h"
#include "validate.h"

#define CTX_MAGIC_ENC 0x63744531u
#define CTX_MAGIC_DEC 0x63744431u

struct mbgcmi_ctx {
    struct mbgcmi_stream st;
    uint32_t magic; /* CTX_MAGIC_ENC / _DEC while in progress, 0 otherwise */
};
_Static_assert(sizeof(struct mbgcmi_ctx) <= MBGCM_CTX_SIZE, "ctx size");

static struct mbgcmi_ctx *ictx(mbgcm_ctx *c)
{
    return (struct mbgcmi_ctx *)(void *)c;
}

static const struct mbgcmi_ctx *ictx_c(const mbgcm_ctx *c)
{
    return (const struct mbgcmi_ctx *)(const void *)c;
}

static int in_progress(const struct mbgcmi_ctx *c)
{
    return c->magic == CTX_MAGIC_ENC || c->magic == CTX_MAGIC_DEC;
}

void mbgcm_ctx_wipe(mbgcm_ctx *ctx)
{
    if (ctx != NULL) {
        mbgcmi_wipe(ctx, sizeof *ctx);
    }
}

int mbgcm_ctx_init(mbgcm_ctx *ctx, const mbgcm_key *key, int dir, const void *iv,
                   size_t iv_len, const void *aad, size_t aad_len)
{
    if (ctx == NULL || (dir != MBGCM_ENCRYPT && dir != MBGCM_DECRYPT)) {
        return MBGCM_ERR_INVALID;
    }
    /* the one-shot checks with an empty message and a placeholder 16-byte tag */
    static const uint8_t no_tag[16];
    const int st = mbgcmi_check_args(key, iv, iv_len, aad, aad_len, NULL, 0, NULL, no_tag, 16);
    if (st != MBGCM_OK) {
        return st;
    }
    const struct mbgcmi_arch *a = mbgcmi_oneshot_arch();
    if (a == NULL) {
        return MBGCM_ERR_UNSUPPORTED;
    }
    struct mbgcmi_ctx *c = ictx(ctx);
    /* no memset of the 256 bytes first: the stream sets each of its fields, the bytes past it
       hold nothing (final, verify and mbgcm_ctx_wipe zero them all the same) */
    mbgcmi_stream_init(&c->st, a, mbgcmi_key_c(key),
                       (const uint8_t *)iv, iv_len, (const uint8_t *)aad, aad_len,
                       dir == MBGCM_DECRYPT);
    c->magic = dir == MBGCM_ENCRYPT ? CTX_MAGIC_ENC : CTX_MAGIC_DEC;
    return MBGCM_OK;
}

int mbgcm_ctx_update(mbgcm_ctx *ctx, const void *in, size_t len, void *out)
{
    struct mbgcmi_ctx *c = ctx ? ictx(ctx) : NULL;
    if (c == NULL || !in_progress(c)) {
        return MBGCM_ERR_INVALID;
    }
    if ((uint64_t)len > MBGCMI_MAX_TEXT_LEN - c->st.len) {
        return MBGCM_ERR_LEN;
    }
    if (len == 0) {
        return MBGCM_OK;
    }
    if (in == NULL || out == NULL || (in != out && mbgcmi_overlap(in, len, out, len))) {
        return MBGCM_ERR_INVALID;
    }
    mbgcmi_stream_update(&c->st, (const uint8_t *)in, len, (uint8_t *)out);
    return MBGCM_OK;
}

int mbgcm_ctx_final(mbgcm_ctx *ctx, void *tag, size_t tag_len)
{
    struct mbgcmi_ctx *c = ctx ? ictx(ctx) : NULL;
    if (c == NULL || c->magic != CTX_MAGIC_ENC || tag == NULL) {
        return MBGCM_ERR_INVALID;
    }
    if (!mbgcmi_tag_len_ok(tag_len)) {
        return MBGCM_ERR_TAG_LEN;
    }
    uint8_t t[16];
    mbgcmi_stream_tag(&c->st, t);
    memcpy(tag, t, tag_len);
    mbgcmi_wipe(t, sizeof t);
    mbgcm_ctx_wipe(ctx);
    return MBGCM_OK;
}

int mbgcm_ctx_verify(mbgcm_ctx *ctx, const void *tag, size_t tag_len)
{
    struct mbgcmi_ctx *c = ctx ? ictx(ctx) : NULL;
    if (c == NULL || c->magic != CTX_MAGIC_DEC || tag == NULL) {
        return MBGCM_ERR_INVALID;
    }
    if (!mbgcmi_tag_len_ok(tag_len)) {
        return MBGCM_ERR_TAG_LEN;
    }
    uint8_t t[16];
    mbgcmi_stream_tag(&c->st, t);
    const int ok = mbgcmi_ct_equal(t, tag, tag_len);
    mbgcmi_wipe(t, sizeof t);
    mbgcm_ctx_wipe(ctx);
    return ok ? MBGCM_OK : MBGCM_ERR_AUTH;
}

int mbgcm_ctx_copy(mbgcm_ctx *dst, const mbgcm_ctx *src)
{
    if (dst == NULL || src == NULL || !in_progress(ictx_c(src))) {
        return MBGCM_ERR_INVALID;
    }
    if (dst != src) {
        memcpy(dst, src, sizeof *dst); /* plain data: the copy is an independent stream */
    }
    return MBGCM_OK;
}
