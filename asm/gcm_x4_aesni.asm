; gcm_x4_aesni.asm — the four-lane AES-GCM lane kernel for the `aesni` arch: four jobs as four
; independent xmm streams, interleaved.
;
; A lane group (struct mbgcmi_group, mb/lanes.h) holds four jobs; its rows are 64 bytes
; [lane 0 | lane 1 | lane 2 | lane 3], so lane i's round key r, hash-key power H^k, counter,
; GHASH state, ... are the aligned 16 bytes at row + 16i: every AES round and every GHASH
; multiply takes its lane's operand straight from the row (no gathers, no index registers).
; Each step advances all four lanes by K blocks (K = 2: eight independent AES chains in flight;
; AESENC xmm issues twice per cycle with latency 3 here, so six chains keep it busy):
;
;     xmm(i + 4j) = block j of lane i         (xmm0..3 block 0 of lanes 0..3, xmm4..7 block 1)
;
; The lanes are unrelated messages: each lane's GHASH is reduced on its own; there is no fold.
;
; CPU: AES-NI, PCLMULQDQ, SSSE3, SSE4.1 (what mb/dispatch.c requires for `aesni`). Legacy SSE
;      encoding (AVX is not guaranteed), aligned memory operands; no BMI.
; ABI: System V AMD64.
;
; unsigned mbgcmi_lanes_aesni(struct mbgcmi_group *g);
;   The lane-kernel contract of mb/lanes.h, exactly as mb/lanes_generic.c implements it:
;   advance the busy lanes of g until at least one finishes; return the mask of finished lanes
;   (tags written for encrypt lanes, g->auth_fail set or cleared for decrypt lanes). Reads and
;   writes only g and the lanes' buffers: never a byte outside [aad, aad+aad_left),
;   [src, src+text_left), [dst, dst+text_left), tag[0..tag_len).
;
; Structure of one call (the same as asm/gcm_x2_avx2.asm; scalar parts shared through
; asm/include/lane_phase.inc)
;   entry   counters (below), E_K(J0) for lanes whose init bit is set; entering lanes
;           with 0 < AAD <= 16 bytes hash it here (one block, bounced)
;   loop    phase analysis over the four lanes:
;             a busy lane with nothing left            -> finish
;             a busy lane with a partial block (< 16)  -> one-block step (K1), bounced
;             else n = min full blocks                 -> bulk: 2 blocks per lane per
;                                                         iteration (8 in flight), then 1
;   finish  S ^= length block, S *= H, T = E_K(J0) ^ S; tag_len bytes copied out (encrypt) or
;           compared in constant time (decrypt); return.
;   Lanes in different phases share every step: an AAD lane hashes its input and writes its
;   meaningless output to a stack sink; an idle lane reads a busy lane's data, writes the sink.
;
; Partial blocks: bounced through 16-byte stack rows (asm/include/bounce.inc: exact scalar
; copies of the taken bytes), so no access touches a byte past any buffer; the key stream is
; masked to the taken bytes so the GHASH input is zero-padded.
;
; Bulk stitching: the GHASH of group i-1 (saved to the stack as produced: the output for
; encrypting lanes, the input otherwise, selected per lane as D ^ (key stream & ENC)) runs
; between the AES rounds of group i (AESENC and PCLMULQDQ use different ports). Per lane a
; group of K blocks is hashed as (S ^ X0) H^K ^ ... ^ X(K-1) H with the lane's rows of powers,
; Karatsuba, one reduction (asm/include/ghash_sse.inc; math in mb/ghash_ct.c).
;
; Counters (issue 6's counter trick, per lane): at entry round key 0 is folded into each lane's
; 96 constant counter bits, ZK_i = (ctr_i with its counter word cleared) ^ rk0_i (stack rows,
; wiped). Per block only the counter word is produced: C_i holds lane i's word byte-reflected
; (dword 0 = GCM's counter as an integer, the rest zero), PADDD is inc32 mod 2^32, PSHUFB moves
; the word to big-endian bytes 12..15, PXOR with ZK_i gives the block after round 0. Text lanes
; advance (C_i += K & TEXT_i); the rows are written back at exit.
;
; Mixed key sizes: every lane runs RMAX rounds (the manager's summary); a lane whose key ends
; at round 10 or 12 (k10q/k12q) also takes AESENCLAST there into a parked copy, and its blocks
; are replaced by the parked copies after the last round. Lanes are separate registers, so the
; choice is a branch per lane on its (public) key size, no blend.
;
; Register plan
;   rdi      g                         rbp   frame pointer (rsp 16-byte aligned below it)
;   r8-r11   bulk: lane input pointers  r12-r15 bulk: lane output pointers (sink if not text)
;   rcx      bulk: blocks left in this step;  rbx: finished lanes (finish)
;   rax rdx rsi scratch
;   xmm0-7   B(i, j) = xmm(i + 4j): counter -> key stream -> output
;   xmm8 LO  xmm9 MI  xmm10 HI  xmm11 X  xmm12 T   (GHASH, asm/include/ghash_sse.inc)
;   xmm13    data block / scratch      xmm15  park scratch, masks      xmm14 unused
; GHASH accumulators S live in g->s (read by a group's first block, written by its reduction).
; Every xmm register is cleared and the stack areas that held key stream, data or key
; material are zeroed before returning.
default rel
%include "lane_state.inc"
%include "frame.inc"
%include "bounce.inc"
%include "ghash_sse.inc"

section .rodata
align 16
BSWAP_MASK:     db 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
POLY_C2:        dq 0xC200000000000000, 0xC200000000000000  ; y^63 + y^62 + y^57 (mb/ghash_ct.c)
CTRWORD:        dd 0xFFFFFFFF, 0, 0, 0                     ; the counter word, byte-reflected
NOCTR:          dd 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0   ; byte order: all but the counter word
LBIT:                                                      ; lane i: its bit in every dword
%assign _l 0
%rep 4
                times 4 dd 1 << _l
%assign _l _l + 1
%endrep
CADD:                                                      ; row j: +j in the counter word
%assign _cj 0
%rep 3
                dd _cj, 0, 0, 0
%assign _cj _cj + 1
%endrep
; 16 bytes 0xFF then 16 bytes 0: a 16-byte load at BMASK + 16 - n keeps n bytes
BMASK:          times 16 db 0xFF
                times 16 db 0

; stack frame (rsp 16-byte aligned); rows of four lanes are 64 bytes, lane i at +16i
%define F_PARK10 0              ; 8 x 16: AESENCLAST at round 10 (10-round lanes)   [wiped]
%define F_PARK12 128            ; 8 x 16: at round 12                               [wiped]
%define F_GH    256             ; 8 x 16: GHASH input of the last group, lane i block j at
                                ;         16(i + 4j) (ciphertext or AAD: public)
%define F_ZK    384             ; row: (ctr with the counter word cleared) ^ rk0    [wiped]
%define F_DIN   448             ; row: K1 input blocks, zero-padded                 [wiped]
%define F_DOUT  512             ; row: K1 output blocks; tags at finish             [wiped]
%define F_SINK  576             ; 64: output of lanes not in their text phase       [wiped]
%define F_C     640             ; row: counter words, byte-reflected
%define F_INC1  704             ; row: +1 in text lanes' counter words
%define F_INC2  768             ; row: +2 in text lanes' counter words
%define F_ENCM  832             ; row: all-ones in encrypting text lanes
%define F_BM    896             ; row: K1 byte masks (taken bytes), tag masks at finish
%define F_IN    960             ; 4 x 8
%define F_TM    992             ; 4 x 8
%define F_TAKE  1024            ; 4 x 8
%define F_LEFT  1056            ; 4 x 8
%define F_ACT   1088            ; dword
%define F_AADL  1092            ; dword
%define F_TEXT  1096            ; dword
%define F_NB    1104            ; qword
%define FRAME   1152

%include "lane_phase.inc"

section .text

; ROWMASK row, r32: row = all-ones in the lanes whose bit is set in r32 (xmm15, xmm13 scratch)
%macro ROWMASK 2
        movd    xmm15, %2
        pshufd  xmm15, xmm15, 0
%assign _l 0
%rep 4
        movdqa  xmm13, xmm15
        pand    xmm13, [LBIT + 16 * _l]
        pcmpeqd xmm13, [LBIT + 16 * _l]
        movdqa  [rsp + (%1) + 16 * _l], xmm13
%assign _l _l + 1
%endrep
%endmacro

; ---- GHASH of a group of G blocks per lane, from F_GH -----------------------------------------
; LGH_STEP s, G: step s of 4(G+1): lane l = s / (G+1); q = s mod (G+1) < G hashes block q of
; the lane with H^(G-q) (block 0 takes S in); q = G reduces the lane into g->s.
%macro LGH_STEP 2
%assign _l (%1) / ((%2) + 1)
%assign _q (%1) % ((%2) + 1)
%if _q < (%2)
        movdqa  xmm11, [rsp + F_GH + 16 * (_l + 4 * _q)]
        pshufb  xmm11, [BSWAP_MASK]
 %if _q == 0
        pxor    xmm11, [rdi + G_S + 16 * _l]
        GHX_FIRST [rdi + G_HP + 64 * ((%2) - 1) + 16 * _l], [rdi + G_HK + 64 * ((%2) - 1) + 16 * _l]
 %else
        GHX_NEXT [rdi + G_HP + 64 * ((%2) - 1 - _q) + 16 * _l], [rdi + G_HK + 64 * ((%2) - 1 - _q) + 16 * _l]
 %endif
%else
        GHX_REDUCE
        movdqa  [rdi + G_S + 16 * _l], xmm10
%endif
%endmacro
%macro GH_GROUP_L 1
%assign _s 0
%rep 4 * ((%1) + 1)
        LGH_STEP _s, %1
%assign _s _s + 1
%endrep
%endmacro
; GH_AT r, G: the steps stitched after AES round r (1..9), spread evenly over the nine rounds
%macro GH_AT 2
%assign _t ((%1) - 1) * 4 * ((%2) + 1) / 9
%rep 4
 %if _t < (%1) * 4 * ((%2) + 1) / 9
        LGH_STEP _t, %2
 %endif
 %assign _t _t + 1
%endrep
%endmacro

; ---- AES over K blocks per lane --------------------------------------------------------------
%macro AES_RND4 3               ; K, round, instruction
%assign _j 0
%rep %1
%assign _l 0
%rep 4
%assign _b _l + 4 * _j
        %3      xmm %+ _b, [rdi + G_RK + 64 * (%2) + 16 * _l]
%assign _l _l + 1
%endrep
%assign _j _j + 1
%endrep
%endmacro
; PARK4 K, round, area, qmask: lanes whose key ends at this round keep AESENCLAST copies
%macro PARK_LANE 5              ; K, round, area, qmask, lane
        test    word [rdi + (%4)], 3 << (2 * (%5))
        jz      %%skip
%assign _j 0
%rep %1
%assign _b (%5) + 4 * _j
        movdqa  xmm15, xmm %+ _b
        aesenclast xmm15, [rdi + G_RK + 64 * (%2) + 16 * (%5)]
        movdqa  [rsp + (%3) + 16 * _b], xmm15
%assign _j _j + 1
%endrep
%%skip:
%endmacro
%macro PARK4 4
        PARK_LANE %1, %2, %3, %4, 0
        PARK_LANE %1, %2, %3, %4, 1
        PARK_LANE %1, %2, %3, %4, 2
        PARK_LANE %1, %2, %3, %4, 3
%endmacro
%macro MERGE_LANE 4             ; K, area, qmask, lane
        test    word [rdi + (%3)], 3 << (2 * (%4))
        jz      %%skip
%assign _j 0
%rep %1
%assign _b (%4) + 4 * _j
        movdqa  xmm %+ _b, [rsp + (%2) + 16 * _b]
%assign _j _j + 1
%endrep
%%skip:
%endmacro
%macro MERGE4 3
        MERGE_LANE %1, %2, %3, 0
        MERGE_LANE %1, %2, %3, 1
        MERGE_LANE %1, %2, %3, 2
        MERGE_LANE %1, %2, %3, 3
%endmacro
; AES_X4 K, G: rounds 1..RMAX of the K blocks per lane (round 0 is in the counter blocks), with
; the GHASH of a G-block group from F_GH stitched after rounds 1..9 (G = 0: none)
%macro AES_X4 2
%assign _r 1
%rep 9
        AES_RND4 %1, _r, aesenc
%if (%2) > 0
        GH_AT   _r, %2
%endif
%assign _r _r + 1
%endrep
        cmp     dword [rdi + G_RMAX], 10
        je      %%last10
        cmp     word [rdi + G_K10Q], 0
        je      %%r10
        PARK4   %1, 10, F_PARK10, G_K10Q
%%r10:
        AES_RND4 %1, 10, aesenc
        AES_RND4 %1, 11, aesenc
        cmp     dword [rdi + G_RMAX], 12
        je      %%last12
        cmp     word [rdi + G_K12Q], 0
        je      %%r12
        PARK4   %1, 12, F_PARK12, G_K12Q
%%r12:
        AES_RND4 %1, 12, aesenc
        AES_RND4 %1, 13, aesenc
        AES_RND4 %1, 14, aesenclast
        cmp     word [rdi + G_K12Q], 0
        je      %%m10
        MERGE4  %1, F_PARK12, G_K12Q
        jmp     %%m10
%%last12:
        AES_RND4 %1, 12, aesenclast
%%m10:
        cmp     word [rdi + G_K10Q], 0
        je      %%done
        MERGE4  %1, F_PARK10, G_K10Q
        jmp     %%done
%%last10:
        AES_RND4 %1, 10, aesenclast
%%done:
%endmacro

; ---- bulk pieces -----------------------------------------------------------------------------
; CTR_GEN K: blocks 0..K-1 of every lane after round 0; text lanes' counters += K
%macro CTR_GEN 1
%assign _l 0
%rep 4
%assign _j 0
%rep %1
%assign _b _l + 4 * _j
        movdqa  xmm %+ _b, [rsp + F_C + 16 * _l]
%if _j > 0
        paddd   xmm %+ _b, [CADD + 16 * _j]
%endif
        pshufb  xmm %+ _b, [BSWAP_MASK]
        pxor    xmm %+ _b, [rsp + F_ZK + 16 * _l]
%assign _j _j + 1
%endrep
        movdqa  xmm13, [rsp + F_C + 16 * _l]
%if (%1) == 1
        paddd   xmm13, [rsp + F_INC1 + 16 * _l]
%else
        paddd   xmm13, [rsp + F_INC2 + 16 * _l]
%endif
        movdqa  [rsp + F_C + 16 * _l], xmm13
%assign _l _l + 1
%endrep
%endmacro
; DATA K: output = input ^ key stream to each lane's output pointer; the GHASH input
; D ^ (key stream & ENC) (the output for encrypting lanes, the input otherwise) to F_GH
%macro DATA_LANE 4              ; K, lane, in, out
%assign _j 0
%rep %1
%assign _b (%2) + 4 * _j
        movdqu  xmm13, [%3 + 16 * _j]
        movdqa  xmm12, [rsp + F_ENCM + 16 * (%2)]
        pand    xmm12, xmm %+ _b
        pxor    xmm %+ _b, xmm13
        movdqu  [%4 + 16 * _j], xmm %+ _b
        pxor    xmm13, xmm12
        movdqa  [rsp + F_GH + 16 * _b], xmm13
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
        DATA_LANE %1, 0, r8, r12
        DATA_LANE %1, 1, r9, r13
        DATA_LANE %1, 2, r10, r14
        DATA_LANE %1, 3, r11, r15
        ADV_PTRS %1
%endmacro
; LOAD_GH K: AAD-only step: the input blocks straight to F_GH
%macro LOAD_GH_LANE 3           ; K, lane, in
%assign _j 0
%rep %1
        movdqu  xmm13, [%3 + 16 * _j]
        movdqa  [rsp + F_GH + 16 * ((%2) + 4 * _j)], xmm13
%assign _j _j + 1
%endrep
%endmacro
%macro LOAD_GH 1
        LOAD_GH_LANE %1, 0, r8
        LOAD_GH_LANE %1, 1, r9
        LOAD_GH_LANE %1, 2, r10
        LOAD_GH_LANE %1, 3, r11
        add     r8, 16 * (%1)
        add     r9, 16 * (%1)
        add     r10, 16 * (%1)
        add     r11, 16 * (%1)
%endmacro
%macro ITER 2                   ; K, G
        CTR_GEN %1
        AES_X4  %1, %2
        DATA    %1
        sub     rcx, %1
%endmacro

; ---- K1: one block per lane, partial blocks bounced ------------------------------------------
%macro K1_LANE_IN 1
        K1_TAKE %1
        test    rax, rax
        jz      %%mask
        LANE_IN %1, rsi
        lea     rdx, [rsp + F_DIN + 16 * (%1)]
        cmp     rax, 16
        jb      %%part
        movdqu  xmm13, [rsi]
        movdqa  [rdx], xmm13
        jmp     %%mask
%%part:
        COPY_N  rdx, rsi, rax, r8, r9, r10
%%mask:
        lea     rdx, [BMASK + 16]
        sub     rdx, rax
        movdqu  xmm13, [rdx]
        movdqa  [rsp + F_BM + 16 * (%1)], xmm13
%endmacro
%macro K1_LANE_OUT 1
        test    dword [rsp + F_TEXT], 1 << (%1)
        jz      %%done
        mov     rax, [rsp + F_TAKE + 8 * (%1)]
        mov     rsi, [rdi + G_DST + 8 * (%1)]
        lea     rdx, [rsp + F_DOUT + 16 * (%1)]
        cmp     rax, 16
        jb      %%part
        movdqa  xmm13, [rdx]
        movdqu  [rsi], xmm13
        jmp     %%done
%%part:
        COPY_N  rsi, rdx, rax, r8, r9, r10
%%done:
%endmacro

; ---- finish ------------------------------------------------------------------------------------
%macro TAG_OUT 1
        test    edx, 1 << (%1)
        jz      %%done
        mov     eax, [rdi + G_TAGLEN + 4 * (%1)]
        mov     rsi, [rdi + G_TAG + 8 * (%1)]
        lea     rcx, [rsp + F_DOUT + 16 * (%1)]
        COPY_N  rsi, rcx, rax, r8, r9, r10
%%done:
%endmacro
%macro TAG_MASK 1
        mov     eax, [rdi + G_TAGLEN + 4 * (%1)]
        lea     rdx, [BMASK + 16]
        sub     rdx, rax
        movdqu  xmm13, [rdx]
        movdqa  [rsp + F_BM + 16 * (%1)], xmm13
%endmacro
; FIN_LANE l: T = E_K(J0) ^ (S ^ len) H for lane l into F_DOUT; esi |= (tag differs) << l
%macro FIN_LANE 1
        movdqa  xmm11, [rdi + G_LENBLK + 16 * (%1)]
        pshufb  xmm11, [BSWAP_MASK]
        pxor    xmm11, [rdi + G_S + 16 * (%1)]
        GHX_FIRST [rdi + G_HP + 16 * (%1)], [rdi + G_HK + 16 * (%1)]
        GHX_REDUCE
        pshufb  xmm10, [BSWAP_MASK]
        pxor    xmm10, [rdi + G_EK0 + 16 * (%1)]        ; T = E_K(J0) ^ S
        movdqa  [rsp + F_DOUT + 16 * (%1)], xmm10
        pxor    xmm10, [rdi + G_ETAG + 16 * (%1)]
        pand    xmm10, [rsp + F_BM + 16 * (%1)]         ; the tag_len bytes that count
        pxor    xmm13, xmm13
        pcmpeqb xmm10, xmm13
        pmovmskb eax, xmm10                             ; bit per byte: equal
        xor     eax, 0xFFFF
        add     eax, 0xFFFF                             ; bit 16 set iff a counted byte differs
        shr     eax, 16
        shl     eax, %1
        or      esi, eax
%endmacro

; ---------------------------------------------------------------------------------------------
global mbgcmi_lanes_aesni:function hidden
mbgcmi_lanes_aesni:
        FRAME_ENTER FRAME, 16

        mov     eax, [rdi + G_ACTIVE]
        mov     [rsp + F_ACT], eax
        ; counters: C = counter words (byte-reflected), ZK = the other 96 bits ^ rk0
%assign _l 0
%rep 4
        movdqa  xmm0, [rdi + G_CTR + 16 * _l]
        movdqa  xmm1, xmm0
        pshufb  xmm1, [BSWAP_MASK]
        pand    xmm1, [CTRWORD]
        movdqa  [rsp + F_C + 16 * _l], xmm1
        pand    xmm0, [NOCTR]
        pxor    xmm0, [rdi + G_RK + 16 * _l]
        movdqa  [rsp + F_ZK + 16 * _l], xmm0
%assign _l _l + 1
%endrep

        ; ---- E_K(J0) for newly entered lanes ----
        mov     eax, [rdi + G_INIT]
        and     eax, [rsp + F_ACT]
        jz      .loop
%assign _l 0
%rep 4
        movdqa  xmm %+ _l, [rdi + G_EK0 + 16 * _l]
        pxor    xmm %+ _l, [rdi + G_RK + 16 * _l]
%assign _l _l + 1
%endrep
        AES_X4  1, 0
        mov     eax, [rdi + G_INIT]
%assign _l 0
%rep 4
        test    eax, 1 << _l
        jz      .ek0_skip %+ _l
        movdqa  [rdi + G_EK0 + 16 * _l], xmm %+ _l
.ek0_skip %+ _l:
%assign _l _l + 1
%endrep
        ; entering lanes with 0 < AAD <= 16 bytes (IPsec, TLS) hash it now, next to E_K(J0)
        ; (independent work the core overlaps), and enter the loop in their text phase
        mov     esi, [rdi + G_INIT]
        and     esi, [rsp + F_ACT]
        mov     dword [rdi + G_INIT], 0
        pxor    xmm13, xmm13
%assign _l 0
%rep 4
        movdqa  [rsp + F_DIN + 16 * _l], xmm13
%assign _l _l + 1
%endrep
        xor     ebx, ebx
        AAD_INIT
%assign _l 0
%rep 4
        test    ebx, 1 << _l
        jz      .aad_skip %+ _l
        movdqa  xmm11, [rsp + F_DIN + 16 * _l]
        pshufb  xmm11, [BSWAP_MASK]
        pxor    xmm11, [rdi + G_S + 16 * _l]
        GHX_FIRST [rdi + G_HP + 16 * _l], [rdi + G_HK + 16 * _l]
        GHX_REDUCE
        movdqa  [rdi + G_S + 16 * _l], xmm10
.aad_skip %+ _l:
%assign _l _l + 1
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
        ROWMASK F_INC1, edx
        ROWMASK F_ENCM, esi
%assign _l 0
%rep 4
        movdqa  xmm13, [rsp + F_INC1 + 16 * _l]
        pand    xmm13, [CADD + 32]
        movdqa  [rsp + F_INC2 + 16 * _l], xmm13
        psrld   xmm13, 1
        movdqa  [rsp + F_INC1 + 16 * _l], xmm13
%assign _l _l + 1
%endrep
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
        cmp     rcx, 2
        jb      .first1
        ITER    2, 0
.loop2:
        cmp     rcx, 2
        jb      .after2
        ITER    2, 2
        jmp     .loop2
.after2:
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
        ; AAD-only step: no key stream, only GHASH
.bulk_aad:
        cmp     rcx, 2
        jb      .aad1
        LOAD_GH 2
        GH_GROUP_L 2
        sub     rcx, 2
        jmp     .bulk_aad
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
        pxor    xmm13, xmm13
%assign _l 0
%rep 4
        movdqa  [rsp + F_DIN + 16 * _l], xmm13
%assign _l _l + 1
%endrep
        K1_LANE_IN 0
        K1_LANE_IN 1
        K1_LANE_IN 2
        K1_LANE_IN 3
        cmp     dword [rsp + F_TEXT], 0
        je      .k1_aad
        CTR_GEN 1
        AES_X4  1, 0
%assign _l 0
%rep 4
        pand    xmm %+ _l, [rsp + F_BM + 16 * _l]       ; key stream on taken bytes
        movdqa  xmm12, [rsp + F_ENCM + 16 * _l]
        pand    xmm12, xmm %+ _l
        movdqa  xmm13, [rsp + F_DIN + 16 * _l]
        pxor    xmm %+ _l, xmm13                        ; output, zero-padded
        movdqa  [rsp + F_DOUT + 16 * _l], xmm %+ _l
        pxor    xmm13, xmm12                            ; GHASH input
        movdqa  [rsp + F_GH + 16 * _l], xmm13
%assign _l _l + 1
%endrep
        K1_LANE_OUT 0
        K1_LANE_OUT 1
        K1_LANE_OUT 2
        K1_LANE_OUT 3
        jmp     .k1_hash
.k1_aad:
%assign _l 0
%rep 4
        movdqa  xmm13, [rsp + F_DIN + 16 * _l]
        movdqa  [rsp + F_GH + 16 * _l], xmm13
%assign _l _l + 1
%endrep
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
        xor     esi, esi                                ; lanes whose tag differs
        FIN_LANE 0
        FIN_LANE 1
        FIN_LANE 2
        FIN_LANE 3
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
%assign _l 0
%rep 4
        movdqa  xmm0, [rsp + F_C + 16 * _l]
        pshufb  xmm0, [BSWAP_MASK]                      ; word to bytes 12..15, zeros elsewhere
        movdqa  xmm1, [rdi + G_CTR + 16 * _l]
        pand    xmm1, [NOCTR]
        por     xmm0, xmm1
        movdqa  [rdi + G_CTR + 16 * _l], xmm0
%assign _l _l + 1
%endrep
%assign _b 0
%rep 16
        pxor    xmm %+ _b, xmm %+ _b
%assign _b _b + 1
%endrep
%assign _w 0
%rep 16
        movdqa  [rsp + F_ZK + 16 * _w], xmm0            ; ZK, DIN, DOUT, SINK
%assign _w _w + 1
%endrep
        mov     eax, [rdi + G_K10Q]                     ; k10q | k12q << 16: parks used?
        test    eax, eax
        jz      .out
%assign _w 0
%rep 16
        movdqa  [rsp + 16 * _w], xmm0
%assign _w _w + 1
%endrep
.out:
        mov     eax, ebx
        FRAME_LEAVE

section .note.GNU-stack noalloc noexec nowrite progbits
