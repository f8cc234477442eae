; SPDX-License-Identifier: BSD-3-Clause
; hpowers_avx512.asm — the hash-key powers of a key with 512-bit VPCLMULQDQ: the avx512 arch's
; key setup (mbgcmi_avx512_key_expand, arch/avx512/key_avx512.c).
;
; CPU: AVX512F/VL + VPCLMULQDQ (the `avx512` arch). ABI: System V AMD64.
;
; void mbgcmi_avx512_hpowers(struct mbgcmi_key *k);
;     The contract of mbgcmi_aesni_hpowers (arch/aesni/gcm_aesni.asm), with the same bytes out:
;     from hpow[H^1] (Montgomery V form, already stored) fill hpow[H^2..H^32] and hkar[H^1..H^32]
;     (lo ^ hi of each power in both qwords). The powers are stored highest first (core/key.h),
;     so the 64-byte row at HPOW(4j+4) is [H^(4j+4), H^(4j+3), H^(4j+2), H^(4j+1)], lane 0 the
;     highest power; HKAR rows likewise.
;
; Why: the xmm code makes 31 products one 128-bit product per instruction, five carry-less
; multiplies each, and is bound by the multiplier (VPCLMULQDQ issues every other cycle on Zen 5
; at every width). Here one instruction multiplies four lanes, a zmm row of four powers times
; one power broadcast to every lane, and the chain of dependent products is five long (the
; fewest: H^32 = H^(2^5)):
;     H^2             = H^1 * H^1                          xmm, a square: no middle product
;     [H^4 | H^3]     = [H^2 | H^2] * [H^2 | H^1]          ymm
;     [H^8..H^5]      = [H^4..H^1] * H^4                   one zmm product
;     [H^16..H^13]    = [H^8..H^5] * H^8                   two zmm products
;     [H^12..H^9]     = [H^4..H^1] * H^8
;     [H^32..H^29]    = [H^16..H^13] * H^16                four zmm products
;     [H^28..H^25]    = [H^12..H^9] * H^16
;     [H^24..H^21]    = [H^8..H^5] * H^16
;     [H^20..H^17]    = [H^4..H^1] * H^16
; 44 VPCLMULQDQ in all (xmm: 155). Each row is stored once, hpow and hkar with one 64-byte
; store each (the H^1 lanes rewrite the stored H^1 with its own value).
;
; Math (arch/generic/ghash_ct.c; the same steps as GHX_FIRST + GHX_REDUCE in
; arch/aesni/ghash_sse.inc, per 128-bit lane): with a = H^i, b = H^j in Montgomery V form
; (V(H^k) * y mod P') and their Karatsuba operands ka = a.lo ^ a.hi, kb (the hkar values, in
; both qwords), the Montgomery product mont(a, b) = a b y^-128 mod P' = V(H^(i+j)) * y is
;     LO = a.lo b.lo,  HI = a.hi b.hi,  MI = ka kb ^ LO ^ HI                  (Karatsuba)
;     MI ^= swap64(LO) ^ clmul(LO.lo, 0xC2..);  HI ^= swap64(MI) ^ clmul(MI.lo, 0xC2..)
; and HI is the result: of degree < 128, so the one representative of the residue, and every
; arch that computes the same power in any order writes the same bytes. For a square the
; middle product a.lo a.hi ^ a.hi a.lo is zero (characteristic 2): H^2 takes two multiplies
; and the two folds.
;
; Register plan (no general-purpose register but rdi, no stack, no branch: nothing depends on
; the key but the values)
;   rdi      k
;   zmm0/1   [H^4..H^1] and its Karatsuba operands    zmm2/3   [H^8..H^5], Karatsuba
;   zmm4/5   [H^12..H^9], Karatsuba                   zmm6/7   [H^16..H^13], Karatsuba
;   zmm8/9   the multiplier power in every lane, its Karatsuba operand
;   zmm10-15 the last level's results and Karatsuba operands
;   zmm16-30 LO / MI / T scratch of up to four products in flight (xmm20-26 in the first two
;            levels: H^1, H^2, their operands)
;   zmm31    POLY (0xC2.. in every qword)
; Every vector register used is cleared before returning (CLEAR_VREGS zmm).
default rel
%include "key.inc"
%include "clear.inc"

section .rodata
%include "consts.inc"

section .text

; KMUL a, ka, b, kb, lo, mi, hi, t, p: hi = mont(a, b) in every lane (the math above); a, b the
; powers, ka, kb their Karatsuba operands, p POLY; lo, mi, t clobbered; all registers of one
; width. 5 VPCLMULQDQ per row of products.
%macro KMUL 9
        vpclmulqdq %5, %1, %3, 0x00                     ; LO = a.lo b.lo
        vpclmulqdq %6, %2, %4, 0x00                     ; (a.lo ^ a.hi)(b.lo ^ b.hi)
        vpclmulqdq %7, %1, %3, 0x11                     ; HI = a.hi b.hi
        vpclmulqdq %8, %5, %9, 0x00                     ; LO.lo * 0xC2..
        vpternlogq %6, %5, %7, 0x96                     ; MI ^= LO ^ HI (Karatsuba fix-up)
        vpshufd    %5, %5, 0x4e                         ; swap64(LO)
        vpternlogq %6, %5, %8, 0x96                     ; fold LO into MI
        vpclmulqdq %8, %6, %9, 0x00                     ; MI.lo * 0xC2..
        vpshufd    %6, %6, 0x4e                         ; swap64(MI)
        vpternlogq %7, %6, %8, 0x96                     ; fold MI into HI: the result
%endmacro
; KAR k, p: k = the Karatsuba operands of the powers in p (lo ^ hi in both qwords of a lane)
%macro KAR 2
        vpshufd    %1, %2, 0x4e
        vpxorq     %1, %1, %2
%endmacro
; BCAST d, s: lane 0 of s (the highest power of a row) in every lane of d
%macro BCAST 2
        vshufi64x2 %1, %2, %2, 0x00
%endmacro

global mbgcmi_avx512_hpowers:function hidden
mbgcmi_avx512_hpowers:                          ; rdi k
        vmovdqa64  zmm31, [POLY]
        vmovdqu64  xmm20, [rdi + HPOW(1)]               ; H
        KAR        xmm21, xmm20
        ; H^2 = mont(H, H): LO, HI and the two folds (the middle product of a square is zero)
        vpclmulqdq xmm16, xmm20, xmm20, 0x00
        vpclmulqdq xmm18, xmm20, xmm20, 0x11
        vpclmulqdq xmm19, xmm16, xmm31, 0x00
        vpshufd    xmm16, xmm16, 0x4e
        vpxorq     xmm17, xmm16, xmm19                  ; MI = swap64(LO) ^ LO.lo * 0xC2..
        vpclmulqdq xmm19, xmm17, xmm31, 0x00
        vpshufd    xmm17, xmm17, 0x4e
        vpternlogq xmm18, xmm17, xmm19, 0x96            ; H^2
        KAR        xmm22, xmm18
        ; [H^4 | H^3] = [H^2 | H^2] * [H^2 | H^1]
        vinserti32x4 ymm23, ymm18, xmm18, 1
        vinserti32x4 ymm24, ymm22, xmm22, 1
        vinserti32x4 ymm25, ymm18, xmm20, 1             ; [H^2 | H^1]
        vinserti32x4 ymm26, ymm22, xmm21, 1
        KMUL       ymm23, ymm24, ymm25, ymm26, ymm16, ymm17, ymm18, ymm19, ymm31
        KAR        ymm19, ymm18
        vinserti64x4 zmm0, zmm18, ymm25, 1              ; [H^4, H^3, H^2, H^1]
        vinserti64x4 zmm1, zmm19, ymm26, 1
        vmovdqu64  [rdi + HPOW(4)], zmm0
        vmovdqu64  [rdi + HKAR(4)], zmm1
        ; [H^8..H^5] = [H^4..H^1] * H^4
        BCAST      zmm8, zmm18
        BCAST      zmm9, zmm19
        KMUL       zmm0, zmm1, zmm8, zmm9, zmm16, zmm17, zmm2, zmm19, zmm31
        KAR        zmm3, zmm2
        vmovdqu64  [rdi + HPOW(8)], zmm2
        vmovdqu64  [rdi + HKAR(8)], zmm3
        ; [H^16..H^13] = [H^8..H^5] * H^8, [H^12..H^9] = [H^4..H^1] * H^8
        BCAST      zmm8, zmm2
        BCAST      zmm9, zmm3
        KMUL       zmm2, zmm3, zmm8, zmm9, zmm16, zmm17, zmm6, zmm18, zmm31
        KMUL       zmm0, zmm1, zmm8, zmm9, zmm20, zmm21, zmm4, zmm22, zmm31
        KAR        zmm7, zmm6
        KAR        zmm5, zmm4
        vmovdqu64  [rdi + HPOW(16)], zmm6
        vmovdqu64  [rdi + HKAR(16)], zmm7
        vmovdqu64  [rdi + HPOW(12)], zmm4
        vmovdqu64  [rdi + HKAR(12)], zmm5
        ; [H^32..H^29], [H^28..H^25], [H^24..H^21], [H^20..H^17] = the four rows * H^16
        BCAST      zmm8, zmm6
        BCAST      zmm9, zmm7
        KMUL       zmm6, zmm7, zmm8, zmm9, zmm16, zmm17, zmm10, zmm18, zmm31
        KMUL       zmm4, zmm5, zmm8, zmm9, zmm19, zmm20, zmm11, zmm21, zmm31
        KMUL       zmm2, zmm3, zmm8, zmm9, zmm22, zmm23, zmm12, zmm24, zmm31
        KMUL       zmm0, zmm1, zmm8, zmm9, zmm25, zmm26, zmm13, zmm27, zmm31
        KAR        zmm14, zmm10
        vmovdqu64  [rdi + HPOW(32)], zmm10
        vmovdqu64  [rdi + HKAR(32)], zmm14
        KAR        zmm15, zmm11
        vmovdqu64  [rdi + HPOW(28)], zmm11
        vmovdqu64  [rdi + HKAR(28)], zmm15
        KAR        zmm28, zmm12
        vmovdqu64  [rdi + HPOW(24)], zmm12
        vmovdqu64  [rdi + HKAR(24)], zmm28
        KAR        zmm29, zmm13
        vmovdqu64  [rdi + HPOW(20)], zmm13
        vmovdqu64  [rdi + HKAR(20)], zmm29
        CLEAR_VREGS zmm
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
