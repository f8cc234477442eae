/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor.h — the port floor of AES-GCM: the fewest core cycles one message can take on a CPU
 * whose AES-round and carry-less-multiply rates are known (measured by mbgcm-rates).
 *
 * Only the two units GCM cannot avoid are counted: AES rounds (VAESENC/VAESENCLAST) and 64x64
 * carry-less multiplies (VPCLMULQDQ). Loads, stores, shuffles, counter increments, xors and
 * control flow are left out, so a kernel can approach the floor but never beat it. The shape
 * is encryption or decryption of one message with a 12-byte IV (J0 needs no GHASH pass):
 *
 *   AES blocks    ceil(len / 16) + 1              the counter blocks and E_K(J0) for the tag
 *   AES work      blocks x rounds                 10 / 12 / 14 rounds for 128 / 192 / 256-bit keys
 *   GHASH blocks  ceil(aad / 16) + ceil(len / 16) + 1   AAD, ciphertext, the length block
 *   CLMUL work    GHASH blocks x 4 (schoolbook) or x 3 (Karatsuba)
 *                 + 2 per reduction, one reduction per K blocks (K = 0: one per message)
 *   floor         max(AES, CLMUL) + (1 - overlap) x min(AES, CLMUL)
 *
 * where AES = AES work / aes_block_rounds_per_cycle and CLMUL = CLMUL work /
 * clmul_products_per_cycle. overlap 1: the units issue in parallel (the floor is the larger);
 * 0: they share ports (the floor is the sum). Plain C, no dependencies beyond libc.
 */
#ifndef MBGCM_PERF_FLOOR_H
#define MBGCM_PERF_FLOOR_H

#include <stdint.h>

typedef struct gcm_floor_rates {
    /* 128-bit blocks taken through one AES round per core cycle at the best width
       (VAESENC zmm at 2 per cycle = 8; AESENC xmm at 2 per cycle = 2). */
    double aes_block_rounds_per_cycle;
    /* 64x64 -> 128-bit carry-less products per core cycle at the best width
       (VPCLMULQDQ zmm at 1 per cycle = 4). */
    double clmul_products_per_cycle;
    /* 0..1: how far AES and CLMUL work hide behind each other (see above). */
    double overlap;
} gcm_floor_rates;

typedef struct gcm_floor_shape {
    unsigned key_bits;   /* 128, 192 or 256 */
    uint64_t msg_bytes;
    uint64_t aad_bytes;
    unsigned agg_blocks; /* K: GHASH blocks per reduction; 0 = one reduction per message */
    int karatsuba;       /* nonzero: 3 multiplies per block, else schoolbook 4 */
} gcm_floor_shape;

enum gcm_floor_bound { GCM_FLOOR_AES, GCM_FLOOR_CLMUL };

typedef struct gcm_floor {
    uint64_t aes_blocks;   /* counter blocks + E_K(J0) */
    uint64_t aes_ops;      /* block-rounds */
    uint64_t ghash_blocks;
    uint64_t reductions;
    uint64_t clmul_ops;    /* 64x64 products, reductions included */
    double aes_cycles;     /* AES work alone */
    double clmul_cycles;   /* CLMUL work alone */
    double cycles;         /* the floor */
    double cycles_per_byte; /* cycles / msg_bytes (0 for an empty message) */
    enum gcm_floor_bound bound; /* the unit with more work */
} gcm_floor;

/* Fills |out|. Returns 0, or -1 when the key size is not 128/192/256 or a rate is not
   positive. |overlap| is clamped to 0..1. */
int gcm_floor_compute(const gcm_floor_rates *rates, const gcm_floor_shape *shape, gcm_floor *out);

/* "AES" or "CLMUL". */
const char *gcm_floor_bound_name(enum gcm_floor_bound b);

/* Reads the rates mbgcm-rates wrote with --csv (its `floor_input` rows), so that another
   benchmark can print the floor of the CPU beside its own measurements. |core_ghz| (may be
   NULL) receives the core clock of that run, 0 when absent. Returns 0, or -1 when the file
   cannot be read or lacks a rate. */
int gcm_floor_rates_load(const char *csv_path, gcm_floor_rates *rates, double *core_ghz);

#endif /* MBGCM_PERF_FLOOR_H */
