/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_evp.c — OpenSSL EVP: one EVP_CIPHER_CTX per key and direction, keyed once and reused;
 * the IV reset per message with EVP_*Init_ex(ctx, NULL, NULL, NULL, iv), as servers do.
 */
#include <openssl/evp.h>

#include "engine.h"
#include "options.h"

struct evp_state {
    unsigned keybits, nkeys;
    EVP_CIPHER_CTX **enc, **dec;
};

static void evp_free_ctxs(struct evp_state *s)
{
    if (s->enc) {
        for (unsigned k = 0; k < s->nkeys; k++) {
            EVP_CIPHER_CTX_free(s->enc[k]);
            EVP_CIPHER_CTX_free(s->dec[k]);
        }
        free(s->enc);
        free(s->dec);
        s->enc = s->dec = NULL;
    }
}

static void evp_setup(struct engine *e, const struct bench_msgs *m)
{
    struct evp_state *s = e->st;
    if (s == NULL) {
        s = e->st = xaligned(64, sizeof *s);
    }
    if (s->keybits == m->bits && s->nkeys == m->nkeys) {
        return;
    }
    evp_free_ctxs(s);
    const EVP_CIPHER *c = m->bits == 128 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
    s->enc = xaligned(64, m->nkeys * sizeof *s->enc);
    s->dec = xaligned(64, m->nkeys * sizeof *s->dec);
    s->nkeys = m->nkeys;
    for (unsigned k = 0; k < m->nkeys; k++) {
        s->enc[k] = EVP_CIPHER_CTX_new();
        s->dec[k] = EVP_CIPHER_CTX_new();
        if (s->enc[k] == NULL || s->dec[k] == NULL ||
            EVP_EncryptInit_ex(s->enc[k], c, NULL, m->raw[k], NULL) != 1 ||
            EVP_DecryptInit_ex(s->dec[k], c, NULL, m->raw[k], NULL) != 1) {
            die("OpenSSL context setup failed");
        }
    }
    s->keybits = m->bits;
}

static void evp_teardown(struct engine *e)
{
    evp_free_ctxs(e->st);
    free(e->st);
}

static unsigned evp_encrypt(const struct evp_state *s, const struct bench_msgs *m, unsigned j)
{
    EVP_CIPHER_CTX *c = s->enc[m->key_of[j]];
    const int alen = (int)m->aad_len;
    int l1, l2, la;
    unsigned bad = EVP_EncryptInit_ex(c, NULL, NULL, NULL, m->iv[j]) != 1;
    if (alen) {
        bad += EVP_EncryptUpdate(c, NULL, &la, m->aad[j], alen) != 1;
    }
    bad += EVP_EncryptUpdate(c, m->out[j], &l1, m->pt[j], (int)m->len[j]) != 1;
    bad += EVP_EncryptFinal_ex(c, m->out[j] + l1, &l2) != 1;
    bad += EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, BENCH_TAG_LEN, m->otag[j]) != 1;
    return bad;
}

static unsigned evp_decrypt(const struct evp_state *s, const struct bench_msgs *m, unsigned j)
{
    EVP_CIPHER_CTX *c = s->dec[m->key_of[j]];
    const int alen = (int)m->aad_len;
    int l1, l2, la;
    unsigned bad = EVP_DecryptInit_ex(c, NULL, NULL, NULL, m->iv[j]) != 1;
    if (alen) {
        bad += EVP_DecryptUpdate(c, NULL, &la, m->aad[j], alen) != 1;
    }
    bad += EVP_DecryptUpdate(c, m->out[j], &l1, m->ct[j], (int)m->len[j]) != 1;
    bad += EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, BENCH_TAG_LEN, m->tag[j]) != 1;
    bad += EVP_DecryptFinal_ex(c, m->out[j] + l1, &l2) <= 0;
    return bad;
}

static unsigned evp_run(struct engine *e, const struct bench_msgs *m, int dir, uint64_t n,
                        unsigned *pos)
{
    const struct evp_state *s = e->st;
    unsigned j = *pos, bad = 0;
    if (dir == DIR_ENC) {
        for (uint64_t i = 0; i < n; i++) {
            bad += evp_encrypt(s, m, j) != 0;
            j = bench_next_slot(m, j);
        }
    } else {
        for (uint64_t i = 0; i < n; i++) {
            bad += evp_decrypt(s, m, j) != 0;
            j = bench_next_slot(m, j);
        }
    }
    *pos = j;
    return bad;
}

/* A new key on each existing encrypt context: EVP_EncryptInit_ex(ctx, NULL, NULL, key, NULL),
   the key schedule and the hash key, as a server re-keying a context does. */
static void evp_rekey(struct engine *e, const struct bench_msgs *m)
{
    struct evp_state *s = e->st;
    for (unsigned k = 0; k < m->nkeys; k++) {
        if (EVP_EncryptInit_ex(s->enc[k], NULL, NULL, m->raw[k], NULL) != 1) {
            die("OpenSSL re-key failed");
        }
    }
}

static const struct engine_ops evp_ops = {evp_setup, evp_run, evp_teardown,
                                          NULL,      NULL,    NULL,
                                          evp_rekey};

void evp_add_engine(struct engine *eng, unsigned *ne)
{
    struct engine *e = engine_add(eng, ne, FAM_EVP, API_EVP);
    e->ops = &evp_ops;
    snprintf(e->name, sizeof e->name, "openssl-evp");
    e->selected = engine_wanted(e->name);
}
