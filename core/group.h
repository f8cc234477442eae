/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * group.h — the kernels' ABI: the lane group (four jobs side by side), the short-job list,
 * and the kernel function types. Kernels compute only; the scheduler (jobs/) decides.
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
 * Each lane walks through the GCM phases; the scheduler (jobs/sched.c) only fills and retires
 * lanes, the kernel advances them:
 *   init    E_K(J0) for lanes whose `init` bit is set (J0 is in ek0 until then)
 *   AAD     aad_left >= 16: full blocks, hash only; then one zero-padded partial block
 *   text    text_left >= 16: full blocks, CTR + GHASH; then one padded partial block
 *   finish  S ^= length block, S *= H, T = E_K(J0) ^ S; encrypt writes tag_len bytes of T,
 *           decrypt compares T with the expected tag in constant time (auth_fail bit)
 * Lanes in different phases share a call: every step advances all busy lanes by the same
 * number of blocks, the smallest distance to a phase boundary among them, so no lane ever
 * crosses a boundary inside a step. The kernel returns as soon as at least one lane has
 * finished; the scheduler retires those lanes and may refill them.
 *
 * arch/x86/include/lane_state.inc mirrors this layout for the NASM kernels; test/test_layout.c
 * checks that they agree.
 */
#ifndef MBGCM_CORE_GROUP_H
#define MBGCM_CORE_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "key.h"

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
    /* ---- summaries the scheduler fills before each call ------------------------------------ */
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
 * does not clear them: the scheduler retires them). For finished decrypt lanes the kernel sets
 * or clears their g->auth_fail bit. Idle lanes may be read (their pointers point at scratch)
 * but their pointers never advance; outputs of idle lanes go nowhere or to scratch.
 */
typedef unsigned (*mbgcmi_lane_kernel_fn)(struct mbgcmi_group *g);

/* ---- short jobs: many per call, straight from the jobs --------------------------------------
 * Jobs with a 12-byte IV, at most 16 bytes of AAD and at most 16 blocks of message skip the
 * lane state: the scheduler gathers them by shape (message blocks x key size) and hands a list
 * of up to MBGCMI_SHORT_MAX_JOBS to the arch's short-job kernel, which reads the jobs directly
 * and finishes them: E_K(J0), the counter blocks, the AAD block, the message, the length block
 * and the tag, with one aggregated GHASH per job, four jobs per lane group and consecutive
 * groups overlapped. GMAC jobs (no message, 17..256 bytes of AAD) go the same way, their AAD
 * hashed in the message rows' place. */
#define MBGCMI_SHORT_MAX_BLOCKS 16
#define MBGCMI_SHORT_MAX_AAD    16
#define MBGCMI_SHORT_MAX_JOBS   64
#define MBGCMI_SHORT_SAMEKEY    0x100u   /* flags: every job of the call has the same key */
#define MBGCMI_SHORT_ALLGMAC    0x200u   /* flags: every job of the call is a GMAC job (a hint:
                                            no key stream needed; a kernel may ignore it) */

/* Shape word kinds (bits 24..31): bit 7 hash the output (else the input), bit 6 store the tag
   (else compare it), bit 5 GMAC (the AAD in the message rows, length block {aad bits, 0}). */
#define MBGCMI_SHAPE_ENC      UINT32_C(0xC0000000)
#define MBGCMI_SHAPE_DEC      UINT32_C(0x00000000)
#define MBGCMI_SHAPE_GMAC_GEN UINT32_C(0x60000000)
#define MBGCMI_SHAPE_GMAC_VER UINT32_C(0x20000000)
#define MBGCMI_SHAPE_GMAC_BIT UINT32_C(0x20000000) /* set in both GMAC kinds, in no other */

/* Whether a job with these public fields (12-byte IV and linear already known) is a short job
   shorter than |lim| bytes of hashed rows (lim <= 16 * MBGCMI_SHORT_MAX_BLOCKS + 1) and than
   |mlim| bytes of message (mlim <= lim: where a message of that length runs faster through the
   single-message kernels; GMAC rows are held to |lim| only), and then its
   class (blocks of rows x key size) and shape word for the kernel: aad_len | tag_len << 8 |
   bytes of its last row (0 without rows) << 16 | kind. The scheduler builds the shape while it
   validates the job (the kernel turns it into lane masks without touching the job). */
static inline __attribute__((always_inline)) int
mbgcmi_short_classify(uint64_t len, uint64_t aad, uint64_t tl, unsigned dir, unsigned rounds,
                      uint64_t lim, uint64_t mlim, unsigned *cls, uint32_t *shape)
{
    uint64_t rows = len;
    uint32_t kind = dir == MBGCM_ENCRYPT ? MBGCMI_SHAPE_ENC : MBGCMI_SHAPE_DEC;
    uint32_t a = (uint32_t)aad;
    if (__builtin_expect(aad > MBGCMI_SHORT_MAX_AAD, 0)) {
        if (len != 0) {
            return 0;
        }
        rows = aad; /* GMAC */
        a = 0;
        kind = dir == MBGCM_ENCRYPT ? MBGCMI_SHAPE_GMAC_GEN : MBGCMI_SHAPE_GMAC_VER;
    }
    if (rows >= lim || len >= mlim) {
        return 0;
    }
    const uint64_t nb = (rows + 15) >> 4;
    *cls = (unsigned)nb * 3 + (rounds - 10) / 2;
    *shape = a | (uint32_t)tl << 8 | (uint32_t)(rows ? rows + 16 - 16 * nb : 0) << 16 | kind;
    return 1;
}

/*
 * Short-job kernel: |n| (1..MBGCMI_SHORT_MAX_JOBS) validated linear jobs with 12-byte IVs, at
 * most MBGCMI_SHORT_MAX_AAD bytes of AAD and ceil(len / 16) == |nblk|, or GMAC jobs (len 0)
 * with ceil(aad_len / 16) == |nblk| > 0, and keys of
 * |flags & 0xFF| rounds (MBGCMI_SHORT_SAMEKEY in |flags|: one key object for all;
 * MBGCMI_SHORT_ALLGMAC: every job is a GMAC job), with
 * their shape words. Returns bit i set when job i is a decrypt whose tag did not match (the
 * scheduler zeroes its output). Writes each job's dst and, for encrypt jobs, its tag; reads a
 * job's expected tag before any of its output; sets each job's status to MBGCM_OK or, for a
 * failed tag, MBGCM_ERR_AUTH (the scheduler still zeroes that job's output and counts it). Jobs
 * in one call must not write into each other's buffers.
 */
typedef uint64_t (*mbgcmi_short_jobs_fn)(mbgcm_job *const *jobs, const uint32_t *shapes,
                                         size_t n, unsigned nblk, unsigned flags);

/* The short-job and burst kernels read the public struct mbgcm_job directly through
   arch/x86/include/job.inc (a per-job copy into a private layout would cost more than the
   per-job budget): its layout is part of their ABI, pinned here. A new field (a mode for later
   job kinds) changes sizeof(mbgcm_job) and therefore comes only with a SONAME bump. */
_Static_assert(offsetof(mbgcm_job, tag_len) == 80 && offsetof(mbgcm_job, len) == 64 &&
               offsetof(mbgcm_job, iv) == 16 && offsetof(mbgcm_job, aad_len) == 40 &&
               offsetof(mbgcm_job, status) == 96 && MBGCM_OK == 0 && MBGCM_ERR_AUTH == 1,
               "job layout (arch/x86/include/job.inc)");


#ifdef __cplusplus
}
#endif

#endif /* MBGCM_CORE_GROUP_H */
