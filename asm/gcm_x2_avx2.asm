; gcm_x2_avx2.asm — the four-lane AES-GCM lane kernel for the `avx2` arch, two lanes per ymm
; ("x2": two streams per instruction).
;
; A lane group (struct mbgcmi_group, mb/lanes.h) holds four jobs; its rows are 64 bytes
; [lane 0 | lane 1 | lane 2 | lane 3]. A 32-byte load at row + 32p is "pair p": lanes 2p and
; 2p+1, one per 128-bit half of a ymm. Every step runs the two pairs side by side, so one
; VAESENC ymm advances two different jobs with two different round keys and one VPCLMULQDQ ymm
; multiplies two different GHASH states by two different hash keys. The lanes are unrelated
; messages: each 128-bit lane is reduced on its own, never folded with its neighbour.
;
;     ymm j      = [ lane 1 block j | lane 0 block j ]      (pair 0, ymm0..3)
;     ymm 4+j    = [ lane 3 block j | lane 2 block j ]      (pair 1, ymm4..7)
;
; CPU: AVX2 + VAES + VPCLMULQDQ (+ AVX, AES-NI), OS AVX state (what mb/dispatch.c requires for
;      `avx2`; BMI is not used). No AVX-512: 16 vector registers, no opmasks, no byte-masked
;      loads or stores.
; ABI: System V AMD64.
;
; unsigned mbgcmi_lanes_avx2(struct mbgcmi_group *g);
;   The lane-kernel contract of mb/lanes.h, exactly as mb/lanes_generic.c implements it:
;   advance the busy lanes of g until at least one finishes; return the mask of finished lanes
;   (tags written for encrypt lanes, g->auth_fail set or cleared for decrypt lanes). Reads and
;   writes only g and the lanes' buffers: never a byte outside [aad, aad+aad_left),
;   [src, src+text_left), [dst, dst+text_left), tag[0..tag_len).
;
; Structure of one call
;   entry   counters (below), mixed-round masks, E_K(J0) for lanes whose init bit is set;
;           entering lanes with 0 < AAD <= 16 bytes hash it here (one block, bounced)
;   loop    phase analysis, scalar over the four lanes (asm/include/lane_phase.inc):
;             left = AAD bytes while the lane is in its AAD phase, else message bytes
;             a busy lane with left == 0       -> finish
;             a busy lane with 0 < left < 16   -> one-block step (K1) with byte masks
;             else n = min full blocks        -> bulk: 4 blocks per lane per iteration
;                                                (8 ymm = 16 blocks, eight AES chains), then 2, 1
;   finish  S ^= length block, S *= H, T = E_K(J0) ^ S; tag_len bytes copied out (encrypt) or
;           compared in constant time (decrypt); return.
;   Lanes in different phases share every step: an AAD lane hashes its input and writes its
;   (meaningless) output to a stack sink; a text lane encrypts or decrypts; an idle lane reads
;   a busy lane's data and writes to the sink.
;
; Partial blocks (no byte-masked loads/stores below AVX-512): the K1 step bounces each lane's
; 1..15 bytes through a 16-byte stack row (asm/include/bounce.inc: exact scalar copies), so no
; load or store touches a byte past any buffer; the key stream is masked to the taken bytes
; with a 16-byte window of a 0xFF/0x00 table, so the GHASH input is zero-padded.
;
; Bulk stitching: the GHASH of group i-1 (saved to the stack as it is produced: the output for
; encrypting lanes, the input otherwise: D ^ (key stream & ENC) per lane) runs between the AES
; rounds of group i: CLMUL and AES use different ports. A group of K blocks per lane is hashed
; as (S ^ X0) H^K ^ X1 H^(K-1) ^ ... with the lane's rows of powers, Karatsuba, one reduction
; per pair (asm/include/ghash_avx2.inc; math in mb/ghash_ct.c).
;
; Counters (issue 6's counter trick, per lane): at entry round key 0 is folded into the 96
; constant bits of each lane's counter block, ZK = (ctr with its counter word cleared) ^ rk0
; (per lane, on the stack, wiped). Per block only the 32-bit word is produced: C holds each
; lane's counter word byte-reflected (dword 0 of the lane = GCM's counter as an integer, the rest
; zero), so VPADDD is inc32 mod 2^32; one VPSHUFB moves the word to big-endian bytes 12..15
; (zeros elsewhere) and one VPXOR with ZK gives the block after round 0. Text lanes advance
; (C += TEXTM & K); AAD and idle lanes keep their counter. The row is written back at exit.
;
; Mixed key sizes: VAESENC has no lane mask, so every lane runs RMAX rounds (the manager's
; summary); a lane whose key ends at round 10 or 12 takes VAESENCLAST there into a parked copy
; (stack), merged back after the last round with VPBLENDVB under a lane mask built from the
; manager's qword masks k10q/k12q. Tag masks come from tag_len (public).
;
; Register plan
;   rdi      g                         rbp   frame pointer (rsp 32-byte aligned below it)
;   r8-r11   bulk: lane input pointers  r12-r15 bulk: lane output pointers (sink if not text)
;   rcx      bulk: blocks left in this step;  rbx: finished lanes (finish)
;   rax rdx rsi scratch
;   ymm0-3   pair 0 (lanes 0, 1) blocks 0..3: counter -> key stream -> output
;   ymm4-7   pair 1 (lanes 2, 3) blocks 0..3
;   ymm8     LO    ymm9 MI    ymm10 HI (GHASH sums; ymm8 also the data block in DATA)
;   ymm11    X     the pair being hashed     ymm12  GHASH scratch
;   ymm13    round key of the pair / scratch ymm14  park scratch, lane masks
;   ymm15    BSWAP byte reflection per 128-bit lane
; GHASH accumulators S live in g->s (read by a group's first block, written by its reduction).
; Every vector register is cleared (VZEROALL) and the stack areas that held key stream, data
; or key material are zeroed before returning.
default rel
%include "lane_state.inc"
%include "frame.inc"
%include "bounce.inc"
%include "ghash_avx2.inc"

section .rodata
align 32
YBSWAP:         times 2 db 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
YPOLY:          times 4 dq 0xC200000000000000       ; y^63 + y^62 + y^57 (mb/ghash_ct.c)
YCTRWORD:       times 2 dd 0xFFFFFFFF, 0, 0, 0      ; a lane's counter word, byte-reflected
LBITS:          dd 1, 1, 1, 1, 2, 2, 2, 2           ; lane bit of each dword: pair 0
                dd 4, 4, 4, 4, 8, 8, 8, 8           ; pair 1
QBITS:          dq 1, 2, 4, 8                       ; k10q/k12q bit of each qword: pair 0
                dq 16, 32, 64, 128                  ; pair 1
CADD:                                               ; row j: +j in each lane's counter word
%assign _cj 0
%rep 5
                times 2 dd _cj, 0, 0, 0
%assign _cj _cj + 1
%endrep
; 16 bytes 0xFF then 16 bytes 0: a 16-byte load at BMASK + 16 - n keeps n bytes
BMASK:          times 16 db 0xFF
                times 16 db 0

; stack frame (rsp 32-byte aligned); rows of four lanes are 64 bytes, pair p at +32p
%define F_PARK10 0              ; 8 x 32: VAESENCLAST at round 10 (10-round lanes)   [wiped]
%define F_PARK12 256            ; 8 x 32: at round 12 (12-round lanes)               [wiped]
%define F_GH    512             ; 8 x 32: GHASH input of the last group, block j pair p at
                                ;         64j + 32p (ciphertext or AAD: public)
%define F_ZK    768             ; row: (ctr with the counter word cleared) ^ rk0     [wiped]
%define F_DIN   832             ; row: K1 input blocks, zero-padded                  [wiped]
%define F_DOUT  896             ; row: K1 output blocks; tags at finish              [wiped]
%define F_SINK  960             ; 64: output of lanes not in their text phase        [wiped]
%define F_C     1024            ; row: counter words, byte-reflected
%define F_TEXTM 1088            ; row: all-ones in text lanes
%define F_ENCM  1152            ; row: all-ones in encrypting text lanes
%define F_M10   1216            ; row: all-ones in lanes ending at round 10 < RMAX
%define F_M12   1280            ; row: all-ones in lanes ending at round 12 < RMAX
%define F_BM    1344            ; row: K1 byte masks (take bytes of 0xFF)
%define F_IN    1408            ; 4 x 8
%define F_TM    1440            ; 4 x 8
%define F_TAKE  1472            ; 4 x 8
%define F_LEFT  1504            ; 4 x 8
%define F_ACT   1536            ; dword
%define F_AADL  1540            ; dword
%define F_TEXT  1544            ; dword
%define F_NB    1552            ; qword
%define FRAME   1600

%include "lane_phase.inc"

section .text

; LANEMASK n, r32, p: ymm n = all-ones in the lanes of pair p whose bit is set in r32
%macro LANEMASK 3
        vmovd   xmm %+ %1, %2
        vpbroadcastd ymm %+ %1, xmm %+ %1
        vpand   ymm %+ %1, ymm %+ %1, [LBITS + 32 * (%3)]
        vpcmpeqd ymm %+ %1, ymm %+ %1, [LBITS + 32 * (%3)]
%endmacro
; QMASK n, r64, p: the same from a qword mask (k10q/k12q: two bits per lane)
%macro QMASK 3
        vmovq   xmm %+ %1, %2
        vpbroadcastq ymm %+ %1, xmm %+ %1
        vpand   ymm %+ %1, ymm %+ %1, [QBITS + 32 * (%3)]
        vpcmpeqq ymm %+ %1, ymm %+ %1, [QBITS + 32 * (%3)]
%endmacro

; ---- GHASH of a group of G blocks per lane, from F_GH --------------------------------------
; LGH_STEP s, G: step s of 2(G+1): pair p = s / (G+1); j = s mod (G+1) < G hashes block j of
; the pair with H^(G-j) (block 0 also takes S in), j = G reduces the pair into g->s.
%macro LGH_STEP 2
%assign _p (%1) / ((%2) + 1)
%assign _q (%1) % ((%2) + 1)
%if _q < (%2)
        vmovdqa ymm11, [rsp + F_GH + 64 * _q + 32 * _p]
        vpshufb ymm11, ymm11, ymm15
 %if _q == 0
        vpxor   ymm11, ymm11, [rdi + G_S + 32 * _p]
        GHY_FIRST y, ymm11, [rdi + G_HP + 64 * ((%2) - 1) + 32 * _p], [rdi + G_HK + 64 * ((%2) - 1) + 32 * _p]
 %else
        GHY_NEXT y, ymm11, [rdi + G_HP + 64 * ((%2) - 1 - _q) + 32 * _p], [rdi + G_HK + 64 * ((%2) - 1 - _q) + 32 * _p]
 %endif
%else
        GHY_REDUCE_LANES
        vmovdqu [rdi + G_S + 32 * _p], ymm10
%endif
%endmacro
%macro GH_GROUP_L 1
%assign _s 0
%rep 2 * ((%1) + 1)
        LGH_STEP _s, %1
%assign _s _s + 1
%endrep
%endmacro
; GH_AT r, G: the steps stitched after AES round r (1..9): one per round, the rest after 9
%macro GH_AT 2
%if (%1) < 9
 %if (%1) - 1 < 2 * ((%2) + 1)
        LGH_STEP (%1) - 1, %2
 %endif
%else
 %assign _t 8
 %rep 2
  %if _t < 2 * ((%2) + 1)
        LGH_STEP _t, %2
  %endif
  %assign _t _t + 1
 %endrep
%endif
%endmacro

; ---- AES over K blocks per lane (ymm0..K-1, ymm4..4+K-1) ------------------------------------
%macro AES_RND2 3               ; K, round, instruction
        vmovdqu ymm13, [rdi + G_RK + 64 * (%2)]
%assign _j 0
%rep %1
        %3      ymm %+ _j, ymm %+ _j, ymm13
%assign _j _j + 1
%endrep
        vmovdqu ymm13, [rdi + G_RK + 64 * (%2) + 32]
%assign _j 4
%rep %1
        %3      ymm %+ _j, ymm %+ _j, ymm13
%assign _j _j + 1
%endrep
%endmacro
%macro PARK2 3                  ; K, round, area: VAESENCLAST at this round, parked
        vmovdqu ymm13, [rdi + G_RK + 64 * (%2)]
%assign _j 0
%rep %1
        vaesenclast ymm14, ymm %+ _j, ymm13
        vmovdqa [rsp + (%3) + 32 * _j], ymm14
%assign _j _j + 1
%endrep
        vmovdqu ymm13, [rdi + G_RK + 64 * (%2) + 32]
%assign _j 4
%rep %1
        vaesenclast ymm14, ymm %+ _j, ymm13
        vmovdqa [rsp + (%3) + 32 * _j], ymm14
%assign _j _j + 1
%endrep
%endmacro
%macro MERGE2 3                 ; K, area, mask row: parked results of the masked lanes
        vmovdqa ymm14, [rsp + (%3)]
%assign _j 0
%rep %1
        vpblendvb ymm %+ _j, ymm %+ _j, [rsp + (%2) + 32 * _j], ymm14
%assign _j _j + 1
%endrep
        vmovdqa ymm14, [rsp + (%3) + 32]
%assign _j 4
%rep %1
        vpblendvb ymm %+ _j, ymm %+ _j, [rsp + (%2) + 32 * _j], ymm14
%assign _j _j + 1
%endrep
%endmacro
; AES_X2 K, G: rounds 1..RMAX of the K blocks per lane (round 0 is in the counter blocks), with
; the GHASH of a G-block group from F_GH stitched after rounds 1..9 (G = 0: none). RMAX and
; the masks are public (key sizes).
%macro AES_X2 2
%assign _r 1
%rep 9
        AES_RND2 %1, _r, vaesenc
%if (%2) > 0
        GH_AT   _r, %2
%endif
%assign _r _r + 1
%endrep
        cmp     dword [rdi + G_RMAX], 10
        je      %%last10
        cmp     word [rdi + G_K10Q], 0
        je      %%r10
        PARK2   %1, 10, F_PARK10
%%r10:
        AES_RND2 %1, 10, vaesenc
        AES_RND2 %1, 11, vaesenc
        cmp     dword [rdi + G_RMAX], 12
        je      %%last12
        cmp     word [rdi + G_K12Q], 0
        je      %%r12
        PARK2   %1, 12, F_PARK12
%%r12:
        AES_RND2 %1, 12, vaesenc
        AES_RND2 %1, 13, vaesenc
        AES_RND2 %1, 14, vaesenclast
        cmp     word [rdi + G_K12Q], 0
        je      %%m10
        MERGE2  %1, F_PARK12, F_M12
        jmp     %%m10
%%last12:
        AES_RND2 %1, 12, vaesenclast
%%m10:
        cmp     word [rdi + G_K10Q], 0
        je      %%done
        MERGE2  %1, F_PARK10, F_M10
        jmp     %%done
%%last10:
        AES_RND2 %1, 10, vaesenclast
%%done:
%endmacro

; ---- bulk pieces -----------------------------------------------------------------------------
; CTR_GEN K: blocks 0..K-1 of every lane after round 0; text lanes' counters += K
%macro CTR_GEN 1
%assign _p 0
%rep 2
%assign _j 0
%rep %1
%assign _b 4 * _p + _j
        vmovdqa ymm %+ _b, [rsp + F_C + 32 * _p]
%if _j > 0
        vpaddd  ymm %+ _b, ymm %+ _b, [CADD + 32 * _j]
%endif
        vpshufb ymm %+ _b, ymm %+ _b, ymm15
        vpxor   ymm %+ _b, ymm %+ _b, [rsp + F_ZK + 32 * _p]
%assign _j _j + 1
%endrep
        vmovdqa ymm13, [rsp + F_TEXTM + 32 * _p]
        vpand   ymm13, ymm13, [CADD + 32 * (%1)]
        vpaddd  ymm13, ymm13, [rsp + F_C + 32 * _p]
        vmovdqa [rsp + F_C + 32 * _p], ymm13
%assign _p _p + 1
%endrep
%endmacro
; DATA K: output = input ^ key stream to each lane's output pointer; the GHASH input
; (encrypting lanes: the output; others: the input) saved to F_GH. Pointers advance.
%macro DATA_PAIR 6              ; K, p, in lo, in hi, out lo, out hi
        vmovdqa ymm14, [rsp + F_ENCM + 32 * (%2)]
%assign _j 0
%rep %1
%assign _b 4 * (%2) + _j
        vmovdqu xmm8, [%3 + 16 * _j]
        vinserti128 ymm8, ymm8, [%4 + 16 * _j], 1
        vpand   ymm13, ymm14, ymm %+ _b                 ; key stream of encrypting lanes
        vpxor   ymm %+ _b, ymm %+ _b, ymm8              ; output
        vmovdqu [%5 + 16 * _j], xmm %+ _b
        vextracti128 [%6 + 16 * _j], ymm %+ _b, 1
        vpxor   ymm8, ymm8, ymm13                       ; GHASH input: ENC ? output : input
        vmovdqa [rsp + F_GH + 64 * _j + 32 * (%2)], ymm8
%assign _j _j + 1
%endrep
%endmacro
%macro ADV_PTRS 1               ; inputs by 16K, outputs of text lanes by 16K
        add     r8, 16 * (%1)
        add     r9, 16 * (%1)
        add     r10, 16 * (%1)
        add     r11, 16 * (%1)
        mov     eax, 16 * (%1)
        and     rax, [rsp + F_TM]
        add     r12, rax
        mov     eax, 16 * (%1)
        and     rax, [rsp + F_TM + 8]
        add     r13, rax
        mov     eax, 16 * (%1)
        and     rax, [rsp + F_TM + 16]
        add     r14, rax
        mov     eax, 16 * (%1)
        and     rax, [rsp + F_TM + 24]
        add     r15, rax
%endmacro
%macro DATA 1
        DATA_PAIR %1, 0, r8, r9, r12, r13
        DATA_PAIR %1, 1, r10, r11, r14, r15
        ADV_PTRS %1
%endmacro
; LOAD_GH K: AAD-only step: the input blocks straight to F_GH
%macro LOAD_GH_PAIR 4           ; K, p, in lo, in hi
%assign _j 0
%rep %1
        vmovdqu xmm8, [%3 + 16 * _j]
        vinserti128 ymm8, ymm8, [%4 + 16 * _j], 1
        vmovdqa [rsp + F_GH + 64 * _j + 32 * (%2)], ymm8
%assign _j _j + 1
%endrep
%endmacro
%macro LOAD_GH 1
        LOAD_GH_PAIR %1, 0, r8, r9
        LOAD_GH_PAIR %1, 1, r10, r11
        add     r8, 16 * (%1)
        add     r9, 16 * (%1)
        add     r10, 16 * (%1)
        add     r11, 16 * (%1)
%endmacro
; ITER K, G: one software-pipelined group: counters, AES with the previous group's GHASH
; (G blocks per lane) stitched in, then this group's data
%macro ITER 2
        CTR_GEN %1
        AES_X2  %1, %2
        DATA    %1
        sub     rcx, %1
%endmacro

; ---- K1: one block per lane, partial blocks bounced ------------------------------------------
; K1_LANE_IN i: lane i's taken bytes into row F_DIN (zeroed before), its byte mask into F_BM
%macro K1_LANE_IN 1
        K1_TAKE %1
        test    rax, rax
        jz      %%mask
        LANE_IN %1, rsi
        lea     rdx, [rsp + F_DIN + 16 * (%1)]
        cmp     rax, 16
        jb      %%part
        vmovdqu xmm8, [rsi]
        vmovdqa [rdx], xmm8
        jmp     %%mask
%%part:
        COPY_N  rdx, rsi, rax, r8, r9, r10
%%mask:
        lea     rdx, [BMASK + 16]
        sub     rdx, rax
        vmovdqu xmm8, [rdx]
        vmovdqa [rsp + F_BM + 16 * (%1)], xmm8
%endmacro
; K1_LANE_OUT i: copy a text lane's taken output bytes from F_DOUT to dst
%macro K1_LANE_OUT 1
        test    dword [rsp + F_TEXT], 1 << (%1)
        jz      %%done
        mov     rax, [rsp + F_TAKE + 8 * (%1)]
        mov     rsi, [rdi + G_DST + 8 * (%1)]
        lea     rdx, [rsp + F_DOUT + 16 * (%1)]
        cmp     rax, 16
        jb      %%part
        vmovdqa xmm8, [rdx]
        vmovdqu [rsi], xmm8
        jmp     %%done
%%part:
        COPY_N  rsi, rdx, rax, r8, r9, r10
%%done:
%endmacro

; ---- finish ------------------------------------------------------------------------------------
; TAG_OUT i: encrypt lane i finishing (ebx): tag_len bytes of its T (F_DOUT) to its tag pointer
%macro TAG_OUT 1
        test    edx, 1 << (%1)
        jz      %%done
        mov     eax, [rdi + G_TAGLEN + 4 * (%1)]
        mov     rsi, [rdi + G_TAG + 8 * (%1)]
        lea     rcx, [rsp + F_DOUT + 16 * (%1)]
        COPY_N  rsi, rcx, rax, r8, r9, r10
%%done:
%endmacro
; TAG_MASK i: F_BM row of lane i = tag_len bytes of 0xFF
%macro TAG_MASK 1
        mov     eax, [rdi + G_TAGLEN + 4 * (%1)]
        lea     rdx, [BMASK + 16]
        sub     rdx, rax
        vmovdqu xmm8, [rdx]
        vmovdqa [rsp + F_BM + 16 * (%1)], xmm8
%endmacro

; ---------------------------------------------------------------------------------------------
global mbgcmi_lanes_avx2:function hidden
mbgcmi_lanes_avx2:
        FRAME_ENTER FRAME, 32

        mov     eax, [rdi + G_ACTIVE]
        mov     [rsp + F_ACT], eax
        vbroadcasti128 ymm15, [YBSWAP]
        ; mixed-round lane masks (only read when k10q/k12q are nonzero)
        movzx   eax, word [rdi + G_K10Q]
        QMASK   14, rax, 0
        vmovdqa [rsp + F_M10], ymm14
        QMASK   14, rax, 1
        vmovdqa [rsp + F_M10 + 32], ymm14
        movzx   eax, word [rdi + G_K12Q]
        QMASK   14, rax, 0
        vmovdqa [rsp + F_M12], ymm14
        QMASK   14, rax, 1
        vmovdqa [rsp + F_M12 + 32], ymm14
        ; counters: C = counter words (byte-reflected), ZK = the other 96 bits ^ rk0
%assign _p 0
%rep 2
        vmovdqu ymm0, [rdi + G_CTR + 32 * _p]
        vpshufb ymm1, ymm0, ymm15
        vpand   ymm1, ymm1, [YCTRWORD]
        vmovdqa [rsp + F_C + 32 * _p], ymm1
        vpblendd ymm0, ymm0, [YCTRWORD], 0x88           ; counter word := 0
        vpxor   ymm0, ymm0, [rdi + G_RK + 32 * _p]
        vmovdqa [rsp + F_ZK + 32 * _p], ymm0
%assign _p _p + 1
%endrep

        ; ---- E_K(J0) for newly entered lanes ----
        mov     eax, [rdi + G_INIT]
        and     eax, [rsp + F_ACT]
        jz      .loop
        vmovdqu ymm0, [rdi + G_EK0]
        vpxor   ymm0, ymm0, [rdi + G_RK]
        vmovdqu ymm4, [rdi + G_EK0 + 32]
        vpxor   ymm4, ymm4, [rdi + G_RK + 32]
        AES_X2  1, 0
        mov     eax, [rdi + G_INIT]                     ; lanes entering now take E_K(J0),
        LANEMASK 14, eax, 0                             ; the others keep theirs
        vmovdqu ymm12, [rdi + G_EK0]
        vpblendvb ymm0, ymm12, ymm0, ymm14
        vmovdqu [rdi + G_EK0], ymm0
        LANEMASK 14, eax, 1
        vmovdqu ymm12, [rdi + G_EK0 + 32]
        vpblendvb ymm4, ymm12, ymm4, ymm14
        vmovdqu [rdi + G_EK0 + 32], ymm4
        ; entering lanes with 0 < AAD <= 16 bytes (IPsec, TLS) hash it now, next to E_K(J0)
        ; (independent work the core overlaps), and enter the loop in their text phase
        mov     esi, [rdi + G_INIT]
        and     esi, [rsp + F_ACT]
        mov     dword [rdi + G_INIT], 0
        vpxor   xmm0, xmm0, xmm0
        vmovdqa [rsp + F_DIN], ymm0
        vmovdqa [rsp + F_DIN + 32], ymm0
        xor     ebx, ebx
        AAD_INIT
        test    ebx, ebx
        jz      .loop
%assign _p 0
%rep 2
        vmovdqa ymm11, [rsp + F_DIN + 32 * _p]
        vpshufb ymm11, ymm11, ymm15
        vmovdqu ymm13, [rdi + G_S + 32 * _p]
        vpxor   ymm11, ymm11, ymm13
        GHY_FIRST y, ymm11, [rdi + G_HP + 32 * _p], [rdi + G_HK + 32 * _p]
        GHY_REDUCE_LANES
        LANEMASK 14, ebx, _p
        vpblendvb ymm10, ymm13, ymm10, ymm14            ; S of those lanes only
        vmovdqu [rdi + G_S + 32 * _p], ymm10
%assign _p _p + 1
%endrep

        ; ---- phase analysis ----
.loop:
        PHASE
        test    ebx, ebx
        jnz     .finish
        mov     [rsp + F_AADL], r9d
        mov     eax, [rsp + F_ACT]
        mov     edx, r9d
        not     edx
        and     edx, eax                                ; text lanes
        mov     [rsp + F_TEXT], edx
        mov     esi, [rdi + G_DECRYPT]
        not     esi
        and     esi, edx                                ; encrypting text lanes
        LANEMASK 14, edx, 0
        vmovdqa [rsp + F_TEXTM], ymm14
        LANEMASK 14, edx, 1
        vmovdqa [rsp + F_TEXTM + 32], ymm14
        LANEMASK 14, esi, 0
        vmovdqa [rsp + F_ENCM], ymm14
        LANEMASK 14, esi, 1
        vmovdqa [rsp + F_ENCM + 32], ymm14
        test    r10d, r10d
        jnz     .k1

        ; ---- bulk: n = rcx >= 1 full blocks in every busy lane ----
        mov     [rsp + F_NB], rcx
        mov     rax, rcx
        shl     rax, 4
        mov     [rsp + F_TAKE], rax
        mov     [rsp + F_TAKE + 8], rax
        mov     [rsp + F_TAKE + 16], rax
        mov     [rsp + F_TAKE + 24], rax
        BULK_PTRS r8, r9, r10, r11, r12, r13, r14, r15
        mov     rcx, [rsp + F_NB]
        cmp     dword [rsp + F_TEXT], 0
        je      .bulk_aad
        ; text lanes present: software-pipelined CTR + GHASH
        cmp     rcx, 4
        jb      .first2
        ITER    4, 0
.loop4:
        cmp     rcx, 4
        jb      .after4
        ITER    4, 4
        jmp     .loop4
.after4:
        cmp     rcx, 2
        jb      .after4_1
        ITER    2, 4
        test    rcx, rcx
        jz      .final2
        ITER    1, 2
        jmp     .final1
.after4_1:
        test    rcx, rcx
        jz      .final4
        ITER    1, 4
        jmp     .final1
.first2:
        cmp     rcx, 2
        jb      .first1
        ITER    2, 0
        test    rcx, rcx
        jz      .final2
        ITER    1, 2
        jmp     .final1
.first1:
        ITER    1, 0
.final1:
        GH_GROUP_L 1
        jmp     .bulk_done
.final2:
        GH_GROUP_L 2
        jmp     .bulk_done
.final4:
        GH_GROUP_L 4
        jmp     .bulk_done
        ; AAD-only step: no key stream, only GHASH
.bulk_aad:
        cmp     rcx, 4
        jb      .aad2
        LOAD_GH 4
        GH_GROUP_L 4
        sub     rcx, 4
        jmp     .bulk_aad
.aad2:
        cmp     rcx, 2
        jb      .aad1
        LOAD_GH 2
        GH_GROUP_L 2
        sub     rcx, 2
.aad1:
        test    rcx, rcx
        jz      .bulk_done
        LOAD_GH 1
        GH_GROUP_L 1
.bulk_done:
        ADVANCE
        jmp     .loop

        ; ---- K1: one block per lane, partial blocks bounced through F_DIN/F_DOUT ----
.k1:
        vpxor   xmm0, xmm0, xmm0
        vmovdqa [rsp + F_DIN], ymm0
        vmovdqa [rsp + F_DIN + 32], ymm0
        K1_LANE_IN 0
        K1_LANE_IN 1
        K1_LANE_IN 2
        K1_LANE_IN 3
        cmp     dword [rsp + F_TEXT], 0
        je      .k1_aad
        CTR_GEN 1
        AES_X2  1, 0
%assign _p 0
%rep 2
%assign _b 4 * _p
        vpand   ymm %+ _b, ymm %+ _b, [rsp + F_BM + 32 * _p]     ; key stream on taken bytes
        vmovdqa ymm8, [rsp + F_DIN + 32 * _p]
        vpxor   ymm %+ _b, ymm %+ _b, ymm8                       ; output, zero-padded
        vmovdqa [rsp + F_DOUT + 32 * _p], ymm %+ _b
        vmovdqa ymm14, [rsp + F_ENCM + 32 * _p]
        vpblendvb ymm8, ymm8, ymm %+ _b, ymm14                   ; GHASH input
        vmovdqa [rsp + F_GH + 32 * _p], ymm8
%assign _p _p + 1
%endrep
        K1_LANE_OUT 0
        K1_LANE_OUT 1
        K1_LANE_OUT 2
        K1_LANE_OUT 3
        jmp     .k1_hash
.k1_aad:
        vmovdqa ymm8, [rsp + F_DIN]
        vmovdqa [rsp + F_GH], ymm8
        vmovdqa ymm8, [rsp + F_DIN + 32]
        vmovdqa [rsp + F_GH + 32], ymm8
.k1_hash:
        GH_GROUP_L 1
        ADVANCE
        jmp     .loop

        ; ---- finish: length block, tag ----
.finish:
        TAG_MASK 0
        TAG_MASK 1
        TAG_MASK 2
        TAG_MASK 3
        vpxor   xmm13, xmm13, xmm13
        xor     esi, esi                                ; lanes whose tag differs
%assign _p 0
%rep 2
        vmovdqu ymm11, [rdi + G_LENBLK + 32 * _p]
        vpshufb ymm11, ymm11, ymm15
        vpxor   ymm11, ymm11, [rdi + G_S + 32 * _p]
        GHY_FIRST y, ymm11, [rdi + G_HP + 32 * _p], [rdi + G_HK + 32 * _p]
        GHY_REDUCE_LANES
        vpshufb ymm10, ymm10, ymm15
        vpxor   ymm10, ymm10, [rdi + G_EK0 + 32 * _p]  ; T = E_K(J0) ^ S, per lane
        vmovdqa [rsp + F_DOUT + 32 * _p], ymm10
        vpxor   ymm10, ymm10, [rdi + G_ETAG + 32 * _p]
        vpand   ymm10, ymm10, [rsp + F_BM + 32 * _p]    ; the tag_len bytes that count
        vpcmpeqb ymm10, ymm10, ymm13
        vpmovmskb eax, ymm10                            ; 16 bits per lane: byte equal
        not     eax
        mov     edx, eax
        and     eax, 0xFFFF
        shr     edx, 16
        add     eax, 0xFFFF                             ; bit 16 set iff a counted byte differs
        add     edx, 0xFFFF
        shr     eax, 16
        shr     edx, 16
        shl     edx, 1
        or      eax, edx
        shl     eax, 2 * _p
        or      esi, eax
%assign _p _p + 1
%endrep
        mov     eax, [rdi + G_DECRYPT]
        and     eax, ebx                                ; finishing decrypt lanes
        and     esi, eax
        mov     edx, [rdi + G_AUTHFAIL]
        not     eax
        and     edx, eax
        or      edx, esi
        mov     [rdi + G_AUTHFAIL], edx
        mov     edx, [rdi + G_DECRYPT]
        not     edx
        and     edx, ebx                                ; finishing encrypt lanes
        TAG_OUT 0
        TAG_OUT 1
        TAG_OUT 2
        TAG_OUT 3

        ; ---- exit: counters back, clear everything ----
%assign _p 0
%rep 2
        vmovdqa ymm0, [rsp + F_C + 32 * _p]
        vpshufb ymm0, ymm0, ymm15
        vpblendd ymm0, ymm0, [rdi + G_CTR + 32 * _p], 0x77 ; bytes 0..11 as they were
        vmovdqu [rdi + G_CTR + 32 * _p], ymm0
%assign _p _p + 1
%endrep
        vpxor   xmm0, xmm0, xmm0
%assign _w 0
%rep 8
        vmovdqa [rsp + F_ZK + 32 * _w], ymm0            ; ZK, DIN, DOUT, SINK
%assign _w _w + 1
%endrep
        mov     eax, [rdi + G_K10Q]                     ; k10q | k12q << 16: parks used?
        test    eax, eax
        jz      .clear
%assign _w 0
%rep 16
        vmovdqa [rsp + 32 * _w], ymm0
%assign _w _w + 1
%endrep
.clear:
%assign _z0 0
%rep 16
        vpxor   ymm %+ _z0, ymm %+ _z0, ymm %+ _z0   ; zero idioms: no execution
%assign _z0 _z0 + 1
%endrep
        vzeroupper
        mov     eax, ebx
        FRAME_LEAVE

section .note.GNU-stack noalloc noexec nowrite progbits
