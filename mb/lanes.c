/*
 * lanes.c — the lane manager: which lane a job enters, filling its rows, running a group's
 * kernel and retiring finished lanes, wiping idle lane state. The ring and the policy of
 * *when* to run live in jobs/; the arithmetic lives in the kernels.
 */
#include "lanes.h"

/* One row per arch: the four-lane kernel and the single-stream kernels (long jobs, J0 of
   odd-length IVs). Until the vector lane kernels land, every arch runs the portable lane
   kernel with its own single-stream kernels (docs/design.md, "Paths per arch"). */
#if defined(MBGCM_HAVE_NASM)
#define SINGLE_FAST (&mbgcmi_gcm_ops_aesni)
#define LANES_AVX512 mbgcmi_lanes_avx512, SINGLE_FAST, MBGCMI_ARCH_AVX512
#else
#define SINGLE_FAST (&mbgcmi_gcm_ops_generic)
#define LANES_AVX512 mbgcmi_lanes_generic, SINGLE_FAST, MBGCMI_ARCH_GENERIC
#endif
static const struct mbgcmi_lane_ops lane_ops[MBGCMI_ARCH_COUNT] = {
    [MBGCMI_ARCH_GENERIC] = {mbgcmi_lanes_generic, &mbgcmi_gcm_ops_generic, MBGCMI_ARCH_GENERIC},
    [MBGCMI_ARCH_AESNI] = {mbgcmi_lanes_generic, SINGLE_FAST, MBGCMI_ARCH_GENERIC},
    [MBGCMI_ARCH_AVX2] = {mbgcmi_lanes_generic, SINGLE_FAST, MBGCMI_ARCH_GENERIC},
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
    L->ops = ops;
    for (unsigned gi = 0; gi < ngroups; gi++) {
        group_reset(&groups[gi]);
    }
}

int mbgcmi_lanes_free(const struct mbgcmi_lanes *L)
{
    if (L->busy == L->ngroups * MBGCMI_GL) {
        return -1;
    }
    for (unsigned gi = 0; gi < L->ngroups; gi++) {
        const unsigned freem = ~L->g[gi].active & 0xFu;
        if (freem) {
            return (int)(gi * MBGCMI_GL) + __builtin_ctz(freem);
        }
    }
    return -1;
}

/* The lane's rows already hold this key's tables: same key object and the same H (the
   object may have been re-initialised with another key since). The comparison reveals only
   whether the key changed, like the pointer test before it. */
static int tables_cached(const struct mbgcmi_group *g, int s, const struct mbgcmi_lane_info *li,
                         const mbgcm_key *key)
{
    const struct mbgcmi_key *k = mbgcmi_key_c(key);
    return li->key == key && g->rounds[s] == k->rounds &&
           mbgcmi_ct_equal(g->hp[0][s], k->hpow[MBGCMI_HIDX(1)], 16);
}

void mbgcmi_lanes_enter(struct mbgcmi_lanes *L, int lane, mbgcm_job *job, uint64_t t_submit)
{
    struct mbgcmi_group *g = &L->g[lane / MBGCMI_GL];
    const int s = lane % MBGCMI_GL;
    struct mbgcmi_lane_info *li = &L->info[lane];
    const struct mbgcmi_key *k = mbgcmi_key_c(job->key);

    if (!tables_cached(g, s, li, job->key)) {
        for (unsigned r = 0; r <= k->rounds; r++) {
            memcpy(g->rk[r][s], k->rk[r], 16);
        }
        for (int p = 1; p <= MBGCMI_GHP; p++) {
            memcpy(g->hp[p - 1][s], k->hpow[MBGCMI_HIDX(p)], 16);
            memcpy(g->hk[p - 1][s], k->hkar[MBGCMI_HIDX(p)], 16);
        }
        g->rounds[s] = k->rounds;
        li->key = job->key;
    }
    mbgcmi_gcm_j0(L->ops->single, k, job->iv, job->iv_len, g->ek0[s]);
    if (L->j0_hook != NULL) {
        L->j0_hook(L->j0_ctx, job, g->ek0[s]);
    }
    memcpy(g->ctr[s], g->ek0[s], 16);
    mbgcmi_inc32(g->ctr[s]);
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
    L->busy++;
    L->dirty = 1;
}

unsigned mbgcmi_lanes_run(struct mbgcmi_lanes *L, unsigned gi, enum mbgcmi_run_cause why)
{
    struct mbgcmi_group *g = &L->g[gi];
    if (g->active == 0) {
        return 0;
    }
    L->runs[why]++;
    L->kernel_calls[__builtin_popcount(g->active) - 1]++;
    const unsigned done = L->ops->kernel(g);
    for (int s = 0; s < MBGCMI_GL; s++) {
        if (!(done >> s & 1)) {
            continue;
        }
        const int lane = (int)(gi * MBGCMI_GL) + s;
        mbgcm_job *job = L->info[lane].job;
        if ((g->decrypt & g->auth_fail) >> s & 1) {
            mbgcmi_wipe(job->dst, job->len); /* never release unauthenticated plaintext */
            job->status = MBGCM_ERR_AUTH;
            L->auth_failures++;
        } else {
            job->status = MBGCM_OK;
        }
        L->info[lane].job = NULL;
        lane_idle(g, s);
        L->busy--;
    }
    return done;
}

void mbgcmi_lanes_complete(struct mbgcmi_lanes *L, int lane, enum mbgcmi_run_cause why)
{
    const mbgcm_job *job = L->info[lane].job;
    while (job != NULL && L->info[lane].job == job) {
        mbgcmi_lanes_run(L, (unsigned)lane / MBGCMI_GL, why);
    }
}

int mbgcmi_lanes_find(const struct mbgcmi_lanes *L, const mbgcm_job *job)
{
    for (unsigned i = 0; i < L->ngroups * MBGCMI_GL; i++) {
        if (L->info[i].job == job) {
            return (int)i;
        }
    }
    return -1;
}

void mbgcmi_lanes_wipe_all(struct mbgcmi_lanes *L)
{
    for (unsigned gi = 0; gi < L->ngroups; gi++) {
        group_reset(&L->g[gi]);
    }
    for (unsigned i = 0; i < L->ngroups * MBGCMI_GL; i++) {
        L->info[i].key = NULL;
        L->info[i].job = NULL;
    }
    L->busy = 0;
    L->dirty = 0;
}

void mbgcmi_lanes_wipe_idle(struct mbgcmi_lanes *L)
{
    if (L->busy == 0 && L->dirty) {
        mbgcmi_lanes_wipe_all(L);
    }
}

void mbgcmi_single_job(const struct mbgcmi_gcm_ops *ops, mbgcm_job *job)
{
    job->status = mbgcmi_gcm_oneshot(ops, mbgcmi_key_c(job->key), job->iv, job->iv_len,
                                     job->aad, job->aad_len, job->src, job->len, job->dst,
                                     job->tag, job->tag_len, job->dir == MBGCM_DECRYPT);
}
