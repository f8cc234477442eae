; SPDX-License-Identifier: BSD-3-Clause
; gcm_by32_avx512.asm — single-stream ("by32": one message, 32 blocks per iteration) AES-GCM
; kernels with VAES + VPCLMULQDQ on zmm: the `avx512` arch's by32 variant (docs/design.md,
; "Variants"), for cores that issue two VAESENC zmm per cycle at a latency of about four
; cycles, with a carry-less multiplier that takes a VPCLMULQDQ every other cycle beside them.
;
; Why 32 blocks: an iteration of eight zmm of four counter blocks each is eight independent AES
; chains; at two VAESENC per cycle each chain gets a round every fourth cycle, its latency,
; where the by16 kernel's four chains leave half the AES issue slots empty. The GHASH of 32
; blocks (G0..G7) is stitched between the AES rounds of a pass: encrypting, the previous
; group's output; decrypting, the group's own input (the ciphertext is there before the AES,
; so nothing is left to hash after the last pass). Aggregated with H^32..H^1: the key stores
; the powers highest first, so the 64-byte row at HPOW(32 - 4j) is [H^(32-4j) .. H^(29-4j)],
; the powers of the four blocks of G_j; the rows are memory operands (no register is left for
; them). Karatsuba products, three multiplies per block instead of four (the multiplier is the
; scarcer unit on such a core): LO = a0*b0, HI = a1*b1, MI = (a0^a1)*(b0^b1), summed over the
; 32 blocks; the key's HKAR rows hold b0^b1 of each power, and the blocks' a0^a1 are made two
; inputs at a time (one unpack of the low qwords, one of the high, one xor: [a0^a1 of one
; input | a0^a1 of the other] in each lane, multiplied with imm 0x00 and 0x01). The middle
; term is MI ^ LO ^ HI, once per iteration; then one Montgomery reduction per lane and a fold
; of the four lanes into S (gcm_wide.inc's GH_W_REDUCE_SB). The loop-carried chain (S -> first
; block -> products -> reduction -> fold -> S) is about 30 cycles, inside an iteration; G0,
; the input S joins, is hashed last (GK_STEP), so the previous reduction has the most time.
; The passes are specialised per key size, each spreading the nine GHASH steps over its rounds
; (SLOT_STEPS). Round keys: a group's first pass broadcasts each from the key and keeps the
; 64-byte row in the frame, the later passes load the rows (on a core where a broadcast from
; memory takes a shuffle slot on the pipes the rounds use, that slot goes back to the rounds);
; the rows are wiped when the whole groups are done. A message with fewer than RK64_MIN_GROUPS
; (3) whole groups broadcasts as it goes: the rows' stores and wipe cost more than one later
; pass saves (on Zen 4, where a broadcast beside the rounds is free, they are pure cost:
; docs/perf.md, "Round-key rows for two whole groups").
;
; Messages: whole groups of 32 blocks; then the tail (1..511 bytes) in one pass of one zmm per
; 64 bytes begun, under byte masks (with the last group's GHASH stitched in, encrypting); then one
; aggregated GHASH of the F tail blocks and the length block with H^(F+1)..H^1 (F <= 32).
; A message of 513..SIX_MAX bytes (one whole group and a short tail) is split otherwise: a first
; pass of 24 blocks (six zmm; their GHASH with H^24..H^1, GK_STEP6) and a tail of 129..SIX_MAX -
; 384 bytes (FIRST_ENC6, FIRST_DEC6), so that the tail's pass has AES work to run beside those
; multiplies (measured on Zen 4 and Zen 5: docs/perf.md).
; Decrypting, the tail's blocks (the input) and the length block are there before its pass, so
; that final GHASH rides in the tail's own pass (PASS_FH) and the output reads the input again.
; F = 32 (a message that ends on a 512-byte boundary, or a tail of more than 496 bytes) needs
; H^33, one power beyond the key's table: computed at entry (H^32 * H, off the critical path)
; into the frame. A message of at most 480 bytes with at most 16 bytes of AAD hashes its AAD
; block and its length block at entry, with H^(F+2) and H^1, into LO/MI/HI (PRE_HASH): one
; reduction for the whole message, none of that work between the last AES round and the tag.
; Encrypting whole groups, AAD of 1..16 bytes is hashed inside the first pass, after its third
; round (AAD_LATE): hashed at entry, its multiplies issued ahead of the rounds and held the
; pipes they share on Zen 4 (docs/perf.md, "Work issued ahead of the AES rounds").
; AAD (otherwise), the ghash op, the entry and the tag come from gcm_wide.inc (shared with the
; by16 kernel).
;
; CPU: AVX512F/BW/VL + VAES + VPCLMULQDQ (the `avx512` arch). ABI: System V.
;
; void mbgcmi_avx512_by32_ctr_enc(const key *k, uint8_t ctr[16], uint64_t s[2],
;                                 const uint8_t *in, uint8_t *out, size_t nblocks);
; void mbgcmi_avx512_by32_ctr_dec(...same...);
;   Contracts as the `struct mbgcmi_gcm_ops` members in core/gcm.h (ctr left at the next
;   unused counter, s in V form, in == out allowed).
; void mbgcmi_avx512_by32_ctr_list_enc(const key *k, uint8_t ctr[16], uint64_t s[2],
;                                      const struct mbgcmi_chunk *list, size_t nblocks);
; void mbgcmi_avx512_by32_ctr_list_dec(...same...);
;   The ctr ops over a message in pieces (scatter-gather jobs): group g (32 blocks, the last
;   one shorter) read from list[g].in, written to list[g].out; the loop is the same, only the
;   step from one group to the next loads the next entry (GROUP_ADV with LIST 1), so the
;   groups stay in flight across pieces (a call per piece starts and drains the pipeline).
; void mbgcmi_avx512_by32_gcm(...), int mbgcmi_avx512_by32_gcm12(...): as mbgcmi_avx512_gcm
;   and mbgcmi_avx512_gcm12 (gcm_by16_avx512.asm).
; void mbgcmi_avx512_by32_jobs12(mbgcm_job *const *jobs, size_t n): the burst path's pipelined
;   call for encrypts (its comment, at the end of this file).
;
; Register plan
;   rdi k  rcx in  r8 out  r9 full blocks left  rbx message bytes (ctr: 16 * nblocks)
;   r12 the first counter block in memory (J0, or the ctr op's counter)  r13 tag (ctr: s)
;   esi last byte of B0's lane 0 in the bulk (the counter form's wrap test), then the tail's
;   bytes  r14 1 while a whole group's GHASH is pending (3: FIRST_ENC6's 24 blocks; 2: a
;   decrypting tail's pass carries the final GHASH)  r15 1 once a pass ran (E_K(J0) done),
;   then the final GHASH's power rows  r10 F (blocks of the final GHASH before the length
;   block; in the chunk-list ops' whole groups, the list entry)  r11 AAD bytes  edx N (blocks
;   of the final GHASH)  eax rounds / scratch
;   zmm0-3, zmm24-27  B0..B7  counter blocks -> key stream -> output (four blocks each)
;   zmm4-11  G0..G7  the previous group's GHASH input (byte order until hashed); before an
;            encrypting bulk's first pass xmm11 holds the AAD block for AAD_LATE
;   zmm12 CTR  zmm13 BSWAP  zmm14 POLY  xmm15 J0 -> E_K(J0)  xmm16 S  zmm17-19 LO/MI/HI (after
;   PRE_HASH they hold its products until the final GHASH adds to them)
;   zmm20-21 scratch (reduction)  zmm22 round key  xmm23 the expected tag (gcm12 decrypt);
;            in a decrypting bulk's passes a reflected GHASH input (GKRAW)
;   zmm28-31 scratch of the GHASH steps
;   The AAD is hashed before the body (gcm_wide.inc's GHASH_AAD: zmm8-11, zmm17-21).
; Frame: gcm_wide.inc's GF_J0, GF_DEC, GF_MODE (here also 2: the ctr ops) and GF_H33,
; GF_K33, GF_RK64, GF_PRE, GF_ETAG, GF_LIST below. Every vector register used is cleared, the
; frame's key-derived slots and the expected tag's copy wiped, before returning.
default rel
%include "key.inc"
%include "frame.inc"
%include "clear.inc"
%include "job.inc"
%include "gcm_wide.inc"

section .rodata
%include "consts.inc"
WIDE_CONSTS
WADD20:         times 4 dd 20, 0, 0, 0
WADD24:         times 4 dd 24, 0, 0, 0
WADD28:         times 4 dd 28, 0, 0, 0
WADD32:         times 4 dd 32, 0, 0, 0
WBE20:          times 4 dd 0, 0, 0, 20 << 24         ; +20 on the last byte of each lane
WBE24:          times 4 dd 0, 0, 0, 24 << 24
WBE28:          times 4 dd 0, 0, 0, 28 << 24
WBE32:          times 4 dd 0, 0, 0, 32 << 24
; CTR32_WBW's rows 1..6: lane j's last byte (2 + j) ^ (2 + 4i + j), the XOR from row 0's
; counter to row i's where both lie in one aligned run of 32
%assign _i 1
%rep 6
WXD %+ _i:
%assign _j 0
%rep 4
        dd      0, 0, 0, ((2 + _j) ^ (2 + 4 * _i + _j)) << 24
%assign _j _j + 1
%endrep
%assign _i _i + 1
%endrep

section .text

%define GF_H33     32                   ; 16: H^33 (key form), when the final GHASH needs it
%define GF_K33     48                   ; 16: its Karatsuba operand
%define GF_RK64    64                   ; 15 x 64: the round keys, broadcast (the bulk loop)
%define GF_PRE     1024                 ; 8: 16 in the whole-message calls (the length block is
                                        ; hashed apart: FINAL_HASH's powers one up), 0 ctr ops
%define GF_SIX     1032                 ; 8: FIRST_ENC6/DEC6 for messages of 513 up to this
                                        ; many bytes (SIX_MAX; 0 in the ctr ops: never)
%define GF_ETAG    1040                 ; 16: xmm23 (the expected tag) while a decrypting
                                        ; bulk takes zmm23 for its GHASH (GKRAW)
%define GF_LIST    1056                 ; 8: the chunk-list ctr ops: the next group's entry
; struct mbgcmi_chunk (core/gcm.h): one entry per group of 32 blocks of a chunk-list ctr op
%define CH_IN      0
%define CH_OUT     8
%define CH_SIZE    16
%define GF32_SIZE  1088
%ifndef RK64_MIN_GROUPS
%define RK64_MIN_GROUPS 3              ; whole groups from which the bulk keeps round-key rows
%endif
%define PRE_MAX    480                  ; PRE_HASH: messages of at most 30 blocks (no whole group)
%ifndef SIX_MAX
%define SIX_MAX    736                  ; the whole-message calls' FIRST_ENC6/DEC6 limit
%endif
%define SIX_ZMAX   ((SIX_MAX - 384 + 63) / 64)   ; their tail's zmm at most

%define B_0 zmm0
%define B_1 zmm1
%define B_2 zmm2
%define B_3 zmm3
%define B_4 zmm24
%define B_5 zmm25
%define B_6 zmm26
%define B_7 zmm27
%define G_0 zmm4
%define G_1 zmm5
%define G_2 zmm6
%define G_3 zmm7
%define G_4 zmm8
%define G_5 zmm9
%define G_6 zmm10
%define G_7 zmm11

; ---------------------------------------------------------------------------------------------
; Counters. CTR32_W: B0..B7 = the next 32 counter blocks (byte order) from zmm12 in the
; byte-reflected form (lanes +0..+3), zmm12 += 32. CTR32_WB: the same from zmm12 in byte order
; (gcm_wide.inc's CTR_BE_ENTER): one VPADDD per zmm with a constant that adds to the last byte
; of every lane, exact while that byte does not wrap; esi tracks lane 0's last byte, and a
; group that would wrap it (the next CTR's lane 3 is byte + 35) takes the reflected route.
%macro CTR32_W 0
        vpshufb B_0, zmm12, zmm13
        vpaddd  B_1, zmm12, [WADD4]
        vpshufb B_1, B_1, zmm13
        vpaddd  B_2, zmm12, [WADD8]
        vpshufb B_2, B_2, zmm13
        vpaddd  B_3, zmm12, [WADD12]
        vpshufb B_3, B_3, zmm13
        vpaddd  B_4, zmm12, [WADD16]
        vpshufb B_4, B_4, zmm13
        vpaddd  B_5, zmm12, [WADD20]
        vpshufb B_5, B_5, zmm13
        vpaddd  B_6, zmm12, [WADD24]
        vpshufb B_6, B_6, zmm13
        vpaddd  B_7, zmm12, [WADD28]
        vpshufb B_7, B_7, zmm13
        vpaddd  zmm12, zmm12, [WADD32]
%endmacro
%macro CTR32_WB 0
        cmp     esi, 221
        jae     %%slow
        vmovdqa64 B_0, zmm12
        vpaddd  B_1, zmm12, [WBE4]
        vpaddd  B_2, zmm12, [WBE8]
        vpaddd  B_3, zmm12, [WBE12]
        vpaddd  B_4, zmm12, [WBE16]
        vpaddd  B_5, zmm12, [WBE20]
        vpaddd  B_6, zmm12, [WBE24]
        vpaddd  B_7, zmm12, [WBE28]
        vpaddd  zmm12, zmm12, [WBE32]
        jmp     %%done
%%slow:
        CTR_BE_LEAVE
        CTR32_W
        CTR_BE_ENTER
%%done:
        add     esi, 32
        and     esi, 255
%endmacro
; CTR32_WBW: CTR32_WB's rows whitened (XOR the round-0 key, zmm22 = its row, loaded here), for
; a pass with PASS_W. Where lane 0's last byte is 2 mod 32 (a 12-byte IV: J0 + 1 + 32k) and the
; group does not wrap it, the counters of rows 0..6 lie in one aligned run of 32 and differ from
; row 0's in their low five bits only: row i = (row 0 ^ rk0) ^ WXD_i, one XOR per row instead
; of an add and an XOR; row 7 (its lanes 2 and 3 cross to the next run) keeps the add. Other
; groups: CTR32_WB, whitened after.
%macro CTR32_WBW 0
        RKLOAD  0
        cmp     esi, 221
        jae     %%other
        test    esi, 0x1D                               ; last byte = 2 mod 32
        jnz     %%other
        test    esi, 2
        jz      %%other
        vpxorq  B_0, zmm12, zmm22
        vpaddd  B_7, zmm12, [WBE28]
%assign _i 1
%rep 6
        vpxorq  B_ %+ _i, B_0, [WXD %+ _i]
%assign _i _i + 1
%endrep
        vpxorq  B_7, B_7, zmm22
        vpaddd  zmm12, zmm12, [WBE32]
        add     esi, 32
        jmp     %%done
%%other:
        CTR32_WB
        PASS_RW 8, vpxorq, 0
%%done:
%endmacro

; ---------------------------------------------------------------------------------------------
; GHASH of G0..G7 in nine steps that ride between AES rounds, the inputs in pairs (G1 G2),
; (G3 G4), (G5 G6), (G7 G0): G0 last, after S joined its first block. GK_STEP i: 0-7 one input
; each: its byte reflection and LO/HI against its power row; the second of a pair also makes
; both blocks' Karatsuba operands at once, [a0^a1 of the first | a0^a1 of the second] per
; lane (one unpack of the low qwords, one of the high, one xor), multiplies them with the two
; HKAR rows (imm 0x00 and 0x01) and adds the pair's six products to LO/MI/HI with three
; ternlogs (the first pair sets them). Step 8 forms the middle term and reduces into S.
; GKRAW 1 (a decrypting bulk): G0..G7 are left as loaded, the output's XOR reads them; each
; reflected block goes to a scratch register instead, the pair's first to zmm23 (its expected
; tag waits in the frame meanwhile), the second to zmm28.
%macro GK_STEP 1
        GK_STEPN %1, 8
%endmacro
%macro GK_STEP6 1
        GK_STEPN %1, 6
%endmacro
%assign GKRAW 0
%assign PFB 0                           ; PASS_PF in a decrypt's first pass (the gcm body)
%macro GK_STEPN 2                       ; step, inputs (8, or 6: a 24-block group, H^24..H^1)
%if (%1) < (%2)
%assign _j ((%1) + 1) % (%2)
%if GKRAW
%if ((%1) % 2) == 0
%define _rj zmm23
%else
%define _rj zmm28
%endif
        vpshufb _rj, G_ %+ _j, zmm13
%else
%define _rj G_ %+ _j
        vpshufb _rj, _rj, zmm13
%endif
%if _j == 0
        vpxorq  _rj, _rj, zmm16                         ; S joins block 0
%endif
%if ((%1) % 2) == 0
        vpclmulqdq zmm30, _rj, [rdi + HPOW(4 * (%2) - 4 * _j)], 0x00
        vpclmulqdq zmm31, _rj, [rdi + HPOW(4 * (%2) - 4 * _j)], 0x11
%else
%assign _k (%1)                                         ; the pair's first input
%if GKRAW
%define _rk zmm23
%else
%define _rk G_ %+ _k
%endif
        vpclmulqdq zmm20, _rj, [rdi + HPOW(4 * (%2) - 4 * _j)], 0x00
        vpclmulqdq zmm21, _rj, [rdi + HPOW(4 * (%2) - 4 * _j)], 0x11
%if GKRAW
        vpunpckhqdq zmm29, _rk, _rj                     ; (before zmm28 is written: _rj is
        vpunpcklqdq zmm28, _rk, _rj                     ; zmm28)
%else
        vpunpcklqdq zmm28, _rk, _rj
        vpunpckhqdq zmm29, _rk, _rj
%endif
        vpxorq  zmm29, zmm29, zmm28                     ; [a0^a1 (first), a0^a1 (second)]
        vpclmulqdq zmm28, zmm29, [rdi + HKAR(4 * (%2) - 4 * _k)], 0x00
        vpclmulqdq zmm29, zmm29, [rdi + HKAR(4 * (%2) - 4 * _j)], 0x01
%if (%1) == 1
        vpxorq  zmm17, zmm30, zmm20
        vpxorq  zmm19, zmm31, zmm21
        vpxorq  zmm18, zmm29, zmm28
%else
        vpternlogq zmm17, zmm30, zmm20, 0x96
        vpternlogq zmm19, zmm31, zmm21, 0x96
        vpternlogq zmm18, zmm29, zmm28, 0x96
%endif
%endif
%else
        vpternlogq zmm18, zmm17, zmm19, 0x96            ; Karatsuba middle: MI ^ LO ^ HI
        GH_W_REDUCE_SB
%endif
%endmacro

; SLOT_STEPS nr, r, n, step: the steps 0..n-1 of the macro |step| that go after round r of an
; nr-round pass: step i after round 1 + floor(i * (nr - 2) / (n - 1)), which spreads them over
; rounds 1 .. nr - 1 (where they go hardly matters to the loop's speed: the out-of-order core
; evens them out). The GHASH of G0..G7 is GK_STEP's nine steps.
%macro SLOT_STEPS 4
%assign _i 0
%rep %3
%assign _at 1 + (_i * ((%1) - 2)) / ((%3) - 1)
%if _at == (%2)
        %4      _i
%endif
%assign _i _i + 1
%endrep
%endmacro

; PASS nz, nr, flags: B0..B(nz-1) through the nr rounds of the key at rdi. flags: PASS_J0,
; the message's first pass: J0 (xmm15) rides as one more chain (the ctr ops run it on zero);
; PASS_GH: the GHASH of G0..G7 into S is stitched in (GK_STEP); PASS_FH: the final GHASH of
; G0..G7 (FH_PART: a decrypting tail's pass); PASS_FHP: the previous job's final GHASH
; (FHP_PART: mbgcmi_avx512_by32_jobs12); PASS_AAD: AAD_LATE after round 3; PASS_GH6: the GHASH
; of a 24-block group (GK_STEP6); PASS_W: the rows come whitened (CTR32_WBW), no round 0;
; PASS_PF: BULK_PREFETCH after round PF_ROUND (a decrypt's first pass, when the body sets PFB);
; PASS_PK: KEY_LINES_PREFETCH of its powers after round 2 (an encrypt's first pass); PASS_PKN:
; NEXT_KEY_PREFETCH after round 2 (a decrypt's first pass, with PASS_PF).
%define PASS_J0 1
%define PASS_GH 2
%define PASS_FH 4
%define PASS_AAD 8
%define PASS_GH6 16
%define PASS_FHP 32
%define PASS_W 64                       ; B0..B7 already whitened (CTR32_WBW; not with J0)
%define PASS_PF 128
%define PF_ROUND 6
%define PASS_PK 512
%define PASS_PKJ 1024
%define PASS_PKN 2048
; PASS_PK: an encrypt's first pass reads only round keys, its GHASH starts in the next pass; with
; the key beyond the caches its round keys and its powers were two misses one after the other,
; requested together one (KEY_LINES_PREFETCH, gcm_wide.inc: in random key order on Zen 5,
; one-shot encrypts of 594 bytes 12% and of 1420 bytes 30% less time; about 1% more with the key
; in the caches; a decrypt's first pass reads both at once anyway).
; NEXT_KEY_PREFETCH: by32's burst names in gcm12's ninth argument, from bit W12_NEXT_SHIFT on,
; the key of a job it runs soon after (core/gcm.h, whole12_next); that key's twenty lines are
; requested here, unless it is this call's key or none (0): a burst's decrypts run one after
; another through whole12, and with keys beyond the caches met in random order each started a
; memory latency (or two) behind. rax scratch (public: the caller's pointer).
%macro NEXT_KEY_PREFETCH 0
        cmp     dword [rsp + GF_MODE], 1
        jne     %%none                                  ; (only gcm12 has such an argument)
        NEXT_KEY_LINES qword [rbp + 32]
%%none:
%endmacro
%macro PASS_RW 3                        ; nz, instruction (round key in zmm22), flags
%assign _z 0
%rep %1
        %2      B_ %+ _z, B_ %+ _z, zmm22
%assign _z _z + 1
%endrep
%if (%3) & PASS_J0
        %2      xmm15, xmm15, xmm22
%endif
%endmacro
%assign RK64 0
%macro RKLOAD 1                         ; zmm22 = round key %1 in every lane
%if RK64 == 1
        vmovdqa64 zmm22, [rsp + GF_RK64 + 64 * (%1)]
%else
        vbroadcasti32x4 zmm22, [rdi + KEY_RK + 16 * (%1)]
%if RK64 == 2
        vmovdqa64 [rsp + GF_RK64 + 64 * (%1)], zmm22
%endif
%endif
%endmacro
%macro PASS 3
%if ((%3) & PASS_W) == 0
        RKLOAD  0
        PASS_RW %1, vpxorq, %3
%endif
%assign _r 1
%rep (%2) - 1
        RKLOAD  _r
        PASS_RW %1, vaesenc, %3
%if (%3) & PASS_GH
        SLOT_STEPS %2, _r, 9, GK_STEP
%endif
%if (%3) & PASS_GH6
        SLOT_STEPS %2, _r, 7, GK_STEP6
%endif
%if (%3) & PASS_FH
        SLOT_STEPS %2, _r, 9, FH_PART
%endif
%if (%3) & PASS_FHP
        SLOT_STEPS %2, _r, 9, FHP_PART
%endif
%if ((%3) & PASS_AAD) && _r == 3
        AAD_LATE
%endif
%if ((%3) & PASS_PF) && _r == PF_ROUND
        BULK_PREFETCH
%endif
%if ((%3) & PASS_PK) && _r == 2
        KEY_LINES_PREFETCH rdi, (%1) * 4, 0
%endif
%if ((%3) & PASS_PKJ) && _r == 2
        JOB_KEY_PREFETCH 2
%endif
%if ((%3) & PASS_PKN) && _r == 2
        NEXT_KEY_PREFETCH
%endif
%assign _r _r + 1
%endrep
        RKLOAD  %2
        PASS_RW %1, vaesenclast, %3
%endmacro

; RK64 2 (a group's first pass): the round keys are broadcast as they are needed and kept in
; the frame; RK64 1 (the later passes): read from there with plain loads (a broadcast from
; memory takes a shuffle slot on the pipes the rounds use; a plain load does not).
; RK64_WIPE nr: the frame's copies cleared
%macro RK64_WIPE 1
        vpxorq  xmm22, xmm22, xmm22
%assign _r 0
%rep (%1) + 1
        vmovdqa64 [rsp + GF_RK64 + 64 * _r], zmm22
%assign _r _r + 1
%endrep
%endmacro

; ---------------------------------------------------------------------------------------------
; BULK_ENC nr: every whole group (r9 >= 32 on entry; zmm12 in byte order), encrypting: the
; first as the message's first pass, the others with the previous group's GHASH (its output,
; kept in G0..G7); leaves the last group's GHASH pending (r14d = 1). Advances rcx, r8, r9.
%macro GROUP_OUT_ENC 0
        GROUP_OUT_ENC_N 8
%endmacro
%macro GROUP_OUT_ENC_N 1                ; zmm
%assign _t 0
%rep %1
        vpxorq  G_ %+ _t, B_ %+ _t, [rcx + 64 * _t]
        vmovdqu64 [r8 + 64 * _t], G_ %+ _t
%assign _t _t + 1
%endrep
        GROUP_ADV 64 * (%1)
        sub     r9, 4 * (%1)
%endmacro
; GROUP_ADV bytes: rcx, r8 on to the next group's input and output: |bytes| on (LIST 0), or
; (LIST 1: the chunk-list ctr ops, whole groups only) the next entry of the list at GF_LIST,
; through r10 (free in their bulk: F is set after it).
%assign LIST 0
%macro GROUP_ADV 1
%if LIST
        mov     r10, [rsp + GF_LIST]
        mov     rcx, [r10 + CH_IN]
        mov     r8, [r10 + CH_OUT]
        add     r10, CH_SIZE
        mov     [rsp + GF_LIST], r10
%else
        add     rcx, %1
        add     r8, %1
%endif
%endmacro
; AAD_LATE: an encrypting bulk's AAD of 1..16 bytes (its block in xmm11, byte order, loaded at
; entry) hashed into S inside the first pass, after the rounds have started
%macro AAD_LATE 0
        cmp     r11, 16
        ja      %%no
        test    r11, r11
        jz      %%no
        GHASH1  xmm11
%%no:
%endmacro
; FIRST_ENC nr / FIRST_DEC nr: the bulk's first group (the message's first pass); RK64 as set
; by the caller
%macro FIRST_ENC 1
        FIRST_ENC_N 8, %1
%endmacro
%macro FIRST_ENC_N 2                    ; zmm (8: a whole group, pending r14d = 1; 6: 3), nr
        CTR32_WB
        PASS    %1, %2, PASS_J0 | PASS_AAD | PASS_PK
        GROUP_OUT_ENC_N %1
        mov     r14d, (%1) == 8 ? 1 : 3
%endmacro
; FIRST_ENC6 nr: an encrypting message of one whole group and a short tail (513..SIX_MAX
; bytes) runs 24 blocks as its first pass and the rest (129..SIX_MAX - 384 bytes) as its tail,
; whose pass hashes the 24 (PASS_GH6). With all 32 first, the tail's pass (one or two zmm of
; rounds) waits on the group's 24 multiplies and the final GHASH follows it: the split moves
; AES work from the first pass into that one, where it runs beside the multiplies. The
; counters of B6, B7 are made and not used: zmm12 goes 8 back after CTR_BE_LEAVE (r14d = 3).
%macro FIRST_ENC6 1
        FIRST_ENC_N 6, %1
%endmacro
; PF_GROUP offset: the eight lines of a whole group's input from rcx + offset, prefetched
%macro PF_GROUP 1
%if LIST
        mov     r10, [rsp + GF_LIST]
        mov     r10, [r10 + CH_IN + CH_SIZE * ((%1) / 512 - 1)]
%define _pfb r10
%assign _pfo 0
%else
%define _pfb rcx
%assign _pfo (%1)
%endif
%assign _t 0
%rep 8
        prefetcht0 [_pfb + _pfo + 64 * _t]
%assign _t _t + 1
%endrep
%endmacro
; LATER_GROUPS dir, nr: every further whole group while r9 >= 32 (dir 0 encrypting: the
; previous group's GHASH stitched in; 1 decrypting: the group's own), RK64 as set by the caller.
; Decrypting, each group first prefetches the input of the group after the next one, when that
; is a whole group of this message (nothing past its end is touched): the pass's GHASH needs its
; input before anything else, and a message from memory crosses a 4 KiB page every eight groups,
; where the hardware's stream prefetch stops (4-16 KiB beyond the caches 3-24% less time; all
; eight lines: every other one is not enough). Encrypting, the same prefetch won or lost by
; where the messages lay in memory, so encrypts do without it (docs/perf.md).
%macro LATER_GROUPS 2
%%loop:
        cmp     r9, 32
        jb      %%done
%if %1
        cmp     r9, 96
        jb      %%nopf
        PF_GROUP 1024
%%nopf:
%endif
        CTR32_WBW
%if %1
%assign GKRAW 1
        PASS    8, %2, PASS_GH | PASS_W
%assign GKRAW 0
        GROUP_OUT_DEC_N 8
%else
        PASS    8, %2, PASS_GH | PASS_W
        GROUP_OUT_ENC
%endif
        jmp     %%loop
%%done:
%endmacro
; BULK dir, nr: the whole groups (r9 >= 32 on entry): the first as the message's first pass,
; then LATER_GROUPS; from RK64_MIN_GROUPS groups the first pass keeps the round-key rows for
; the later ones, which are wiped after them
%macro BULK 2
        cmp     r9, 32 * RK64_MIN_GROUPS
        jb      %%few                                   ; too few later passes to serve
%assign RK64 2
%if %1
        FIRST_DEC %2
%else
        FIRST_ENC %2
%endif
%assign RK64 1
        LATER_GROUPS %1, %2
%assign RK64 0
        RK64_WIPE %2
        jmp     %%end
%%few:
%if %1
        FIRST_DEC %2
%else
        FIRST_ENC %2
%endif
        LATER_GROUPS %1, %2
%%end:
%endmacro
%macro BULK_ENC 1
        BULK    0, %1
%endmacro

; BULK_DEC nr: the same decrypting: the ciphertext is the input, there before the AES, so each
; group is loaded into G0..G7 first and hashed in its own pass (nothing is left pending); the
; GHASH reflects copies (GKRAW), so the output xors the key stream with G0..G7 as loaded, not
; with the input read a second time (in == out is fine: each 64 bytes are read before they are
; written; the xmm23 it holds is kept in the frame meanwhile). The next group's input is
; loaded after the pass and before this group's stores (GROUP_NEXT_DEC): loaded after them,
; at the top of the next iteration, a load whose address matches one of those stores in its
; low 12 bits (an output 1..1023 bytes ahead of the input modulo 4 KiB, in place included)
; waits for the store's data, the end of this pass, and the GHASH that needs the load waits
; with it (docs/perf.md, "Decrypt and 4 KiB aliasing").
%macro GROUP_IN_DEC_N 2                 ; zmm, offset from rcx
        GROUP_IN_DEC_AT %1, rcx + (%2)
%endmacro
%macro GROUP_IN_DEC_AT 2                ; zmm, address
%assign _t 0
%rep %1
        vmovdqu64 G_ %+ _t, [%2 + 64 * _t]
%assign _t _t + 1
%endrep
%endmacro
%macro GROUP_NEXT_DEC 0                 ; the next whole group's input, if there is one
        cmp     r9, 64
        jb      %%none
%if LIST
        mov     r10, [rsp + GF_LIST]
        mov     r10, [r10 + CH_IN]
        GROUP_IN_DEC_AT 8, r10
%else
        GROUP_IN_DEC_N 8, 512
%endif
%%none:
%endmacro
; GROUP_OUT_DEC_N zmm: the key stream xored with the input, still in G0..G7 (GKRAW), then the
; next group's input loaded (8 zmm), then the stores
%macro GROUP_OUT_DEC_N 1                ; zmm
%assign _t 0
%rep %1
        vpxorq  B_ %+ _t, B_ %+ _t, G_ %+ _t
%assign _t _t + 1
%endrep
%if (%1) == 8
        GROUP_NEXT_DEC
%endif
%assign _t 0
%rep %1
        vmovdqu64 [r8 + 64 * _t], B_ %+ _t
%assign _t _t + 1
%endrep
        GROUP_ADV 64 * (%1)
        sub     r9, 4 * (%1)
%endmacro
%macro FIRST_DEC 1
        FIRST_DEC_N 8, %1, PASS_GH
%endmacro
%macro FIRST_DEC_N 3                    ; zmm, nr, the GHASH of that many inputs
        GROUP_IN_DEC_N %1, 0
        CTR32_WB
%assign GKRAW 1
        PASS    %1, %2, PASS_J0 | (%3) | PFB
%assign GKRAW 0
        GROUP_OUT_DEC_N %1
%endmacro
; BULK_PREFETCH: the message's input from its second group on, at most 1 KiB (the second and
; third groups, or the second group and the tail; nothing past the message's end), prefetched
; before an encrypt's first pass, and inside a decrypt's (PASS_PF, after round PF_ROUND: its
; first group is loaded before the pass). Each group's input is loaded after the previous pass
; (a decrypt's GROUP_NEXT_DEC, an encrypt's GROUP_OUT_ENC), so with a message beyond the caches
; the misses came one after another, about a memory latency per group; LATER_GROUPS
; prefetches (decrypting) from the fourth group on. Before a decrypt's first pass the
; prefetches cost it 1.5-5% at 1-2 KiB in the caches; inside the pass, after its own loads,
; less, and cold decrypts gain too. Inside an encrypt's first pass, whose first group is loaded at
; its end, they cost cold AES-128 encrypts of 4 KiB 4-7% (docs/perf.md). rax, eax and the
; flags scratch (nothing in a pass needs them).
%macro PF_PART 1                        ; offset: the lines of eax (0..511) bytes from there
%assign _t 0
%rep 8
        cmp     eax, 64 * _t
        jbe     %%end
        prefetcht0 [rcx + (%1) + 64 * _t]
%assign _t _t + 1
%endrep
%%end:
%endmacro
%macro BULK_PREFETCH 0
        lea     rax, [rbx - 1024]                       ; bytes after the second group
        cmp     rbx, 1024
        jb      %%g2part
        PF_GROUP 512
        cmp     rax, 512
        jae     %%g3
        PF_PART 1024
        jmp     %%done
%%g3:
        PF_GROUP 1024
        jmp     %%done
%%g2part:
        add     rax, 512                                ; 0..511 bytes after the first group
        PF_PART 512
%%done:
%endmacro
; ENC_PREFETCH: an encrypt's input before its first pass. Up to 1536 bytes the first group's
; eight lines too, then BULK_PREFETCH: the whole message is requested at once. An encrypt loads
; its first group only at the end of the first pass, and with a message beyond the caches and
; the keys in them (a packet pool) those misses came after the pass: 768-1518-byte encrypts
; 10-20% quicker from memory, level in the caches. A longer message leaves its first group to
; the hardware's stream prefetch: requested, those lines no longer miss, the stream never
; starts, and the groups past the third (no later prefetch for encrypts) came later: 5-20% at
; 2-4 KiB (docs/perf.md). rax, eax and the flags scratch.
%macro ENC_PREFETCH 0
%if LIST == 0
        cmp     rbx, 1536
        ja      %%bulk
        PF_GROUP 0
%%bulk:
%endif
        BULK_PREFETCH
%endmacro
%macro BULK_DEC 1
        vmovdqa64 [rsp + GF_ETAG], xmm23
        BULK    1, %1
        vmovdqa64 xmm23, [rsp + GF_ETAG]
%endmacro
%macro FIRST_DEC6 1                     ; FIRST_ENC6's split, decrypting (nothing left pending)
        vmovdqa64 [rsp + GF_ETAG], xmm23
        FIRST_DEC_N 6, %1, PASS_GH6
        vmovdqa64 xmm23, [rsp + GF_ETAG]
%endmacro

; ---------------------------------------------------------------------------------------------
; TAIL_PASS: the tail's pass (esi = 1..511 bytes, B0..B7 = its counters): one to eight zmm
; (TAIL_BY_SIZE); with the pending group's GHASH when r14d, as the
; message's first pass (J0 joins) when no pass ran yet (r15d = 0), else plain (a decrypting
; bulk leaves nothing pending). eax = rounds.
%macro TAIL_PASS_NR 2                   ; nz, flags: the three key sizes
        cmp     eax, 12
        je      %%r12
        ja      %%r14
        PASS    %1, 10, %2
        jmp     %%done
%%r12:
        PASS    %1, 12, %2
        jmp     %%done
%%r14:
        PASS    %1, 14, %2
%%done:
%endmacro
%macro TAIL_PASS_NZ 1
        test    r14d, r14d
        jnz     %%gh
        test    r15d, r15d
        jnz     %%plain
        TAIL_PASS_NR %1, PASS_J0
        jmp     %%done
%%plain:
        TAIL_PASS_NR %1, 0
        jmp     %%done
%%gh:
        TAIL_PASS_NR %1, PASS_GH
%%done:
%endmacro
; TAIL_PASS_FH: a decrypting tail's pass with its final GHASH (edx = F blocks in G0..G7, the
; length block hashed apart): one to eight zmm (TAIL_PASS_FJ nz), J0 joining when no pass ran
; yet (r15d = 0)
%macro TAIL_PASS_FJ 1
        test    r15d, r15d
        jnz     %%plain
        TAIL_PASS_NR %1, PASS_J0 | PASS_FH
        jmp     %%done
%%plain:
        TAIL_PASS_NR %1, PASS_FH
%%done:
%endmacro
; TAIL_BY_SIZE m: macro m with the tail's zmm count, one per 64 bytes begun (esi = 1..511
; bytes): no AES on counters past the tail's end; where the rounds share pipes with the
; stitched GHASH (Zen 4) such rounds are not free (docs/perf.md, "The by32 tail's pass").
%macro TAIL_BY_SIZE 1
        TAIL_BY_SIZE_R %1, 1, 8
%endmacro
%macro TAIL_BY_SIZE_R 3                 ; m, the fewest zmm the tail can need, the most
%assign _n %2
%rep (%3) - (%2)
        cmp     esi, 64 * _n
        ja      %%over %+ _n
        %1      _n
        jmp     %%done
%%over %+ _n:
%assign _n _n + 1
%endrep
        %1      %3
%%done:
%endmacro
; TAIL_PASS6: the tail's pass after FIRST_ENC6 (esi = 129..SIX_MAX - 384 bytes: three to
; SIX_ZMAX zmm) with the 24-block group's GHASH
%macro TAIL_PASS6_NZ 1
        TAIL_PASS_NR %1, PASS_GH6
%endmacro
%macro TAIL_PASS6 0
        TAIL_BY_SIZE_R TAIL_PASS6_NZ, 3, SIX_ZMAX
%endmacro
%macro TAIL_PASS_FH 0
        TAIL_BY_SIZE TAIL_PASS_FJ
%endmacro
%macro TAIL_PASS 0
        TAIL_BY_SIZE TAIL_PASS_NZ
%endmacro

; TAIL_SLICE t, mode, end: 64-byte slice t of the tail: when the tail ends inside it (esi <=
; 64(t+1)), the masked last slice (k1: its bytes), G(t+1)..G7 zeroed and a jump to |end|;
; else a full slice. mode 0 encrypt, 1 decrypt, 2 the input into G_t only (TAIL_LOAD_DEC).
; Encrypt keeps the key stream to the message bytes, so the GHASH input (the output, in G_t) is
; zero past the end; decrypt loads zero past the end.
%macro TAIL_SLICE 3
%if (%1) < 7
        cmp     esi, 64 * ((%1) + 1)
        ja      %%full
%endif
%if (%2) == 2
        vmovdqu8 G_ %+ %1 {k1}{z}, [rcx + 64 * (%1)]
%elif %2
        vmovdqu8 G_ %+ %1 {k1}{z}, [rcx + 64 * (%1)]
        vpxorq  B_ %+ %1, B_ %+ %1, G_ %+ %1
        vmovdqu8 [r8 + 64 * (%1)]{k1}, B_ %+ %1
%else
        vmovdqu8 G_ %+ %1 {k1}{z}, [rcx + 64 * (%1)]
        vmovdqu8 B_ %+ %1 {k1}{z}, B_ %+ %1             ; key stream on the message bytes only
        vpxorq  G_ %+ %1, G_ %+ %1, B_ %+ %1
        vmovdqu8 [r8 + 64 * (%1)]{k1}, G_ %+ %1
%endif
%assign _zz (%1) + 1
%rep 7 - (%1)
        vpxorq  G_ %+ _zz, G_ %+ _zz, G_ %+ _zz
%assign _zz _zz + 1
%endrep
        jmp     %3
%if (%1) < 7
%%full:
%if (%2) == 2
        vmovdqu64 G_ %+ %1, [rcx + 64 * (%1)]
%elif %2
        vmovdqu64 G_ %+ %1, [rcx + 64 * (%1)]
        vpxorq  B_ %+ %1, B_ %+ %1, G_ %+ %1
        vmovdqu64 [r8 + 64 * (%1)], B_ %+ %1
%else
        vpxorq  G_ %+ %1, B_ %+ %1, [rcx + 64 * (%1)]
        vmovdqu64 [r8 + 64 * (%1)], G_ %+ %1
%endif
%endif
%endmacro
%macro TAIL_K1 0                        ; k1 = the bytes of the tail's last slice
        lea     edx, [rsi - 1]
        and     edx, 63
        inc     edx                                     ; bytes in the last slice (1..64)
        mov     rax, -1
        bzhi    rax, rax, rdx
        kmovq   k1, rax
%endmacro
%macro TAIL_IO 0
        TAIL_K1
        cmp     dword [rsp + GF_DEC], 0
        jne     %%dec
%assign _s 0
%rep 8
        TAIL_SLICE _s, 0, %%done
%assign _s _s + 1
%endrep
%%dec:
%assign _s 0
%rep 8
        TAIL_SLICE _s, 1, %%done
%assign _s _s + 1
%endrep
%%done:
%endmacro

; TAIL_LOAD_DEC: decrypting, the tail's input (esi = 1..511 bytes) into G0..G7 before its pass,
; zero past the end: the final GHASH's blocks
%macro TAIL_LOAD_DEC 0
        TAIL_K1
%assign _s 0
%rep 8
        TAIL_SLICE _s, 2, %%done
%assign _s _s + 1
%endrep
%%done:
%endmacro

; ---------------------------------------------------------------------------------------------
; FINAL_HASH: the F = edx (0..32) blocks X_0.. in G0..G7 (byte order, zero past them), S
; joining X_0, into LO/MI/HI (set, or added to: FH_FIRST) with the powers from H^M down,
; M = F + GF_PRE / 16. The whole-message calls (GF_PRE 16) give the length block H^1: it sits in
; the free lane F % 4 of the last input, or was hashed apart into LO/MI/HI (LEN_HASH, PRE_HASH);
; the ctr ops have none (GF_PRE 0). Karatsuba with the rows at HPOW(M) and HKAR(M), each loaded
; once into a register (they are rarely 64-byte aligned); M = 33 takes H^33 and its Karatsuba
; operand from the frame into lane 0 of the first rows. One reduction.
%macro FH_STEP 2                        ; j (1..7), label when done
        cmp     edx, 4 * (%1)
        jbe     %2
        vpshufb G_ %+ %1, G_ %+ %1, zmm13
        vpshufd zmm29, G_ %+ %1, 0x4e
        vpxorq  zmm29, zmm29, G_ %+ %1
        vmovdqu64 zmm30, [r15 + 64 * (%1)]
        vmovdqu64 zmm31, [r15 + KEY_HKAR - KEY_HPOW + 64 * (%1)]
        vpclmulqdq zmm20, G_ %+ %1, zmm30, 0x00
        vpclmulqdq zmm21, G_ %+ %1, zmm30, 0x11
        vpclmulqdq zmm29, zmm29, zmm31, 0x00
        vpxorq  zmm17, zmm17, zmm20
        vpxorq  zmm19, zmm19, zmm21
        vpxorq  zmm18, zmm18, zmm29
%endmacro
%macro FH_ROWS 0                        ; r15 = HPOW(M), zmm30/31 its rows; clobbers eax, k3
        mov     eax, edx
        shl     eax, 4
        add     rax, [rsp + GF_PRE]                     ; 16 M
        lea     r15, [rdi + KEY_HPOW + 32 * 16]
        sub     r15, rax                                ; HPOW(M) (M = 33: 16 bytes before)
        cmp     eax, 33 * 16
        FH_ROWS_AT
%endmacro
; FH_ROWS_AT: zmm30/31 = the power and Karatsuba rows at r15; unless the flags say "not equal"
; (M = 33, the caller's compare), lane 0 from the frame's H^33 and its operand. Clobbers eax, k3.
%macro FH_ROWS_AT 0
        vmovdqu64 zmm30, [r15]
        vmovdqu64 zmm31, [r15 + KEY_HKAR - KEY_HPOW]
        jne     %%rows
        mov     eax, 0x000F
        kmovw   k3, eax                                 ; lane 0 (four dwords)
        vbroadcasti32x4 zmm30{k3}, [rsp + GF_H33]
        vbroadcasti32x4 zmm31{k3}, [rsp + GF_K33]
%%rows:
%endmacro
; FH_FIRST add: G0 (S joins) sets LO/MI/HI (add 0), or adds to them (add 1: the length
; block's products, or PRE_HASH's, are there; zero otherwise)
%macro FH_FIRST 1
        vpshufb G_0, G_0, zmm13
        vpxorq  G_0, G_0, zmm16                         ; S joins the first block
        vpshufd zmm29, G_0, 0x4e
        vpxorq  zmm29, zmm29, G_0
%if %1
        vpclmulqdq zmm20, G_0, zmm30, 0x00
        vpclmulqdq zmm21, G_0, zmm30, 0x11
        vpclmulqdq zmm29, zmm29, zmm31, 0x00
        vpxorq  zmm17, zmm17, zmm20
        vpxorq  zmm19, zmm19, zmm21
        vpxorq  zmm18, zmm18, zmm29
%else
        vpclmulqdq zmm17, G_0, zmm30, 0x00
        vpclmulqdq zmm19, G_0, zmm30, 0x11
        vpclmulqdq zmm18, zmm29, zmm31, 0x00
%endif
%endmacro
%macro FINAL_HASH 1                     ; add (FH_FIRST)
        FH_ROWS
        FH_FIRST %1
%assign _f 1
%rep 7
        FH_STEP _f, %%hashed
%assign _f _f + 1
%endrep
%%hashed:
        vpternlogq zmm18, zmm17, zmm19, 0x96
        GH_W_REDUCE_SB
%endmacro
; FH_PART i: FINAL_HASH in nine parts that ride between AES rounds (PASS_FH, SLOT_STEPS): 0
; the rows and G0, 1-7 one input each (skipped past F), 8 the reduction
%macro FH_PART 1
        FH_PARTS %1, FH_ROWS
%endmacro
%macro FH_PARTS 2                       ; i, the rows macro of part 0
%if (%1) == 0
        %2
        FH_FIRST 1
%elif (%1) < 8
        FH_STEP %1, %%skip
%%skip:
%else
        vpternlogq zmm18, zmm17, zmm19, 0x96
        GH_W_REDUCE_SB
%endif
%endmacro

; LEN_V x: the length block in xmm x, V form {message bits, AAD bits} (rbx message bytes, r11
; AAD bytes: bit lengths < 2^64, validated); byte-reflected it is the block's byte order.
; Clobbers rax.
%macro LEN_V 1
        lea     rax, [rbx * 8]
        vmovq   %1, rax
        lea     rax, [r11 * 8]
        vpinsrq %1, %1, rax, 1
%endmacro

; LEN_PLACE f, done: F (register f) not a multiple of 4: the length block (rbx message bytes,
; r11 AAD bytes) takes the free lane F % 4 of G(F / 4) (byte order, as the blocks), where the
; powers from H^(F+1) down give it H^1; then a jump to |done|. Clobbers rax, r9, k1, zmm21.
%macro LEN_PLACE 2
        LEN_V   xmm21
        vpshufb xmm21, xmm21, xmm13                     ; byte order
        vshufi64x2 zmm21, zmm21, zmm21, 0x00            ; in every lane
        mov     eax, %1
        and     eax, 3
        add     eax, eax
        mov     r9d, 3
        shlx    eax, r9d, eax
        kmovw   k1, eax                                 ; qword mask of lane F % 4
        mov     eax, %1
        shr     eax, 2                                  ; input F / 4 (0..7)
%assign _p 0
%rep 8
        cmp     eax, _p
        jne     %%np %+ _p
        vpxorq  G_ %+ _p {k1}, G_ %+ _p, zmm21
        jmp     %2
%%np %+ _p:
%assign _p _p + 1
%endrep
%endmacro

; PRE_OK not: jump to |not| unless the message takes PRE_HASH (decided by its lengths only, so
; the entry and the final GHASH ask the same question)
%macro PRE_OK 1
        cmp     rbx, PRE_MAX
        ja      %1
        cmp     r11, 16
        ja      %1
%endmacro

; PRE_HASH: a message without whole groups (rbx <= PRE_MAX: F <= 30 blocks) and with at most 16
; bytes of AAD (r10, r11). Its AAD block A (zero-padded) and its length block L are known at
; entry, and GHASH(A, C_1..C_F, L) = A H^(F+2) ^ C_1 H^(F+1) ^ ... ^ C_F H^2 ^ L H: their
; products go into LO/MI/HI now ([A | L] times [H^(F+2) | H^1], lanes 0 and 1, no reduction),
; S stays zero, and the final GHASH adds the F message blocks with H^(F+1)..H^2 before its one
; reduction: the AAD's own multiply-and-reduce chain leaves the path from the last AES round to
; the tag. LO/MI/HI are idle until the final GHASH (no group is pending).
; Clobbers rax, rdx, k1, zmm20, zmm21, zmm30, zmm31.
%macro PRE_HASH 0
        mov     eax, 0xFFFF
        bzhi    eax, eax, r11d
        kmovw   k1, eax
        vmovdqu8 xmm20{k1}{z}, [r10]                    ; A, byte order
        vpshufb xmm20, xmm20, xmm13
        LEN_V   xmm21                                   ; L
        vinserti32x4 ymm20, ymm20, xmm21, 1             ; [A | L]
        lea     eax, [rbx + 15]
        and     eax, -16                                ; 16 F
        lea     rdx, [rdi + KEY_HPOW + 30 * 16]
        sub     rdx, rax                                ; HPOW(F + 2)
        AL_PRODUCTS 20, 30, 31, 21, 17, 18, 19
%endmacro

; LEN_HASH: the length block L (rbx message bytes, r11 AAD bytes) times H^1 as the first
; LO/MI/HI (lane 0) of a whole-message call's final GHASH, for F = 0 mod 4 final blocks: placed
; among them, L would need a zmm input of its own (three more products after the last pass);
; apart, it needs nothing from the message and runs beside the last pass. (Otherwise L takes
; the free lane of the last input: .len_place.) Clobbers rax, zmm20, zmm21, zmm30, zmm31.
%macro LEN_HASH 0
        LEN_V   xmm21                                   ; L
        vmovdqu64 xmm30, [rdi + HPOW(1)]
        vmovdqu64 xmm31, [rdi + HKAR(1)]
        vpshufd xmm20, xmm21, 0x4e
        vpxorq  xmm20, xmm20, xmm21                     ; l0 ^ l1 in both qwords
        vpclmulqdq xmm17, xmm21, xmm30, 0x00            ; LO
        vpclmulqdq xmm19, xmm21, xmm30, 0x11            ; HI
        vpclmulqdq xmm18, xmm20, xmm31, 0x00            ; MI (Karatsuba)
%endmacro

; H33: H^33 = H^32 * H in the key's form, and its Karatsuba operand, into the frame
%macro H33 0
        vmovdqu64  xmm20, [rdi + HPOW(32)]
        vmovdqu64  xmm21, [rdi + HPOW(1)]
        vpclmulqdq xmm17, xmm20, xmm21, 0x00
        vpclmulqdq xmm19, xmm20, xmm21, 0x11
        vpclmulqdq xmm18, xmm20, xmm21, 0x01
        vpclmulqdq xmm20, xmm20, xmm21, 0x10
        vpxorq     xmm18, xmm18, xmm20
        vpclmulqdq xmm20, xmm17, xmm14, 0x00
        vpshufd    xmm17, xmm17, 0x4e
        vpternlogq xmm18, xmm17, xmm20, 0x96
        vpclmulqdq xmm20, xmm18, xmm14, 0x00
        vpshufd    xmm18, xmm18, 0x4e
        vpternlogq xmm19, xmm18, xmm20, 0x96            ; H^33
        vmovdqa64  [rsp + GF_H33], xmm19
        vpshufd    xmm20, xmm19, 0x4e
        vpxorq     xmm20, xmm20, xmm19
        vmovdqa64  [rsp + GF_K33], xmm20
%endmacro

; ---------------------------------------------------------------------------------------------
; WHOLE_HEAD: the whole-message calls' start, after their arguments are in the registers of
; the register plan: PRE_HASH (short messages) or H^33 where the final GHASH needs it and the
; AAD (hashed now, or loaded for AAD_LATE), then J0 into xmm15 and the first counters.
%macro WHOLE_HEAD 0
        mov     qword [rsp + GF_PRE], 16
        PRE_OK  %%no_pre
        PRE_HASH
        jmp     %%aad_done
%%no_pre:
        ; F = 32 (a tail of more than 496 bytes, or, encrypting, a message ending on a 512-byte
        ; boundary: its last group waits for the final GHASH) puts the first block of the final
        ; GHASH at H^33
        mov     eax, ebx
        and     eax, 511
        jz      %%f_bound
        cmp     eax, 496
        ja      %%need33
        jmp     %%no33
%%f_bound:
        test    rbx, rbx
        jz      %%no33
        cmp     dword [rsp + GF_DEC], 0
        jne     %%no33
%%need33:
        H33
%%no33:
        ; an encrypting bulk hashes AAD of 1..16 bytes in its first pass (AAD_LATE)
        cmp     dword [rsp + GF_DEC], 0
        jne     %%aad_now
        cmp     rbx, 512
        jb      %%aad_now
        lea     rax, [r11 - 1]
        cmp     rax, 15
        ja      %%aad_now
        mov     eax, 0xFFFF
        bzhi    eax, eax, r11d
        kmovq   k1, rax
        vmovdqu8 xmm11{k1}{z}, [r10]
        jmp     %%aad_done
%%aad_now:
        AAD_HASH_ALL
%%aad_done:
        ; J0 in xmm15: E_K(J0) is computed in the message's first AES pass as one more chain
        vmovdqu64 xmm15, [r12]
        CTR_FROM [r12]
        vpaddd  zmm12, zmm12, [WADD1]                   ; lanes J0+1 .. J0+4
        movzx   esi, byte [r12 + 15]
        inc     esi                                     ; last byte of J0 + 1
        and     esi, 255
%endmacro

; The ctr ops: FRAME, GF_MODE 2, then the body shared with the whole-message calls.
%macro CTR_ENTRY 1
        FRAME_ENTER GF32_SIZE, 64
        CTR_SETUP %1
        jmp     mbgcmi_avx512_by32_gcm.body
%endmacro
; CTR_SETUP dir: the ctr ops' state after FRAME_ENTER (rsi ctr, rdx s, r9 nblocks)
%macro CTR_SETUP 1
        mov     qword [rsp + GF_DEC], %1
        mov     qword [rsp + GF_MODE], 2
        mov     qword [rsp + GF_PRE], 0
        mov     qword [rsp + GF_SIX], 0
        mov     r12, rsi                                ; ctr
        mov     r13, rdx                                ; s
        mov     rbx, r9
        shl     rbx, 4                                  ; whole blocks only
        xor     r11d, r11d
        vmovdqa64 zmm13, [BSWAP]
        vmovdqa64 zmm14, [POLY]
        vmovdqu64 xmm16, [rdx]
        vpxorq  xmm15, xmm15, xmm15                     ; no J0: the first pass runs it on zero
        CTR_FROM [r12]
        movzx   esi, byte [r12 + 15]
%endmacro

global mbgcmi_avx512_by32_ctr_enc:function hidden
mbgcmi_avx512_by32_ctr_enc:
        CTR_ENTRY 0

global mbgcmi_avx512_by32_ctr_dec:function hidden
mbgcmi_avx512_by32_ctr_dec:
        CTR_ENTRY 1

global mbgcmi_avx512_by32_gcm12:function hidden
mbgcmi_avx512_by32_gcm12:
        FRAME_ENTER GF32_SIZE, 64
        mov     qword [rsp + GF_SIX], SIX_MAX
        GCM12_ARGS
        vmovdqa64 zmm13, [BSWAP]                        ; (SETUP without by16's power rows:
        vmovdqa64 zmm14, [POLY]                         ; zmm24-27 are B4..B7 here)
        vpxorq  xmm16, xmm16, xmm16
        mov     qword [rsp + GF_MODE], 1                ; the tag handled here
        jmp     mbgcmi_avx512_by32_gcm.common

global mbgcmi_avx512_by32_gcm:function hidden
mbgcmi_avx512_by32_gcm:
        FRAME_ENTER GF32_SIZE, 64
        mov     qword [rsp + GF_SIX], SIX_MAX
        GCM_ARGS
        vmovdqa64 zmm13, [BSWAP]
        vmovdqa64 zmm14, [POLY]
        vpxorq  xmm16, xmm16, xmm16
        mov     qword [rsp + GF_MODE], 0                ; the full tag to tag[16]
.common:
        WHOLE_HEAD
.body:
        xor     r14d, r14d                              ; no whole group pending yet
        xor     r15d, r15d                              ; no pass yet (J0 not encrypted)
        mov     r9, rbx
        shr     r9, 4                                   ; full blocks
        cmp     r9, 32
        jb      .tail
        CTR_BE_ENTER
        mov     r15d, 1
        mov     eax, [rdi + KEY_ROUNDS]
        cmp     rbx, [rsp + GF_SIX]
        ja      .no_six                                 ; (GF_SIX 0: always)
        cmp     rbx, 512
        ja      .six
.no_six:
        cmp     dword [rsp + GF_DEC], 0
        jne     .bulk_dec
        ENC_PREFETCH                                    ; encrypting: before the first pass
        mov     eax, [rdi + KEY_ROUNDS]
        cmp     eax, 12
        je      .bulk12
        ja      .bulk14
        BULK_ENC 10
        jmp     .bulk_done
.bulk12:
        BULK_ENC 12
        jmp     .bulk_done
.bulk14:
        BULK_ENC 14
        jmp     .bulk_done
.bulk_dec:
%assign PFB PASS_PF | PASS_PKN                  ; decrypting: in the first pass (BULK_PREFETCH,
                                                ; and the next key's lines)
        cmp     eax, 12
        je      .bulk_dec12
        ja      .bulk_dec14
        BULK_DEC 10
        jmp     .bulk_done
.bulk_dec12:
        BULK_DEC 12
        jmp     .bulk_done
.bulk_dec14:
        BULK_DEC 14
%assign PFB 0
.bulk_done:
        CTR_BE_LEAVE
        jmp     .tail
.six:
        cmp     dword [rsp + GF_DEC], 0
        jne     .six_dec
        cmp     eax, 12
        je      .six12
        ja      .six14
        FIRST_ENC6 10
        jmp     .six_done
.six12:
        FIRST_ENC6 12
        jmp     .six_done
.six14:
        FIRST_ENC6 14
        jmp     .six_done
.six_dec:
        cmp     eax, 12
        je      .six_dec12
        ja      .six_dec14
        FIRST_DEC6 10
        jmp     .six_done
.six_dec12:
        FIRST_DEC6 12
        jmp     .six_done
.six_dec14:
        FIRST_DEC6 14
.six_done:
        CTR_BE_LEAVE
        vpsubd  zmm12, zmm12, [WADD8]                   ; B6, B7's counters were not used
        lea     esi, [rbx - 384]                        ; the tail: 129..SIX_MAX - 384 bytes
        cmp     dword [rsp + GF_DEC], 0
        jne     .tail_have                              ; decrypting: as any tail
        CTR32_W
        lea     r10d, [rsi + 15]
        shr     r10d, 4                                 ; F = tail blocks
        mov     eax, [rdi + KEY_ROUNDS]
        TAIL_PASS6
        TAIL_IO
        jmp     .final
.tail:
        mov     esi, ebx
        and     esi, 511                                ; bytes after the whole groups
        jz      .no_tail
.tail_have:
        CTR32_W
        lea     r10d, [rsi + 15]
        shr     r10d, 4                                 ; F = tail blocks (1..32)
        cmp     dword [rsp + GF_DEC], 0
        je      .tail_plain
        cmp     dword [rsp + GF_MODE], 2
        je      .tail_plain
        ; decrypting (the whole-message calls): the tail's input, the length block and S are
        ; all there before its pass, so the final GHASH rides in it (r14d = 2, .fh_pass)
        TAIL_LOAD_DEC
        mov     r14d, 2
        jmp     .final
.tail_plain:
        mov     eax, [rdi + KEY_ROUNDS]
        TAIL_PASS
        TAIL_IO
        jmp     .final
.no_tail:
        mov     r10d, r14d
        shl     r10d, 5                                 ; F = 32 if a whole group waits, else 0
        test    r14d, r14d
        jnz     .final
        vpxorq  G_0, G_0, G_0
        test    r15d, r15d
        jnz     .final                                  ; a decrypting bulk hashed it all
        mov     eax, [rdi + KEY_ROUNDS]
        AES_W   0, 0, 1                                 ; no message block: J0 alone
.final:
        mov     edx, r10d                               ; F: the length block is not among them
        cmp     dword [rsp + GF_MODE], 2
        je      .final_ctr
        PRE_OK  .len_apart
        jmp     .final_go                               ; PRE_HASH: A and L are in LO/MI/HI
.len_apart:
        test    edx, edx
        jz      .len_only
        test    edx, 3
        jnz     .len_place
        LEN_HASH                                        ; F = 0 mod 4: one zmm input fewer
.final_go:
        cmp     r14d, 2
        je      .fh_pass                                ; decrypting: in the tail's pass
        FINAL_HASH 1
        jmp     .hashed
.len_place:
        LEN_PLACE edx, .placed
.placed:
        cmp     r14d, 2
        jne     .hash_set
        vpxorq  xmm17, xmm17, xmm17                     ; decrypting: FH_PART adds to zero
        vpxorq  xmm18, xmm18, xmm18
        vpxorq  xmm19, xmm19, xmm19
        jmp     .fh_pass
.len_only:
        ; no final block (a decrypting bulk hashed them all, or an empty message): S = (S ^ L) H
        LEN_V   xmm4
        GHASH1_V xmm4
        jmp     .hashed
.final_ctr:
        test    edx, edx
        jz      .hashed                                 ; ctr op without blocks
.hash_set:
        FINAL_HASH 0                                    ; LO/MI/HI from G0's products
        jmp     .hashed
.fh_pass:
        mov     eax, [rdi + KEY_ROUNDS]
        TAIL_PASS_FH
        TAIL_IO                                         ; the output: the input read again
.hashed:
        cmp     dword [rsp + GF_MODE], 2
        jne     .tag
        ; ctr ops: S out, and the next counter: inc32 by the blocks done, stored as one 16-byte
        ; block (the next call loads it as one: a load spanning two stores is not forwarded)
        vmovdqu64 [r13], xmm16
        mov     eax, [r12 + 12]
        bswap   eax
        shr     rbx, 4
        add     eax, ebx
        bswap   eax
        vmovdqu64 xmm20, [r12]
        vpinsrd xmm20, xmm20, eax, 3
        vmovdqu64 [r12], xmm20
        jmp     .out
.tag:
        TAG_OUT
.out:
        vpxord  xmm20, xmm20, xmm20
        vmovdqa64 [rsp + GF_H33], xmm20                 ; wipe the H^33 slots
        vmovdqa64 [rsp + GF_K33], xmm20
        vmovdqa64 [rsp + GF_ETAG], xmm20                ; and the expected tag's copy
        CLEAR_VREGS zmm
        FRAME_LEAVE


; ---------------------------------------------------------------------------------------------
; void mbgcmi_avx512_by32_jobs12(mbgcm_job *const *jobs, size_t n);
;   The by32 variant's pipelined burst call for encrypts: n (1..64) validated linear encrypt
;   jobs with 12-byte IVs, at most 16 bytes of AAD and at least one byte of message, one after
;   the other (arch_avx512.c's jobs12 wrapper sends every other job to whole12). Jobs in one
;   call run overlapped: job i's tag is written while job i+1 runs, so no job's tag or dst may
;   overlap another job's buffers (the job API's rule for jobs in flight together).
;   Why: encrypting, by32 hashes a message's last blocks (the tail, or its last whole group,
;   and the length block: up to 33 blocks, 26 multiplies and a reduction) after its last AES
;   pass, with the AES unit idle, while its first pass has no GHASH beside it. Here each job
;   leaves that final GHASH and its tag pending, and they ride in the next job's first pass
;   (PASS_FHP: FHP_PART, nine steps between its rounds), where the carry-less multiplier would
;   otherwise be idle; the job's own AAD is hashed after that pass (S belongs to the pending
;   job until then). The first job rides beside an empty predecessor (F = 0, S = 0, tag mask
;   0); the last job's final GHASH and tag run alone at the end (FIN_ALONE).
;   Registers as the whole-message calls (above), plus r12 the current job. Between jobs the
;   pending job's final GHASH input waits in G0..G7 (byte order, its length block in lane F % 4
;   of G(F / 4)) or, for F = 0 mod 4, as the length block's products in LO/MI/HI (zero
;   otherwise); its S in xmm16, its E_K(J0) in xmm23, its H^33 (F = 32) in GF_H33 / GF_K33;
;   the frame's JB_ slots hold its power base HPOW(F + 1) (of its key), F, tag pointer and tag
;   mask, loaded into r15 and edx for the pass that hashes it.
%define JB_JOBS    (GF32_SIZE + 0)
%define JB_N       (GF32_SIZE + 8)
%define JB_I       (GF32_SIZE + 16)
%define JB_PTAG    (GF32_SIZE + 24)     ; the pending tag's pointer (a frame slot when none)
%define JB_PBASE   (GF32_SIZE + 32)     ; its final GHASH's power rows: HPOW(F + 1) of its key
%define JB_PF      (GF32_SIZE + 40)     ; dword: its F (blocks before the length block)
%define JB_PMASK   (GF32_SIZE + 44)     ; word: its tag byte mask (0: nothing pending)
%define JB_SIZE    (GF32_SIZE + 64)

; FHP_PART i: the pending job's final GHASH (F = edx blocks in G0..G7, S joining G0; its length
; block placed among them or its products in LO/MI/HI) with the powers from r15 = HPOW(F + 1)
; of its key, in nine parts between the rounds of the current job's first pass: FH_PART's,
; with the rows at r15 as given (F = 32: H^33 from the frame). Clobbers eax, k3, zmm20, zmm21,
; zmm29-31.
%macro FHP_ROWS 0
        cmp     edx, 32
        FH_ROWS_AT
%endmacro
%macro FHP_PART 1
        FH_PARTS %1, FHP_ROWS
%endmacro

; TAG_PREV: the pending job's tag, T = E_K(J0) ^ S, stored under its mask (a zero mask stores
; nothing). Clobbers rax, k3, xmm20.
%macro TAG_PREV 0
        vpshufb xmm20, xmm16, xmm13
        vpxorq  xmm20, xmm20, xmm23
        kmovw   k3, [rsp + JB_PMASK]
        mov     rax, [rsp + JB_PTAG]
        vmovdqu8 [rax]{k3}, xmm20
%endmacro

; NONE_PENDING: an empty predecessor (F = 0, S = 0, no tag), r15's rows at the key at rdi
%macro NONE_PENDING 0
        vpxorq  xmm4, xmm4, xmm4
        vpxorq  xmm16, xmm16, xmm16
        vpxorq  xmm17, xmm17, xmm17
        vpxorq  xmm18, xmm18, xmm18
        vpxorq  xmm19, xmm19, xmm19
        vpxorq  xmm23, xmm23, xmm23
        mov     dword [rsp + JB_PF], 0
        mov     word [rsp + JB_PMASK], 0
        lea     rax, [rsp + GF_J0]
        mov     [rsp + JB_PTAG], rax
        lea     rax, [rdi + HPOW(1)]
        mov     [rsp + JB_PBASE], rax
%endmacro

; FIN_ALONE: the pending job's final GHASH and tag with nothing beside them
%macro FIN_ALONE 0
        mov     edx, [rsp + JB_PF]
        mov     r15, [rsp + JB_PBASE]
%assign _q 0
%rep 9
        FHP_PART _q
%assign _q _q + 1
%endrep
        TAG_PREV
%endmacro

; AFTER_FIRST: after the current job's first pass (its output in G0..G7, B0..B7 free): the
; pending job's tag; this job's E_K(J0) into xmm23; S = GHASH of this job's AAD (r11 = 0..16
; bytes); H^33 into the frame when this job's final GHASH will need it (F = 32: rbx a multiple
; of 512, or a tail of more than 496 bytes). Clobbers rax, r10, k1, k3, xmm0-2, xmm17-21.
%macro AFTER_FIRST 0
        TAG_PREV
        vmovdqa64 xmm23, xmm15
        vpxorq  xmm16, xmm16, xmm16
        test    r11, r11
        jz      %%aad_done
        mov     r10, [r12 + J_AAD]
        mov     eax, 0xFFFF
        bzhi    eax, eax, r11d
        kmovw   k1, eax
        vmovdqu8 xmm0{k1}{z}, [r10]
        GHASH1  xmm0, 0, 1, 2
%%aad_done:
        mov     eax, ebx
        and     eax, 511
        jz      %%h33
        cmp     eax, 496
        jbe     %%no33
%%h33:
        H33
%%no33:
%endmacro

; JOB_KEY_PREFETCH d: in job i's first pass, the key of job i + d (when there is one and it is
; not job i's): its round keys and rounds, powers and their operands, the twenty lines its passes
; read. A key beyond the caches otherwise costs each job a memory latency (or two) before its
; first round; a burst knows its next keys, a one-shot call does not. On Zen 5 with 16384 keys in
; random order, bursts of 594-byte encrypts 236 -> 105 ns per job, 1420-byte 355 -> 133, 4 KiB
; 473 -> 228; with 64 keys in the caches 1-2% more time, one key level (docs/perf.md,
; "twenty-first stop"). rax scratch.
%macro JOB_KEY_PREFETCH 1
        mov     rax, [rsp + JB_I]
        add     rax, %1
        cmp     rax, [rsp + JB_N]
        jae     %%none
        shl     rax, 3
        add     rax, [rsp + JB_JOBS]
        mov     rax, [rax]                              ; jobs[i + d]
        mov     rax, [rax + J_KEY]
        cmp     rax, rdi
        je      %%none                                  ; this job's key: here already
        KEY_LINES_PREFETCH rax, 32, 1
%%none:
%endmacro
; FIRST_J nr: the current job's first whole group, with the pending final GHASH (PASS_FHP);
; BULK_J nr: every whole group (r9 >= 32), as BULK's encrypting path with FIRST_J first
%macro FIRST_J 1
        CTR32_WB
        PASS    8, %1, PASS_J0 | PASS_FHP | PASS_PKJ
        GROUP_OUT_ENC_N 8
        AFTER_FIRST
%endmacro
%macro BULK_J 1
        cmp     r9, 32 * RK64_MIN_GROUPS
        jb      %%few
%assign RK64 2
        FIRST_J %1
%assign RK64 1
        LATER_GROUPS 0, %1
%assign RK64 0
        RK64_WIPE %1
        jmp     %%end
%%few:
        FIRST_J %1
        LATER_GROUPS 0, %1
%%end:
%endmacro
; the tail's pass: as the job's first pass (no whole group: the pending final GHASH, J0), or
; with the last whole group's GHASH
%macro TAIL_J_FIRST_NZ 1
        TAIL_PASS_NR %1, PASS_J0 | PASS_FHP
%endmacro
%macro TAIL_J_GH_NZ 1
        TAIL_PASS_NR %1, PASS_GH
%endmacro

global mbgcmi_avx512_by32_jobs12:function hidden
mbgcmi_avx512_by32_jobs12:
        FRAME_ENTER JB_SIZE, 64
        mov     [rsp + JB_JOBS], rdi
        mov     [rsp + JB_N], rsi
        mov     qword [rsp + JB_I], 0
        mov     qword [rsp + GF_DEC], 0                 ; (TAIL_IO: encrypting)
        vmovdqa64 zmm13, [BSWAP]
        vmovdqa64 zmm14, [POLY]
        mov     r11, rdi
        mov     r12, [r11]
        mov     rdi, [r12 + J_KEY]
        NONE_PENDING
.job:
        mov     r11, [rsp + JB_JOBS]
        mov     rax, [rsp + JB_I]
        lea     r11, [r11 + 8 * rax]
        mov     r12, [r11]                              ; jobs[i]
        mov     rbx, [r12 + J_LEN]
        mov     r11, [r12 + J_AADLEN]
        mov     rdi, [r12 + J_KEY]
        mov     rcx, [r12 + J_SRC]
        mov     r8, [r12 + J_DST]
        ; J0 = IV || 00 00 00 01 (xmm15 and the frame); counters J0+1 .. in zmm12
        mov     r10, [r12 + J_IV]
        mov     eax, 0x0FFF
        kmovw   k1, eax
        vmovdqu8 xmm15{k1}{z}, [r10]
        mov     eax, 0x01000000
        vpinsrd xmm15, xmm15, eax, 3
        vmovdqa64 [rsp + GF_J0], xmm15
        CTR_FROM [rsp + GF_J0]
        vpaddd  zmm12, zmm12, [WADD1]
        mov     esi, 2                                  ; last byte of J0 + 1
        mov     edx, [rsp + JB_PF]                      ; the pending final GHASH
        mov     r15, [rsp + JB_PBASE]
        mov     r9, rbx
        shr     r9, 4
        cmp     r9, 32
        jb      .job_input_asked                        ; (no whole group: nothing to request)
        ENC_PREFETCH
.job_input_asked:
        mov     eax, [rdi + KEY_ROUNDS]
        cmp     r9, 32
        jb      .first_tail
        CTR_BE_ENTER
        cmp     eax, 12
        je      .bulk12
        ja      .bulk14
        BULK_J  10
        jmp     .bulk_done
.bulk12:
        BULK_J  12
        jmp     .bulk_done
.bulk14:
        BULK_J  14
.bulk_done:
        CTR_BE_LEAVE
        mov     r10d, 32                                ; F = 32 when no tail follows
        mov     esi, ebx
        and     esi, 511
        jz      .final
        CTR32_W
        mov     eax, [rdi + KEY_ROUNDS]
        TAIL_BY_SIZE TAIL_J_GH_NZ
        jmp     .tail_out
.first_tail:
        mov     esi, ebx                                ; 1..511 bytes, the first pass
        CTR32_W
        TAIL_BY_SIZE TAIL_J_FIRST_NZ
        TAIL_IO
        AFTER_FIRST
        jmp     .tail_f
.tail_out:
        TAIL_IO
.tail_f:
        lea     r10d, [rsi + 15]
        shr     r10d, 4                                 ; F = tail blocks (1..32)
.final:
        ; the length block: in the free lane F % 4 of G(F / 4), where the powers from H^(F+1)
        ; down give it H^1; for F = 0 mod 4 its products with H^1 into LO/MI/HI (LEN_HASH)
        test    r10d, 3
        jnz     .len_place
        LEN_HASH
        jmp     .pending
.len_place:
        vpxorq  xmm17, xmm17, xmm17
        vpxorq  xmm18, xmm18, xmm18
        vpxorq  xmm19, xmm19, xmm19
        LEN_PLACE r10d, .pending
.pending:
        ; this job's final GHASH and tag wait for the next job's first pass
        mov     rax, [r12 + J_TAG]
        mov     [rsp + JB_PTAG], rax
        mov     rax, [r12 + J_TAGLEN]
        mov     edx, 0xFFFF
        bzhi    edx, edx, eax
        mov     [rsp + JB_PMASK], dx
        mov     [rsp + JB_PF], r10d
        mov     eax, 31
        sub     rax, r10
        shl     rax, 4
        lea     rax, [rdi + rax + KEY_HPOW]             ; HPOW(F + 1)
        mov     [rsp + JB_PBASE], rax
        jmp     .next
.next:
        mov     rax, [rsp + JB_I]
        inc     rax
        mov     [rsp + JB_I], rax
        cmp     rax, [rsp + JB_N]
        jb      .job
        FIN_ALONE
        vpxord  xmm20, xmm20, xmm20
        vmovdqa64 [rsp + GF_H33], xmm20                 ; wipe the frame's key-derived slots
        vmovdqa64 [rsp + GF_K33], xmm20
        vmovdqa64 [rsp + GF_J0], xmm20
        CLEAR_VREGS zmm
        FRAME_LEAVE



; ---------------------------------------------------------------------------------------------
; The chunk-list ctr ops (rcx = the list, r8 = nblocks): group g of 32 blocks (the last one
; shorter) from list[g].in to list[g].out; the groups stay in flight across the entries as
; they do along one buffer (GROUP_ADV with LIST 1: mbgcmi_avx512_by32_body_list). Placed
; last: the code above keeps its addresses (and its loops their alignment)
; LIST_FIRST: rcx = the list -> GF_LIST at its second entry, rcx, r8 the first one's in, out
%macro LIST_FIRST 0
        lea     rax, [rcx + CH_SIZE]
        mov     [rsp + GF_LIST], rax
        mov     r8, [rcx + CH_OUT]
        mov     rcx, [rcx + CH_IN]
%endmacro
%macro CTR_LIST_ENTRY 1
        FRAME_ENTER GF32_SIZE, 64
        mov     r9, r8
        LIST_FIRST
        CTR_SETUP %1
        jmp     mbgcmi_avx512_by32_body_list
%endmacro

global mbgcmi_avx512_by32_ctr_list_enc:function hidden
mbgcmi_avx512_by32_ctr_list_enc:
        CTR_LIST_ENTRY 0

global mbgcmi_avx512_by32_ctr_list_dec:function hidden
mbgcmi_avx512_by32_ctr_list_dec:
        CTR_LIST_ENTRY 1

mbgcmi_avx512_by32_body_list:
        ; the chunk-list ctr ops: .body's whole groups with GROUP_ADV taking the list (no
        ; BULK_PREFETCH: the next groups are elsewhere; a decrypt's LATER_GROUPS prefetch the
        ; entry two ahead), then .body's tail and final GHASH (rcx, r8 at the last entry)
        xor     r14d, r14d
        xor     r15d, r15d
        mov     r9, rbx
        shr     r9, 4
        cmp     r9, 32
        jb      mbgcmi_avx512_by32_gcm.tail
        CTR_BE_ENTER
        mov     r15d, 1
        mov     eax, [rdi + KEY_ROUNDS]
%assign LIST 1
        cmp     dword [rsp + GF_DEC], 0
        jne     .lbulk_dec
        cmp     eax, 12
        je      .lbulk12
        ja      .lbulk14
        BULK_ENC 10
        jmp     mbgcmi_avx512_by32_gcm.bulk_done
.lbulk12:
        BULK_ENC 12
        jmp     mbgcmi_avx512_by32_gcm.bulk_done
.lbulk14:
        BULK_ENC 14
        jmp     mbgcmi_avx512_by32_gcm.bulk_done
.lbulk_dec:
        cmp     eax, 12
        je      .lbulk_dec12
        ja      .lbulk_dec14
        BULK_DEC 10
        jmp     mbgcmi_avx512_by32_gcm.bulk_done
.lbulk_dec12:
        BULK_DEC 12
        jmp     mbgcmi_avx512_by32_gcm.bulk_done
.lbulk_dec14:
        BULK_DEC 14
        jmp     mbgcmi_avx512_by32_gcm.bulk_done
%assign LIST 0

; ---------------------------------------------------------------------------------------------
; void mbgcmi_avx512_copy(uint8_t *dst, const uint8_t *src, size_t n): n bytes in 64-byte moves
; and a byte-masked last one (the scatter-gather jobs' bounce slots: message bytes, so zmm0,
; which they pass through, is cleared before returning; k1 holds only the length's mask).
global mbgcmi_avx512_copy:function hidden
mbgcmi_avx512_copy:
        cmp     rdx, 64
        jb      .last
.loop:
        vmovdqu64 zmm0, [rsi]
        vmovdqu64 [rdi], zmm0
        add     rsi, 64
        add     rdi, 64
        sub     rdx, 64
        cmp     rdx, 64
        jae     .loop
.last:
        test    rdx, rdx
        jz      .done
        mov     rax, -1
        bzhi    rax, rax, rdx
        kmovq   k1, rax
        vmovdqu8 zmm0{k1}{z}, [rsi]
        vmovdqu8 [rdi]{k1}, zmm0
.done:
        vpxorq  xmm0, xmm0, xmm0
        ret

; ---------------------------------------------------------------------------------------------
; void mbgcmi_avx512_by32_gcm_list(const key *k, const uint8_t j0[16], const uint8_t *aad,
;                                  size_t aad_len, const struct mbgcmi_chunk *list, size_t len,
;                                  uint8_t tag[16], int decrypt);
;   mbgcmi_avx512_by32_gcm (the whole message given J0, the full tag to tag[16]) over a message
;   in pieces: group g of 512 bytes from list[g].in to list[g].out, the last group the message's
;   last 1..512 bytes (partial block included), one entry more than there are groups (read,
;   not used). The whole-message head (WHOLE_HEAD: AAD, H^33, J0) and tail, with the chunk-list
;   ops' bulk between (mbgcmi_avx512_by32_body_list): a scatter-gather job in one call, where
;   the stream spent a call on each end. No FIRST_ENC6 split (its tail starts 384 bytes into a
;   group): GF_SIX 0.
global mbgcmi_avx512_by32_gcm_list:function hidden
mbgcmi_avx512_by32_gcm_list:
        FRAME_ENTER GF32_SIZE, 64
        mov     qword [rsp + GF_SIX], 0
        mov     r12, rsi                                ; j0
        mov     r10, rdx                                ; aad
        mov     r11, rcx                                ; aad_len
        mov     rcx, r8                                 ; the list
        LIST_FIRST
        mov     rbx, r9                                 ; len
        mov     r13, [rbp + 16]                         ; tag
        mov     eax, [rbp + 24]
        mov     [rsp + GF_DEC], rax
        vmovdqa64 zmm13, [BSWAP]
        vmovdqa64 zmm14, [POLY]
        vpxorq  xmm16, xmm16, xmm16
        mov     qword [rsp + GF_MODE], 0                ; the full tag to tag[16]
        WHOLE_HEAD
        jmp     mbgcmi_avx512_by32_body_list

section .note.GNU-stack noalloc noexec nowrite progbits
