/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * peers.c — intel-ipsec-mb as a peer, through adapters (peer_api.h, peer_imb.c): each is a
 * shared object built against one ipsec-mb version and linked to that version's library.
 * They are dlopen()ed with RTLD_LOCAL: this binary links no ipsec-mb, so the global scope
 * holds no ipsec-mb symbol and each adapter's references bind to its own libIPSec_MB
 * (distinct sonames: .so.1 for Debian's 1.3, .so.2, .so.3 ...); RTLD_DEEPBIND is therefore
 * not needed (and sanitizer runtimes refuse it). The library an adapter reports must be the
 * version it was compiled for, or the run stops.
 *
 * By default the adapters built with this binary are loaded from its directory (the list
 * comes from the build: MBGCM_BENCH_PEERS); --peers replaces the list. Engines per peer:
 * ipsec-mb-VERSION-direct, -job, -burst and, with one key, -quic (peer_imb.c describes each
 * call). The reference peer is the newest version other than Debian's; ratios are against
 * the fastest of its APIs at each point, and against Debian's 1.3 only when it is the only
 * one loaded (the header then says so).
 */
#include <dlfcn.h>
#include <libgen.h>
#include <unistd.h>

#include "engine.h"
#include "options.h"
#include "peers.h"

#ifndef MBGCM_BENCH_PEERS
#define MBGCM_BENCH_PEERS ""
#endif

static struct peer peers[MAX_PEERS];
static unsigned npeers, peers_loaded;
static char skipped[MAX_PEERS][400]; /* adapters that could not run --imb-arch */
static unsigned nskipped;

static const char *const api_word[PEER_NAPI] = {"direct", "job", "burst", "quic"};

/* |file| relative to the directory of this executable. */
static void beside_exe(const char *file, char *out, size_t n)
{
    char exe[1024];
    const ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (l <= 0 || strchr(file, '/') != NULL) {
        snprintf(out, n, "%s", file);
        return;
    }
    exe[l] = '\0';
    snprintf(out, n, "%s/%s", dirname(exe), file);
}

/* Open the adapter at |path| and probe it on a manager of --imb-arch; 0 when that manager
   does not exist in this version (the peer is skipped and listed in the header). */
static int peer_open(struct peer *p, const char *path)
{
    snprintf(p->path, sizeof p->path, "%s", path);
    p->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (p->handle == NULL) {
        die("cannot load the ipsec-mb adapter %s: %s", path, dlerror());
    }
    bench_peer_entry_fn entry = (bench_peer_entry_fn)dlsym(p->handle, BENCH_PEER_SYMBOL);
    if (entry == NULL || (p->ops = entry()) == NULL || p->ops->abi != BENCH_PEER_ABI) {
        die("%s is not an mbgcm-bench peer adapter of this version (ABI %d)", path, BENCH_PEER_ABI);
    }
    char err[256];
    void *ctx = p->ops->create(opt.imb_arch, err, sizeof err);
    if (ctx == NULL) {
        const char *base = strrchr(path, '/');
        snprintf(skipped[nskipped++], sizeof skipped[0], "%.200s: not run: %.150s",
                 base ? base + 1 : path, err);
        dlclose(p->handle);
        return 0;
    }
    p->ops->probe(ctx, &p->info);
    snprintf(p->arch, sizeof p->arch, "%s", p->ops->arch(ctx));
    p->ops->destroy(ctx);
    if (strcmp(p->info.built_against, p->info.version) != 0) {
        die("%s was built against ipsec-mb %s but loaded %s (%s)", path, p->info.built_against,
            p->info.version, p->info.library);
    }
    return 1;
}

static void choose_ref(void)
{
    struct peer *ref = NULL;
    for (unsigned i = 0; i < npeers; i++) {
        const int debian = strcmp(peers[i].info.label, "debian") == 0;
        if (!debian && (ref == NULL || peers[i].info.version_num > ref->info.version_num)) {
            ref = &peers[i];
        }
    }
    if (ref == NULL && npeers > 0) {
        ref = &peers[0];
    }
    if (ref != NULL) {
        ref->ref = 1;
    }
}

void peers_load(void)
{
    if (peers_loaded) {
        return;
    }
    peers_loaded = 1;
    const char *list = opt.peers ? opt.peers : MBGCM_BENCH_PEERS;
    if (strcmp(list, "none") == 0) {
        return;
    }
    char *copy = strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (npeers == MAX_PEERS) {
            die("--peers: at most %d adapters", MAX_PEERS);
        }
        char path[1024];
        beside_exe(t, path, sizeof path);
        npeers += (unsigned)peer_open(&peers[npeers], path);
    }
    free(copy);
    choose_ref();
}

const struct peer *peers_ref(void)
{
    for (unsigned i = 0; i < npeers; i++) {
        if (peers[i].ref) {
            return &peers[i];
        }
    }
    return NULL;
}

/* ---- engines ---- */
struct imb_state {
    void *ctx;
    unsigned bits, nkeys;
};

static int peer_api_of(enum api a)
{
    switch (a) {
    case API_DIRECT: return PEER_DIRECT;
    case API_JOB: return PEER_JOB;
    case API_BURST: return PEER_BURST;
    default: return PEER_QUIC;
    }
}

static void imb_setup(struct engine *e, const struct bench_msgs *m)
{
    struct imb_state *s = e->st;
    if (s == NULL) {
        char err[256];
        s = e->st = xaligned(64, sizeof *s);
        s->ctx = e->peer->ops->create(opt.imb_arch, err, sizeof err);
        if (s->ctx == NULL) {
            die("%s: %s", e->name, err);
        }
    }
    if (s->bits != m->bits || s->nkeys != m->nkeys) {
        e->peer->ops->set_keys(s->ctx, m);
        s->bits = m->bits;
        s->nkeys = m->nkeys;
    }
}

static unsigned imb_run(struct engine *e, const struct bench_msgs *m, int dir, uint64_t n,
                        unsigned *pos)
{
    const struct imb_state *s = e->st;
    return e->peer->ops->run(s->ctx, peer_api_of(e->api), m, dir, n, pos, opt.burst);
}

static void imb_teardown(struct engine *e)
{
    struct imb_state *s = e->st;
    e->peer->ops->destroy(s->ctx);
    free(s);
}

static void imb_submit(struct engine *e, const struct bench_msgs *m, unsigned slot, uint64_t id,
                       bench_done_fn done, void *dctx)
{
    const struct imb_state *s = e->st;
    e->peer->ops->submit(s->ctx, m, slot, id, done, dctx);
}

static void imb_poll(struct engine *e, int final, bench_done_fn done, void *dctx)
{
    const struct imb_state *s = e->st;
    e->peer->ops->poll(s->ctx, final, done, dctx);
}

/* IMB_AES128/256_GCM_PRE for every key (the adapter's set_keys). */
static void imb_rekey(struct engine *e, const struct bench_msgs *m)
{
    const struct imb_state *s = e->st;
    e->peer->ops->set_keys(s->ctx, m);
}

static const struct engine_ops imb_sync_ops = {imb_setup, imb_run, imb_teardown,
                                               NULL,      NULL,    NULL,
                                               imb_rekey};
static const struct engine_ops imb_job_ops = {imb_setup, imb_run, imb_teardown,
                                              imb_submit, imb_poll, NULL, NULL};

static void add_peer_engines(const struct peer *p, struct engine *eng, unsigned *ne)
{
    static const enum api apis[PEER_NAPI] = {API_DIRECT, API_JOB, API_BURST, API_QUIC};
    int one_key = 0;
    for (unsigned i = 0; i < opt.nkeysets; i++) {
        one_key |= opt.keysets[i] == 1;
    }
    for (int a = 0; a < PEER_NAPI; a++) {
        struct engine *e = engine_add(eng, ne, FAM_IMB, apis[a]);
        e->ops = apis[a] == API_JOB ? &imb_job_ops : &imb_sync_ops;
        e->peer = p;
        e->ref = p->ref;
        snprintf(e->name, sizeof e->name, "ipsec-mb-%s-%s", p->info.version, api_word[a]);
        e->selected = engine_wanted(e->name);
        e->one_key = apis[a] == API_QUIC;
        if (!(p->info.apis & 1u << a)) {
            snprintf(e->note, sizeof e->note, "not available: %s", p->info.api_notes[a]);
            e->selected = 0;
        } else if (e->one_key && !one_key) {
            snprintf(e->note, sizeof e->note, "runs only with one key (--one-key, --keys 1)");
        }
    }
}

void imb_add_engines(struct engine *eng, unsigned *ne)
{
    peers_load();
    for (unsigned i = 0; i < npeers; i++) {
        add_peer_engines(&peers[i], eng, ne);
    }
}

/* ---- header ---- */
const char *peers_versions(char *buf, size_t n)
{
    snprintf(buf, n, npeers ? "intel-ipsec-mb" : "no intel-ipsec-mb");
    for (unsigned i = 0; i < npeers; i++) {
        const size_t l = strlen(buf);
        snprintf(buf + l, n - l, "%s %s", i ? "," : "", peers[i].info.version);
    }
    return buf;
}

/* File names only on stdout (tables end up in docs); the full paths go to stderr. */
static void print_peer(const struct peer *p)
{
    const char *adapter = strrchr(p->path, '/'), *lib = strrchr(p->info.library, '/');
    progress("mbgcm-bench: ipsec-mb %s: adapter %s, library %s\n", p->info.version, p->path,
             p->info.library);
    printf("peer: intel-ipsec-mb %s (adapter '%s' %s, library %s); %s manager (--imb-arch %s); "
           "APIs:", p->info.version, p->info.label, adapter ? adapter + 1 : p->path,
           lib ? lib + 1 : p->info.library, p->arch, opt.imb_arch);
    for (int a = 0; a < PEER_NAPI; a++) {
        if (p->info.apis & 1u << a) {
            printf(" %s%s", api_word[a], a == PEER_QUIC ? " (one key)" : "");
        }
    }
    const int burst = (p->info.apis & 1u << PEER_BURST) != 0;
    printf("; burst calls with GCM: %s, IMB_SUBMIT_AEAD_BURST %s\n",
           burst ? "IMB_SUBMIT_BURST works" : p->info.api_notes[PEER_BURST], p->info.aead_burst);
}

void peers_print(void)
{
    for (unsigned i = 0; i < npeers; i++) {
        print_peer(&peers[i]);
    }
    for (unsigned i = 0; i < nskipped; i++) {
        printf("peer: %s\n", skipped[i]);
    }
    const struct peer *ref = peers_ref();
    if (ref == NULL) {
        printf("ratio: no intel-ipsec-mb peer loaded: ratios are against OpenSSL EVP\n");
    } else if (strcmp(ref->info.label, "debian") == 0) {
        printf("ratio: against Debian's intel-ipsec-mb %s, the only ipsec-mb here: NO CURRENT "
               "ipsec-mb was given (scripts/bench.sh --ipsec-mb-src DIR|TARBALL, or "
               "IPSEC_MB_SRC);\n       current releases are much faster on small messages, so "
               "these ratios flatter mbgcm\n", ref->info.version);
    } else {
        printf("ratio: against the fastest API of intel-ipsec-mb %s (the current peer) at each "
               "point\n", ref->info.version);
    }
}
