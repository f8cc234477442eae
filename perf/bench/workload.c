/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * workload.c — the messages of every point. K raw keys used round-robin; slot j sits 24*j mod
 * 64 bytes from a cache line in arenas whose stride is an odd number of cache lines, so that
 * no two slots share an alignment pattern or a power-of-two stride. "imix" is the 7:4:1 mix of
 * 64/594/1518-byte messages in a fixed interleaved order. The reference ciphertexts and tags
 * come from OpenSSL; every engine is checked against them before it is timed.
 */
#include <openssl/evp.h>

#include "workload.h"

/* 7 x 64, 4 x 594, 1 x 1518, interleaved (the classic simple IMIX) */
static const size_t imix_pattern[12] = {64, 594, 64, 64, 1518, 64, 594, 64, 594, 64, 64, 594};

static void fill_random(uint64_t *s, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p[i] = (uint8_t)(rng_next(s) >> 56);
    }
}

static unsigned gcd_u(unsigned a, unsigned b)
{
    while (b) {
        const unsigned t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static size_t slot_stride(size_t maxlen)
{
    /* an odd number of cache lines beyond the message (no power-of-two stride) */
    const size_t lines = (maxlen + 64 + 63) / 64;
    return (lines | 1) * 64 + 64;
}

static void workload_alloc(struct workload *w)
{
    struct bench_msgs *m = &w->m;
    const unsigned n = w->max_slots;
    m->len = xaligned(64, n * sizeof *m->len);
    m->key_of = xaligned(64, n * sizeof *m->key_of);
    m->raw = xaligned(64, m->nkeys * sizeof *m->raw);
    m->iv = xaligned(64, n * sizeof *m->iv);
    /* AAD slots: 64 bytes apart up to 64 bytes of AAD (as always), else whole cache lines,
       never a multiple of 4 KiB (the slots would share L1 sets) */
    size_t as = m->aad_len <= 64 ? 64 : (m->aad_len + 63) / 64 * 64;
    if (as % 4096 == 0) {
        as += 64;
    }
    w->aad_stride = as;
    w->aad_arena = xaligned(64, n * as);
    m->aad = xaligned(64, n * sizeof *m->aad);
    for (unsigned j = 0; j < n; j++) {
        m->aad[j] = w->aad_arena + j * as;
    }
    m->tag = xaligned(64, n * sizeof *m->tag);
    m->otag = xaligned(64, n * sizeof *m->otag);
    m->pt = xaligned(64, n * sizeof *m->pt);
    m->ct = xaligned(64, n * sizeof *m->ct);
    m->out = xaligned(64, n * sizeof *m->out);
    const size_t arena = slot_stride(w->cap) * n + 4096;
    for (int a = 0; a < 3; a++) {
        w->arena[a] = xaligned(4096, arena);
    }
}

void workload_init(struct workload *w, unsigned nkeys, unsigned nbufs, size_t cap,
                   size_t aad_len, uint64_t seed)
{
    memset(w, 0, sizeof *w);
    w->m.nkeys = nkeys;
    w->m.aad_len = aad_len;
    const unsigned n = nbufs > nkeys ? nbufs : nkeys;
    w->base_slots = (n + nkeys - 1) / nkeys * nkeys;
    unsigned l = nkeys / gcd_u(nkeys, 12) * 12;
    if (l > 4096) {
        l = 12;
    }
    w->imix_slots = (n + l - 1) / l * l;
    w->max_slots = w->base_slots > w->imix_slots ? w->base_slots : w->imix_slots;
    w->cap = cap > IMIX_MAX ? cap : IMIX_MAX;
    workload_alloc(w);
    uint64_t s = seed;
    fill_random(&s, &w->m.raw[0][0], nkeys * sizeof *w->m.raw);
    fill_random(&s, &w->m.iv[0][0], w->max_slots * sizeof *w->m.iv);
    fill_random(&s, w->aad_arena, w->max_slots * w->aad_stride);
    w->seed = s;
}

void workload_shuffle_keys(struct workload *w)
{
    const unsigned n = w->m.nkeys;
    w->key_perm = xaligned(64, n * sizeof *w->key_perm);
    for (unsigned i = 0; i < n; i++) {
        w->key_perm[i] = i;
    }
    uint64_t s = 0x6b65796f72646572u; /* fixed: every engine and run sees one order */
    for (unsigned i = n; i > 1; i--) {
        const unsigned j = (unsigned)(rng_next(&s) % i);
        const unsigned t = w->key_perm[i - 1];
        w->key_perm[i - 1] = w->key_perm[j];
        w->key_perm[j] = t;
    }
}

void workload_free(struct workload *w)
{
    struct bench_msgs *m = &w->m;
    for (int a = 0; a < 3; a++) {
        free(w->arena[a]);
    }
    free(m->len);
    free(m->key_of);
    free(w->key_perm);
    free(m->raw);
    free(m->iv);
    free(m->aad);
    free(w->aad_arena);
    free(m->tag);
    free(m->otag);
    free(m->pt);
    free(m->ct);
    free(m->out);
    memset(w, 0, sizeof *w);
}

static const EVP_CIPHER *evp_gcm(unsigned bits)
{
    return bits == 128 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
}

/* Reference ciphertexts and tags, with a fresh OpenSSL context. */
static void workload_reference(struct workload *w)
{
    struct bench_msgs *m = &w->m;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (c == NULL) {
        die("EVP_CIPHER_CTX_new failed");
    }
    for (unsigned j = 0; j < m->nslots; j++) {
        int l1 = 0, l2 = 0, la = 0;
        if (EVP_EncryptInit_ex(c, evp_gcm(m->bits), NULL, m->raw[m->key_of[j]], m->iv[j]) != 1 ||
            (m->aad_len && EVP_EncryptUpdate(c, NULL, &la, m->aad[j], (int)m->aad_len) != 1) ||
            EVP_EncryptUpdate(c, m->ct[j], &l1, m->pt[j], (int)m->len[j]) != 1 ||
            EVP_EncryptFinal_ex(c, m->ct[j] + l1, &l2) != 1 ||
            EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, BENCH_TAG_LEN, m->tag[j]) != 1) {
            die("OpenSSL reference encryption failed");
        }
    }
    EVP_CIPHER_CTX_free(c);
}

void workload_point(struct workload *w, unsigned bits, size_t size)
{
    struct bench_msgs *m = &w->m;
    m->bits = bits;
    w->size = size;
    const int imix = size == SIZE_IMIX;
    m->nslots = imix ? w->imix_slots : w->base_slots;
    const size_t maxlen = imix ? IMIX_MAX : size;
    if (maxlen > w->cap) {
        die("size %zu above the workload capacity %zu", maxlen, w->cap);
    }
    const size_t stride = slot_stride(maxlen);
    uint8_t **const which[3] = {m->pt, m->ct, m->out};
    double total = 0;
    uint64_t s = w->seed;
    for (unsigned j = 0; j < m->nslots; j++) {
        m->len[j] = imix ? imix_pattern[j % 12] : size;
        m->key_of[j] = w->key_perm ? w->key_perm[j % m->nkeys] : j % m->nkeys;
        total += (double)m->len[j];
        for (int a = 0; a < 3; a++) {
            /* offsets 0, 24, 48, 8, 32, 56, 16, 40 from a cache line; arenas shifted apart */
            which[a][j] = w->arena[a] + (size_t)j * stride + (24u * j) % 64 + 512u * (unsigned)a;
        }
        fill_random(&s, m->pt[j], m->len[j]);
    }
    w->avg_len = total / m->nslots;
    workload_reference(w);
}
