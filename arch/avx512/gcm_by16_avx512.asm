; SPDX-License-Identifier: BSD-3-Clause
; gcm_by16_avx512.asm — single-stream ("by16": one message, 16 blocks per iteration) AES-GCM
; kernels with VAES + VPCLMULQDQ on zmm: the `avx512` one-shot path and the manager's path for
; long messages (and for J0 of odd-length IVs).
;
; Four consecutive blocks of the one message per zmm; four zmm per iteration (16 blocks, four
; independent AES chains of four blocks each). Round keys are broadcast to all four 128-bit
; lanes (one VBROADCASTI32X4 per round: a pure load). The GHASH of iteration i-1's 16 blocks is
; stitched between the AES rounds of iteration i. GHASH aggregates 16 blocks with H^16..H^1,
; which the key stores highest first, so one 64-byte load at H^(4j+4) gives
; [H^(4j+4), H^(4j+3), H^(4j+2), H^(4j+1)] for the four blocks of zmm j (block 0 of the group,
; lane 0 of zmm 0, multiplies H^16); schoolbook products everywhere (GH_W with the
; powers in registers in the loop, GH_MS with a row loaded from the key for the final hash, and
; the AAD loop's schoolbook form, GH_AAD_SCHOOLBOOK, defined before gcm_wide.inc below); one
; Montgomery reduction per lane, then the four lanes (partial sums of one message) are
; xor-folded into one 128-bit S (reduction is linear, so fold after reducing). Where two whole
; groups or more are left, the loops run two passes per turn and reduce once per 32 hashed
; blocks, and keep S as four unfolded lane sums between pairs: zmm k of a pair is multiplied
; by H^(32-4k) in all four lanes, and the next whole group's hash, with the usual powers,
; folds them (GH_PAIR in gcm_wide.inc; ENC_LAG2, DEC_PAIRS). Math: arch/generic/ghash_ct.c.
;
; CPU: AVX512F/BW/VL + VAES + VPCLMULQDQ (the `avx512` arch). ABI: System V.
;
; void mbgcmi_avx512_ghash(const key *k, uint64_t s[2], const uint8_t *in, size_t nblocks);
; void mbgcmi_avx512_ctr_enc(const key *k, uint8_t ctr[16], uint64_t s[2],
;                          const uint8_t *in, uint8_t *out, size_t nblocks);
; void mbgcmi_avx512_ctr_dec(...same...);
;   Contracts as the `struct mbgcmi_gcm_ops` members in core/gcm.h: s in V form,
;   ctr = next counter block (inc32, left at the next unused value), GHASH of the ciphertext
;   (out for _enc, in for _dec), in == out allowed (_dec hashes each group before writing it).
;
; Register plan
;   rdi k  rsi ctr  rdx s  rcx in  r8 out  r9 blocks left  eax rounds  r10 scratch
;   zmm0-3   B0..B3  counter blocks -> key stream -> output (4 blocks each)
;   zmm4-7   G0..G3  the previous group's GHASH input (byte order until hashed)
;   zmm8-11  decrypt: the group's input, loaded before its pass; encrypt: the older of two
;            groups waiting for their GHASH (ENC_LAG2), else scratch for loads. In a turn of
;            two passes (ENC_LAG2, DEC_PAIRS) zmm4-7 and zmm8-11 trade these roles
;            instead of being copied
;   zmm12    CTR     counters of B0's four blocks, byte-reflected (low dword = counter); in the
;                    whole-group loops Z instead: the counter block with its last byte zero,
;                    XORed with round key 0 (CTR_WB in gcm_wide.inc)
;   zmm13    BSWAP   zmm14 POLY   zmm16 S (lane 0, other lanes zero; after a pair's
;            reduction four limbs, one per lane, until the next group's hash folds them)
;   zmm15    J0, then E_K(J0) (the whole-message kernels: a fifth chain of the first AES pass,
;            decrypting, or of the last one, encrypting: WHOLE_BODY)
;   zmm17-19 LO/MI/HI   zmm20-21, zmm28-29 scratch (zmm21, and zmm30-31 below: a pair's
;            broadcast power H^(32-4k))   zmm22 round key (broadcast)
;   zmm23    the expected tag (mbgcmi_avx512_gcm12, decrypt)
;   zmm24-27 [H^16..H^13] [H^12..H^9] [H^8..H^5] [H^4..H^1]
;   zmm30-31 scratch of GH_W's merges and pairs; in mbgcmi_avx512_gcm12_jobs, between a job's
;            end and the next job's first pass (no GH_STEP there), the previous job's E_K(J0)
;            and 17th GHASH input
; Every vector register used is cleared before returning. The macros this kernel shares with
; gcm_by32_avx512.asm (GHASH, AES pass, counters, whole-message entry and tag) are in
; gcm_wide.inc.
default rel
%include "key.inc"
%include "frame.inc"
%include "clear.inc"
%include "job.inc"
%define GH_AAD_SCHOOLBOOK
%include "gcm_wide.inc"

section .rodata
%include "consts.inc"
WIDE_CONSTS
WIDE_CTR_TABLE
WJ0ONE:         dd 0, 0, 0, 1 << 24                 ; J0 = IV || 00 00 00 01
                dd 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
WJ0TWO:         dd 0, 0, 0, 2 << 24                 ; J0 + 1 (a 12-byte IV)

section .text

extern mbgcmi_avx_block

global mbgcmi_avx512_ghash:function hidden
mbgcmi_avx512_ghash:                      ; rdi k, rsi s, rdx in, rcx nblocks
        vmovdqa64 zmm13, [BSWAP]
        vmovdqa64 zmm14, [POLY]
        vmovdqu64 xmm16, [rsi]
        shl     rcx, 4                          ; bytes (< 2^64 for every valid length)
        GHASH_AAD rdx, rcx, r8, rax
        vmovdqu64 [rsi], xmm16
        CLEAR_VREGS zmm
        ret

; The two ends of a message in pieces (core/gcm_stream.c) in one call each, for the common
; start (a 12-byte IV, at most 16 bytes of AAD) and every end, in place of a J0 helper and two
; one-block ghash calls, each of which clears all 32 vector registers on its way out; these
; clear only the registers they wrote (the start ends in the block op for E_K(J0)). Both take the stream's state from its GHASH
; field on (struct mbgcmi_stream; core/gcm_stream.c asserts these offsets): S (V form) +0,
; E_K(J0) +16, the next counter block +32, the partial block's ciphertext bytes (zero past the
; used ones) +64, AAD bytes +80, message bytes +88, the partial block's used bytes (dword) +96.
%define ST_S        0
%define ST_EK0      16
%define ST_CTR      32
%define ST_CBUF     64
%define ST_AAD_LEN  80
%define ST_LEN      88
%define ST_USED     96

; void mbgcmi_avx512_stream12_start(const key *k, const uint8_t iv[12], const uint8_t *aad,
;                                   size_t aad_len, uint64_t *st);
;   aad_len 0..16. J0 = IV || 0^31 || 1; writes the counter J0 + 1, S = A H (A the AAD block
;   zero-padded; S = 0 without AAD) and E_K(J0), the last through the block op
;   (mbgcmi_avx_block, a tail call: J0 is written to E_K(J0)'s place and encrypted there).
global mbgcmi_avx512_stream12_start:function hidden
mbgcmi_avx512_stream12_start:             ; rdi k, rsi iv, rdx aad, rcx aad_len, r8 st
        mov     eax, 0xFFF
        kmovw   k1, eax
        vmovdqu8 xmm0{k1}{z}, [rsi]             ; IV || 0 (the IV's 12 bytes read, no more)
        vpord   xmm1, xmm0, [WJ0ONE]            ; J0
        vpord   xmm0, xmm0, [WJ0TWO]            ; J0 + 1, the first counter block
        vmovdqu64 [r8 + ST_CTR], xmm0
        vmovdqu64 [r8 + ST_EK0], xmm1
        vpxorq  xmm16, xmm16, xmm16             ; S = 0
        test    ecx, ecx
        jz      .s_out
        vmovdqa64 xmm13, [BSWAP]
        vmovdqa64 xmm14, [POLY]
        mov     eax, 0xFFFF
        bzhi    eax, eax, ecx
        kmovw   k1, eax
        vmovdqu8 xmm2{k1}{z}, [rdx]             ; A, zero-padded
        GHASH1  xmm2
        vpxorq  xmm2, xmm2, xmm2
        vpxorq  xmm8, xmm8, xmm8
        vpxorq  xmm9, xmm9, xmm9
        vpxorq  xmm10, xmm10, xmm10
        vpxorq  xmm17, xmm17, xmm17
        vpxorq  xmm18, xmm18, xmm18
        vpxorq  xmm19, xmm19, xmm19
        vpxorq  xmm20, xmm20, xmm20
.s_out:
        vmovdqu64 [r8 + ST_S], xmm16
        vpxorq  xmm16, xmm16, xmm16
        lea     rsi, [r8 + ST_EK0]
        mov     rdx, rsi
        jmp     mbgcmi_avx_block                ; E_K(J0) in place (clears xmm0, xmm1)

; void mbgcmi_avx512_stream_finish(const key *k, const uint64_t *st, uint8_t t[16]);
;   S over the partial block (when bytes of it were used) and the length block, then
;   T = E_K(J0) ^ S, the full tag, to t. The state is left as it was (the caller wipes it).
global mbgcmi_avx512_stream_finish:function hidden
mbgcmi_avx512_stream_finish:              ; rdi k, rsi st, rdx t
        vmovdqa64 xmm13, [BSWAP]
        vmovdqa64 xmm14, [POLY]
        vmovdqu64 xmm16, [rsi + ST_S]
        cmp     dword [rsi + ST_USED], 0
        je      .f_len
        vmovdqu64 xmm2, [rsi + ST_CBUF]
        GHASH1  xmm2
.f_len:
        mov     rax, [rsi + ST_LEN]
        shl     rax, 3
        vmovq   xmm2, rax
        mov     rax, [rsi + ST_AAD_LEN]
        shl     rax, 3
        vpinsrq xmm2, xmm2, rax, 1              ; L in V form {message bits, AAD bits}
        GHASH1_V xmm2
        vpshufb xmm16, xmm16, xmm13
        vpxorq  xmm16, xmm16, [rsi + ST_EK0]
        vmovdqu64 [rdx], xmm16
        vpxorq  xmm2, xmm2, xmm2
        vpxorq  xmm8, xmm8, xmm8
        vpxorq  xmm9, xmm9, xmm9
        vpxorq  xmm10, xmm10, xmm10
        vpxorq  xmm16, xmm16, xmm16
        vpxorq  xmm17, xmm17, xmm17
        vpxorq  xmm18, xmm18, xmm18
        vpxorq  xmm19, xmm19, xmm19
        vpxorq  xmm20, xmm20, xmm20
        ret

; GROUP_LOAD dec / GROUP_STORE dec: one whole group of 16 blocks around its AES pass. Decrypt
; loads the input before the pass (in may equal out) and hashes the input; encrypt hashes the
; output. GROUP_STORE leaves the GHASH input (byte order) in zmm4-7, stores the output and
; advances rcx, r8 and r9.
;   GROUP_LOAD dec, base loads into zmm(base)..zmm(base+3) instead of zmm8-11; GROUP_OUT base
; stores zmm(base)..zmm(base+3) and advances rcx, r8 and r9 (the end of every group's store).
%macro GROUP_LOAD 1-2 8
%if %1
%assign _gl %2
%assign _go 0
%rep 4
        vmovdqu64 zmm %+ _gl, [rcx + 64 * _go]          ; load early: in may equal out
%assign _gl _gl + 1
%assign _go _go + 1
%endrep
%endif
%endmacro
%macro GROUP_OUT 1
%assign _gl %1
%assign _go 0
%rep 4
        vmovdqu64 [r8 + 64 * _go], zmm %+ _gl
%assign _gl _gl + 1
%assign _go _go + 1
%endrep
        add     rcx, 256
        add     r8, 256
        sub     r9, 16
%if BY16_LIST
        ; a message in a chunk list (mbgcmi_avx512_by16_gcm_list): every second group ends an
        ; entry of 512 bytes, and the next entry's input and output pointers take over
        xor     byte [rsp + GF_PAR], 1
        jnz     %%in_entry
        mov     r10, [rsp + GF_LIST]
        mov     rcx, [r10 + CH_IN]
        mov     r8, [r10 + CH_OUT]
        add     r10, CH_SIZE
        mov     [rsp + GF_LIST], r10
%%in_entry:
%endif
%endmacro
; BY16_LIST 1 while WHOLE_BODY is expanded for the chunk-list entry (GROUP_OUT above)
%assign BY16_LIST 0
%macro GROUP_STORE 1
%if %1
        vpxorq  zmm0, zmm0, zmm8
        vpxorq  zmm1, zmm1, zmm9
        vpxorq  zmm2, zmm2, zmm10
        vpxorq  zmm3, zmm3, zmm11
        vmovdqa64 zmm4, zmm8                            ; decrypt: hash the input
        vmovdqa64 zmm5, zmm9
        vmovdqa64 zmm6, zmm10
        vmovdqa64 zmm7, zmm11
%else
        vpxorq  zmm0, zmm0, [rcx]
        vpxorq  zmm1, zmm1, [rcx + 64]
        vpxorq  zmm2, zmm2, [rcx + 128]
        vpxorq  zmm3, zmm3, [rcx + 192]
        vmovdqa64 zmm4, zmm0                            ; encrypt: hash the output
        vmovdqa64 zmm5, zmm1
        vmovdqa64 zmm6, zmm2
        vmovdqa64 zmm7, zmm3
%endif
        GROUP_OUT 0
%endmacro

; ENC_LAG2 ctr, exit: the whole-group loop of an encrypt, entered after the first group's
; GROUP_STORE (its GHASH pending in zmm4-7, r9 blocks left, 16 c in |ctr|: CTR_WB). An
; encrypt's GHASH input is its output, ready only when the group's AES pass ends; hashed under
; the next group's rounds (as a decrypt's input is), it held that pass back on Intel (by16's
; loop with the GHASH of the group before last took 3-4% less time for AES-128 at 4-16 KiB,
; docs/perf.md). So each group is hashed two groups later: the older pending group in zmm8-11
; (free in an encrypt), the newer in zmm4-7. The second group runs without GHASH; on leaving,
; the older group is hashed alone and the newer stays pending in zmm4-7, as after the
; one-group loop; jumps to |exit| with fewer than 16 blocks left.
;   With keep2 = 1 (ENC_LAG2 ctr, exit, 1: WHOLE_BODY) the older group is not hashed on
; leaving but left pending in zmm8-11 with r14d = 2, for the next pass to hash both (GH2_STEP).
;   Groups are hashed in pairs where two more follow (GH_PAIR: one reduction per 32 blocks):
; the first of a turn puts its output in zmm8-11 and the second in zmm4-7 directly (the
; output's XOR writes there, no copies), so each turn ends as it began.
; PAIR_STORE_ENC base: the pass's output (zmm0-3 XOR input) into zmm(base)..zmm(base+3),
; stored; advances rcx, r8, r9
%macro PAIR_STORE_ENC 1
%assign _pb %1
%assign _pz 0
%rep 4
        vpxorq  zmm %+ _pb, zmm %+ _pz, [rcx + 64 * _pz]
%assign _pb _pb + 1
%assign _pz _pz + 1
%endrep
        GROUP_OUT %1
%endmacro
%macro ENC_LAG2 2-3 0
        cmp     r9, 16
        jb      %2
        CTR_WB  %1
        AES_W   4, 0, 0, 1
        vmovdqa64 zmm8, zmm4
        vmovdqa64 zmm9, zmm5
        vmovdqa64 zmm10, zmm6
        vmovdqa64 zmm11, zmm7
        GROUP_STORE 0
%%pairs:                                                ; older in zmm8-11, newer in zmm4-7
        cmp     r9, 32
        jb      %%one
        CTR_WB  %1
%define GH_BASE 8
%define GH_PAIR 1
        AES_W   4, 1, 0, 1                              ; the older: H^32..H^17, unreduced
%undef GH_PAIR
%undef GH_BASE
        PAIR_STORE_ENC 8
        CTR_WB  %1
%define GH_PAIR 2
        AES_W   4, 1, 0, 1                              ; the newer: H^16..H^1, reduced
%undef GH_PAIR
        PAIR_STORE_ENC 4
        jmp     %%pairs
%%one:                                                  ; 16 to 31 blocks left
        cmp     r9, 16
        jb      %%drain
        CTR_WB  %1
%define GH_BASE 8
        AES_W   4, 1, 0, 1                              ; with the older group's GHASH
%undef GH_BASE
        vmovdqa64 zmm8, zmm4
        vmovdqa64 zmm9, zmm5
        vmovdqa64 zmm10, zmm6
        vmovdqa64 zmm11, zmm7
        GROUP_STORE 0
%%drain:
%if %3
        mov     r14d, 2                                 ; two groups pending (WHOLE_BODY)
%else
        GH_STEP 0, 8
        GH_STEP 1, 8
        GH_STEP 2, 8
        GH_STEP 3, 8
        GH_STEP 4, 8
%endif
        jmp     %2
%endmacro

; DEC_PAIRS ctr, exit: the whole-group loop of a decrypt, entered with the previous group's
; input pending in zmm4-7 (r9 blocks left, 16 c in |ctr|: CTR_WB): while two groups or
; more are left, a turn of two passes, the first loading its input into zmm8-11 and hashing
; zmm4-7 (GH_PAIR 1), the second loading into zmm4-7 and hashing zmm8-11 (GH_PAIR 2, reduced);
; then at most one more group as before. Jumps to |exit| with fewer than 16 blocks left and
; the last group's input pending in zmm4-7.
%macro PAIR_STORE_DEC 1
%assign _pb %1
%assign _pz 0
%rep 4
        vpxorq  zmm %+ _pz, zmm %+ _pz, zmm %+ _pb
%assign _pb _pb + 1
%assign _pz _pz + 1
%endrep
        GROUP_OUT 0
%endmacro
%macro DEC_PAIRS 2
%%pairs:
        cmp     r9, 32
        jb      %%one
        CTR_WB  %1
        GROUP_LOAD 1                                    ; into zmm8-11
%define GH_PAIR 1
        AES_W   4, 1, 0, 1
%undef GH_PAIR
        PAIR_STORE_DEC 8
        CTR_WB  %1
        GROUP_LOAD 1, 4                                 ; into zmm4-7
%define GH_BASE 8
%define GH_PAIR 2
        AES_W   4, 1, 0, 1
%undef GH_PAIR
%undef GH_BASE
        PAIR_STORE_DEC 4
        jmp     %%pairs
%%one:
        cmp     r9, 16
        jb      %2
        CTR_WB  %1
        GROUP_LOAD 1
        AES_W   4, 1, 0, 1                              ; with the previous group's GHASH
        GROUP_STORE 1
        jmp     %2
%endmacro

; ---------------------------------------------------------------------------------------------
; CTR_LOOP dec: CTR + GHASH over r9 full blocks from rcx to r8 (advanced); zmm12 = counters
; (lanes +0..+3, byte-reflected), S in xmm16, eax = rounds, SETUP done. Leaves zmm12 lane 0 at
; the next counter.
%macro CTR_LOOP 1
        cmp     r9, 16
        jb      %%tail4
        ; first group: no GHASH pending yet
        movzx   r11d, byte [rsi + 15]                   ; the counter's last byte
        shl     r11d, 4
        CTR_Z_ENTER
        CTR_WB  r11
        GROUP_LOAD %1
        AES_W   4, 0, 0, 1
        GROUP_STORE %1
%if %1 == 0
        ENC_LAG2 r11, %%drain                           ; (encrypt: two groups' lag, below)
%else
        DEC_PAIRS r11, %%drain
%endif
%%drain:
        CTR_Z_LEAVE r11
        GH_STEP 0                                       ; hash the last full group
        GH_STEP 1
        GH_STEP 2
        GH_STEP 3
        GH_STEP 4
%%tail4:                                                ; groups of four blocks
        cmp     r9, 4
        jb      %%tail1
        vpshufb zmm0, zmm12, zmm13
        vpaddd  zmm12, zmm12, [WADD4]
        AES_W   1, 0
%if %1
        vmovdqu64 zmm4, [rcx]
        vpxorq  zmm0, zmm0, zmm4
%else
        vpxorq  zmm0, zmm0, [rcx]
        vmovdqa64 zmm4, zmm0
%endif
        vmovdqu64 [r8], zmm0
        GHASH4  zmm4
        add     rcx, 64
        add     r8, 64
        sub     r9, 4
        jmp     %%tail4
%%tail1:                                                ; single blocks (xmm)
        test    r9, r9
        jz      %%done
        vpshufb zmm0, zmm12, zmm13                      ; lane 0 is the next counter
        vpaddd  zmm12, zmm12, [WADD1]                   ; only lane 0 matters from here on
        AES_W   1, 0
%if %1
        vmovdqu64 xmm11, [rcx]
        vpxorq  xmm0, xmm0, xmm11
%else
        vpxorq  xmm0, xmm0, [rcx]
        vmovdqa64 xmm11, xmm0
%endif
        vmovdqu64 [r8], xmm0
        GHASH1  xmm11
        add     rcx, 16
        add     r8, 16
        dec     r9
        jmp     %%tail1
%%done:
%endmacro


%macro CTR_FN 1
        mov     eax, [rdi + KEY_ROUNDS]
        SETUP
        vmovdqu64 xmm16, [rdx]
        CTR_FROM [rsi]
        CTR_LOOP %1
        vpshufb xmm12, xmm12, xmm13                     ; next counter, byte order (lane 0)
        vmovdqu64 [rsi], xmm12
        vmovdqu64 [rdx], xmm16
        CLEAR_VREGS zmm
        ret
%endmacro

global mbgcmi_avx512_ctr_enc:function hidden
mbgcmi_avx512_ctr_enc:
        CTR_FN  0

global mbgcmi_avx512_ctr_dec:function hidden
mbgcmi_avx512_ctr_dec:
        CTR_FN  1

; ---------------------------------------------------------------------------------------------
; void mbgcmi_avx512_gcm(const key *k, const uint8_t j0[16], const uint8_t *aad, size_t aad_len,
;                      const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[16], int decrypt);
;   The whole message in one call; writes the full 16-byte tag T = E_K(J0) ^ S (the caller
;   truncates or compares it). in == out allowed. Limits as validated by the API.
;   Flow: E_K(J0); AAD (full blocks, then the last one under a byte mask); groups of 16 full
;   blocks, each group's GHASH stitched into a later group's AES rounds (decrypt: the next;
;   encrypt: the one after, ENC_LAG2); then the tail — the bytes after the last whole group
;   (0..255) as one group of up to four zmm under byte masks, its pass carrying the GHASH of
;   the groups still pending (an encrypt's last two: GH2_STEP; without a tail E_K(J0)'s pass
;   carries them) — and finally ONE aggregated GHASH over the F blocks still unhashed (the
;   tail's, or the last whole group's when there is no tail and it was not hashed in J0's
;   pass) followed by the length block, with H^(F+1) .. H^1 (F <= 16, so at most H^17 of the
;   key's 32 powers), one reduction, one fold. A message of up to 255 bytes therefore costs
;   one AES pass and one reduction (plus the AAD's).
;   Extra registers: rbx len, r11 aad_len, r13 tag, r14 pending groups (0..2), r15 power base,
;   rsi remaining tail bytes; [rbp+16..] stack arguments.

; GH_MS X, j, first: X times the powers at [r15 + 64j] into LO/MI/HI, schoolbook (four
; multiplies, no shuffle: see GH_W); reduced by GH_W_REDUCE_SB. The row is loaded once into
; zmm28 (free in a job's first pass, where FIN_STEP runs): a row starting at H^(F+1) is rarely
; 64-byte aligned, so as a memory operand of each of the four multiplies it would be four loads,
; each split across two cache lines
%macro GH_MS 3
        vmovdqu64  zmm28, [r15 + 64 * (%2)]             ; one load: rows at HPOW(F+1) are
%if %3                                                  ; rarely 64-byte aligned (line splits)
        vpclmulqdq zmm17, %1, zmm28, 0x00
        vpclmulqdq zmm19, %1, zmm28, 0x11
        vpclmulqdq zmm18, %1, zmm28, 0x01
        vpclmulqdq zmm20, %1, zmm28, 0x10
        vpxorq     zmm18, zmm18, zmm20
%else
        vpclmulqdq zmm20, %1, zmm28, 0x00
        vpclmulqdq zmm21, %1, zmm28, 0x11
        vpxorq     zmm17, zmm17, zmm20
        vpxorq     zmm19, zmm19, zmm21
        vpclmulqdq zmm20, %1, zmm28, 0x01
        vpclmulqdq zmm21, %1, zmm28, 0x10
        vpternlogq zmm18, zmm20, zmm21, 0x96
%endif
%endmacro

; TAIL_AES nz[, j0]: AES of the tail's nz counter zmm, stitching the pending group's GHASH if
; r14, and then with E_K(J0) in the same pass if j0 (a whole-message encrypt: TAIL_AES_E)
%macro TAIL_AES 1-2 0
        test    r14d, r14d
        jz      %%plain
        AES_W   %1, 1, %2
        jmp     %%done
%%plain:                                                ; the first AES pass: J0 joins it
        AES_W   %1, 0, 1
%%done:
%endmacro

; TAIL_AES_E nz: the tail pass of a whole-message encrypt, whose E_K(J0) is not in its first
; pass (WHOLE_BODY): it carries E_K(J0) and the GHASH of the r14d pending groups (0..2; two:
; GH2_STEP)
%macro TAIL_AES_E 1
        cmp     r14d, 1
        jb      %%plain
        ja      %%two
        AES_W   %1, 1, 1
        jmp     %%done
%%two:
        AES_W   %1, 3, 1
        jmp     %%done
%%plain:
        AES_W   %1, 0, 1
%%done:
%endmacro

; TAIL_IO nz, dec, aes: the tail's nz slices: the AES pass (macro |aes| nz: TAIL_AES,
; TAIL_AES_E or TAIL_AES_J), masked loads and stores (the last slice's bytes only), and the
; GHASH input in zmm4..: the output when encrypting (key stream kept to the message bytes), the
; input when decrypting; zero beyond nz. A decrypt loads its input into zmm8.. before the pass
; (in may equal out, and the input is what it hashes); an encrypt after it, every load before
; any store, so that the pass may hash two pending groups in zmm4-11 (TAIL_AES_E).
%macro TAIL_IO 3
%assign _kl 4 + (%1) - 1
        mov     rdx, -1                                 ; (eax holds the rounds: not rax)
        lea     r10d, [rsi - 64 * ((%1) - 1)]           ; bytes in the last slice (1..64)
        bzhi    rdx, rdx, r10
        kmovq   k %+ _kl, rdx                           ; its byte mask
%if %2
%assign _t 0
%rep %1
%assign _kk 4 + _t
%assign _dd 8 + _t
%if _t < (%1) - 1                                       ; slices before the last are full:
        vmovdqu64 zmm %+ _dd, [rcx + 64 * _t]           ; plain accesses, no masking
%else
        vmovdqu8 zmm %+ _dd {k %+ _kk}{z}, [rcx + 64 * _t]
%endif
%assign _t _t + 1
%endrep
%endif
        %3      %1
%assign _t 0
%rep %1
%assign _kk 4 + _t
%assign _dd 8 + _t
%if %2
        vpxorq  zmm %+ _t, zmm %+ _t, zmm %+ _dd        ; output
%elif _t < (%1) - 1
        vpxorq  zmm %+ _t, zmm %+ _t, [rcx + 64 * _t]   ; output
%else
        vmovdqu8 zmm %+ _dd {k %+ _kk}{z}, [rcx + 64 * _t]
        vmovdqu8 zmm %+ _t {k %+ _kk}{z}, zmm %+ _t    ; key stream on the message bytes only
        vpxorq  zmm %+ _t, zmm %+ _t, zmm %+ _dd        ; output, zero past the end
%endif
%assign _t _t + 1
%endrep
%assign _t 0
%rep %1
%assign _kk 4 + _t
%assign _dd 8 + _t
%assign _gg 4 + _t
%if _t < (%1) - 1
        vmovdqu64 [r8 + 64 * _t], zmm %+ _t
%else
        vmovdqu8 [r8 + 64 * _t]{k %+ _kk}, zmm %+ _t
%endif
%if %2
        vmovdqa64 zmm %+ _gg, zmm %+ _dd                ; decrypt: hash the input
%else
        vmovdqa64 zmm %+ _gg, zmm %+ _t                 ; encrypt: hash the output
%endif
%assign _t _t + 1
%endrep
%rep 4 - (%1)
%assign _gg 4 + _t
        vpxorq  zmm %+ _gg, zmm %+ _gg, zmm %+ _gg
%assign _t _t + 1
%endrep
%endmacro


; TAIL_SLICES dec, aes: TAIL_IO over only the 64-byte slices that hold message bytes (a
; masked access with an empty mask still costs a cache access here); eax = rounds
%macro TAIL_SLICES 2
        cmp     esi, 128
        ja      %%io34
        cmp     esi, 64
        ja      %%io2
        TAIL_IO 1, %1, %2
        jmp     %%io_done
%%io2:
        TAIL_IO 2, %1, %2
        jmp     %%io_done
%%io34:
        cmp     esi, 192
        ja      %%io4
        TAIL_IO 3, %1, %2
        jmp     %%io_done
%%io4:
        TAIL_IO 4, %1, %2
%%io_done:
%endmacro

; WHOLE_BODY dec: everything after E_K(J0) and the AAD (see above)
%macro WHOLE_BODY 1
        xor     r14d, r14d                              ; no whole group pending yet
        mov     r9, rbx
        shr     r9, 4                                   ; full blocks
        cmp     r9, 16
        jb      %%tail
        movzx   esi, byte [r12 + 15]
        inc     esi                                     ; last byte of J0 + 1
        and     esi, 255
        shl     esi, 4
        CTR_Z_ENTER
        CTR_WB  rsi
        GROUP_LOAD %1
%if %1 == 0
        ; encrypt: E_K(J0) rides in the last pass (the tail's, or alone at the end), not in
        ; the first one, whose four zmm keep the AES unit busy: 1-3% less time at 576-2048
        ; bytes on the Intel Xeon guest (two points 1-2% more); a decrypt keeps it in the first
        ; pass (level there)
        AES_W   4, 0, 0, 1
        GROUP_STORE 0
        mov     r14d, 1                                 ; this group's GHASH is pending
        ENC_LAG2 rsi, %%tail_be, 1                      ; (r14d = 2: two groups pending)
%else
        AES_W   4, 0, 1, 1                              ; the first AES pass: J0 joins it
        GROUP_STORE %1
        mov     r14d, 1                                 ; this group's GHASH is pending
        DEC_PAIRS rsi, %%tail_be
%endif
%%tail_be:
        CTR_Z_LEAVE rsi
%%tail:
        mov     esi, ebx
        and     esi, 255                                ; bytes after the whole groups
        jz      %%no_tail
        CTR_W                                           ; counters for up to 16 blocks
        mov     eax, [rdi + KEY_ROUNDS]
%if %1 == 0
        TAIL_SLICES %1, TAIL_AES_E
%else
        TAIL_SLICES %1, TAIL_AES
%endif
        lea     r10d, [rsi + 15]
        shr     r10d, 4                                 ; F = tail blocks (1..16)
        vpxorq  zmm8, zmm8, zmm8
        jmp     %%final
%%no_tail:
%if %1 == 0
        cmp     r14d, 1
        ja      %%two
%endif
        mov     r10d, r14d
        shl     r10d, 4                                 ; F = 16 if a whole group waits, else 0
        vpxorq  zmm8, zmm8, zmm8
%if %1 == 0
        AES_W   0, 0, 1                                 ; J0 alone: no tail pass carries it
        test    r14d, r14d
        jnz     %%final
        jmp     %%nothing
%%two:                                                  ; two groups: hashed in J0's pass,
        AES_W   0, 3, 1                                 ; the length block alone after it
        xor     r10d, r10d                              ; F = 0
        vpxorq  zmm4, zmm4, zmm4
        jmp     %%final
%%nothing:
%else
        test    r14d, r14d
        jnz     %%final
        AES_W   0, 0, 1                                 ; empty message: J0 alone
%endif
        vpxorq  zmm4, zmm4, zmm4                        ; nothing to hash but the length block
%%final:
%endmacro

; int mbgcmi_avx512_gcm12(const key *k, const uint8_t iv[12], const uint8_t *aad, size_t aad_len,
;                       const uint8_t *in, size_t len, uint8_t *out, uint8_t *tag,
;                       size_t tag_len_dec);
;   The one-shot operation for a 12-byte IV: J0 = IV || 00 00 00 01 built here, then as
;   mbgcmi_avx512_gcm, and the tag handled here too: tag_len_dec = tag_len | (decrypt << 8).
;   Encrypt: the first tag_len bytes of T are stored to tag (a masked store); returns 0.
;   Decrypt: the expected tag (tag_len bytes at tag) is read before anything is written (it
;   may live inside out), compared with T in constant time; returns 0 if equal, 1 if not (the
;   caller then zeroes out). No tag or J0 bytes are left in memory the caller can see.
; frame of mbgcmi_avx512_gcm and mbgcmi_avx512_gcm12: GF_J0, GF_DEC, GF_MODE (gcm_wide.inc);
; the burst call has its own (JF_* below)
%define GF_SIZE    32
; and the chunk-list entry's two slots after them (public: list pointers, a group parity)
%define GF_LIST    32                   ; 8: the next entry of the list
%define GF_PAR     40                   ; 8: 1 after the first group of an entry, else 0
%define GF_LSIZE   48
%define CH_IN      0                    ; struct mbgcmi_chunk (core/gcm.h), as by32's
%define CH_OUT     8
%define CH_SIZE    16

global mbgcmi_avx512_gcm12:function hidden
mbgcmi_avx512_gcm12:
        FRAME_ENTER GF_SIZE, 16
        GCM12_ARGS
        mov     eax, [rdi + KEY_ROUNDS]
        SETUP
        vpxorq  xmm16, xmm16, xmm16
        mov     r14d, 1                                 ; mode: tag handled here
        jmp     mbgcmi_avx512_gcm.common

global mbgcmi_avx512_gcm:function hidden
mbgcmi_avx512_gcm:
        FRAME_ENTER GF_SIZE, 16
        GCM_ARGS
        mov     eax, [rdi + KEY_ROUNDS]
        SETUP
        vpxorq  xmm16, xmm16, xmm16
        xor     r14d, r14d                              ; mode: full tag to tag[16]
.common:
        mov     [rsp + GF_MODE], r14                    ; (r14 is reused below)
        test    rbx, rbx
        jz      .gmac
        ; the final GHASH reads H^(F+1) .. H^1 at HPOW(F+1) (F = the tail's blocks, or 16
        ; when the message ends on a 256-byte boundary): fetch those lines now, so that a
        ; key not in L1 (many keys in turn) costs no miss on the critical path at the end
        mov     eax, ebx
        and     eax, 255
        add     eax, 15
        shr     eax, 4                                  ; tail blocks
        mov     r15d, 16
        test    rbx, rbx
        cmovz   r15d, eax                               ; len 0: F = 0
        test    eax, eax
        cmovnz  r15d, eax                               ; a tail: F = its blocks
        mov     eax, 31
        sub     eax, r15d
        shl     eax, 4
        add     rax, rdi
        prefetcht0 [rax + KEY_HPOW]
        prefetcht0 [rax + KEY_HPOW + 64]
        prefetcht0 [rax + KEY_HPOW + 128]
        prefetcht0 [rax + KEY_HPOW + 192]
        prefetcht0 [rax + KEY_HPOW + 256]
        prefetcht0 [rax + KEY_HPOW + 512]
        prefetcht0 [rax + KEY_HPOW + 576]
        prefetcht0 [rax + KEY_HPOW + 640]
        prefetcht0 [rax + KEY_HPOW + 704]
        prefetcht0 [rax + KEY_HPOW + 768]
        ; the message's lines 8..15 (from 1024 bytes on): with the key and the data beyond
        ; the caches their misses overlap the AAD and the first passes (the first lines' loads
        ; come early anyway)
        cmp     rbx, 1024
        jb      .pf_done
%assign _pf 8
%rep 8
        prefetcht0 [rcx + 64 * _pf]
%assign _pf _pf + 1
%endrep
.pf_done:
        ; J0 in xmm15: E_K(J0) is computed as a fifth chain next to the counter blocks of one
        ; of the message's passes (WHOLE_BODY: the first decrypting, the last encrypting), not
        ; as a chain of its own up front
        vmovdqu64 xmm15, [r12]
        ; AAD
        AAD_HASH_ALL
        CTR_FROM [r12]
        vpaddd  zmm12, zmm12, [WADD1]                   ; lanes J0+1 .. J0+4
        mov     eax, [rdi + KEY_ROUNDS]
        cmp     dword [rsp + GF_DEC], 0
        jne     .dec
        WHOLE_BODY 0
        jmp     .final
.dec:
        WHOLE_BODY 1
.final:
        ; r10d = F blocks in zmm4.. (byte order, zero past F), then the length block at
        ; position F: byte order [aad bits | message bits], into lane F%4 of zmm(4 + F/4)
        shl     rbx, 3                                  ; bit lengths: < 2^64 (validated)
        shl     r11, 3
        vmovq   xmm21, rbx
        vpinsrq xmm21, xmm21, r11, 1                    ; V form {len bits, aad bits}
        vpshufb xmm21, xmm21, xmm13                     ; byte order
        vshufi64x2 zmm21, zmm21, zmm21, 0x00            ; in every lane
        mov     ecx, r10d
        and     ecx, 3
        add     ecx, ecx
        mov     eax, 3
        shl     eax, cl
        kmovw   k1, eax                                 ; qword mask of lane F%4
        mov     eax, r10d
        shr     eax, 2                                  ; zmm index F/4 (0..4)
        cmp     eax, 2
        ja      .l34
        je      .l2
        cmp     eax, 1
        je      .l1
        vpxorq  zmm4{k1}, zmm4, zmm21
        jmp     .lplaced
.l1:    vpxorq  zmm5{k1}, zmm5, zmm21
        jmp     .lplaced
.l2:    vpxorq  zmm6{k1}, zmm6, zmm21
        jmp     .lplaced
.l34:   cmp     eax, 3
        jne     .l4
        vpxorq  zmm7{k1}, zmm7, zmm21
        jmp     .lplaced
.l4:    vpxorq  zmm8{k1}, zmm8, zmm21
.lplaced:
        ; powers: position j gets H^(F+1-j); zmm k reads 64 bytes at HPOW(F+1-4k)
        mov     r15d, 31
        sub     r15d, r10d
        shl     r15d, 4
        add     r15, rdi
        add     r15, KEY_HPOW                           ; = HPOW(F+1), a plain base register
        vpshufb zmm4, zmm4, zmm13
        vpxorq  zmm4, zmm4, zmm16                       ; S joins the first block
        GH_MS   zmm4, 0, 1
        cmp     r10d, 4                                 ; zmm k is used when F >= 4k
        jb      .hashed
        vpshufb zmm5, zmm5, zmm13
        GH_MS   zmm5, 1, 0
        cmp     r10d, 8
        jb      .hashed
        vpshufb zmm6, zmm6, zmm13
        GH_MS   zmm6, 2, 0
        cmp     r10d, 12
        jb      .hashed
        vpshufb zmm7, zmm7, zmm13
        GH_MS   zmm7, 3, 0
        cmp     r10d, 16
        jb      .hashed
        vpshufb zmm8, zmm8, zmm13
        GH_MS   zmm8, 4, 0
.hashed:
        GH_W_REDUCE_SB
.tag:
        TAG_OUT
        CLEAR_VREGS zmm
        FRAME_LEAVE
.gmac:
        ; no message (GMAC): E_K(J0) first, its rounds under the hashing; the length block
        ; joins the AAD's last chunk as one more block (one reduction, not two in a row)
        vmovdqu64 xmm15, [r12]
        AES_W   0, 0, 1                                 ; J0 alone
        mov     rbx, r11
        shl     rbx, 3
        vmovq   xmm12, rbx
        vpslldq xmm12, xmm12, 8                         ; L = {0, aad bits} (V form)
        mov     ebx, 1
        mov     r9, r11
        GHASH_AAD r10, r9, rdx, rax, rbx
        test    ebx, ebx
        jz      .tag
        vpshufb xmm12, xmm12, xmm13                     ; L alone (the AAD filled its chunks)
        GHASH1  xmm12
        jmp     .tag

; ---------------------------------------------------------------------------------------------
; uint64_t mbgcmi_avx512_gcm12_jobs(mbgcm_job *const *jobs, size_t n);
;   n (1..64) validated, linear jobs with 12-byte IVs, one after the other in one call: the
;   manager's burst path for single-stream jobs. Returns the mask of decrypt jobs whose tag did
;   not match (bit i: jobs[i]; the caller zeroes their dst and sets every status). Per job as
;   mbgcmi_avx512_gcm12 (tags written under the tag-length mask, expected tags read before any
;   of the job's output is written, compared in constant time).
;   Why: a message's last GHASH (up to 17 blocks, one reduction, the tag) waits for its last
;   AES pass and then runs with the AES unit idle (docs/design.md has what that costs).
;   Here it is software-pipelined: job i's final GHASH and tag ride in the AES rounds of job
;   i+1's first pass (FIN_STEP, stitch mode 2 of AES_W), as a group's GHASH rides in the next
;   group's pass inside a message. Job i+1's AAD is hashed after that pass (zmm8-11 as load
;   registers: G0..G3 hold the pass's output by then). The first job runs beside a dummy
;   predecessor (zero blocks, no tag); the last job's final GHASH runs alone at the end.
;   Jobs in one call run overlapped like lanes: job i's tag is written while job i+1 runs, so
;   no job's tag or dst may overlap another job's buffers (the job API's rule for jobs in
;   flight together).
;   Registers as mbgcmi_avx512_gcm, plus: r12 the current job, r13 the fail mask, r15 the
;   previous job's power base (HPOW(F+1) of its key), xmm30 its E_K(J0), zmm31 its 17th GHASH
;   input; frame fields below (the previous job's tag pointer, mask, mode, index and block
;   count; the expected tags of the current and the previous job). No memory operand has an
;   index register (scripts/ct-check.sh): jobs[i] is addressed through an LEA.
%define JF_I       16
%define JF_PTAG    24
%define JF_JOBS    32
%define JF_N       40
%define JF_PMODE   48                   ; 0 none (the dummy), 1 encrypt: store, 2 decrypt: check
%define JF_PIDX    52
%define JF_PF      56                   ; previous job's F (blocks in its final GHASH, 0..16)
%define JF_PTMASK  60                   ; previous job's tag byte mask (16 bits)
%define JF_ETAG    64                   ; the current job's expected tag (16 bytes)
%define JF_PETAG   80                   ; the previous job's (16 bytes)
%define JF_LENBLK  96                   ; the current job's length block (16 bytes)
%define JF_SIZE    128

; FIN_STEP n: step n (0..6) of the previous job's final GHASH over zmm4-7 and zmm31 (byte
; order, length block placed, F = [rsp + JF_PF] blocks plus the length block) with the powers
; at r15, then its tag. 0-4 one zmm each (skipped past F), 5 the reduction, 6 the tag: stored
; (encrypt) or compared (decrypt, fail bit into r13). Clobbers zmm17-21, xmm16, k1, k3, rdx,
; r10, r11.

%macro FIN_STEP 1
%if (%1) == 0
        vpshufb zmm4, zmm4, zmm13
        vpxorq  zmm4, zmm4, zmm16                       ; S joins the first block
        GH_MS   zmm4, 0, 1
%elif (%1) <= 4
%assign _fz 4 + (%1)
%if (%1) == 4
%assign _fz 31
%endif
        cmp     dword [rsp + JF_PF], 4 * (%1)           ; zmm k is used when F >= 4k
        jb      %%skip
        vpshufb zmm %+ _fz, zmm %+ _fz, zmm13
        GH_MS   zmm %+ _fz, (%1), 0
%%skip:
%elif (%1) == 5
        GH_W_REDUCE_SB
%elif (%1) == 6
        vpshufb xmm16, xmm16, xmm13
        vpxorq  xmm16, xmm16, xmm30                     ; T = E_K(J0) ^ S
        kmovw   k1, [rsp + JF_PTMASK]
        mov     edx, [rsp + JF_PMODE]
        cmp     edx, 1
        jb      %%done
        ja      %%check
        mov     rdx, [rsp + JF_PTAG]
        vmovdqu8 [rdx]{k1}, xmm16                       ; tag_len bytes
        jmp     %%done
%%check:
        mov     r11d, [rsp + JF_PIDX]
        vpcmpeqb k3, xmm16, [rsp + JF_PETAG]            ; all 16 bytes, no early exit
        kandnw  k3, k3, k1                              ; counted bytes that differ
        kortestw k3, k3
        setnz   r10b
        movzx   r10d, r10b
        shlx    r10, r10, r11
        or      r13, r10                                ; fail bit of that job
%%done:
%endif
%endmacro

; AAD_HASH: S (xmm16) = GHASH of the current job's AAD (r12): GHASH_AAD. Runs after the
; job's first pass, so r15 (the previous job's power base, read by FIN_STEP in that pass) is
; free. Clobbers rdx, r10, r11, r15, zmm8-11, zmm17-21, k1.
%macro AAD_HASH 0
        vpxorq  xmm16, xmm16, xmm16
        mov     r10, [r12 + J_AAD]
        mov     r11, [r12 + J_AADLEN]
        GHASH_AAD r10, r11, r15, rdx
%endmacro

; TAIL_AES_J nz: the tail pass of a job; its first pass (r14 = 0) carries the previous job's
; final GHASH and this job's J0
%macro TAIL_AES_J 1
        test    r14d, r14d
        jz      %%first
        AES_W   %1, 1, 0, 1
        jmp     %%done
%%first:
        AES_W   %1, 2, 1, 1
%%done:
%endmacro


; JOB_BODY dec: one job (r12) from its first pass (with the previous job's final GHASH) to
; its own final GHASH inputs: zmm4-7, zmm31 (byte order, length block placed), r10d = F,
; xmm15 = E_K(J0), xmm16 = S. rcx in, r8 out, rbx len, eax rounds, rdi key set.
%macro JOB_BODY 1
        xor     r14d, r14d                              ; no pass done yet
        mov     esi, 16 * 2                             ; 16 x the last byte of J0 + 1
        mov     r9, rbx
        shr     r9, 4
        cmp     r9, 16
        jb      %%tail
        CTR_WB  rsi
        GROUP_LOAD %1
        AES_W   4, 2, 1, 1                              ; first pass: previous final GHASH, J0
        GROUP_STORE %1
        AAD_HASH
        mov     r14d, 1                                 ; a whole group's GHASH is pending
%if %1 == 0
        ENC_LAG2 rsi, %%tail
%else
        DEC_PAIRS rsi, %%tail
%endif
%%tail:
        test    bl, bl                                  ; bytes after the whole groups?
        jz      %%no_tail
        CTR_WB  rsi                                     ; counters for up to 16 blocks
        mov     esi, ebx
        and     esi, 255
        mov     eax, [rdi + KEY_ROUNDS]
        TAIL_SLICES %1, TAIL_AES_J
        test    r14d, r14d
        jnz     %%aad_had
        AAD_HASH                                        ; the tail was the first pass
%%aad_had:
        lea     r10d, [rsi + 15]
        shr     r10d, 4                                 ; F = tail blocks (1..16)
        vpxorq  zmm31, zmm31, zmm31
        jmp     %%final
%%no_tail:
        mov     r10d, r14d
        shl     r10d, 4                                 ; F = 16 if a whole group waits, else 0
        test    r14d, r14d
        jnz     %%z31
        AES_W   0, 2, 1                                 ; empty message: J0 alone (zmm31 is
        AAD_HASH                                        ; the previous job's until this pass)
        xor     r10d, r10d
        vpxorq  zmm4, zmm4, zmm4
%%z31:
        vpxorq  zmm31, zmm31, zmm31
%%final:
        ; the length block at position F: lane F%4 of zmm(4 + F/4) (zmm31 for F = 16)
        mov     r11, [r12 + J_AADLEN]
        mov     rdx, rbx
        shl     r11, 3
        shl     rdx, 3
        bswap   r11
        bswap   rdx
        mov     [rsp + JF_LENBLK], r11                  ; byte order: [aad bits]_64 [len bits]_64
        mov     [rsp + JF_LENBLK + 8], rdx
        vbroadcasti32x4 zmm21, [rsp + JF_LENBLK]        ; (a load: no shuffle uops)
        mov     ecx, r10d
        and     ecx, 3
        add     ecx, ecx
        mov     eax, 3
        shl     eax, cl
        kmovw   k1, eax
        mov     eax, r10d
        shr     eax, 2
        cmp     eax, 2
        ja      %%l34
        je      %%l2
        cmp     eax, 1
        je      %%l1
        vpxorq  zmm4{k1}, zmm4, zmm21
        jmp     %%lplaced
%%l1:   vpxorq  zmm5{k1}, zmm5, zmm21
        jmp     %%lplaced
%%l2:   vpxorq  zmm6{k1}, zmm6, zmm21
        jmp     %%lplaced
%%l34:  cmp     eax, 3
        jne     %%l4
        vpxorq  zmm7{k1}, zmm7, zmm21
        jmp     %%lplaced
%%l4:   vpxorq  zmm31{k1}, zmm31, zmm21
%%lplaced:
%endmacro

global mbgcmi_avx512_gcm12_jobs:function hidden
mbgcmi_avx512_gcm12_jobs:
        FRAME_ENTER JF_SIZE, 64
        mov     [rsp + JF_JOBS], rdi
        mov     [rsp + JF_N], rsi
        mov     qword [rsp + JF_I], 0
        xor     r13d, r13d
        vmovdqa64 zmm13, [BSWAP]
        vmovdqa64 zmm14, [POLY]
        ; the dummy predecessor: no blocks, no tag; r15 at a readable power (H^1 of job 0's key)
        mov     dword [rsp + JF_PMODE], 0
        mov     dword [rsp + JF_PF], 0
        mov     dword [rsp + JF_PTMASK], 0
        vpxorq  xmm4, xmm4, xmm4
        vpxorq  xmm16, xmm16, xmm16
        vpxorq  xmm30, xmm30, xmm30
        mov     r11, rdi
        mov     r12, [r11]
        mov     r15, [r12 + J_KEY]
        add     r15, HPOW(1)
.job:
        mov     r11, [rsp + JF_JOBS]
        mov     rax, [rsp + JF_I]
        lea     r11, [r11 + 8 * rax]
        mov     r12, [r11]                              ; jobs[i]
        mov     rdi, [r12 + J_KEY]
        ; tag mask (k2, kept through the job) and, decrypting, the expected tag (JF_ETAG)
        ; before any output of this job is written
        mov     r10, [r12 + J_TAGLEN]
        mov     edx, 0xFFFF
        bzhi    edx, edx, r10d
        kmovw   k2, edx
        cmp     dword [r12 + J_DIR], 2
        jne     .no_etag
        mov     r10, [r12 + J_TAG]
        vmovdqu8 xmm21{k2}{z}, [r10]
        vmovdqa64 [rsp + JF_ETAG], xmm21
.no_etag:
        ; J0 = IV || 00 00 00 01 (xmm15); zmm12 straight in CTR_WB's form: Z = (IV || 0) ^
        ; round key 0 (esi = 16 x J0 + 1's last byte: JOB_BODY)
        mov     r10, [r12 + J_IV]
        mov     eax, 0x7777
        kmovw   k1, eax
        vbroadcasti32x4 zmm12{k1}{z}, [r10]             ; the IV in dwords 0-2 of every lane
        vpord   xmm15, xmm12, [WJ0ONE]
        vbroadcasti32x4 zmm22, [rdi + KEY_RK]
        vpxorq  zmm12, zmm12, zmm22
        LOAD_POWERS
        mov     rcx, [r12 + J_SRC]
        mov     r8, [r12 + J_DST]
        mov     rbx, [r12 + J_LEN]
        mov     eax, [rdi + KEY_ROUNDS]
        cmp     dword [r12 + J_DIR], 2
        je      .dec
        JOB_BODY 0
        mov     edx, 1
        jmp     .next
.dec:
        JOB_BODY 1
        mov     edx, 2
.next:
        ; this job becomes the previous one
        mov     [rsp + JF_PMODE], edx
        mov     [rsp + JF_PF], r10d
        kmovw   [rsp + JF_PTMASK], k2
        mov     rdx, [r12 + J_TAG]
        mov     [rsp + JF_PTAG], rdx
        mov     rax, [rsp + JF_I]
        mov     [rsp + JF_PIDX], eax
        vmovdqa64 xmm30, xmm15                          ; E_K(J0)
        vmovdqa64 xmm21, [rsp + JF_ETAG]
        vmovdqa64 [rsp + JF_PETAG], xmm21
        mov     r15d, 31
        sub     r15d, r10d
        shl     r15d, 4
        add     r15, rdi
        add     r15, KEY_HPOW                           ; HPOW(F+1) of its key
        inc     rax
        mov     [rsp + JF_I], rax
        cmp     rax, [rsp + JF_N]
        jb      .job
        ; the last job's final GHASH and tag, alone
        FIN_STEP 0
        FIN_STEP 1
        FIN_STEP 2
        FIN_STEP 3
        FIN_STEP 4
        FIN_STEP 5
        FIN_STEP 6
        mov     rax, r13
        vpxord  xmm23, xmm23, xmm23
        vmovdqa64 [rsp + JF_ETAG], xmm23                ; wipe the expected-tag slots
        vmovdqa64 [rsp + JF_PETAG], xmm23
        CLEAR_VREGS zmm
        FRAME_LEAVE

; ---------------------------------------------------------------------------------------------
; void mbgcmi_avx512_by16_gcm_list(const key *k, const uint8_t j0[16], const uint8_t *aad,
;                                  size_t aad_len, const struct mbgcmi_chunk *list, size_t len,
;                                  uint8_t tag[16], int decrypt);
;   mbgcmi_avx512_gcm (the whole message given J0, the full tag to tag[16]) over a message in
;   pieces (the ops' whole_list, core/gcm.h): group g of 512 bytes from list[g].in to
;   list[g].out, the last group the message's last 1..512 bytes (partial block included), one
;   entry more than there are groups (read, not used). The same head, WHOLE_BODY and final
;   GHASH as mbgcmi_avx512_gcm; only GROUP_OUT differs (BY16_LIST): by16's loops run 256-byte
;   groups, so every second one ends an entry and takes the next one's pointers, and the
;   groups stay in flight across the pieces (an encrypt's GHASH two groups behind). The tail
;   (the last len mod 256 bytes) lies in the last entry. Placed last: the code above keeps its
;   addresses. No message prefetch (the next pieces are elsewhere).
global mbgcmi_avx512_by16_gcm_list:function hidden
mbgcmi_avx512_by16_gcm_list:
        FRAME_ENTER GF_LSIZE, 16
        mov     r10, r8                                 ; the list (entries read through r10)
        lea     rax, [r10 + CH_SIZE]
        mov     [rsp + GF_LIST], rax                    ; the second entry
        mov     r8, [r10 + CH_OUT]
        mov     r11, rcx                                ; aad_len
        mov     rcx, [r10 + CH_IN]
        mov     r12, rsi                                ; j0
        mov     r10, rdx                                ; aad
        mov     rbx, r9                                 ; len
        mov     r13, [rbp + 16]                         ; tag
        mov     eax, [rbp + 24]
        mov     [rsp + GF_DEC], rax
        mov     qword [rsp + GF_PAR], 0
        mov     qword [rsp + GF_MODE], 0                ; the full tag to tag[16]
        mov     eax, [rdi + KEY_ROUNDS]
        SETUP
        vpxorq  xmm16, xmm16, xmm16
        test    rbx, rbx
        jz      mbgcmi_avx512_gcm.gmac
        vmovdqu64 xmm15, [r12]
        AAD_HASH_ALL
        CTR_FROM [r12]
        vpaddd  zmm12, zmm12, [WADD1]                   ; lanes J0+1 .. J0+4
        mov     eax, [rdi + KEY_ROUNDS]
%assign BY16_LIST 1
        cmp     dword [rsp + GF_DEC], 0
        jne     .dec
        WHOLE_BODY 0
        jmp     mbgcmi_avx512_gcm.final
.dec:
        WHOLE_BODY 1
        jmp     mbgcmi_avx512_gcm.final
%assign BY16_LIST 0

section .note.GNU-stack noalloc noexec nowrite progbits
