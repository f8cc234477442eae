/*
 * lanes.h — lane state and the lane-kernel interface.
 *
 * A lane group is four jobs. Its state is a structure of arrays: every per-lane vector field
 * is a 64-byte row holding the four lanes' 16-byte values side by side, so one ZMM load gives
 * the field of all four jobs, and one VAESENC/VPCLMULQDQ advances all four:
 *
 *      zmm (512 bits)   | lane 3      | lane 2      | lane 1      | lane 0      |
 *      row ctr[4][16]   | ctr of job3 | ctr of job2 | ctr of job1 | ctr of job0 |
 *      row rk[r][4][16] | rk_r(key3)  | rk_r(key2)  | rk_r(key1)  | rk_r(key0)  |
 *
 * Round keys and hash-key powers are copied into four-lane rows when a job enters a lane
 * (skipped when the lane's previous job used the same key), so a kernel never gathers.
 *
 * Each lane walks through the GCM phases; the manager (mb/lanes.c) only fills and retires
 * lanes, the kernel advances them:
 *   init    E_K(J0) for lanes whose `init` bit is set (J0 is in ek0 until then)
 *   AAD     aad_left >= 16: full blocks, hash only; then one zero-padded partial block
 *   text    text_left >= 16: full blocks, CTR + GHASH; then one padded partial block
 *   finish  S ^= length block, S *= H, T = E_K(J0) ^ S; encrypt writes tag_len bytes of T,
 *           decrypt compares T with the expected tag in constant time (auth_fail bit)
 * Lanes in different phases share a call: every step advances all busy lanes by the same
 * number of blocks, the smallest distance to a phase boundary among them, so no lane ever
 * crosses a boundary inside a step. The kernel returns as soon as at least one lane has
 * finished; the manager retires those lanes and may refill them.
 *
 * asm/include/lane_state.inc mirrors this layout for the NASM kernels; test/test_layout.c
 * checks that they agree.
 */
#ifndef MBGCM_LANES_H
#define MBGCM_LANES_H

#include "mbgcm_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MBGCMI_GL        4   /* lanes per group */
#define MBGCMI_GHP       8   /* hash-key powers per lane in the group table: H^1..H^8 */
#define MBGCMI_MAX_GROUPS 4  /* up to 16 lanes per manager */
#define MBGCMI_SCRATCH   256 /* bytes idle lanes point at */

struct mbgcmi_group {
    /* ---- four-lane rows (64 bytes each; [lane][16]) ------------------------------------- */
    uint8_t rk[MBGCMI_MAX_ROUNDS + 1][MBGCMI_GL][16]; /*    0 round key r of each lane     */
    uint8_t hp[MBGCMI_GHP][MBGCMI_GL][16];  /*  960 hp[k-1] = H^k, Montgomery V form        */
    uint8_t hk[MBGCMI_GHP][MBGCMI_GL][16];  /* 1472 Karatsuba operand of hp[k-1], both qwords */
    uint8_t ek0[MBGCMI_GL][16];      /* 1984 J0 at entry; E_K(J0) once `init` is cleared   */
    uint8_t ctr[MBGCMI_GL][16];      /* 2048 next counter block, GCM byte order             */
    uint8_t s[MBGCMI_GL][16];        /* 2112 GHASH accumulator, V form (lo qword first)     */
    uint8_t lenblk[MBGCMI_GL][16];   /* 2176 [bitlen(A)]_64 || [bitlen(C)]_64, byte order   */
    uint8_t etag[MBGCMI_GL][16];     /* 2240 decrypt: expected tag (tag_len bytes, 0-padded) */
    uint8_t scratch[MBGCMI_SCRATCH]; /* 2304 idle lanes' pointers point here                */
    /* ---- per-lane scalars ---------------------------------------------------------------- */
    const uint8_t *aad[MBGCMI_GL];   /* 2560 next AAD byte                                  */
    const uint8_t *src[MBGCMI_GL];   /* 2592 next input byte                                */
    uint8_t *dst[MBGCMI_GL];         /* 2624 next output byte                               */
    uint8_t *tag[MBGCMI_GL];         /* 2656 encrypt: where the tag goes                    */
    uint64_t aad_left[MBGCMI_GL];    /* 2688 AAD bytes still to hash                        */
    uint64_t text_left[MBGCMI_GL];   /* 2720 message bytes still to process                 */
    uint32_t rounds[MBGCMI_GL];      /* 2752 10, 12, 14                                      */
    uint32_t tag_len[MBGCMI_GL];     /* 2768                                                */
    /* ---- lane masks (bit i = lane i) ----------------------------------------------------- */
    uint32_t active;                 /* 2784 lanes holding a job                            */
    uint32_t decrypt;                /* 2788 of which decrypting                             */
    uint32_t init;                   /* 2792 of which still need E_K(J0)                    */
    uint32_t auth_fail;              /* 2796 set by finish for decrypt lanes whose tag failed */
    /* ---- summaries kept by the manager for the kernels (mbgcmi_lanes_run) ----------------- */
    uint64_t tagmask;                /* 2800 bits 16i..16i+tag_len-1 set for busy lane i    */
    uint32_t rmax;                   /* 2808 most rounds among busy lanes                   */
    uint16_t k10q;                   /* 2812 qword opmask: busy lanes with 10 rounds < rmax  */
    uint16_t k12q;                   /* 2814 qword opmask: busy lanes with 12 rounds < rmax  */
};

#define MBGCMI_GROUP_SIZE 2816
_Static_assert(sizeof(struct mbgcmi_group) == MBGCMI_GROUP_SIZE, "lane group layout");
_Static_assert(offsetof(struct mbgcmi_group, hp) == 960, "hp");
_Static_assert(offsetof(struct mbgcmi_group, ek0) == 1984, "ek0");
_Static_assert(offsetof(struct mbgcmi_group, scratch) == 2304, "scratch");
_Static_assert(offsetof(struct mbgcmi_group, aad) == 2560, "aad");
_Static_assert(offsetof(struct mbgcmi_group, active) == 2784, "active");
_Static_assert(offsetof(struct mbgcmi_group, tagmask) == 2800, "tagmask");

/*
 * Lane kernel: advance the busy lanes of |g| (g->active != 0) until at least one finishes.
 * Returns the mask of lanes that finished in this call (a subset of g->active; the kernel
 * does not clear them: the manager retires them). For finished decrypt lanes the kernel sets
 * or clears their g->auth_fail bit. Idle lanes may be read (their pointers point at scratch)
 * but their pointers never advance; outputs of idle lanes go nowhere or to scratch.
 */
typedef unsigned (*mbgcmi_lane_kernel_fn)(struct mbgcmi_group *g);

/* ---- short jobs: one pass, four jobs at once ---------------------------------------------
 * Jobs with a 12-byte IV, at most 16 bytes of AAD and at most 8 blocks of message skip the
 * lane state entirely: the manager stages them by their number of message blocks and, when
 * four of one shape are staged (or a flush or timeout needs one), a single-pass kernel reads
 * the four jobs directly and finishes them: E_K(J0), the counter blocks, the AAD block, the
 * message, the length block and the tag, with one aggregated GHASH per lane. */
#define MBGCMI_SHORT_MAX_BLOCKS 8
#define MBGCMI_SHORT_MAX_AAD    16

struct mbgcmi_short_batch {
    mbgcm_job *job[MBGCMI_GL]; /*  0 idle lanes repeat a busy lane's job (read, never written) */
    uint64_t tagmask;          /* 32 tag bytes of busy lane i at bits 16i..16i+tag_len-1      */
    uint32_t active;           /* 40 lane mask                                                */
    uint32_t decrypt;          /* 44 lane mask                                                */
    uint32_t nblk;             /* 48 message blocks of every lane: ceil(len / 16)             */
    uint32_t pad_;             /* 52                                                          */
    uint32_t rmax;             /* 56 most rounds among the lanes                              */
    uint16_t k10q;             /* 60 qword opmask: lanes with 10 rounds < rmax                */
    uint16_t k12q;             /* 62 qword opmask: lanes with 12 rounds < rmax                */
    uint64_t lenblk[MBGCMI_GL][2]; /* 64 length block per lane in V form: {len*8, aad_len*8} */
};
_Static_assert(sizeof(struct mbgcmi_short_batch) == 128, "short batch layout");
_Static_assert(offsetof(mbgcm_job, tag_len) == 80 && offsetof(mbgcm_job, len) == 64 &&
               offsetof(mbgcm_job, iv) == 16 && offsetof(mbgcm_job, aad_len) == 40,
               "job layout (asm/include/job.inc)");

/* Short-job kernel: processes the busy lanes of |b|; returns the lanes whose tag failed
   (decrypt). Writes dst and, for encrypt lanes, tag; reads the expected tags of decrypt lanes
   before writing anything. Never touches job->status (the manager sets it). */
typedef unsigned (*mbgcmi_short_kernel_fn)(const struct mbgcmi_short_batch *b);
#if defined(MBGCM_HAVE_NASM)
unsigned mbgcmi_short_avx512(const struct mbgcmi_short_batch *b);
#endif

/* Per-arch lane machinery. */
struct mbgcmi_lane_ops {
    mbgcmi_lane_kernel_fn kernel;          /* the four-lane kernel */
    mbgcmi_short_kernel_fn short_kernel;   /* the one-pass short-job kernel, or NULL */
    const struct mbgcmi_gcm_ops *single;   /* single-stream kernels (long jobs, J0 of odd IVs) */
    int arch;                              /* arch of the lane kernel (what actually runs) */
    uint64_t single_min_len;               /* default: jobs this long or longer go single-stream,
                                              and a lone lane with this much left finishes so
                                              (measured per arch: docs/design.md) */
};
const struct mbgcmi_lane_ops *mbgcmi_lane_ops_for(int arch);

/* The portable kernel (mb/lanes_generic.c). */
unsigned mbgcmi_lanes_generic(struct mbgcmi_group *g);
#if defined(MBGCM_HAVE_NASM)
/* asm/gcm_x4_avx512.asm: AVX512F/BW/VL + VAES + VPCLMULQDQ + BMI1/2. */
unsigned mbgcmi_lanes_avx512(struct mbgcmi_group *g);
/* asm/gcm_x2_avx2.asm: AVX2 + VAES + VPCLMULQDQ on ymm, two lanes per register. */
unsigned mbgcmi_lanes_avx2(struct mbgcmi_group *g);
/* asm/gcm_x4_aesni.asm: AES-NI + PCLMULQDQ (SSE), four lanes as four interleaved xmm streams. */
unsigned mbgcmi_lanes_aesni(struct mbgcmi_group *g);
#endif

/* ---- lane manager (mb/lanes.c) ------------------------------------------------------------ */

/* Why lanes are run (for the stats). */
enum mbgcmi_run_cause {
    MBGCMI_RUN_FULL = 0,
    MBGCMI_RUN_TIMEOUT,
    MBGCMI_RUN_FLUSH,
    MBGCMI_RUN_RING_FULL,
    MBGCMI_RUN_BURST,
    MBGCMI_RUN_CAUSES
};

/* Manager-side record of a busy lane (never read by kernels). */
struct mbgcmi_lane_info {
    mbgcm_job *job;           /* the job in this lane, NULL when free */
    const mbgcm_key *key;     /* key whose tables are in the lane's rows (cache) */
    unsigned npow;            /* how many hash-key powers of that key the rows hold */
    uint64_t t_submit;        /* submit time, for the timeout */
};

/* Short jobs waiting for three more of their shape (message blocks 0..8). */
struct mbgcmi_stage {
    mbgcm_job *job[MBGCMI_GL];
    uint64_t t_submit[MBGCMI_GL];
    unsigned n;
};

struct mbgcmi_lanes {
    struct mbgcmi_group *g;               /* ngroups groups, 64-byte aligned */
    struct mbgcmi_stage stage[MBGCMI_SHORT_MAX_BLOCKS + 1];
    unsigned staged;                      /* jobs waiting in stages */
    unsigned ngroups;
    unsigned busy;                        /* busy lanes in total */
    unsigned freemask;                    /* bit per lane (4 * group + slot): free */
    unsigned group_by_rounds;             /* placement prefers groups of the job's key size */
    unsigned dirty;                       /* some lane state not wiped since it was used */
    const struct mbgcmi_lane_ops *ops;
    struct mbgcmi_lane_info info[MBGCMI_MAX_GROUPS * MBGCMI_GL];
    uint64_t kernel_calls[MBGCMI_GL];     /* by busy lanes of the group: 1..4 */
    /* test hook: may rewrite J0 when a job enters a lane (counter-wrap tests) */
    void (*j0_hook)(void *ctx, const mbgcm_job *job, uint8_t j0[16]);
    void *j0_ctx;
    uint64_t runs[MBGCMI_RUN_CAUSES];
    uint64_t auth_failures;
    uint64_t single_finish;               /* lone lanes finished single-stream */
    uint64_t single_min_len;              /* threshold in force (manager tunable) */
};

/* Set up |L| over |ngroups| caller-allocated, 64-byte aligned groups. */
void mbgcmi_lanes_init(struct mbgcmi_lanes *L, struct mbgcmi_group *groups, unsigned ngroups,
                       const struct mbgcmi_lane_ops *ops);
/* A free lane index (lane = 4 * group + slot) for a job with |key|, or -1 when every lane
   is busy. Prefers a lane whose rows already hold that key, else the lowest free lane. */
int mbgcmi_lanes_free(const struct mbgcmi_lanes *L, const mbgcm_key *key);
/* With L->group_by_rounds set, a free lane in a group whose busy lanes all have |key|'s round
   count (or that is empty) comes before the lowest free lane (measured: docs/design.md). */
static inline int mbgcmi_lanes_full(const struct mbgcmi_lanes *L)
{
    return L->freemask == 0;
}
/* Put a validated job into free lane |lane|; J0 computed here; status := PENDING. */
void mbgcmi_lanes_enter(struct mbgcmi_lanes *L, int lane, mbgcm_job *job, uint64_t t_submit);
/* A validated job the short kernel takes (12-byte IV, AAD <= 16, <= 8 blocks), or 0. */
static inline int mbgcmi_lanes_short_ok(const struct mbgcmi_lanes *L, const mbgcm_job *job)
{
    /* with the J0 test hook set, every job takes the lane path, where the hook applies */
    return L->ops->short_kernel != NULL && L->j0_hook == NULL && job->iv_len == 12 &&
           job->aad_len <= MBGCMI_SHORT_MAX_AAD && job->len <= 16 * MBGCMI_SHORT_MAX_BLOCKS;
}
/* Run stage |nb| with the jobs it holds (one to four) and complete them. */
void mbgcmi_lanes_stage_run(struct mbgcmi_lanes *L, unsigned nb, enum mbgcmi_run_cause why);
/* Stage a short job (status := PENDING); runs its stage when that makes four. */
static inline void mbgcmi_lanes_stage(struct mbgcmi_lanes *L, mbgcm_job *job,
                                      uint64_t t_submit, enum mbgcmi_run_cause why)
{
    const unsigned nb = (unsigned)((job->len + 15) / 16);
    struct mbgcmi_stage *st = &L->stage[nb];
    const unsigned i = st->n;
    st->job[i] = job;
    st->t_submit[i] = t_submit;
    st->n = i + 1;
    L->staged++;
    job->status = MBGCM_PENDING;
    if (i + 1 == MBGCMI_GL) {
        mbgcmi_lanes_stage_run(L, nb, why);
    }
}
/* Run group |gi|'s kernel once (at least one lane finishes) and retire the finished lanes:
   status set, dst zeroed on auth failure. Returns the mask of retired lanes. */
unsigned mbgcmi_lanes_run(struct mbgcmi_lanes *L, unsigned gi, enum mbgcmi_run_cause why);
/* Where a pending job is: a lane (0..15), or MBGCMI_LOC_STAGE + 4 * blocks + slot for a
   staged short job; -1 if neither. */
#define MBGCMI_LOC_STAGE 64
int mbgcmi_lanes_find(const struct mbgcmi_lanes *L, const mbgcm_job *job);
/* Run whatever holds location |loc| until the job there is complete. */
void mbgcmi_lanes_complete(struct mbgcmi_lanes *L, int loc, enum mbgcmi_run_cause why);
/* Complete every pending job (lanes and stages) that has waited |timeout| ns or longer. */
void mbgcmi_lanes_expire(struct mbgcmi_lanes *L, uint64_t now, uint64_t timeout);
/* Wipe all lane state if no lane is busy and it was used since the last wipe. */
void mbgcmi_lanes_wipe_idle(struct mbgcmi_lanes *L);
/* Wipe everything (free). */
void mbgcmi_lanes_wipe_all(struct mbgcmi_lanes *L);

/* Process a validated job single-stream right away (long jobs); sets its status. */
void mbgcmi_single_job(const struct mbgcmi_gcm_ops *ops, mbgcm_job *job);

#ifdef __cplusplus
}
#endif

#endif /* MBGCM_LANES_H */
