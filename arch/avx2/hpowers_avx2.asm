; SPDX-License-Identifier: BSD-3-Clause
; hpowers_avx2.asm — the hash-key powers of a key with 256-bit VPCLMULQDQ: the avx2 arch's key
; setup (mbgcmi_avx2_key_expand, arch/avx2/key_avx2.c). The ymm twin of
; arch/avx512/hpowers_avx512.asm (the math, and why, are in that file's opening comment).
;
; CPU: AVX2 + VPCLMULQDQ (the `avx2` arch). VEX only: no AVX-512 instruction, no zmm, no
;      ymm16-31, no VPTERNLOGQ. ABI: System V AMD64.
;
; void mbgcmi_avx2_hpowers(struct mbgcmi_key *k);
;     The contract of mbgcmi_aesni_hpowers (arch/aesni/gcm_aesni.asm), with the same bytes out:
;     from hpow[H^1] (Montgomery V form, already stored) fill hpow[H^2..H^32] and hkar[H^1..H^32]
;     (lo ^ hi of each power in both qwords). Powers are stored highest first (core/key.h): the
;     32-byte row at HPOW(2j+2) is [H^(2j+2) | H^(2j+1)], HKAR rows likewise.
;
; Two powers per instruction: a ymm row of two powers times one power broadcast to both lanes;
; the chain of dependent products is five long, as in the zmm kernel:
;     H^2                = H^1 * H^1                       xmm, a square: no middle product
;     [H^4 | H^3]        = [H^2 | H^2] * [H^2 | H^1]
;     [H^8..H^5]         = the 2 rows [H^4..H^1] * H^4
;     [H^16..H^9]        = the 4 rows [H^8..H^1] * H^8
;     [H^32..H^17]       = the 8 rows [H^16..H^1] * H^16
; 79 VPCLMULQDQ in all (xmm: 155). Each product is the Karatsuba product and the two folds of
; GHX_FIRST + GHX_REDUCE (arch/aesni/ghash_sse.inc) per 128-bit lane, the xors without
; VPTERNLOGQ. Every row is stored once (the H^1 lane rewrites the stored H^1 with its value).
;
; Register plan (no general-purpose register but rdi, no stack, no branch: nothing depends on
; the key but the values)
;   rdi        k
;   ymm0-4     LO, MI, HI (the product), T, the product's Karatsuba operands: scratch of every
;              product (register renaming lets the independent products of one level overlap)
;   ymm5/6     [H^2 | H^1] and its Karatsuba operands    ymm7/8   [H^4 | H^3], Karatsuba
;   ymm9/10    [H^8 | H^7], then [H^16 | H^15], Karatsuba
;   ymm11/12   the multiplier power in both lanes (H^2, H^4, H^8), its Karatsuba operand
;   ymm13/14   the last level's multiplier (H^16), Karatsuba       ymm15 POLY (0xC2.. everywhere)
;   The rows off the chain of dependent products are read back from the key, where they were
;   stored, as memory operands.
; Every vector register used is cleared before returning (CLEAR_VREGS ymm).
default rel
%include "key.inc"
%include "clear.inc"

section .rodata
%include "consts.inc"

section .text

; KMUL a, ka, b, kb: ymm2 = mont(a, b) in both lanes, ymm4 its Karatsuba operands; a is a row
; of powers (register or 32-byte memory operand), ka its Karatsuba operands (likewise), b and
; kb registers; ymm0, ymm1, ymm3 clobbered.
%macro KMUL 4
        vpclmulqdq ymm0, %3, %1, 0x00                   ; LO = a.lo b.lo
        vpclmulqdq ymm1, %4, %2, 0x00                   ; (a.lo ^ a.hi)(b.lo ^ b.hi)
        vpclmulqdq ymm2, %3, %1, 0x11                   ; HI = a.hi b.hi
        vpclmulqdq ymm3, ymm0, ymm15, 0x00              ; LO.lo * 0xC2..
        vpxor      ymm1, ymm1, ymm0
        vpxor      ymm1, ymm1, ymm2                     ; MI ^= LO ^ HI (Karatsuba fix-up)
        vpshufd    ymm0, ymm0, 0x4e                     ; swap64(LO)
        vpxor      ymm1, ymm1, ymm3
        vpxor      ymm1, ymm1, ymm0                     ; fold LO into MI
        vpclmulqdq ymm3, ymm1, ymm15, 0x00              ; MI.lo * 0xC2..
        vpshufd    ymm1, ymm1, 0x4e                     ; swap64(MI)
        vpxor      ymm2, ymm2, ymm3
        vpxor      ymm2, ymm2, ymm1                     ; fold MI into HI: the result
        vpshufd    ymm4, ymm2, 0x4e
        vpxor      ymm4, ymm4, ymm2                     ; its Karatsuba operands
%endmacro
; KROW j, a, ka, b, kb: the row [H^j | H^(j-1)] = a * b, stored with its Karatsuba operands
; (and left in ymm2 / ymm4)
%macro KROW 5
        KMUL       %2, %3, %4, %5
        vmovdqu    [rdi + HPOW(%1)], ymm2
        vmovdqu    [rdi + HKAR(%1)], ymm4
%endmacro
; ROW(j) / KRW(j): the stored row [H^j | H^(j-1)] and its Karatsuba operands, as operands
%define ROW(j)  [rdi + HPOW(j)]
%define KRW(j)  [rdi + HKAR(j)]

global mbgcmi_avx2_hpowers:function hidden
mbgcmi_avx2_hpowers:                            ; rdi k
        vmovdqa    ymm15, [POLY]
        vmovdqu    xmm5, [rdi + HPOW(1)]                ; H
        vpshufd    xmm6, xmm5, 0x4e
        vpxor      xmm6, xmm6, xmm5
        ; H^2 = mont(H, H): LO, HI and the two folds (the middle product of a square is zero)
        vpclmulqdq xmm0, xmm5, xmm5, 0x00
        vpclmulqdq xmm2, xmm5, xmm5, 0x11
        vpclmulqdq xmm3, xmm0, xmm15, 0x00
        vpshufd    xmm0, xmm0, 0x4e
        vpxor      xmm1, xmm0, xmm3                     ; MI = swap64(LO) ^ LO.lo * 0xC2..
        vpclmulqdq xmm3, xmm1, xmm15, 0x00
        vpshufd    xmm1, xmm1, 0x4e
        vpxor      xmm2, xmm2, xmm3
        vpxor      xmm2, xmm2, xmm1                     ; H^2
        vpshufd    xmm4, xmm2, 0x4e
        vpxor      xmm4, xmm4, xmm2
        ; [H^2 | H^1], and [H^4 | H^3] = [H^2 | H^1] * H^2
        vinserti128 ymm5, ymm2, xmm5, 1
        vinserti128 ymm6, ymm4, xmm6, 1
        vmovdqu    ROW(2), ymm5
        vmovdqu    KRW(2), ymm6
        vinserti128 ymm11, ymm2, xmm2, 1
        vinserti128 ymm12, ymm4, xmm4, 1
        KROW       4, ymm5, ymm6, ymm11, ymm12
        vmovdqa    ymm7, ymm2
        vmovdqa    ymm8, ymm4
        ; * H^4: [H^8 | H^7], [H^6 | H^5]
        vpermq     ymm11, ymm2, 0x44                    ; lane 0 (the row's high power) twice
        vpermq     ymm12, ymm4, 0x44
        KROW       8, ymm7, ymm8, ymm11, ymm12
        vmovdqa    ymm9, ymm2
        vmovdqa    ymm10, ymm4
        KROW       6, ymm5, ymm6, ymm11, ymm12
        ; * H^8: [H^16..H^9], H^16's row first (the chain goes on from it)
        vpermq     ymm11, ymm9, 0x44
        vpermq     ymm12, ymm10, 0x44
        KROW       16, ymm9, ymm10, ymm11, ymm12
        vmovdqa    ymm9, ymm2
        vmovdqa    ymm10, ymm4
        vpermq     ymm13, ymm2, 0x44
        vpermq     ymm14, ymm4, 0x44
        KROW       14, ROW(6), KRW(6), ymm11, ymm12
        KROW       12, ymm7, ymm8, ymm11, ymm12
        KROW       10, ymm5, ymm6, ymm11, ymm12
        ; * H^16: [H^32..H^17]
        KROW       32, ymm9, ymm10, ymm13, ymm14
        KROW       30, ROW(14), KRW(14), ymm13, ymm14
        KROW       28, ROW(12), KRW(12), ymm13, ymm14
        KROW       26, ROW(10), KRW(10), ymm13, ymm14
        KROW       24, ROW(8), KRW(8), ymm13, ymm14
        KROW       22, ROW(6), KRW(6), ymm13, ymm14
        KROW       20, ymm7, ymm8, ymm13, ymm14
        KROW       18, ymm5, ymm6, ymm13, ymm14
        CLEAR_VREGS ymm
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
