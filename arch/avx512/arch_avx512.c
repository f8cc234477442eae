/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arch_avx512.c — the `avx512` arch: VAES and VPCLMULQDQ on zmm with AVX512F/BW/VL (and
 * BMI1/2), with OS AVX-512 state. Jobs with a 12-byte IV and at most 16 bytes of AAD up to 256
 * bytes (by16: 144), and GMAC jobs up to 256 bytes of AAD, go to the short-job kernel (in
 * bursts; the by16 and by32 variants' ring runs them single-stream); other jobs under 129
 * bytes to the four-lane kernel; longer jobs run single-stream, one-shot short
 * messages through the short-message kernel or the avx2 arch's short path, longer ones through
 * the by-16 kernel, a burst's 12-byte-IV jobs pipelined in one call. The thresholds were
 * measured: docs/design.md, "Hybrid scheduling", and docs/perf.md.
 *
 * Variants (docs/design.md, "Variants"; measurements in docs/perf.md): by16 (this descriptor,
 * the default, for Intel cores); by32, the same arch with the single-message kernels of
 * gcm_by32_avx512.asm and their pipelined burst call, for AMD family 0x1A (Zen 5) and later;
 * by32h, by32's kernels with bursts routed for AMD family 0x19 (Zen 4). by32's kernels were
 * measured faster than by16's on both AMD cores the project has run on, slower on Intel.
 */
#include "aesni.h"
#include "arch.h"
#include "avx2.h"
#include "avx512.h"
#include "cpu.h"

#include <string.h>

/* The short-message zmm kernel (gcm_small_avx512.asm) takes at most 512 bytes of message; with
   17..64 bytes of AAD (a QUIC packet's header, say) only while the message and AAD blocks
   together stay within the key's 32 powers (len + aad <= 464 keeps ceil(len / 16) +
   ceil(aad / 16) <= 30). Every variant's whole12 (gcm_small_avx512.asm) stays within these;
   the burst routing below uses the AAD limits. */
#define SMALL_WIDE_AAD_MAX 64
#define SMALL_WIDE_AAD_SPAN 464

/* One message with a 12-byte IV (struct mbgcmi_gcm_ops.whole12), by16 variant (Intel cores). A
   message of one block or less with at most 16 bytes of AAD goes to the short-message file's
   tiny12 entry (no frame, one zmm of AES, one of GHASH: 11-18% less time than the paths below
   at 1-16 bytes on the Intel Xeon guest). The short-message zmm kernel takes messages of
   17..BY16_SMALL_MAX bytes, with at most 16 bytes of AAD or as wide AAD above; other messages
   of at most 144 bytes with at most 64 bytes of AAD go through the avx2 arch's short path (one
   ymm pass with E_K(J0) in it, one aggregated GHASH: less fixed cost than the zmm kernels'
   entry; every avx512 CPU has what the avx2 arch requires), the rest through the by16 kernel.
   On the Intel Xeon guest (docs/perf.md, "Intel Xeon guest against intel-ipsec-mb 2.0.2") the
   short-message kernel took 15-26% off the avx2 short path's time at 32-144 bytes (26-34% with
   32-64 bytes of AAD) and 14-20% off by16's at 192-256. Encrypting from 193 bytes, its small12p
   entry makes the key stream in two or three passes (each pass's GHASH under the next one's
   rounds): 9-11% less time than one pass at 256-320 bytes
   and 3-12% less than by16's at 336-512 (by16: one whole group and a tail, the group's GHASH
   waiting for the group's pass). Decrypting it stays ahead to 512 bytes (18% at 320, 5-8% at 512),
   where it hashes its input during the AES pass. GMAC calls (no message) with up to 16 bytes of
   AAD go to tiny12g, with 17..496 bytes to gmac12p (a GHASH-only entry, schoolbook: 2-17% less
   time than small12p at 17-64 bytes and than by16 at 128-496 at most points, docs/perf.md,
   "Intel Xeon guest, eighth stop"); small12p had taken those up to 64 bytes with 12-25% less
   time than the avx2 short path. Longer messages with at most 64 bytes of AAD take small12p
   too, in chunks of 32 blocks (each chunk's GHASH reduced under the next chunk's rounds):
   encrypts of 513..BY16_CHUNKS_ENC_MAX bytes (4-13% less time than by16's kernel at 528-1024 bytes,
   one-shot and in the ring; at 1100-2048 bytes AES-128 encrypts were 1-6% slower, AES-256
   level) and decrypts of 513..BY16_CHUNKS_MAX bytes (at 1100-2048 another 4-8% less). Lengths
   and the direction are public (docs/perf.md, "Intel Xeon guest, seventh stop"). The choice is
   made in asm (gcm_small_avx512.asm, mbgcmi_avx512_by16_whole12, whose BY16_SMALL_MAX,
   BY16_CHUNKS_ENC_MAX and BY16_CHUNKS_MAX must equal the ones below): as a C function it took
   1-5% of a call of at most 64 bytes. */
#define SMALL12_AAD_MAX 64 /* (over 16 bytes the short path hashes the first blocks at entry) */
#define BY16_SMALL_MAX 512
#define BY16_CHUNKS_MAX 2048
#define BY16_CHUNKS_ENC_MAX 1024
/* The by32 and by32h variants' whole12: up to 512 bytes with at most 16 bytes of AAD, or with
   wide AAD as above, through the short-message zmm kernel (one pass, nothing on the stack),
   the rest through by32. On the Zen 5 guest it took 12-27% off the avx2 short path's time at
   64-144 bytes and 15-25% off by32's at 160-256; on the Zen 4 guest 2-17% off by16's at
   256-512 bytes. A message of one block or less (with at most 16 bytes of AAD, GMAC calls
   included) is the exception: by32 sends it to tiny12 / tiny12g (on the Zen 5 guest 13-34%
   less time than the avx2 short path at 0-16 bytes, one-shot), by32h to the avx2 short path,
   whose few instructions at ymm width took 9-12% less time than the zmm short kernel on the
   Zen 4 guest, where a zmm operation is two (tiny12, mostly ymm, was not measured there).
   docs/perf.md, "A kernel for short one-shot messages", "AMD EPYC Zen 4 guest" and "AMD EPYC
   Zen 5 guest, seventh stop". In asm (gcm_small_avx512.asm, mbgcmi_avx512_by32_whole12 and
   mbgcmi_avx512_by32h_whole12), as by16's. On Zen 5 by16's whole12 (small12p: schoolbook
   products, the chunks past 512 bytes) took 2-33% more time than by32's at 64-1024 bytes; but
   small12's own chunks (Karatsuba, one pass per chunk: the entry small12k) take by32's decrypts
   of 513..992 bytes (with at most 64 bytes of AAD): 2-5% less time than by32's split passes
   there in a quiet host phase, 5-19% in a busy one (32 bytes of AAD: 1-6%, quiet); its
   encrypts, whose GHASH must wait for each chunk's key stream, stay with by32 (the chunks took
   2-9% more time). by32h keeps by32 for every length past 512 (unmeasured on Zen 4). GMAC
   calls (no message) with 17..2048 bytes of AAD take gmac12 / gmac12c, a GHASH-only entry (the
   AAD's rows in chunks of up to 32 blocks, L, E_K(J0) beside): on the Zen 5 guest 6-14% less
   time than small12 at 32-64 bytes, 22-30% less than by32 at 128-496 and 3-12% at 512-2048,
   where they had been 10-30% slower than intel-ipsec-mb 2.0.2's direct call up to 512 bytes
   (docs/perf.md, "seventeenth stop"). */

/* The by16 variant's ring (Intel Xeon guest, docs/perf.md): every job with a message and a
   12-byte IV runs at once through whole12, not the four-lane short-job kernel (GMAC jobs still
   go there): the ring's way into whole12 is lighter than a short-job class's (no wait for
   three more jobs, no gather of four keys' rows), and with 64 keys it took 7-26% off the
   ring's time at 16-144 bytes; with one key for all jobs 1-16% at most points, level or up
   to 5% slower at a few (AES-128 encrypts of 16 bytes, AES-256 encrypts of 96). Up to the
   lengths above whole12 is the short-message kernel; in a burst too: against by16's pipelined
   call decrypts of 513-1024 bytes took 8-13% less time, of 1100-2048 2-7%, encrypts of 480
   bytes 5-8%, of 528-1024 level (with schoolbook products and the chunks; before, the
   pipelined call took encrypts from 465 bytes and decrypts from 513). Longer burst jobs wait
   for the pipelined call. GMAC jobs run at once through whole12 too, since by16's kernel
   hashes the length block with the AAD's last blocks when there is no message (AAD of 300
   bytes 14-16% less time than in the pipelined call, 600-1024 bytes 5%, 2048 level). */
#ifndef BY16_SHORT_MSG_BELOW
#define BY16_SHORT_MSG_BELOW 1
#endif
/* A burst's jobs keep the short-job kernel below 113 bytes: there whole12 took 11-16% off its
   time at 120-128 bytes with 64 keys (6-13% at 144), 3-10% at 120-128 with one key for all
   jobs (1-6% more at 144), and at 16-112 bytes with 64 keys 4-16% at 64-112, but with one key
   it was 0-25% slower at 16-96 (docs/perf.md): a burst fills a short-job class without the
   ring's per-job cost. */
#define BY16_BURST_SHORT_MSG_BELOW 113
/* ...and only in bursts of 8 jobs or more whose first two jobs share a key: there, with one
   key for all jobs, the short-job kernel took 5-15% off whole12's time at 16-64 bytes, but
   with 64 keys round-robin whole12 was quicker at every burst size (decrypts 13-22%, encrypts
   up to 14%), and with one key in bursts of 1, 2 and 4 jobs (a class run for so few lanes:
   35-42%, 14-29% and up to 7% at 64-112 bytes). */
#define BY16_BURST_SHORT_MIN_JOBS 8
/* The ring's GMAC jobs leave the short-job kernel too: through whole12 (tiny12g, small12p, the
   avx2 arch's short path) they took 15-23% off the ring's time with 16 bytes of AAD, 24-29%
   with 64 and 13-22% with 200 (64 keys; one key 15-27%). In bursts the rule above turns away
   (64 keys, bursts of 32) so do those with more than 16 bytes of AAD: 3-11% less time at 64
   and 8-11% at 200; with 16 bytes whole12 was 0-3% slower there, and with one key for all
   jobs (where the rule keeps the kernel) 5-20% slower. */
#ifndef BY16_GMAC_SINGLE
#define BY16_GMAC_SINGLE 1
#endif

static const struct mbgcmi_gcm_ops ops = {
    .block = mbgcmi_avx_block,
    .ghash = mbgcmi_avx512_ghash,
    .stream12_start = mbgcmi_avx512_stream12_start,
    .stream_finish = mbgcmi_avx512_stream_finish,
    .ctr_enc = mbgcmi_avx512_ctr_enc,
    .ctr_dec = mbgcmi_avx512_ctr_dec,
    .whole = mbgcmi_avx512_gcm,
    /* scatter-gather jobs cut on the group grid (mbufs of 512 or 2048 bytes) in one call of
       by16's own whole-message kernel over the chunk list, both directions (on the Intel Xeon
       guest encrypts 0-7% less time than through by32's list in 512-byte pieces, decrypts 3-12%
       less than a call per piece, both 2-16% less at 1-2 KiB pieces); more groups than one
       list holds: encrypts through by32's chunk-list ctr
       op, decrypts a call per piece (by32's list decrypt 2-6% slower there); pieces of 64-1998
       bytes, whose groups would be bounced, a call per piece (by32's bounced list took 2-2.8x
       the time; docs/perf.md) */
    .ctr_list_enc = mbgcmi_avx512_by32_ctr_list_enc,
    .copy = mbgcmi_avx512_copy,
    .whole_list = mbgcmi_avx512_by16_gcm_list,
    .list_grid_only = 1,
    .whole12 = mbgcmi_avx512_by16_whole12,
    .jobs12 = mbgcmi_avx512_gcm12_jobs,
    .jobs12_enc_from = BY16_CHUNKS_ENC_MAX + 1,
    .jobs12_dec_from = BY16_CHUNKS_MAX + 1,
    .jobs12_enc_below = SIZE_MAX,
    .jobs12_dec_below = SIZE_MAX,
    /* jobs the lanes would get (under 129 bytes in all) with 17..64 bytes of AAD: whole12
       (its avx2 short path, measured on Zen 4 with this variant forced: 19-29% less time
       one-shot than by16's kernel, and about half the lane kernel's burst time; on Intel the
       short-message kernel, quicker still, takes those of 17 bytes of message and more) */
    .wide_aad_max = SMALL12_AAD_MAX,
    .wide_aad_span = 128, /* (from 129 bytes in all every job goes single-stream anyway) */
};

/* The by32 variant's bursts (measured on the Zen 5 guest: docs/perf.md, "by32's pipelined
   burst call"): decrypts run at once through whole12 (by32 hashes a decrypt's final blocks
   inside its last AES pass: they are its input, so there is no idle GHASH to hide), as do
   encrypts up to 512 bytes (the short-message kernel: 5-20% less time at 320-512 bytes than
   by16's pipelined call, which they took before). Encrypts from 513 bytes wait for the
   pipelined call, jobs12_by32: runs of encrypts with a message and at most 16 bytes of AAD go
   through by32's pipelined kernel, where each job's final GHASH and tag ride in the next job's
   first AES pass (1-6% less time than whole12 at once at 513-1518 bytes while the host is
   busy, level or within 3% either way while it is quiet: Zen 5's out-of-order window overlaps
   much of one message's final GHASH with the next one's start by itself); runs of the other
   jobs in the list (more AAD) go through by16's pipelined call. */
#ifndef BY32_JOBS12_ENC_FROM
#define BY32_JOBS12_ENC_FROM 513
#endif
static int by32_pipes(const mbgcm_job *job)
{
    return job->dir == MBGCM_ENCRYPT && job->aad_len <= 16 && job->len != 0;
}
static uint64_t jobs12_by32(mbgcm_job *const *jobs, size_t n)
{
    uint64_t fail = 0;
    for (size_t i = 0; i < n;) {
        const int pipes = by32_pipes(jobs[i]);
        size_t j = i + 1;
        while (j < n && by32_pipes(jobs[j]) == pipes) {
            j++;
        }
        if (pipes) {
            mbgcmi_avx512_by32_jobs12(jobs + i, j - i);
        } else {
            fail |= mbgcmi_avx512_gcm12_jobs(jobs + i, j - i) << i;
        }
        i = j;
    }
    return fail;
}

/* The by32 variant's ring (Zen 5 guest, docs/perf.md, "AMD EPYC Zen 5 guest, seventh stop"):
   as by16's, every job with a message and a 12-byte IV runs at once through whole12, and so do
   GMAC jobs: with 64 keys that took 8-26% off the ring's time at 16-256 bytes (AES-128
   decrypts of 16 bytes level), with one key 4-23% at 64-256 bytes but 3-14% more at 16; GMAC
   jobs 16-32% less with 16-64 bytes of AAD. Bursts keep the short-job kernel for every encrypt
   it takes (up to 256 bytes) and for decrypts of up to 144 bytes: there whole12 took 10-50%
   more time at 16-128 bytes with 64 keys or one; from 145 bytes a burst's decrypts go through
   whole12, which took 5-17% off their time at 160-256 bytes with 64 keys and 3-7% with one
   ("AMD EPYC Zen 5 guest, twelfth stop"); encrypts there gained with 64 keys at AES-128 and
   lost up to 10% with one key at AES-256. */
#ifndef BY32_SHORT_MSG_BELOW
#define BY32_SHORT_MSG_BELOW 1
#endif
#ifndef BY32_BURST_SHORT_MSG_BELOW
#define BY32_BURST_SHORT_MSG_BELOW UINT64_MAX
#endif
#ifndef BY32_BURST_SHORT_DEC_BELOW
#define BY32_BURST_SHORT_DEC_BELOW 145
#endif
/* GMAC jobs (no message) of a burst with fewer bytes of AAD than this would wait for the
   pipelined call (by16's): none do. Those the short-job kernel does not take (more than 256
   bytes of AAD) run at once through whole12 (gmac12 / gmac12c up to 2048 bytes): 8-9% less
   time than the pipelined call at 300-496 bytes on Zen 5, about 17% at 768 (docs/perf.md). */
#ifndef BY32_JOBS12_GMAC_BELOW
#define BY32_JOBS12_GMAC_BELOW 0
#endif
#ifndef BY32_GMAC_SINGLE
#define BY32_GMAC_SINGLE 1
#endif

/* by32's single-message kernels: all but the whole-message entries and the burst routing */
#define BY32_OPS_KERNELS                                                                        \
    .block = mbgcmi_avx_block, .ghash = mbgcmi_avx512_ghash,                                    \
    .stream12_start = mbgcmi_avx512_stream12_start,                                             \
    .stream_finish = mbgcmi_avx512_stream_finish,                                               \
    .ctr_enc = mbgcmi_avx512_by32_ctr_enc, .ctr_dec = mbgcmi_avx512_by32_ctr_dec,               \
    .ctr_list_enc = mbgcmi_avx512_by32_ctr_list_enc,                                            \
    .ctr_list_dec = mbgcmi_avx512_by32_ctr_list_dec, .copy = mbgcmi_avx512_copy,                \
    .whole_list = mbgcmi_avx512_by32_gcm_list,                                                  \
    .wide_aad_max = SMALL_WIDE_AAD_MAX, .wide_aad_span = SMALL_WIDE_AAD_SPAN

static const struct mbgcmi_gcm_ops ops_by32 = {
    BY32_OPS_KERNELS,
    .whole = mbgcmi_avx512_by32_gcm,
    .whole12 = mbgcmi_avx512_by32_whole12,
    .whole12_next = mbgcmi_avx512_by32_whole12_next,
    .jobs12 = jobs12_by32,
    .jobs12_enc_from = BY32_JOBS12_ENC_FROM,
    .jobs12_enc_below = SIZE_MAX,
    .jobs12_dec_below = 0,
    .jobs12_gmac_below = BY32_JOBS12_GMAC_BELOW,
};

/* The by32h variant (cores that run a zmm operation as two 256-bit halves: Zen 4): by32's
   kernels, with bursts routed otherwise, as measured there (docs/perf.md, "Bursts on Zen 4").
   The four-lane short-job kernel pays at half rate for its rows of four keys and its lane
   shuffles: from 161 bytes of message a burst job ran faster through whole12 (the
   short-message kernel), so only shorter messages (and GMAC jobs, which whole12 has no path
   for) take it. Up to 512 bytes whole12 also beat by16's pipelined call in both directions;
   from 513 bytes, where whole12 is by32 with its fixed cost per message, the pipelined call won
   at 528-704 and 896 bytes in both directions (3-7%), and by32 from 1024. by32's entries then
   split a message of one group and a short tail at 24 blocks (513..736 bytes), and whole12
   took 4-6% off the pipelined call's time for such encrypts (not for decrypts). */
#ifndef BY32H_SHORT_MSG_BELOW
#define BY32H_SHORT_MSG_BELOW 161
#endif
#ifndef BY32H_JOBS12_ENC_FROM
#define BY32H_JOBS12_ENC_FROM 737
#endif
#ifndef BY32H_JOBS12_ENC_BELOW
#define BY32H_JOBS12_ENC_BELOW 897
#endif
#ifndef BY32H_JOBS12_DEC_FROM
#define BY32H_JOBS12_DEC_FROM 513
#endif
#ifndef BY32H_JOBS12_DEC_BELOW
#define BY32H_JOBS12_DEC_BELOW 897
#endif

static const struct mbgcmi_gcm_ops ops_by32h = {
    BY32_OPS_KERNELS,
    .whole = mbgcmi_avx512_by32_gcm,
    .whole12 = mbgcmi_avx512_by32h_whole12,
    .jobs12 = mbgcmi_avx512_gcm12_jobs,
    .jobs12_enc_from = BY32H_JOBS12_ENC_FROM,
    .jobs12_enc_below = BY32H_JOBS12_ENC_BELOW,
    .jobs12_dec_from = BY32H_JOBS12_DEC_FROM,
    .jobs12_dec_below = BY32H_JOBS12_DEC_BELOW,
};

/* by32h on AMD family 0x19 (Zen 4), by32 on 0x1A (Zen 5) and later, by16 elsewhere (Intel
   cores: one VAESENC zmm per cycle at latency 3, four chains fill it; on the Intel Xeon guest
   by32's kernels took 0-7% more time than by16's at 600 bytes to 16 KiB in most cells).
   Zen 5 issues two VAESENC zmm per cycle at latency 4 and needs by32's eight chains; Zen 4
   issues one (two 256-bit halves) at latency 4, yet by32's kernels still took 5-17% off by16's
   time at 1420 bytes to 16 KiB: their Karatsuba products leave more of the vector pipes, which
   the AES rounds share with the carry-less multiplier there, to the rounds (docs/perf.md, "AMD
   EPYC Zen 4 guest"). */
static unsigned choose(const struct mbgcmi_cpu_id *cpu, unsigned features)
{
    (void)features;
    if (strcmp(cpu->vendor, "AuthenticAMD") != 0 || cpu->family < 0x19) {
        return 0;
    }
    return cpu->family == 0x19 ? 2 : 1;
}

extern const struct mbgcmi_arch mbgcmi_arch_avx512, mbgcmi_arch_avx512_by32,
    mbgcmi_arch_avx512_by32h;
static const struct mbgcmi_arch *const variants[] = {
    &mbgcmi_arch_avx512, &mbgcmi_arch_avx512_by32, &mbgcmi_arch_avx512_by32h};

/* What every variant's descriptor shares: all but the variant's name and op table */
#define AVX512_COMMON                                                                           \
    .name = "avx512",                                                                           \
    .requires = MBGCMI_F_SSSE3 | MBGCMI_F_SSE41 | MBGCMI_F_AESNI | MBGCMI_F_PCLMUL |              \
                MBGCMI_F_AVX | MBGCMI_F_AVX2 | MBGCMI_F_VAES | MBGCMI_F_VPCLMUL |                \
                MBGCMI_F_BMI1 | MBGCMI_F_BMI2 | MBGCMI_F_AVX512F | MBGCMI_F_AVX512BW |           \
                MBGCMI_F_AVX512VL,                                                              \
    .portable = 0, .key_expand = mbgcmi_avx512_key_expand, .lanes = mbgcmi_avx512_lanes,        \
    .short_jobs = mbgcmi_avx512_short_jobs,                                                     \
    .single_min_len = 129 /* for jobs the short kernel cannot take */

const struct mbgcmi_arch mbgcmi_arch_avx512 = {
    .variant = "by16",
    .short_msg_below = BY16_SHORT_MSG_BELOW,
    .burst_short_msg_below = BY16_BURST_SHORT_MSG_BELOW,
    .gmac_single = BY16_GMAC_SINGLE,
    .burst_short_min_jobs = BY16_BURST_SHORT_MIN_JOBS,
    .variants = variants,
    .nvariants = 3,
    .choose = choose,
    AVX512_COMMON,
    .ops = &ops,
};

/* The by32 variant: the fields above but the name of the variant and the op table (the
   registry lists only mbgcmi_arch_avx512; test_dispatch checks that the two agree) */
const struct mbgcmi_arch mbgcmi_arch_avx512_by32 = {
    .variant = "by32",
    .short_msg_below = BY32_SHORT_MSG_BELOW,
    .burst_short_msg_below = BY32_BURST_SHORT_MSG_BELOW,
    .burst_short_dec_below = BY32_BURST_SHORT_DEC_BELOW,
    .gmac_single = BY32_GMAC_SINGLE,
    AVX512_COMMON,
    .ops = &ops_by32,
};

/* The by32h variant: by32's kernels, bursts routed for half-rate zmm (above) */
const struct mbgcmi_arch mbgcmi_arch_avx512_by32h = {
    .variant = "by32h",
    AVX512_COMMON,
    .ops = &ops_by32h,
    .short_msg_below = BY32H_SHORT_MSG_BELOW,
};
