/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbgcm.c — the `mbgcm` command-line tool: Cobblestone (c2sp.org/chunked-encryption v1)
 * sealing and opening of files and pipes with libmbgcm's streaming calls.
 *
 *   mbgcm seal|open (--key-file FILE | --key-fd N | --key-hex HEX) [--context-hex HEX]
 *                   [-o OUT] [--threads N] [INPUT | -]
 *   mbgcm --help | --version
 *
 * Exit status: 0 success; 1 authentication or format failure (wrong key or context, modified,
 * truncated, trailing data: one line on stderr says which); 2 usage error; 3 I/O error. When
 * the reader of standard output goes away (EPIPE), the tool ends quietly by SIGPIPE, as
 * standard filters do (status 141 in a shell); if SIGPIPE was ignored when the tool started,
 * it reports the write error instead (exit 3).
 *
 * Checks before any output: the key, an INPUT that is a directory, an OUT that is a directory
 * or not a regular file, and `seal` to a terminal (refused unless `-o -` asks for it). `seal`
 * reads its first input block before it writes the header, so an unreadable input leaves
 * the output empty.
 *
 * Output safety: with -o the output goes to a temporary file beside OUT (same directory, so
 * the rename is atomic) that is renamed over OUT only after everything succeeded; any failure
 * or a SIGINT/SIGTERM/SIGHUP removes it, so OUT never holds unauthenticated plaintext and an
 * existing OUT is never clobbered by a failed run.
 *
 * Blocks: input goes to the library in blocks of 8 MiB per thread (a pipe is read until a
 * block is full or the input ends; a regular file is mapped, no read copy) and each block's
 * output is written with one write after the library returns it. For `open` that output is
 * the chunks the block completed, every one authenticated; when one of them fails the library
 * releases nothing of the block, so standard output ends with whole authentic chunks up to an
 * earlier block boundary (the exit status says whether the whole message was authentic). The
 * final, short chunk is written only after it authenticated at the end of the input.
 * A progress bar is drawn on stderr when it is a terminal and the input is at least 16 MiB.
 */
#define _GNU_SOURCE /* mkostemp, explicit_bzero */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mbgcm.h"
#include "mbgcm_cobble.h"

enum { EX_OK = 0, EX_AUTH = 1, EX_USAGE = 2, EX_IO = 3 };
/* Internal result: standard output was closed by its reader (EPIPE); main ends by SIGPIPE. */
enum { EX_PIPE_GONE = -1 };

#define BLOCK_PER_THREAD ((size_t)8 << 20)
#define PROGRESS_MIN     ((uint64_t)16 << 20)
#define MAX_THREADS      256

static const char usage_text[] =
    "usage: mbgcm seal|open KEY [--context-hex HEX] [-o OUT] [--threads N] [INPUT | -]\n"
    "       mbgcm --help | --version\n"
    "KEY is one of --key-file FILE, --key-fd N, --key-hex HEX.\n";

static const char help_text[] =
    "mbgcm — Cobblestone chunked authenticated encryption (c2sp.org/chunked-encryption v1)\n"
    "\n"
    "usage: mbgcm seal|open KEY [--context-hex HEX] [-o OUT] [--threads N] [INPUT | -]\n"
    "\n"
    "  seal   encrypt INPUT: a fresh random salt, a key commitment, 16 KiB AES-GCM chunks\n"
    "  open   check and decrypt a sealed INPUT\n"
    "\n"
    "INPUT is a file; without one, or with \"-\", standard input is read.\n"
    "\n"
    "Key (exactly one; 16 bytes select Cobblestone-128, 32 bytes Cobblestone-256; the key\n"
    "must be uniformly random, e.g. head -c 32 /dev/urandom > key):\n"
    "  --key-file FILE    read the raw key from FILE: exactly 16 or 32 bytes, no newline,\n"
    "                     not hex text (for hex digits use --key-hex)\n"
    "  --key-fd N         read the raw key from file descriptor N until end of file\n"
    "  --key-hex HEX      the key as 32 or 64 hex digits. WARNING: command lines are visible\n"
    "                     to every user of the machine (ps, /proc/PID/cmdline); prefer\n"
    "                     --key-file or --key-fd\n"
    "Options:\n"
    "  --context-hex HEX  context bytes bound to the message (default: none); open needs the\n"
    "                     same context as seal\n"
    "  -o OUT             write to OUT instead of standard output: into a temporary file in\n"
    "                     OUT's directory, renamed over OUT only on success (mode 0600).\n"
    "                     -o - is standard output; seal refuses a terminal unless given -o -\n"
    "  --threads N        threads for the chunk work, 1..256 (default 1)\n"
    "  -h, --help         show this help\n"
    "  -V, --version      show the version\n"
    "\n"
    "open writes nothing that did not authenticate: with -o, OUT appears only when the whole\n"
    "message checked out; to standard output, the plaintext comes out per 8 MiB input block\n"
    "(per thread) once every chunk of the block authenticated, and only exit status 0 means\n"
    "the message was complete and authentic.\n"
    "\n"
    "Exit status: 0 success; 1 authentication or format failure (wrong key or context,\n"
    "modified, truncated, trailing data; stderr says which); 2 usage error; 3 I/O error.\n"
    "When the reader of standard output goes away, mbgcm ends quietly by SIGPIPE (141).\n"
    "Environment: MBGCM_ARCH=generic|aesni|avx2|avx512|auto forces the code path.\n";

/* ---- messages ---------------------------------------------------------------------------- */

static int progress_drawn; /* a progress line is on stderr and must be cleared first */

static void clear_progress(void)
{
    if (progress_drawn) {
        fputs("\r\033[K", stderr);
        progress_drawn = 0;
    }
}

__attribute__((format(printf, 2, 3))) static int die(int code, const char *fmt, ...)
{
    va_list ap;
    clear_progress();
    fputs("mbgcm: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

static int usage_error(const char *what)
{
    fprintf(stderr, "mbgcm: %s\n%s(mbgcm --help for details)\n", what, usage_text);
    return EX_USAGE;
}

/* ---- the temporary output file ------------------------------------------------------------- */

static char tmp_path[PATH_MAX];
static volatile sig_atomic_t tmp_live;

static void on_signal(int sig)
{
    if (tmp_live) {
        unlink(tmp_path); /* async-signal-safe */
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void remove_tmp(void)
{
    if (tmp_live) {
        tmp_live = 0;
        unlink(tmp_path);
    }
}

/* ---- I/O helpers ------------------------------------------------------------------------------
 */

/* Read until |n| bytes or end of input. Returns the count, or -1 (errno set). */
static ssize_t read_full(int fd, uint8_t *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        const ssize_t r = read(fd, p + got, n - got);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        if (r == 0) {
            break;
        }
        got += (size_t)r;
    }
    return (ssize_t)got;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int hex_val(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* Decode |s| (even length, hex digits only) into a new buffer. Returns 0 or -1. */
static int hex_decode(const char *s, uint8_t **out, size_t *out_len)
{
    const size_t n = strlen(s);
    if (n % 2 != 0) {
        return -1;
    }
    uint8_t *b = malloc(n / 2 + 1);
    if (b == NULL) {
        return -1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        const int hi = hex_val((unsigned char)s[2 * i]), lo = hex_val((unsigned char)s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            explicit_bzero(b, n / 2 + 1);
            free(b);
            return -1;
        }
        b[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = b;
    *out_len = n / 2;
    return 0;
}

/* Parse a decimal integer in [lo, hi]. Returns 0 or -1. */
static int parse_uint(const char *s, long lo, long hi, long *v)
{
    char *end;
    errno = 0;
    const long x = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi) {
        return -1;
    }
    *v = x;
    return 0;
}

/* ---- progress bar ---------------------------------------------------------------------------- */

struct progress {
    int tty;        /* stderr is a terminal */
    uint64_t total; /* input size, 0 when unknown */
    uint64_t done;
    double t0, last;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fmt_bytes(char *buf, size_t n, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024.0 && u < 4) {
        b /= 1024.0;
        u++;
    }
    snprintf(buf, n, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
}

static void progress_step(struct progress *pg, uint64_t add, int final)
{
    pg->done += add;
    if (!pg->tty || (pg->total ? pg->total : pg->done) < PROGRESS_MIN) {
        return;
    }
    const double t = now_s();
    if (!final && progress_drawn && t - pg->last < 0.1) {
        return;
    }
    pg->last = t;
    char done[32], total[32];
    fmt_bytes(done, sizeof done, (double)pg->done);
    const double el = t - pg->t0 > 1e-6 ? t - pg->t0 : 1e-6;
    const double rate = (double)pg->done / el / 1e9;
    if (pg->total) {
        const double frac = pg->done >= pg->total ? 1.0 : (double)pg->done / (double)pg->total;
        char bar[31];
        const int fill = (int)(frac * 30.0);
        for (int i = 0; i < 30; i++) {
            bar[i] = i < fill ? '#' : '.';
        }
        bar[30] = '\0';
        fmt_bytes(total, sizeof total, (double)pg->total);
        fprintf(stderr, "\rmbgcm: [%s] %3d%%  %s / %s  %.2f GB/s\033[K", bar, (int)(frac * 100.0),
                done, total, rate);
    } else {
        fprintf(stderr, "\rmbgcm: %s  %.2f GB/s\033[K", done, rate);
    }
    progress_drawn = 1;
}

/* ---- command state ----------------------------------------------------------------------------
 */

struct cmd {
    int seal;
    const char *key_file, *key_fd, *key_hex, *context_hex, *out_path, *in_path;
    long threads;
    uint8_t key[32];
    size_t key_len;
    uint8_t *context;
    size_t context_len;
    int in_fd, out_fd;
    const uint8_t *map; /* mapped regular input file, or NULL */
    size_t map_len;
    uint8_t *inbuf, *outbuf;
    size_t block, outcap;
    size_t in_touched, out_touched; /* high-water marks: what cleanup must wipe */
    struct progress pg;
};

/* Bytes of a key source kept for the checks: enough for 64 hex digits with a CRLF or some
   spaces, so that a hex key file is recognised as such. */
#define KEY_READ_MAX 96

static int is_space(uint8_t b)
{
    return b == '\n' || b == '\r' || b == ' ' || b == '\t';
}

/* 1 for the raw key lengths the tool takes (Cobblestone's: AES-128 and AES-256) */
static int key_len_ok(size_t n)
{
    return n == 16 || n == 32;
}

/* A key source of the wrong shape: one line that says what is wrong and how to fix it.
   |more| is set when the source holds more than the |n| bytes read; |file| is the key file's
   name, or NULL for a descriptor. */
static int key_shape_error(const char *what, const char *file, const uint8_t *b, size_t n,
                           int more)
{
    if (more) {
        return die(EX_USAGE,
                   "the key from %s is longer than %d bytes; a key is exactly 16 or 32 raw "
                   "bytes (e.g. head -c 32 /dev/urandom > key)",
                   what, KEY_READ_MAX);
    }
    size_t m = n; /* without trailing white space */
    while (m > 0 && is_space(b[m - 1])) {
        m--;
    }
    size_t hex = 0;
    while (hex < m && hex_val(b[hex]) >= 0) {
        hex++;
    }
    const char *const nl = m < n ? " and a line end" : "";
    if (m > 0 && hex == m) {
        if (m == 32 || m == 64) {
            return die(EX_USAGE,
                       "the key from %s looks like hex text (%zu hex digits%s), not raw bytes; "
                       "give the digits with --key-hex, or convert the file to the raw %zu bytes "
                       "(xxd -r -p)",
                       what, m, nl, m / 2);
        }
        return die(EX_USAGE,
                   "the key from %s looks like hex text (%zu hex digits%s), not raw bytes; a "
                   "key is exactly 16 or 32 raw bytes, or 32 or 64 hex digits with --key-hex",
                   what, m, nl);
    }
    if (n > 0 && b[n - 1] == '\n') {
        /* A line end is LF or CR LF; a raw key may itself end in a CR byte, so LF alone is
           taken when that leaves a key length. */
        const int crlf = n >= 2 && b[n - 2] == '\r' && !key_len_ok(n - 1);
        const size_t k = n - 1 - (size_t)crlf;
        if (key_len_ok(k) && file != NULL) {
            return die(EX_USAGE,
                       "the key from %s has %zu bytes: %zu key bytes and a line end; a key is "
                       "exactly 16 or 32 raw bytes, no newline: remove it (truncate -s %zu %s)",
                       what, n, k, k, file);
        }
        if (key_len_ok(k)) {
            return die(EX_USAGE,
                       "the key from %s has %zu bytes: %zu key bytes and a line end; a key is "
                       "exactly 16 or 32 raw bytes, no newline: remove the line end",
                       what, n, k);
        }
        return die(EX_USAGE,
                   "the key from %s has %zu bytes and ends with a newline; a key is exactly 16 "
                   "or 32 raw bytes, not text (e.g. head -c 32 /dev/urandom > key)",
                   what, n);
    }
    return die(EX_USAGE,
               "the key from %s has %zu bytes; a key is exactly 16 or 32 raw bytes (e.g. head "
               "-c 32 /dev/urandom > key)",
               what, n);
}

/* Read the raw key from |fd| (until EOF; at most KEY_READ_MAX + 1 bytes kept). A source of 16
   or 32 bytes that are all hex digits is refused: a random key is never that (the chance is
   below 2^-56), while hex text written to a key file is a common mistake that would otherwise
   give a different, weaker key than the user meant. */
static int read_key_fd(struct cmd *c, int fd, const char *what, const char *file)
{
    uint8_t buf[KEY_READ_MAX + 1];
    const ssize_t r = read_full(fd, buf, sizeof buf);
    if (r < 0) {
        const int e = errno;
        explicit_bzero(buf, sizeof buf);
        return die(EX_IO, "cannot read the key from %s: %s", what, strerror(e));
    }
    const size_t n = (size_t)r;
    size_t hex = 0;
    while (hex < n && hex_val(buf[hex]) >= 0) {
        hex++;
    }
    if (!key_len_ok(n) || hex == n) {
        const int rc = key_shape_error(what, file, buf, n < KEY_READ_MAX ? n : KEY_READ_MAX,
                                       n > KEY_READ_MAX);
        explicit_bzero(buf, sizeof buf);
        return rc;
    }
    memcpy(c->key, buf, n);
    c->key_len = n;
    explicit_bzero(buf, sizeof buf);
    return EX_OK;
}

static int load_key(struct cmd *c)
{
    const int nsrc = (c->key_file != NULL) + (c->key_fd != NULL) + (c->key_hex != NULL);
    if (nsrc != 1) {
        return usage_error(nsrc ? "give only one of --key-file, --key-fd, --key-hex"
                                : "a key is required: --key-file, --key-fd or --key-hex");
    }
    if (c->key_hex != NULL) {
        uint8_t *k = NULL;
        size_t n = 0;
        if (hex_decode(c->key_hex, &k, &n) != 0 || !key_len_ok(n)) {
            if (k != NULL) {
                explicit_bzero(k, n);
                free(k);
            }
            return usage_error("--key-hex needs exactly 32 or 64 hex digits");
        }
        memcpy(c->key, k, n);
        c->key_len = n;
        explicit_bzero(k, n);
        free(k);
        return EX_OK;
    }
    if (c->key_fd != NULL) {
        long fd;
        if (parse_uint(c->key_fd, 0, INT_MAX, &fd) != 0) {
            return usage_error("--key-fd needs a file descriptor number");
        }
        char what[48];
        snprintf(what, sizeof what, "file descriptor %ld", fd);
        return read_key_fd(c, (int)fd, what, NULL);
    }
    const int fd = open(c->key_file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return die(EX_IO, "cannot open key file %s: %s", c->key_file, strerror(errno));
    }
    const int rc = read_key_fd(c, fd, c->key_file, c->key_file);
    close(fd);
    return rc;
}

static int open_input(struct cmd *c)
{
    c->in_fd = STDIN_FILENO;
    if (c->in_path != NULL && strcmp(c->in_path, "-") != 0) {
        c->in_fd = open(c->in_path, O_RDONLY | O_CLOEXEC);
        if (c->in_fd < 0) {
            return die(EX_IO, "cannot open %s: %s", c->in_path, strerror(errno));
        }
    }
    struct stat st;
    const int have_st = fstat(c->in_fd, &st) == 0;
    if (have_st && S_ISDIR(st.st_mode)) {
        /* said up front and plainly, rather than as a failed read(2) */
        return die(EX_IO, "%s is a directory, not a file to %s",
                   c->in_fd == STDIN_FILENO ? "standard input" : c->in_path,
                   c->seal ? "seal" : "open");
    }
    if (have_st && S_ISREG(st.st_mode)) {
        c->pg.total = (uint64_t)st.st_size;
        if (st.st_size > 0 && (uint64_t)st.st_size <= SIZE_MAX) {
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, c->in_fd, 0);
            if (m != MAP_FAILED) {
                madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
                c->map = m;
                c->map_len = (size_t)st.st_size;
            }
        }
    }
    return EX_OK;
}

static int open_output(struct cmd *c)
{
    c->out_fd = STDOUT_FILENO;
    if (c->out_path == NULL || strcmp(c->out_path, "-") == 0) {
        return EX_OK;
    }
    /* temporary file in OUT's directory: "<dir>/.<name>.mbgcm-XXXXXX" */
    const char *slash = strrchr(c->out_path, '/');
    const int dirlen = slash ? (int)(slash - c->out_path + 1) : 0;
    const char *name = slash ? slash + 1 : c->out_path;
    if (*name == '\0') {
        return usage_error("-o needs a file name, not a directory");
    }
    /* OUT is replaced by a rename at the very end: check now what would make that fail or
       replace something that is not a file (a device, a pipe), before any work is done. */
    struct stat st;
    if (stat(c->out_path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            return die(EX_IO, "-o %s is a directory; name the output file (e.g. -o %s/NAME)",
                       c->out_path, c->out_path);
        }
        if (!S_ISREG(st.st_mode)) {
            return die(EX_IO,
                       "-o %s is not a regular file (the output replaces OUT when done); to "
                       "write to a device or pipe, redirect standard output instead",
                       c->out_path);
        }
    }
    const int n =
        snprintf(tmp_path, sizeof tmp_path, "%.*s.%s.mbgcm-XXXXXX", dirlen, c->out_path, name);
    if (n < 0 || (size_t)n >= sizeof tmp_path) {
        return die(EX_IO, "output path too long: %s", c->out_path);
    }
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old); /* no signal between creation and tmp_live */
    c->out_fd = mkostemp(tmp_path, O_CLOEXEC);
    const int e = errno;
    if (c->out_fd >= 0) {
        tmp_live = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (c->out_fd < 0) {
        return die(EX_IO, "cannot create a temporary file beside %s: %s", c->out_path, strerror(e));
    }
    return EX_OK;
}

/* Commit the output: flush the temporary file and rename it over OUT. */
static int finish_output(struct cmd *c)
{
    if (!tmp_live) {
        return EX_OK;
    }
    if (fsync(c->out_fd) != 0 && errno != EINVAL) {
        return die(EX_IO, "cannot write %s: %s", c->out_path, strerror(errno));
    }
    if (close(c->out_fd) != 0) {
        c->out_fd = -1;
        return die(EX_IO, "cannot write %s: %s", c->out_path, strerror(errno));
    }
    c->out_fd = -1;
    if (rename(tmp_path, c->out_path) != 0) {
        return die(EX_IO, "cannot rename the temporary file to %s: %s", c->out_path,
                   strerror(errno));
    }
    tmp_live = 0;
    return EX_OK;
}

/* Set when SIGPIPE was ignored as the tool started: then a closed standard output is reported
   as a write error, as standard filters do under that disposition. */
static int sigpipe_ignored;

static int out_write(struct cmd *c, const uint8_t *p, size_t n)
{
    if (p == c->outbuf && n > c->out_touched) {
        c->out_touched = n;
    }
    if (n && write_all(c->out_fd, p, n) != 0) {
        if (errno == EPIPE && c->out_fd == STDOUT_FILENO && !sigpipe_ignored) {
            return EX_PIPE_GONE; /* quiet: the reader needed no more */
        }
        return die(EX_IO, "cannot write %s: %s", tmp_live ? c->out_path : "standard output",
                   strerror(errno));
    }
    return EX_OK;
}

/* Next input block: the mapped file's next slice, or a read into inbuf. *n = 0 at the end. */
static int next_block(struct cmd *c, size_t *off, const uint8_t **p, size_t *n)
{
    if (c->map != NULL) {
        *p = c->map + *off;
        *n = c->map_len - *off < c->block ? c->map_len - *off : c->block;
        *off += *n;
        return EX_OK;
    }
    const ssize_t r = read_full(c->in_fd, c->inbuf, c->block);
    if (r < 0) {
        return die(EX_IO, "cannot read %s: %s", c->in_path ? c->in_path : "standard input",
                   strerror(errno));
    }
    *p = c->inbuf;
    *n = (size_t)r;
    if (*n > c->in_touched) {
        c->in_touched = *n;
    }
    return EX_OK;
}

/* A library failure: exit status and one line. */
static int lib_failure(const char *op, int st)
{
    switch (st) {
    case MBGCM_ERR_NOMEM:
    case MBGCM_ERR_LIBCRYPTO: return die(EX_IO, "%s: %s", op, mbgcm_cobble_strerror(st));
    case MBGCM_ERR_UNSUPPORTED:
        return die(EX_USAGE, "%s: %s (check MBGCM_ARCH)", op, mbgcm_cobble_strerror(st));
    default: return die(EX_IO, "%s: internal error: %s", op, mbgcm_cobble_strerror(st));
    }
}

static int do_seal(struct cmd *c, const mbgcm_cobble_opts *opts)
{
    /* The first block is read before the header goes out: an input that cannot be read
       leaves the output empty. */
    const uint8_t *p = NULL;
    size_t off = 0, n = 0;
    int rc = next_block(c, &off, &p, &n);
    if (rc != EX_OK) {
        return rc;
    }
    mbgcm_cobble_sealer *s;
    uint8_t hdr[MBGCM_COBBLE_HEADER_LEN];
    int st = mbgcm_cobble_sealer_new(&s, hdr, c->key, c->key_len, c->context, c->context_len, opts);
    if (st != MBGCM_OK) {
        return lib_failure("seal", st);
    }
    rc = out_write(c, hdr, sizeof hdr);
    while (rc == EX_OK && n > 0) {
        size_t m = 0;
        st = mbgcm_cobble_sealer_update(s, c->outbuf, &m, c->outcap, p, n);
        if (st != MBGCM_OK) {
            rc = st == MBGCM_ERR_LEN ? die(EX_IO, "seal: the input is too long for the format "
                                                  "(2^38 chunks)")
                                     : lib_failure("seal", st);
            break;
        }
        rc = out_write(c, c->outbuf, m);
        progress_step(&c->pg, n, 0);
        if (rc == EX_OK) {
            rc = next_block(c, &off, &p, &n);
        }
    }
    if (rc == EX_OK) {
        size_t m;
        st = mbgcm_cobble_sealer_finish(s, c->outbuf, &m, c->outcap);
        rc = st != MBGCM_OK ? lib_failure("seal", st) : out_write(c, c->outbuf, m);
    }
    mbgcm_cobble_sealer_free(s);
    return rc;
}

/* The open failure line: which class, and where. */
static int open_failure(mbgcm_cobble_opener *o, int st, int at_finish)
{
    uint64_t k = 0;
    const int have_k = o != NULL && mbgcm_cobble_opener_failed_chunk(o, &k) == MBGCM_OK;
    switch (st) {
    case MBGCM_ERR_COMMITMENT:
        return die(EX_AUTH, "open: wrong key or context: the key commitment in the header does "
                            "not match (or the header was modified)");
    case MBGCM_ERR_TRUNCATED:
        return die(EX_AUTH, "open: truncated input: the sealed message ends before its final "
                            "chunk");
    case MBGCM_ERR_TRAILING:
        return die(EX_AUTH,
                   "open: trailing data: more bytes follow the final chunk "
                   "(chunk %llu)",
                   (unsigned long long)k);
    case MBGCM_ERR_AUTH:
        if (at_finish) {
            return die(EX_AUTH,
                       "open: modified or truncated input: the last chunk (chunk "
                       "%llu) failed authentication",
                       (unsigned long long)k);
        }
        if (have_k) {
            return die(EX_AUTH, "open: modified input: chunk %llu failed authentication",
                       (unsigned long long)k);
        }
        return die(EX_AUTH, "open: modified input: a chunk failed authentication");
    case MBGCM_ERR_LEN:
        return die(EX_AUTH, "open: input too long: a sealed message has fewer than 2^38 "
                            "chunks");
    default: return lib_failure("open", st);
    }
}

static int do_open(struct cmd *c, const mbgcm_cobble_opts *opts)
{
    uint8_t hdr[MBGCM_COBBLE_HEADER_LEN];
    size_t off = 0, hlen;
    if (c->map != NULL) {
        hlen = c->map_len < sizeof hdr ? c->map_len : sizeof hdr;
        memcpy(hdr, c->map, hlen);
        off = hlen;
    } else {
        const ssize_t r = read_full(c->in_fd, hdr, sizeof hdr);
        if (r < 0) {
            return die(EX_IO, "cannot read %s: %s", c->in_path ? c->in_path : "standard input",
                       strerror(errno));
        }
        hlen = (size_t)r;
    }
    mbgcm_cobble_opener *o;
    int st = mbgcm_cobble_opener_new(&o, c->key, c->key_len, c->context, c->context_len, hdr, hlen,
                                     opts);
    if (st != MBGCM_OK) {
        return open_failure(NULL, st, 0);
    }
    progress_step(&c->pg, hlen, 0);
    int rc = EX_OK;
    for (;;) {
        const uint8_t *p = NULL;
        size_t n = 0, m = 0;
        if ((rc = next_block(c, &off, &p, &n)) != EX_OK || n == 0) {
            break;
        }
        st = mbgcm_cobble_opener_update(o, c->outbuf, &m, c->outcap, p, n);
        if (st != MBGCM_OK) {
            rc = open_failure(o, st, 0);
            break;
        }
        if ((rc = out_write(c, c->outbuf, m)) != EX_OK) {
            break;
        }
        progress_step(&c->pg, n, 0);
    }
    if (rc == EX_OK) {
        size_t m;
        st = mbgcm_cobble_opener_finish(o, c->outbuf, &m, c->outcap);
        rc = st != MBGCM_OK ? open_failure(o, st, 1) : out_write(c, c->outbuf, m);
    }
    mbgcm_cobble_opener_free(o);
    return rc;
}

static int run(struct cmd *c)
{
    int rc = load_key(c);
    if (rc != EX_OK) {
        return rc;
    }
    if (c->context_hex != NULL && hex_decode(c->context_hex, &c->context, &c->context_len) != 0) {
        return usage_error("--context-hex needs an even number of hex digits");
    }
    if ((rc = open_input(c)) != EX_OK || (rc = open_output(c)) != EX_OK) {
        return rc;
    }
    const unsigned threads = (unsigned)c->threads;
    c->block = BLOCK_PER_THREAD * threads;
    c->outcap =
        c->seal ? MBGCM_COBBLE_SEAL_UPDATE_MAX(c->block) : MBGCM_COBBLE_OPEN_UPDATE_MAX(c->block);
    if (c->outcap < MBGCM_COBBLE_SEAL_FINISH_MAX) {
        c->outcap = MBGCM_COBBLE_SEAL_FINISH_MAX;
    }
    c->outbuf = malloc(c->outcap);
    c->inbuf = c->map == NULL ? malloc(c->block) : NULL;
    if (c->outbuf == NULL || (c->map == NULL && c->inbuf == NULL)) {
        return die(EX_IO, "out of memory");
    }
    c->pg.tty = isatty(STDERR_FILENO);
    c->pg.t0 = now_s();
    const mbgcm_cobble_opts opts = {.threads = threads, .arch = NULL, .mgr = NULL};
    rc = c->seal ? do_seal(c, &opts) : do_open(c, &opts);
    if (rc == EX_OK) {
        progress_step(&c->pg, 0, 1);
        clear_progress();
        rc = finish_output(c);
    }
    return rc;
}

static void cleanup(struct cmd *c)
{
    explicit_bzero(c->key, sizeof c->key);
    if (c->outbuf != NULL) {
        explicit_bzero(c->outbuf, c->out_touched); /* may hold plaintext */
        free(c->outbuf);
    }
    if (c->inbuf != NULL) {
        explicit_bzero(c->inbuf, c->in_touched);
        free(c->inbuf);
    }
    free(c->context);
    if (c->map != NULL) {
        munmap((void *)(uintptr_t)c->map, c->map_len);
    }
    if (tmp_live && c->out_fd >= 0) {
        close(c->out_fd);
    }
    remove_tmp();
}

static int print_text(const char *text)
{
    fputs(text, stdout);
    return fflush(stdout) == 0 ? EX_OK : EX_IO;
}

static int print_version(void)
{
    char line[64];
    snprintf(line, sizeof line, "mbgcm %s\n", mbgcm_version());
    return print_text(line);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        return usage_error("a command is required: seal or open");
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        return print_text(help_text);
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        return print_version();
    }
    struct cmd c = {.threads = 1, .in_fd = -1, .out_fd = -1};
    if (strcmp(argv[1], "seal") == 0) {
        c.seal = 1;
    } else if (strcmp(argv[1], "open") != 0) {
        char what[96];
        snprintf(what, sizeof what, "unknown command '%.40s' (seal or open)", argv[1]);
        return usage_error(what);
    }
    enum { O_KEY_FILE = 256, O_KEY_FD, O_KEY_HEX, O_CONTEXT_HEX, O_THREADS };
    static const struct option longopts[] = {
        {"key-file", required_argument, NULL, O_KEY_FILE},
        {"key-fd", required_argument, NULL, O_KEY_FD},
        {"key-hex", required_argument, NULL, O_KEY_HEX},
        {"context-hex", required_argument, NULL, O_CONTEXT_HEX},
        {"threads", required_argument, NULL, O_THREADS},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char **slot;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc - 1, argv + 1, ":o:hV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'h': return print_text(help_text);
        case 'V': return print_version();
        case 'o': slot = &c.out_path; break;
        case O_KEY_FILE: slot = &c.key_file; break;
        case O_KEY_FD: slot = &c.key_fd; break;
        case O_KEY_HEX: slot = &c.key_hex; break;
        case O_CONTEXT_HEX: slot = &c.context_hex; break;
        case O_THREADS:
            if (parse_uint(optarg, 1, MAX_THREADS, &c.threads) != 0) {
                return usage_error("--threads needs a number from 1 to 256");
            }
            continue;
        case ':': {
            char what[96];
            snprintf(what, sizeof what, "option %.40s needs a value", (argv + 1)[optind - 1]);
            return usage_error(what);
        }
        default: {
            char what[96];
            if (optopt) {
                snprintf(what, sizeof what, "unknown option -%c", optopt);
            } else {
                snprintf(what, sizeof what, "unknown option %.40s", (argv + 1)[optind - 1]);
            }
            return usage_error(what);
        }
        }
        if (*slot != NULL) {
            return usage_error("an option was given twice");
        }
        *slot = optarg;
    }
    const int npos = argc - 1 - optind;
    if (npos > 1) {
        return usage_error("at most one INPUT");
    }
    if (npos == 1) {
        c.in_path = argv[1 + optind];
    }

    /* Sealed output is binary: a terminal gets it only when asked for with -o -. */
    if (c.seal && c.out_path == NULL && isatty(STDOUT_FILENO)) {
        return die(EX_USAGE, "refusing to write sealed (binary) output to a terminal; redirect "
                             "it (> FILE), use -o FILE, or force it with -o -");
    }

    /* SIGPIPE is ignored while working so that a closed standard output comes back as EPIPE:
       the tool then wipes and frees its buffers and ends by SIGPIPE itself (main, below). */
    struct sigaction old_pipe;
    sigaction(SIGPIPE, NULL, &old_pipe);
    sigpipe_ignored = old_pipe.sa_handler == SIG_IGN;
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    const int rc = run(&c);
    cleanup(&c);
    if (rc == EX_PIPE_GONE) {
        clear_progress();
        sigset_t pipe_set;
        sigemptyset(&pipe_set);
        sigaddset(&pipe_set, SIGPIPE);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_UNBLOCK, &pipe_set, NULL);
        raise(SIGPIPE);
        return 128 + SIGPIPE; /* not reached: the default action ends the process */
    }
    return rc;
}
