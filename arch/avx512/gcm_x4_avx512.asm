; SPDX-License-Identifier: BSD-3-Clause
; gcm_x4_avx512.asm — the four-lane ("x4") AES-GCM lane kernel for the `avx512` arch.
;
; x4 means: 128-bit lane i of every zmm register belongs to job slot i of a lane group. One
; VAESENC advances four different jobs with four different round keys, one VPCLMULQDQ
; multiplies four different GHASH states by four different hash keys. The four lanes hold
; four unrelated messages, so unlike single-stream GCM code there is no cross-lane GHASH fold
; at the end: each lane's reduced accumulator is its own job's S.
;
; CPU: AVX512F + AVX512BW + AVX512VL + VAES + VPCLMULQDQ + BMI1/BMI2, with OS AVX-512 state
;      (what arch/avx512/arch_avx512.c requires).
; ABI: System V AMD64.
;
; unsigned mbgcmi_avx512_lanes(struct mbgcmi_group *g);
;   The lane-kernel contract of core/group.h: advance the busy lanes of g until at least one
;   finishes; return the mask of finished lanes (tags written for encrypt lanes, g->auth_fail
;   set for decrypt lanes whose tag did not match). Reads and writes only g and the lanes'
;   buffers: never a byte outside [aad, aad+aad_left), [src, src+text_left),
;   [dst, dst+text_left), tag[0..tag_len).
;
; Structure of one call
;   entry   round analysis (R = max rounds of the busy lanes; which lanes end at round 10/12)
;           and E_K(J0) for lanes whose init bit is set
;   loop    phase analysis over the four lanes (vectors of u64 lengths):
;             left = AAD bytes if the lane is still in its AAD phase, else message bytes
;             any busy lane with left == 0        -> finish
;             any busy lane with 0 < left < 16    -> one masked block step (K1)
;             n = min full blocks over busy lanes -> bulk: 8 blocks per lane per iteration
;                                                   (32 blocks, 8 independent AES chains in
;                                                   flight), then 4, then K1 steps
;   finish  S ^= length block, S *= H, T = E_K(J0) ^ S; tag_len-masked store or constant-time
;           compare; return.
;   Lanes in different phases share every step: an AAD lane hashes its input and gets no key
;   stream (vector masks TEXT/ENC select per lane), a text lane encrypts or decrypts, an idle
;   lane computes garbage that is never stored.
;
; Math (derived once in arch/generic/ghash_ct.c): blocks are byte-reflected into V form; the
; key rows hold V(H^k)*y mod P' (Montgomery form) and their Karatsuba operands (lo^hi); a group of K
; blocks per lane is hashed as (S ^ X0) H^K ^ X1 H^(K-1) ^ ... ^ X(K-1) H with three
; carry-less multiplies per block (Karatsuba) and one reduction: two folds by 0xC2.. .
; Counters: each lane's counter block is kept byte-reflected (a little-endian 128-bit integer
; whose low dword is GCM's 32-bit counter), so VPADDD is inc32 and wraps mod 2^32.
; Mixed key sizes in one group: every lane runs R rounds; a lane whose key has fewer rounds
; takes VAESENCLAST at its own last round, that result is parked on the stack, and merged back
; with an opmask after the last round (VAESENC/VAESENCLAST take no opmask themselves).
;
; Register plan
;   rdi      g                               rbp   frame pointer
;   r8-r11   bulk: lane input pointers        r12-r15 bulk: lane output pointers (each
;            advanced as the step goes: every address is a base register plus a constant, no
;            index register; scripts/ct-check.sh checks it)
;   rcx      bulk: blocks left in this step
;   zmm0-7   B0..B7   counter blocks -> key stream -> output blocks
;   zmm8-15  D0..D7   input blocks (block j of all four lanes) -> GHASH input
;   zmm16    S        GHASH accumulators, V form       zmm17  CTR  counters, byte-reflected
;   zmm18    BSWAP    byte reflection per 128-bit lane zmm19  POLY 0xC2.. in every qword
;   zmm20-22 LO/MI/HI unreduced products               zmm23-24 GHASH scratch
;   zmm25    TEXT     all-ones in lanes in their text phase (key stream applies)
;   zmm26    ENC      all-ones in text lanes that encrypt (hash the output, not the input)
;   zmm27    INC      per-iteration counter increment (K in text lanes, 0 elsewhere)
;   zmm28-31 transpose scratch (lane-major <-> block-major, 4x4 of 128-bit blocks)
;   k1 scratch (mixed-round merge, active lanes), k2 AAD lanes, k3 text lanes (4-bit, for the
;   u64 length vectors), k4-k7 per-lane load/store masks.
; Every vector register is cleared before returning (zmm16-31 explicitly: VZEROALL does not
; reach them); the stack spill area is zeroed when it was used.
default rel
%include "lane_state.inc"
%include "frame.inc"
%include "clear.inc"
%include "x4_macros.inc"

section .rodata
%include "consts.inc"
CTR_ADD:                                ; row j: +j in the counter dword of every lane
%assign _cj 0
%rep 9
                times 4 dd _cj, 0, 0, 0
%assign _cj _cj + 1
%endrep
SIXTEEN_Q:      times 4 dq 16

; stack frame (rsp 64-byte aligned)
;       0                       ; 8 x 64: VAESENCLAST at round 10, for 10-round lanes
;       512 (SPILL12)           ; 8 x 64: at round 12, for 12-round lanes
%define F_ACT   1044            ; dword: busy lanes
%define F_TEXT  1048            ; dword: text lanes of the current step
%define F_NB    1056            ; qword: blocks of the current bulk step
%define FRAME   (1088 + 64)

section .text

; ---- AES: hooks for x4_macros.inc's AES_X4 -------------------------------------------------------
%define RMAX    dword [rdi + G_RMAX]
%define K10Q    word [rdi + G_K10Q]
%define K12Q    word [rdi + G_K12Q]
%define SPILL12 512
%macro LOAD_RK 1                        ; zmm24 = round key row %1 of the group
        vmovdqu64 zmm24, [rdi + G_RK + 64 * (%1)]
%endmacro

; ---- GHASH over the group's power rows ---------------------------------------------------------
%define HP_ROW(k) [rdi + G_HP + 64 * ((k) - 1)]
%define HK_ROW(k) [rdi + G_HK + 64 * ((k) - 1)]
; GH_BLOCK j, G: bring D_j (byte order) into V form and multiply by H^(G-j) (j = 0 also
; folds in S): one block of a G-block aggregated GHASH, for stitching between AES rounds.
%macro GH_BLOCK 2
%assign _gr 8 + (%1)
        vpshufb zmm %+ _gr, zmm %+ _gr, zmm18
%if (%1) == 0
        vpxorq  zmm8, zmm8, zmm16
        GH_FIRST zmm8, HP_ROW(%2), HK_ROW(%2)
%else
        GH_NEXT zmm %+ _gr, HP_ROW((%2) - (%1)), HK_ROW((%2) - (%1))
%endif
%endmacro

; GHASH_K K: S = GHASH of D0..D(K-1) (byte order; block j of every lane) into S.
%macro GHASH_K 1
        vpshufb zmm8, zmm8, zmm18
        vpxorq  zmm8, zmm8, zmm16
        GH_FIRST zmm8, HP_ROW(%1), HK_ROW(%1)
%assign _gj 1
%rep (%1) - 1
%assign _gr 8 + _gj
        vpshufb zmm %+ _gr, zmm %+ _gr, zmm18
        GH_NEXT zmm %+ _gr, HP_ROW((%1) - _gj), HK_ROW((%1) - _gj)
%assign _gj _gj + 1
%endrep
        GH_REDUCE
        vmovdqa64 zmm16, zmm22
%endmacro


; ---- bulk pieces: K (8 or 4) full blocks per lane ----------------------------------------------
; CTR_GEN K: B_j = counter block j of every lane (byte order); text lanes' counters += K.
%macro CTR_GEN 1
%assign _ij 0
%rep %1
        vpaddd  zmm %+ _ij, zmm17, [CTR_ADD + 64 * _ij]
        vpshufb zmm %+ _ij, zmm %+ _ij, zmm18
%assign _ij _ij + 1
%endrep
        vpaddd  zmm17, zmm17, zmm27
%endmacro
; LOAD_D K: D_j = block j of every lane's input (4 lane loads + 4x4 transposes per 4 blocks).
; Addresses are a lane pointer plus a constant: no index register (scripts/ct-check.sh).
%macro LOAD_D 1
%assign _ih 0
%rep (%1) / 4
        vmovdqu64 zmm28, [r8 + 64 * _ih]
        vmovdqu64 zmm29, [r9 + 64 * _ih]
        vmovdqu64 zmm30, [r10 + 64 * _ih]
        vmovdqu64 zmm31, [r11 + 64 * _ih]
%assign _d0 8 + 4 * _ih
%assign _d1 9 + 4 * _ih
%assign _d2 10 + 4 * _ih
%assign _d3 11 + 4 * _ih
        TRANSPOSE4 zmm28, zmm29, zmm30, zmm31, zmm %+ _d0, zmm %+ _d1, zmm %+ _d2, zmm %+ _d3
%assign _ih _ih + 1
%endrep
%endmacro
; XOR_STORE K: B = D ^ (KS & TEXT) stored to the text lanes; D = what GHASH must see (the
; output for encrypting lanes, the input otherwise). Advances the eight lane pointers.
%macro XOR_STORE 1
%assign _ij 0
%rep %1
%assign _id 8 + _ij
        vpternlogq zmm %+ _ij, zmm %+ _id, zmm25, 0x6C  ; B = D ^ (KS & TEXT): output
        vpternlogq zmm %+ _id, zmm %+ _ij, zmm26, 0xD8  ; D = ENC ? B : D: GHASH input
%assign _ij _ij + 1
%endrep
%assign _ih 0
%rep (%1) / 4
%assign _b0 4 * _ih
%assign _b1 4 * _ih + 1
%assign _b2 4 * _ih + 2
%assign _b3 4 * _ih + 3
        TRANSPOSE4 zmm %+ _b0, zmm %+ _b1, zmm %+ _b2, zmm %+ _b3, zmm28, zmm29, zmm30, zmm31
        vmovdqu64 [r12 + 64 * _ih]{k4}, zmm28
        vmovdqu64 [r13 + 64 * _ih]{k5}, zmm29
        vmovdqu64 [r14 + 64 * _ih]{k6}, zmm30
        vmovdqu64 [r15 + 64 * _ih]{k7}, zmm31
%assign _ih _ih + 1
%endrep
        ADVANCE_IN 16 * (%1)
        add     r12, 16 * (%1)
        add     r13, 16 * (%1)
        add     r14, 16 * (%1)
        add     r15, 16 * (%1)
%endmacro
; ADVANCE_IN n: the four lane input pointers move on by n bytes
%macro ADVANCE_IN 1
        add     r8, %1
        add     r9, %1
        add     r10, %1
        add     r11, %1
%endmacro
; One software-pipelined group: AES of this group's counters with the previous group's GHASH
; (G blocks) interleaved between the rounds, then this group's data. G = 0: nothing pending.
%macro ITER 2                           ; K, G
        CTR_GEN %1
        AES_X4  %1, %2
        LOAD_D  %1
        XOR_STORE %1
%endmacro

; ---- lane bookkeeping after a step: ymm30 = bytes advanced per lane --------------------------
%macro ADVANCE 0
        vmovdqu64 ymm23, [rdi + G_AADLEFT]
        vpsubq  ymm23{k2}, ymm23, ymm30
        vmovdqu64 [rdi + G_AADLEFT], ymm23
        vmovdqu64 ymm23, [rdi + G_AAD]
        vpaddq  ymm23{k2}, ymm23, ymm30
        vmovdqu64 [rdi + G_AAD], ymm23
        vmovdqu64 ymm23, [rdi + G_TEXTLEFT]
        vpsubq  ymm23{k3}, ymm23, ymm30
        vmovdqu64 [rdi + G_TEXTLEFT], ymm23
        vmovdqu64 ymm23, [rdi + G_SRC]
        vpaddq  ymm23{k3}, ymm23, ymm30
        vmovdqu64 [rdi + G_SRC], ymm23
        vmovdqu64 ymm23, [rdi + G_DST]
        vpaddq  ymm23{k3}, ymm23, ymm30
        vmovdqu64 [rdi + G_DST], ymm23
%endmacro

; GATHER_BLOCK: zmm8 = [r8], [r9], [r10], [r11] (one 16-byte block per lane, byte masks
; k4..k7, zero where masked: never touches a masked byte)
%macro GATHER_BLOCK 0
        vmovdqu8 xmm8{k4}{z}, [r8]
        vmovdqu8 xmm28{k5}{z}, [r9]
        vinserti32x4 zmm8, zmm8, xmm28, 1
        vmovdqu8 xmm28{k6}{z}, [r10]
        vinserti32x4 zmm8, zmm8, xmm28, 2
        vmovdqu8 xmm28{k7}{z}, [r11]
        vinserti32x4 zmm8, zmm8, xmm28, 3
%endmacro

; BYTE_MASKS: ymm30 = bytes per lane (<= 16) -> k4..k7 byte masks, rax..rdx the same masks
%macro BYTE_MASKS 0
        vmovq   rax, xmm30
        vpextrq rbx, xmm30, 1
        vextracti32x4 xmm31, ymm30, 1
        vmovq   rcx, xmm31
        vpextrq rdx, xmm31, 1
        mov     r12d, 0xFFFF
        bzhi    eax, r12d, eax
        bzhi    ebx, r12d, ebx
        bzhi    ecx, r12d, ecx
        bzhi    edx, r12d, edx
        kmovw   k4, eax
        kmovw   k5, ebx
        kmovw   k6, ecx
        kmovw   k7, edx
%endmacro


; ---------------------------------------------------------------------------------------------
global mbgcmi_avx512_lanes:function hidden
mbgcmi_avx512_lanes:
        FRAME_ENTER FRAME, 64

        mov     eax, [rdi + G_ACTIVE]
        mov     [rsp + F_ACT], eax
        ; (round structure of the busy lanes: G_RMAX / G_K10Q / G_K12Q, kept by the manager)

        vmovdqa64 zmm18, [BSWAP]
        vmovdqa64 zmm19, [POLY]
        vmovdqu64 zmm16, [rdi + G_S]
        vmovdqu64 zmm17, [rdi + G_CTR]
        vpshufb zmm17, zmm17, zmm18

        ; ---- E_K(J0) for newly entered lanes ----
        mov     eax, [rdi + G_INIT]
        and     eax, [rsp + F_ACT]
        jz      .loop
        vmovdqu64 zmm0, [rdi + G_EK0]
        AES_X4  1
        LANES_TO_QMASK r10, rax
        kmovw   k1, r10d
        vmovdqu64 [rdi + G_EK0]{k1}, zmm0
        mov     dword [rdi + G_INIT], 0
        ; fresh lanes with 0 < AAD <= 16 bytes (the usual case: IPsec, TLS) hash it now, so
        ; they enter the loop already in their text phase
        kmovw   k2, eax
        vmovdqu64 ymm23, [rdi + G_AADLEFT]
        vpcmpuq k2{k2}, ymm23, [SIXTEEN_Q], 2   ; aad_left <= 16
        vptestmq k2{k2}, ymm23, ymm23           ; and > 0
        kortestw k2, k2
        jz      .loop
        vmovdqa64 ymm30{k2}{z}, ymm23           ; bytes per lane
        BYTE_MASKS
        mov     r8, [rdi + G_AAD]
        mov     r9, [rdi + G_AAD + 8]
        mov     r10, [rdi + G_AAD + 16]
        mov     r11, [rdi + G_AAD + 24]
        GATHER_BLOCK
        vpshufb zmm8, zmm8, zmm18
        vpxorq  zmm8, zmm8, zmm16
        GH_FIRST zmm8, HP_ROW(1), HK_ROW(1)
        GH_REDUCE
        kmovw   eax, k2
        LANES_TO_QMASK r10, rax
        kmovw   k1, r10d
        vmovdqa64 zmm16{k1}, zmm22              ; S of those lanes only
        kxorw   k3, k3, k3                      ; no text lanes in this step
        ADVANCE

        ; ---- phase analysis ----
.loop:
        mov     eax, [rsp + F_ACT]
        kmovw   k1, eax
        vmovdqu64 ymm23, [rdi + G_AADLEFT]
        vmovdqu64 ymm24, [rdi + G_TEXTLEFT]
        vptestmq k2{k1}, ymm23, ymm23           ; lanes still in their AAD phase
        vpblendmq ymm28{k2}, ymm24, ymm23       ; left = AAD ? aad_left : text_left
        vptestnmq k3{k1}, ymm28, ymm28          ; lanes with nothing left: finish them
        kortestw k3, k3
        jnz     .finish
        kmovw   edx, k2
        andn    ecx, edx, eax                   ; text lanes
        mov     [rsp + F_TEXT], ecx
        mov     ebx, [rdi + G_DECRYPT]
        andn    ebx, ebx, ecx                   ; encrypting text lanes
        kmovw   k3, ecx
        LANES_TO_QMASK r10, rcx
        kmovw   k4, r10d
        vpternlogq zmm25{k4}{z}, zmm25, zmm25, 0xFF
        LANES_TO_QMASK r10, rbx
        kmovw   k4, r10d
        vpternlogq zmm26{k4}{z}, zmm26, zmm26, 0xFF
        vpcmpuq k4{k1}, ymm28, [SIXTEEN_Q], 1   ; some lane has a partial block: K1 step
        kortestw k4, k4
        jnz     .k1
        vpsrlq  ymm29, ymm28, 4                 ; full blocks to the boundary
        knotw   k4, k1
        vpternlogq ymm29{k4}, ymm29, ymm29, 0xFF ; idle lanes: no limit
        vextracti32x4 xmm30, ymm29, 1
        vpminuq xmm29, xmm29, xmm30
        vpshufd xmm30, xmm29, 0x4e
        vpminuq xmm29, xmm29, xmm30
        vmovq   rcx, xmm29                      ; n = blocks every busy lane can take
        cmp     rcx, 4
        jb      .k1

        ; ---- bulk: n >= 4 full blocks in every busy lane ----
        mov     [rsp + F_NB], rcx
        vmovdqu64 ymm23, [rdi + G_SRC]
        vpblendmq ymm23{k2}, ymm23, [rdi + G_AAD] ; AAD lanes read their AAD
        tzcnt   edx, eax                        ; first busy lane: idle lanes read its data
        vpbroadcastq ymm24, rdx
        vpermq  ymm24, ymm24, ymm23
        knotw   k4, k1
        vmovdqa64 ymm23{k4}, ymm24
        vmovq   r8, xmm23
        vpextrq r9, xmm23, 1
        vextracti32x4 xmm24, ymm23, 1
        vmovq   r10, xmm24
        vpextrq r11, xmm24, 1
        mov     r12, [rdi + G_DST]
        mov     r13, [rdi + G_DST + 8]
        mov     r14, [rdi + G_DST + 16]
        mov     r15, [rdi + G_DST + 24]
        mov     edx, [rsp + F_TEXT]             ; only text lanes store
%assign _l 0
%rep 4
%assign _kk 4 + _l
        bt      edx, _l
        sbb     eax, eax
        kmovw   k %+ _kk, eax
%assign _l _l + 1
%endrep
        cmp     dword [rsp + F_TEXT], 0
        je      .bulk_aad
        ; text lanes present: software-pipelined CTR + GHASH. Group i's AES runs with group
        ; i-1's GHASH stitched in (AES and CLMUL use different ports, and the previous group's
        ; blocks are ready), so the two overlap instead of taking turns.
        vpandq  zmm27, zmm25, [CTR_ADD + 64 * 8]
        cmp     rcx, 8
        jb      .first4
        ITER    8, 0
        sub     rcx, 8
.loop8:
        cmp     rcx, 8
        jb      .tail8
        ITER    8, 8
        sub     rcx, 8
        jmp     .loop8
.tail8:
        cmp     rcx, 4
        jb      .final8
        vpandq  zmm27, zmm25, [CTR_ADD + 64 * 4]
        ITER    4, 8
        sub     rcx, 4
        jmp     .final4
.final8:
        GHASH_K 8
        jmp     .bulk_done
.first4:
        vpandq  zmm27, zmm25, [CTR_ADD + 64 * 4]
        ITER    4, 0
        sub     rcx, 4
.final4:
        GHASH_K 4
        jmp     .bulk_done
        ; AAD-only step: no key stream, only GHASH of the loaded blocks
.bulk_aad:
        cmp     rcx, 8
        jb      .aad4
        LOAD_D  8
        ADVANCE_IN 128
        GHASH_K 8
        sub     rcx, 8
        jmp     .bulk_aad
.aad4:
        cmp     rcx, 4
        jb      .bulk_done
        LOAD_D  4
        ADVANCE_IN 64
        GHASH_K 4
        sub     rcx, 4
.bulk_done:
        mov     rax, [rsp + F_NB]
        sub     rax, rcx
        shl     rax, 4
        vpbroadcastq ymm30, rax
        ADVANCE
        jmp     .loop

        ; ---- K1: one block per lane, partial blocks masked ----
.k1:
        vpminuq ymm30, ymm28, [SIXTEEN_Q]       ; bytes each lane takes (idle: 0)
        BYTE_MASKS
        vmovdqu64 ymm23, [rdi + G_SRC]
        vpblendmq ymm23{k2}, ymm23, [rdi + G_AAD]
        vmovq   r8, xmm23
        vpextrq r9, xmm23, 1
        vextracti32x4 xmm24, ymm23, 1
        vmovq   r10, xmm24
        vpextrq r11, xmm24, 1
        GATHER_BLOCK
        ; the four masks side by side, restricted to text lanes: where key stream applies
        shl     rbx, 16
        shl     rcx, 32
        shl     rdx, 48
        or      rax, rbx
        or      rax, rcx
        or      rax, rdx
        mov     r8d, [rsp + F_TEXT]
        mov     r9, 0x0001000100010001
        pdep    r9, r8, r9
        imul    r9, r9, 0xFFFF                  ; 0xFFFF in each text lane's 16 bits
        and     rax, r9
        kmovq   k1, rax
        vpmovm2b zmm29, k1
        test    rax, rax
        jz      .k1_no_text                     ; AAD-only step: M = 0, key stream unused
        vpshufb zmm0, zmm17, zmm18
        AES_X4  1
.k1_no_text:
        vpternlogq zmm0, zmm8, zmm29, 0x6C      ; output (zero past each lane's bytes)
        vpternlogq zmm8, zmm0, zmm26, 0xD8      ; GHASH input
        mov     r8, rax                         ; store masks (AES_X4 may have reused k1)
        kmovw   k4, r8d
        shr     r8, 16
        kmovw   k5, r8d
        shr     r8, 16
        kmovw   k6, r8d
        shr     r8, 16
        kmovw   k7, r8d
        mov     r12, [rdi + G_DST]
        mov     r13, [rdi + G_DST + 8]
        mov     r14, [rdi + G_DST + 16]
        mov     r15, [rdi + G_DST + 24]
        vmovdqu8 [r12]{k4}, xmm0
        vextracti32x4 xmm28, zmm0, 1
        vmovdqu8 [r13]{k5}, xmm28
        vextracti32x4 xmm28, zmm0, 2
        vmovdqu8 [r14]{k6}, xmm28
        vextracti32x4 xmm28, zmm0, 3
        vmovdqu8 [r15]{k7}, xmm28
        GHASH_K 1
        vpandq  zmm27, zmm25, [CTR_ADD + 64]
        vpaddd  zmm17, zmm17, zmm27
        ADVANCE
        jmp     .loop

        ; ---- finish: length block, tag ----
.finish:
        kmovw   ebx, k3                         ; finished lanes
        vmovdqu64 zmm8, [rdi + G_LENBLK]
        vpshufb zmm8, zmm8, zmm18
        vpxorq  zmm8, zmm8, zmm16
        GH_FIRST zmm8, HP_ROW(1), HK_ROW(1)
        GH_REDUCE
        vpshufb zmm0, zmm22, zmm18
        vpxorq  zmm0, zmm0, [rdi + G_EK0]       ; T = E_K(J0) ^ S, per lane
        mov     eax, [rdi + G_DECRYPT]
        andn    r8d, eax, ebx                   ; encrypt lanes finishing
        and     eax, ebx                        ; decrypt lanes finishing
        mov     r9, 0x0001000100010001
        pdep    r10, r8, r9
        imul    r10, r10, 0xFFFF
        and     r10, [rdi + G_TAGMASK]          ; tag bytes to write, four lanes side by side
        kmovw   k4, r10d                        ; (lanes not finishing encrypt: mask 0)
        shr     r10, 16
        kmovw   k5, r10d
        shr     r10, 16
        kmovw   k6, r10d
        shr     r10, 16
        kmovw   k7, r10d
        mov     r12, [rdi + G_TAG]
        mov     r13, [rdi + G_TAG + 8]
        mov     r14, [rdi + G_TAG + 16]
        mov     r15, [rdi + G_TAG + 24]
        vmovdqu8 [r12]{k4}, xmm0
        vextracti32x4 xmm28, zmm0, 1
        vmovdqu8 [r13]{k5}, xmm28
        vextracti32x4 xmm28, zmm0, 2
        vmovdqu8 [r14]{k6}, xmm28
        vextracti32x4 xmm28, zmm0, 3
        vmovdqu8 [r15]{k7}, xmm28
        ; decrypt: all 64 bytes compared at once; a lane fails if a counted byte differs
        pdep    r10, rax, r9
        imul    r10, r10, 0xFFFF
        and     r10, [rdi + G_TAGMASK]          ; counted bytes of finishing decrypt lanes
        kmovq   k2, r10
        vpcmpeqb k1, zmm0, [rdi + G_ETAG]
        kandnq  k2, k1, k2                      ; counted bytes that differ
        vpmovm2b zmm28, k2
        vptestmq k3, zmm28, zmm28               ; qwords with a difference
        kmovw   r11d, k3
        mov     edx, r11d
        shr     edx, 1
        or      r11d, edx
        mov     edx, 0x55
        pext    r11d, r11d, edx                 ; lanes whose tag failed
        mov     edx, [rdi + G_AUTHFAIL]
        andn    edx, eax, edx
        or      edx, r11d
        mov     [rdi + G_AUTHFAIL], edx
        mov     eax, ebx

        ; ---- exit: write back S and counters, clear everything ----
        vmovdqu64 [rdi + G_S], zmm16
        vpshufb zmm17, zmm17, zmm18
        vmovdqu64 [rdi + G_CTR], zmm17
        mov     edx, [rdi + G_K10Q]                ; k10q | k12q << 16: were spills used?
        test    edx, edx
        jz      .clear
        vpxord  zmm31, zmm31, zmm31
%assign _l 0
%rep 16
        vmovdqa64 [rsp + 64 * _l], zmm31
%assign _l _l + 1
%endrep
.clear:
        CLEAR_VREGS zmm
        FRAME_LEAVE

section .note.GNU-stack noalloc noexec nowrite progbits
