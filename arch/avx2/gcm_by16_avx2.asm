; SPDX-License-Identifier: BSD-3-Clause
; gcm_by16_avx2.asm — single-stream ("by16": one message, 16 blocks per iteration) AES-GCM
; kernels with VAES + VPCLMULQDQ on ymm: the `avx2` one-shot path and the manager's path for
; long messages and for J0 of odd-length IVs.
;
; Two consecutive blocks of the one message per ymm (block 2j in the low 128-bit lane of ymm j,
; block 2j+1 in the high lane); eight ymm per iteration, i.e. 16 blocks as eight independent AES
; chains (VAESENC ymm issues twice per cycle with a latency of 3 here, so six chains are the
; minimum to keep it busy). Round keys are broadcast to both lanes (VBROADCASTI128: a pure
; load). Encrypt: the GHASH of iteration i-1's 16 output blocks (read back from dst, where they
; were just stored) is stitched between the AES rounds of iteration i. Decrypt: the ciphertext
; is the input, available before the AES, so each iteration hashes its own 16 input blocks
; between its own rounds (before the output is stored: in == out is allowed) and nothing is
; left to drain. GHASH aggregates 16 blocks with H^16..H^1: the key stores the powers highest
; first, so one 32-byte load at H^(m-2j) gives [H^(m-2j), H^(m-2j-1)] for the two blocks of
; ymm j of an m-block group; Karatsuba with the stored (lo^hi) operands; one Montgomery
; reduction per 128-bit lane, then the two lanes (partial sums of one message) are xor-folded
; (reduction is linear). Math: arch/generic/ghash_ct.c.
;
; Why AVX2 and not AVX-512: this is the path for CPUs with VAES/VPCLMULQDQ but no AVX-512 (AMD
; Zen 3, Intel Alder Lake): 16 vector registers, no opmasks, no byte-masked loads or stores.
; Partial blocks are therefore loaded with two overlapping scalar loads (LOAD_N) and stored
; through a 16-byte stack slot (COPY_N; arch/x86/include/bounce.inc): never a wide access past
; the end of a buffer.
;
; Counters (the Gueron-Krasnov counter trick, in vector form): round key 0 is folded once per
; call into the 96 constant bits of the counter block, ZK = (ctr with its counter word cleared)
; ^ rk0 (32 bytes on the stack: both lanes). Per block only the 32-bit counter word is produced:
; CTR holds the counter words alone, byte-reflected (dword 0 of each lane = GCM's counter as an
; integer, every other dword zero), so VPADDD is inc32 (wraps mod 2^32, never carries into the
; other 96 bits), one VPSHUFB puts the word into big-endian position 12..15 with zeros
; elsewhere, and one VPXOR with ZK gives the block *after* round 0: the xor with rk0 is that
; xor.
;
; CPU: AVX2 + VAES + VPCLMULQDQ (+ AVX, AES-NI; what arch/avx2/arch_avx2.c requires, OS AVX
;      state checked there). No AVX-512 instruction, no zmm, no opmask.
; ABI: System V AMD64.
;
; void mbgcmi_avx2_ghash(const key *k, uint64_t s[2], const uint8_t *in, size_t nblocks);
; void mbgcmi_avx2_ctr_enc(const key *k, uint8_t ctr[16], uint64_t s[2],
;                          const uint8_t *in, uint8_t *out, size_t nblocks);
; void mbgcmi_avx2_ctr_dec(...same...);
;   Contracts as the struct mbgcmi_gcm_ops members in core/gcm.h: s in V form,
;   ctr = next counter block (inc32 per block, left at the next unused value), GHASH of the
;   ciphertext (out for _enc, in for _dec), in == out allowed.
; void mbgcmi_avx2_gcm(const key *k, const uint8_t j0[16], const uint8_t *aad, size_t aad_len,
;                      const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[16], int decrypt);
;   The whole message in one call (struct mbgcmi_gcm_ops.whole): E_K(J0), AAD (full blocks,
;   then the last one bounced and zero-padded), CTR + GHASH over groups of 16 full blocks, then
;   the last 0..16 blocks (at most 15 full ones) in one pass and one aggregated GHASH with the
;   length block, and the full 16-byte tag T = E_K(J0) ^ S (details above mbgcmi_avx2_gcm below).
; int mbgcmi_avx2_gcm12(const key *k, const uint8_t iv[12], ...same..., uint8_t *tag,
;                       size_t tag_len_dec);
;   The same for a 12-byte IV with J0 built and the tag stored or checked here
;   (struct mbgcmi_gcm_ops.whole12). Up to 64 blocks with AAD <= 64 it takes the short path
;   (after mbgcmi_avx2_gcm below): E_K(J0) in the data's AES pass, the AAD, the blocks and the
;   length block in one aggregated GHASH (one more per further 16 blocks).
;
; Register plan
;   rdi k   rsi ctr (ctr_*), j0 (gcm)   rdx s   rcx in   r8 out   r9 blocks left   eax rounds
;   r10/r11 gcm: AAD pointer/length; r12 partial bytes, r13 tail blocks, r14/r15/rdx/rsi copy
;   and GHASH pointers (gcm's comment); rbx gcm: message length
;   ymm0-7   B0..B7  counter blocks -> key stream -> output (blocks 2j, 2j+1 in ymm j)
;   ymm8     LO      ymm9 MI      ymm10 HI, and S (V form, low lane; high lane zero) between
;                                 groups: a group's first block takes S in before LO/MI/HI
;                                 are overwritten
;   ymm11    X       the block pair being hashed      ymm12 T   GHASH scratch
;   ymm13    round key (broadcast), scratch
;   ymm14    BSWAP   byte reflection per 128-bit lane
;   ymm15    CTR     counter words of the next two blocks (lanes +0, +1), byte-reflected
;   stack    ZK (32 bytes, key-derived: wiped), bounce slots, E_K(J0), the tail's staging
;            slots, J0 and the expected tag (gcm, gcm12; all wiped)
; Every vector register is cleared (VZEROALL) and the stack area wiped before returning.
default rel
%include "key.inc"
%include "frame.inc"
%include "clear.inc"
%include "bounce.inc"
%include "ghash_avx2.inc"

%define SHORT_AAD_MAX 64       ; and AAD up to this (over 16: the blocks before the last are
                                ; hashed at entry and join the last one)
%define SHORT_MAX 1024         ; gcm12: up to 64 blocks with AAD <= 64 take the short path (the
                                ; counter rows below cover these; they hold each counter word in
                                ; one byte: at most 253 blocks)

section .rodata
%include "consts.inc"
YCTRWORD:       times 2 dd 0xFFFFFFFF, 0, 0, 0          ; the counter word, byte-reflected
YLANE1:         dd 0, 0, 0, 0, 1, 0, 0, 0               ; lanes +0, +1
YONE:           times 2 dd 1, 0, 0, 0
YL23:           dd 2, 0, 0, 0, 3, 0, 0, 0               ; c0 - A, c0 + 1 - A (CTR_F)
Y16:            times 2 dd 16, 0, 0, 0
; ROFF row j: the offsets (2 + 2j) % 16, (3 + 2j) % 16 of blocks 2j, 2j+1 from their group's
; base, big-endian at bytes 12..15 of each lane (CTR_F_SETUP)
ROFF:
%assign _j 0
%rep 8
                dd 0, 0, 0, ((2 + 2 * _j) % 16) << 24, 0, 0, 0, ((3 + 2 * _j) % 16) << 24
%assign _j _j + 1
%endrep
YADD:                                                   ; row j: +2j in both lanes
%assign _j 0
%rep 9
                times 2 dd 2 * _j, 0, 0, 0
%assign _j _j + 1
%endrep
; SCTR row j: the counter words of blocks 2j, 2j+1 counted from J0 (words 2j+1, 2j+2; a 12-byte
; IV's J0 has word 1) at bytes 12..15 of each lane, big-endian, zeros elsewhere: xored with ZK
; they are the blocks after round 0 (the short path of mbgcmi_avx2_gcm12)
SCTR:
%assign _j 0
%rep SHORT_MAX / 32 + 1
                dd 0, 0, 0, (2 * _j + 1) << 24, 0, 0, 0, (2 * _j + 2) << 24
%assign _j _j + 1
%endrep
; SMASK: 32 bytes 0xFF, then 32 bytes 0x00; a 32-byte load at SMASK + 32 - n keeps n bytes
SMASK:          times 32 db 0xFF
                times 32 db 0

; stack frame (rsp 32-byte aligned)
%define F_ZK    0               ; 32: (ctr with the counter word cleared) ^ rk0, both lanes
%define F_EK0   32              ; 16: E_K(J0) (gcm)
%define F_B0    48              ; 16: bounce slot (input)
%define F_B1    64              ; 16: bounce slot (output)
%define F_SA    288             ; 32: BE(A), the next group's base (CTR_F; public; after the
                                ; gcm body's slots)
%define F_T     320             ; 256: ZK ^ the counter offsets of each pair (CTR_F_SETUP;
                                ; wiped once the groups are done)
%define FRAME   F_T + 256

section .text

; ---- GHASH (arch/avx2/ghash_avx2.inc; math: arch/generic/ghash_ct.c) -----------------------
; GHY_REDUCE: reduce both lanes, then S = lane 0 ^ lane 1 in xmm10 (the lanes are partial sums
; of one message; reduction is linear, so folding after it is exact; VEX.128 zeroes the high
; lane).
%macro GHY_REDUCE 0
        GHY_REDUCE_LANES
        vextracti128 xmm12, ymm10, 1
        vpxor      xmm10, xmm10, xmm12
%endmacro

; GH_STEP s, m, src: step s of hashing an m-block group (m = 1, 2, 8 or 16) at memory src
; (byte order) with H^m..H^1: steps 0..m/2-1 hash one block pair each, step m/2 reduces,
; later steps do nothing, so the steps can ride between AES rounds. m = 1: step 0 hashes the
; single block (xmm), step 1 reduces. m >= 8: the pairs go two by two, X (even step, kept in
; ymm11) and Y (odd step, ymm13, the round key register, free until the next round): each
; step adds its LO and HI products, and the odd step forms both pairs' Karatsuba operands at
; once, [X.lo ^ X.hi, Y.lo ^ Y.hi] per lane from two unpacks and one xor (three operations
; where two VPSHUFD and two VPXOR did it), and multiplies qword 0 by X's HKAR and qword 1 by
; Y's (HKAR holds lo ^ hi in both qwords). An optional fourth argument o (m >= 8) shifts the
; powers to H^(m+o)..H^(1+o), leaving H^o..H^1 to blocks the caller adds before the reduction.
; A fifth, the mode (m = 16), hashes two groups with one reduction: 1, the first group (o = 16:
; H^32..H^17; S joins it; no reduction), 2, the second (its products add to the first's; the
; reduction).
%macro GH_STEP 3-5 0, 0
%if (%2) == 1
 %if (%1) == 0
        vmovdqu    xmm11, [%3]
        vpshufb    xmm11, xmm11, xmm14
        vpxor      xmm11, xmm11, xmm10
        GHY_FIRST  x, xmm11, [rdi + HPOW(1)], [rdi + HKAR(1)]
 %elif (%1) == 1
        GHY_REDUCE
 %endif
%elif (%2) == 2 && (%1) == 0
        vmovdqu    ymm11, [%3]
        vpshufb    ymm11, ymm11, ymm14
        vpxor      ymm11, ymm11, ymm10                  ; S joins block 0 (high lane of S is 0)
        GHY_FIRST  y, ymm11, [rdi + HPOW(2)], [rdi + HKAR(2)]
%elif (%1) < (%2) / 2
 %assign _a (%2) - 2 * (%1) + (%4)
 %if ((%1) % 2) == 0
        vmovdqu    ymm11, [%3 + 32 * (%1)]
        vpshufb    ymm11, ymm11, ymm14
  %if (%1) == 0 && (%5) != 2
        vpxor      ymm11, ymm11, ymm10                  ; S joins block 0 (high lane of S is 0)
        vpclmulqdq ymm8, ymm11, [rdi + HPOW(_a)], 0x00
        vpclmulqdq ymm10, ymm11, [rdi + HPOW(_a)], 0x11
  %else
        vpclmulqdq ymm12, ymm11, [rdi + HPOW(_a)], 0x00
        vpxor      ymm8, ymm8, ymm12
        vpclmulqdq ymm12, ymm11, [rdi + HPOW(_a)], 0x11
        vpxor      ymm10, ymm10, ymm12
  %endif
 %else
        vmovdqu    ymm13, [%3 + 32 * (%1)]
        vpshufb    ymm13, ymm13, ymm14
        vpclmulqdq ymm12, ymm13, [rdi + HPOW(_a)], 0x00
        vpxor      ymm8, ymm8, ymm12
        vpclmulqdq ymm12, ymm13, [rdi + HPOW(_a)], 0x11
        vpxor      ymm10, ymm10, ymm12
        vpunpcklqdq ymm12, ymm11, ymm13
        vpunpckhqdq ymm11, ymm11, ymm13
        vpxor      ymm12, ymm12, ymm11
  %if (%1) == 1 && (%5) != 2
        vpclmulqdq ymm9, ymm12, [rdi + HKAR(_a + 2)], 0x00
  %else
        vpclmulqdq ymm11, ymm12, [rdi + HKAR(_a + 2)], 0x00
        vpxor      ymm9, ymm9, ymm11
  %endif
        vpclmulqdq ymm11, ymm12, [rdi + HKAR(_a)], 0x11
        vpxor      ymm9, ymm9, ymm11
 %endif
%elif (%1) == (%2) / 2 && (%5) != 1
        GHY_REDUCE
%endif
%endmacro
; GH_GROUP m, src: the whole group, not stitched
%macro GH_GROUP 2
%assign _s 0
%rep (%1) / 2 + 1 + ((%1) == 1)
        GH_STEP _s, %1, %2
%assign _s _s + 1
%endrep
%endmacro

; ---- AES ------------------------------------------------------------------------------------
%macro AES_RND 3-4 0            ; n ymm (from ymm b), round, instruction[, b]
        vbroadcasti128 ymm13, [rdi + KEY_RK + 16 * (%2)]
%assign _z (%4)
%rep %1
        %3      ymm %+ _z, ymm %+ _z, ymm13
%assign _z _z + 1
%endrep
%endmacro
; AES_W n, m, src[, b, step]: rounds 1..R (eax = 10/12/14; round 0 is already in the counter
; blocks) of ymm b..ymm(b+n-1) (b = 0 unless given), with the GHASH of the m-block group at
; src stitched after rounds 1..9 (m = 0: nothing), or with "step s" after round s + 1 when a
; step macro is given. The round count is public (the key size): branching on it is fine.
%macro AES_W 3-5 0, 0
%assign _r 1
%rep 9
        AES_RND %1, _r, vaesenc, %4
%ifnidn %5, 0
        %5      _r - 1
%elif (%2) > 0
        GH_STEP _r - 1, %2, %3
%endif
%assign _r _r + 1
%endrep
        cmp     eax, 10
        je      %%last10
        AES_RND %1, 10, vaesenc, %4
        AES_RND %1, 11, vaesenc, %4
        cmp     eax, 12
        je      %%last12
        AES_RND %1, 12, vaesenc, %4
        AES_RND %1, 13, vaesenc, %4
        AES_RND %1, 14, vaesenclast, %4
        jmp     %%done
%%last12:
        AES_RND %1, 12, vaesenclast, %4
        jmp     %%done
%%last10:
        AES_RND %1, 10, vaesenclast, %4
%%done:
%endmacro

; CTR_W n: B_j = counter blocks 2j, 2j+1 after round 0 (j < n); CTR += 2n
%macro CTR_W 1
%assign _z 0
%rep %1
%if _z == 0
        vpshufb ymm0, ymm15, ymm14
%else
        vpaddd  ymm %+ _z, ymm15, [YADD + 32 * _z]
        vpshufb ymm %+ _z, ymm %+ _z, ymm14
%endif
        vpxor   ymm %+ _z, ymm %+ _z, [rsp + F_ZK]      ; the 96 constant bits ^ rk0
%assign _z _z + 1
%endrep
        vpaddd  ymm15, ymm15, [YADD + 32 * (%1)]
%endmacro
; CTR_1: B0 lane 0 = the next counter block after round 0; CTR += 1
%macro CTR_1 0
        vpshufb ymm0, ymm15, ymm14
        vpxor   ymm0, ymm0, [rsp + F_ZK]
        vpaddd  ymm15, ymm15, [YONE]
%endmacro
; XOR_STORE n[, b]: out = in ^ key stream, n ymm (from ymm b)
%macro XOR_STORE 1-2 0
%assign _z (%2)
%rep %1
        vpxor   ymm %+ _z, ymm %+ _z, [rcx + 32 * _z]
        vmovdqu [r8 + 32 * _z], ymm %+ _z
%assign _z _z + 1
%endrep
%endmacro

; CTR_SETUP ctrmem: CTR = counter words of ctrmem and ctrmem+1; ZK = its 96 bits ^ rk0
%macro CTR_SETUP 1
        vbroadcasti128 ymm15, %1
        vpshufb ymm15, ymm15, ymm14
        vpand   ymm15, ymm15, [YCTRWORD]
        vpaddd  ymm15, ymm15, [YLANE1]
        vbroadcasti128 ymm13, %1
        vpblendd ymm13, ymm13, [YCTRWORD], 0x88         ; counter word := 0 (YCTRWORD's dword 3)
        vbroadcasti128 ymm12, [rdi + KEY_RK]
        vpxor   ymm13, ymm13, ymm12
        vmovdqa [rsp + F_ZK], ymm13
%endmacro

%macro SMALL_FRAME_ENTER 0                 ; the ctr kernels: rbp frame only
        push    rbp
        mov     rbp, rsp
        sub     rsp, FRAME
        and     rsp, -32
%endmacro
%macro SMALL_FRAME_LEAVE 0                 ; wipes the frame and the registers
        vpxor   xmm0, xmm0, xmm0
        vmovdqa [rsp], ymm0
        vmovdqa [rsp + 32], ymm0
        vmovdqa [rsp + 64], ymm0
        CLEAR_VREGS ymm
        mov     rsp, rbp
        pop     rbp
%endmacro

; ---------------------------------------------------------------------------------------------
; GHASH_LOOP ptr, count: S over |count| full blocks at |ptr| (both advanced/consumed)
%macro GHASH_LOOP 2
%%g16:
        cmp     %2, 16
        jb      %%g8
        GH_GROUP 16, %1
        add     %1, 256
        sub     %2, 16
        jmp     %%g16
%%g8:
        cmp     %2, 8
        jb      %%g2
        GH_GROUP 8, %1
        add     %1, 128
        sub     %2, 8
%%g2:
        cmp     %2, 2
        jb      %%g1
        GH_GROUP 2, %1
        add     %1, 32
        sub     %2, 2
        jmp     %%g2
%%g1:
        test    %2, %2
        jz      %%gdone
        GH_GROUP 1, %1
        add     %1, 16
        dec     %2
%%gdone:
%endmacro

global mbgcmi_avx2_ghash:function hidden
mbgcmi_avx2_ghash:                      ; rdi k, rsi s, rdx in, rcx nblocks
        vbroadcasti128 ymm14, [BSWAP]
        vmovdqu xmm10, [rsi]
        GHASH_LOOP rdx, rcx
        vmovdqu [rsi], xmm10
        CLEAR_VREGS ymm
        ret

; ---------------------------------------------------------------------------------------------
; Groups of 16 blocks with counters from an xor-offset table. When a run's first counter word c0
; is 2 mod 16 (a message with a 12-byte IV: c0 = 2; a ctr kernel call after whole groups of
; one), every group's counters are A + 2 .. A + 17 with A a multiple of 16, so blocks 2j, 2j+1
; (j < 7) have the words A ^ r and blocks 14, 15 the words (A + 16) ^ r, r < 16: an xor with
; the offset r never carries. CTR_F_SETUP folds the offsets into ZK once (F_T row j: ZK ^ the
; offsets of blocks 2j, 2j+1), so a group's counter blocks after round 0 take 10 vector
; operations instead of CTR_W 8's 24: B_j = BE(A) ^ F_T[j] (j < 7), B_7 = BE(A + 16) ^ F_T[7],
; and BE(A + 16) is the next group's BE(A) (F_SA). CTR holds A in both lanes meanwhile;
; CTR_F_DONE adds 2, 3 back (YL23) and wipes F_T. Any other c0 takes CTR_W 8.
; CTR_F_CHECK byte, v, label: jump to label unless byte (the last of a counter block, public
; memory) is v mod 16; clobbers r10.
%macro CTR_F_CHECK 3
        movzx   r10d, %1
        and     r10d, 15
        cmp     r10d, %2
        jne     %3
%endmacro
%macro CTR_F_SETUP 0
        vpsubd  ymm15, ymm15, [YL23]                    ; A = c0 - 2 in both lanes
        vpshufb ymm0, ymm15, ymm14
        vmovdqa [rsp + F_SA], ymm0
        vmovdqa ymm1, [rsp + F_ZK]
%assign _j 0
%rep 8
        vpxor   ymm0, ymm1, [ROFF + 32 * _j]
        vmovdqa [rsp + F_T + 32 * _j], ymm0
%assign _j _j + 1
%endrep
%endmacro
%macro CTR_F 0
        vpaddd  ymm15, ymm15, [Y16]                     ; A + 16, the next group's A
        vpshufb ymm7, ymm15, ymm14
        vmovdqa ymm0, [rsp + F_SA]                      ; BE(A)
        vmovdqa [rsp + F_SA], ymm7
%assign _j 1
%rep 6
        vpxor   ymm %+ _j, ymm0, [rsp + F_T + 32 * _j]
%assign _j _j + 1
%endrep
        vpxor   ymm7, ymm7, [rsp + F_T + 32 * 7]
        vpxor   ymm0, ymm0, [rsp + F_T]
%endmacro
%macro CTR_F_DONE 0
        vpaddd  ymm15, ymm15, [YL23]                    ; CTR = the next block's words again
        vpxor   xmm0, xmm0, xmm0                        ; F_T (key-derived) is done with
%assign _j 0
%rep 8
        vmovdqa [rsp + F_T + 32 * _j], ymm0
%assign _j _j + 1
%endrep
%endmacro
%macro CTR_W8 0
        CTR_W   8
%endmacro
%macro GROUP_ADVANCE 0
        add     rcx, 256
        add     r8, 256
        sub     r9, 16
%endmacro
; GROUP_PASS ctr, m, src[, step]: one whole group: its counter blocks (ctr), its rounds with
; the m-block GHASH at src or the step macro stitched (AES_W), the output stored, the pointers
; and r9 advanced
%macro GROUP_PASS 3-4 0
        %1
        AES_W   8, %2, %3, 0, %4
        XOR_STORE 8
        GROUP_ADVANCE
%endmacro
; GROUP_PAIRS ctr, min, a, b: while r9 >= min blocks, a turn of two group passes whose GHASH
; steps are the macros a and b (two groups, one reduction: GH_STEP modes 1 and 2)
%macro GROUP_PAIRS 4
%%pair:
        cmp     r9, %2
        jb      %%done
        GROUP_PASS %1, 0, 0, %3
        GROUP_PASS %1, 0, 0, %4
        jmp     %%pair
%%done:
%endmacro
; GROUPS_ENC ctr, jcc, exit[, last]: encrypt whole groups (r9 >= 16 on entry) with counter
; blocks from ctr, software-pipelined: the first group alone, then each with the previous
; group's output hashed in its rounds, until "cmp r9, 16; jcc exit" leaves; one group's GHASH
; is left over. With last (the gcm body): a message's last group with no block after it
; (r9 = 16, len a multiple of 16) runs as LAST_GROUP_ENC and jumps to last. While 48 blocks
; remain, two groups per turn whose passes hash the two groups before them with one reduction
; (GH_STEP modes 1 and 2: ENC_A_STEP, ENC_B_STEP), so the single passes after them see a
; reduced state.
%macro ENC_A_STEP 1
        GH_STEP (%1), 16, r8 - 256, 16, 1
%endmacro
%macro ENC_B_STEP 1
        GH_STEP (%1), 16, r8 - 256, 0, 2
%endmacro
%macro GROUPS_ENC 3-4
        GROUP_PASS %1, 0, 0
        GROUP_PAIRS %1, 48, ENC_A_STEP, ENC_B_STEP
%%loop:
        cmp     r9, 16
        %2      %3
%if %0 == 4
        jne     %%mid                                   ; (flags of the cmp: r9 > 16)
        test    bl, 15
        jz      %%last                                  ; nothing after this group
%%mid:
%endif
        GROUP_PASS %1, 16, r8 - 256
        jmp     %%loop
%if %0 == 4
%%last:
        %1
        LAST_GROUP_ENC
        jmp     %4
%endif
%endmacro
; LAST_GROUP_ENC: an encrypt's last group (the previous group's GHASH pending, nothing after
; it) in two halves, so that most of its own GHASH runs beside AES rounds: ymm0-3's rounds
; with the pending GHASH stitched, their output stored; then ymm4-7's rounds with the GHASH
; of ymm0-3's four pairs stitched (LAST_A_STEP, S joining block 0); then ymm4-7's four pairs
; hashed after the pass. The group's 16 blocks take H^17..H^2 (the length block, added by the
; caller, takes H^1); LO/MI/HI are left unreduced. Issued in this order, the first half's
; chains run ahead and its GHASH fills the vector ports while the second half's rounds end:
; what is left after the last round is four pairs, not eight.
%define LAST_NA 4
%macro LAST_A_STEP 1
%assign _la (%1)
%if _la == 0
        vpshufb ymm11, ymm0, ymm14
        vpxor   ymm11, ymm11, ymm10                     ; S joins block 0 (high lane of S is 0)
        GHY_FIRST y, ymm11, [rdi + HPOW(17)], [rdi + HKAR(17)]
%elif _la < LAST_NA
        vpshufb ymm11, ymm %+ _la, ymm14
        GHY_NEXT y, ymm11, [rdi + HPOW(17 - 2 * _la)], [rdi + HKAR(17 - 2 * _la)]
%endif
%endmacro
%macro LAST_GROUP_ENC 0
        AES_W   LAST_NA, 16, r8 - 256
        XOR_STORE LAST_NA
        AES_W   8 - LAST_NA, 0, 0, LAST_NA, LAST_A_STEP
        XOR_STORE 8 - LAST_NA, LAST_NA
%assign _j LAST_NA
%rep 8 - LAST_NA
        vpshufb ymm11, ymm %+ _j, ymm14
        GHY_NEXT y, ymm11, [rdi + HPOW(17 - 2 * _j)], [rdi + HKAR(17 - 2 * _j)]
%assign _j _j + 1
%endrep
        GROUP_ADVANCE
%endmacro
; GROUPS_DEC ctr: decrypt the whole groups (r9 >= 16 blocks each), each group's input hashed in
; its own rounds before its output is stored (in == out allowed); two groups per turn while 32
; blocks remain, hashed with one reduction (GH_STEP modes 1 and 2: DEC_A_STEP, DEC_B_STEP)
%macro DEC_A_STEP 1
        GH_STEP (%1), 16, rcx, 16, 1
%endmacro
%macro DEC_B_STEP 1
        GH_STEP (%1), 16, rcx, 0, 2
%endmacro
%macro GROUPS_DEC 1
        GROUP_PAIRS %1, 32, DEC_A_STEP, DEC_B_STEP
        cmp     r9, 16
        jb      %%done
        GROUP_PASS %1, 16, rcx
%%done:
%endmacro

; ---------------------------------------------------------------------------------------------
; CTR_LOOP dec: CTR + GHASH over r9 full blocks from rcx to r8 (both advanced); CTR/ZK set up,
; S in xmm10, eax = rounds, ymm14 = BSWAP.
%macro CTR_LOOP 1
%if %1 == 0
        ; encrypt: software-pipelined, the previous group's output hashed in this group's rounds
        cmp     r9, 16
        jb      %%t8
        CTR_F_CHECK byte [rsi + 15], 2, %%enc_any
        CTR_F_SETUP
        GROUPS_ENC CTR_F, jb, %%enc_f_done
%%enc_f_done:
        CTR_F_DONE
        jmp     %%drain
%%enc_any:
        GROUPS_ENC CTR_W8, jb, %%drain
%%drain:
        GH_GROUP 16, r8 - 256
%%t8:
        cmp     r9, 8
        jb      %%t2
        CTR_W   4
        AES_W   4, 0, 0
        XOR_STORE 4
        GH_GROUP 8, r8
        add     rcx, 128
        add     r8, 128
        sub     r9, 8
%%t2:
        cmp     r9, 2
        jb      %%t1
        CTR_W   1
        AES_W   1, 0, 0
        XOR_STORE 1
        GH_GROUP 2, r8
        add     rcx, 32
        add     r8, 32
        sub     r9, 2
        jmp     %%t2
%%t1:
        test    r9, r9
        jz      %%done
        CTR_1
        AES_W   1, 0, 0
        vpxor   xmm0, xmm0, [rcx]
        vmovdqu [r8], xmm0
        GH_GROUP 1, r8
        add     rcx, 16
        add     r8, 16
        dec     r9
%else
        ; decrypt: each group's input is hashed in its own rounds, before its output is stored
        cmp     r9, 16
        jb      %%t8
        CTR_F_CHECK byte [rsi + 15], 2, %%dec_any
        CTR_F_SETUP
        GROUPS_DEC CTR_F
        CTR_F_DONE
        jmp     %%t8
%%dec_any:
        GROUPS_DEC CTR_W8
%%t8:
        cmp     r9, 8
        jb      %%t2
        CTR_W   4
        AES_W   4, 8, rcx
        XOR_STORE 4
        add     rcx, 128
        add     r8, 128
        sub     r9, 8
%%t2:
        cmp     r9, 2
        jb      %%t1
        CTR_W   1
        AES_W   1, 2, rcx
        XOR_STORE 1
        add     rcx, 32
        add     r8, 32
        sub     r9, 2
        jmp     %%t2
%%t1:
        test    r9, r9
        jz      %%done
        CTR_1
        AES_W   1, 1, rcx
        vpxor   xmm0, xmm0, [rcx]
        vmovdqu [r8], xmm0
        add     rcx, 16
        add     r8, 16
        dec     r9
%endif
%%done:
%endmacro

; ctr = next counter block: bytes 0..11 unchanged, 12..15 = CTR lane 0 big-endian
%macro CTR_WRITEBACK 1
        vpshufb xmm13, xmm15, xmm14
        vpblendd xmm13, xmm13, %1, 0x7
        vmovdqu %1, xmm13
%endmacro

%macro CTR_FN 1
        SMALL_FRAME_ENTER
        mov     eax, [rdi + KEY_ROUNDS]
        vbroadcasti128 ymm14, [BSWAP]
        vmovdqu xmm10, [rdx]
        CTR_SETUP [rsi]
        CTR_LOOP %1
        CTR_WRITEBACK [rsi]
        vmovdqu [rdx], xmm10
        SMALL_FRAME_LEAVE
        ret
%endmacro

global mbgcmi_avx2_ctr_enc:function hidden
mbgcmi_avx2_ctr_enc:
        CTR_FN  0

global mbgcmi_avx2_ctr_dec:function hidden
mbgcmi_avx2_ctr_dec:
        CTR_FN  1

; ---------------------------------------------------------------------------------------------
; void mbgcmi_avx2_gcm(k, j0, aad, aad_len, in, len, out, tag, decrypt)
;   rdi k, rsi j0, rdx aad, rcx aad_len, r8 in, r9 len, [rbp+16] out, [rbp+24] tag,
;   [rbp+32] decrypt. Limits as validated by the API (len <= 2^36-32, aad_len < 2^61).
;   Flow: E_K(J0); the AAD; groups of 16 blocks while 16 full blocks remain (encrypting, each
;   group's GHASH rides in the next group's pass; decrypting, in its own); then the tail, t = 0..16
;   blocks (the full blocks left and the partial one), in ONE pass of n = ceil(t / 2) ymm
;   (encrypting, with the last group's GHASH in it; decrypting, with the GHASH of the tail's full
;   pairs, read from the input: DEC_TAIL_STEP), and ONE aggregated GHASH of the tail's t blocks and
;   the length block with H^(t+1)..H^1, two blocks per ymm, one reduction. A message of whole groups
;   has no tail pass: decrypting, only the length block is left to hash; encrypting, the last group
;   runs in two halves (LAST_GROUP_ENC: the first half's GHASH in the second half's rounds) and its
;   16 blocks join that GHASH as a tail's full pairs (a tail pass costs more than a group's pass
;   plus the same GHASH). The tail's full block pairs go straight from and to memory; the pair that
;   holds the partial or the odd last block (the "special" pair, 2fp and 2fp + 1) is staged on the
;   stack (F_TI: its input, the partial block bounced and zero-padded; F_KS: its key stream), and
;   the GHASH reads it, and the length block, from F_G. Stack blocks are 16-byte stores read back by
;   16-byte loads (a ymm pair as two): a load wider than the store it reads is not forwarded from
;   it. Extra registers: rbx len, r9 full blocks left, then fp (the tail's full pairs), r12 partial
;   bytes, r13 tail blocks t, rdx/rsi/r10/r14/r15 scratch (rsi once J0 is no longer needed); F_PEND:
;   1 when a group's GHASH waits for the tail pass.
%define F_PEND  80              ; 8: encrypt: a whole group's GHASH is pending (public)
%define F_TI    96              ; 32: the special pair's input
%define F_KS    128             ; 32: its key stream
%define F_G     160             ; 64: GHASH inputs after the full pairs: the special pair, the
                                ; length block, a zero block
%define F_DEC   224             ; 8: direction, 1 = decrypt (public)
%define F_MODE  232             ; 8: 0 = the full tag to tag[16]; 1 = gcm12 (tag_len bytes
                                ; stored, or compared with F_ETAG)
%define F_J0    240             ; 16: gcm12: J0 = IV || 00 00 00 01 (rsi points here)
%define F_ETAG  256             ; 16: gcm12 decrypt: the expected tag, zero-padded
%define F_TLEN  272             ; 8: gcm12: tag_len
%define F_WIPE  288             ; the slots below are wiped at the exit (F_T before: CTR_F_DONE)
%define GFRAME  F_T + 256

; TIO j: after the tail pass, ymm j: a full pair (j < fp: r9) is xored and stored in place;
; j == fp parks its key stream in F_KS and ends the walk (.tio_done)
%macro TIO 1
        cmp     r9, %1
        jbe     %%spec
        cmp     dword [rsp + F_DEC], 0
        jne     %%dec
        vpxor   ymm %+ %1, ymm %+ %1, [rcx + 32 * (%1)]
        jmp     %%st
%%dec:
        vmovdqu ymm11, [rcx + 32 * (%1)]                ; (in == out: read before written)
        vpxor   ymm %+ %1, ymm %+ %1, ymm11
%%st:
        vmovdqu [r8 + 32 * (%1)], ymm %+ %1
        jmp     %%next
%%spec:
        vmovdqa [rsp + F_KS], xmm %+ %1
        vextracti128 [rsp + F_KS + 16], ymm %+ %1, 1
        jmp     .tio_done
%%next:
%endmacro
; DEC_TAIL_STEP s (a step of AES_W in TAIL_PASS_N _TN): decrypting (r14 = HPOW(t + 1), else
; 0), the tail's full pair s (s < fp = r9) hashed from the input, S joining pair 0: what
; GH_FULL does, between the rounds. Every pair but the pass's last is full; the last is when
; fp = n.
%macro DEC_TAIL_STEP 1
%assign _ds (%1)
%if _ds < _TN
        test    r14, r14
        jz      %%skip
 %if _ds == _TN - 1
        cmp     r9, _TN
        jb      %%skip
 %endif
        vmovdqu ymm11, [rcx + 32 * _ds]
        vpshufb ymm11, ymm11, ymm14
 %if _ds == 0
        vpxor   ymm11, ymm11, ymm10                     ; S joins block 0 (high lane of S is 0)
        GHY_FIRST y, ymm11, [r14], [r14 + KEY_HKAR - KEY_HPOW]
 %else
        GHY_NEXT y, ymm11, [r14 + 32 * _ds], [r14 + KEY_HKAR - KEY_HPOW + 32 * _ds]
 %endif
%%skip:
%endif
%endmacro
; TAIL_PASS_N n: counters, the pass (with the pending group's GHASH when F_PEND, else a
; decrypt's full pairs hashed: DEC_TAIL_STEP), the IO
%macro TAIL_PASS_N 1
        CTR_W   %1
        cmp     dword [rsp + F_PEND], 0
        je      %%plain
        AES_W   %1, 16, r8 - 256
        jmp     %%io
%%plain:
%xdefine _TN %1
        AES_W   %1, 0, 0, 0, DEC_TAIL_STEP
%%io:
%assign _z 0
%rep %1
        TIO     _z
%assign _z _z + 1
%endrep
        jmp     .tio_done
%endmacro

; GH_FULL src: the first part of the tail's GHASH: its fp (r9) full pairs from memory at src
; (the output encrypting, after the pass; the input decrypting, before it: in == out), with
; H^(t+1).. (r13 = t); S joins the first block. Sets LO/MI/HI; nothing when fp = 0.
; Clobbers rdx, rsi, r14.
%macro GH_FULL 1
        test    r9, r9
        jz      %%done
        mov     rsi, %1
        mov     r14, 31
        sub     r14, r13
        shl     r14, 4
        add     r14, rdi
        add     r14, KEY_HPOW                           ; HPOW(t + 1)
        vmovdqu ymm11, [rsi]
        vpshufb ymm11, ymm11, ymm14
        vpxor   ymm11, ymm11, ymm10                     ; S joins block 0 (high lane of S is 0)
        GHY_FIRST y, ymm11, [r14], [r14 + KEY_HKAR - KEY_HPOW]
        mov     rdx, r9
%%loop:
        dec     rdx
        jz      %%done
        add     rsi, 32
        add     r14, 32
        vmovdqu ymm11, [rsi]
        vpshufb ymm11, ymm11, ymm14
        GHY_NEXT y, ymm11, [r14], [r14 + KEY_HKAR - KEY_HPOW]
        jmp     %%loop
%%done:
%endmacro

; int mbgcmi_avx2_gcm12(k, iv, aad, aad_len, in, len, out, tag, tag_len_dec)
;   The one-shot operation for a 12-byte IV (struct mbgcmi_gcm_ops.whole12): J0 = IV ||
;   00 00 00 01 built here (one 16-byte store: the body loads it as one vector), tag_len_dec =
;   tag_len | decrypt << 8. Encrypt stores the first tag_len bytes of the tag, returns 0;
;   decrypt reads the expected tag before any output is written (it may lie inside out),
;   compares all 16 bytes under the tag_len mask without a branch, returns 1 when they differ
;   (the caller zeroes out), else 0. Messages up to SHORT_MAX bytes with AAD <= SHORT_AAD_MAX
;   bytes go to the short path (gcm12_short), the rest through mbgcmi_avx2_gcm's body (measured
;   on Intel: the short path's passes, each hashing its own input or the previous pass's output
;   between its rounds, are quicker up to 64 blocks both ways).
global mbgcmi_avx2_gcm12:function hidden
mbgcmi_avx2_gcm12:
        cmp     r9, SHORT_MAX
        ja      .long
        cmp     rcx, SHORT_AAD_MAX
        jbe     gcm12_short                             ; (after mbgcmi_avx2_gcm below)
.long:
        FRAME_ENTER GFRAME, 32
        vmovq   xmm0, [rsi]
        vpinsrd xmm0, xmm0, [rsi + 8], 2
        mov     eax, 0x01000000
        vpinsrd xmm0, xmm0, eax, 3                      ; J0 = IV || 00 00 00 01
        vmovdqa [rsp + F_J0], xmm0
        lea     rsi, [rsp + F_J0]
        mov     rax, [rbp + 32]                         ; tag_len | decrypt << 8
        movzx   r10d, al
        mov     [rsp + F_TLEN], r10
        shr     eax, 8
        and     eax, 1
        mov     [rsp + F_DEC], rax
        mov     qword [rsp + F_MODE], 1
        vpxor   xmm0, xmm0, xmm0
        vmovdqa [rsp + F_ETAG], xmm0
        test    eax, eax
        jz      mbgcmi_avx2_gcm.common
        mov     rax, [rbp + 24]                         ; tag: the expected one, read first
        lea     r11, [rsp + F_ETAG]
        COPY_N  r11, rax, r10, r12, r13, r14
        jmp     mbgcmi_avx2_gcm.common

global mbgcmi_avx2_gcm:function hidden
mbgcmi_avx2_gcm:
        FRAME_ENTER GFRAME, 32
        mov     eax, [rbp + 32]
        mov     [rsp + F_DEC], rax
        mov     qword [rsp + F_MODE], 0
.common:
        mov     r10, rdx                                ; aad
        mov     r11, rcx                                ; aad_len
        mov     rcx, r8                                 ; in
        mov     rbx, r9                                 ; len
        mov     r8, [rbp + 16]                          ; out
        mov     eax, [rdi + KEY_ROUNDS]
        vbroadcasti128 ymm14, [BSWAP]
        vpxor   xmm10, xmm10, xmm10                     ; S = 0
        mov     qword [rsp + F_PEND], 0
        ; E_K(J0)
        vmovdqu xmm0, [rsi]
        vpxor   xmm0, xmm0, [rdi + KEY_RK]
        AES_W   1, 0, 0
        vmovdqa [rsp + F_EK0], xmm0
        test    rbx, rbx
        jnz     .aad
        test    r11, 255
        jnz     .gmac                                   ; GMAC, AAD not in whole groups of 16
        test    r11, r11
        jnz     .gmac16                                 ; GMAC, AAD in whole groups of 16
.aad:
        ; AAD: full blocks, then the rest bounced and zero-padded
        mov     r9, r11
        shr     r9, 4
        GHASH_LOOP r10, r9
        mov     r12, r11
        and     r12, 15
        jz      .aad_done
        LOAD_N  xmm0, r10, r12, r9, r14, r15
        vmovdqa [rsp + F_B0], xmm0                      ; one 16-byte store: forwarded
        GH_GROUP 1, rsp + F_B0
.aad_done:
        ; message: counters from J0 + 1
        CTR_SETUP [rsi]
        vpaddd  ymm15, ymm15, [YONE]
        mov     r9, rbx
        shr     r9, 4                                   ; full blocks
        cmp     r9, 16
        jb      .tail
        CTR_F_CHECK byte [rsi + 15], 1, .bulk_any       ; J0's last byte (c0 = J0 + 1)
        CTR_F_SETUP
        cmp     dword [rsp + F_DEC], 0
        jne     .dec_f
        mov     qword [rsp + F_PEND], 1                 ; the last group's GHASH: in the tail
        GROUPS_ENC CTR_F, jb, .bulk_f_done, .last_f
.dec_f:
        GROUPS_DEC CTR_F
.bulk_f_done:
        CTR_F_DONE
        jmp     .tail
.last_f:
        CTR_F_DONE
.last_w:
        ; encrypt, LAST_GROUP_ENC done: its 16 blocks hashed as a tail's 8 full pairs, the
        ; length block left
        mov     r9, 8
        mov     r13, 16
        jmp     .g_stage
.bulk_any:
        cmp     dword [rsp + F_DEC], 0
        jne     .dec_any
        mov     qword [rsp + F_PEND], 1
        GROUPS_ENC CTR_W8, jb, .tail, .last_w
.dec_any:
        GROUPS_DEC CTR_W8
.tail:
        mov     r12, rbx
        and     r12, 15                                 ; partial bytes
        mov     r13, r12
        add     r13, 15
        shr     r13, 4
        add     r13, r9                                 ; t: the full blocks left (0..15), and
        shr     r9, 1                                   ; the partial one; fp: full pairs
        test    r13, r13
        jnz     .st_go
        cmp     dword [rsp + F_PEND], 0
        je      .final                                  ; an empty message, or decrypt
        sub     r8, 256                                 ; encrypt, nothing left: the last
        mov     r13, 16                                 ; group's GHASH, as 16 full blocks
        mov     r9, 8                                   ; of a tail (its 8 pairs) before the
        jmp     .final                                  ; length block
.st_go:
        ; stage the special pair (blocks 2fp, 2fp+1 when any of them is in the tail)
        vpxor   xmm0, xmm0, xmm0
        vmovdqa [rsp + F_TI], xmm0
        vmovdqa [rsp + F_TI + 16], xmm0
        mov     rsi, r9
        shl     rsi, 5
        add     rsi, rcx                                ; block 2fp (rsi: J0 is done with)
        lea     rdx, [r9 + r9]
        mov     r10, rbx
        shr     r10, 4
        and     r10, 15                                 ; the tail's full blocks
        cmp     rdx, r10
        jae     .st_part0                               ; block 2fp is not full
        vmovdqu xmm1, [rsi]
        vmovdqa [rsp + F_TI], xmm1
        test    r12, r12
        jz      .st_done                                ; block 2fp+1: none (odd t, no partial)
        add     rsi, 16
        LOAD_N  xmm1, rsi, r12, r10, r14, r15
        vmovdqa [rsp + F_TI + 16], xmm1
        jmp     .st_done
.st_part0:
        test    r12, r12
        jz      .st_done                                ; no special pair
        LOAD_N  xmm1, rsi, r12, r10, r14, r15
        vmovdqa [rsp + F_TI], xmm1
.st_done:
        xor     r14d, r14d
        cmp     dword [rsp + F_DEC], 0
        je      .st_pass
        mov     r14, 31                                 ; decrypt: the full pairs' GHASH in
        sub     r14, r13                                ; the pass (DEC_TAIL_STEP), from
        shl     r14, 4                                  ; HPOW(t + 1)
        add     r14, rdi
        add     r14, KEY_HPOW
.st_pass:
        ; the pass: n = ceil(t / 2) ymm, one per block pair (no AES on blocks past the end)
        cmp     r13, 8
        ja      .t916
        cmp     r13, 4
        ja      .t58
        cmp     r13, 2
        ja      .t34
        TAIL_PASS_N 1
.t34:
        TAIL_PASS_N 2
.t58:
        cmp     r13, 6
        ja      .t78
        TAIL_PASS_N 3
.t78:
        TAIL_PASS_N 4
.t916:
        cmp     r13, 12
        ja      .t1316
        cmp     r13, 10
        ja      .t1112
        TAIL_PASS_N 5
.t1112:
        TAIL_PASS_N 6
.t1316:
        cmp     r13, 14
        ja      .t1516
        TAIL_PASS_N 7
.t1516:
        TAIL_PASS_N 8
.tio_done:
        ; the special pair: out = key stream ^ staged input; its GHASH inputs to F_G
        mov     rdx, r9
        shl     rdx, 1                                  ; 2fp
        cmp     rdx, r13
        jae     .final                                  ; no special pair (t even, no partial)
        vmovdqa xmm0, [rsp + F_KS]
        vpxor   xmm0, xmm0, [rsp + F_TI]
        vmovdqa xmm1, [rsp + F_KS + 16]
        vpxor   xmm1, xmm1, [rsp + F_TI + 16]
        mov     rsi, r9
        shl     rsi, 5
        add     rsi, r8                                 ; out + 32 fp
        lea     r10, [BMASK + 16]
        sub     r10, r12                                ; keeps the partial block's bytes
        inc     rdx
        cmp     rdx, r13
        jb      .sp_two                                 ; 2fp+1 < t: a full block, a partial one
        ; one block: 2fp = t - 1, full (no partial) or partial
        test    r12, r12
        jz      .sp_full1
        vpand   xmm0, xmm0, [r10]
        vmovdqa [rsp + F_KS], xmm0
        lea     rdx, [rsp + F_KS]
        COPY_N  rsi, rdx, r12, r10, r14, r15
        jmp     .sp_g1
.sp_full1:
        vmovdqu [rsi], xmm0
.sp_g1:
        cmp     dword [rsp + F_DEC], 0
        je      .sp_g1e
        vmovdqa xmm0, [rsp + F_TI]                      ; decrypt: hash the input
.sp_g1e:
        vmovdqa [rsp + F_G], xmm0
        jmp     .final
.sp_two:
        vmovdqu [rsi], xmm0
        vpand   xmm1, xmm1, [r10]
        vmovdqa [rsp + F_KS + 16], xmm1
        add     rsi, 16
        lea     rdx, [rsp + F_KS + 16]
        COPY_N  rsi, rdx, r12, r10, r14, r15
        cmp     dword [rsp + F_DEC], 0
        je      .sp_g2e
        vmovdqa xmm0, [rsp + F_TI]
        vmovdqa xmm1, [rsp + F_TI + 16]
.sp_g2e:
        vmovdqa [rsp + F_G], xmm0
        vmovdqa [rsp + F_G + 16], xmm1
.final:
        ; GHASH of the tail and the length block: m = t + 1 blocks with H^m..H^1, two per ymm:
        ; the fp full pairs from memory (GH_FULL: encrypting now, decrypting it ran in the
        ; pass), then F_G: the special pair's blocks, the length block, a zero block to fill
        ; the last ymm
        cmp     dword [rsp + F_DEC], 0
        jne     .g_stage
        GH_FULL r8
.g_stage:
        mov     rdx, r9
        shl     rdx, 1                                  ; blocks in the full pairs
        mov     r14, r13
        sub     r14, rdx                                ; special blocks (0..2)
        shl     r14, 4
        lea     r15, [rsp + F_G]
        add     r15, r14
        shl     rbx, 3                                  ; bit lengths (validated: no overflow)
        shl     r11, 3
        vmovq   xmm11, rbx                              ; V form: {len bits, aad bits}
        vpinsrq xmm11, xmm11, r11, 1
        vpshufb xmm11, xmm11, xmm14                     ; byte order, as the blocks
        vmovdqa [r15], xmm11
        vpxor   xmm11, xmm11, xmm11
        vmovdqa [r15 + 16], xmm11
        ; the F_G pairs: ceil((t + 1) / 2) - fp of them, powers after the full pairs'
        lea     rdx, [r13 + 2]
        shr     rdx, 1
        sub     rdx, r9                                 ; >= 1
        mov     r14, 31
        sub     r14, r13
        shl     r14, 4
        add     r14, rdi
        add     r14, KEY_HPOW                           ; HPOW(t + 1)
        mov     rsi, r9
        shl     rsi, 5
        add     r14, rsi                                ; ... + 32 fp
        lea     r15, [rsp + F_G]
        vmovdqa xmm11, [r15]
        vinserti128 ymm11, ymm11, [r15 + 16], 1
        vpshufb ymm11, ymm11, ymm14
        test    r9, r9
        jnz     .g_next0
        vpxor   ymm11, ymm11, ymm10                     ; no full pair: S joins here
        GHY_FIRST y, ymm11, [r14], [r14 + KEY_HKAR - KEY_HPOW]
        jmp     .g_loop
.g_next0:
        GHY_NEXT y, ymm11, [r14], [r14 + KEY_HKAR - KEY_HPOW]
.g_loop:
        dec     rdx
        jz      .g_done
        add     r15, 32
        add     r14, 32
        vmovdqa xmm11, [r15]
        vinserti128 ymm11, ymm11, [r15 + 16], 1
        vpshufb ymm11, ymm11, ymm14
        GHY_NEXT y, ymm11, [r14], [r14 + KEY_HKAR - KEY_HPOW]
        jmp     .g_loop
.g_done:
        GHY_REDUCE
        vpshufb xmm10, xmm10, xmm14
        vpxor   xmm10, xmm10, [rsp + F_EK0]             ; T = E_K(J0) ^ S
        mov     r13, [rbp + 24]
        xor     eax, eax
        cmp     dword [rsp + F_MODE], 0
        jne     .tag12
        vmovdqu [r13], xmm10                            ; the full tag for the caller
        jmp     .out
.tag12:
        mov     r12, [rsp + F_TLEN]
        cmp     dword [rsp + F_DEC], 0
        jne     .check
        vmovdqa [rsp + F_B1], xmm10                     ; tag_len bytes through the bounce slot
        lea     r14, [rsp + F_B1]
        COPY_N  r13, r14, r12, r9, r10, r11
        jmp     .out
.check:
        mov     ecx, r12d
        mov     r10d, 1
        shl     r10d, cl
        dec     r10d                                    ; the counted bytes
        vpcmpeqb xmm0, xmm10, [rsp + F_ETAG]            ; all 16 bytes, no early exit
        vpmovmskb edx, xmm0
        not     edx
        test    edx, r10d                               ; counted bytes that differ
        setnz   al                                      ; 1: the tag failed
.out:
        vpxor   xmm0, xmm0, xmm0                        ; wipe the frame: E_K(J0), ZK, the
%assign _w 0                                            ; bounce and staging slots
%rep F_WIPE / 32
        vmovdqa [rsp + 32 * _w], ymm0
%assign _w _w + 1
%endrep
        CLEAR_VREGS ymm
        FRAME_LEAVE

        ; GMAC (no message) whose AAD does not end a group of 16 blocks: 16-block groups while
        ; more than 31 blocks remain, then the last m <= 31 blocks as the tail's final GHASH
        ; takes a message's (.g_stage): full pairs from memory, the odd full block and the
        ; partial one staged in F_G, then the length block: m + 1 blocks with H^(m+1)..H^1 and
        ; one reduction, where GHASH_LOOP reduced per group of 16, 8, 2 and 1 and the length
        ; block then once more. (AAD in whole groups of 16: .gmac16, whose unrolled last group
        ; beat this pair loop by 2-7% at 256 bytes on Intel.)
.gmac16:
        ; GMAC, AAD in whole groups of 16: the groups before the last as GHASH_LOOP hashes
        ; them, the last by H^17..H^2 and the length block by H^1, one reduction (.g_done)
        mov     r9, r11
.gw16:
        cmp     r9, 256
        jbe     .gw_last
        GH_GROUP 16, r10
        add     r10, 256
        sub     r9, 256
        jmp     .gw16
.gw_last:
%assign _s 0
%rep 8
        GH_STEP _s, 16, r10, 1
%assign _s _s + 1
%endrep
        mov     rbx, r11
        shl     rbx, 3
        vmovq   xmm11, rbx
        vpslldq xmm11, xmm11, 8                         ; L = {0, aad bits} (V form)
        vpclmulqdq xmm12, xmm11, [rdi + HPOW(1)], 0x00  ; VEX.128 products, ymm sums
        vpxor   ymm8, ymm8, ymm12
        vpclmulqdq xmm12, xmm11, [rdi + HPOW(1)], 0x11
        vpxor   ymm10, ymm10, ymm12
        vpshufd xmm12, xmm11, 0x4e
        vpxor   xmm12, xmm12, xmm11
        vpclmulqdq xmm12, xmm12, [rdi + HKAR(1)], 0x00
        vpxor   ymm9, ymm9, ymm12
        jmp     .g_done
.gmac:
        mov     r9, r11
.gm16:
        cmp     r9, 16 * 31
        jbe     .gm_last
        GH_GROUP 16, r10
        add     r10, 256
        sub     r9, 256
        jmp     .gm16
.gm_last:
        lea     r13, [r9 + 15]
        shr     r13, 4                                  ; m (0..31)
        mov     r12, r9
        and     r12, 15                                 ; partial bytes
        shr     r9, 4                                   ; full blocks
        mov     rcx, r9
        shl     rcx, 4
        add     rcx, r10                                ; the partial block's bytes
        lea     rdx, [rsp + F_G]                        ; the next special slot
        shr     r9, 1                                   ; fp: full pairs
        jnc     .gm_even
        mov     rsi, r9
        shl     rsi, 5
        add     rsi, r10
        vmovdqu xmm0, [rsi]                             ; the odd full block
        vmovdqa [rdx], xmm0
        add     rdx, 16
.gm_even:
        test    r12, r12
        jz      .gm_staged
        LOAD_N  xmm0, rcx, r12, r8, r14, r15
        vmovdqa [rdx], xmm0
.gm_staged:
        GH_FULL r10
        jmp     .g_stage

; ---------------------------------------------------------------------------------------------
; The short path of mbgcmi_avx2_gcm12: len <= SHORT_MAX (64 blocks) and aad_len <=
; SHORT_AAD_MAX, the arguments as mbgcmi_avx2_gcm12's. A
; short message's cost is its fixed part, so up to 16 blocks everything runs in one AES pass
; and one GHASH reduction:
;   - E_K(J0) is block 0 of the pass: ymm j holds the counter blocks J0 + 2j, J0 + 2j + 1
;     (j < Q = t/2 + 1, t = the message's blocks), so lane 0 of ymm0 ends as E_K(J0) and the
;     key stream of message block c sits in lane (c + 1) % 2 of ymm (c + 1) / 2. The blocks
;     after round 0 are ZK ^ SCTR[j] (ZK: IV || 0 ^ rk0 in both lanes; the counter words of a
;     12-byte IV's J0 are constants).
;   - GHASH runs over A, C0..C(t-1), L with H^(t+2)..H^1 (m = t + 2 blocks): A is the AAD block
;     zero-padded, or a zero block without AAD (it then adds nothing); with 17..64 bytes of
;     AAD, A is its last block XORed with Y = GHASH(the blocks before it), made at entry
;     (GHASH's chaining: A's product with H^(t+2) then carries theirs). That puts A and C0 in
;     pair 0 and C(2j-1), C(2j) in pair j: the same lanes as the key stream, so each pair's
;     GHASH input is the pair just xored (encrypt) or just loaded (decrypt), straight from the
;     registers, one 32-byte power load [H^(m-2j), H^(m-2j-1)] per pair, one reduction.
;   - The end pair (the first pair j_e that is not two full message blocks): its input bytes
;     loaded into a register by LOAD_N (bounce.inc: two overlapping scalar loads, zero-padded,
;     no stack slot: a 16-byte load of narrower stores would wait for them to reach the cache),
;     its output staged on the stack (F_SKS, masked to the message's bytes) and copied
;     byte-exactly (COPY_N); a partial AAD block is loaded the same way. L takes its lane 1
;     when it has one message block at most, else L is hashed alone with H^1 (xmm).
; Above 16 blocks the same pairs run as several passes (.s_front): pairs 0..7 (E_K(J0), A,
; C0..C14: always full) hashed with H^16..H^1 and reduced to Y, the GHASH state after those 16
; blocks; then, while more than 32 blocks remain, a middle pass of 16 full blocks whose GHASH
; starts from Y H^16 (Y joins its first block) and is reduced to the next Y (in and out advance
; by 256, len shrinks by 256, the counter rows move on by 8); then the last pairs (up to 17
; blocks and L) as above, with Y H^(t-14) as the first product of their GHASH (t counted from
; the last pass's base). The powers stop at H^32, hence the passes; each reduction overlaps the
; next pass's AES. A decrypt's first and middle passes hash their input between their own
; rounds (SF_DEC_STEP, SM_DEC_STEP; the input exists before the pass), then xor and store.
; The length block takes the full length from F_SLEN.
; Register plan (short path)
;   rdi k   rsi iv, then the power pointer (rdi + HPOW(m) - KEY_HPOW; the last of several
;   passes: HPOW(t - 14))   r8 in   r9 len (above 32 blocks: the part from r8)
;   rbx out   r12 tag   r11 aad_len   rcx tag_len | decrypt << 8 (reloaded from [rbp+32] for the
;   tag)   eax rounds, then the result   r10 t, scratch   r13 Q - 1, then the next pass's counter
;   rows (several passes), the end pair's bytes rb   rdx end pair's offset, copy pointers
;   r14 copy scratch   r15 copy scratch, the last pass's ymm count   (all lengths: public)
;   ymm0-8   the counter blocks -> key stream pairs (ymm0 lane 0: E_K(J0)); a decrypt's middle
;            pass: ymm8 the pair it hashes (SM_DEC_STEP)
;   ymm9     A (byte order) until pair 0 is hashed; then LO   ymm10 MI   ymm11 HI, then S and T
;            (several passes: Y in xmm11 until its product starts the next pass's sums; an
;            encrypt's: xmm9 the first block of the pending pair 0, SPE_STEP)
;   ymm12    ZK until the counter blocks are made, then GHASH scratch   ymm13 round key; then
;            the pair hashed
;   ymm14    BSWAP   ymm15 E_K(J0) (xmm) after the pass; during a pass that hashes (SF_DEC_STEP,
;            SPE_STEP) the pair hashed, E_K(J0) then waiting in F_SEK (encrypt)
;   ymm1-3   after the pairs: L (V form), the end pair's input, scratch
;   stack    F_SETAG the expected tag, F_SKS, F_STB the tag bounce, F_SZK, F_SEK; F_SLEN the
;            length (public: the long path's public F_PEND slot); all wiped, no secret slot
;            overlaps the long path's public slots
%define F_SETAG 16              ; 16: decrypt: the expected tag, zero-padded
%define F_STB   64              ; 16: the tag, bounced (tag_len < 16)
%define F_SKS   96              ; 32: the end pair's output, masked
%define F_SLEN  80              ; 8: len (public; the long path's F_PEND slot, also public)
%define F_SZK   128             ; 32: ZK, kept over the first pass's GHASH (t > 16)
%define F_SEK   32              ; 16: encrypt, t > 16: E_K(J0) while ymm15 holds pairs
; F_ADVANCE: after a middle pass, in/out/len and the counter rows move on by 16 blocks
%macro F_ADVANCE 0
        add     r8, 256
        add     rbx, 256
        sub     r9, 256
        add     r13, 256
%endmacro
; F_LAST_SETUP: r10 = t counted from r8, rsi = the power pointer ([rsi + KEY_HPOW] =
; HPOW(t - 14)), r15 = the last pass's ymm count (t - 14) / 2
%macro F_LAST_SETUP 0
        lea     r10, [r9 + 15]
        shr     r10, 4
        mov     rsi, 46
        sub     rsi, r10
        shl     rsi, 4
        add     rsi, rdi
        lea     r15, [r10 - 14]
        shr     r15, 1
%endmacro
; F_LAST_PASS prefix, io, step: the last pass of r15 (1..9) ymm, then io
%macro F_LAST_PASS 3
%assign _q 1
%rep 8
        cmp     r15, _q
        je      %1 %+ _q
%assign _q _q + 1
%endrep
        S_PASS  9, r13, %2, %3
%assign _q 1
%rep 8
%1 %+ _q:
        S_PASS  _q, r13, %2, %3
%assign _q _q + 1
%endrep
%endmacro
%define SFRAME  160

; SGH_FIRST X, HP, HK / SGH_NEXT X, HP, HK: as GHY_FIRST / GHY_NEXT (ghash_avx2.inc) with
; LO = ymm9, MI = ymm10, HI = ymm11, scratch ymm12 (ymm8 is a key stream pair here).
; SGH_NEXT_X X, HP, HK: one block in xmm X; the products are VEX.128 (high lanes zero) and
; accumulate into the full ymm sums.
; SGH_FIRSTW w, X, HP, HK / SGH_NEXTW w, X, HP, HK: products at width w (y: ymm, x: xmm, whose
; VEX.128 forms zero the high lanes), sums always the full ymm registers
%macro SGH_FIRSTW 4
        vpclmulqdq %1 %+ mm9, %2, %3, 0x00
        vpclmulqdq %1 %+ mm11, %2, %3, 0x11
        vpshufd    %1 %+ mm12, %2, 0x4e
        vpxor      %1 %+ mm12, %1 %+ mm12, %2
        vpclmulqdq %1 %+ mm10, %1 %+ mm12, %4, 0x00
%endmacro
%macro SGH_NEXTW 4
        vpclmulqdq %1 %+ mm12, %2, %3, 0x00
        vpxor      ymm9, ymm9, ymm12
        vpclmulqdq %1 %+ mm12, %2, %3, 0x11
        vpxor      ymm11, ymm11, ymm12
        vpshufd    %1 %+ mm12, %2, 0x4e
        vpxor      %1 %+ mm12, %1 %+ mm12, %2
        vpclmulqdq %1 %+ mm12, %1 %+ mm12, %4, 0x00
        vpxor      ymm10, ymm10, ymm12
%endmacro
%define SGH_FIRST   SGH_FIRSTW y,
%define SGH_NEXT    SGH_NEXTW y,
%define SGH_FIRST_X SGH_FIRSTW x,
%define SGH_NEXT_X  SGH_NEXTW x,
; SGH_REDUCE: fold the two lanes (partial sums of one message; everything is linear), then one
; reduction as GHY_REDUCE_LANES: S (V form) in xmm11
%macro SGH_REDUCE 0
        vextracti128 xmm12, ymm9, 1
        vpxor      xmm9, xmm9, xmm12
        vextracti128 xmm12, ymm10, 1
        vpxor      xmm10, xmm10, xmm12
        vextracti128 xmm12, ymm11, 1
        vpxor      xmm11, xmm11, xmm12
        vpxor      xmm10, xmm10, xmm9
        vpxor      xmm10, xmm10, xmm11                  ; MI ^= LO ^ HI
        vpclmulqdq xmm12, xmm9, [POLY], 0x00
        vpshufd    xmm9, xmm9, 0x4e
        vpxor      xmm10, xmm10, xmm9
        vpxor      xmm10, xmm10, xmm12                  ; fold LO into MI
        vpclmulqdq xmm12, xmm10, [POLY], 0x00
        vpshufd    xmm10, xmm10, 0x4e
        vpxor      xmm11, xmm11, xmm10
        vpxor      xmm11, xmm11, xmm12                  ; fold MI into HI
%endmacro

; SF_DEC_STEP s / SM_DEC_STEP s: a decrypt's first / middle pass hashes its input between its
; rounds (the input exists before the pass; ymm12 is free once the counter blocks are made):
; steps 0..7 the pairs of the first pass ([A, C0], [C1, C2], ..) / of a middle one (ymm15, free
; until E_K(J0) is taken, / ymm8 the pair), step 8 the reduction (Y in xmm11). S_FRONT_IO /
; S_MID_IO then xor and store the pairs (pair 0's first lane, E_K(J0) ^ garbage, is not stored).
; SPE_STEP s: an encrypt's pass (middle or last) hashes the previous pass's output pairs
; between its rounds, the way the long path's groups do: pair 0 is [xmm9, the block at rbx]
; (xmm9: A after the first pass, the first block of the pair after a middle pass, at rbx - 16)
; with Y (xmm11, zero after the first pass: A carries the AAD's state) joining its first block,
; pair j at rbx + 32j - 16, H^16..H^1, step 8 the reduction (the next Y). E_K(J0) waits in
; F_SEK meanwhile (ymm15 is the pair).
; S_PAIR_STEP s, base, y: step s of hashing the eight pairs [xmm9, the block at base], then
; base + 32j - 16 (j = 1..7) with H^16..H^1, step 8 the reduction; y (a ymm whose high lane is
; zero, or 0 for none) joins the first block: SF_DEC_STEP (the input at r8) and SPE_STEP (the
; previous pass's output at rbx, Y in ymm11)
%macro S_PAIR_STEP 3
%assign _ds (%1)
%if _ds == 0
        vinserti128 ymm15, ymm9, [%2], 1
        vpshufb ymm15, ymm15, ymm14
%ifnidn %3, 0
        vpxor   ymm15, ymm15, %3
%endif
        SGH_FIRST ymm15, [rdi + HPOW(16)], [rdi + HKAR(16)]
%elif _ds < 8
        vmovdqu ymm15, [%2 + 32 * _ds - 16]
        vpshufb ymm15, ymm15, ymm14
        SGH_NEXT ymm15, [rdi + HPOW(16 - 2 * _ds)], [rdi + HKAR(16 - 2 * _ds)]
%else
        SGH_REDUCE
%endif
%endmacro
%macro SF_DEC_STEP 1
        S_PAIR_STEP %1, r8, 0                           ; [A, in block 0], ..
%endmacro
%macro SM_DEC_STEP 1
%assign _ds (%1)
%if _ds < 8
        vmovdqu ymm8, [r8 + 240 + 32 * _ds]
        vpshufb ymm8, ymm8, ymm14
        SGH_NEXT ymm8, [rdi + HPOW(16 - 2 * _ds)], [rdi + HKAR(16 - 2 * _ds)]
%else
        SGH_REDUCE
%endif
%endmacro
%macro SPE_STEP 1
        S_PAIR_STEP %1, rbx, ymm11                      ; Y joins (high lane of Y is 0)
%endmacro
%macro S_FRONT_IO 1                            ; E_K(J0) to %1
        vmovdqa %1, xmm0
        vbroadcasti128 ymm13, [r8]
        vpxor   ymm0, ymm0, ymm13
        vextracti128 [rbx], ymm0, 1
%assign _j 1
%rep 7
        vpxor   ymm %+ _j, ymm %+ _j, [r8 + 32 * _j - 16]
        vmovdqu [rbx + 32 * _j - 16], ymm %+ _j
%assign _j _j + 1
%endrep
%endmacro
%macro S_MID_IO 0
%assign _j 0
%rep 8
        vpxor   ymm %+ _j, ymm %+ _j, [r8 + 240 + 32 * _j]
        vmovdqu [rbx + 240 + 32 * _j], ymm %+ _j
%assign _j _j + 1
%endrep
%endmacro

; S_PASS n, row, io[, step]: the counter blocks of ymm0..ymm(n-1) (ZK ^ SCTR rows row..), the
; AES rounds (with "step s" after round s + 1 when given), then jump to io
%macro S_PASS 3-4 0
%assign _z 0
%rep %1
        vpxor   ymm %+ _z, ymm12, [%2 + 32 * _z]
%assign _z _z + 1
%endrep
        AES_W   %1, 0, 0, 0, %4
        jmp     %3
%endmacro

; S_LEN: xmm1 = L in V form ({len bits, aad bits}: the byte-reflected length block)
%macro S_LEN 0
        mov     r10, [rsp + F_SLEN]
        shl     r10, 3
        vmovq   xmm1, r10
        mov     r10, r11
        shl     r10, 3
        vpinsrq xmm1, xmm1, r10, 1
%endmacro

; S_PAIR0 dec, power, karatsuba: pair 0, [A, C0] (the AAD block beside message block 0): xor,
; store, GHASH started with that power pair (the first product of the pass's sums)
%macro S_PAIR0 3
        vinserti128 ymm13, ymm9, [r8], 1                ; [A, in block 0]
        vpxor   ymm0, ymm0, ymm13
        vextracti128 [rbx], ymm0, 1
%if %1 == 0
        vpblendd ymm13, ymm13, ymm0, 0xf0               ; encrypt: [A, C0]
%endif
        vpshufb ymm13, ymm13, ymm14
        SGH_FIRST ymm13, %2, %3
%endmacro


; S_IO dec, rest: the pairs' xor, stores and GHASH, the end pair, the reduction and the tag, for one
; direction (0 encrypt, 1 decrypt); ends at .s_out with eax the result
%macro S_IO 2
%if %2 == 0
 %define _OFF(j) (32 * (j) - 16)                       ; pair j's first message byte
 %assign _SJ0 1
        vmovdqa xmm15, xmm0                             ; E_K(J0)
        cmp     r9, 16
        jb      %%end0                                  ; no full message block
        S_PAIR0 %1, [rsi + KEY_HPOW], [rsi + KEY_HKAR]
%else
 %define _OFF(j) (240 + 32 * (j))                      ; the second pass: pair j at C(15 + 2j)
 %assign _SJ0 0
%endif
%assign _j _SJ0
%rep 8 - _SJ0
        cmp     r9, _OFF(_j) + 32
        jb      %%e %+ _j                               ; pair j is the end pair
        vmovdqu ymm13, [r8 + _OFF(_j)]                 ; (in == out: read before written)
        vpxor   ymm %+ _j, ymm %+ _j, ymm13
        vmovdqu [rbx + _OFF(_j)], ymm %+ _j
%if %1 == 0
        vpshufb ymm13, ymm %+ _j, ymm14
%else
        vpshufb ymm13, ymm13, ymm14
%endif
        SGH_NEXT ymm13, [rsi + KEY_HPOW + 32 * _j], [rsi + KEY_HKAR + 32 * _j]
%assign _j _j + 1
%endrep
        vmovdqa ymm0, ymm8                              ; pair 8 is never full
        mov     edx, _OFF(8)
        jmp     %%end
%assign _j _SJ0
%rep 8 - _SJ0
%%e %+ _j:
%if _j > 0
        vmovdqa ymm0, ymm %+ _j
%endif
        mov     edx, _OFF(_j)
        jmp     %%end
%assign _j _j + 1
%endrep
%%end:
        ; the end pair j_e: key stream in ymm0, its first message byte at rdx = OFF(j_e)
        add     r8, rdx
        add     rbx, rdx
        lea     rsi, [rsi + rdx + 32 - _OFF(1)]        ; + 32 j_e: the pair's powers
        mov     r13, r9
        sub     r13, rdx                                ; rb: its message bytes, 0..31
        S_LEN
        test    r13, r13
        jz      %%lone                                  ; only L is left
        cmp     r13, 16
        jb      %%st_lt16
        vmovdqu xmm2, [r8]                              ; (the upper lane zero)
        je      %%st_done
        lea     rax, [r8 + 16]
        lea     rcx, [r13 - 16]
        LOAD_N  xmm3, rax, rcx, r10, r14, r15
        vinserti128 ymm2, ymm2, xmm3, 1
        jmp     %%st_done
%%st_lt16:
        LOAD_N  xmm2, r8, r13, r10, r14, r15
%%st_done:
        vpxor   ymm0, ymm0, ymm2
        lea     r10, [SMASK + 32]
        sub     r10, r13
        vpand   ymm0, ymm0, [r10]                       ; the output's rb bytes, zeros after
        vmovdqa [rsp + F_SKS], ymm0
        cmp     r13, 16
        jb      %%o_lt16
        vmovdqu [rbx], xmm0
        je      %%o_done
        lea     rdx, [rbx + 16]
        lea     rax, [rsp + F_SKS + 16]
        lea     rcx, [r13 - 16]
        COPY_N  rdx, rax, rcx, r10, r14, r15
        jmp     %%o_done
%%o_lt16:
        lea     rax, [rsp + F_SKS]
        COPY_N  rbx, rax, r13, r10, r14, r15
%%o_done:
%if %1 == 0
        vpshufb ymm13, ymm0, ymm14                      ; encrypt: the padded ciphertext
%else
        vpshufb ymm13, ymm2, ymm14                      ; decrypt: the padded input
%endif
        cmp     r13, 16
        ja      %%two
        vinserti128 ymm13, ymm13, xmm1, 1               ; [last block, L]
        SGH_NEXT ymm13, [rsi + KEY_HPOW], [rsi + KEY_HKAR]
        jmp     %%reduce
%%two:
        SGH_NEXT ymm13, [rsi + KEY_HPOW], [rsi + KEY_HKAR]
%%lone:
        SGH_NEXT_X xmm1, [rdi + HPOW(1)], [rdi + HKAR(1)]
        jmp     %%reduce
%if %2 == 0
%%end0:
        ; len < 16: pair 0 is [A, the partial block C0] and L follows alone, or [A, L]
        S_LEN
        test    r9, r9
        jz      %%empty
        LOAD_N  xmm2, r8, r9, r10, r14, r15
        vextracti128 xmm3, ymm0, 1
        vpxor   xmm3, xmm3, xmm2
        lea     r10, [SMASK + 32]
        sub     r10, r9
        vpand   xmm3, xmm3, [r10]
        vmovdqa [rsp + F_SKS], xmm3
        lea     rax, [rsp + F_SKS]
        COPY_N  rbx, rax, r9, r10, r14, r15
%if %1 == 0
        vinserti128 ymm13, ymm9, xmm3, 1
%else
        vinserti128 ymm13, ymm9, xmm2, 1
%endif
        vpshufb ymm13, ymm13, ymm14
        SGH_FIRST ymm13, [rsi + KEY_HPOW], [rsi + KEY_HKAR]
        SGH_NEXT_X xmm1, [rdi + HPOW(1)], [rdi + HKAR(1)]
        jmp     %%reduce
%%empty:
        vpshufb xmm13, xmm9, xmm14
        vinserti128 ymm13, ymm13, xmm1, 1               ; [A, L]
        SGH_FIRST ymm13, [rsi + KEY_HPOW], [rsi + KEY_HKAR]
%endif
%%reduce:
        SGH_REDUCE
        vpshufb xmm11, xmm11, xmm14
        vpxor   xmm11, xmm11, xmm15                     ; T = E_K(J0) ^ S
        mov     rcx, [rbp + 32]
        movzx   r13d, cl                                ; tag_len
%if %1 == 0
        cmp     r13, 16
        jne     %%tb
        vmovdqu [r12], xmm11
        jmp     %%tdone
%%tb:
        vmovdqa [rsp + F_STB], xmm11                    ; tag_len bytes through the bounce slot
        lea     rax, [rsp + F_STB]
        COPY_N  r12, rax, r13, r10, r14, r15
%%tdone:
        xor     eax, eax
%else
        mov     r10d, 1
        shl     r10d, cl
        dec     r10d                                    ; the counted bytes
        vpcmpeqb xmm0, xmm11, [rsp + F_SETAG]           ; all 16 bytes, no early exit
        vpmovmskb edx, xmm0
        not     edx
        xor     eax, eax
        test    edx, r10d                               ; counted bytes that differ
        setnz   al                                      ; 1: the tag failed
%endif
        jmp     .s_out
%endmacro

gcm12_short:
        FRAME_ENTER SFRAME, 32
        mov     r11, rcx                                ; aad_len
        mov     [rsp + F_SLEN], r9
        mov     rbx, [rbp + 16]                         ; out
        mov     r12, [rbp + 24]                         ; tag
        mov     rcx, [rbp + 32]                         ; tag_len | decrypt << 8
        mov     eax, [rdi + KEY_ROUNDS]
        vbroadcasti128 ymm14, [BSWAP]
        ; A: the AAD zero-padded (a zero block without AAD)
        vpxor   xmm9, xmm9, xmm9
        test    r11, r11
        jz      .s_aad_done
        cmp     r11, 16
        ja      .s_aad_wide
        jne     .s_aad_part
        vmovdqu xmm9, [rdx]
        jmp     .s_aad_done
.s_aad_part:
        LOAD_N  xmm9, rdx, r11, r10, r14, r15
        jmp     .s_aad_done
.s_aad_wide:
        ; 17..64 bytes: n = ceil(aad_len / 16) - 1 full blocks A_1..A_n, then the last A_a.
        ; Y = GHASH(A_1..A_n) (V form: A_j times H^(n+1-j), one reduction) joins A_a, and A =
        ; A_a ^ Y (byte order) is the short path's A: A H^(t+2) = A_a H^(t+2) ^ Y H^(t+2), and
        ; Y H^(t+2) is what the n blocks contribute at their places. L keeps the full length.
        lea     r10, [r11 - 1]
        shr     r10, 4                                  ; n: 1..3
        cmp     r10, 2
        jb      .s_pre1
        vmovdqu ymm13, [rdx]                            ; A_1, A_2
        vpshufb ymm13, ymm13, ymm14
        mov     r14, r10
        neg     r14
        shl     r14, 4
        add     r14, rdi                                ; [r14 + 512 + KEY_HPOW] = HPOW(n)
        SGH_FIRST ymm13, [r14 + 512 + KEY_HPOW], [r14 + 512 + KEY_HKAR]
        cmp     r10, 2
        je      .s_pre_red
        vmovdqu xmm13, [rdx + 32]                       ; A_3
        vpshufb xmm13, xmm13, xmm14
        SGH_NEXT_X xmm13, [rdi + HPOW(1)], [rdi + HKAR(1)]
        jmp     .s_pre_red
.s_pre1:
        vmovdqu xmm13, [rdx]                            ; A_1
        vpshufb xmm13, xmm13, xmm14
        SGH_FIRST_X xmm13, [rdi + HPOW(1)], [rdi + HKAR(1)]
.s_pre_red:
        SGH_REDUCE                                      ; Y in xmm11
        shl     r10, 4
        add     rdx, r10                                ; A_a: 1..16 bytes
        mov     r15, r11
        sub     r15, r10
        cmp     r15, 16
        jne     .s_pre_part
        vmovdqu xmm9, [rdx]
        jmp     .s_pre_join
.s_pre_part:
        LOAD_N  xmm9, rdx, r15, r10, r14, r13
.s_pre_join:
        vpshufb xmm11, xmm11, xmm14
        vpxor   xmm9, xmm9, xmm11                       ; A = A_a ^ Y
.s_aad_done:
        vmovq   xmm12, [rsi]
        vpinsrd xmm12, xmm12, [rsi + 8], 2              ; IV || 00 00 00 00
        vpxor   xmm12, xmm12, [rdi + KEY_RK]
        vinserti128 ymm12, ymm12, xmm12, 1              ; ZK, both lanes
        ; decrypt: the expected tag, read before any output is written (it may lie in out)
        test    ecx, 0x100
        jz      .s_tag_done
        movzx   r15d, cl
        cmp     r15, 16
        jne     .s_tag_part
        vmovdqu xmm13, [r12]
        vmovdqa [rsp + F_SETAG], xmm13
        jmp     .s_tag_done
.s_tag_part:
        vpxor   xmm13, xmm13, xmm13
        vmovdqa [rsp + F_SETAG], xmm13
        lea     rdx, [rsp + F_SETAG]
        COPY_N  rdx, r12, r15, r10, r13, r14
.s_tag_done:
        lea     r10, [r9 + 15]
        shr     r10, 4                                  ; t
        cmp     r9, 256
        ja      .s_front
        ; t <= 16: the powers from H^(t+2), the pass over Q = t/2 + 1 ymm
        mov     rsi, 30
        sub     rsi, r10
        shl     rsi, 4
        add     rsi, rdi                                ; [rsi + KEY_HPOW] = HPOW(t + 2)
        mov     r13, r10
        shr     r13, 1                                  ; Q - 1
%assign _q 1
%rep 8
        cmp     r13, _q - 1
        je      .s_pass %+ _q
%assign _q _q + 1
%endrep
        S_PASS  9, SCTR, .s_io
%assign _q 1
%rep 8
.s_pass %+ _q:
        S_PASS  _q, SCTR, .s_io
%assign _q _q + 1
%endrep
.s_io:
        test    ecx, 0x100
        jnz     .s_io_dec
        S_IO    0, 0
.s_io_dec:
        S_IO    1, 0
.s_front:
        ; 16 < t <= 48: a first pass of 8 ymm (E_K(J0), C0..C14) hashed with A as 16 blocks
        ; (H^16..H^1, one reduction: Y, the GHASH state after them), then the rest, C15..C(t-1)
        ; and L (m = t - 14 blocks), as the short path's pairs 8.. (counters from SCTR row 8)
        ; with Y joining C15: Y H^m is the first product of the second GHASH
        vmovdqa [rsp + F_SZK], ymm12
        test    ecx, 0x100
        jnz     .f_pass_dec
        S_PASS  8, SCTR, .f_io
.f_io:
        ; encrypt: each pass's GHASH rides in the next pass (SPE_STEP)
        S_FRONT_IO [rsp + F_SEK]
        vpxor   xmm11, xmm11, xmm11                     ; Y = 0: A carries the AAD's state
        lea     r13, [SCTR + 32 * 8]                    ; the next pass's counter rows
.fe_mid:
        cmp     r9, 512
        jbe     .fe_last
        vmovdqa ymm12, [rsp + F_SZK]
        S_PASS  8, r13, .fe_mio, SPE_STEP
.fe_mio:
        S_MID_IO
        F_ADVANCE
        vmovdqu xmm9, [rbx - 16]                        ; the pending pair 0's first block
        jmp     .fe_mid
.fe_last:
        F_LAST_SETUP
        vmovdqa ymm12, [rsp + F_SZK]
        F_LAST_PASS .fe_pass, .fe_io, SPE_STEP
.fe_io:
        vmovdqa xmm13, xmm11                            ; Y
        SGH_FIRST_X xmm13, [rsi + KEY_HPOW], [rsi + KEY_HKAR]
        vmovdqa xmm15, [rsp + F_SEK]                    ; E_K(J0)
        S_IO    0, 1
.f_pass_dec:
        ; decrypt: each pass but the last hashes its input in its own rounds
        S_PASS  8, SCTR, .f_io_dec, SF_DEC_STEP
.f_io_dec:
        S_FRONT_IO xmm15
        lea     r13, [SCTR + 32 * 8]                    ; the next pass's counter rows
.f_mid:
        ; while more than 32 blocks remain from r8: a middle pass of 16 full blocks (C15.. from
        ; r8), Y joining its first block: Y = reduce(Y H^16 + the pairs with H^16..H^1)
        cmp     r9, 512
        jbe     .f_last
        vmovdqa xmm13, xmm11
        SGH_FIRST_X xmm13, [rdi + HPOW(16)], [rdi + HKAR(16)]
        vmovdqa ymm12, [rsp + F_SZK]
        S_PASS  8, r13, .f_mio_dec, SM_DEC_STEP
.f_mio_dec:
        S_MID_IO
        F_ADVANCE
        jmp     .f_mid
.f_last:
        F_LAST_SETUP
        vmovdqa xmm13, xmm11                            ; Y
        SGH_FIRST_X xmm13, [rsi + KEY_HPOW], [rsi + KEY_HKAR]
        vmovdqa ymm12, [rsp + F_SZK]
        F_LAST_PASS .f_pass, .f_io2, 0
.f_io2:
        S_IO    1, 1
.s_out:
        vpxor   xmm0, xmm0, xmm0                        ; wipe the frame
%assign _w 0
%rep SFRAME / 32
        vmovdqa [rsp + 32 * _w], ymm0
%assign _w _w + 1
%endrep
        CLEAR_VREGS ymm
        FRAME_LEAVE

section .note.GNU-stack noalloc noexec nowrite progbits
