/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor.c — the AES-GCM port floor (floor.h has the model).
 */
#include "floor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t blocks16(uint64_t bytes)
{
    return bytes / 16 + (bytes % 16 != 0);
}

int gcm_floor_compute(const gcm_floor_rates *rates, const gcm_floor_shape *shape, gcm_floor *out)
{
    unsigned rounds;
    switch (shape->key_bits) {
    case 128: rounds = 10; break;
    case 192: rounds = 12; break;
    case 256: rounds = 14; break;
    default: return -1;
    }
    /* written so that NaN rates fail too */
    if (!(rates->aes_block_rounds_per_cycle > 0) || !(rates->clmul_products_per_cycle > 0)) {
        return -1;
    }
    double overlap = rates->overlap;
    if (!(overlap > 0)) {
        overlap = 0;
    } else if (overlap > 1) {
        overlap = 1;
    }

    memset(out, 0, sizeof *out);
    out->aes_blocks = blocks16(shape->msg_bytes) + 1;
    out->aes_ops = out->aes_blocks * rounds;
    out->ghash_blocks = blocks16(shape->aad_bytes) + blocks16(shape->msg_bytes) + 1;
    out->reductions = shape->agg_blocks == 0
                          ? 1
                          : (out->ghash_blocks + shape->agg_blocks - 1) / shape->agg_blocks;
    out->clmul_ops = out->ghash_blocks * (shape->karatsuba ? 3u : 4u) + 2 * out->reductions;

    out->aes_cycles = (double)out->aes_ops / rates->aes_block_rounds_per_cycle;
    out->clmul_cycles = (double)out->clmul_ops / rates->clmul_products_per_cycle;
    const double hi = out->aes_cycles >= out->clmul_cycles ? out->aes_cycles : out->clmul_cycles;
    const double lo = out->aes_cycles >= out->clmul_cycles ? out->clmul_cycles : out->aes_cycles;
    out->cycles = hi + (1 - overlap) * lo;
    out->cycles_per_byte = shape->msg_bytes ? out->cycles / (double)shape->msg_bytes : 0;
    out->bound = out->aes_cycles >= out->clmul_cycles ? GCM_FLOOR_AES : GCM_FLOOR_CLMUL;
    return 0;
}

const char *gcm_floor_bound_name(enum gcm_floor_bound b)
{
    return b == GCM_FLOOR_AES ? "AES" : "CLMUL";
}

int gcm_floor_rates_load(const char *csv_path, gcm_floor_rates *rates, double *core_ghz)
{
    FILE *f = fopen(csv_path, "r");
    if (f == NULL) {
        return -1;
    }
    /* rows: floor_input,ITEM,METRIC,VALUE,... */
    double aes = 0, clmul = 0, overlap = -1, ghz = 0;
    char line[512];
    while (fgets(line, sizeof line, f) != NULL) {
        static const char tag[] = "floor_input,";
        if (strncmp(line, tag, sizeof tag - 1) != 0) {
            continue;
        }
        char item[64], metric[64];
        double v;
        if (sscanf(line + sizeof tag - 1, "%63[^,],%63[^,],%lf", item, metric, &v) != 3) {
            continue;
        }
        if (strcmp(item, "aes") == 0) {
            aes = v;
        } else if (strcmp(item, "clmul") == 0) {
            clmul = v;
        } else if (strcmp(item, "overlap") == 0) {
            overlap = v;
        } else if (strcmp(item, "core") == 0) {
            ghz = v;
        }
    }
    fclose(f);
    if (!(aes > 0) || !(clmul > 0) || overlap < 0) {
        return -1;
    }
    rates->aes_block_rounds_per_cycle = aes;
    rates->clmul_products_per_cycle = clmul;
    rates->overlap = overlap;
    if (core_ghz != NULL) {
        *core_ghz = ghz;
    }
    return 0;
}
