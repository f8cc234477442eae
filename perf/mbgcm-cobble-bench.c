/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm-cobble-bench.c — Cobblestone (c2sp.org/chunked-encryption) throughput: mbgcm's
 * storage layer against a straightforward OpenSSL EVP implementation of the same format, in
 * the same run, and the `mbgcm` command-line tool on a tmpfs file (docs/storage.md).
 *
 *   mbgcm one-shot     mbgcm_cobble_seal / mbgcm_cobble_open of the whole buffer (chunks in
 *                      bursts of same-key jobs through one manager per thread)
 *   mbgcm streaming    mbgcm_cobble_sealer/opener fed 8 MiB pieces per thread (what the CLI
 *                      does), output to a second buffer
 *   OpenSSL EVP        the same format written the obvious way: EVP_KDF HKDF-SHA-512
 *                      (expand-only), then per chunk EVP_EncryptInit_ex with the chunk nonce,
 *                      EncryptUpdate, EncryptFinal, GET_TAG (open: SET_TAG, DecryptFinal); with
 *                      T threads the chunks are split into T contiguous ranges, one
 *                      EVP_CIPHER_CTX each
 *   CLI, tmpfs file    `mbgcm seal|open --key-file K --threads T -o OUT IN` on files in
 *                      --tmpdir (default /dev/shm), wall time of the whole process; beside it
 *                      `cat IN > OUT` on the same files, the cost of moving the bytes alone
 *   ..., N KiB buffer  the in-memory rows again on a buffer that fits the caches
 *                      (--cache-size, default 2 MiB; 0: skip), mean over about as many bytes
 *                      as the big run: the cipher's speed without the memory bus
 *
 * Before anything is timed, each implementation must open what the other sealed (mbgcm opens
 * OpenSSL's message, OpenSSL opens mbgcm's; the CLI's output is compared with the input), else
 * the program exits 1. GB/s are plaintext bytes (10^9) per second of wall time, best of
 * --reps runs (cache-sized rows: the mean) (the machine is shared: the best run is the least
 * disturbed one). Buffers are touched before timing. Options: --size BYTES (default 1 GiB), --reps
 * N (3), --threads LIST (1,2), --key-bits 128|256 (256), --cli PATH (default: the tool built beside
 * this program),
 * --tmpdir DIR, --no-cli, --smoke (3 MiB, 256 KiB on the portable path; one rep: a CI check that
 * everything runs and agrees).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "mbgcm.h"
#include "mbgcm_cobble.h"

extern char **environ;

#define CHUNK  16384
#define SCHUNK 16400

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mbgcm-cobble-bench: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t *big(size_t n)
{
    void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        die("cannot map %zu bytes", n);
    }
    memset(p, 0, n); /* touch every page before timing */
    return p;
}

/* ---- the OpenSSL EVP implementation of the format ----------------------------------------------
 */

struct ossl_msg {
    const uint8_t *key;
    size_t key_len;
    uint8_t aes[32], base[12], commit[32];
};

static void ossl_derive(struct ossl_msg *m, const uint8_t salt[24])
{
    uint8_t info[31 + 16 + 1 + 24], okm[76];
    memcpy(info, "c2sp.org/chunked-encryption@v1+", 31);
    memcpy(info + 31, m->key_len == 16 ? "AEAD_AES_128_GCM" : "AEAD_AES_256_GCM", 16);
    info[47] = 0;
    memcpy(info + 48, salt, 24);
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *kc = EVP_KDF_CTX_new(kdf);
    int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA512", 0),
        OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)(uintptr_t)m->key,
                                          m->key_len),
        OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, sizeof info),
        OSSL_PARAM_construct_end(),
    };
    if (kc == NULL || EVP_KDF_derive(kc, okm, m->key_len + 44, p) != 1) {
        die("OpenSSL HKDF failed");
    }
    EVP_KDF_CTX_free(kc);
    EVP_KDF_free(kdf);
    memcpy(m->aes, okm, m->key_len);
    memcpy(m->base, okm + m->key_len, 12);
    memcpy(m->commit, okm + m->key_len + 12, 32);
}

struct ossl_job {
    const struct ossl_msg *m;
    int decrypt;
    const uint8_t *in; /* body (sealed) or plaintext */
    uint8_t *out;
    size_t pt_len;   /* whole message's plaintext length */
    uint64_t k0, k1; /* chunks [k0, k1) */
    int ok;
};

static void *ossl_run(void *arg)
{
    struct ossl_job *j = arg;
    const size_t nchunks = j->pt_len / CHUNK + 1;
    const EVP_CIPHER *c = j->m->key_len == 16 ? EVP_aes_128_gcm() : EVP_aes_256_gcm();
    EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
    j->ok = x != NULL && (j->decrypt ? EVP_DecryptInit_ex(x, c, NULL, j->m->aes, NULL)
                                     : EVP_EncryptInit_ex(x, c, NULL, j->m->aes, NULL)) == 1;
    for (uint64_t k = j->k0; k < j->k1 && j->ok; k++) {
        uint8_t nonce[12];
        memcpy(nonce, j->m->base, 12);
        for (int i = 0; i < 8; i++) {
            nonce[11 - i] ^= (uint8_t)(k >> (8 * i));
        }
        const size_t len = k + 1 < nchunks ? CHUNK : j->pt_len % CHUNK;
        int n = 0, f = 0;
        if (!j->decrypt) {
            const uint8_t *src = j->in + k * CHUNK;
            uint8_t *dst = j->out + k * SCHUNK;
            j->ok = EVP_EncryptInit_ex(x, NULL, NULL, NULL, nonce) == 1 &&
                    EVP_EncryptUpdate(x, dst, &n, src, (int)len) == 1 &&
                    EVP_EncryptFinal_ex(x, dst + n, &f) == 1 &&
                    EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, 16, dst + len) == 1;
        } else {
            const uint8_t *src = j->in + k * SCHUNK;
            uint8_t *dst = j->out + k * CHUNK;
            j->ok = EVP_DecryptInit_ex(x, NULL, NULL, NULL, nonce) == 1 &&
                    EVP_DecryptUpdate(x, dst, &n, src, (int)len) == 1 &&
                    EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_SET_TAG, 16,
                                        (void *)(uintptr_t)(src + len)) == 1 &&
                    EVP_DecryptFinal_ex(x, dst + n, &f) == 1;
        }
    }
    EVP_CIPHER_CTX_free(x);
    return NULL;
}

static int ossl_chunks(const struct ossl_msg *m, int decrypt, const uint8_t *in, uint8_t *out,
                       size_t pt_len, unsigned threads)
{
    const uint64_t n = pt_len / CHUNK + 1;
    struct ossl_job jobs[16];
    pthread_t tid[16];
    for (unsigned t = 0; t < threads; t++) {
        jobs[t] = (struct ossl_job){
            m, decrypt, in, out, pt_len, n * t / threads, n * (t + 1) / threads, 0};
        if (t > 0 && pthread_create(&tid[t], NULL, ossl_run, &jobs[t]) != 0) {
            die("pthread_create");
        }
    }
    ossl_run(&jobs[0]);
    int ok = jobs[0].ok;
    for (unsigned t = 1; t < threads; t++) {
        pthread_join(tid[t], NULL);
        ok &= jobs[t].ok;
    }
    return ok;
}

/* Seal: fresh salt, header, chunks. Returns the sealed length. */
static size_t ossl_seal(const uint8_t *key, size_t key_len, const uint8_t *pt, size_t pt_len,
                        uint8_t *out, unsigned threads)
{
    struct ossl_msg m = {.key = key, .key_len = key_len};
    if (RAND_bytes(out, 24) != 1) {
        die("RAND_bytes");
    }
    ossl_derive(&m, out);
    memcpy(out + 24, m.commit, 32);
    if (!ossl_chunks(&m, 0, pt, out + 56, pt_len, threads)) {
        die("OpenSSL seal failed");
    }
    return 56 + pt_len + 16 * (pt_len / CHUNK + 1);
}

/* Open: 1 when the commitment and every chunk check out. */
static int ossl_open(const uint8_t *key, size_t key_len, const uint8_t *ct, size_t ct_len,
                     uint8_t *out, unsigned threads)
{
    struct ossl_msg m = {.key = key, .key_len = key_len};
    if (ct_len < 72 || (ct_len - 56) % SCHUNK < 16) {
        return 0;
    }
    ossl_derive(&m, ct);
    if (CRYPTO_memcmp(m.commit, ct + 24, 32) != 0) {
        return 0;
    }
    const size_t body = ct_len - 56;
    const size_t pt_len = body / SCHUNK * CHUNK + body % SCHUNK - 16;
    return ossl_chunks(&m, 1, ct + 56, out, pt_len, threads);
}

/* ---- mbgcm streaming
 * ----------------------------------------------------------------------------- */

static size_t stream_seal(const uint8_t *key, size_t kl, const uint8_t *pt, size_t n, uint8_t *out,
                          unsigned threads)
{
    const mbgcm_cobble_opts o = {.threads = threads};
    const size_t piece = ((size_t)8 << 20) * threads;
    mbgcm_cobble_sealer *s;
    if (mbgcm_cobble_sealer_new(&s, out, key, kl, NULL, 0, &o) != MBGCM_OK) {
        die("sealer_new");
    }
    size_t w = 56;
    for (size_t i = 0; i < n; i += piece) {
        const size_t len = n - i < piece ? n - i : piece;
        size_t got;
        if (mbgcm_cobble_sealer_update(s, out + w, &got, MBGCM_COBBLE_SEAL_UPDATE_MAX(len), pt + i,
                                       len) != MBGCM_OK) {
            die("sealer_update");
        }
        w += got;
    }
    size_t got;
    if (mbgcm_cobble_sealer_finish(s, out + w, &got, MBGCM_COBBLE_SEAL_FINISH_MAX) != MBGCM_OK) {
        die("sealer_finish");
    }
    mbgcm_cobble_sealer_free(s);
    return w + got;
}

static size_t stream_open(const uint8_t *key, size_t kl, const uint8_t *ct, size_t n, uint8_t *out,
                          unsigned threads)
{
    const mbgcm_cobble_opts o = {.threads = threads};
    const size_t piece = ((size_t)8 << 20) * threads;
    mbgcm_cobble_opener *op;
    if (mbgcm_cobble_opener_new(&op, key, kl, NULL, 0, ct, 56, &o) != MBGCM_OK) {
        die("opener_new");
    }
    size_t w = 0;
    for (size_t i = 56; i < n; i += piece) {
        const size_t len = n - i < piece ? n - i : piece;
        size_t got;
        if (mbgcm_cobble_opener_update(op, out + w, &got, MBGCM_COBBLE_OPEN_UPDATE_MAX(len), ct + i,
                                       len) != MBGCM_OK) {
            die("opener_update");
        }
        w += got;
    }
    size_t got;
    if (mbgcm_cobble_opener_finish(op, out + w, &got, MBGCM_COBBLE_OPEN_FINISH_MAX) != MBGCM_OK) {
        die("opener_finish");
    }
    mbgcm_cobble_opener_free(op);
    return w + got;
}

/* ---- the CLI
 * ------------------------------------------------------------------------------------- */

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        die("cannot create %s: %s", path, strerror(errno));
    }
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w <= 0) {
            die("cannot write %s: %s", path, strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
    close(fd);
}

/* 1 when the file holds exactly |n| bytes equal to |p|. */
static int same_file(const char *path, const uint8_t *p, size_t n)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size != n) {
        if (fd >= 0) {
            close(fd);
        }
        return 0;
    }
    int same = 1;
    if (n > 0) {
        void *m = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        same = m != MAP_FAILED && memcmp(m, p, n) == 0;
        if (m != MAP_FAILED) {
            munmap(m, n);
        }
    }
    close(fd);
    return same;
}

/* Run the CLI; returns the wall time, dies on a non-zero exit. */
static double run_cli(const char *cli, const char *cmd, const char *key, unsigned threads,
                      const char *out, const char *in)
{
    char th[16];
    snprintf(th, sizeof th, "%u", threads);
    char *argv[] = {(char *)cli,         (char *)cmd, (char *)"--key-file", (char *)key,
                    (char *)"--threads", th,          (char *)"-o",         (char *)out,
                    (char *)in,          NULL};
    const double t0 = now_s();
    pid_t pid;
    if (posix_spawn(&pid, cli, NULL, NULL, argv, environ) != 0) {
        die("cannot run %s", cli);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        die("%s %s failed (status 0x%x)", cli, cmd, status);
    }
    return now_s() - t0;
}

/* `cat IN > OUT`: what moving the bytes through the same files costs (the I/O ceiling). */
static double run_cat(const char *in, const char *out)
{
    char *argv[] = {(char *)"cat", (char *)in, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const double t0 = now_s();
    pid_t pid;
    if (posix_spawnp(&pid, "cat", &fa, NULL, argv, environ) != 0) {
        die("cannot run cat");
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        die("cat failed");
    }
    posix_spawn_file_actions_destroy(&fa);
    return now_s() - t0;
}

/* ---- driver
 * ---------------------------------------------------------------------------------------- */

struct row {
    char what[96];
    unsigned threads;
    int group;         /* rows compare with the OpenSSL row of their group and thread count */
    double seal, open; /* GB/s */
};

static struct row rows[32];
static unsigned nrows;

static int cur_group;

static void add_row(const char *what, unsigned threads, double seal, double open_)
{
    struct row *r = &rows[nrows++];
    r->group = cur_group;
    snprintf(r->what, sizeof r->what, "%s", what);
    r->threads = threads;
    r->seal = seal;
    r->open = open_;
    fprintf(stderr, "  %-52s %u thread(s): seal %6.2f GB/s, open %6.2f GB/s\n", what, threads, seal,
            open_);
}

static double gbs(size_t bytes, double s)
{
    return s > 0 ? (double)bytes / s / 1e9 : 0.0;
}

/* Seal/open |size| bytes at |pt| with every implementation and thread count; best of |reps|.
   Row names get |suffix|. */
static void bench_memory(const uint8_t *key, size_t kl, const uint8_t *pt, uint8_t *ct,
                         uint8_t *back, size_t size, size_t clen, unsigned reps,
                         const unsigned *thr, unsigned nthr, const char *suffix, int mean)
{
    size_t n = 0;
    char label[96];
    for (unsigned ti = 0; ti < nthr; ti++) {
        const unsigned T = thr[ti];
        const mbgcm_cobble_opts opts = {.threads = T};
        double bs = 1e9, bo = 1e9;
        for (unsigned r = 0; r < reps; r++) {
            double t0 = now_s();
            if (mbgcm_cobble_seal(ct, &n, clen, key, kl, NULL, 0, pt, size, &opts) != MBGCM_OK) {
                die("mbgcm seal");
            }
            double t1 = now_s();
            if (mbgcm_cobble_open(back, &n, size, key, kl, NULL, 0, ct, clen, &opts) != MBGCM_OK ||
                n != size) {
                die("mbgcm open");
            }
            double t2 = now_s();
            bs = mean ? (r ? bs : 0) + (t1 - t0) / reps : (t1 - t0 < bs ? t1 - t0 : bs);
            bo = mean ? (r ? bo : 0) + (t2 - t1) / reps : (t2 - t1 < bo ? t2 - t1 : bo);
        }
        if (memcmp(back, pt, size) != 0) {
            die("mbgcm round trip differs");
        }
        snprintf(label, sizeof label, "mbgcm one-shot%s", suffix);
        add_row(label, T, gbs(size, bs), gbs(size, bo));

        bs = bo = 1e9;
        for (unsigned r = 0; r < reps; r++) {
            double t0 = now_s();
            ossl_seal(key, kl, pt, size, ct, T);
            double t1 = now_s();
            if (!ossl_open(key, kl, ct, clen, back, T)) {
                die("OpenSSL open");
            }
            double t2 = now_s();
            bs = mean ? (r ? bs : 0) + (t1 - t0) / reps : (t1 - t0 < bs ? t1 - t0 : bs);
            bo = mean ? (r ? bo : 0) + (t2 - t1) / reps : (t2 - t1 < bo ? t2 - t1 : bo);
        }
        if (memcmp(back, pt, size) != 0) {
            die("OpenSSL round trip differs");
        }
        snprintf(label, sizeof label, "OpenSSL EVP, same format%s", suffix);
        add_row(label, T, gbs(size, bs), gbs(size, bo));

        bs = bo = 1e9;
        for (unsigned r = 0; r < reps; r++) {
            double t0 = now_s();
            if (stream_seal(key, kl, pt, size, ct, T) != clen) {
                die("streaming seal length");
            }
            double t1 = now_s();
            if (stream_open(key, kl, ct, clen, back, T) != size) {
                die("streaming open length");
            }
            double t2 = now_s();
            bs = mean ? (r ? bs : 0) + (t1 - t0) / reps : (t1 - t0 < bs ? t1 - t0 : bs);
            bo = mean ? (r ? bo : 0) + (t2 - t1) / reps : (t2 - t1 < bo ? t2 - t1 : bo);
        }
        if (memcmp(back, pt, size) != 0) {
            die("streaming round trip differs");
        }
        snprintf(label, sizeof label, "mbgcm streaming, 8 MiB/thread%s", suffix);
        add_row(label, T, gbs(size, bs), gbs(size, bo));
    }
}

int main(int argc, char **argv)
{
    size_t size = (size_t)1 << 30;
    unsigned reps = 3, kbits = 256, thr[8] = {1, 2}, nthr = 2;
    const char *cli = NULL, *tmpdir = "/dev/shm";
    size_t cache_size = (size_t)2 << 20;
    int no_cli = 0, smoke = 0;
    static const struct option lo[] = {
        {"size", required_argument, NULL, 's'},
        {"reps", required_argument, NULL, 'r'},
        {"threads", required_argument, NULL, 't'},
        {"key-bits", required_argument, NULL, 'k'},
        {"cli", required_argument, NULL, 'c'},
        {"tmpdir", required_argument, NULL, 'd'},
        {"no-cli", no_argument, NULL, 'n'},
        {"smoke", no_argument, NULL, 'S'},
        {"cache-size", required_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        switch (opt) {
        case 's': size = strtoull(optarg, NULL, 0); break;
        case 'r': reps = (unsigned)atoi(optarg); break;
        case 'k': kbits = (unsigned)atoi(optarg); break;
        case 'c': cli = optarg; break;
        case 'd': tmpdir = optarg; break;
        case 'C': cache_size = strtoull(optarg, NULL, 0); break;
        case 'n': no_cli = 1; break;
        case 'S': smoke = 1; break;
        case 't': {
            nthr = 0;
            for (char *s = optarg; *s && nthr < 8;) {
                thr[nthr++] = (unsigned)strtoul(s, &s, 10);
                s += *s == ',';
            }
            break;
        }
        default:
            fprintf(stderr,
                    "usage: %s [--size BYTES] [--reps N] [--threads 1,2] "
                    "[--key-bits 128|256] [--cli PATH] [--tmpdir DIR] [--no-cli] "
                    "[--cache-size BYTES] [--smoke]\n",
                    argv[0]);
            return opt == 'h' ? 0 : 2;
        }
    }
    if (smoke) {
        mbgcm_mgr *probe = mbgcm_mgr_new(NULL);
        const int slow = probe == NULL || strcmp(mbgcm_mgr_arch(probe), "generic") == 0;
        mbgcm_mgr_free(probe);
        size = slow ? (256u << 10) + 5 : (3u << 20) + 5; /* the portable C path: ~15 MB/s */
        reps = 1;
        cache_size = slow ? 64u << 10 : 256u << 10;
    }
    if (reps < 1 || (kbits != 128 && kbits != 256) || nthr == 0) {
        die("bad options");
    }
    for (unsigned i = 0; i < nthr; i++) {
        if (thr[i] < 1 || thr[i] > 16) {
            die("threads must be 1..16");
        }
    }
    char cli_buf[4096];
    if (cli == NULL) { /* the tool built beside us: <build>/perf/.. -> <build>/tools/mbgcm */
        char self[4000];
        const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n > 0) {
            self[n] = '\0';
            char *slash = strrchr(self, '/');
            if (slash != NULL) {
                *slash = '\0';
            }
            snprintf(cli_buf, sizeof cli_buf, "%s/../tools/mbgcm", self);
            cli = cli_buf;
        }
    }
    if (!no_cli && (cli == NULL || access(cli, X_OK) != 0)) {
        fprintf(stderr, "mbgcm-cobble-bench: no CLI at %s: CLI rows skipped\n",
                cli ? cli : "(unknown)");
        no_cli = 1;
    }

    const size_t kl = kbits / 8;
    uint8_t key[32];
    if (RAND_bytes(key, sizeof key) != 1) {
        die("RAND_bytes");
    }
    size_t clen;
    if (mbgcm_cobble_sealed_len(size, &clen) != MBGCM_OK) {
        die("size too large");
    }
    fprintf(stderr, "mbgcm-cobble-bench: %zu bytes, Cobblestone-%u, best of %u\n", size, kbits,
            reps);
    uint8_t *pt = big(size), *ct = big(clen), *back = big(size);
    RAND_bytes(pt, (int)(size < (1u << 20) ? size : (1u << 20)));
    for (size_t i = 1u << 20; i < size; i += 1u << 20) { /* cheap fill, not all zero */
        memcpy(pt + i, pt, size - i < (1u << 20) ? size - i : (1u << 20));
        pt[i] ^= (uint8_t)(i >> 20);
    }

    /* agreement checks (untimed) */
    size_t n = 0;
    if (mbgcm_cobble_seal(ct, &n, clen, key, kl, NULL, 0, pt, size, NULL) != MBGCM_OK ||
        n != clen || !ossl_open(key, kl, ct, clen, back, 2) || memcmp(back, pt, size) != 0) {
        die("OpenSSL does not open mbgcm's message");
    }
    memset(back, 0, size);
    if (ossl_seal(key, kl, pt, size, ct, 2) != clen ||
        mbgcm_cobble_open(back, &n, size, key, kl, NULL, 0, ct, clen, NULL) != MBGCM_OK ||
        memcmp(back, pt, size) != 0) {
        die("mbgcm does not open OpenSSL's message");
    }

    cur_group = 0;
    bench_memory(key, kl, pt, ct, back, size, clen, reps, thr, nthr, "", 0);
    if (cache_size > 0 && cache_size < size) {
        char suffix[48];
        size_t cclen;
        if (mbgcm_cobble_sealed_len(cache_size, &cclen) != MBGCM_OK) {
            die("cache size");
        }
        snprintf(suffix, sizeof suffix, ", %zu KiB buffer (mean)", cache_size >> 10);
        /* about as many bytes as the big run, in a buffer that stays in the caches */
        const unsigned creps = (unsigned)(size / cache_size < 4 ? 4 : size / cache_size);
        cur_group = 1;
        bench_memory(key, kl, pt, ct, back, cache_size, cclen, creps < 2000 ? creps : 2000, thr,
                     nthr, suffix, 1);
    }

    cur_group = 2; /* no OpenSSL row: the CLI is compared with cat */
    if (!no_cli) {
        munmap(ct, clen);
        munmap(back, size);
        char kp[4200], ip[4200], cp[4200], op[4200];
        snprintf(kp, sizeof kp, "%s/mbgcm-cobble-bench-%d.key", tmpdir, (int)getpid());
        snprintf(ip, sizeof ip, "%s/mbgcm-cobble-bench-%d.in", tmpdir, (int)getpid());
        snprintf(cp, sizeof cp, "%s/mbgcm-cobble-bench-%d.sealed", tmpdir, (int)getpid());
        snprintf(op, sizeof op, "%s/mbgcm-cobble-bench-%d.out", tmpdir, (int)getpid());
        write_file(kp, key, kl);
        write_file(ip, pt, size);
        for (unsigned ti = 0; ti < nthr; ti++) {
            const unsigned T = thr[ti];
            double bs = 1e9, bo = 1e9;
            for (unsigned r = 0; r < reps; r++) {
                const double s = run_cli(cli, "seal", kp, T, cp, ip);
                const double o = run_cli(cli, "open", kp, T, op, cp);
                bs = s < bs ? s : bs;
                bo = o < bo ? o : bo;
                if (!same_file(op, pt, size)) {
                    die("the CLI's round trip differs");
                }
                unlink(op);
            }
            add_row("CLI, tmpfs file", T, gbs(size, bs), gbs(size, bo));
        }
        double bc = 1e9, bc2 = 1e9;
        for (unsigned r = 0; r < reps; r++) {
            const double a = run_cat(ip, op), b = run_cat(cp, op);
            bc = a < bc ? a : bc;
            bc2 = b < bc2 ? b : bc2;
            unlink(op);
        }
        add_row("cat IN > OUT (I/O ceiling)", 1, gbs(size, bc), gbs(size, bc2));
        unlink(kp), unlink(ip), unlink(cp), unlink(op);
    } else {
        munmap(ct, clen);
        munmap(back, size);
    }
    munmap(pt, size);

    /* the table */
    struct utsname u;
    uname(&u);
    char model[300] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                snprintf(model, sizeof model, "%s", c ? c + 2 : line);
                model[strcspn(model, "\n")] = '\0';
                break;
            }
        }
        fclose(f);
    }
    mbgcm_mgr *m = mbgcm_mgr_new(NULL);
    printf("Cobblestone-%u, %.0f MiB in memory, best of %u; %s, %ld CPUs, %s %s; mbgcm %s "
           "(manager arch %s), %s\n\n",
           kbits, (double)size / 1048576.0, reps, model, sysconf(_SC_NPROCESSORS_ONLN), u.sysname,
           u.release, mbgcm_version(), m ? mbgcm_mgr_arch(m) : "?",
           OpenSSL_version(OPENSSL_VERSION));
    mbgcm_mgr_free(m);
    printf("| implementation | threads | seal GB/s | open GB/s | seal vs OpenSSL | open vs OpenSSL "
           "|\n");
    printf("|---|---|---|---|---|---|\n");
    for (unsigned i = 0; i < nrows; i++) {
        const struct row *base = NULL;
        for (unsigned j = 0; j < nrows; j++) {
            if (rows[j].threads == rows[i].threads && rows[j].group == rows[i].group &&
                strncmp(rows[j].what, "OpenSSL", 7) == 0) {
                base = &rows[j];
            }
        }
        printf("| %s | %u | %.2f | %.2f |", rows[i].what, rows[i].threads, rows[i].seal,
               rows[i].open);
        if (base != NULL && base != &rows[i] && base->seal > 0 && base->open > 0) {
            printf(" %.2fx | %.2fx |\n", rows[i].seal / base->seal, rows[i].open / base->open);
        } else {
            printf(" – | – |\n");
        }
    }
    return 0;
}
