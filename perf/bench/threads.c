/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads.c — threads mode: AES-256 encrypt; N threads (--threads, default: the CPUs this
 * process may use), each pinned to its own CPU with its own engine instance (mbgcm manager,
 * IMB_MGR, EVP contexts), own keys and buffers; aggregate GB/s over N threads and over one,
 * and their ratio (scaling). Engines: the best ring and burst, the reference peer's APIs, and
 * OpenSSL EVP.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "measure.h"
#include "modes.h"
#include "options.h"
#include "workload.h"

struct thr_shared {
    pthread_barrier_t ready;
    atomic_int stop;
    size_t size;
};

struct thr_arg {
    struct thr_shared *sh;
    struct engine tmpl;
    int cpu;
    unsigned index;
    double rate_bytes; /* result: bytes per second */
};

static void *thr_main(void *p)
{
    struct thr_arg *a = p;
    if (a->cpu >= 0) {
        (void)pin_to(a->cpu);
    }
    struct workload w;
    workload_init(&w, opt.keys, opt.bufs, a->sh->size == SIZE_IMIX ? IMIX_MAX : a->sh->size,
                  opt.aad_len, 0x9e3779b97f4a7c15u + a->index);
    workload_point(&w, 256, a->sh->size);
    struct engine e = engine_clone(&a->tmpl);
    engine_prepare(&e, &w);
    unsigned pos = 0;
    const uint64_t n = calibrate(&e, &w, DIR_ENC, 2e6, &pos); /* ~2 ms batches */
    pthread_barrier_wait(&a->sh->ready);
    uint64_t msgs = 0;
    const uint64_t t0 = now_ns();
    do {
        (void)time_batch(&e, &w, DIR_ENC, n, &pos);
        msgs += n;
    } while (!atomic_load_explicit(&a->sh->stop, memory_order_relaxed));
    const double dt = (double)(now_ns() - t0) * 1e-9;
    a->rate_bytes = (double)msgs / dt * w.avg_len;
    engine_teardown(&e);
    workload_free(&w);
    return NULL;
}

/* Aggregate bytes/s of |nthr| threads running |tmpl| at |size|. */
static double thr_measure(const struct engine *tmpl, size_t size, unsigned nthr, const int *cpus,
                          unsigned ncpus)
{
    struct thr_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.size = size;
    atomic_init(&sh.stop, 0);
    pthread_barrier_init(&sh.ready, NULL, nthr + 1);
    struct thr_arg *args = calloc(nthr, sizeof *args);
    pthread_t *tid = calloc(nthr, sizeof *tid);
    if (!args || !tid) {
        die("out of memory");
    }
    for (unsigned t = 0; t < nthr; t++) {
        args[t].sh = &sh;
        args[t].tmpl = *tmpl;
        args[t].cpu = ncpus ? cpus[t % ncpus] : -1;
        args[t].index = t;
        if (pthread_create(&tid[t], NULL, thr_main, &args[t]) != 0) {
            die("pthread_create failed");
        }
    }
    pthread_barrier_wait(&sh.ready);
    const struct timespec ts = {(time_t)opt.thr_seconds,
                                (long)((opt.thr_seconds - (double)(time_t)opt.thr_seconds) * 1e9)};
    nanosleep(&ts, NULL);
    atomic_store(&sh.stop, 1);
    double sum = 0;
    for (unsigned t = 0; t < nthr; t++) {
        pthread_join(tid[t], NULL);
        sum += args[t].rate_bytes;
    }
    pthread_barrier_destroy(&sh.ready);
    free(args);
    free(tid);
    return sum;
}

/* The engines of this mode, selected ones only. */
static unsigned thr_engines(const struct engine *eng, unsigned ne, const struct engine **list)
{
    unsigned n = 0;
    const struct engine *x;
    if ((x = best_mbgcm(eng, ne, API_RING)) != NULL && engine_wanted(x->name)) {
        list[n++] = x;
    }
    if ((x = best_mbgcm(eng, ne, API_BURST)) != NULL && engine_wanted(x->name)) {
        list[n++] = x;
    }
    for (unsigned i = 0; i < ne && n < MAX_ENGINES; i++) {
        if (((eng[i].ref && eng[i].family == FAM_IMB) || eng[i].family == FAM_EVP) &&
            engine_active(&eng[i], opt.keys)) {
            list[n++] = &eng[i];
        }
    }
    return n;
}

static void thr_header(unsigned N, const int *cpus, unsigned ncpus, FILE *csv)
{
    printf("\n== Threads (AES-256 encrypt, %u keys; one engine instance per thread: manager, "
           "IMB_MGR, EVP contexts) ==\n", opt.keys);
    printf("aggregate GB/s, median of %u reps [min .. max]; threads pinned to CPUs", opt.thr_reps);
    for (unsigned t = 0; t < N && t < ncpus; t++) {
        printf("%s%d", t ? "," : " ", cpus[t]);
    }
    if (N > ncpus) {
        printf(" (%u threads on %u CPUs: oversubscribed)", N, ncpus);
    }
    printf("; scaling = %u threads / 1 thread\n", N);
    char nthr[16];
    snprintf(nthr, sizeof nthr, "%u thr", N);
    printf("  %6s  %-26s %8s %-17s %8s %-17s %8s\n", "bytes", "engine", "1 thr", "[min .. max]",
           nthr, "[min .. max]", "scaling");
    if (csv) {
        fprintf(csv, "bytes,engine,threads,reps,gb_per_s_median,gb_per_s_min,gb_per_s_max\n");
    }
}

/* One line: medians of the 1-thread and N-thread repetitions; 1 when marked '!'. */
static int thr_line(const struct engine *e, size_t size, unsigned N, double *v1, double *vn,
                    FILE *csv)
{
    const unsigned R = opt.thr_reps;
    const double m1 = median(v1, R), mn = median(vn, R);
    const int warn =
        (v1[R - 1] - v1[0]) / m1 > SPREAD_WARN || (vn[R - 1] - vn[0]) / mn > SPREAD_WARN;
    char r1[40], rn[40], sz[24];
    snprintf(r1, sizeof r1, "[%.2f .. %.2f]", v1[0], v1[R - 1]);
    snprintf(rn, sizeof rn, "[%.2f .. %.2f]", vn[0], vn[R - 1]);
    printf("  %6s  %-26s %8.2f %-17s %8.2f %-17s %7.2fx%s\n", size_str(size, sz, sizeof sz),
           e->name, m1, r1, mn, rn, mn / m1, warn ? " !" : "");
    if (csv) {
        fprintf(csv, "%s,%s,1,%u,%.4f,%.4f,%.4f\n", sz, e->name, R, m1, v1[0], v1[R - 1]);
        fprintf(csv, "%s,%s,%u,%u,%.4f,%.4f,%.4f\n", sz, e->name, N, R, mn, vn[0], vn[R - 1]);
    }
    return warn;
}

void run_threads(const struct engine *eng, unsigned ne, const cpu_set_t *allowed, FILE *csv)
{
    int cpus[CPU_SETSIZE];
    unsigned ncpus = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, allowed)) {
            cpus[ncpus++] = c;
        }
    }
    const unsigned N = opt.threads ? opt.threads : (ncpus ? ncpus : 1), R = opt.thr_reps;
    const struct engine *list[MAX_ENGINES];
    const unsigned nl = thr_engines(eng, ne, list);
    thr_header(N, cpus, ncpus, csv);
    double *v1 = calloc((size_t)R * nl + 1, sizeof *v1);
    double *vn = calloc((size_t)R * nl + 1, sizeof *vn);
    if (!v1 || !vn) {
        die("out of memory");
    }
    char sz[24];
    unsigned nwarn = 0;
    for (unsigned si = 0; si < opt.nthr_sizes; si++) {
        const size_t size = opt.thr_sizes[si];
        for (unsigned r = 0; r < R; r++) { /* interleaved: engines and thread counts */
            for (unsigned i = 0; i < nl; i++) {
                v1[i * R + r] = thr_measure(list[i], size, 1, cpus, ncpus) * 1e-9;
                vn[i * R + r] = N == 1 ? v1[i * R + r]
                                       : thr_measure(list[i], size, N, cpus, ncpus) * 1e-9;
                progress("threads %s B rep %u/%u %s: %.2f GB/s (1), %.2f GB/s (%u)\n",
                         size_str(size, sz, sizeof sz), r + 1, R, list[i]->name, v1[i * R + r],
                         vn[i * R + r], N);
            }
        }
        for (unsigned i = 0; i < nl; i++) {
            nwarn += (unsigned)thr_line(list[i], size, N, &v1[i * R], &vn[i * R], csv);
        }
    }
    if (nwarn) {
        printf("warning: %u line(s) marked '!' vary by more than %.0f%% between repetitions\n",
               nwarn, SPREAD_WARN * 100);
    }
    free(v1);
    free(vn);
}
