/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_util.h — small helpers shared by mbgcm-bench (perf/mbgcm-bench.c, perf/bench/) and
 * perf/mbgcm-kbench.c: monotonic clock, errors, aligned allocation, medians, the core-clock
 * measurement, pinning and a description of the CPU. Header-only (static functions); include after _GNU_SOURCE.
 */
#ifndef MBGCM_BENCH_UTIL_H
#define MBGCM_BENCH_UTIL_H

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_PROG
#define BENCH_PROG "bench"
#endif

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, unused));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(BENCH_PROG ": error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* Zeroed, aligned memory or exit. */
static __attribute__((unused)) void *xaligned(size_t align, size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, align, n ? n : align) != 0) {
        die("out of memory (%zu bytes)", n);
    }
    memset(p, 0, n ? n : align);
    return p;
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread: unlike the monotonic clock it does not advance while the
   thread is descheduled, so other work sharing the CPU does not inflate a measurement (it
   still shares caches and the core's clock). */
static inline uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clock measurements use: thread CPU time, or wall time when bench_wall_clock is set
   (--wall-clock). One variable for the whole program, whichever of its files include this
   header: a weak definition, so that the header needs no companion source file. */
extern int bench_wall_clock;
__attribute__((weak)) int bench_wall_clock;
static inline uint64_t run_ns(void)
{
    return bench_wall_clock ? now_ns() : cpu_ns();
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v; afterwards v[0] is the min and v[n-1] the max). */
static __attribute__((unused)) double median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return (n & 1) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Core clock in GHz: N dependent register-register additions take N core cycles (latency 1
   each); the empty asm keeps every addition in the chain. The addend is a register the
   compiler cannot see through: Golden Cove cores (Sapphire Rapids) fold chains of
   add-immediate at rename and run them at several per cycle, so `x += 1` would read about
   20 GHz. Timed with run_ns() (thread CPU time by default: a wall-clock timing reads half
   the clock when another process shares the CPU). Median of |trials| runs of ~|ms| ms.
   The TSC is not used: it ticks at a fixed rate unrelated to the core clock (2.1-2.6 GHz on
   the VMs measured so far, with cores at 3.3-3.9 GHz). */
static __attribute__((unused)) double measure_ghz(unsigned trials, double ms)
{
    double g[16];
    if (trials > 16) {
        trials = 16;
    }
    if (trials == 0) {
        trials = 1;
    }
    for (unsigned t = 0; t < trials; t++) {
        uint64_t iters = 4096, x = 0, one = 1;
        __asm__ volatile("" : "+r"(one)); /* the compiler must not know it is 1 */
        for (;;) {
            const uint64_t t0 = run_ns();
            for (uint64_t i = 0; i < iters; i++) {
#define ADD1 x += one; __asm__ volatile("" : "+r"(x));
#define ADD8 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1 ADD1
                ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8 ADD8
#undef ADD8
#undef ADD1
            }
            const uint64_t dt = run_ns() - t0;
            if (dt >= ms * 1e6) {
                g[t] = (double)(iters * 64) / (double)dt;
                break;
            }
            iters *= 2;
        }
    }
    return median(g, trials);
}

/* TSC frequency in GHz (rdtsc against CLOCK_MONOTONIC over ~|ms| ms), for the record only. */
static __attribute__((unused)) double measure_tsc_ghz(double ms)
{
#if defined(__x86_64__)
    const uint64_t t0 = now_ns();
    const uint64_t c0 = __builtin_ia32_rdtsc();
    uint64_t t1;
    do {
        t1 = now_ns();
    } while ((double)(t1 - t0) < ms * 1e6);
    const uint64_t c1 = __builtin_ia32_rdtsc();
    return (double)(c1 - c0) / (double)(t1 - t0);
#else
    (void)ms;
    return 0;
#endif
}

/* Pin the calling thread to |cpu| (>= 0). Returns 0 or -1. */
static __attribute__((unused)) int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}

/* The value of the first "key : value" line of /proc/cpuinfo whose key starts with |key|. */
static __attribute__((unused)) int cpuinfo_field(const char *key, char *buf, size_t n)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) {
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int found = -1;
    const size_t klen = strlen(key);
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, key, klen) == 0) {
            const char *p = line + klen; /* only blanks may separate the key from ':' */
            while (*p == ' ' || *p == '\t') {
                p++;
            }
            if (*p == ':') {
                p++;
                while (*p == ' ') {
                    p++;
                }
                snprintf(buf, n, "%s", p);
                buf[strcspn(buf, "\n")] = '\0';
                found = 0;
                break;
            }
        }
    }
    free(line);
    fclose(f);
    return found;
}

/* "model name, family F model M stepping S" and the GCM-relevant flags the kernel reports. */
static __attribute__((unused)) void cpu_describe(char *model, size_t nm, char *flags, size_t nf)
{
    char name[160] = "unknown CPU", fam[16] = "?", mod[16] = "?", step[16] = "?";
    cpuinfo_field("model name", name, sizeof name);
    cpuinfo_field("cpu family", fam, sizeof fam);
    cpuinfo_field("model", mod, sizeof mod);
    cpuinfo_field("stepping", step, sizeof step);
    snprintf(model, nm, "%s (family %s, model %s, stepping %s)", name, fam, mod, step);

    static char all[8192];
    flags[0] = '\0';
    if (cpuinfo_field("flags", all, sizeof all) != 0) {
        return;
    }
    static const char *const want[] = {"aes", "pclmulqdq", "avx", "avx2", "bmi2", "vaes",
                                       "vpclmulqdq", "gfni", "avx512f", "avx512bw", "avx512vl",
                                       "avx512_fp16", "hypervisor"};
    size_t used = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        /* whole-word match in the space-separated list */
        const size_t wl = strlen(want[i]);
        const char *p = all;
        int hit = 0;
        while ((p = strstr(p, want[i])) != NULL) {
            if ((p == all || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\0')) {
                hit = 1;
                break;
            }
            p += wl;
        }
        if (hit && used + wl + 2 < nf) {
            used += (size_t)snprintf(flags + used, nf - used, "%s%s", used ? " " : "", want[i]);
        }
    }
}

#endif /* MBGCM_BENCH_UTIL_H */
