/*
 * lanes.c — the lane manager: which lane a job enters, filling its rows, running a group's
 * kernel and retiring finished lanes, wiping idle lane state. The ring and the policy of
 * *when* to run live in jobs/; the arithmetic lives in the kernels.
 */
#include "lanes.h"

/* One row per arch: the four-lane kernel, the single-stream kernels (long jobs, J0 of
   odd-length IVs) and the single-stream threshold, measured per arch (docs/design.md,
   "Hybrid scheduling" and "The avx2 and aesni kernels"). */
#if defined(MBGCM_HAVE_NASM)
/* avx512: the short-job kernel wins up to its 128 bytes, the wide single-stream kernel from
   there on, ahead of the four-lane kernel at every length measured; avx2 and aesni: their
   single-stream kernels win at every length (16 B .. 16 KiB), so every job goes single-stream
   and the lane kernels serve only when a threshold is forced (tests, tuning). */
#define LANES_AVX512 mbgcmi_lanes_avx512, mbgcmi_short_avx512, &mbgcmi_gcm_ops_vaes512, \
    MBGCMI_ARCH_AVX512, 16 * MBGCMI_SHORT_MAX_BLOCKS + 1
#define LANES_AVX2 mbgcmi_lanes_avx2, NULL, &mbgcmi_gcm_ops_avx2, MBGCMI_ARCH_AVX2, 0
#define LANES_AESNI mbgcmi_lanes_aesni, NULL, &mbgcmi_gcm_ops_aesni, MBGCMI_ARCH_AESNI, 0
#else
#define SINGLE_FAST (&mbgcmi_gcm_ops_generic)
#define LANES_AVX2 mbgcmi_lanes_generic, NULL, SINGLE_FAST, MBGCMI_ARCH_GENERIC, UINT64_MAX
#define LANES_AESNI mbgcmi_lanes_generic, NULL, SINGLE_FAST, MBGCMI_ARCH_GENERIC, UINT64_MAX
#define LANES_AVX512 mbgcmi_lanes_generic, NULL, SINGLE_FAST, MBGCMI_ARCH_GENERIC, UINT64_MAX
#endif
static const struct mbgcmi_lane_ops lane_ops[MBGCMI_ARCH_COUNT] = {
    /* generic: lanes and single-stream run the same C, so no threshold */
    [MBGCMI_ARCH_GENERIC] = {mbgcmi_lanes_generic, NULL, &mbgcmi_gcm_ops_generic,
                             MBGCMI_ARCH_GENERIC, UINT64_MAX},
    [MBGCMI_ARCH_AESNI] = {LANES_AESNI},
    [MBGCMI_ARCH_AVX2] = {LANES_AVX2},
    [MBGCMI_ARCH_AVX512] = {LANES_AVX512},
};

const struct mbgcmi_lane_ops *mbgcmi_lane_ops_for(int arch)
{
    return (arch >= 0 && arch < MBGCMI_ARCH_COUNT) ? &lane_ops[arch] : NULL;
}

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

void mbgcmi_lanes_init(struct mbgcmi_lanes *L, struct mbgcmi_group *groups, unsigned ngroups,
                       const struct mbgcmi_lane_ops *ops)
{
    memset(L, 0, sizeof *L); /* also clears the test hook */
    L->g = groups;
    L->ngroups = ngroups;
    L->freemask = (1u << (ngroups * MBGCMI_GL)) - 1u;
    L->group_by_rounds = 1; /* measured: docs/design.md, "Mixed key sizes" */
    L->single_min_len = ops->single_min_len;
    L->ops = ops;
    for (unsigned gi = 0; gi < ngroups; gi++) {
        group_reset(&groups[gi]);
    }
}

int mbgcmi_lanes_free(const struct mbgcmi_lanes *L, const mbgcm_key *key)
{
    unsigned m = L->freemask;
    if (m == 0) {
        return -1;
    }
    for (unsigned f = m; f != 0; f &= f - 1) { /* key affinity: skip the table copy */
        const int lane = __builtin_ctz(f);
        if (L->info[lane].key == key) {
            return lane;
        }
    }
    if (L->group_by_rounds) {
        const uint32_t r = mbgcmi_key_c(key)->rounds;
        for (unsigned gi = 0; gi < L->ngroups; gi++) {
            const unsigned fm = (m >> (MBGCMI_GL * gi)) & 0xFu;
            const struct mbgcmi_group *g = &L->g[gi];
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
    }
    return __builtin_ctz(m);
}

/* The lane's rows already hold this key's tables: same key object and the same H (the
   object may have been re-initialised with another key since). The comparison reveals only
   whether the key changed, like the pointer test before it. */
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

void mbgcmi_lanes_enter(struct mbgcmi_lanes *L, int lane, mbgcm_job *job, uint64_t t_submit)
{
    struct mbgcmi_group *g = &L->g[lane / MBGCMI_GL];
    const int s = lane % MBGCMI_GL;
    struct mbgcmi_lane_info *li = &L->info[lane];
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
    if (job->iv_len == 12 && L->j0_hook == NULL) {
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
        mbgcmi_gcm_j0(L->ops->single, k, job->iv, job->iv_len, g->ek0[s]);
        if (L->j0_hook != NULL) {
            L->j0_hook(L->j0_ctx, job, g->ek0[s]);
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
    L->freemask &= ~(1u << lane);
    L->busy++;
    L->dirty = 1;
}

/* Retire lane |lane| of group |g|: status from |fail|, dst zeroed on a failed tag. */
static void retire(struct mbgcmi_lanes *L, struct mbgcmi_group *g, int lane, int fail)
{
    mbgcm_job *job = L->info[lane].job;
    if (fail) {
        mbgcmi_wipe(job->dst, job->len); /* never release unauthenticated plaintext */
        job->status = MBGCM_ERR_AUTH;
        L->auth_failures++;
    } else {
        job->status = MBGCM_OK;
    }
    L->info[lane].job = NULL;
    lane_idle(g, lane % MBGCMI_GL);
    L->freemask |= 1u << lane;
    L->busy--;
}

/* Finish the only busy lane of its group with the single-stream kernels, from where the lane
   kernel left it (E_K(J0) computed if still pending, GHASH state, counter, bytes left). */
static void finish_single(struct mbgcmi_lanes *L, int lane, enum mbgcmi_run_cause why)
{
    struct mbgcmi_group *g = &L->g[lane / MBGCMI_GL];
    const int s = lane % MBGCMI_GL;
    const mbgcm_job *job = L->info[lane].job;
    const struct mbgcmi_key *k = mbgcmi_key_c(job->key);
    const struct mbgcmi_gcm_ops *ops = L->ops->single;
    const int decrypt = (g->decrypt >> s) & 1;
    uint8_t ek0[16], t[16];
    uint64_t st[2];
    if ((g->init >> s) & 1) {
        ops->block(k, g->ek0[s], ek0);
    } else {
        memcpy(ek0, g->ek0[s], 16);
    }
    memcpy(st, g->s[s], 16);
    mbgcmi_gcm_resume(ops, k, ek0, st, g->ctr[s], g->aad[s], g->aad_left[s], g->src[s],
                      g->dst[s], g->text_left[s], g->lenblk[s], decrypt, t);
    int fail = 0;
    if (decrypt) {
        fail = !mbgcmi_ct_equal(t, g->etag[s], g->tag_len[s]);
    } else {
        memcpy(g->tag[s], t, g->tag_len[s]);
    }
    (void)why; /* not a kernel run: counted apart (stats.lane_single_finish) */
    L->single_finish++;
    mbgcmi_wipe(ek0, sizeof ek0);
    mbgcmi_wipe(t, sizeof t);
    mbgcmi_wipe(st, sizeof st);
    if (ops == &mbgcmi_gcm_ops_generic) {
        mbgcmi_burn_stack();
    }
    retire(L, g, lane, fail);
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

unsigned mbgcmi_lanes_run(struct mbgcmi_lanes *L, unsigned gi, enum mbgcmi_run_cause why)
{
    struct mbgcmi_group *g = &L->g[gi];
    if (g->active == 0) {
        return 0;
    }
    summarize(g);
    L->runs[why]++;
    L->kernel_calls[lanes_in(g->active) - 1]++;
    const unsigned done = L->ops->kernel(g);
    /* each finished decrypt lane's tag result (one bit, computed without a branch) is public:
       the job's status reports it */
    MBGCMI_DECLASSIFY(&g->auth_fail, sizeof g->auth_fail);
    if (L->ops->arch == MBGCMI_ARCH_GENERIC) {
        mbgcmi_burn_stack(); /* compiler spills of the portable kernel */
    }
    for (int s = 0; s < MBGCMI_GL; s++) {
        if (!(done >> s & 1)) {
            continue;
        }
        retire(L, g, (int)(gi * MBGCMI_GL) + s, (g->decrypt & g->auth_fail) >> s & 1);
    }
    return done;
}

/* ---- short jobs ---------------------------------------------------------------------------- */

/* Run stage |nb| with the jobs it holds (one to four), complete them all. */
void mbgcmi_lanes_stage_run(struct mbgcmi_lanes *L, unsigned nb, enum mbgcmi_run_cause why)
{
    struct mbgcmi_stage *st = &L->stage[nb];
    const unsigned n = st->n;
    struct mbgcmi_short_batch b;
    uint32_t rmax = 0;
    unsigned r10 = 0, r12 = 0;
    b.tagmask = 0;
    b.decrypt = 0;
    for (unsigned i = 0; i < MBGCMI_GL; i++) {
        const mbgcm_job *job = st->job[i < n ? i : 0];
        b.job[i] = st->job[i < n ? i : 0];
        if (i < n) {
            const uint32_t r = mbgcmi_key_c(job->key)->rounds;
            rmax = r > rmax ? r : rmax;
            r10 |= (r == 10) ? 3u << (2 * i) : 0;
            r12 |= (r == 12) ? 3u << (2 * i) : 0;
            b.tagmask |= (uint64_t)((1u << job->tag_len) - 1u) << (16 * i);
            b.decrypt |= (job->dir == MBGCM_DECRYPT) ? 1u << i : 0;
            b.lenblk[i][0] = (uint64_t)job->len << 3;
            b.lenblk[i][1] = (uint64_t)job->aad_len << 3;
        } else {
            b.lenblk[i][0] = 0;
            b.lenblk[i][1] = 0;
        }
    }
    b.active = (1u << n) - 1u;
    b.nblk = nb;
    b.pad_ = 0;
    b.rmax = rmax;
    b.k10q = (uint16_t)(rmax > 10 ? r10 : 0);
    b.k12q = (uint16_t)(rmax > 12 ? r12 : 0);
    L->runs[why]++;
    L->kernel_calls[n - 1]++;
    unsigned fail = L->ops->short_kernel(&b);
    MBGCMI_DECLASSIFY(&fail, sizeof fail); /* per-lane tag results: public (job status) */
    for (unsigned i = 0; i < n; i++) {
        mbgcm_job *job = st->job[i];
        if (fail >> i & 1) {
            mbgcmi_wipe(job->dst, job->len); /* never release unauthenticated plaintext */
            job->status = MBGCM_ERR_AUTH;
            L->auth_failures++;
        } else {
            job->status = MBGCM_OK;
        }
        st->job[i] = NULL;
    }
    st->n = 0;
    L->staged -= n;
}

/* ---- locating and completing pending jobs ---------------------------------------------------- */

int mbgcmi_lanes_find(const struct mbgcmi_lanes *L, const mbgcm_job *job)
{
    for (unsigned i = 0; i < L->ngroups * MBGCMI_GL; i++) {
        if (L->info[i].job == job) {
            return (int)i;
        }
    }
    if (L->staged) {
        for (unsigned nb = 0; nb <= MBGCMI_SHORT_MAX_BLOCKS; nb++) {
            for (unsigned i = 0; i < L->stage[nb].n; i++) {
                if (L->stage[nb].job[i] == job) {
                    return MBGCMI_LOC_STAGE + (int)(MBGCMI_GL * nb + i);
                }
            }
        }
    }
    return -1;
}

void mbgcmi_lanes_complete(struct mbgcmi_lanes *L, int loc, enum mbgcmi_run_cause why)
{
    if (loc < 0) {
        return;
    }
    if (loc >= MBGCMI_LOC_STAGE) {
        mbgcmi_lanes_stage_run(L, (unsigned)(loc - MBGCMI_LOC_STAGE) / MBGCMI_GL, why);
        return;
    }
    const mbgcm_job *job = L->info[loc].job;
    while (job != NULL && L->info[loc].job == job) {
        const struct mbgcmi_group *g = &L->g[loc / MBGCMI_GL];
        const int s = loc % MBGCMI_GL;
        if (g->active == (1u << s) &&
            g->aad_left[s] + g->text_left[s] >= L->single_min_len) {
            finish_single(L, loc, why); /* lanes never sit idle behind one long job */
            return;
        }
        mbgcmi_lanes_run(L, (unsigned)loc / MBGCMI_GL, why);
    }
}

void mbgcmi_lanes_expire(struct mbgcmi_lanes *L, uint64_t now, uint64_t timeout)
{
    for (unsigned i = 0; i < L->ngroups * MBGCMI_GL; i++) {
        if (L->info[i].job != NULL && now - L->info[i].t_submit >= timeout) {
            mbgcmi_lanes_complete(L, (int)i, MBGCMI_RUN_TIMEOUT);
        }
    }
    if (L->staged) {
        for (unsigned nb = 0; nb <= MBGCMI_SHORT_MAX_BLOCKS; nb++) {
            /* a stage's oldest job is its first */
            if (L->stage[nb].n && now - L->stage[nb].t_submit[0] >= timeout) {
                mbgcmi_lanes_stage_run(L, nb, MBGCMI_RUN_TIMEOUT);
            }
        }
    }
}

void mbgcmi_lanes_wipe_all(struct mbgcmi_lanes *L)
{
    for (unsigned gi = 0; gi < L->ngroups; gi++) {
        group_reset(&L->g[gi]);
    }
    for (unsigned i = 0; i < L->ngroups * MBGCMI_GL; i++) {
        L->info[i].key = NULL;
        L->info[i].npow = 0;
        L->info[i].job = NULL;
    }
    L->freemask = (1u << (L->ngroups * MBGCMI_GL)) - 1u;
    L->busy = 0;
    L->dirty = 0;
}

void mbgcmi_lanes_wipe_idle(struct mbgcmi_lanes *L)
{
    if (L->busy == 0 && L->staged == 0 && L->dirty) {
        mbgcmi_lanes_wipe_all(L);
    }
}

void mbgcmi_single_job(const struct mbgcmi_gcm_ops *ops, mbgcm_job *job)
{
    job->status = mbgcmi_gcm_oneshot(ops, mbgcmi_key_c(job->key), job->iv, job->iv_len,
                                     job->aad, job->aad_len, job->src, job->len, job->dst,
                                     job->tag, job->tag_len, job->dir == MBGCM_DECRYPT);
}
