/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mk_perf_vectors — write dpdk-test-crypto-perf test vector files from the project's AES-GCM
 * vectors (Debian's dpdk package ships none).
 *
 *   mk_perf_vectors VECTOR_DIR OUT.data OUT.cases
 *
 * OUT.data is crypto-perf's `--test-file` format: `name = 0x.., 0x..` entries; a global part,
 * then one `[case]` section per record (selected with `--test-name case`). crypto-perf insists
 * on non-empty AAD data even when --aead-aad-sz is 0, and truncates global data to the
 * requested size, so the global part holds zero AAD as long as the longest case's AAD: a case
 * with empty AAD inherits it truncated to 0 bytes, the others bring their own.
 *
 * OUT.cases lists one case a line: `name key_len iv_len aad_len pt_len tag_len`, what the
 * runner passes as --aead-key-sz, --aead-iv-sz, --aead-aad-sz, --buffer-sz, --digest-sz.
 *
 * Chosen per key size (deterministic): 12-byte nonce, non-empty plaintext, full tag; the
 * shortest and the longest plaintext, the median, the first with empty AAD, the first whose
 * AAD length differs from its plaintext length (GCM spec test case 4 style), and the first
 * whose plaintext is a multiple of 16 bytes of at least 64: at most six distinct records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcm_vectors.h"

#define MAX_PICK 6

static void put_bytes(FILE *f, const char *name, const uint8_t *p, size_t n)
{
    size_t i;

    fprintf(f, "%s =", name);
    for (i = 0; i < n; i++)
        fprintf(f, "%s 0x%02x", i ? "," : "", p[i]);
    fputc('\n', f);
}

static int eligible(const struct gv_record *r)
{
    return r->nonce_len == 12 && r->pt_len > 0 && r->tag_len == 16;
}

static int cmp_len(const void *a, const void *b)
{
    const struct gv_record *x = *(const struct gv_record *const *)a;
    const struct gv_record *y = *(const struct gv_record *const *)b;

    if (x->pt_len != y->pt_len)
        return x->pt_len < y->pt_len ? -1 : 1;
    return strcmp(x->where, y->where) < 0 ? -1 : 1; /* stable: file order */
}

/* Add |r| to |pick| unless it is there already. */
static void add(const struct gv_record **pick, size_t *np, const struct gv_record *r)
{
    size_t i;

    if (r == NULL || *np >= MAX_PICK)
        return;
    for (i = 0; i < *np; i++)
        if (pick[i] == r)
            return;
    pick[(*np)++] = r;
}

int main(int argc, char **argv)
{
    const struct gv_record *all[3][MAX_PICK];
    size_t nall[3] = {0, 0, 0}, max_aad = 1, f, i;
    FILE *data, *cases;

    if (argc != 4) {
        fprintf(stderr, "usage: %s VECTOR_DIR OUT.data OUT.cases\n", argv[0]);
        return 2;
    }
    static struct gv_record *recs[3];
    static size_t nrec[3];

    for (f = 0; f < 3; f++) {
        char path[4096];
        const struct gv_record **el;
        size_t ne = 0;

        snprintf(path, sizeof(path), "%s/%s", argv[1], gv_files[f]);
        if (gv_load_file(path, gv_files[f], &recs[f], &nrec[f]) != 0)
            return 1;
        el = calloc(nrec[f] + 1, sizeof(*el));
        for (i = 0; i < nrec[f]; i++)
            if (eligible(&recs[f][i]))
                el[ne++] = &recs[f][i];
        if (ne == 0) {
            fprintf(stderr, "%s: no usable record\n", path);
            return 1;
        }
        qsort(el, ne, sizeof(*el), cmp_len);
        add(all[f], &nall[f], el[0]);
        add(all[f], &nall[f], el[ne - 1]);
        add(all[f], &nall[f], el[ne / 2]);
        for (i = 0; i < ne; i++)
            if (el[i]->aad_len == 0) {
                add(all[f], &nall[f], el[i]);
                break;
            }
        for (i = 0; i < ne; i++)
            if (el[i]->aad_len != 0 && el[i]->aad_len != el[i]->pt_len) {
                add(all[f], &nall[f], el[i]);
                break;
            }
        for (i = 0; i < ne; i++)
            if (el[i]->pt_len >= 64 && el[i]->pt_len % 16 == 0) {
                add(all[f], &nall[f], el[i]);
                break;
            }
        for (i = 0; i < nall[f]; i++)
            if (all[f][i]->aad_len > max_aad)
                max_aad = all[f][i]->aad_len;
        free(el);
    }

    data = fopen(argv[2], "w");
    cases = fopen(argv[3], "w");
    if (data == NULL || cases == NULL) {
        fprintf(stderr, "cannot write %s / %s\n", argv[2], argv[3]);
        return 1;
    }
    fprintf(data, "# dpdk-test-crypto-perf AES-GCM vectors, written by mk_perf_vectors from the\n"
                  "# project's vector files (%s). Do not edit.\n\n", argv[1]);
    fprintf(data, "# global: zero AAD for the cases with empty AAD (truncated to --aead-aad-sz 0)\n");
    {
        uint8_t *zero = calloc(max_aad, 1);

        put_bytes(data, "aad", zero, max_aad);
        free(zero);
    }
    fprintf(cases, "# name key_len iv_len aad_len pt_len tag_len (written by mk_perf_vectors)\n");
    for (f = 0; f < 3; f++)
        for (i = 0; i < nall[f]; i++) {
            const struct gv_record *r = all[f][i];
            char name[96];

            snprintf(name, sizeof(name), "gcm%zu_pt%zu_aad%zu_%zu", r->key_len * 8, r->pt_len,
                     r->aad_len, i);
            fprintf(data, "\n# %s\n[%s]\n", r->where, name);
            put_bytes(data, "aead_key", r->key, r->key_len);
            put_bytes(data, "aead_iv", r->nonce, r->nonce_len);
            if (r->aad_len != 0)
                put_bytes(data, "aad", r->aad, r->aad_len);
            put_bytes(data, "plaintext", r->pt, r->pt_len);
            put_bytes(data, "ciphertext", r->ct, r->ct_len);
            put_bytes(data, "digest", r->tag, r->tag_len);
            fprintf(cases, "%s %zu %zu %zu %zu %zu\n", name, r->key_len, r->nonce_len, r->aad_len,
                    r->pt_len, r->tag_len);
        }
    if (fclose(data) != 0 || fclose(cases) != 0) {
        fprintf(stderr, "write error\n");
        return 1;
    }
    for (f = 0; f < 3; f++)
        gv_free(recs[f], nrec[f]);
    return 0;
}
