/* SPDX-License-Identifier: BSD-3-Clause */
/* gcm_vectors.c — see gcm_vectors.h. */
#define _GNU_SOURCE /* getline */
#include "gcm_vectors.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gv_files[3] = {
    "aes_128_gcm_tests.txt",
    "aes_192_gcm_tests.txt",
    "aes_256_gcm_tests.txt",
};

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decode the value after "NAME:" into a new buffer (at least 1 byte allocated). */
static int
decode(const char *v, uint8_t **out, size_t *len)
{
    size_t n, i;
    uint8_t *b;

    while (*v == ' ' || *v == '\t')
        v++;
    n = strcspn(v, " \t\r\n");
    if (n == 2 && v[0] == '"' && v[1] == '"')
        n = 0;
    if (n % 2 != 0)
        return -1;
    b = malloc(n / 2 + 1);
    if (b == NULL)
        return -1;
    for (i = 0; i < n / 2; i++) {
        int hi = hexval((unsigned char)v[2 * i]), lo = hexval((unsigned char)v[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            free(b);
            return -1;
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = b;
    *len = n / 2;
    return 0;
}

static void
rec_free(struct gv_record *r)
{
    free(r->key);
    free(r->nonce);
    free(r->pt);
    free(r->aad);
    free(r->ct);
    free(r->tag);
    memset(r, 0, sizeof(*r));
}

static int
rec_complete(const struct gv_record *r)
{
    return r->key && r->nonce && r->pt && r->aad && r->ct && r->tag;
}

static int
push(struct gv_record **out, size_t *n, size_t *cap, struct gv_record *r)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct gv_record *p = realloc(*out, nc * sizeof(**out));

        if (p == NULL)
            return -1;
        *out = p;
        *cap = nc;
    }
    (*out)[(*n)++] = *r;
    memset(r, 0, sizeof(*r));
    return 0;
}

int
gv_load_file(const char *path, const char *label, struct gv_record **out, size_t *n)
{
    FILE *f = fopen(path, "r");
    struct gv_record r;
    char *line = NULL;
    size_t cap = *n, lsz = 0; /* realloc grows from *n; fine for the first call */
    long lineno = 0;
    int in_rec = 0, ret = -1;

    if (f == NULL) {
        fprintf(stderr, "gcm_vectors: cannot open %s\n", path);
        return -1;
    }
    memset(&r, 0, sizeof(r));
    for (;;) {
        ssize_t got = getline(&line, &lsz, f);
        int blank;

        lineno++;
        blank = got < 0 || line[strspn(line, " \t\r\n")] == '\0';
        if (got >= 0 && line[0] == '#')
            continue;
        if (blank) {
            if (in_rec) {
                if (!rec_complete(&r) || r.ct_len != r.pt_len) {
                    fprintf(stderr, "gcm_vectors: %s: incomplete record\n", r.where);
                    goto out;
                }
                if (push(out, n, &cap, &r) != 0)
                    goto out;
                in_rec = 0;
            }
            if (got < 0)
                break;
            continue;
        }
        {
            char *colon = strchr(line, ':');
            uint8_t **dst = NULL;
            size_t *dlen = NULL;

            if (colon == NULL) {
                fprintf(stderr, "gcm_vectors: %s:%ld: no ':'\n", label, lineno);
                goto out;
            }
            *colon = '\0';
            if (!in_rec) {
                snprintf(r.where, sizeof(r.where), "%s:%ld", label, lineno);
                in_rec = 1;
            }
#define FIELD(name, p, l)                                                                      \
    else if (strcmp(line, name) == 0) {                                                        \
        dst = &r.p;                                                                            \
        dlen = &r.l;                                                                           \
    }
            if (0) {
            }
            FIELD("KEY", key, key_len)
            FIELD("NONCE", nonce, nonce_len)
            FIELD("IN", pt, pt_len)
            FIELD("AD", aad, aad_len)
            FIELD("CT", ct, ct_len)
            FIELD("TAG", tag, tag_len)
#undef FIELD
            if (dst == NULL || *dst != NULL || decode(colon + 1, dst, dlen) != 0) {
                fprintf(stderr, "gcm_vectors: %s:%ld: bad or repeated field %s\n", label,
                        lineno, line);
                goto out;
            }
        }
    }
    ret = 0;
out:
    rec_free(&r);
    free(line);
    fclose(f);
    return ret;
}

int
gv_load(const char *dir, struct gv_record **out, size_t *n)
{
    size_t i;

    *out = NULL;
    *n = 0;
    for (i = 0; i < 3; i++) {
        char path[4096];

        snprintf(path, sizeof(path), "%s/%s", dir, gv_files[i]);
        if (gv_load_file(path, gv_files[i], out, n) != 0) {
            gv_free(*out, *n);
            *out = NULL;
            *n = 0;
            return -1;
        }
    }
    return 0;
}

void
gv_free(struct gv_record *recs, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        rec_free(&recs[i]);
    free(recs);
}
