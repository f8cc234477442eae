/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine_mbgcm.c — mbgcm's engines, through its public API:
 *   mbgcm-oneshot-ARCH  mbgcm_encrypt / mbgcm_decrypt, the arch forced for each call batch.
 *   mbgcm-ring-ARCH     the job ring: mbgcm_get_next_job, every field set, mbgcm_submit_job,
 *                       completed jobs drained as they come back; mbgcm_flush_job until NULL at
 *                       the end of every batch. A manager per engine (--lanes, --queue).
 *   mbgcm-burst-ARCH    mbgcm_submit_burst over arrays of --burst caller-owned jobs.
 * ARCH is the kernel that runs: a manager arch whose lanes are still another arch's kernel is
 * shown as mbgcm-ring-KERNEL(ARCH). Arches whose kernels equal a lower arch's are listed but
 * not run unless --all-arches; MBGCM_ARCH=A in the environment runs only arch A.
 */
#include "engine.h"
#include "engine_mbgcm_internal.h"
#include "options.h"

struct mb_state {
    unsigned keybits, nkeys;
    mbgcm_key *keys;
    mbgcm_mgr *mgr;
    mbgcm_job *bjobs;
};

static void mb_create(struct engine *e, struct mb_state *s)
{
    if (e->api == API_ONESHOT) {
        return;
    }
    mbgcm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.arch = mbint_arch_name(e->arch);
    cfg.lanes = opt.lanes;
    cfg.queue_size = opt.queue;
    cfg.flush_timeout_ns = e->timeout_ns;
    const int st = mbgcm_mgr_create(&s->mgr, &cfg);
    if (st != MBGCM_OK) {
        die("%s: mbgcm_mgr_create: %s", e->name, mbgcm_strerror(st));
    }
    if (opt.single_set) {
        mbint_set_single_min_len(s->mgr, opt.single_min_len);
    }
    if (e->api == API_BURST) {
        s->bjobs = xaligned(64, MAX_BURST * sizeof *s->bjobs);
    }
}

static void mb_setup(struct engine *e, const struct bench_msgs *m)
{
    struct mb_state *s = e->st;
    if (s == NULL) {
        s = e->st = xaligned(64, sizeof *s);
        mb_create(e, s);
    }
    if (s->keybits == m->bits && s->nkeys == m->nkeys) {
        return;
    }
    if (s->keys == NULL || s->nkeys != m->nkeys) {
        free(s->keys);
        s->keys = xaligned(64, m->nkeys * sizeof(mbgcm_key));
    }
    for (unsigned k = 0; k < m->nkeys; k++) {
        const int st = mbgcm_key_init(&s->keys[k], m->raw[k], m->bits / 8);
        if (st != MBGCM_OK) {
            die("mbgcm_key_init: %s", mbgcm_strerror(st));
        }
    }
    s->keybits = m->bits;
    s->nkeys = m->nkeys;
}

static void mb_teardown(struct engine *e)
{
    struct mb_state *s = e->st;
    if (s->keys) {
        for (unsigned k = 0; k < s->nkeys; k++) {
            mbgcm_key_wipe(&s->keys[k]);
        }
        free(s->keys);
    }
    mbgcm_mgr_free(s->mgr);
    free(s->bjobs);
    free(s);
}

/* ---- one-shot ---- */
static unsigned oneshot_run(struct engine *e, const struct bench_msgs *m, int dir, uint64_t n,
                            unsigned *pos)
{
    const struct mb_state *s = e->st;
    const size_t alen = m->aad_len;
    unsigned j = *pos, bad = 0;
    mbint_force_oneshot_arch(e->arch);
    if (dir == DIR_ENC) {
        for (uint64_t i = 0; i < n; i++) {
            bad += mbgcm_encrypt(&s->keys[m->key_of[j]], m->iv[j], BENCH_IV_LEN, m->aad[j], alen,
                                 m->pt[j], m->len[j], m->out[j], m->otag[j],
                                 BENCH_TAG_LEN) != MBGCM_OK;
            j = bench_next_slot(m, j);
        }
    } else {
        for (uint64_t i = 0; i < n; i++) {
            bad += mbgcm_decrypt(&s->keys[m->key_of[j]], m->iv[j], BENCH_IV_LEN, m->aad[j], alen,
                                 m->ct[j], m->len[j], m->out[j], m->tag[j],
                                 BENCH_TAG_LEN) != MBGCM_OK;
            j = bench_next_slot(m, j);
        }
    }
    *pos = j;
    return bad;
}

/* ---- job manager: every field of the job is set, as the API asks ---- */
static inline void fill_job(mbgcm_job *job, const struct mb_state *s, const struct bench_msgs *m,
                            int dir, unsigned j)
{
    job->key = &s->keys[m->key_of[j]];
    job->dir = dir == DIR_ENC ? MBGCM_ENCRYPT : MBGCM_DECRYPT;
    job->iv = m->iv[j];
    job->iv_len = BENCH_IV_LEN;
    job->aad = m->aad[j];
    job->aad_len = m->aad_len;
    job->src = dir == DIR_ENC ? m->pt[j] : m->ct[j];
    job->dst = m->out[j];
    job->len = m->len[j];
    job->tag = dir == DIR_ENC ? m->otag[j] : m->tag[j]; /* decrypt: read at submit */
    job->tag_len = BENCH_TAG_LEN;
    job->user_data = NULL;
    job->src_sgl = job->dst_sgl = NULL;
    job->src_nseg = job->dst_nseg = 0;
    job->reserved_ = NULL;
}

static unsigned ring_run(struct engine *e, const struct bench_msgs *m, int dir, uint64_t n,
                         unsigned *pos)
{
    const struct mb_state *s = e->st;
    mbgcm_mgr *mgr = s->mgr;
    unsigned j = *pos, bad = 0;
    mbgcm_job *c;
    for (uint64_t i = 0; i < n; i++) {
        fill_job(mbgcm_get_next_job(mgr), s, m, dir, j);
        c = mbgcm_submit_job(mgr);
        while (c != NULL) {
            bad += c->status != MBGCM_OK;
            c = mbgcm_get_completed_job(mgr);
        }
        j = bench_next_slot(m, j);
    }
    while ((c = mbgcm_flush_job(mgr)) != NULL) {
        bad += c->status != MBGCM_OK;
    }
    *pos = j;
    return bad;
}

static unsigned burst_run(struct engine *e, const struct bench_msgs *m, int dir, uint64_t n,
                          unsigned *pos)
{
    const struct mb_state *s = e->st;
    unsigned j = *pos, bad = 0;
    for (uint64_t i = 0; i < n;) {
        const unsigned k = (unsigned)(n - i < opt.burst ? n - i : opt.burst);
        for (unsigned b = 0; b < k; b++) {
            fill_job(&s->bjobs[b], s, m, dir, j);
            j = bench_next_slot(m, j);
        }
        bad += k - mbgcm_submit_burst(s->mgr, s->bjobs, k);
        i += k;
    }
    *pos = j;
    return bad;
}

/* ---- the ring, one message at a time (latency mode) ---- */
static void ring_drain(mbgcm_mgr *mgr, mbgcm_job *c, bench_done_fn done, void *dctx)
{
    for (; c != NULL; c = mbgcm_get_completed_job(mgr)) {
        done(dctx, (uint64_t)(uintptr_t)c->user_data, c->status == MBGCM_OK);
    }
}

static void ring_submit(struct engine *e, const struct bench_msgs *m, unsigned slot, uint64_t id,
                        bench_done_fn done, void *dctx)
{
    const struct mb_state *s = e->st;
    mbgcm_job *job = mbgcm_get_next_job(s->mgr);
    fill_job(job, s, m, DIR_ENC, slot);
    job->user_data = (void *)(uintptr_t)id;
    ring_drain(s->mgr, mbgcm_submit_job(s->mgr), done, dctx);
}

/* Idle: the poll runs jobs older than the timeout; after the last arrival a manager without
   timeout is flushed. */
static void ring_poll(struct engine *e, int final, bench_done_fn done, void *dctx)
{
    const struct mb_state *s = e->st;
    mbgcm_job *c = final && e->timeout_ns == 0 ? mbgcm_flush_job(s->mgr) : mbgcm_mgr_poll(s->mgr);
    ring_drain(s->mgr, c, done, dctx);
}

static void ring_stats(struct engine *e, struct lat_stats *out)
{
    const struct mb_state *s = e->st;
    mbgcm_stats st;
    mbgcm_mgr_stats(s->mgr, &st);
    uint64_t calls = 0, lanes = 0;
    for (int i = 0; i < 4; i++) {
        calls += st.kernel_calls[i];
        lanes += (uint64_t)(i + 1) * st.kernel_calls[i];
    }
    out->kernel_calls = calls;
    out->lanes_per_call = calls ? (double)lanes / (double)calls : 0;
    out->runs_timeout = st.runs_timeout;
}

/* mbgcm_key_init over the engine's key objects (the raw key read, the old object wiped). */
static void mb_rekey(struct engine *e, const struct bench_msgs *m)
{
    struct mb_state *s = e->st;
    for (unsigned k = 0; k < m->nkeys; k++) {
        if (mbgcm_key_init(&s->keys[k], m->raw[k], m->bits / 8) != MBGCM_OK) {
            die("mbgcm_key_init failed");
        }
    }
}

static const struct engine_ops oneshot_ops = {mb_setup, oneshot_run, mb_teardown,
                                              NULL,     NULL,        NULL,
                                              mb_rekey};
static const struct engine_ops ring_ops = {mb_setup, ring_run, mb_teardown,
                                           ring_submit, ring_poll, ring_stats, NULL};
static const struct engine_ops burst_ops = {mb_setup, burst_run, mb_teardown, NULL, NULL, NULL,
                                            NULL};

/* ---- the engine list ---- */

/* Append "; "-separated text to a note. */
static void note_add(char *note, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note_add(char *note, size_t n, const char *fmt, ...)
{
    size_t l = strlen(note);
    if (l && l + 2 < n) {
        memcpy(note + l, "; ", 3);
        l += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note + l, n - l, fmt, ap);
    va_end(ap);
}

/* The lowest supported arch below |a| with the same kernels for |api|, or -1. */
static int same_as_lower(enum api api, int a)
{
    for (int b = 0; b < a; b++) {
        if (mbint_arch_supported(b) &&
            (api == API_ONESHOT ? mbint_same_oneshot(a, b) : mbint_same_lanes(a, b))) {
            return b;
        }
    }
    return -1;
}

static void add_manager_engine(struct engine *eng, unsigned *ne, enum api api, int a)
{
    struct engine *e = engine_add(eng, ne, FAM_MBGCM, api);
    e->ops = api == API_RING ? &ring_ops : &burst_ops;
    e->arch = a;
    e->lane_arch = mbint_lane_arch(a);
    const char *an = api_name(api), *lane = mbint_arch_name(e->lane_arch);
    if (e->lane_arch == a) {
        snprintf(e->name, sizeof e->name, "mbgcm-%s-%s", an, lane);
    } else {
        snprintf(e->name, sizeof e->name, "mbgcm-%s-%s(%s)", an, lane, mbint_arch_name(a));
        note_add(e->note, sizeof e->note, "manager arch %s runs the %s lane kernel today",
                 mbint_arch_name(a), e->lane_arch == mbint_arch_generic() ? "portable C" : lane);
    }
    e->capped = e->lane_arch == mbint_arch_generic();
    const uint64_t thr = opt.single_set ? opt.single_min_len : mbint_single_min_len(a);
    if (thr == 0 && !opt.single_set) {
        note_add(e->note, sizeof e->note, "no lane kernel: every job runs single-stream");
    } else if (thr != UINT64_MAX) {
        /* the longest message in the short-job kernel (12-byte IV, AAD <= 16); the hook sets
           that limit with the threshold (at most 256 bytes) */
        const uint64_t smax = opt.single_set ? (thr - 1 < 256 ? thr - 1 : 256)
                                             : mbint_short_max_len(a, api == API_BURST);
        const char *by = opt.single_set ? "--single-min-len" : "the manager's default";
        if (thr <= 1) {
            note_add(e->note, sizeof e->note, "every job runs single-stream (%s)", by);
        } else if (smax == 0) {
            note_add(e->note, sizeof e->note, "jobs with a 12-byte IV and a message run "
                     "single-stream (GMAC jobs %s), other jobs of %llu bytes or more too (%s)",
                     !opt.single_set && mbint_gmac_single(a) ? "too" : "in the short-job kernel",
                     (unsigned long long)thr, by);
        } else if (smax + 1 < thr) {
            note_add(e->note, sizeof e->note, "jobs of up to %llu bytes with a 12-byte IV and "
                     "AAD <= 16 run in the short-job kernel, longer ones with a 12-byte IV "
                     "single-stream, other jobs of %llu bytes or more too (%s)",
                     (unsigned long long)smax, (unsigned long long)thr, by);
            if (api == API_BURST && !opt.single_set && mbint_burst_short_min_jobs(a) != 0) {
                note_add(e->note, sizeof e->note, "the short-job kernel only in bursts of %u "
                         "jobs or more whose first two share a key (else GMAC jobs%s only)",
                         mbint_burst_short_min_jobs(a),
                         mbint_gmac_single(a) ? " with AAD <= 16" : "");
            }
        } else {
            note_add(e->note, sizeof e->note, "jobs of up to %llu bytes with a 12-byte IV and "
                     "AAD <= 16 run in the short-job kernel, other jobs of %llu bytes or more "
                     "single-stream (%s)", (unsigned long long)smax, (unsigned long long)thr, by);
        }
    }
}

static void add_oneshot_engine(struct engine *eng, unsigned *ne, int a)
{
    struct engine *e = engine_add(eng, ne, FAM_MBGCM, API_ONESHOT);
    e->ops = &oneshot_ops;
    e->arch = e->lane_arch = a;
    snprintf(e->name, sizeof e->name, "mbgcm-oneshot-%s", mbint_arch_name(a));
    e->capped = a == mbint_arch_generic();
}

/* MBGCM_ARCH=A (other than auto): the arch whose engines alone run, else -1. */
static int forced_arch(void)
{
    const char *env = getenv("MBGCM_ARCH");
    if (env == NULL || *env == '\0' || strcmp(env, "auto") == 0) {
        return -1;
    }
    const int a = mbint_arch_parse(env);
    if (a < 0 || !mbint_arch_supported(a)) {
        die("MBGCM_ARCH=%s: unknown arch, or not supported on this CPU", env);
    }
    return a;
}

/* Selection: --engines, then duplicates (unless --all-arches) or MBGCM_ARCH. */
static void mbgcm_select(struct engine *e, int forced)
{
    const int same = same_as_lower(e->api, e->arch);
    e->selected = engine_wanted(e->name);
    e->dup = same >= 0;
    if (forced >= 0) {
        if (e->arch != forced) {
            note_add(e->note, sizeof e->note, "not run: MBGCM_ARCH=%s", mbint_arch_name(forced));
            e->selected = 0;
        }
    } else if (same >= 0 && !opt.all_arches) {
        note_add(e->note, sizeof e->note,
                 "same %s kernels as arch %s: not re-run (--all-arches runs it)",
                 e->api == API_ONESHOT ? "one-shot" : "lane", mbint_arch_name(same));
        e->selected = 0;
    }
}

void mbgcm_add_engines(struct engine *eng, unsigned *ne)
{
    const int forced = forced_arch();
    static const enum api apis[3] = {API_RING, API_BURST, API_ONESHOT};
    for (int i = 0; i < 3; i++) {
        for (int a = mbint_arch_count() - 1; a >= 0; a--) {
            if (!mbint_arch_supported(a)) {
                continue;
            }
            if (apis[i] == API_ONESHOT) {
                add_oneshot_engine(eng, ne, a);
            } else {
                add_manager_engine(eng, ne, apis[i], a);
            }
            mbgcm_select(&eng[*ne - 1], forced);
        }
    }
}

const char *mbgcm_arch_label(int arch)
{
    return mbint_arch_name(arch);
}
