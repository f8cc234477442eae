; SPDX-License-Identifier: BSD-3-Clause
; gcm_aesni.asm — single-stream AES-GCM kernels with AES-NI + PCLMULQDQ (xmm, legacy SSE
; encoding), eight blocks per iteration ("by8") with the GHASH stitched into the AES rounds:
; the `aesni` arch's one-shot path and the manager's path for long jobs and odd IVs. Key setup
; uses mbgcmi_aesni_hpowers on this arch (avx2 and avx512 have wider twins with the same
; output: arch/*/hpowers_*.asm); the one-block call is in aes_keyexp_aesni.asm.
;
; CPU: AES-NI, PCLMULQDQ, SSSE3 (PSHUFB), SSE4.1 — what arch/aesni/arch_aesni.c requires.
;      No VEX (AVX is not guaranteed on this arch): two-operand forms, aligned memory operands.
; ABI: System V AMD64; all xmm registers are caller-saved there. Every xmm register used is
; cleared before returning, and the stack slots that held key-derived data are zeroed.
;
; void mbgcmi_aesni_ghash(const key *k, uint64_t s[2], const uint8_t *in, size_t nblocks);
;     s = GHASH state in V form (see arch/generic/ghash_ct.c), updated over nblocks full blocks
; void mbgcmi_aesni_ctr_enc(const key *k, uint8_t ctr[16], uint64_t s[2],
;                           const uint8_t *in, uint8_t *out, size_t nblocks);
; void mbgcmi_aesni_ctr_dec(...same...);
;     CTR from counter block ctr (inc32 per block; ctr is left at the next unused value),
;     GHASH of the ciphertext (out for _enc, in for _dec) into s. in == out is allowed.
; void mbgcmi_aesni_gcm(const key *k, const uint8_t j0[16], const uint8_t *aad,
;                       size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
;                       uint8_t tag[16], int decrypt);
;     The whole message in one call (struct mbgcmi_gcm_ops.whole): E_K(J0), AAD (full blocks,
;     the rest bounced through a stack slot and zero-padded), CTR + GHASH, the partial last
;     block (bounced: no access past any buffer), the length block, T = E_K(J0) ^ S (16 bytes).
; void mbgcmi_aesni_hpowers(key *k);
;     from hpow[H^1] (Montgomery V form, already stored) fill hpow[H^2..H^32] and hkar[]
;     (four independent chains after H^4: see the function).
;
; Stitching. AESENC xmm issues twice per cycle here (latency 3), PCLMULQDQ once per cycle on
; another port, so the GHASH of eight blocks fits inside the AES rounds of eight others.
; Encrypt: the GHASH of group i-1's output (read back from dst) runs between group i's rounds,
; drained after the loop. Decrypt: the ciphertext is the input, so each group hashes its own
; input between its own rounds, before its output is stored (in == out is allowed).
; Eight blocks are hashed with H^8..H^1 and reduced once (arch/aesni/ghash_sse.inc; math:
; arch/generic/ghash_ct.c derives the V form, the Montgomery form of the key, Karatsuba, the
; two folds):
;     S' = (S ^ X0) H^8 ^ X1 H^7 ^ ... ^ X7 H^1.
;
; Counters (the Gueron-Krasnov counter trick): round key 0 is folded once per call into
; the 96 constant bits of the counter block: eight 16-byte stack slots hold
; ctr ^ rk0, each with its own counter word. Per block only that 32-bit word is rewritten, in
; general-purpose registers: (c + j) byte-swapped, xored with rk0's word 3, one 4-byte store,
; written a whole group ahead so the 16-byte reload is not waiting on store forwarding. The
; block then enters AESENC directly: round 0 costs no vector instruction, and the counter costs
; none either (a plain PADDD/PSHUFB/PXOR would take three vector uops per block on the ports
; the AES rounds and the GHASH already fill). c is a 32-bit register: inc32 wraps mod 2^32 and
; never touches the other 96 bits.
;
; Register plan (ctr kernels and gcm):
;   rdi k   rsi ctr (ctr_*), j0 (gcm)   rdx s   rcx in   r8 out   r9 blocks left
;   r10d c  the counter value of the next block (integer)     r11d rk0 word 3 (bytes 12..15)
;   eax     counter-word scratch; rounds are compared in memory ([rdi + KEY_ROUNDS])
;   gcm: rbx message length, r12/r13 AAD pointer/length, r14 partial length, r15 and r9-r12
;   copy scratch, [rbp + 16..32] out, tag, decrypt
;   xmm0-7   B0..B7   counter blocks -> key stream -> output
;   xmm8 LO  xmm9 MI  xmm10 HI; S (V form) between groups: block 0 takes S before FIRST
;   xmm11 X  xmm12 T  GHASH block and scratch
;   xmm13    data scratch      xmm14 BSWAP      xmm15 round key
;   stack    F_CB 8 x 16 counter slots (ctr ^ rk0: key-derived, wiped), F_EK0, bounce slots
default rel
%include "key.inc"
%include "frame.inc"
%include "clear.inc"
%include "bounce.inc"
%include "ghash_sse.inc"

section .rodata
%include "consts.inc"
NOCTR:          dd 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0   ; all but the counter word (bytes 12..15)

; stack frame (rsp 16-byte aligned)
%define F_CB    0               ; 8 x 16: counter blocks ^ rk0, one per block of a group
%define F_EK0   128             ; 16: E_K(J0) (gcm)
%define F_B0    144             ; 16: bounce slot (input)
%define F_B1    160             ; 16: bounce slot (output)
%define F_ZK    176             ; 16: (counter block, counter word cleared) ^ rk0
%define FRAME   192

section .text

; ---- AES -------------------------------------------------------------------------------------
%macro AESX_RND 3               ; n, round, instruction
        movdqa  xmm15, [rdi + KEY_RK + 16 * (%2)]
%assign _b 0
%rep %1
        %3      xmm %+ _b, xmm15
%assign _b _b + 1
%endrep
%endmacro
; AESX n, m, src: rounds 1..R of xmm0..xmm(n-1) (round 0 is already in the blocks), with the
; GHASH of the m blocks at src (m = 0: none) stitched after rounds 1..9. The round count is
; public (the key size): branching on it is fine.
%macro AESX 3
%assign _r 1
%rep 9
        AESX_RND %1, _r, aesenc
%if (%2) > 0
        GH_STEP _r - 1, %2, %3
%endif
%assign _r _r + 1
%endrep
        cmp     dword [rdi + KEY_ROUNDS], 10
        je      %%last10
        AESX_RND %1, 10, aesenc
        AESX_RND %1, 11, aesenc
        cmp     dword [rdi + KEY_ROUNDS], 12
        je      %%last12
        AESX_RND %1, 12, aesenc
        AESX_RND %1, 13, aesenc
        AESX_RND %1, 14, aesenclast
        jmp     %%done
%%last12:
        AESX_RND %1, 12, aesenclast
        jmp     %%done
%%last10:
        AESX_RND %1, 10, aesenclast
%%done:
%endmacro

; ---- GHASH -----------------------------------------------------------------------------------
; GH_STEP s, m, src: step s of hashing the m blocks at src (byte order) with H^m..H^1: steps
; 0..m-1 one block each (block 0 takes S in), step m the reduction into S (xmm10), later
; steps nothing.
%macro GH_STEP 3
%if (%1) < (%2)
        movdqu  xmm11, [%3 + 16 * (%1)]
        pshufb  xmm11, xmm14
 %if (%1) == 0
        pxor    xmm11, xmm10
        GHX_FIRST [rdi + HPOW(%2)], [rdi + HKAR(%2)]
 %else
        GHX_NEXT [rdi + HPOW((%2) - (%1))], [rdi + HKAR((%2) - (%1))]
 %endif
%elif (%1) == (%2)
        GHX_REDUCE
%endif
%endmacro
%macro GH_GROUP 2               ; m, src
%assign _s 0
%rep (%1) + 1
        GH_STEP _s, %1, %2
%assign _s _s + 1
%endrep
%endmacro
; GHASH_LOOP ptr, count: S over |count| full blocks at |ptr| (both advanced/consumed)
%macro GHASH_LOOP 2
%%g8:
        cmp     %2, 8
        jb      %%g1
        GH_GROUP 8, %1
        add     %1, 128
        sub     %2, 8
        jmp     %%g8
%%g1:
        test    %2, %2
        jz      %%done
        GH_GROUP 1, %1
        add     %1, 16
        dec     %2
        jmp     %%g1
%%done:
%endmacro

; ---- counters ----------------------------------------------------------------------------------
; CB_INIT ptr: ZK = (counter block at ptr, counter word cleared) ^ rk0 (its word 3 is rk0's);
; r10d = the counter, r11d = rk0's word 3
%macro CB_INIT 1
        movdqu  xmm13, [%1]
        pand    xmm13, [NOCTR]
        pxor    xmm13, [rdi + KEY_RK]
        movdqa  [rsp + F_ZK], xmm13
        mov     r10d, [%1 + 12]
        bswap   r10d
        mov     r11d, [rdi + KEY_RK + 12]
%endmacro
; CTR_BLK reg, j: reg = counter block c + j after round 0, built in registers:
; ZK ^ (bswap(c + j) in word 3)
%macro CTR_BLK 2
        lea     eax, [r10 + (%2)]
        bswap   eax
        movd    %1, eax
        pslldq  %1, 12
        pxor    %1, [rsp + F_ZK]
%endmacro
; CB_FILL: slots 0..7 = blocks c..c+7 after round 0, with full 16-byte stores (a load right
; after them forwards)
%macro CB_FILL 0
%assign _b 0
%rep 8
        CTR_BLK xmm13, _b
        movdqa  [rsp + F_CB + 16 * _b], xmm13
%assign _b _b + 1
%endrep
%endmacro
; CB_TAKE8: B_j = slot j; c += 8; each slot's counter word rewritten for the next group with
; one 4-byte store of bswap(c + j) ^ rk0.w3 (read back one group later: no forwarding stall)
%macro CB_TAKE8 0
%assign _b 0
%rep 8
        movdqa  xmm %+ _b, [rsp + F_CB + 16 * _b]
%assign _b _b + 1
%endrep
        add     r10d, 8
%assign _b 0
%rep 8
        lea     eax, [r10 + _b]
        bswap   eax
        xor     eax, r11d
        mov     [rsp + F_CB + 16 * _b + 12], eax
%assign _b _b + 1
%endrep
%endmacro
; CTR_TAKE n: B_0..B_(n-1) built in registers (tails); c += n
%macro CTR_TAKE 1
%assign _b 0
%rep %1
        CTR_BLK xmm %+ _b, _b
%assign _b _b + 1
%endrep
        add     r10d, %1
%endmacro
; XOR_STORE n: out = in ^ key stream
%macro XOR_STORE 1
%assign _b 0
%rep %1
        movdqu  xmm13, [rcx + 16 * _b]
        pxor    xmm %+ _b, xmm13
        movdqu  [r8 + 16 * _b], xmm %+ _b
%assign _b _b + 1
%endrep
%endmacro

; CTR_LOOP dec: CTR + GHASH over r9 full blocks from rcx to r8 (advanced); slots set up, S in
; xmm10, xmm14 = BSWAP.
%macro CTR_LOOP 1
%if %1 == 0
        cmp     r9, 8
        jb      %%t4
        CB_FILL
        CB_TAKE8
        AESX    8, 0, 0
        XOR_STORE 8
        add     rcx, 128
        add     r8, 128
        sub     r9, 8
%%loop:
        cmp     r9, 8
        jb      %%drain
        CB_TAKE8
        AESX    8, 8, r8 - 128                          ; the previous group's output
        XOR_STORE 8
        add     rcx, 128
        add     r8, 128
        sub     r9, 8
        jmp     %%loop
%%drain:
        GH_GROUP 8, r8 - 128
%%t4:
        cmp     r9, 4
        jb      %%t1
        CTR_TAKE 4
        AESX    4, 0, 0
        XOR_STORE 4
        GH_GROUP 4, r8
        add     rcx, 64
        add     r8, 64
        sub     r9, 4
%%t1:
        test    r9, r9
        jz      %%done
        CTR_TAKE 1
        AESX    1, 0, 0
        XOR_STORE 1
        GH_GROUP 1, r8
        add     rcx, 16
        add     r8, 16
        dec     r9
        jmp     %%t1
%else
        cmp     r9, 8
        jb      %%t4
        CB_FILL
%%loop:
        cmp     r9, 8
        jb      %%t4
        CB_TAKE8
        AESX    8, 8, rcx                               ; this group's input, before it is
        XOR_STORE 8                                     ; overwritten
        add     rcx, 128
        add     r8, 128
        sub     r9, 8
        jmp     %%loop
%%t4:
        cmp     r9, 4
        jb      %%t1
        CTR_TAKE 4
        AESX    4, 4, rcx
        XOR_STORE 4
        add     rcx, 64
        add     r8, 64
        sub     r9, 4
%%t1:
        test    r9, r9
        jz      %%done
        CTR_TAKE 1
        AESX    1, 1, rcx
        XOR_STORE 1
        add     rcx, 16
        add     r8, 16
        dec     r9
        jmp     %%t1
%endif
%%done:
%endmacro

; WIPE_FRAME: zero the whole frame (xmm0 must be zero)
%macro WIPE_FRAME 0
%assign _b 0
%rep FRAME / 16
        movdqa  [rsp + 16 * _b], xmm0
%assign _b _b + 1
%endrep
%endmacro

; ---------------------------------------------------------------------------------------------
global mbgcmi_aesni_ghash:function hidden
mbgcmi_aesni_ghash:                     ; rdi k, rsi s, rdx in, rcx nblocks
        movdqa  xmm14, [BSWAP]
        movdqu  xmm10, [rsi]
        GHASH_LOOP rdx, rcx
        movdqu  [rsi], xmm10
        CLEAR_VREGS xmm
        ret

; ---------------------------------------------------------------------------------------------
%macro CTR_FN 1
        push    rbp
        mov     rbp, rsp
        sub     rsp, FRAME
        and     rsp, -16
        movdqa  xmm14, [BSWAP]
        movdqu  xmm10, [rdx]
        CB_INIT rsi
        CTR_LOOP %1
        bswap   r10d
        mov     [rsi + 12], r10d                        ; next counter (bytes 0..11 unchanged)
        movdqu  [rdx], xmm10
        CLEAR_VREGS xmm
        WIPE_FRAME
        mov     rsp, rbp
        pop     rbp
        ret
%endmacro

global mbgcmi_aesni_ctr_enc:function hidden
mbgcmi_aesni_ctr_enc:
        CTR_FN  0

global mbgcmi_aesni_ctr_dec:function hidden
mbgcmi_aesni_ctr_dec:
        CTR_FN  1

; ---------------------------------------------------------------------------------------------
; void mbgcmi_aesni_gcm(k, j0, aad, aad_len, in, len, out, tag, decrypt)
;   rdi k, rsi j0, rdx aad, rcx aad_len, r8 in, r9 len, [rbp+16] out, [rbp+24] tag,
;   [rbp+32] decrypt. Limits as validated by the API (len <= 2^36-32, aad_len < 2^61).
global mbgcmi_aesni_gcm:function hidden
mbgcmi_aesni_gcm:
        FRAME_ENTER FRAME, 16
        mov     r12, rdx                                ; aad
        mov     r13, rcx                                ; aad_len
        mov     rcx, r8                                 ; in
        mov     rbx, r9                                 ; len
        mov     r8, [rbp + 16]                          ; out
        movdqa  xmm14, [BSWAP]
        pxor    xmm10, xmm10                            ; S = 0
        ; E_K(J0)
        movdqu  xmm0, [rsi]
        pxor    xmm0, [rdi + KEY_RK]
        AESX    1, 0, 0
        movdqa  [rsp + F_EK0], xmm0
        ; AAD: full blocks, then the rest bounced and zero-padded
        mov     r9, r13
        shr     r9, 4
        GHASH_LOOP r12, r9
        mov     r14, r13
        and     r14, 15
        jz      .aad_done
        pxor    xmm0, xmm0
        movdqa  [rsp + F_B0], xmm0
        lea     r15, [rsp + F_B0]
        COPY_N  r15, r12, r14, r9, r10, r11
        GH_GROUP 1, rsp + F_B0
.aad_done:
        ; message: counters from J0 + 1
        CB_INIT rsi
        add     r10d, 1
        mov     r9, rbx
        shr     r9, 4
        cmp     dword [rbp + 32], 0
        jne     .dec
        CTR_LOOP 0
        jmp     .partial
.dec:
        CTR_LOOP 1
.partial:
        mov     r14, rbx
        and     r14, 15
        jz      .lenblk
        pxor    xmm0, xmm0
        movdqa  [rsp + F_B0], xmm0
        lea     r15, [rsp + F_B0]
        COPY_N  r15, rcx, r14, r9, r11, r12             ; input, zero-padded (keeps c in r10)
        CTR_BLK xmm0, 0
        AESX    1, 0, 0
        lea     rdx, [BMASK + 16]
        sub     rdx, r14
        movdqu  xmm13, [rdx]
        pand    xmm0, xmm13                             ; key stream on the n message bytes only
        pxor    xmm0, [rsp + F_B0]                      ; output, zero past the end
        movdqa  [rsp + F_B1], xmm0
        lea     r15, [rsp + F_B1]
        COPY_N  r8, r15, r14, r9, r10, r11
        cmp     dword [rbp + 32], 0
        jne     .hash_in
        GH_GROUP 1, rsp + F_B1                          ; encrypt: the padded output
        jmp     .lenblk
.hash_in:
        GH_GROUP 1, rsp + F_B0                          ; decrypt: the padded input
.lenblk:
        shl     rbx, 3                                  ; bit lengths (validated: no overflow)
        shl     r13, 3
        movq    xmm11, rbx                              ; V form: {len bits, aad bits}
        pinsrq  xmm11, r13, 1
        pxor    xmm11, xmm10
        GHX_FIRST [rdi + HPOW(1)], [rdi + HKAR(1)]
        GHX_REDUCE
        pshufb  xmm10, xmm14
        pxor    xmm10, [rsp + F_EK0]                    ; T = E_K(J0) ^ S
        mov     rdx, [rbp + 24]
        movdqu  [rdx], xmm10
        CLEAR_VREGS xmm
        WIPE_FRAME
        FRAME_LEAVE

; ---------------------------------------------------------------------------------------------
; H^k for k = 2..32 and hkar[k] = (lo ^ hi) of H^k in both qwords: H^2..H^4 one after the
; other (H^k = mont(H^(k-1), H^1)), then H^k = mont(H^(k-4), H^4), so that four products are
; independent of each other and overlap in the multiplier instead of waiting on one chain of 31.
%macro HPOW_STEP 3              ; multiplicand (memory), H^j, its Karatsuba operand
        movdqa  xmm11, %1
        GHX_FIRST %2, %3
        GHX_REDUCE
        sub     rdx, 16
        movdqa  [rdx], xmm10                     ; H^k
        pshufd  xmm1, xmm10, 0x4e
        pxor    xmm1, xmm10
        movdqa  [rdx + (KEY_HKAR - KEY_HPOW)], xmm1
        inc     ecx
%endmacro
global mbgcmi_aesni_hpowers:function hidden
mbgcmi_aesni_hpowers:                  ; rdi k
        movdqa  xmm0, [rdi + HPOW(1)]
        pshufd  xmm1, xmm0, 0x4e
        pxor    xmm1, xmm0
        movdqa  [rdi + HKAR(1)], xmm1
        mov     ecx, 2
        lea     rdx, [rdi + HPOW(1)]            ; &H^(k-1): powers are stored highest first,
.next:                                          ; so H^k sits 16 bytes below H^(k-1)
        HPOW_STEP [rdx], [rdi + HPOW(1)], [rdi + HKAR(1)]
        cmp     ecx, 4
        jbe     .next
.next4:                                         ; H^(k-4) sits 64 bytes above H^k
        HPOW_STEP [rdx + 48], [rdi + HPOW(4)], [rdi + HKAR(4)]
        cmp     ecx, 32
        jbe     .next4
        CLEAR_VREGS xmm
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
