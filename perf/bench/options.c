/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * options.c — mbgcm-bench's options: defaults, parsing, --help, and the small helpers every
 * module uses (size names, progress output).
 */
#include <getopt.h>

#include "options.h"

struct options opt;

const char *const dir_name[2] = {"encrypt", "decrypt"};
const char *const dir_short[2] = {"enc", "dec"};

const char *size_str(size_t s, char *buf, size_t n)
{
    if (s == SIZE_IMIX) {
        snprintf(buf, n, "imix");
    } else {
        snprintf(buf, n, "%zu", s);
    }
    return buf;
}

void progress(const char *fmt, ...)
{
    if (opt.quiet) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static const char usage_text[] =
    "usage: mbgcm-bench [options]\n"
    "modes\n"
    "  --mode LIST             tput,latency,threads,keys,stream or all (default tput); keys:\n"
    "                          key setup (mbgcm_key_init, IMB_AES*_GCM_PRE, EVP_EncryptInit_ex\n"
    "                          with a key) in ns per key over 1024 keys, 128 and 256 bits;\n"
    "                          stream: one long message in pieces, see below\n"
    "throughput (tput)\n"
    "  --sizes LIST            message sizes in bytes and/or 'imix' (7:4:1 of 64/594/1518)\n"
    "                          (default 16,64,256,512,1024,1420,4096,16384,imix)\n"
    "  --bits LIST             AES key sizes: 128,256 (default both)\n"
    "  --dirs LIST             enc,dec (default both)\n"
    "  --aad N                 AAD bytes per message, 0..4096 (default 16); with --sizes 0:\n"
    "                          GMAC (no message, the AAD authenticated)\n"
    "  --keys LIST             keys used round-robin; a list runs every point once per key\n"
    "                          count, e.g. 64,1 (default 64; latency and threads use the first)\n"
    "  --one-key               also run every point with one key shared by all messages (the\n"
    "                          DPDK-session case; adds 1 to --keys); ipsec-mb's QUIC call\n"
    "                          runs only with one key\n"
    "  --bufs B                message slots at varying addresses (default 64, >= K)\n"
    "  --key-order seq|random  slot j takes key j mod K (seq, default: consecutive slots,\n"
    "                          consecutive keys in memory) or that key's place in a fixed\n"
    "                          shuffle (random: as SAs met in arrival order; with many keys\n"
    "                          the hardware's prefetch cannot guess the next one)\n"
    "  --reps N                repetitions per figure, median reported (default 7, >= 5)\n"
    "  --seconds-per-point S   measured seconds per figure, all reps (default 0.5)\n"
    "  --capped-share F        budget share of engines on portable C kernels (default 0.15)\n"
    "  --warmup S              warm-up seconds before measuring (default 0.5)\n"
    "  --quick                 --reps 5 --seconds-per-point 0.25 --warmup 0.3, short latency\n"
    "                          and threads runs\n"
    "  --engines LIST          only engines whose name contains one of these words\n"
    "                          (oneshot, ring, burst, generic, aesni, avx2, avx512, openssl,\n"
    "                          ipsec-mb, direct, job, quic, or a version such as 1.3.0)\n"
    "  --all-arches            also run mbgcm arches whose kernels equal another arch's\n"
    "  --lanes N, --queue N    manager lanes and ring size (default 0: the library's)\n"
    "  --burst N               jobs per mbgcm_submit_burst and IMB_SUBMIT_BURST call, packets\n"
    "                          per imb_quic_aes_gcm call (default 32; ipsec-mb takes <= 128)\n"
    "  --single-min-len N|off  managers send jobs of >= N bytes single-stream (internal\n"
    "                          hook; default: the arch's threshold, printed in the notes)\n"
    "peers (intel-ipsec-mb through adapters, OpenSSL EVP)\n"
    "  --peers LIST|none       ipsec-mb adapter files to load (default: those built with this\n"
    "                          binary, next to it: Debian's 1.3 and, when the build was\n"
    "                          configured with MBGCM_BENCH_IPSEC_MB_PREFIX, a current one;\n"
    "                          a name without '/' is looked up next to the binary)\n"
    "  --imb-arch A            ipsec-mb managers from init_mb_mgr_A: auto (default), sse,\n"
    "                          avx2, avx512, avx10 (3.0 and later)\n"
    "                          (mbgcm's arch: MBGCM_ARCH=A runs only that arch's engines)\n"
    "latency\n"
    "  --lat-sizes LIST        (default 64,256: the short-job path and the lanes)\n"
    "  --lat-loads LIST        offered loads: > 1 messages/s, <= 1 fraction of the ring's\n"
    "                          capacity at that size (default 100000,0.25)\n"
    "  --lat-timeout-us T      flush_timeout_ns of the timed ring, in us (default 10)\n"
    "  --lat-seconds S         arrivals per run, in seconds (default 0.5)\n"
    "threads\n"
    "  --threads N             threads (default: CPUs this process may use)\n"
    "  --thr-sizes LIST        (default 64,1420,16384)\n"
    "  --thr-seconds S         seconds per measurement (default 0.3)\n"
    "  --thr-reps N            repetitions (default 5)\n"
    "stream (mbgcm only: one message fed in pieces vs mbgcm_encrypt/decrypt of all of it)\n"
    "  --stream-sizes LIST     message sizes in bytes (default 16384,65536,262144)\n"
    "  --piece N               bytes per mbgcm_ctx_update and per scatter-gather segment\n"
    "                          (default 16384; the last piece shorter if need be)\n"
    "                          variants: oneshot, ctx (init/update per piece/final or verify),\n"
    "                          sgl (one mbgcm_submit_burst job with src/dst segment lists),\n"
    "                          burst (the same job with linear buffers); also uses --bits,\n"
    "                          --dirs, --aad, --reps, --seconds-per-point, --warmup, --quick\n"
    "general\n"
    "  --cpu N                 pin to CPU N (default: the CPU the process starts on)\n"
    "  --no-pin                do not pin\n"
    "  --csv FILE              throughput CSV; latency/threads/keys/stream CSV next to it\n"
    "                          (FILE with -latency.csv etc. in place of .csv)\n"
    "  --label TEXT            printed in the header (e.g. the git revision)\n"
    "  --wall-clock            time throughput batches with CLOCK_MONOTONIC instead of the\n"
    "                          thread's CPU time (which ignores time spent descheduled)\n"
    "  --quiet                 no progress on stderr\n";

static void usage(FILE *f)
{
    fputs(usage_text, f);
}

/* ---- value parsers ---- */
static unsigned parse_list(const char *s, double *out, unsigned max, const char *what)
{
    unsigned n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || n == max) {
            die("bad %s list '%s'", what, s);
        }
        out[n++] = v;
        p = end;
        if (*p == ',') {
            p++;
        } else if (*p) {
            die("bad %s list '%s'", what, s);
        }
    }
    if (n == 0) {
        die("empty %s list", what);
    }
    return n;
}

static unsigned parse_sizes(const char *s, size_t *out)
{
    unsigned n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == MAX_SIZES) {
            die("too many sizes in '%s'", s);
        }
        if (strcmp(t, "imix") == 0) {
            out[n++] = SIZE_IMIX;
            continue;
        }
        char *end;
        errno = 0;
        const unsigned long long v = strtoull(t, &end, 10);
        if (end == t || *end || errno || v > (1u << 30)) {
            die("bad size '%s' in '%s'", t, s);
        }
        out[n++] = (size_t)v;
    }
    free(copy);
    if (n == 0) {
        die("empty size list");
    }
    return n;
}

static double parse_num(const char *s, const char *what, double lo, double hi)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || v < lo || v > hi) {
        die("bad %s '%s' (want %g .. %g)", what, s, lo, hi);
    }
    return v;
}

/* Index of |word| in the NULL-terminated |names| (each entry "name|alias"), or -1. */
static int word_index(const char *word, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++) {
        const char *n = names[i];
        const size_t l = strlen(word);
        for (const char *p = n; p != NULL; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL) {
            if (strncmp(p, word, l) == 0 && (p[l] == '|' || p[l] == '\0')) {
                return i;
            }
        }
    }
    return -1;
}

static void parse_dirs(const char *arg)
{
    static const char *const names[] = {"enc|encrypt", "dec|decrypt", NULL};
    opt.ndirs = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const int d = word_index(t, names);
        if (d < 0 || opt.ndirs == 2) {
            die("bad --dirs '%s' (enc,dec)", arg);
        }
        opt.dirs[opt.ndirs++] = d == 0 ? DIR_ENC : DIR_DEC;
    }
    free(copy);
    if (opt.ndirs == 0) {
        die("empty --dirs");
    }
}

static void parse_modes(const char *arg)
{
    static const char *const names[] = {"tput|throughput", "latency|lat", "threads|thr", "keys",
                                        "stream", "all", NULL};
    static const unsigned bits[] = {MODE_TPUT, MODE_LAT, MODE_THR, MODE_KEYS, MODE_STREAM,
                                    MODE_TPUT | MODE_LAT | MODE_THR | MODE_KEYS | MODE_STREAM};
    opt.modes = 0;
    char *copy = strdup(arg), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        const int i = word_index(t, names);
        if (i < 0) {
            die("bad --mode '%s' (tput,latency,threads,keys,stream,all)", arg);
        }
        opt.modes |= bits[i];
    }
    free(copy);
    if (opt.modes == 0) {
        die("empty --mode");
    }
}

static void parse_bits(const char *arg)
{
    double tmp[2];
    opt.nbits = parse_list(arg, tmp, 2, "bits");
    for (unsigned i = 0; i < opt.nbits; i++) {
        if (tmp[i] != 128 && tmp[i] != 256) {
            die("--bits takes 128 and/or 256");
        }
        opt.bits[i] = (unsigned)tmp[i];
    }
}

static void parse_keys(const char *arg)
{
    double tmp[MAX_KEYSETS];
    opt.nkeysets = parse_list(arg, tmp, MAX_KEYSETS, "--keys");
    for (unsigned i = 0; i < opt.nkeysets; i++) {
        if (tmp[i] < 1 || tmp[i] > 65536 || tmp[i] != (double)(unsigned)tmp[i]) {
            die("--keys: key counts are 1 .. 65536");
        }
        opt.keysets[i] = (unsigned)tmp[i];
    }
}

static void add_one_key(void)
{
    for (unsigned i = 0; i < opt.nkeysets; i++) {
        if (opt.keysets[i] == 1) {
            return;
        }
    }
    if (opt.nkeysets == MAX_KEYSETS) {
        die("--one-key: too many key counts");
    }
    opt.keysets[opt.nkeysets++] = 1;
}

/* ---- defaults and the option table ---- */
static void set_defaults(void)
{
    static const size_t sizes[] = {16, 64, 256, 512, 1024, 1420, 4096, 16384, SIZE_IMIX};
    static const size_t lat_sizes[] = {64, 256};
    static const size_t thr_sizes[] = {64, 1420, 16384};
    static const size_t stream_sizes[] = {16384, 65536, 262144};
    struct options *o = &opt;
    memset(o, 0, sizeof *o);
    o->modes = MODE_TPUT;
    o->nsizes = sizeof sizes / sizeof sizes[0];
    memcpy(o->sizes, sizes, sizeof sizes);
    o->bits[0] = 128;
    o->bits[1] = 256;
    o->nbits = 2;
    o->dirs[0] = DIR_ENC;
    o->dirs[1] = DIR_DEC;
    o->ndirs = 2;
    o->keysets[0] = 64;
    o->nkeysets = 1;
    o->bufs = 64;
    o->reps = 7;
    o->aad_len = 16;
    o->burst = 32;
    o->seconds = 0.5;
    o->warmup = 0.5;
    o->capped_share = 0.15;
    o->cpu = -1;
    o->imb_arch = "auto";
    o->nlat_sizes = sizeof lat_sizes / sizeof lat_sizes[0];
    memcpy(o->lat_sizes, lat_sizes, sizeof lat_sizes);
    o->lat_loads[0] = 100000;
    o->lat_loads[1] = 0.25;
    o->nlat_loads = 2;
    o->lat_timeout_us = 10;
    o->lat_seconds = 0.5;
    o->nthr_sizes = sizeof thr_sizes / sizeof thr_sizes[0];
    memcpy(o->thr_sizes, thr_sizes, sizeof thr_sizes);
    o->thr_seconds = 0.3;
    o->thr_reps = 5;
    o->nstream_sizes = sizeof stream_sizes / sizeof stream_sizes[0];
    memcpy(o->stream_sizes, stream_sizes, sizeof stream_sizes);
    o->piece = 16384;
}

enum {
    O_SIZES = 256, O_BITS, O_DIRS, O_KEYS, O_ONEKEY, O_BUFS, O_KORDER, O_REPS, O_SECS, O_WARM, O_QUICK,
    O_ENG, O_ALL, O_CPU, O_NOPIN, O_CSV, O_QUIET, O_MODE, O_AAD, O_LANES, O_QUEUE, O_BURST,
    O_CAP, O_LATS, O_LATL, O_LATT, O_LATSEC, O_THR, O_THRS, O_THRSEC, O_THRREPS, O_LABEL,
    O_SINGLE, O_WALL, O_PEERS, O_IMBARCH, O_STREAMS, O_PIECE
};

static const struct option longopts[] = {
    {"sizes", required_argument, NULL, O_SIZES},
    {"bits", required_argument, NULL, O_BITS},
    {"dirs", required_argument, NULL, O_DIRS},
    {"keys", required_argument, NULL, O_KEYS},
    {"one-key", no_argument, NULL, O_ONEKEY},
    {"bufs", required_argument, NULL, O_BUFS},
    {"key-order", required_argument, NULL, O_KORDER},
    {"reps", required_argument, NULL, O_REPS},
    {"seconds-per-point", required_argument, NULL, O_SECS},
    {"warmup", required_argument, NULL, O_WARM},
    {"quick", no_argument, NULL, O_QUICK},
    {"engines", required_argument, NULL, O_ENG},
    {"all-arches", no_argument, NULL, O_ALL},
    {"cpu", required_argument, NULL, O_CPU},
    {"no-pin", no_argument, NULL, O_NOPIN},
    {"csv", required_argument, NULL, O_CSV},
    {"quiet", no_argument, NULL, O_QUIET},
    {"mode", required_argument, NULL, O_MODE},
    {"aad", required_argument, NULL, O_AAD},
    {"lanes", required_argument, NULL, O_LANES},
    {"queue", required_argument, NULL, O_QUEUE},
    {"burst", required_argument, NULL, O_BURST},
    {"capped-share", required_argument, NULL, O_CAP},
    {"lat-sizes", required_argument, NULL, O_LATS},
    {"lat-loads", required_argument, NULL, O_LATL},
    {"lat-timeout-us", required_argument, NULL, O_LATT},
    {"lat-seconds", required_argument, NULL, O_LATSEC},
    {"threads", required_argument, NULL, O_THR},
    {"thr-sizes", required_argument, NULL, O_THRS},
    {"thr-seconds", required_argument, NULL, O_THRSEC},
    {"thr-reps", required_argument, NULL, O_THRREPS},
    {"label", required_argument, NULL, O_LABEL},
    {"single-min-len", required_argument, NULL, O_SINGLE},
    {"wall-clock", no_argument, NULL, O_WALL},
    {"peers", required_argument, NULL, O_PEERS},
    {"imb-arch", required_argument, NULL, O_IMBARCH},
    {"stream-sizes", required_argument, NULL, O_STREAMS},
    {"piece", required_argument, NULL, O_PIECE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Options given explicitly, which --quick must not override. */
struct given {
    int quick, reps, secs, warm, lat_secs, thr_secs, one_key;
};

/* The throughput options; 0 when |c| is not one of them. */
static int parse_tput_opt(int c, const char *arg, struct given *g)
{
    struct options *o = &opt;
    switch (c) {
    case O_SIZES: o->nsizes = parse_sizes(arg, o->sizes); break;
    case O_BITS: parse_bits(arg); break;
    case O_DIRS: parse_dirs(arg); break;
    case O_KEYS: parse_keys(arg); break;
    case O_ONEKEY: g->one_key = 1; break;
    case O_BUFS: o->bufs = (unsigned)parse_num(arg, "--bufs", 1, 65536); break;
    case O_KORDER:
        if (strcmp(arg, "seq") != 0 && strcmp(arg, "random") != 0) {
            die("--key-order %s: seq or random", arg);
        }
        o->key_random = strcmp(arg, "random") == 0;
        break;
    case O_AAD: o->aad_len = (unsigned)parse_num(arg, "--aad", 0, BENCH_MAX_AAD); break;
    case O_REPS: o->reps = (unsigned)parse_num(arg, "--reps", 1, 1001); g->reps = 1; break;
    case O_SECS: o->seconds = parse_num(arg, "--seconds-per-point", 1e-4, 3600); g->secs = 1; break;
    case O_WARM: o->warmup = parse_num(arg, "--warmup", 0, 600); g->warm = 1; break;
    case O_CAP: o->capped_share = parse_num(arg, "--capped-share", 0.001, 1); break;
    case O_QUICK: g->quick = 1; break;
    case O_ENG: o->engines = arg; break;
    case O_ALL: o->all_arches = 1; break;
    case O_LANES: o->lanes = (unsigned)parse_num(arg, "--lanes", 0, 16); break;
    case O_QUEUE: o->queue = (unsigned)parse_num(arg, "--queue", 0, 65536); break;
    case O_BURST: o->burst = (unsigned)parse_num(arg, "--burst", 1, MAX_BURST); break;
    case O_SINGLE:
        o->single_set = 1;
        o->single_min_len = strcmp(arg, "off") == 0
                                ? UINT64_MAX
                                : (uint64_t)parse_num(arg, "--single-min-len", 0, 1e15);
        break;
    case O_PEERS: o->peers = arg; break;
    case O_IMBARCH: o->imb_arch = arg; break;
    default: return 0;
    }
    return 1;
}

/* --stream-sizes: whole messages only (no imix; at least one byte, so that a piece exists). */
static void parse_stream_sizes(const char *arg)
{
    opt.nstream_sizes = parse_sizes(arg, opt.stream_sizes);
    for (unsigned i = 0; i < opt.nstream_sizes; i++) {
        if (opt.stream_sizes[i] == SIZE_IMIX || opt.stream_sizes[i] == 0) {
            die("--stream-sizes takes sizes of 1 .. %u bytes, not imix or 0", 1u << 30);
        }
    }
}

/* The latency, threads, stream and general options; 0 when |c| is not one of them. */
static int parse_other_opt(int c, const char *arg, struct given *g)
{
    struct options *o = &opt;
    switch (c) {
    case O_MODE: parse_modes(arg); break;
    case O_LATS: o->nlat_sizes = parse_sizes(arg, o->lat_sizes); break;
    case O_LATL:
        o->nlat_loads = parse_list(arg, o->lat_loads, 8, "--lat-loads");
        for (unsigned i = 0; i < o->nlat_loads; i++) {
            if (!(o->lat_loads[i] > 0)) {
                die("--lat-loads: loads must be > 0");
            }
        }
        break;
    case O_LATT: o->lat_timeout_us = parse_num(arg, "--lat-timeout-us", 0.001, 1e6); break;
    case O_LATSEC:
        o->lat_seconds = parse_num(arg, "--lat-seconds", 0.01, 600);
        g->lat_secs = 1;
        break;
    case O_THR: o->threads = (unsigned)parse_num(arg, "--threads", 1, MAX_THREADS); break;
    case O_THRS: o->nthr_sizes = parse_sizes(arg, o->thr_sizes); break;
    case O_THRSEC:
        o->thr_seconds = parse_num(arg, "--thr-seconds", 0.01, 600);
        g->thr_secs = 1;
        break;
    case O_THRREPS: o->thr_reps = (unsigned)parse_num(arg, "--thr-reps", 1, 101); break;
    case O_STREAMS: parse_stream_sizes(arg); break;
    case O_PIECE: o->piece = (size_t)parse_num(arg, "--piece", 1, 1u << 30); break;
    case O_CPU: o->cpu = (int)parse_num(arg, "--cpu", 0, CPU_SETSIZE - 1); break;
    case O_NOPIN: o->cpu = -2; break;
    case O_CSV: o->csv = arg; break;
    case O_QUIET: o->quiet = 1; break;
    case O_LABEL: o->label = arg; break;
    case O_WALL: bench_wall_clock = 1; break;
    default: return 0;
    }
    return 1;
}

/* --quick shortens what was not given explicitly. */
static void apply_quick(const struct given *g)
{
    if (!g->reps) {
        opt.reps = 5;
    }
    if (!g->secs) {
        opt.seconds = 0.25;
    }
    if (!g->warm) {
        opt.warmup = 0.3;
    }
    if (!g->lat_secs) {
        opt.lat_seconds = 0.25;
    }
    if (!g->thr_secs) {
        opt.thr_seconds = 0.12;
    }
}

void parse_options(int argc, char **argv)
{
    struct given g;
    memset(&g, 0, sizeof g);
    set_defaults();
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            exit(0);
        }
        if (!parse_tput_opt(c, optarg, &g) && !parse_other_opt(c, optarg, &g)) {
            usage(stderr);
            exit(2);
        }
    }
    if (optind != argc) {
        usage(stderr);
        exit(2);
    }
    if (g.quick) {
        apply_quick(&g);
    }
    if (g.one_key) {
        add_one_key();
    }
    opt.keys = opt.keysets[0];
    if (opt.reps < 5) {
        fprintf(stderr, "mbgcm-bench: warning: --reps %u < 5: figures are not reliable\n",
                opt.reps);
    }
}

int engine_wanted(const char *name)
{
    if (opt.engines == NULL) {
        return 1;
    }
    char *copy = strdup(opt.engines), *save = NULL;
    int hit = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !hit; t = strtok_r(NULL, ",", &save)) {
        hit = strstr(name, t) != NULL;
    }
    free(copy);
    return hit;
}
