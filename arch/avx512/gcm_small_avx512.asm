; SPDX-License-Identifier: BSD-3-Clause
; gcm_small_avx512.asm — one short message with a 12-byte IV in one pass of zmm: the `avx512`
; arch's one-shot path for messages of at most 512 bytes with at most 16 bytes of AAD, and for
; shorter ones with 17..64 bytes of AAD; small12p and small12k (small12 with chunks) also take
; 513..2048 bytes with at most 64 bytes of AAD in chunks of 32 blocks (.chunk below); tiny12g
; and gmac12 / gmac12p / gmac12c take GMAC calls (no message) of up to 16 and of 17..2048 bytes
; of AAD.
; arch_avx512.c decides which variant sends which lengths here; docs/perf.md has the
; measurements.
;
; Why a kernel of its own: one such message is bound by latency, not by the ports. Its key
; stream is one AES pass over at most eight zmm of counter blocks and E_K(J0), each chain one
; round per four cycles; its GHASH can start right away when decrypting (the input is the
; ciphertext) but only when the key stream is there when encrypting. So one entry (small12p, for
; Intel cores) makes an encrypt's key stream of four zmm or more in two (4-5 zmm) or three (6-8)
; passes of about equal size: the first pass's rounds get the AES unit first (oldest first), so
; its output, stored and multiplied, is ready while the next pass runs, and only the last pass's
; products wait for the tag. J0 rides in the last pass, whose two or three zmm leave the unit
; idle between dependent rounds, so the first passes finish sooner (5-11% less time than one
; pass at 256-512 bytes on the Intel Xeon guest, J0 in the last pass another 1-7%; a last pass
; of one zmm, too few chains to fill the unit, was slower). The other (small12, for AMD cores)
; keeps one pass: on Zen 4 a split was 3-11% slower at 272-448 bytes, the core already
; overlapping the first chains' products with the last rounds (docs/perf.md). What the
; whole-message kernels add around that, a frame, flags and branches for every length, slots to
; wipe, is a large share of such a message. Here nothing touches the stack: the operands stay in
; registers from the first load to the tag. Decrypting, each ciphertext zmm is loaded and hashed
; after one of the pass's rounds, not all before the pass: issued first, the 24 multiplies of
; 512 bytes held the vector pipes the rounds share on a core such as Zen 4, and the pass started
; late (docs/perf.md, "Work issued ahead of the AES rounds").
;
; The math. t = ceil(len / 16) message blocks, C_1..C_t (the last one zero-padded), A the AAD
; block (zero-padded; zero without AAD), L the length block. GHASH(A, C_1..C_t, L) =
; A H^(t+2) ^ C_1 H^(t+1) ^ ... ^ C_t H^2 ^ L H. A and L are known at entry: [A | L] times
; [H^(t+2) | H^1] in one ymm starts the sums (17..64 bytes of AAD: a blocks A_1..A_a in one zmm
; times [H^(t+1+a) ..], and L H alone). The key's powers stop at H^32: for t = 31, 32 the
; entry makes H^33 and H^34 (H^32 times H^1 and H^2), A takes H^(t+2) from them and, for t = 32,
; lane 0 of message zmm 0's rows H^33 (with eight message zmm, those rows sit in zmm29/30).
; Message zmm i (blocks 4i+1..4i+4) takes the 64-byte power row at HPOW(t+1-4i) =
; [H^(t+1-4i) .. H^(t-2-4i)] (the key stores the powers highest first); lanes past the message
; hold zero blocks, so whatever the row holds there adds nothing (the last zmm's rows stop at
; H^1, where a 32-byte row is enough: SGH). Products summed over all blocks into LO = a0 b0,
; HI = a1 b1 and MI, then one Montgomery reduction per lane and a fold of the four lanes (as
; gcm_wide.inc's GH_W_REDUCE_SB), T = E_K(J0) ^ S. small12 (AMD) forms MI by Karatsuba, three
; products per block: MI = (a0 ^ a1)(b0 ^ b1) with the key's HKAR rows, then MI ^= LO ^ HI;
; small12p (Intel: SMALL_SB) by schoolbook, four: MI = a0 b1 ^ a1 b0 from the power row alone.
; On Intel the multiplier issues one product per cycle and Karatsuba's operand (a shuffle and
; an XOR) costs what its saved product does, while its table rows are one or two more cache
; lines per call: schoolbook took 2-4% off a 64-byte call and 5-9% off 256-448 bytes with 64
; keys (docs/perf.md). On Zen 5, one zmm product per two cycles, the saved product counts.
; The counter blocks are IV || BE32(c) with c = 2..t+1 (at most 33: only the last byte is
; nonzero), so a whitened counter block is ZK ^ [0 .. 0 c] with ZK = (IV || 0) ^ rk0: one XOR
; with a constant row per zmm.
;
; CPU: AVX512F/BW/VL + VAES + VPCLMULQDQ + BMI2 (the `avx512` arch). ABI: System V.
;
; int mbgcmi_avx512_small12(const key *k, const uint8_t *iv, const uint8_t *aad,
;                           size_t aad_len, const uint8_t *in, size_t len, uint8_t *out,
;                           uint8_t *tag, size_t tag_len_dec)
; int mbgcmi_avx512_small12p(...the same...)
; int mbgcmi_avx512_small12k(...the same...)
;   As struct mbgcmi_gcm_ops.whole12 (core/gcm.h) for len <= 512 and aad_len <= 16, or
;   aad_len <= 64 with ceil(len / 16) + ceil(aad_len / 16) <= 31 (the caller's routing
;   guarantees it; .wide_aad below); small12p and small12k also for 513 <= len <= 2048 with
;   aad_len <= 64:
;   encrypt writes the output and tag_len bytes of tag,
;   returns 0; decrypt reads the expected tag before writing anything (it may lie in out),
;   writes the output, compares tag_len bytes without an early exit and returns 1 when they
;   differ (the caller zeroes out), else 0. in == out allowed.
;
; Register plan
;   rdi k  rdx aad, then HPOW(t + 2)  rcx aad_len, then the last zmm's bytes (SBODY)
;   r8 in  r9 len  r10 out
;   r11 tag  rsi tag_len | decrypt << 8 (after the IV is read)  eax scratch, rounds, result
;   zmm0-3, zmm21-24  M_0..M_7, message zmm 0..7: counter blocks -> key stream -> output
;   xmm4     J0 -> E_K(J0)      zmm5 ZK in every lane      zmm6 round key
;   zmm7-10, zmm25-28  D_0..D_7, decrypt: the ciphertext, loaded during the pass (before any
;            output)
;   zmm11 BSWAP  zmm12-14 LO/MI/HI  zmm15-19 scratch (reflected blocks, power rows, products)
;   zmm29/30 eight message zmm: message zmm 0's power and (small12) Karatsuba rows
;   xmm20    the expected tag (decrypt)
;   chunks (33..128 blocks): rdx HPOW(33) in the full chunks; rcx the chunk's
;            SZKD row; xmm17 H^33; xmm30 L; zmm29 the last chunk's first row for t' = 31, 32
;            (lane 0 H^33 for t' = 32); zmm31 SFIX[k] (zero in every other call: SBODY 8 XORs
;            it into counter row 7); esi bit 9 set
;   k1 the last message zmm's bytes  k2 the tag's bytes  k3 scratch
;   All lengths, pointers and the direction are public. Every vector register the path wrote
;   is cleared before returning (the set follows from len and the direction); no stack slot
;   is written, no frame is made (arguments 7..9 are read at rsp + 8).
default rel
%include "key.inc"
%include "gcm_wide.inc"

; GMAC calls (len 0) with up to this many bytes of AAD take mbgcmi_avx512_gmac12 / gmac12c
; (by32, by32h); by32's whole-message kernel was level at 2560 bytes and 2-8% quicker at 4096
%define GMAC12_MAX 2048

section .rodata
%include "consts.inc"
; SCTR: the whitening-free part of counter blocks 2..33: byte 15 of lane l of row r is
; 2 + 4r + l (everything else zero); SJ0 the same for J0 (counter 1)
align 64
SCTR:
%assign _r 0
%rep 8
%assign _l 0
%rep 4
                dd 0, 0, 0, (2 + 4 * _r + _l) << 24
%assign _l _l + 1
%endrep
%assign _r _r + 1
%endrep
SJ0:            dd 0, 0, 0, 1 << 24
GONES:          dq -1                           ; all ones: gmac12's row masks (BZHI)
align 64
; A long message's chunk k (32 blocks each; .chunk) has counters 32k+2..32k+33: for
; the first 30 of them SCTR's 2..31 XOR 32k (no carry), so ZK takes 32k in the counter byte,
; as a step from chunk k-1 (SZKD[k] = 32(k-1) ^ 32k; chunk 0: 0); the last two, SCTR's 32 and
; 33 (row 7, lanes 2 and 3), then want SFIX[k] = (32 + 32k) ^ (32 ^ 32k) XORed in as well
SZKD:
%assign _k 0
%rep 4
%if _k == 0
%assign _d 0
%else
%assign _d (32 * (_k - 1)) ^ (32 * _k)
%endif
%rep 4
                dd 0, 0, 0, _d << 24
%endrep
%assign _k _k + 1
%endrep
SFIX:
%assign _k 0
%rep 4
%assign _f (32 + 32 * _k) ^ (32 ^ (32 * _k))
                dd 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, _f << 24, 0, 0, 0, _f << 24
%assign _k _k + 1
%endrep
; TCTR: mbgcmi_avx512_tiny12's counter row, [counter 2 | J0] past the IV
TCTR:           dd 0, 0, 0, 2 << 24, 0, 0, 0, 1 << 24

section .text

; message zmm i (M_i) and, decrypting, its ciphertext (D_i)
%define M_0 zmm0
%define M_1 zmm1
%define M_2 zmm2
%define M_3 zmm3
%define M_4 zmm21
%define M_5 zmm22
%define M_6 zmm23
%define M_7 zmm24
%define D_0 zmm7
%define D_1 zmm8
%define D_2 zmm9
%define D_3 zmm10
%define D_4 zmm25
%define D_5 zmm26
%define D_6 zmm27
%define D_7 zmm28

; STAG_IN: the stack arguments 8 and 9 (r11 tag, rsi tag_len | decrypt << 8), k2 the tag's
; bytes and xmm20 the expected tag (decrypt), read before any output is written
%macro STAG_IN 0
        mov     r11, [rsp + 16]                         ; tag
        mov     rsi, [rsp + 24]                         ; tag_len | decrypt << 8
        mov     eax, 0xFFFF
        bzhi    eax, eax, esi                           ; (index: the low byte, tag_len)
        kmovw   k2, eax                                 ; the tag's bytes
        vmovdqu8 xmm20{k2}{z}, [r11]                    ; expected tag (decrypt), read first
%endmacro

; STAG lo, mi, hi, t, bsw, ek0: the tag from LO/MI/HI (zmm lo, mi, hi: MI ^= LO ^ HI, one
; Montgomery reduction per lane, the four lanes folded), T = E_K(J0) (xmm ek0) ^ S (reflected
; with zmm bsw; zmm t scratch); encrypt (esi bit 8 clear) stores tag_len bytes of it under k2,
; decrypt compares all 16 bytes with xmm20 under k2 without an early exit: eax = 1 when they
; differ, else 0
; SREDUCE lo, mi, hi, t[, sb]: S (V form, xmm hi) from LO/MI/HI as STAG below
%macro SREDUCE 4-5 0
%if %5 == 0
        vpternlogq zmm%2, zmm%1, zmm%3, 0x96            ; MI ^= LO ^ HI
%endif
        vpclmulqdq zmm%4, zmm%1, [POLY], 0x00
        vpshufd zmm%1, zmm%1, 0x4e
        vpternlogq zmm%2, zmm%1, zmm%4, 0x96
        vpclmulqdq zmm%4, zmm%2, [POLY], 0x00
        vpshufd zmm%2, zmm%2, 0x4e
        vpternlogq zmm%3, zmm%2, zmm%4, 0x96            ; per-lane result in HI
        vextracti64x4 ymm%4, zmm%3, 1
        vpxorq  ymm%3, ymm%3, ymm%4
        vextracti32x4 xmm%4, ymm%3, 1
        vpxorq  xmm%3, xmm%3, xmm%4                     ; S, V form
%endmacro
%macro STAG 6-7 0
        SREDUCE %1, %2, %3, %4, %7
        vpshufb xmm%3, xmm%3, xmm%5
        vpxorq  xmm%3, xmm%3, xmm%6                     ; T = E_K(J0) ^ S
        xor     eax, eax
        test    esi, 0x100
        jnz     %%check
        vmovdqu8 [r11]{k2}, xmm%3                       ; tag_len bytes
        jmp     %%out
%%check:
        vpcmpeqb k3, xmm%3, xmm20                       ; all 16 bytes, no early exit
        kandnw  k3, k3, k2                              ; counted bytes that differ
        kortestw k3, k3
        setnz   al                                      ; 1: the tag failed
%%out:
%endmacro

%assign _c1 0                   ; 1 inside CBODY1 (a full chunk of a long message)

; SCLEAR a, b: zero zmm a..b (the EVEX form of an xmm XOR clears the whole zmm)
%macro SCLEAR 2
%assign _c %1
%rep %2 - %1 + 1
        vpxorq  xmm %+ _c, xmm %+ _c, xmm %+ _c
%assign _c _c + 1
%endrep
%endmacro

; SAL_MUL: [A | L] (ymm15) times [H^(t+2) | H^1] (H^(t+2) in xmm16; its Karatsuba operand
; in xmm17 without SMALL_SB) into LO/MI/HI (zmm12-14, zero above lane 1); ymm16-18 scratch
%macro SAL_MUL 0
%if SMALL_SB
        vinserti32x4 ymm16, ymm16, [rdi + HPOW(1)], 1
        vpclmulqdq ymm12, ymm15, ymm16, 0x00            ; LO
        vpclmulqdq ymm14, ymm15, ymm16, 0x11            ; HI
        vpclmulqdq ymm13, ymm15, ymm16, 0x01
        vpclmulqdq ymm18, ymm15, ymm16, 0x10
        vpxorq  ymm13, ymm13, ymm18                     ; MI
%else
        AL_MUL  15, 16, 17, 18, 12, 13, 14
%endif
%endmacro

; SMULRED w: w14 = w16 * w17 per 128-bit lane (w = xmm or ymm), schoolbook with one
; Montgomery reduction: the key's form of a power's product; w12, w13, w19 scratch
%macro SMULRED 1
        vpclmulqdq %1 %+ 12, %1 %+ 16, %1 %+ 17, 0x00
        vpclmulqdq %1 %+ 14, %1 %+ 16, %1 %+ 17, 0x11
        vpclmulqdq %1 %+ 13, %1 %+ 16, %1 %+ 17, 0x01
        vpclmulqdq %1 %+ 19, %1 %+ 16, %1 %+ 17, 0x10
        vpxorq  %1 %+ 13, %1 %+ 13, %1 %+ 19
        vpclmulqdq %1 %+ 19, %1 %+ 12, [POLY], 0x00
        vpshufd %1 %+ 12, %1 %+ 12, 0x4e
        vpternlogq %1 %+ 13, %1 %+ 12, %1 %+ 19, 0x96
        vpclmulqdq %1 %+ 19, %1 %+ 13, [POLY], 0x00
        vpshufd %1 %+ 13, %1 %+ 13, 0x4e
        vpternlogq %1 %+ 14, %1 %+ 13, %1 %+ 19, 0x96
%endmacro

; SMI_START: MI (xmm13) of a product that starts LO/MI/HI (xmm12-14) from its two cross
; products (xmm13, xmm19), in the form the rows' products add to: schoolbook (SMALL_SB), or
; Karatsuba's (a0 ^ a1)(b0 ^ b1) = the cross products ^ LO ^ HI
%macro SMI_START 0
%if SMALL_SB
        vpxorq  xmm13, xmm13, xmm19
%else
        vpxorq  xmm13, xmm13, xmm19
        vpternlogq xmm13, xmm12, xmm14, 0x96
%endif
%endmacro

; SH33: xmm17 = H^33 = H^32 H^1; xmm12-14, 16, 19 scratch
%macro SH33 0
        vmovdqu64 xmm16, [rdi + HPOW(32)]
        vmovdqu64 xmm17, [rdi + HPOW(1)]
        SMULRED xmm
        vmovdqa64 xmm17, xmm14                          ; H^33
%endmacro

; SR nz, instruction[, first, j0]: one round (key in zmm6) on message zmm first..first+nz-1
; (first 0 unless given) and, unless j0 = 0, on J0
%macro SR 2-4 0, 1
%assign _j %3
%rep %1
        %2      M_ %+ _j, M_ %+ _j, zmm6
%assign _j _j + 1
%endrep
%if %4
        %2      xmm4, xmm4, xmm6
%endif
%endmacro

; SROUNDS nz[, dec[, first, j0]]: rounds 1..rounds (eax = 10, 12 or 14; the whitening is
; in the counter rows) on message zmm first..first+nz-1 and J0 (as SR); with dec = 1 message
; zmm i's ciphertext is loaded and hashed (SGH) after round i + 1. Encrypting (dec = 0), the
; last round of message zmm i takes the last round key XOR its plaintext (zmm15, the last zmm
; under k1), so it yields the ciphertext: that XOR is made while the rounds run, not after the
; last one (an encrypt's GHASH and tag wait for the ciphertext). SENC_OUT follows.
%macro SROUNDS 1-4 0, 0, 1
%assign _r 1
%rep 9
        vbroadcasti32x4 zmm6, [rdi + KEY_RK + 16 * _r]
        SR      %1, vaesenc, %3, %4
%if (%2) && _r <= (%1)
%assign _q _r - 1
        SDLOAD  _q
        SGH     _q, D_ %+ _q
%endif
%assign _r _r + 1
%endrep
%rep 2                                                  ; rounds 10, 11; then 12, 13
        cmp     eax, _r
        je      %%last
        vbroadcasti32x4 zmm6, [rdi + KEY_RK + 16 * _r]
        SR      %1, vaesenc, %3, %4
        vbroadcasti32x4 zmm6, [rdi + KEY_RK + 16 * (_r + 1)]
        SR      %1, vaesenc, %3, %4
%assign _r _r + 2
%endrep
%%last:
        shl     eax, 4
        add     rax, rdi                                ; the last round key: rk + 16 rounds
        vbroadcasti32x4 zmm6, [rax + KEY_RK]
%if (%2) == 0 && (%1) > 0
%assign _j %3
%rep %1
%if _j < _nz - 1 || _c1
        vpxorq  zmm15, zmm6, [r8 + 64 * _j]
%else
        vmovdqu8 zmm15{k1}{z}, [r8 + 64 * _j]
        vpxorq  zmm15, zmm15, zmm6
%endif
        vaesenclast M_ %+ _j, M_ %+ _j, zmm15
%assign _j _j + 1
%endrep
%if %4
        vaesenclast xmm4, xmm4, xmm6
%endif
%else
        SR      %1, vaesenclast, %3, %4
%endif
%endmacro

; SGH i, X: message zmm i's blocks (byte order in X, zero past the message; X kept) times
; the row at HPOW(t + 1 - 4i) = rdx + 16 + 64i into LO/MI/HI. Two things matter when the key
; is not in the caches (docs/perf.md, "cold keys and the short kernel's power rows"):
; - Karatsuba (small12): the Karatsuba row comes through a load of its own (up to seven
;   message zmm). As the multiply's memory operand its read behaved as if it waited for X,
;   two misses in a row. With eight zmm the separate load cost 3-4.5% of a decrypt with the
;   key in the caches (and took 15-40% off a cold one): those keep the memory operand, the hot
;   case first.
; - The last zmm's rows are read no further than needed. Its b = t - 4(nz - 1) blocks take
;   [H^(b+1) .. H^2] and lane b takes H^1 (times a zero block); for b <= 2 a 64-byte row would
;   run past H^1 (into the Karatsuba table, and that one past its end into the key's reserved
;   bytes): lines nothing else reads, whose misses held up the tag (measured with small12).
;   A 32-byte row (lanes 0-1, the upper lanes zeroed) covers the b <= 2 blocks. ecx holds the
;   last zmm's bytes (SBODY).
%macro SGH 2
        vpshufb zmm15, %2, zmm11
%if _c1
        vmovdqu64 zmm16, [rdx + 16 + 64 * (%1)]
%define _hrow zmm16
%define _krow [rdx + 16 + 64 * (%1) + KEY_HKAR - KEY_HPOW]
%elif (%1) == 0 && _nz == 8
%define _hrow zmm29
%define _krow zmm30
%elif (%1) == _nz - 1
        cmp     ecx, 32
        ja      %%wide
        vmovdqu64 ymm16, [rdx + 16 + 64 * (%1)]
%if SMALL_SB == 0
        vmovdqu64 ymm17, [rdx + 16 + 64 * (%1) + KEY_HKAR - KEY_HPOW]
%endif
        jmp     %%rows
%%wide:
        vmovdqu64 zmm16, [rdx + 16 + 64 * (%1)]
%if SMALL_SB == 0
        vmovdqu64 zmm17, [rdx + 16 + 64 * (%1) + KEY_HKAR - KEY_HPOW]
%endif
%%rows:
%define _hrow zmm16
%define _krow zmm17
%elif _nz < 8
        vmovdqu64 zmm16, [rdx + 16 + 64 * (%1)]
%if SMALL_SB == 0
        vmovdqu64 zmm17, [rdx + 16 + 64 * (%1) + KEY_HKAR - KEY_HPOW]
%endif
%define _hrow zmm16
%define _krow zmm17
%else
        vmovdqu64 zmm16, [rdx + 16 + 64 * (%1)]
%define _hrow zmm16
%define _krow [rdx + 16 + 64 * (%1) + KEY_HKAR - KEY_HPOW]
%endif
%if SMALL_SB
        vpclmulqdq zmm19, zmm15, _hrow, 0x00
        vpxorq  zmm12, zmm12, zmm19
        vpclmulqdq zmm19, zmm15, _hrow, 0x11
        vpxorq  zmm14, zmm14, zmm19
        vpclmulqdq zmm19, zmm15, _hrow, 0x01
        vpclmulqdq zmm18, zmm15, _hrow, 0x10
        vpternlogq zmm13, zmm18, zmm19, 0x96
%else
        vpshufd zmm18, zmm15, 0x4e
        vpxorq  zmm18, zmm18, zmm15                     ; a0 ^ a1 in both qwords
        vpclmulqdq zmm19, zmm15, _hrow, 0x00
        vpxorq  zmm12, zmm12, zmm19
        vpclmulqdq zmm19, zmm15, _hrow, 0x11
        vpxorq  zmm14, zmm14, zmm19
        vpclmulqdq zmm18, zmm18, _krow, 0x00
        vpxorq  zmm13, zmm13, zmm18
%endif
%endmacro

; SDLOAD i: message zmm i's ciphertext into D_i (the last one under k1)
%macro SDLOAD 1
%if (%1) < _nz - 1 || _c1
        vmovdqu64 D_ %+ %1, [r8 + 64 * (%1)]
%else
        vmovdqu8 D_ %+ %1{k1}{z}, [r8 + 64 * (%1)]
%endif
%endmacro

; SENC_OUT a, b: encrypt's output of message zmm a..b-1 after SROUNDS (which made C = key
; stream ^ P): stored, zeroed past the message, hashed
%macro SENC_OUT 2
%assign _i %1
%rep (%2) - (%1)
%if _i < _nz - 1 || _c1
        vmovdqu64 [r10 + 64 * _i], M_ %+ _i
%else
        vmovdqu8 [r10 + 64 * _i]{k1}, M_ %+ _i
        vmovdqu8 M_ %+ _i{k1}{z}, M_ %+ _i
%endif
        SGH     _i, M_ %+ _i
%assign _i _i + 1
%endrep
%endmacro
; SPLIT_NP: an encrypt's passes for _nz message zmm (SBODY): one, or with SMALL_SPLIT two
; for four or five and three for six to eight
%define SPLIT_NP (SMALL_SPLIT ? (_nz >= 6 ? 3 : _nz >= 4 ? 2 : 1) : 1)

; SBODY nz: the pass(es), the output and the message's products for nz message zmm (1..8); the
; last one is partial under k1
%macro SBODY 1
%assign _nz %1
%if _nz == 8
        ; eight zmm (t = 29..32): message zmm 0's rows in zmm29/30 (the entry made them for
        ; t = 31, 32, with H^33 in lane 0 for t = 32)
        cmp     r9d, 30 * 16
        ja      %%rows
        vmovdqu64 zmm29, [rdx + 16]
%if SMALL_SB == 0
        vmovdqu64 zmm30, [rdx + 16 + KEY_HKAR - KEY_HPOW]
%endif
%%rows:
%endif
        lea     ecx, [r9 - 64 * (_nz - 1)]              ; the last zmm's bytes, 1..64
        mov     rax, -1
        bzhi    rax, rax, rcx
        kmovq   k1, rax
%assign _i 0
%rep _nz
%if SMALL_CHUNKS && _i == 7
        vmovdqa64 M_7, [SCTR + 64 * 7]                  ; (a long message's second half:
        vpternlogq M_7, zmm5, zmm31, 0x96               ; SFIX in zmm31, else zero)
%else
        vpxorq  M_ %+ _i, zmm5, [SCTR + 64 * _i]        ; whitened counter blocks
%endif
%assign _i _i + 1
%endrep
        mov     eax, [rdi + KEY_ROUNDS]
        test    esi, 0x100
        jz      %%pass
        ; decrypt: the ciphertext loaded and hashed between the pass's rounds (every load
        ; before any output: in may be out)
        SROUNDS _nz, 1
        jmp     %%dec_out
%%pass:
        ; encrypt in SPLIT_NP passes of about equal size, J0 in the last (see the top)
%assign _np SPLIT_NP
%assign _s 0
%assign _p 0
%rep _np
%assign _e ((_p + 1) * _nz + _np - 1) / _np
%if _p > 0
        mov     eax, [rdi + KEY_ROUNDS]
%endif
        SROUNDS _e - _s, 0, _s, _p == _np - 1
        SENC_OUT _s, _e
%assign _s _e
%assign _p _p + 1
%endrep
        jmp     .final
%%dec_out:
%assign _i 0
%rep _nz
        vpxorq  M_ %+ _i, M_ %+ _i, D_ %+ _i
%if _i < _nz - 1
        vmovdqu64 [r10 + 64 * _i], M_ %+ _i
%else
        vmovdqu8 [r10 + 64 * _i]{k1}, M_ %+ _i
%endif
%assign _i _i + 1
%endrep
        jmp     .final
%endmacro

; CBODY1: a full chunk of a message of 33..128 blocks (.chunk): 32 blocks in all eight message
; zmm, counters SCTR's XOR ZK (zmm5, the chunk's ZK) and, for row 7, SFIX[k] (zmm31), no mask,
; no J0; encrypt in three passes with SMALL_SPLIT (3, 3, 2 zmm: on the Intel Xeon guest one of
; eight took 3-14% more time, two of four up to 7%), else in one (on Zen 5 two of four took
; 4-24% more time), decrypt in one pass with the ciphertext loaded and hashed
; between the rounds, as SBODY; each zmm's products (SGH, _c1: the rows at rdx + 16 + 64i,
; rdx = HPOW(33)) into LO/MI/HI, which the caller reduces to S_(k+1)
%macro CBODY1 0
%assign _nz 8
%assign _c1 1
%assign _i 0
%rep 7
        vpxorq  M_ %+ _i, zmm5, [SCTR + 64 * _i]        ; whitened counter blocks
%assign _i _i + 1
%endrep
        vmovdqa64 M_7, [SCTR + 64 * 7]
        vpternlogq M_7, zmm5, zmm31, 0x96               ; (SFIX[k] in zmm31)
        mov     eax, [rdi + KEY_ROUNDS]
        test    esi, 0x100
        jz      %%pass
        SROUNDS 8, 1, 0, 0
%assign _i 0
%rep 8
        vpxorq  M_ %+ _i, M_ %+ _i, D_ %+ _i
        vmovdqu64 [r10 + 64 * _i], M_ %+ _i
%assign _i _i + 1
%endrep
        jmp     %%done
%%pass:
%if SMALL_SPLIT
        SROUNDS 3, 0, 0, 0
        SENC_OUT 0, 3
        mov     eax, [rdi + KEY_ROUNDS]
        SROUNDS 3, 0, 3, 0
        SENC_OUT 3, 6
        mov     eax, [rdi + KEY_ROUNDS]
        SROUNDS 2, 0, 6, 0
        SENC_OUT 6, 8
%else
        SROUNDS 8, 0, 0, 0
        SENC_OUT 0, 8
%endif
%%done:
%assign _c1 0
%endmacro

; int mbgcmi_avx512_by16_whole12(...as mbgcmi_avx512_small12...)
;   The by16 variant's whole12 (struct mbgcmi_gcm_ops.whole12, arch_avx512.c): a dispatch on
;   the public lengths, then a tail jump, no frame. To mbgcmi_avx512_tiny12: messages of
;   1..16 bytes with at most 16 bytes of AAD (GMAC calls, len 0, with at most 16 bytes of AAD
;   to mbgcmi_avx512_tiny12g); to mbgcmi_avx512_small12p: messages of 17..BY16_SMALL_MAX
;   bytes with at most 16 bytes of AAD, encrypts up to BY16_CHUNKS_ENC_MAX and decrypts up to
;   BY16_CHUNKS_MAX bytes with at most 64 bytes of AAD (from 513 bytes in chunks of 32
;   blocks), messages with 17..64 bytes of AAD while len + aad_len <= 464 (the key's 32
;   powers); to mbgcmi_avx512_gmac12p: GMAC calls with 17..496 bytes of AAD; other messages
;   of at most 144 bytes with
;   at most 64 bytes of AAD to the avx2 arch's short path (mbgcmi_avx2_gcm12: one ymm pass);
;   the rest to mbgcmi_avx512_gcm12 (by16). The thresholds were measured on the Intel Xeon
;   guest (arch_avx512.c, docs/perf.md). As a C function with a sibling call (the compiler
;   saved two registers and copied the three stack arguments onto themselves) the same choice
;   took 1-5% of a one-shot call of at most 64 bytes there. The direction is read from the
;   ninth argument's bit 8 (byte 1 of [rsp + 24]).
;   Register use: rax (len + aad_len): public.
%define BY16_SMALL_MAX 512
%define BY16_CHUNKS_MAX 2048
%define BY16_CHUNKS_ENC_MAX 1024
%define BY32_DEC_CHUNKS_MAX 992
extern mbgcmi_avx2_gcm12
extern mbgcmi_avx512_gcm12
global mbgcmi_avx512_by16_whole12:function hidden
mbgcmi_avx512_by16_whole12:
        cmp     r9, 16
        ja      .w_long
        test    r9, r9
        jz      .w_gmac
        ; 1..16 bytes (the shortest path first: at 16 bytes the dispatch is a measurable part
        ; of the call): with at most 16 bytes of AAD to tiny12, the rest to .w_other
        cmp     rcx, 16
        jbe     mbgcmi_avx512_tiny12
        jmp     .w_other
.w_long:
        cmp     r9, BY16_SMALL_MAX
        ja      .w_chunk
        cmp     rcx, 16
        jbe     mbgcmi_avx512_small12p
        cmp     rcx, 64                                 ; 17..64 bytes of AAD: within the
        ja      .w_other                                ; key's powers only
        lea     rax, [r9 + rcx]
        cmp     rax, 464
        jbe     mbgcmi_avx512_small12p
        jmp     .w_other
.w_gmac:
        cmp     rcx, 16                                 ; GMAC: up to one AAD block in tiny12g,
        jbe     mbgcmi_avx512_tiny12g                   ; up to 31 in gmac12p (one chunk:
        cmp     rcx, 31 * 16                            ; the AAD's rows and L, schoolbook),
        jbe     mbgcmi_avx512_gmac12p                   ; longer by16 (its AAD loop)
        jmp     .w_by16
.w_chunk:
        cmp     rcx, 64                                 ; at most 64 bytes of AAD: small12p in
        ja      .w_by16                                 ; chunks of 32 blocks, encrypts up to
        cmp     r9, BY16_CHUNKS_ENC_MAX                 ; BY16_CHUNKS_ENC_MAX bytes, decrypts
        jbe     mbgcmi_avx512_small12p                  ; up to BY16_CHUNKS_MAX
        cmp     r9, BY16_CHUNKS_MAX
        ja      .w_by16
        test    dword [rsp + 24], 0x100                 ; tag_len_dec bit 8: decrypt
        jnz     mbgcmi_avx512_small12p
        jmp     .w_by16
.w_other:
        cmp     r9, 144
        ja      .w_by16
        cmp     rcx, 64
        ja      .w_by16
        jmp     mbgcmi_avx2_gcm12 wrt ..plt
.w_by16:
        jmp     mbgcmi_avx512_gcm12 wrt ..plt

; int mbgcmi_avx512_by32_whole12(...as mbgcmi_avx512_small12...)
; int mbgcmi_avx512_by32h_whole12(...as mbgcmi_avx512_small12...)
;   The by32 and by32h variants' whole12 (arch_avx512.c): messages of at most 512 bytes with at
;   most 16 bytes of AAD to mbgcmi_avx512_small12, except those of 16 bytes or less (GMAC calls
;   included), which go to tiny12 / tiny12g (by32) or the avx2 short path (by32h: Zen 4, where
;   tiny12 was not measured and the ymm short path beat the zmm kernels at this size); by32's
;   decrypts of 513..BY32_DEC_CHUNKS_MAX bytes with at most 64 bytes of AAD to small12k, in
;   chunks (its encrypts, whose GHASH waits for the key stream, stay with by32's split passes);
;   with 17..64 bytes of AAD while len + aad_len <= 464, small12 too; GMAC calls (len 0) with
;   17..496 bytes of AAD to gmac12, 497..GMAC12_MAX to gmac12c; the rest to
;   mbgcmi_avx512_by32_gcm12. Register use: rax (len + aad_len), public.
extern mbgcmi_avx512_by32_gcm12
; int mbgcmi_avx512_by32_whole12_next(...as mbgcmi_avx512_small12...)
;   by32's whole12 taking in its ninth argument, from bit W12_NEXT_SHIFT on, the address of the
;   key of a job its caller runs soon after (struct mbgcmi_gcm_ops.whole12_next, core/gcm.h:
;   the manager's burst, only while it sees keys beyond the caches, jobs/jobs_internal.h).
;   A message of up to BY32_DEC_CHUNKS_MAX bytes (small12, small12k and the other short paths)
;   has that key's twenty lines requested here, unless it is this call's own; a longer one
;   has them requested in by32's first pass (NEXT_KEY_PREFETCH in gcm_by32_avx512.asm, after
;   round 2, where they cost nothing measurable in the caches). Then by32's whole12. A burst's
;   jobs that run at once through whole12 otherwise each started, with thousands of keys met
;   in random order, a memory latency (or two) behind. An entry of its own: the check in
;   whole12 itself cost burst decrypts of 160-384 bytes 1.5% in the caches (docs/perf.md).
;   rax scratch.
global mbgcmi_avx512_by32_whole12_next:function hidden
mbgcmi_avx512_by32_whole12_next:
        cmp     r9, BY32_DEC_CHUNKS_MAX
        ja      mbgcmi_avx512_by32_whole12
        NEXT_KEY_LINES qword [rsp + 24]
global mbgcmi_avx512_by32_whole12:function hidden
mbgcmi_avx512_by32_whole12:
        cmp     rcx, 16
        ja      .b_wide
        cmp     r9, 16
        jbe     .b_tiny
        cmp     r9, 512
        jbe     mbgcmi_avx512_small12
.b_dec:
        cmp     r9, BY32_DEC_CHUNKS_MAX                 ; decrypts of 513..BY32_DEC_CHUNKS_MAX
        ja      mbgcmi_avx512_by32h_whole12.b_by32      ; bytes: small12k (in chunks)
        test    dword [rsp + 24], 0x100                 ; tag_len_dec bit 8: decrypt (a
        jz      mbgcmi_avx512_by32h_whole12.b_by32      ; load from where the caller's push
                                                        ; wrote: the byte at +25 cost the
                                                        ; encrypts here 2-5% on Zen 5)
        ; small12k's chunks read all 32 powers and their operands: their sixteen lines
        ; requested here, beside the round keys' (a key beyond the caches: one miss, not two)
        KEY_LINES_PREFETCH rdi, 32, 0
        jmp     mbgcmi_avx512_small12k
.b_tiny:
        test    r9, r9
        jz      mbgcmi_avx512_tiny12g
        jmp     mbgcmi_avx512_tiny12
.b_wide:
        cmp     r9, 512                                 ; up to 512 bytes: as by32h
        jbe     mbgcmi_avx512_by32h_whole12.b_wide
        cmp     rcx, 64
        ja      mbgcmi_avx512_by32h_whole12.b_by32
        jmp     .b_dec
global mbgcmi_avx512_by32h_whole12:function hidden
mbgcmi_avx512_by32h_whole12:
        cmp     rcx, 16
        ja      .b_wide
        cmp     r9, 16
        jbe     .b_avx2
.b_mid:
        cmp     r9, 512
        ja      .b_by32
        jmp     mbgcmi_avx512_small12
.b_avx2:
        jmp     mbgcmi_avx2_gcm12 wrt ..plt
.b_wide:
        test    r9, r9
        jz      .b_gmac
        cmp     rcx, 64
        ja      .b_by32
        lea     rax, [r9 + rcx]
        cmp     rax, 464
        jbe     mbgcmi_avx512_small12
.b_by32:
        jmp     mbgcmi_avx512_by32_gcm12 wrt ..plt
.b_gmac:
        cmp     rcx, 31 * 16
        jbe     mbgcmi_avx512_gmac12
        cmp     rcx, GMAC12_MAX
        jbe     mbgcmi_avx512_gmac12c
        jmp     mbgcmi_avx512_by32_gcm12 wrt ..plt

; SMALL12_FN: the kernel's body, from its entry to the return; instantiated twice below with
; SMALL_SPLIT (the encrypt's passes, SPLIT_NP) 0 and 1
%macro SMALL12_FN 0
        mov     eax, 0x7777
        kmovw   k1, eax
        vbroadcasti32x4 zmm5{k1}{z}, [rsi]              ; IV || 0 in every lane (dwords 0-2:
        vbroadcasti32x4 zmm6, [rdi + KEY_RK]            ; the IV's 12 bytes read, no more)
        mov     r10, [rsp + 8]                          ; out
        STAG_IN
        vpxorq  zmm5, zmm5, zmm6                        ; ZK in every lane (no lane shuffle on
                                                        ; the way to the first round)
        vpxorq  xmm4, xmm5, [SJ0]                       ; J0, whitened
        ; [A | L] times [H^(t+2) | H^1] starts LO/MI/HI
        vmovdqa64 zmm11, [BSWAP]
%if SMALL_CHUNKS
        vpxorq  xmm31, xmm31, xmm31                     ; (SFIX only for a long message)
%endif
        lea     rax, [r9 * 8]
        vmovq   xmm16, rax
        lea     rax, [rcx * 8]
        vpinsrq xmm16, xmm16, rax, 1                    ; L, V form {message bits, AAD bits}
        cmp     ecx, 16
        ja      .wide_aad
        mov     eax, 0xFFFF
        bzhi    eax, eax, ecx
        kmovw   k3, eax
        vmovdqu8 xmm15{k3}{z}, [rdx]                    ; A (no byte read without AAD)
        vpshufb xmm15, xmm15, xmm11
        vinserti32x4 ymm15, ymm15, xmm16, 1             ; [A | L]
        lea     eax, [r9 + 15]
        and     eax, -16                                ; 16 t
        lea     rdx, [rdi + KEY_HPOW + 30 * 16]
        sub     rdx, rax                                ; HPOW(t + 2)
%if SMALL_CHUNKS
        cmp     eax, 32 * 16
        ja      .chunk
%endif
        cmp     eax, 30 * 16
        ja      .far
        vmovdqu64 xmm16, [rdx]
%if SMALL_SB == 0
        vmovdqu64 xmm17, [rdx + KEY_HKAR - KEY_HPOW]
%endif
        SAL_MUL                                         ; LO/MI/HI start
        jmp     .pre_done
.wide_aad:
        ; 17..64 bytes of AAD, a = ceil(aad_len / 16) blocks A_1..A_a in one zmm (zero past the
        ; AAD) times the row at HPOW(t + 1 + a) = [H^(t+1+a) .. H^(t-2+a)]: A_j takes
        ; H^(t+2+a-j); the lanes past the AAD hold zero blocks. L times H^1 joins lane 0. The
        ; caller keeps t + a <= 31 (no power beyond H^32).
        mov     rax, -1
        bzhi    rax, rax, rcx
        kmovq   k3, rax
        vmovdqu8 zmm15{k3}{z}, [rdx]
        vpshufb zmm15, zmm15, zmm11
%if SMALL_CHUNKS
        cmp     r9, 512
        ja      .chunk_wide
%endif
        lea     eax, [r9 + 15]
        and     eax, -16                                ; 16 t
        lea     edx, [ecx + 15]
        and     edx, -16                                ; 16 a
        add     edx, eax
        neg     rdx
        lea     rdx, [rdi + rdx + KEY_HPOW + 31 * 16]   ; HPOW(t + 1 + a)
        vmovdqu64 zmm17, [rdx]
        vpclmulqdq zmm12, zmm15, zmm17, 0x00            ; LO
        vpclmulqdq zmm14, zmm15, zmm17, 0x11            ; HI
%if SMALL_SB
        vpclmulqdq zmm13, zmm15, zmm17, 0x01
        vpclmulqdq zmm19, zmm15, zmm17, 0x10
        vpxorq  zmm13, zmm13, zmm19                     ; MI
        vmovdqu64 xmm17, [rdi + HPOW(1)]
        vpclmulqdq xmm18, xmm16, xmm17, 0x00
        vpclmulqdq xmm19, xmm16, xmm17, 0x01
        vpclmulqdq xmm15, xmm16, xmm17, 0x10
        vpclmulqdq xmm17, xmm16, xmm17, 0x11
        vpternlogq zmm13, zmm19, zmm15, 0x96            ; (the xmm products are zero above
        vpxorq  zmm12, zmm12, zmm18                     ; lane 0)
        vpxorq  zmm14, zmm14, zmm17
%else
        vpshufd zmm19, zmm15, 0x4e
        vpxorq  zmm19, zmm19, zmm15                     ; a0 ^ a1 in both qwords
        vpclmulqdq zmm13, zmm19, [rdx + KEY_HKAR - KEY_HPOW], 0x00 ; MI (Karatsuba)
        vmovdqu64 xmm17, [rdi + HPOW(1)]
        vpclmulqdq xmm18, xmm16, xmm17, 0x00
        vpclmulqdq xmm17, xmm16, xmm17, 0x11
        vpshufd xmm19, xmm16, 0x4e
        vpxorq  xmm19, xmm19, xmm16
        vpclmulqdq xmm19, xmm19, [rdi + HKAR(1)], 0x00
        vpxorq  zmm12, zmm12, zmm18                     ; (the xmm products are zero above
        vpxorq  zmm14, zmm14, zmm17                     ; lane 0)
        vpxorq  zmm13, zmm13, zmm19
%endif
        lea     rdx, [rdi + KEY_HPOW + 30 * 16]
        sub     rdx, rax                                ; HPOW(t + 2)
        jmp     .pre_done
.far:
        ; t = 31 or 32: A takes H^33 or H^34, and for t = 32 C_1 takes H^33, beyond the key's
        ; H^32: [H^33 | H^34] = [H^32 | H^32] x [H^1 | H^2] in the key's form (schoolbook, one
        ; reduction per lane), at entry, beside the pass
        vbroadcasti32x4 ymm16, [rdi + HPOW(32)]
        vmovdqu64 xmm17, [rdi + HPOW(1)]
        vinserti32x4 ymm17, ymm17, [rdi + HPOW(2)], 1
        SMULRED ymm                                     ; [H^33 | H^34] in ymm14
        vmovdqu64 zmm29, [rdx + 16]                     ; message zmm 0's rows, HPOW(t + 1)
%if SMALL_SB == 0
        vpshufd ymm19, ymm14, 0x4e
        vpxorq  ymm19, ymm19, ymm14                     ; their Karatsuba operands
        vmovdqu64 zmm30, [rdx + 16 + KEY_HKAR - KEY_HPOW]
%endif
        cmp     eax, 31 * 16
        je      .far31
        vinserti32x4 zmm29, zmm29, xmm14, 0             ; t = 32: C_1 takes H^33
        vextracti32x4 xmm16, ymm14, 1                   ; A takes H^34
%if SMALL_SB == 0
        vinserti32x4 zmm30, zmm30, xmm19, 0
        vextracti32x4 xmm17, ymm19, 1
%endif
        jmp     .far_a
.far31:
        vmovdqa64 xmm16, xmm14                          ; A takes H^33
%if SMALL_SB == 0
        vmovdqa64 xmm17, xmm19
%endif
.far_a:
        SAL_MUL
%if SMALL_CHUNKS
        jmp     .pre_done
.chunk:
        ; t = 33..128 (513..2048 bytes): chunks of 32 blocks, then a last one of
        ; t' = 1..32 blocks, by Horner's rule over the chunks: S_1 = A H^33 ^ C_1 H^32 ^ .. ^
        ; C_32 H^1 and S_(k+1) = S_k H^32 ^ C_(32k+1) H^32 ^ .. ^ C_(32k+32) H^1 (CBODY1, reduced
        ; while the next chunk runs); the last chunk is the one-pass kernel for t' blocks with S
        ; (the last S_k) in the AAD block's place, by H^(t'+1): GHASH = S H^(t'+1) ^
        ; C_(t-t'+1) H^(t'+1) ^ .. ^ C_t H^2 ^ L H. H^33 = H^32 H^1 is made here (xmm17: A takes
        ; it, and for t' = 32 S and the last chunk's first block). Chunk k's counters
        ; 32k+2..32k+33 are SCTR's 2..33 XOR 32k, except the
        ; last two of a chunk (32 + 32k, 33 + 32k): ZK ^= SZKD[k] (32k in the counter byte, as
        ; a step from chunk k-1) and row 7 ^= SFIX[k] (zmm31). rcx walks SZKD (free until the
        ; last chunk's SBODY). esi bit 9 marks the call (the clear).
        or      esi, 0x200
        vmovdqa64 xmm30, xmm16                          ; L, for the last chunk
        SH33
        vpclmulqdq xmm12, xmm15, xmm17, 0x00            ; A H^33 starts chunk 0's LO/MI/HI
        vpclmulqdq xmm13, xmm15, xmm17, 0x01
        vpclmulqdq xmm19, xmm15, xmm17, 0x10
        vpclmulqdq xmm14, xmm15, xmm17, 0x11
        SMI_START
        lea     rcx, [SZKD]
        lea     rdx, [rdi + KEY_HPOW - 16]              ; HPOW(33): rows HPOW(32 - 4i)
        jmp     .c_body
.chunk_wide:
        ; the same with 17..64 bytes of AAD (a = 2..4 blocks in zmm15, byte-reflected, zero past
        ; the AAD): S_0 = GHASH(A_1..A_a) = A_1 H^a ^ .. ^ A_a H^1 (the row at HPOW(a); lanes
        ; past the AAD are zero blocks), reduced here; every chunk then starts with S_k H^32
        or      esi, 0x200
        vmovdqa64 xmm30, xmm16                          ; L
        SH33
        lea     edx, [ecx + 15]
        and     edx, -16                                ; 16 a
        neg     rdx
        lea     rdx, [rdi + rdx + KEY_HPOW + 32 * 16]   ; HPOW(a)
        vmovdqu64 zmm16, [rdx]
        vpclmulqdq zmm12, zmm15, zmm16, 0x00
        vpclmulqdq zmm14, zmm15, zmm16, 0x11
        vpclmulqdq zmm13, zmm15, zmm16, 0x01
        vpclmulqdq zmm19, zmm15, zmm16, 0x10
        vpxorq  zmm13, zmm13, zmm19
        SREDUCE 12, 13, 14, 19, 1                       ; S_0 in xmm14
        lea     rcx, [SZKD]
        lea     rdx, [rdi + KEY_HPOW - 16]              ; HPOW(33): rows HPOW(32 - 4i)
.c_loop:
        vmovdqu64 xmm16, [rdi + HPOW(32)]
        vpclmulqdq xmm12, xmm14, xmm16, 0x00            ; S_k H^32 starts LO/MI/HI
        vpclmulqdq xmm13, xmm14, xmm16, 0x01
        vpclmulqdq xmm19, xmm14, xmm16, 0x10
        vpclmulqdq xmm14, xmm14, xmm16, 0x11
        SMI_START
.c_body:
        ; the next chunk's input lines (those within the message) prefetched: with keys and
        ; data beyond the caches 7-16% less time for decrypts of 1100-1420 bytes; in the
        ; caches level (AES-128 decrypts of 2 KiB 2% more)
        lea     rax, [r9 - 512]                         ; the next chunks' bytes (1 or more)
%assign _i 0
%rep 8
%if _i > 0
        cmp     rax, 64 * _i
        jbe     .c_pf_done
%endif
        prefetcht0 [r8 + 512 + 64 * _i]
%assign _i _i + 1
%endrep
.c_pf_done:
        vpxorq  zmm5, zmm5, [rcx]                       ; chunk k's counters
        vmovdqa64 zmm31, [rcx + SFIX - SZKD]
        CBODY1
        SREDUCE 12, 13, 14, 15, SMALL_SB                ; S_(k+1) (V form) in xmm14
        add     r8, 512
        add     r10, 512
        sub     r9, 512
        add     rcx, 64
        cmp     r9, 512
        ja      .c_loop
        ; the last chunk: t' blocks
        vpxorq  zmm5, zmm5, [rcx]
        vmovdqa64 zmm31, [rcx + SFIX - SZKD]
        lea     eax, [r9 + 15]
        and     eax, -16                                ; 16 t'
        lea     rdx, [rdi + KEY_HPOW + 30 * 16]
        sub     rdx, rax                                ; HPOW(t' + 2)
        vinserti32x4 ymm15, ymm14, xmm30, 1             ; [S | L]
        cmp     eax, 30 * 16
        ja      .c_far
        vmovdqu64 xmm16, [rdx + 16]                     ; H^(t' + 1)
%if SMALL_SB == 0
        vmovdqu64 xmm17, [rdx + 16 + KEY_HKAR - KEY_HPOW] ; (H^33 no longer needed)
%endif
        jmp     .c_mul
.c_far:
        ; t' = 31, 32: the first zmm's row HPOW(t' + 1) in zmm29 (SBODY 8 does not load it for
        ; t' > 30), and without SMALL_SB its Karatsuba row in zmm30; for t' = 32 their lane 0
        ; (past the key's powers) is H^33 and its operand
        vmovdqu64 zmm29, [rdx + 16]
%if SMALL_SB == 0
        vmovdqu64 zmm30, [rdx + 16 + KEY_HKAR - KEY_HPOW]
%endif
        cmp     eax, 32 * 16
        jne     .c_far31
        vinserti32x4 zmm29, zmm29, xmm17, 0
%if SMALL_SB == 0
        vpshufd xmm16, xmm17, 0x4e
        vpxorq  xmm16, xmm16, xmm17
        vinserti32x4 zmm30, zmm30, xmm16, 0
%endif
.c_far31:
        vmovdqa64 xmm16, xmm29
%if SMALL_SB == 0
        vmovdqa64 xmm17, xmm30
%endif
.c_mul:
        SAL_MUL                                         ; LO/MI/HI start
%endif
.pre_done:
        ; nz = ceil(len / 64) message zmm
        lea     ecx, [r9 + 63]
        shr     ecx, 6
        cmp     ecx, 4
        jb      .nz03
        je      .nz4
        cmp     ecx, 6
        jb      .nz5
        je      .nz6
        cmp     ecx, 7
        je      .nz7
        SBODY   8
.nz7:
        SBODY   7
.nz6:
        SBODY   6
.nz5:
        SBODY   5
.nz4:
        SBODY   4
.nz03:
        cmp     ecx, 2
        jb      .nz01
        je      .nz2
        SBODY   3
.nz2:
        SBODY   2
.nz01:
        test    ecx, ecx
        jz      .nz0
        SBODY   1
.nz0:
        ; no message: E_K(J0) alone
        mov     eax, [rdi + KEY_ROUNDS]
        SROUNDS 0
.final:
        STAG    12, 13, 14, 15, 11, 4, SMALL_SB
        ; clear what this path wrote: zmm21-30 only beyond four message zmm (M_4..M_7, D_4..D_7,
        ; the eight-zmm and t = 31, 32 rows), zmm7-10 only decrypting; zmm11 is BSWAP
%if SMALL_CHUNKS
        test    esi, 0x200                              ; a long message: zmm21-31 too
        jz      .clear_short
        SCLEAR  31, 31
        jmp     .clear_long
.clear_short:
%endif
        cmp     r9, 4 * 64
        jbe     .clear_dec
.clear_long:
        SCLEAR  21, 30
.clear_dec:
        test    esi, 0x100
        jz      .clear
        SCLEAR  7, 10
.clear:
        SCLEAR  0, 6
        SCLEAR  12, 20
        vzeroupper
        ret
%endmacro

; mbgcmi_avx512_small12: the encrypt's key stream in one pass (the by32 variants: on the AMD
; cores measured a split was slower, docs/perf.md); mbgcmi_avx512_small12p: in two or three
; passes (the by16 variant: 5-11% less time at 256-512 bytes on the Intel Xeon guest)
global mbgcmi_avx512_small12:function hidden
mbgcmi_avx512_small12:
%assign SMALL_SPLIT 0
%assign SMALL_SB 0
%assign SMALL_CHUNKS 0
        SMALL12_FN

; mbgcmi_avx512_small12k: small12 with the chunks (the by32 variant's decrypts of 513 bytes and
; more); an entry of its own, since the chunks' few extra instructions at entry and in the
; register clear (the SFIX row, the long-message flag) took 1-3% from small12's calls of up to
; 512 bytes on the Zen 5 guest
global mbgcmi_avx512_small12k:function hidden
mbgcmi_avx512_small12k:
%assign SMALL_SPLIT 0
%assign SMALL_SB 0
%assign SMALL_CHUNKS 1
        SMALL12_FN

global mbgcmi_avx512_small12p:function hidden
mbgcmi_avx512_small12p:
%assign SMALL_SPLIT 1
%assign SMALL_SB 1
%assign SMALL_CHUNKS 1
        SMALL12_FN


; TPRODUCTS: X (zmm2) times [H^4 .. H^1] (zmm7) into LO/MI/HI (zmm8-10), schoolbook (as small12p)
%macro TPRODUCTS 0
        vpclmulqdq zmm8, zmm2, zmm7, 0x00
        vpclmulqdq zmm10, zmm2, zmm7, 0x11
        vpclmulqdq zmm9, zmm2, zmm7, 0x01
        vpclmulqdq zmm6, zmm2, zmm7, 0x10
        vpxorq  zmm9, zmm9, zmm6
%endmacro

; TROUNDS[ p]: rounds 1..rounds (eax = 10, 12 or 14) on [CB | J0] in ymm0 (the whitening is in
; the counter row); with p = 1 (encrypting) the counter block's last round takes the last round
; key XOR the plaintext (xmm3, zero past the message), so lane 0 comes out as the ciphertext
; (as SROUNDS)
%macro TROUNDS 0-1 0
%assign _r 1
%rep 9
        vbroadcasti32x4 ymm1, [rdi + KEY_RK + 16 * _r]
        vaesenc ymm0, ymm0, ymm1
%assign _r _r + 1
%endrep
%rep 2
        cmp     eax, _r
        je      %%last
        vbroadcasti32x4 ymm1, [rdi + KEY_RK + 16 * _r]
        vaesenc ymm0, ymm0, ymm1
        vbroadcasti32x4 ymm1, [rdi + KEY_RK + 16 * (_r + 1)]
        vaesenc ymm0, ymm0, ymm1
%assign _r _r + 2
%endrep
%%last:
        shl     eax, 4
        add     rax, rdi                                ; the last round key: rk + 16 rounds
        vbroadcasti32x4 ymm1, [rax + KEY_RK]
%if %1
        vpxorq  ymm1, ymm1, ymm3                        ; (xmm3's write zeroed lane 1)
%endif
        vaesenclast ymm0, ymm0, ymm1
%endmacro

; int mbgcmi_avx512_tiny12(...as mbgcmi_avx512_small12...)
;   A message of one block or less: 1 <= len <= 16, aad_len <= 16 (by16_whole12 routes only
;   those here). At this size a call is mostly fixed cost (a frame, saved registers, slots to
;   wipe, branches for lengths it cannot have, every vector register to clear), so this entry
;   has none of it: about half the instructions of the general short paths.
;   The math, as above with t = 1: GHASH = A H^3 ^ C H^2 ^ L H, one zmm X = [0 | A | C | L]
;   times the key's 64-byte row at HPOW(4) = [H^4 | H^3 | H^2 | H^1], four products per block
;   (lane 0's zero block takes H^4 and adds nothing; the row is one cache line, nothing past it
;   is read; schoolbook, as small12p: 0-3% less time than Karatsuba with its HKAR(4) row).
;   One AES chain in ymm, [CB | J0] (CB = IV || BE32(2)): the key stream in xmm0.
;   Message, AAD and tag are read and written as 16-byte byte-masked xmm operands at their own
;   addresses (a first version read and wrote the message in lane 2 of a zmm at in - 32 and
;   out - 32 to save a lane insert: those 64-byte masked accesses cross cache lines and, by the
;   buffers' placement, page boundaries, and the call's time varied by 10-20% between runs of
;   one binary); A and L go into their lanes with one VSHUFI64X2, C with one VINSERTI32X4.
;   Decrypting, X is complete at entry and its products run under the rounds; encrypting,
;   after them.
;   Register plan: rdi k, rsi iv then tag_len | decrypt << 8, rdx aad, rcx aad_len, r8 in,
;   r9 len, r10 out, r11 tag, eax rounds, masks, result (all public);
;   ymm0 the AES chain, ymm1 round key, zmm2 X, xmm3 message (input, then output), xmm4 L,
;   then E_K(J0), zmm5 BSWAP, zmm6 scratch, zmm7 the H row, zmm8-10 LO/MI/HI, xmm20 the
;   expected tag; k1 the IV's dwords, k2 the tag's bytes, k3 A's bytes (then scratch), k4 the
;   message's.
;   Every vector register written is cleared before returning; no frame, no stack slot.
; TINY12 gmac: tiny12's body; gmac = 1 for a call without a message (len 0), whose X is
; [0 | 0 | A | L] (A by H^2): no message bytes read or written
%macro TINY12 1
        mov     eax, 0x77
        kmovw   k1, eax
        vbroadcasti32x4 ymm0{k1}{z}, [rsi]              ; IV || 0 in both lanes
        vbroadcasti32x4 ymm1, [rdi + KEY_RK]
        vpternlogq ymm0, ymm1, [TCTR], 0x96             ; [CB | J0] ^ rk0
%if %1 == 0
        mov     r10, [rsp + 8]                          ; out
%endif
        STAG_IN
        mov     eax, 0xFFFF
        bzhi    eax, eax, ecx
        kmovw   k3, eax                                 ; A's bytes
%if %1 == 0
        mov     eax, 0xFFFF
        bzhi    eax, eax, r9d
        kmovw   k4, eax                                 ; the message's bytes
%endif
        vmovdqa64 zmm5, [BSWAP]
        vmovdqu8 xmm2{k3}{z}, [rdx]                     ; A
%if %1 == 0
        vmovdqu8 xmm3{k4}{z}, [r8]                      ; P or C
%endif
        vpshufb xmm2, xmm2, xmm5
        lea     rax, [r9 * 8]
        vmovq   xmm4, rax
        lea     rax, [rcx * 8]
        vpinsrq xmm4, xmm4, rax, 1                      ; L, V form {message bits, AAD bits}
%if %1
        vinserti32x4 ymm6, ymm2, xmm4, 1                ; [A | L]
        vshufi64x2 zmm2, zmm2, zmm6, 0x45               ; X = [0 | 0 | A | L]
%else
        vshufi64x2 zmm2, zmm2, zmm4, 0x11               ; [0 | A | 0 | L]
%endif
        vmovdqu64 zmm7, [rdi + HPOW(4)]
        mov     eax, [rdi + KEY_ROUNDS]
%if %1
        TPRODUCTS
        TROUNDS
%else
        test    esi, 0x100
        jz      %%enc
        vpshufb xmm6, xmm3, xmm5                        ; decrypt: C, so X now
        vinserti32x4 zmm2, zmm2, xmm6, 2
        TPRODUCTS
        TROUNDS
        vpxorq  xmm3, xmm3, xmm0                        ; P
        vmovdqu8 [r10]{k4}, xmm3
        jmp     %%final
%%enc:
        TROUNDS 1
        vmovdqu8 [r10]{k4}, xmm0                        ; C
        vmovdqu8 xmm3{k4}{z}, xmm0                      ; C, zero past the message
        vpshufb xmm6, xmm3, xmm5
        vinserti32x4 zmm2, zmm2, xmm6, 2                ; X = [0 | A | C | L]
        TPRODUCTS
%endif
%%final:
        vextracti32x4 xmm4, ymm0, 1                     ; E_K(J0) (L is hashed)
        STAG    8, 9, 10, 6, 5, 4, 1
        SCLEAR  0, 4
        SCLEAR  6, 10
        SCLEAR  20, 20
        vzeroupper
        ret
%endmacro

global mbgcmi_avx512_tiny12:function hidden
mbgcmi_avx512_tiny12:
        TINY12  0

; int mbgcmi_avx512_tiny12g(...as mbgcmi_avx512_small12...): GMAC, len 0 and aad_len <= 16
;   (by16_whole12 routes only those here): GHASH = A H^2 ^ L H, X = [0 | 0 | A | L] times the
;   same rows, E_K(J0) the one AES block used (the chain keeps tiny12's [CB | J0] form)
global mbgcmi_avx512_tiny12g:function hidden
mbgcmi_avx512_tiny12g:
        TINY12  1

; GMAC_ROW: row zmm15 (reflected) times the power row at r8 and its Karatsuba row into
; LO/MI/HI (zmm12-14); zmm16-18 scratch. With GMAC_SB (gmac12p, the by16 variant's entry)
; schoolbook from the power row alone, as small12p: four products, no Karatsuba row (with many
; keys those rows are more lines to fetch per call; docs/perf.md)
%assign GMAC_SB 0
%macro GMAC_ROW 0
%if GMAC_SB
        vmovdqu64 zmm18, [r8]                           ; one load: rows at HPOW(n) are rarely
        vpclmulqdq zmm16, zmm15, zmm18, 0x00            ; 64-byte aligned
        vpclmulqdq zmm17, zmm15, zmm18, 0x11
        vpxorq  zmm12, zmm12, zmm16
        vpxorq  zmm14, zmm14, zmm17
        vpclmulqdq zmm16, zmm15, zmm18, 0x01
        vpclmulqdq zmm17, zmm15, zmm18, 0x10
        vpternlogq zmm13, zmm16, zmm17, 0x96            ; MI = a0 b1 ^ a1 b0
%else
        vpclmulqdq zmm16, zmm15, [r8], 0x00
        vpclmulqdq zmm17, zmm15, [r8], 0x11
        vpshufd zmm18, zmm15, 0x4e
        vpxorq  zmm18, zmm18, zmm15                     ; a0 ^ a1 in both qwords
        vpclmulqdq zmm18, zmm18, [r8 + KEY_HKAR - KEY_HPOW], 0x00
        vpxorq  zmm12, zmm12, zmm16
        vpxorq  zmm14, zmm14, zmm17
        vpxorq  zmm13, zmm13, zmm18
%endif
%endmacro

; GMAC_NEXT [s]: the full row at rdx (with s = 1 S, xmm21, joins its first block) into
; LO/MI/HI; rdx and r8 to the next row, r9d one less (flags set)
%macro GMAC_NEXT 0-1 0
        vmovdqu64 zmm15, [rdx]
        vpshufb zmm15, zmm15, zmm11
%if %1
        vpxorq  zmm15, zmm15, zmm21
%endif
        GMAC_ROW
        add     rdx, 64
        add     r8, 64
        dec     r9d
%endmacro

; GMAC_CHUNK s: r9d full rows from rdx, then a last row of eax bytes (1..64) under a byte mask,
; rdx left after them; power rows from r8 on; products into LO/MI/HI. With s = 1 the chunk's
; first block takes S (xmm21, zero above lane 0; such a chunk has a full row first). r11, k3
; scratch.
%macro GMAC_CHUNK 1
        bzhi    r11, [GONES], rax
        kmovq   k3, r11
%if %1
        GMAC_NEXT 1
%else
        test    r9d, r9d
%endif
        jz      %%last
%%row:
        GMAC_NEXT
        jnz     %%row
%%last:
        vmovdqu8 zmm15{k3}{z}, [rdx]
        vpshufb zmm15, zmm15, zmm11
        GMAC_ROW
        add     rdx, rax
%endmacro

; GMAC_S: S (xmm21) from LO/MI/HI (SREDUCE)
%macro GMAC_S 0
        SREDUCE 12, 13, 14, 15, GMAC_SB
        vmovdqa64 xmm21, xmm14
%endmacro

; GMAC_L: LO/MI/HI start from L times H^1 (L = {0, AAD bits}: LO nothing, HI the high qwords'
; product, MI L's high qword times H's Karatsuba operand, or with GMAC_SB times H's low qword)
%macro GMAC_L 0
        vpclmulqdq xmm14, xmm19, [rdi + HPOW(1)], 0x11
%if GMAC_SB
        vpclmulqdq xmm13, xmm19, [rdi + HPOW(1)], 0x01
%else
        vpclmulqdq xmm13, xmm19, [rdi + HKAR(1)], 0x01
%endif
        vpxorq  xmm12, xmm12, xmm12
%endmacro

; GMAC_ZERO: LO/MI/HI start from zero
%macro GMAC_ZERO 0
        vpxorq  xmm12, xmm12, xmm12
        vpxorq  xmm13, xmm13, xmm13
        vpxorq  xmm14, xmm14, xmm14
%endmacro

; GMAC_LAST s: the last chunk, B = eax bytes (the AAD's last ones): a_f = ceil(B / 16) blocks
; and L, powers from HPOW(a_f + 1); with s = 1 S joins its first block (as GMAC_CHUNK)
%macro GMAC_LAST 1
        lea     r9d, [eax + 15]
        and     r9d, -16                                ; 16 a_f
        neg     r9
        lea     r8, [rdi + r9 + KEY_HPOW + 31 * 16]     ; HPOW(a_f + 1)
        lea     r9d, [eax - 1]
        mov     eax, r9d
        and     eax, 63
        inc     eax                                     ; the last row's bytes, 1..64
        shr     r9d, 6                                  ; full rows before it
        GMAC_CHUNK %1
%endmacro

; GMAC_HEAD: gmac12's entry: J0 and E_K(J0) (xmm4), the expected tag (xmm20), k2, BSWAP, L
%macro GMAC_HEAD 0
        mov     eax, 0x7
        kmovw   k1, eax
        vmovdqu32 xmm4{k1}{z}, [rsi]                    ; IV || 0 (the IV's 12 bytes read)
        vmovdqu64 xmm6, [rdi + KEY_RK]
        vpternlogq xmm4, xmm6, [SJ0], 0x96              ; J0 ^ rk0
        STAG_IN
        mov     eax, [rdi + KEY_ROUNDS]
%assign _r 1
%rep 9
        vaesenc xmm4, xmm4, [rdi + KEY_RK + 16 * _r]
%assign _r _r + 1
%endrep
        cmp     eax, 10
        je      %%last
        vaesenc xmm4, xmm4, [rdi + KEY_RK + 16 * 10]
        vaesenc xmm4, xmm4, [rdi + KEY_RK + 16 * 11]
        cmp     eax, 12
        je      %%last
        vaesenc xmm4, xmm4, [rdi + KEY_RK + 16 * 12]
        vaesenc xmm4, xmm4, [rdi + KEY_RK + 16 * 13]
%%last:
        shl     eax, 4
        add     rax, rdi                                ; the last round key: rk + 16 rounds
        vaesenclast xmm4, xmm4, [rax + KEY_RK]          ; E_K(J0)
        vmovdqa64 zmm11, [BSWAP]
        lea     rax, [rcx * 8]
        vmovq   xmm19, rax
        vpslldq xmm19, xmm19, 8                         ; L = {0, AAD bits}
%endmacro

; GMAC_TAIL: the tag from LO/MI/HI, the registers cleared
%macro GMAC_TAIL 0
        STAG    12, 13, 14, 15, 11, 4, GMAC_SB
        SCLEAR  4, 4
        SCLEAR  6, 6
        SCLEAR  12, 21
        vzeroupper
        ret
%endmacro

; int mbgcmi_avx512_gmac12(...as mbgcmi_avx512_small12...): GMAC, len 0 and 17 <= aad_len <= 496
; int mbgcmi_avx512_gmac12c(...the same...): GMAC, len 0 and aad_len > 496 (whole12 sends it
;   497..GMAC12_MAX bytes), a = ceil(aad_len / 16) AAD blocks.
;
;   Why an entry of its own: such a call is a GHASH of a + 1 blocks and one AES block. small12
;   took 17..64 bytes of it through a message kernel's entry (counter rows, a pass over no
;   message zmm), and from 65 bytes by32's whole-message kernel (a frame, its AAD loop and its
;   tail logic around no message): 10-30% slower than intel-ipsec-mb 2.0.2's direct call at
;   32-512 bytes of AAD (docs/perf.md). From 2049 bytes by32's kernel is as quick again (its
;   AAD loop reduces less often), and it keeps those.
;
;   The math: GHASH(A_1..A_a, L) = A_1 H^(a+1) ^ ... ^ A_a H^2 ^ L H. The key holds H^1..H^32,
;   so the blocks go in chunks, by Horner's rule: the last chunk is the last a_f = min(a, 31)
;   blocks (its bytes B: the AAD's last B bytes, the partial block last), before it, if
;   a > 31, chunks of 32 blocks, and first one of f = 1..32 blocks (a - 31 = f + 32 m). With S
;   the GHASH of the chunks before (reduced; zero for the first), a chunk of n blocks X_1..X_n
;   gives S' = (S ^ X_1) H^n ^ X_2 H^(n-1) ^ .. ^ X_n H^1, the last chunk with L after its
;   blocks: n = a_f + 1. Row r of a chunk (four blocks, byte order reflected) takes the key's
;   64-byte power row at HPOW(n - 4r) = [H^(n-4r) .. H^(n-3-4r)] and its Karatsuba row; the
;   chunk's last row is loaded under a byte mask, so a partial block and the lanes past the
;   chunk are zero, and whatever the rows hold there (at most 48 bytes past H^1 and past the
;   Karatsuba table's end, inside the key) adds nothing. Products summed into LO / MI / HI,
;   three per block (Karatsuba), one reduction per chunk (GMAC_S) and at the end; L times H^1:
;   L = {0, 8 aad_len} (V form, no message bits) has a zero low half, so LO gets nothing, HI
;   the product of the high qwords and MI L's high qword times H's Karatsuba operand. STAG
;   reduces, folds the lanes and XORs E_K(J0), which runs beside (one xmm block, round keys
;   from memory: no broadcast on the rounds' pipes).
;
;   gmac12 is the one-chunk case (a <= 31) alone; gmac12c makes the chunks (an entry of its
;   own, so that the one-chunk calls take no branch more). gmac12p is gmac12 with schoolbook
;   products (four per block from the power rows alone, MI = a0 b1 ^ a1 b0, as small12p): the
;   by16 variant's (Intel), where a product issues every cycle (the product Karatsuba saves
;   buys little) and its rows are more lines per call with many keys. There it took 2-17% off the time of
;   the paths before it (small12p to 64 bytes of AAD, by16's kernel above) at 17-496 bytes;
;   gmac12c's chunks, Karatsuba or schoolbook, were 5-11% slower than by16's AAD loop at 768-2048
;   bytes, so by16 keeps those (docs/perf.md, "Intel Xeon guest, eighth stop").
;   Register plan: rdi k, rsi iv then tag_len | decrypt << 8, rdx aad (advancing), rcx
;   aad_len, r8 the power row, r9 rows left in a chunk, r10 middle chunks left, r11 tag then
;   scratch (reloaded for STAG), rax rounds, lengths, the result; xmm4 J0 -> E_K(J0), xmm6
;   scratch, zmm11 BSWAP, zmm12-14 LO/MI/HI, zmm15 a row, zmm16-18 its products, xmm19 L, xmm20
;   the expected tag, xmm21 S; k1 the IV's dwords, k2 the tag's bytes, k3 a last row's bytes.
;   Every branch is on a length or the key's rounds. No stack slot is written. (len, in and
;   out are not read: a GMAC call has no message.)
; GMAC12_ONE [suffix]: the one-chunk entry, gmac12 (Karatsuba) or gmac12p (suffix p, GMAC_SB:
; schoolbook, the by16 variant's)
%macro GMAC12_ONE 0-1
align 64
global mbgcmi_avx512_gmac12%1:function hidden
mbgcmi_avx512_gmac12%1:
        GMAC_HEAD
        ; one chunk (a <= 31): powers from HPOW(a + 1)
        lea     eax, [rcx + 15]
        and     eax, -16                                ; 16 a
        neg     rax
        lea     r8, [rdi + rax + KEY_HPOW + 31 * 16]    ; HPOW(a + 1)
        GMAC_L
        lea     r9d, [ecx - 1]
        shr     r9d, 6                                  ; full rows before the last
        jz      %%g_lastrow
%%g_row:
        GMAC_NEXT
        jnz     %%g_row
%%g_lastrow:
        lea     eax, [ecx - 1]
        and     eax, 63
        inc     eax                                     ; the last row's bytes, 1..64
        mov     r9, -1
        bzhi    r9, r9, rax
        kmovq   k3, r9
        vmovdqu8 zmm15{k3}{z}, [rdx]
        vpshufb zmm15, zmm15, zmm11
        GMAC_ROW
        GMAC_TAIL
%endmacro

GMAC12_ONE
%assign GMAC_SB 1
GMAC12_ONE p
%assign GMAC_SB 0

global mbgcmi_avx512_gmac12c:function hidden
mbgcmi_avx512_gmac12c:
        GMAC_HEAD
        ; the first chunk: f blocks, powers from HPOW(f)
        GMAC_ZERO
        lea     rax, [rcx + 15]
        shr     rax, 4                                  ; a
        sub     rax, 32                                 ; a - 32 = f - 1 + 32 m
        mov     r10, rax
        shr     r10, 5                                  ; m
        and     eax, 31                                 ; f - 1
        mov     r9d, eax
        shl     eax, 4
        neg     rax
        lea     r8, [rdi + rax + KEY_HPOW + 31 * 16]    ; HPOW(f)
        mov     eax, r9d
        and     eax, 3
        shl     eax, 4
        add     eax, 16                                 ; the last row's bytes
        shr     r9d, 2                                  ; full rows before it
        GMAC_CHUNK 0
        test    r10, r10
        jz      .g_lastchunk
.g_mid:
        GMAC_S
        GMAC_ZERO
        lea     r8, [rdi + HPOW(32)]
        mov     r9d, 7
        mov     eax, 64
        GMAC_CHUNK 1
        dec     r10
        jnz     .g_mid
.g_lastchunk:
        GMAC_S
        GMAC_L
        mov     eax, ecx
        neg     eax
        and     eax, 15
        neg     eax
        add     eax, 31 * 16                            ; B = 496 - the last block's padding
        GMAC_LAST 1
        mov     r11, [rsp + 16]                         ; tag (r11 was scratch in the chunks)
        GMAC_TAIL

section .note.GNU-stack noalloc noexec nowrite progbits
