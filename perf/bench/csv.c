/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * csv.c — the throughput CSV, one row per figure: what perf/plot.sh draws (GB/s vs size, one
 * panel per key size, direction and key count) and what a spreadsheet reads.
 * ratio_vs_best_peer / best_peer: against the reference peer's fastest API (report.c).
 */
#include "tput.h"

static void csv_row(FILE *csv, const struct tput *T, const struct engine *eng, struct point p,
                    unsigned i)
{
    const struct figure *g = tput_fig(T, p, i);
    const struct engine *e = &eng[i];
    int wp = -1;
    const double ref = ref_ns(T, eng, p, &wp);
    char sz[24];
    fprintf(csv, "%u,%s,%s,%.2f,%s,%s,%s,%u,%llu,%.2f,%.2f,%.2f,%.1f,%.4f,", opt.bits[p.bi],
            dir_short[opt.dirs[p.di]], size_str(opt.sizes[p.si], sz, sizeof sz), g->avg_len,
            e->name, api_name(e->api), e->is_mbgcm ? mbgcm_arch_label(e->lane_arch) : "",
            opt.reps, (unsigned long long)g->n, g->med, g->min, g->max,
            100.0 * (g->max - g->min) / g->med, g->avg_len / g->med);
    if (g->avg_len > 0) {
        fprintf(csv, "%.4f", g->med * g->ghz / g->avg_len);
    }
    fprintf(csv, ",%.3f,", g->ghz);
    if (e->is_mbgcm && ref > 0) {
        fprintf(csv, "%.3f,%s", ref / g->med, eng[wp].name);
    } else {
        fputc(',', csv);
    }
    fprintf(csv, ",%u\n", opt.keysets[p.ki]);
}

void csv_tput(FILE *csv, const struct tput *T, const struct engine *eng)
{
    fprintf(csv, "aes_bits,direction,bytes,avg_bytes,engine,api,arch,reps,msgs_per_rep,"
                 "ns_median,ns_min,ns_max,spread_pct,gb_per_s,cycles_per_byte,core_ghz,"
                 "ratio_vs_best_peer,best_peer,keys\n");
    for (unsigned ki = 0; ki < opt.nkeysets; ki++) {
        for (unsigned bi = 0; bi < opt.nbits; bi++) {
            for (unsigned di = 0; di < (unsigned)opt.ndirs; di++) {
                for (unsigned si = 0; si < opt.nsizes; si++) {
                    const struct point p = {ki, bi, di, si};
                    for (unsigned i = 0; i < T->ne; i++) {
                        if (tput_fig(T, p, i)->valid) {
                            csv_row(csv, T, eng, p, i);
                        }
                    }
                }
            }
        }
    }
}
