/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm-bench.c — one-process, side-by-side benchmark of mbgcm against intel-ipsec-mb and
 * OpenSSL EVP: throughput (table, CSV, data for the plot), latency under Poisson arrivals,
 * and scaling over threads. Run it through scripts/bench.sh (docs/perf.md).
 *
 * Engines (each a name in the output; --engines selects by substring)
 *   mbgcm-oneshot-ARCH   mbgcm_encrypt/mbgcm_decrypt, the arch forced with an internal hook.
 *                        Arches whose one-shot kernels are the same as a lower arch's are
 *                        listed but not re-run unless --all-arches.
 *   mbgcm-ring-ARCH      the job ring: mbgcm_get_next_job, every field set, mbgcm_submit_job,
 *                        completed jobs drained as they come back; mbgcm_flush_job until NULL
 *                        at the end of every repetition. A manager per engine (--lanes,
 *                        --queue). ARCH is the lane kernel that runs; a manager arch whose
 *                        lanes are still the portable C kernel is shown as
 *                        mbgcm-ring-generic(aesni) and only run with --all-arches.
 *   mbgcm-burst-ARCH     mbgcm_submit_burst over arrays of --burst caller-owned jobs.
 *                        MBGCM_ARCH=A in the environment runs only arch A's mbgcm engines.
 *   ipsec-mb-VER-direct  IMB_AES*_GCM_ENC/DEC, keys from IMB_AES*_GCM_PRE; decrypt compares
 *                        the tag itself, as every caller of that API must.
 *   ipsec-mb-VER-job     IMB_GET_NEXT_JOB / IMB_SUBMIT_JOB / IMB_GET_COMPLETED_JOB, flushed
 *                        with IMB_FLUSH_JOB at the end of every repetition; IMB_CIPHER_GCM +
 *                        IMB_AUTH_AES_GMAC, CIPHER_HASH order to encrypt, HASH_CIPHER to
 *                        decrypt; the computed tag is compared on completion for decrypt.
 *   ipsec-mb-VER-burst   IMB_GET_NEXT_BURST / IMB_SUBMIT_BURST of --burst jobs (the generic
 *                        burst call: IMB_SUBMIT_AEAD_BURST takes only AES-CCM up to 3.0.0-dev),
 *                        suite_id from imb_set_session once per direction; IMB_FLUSH_BURST at
 *                        the end of every repetition.
 *   ipsec-mb-VER-quic    imb_quic_aes_gcm over arrays of --burst packets: one key for all, so
 *                        it runs only with one key (--one-key or --keys 1); 1.4 and later.
 *   openssl-evp          one EVP_CIPHER_CTX per key and direction, reused; the IV reset per
 *                        message with EVP_*Init_ex(ctx, NULL, NULL, NULL, iv), as servers do.
 *   VER is imb_get_version_str() of the library loaded. Every ipsec-mb version is reached
 *   through an adapter shared object (perf/bench/peer_imb.c), dlopen()ed with RTLD_LOCAL:
 *   Debian's 1.3 is always built with the bench (when libipsec-mb-dev is installed), a current
 *   one when the build is configured with MBGCM_BENCH_IPSEC_MB_PREFIX (scripts/bench.sh
 *   --ipsec-mb-src DIR|TARBALL does that); --peers picks adapter files. --imb-arch picks the
 *   ipsec-mb manager (init_mb_mgr_auto, _sse, _avx2, _avx512, _avx10).
 *
 * Workload (same for all): AES-128 and AES-256 GCM, encrypt and decrypt, 12-byte IV, --aad
 * bytes of AAD (16), 16-byte tag, out of place; message sizes from --sizes, "imix" being the
 * 7:4:1 mix of 64/594/1518-byte messages in a fixed interleaved order. K raw keys (--keys; a
 * list such as 64,1 measures every point once per key count; --one-key adds 1) used
 * round-robin; messages live in a pool of slots (--bufs, at least K; a multiple of lcm(K, 12)
 * for imix) at varying addresses: slot j sits 24*j mod 64 bytes from a cache line in an arena
 * with an odd number of cache lines as stride. Decrypt inputs are the reference ciphertexts
 * and tags, made with OpenSSL. Before any timing, every engine's output is checked against the
 * reference for every slot (encrypt: ciphertext and tag; decrypt: status and plaintext); a
 * mismatch aborts the run.
 *
 * Throughput mode (--mode tput; perf/bench/tput.c): one thread pinned (the CPU it starts on or
 *   --cpu); warm-up; per point every engine calibrated to batches of --seconds-per-point /
 *   --reps, repetitions interleaved across engines; median with min and max, '!' when
 *   (max-min)/median > 10%. Time is the thread's CPU time (--wall-clock: CLOCK_MONOTONIC);
 *   cycles are core cycles from a dependent-add loop (bench_util.h), not the TSC. Engines on
 *   portable C kernels get --capped-share of the budget.
 *   ratio = reference ns / mbgcm ns, the reference being the fastest API of the reference
 *   peer at that point: the newest ipsec-mb other than Debian's; Debian's 1.3 only when no
 *   current one is loaded (the header says so); OpenSSL when no ipsec-mb is.
 * Latency mode (--mode latency; perf/bench/latency.c): AES-256 encrypt, Poisson arrivals at
 *   --lat-loads, submit-to-completion percentiles; the ring without and with a flush timeout,
 *   the best one-shot, the reference peer's direct and job APIs.
 * Threads mode (--mode threads; perf/bench/threads.c): AES-256 encrypt, one engine instance
 *   per pinned thread; aggregate GB/s of N threads and of one.
 * Keys mode (--mode keys; perf/bench/keys.c): key setup, ns per key, per library.
 * Stream mode (--mode stream; perf/bench/stream.c): mbgcm only, public API: one long message
 *   (--stream-sizes) fed in --piece-byte pieces, against mbgcm_encrypt/decrypt of all of it:
 *   mbgcm_ctx_update per piece, and one burst job with scatter-gather lists of piece-sized
 *   segments (beside the same job linear); ns per message and throughput ratios to the
 *   one-shot, the four variants interleaved in every repetition.
 * --mode all runs every mode.
 *
 * Output: tables on stdout, progress on stderr, CSV with --csv FILE (throughput; the other
 * modes go to FILE with -latency.csv / -threads.csv / -keys.csv / -stream.csv in place of
 * .csv). perf/plot.sh turns the throughput CSV into a PNG.
 *
 * Modules (perf/bench/): options (command line), workload (messages and references), engines
 * (the list), engine_mbgcm (+ engine_mbgcm_internal: every use of library internals),
 * engine_evp, peers (ipsec-mb adapters; peer_api.h is their interface, peer_imb.c their
 * source), measure (batches, calibration, checks), tput / report / csv (throughput), latency,
 * threads, keys, stream.
 */
#include <openssl/crypto.h>
#include <unistd.h>

#include <mbgcm.h>

#include "bench/engine.h"
#include "bench/modes.h"
#include "bench/options.h"
#include "bench/peers.h"
#include "bench/tput.h"

/* Other work on the machine is the main source of noise: say how much there was. */
static void print_load(const char *what)
{
    double l1 = -1, l5 = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf %lf", &l1, &l5) != 2) {
            l1 = l5 = -1;
        }
        fclose(f);
    }
    if (l1 >= 0) {
        const long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        printf("%s: load average %.2f (1 min), %.2f (5 min) on %ld CPUs%s\n", what, l1, l5, ncpu,
               l1 > 0.5 * (double)ncpu ? ": other work is running, expect noise" : "");
    }
}

static FILE *open_csv(const char *base, const char *suffix, char *path, size_t n)
{
    if (base == NULL) {
        return NULL;
    }
    size_t l = strlen(base);
    if (suffix == NULL) {
        snprintf(path, n, "%s", base);
    } else {
        if (l >= 4 && strcmp(base + l - 4, ".csv") == 0) {
            l -= 4;
        }
        snprintf(path, n, "%.*s-%s.csv", (int)l, base, suffix);
    }
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        die("cannot write %s: %s", path, strerror(errno));
    }
    return f;
}

static void close_csv(FILE *f, const char *path)
{
    if (f == NULL) {
        return;
    }
    if (fclose(f) != 0) {
        die("error writing %s", path);
    }
    printf("CSV written to %s\n", path);
}

/* Pin to --cpu or the CPU we run on (unless --no-pin); the CPU, or -1. */
static int pin_main(void)
{
    if (opt.cpu == -2) {
        return -1;
    }
    const int cpu = opt.cpu >= 0 ? opt.cpu : sched_getcpu();
    if (cpu >= 0 && pin_to(cpu) != 0) {
        fprintf(stderr, "mbgcm-bench: warning: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
        return -1;
    }
    return cpu;
}

static void print_header(int cpu)
{
    char model[256], flags[256], keys[64] = "", imb[128];
    cpu_describe(model, sizeof model, flags, sizeof flags);
    printf("mbgcm-bench: mbgcm %s%s%s%s vs %s and %s\n", mbgcm_version(), opt.label ? " (" : "",
           opt.label ? opt.label : "", opt.label ? ")" : "", peers_versions(imb, sizeof imb),
           OpenSSL_version(OPENSSL_VERSION));
    printf("CPU: %s; %d CPUs online; %s", model, (int)sysconf(_SC_NPROCESSORS_ONLN),
           cpu >= 0 ? "pinned to CPU " : "not pinned");
    if (cpu >= 0) {
        printf("%d", cpu);
    }
    printf("\nflags: %s\n", flags);
#if defined(__clang__)
    printf("compiler: clang %s", __clang_version__);
#elif defined(__GNUC__)
    printf("compiler: gcc %s", __VERSION__);
#else
    printf("compiler: unknown");
#endif
    printf("; TSC %.2f GHz (not used for cycles)\n", measure_tsc_ghz(20));
    print_load("machine load at start");
    peers_print();
    for (unsigned i = 0; i < opt.nkeysets; i++) {
        const size_t l = strlen(keys);
        snprintf(keys + l, sizeof keys - l, "%s%u", i ? ", then " : "", opt.keysets[i]);
    }
    printf("workload: 12-byte IV, %u-byte AAD, 16-byte tag, out of place; keys round-robin%s: %s "
           "(each over >= %u slots) at offsets 24*j mod 64\n", opt.aad_len,
           opt.key_random ? " in a shuffled order" : "", keys, opt.bufs);
    printf("mbgcm managers: lanes %s, queue %s, burst %u jobs; figures ~%.3g s each over %u reps "
           "(engines on portable C kernels: %.0f%% of that)\n",
           opt.lanes ? "set" : "default", opt.queue ? "set" : "default", opt.burst, opt.seconds,
           opt.reps, opt.capped_share * 100);
}

static void print_notes(const struct engine *eng, unsigned ne)
{
    for (unsigned i = 0; i < ne; i++) {
        const char *capped = eng[i].capped && eng[i].selected
                                 ? "portable C kernels (~200 cycles/byte): time budget capped"
                                 : "";
        if (eng[i].note[0] || capped[0]) {
            printf("note: %s: %s%s%s\n", eng[i].name, eng[i].note,
                   eng[i].note[0] && capped[0] ? "; " : "", capped);
        } else if (!eng[i].selected) {
            printf("note: %s: not selected\n", eng[i].name);
        }
    }
}

/* The largest message size of the throughput and latency modes. */
static size_t max_size(void)
{
    size_t cap = 16;
    for (unsigned i = 0; i < opt.nsizes; i++) {
        cap = opt.sizes[i] != SIZE_IMIX && opt.sizes[i] > cap ? opt.sizes[i] : cap;
    }
    for (unsigned i = 0; i < opt.nlat_sizes; i++) {
        cap = opt.lat_sizes[i] != SIZE_IMIX && opt.lat_sizes[i] > cap ? opt.lat_sizes[i] : cap;
    }
    return cap;
}

int main(int argc, char **argv)
{
    parse_options(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    const uint64_t t_main = now_ns();
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        CPU_SET(0, &allowed);
    }
    struct engine eng[MAX_ENGINES];
    const unsigned ne = build_engines(eng);
    const size_t cap = max_size();
    print_header(pin_main());
    print_notes(eng, ne);

    char path[1024];
    if (opt.modes & MODE_TPUT) {
        FILE *f = open_csv(opt.csv, NULL, path, sizeof path);
        run_tput(eng, ne, cap, f);
        close_csv(f, path);
    }
    for (unsigned i = 0; i < ne; i++) {
        engine_teardown(&eng[i]);
    }
    if (opt.modes & MODE_LAT) {
        FILE *f = open_csv(opt.csv, "latency", path, sizeof path);
        run_latency(eng, ne, cap, f);
        close_csv(f, path);
    }
    if (opt.modes & MODE_THR) {
        FILE *f = open_csv(opt.csv, "threads", path, sizeof path);
        run_threads(eng, ne, &allowed, f);
        close_csv(f, path);
    }
    if (opt.modes & MODE_KEYS) {
        FILE *f = open_csv(opt.csv, "keys", path, sizeof path);
        run_keys(eng, ne, f);
        close_csv(f, path);
        for (unsigned i = 0; i < ne; i++) {
            engine_teardown(&eng[i]);
        }
    }
    if (opt.modes & MODE_STREAM) {
        FILE *f = open_csv(opt.csv, "stream", path, sizeof path);
        run_stream(f);
        close_csv(f, path);
    }
    print_load("machine load at end");
    printf("total time %.1f s\n", (double)(now_ns() - t_main) * 1e-9);
    return 0;
}
