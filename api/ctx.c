/*
 * ctx.c — the incremental single-message API: a message fed in pieces of any length goes
 * through the one-shot arch's kernels (on avx512 the wide zmm kernels) exactly as a whole
 * message would. Full blocks go straight to the CTR+GHASH kernel; a piece that ends inside a
 * block keeps that block's key stream and ciphertext bytes in the context until the next
 * piece completes it (or final pads it).
 */
#include "mbgcm_internal.h"

#define CTX_MAGIC_ENC 0x63744531u /* "1Etc" */
#define CTX_MAGIC_DEC 0x63744431u

struct mbgcmi_ctx {
    const struct mbgcmi_key *key;
    const struct mbgcmi_gcm_ops *ops;
    uint64_t s[2];       /* GHASH state, V form */
    uint8_t ek0[16];     /* E_K(J0) */
    uint8_t ctr[16];     /* counter of the next block to encrypt */
    uint8_t ks[16];      /* key stream of the partial block in progress */
    uint8_t cbuf[16];    /* its ciphertext bytes so far (GHASH input), zero past |used| */
    uint64_t aad_len;
    uint64_t len;        /* message bytes so far */
    uint32_t used;       /* bytes of the partial block consumed, 0..15 */
    uint32_t magic;      /* CTX_MAGIC_ENC / _DEC while in progress, 0 otherwise */
};
_Static_assert(sizeof(struct mbgcmi_ctx) <= MBGCM_CTX_SIZE, "ctx size");

static struct mbgcmi_ctx *ictx(mbgcm_ctx *c)
{
    return (struct mbgcmi_ctx *)(void *)c;
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
    const int arch = mbgcmi_oneshot_arch();
    if (arch == MBGCMI_ARCH_NONE) {
        return MBGCM_ERR_UNSUPPORTED;
    }
    struct mbgcmi_ctx *c = ictx(ctx);
    memset(ctx, 0, sizeof *ctx);
    c->key = mbgcmi_key_c(key);
    c->ops = mbgcmi_gcm_ops_for(arch);
    uint8_t j0[16], pad[16] = {0};
    mbgcmi_gcm_j0(c->ops, c->key, (const uint8_t *)iv, iv_len, j0);
    c->ops->block(c->key, j0, c->ek0);
    memcpy(c->ctr, j0, 16);
    mbgcmi_inc32(c->ctr);
    const size_t full = aad_len / 16, rem = aad_len % 16;
    if (full) {
        c->ops->ghash(c->key, c->s, (const uint8_t *)aad, full);
    }
    if (rem) {
        memcpy(pad, (const uint8_t *)aad + 16 * full, rem);
        c->ops->ghash(c->key, c->s, pad, 1);
    }
    c->aad_len = aad_len;
    c->magic = dir == MBGCM_ENCRYPT ? CTX_MAGIC_ENC : CTX_MAGIC_DEC;
    mbgcmi_wipe(j0, sizeof j0);
    mbgcmi_wipe(pad, sizeof pad);
    return MBGCM_OK;
}

int mbgcm_ctx_update(mbgcm_ctx *ctx, const void *in_, size_t len, void *out_)
{
    struct mbgcmi_ctx *c = ctx ? ictx(ctx) : NULL;
    if (c == NULL || (c->magic != CTX_MAGIC_ENC && c->magic != CTX_MAGIC_DEC)) {
        return MBGCM_ERR_INVALID;
    }
    if ((uint64_t)len > MBGCMI_MAX_TEXT_LEN - c->len) {
        return MBGCM_ERR_LEN;
    }
    if (len == 0) {
        return MBGCM_OK;
    }
    if (in_ == NULL || out_ == NULL || (in_ != out_ && mbgcmi_overlap(in_, len, out_, len))) {
        return MBGCM_ERR_INVALID;
    }
    const uint8_t *in = (const uint8_t *)in_;
    uint8_t *out = (uint8_t *)out_;
    const int dec = c->magic == CTX_MAGIC_DEC;
    c->len += len;
    /* 1. finish the partial block in progress */
    while (c->used != 0 && len != 0) {
        const uint8_t x = *in++;
        const uint8_t y = x ^ c->ks[c->used];
        c->cbuf[c->used] = dec ? x : y; /* GHASH takes the ciphertext */
        *out++ = y;
        len--;
        if (++c->used == 16) {
            c->ops->ghash(c->key, c->s, c->cbuf, 1);
            memset(c->cbuf, 0, 16);
            c->used = 0;
        }
    }
    /* 2. whole blocks straight through the kernel */
    const size_t full = len / 16, rem = len % 16;
    if (full) {
        (dec ? c->ops->ctr_dec : c->ops->ctr_enc)(c->key, c->ctr, c->s, in, out, full);
        in += 16 * full;
        out += 16 * full;
    }
    /* 3. start a partial block with what is left */
    if (rem) {
        c->ops->block(c->key, c->ctr, c->ks);
        mbgcmi_inc32(c->ctr);
        for (size_t i = 0; i < rem; i++) {
            const uint8_t x = in[i];
            const uint8_t y = x ^ c->ks[i];
            c->cbuf[i] = dec ? x : y;
            out[i] = y;
        }
        c->used = (uint32_t)rem;
    }
    return MBGCM_OK;
}

/* The full tag of a context in progress; the context is wiped afterwards by the callers. */
static void compute_tag(struct mbgcmi_ctx *c, uint8_t t[16])
{
    uint8_t lb[16];
    if (c->used) {
        c->ops->ghash(c->key, c->s, c->cbuf, 1); /* zero-padded partial block */
    }
    mbgcmi_len_block(c->aad_len, c->len, lb);
    c->ops->ghash(c->key, c->s, lb, 1);
    mbgcmi_v_to_block(c->s, t);
    for (int i = 0; i < 16; i++) {
        t[i] ^= c->ek0[i];
    }
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
    compute_tag(c, t);
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
    compute_tag(c, t);
    const int ok = mbgcmi_ct_equal(t, tag, tag_len);
    mbgcmi_wipe(t, sizeof t);
    mbgcm_ctx_wipe(ctx);
    return ok ? MBGCM_OK : MBGCM_ERR_AUTH;
}
