/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * keys.c — keys mode: what setting up one key costs, for users who derive a key per message
 * or per small batch (storage batchers, many-SA gateways). Per library, 1024 different keys
 * set up again and again on the same objects, ns and core cycles per key, median of --reps
 * repetitions interleaved across engines:
 *   mbgcm        mbgcm_key_init (round keys, the GHASH powers the kernels use, the key check)
 *   ipsec-mb     IMB_AES128/256_GCM_PRE (round keys and its GHASH key table), each peer
 *   OpenSSL      EVP_EncryptInit_ex(ctx, NULL, NULL, key, NULL) on an existing GCM context
 * The three do different amounts of precomputation for the same later work, so the figure is
 * the price a user pays per new key, not a like-for-like kernel comparison.
 */
#include "modes.h"
#include "options.h"
#include "workload.h"

#define KEYS_N 1024
#define KEYS_MAX_ENG 8
#define KEYS_MAX_REPS 64

void run_keys(struct engine *eng, unsigned ne, FILE *csv)
{
    const struct engine *list[KEYS_MAX_ENG];
    unsigned nl = 0;
    const struct engine *mb = best_mbgcm(eng, ne, API_ONESHOT);
    if (mb != NULL && mb->ops->rekey != NULL) {
        list[nl++] = mb;
    }
    for (unsigned i = 0; i < ne && nl < KEYS_MAX_ENG; i++) {
        if (eng[i].selected && eng[i].ops->rekey != NULL && !eng[i].is_mbgcm &&
            (eng[i].api == API_DIRECT || eng[i].api == API_EVP)) {
            list[nl++] = &eng[i];
        }
    }
    printf("\n== Key setup (ns and core cycles per key; %u keys set up again on the same objects, "
           "median of %u reps) ==\n",
           KEYS_N, opt.reps);
    printf("   bits  %-26s %10s  %-21s %10s %8s\n", "engine", "ns/key", "[min .. max]", "cyc/key",
           "vs mbgcm");
    if (csv != NULL) {
        fprintf(csv, "bits,engine,ns_per_key_median,ns_min,ns_max,cycles_per_key\n");
    }
    struct workload w;
    workload_init(&w, KEYS_N, KEYS_N, 64, opt.aad_len, 0x6b657973u);
    for (unsigned bi = 0; bi < opt.nbits; bi++) {
        workload_point(&w, opt.bits[bi], 64);
        double ns[KEYS_MAX_ENG][KEYS_MAX_REPS];
        for (unsigned e = 0; e < nl; e++) {
            struct engine *x = (struct engine *)list[e];
            engine_setup(x, &w.m);
            x->ops->rekey(x, &w.m); /* warm */
        }
        const double ghz = measure_ghz(5, 4.0);
        const unsigned reps = opt.reps < KEYS_MAX_REPS ? opt.reps : KEYS_MAX_REPS;
        for (unsigned r = 0; r < reps; r++) {
            for (unsigned e = 0; e < nl; e++) {
                struct engine *x = (struct engine *)list[e];
                const uint64_t t0 = run_ns();
                for (int i = 0; i < 8; i++) {
                    x->ops->rekey(x, &w.m);
                }
                ns[e][r] = (double)(run_ns() - t0) / (8.0 * KEYS_N);
            }
        }
        double mb_med = 0;
        for (unsigned e = 0; e < nl; e++) {
            double v[KEYS_MAX_REPS];
            memcpy(v, ns[e], reps * sizeof *v);
            const double med = median(v, reps);
            double lo = v[0], hi = v[0];
            for (unsigned r = 1; r < reps; r++) {
                lo = v[r] < lo ? v[r] : lo;
                hi = v[r] > hi ? v[r] : hi;
            }
            if (e == 0 && list[e]->is_mbgcm) {
                mb_med = med;
            }
            char range[48], rel[16] = "-";
            snprintf(range, sizeof range, "[%.1f .. %.1f]", lo, hi);
            if (mb_med > 0 && !list[e]->is_mbgcm) {
                snprintf(rel, sizeof rel, "%.2fx", med / mb_med);
            }
            printf("   %4u  %-26s %10.1f  %-21s %10.0f %8s\n", opt.bits[bi], list[e]->name, med,
                   range, med * ghz, rel);
            if (csv != NULL) {
                fprintf(csv, "%u,%s,%.2f,%.2f,%.2f,%.1f\n", opt.bits[bi], list[e]->name, med, lo,
                        hi, med * ghz);
            }
        }
    }
    printf("(vs mbgcm = that library's ns per key / mbgcm_key_init's: > 1 means mbgcm sets up a "
           "key faster)\n");
    workload_free(&w);
}
