; SPDX-License-Identifier: BSD-3-Clause
; rates_x86.asm — timing loops for mbgcm-rates (perf/rates/mbgcm-rates.c).
;
; Every loop has the System V signature
;     void fn(uint64_t iters, void *buf)      ; rdi = iterations (>= 1), rsi = 4 KiB, 64-aligned
; and runs |iters| times a body of straight-line instructions followed by `dec rdi; jnz`.
; The loop overhead is one fused scalar op per body, on a scalar port, beside the vector work.
;
;   mbr_<op>_t   throughput: BODY_LEN instructions spread round-robin over TPUT_CHAINS
;                independent registers, so a latency of up to TPUT_CHAINS / rate cycles hides.
;   mbr_<op>_l   latency: the same BODY_LEN instructions, each reading the previous result.
;   mbr_mix_*    interleaved mixes; mbr_mix_*_desc holds { uint32 reps; char pattern[] }: the
;                body is |reps| copies of |pattern|, one letter per instruction (see MIX).
;   mbr_ref_add  the clock reference: BODY_LEN dependent register-register additions, one core
;                cycle each (a register addend: some cores fold add-immediate chains at rename).
;   mbr_ref_add_zmm  the same with zmm AES work beside it (does 512-bit work move the clock?).
;
; Registers are loaded from buf first, so every run starts from the same values. The loops
; that touch zmm clear zmm16-31 (which VZEROUPPER leaves alone) and all end with VZEROUPPER, so
; no dirty upper state leaks into the legacy-SSE loops or into the C driver.
default rel

%define BODY_LEN    48
%define TPUT_CHAINS 12

section .rodata
global mbr_body_len:data hidden
mbr_body_len:   dd BODY_LEN
global mbr_tput_chains:data hidden
mbr_tput_chains: dd TPUT_CHAINS

section .text

; ---- register set-up ----------------------------------------------------------------------
%macro INIT_X 0                         ; xmm0-15, legacy SSE encoding
%assign %%i 0
%rep 16
        movdqu  xmm%[%%i], [rsi + 16 * %%i]
%assign %%i %%i + 1
%endrep
%endmacro

%macro INIT_Y 0                         ; ymm0-15, VEX
%assign %%i 0
%rep 16
        vmovdqu ymm%[%%i], [rsi + 32 * (%%i % 8)]
%assign %%i %%i + 1
%endrep
%endmacro

%macro INIT_Z 0                         ; zmm0-31, EVEX (AVX512F)
%assign %%i 0
%rep 32
        vmovdqu64 zmm%[%%i], [rsi + 64 * (%%i % 8)]
%assign %%i %%i + 1
%endrep
%endmacro

%macro DONE_X 0
        ret
%endmacro

%macro DONE_Y 0
        vzeroupper
        ret
%endmacro

%macro DONE_Z 0
%assign %%i 16
%rep 16
        vpxord  xmm%[%%i], xmm%[%%i], xmm%[%%i]     ; an EVEX xmm write zeroes bits 511:128
%assign %%i %%i + 1
%endrep
        vzeroupper
        ret
%endmacro

; LOOP name, chains, op, init — a function running BODY_LEN x `op r` per iteration, r cycling
; over 0..chains-1. `op` is a one-parameter macro; its register operand is r.
%macro LOOP 4
global %1:function hidden
align 64
%1:
        INIT_%4
        jmp     %%loop
align 64
%%loop:
%assign %%i 0
%rep BODY_LEN
%assign %%r %%i % %2
        %3      %%r
%assign %%i %%i + 1
%endrep
        dec     rdi
        jnz     %%loop
        DONE_%4
%endmacro

; PAIR base, op, init — mbr_<base>_t (throughput) and mbr_<base>_l (latency)
%macro PAIR 3
        LOOP    mbr_%1_t, TPUT_CHAINS, %2, %3
        LOOP    mbr_%1_l, 1, %2, %3
%endmacro

; ---- AES rounds: the round key is the other operand, the state carries the dependence --------
%macro OP_AESENC_SSE 1
        aesenc  xmm%1, xmm15
%endmacro
%macro OP_AESENCLAST_SSE 1
        aesenclast xmm%1, xmm15
%endmacro
%macro OP_VAESENC_X 1
        vaesenc xmm%1, xmm%1, xmm15
%endmacro
%macro OP_VAESENCLAST_X 1
        vaesenclast xmm%1, xmm%1, xmm15
%endmacro
%macro OP_VAESENC_Y 1
        vaesenc ymm%1, ymm%1, ymm15
%endmacro
%macro OP_VAESENCLAST_Y 1
        vaesenclast ymm%1, ymm%1, ymm15
%endmacro
%macro OP_VAESENC_Z 1
        vaesenc zmm%1, zmm%1, zmm31
%endmacro
%macro OP_VAESENCLAST_Z 1
        vaesenclast zmm%1, zmm%1, zmm31
%endmacro

PAIR aesenc_sse, OP_AESENC_SSE, X
PAIR aesenclast_sse, OP_AESENCLAST_SSE, X
PAIR vaesenc_x, OP_VAESENC_X, Y
PAIR vaesenclast_x, OP_VAESENCLAST_X, Y
PAIR vaesenc_y, OP_VAESENC_Y, Y
PAIR vaesenclast_y, OP_VAESENCLAST_Y, Y
PAIR vaesenc_z, OP_VAESENC_Z, Z
PAIR vaesenclast_z, OP_VAESENCLAST_Z, Z

; ---- carry-less multiplies: the first source carries the dependence, imm picks the halves ----
%macro OP_PCLMUL_SSE_00 1
        pclmulqdq xmm%1, xmm15, 0x00
%endmacro

%macro OP_VPCLMUL_X_00 1
        vpclmulqdq xmm%1, xmm%1, xmm15, 0x00
%endmacro
%macro OP_VPCLMUL_X_11 1
        vpclmulqdq xmm%1, xmm%1, xmm15, 0x11
%endmacro
%macro OP_VPCLMUL_X_01 1
        vpclmulqdq xmm%1, xmm%1, xmm15, 0x01
%endmacro
%macro OP_VPCLMUL_Y_00 1
        vpclmulqdq ymm%1, ymm%1, ymm15, 0x00
%endmacro
%macro OP_VPCLMUL_Y_11 1
        vpclmulqdq ymm%1, ymm%1, ymm15, 0x11
%endmacro
%macro OP_VPCLMUL_Y_01 1
        vpclmulqdq ymm%1, ymm%1, ymm15, 0x01
%endmacro
%macro OP_VPCLMUL_Z_00 1
        vpclmulqdq zmm%1, zmm%1, zmm31, 0x00
%endmacro
%macro OP_VPCLMUL_Z_11 1
        vpclmulqdq zmm%1, zmm%1, zmm31, 0x11
%endmacro
%macro OP_VPCLMUL_Z_01 1
        vpclmulqdq zmm%1, zmm%1, zmm31, 0x01
%endmacro

PAIR pclmul_sse_00, OP_PCLMUL_SSE_00, X
PAIR vpclmul_x_00, OP_VPCLMUL_X_00, Y
PAIR vpclmul_x_11, OP_VPCLMUL_X_11, Y
PAIR vpclmul_x_01, OP_VPCLMUL_X_01, Y
PAIR vpclmul_y_00, OP_VPCLMUL_Y_00, Y
PAIR vpclmul_y_11, OP_VPCLMUL_Y_11, Y
PAIR vpclmul_y_01, OP_VPCLMUL_Y_01, Y
PAIR vpclmul_z_00, OP_VPCLMUL_Z_00, Z
PAIR vpclmul_z_11, OP_VPCLMUL_Z_11, Z
PAIR vpclmul_z_01, OP_VPCLMUL_Z_01, Z

; ---- zmm helpers a GCM kernel leans on (AVX512F/BW) -------------------------------------------
%macro OP_VPXORD 1
        vpxord  zmm%1, zmm%1, zmm31
%endmacro
%macro OP_VPTERNLOGD 1
        vpternlogd zmm%1, zmm30, zmm31, 0x96    ; three-way xor, the destination is a source
%endmacro
%macro OP_VPSHUFB 1
        vpshufb zmm%1, zmm%1, zmm31
%endmacro
%macro OP_VSHUFI64X2 1
        vshufi64x2 zmm%1, zmm%1, zmm31, 0x4e
%endmacro
%macro OP_VPALIGNR 1
        vpalignr zmm%1, zmm%1, zmm31, 8
%endmacro
%macro OP_VINSERTI32X4_R 1
        vinserti32x4 zmm%1, zmm%1, xmm31, 2
%endmacro
%macro OP_VINSERTI32X4_M 1
        vinserti32x4 zmm%1, zmm%1, [rsi + 16 * (%1 % 4)], 2
%endmacro
%macro OP_VPSHUFD 1
        vpshufd zmm%1, zmm%1, 0x4e
%endmacro
; Loads and the store have no register input: only their throughput is timed.
%macro OP_VBROADCASTI32X4 1
        vbroadcasti32x4 zmm%1, [rsi + 16 * (%1 % 16)]
%endmacro
%macro OP_VMOVDQU8_KZ 1
        vmovdqu8 zmm%1{k1}{z}, [rsi + 64 * (%1 % 8)]   ; zero-masking: no merge dependence
%endmacro
%macro OP_VMOVDQU64_LD 1
        vmovdqu64 zmm%1, [rsi + 64 * (%1 % 8)]
%endmacro
%macro OP_VMOVDQU64_ST 1
        vmovdqu64 [rsi + 2048 + 64 * (%1 % 8)], zmm%1
%endmacro

PAIR vpxord, OP_VPXORD, Z
PAIR vpternlogd, OP_VPTERNLOGD, Z
PAIR vpshufb, OP_VPSHUFB, Z
PAIR vshufi64x2, OP_VSHUFI64X2, Z
PAIR vpalignr, OP_VPALIGNR, Z
PAIR vinserti32x4_r, OP_VINSERTI32X4_R, Z
PAIR vinserti32x4_m, OP_VINSERTI32X4_M, Z
PAIR vpshufd, OP_VPSHUFD, Z
LOOP mbr_vbroadcasti32x4_t, TPUT_CHAINS, OP_VBROADCASTI32X4, Z
LOOP mbr_vmovdqu64_ld_t, TPUT_CHAINS, OP_VMOVDQU64_LD, Z
LOOP mbr_vmovdqu64_st_t, TPUT_CHAINS, OP_VMOVDQU64_ST, Z

; The masked load: 44 of 64 bytes, the shape of a message tail.
global mbr_vmovdqu8_kz_t:function hidden
align 64
mbr_vmovdqu8_kz_t:
        mov     rax, (1 << 44) - 1
        kmovq   k1, rax
        jmp     mbr_vmovdqu8_kz_body
        LOOP    mbr_vmovdqu8_kz_body, TPUT_CHAINS, OP_VMOVDQU8_KZ, Z

; Byte-masked stores of the same 44-byte shape at each width (a message tail written in place).
%macro OP_VMOVDQU8_KST_X 1
        vmovdqu8 [rsi + 2048 + 64 * (%1 % 8)]{k1}, xmm%1
%endmacro
%macro OP_VMOVDQU8_KST_Y 1
        vmovdqu8 [rsi + 2048 + 64 * (%1 % 8)]{k1}, ymm%1
%endmacro
%macro OP_VMOVDQU8_KST_Z 1
        vmovdqu8 [rsi + 2048 + 64 * (%1 % 8)]{k1}, zmm%1
%endmacro
%macro KST 2                    ; name, op: the 44-byte mask (its low 16 or 32 bits below zmm)
global %1_t:function hidden
align 64
%1_t:
        mov     rax, (1 << 44) - 1
        kmovq   k1, rax
        jmp     %1_body
        LOOP    %1_body, TPUT_CHAINS, %2, Z
%endmacro
KST mbr_vmovdqu8_kst_x, OP_VMOVDQU8_KST_X
KST mbr_vmovdqu8_kst_y, OP_VMOVDQU8_KST_Y
KST mbr_vmovdqu8_kst_z, OP_VMOVDQU8_KST_Z

; Rows of four keys: zmm r gets the 16-byte blocks at four addresses 256 bytes apart (four key
; objects' round key), lane l from the l-th, the two ways a multi-buffer kernel can build it.
; GROWM: a broadcast and three broadcasts merged under lane masks (k2..k4); GROWH: two ymm
; halves (vinserti32x4 from memory) joined by vinserti64x4 through temporary register t.
%macro GROWM 2                          ; r, memory offset
        vbroadcasti32x4 zmm%[%1], [rsi + %2]
        vbroadcasti32x4 zmm%[%1]{k2}, [rsi + %2 + 256]
        vbroadcasti32x4 zmm%[%1]{k3}, [rsi + %2 + 512]
        vbroadcasti32x4 zmm%[%1]{k4}, [rsi + %2 + 768]
%endmacro
%macro GROWH 3                          ; r, t, memory offset
        vmovdqu64 xmm%[%1], [rsi + %3]
        vinserti32x4 ymm%[%1], ymm%[%1], [rsi + %3 + 256], 1
        vmovdqu64 xmm%[%2], [rsi + %3 + 512]
        vinserti32x4 ymm%[%2], ymm%[%2], [rsi + %3 + 768], 1
        vinserti64x4 zmm%[%1], zmm%[%1], ymm%[%2], 1
%endmacro
%macro LANEMASKS 0                      ; k2, k3, k4: dwords of lanes 1, 2, 3
        mov     eax, 0x00F0
        kmovw   k2, eax
        mov     eax, 0x0F00
        kmovw   k3, eax
        mov     eax, 0xF000
        kmovw   k4, eax
%endmacro
%macro OP_GROWM 1
        GROWM   %1, 16 * (%1 % 8)
%endmacro
%macro OP_GROWH 1
%assign %%t %1 + 12
        GROWH   %1, %%t, 16 * (%1 % 8)
%endmacro
global mbr_growm_t:function hidden
align 64
mbr_growm_t:
        LANEMASKS
        jmp     mbr_growm_body
        LOOP    mbr_growm_body, TPUT_CHAINS, OP_GROWM, Z
LOOP mbr_growh_t, TPUT_CHAINS, OP_GROWH, Z

; ---- mixes ------------------------------------------------------------------------------------
; Letters and their registers (each class cycles over its own independent chains):
;   A  vaesenc    zmm0-9,   round key zmm31
;   C  vpclmulqdq zmm10-17, imm 0x00, other factor zmm30
;   S  vpshufb    zmm18-23, control zmm31
;   X  vshufi64x2 zmm18-23 (never in the same mix as S), W  vpshufd zmm18-23 (nor as S, X)
;   T  vpternlogd zmm24-29, sources zmm30, zmm31
;   K  vmovdqu8 store of zmm24-29 under a 44-byte mask (k1), P  the plain vmovdqu64 store
;      (never in the same mix as T)
;   B  vbroadcasti32x4 zmm24-29 from memory (16 bytes), L  the plain 64-byte vmovdqu64 load
;      (never in the same mix as T): a round-key or hash-key row read each way
;   M  a row of four keys from merged broadcasts (GROWM) into zmm24-29, H  the same from two
;      ymm halves (GROWH, temporaries zmm18-23; never in the same mix as T, S or X)
%macro MIX_A 0
%assign %%r 0 + (mix_a % 10)
        vaesenc zmm%[%%r], zmm%[%%r], zmm31
%assign mix_a mix_a + 1
%endmacro
%macro MIX_C 0
%assign %%r 10 + (mix_c % 8)
        vpclmulqdq zmm%[%%r], zmm%[%%r], zmm30, 0x00
%assign mix_c mix_c + 1
%endmacro
%macro MIX_S 0
%assign %%r 18 + (mix_s % 6)
        vpshufb zmm%[%%r], zmm%[%%r], zmm31
%assign mix_s mix_s + 1
%endmacro
%macro MIX_X 0
%assign %%r 18 + (mix_s % 6)
        vshufi64x2 zmm%[%%r], zmm%[%%r], zmm31, 0x4e
%assign mix_s mix_s + 1
%endmacro
%macro MIX_W 0
%assign %%r 18 + (mix_s % 6)
        vpshufd zmm%[%%r], zmm%[%%r], 0x4e
%assign mix_s mix_s + 1
%endmacro
; MIX_NEXT stride: the next register of the T class (mix_r) and a memory offset (mix_o) that
; cycles over eight slots |stride| bytes apart
%macro MIX_NEXT 1
%assign mix_r 24 + (mix_t % 6)
%assign mix_o (%1) * (mix_t % 8)
%assign mix_t mix_t + 1
%endmacro
%macro MIX_T 0
        MIX_NEXT 0
        vpternlogd zmm%[mix_r], zmm30, zmm31, 0x96
%endmacro
%macro MIX_K 0
        MIX_NEXT 64
        vmovdqu8 [rsi + 2048 + mix_o]{k1}, zmm%[mix_r]
%endmacro
%macro MIX_P 0
        MIX_NEXT 64
        vmovdqu64 [rsi + 2048 + mix_o], zmm%[mix_r]
%endmacro
%macro MIX_B 0
        MIX_NEXT 16
        vbroadcasti32x4 zmm%[mix_r], [rsi + mix_o]
%endmacro
%macro MIX_L 0
        MIX_NEXT 64
        vmovdqu64 zmm%[mix_r], [rsi + mix_o]
%endmacro
%macro MIX_M 0
        MIX_NEXT 16
        GROWM   mix_r, mix_o
%endmacro
%macro MIX_H 0
        MIX_NEXT 16
%assign %%t mix_r - 6
        GROWH   mix_r, %%t, mix_o
%endmacro

; MIX name, reps, 'pattern'
%macro MIX 3
section .rodata
align 4
global mbr_mix_%1_desc:data hidden
mbr_mix_%1_desc:
        dd      %2
        db      %3, 0
section .text
global mbr_mix_%1:function hidden
align 64
mbr_mix_%1:
        INIT_Z
        mov     rax, (1 << 44) - 1                      ; the K stores' mask
        kmovq   k1, rax
        LANEMASKS                                       ; the M rows' lane masks
        jmp     %%loop
align 64
%%loop:
%assign mix_a 0
%assign mix_c 0
%assign mix_s 0
%assign mix_t 0
%strlen %%len %3
%rep %2
%assign %%j 1
%rep %%len
%substr %%ch %3 %%j
%if %%ch == 'A'
        MIX_A
%elif %%ch == 'C'
        MIX_C
%elif %%ch == 'S'
        MIX_S
%elif %%ch == 'X'
        MIX_X
%elif %%ch == 'W'
        MIX_W
%elif %%ch == 'T'
        MIX_T
%elif %%ch == 'K'
        MIX_K
%elif %%ch == 'P'
        MIX_P
%elif %%ch == 'B'
        MIX_B
%elif %%ch == 'L'
        MIX_L
%elif %%ch == 'M'
        MIX_M
%elif %%ch == 'H'
        MIX_H
%else
%error unknown mix letter
%endif
%assign %%j %%j + 1
%endrep
%endrep
        dec     rdi
        jnz     %%loop
        DONE_Z
%endmacro

MIX ac11, 24, 'AC'                      ; 1:1
MIX ac21, 16, 'AAC'                     ; 2:1
MIX ac41, 10, 'AAAAC'                   ; 4:1
MIX ac72, 6,  'AAACAAAAC'               ; 7:2, AES-256 rounds against GHASH products
; One 32-block group of the single-stream kernels (by32): eight zmm of counters through 11
; (AES-128) or 15 (AES-256) rounds against the group's GHASH, 24 Karatsuba products and the
; reduction's 2; half a group per copy, the products spread evenly between the rounds.
MIX g128, 2, 'AAACAAAACAAACAAAACAAACAAACAAAACAAACAAACAAAACAAACAAAACAAAC'
MIX g256, 2, 'AAAAACAAAACAAAAACAAAACAAAAACAAAAACAAAACAAAAACAAAAACAAAACAAAAACAAAACAAAAAC'
; What shares the AES unit's pipes: one operation of a kind per two rounds (hidden where the
; kind issues elsewhere: overlap 1; on the rounds' pipes: overlap 0)
MIX aat, 16, 'AAT'
MIX aas, 16, 'AAS'
MIX aaw, 16, 'AAW'
MIX aax, 16, 'AAX'
; A group's rounds and products (g128) with 48 three-way xors beside them, where a kernel's
; other operations go: with both units busy, what one more vector operation costs
MIX g128t, 2, 'AAATCATAAATCATAATCAATAATCATAACTAATACATAATACTAAATCATAATCAATAATCAATACTAATAACTAATACT'
MIX ast, 16, 'AST'                      ; AES + byte shuffle + three-way xor
MIX axt, 16, 'AXT'                      ; AES + lane shuffle + three-way xor
MIX cst, 16, 'CST'                      ; GHASH: multiply + byte reflection + accumulate
MIX aak, 10, 'AAAAK'                    ; AES rounds + a masked store (a tail or tag write)
MIX aap, 10, 'AAAAP'                    ; the same with a plain store
MIX aab, 16, 'AAB'                      ; AES rounds + a 16-byte broadcast load (a key row)
MIX aal, 16, 'AAL'                      ; the same with a plain 64-byte load
MIX aam, 8, 'AAAAAM'                    ; AES rounds of five rows + their row of four keys,
MIX aah, 8, 'AAAAAH'                    ; merged or from halves (a short-job kernel at 64 B)

; ---- the clock reference ----------------------------------------------------------------------
global mbr_ref_add:function hidden
align 64
mbr_ref_add:
        xor     eax, eax
        mov     edx, 1
        jmp     .loop
align 64
.loop:
%rep BODY_LEN
        add     rax, rdx
%endrep
        dec     rdi
        jnz     .loop
        ret

; The reference under load: the same dependent additions with one zmm VAESENC per four of them
; on independent registers (12 per body, 6 cycles of AES work at two per cycle beside 48 of
; additions). Still one cycle per addition when 512-bit work does not change the core clock.
global mbr_ref_add_zmm:function hidden
align 64
mbr_ref_add_zmm:
        INIT_Z
        xor     eax, eax
        mov     edx, 1
        jmp     .loop
align 64
.loop:
%assign i 0
%rep BODY_LEN
        add     rax, rdx
%if i % 4 == 0
%assign r i / 4
        vaesenc zmm%[r], zmm%[r], zmm31
%endif
%assign i i + 1
%endrep
        dec     rdi
        jnz     .loop
        DONE_Z

section .note.GNU-stack noalloc noexec nowrite progbits
