/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gcm_vectors.h — reader for the project's AES-GCM vector files (BoringSSL format, see
 * test/vectors/README.md): blank-line separated records of KEY, NONCE, IN, AD, CT, TAG in hex,
 * in any order; an empty field is written as nothing or as ""; '#' starts a comment line.
 * Used by the cryptodev suite and by the dpdk-test-crypto-perf vector generator.
 */
#ifndef MBGCM_DPDK_GCM_VECTORS_H
#define MBGCM_DPDK_GCM_VECTORS_H

#include <stddef.h>
#include <stdint.h>

struct gv_record {
    uint8_t *key, *nonce, *pt, *aad, *ct, *tag; /* never NULL (a length-0 field is "") */
    size_t key_len, nonce_len, pt_len, aad_len, ct_len, tag_len;
    char where[96]; /* "aes_128_gcm_tests.txt:12" (the record's first line) */
};

/* The three file names, in the order gv_load reads them. */
extern const char *const gv_files[3];

/*
 * Load every record of the three files in |dir| into a new array (*out, *n). Returns 0, or -1
 * with a message on stderr when a file is missing or malformed (a record without one of the
 * six fields, odd hex, CT and IN of different lengths). Free with gv_free.
 */
int gv_load(const char *dir, struct gv_record **out, size_t *n);
/* Load one file (appending to *out, *n). Same returns. */
int gv_load_file(const char *path, const char *label, struct gv_record **out, size_t *n);
void gv_free(struct gv_record *recs, size_t n);

#endif
