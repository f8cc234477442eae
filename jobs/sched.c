/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sched.c — the scheduler: where each job runs (single-stream at once, a short-job class, or a
 * lane), lane placement and entry (filling the lane's rows), running a group's kernel,
 * completing finished jobs, expiry, finishing a lone lane single-stream, and wiping
 * idle lane state. mgr.c decides *when* (submit, flush, poll, burst); the kernels compute.
 */
#include "ct.h"
#include "jobs_internal.h"
#include "validate.h"

static void lane_idle(struct mbgcmi_group *g, int s)
{
    g->aad[s] = g->scratch;
    g->src[s] = g->scratch;
    g->dst[s] = g->scratch;
    g->tag[s] = g->scratch;
    g->aad_left[s] = 0;
    g->text_left[s] = 0;
    const unsigned bit = 1u << s;
    g->active &= ~bit;
    g->decrypt &= ~bit;
    g->init &= ~bit;
    g->auth_fail &= ~bit;
}

static void group_reset(struct mbgcmi_group *g)
{
    mbgcmi_wipe(g, sizeof *g);
    for (int s = 0; s < MBGCMI_GL; s++) {
        lane_idle(g, s);
    }
}

void mbgcmi_sched_init(mbgcm_mgr *m, struct mbgcmi_group *groups, unsigned ngroups)
{
    m->g = groups;
    m->ngroups = ngroups;
    m->freemask = (1u << (ngroups * MBGCMI_GL)) - 1u;
    /* without a lane kernel every job runs single-stream */
    m->single_min_len = m->arch->lanes != NULL ? m->arch->single_min_len : 0;
    m->short_lim = m->arch->short_jobs != NULL ? 16 * MBGCMI_SHORT_MAX_BLOCKS + 1 : 0;
    m->short_msg_lim = mbgcmi_short_msg_lim(m->arch, m->short_lim);
    m->burst_short_msg_lim = mbgcmi_burst_short_msg_lim(m->arch, m->short_lim);
    m->burst_short_dec_lim = mbgcmi_burst_short_dec_lim(m->arch, m->short_lim);
    /* (a rule that compares the first two jobs' keys needs two jobs) */
    m->burst_short_min_jobs =
        m->arch->burst_short_min_jobs < 2 ? 0 : m->arch->burst_short_min_jobs;
    if (m->arch->lanes != NULL) {
        m->wide_aad_max = m->arch->ops->wide_aad_max;
        m->wide_aad_span = m->arch->ops->wide_aad_span;
    }
    for (unsigned gi = 0; gi < ngroups; gi++) {
        group_reset(&groups[gi]);
    }
}

int mbgcmi_sched_free_lane(const mbgcm_mgr *m, const mbgcm_key *key)
{
    const unsigned fr = m->freemask;
    if (fr == 0) {
        return -1;
    }
    for (unsigned f = fr; f != 0; f &= f - 1) { /* key affinity: skip the table copy */
        const int lane = __builtin_ctz(f);
        if (m->info[lane].key == key) {
            return lane;
        }
    }
    const uint32_t r = mbgcmi_key_c(key)->rounds;
    for (unsigned gi = 0; gi < m->ngroups; gi++) {
        const unsigned fm = (fr >> (MBGCMI_GL * gi)) & 0xFu;
        const struct mbgcmi_group *g = &m->g[gi];
        if (fm == 0) {
            continue;
        }
        int same = 1;
        for (int s = 0; s < MBGCMI_GL; s++) {
            same &= !(g->active >> s & 1) || g->rounds[s] == r;
        }
        if (same) {
            return (int)(MBGCMI_GL * gi) + __builtin_ctz(fm);
        }
    }
    return __builtin_ctz(fr);
}

/* The lane's rows already hold this key's tables: same key object and the same H (the
   object may have been re-initialised with another key since). The comparison reveals only
   whether the key changed, like the pointer test next to it. */
static int tables_cached(const struct mbgcmi_group *g, int s, const struct mbgcmi_lane_info *li,
                         const mbgcm_key *key, unsigned npow)
{
    const struct mbgcmi_key *k = mbgcmi_key_c(key);
    if (li->key != key || li->npow < npow || g->rounds[s] != k->rounds) {
        return 0;
    }
    uint64_t a[2];
    memcpy(a, g->hp[0][s], 16);
    int same = ((a[0] ^ k->hpow[MBGCMI_HIDX(1)][0]) | (a[1] ^ k->hpow[MBGCMI_HIDX(1)][1])) == 0;
    MBGCMI_DECLASSIFY(&same, sizeof same); /* whether the key changed is not a secret */
    return same;
}

/* Hash-key powers a job can use in its lane: a step aggregates at most as many blocks as
   every busy lane has left in its phase (and at most 8), so a lane never needs more powers
   than its longest phase has full blocks. */
static unsigned powers_needed(const mbgcm_job *job)
{
    const size_t b = (job->aad_len > job->len ? job->aad_len : job->len) / 16;
    return b >= MBGCMI_GHP ? MBGCMI_GHP : b ? (unsigned)b : 1;
}

/* Copy |n| rows (fixed counts unroll into plain 16-byte moves). */
#define COPY_ROWS(dst, src, n)                                                              \
    do {                                                                                    \
        for (unsigned r_ = 0; r_ < (n); r_++) {                                             \
            memcpy((dst)[r_][s], (src)[r_], 16);                                            \
        }                                                                                   \
    } while (0)

/* Busy lanes of a 4-bit mask (lane masks are public; no popcnt instruction needed). */
static unsigned lanes_in(unsigned m)
{
    static const uint8_t n[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    return n[m & 15];
}

void mbgcmi_sched_enter(mbgcm_mgr *m, int lane, mbgcm_job *job, uint64_t t_submit)
{
    struct mbgcmi_group *g = &m->g[lane / MBGCMI_GL];
    const int s = lane % MBGCMI_GL;
    struct mbgcmi_lane_info *li = &m->info[lane];
    const struct mbgcmi_key *k = mbgcmi_key_c(job->key);

    const unsigned npow = powers_needed(job);
    if (!tables_cached(g, s, li, job->key, npow)) {
        /* rows past a lane's own rounds are never used for it (mixed groups discard them) */
        switch (k->rounds) {
        case 10: COPY_ROWS(g->rk, k->rk, 11); break;
        case 12: COPY_ROWS(g->rk, k->rk, 13); break;
        default: COPY_ROWS(g->rk, k->rk, 15); break;
        }
        const uint8_t(*hp)[16] = (const uint8_t(*)[16])k->hpow[MBGCMI_HIDX(1)];
        const uint8_t(*hk)[16] = (const uint8_t(*)[16])k->hkar[MBGCMI_HIDX(1)];
        /* the key stores H^1 last (highest first): walk it backwards, H^p at hp[1 - p] */
        for (unsigned p = 0; p < npow; p++) {
            memcpy(g->hp[p][s], hp[-(ptrdiff_t)p], 16);
            memcpy(g->hk[p][s], hk[-(ptrdiff_t)p], 16);
        }
        g->rounds[s] = k->rounds;
        li->key = job->key;
        li->npow = npow;
    }
    if (job->iv_len == 12 && m->j0_hook == NULL) {
        /* J0 = IV || 00 00 00 01 and the first counter IV || 00 00 00 02, built in registers:
           writing J0 and reading it back would stall on store forwarding */
        uint64_t lo;
        uint32_t w2;
        memcpy(&lo, job->iv, 8);
        memcpy(&w2, job->iv + 8, 4);
        const uint64_t hi_j0 = w2 | ((uint64_t)0x01000000u << 32);
        const uint64_t hi_ctr = w2 | ((uint64_t)0x02000000u << 32);
        memcpy(g->ek0[s], &lo, 8);
        memcpy(g->ek0[s] + 8, &hi_j0, 8);
        memcpy(g->ctr[s], &lo, 8);
        memcpy(g->ctr[s] + 8, &hi_ctr, 8);
    } else {
        mbgcmi_gcm_j0(m->arch, k, job->iv, job->iv_len, g->ek0[s]);
        if (m->j0_hook != NULL) {
            m->j0_hook(m->j0_ctx, job, g->ek0[s]);
        }
        memcpy(g->ctr[s], g->ek0[s], 16);
        mbgcmi_inc32(g->ctr[s]);
    }
    memset(g->s[s], 0, 16);
    mbgcmi_len_block(job->aad_len, job->len, g->lenblk[s]);
    const unsigned bit = 1u << s;
    if (job->dir == MBGCM_DECRYPT) {
        memset(g->etag[s], 0, 16);
        memcpy(g->etag[s], job->tag, job->tag_len);
        g->decrypt |= bit;
    } else {
        g->decrypt &= ~bit;
    }
    g->aad[s] = job->aad_len ? job->aad : g->scratch;
    g->src[s] = job->len ? job->src : g->scratch;
    g->dst[s] = job->len ? job->dst : g->scratch;
    g->tag[s] = job->tag;
    g->aad_left[s] = job->aad_len;
    g->text_left[s] = job->len;
    g->tag_len[s] = (uint32_t)job->tag_len;
    g->auth_fail &= ~bit;
    g->init |= bit;
    g->active |= bit;
    li->job = job;
    li->t_submit = t_submit;
    job->status = MBGCM_PENDING;
    m->freemask &= ~(1u << lane);
    m->busy++;
    m->dirty = 1;
}

/* Retire lane |lane| of group |g| and complete its job (|fail|: the tag did not match). */
static void retire(mbgcm_mgr *m, struct mbgcmi_group *g, int lane, int fail)
{
    mbgcm_job *job = m->info[lane].job;
    mbgcmi_complete(m, job, fail ? MBGCM_ERR_AUTH : MBGCM_OK);
    m->info[lane].job = NULL;
    lane_idle(g, lane % MBGCMI_GL);
    m->freemask |= 1u << lane;
    m->busy--;
}

/* Finish the only busy lane of its group with the single-stream kernels, from where the lane
   kernel left it (E_K(J0) computed if still pending, GHASH state, counter, bytes left). */
static void finish_single(mbgcm_mgr *m, int lane)
{
    struct mbgcmi_group *g = &m->g[lane / MBGCMI_GL];
    const int s = lane % MBGCMI_GL;
    const mbgcm_job *job = m->info[lane].job;
    const struct mbgcmi_key *k = mbgcmi_key_c(job->key);
    const struct mbgcmi_arch *a = m->arch;
    const int decrypt = (g->decrypt >> s) & 1;
    uint8_t ek0[16], t[16];
    uint64_t st[2];
    if ((g->init >> s) & 1) {
        a->ops->block(k, g->ek0[s], ek0);
    } else {
        memcpy(ek0, g->ek0[s], 16);
    }
    memcpy(st, g->s[s], 16);
    mbgcmi_gcm_resume(a, k, ek0, st, g->ctr[s], g->aad[s], g->aad_left[s], g->src[s],
                      g->dst[s], g->text_left[s], g->lenblk[s], decrypt, t);
    int fail = 0;
    if (decrypt) {
        fail = !mbgcmi_ct_equal(t, g->etag[s], g->tag_len[s]);
    } else {
        memcpy(g->tag[s], t, g->tag_len[s]);
    }
    m->single_finish++; /* not a kernel run: counted apart (stats.lane_single_finish) */
    mbgcmi_wipe(ek0, sizeof ek0);
    mbgcmi_wipe(t, sizeof t);
    mbgcmi_wipe(st, sizeof st);
    if (a->portable) {
        mbgcmi_burn_stack();
    }
    retire(m, g, lane, fail);
}

/* Per-call summaries the kernels read instead of recomputing: round structure and tag
   masks of the busy lanes (all public: key sizes and tag lengths). */
static void summarize(struct mbgcmi_group *g)
{
    uint32_t rmax = 0;
    uint64_t tm = 0;
    for (int s = 0; s < MBGCMI_GL; s++) {
        if (g->active >> s & 1) {
            rmax = g->rounds[s] > rmax ? g->rounds[s] : rmax;
            tm |= (uint64_t)((1u << g->tag_len[s]) - 1u) << (16 * s);
        }
    }
    unsigned k10 = 0, k12 = 0;
    for (int s = 0; s < MBGCMI_GL; s++) {
        if (g->active >> s & 1) {
            k10 |= (g->rounds[s] == 10 && rmax > 10) ? 3u << (2 * s) : 0;
            k12 |= (g->rounds[s] == 12 && rmax > 12) ? 3u << (2 * s) : 0;
        }
    }
    g->rmax = rmax;
    g->k10q = (uint16_t)k10;
    g->k12q = (uint16_t)k12;
    g->tagmask = tm;
}

unsigned mbgcmi_sched_run_group(mbgcm_mgr *m, unsigned gi, enum mbgcmi_run_cause why)
{
    struct mbgcmi_group *g = &m->g[gi];
    if (g->active == 0) {
        return 0;
    }
    summarize(g);
    m->runs[why]++;
    m->kernel_calls[lanes_in(g->active) - 1]++;
    const unsigned done = m->arch->lanes(g);
    /* each finished decrypt lane's tag result (one bit, computed without a branch) is public:
       the job's status reports it */
    MBGCMI_DECLASSIFY(&g->auth_fail, sizeof g->auth_fail);
    if (m->arch->portable) {
        mbgcmi_burn_stack(); /* compiler spills of the portable kernel */
    }
    for (int s = 0; s < MBGCMI_GL; s++) {
        if (!(done >> s & 1)) {
            continue;
        }
        retire(m, g, (int)(gi * MBGCMI_GL) + s, (g->decrypt & g->auth_fail) >> s & 1);
    }
    return done;
}

/* ---- locating and completing pending jobs ---------------------------------------------------- */

/* The lane of a pending job (0..15), or -1. */
static int find_lane(const mbgcm_mgr *m, const mbgcm_job *job)
{
    for (unsigned i = 0; i < m->ngroups * MBGCMI_GL; i++) {
        if (m->info[i].job == job) {
            return (int)i;
        }
    }
    return -1;
}

/* Run lane |loc|'s group until the job there is complete. */
static void finish_lane(mbgcm_mgr *m, int loc, enum mbgcmi_run_cause why)
{
    if (loc < 0) {
        return;
    }
    const mbgcm_job *job = m->info[loc].job;
    while (job != NULL && m->info[loc].job == job) {
        const struct mbgcmi_group *g = &m->g[loc / MBGCMI_GL];
        const int s = loc % MBGCMI_GL;
        if (g->active == (1u << s) &&
            g->aad_left[s] + g->text_left[s] >= m->single_min_len) {
            finish_single(m, loc); /* lanes never sit idle behind one long job */
            return;
        }
        mbgcmi_sched_run_group(m, (unsigned)loc / MBGCMI_GL, why);
    }
}

void mbgcmi_sched_finish(mbgcm_mgr *m, const mbgcm_job *job, enum mbgcmi_run_cause why)
{
    if (job->status != MBGCM_PENDING) {
        return;
    }
    const int lane = find_lane(m, job);
    if (lane >= 0) {
        finish_lane(m, lane, why);
        return;
    }
    /* a short job waits in the class of its shape; look the job up rather than trust fields
       the caller was not to change while it was pending */
    for (uint64_t u = m->sc_used; u != 0; u &= u - 1) {
        const unsigned cls = (unsigned)__builtin_ctzll(u);
        const struct mbgcmi_short_class *c = &m->sc[cls];
        for (unsigned i = 0; i < c->n; i++) {
            if (c->job[i] == job) {
                mbgcmi_short_run(m, cls, why);
                return;
            }
        }
    }
}

void mbgcmi_sched_expire(mbgcm_mgr *m, uint64_t now)
{
    const uint64_t timeout = m->timeout;
    for (unsigned i = 0; i < m->ngroups * MBGCMI_GL; i++) {
        if (m->info[i].job != NULL && now - m->info[i].t_submit >= timeout) {
            finish_lane(m, (int)i, MBGCMI_RUN_TIMEOUT);
        }
    }
    if (m->staged) {
        mbgcmi_short_expire(m, now);
    }
}

void mbgcmi_sched_wipe_all(mbgcm_mgr *m)
{
    for (unsigned gi = 0; gi < m->ngroups; gi++) {
        group_reset(&m->g[gi]);
    }
    for (unsigned i = 0; i < m->ngroups * MBGCMI_GL; i++) {
        m->info[i].key = NULL;
        m->info[i].npow = 0;
        m->info[i].job = NULL;
    }
    m->freemask = (1u << (m->ngroups * MBGCMI_GL)) - 1u;
    m->busy = 0;
    m->dirty = 0;
}

void mbgcmi_sched_wipe_idle(mbgcm_mgr *m)
{
    if (m->busy == 0 && m->staged == 0 && m->dirty) {
        mbgcmi_sched_wipe_all(m);
    }
}

/* ---- accepting a job (mbgcmi_sched_accept: jobs_internal.h) ---------------------------------- */

void mbgcmi_sched_run_all(mbgcm_mgr *m, enum mbgcmi_run_cause why)
{
    for (unsigned gi = 0; gi < m->ngroups; gi++) {
        mbgcmi_sched_run_group(m, gi, why);
    }
}

/* A validated job, single-stream now: linear through the whole-message driver, scatter-gather
   through the stream. */
void mbgcmi_sched_run_single(mbgcm_mgr *m, mbgcm_job *job)
{
    int fail;
    m->single++;
    if (__builtin_expect(job->src_sgl != NULL || job->dst_sgl != NULL, 0)) {
        fail = mbgcmi_sgl_run(m->arch, job);
    } else {
        fail = mbgcmi_gcm_message(m->arch, mbgcmi_key_c(job->key), job->iv, job->iv_len,
                                  job->aad, job->aad_len, job->src, job->len, job->dst,
                                  job->tag, job->tag_len, job->dir == MBGCM_DECRYPT);
    }
    mbgcmi_complete(m, job, fail ? MBGCM_ERR_AUTH : MBGCM_OK);
}

unsigned mbgcmi_sched_run_deferred(mbgcm_mgr *m)
{
    const unsigned n = m->ndefer;
    if (n == 0) {
        return 0;
    }
    uint64_t fail = m->arch->ops->jobs12(m->defer, n);
    MBGCMI_DECLASSIFY(&fail, sizeof fail); /* the authentication outcomes are public */
    for (unsigned i = 0; i < n; i++) {
        mbgcmi_complete(m, m->defer[i], (fail >> i & 1) ? MBGCM_ERR_AUTH : MBGCM_OK);
    }
    m->ndefer = 0;
    /* (a failed tag is rare: without -mpopcnt the count is a libgcc call) */
    return fail == 0 ? 0 : (unsigned)__builtin_popcountll(fail);
}

__attribute__((cold, noinline)) void mbgcmi_job_wipe_dst(const mbgcm_job *job)
{
    if (job->dst_sgl == NULL) {
        mbgcmi_wipe(job->dst, job->len);
        return;
    }
    for (uint32_t i = 0; i < job->dst_nseg; i++) {
        mbgcmi_wipe(job->dst_sgl[i].ptr, job->dst_sgl[i].len);
    }
}
