; gcm_x4short_avx512.asm — four short AES-GCM jobs in one pass (the `avx512` small-packet path).
;
; unsigned mbgcmi_avx512_short(const struct mbgcmi_short_batch *b);
;   b->job[i], i = 0..3: lane i's job (idle lanes repeat a busy lane's job: they are masked and
;   never read or write anything of their own). Every busy job has a 12-byte IV, at most 16
;   bytes of AAD and ceil(len/16) == b->nblk <= 8 message blocks (the manager stages jobs by
;   that shape). Returns the mask of decrypt lanes whose tag did not match. Writes each job's
;   dst (len bytes) and, for encrypt lanes, tag (tag_len bytes); reads each lane's expected
;   tag before writing anything, so a tag may live inside dst. Touches no other memory of the
;   caller: every load and store is masked to the job's own bytes.
;
; Why a separate kernel: for a 64-byte message the general lane kernel spends more on lane
; bookkeeping (the manager writing lane rows, the kernel stepping through phases) than on
; AES-GCM. Here nothing is staged in memory: the four jobs' round keys and hash-key powers are
; gathered straight from their key structs (one VBROADCASTI32X4 + three VINSERTI32X4 per
; row), and the whole job runs as one straight line, specialised per message block count n:
;   B0 = J0 = IV || 0^31 || 1, B1..Bn = J0 + 1..n        n+1 AES chains per lane, one pass
;   D_j = message block j (lane-major masked loads, 4x4 transposes to block-major)
;   O_j = D_j ^ (E_K(B_(j+1)) masked to the lane's valid bytes); stored with the same masks
;   GHASH slots: A (the AAD block, zero when there is none: 0 * H^k adds nothing), the n
;   ciphertext blocks, the length block, multiplied by H^(n+2) .. H^1 and reduced once
;   T = E_K(J0) ^ S; written under the tag-length mask or compared in constant time.
; Math of GHASH: arch/generic/ghash_ct.c. Four lanes = four unrelated jobs: no cross-lane fold.
;
; CPU: AVX512F/BW/VL + VAES + VPCLMULQDQ + BMI1/BMI2 (the `avx512` arch). ABI: System V.
;
; Register plan
;   rsi b            r8-r11 job pointers of lanes 0..3     r12-r15 their key pointers
;   edi busy-lane mask (after the batch pointer moved to rsi)
;   zmm0        B0: J0 -> E_K(J0) -> T          zmm1..zmm8  B1..Bn: counters -> key stream -> output
;   zmm9..zmm16 D0..D7: message blocks -> GHASH input      zmm17 A: AAD block
;   zmm18 BSWAP   zmm19 POLY   zmm20-22 LO/MI/HI   zmm23 scratch (and parked VAESENCLAST)
;   zmm24 round key / hash-key power row   zmm25 ENC (all-ones in encrypting lanes)
;   zmm26 ETAG (expected tags)   zmm27 LENV (each lane's length in all its 16 bytes), then the
;   length block (built by the scheduler)   zmm28-31 lane-major loads/stores, transposes, GHASH
;   scratch (zmm28), HK (zmm29)
;   k1 scratch, k4-k7 per-lane byte masks.
; Every vector register and the stack spill area (used for mixed key sizes) are cleared on exit.
default rel
%include "key.inc"
%include "frame.inc"
%include "clear.inc"
%include "job.inc"
%include "x4_macros.inc"

section .rodata
%include "consts.inc"
SJ0ONE:         times 4 dd 0, 0, 0, 0x01000000      ; the last J0 word, 00 00 00 01
SCTR_BE:                                        ; row j: J0 + j in byte order (J0 ends 00 00 00 01
%assign _cj 0                                   ; and j <= 8: only the last byte changes)
%rep 9
                times 4 dd 0, 0, 0, _cj << 24
%assign _cj _cj + 1
%endrep
SBYTEIDX:                                       ; row j: byte offsets 16j .. 16j+15, each lane
%assign _cj 0
%rep 8
%rep 4
%assign _cb 0
%rep 16
                db 16 * _cj + _cb
%assign _cb _cb + 1
%endrep
%endrep
%assign _cj _cj + 1
%endrep

; stack frame (rsp 64-byte aligned)
%define SPILL12 576                     ; spills: round 10 at 0 (9 x 64), round 12 at 576
%define F_MLO   1152                    ; 4 x u64: byte masks of message bytes 0..63 per lane
%define F_MHI   1184                    ; 4 x u64: bytes 64..127
%define FRAME   (1216 + 64)

; hooks for AES_X4 (x4_macros.inc)
%define RMAX    dword [rsi + SB_RMAX]
%define K10Q    word [rsi + SB_K10Q]
%define K12Q    word [rsi + SB_K12Q]
; Rows of four keys are gathered with masked broadcasts (a load plus a blend that may run on
; either vector port) rather than inserts (port 5 only, which is the busy one here: shuffles
; and carry-less multiplies). k5/k6/k7 select lanes 1/2/3 (dword masks): LANE_MASKS sets them.
%macro LANE_MASKS 0
        mov     eax, 0x00F0
        kmovw   k5, eax
        mov     eax, 0x0F00
        kmovw   k6, eax
        mov     eax, 0xF000
        kmovw   k7, eax
%endmacro
; SAMEKEY (an assembly-time switch around the BODY expansions): 1 in the bodies the kernel
; runs when the four lanes share one key (the common case: one session, one SA), where a row
; is a plain broadcast (a load, no blend uop) and the Karatsuba operands come from the key.
%assign SAMEKEY 0
%macro GATHER4 2                        ; zmm %1 = 16 bytes at key + %2 of each lane's key
%if SAMEKEY
        vbroadcasti32x4 %1, [r12 + %2]
%else
        vbroadcasti32x4 %1, [r12 + %2]
        vbroadcasti32x4 %1{k5}, [r13 + %2]
        vbroadcasti32x4 %1{k6}, [r14 + %2]
        vbroadcasti32x4 %1{k7}, [r15 + %2]
%endif
%endmacro
%macro LOAD_RK 1                        ; zmm24 = round key %1 of the four keys
        GATHER4 zmm24, 16 * (%1)
%endmacro
; LOAD_POW e: zmm24 = H^e of the four keys, zmm29 = its Karatsuba operand (lo ^ hi)
%macro LOAD_POW 1
%if SAMEKEY
        vbroadcasti32x4 zmm24, [r12 + HPOW(%1)]
        vbroadcasti32x4 zmm29, [r12 + HKAR(%1)]
%else
        GATHER4 zmm24, HPOW(%1)
        vpshufd zmm29, zmm24, 0x4e
        vpxorq  zmm29, zmm29, zmm24
%endif
%endmacro

section .text

; LOAD_HALF h, d0: message bytes 64h..64h+63 of each lane (masked), transposed into
; zmm(d0)..zmm(d0+3) = blocks 4h..4h+3 of the four lanes
%macro LOAD_HALF 2
        kmovq   k4, [rsp + F_MLO + 32 * (%1)]
        kmovq   k5, [rsp + F_MLO + 32 * (%1) + 8]
        kmovq   k6, [rsp + F_MLO + 32 * (%1) + 16]
        kmovq   k7, [rsp + F_MLO + 32 * (%1) + 24]
        mov     rax, [r8 + J_SRC]
        mov     rbx, [r9 + J_SRC]
        mov     rcx, [r10 + J_SRC]
        mov     rdx, [r11 + J_SRC]
        vmovdqu8 zmm28{k4}{z}, [rax + 64 * (%1)]
        vmovdqu8 zmm29{k5}{z}, [rbx + 64 * (%1)]
        vmovdqu8 zmm30{k6}{z}, [rcx + 64 * (%1)]
        vmovdqu8 zmm31{k7}{z}, [rdx + 64 * (%1)]
%assign _l0 (%2)
%assign _l1 (%2) + 1
%assign _l2 (%2) + 2
%assign _l3 (%2) + 3
        TRANSPOSE4 zmm28, zmm29, zmm30, zmm31, zmm %+ _l0, zmm %+ _l1, zmm %+ _l2, zmm %+ _l3
%endmacro
; STORE_HALF h, b0: blocks zmm(b0)..zmm(b0+3) back to lane-major, stored under the masks
%macro STORE_HALF 2
%assign _l0 (%2)
%assign _l1 (%2) + 1
%assign _l2 (%2) + 2
%assign _l3 (%2) + 3
        TRANSPOSE4 zmm %+ _l0, zmm %+ _l1, zmm %+ _l2, zmm %+ _l3, zmm28, zmm29, zmm30, zmm31
        kmovq   k4, [rsp + F_MLO + 32 * (%1)]
        kmovq   k5, [rsp + F_MLO + 32 * (%1) + 8]
        kmovq   k6, [rsp + F_MLO + 32 * (%1) + 16]
        kmovq   k7, [rsp + F_MLO + 32 * (%1) + 24]
        mov     rax, [r8 + J_DST]
        mov     rbx, [r9 + J_DST]
        mov     rcx, [r10 + J_DST]
        mov     rdx, [r11 + J_DST]
        vmovdqu8 [rax + 64 * (%1)]{k4}, zmm28
        vmovdqu8 [rbx + 64 * (%1)]{k5}, zmm29
        vmovdqu8 [rcx + 64 * (%1)]{k6}, zmm30
        vmovdqu8 [rdx + 64 * (%1)]{k7}, zmm31
%endmacro

; BODY n: everything after the common setup, for n message blocks; leaves T in zmm0.
%macro BODY 1
%assign _n (%1)
%assign _j 1
%rep _n
        vpaddd  zmm %+ _j, zmm0, [SCTR_BE + 64 * _j]    ; counter j+1, byte order
%assign _j _j + 1
%endrep
        LANE_MASKS
        AES_X4  _n + 1                                  ; E_K(J0) and n key stream blocks
%if _n > 0
        LOAD_HALF 0, 9
%if _n > 4
        LOAD_HALF 1, 13
%endif
%assign _j 0
%rep _n
%assign _b _j + 1
%assign _d _j + 9
        vpcmpub k1, zmm27, [SBYTEIDX + 64 * _j], 6      ; bytes before each lane's end
        vmovdqu8 zmm %+ _b {k1}{z}, zmm %+ _b            ; key stream on those bytes only
        vpxorq  zmm %+ _b, zmm %+ _b, zmm %+ _d         ; O = D ^ KS (zero past the end)
        vpternlogq zmm %+ _d, zmm %+ _b, zmm25, 0xD8    ; D = ENC ? O : D (GHASH input)
%assign _j _j + 1
%endrep
        ; (blocks n+1..4 / ..8 of the transposes hold junk that the byte masks never store)
        STORE_HALF 0, 1
%if _n > 4
        STORE_HALF 1, 5
%endif
%endif
        LANE_MASKS
        vmovdqu64 zmm27, [rsi + SB_LENBLK]              ; length block, V form (from the manager)
        ; GHASH of A, C_0..C_(n-1), L with H^(n+2) .. H^1, one reduction
        vpshufb zmm17, zmm17, zmm18
        LOAD_POW _n + 2
        GH_FIRST zmm17, zmm24, zmm29
%assign _j 0
%rep _n
%assign _d _j + 9
        vpshufb zmm %+ _d, zmm %+ _d, zmm18
        LOAD_POW _n + 1 - _j
        GH_NEXT zmm %+ _d, zmm24, zmm29
%assign _j _j + 1
%endrep
        LOAD_POW 1
        GH_NEXT zmm27, zmm24, zmm29
        GH_REDUCE
        vpshufb zmm22, zmm22, zmm18
        vpxorq  zmm0, zmm0, zmm22                       ; T = E_K(J0) ^ S
%endmacro

global mbgcmi_avx512_short:function hidden
mbgcmi_avx512_short:
        FRAME_ENTER FRAME, 64
        mov     rsi, rdi
        mov     r8, [rsi + SB_JOB]
        mov     r9, [rsi + SB_JOB + 8]
        mov     r10, [rsi + SB_JOB + 16]
        mov     r11, [rsi + SB_JOB + 24]
        mov     r12, [r8 + J_KEY]
        mov     r13, [r9 + J_KEY]
        mov     r14, [r10 + J_KEY]
        mov     r15, [r11 + J_KEY]
        vmovdqa64 zmm18, [BSWAP]
        vmovdqa64 zmm19, [POLY]

        ; ---- per-lane byte masks of the message (busy lanes only) and LENV ----
        mov     edi, [rsi + SB_ACTIVE]
        vmovdqu64 zmm27, [rsi + SB_LENBLK]
        vpsrlq  zmm27, zmm27, 3                         ; each lane's length in its byte 0
        vpxorq  zmm28, zmm28, zmm28
        vpshufb zmm27, zmm27, zmm28                     ; ... and in all 16 of its bytes
%assign _l 0
%rep 4
%assign _jr 8 + _l
        mov     rax, [r %+ _jr + J_LEN]
        xor     ecx, ecx
        bt      edi, _l
        cmovnc  rax, rcx                                ; idle lane: length 0, masks 0
        mov     rdx, -1
        bzhi    rbx, rdx, rax                           ; bytes 0..63 (bzhi saturates at 64)
        mov     [rsp + F_MLO + 8 * _l], rbx
        lea     rbx, [rax - 64]
        cmp     rax, 64
        cmovbe  rbx, rcx
        bzhi    rbx, rdx, rbx                           ; bytes 64..127
        mov     [rsp + F_MHI + 8 * _l], rbx
%assign _l _l + 1
%endrep

        ; ---- expected tags of decrypt lanes, before anything is written ----
        test    dword [rsi + SB_DECRYPT], 0xF
        jz      .no_etag
        mov     rdx, [rsi + SB_TAGMASK]
        mov     rax, [r8 + J_TAG]
        kmovw   k1, edx
        vmovdqu8 xmm26{k1}{z}, [rax]
%assign _l 1
%rep 3
%assign _jr 8 + _l
        shr     rdx, 16
        mov     rax, [r %+ _jr + J_TAG]
        kmovw   k1, edx
        vmovdqu8 xmm28{k1}{z}, [rax]
        vinserti32x4 zmm26, zmm26, xmm28, _l
%assign _l _l + 1
%endrep
.no_etag:

        ; ---- ENC lanes ----
        mov     eax, [rsi + SB_DECRYPT]
        andn    eax, eax, edi                           ; busy and encrypting
        LANES_TO_QMASK rcx, rax
        kmovw   k1, ecx
        vpternlogq zmm25{k1}{z}, zmm25, zmm25, 0xFF

        ; ---- J0 = IV || 00 00 00 01 and the AAD block ----
        mov     ecx, 0x0FFF
        kmovw   k1, ecx
        mov     rax, [r8 + J_IV]
        vmovdqu8 xmm0{k1}{z}, [rax]
        mov     rax, [r8 + J_AADLEN]
        xor     ecx, ecx
        bt      edi, 0
        cmovnc  rax, rcx
        mov     edx, 0xFFFF
        bzhi    eax, edx, eax
        kmovw   k2, eax
        mov     rax, [r8 + J_AAD]
        vmovdqu8 xmm17{k2}{z}, [rax]
%assign _l 1
%rep 3
%assign _jr 8 + _l
        mov     rax, [r %+ _jr + J_IV]
        vmovdqu8 xmm28{k1}{z}, [rax]
        vinserti32x4 zmm0, zmm0, xmm28, _l
        mov     rax, [r %+ _jr + J_AADLEN]
        xor     ecx, ecx
        bt      edi, _l
        cmovnc  rax, rcx
        bzhi    eax, edx, eax
        kmovw   k2, eax
        mov     rax, [r %+ _jr + J_AAD]
        vmovdqu8 xmm28{k2}{z}, [rax]
        vinserti32x4 zmm17, zmm17, xmm28, _l
%assign _l _l + 1
%endrep
        vpord   zmm0, zmm0, [SJ0ONE]

        ; ---- the body for n message blocks ----
        mov     eax, [rsi + SB_NBLK]
        cmp     r12, r13
        jne     .mixed
        cmp     r12, r14
        jne     .mixed
        cmp     r12, r15
        je      .same
.mixed:
        cmp     eax, 4
        je      .n4
        ja      .above4
        cmp     eax, 1
        je      .n1
        ja      .n23
        BODY    0
        jmp     .tags
.n1:    BODY    1
        jmp     .tags
.n23:   cmp     eax, 2
        jne     .n3
        BODY    2
        jmp     .tags
.n3:    BODY    3
        jmp     .tags
.n4:    BODY    4
        jmp     .tags
.above4:
        cmp     eax, 6
        je      .n6
        ja      .above6
        BODY    5
        jmp     .tags
.n6:    BODY    6
        jmp     .tags
.above6:
        cmp     eax, 7
        jne     .n8
        BODY    7
        jmp     .tags
.n8:    BODY    8
        jmp     .tags

        ; ---- the same bodies when every lane has the same key (SAMEKEY) ----
%assign SAMEKEY 1
.same:
        cmp     eax, 4
        je      .s4
        ja      .sabove4
        cmp     eax, 1
        je      .s1
        ja      .s23
        BODY    0
        jmp     .tags
.s1:    BODY    1
        jmp     .tags
.s23:   cmp     eax, 2
        jne     .s3
        BODY    2
        jmp     .tags
.s3:    BODY    3
        jmp     .tags
.s4:    BODY    4
        jmp     .tags
.sabove4:
        cmp     eax, 6
        je      .s6
        ja      .sabove6
        BODY    5
        jmp     .tags
.s6:    BODY    6
        jmp     .tags
.sabove6:
        cmp     eax, 7
        jne     .s8
        BODY    7
        jmp     .tags
.s8:    BODY    8
%assign SAMEKEY 0

        ; ---- tags: write (encrypt lanes) or check (decrypt lanes) ----
.tags:
        mov     r12, 0x0001000100010001                 ; (key pointers no longer needed)
        mov     eax, [rsi + SB_DECRYPT]
        and     eax, edi                                ; busy decrypt lanes
        andn    ecx, eax, edi                           ; busy encrypt lanes
        pdep    rdx, rcx, r12
        imul    rdx, rdx, 0xFFFF
        and     rdx, [rsi + SB_TAGMASK]                 ; tag bytes to write
        kmovw   k4, edx
        mov     rbx, [r8 + J_TAG]
        vmovdqu8 [rbx]{k4}, xmm0
%assign _l 1
%rep 3
%assign _jr 8 + _l
        shr     rdx, 16
        kmovw   k4, edx
        mov     rbx, [r %+ _jr + J_TAG]
        vextracti32x4 xmm28, zmm0, _l
        vmovdqu8 [rbx]{k4}, xmm28
%assign _l _l + 1
%endrep
        pdep    rdx, rax, r12
        imul    rdx, rdx, 0xFFFF
        and     rdx, [rsi + SB_TAGMASK]                 ; counted bytes of decrypt lanes
        kmovq   k2, rdx
        vpcmpeqb k1, zmm0, zmm26                        ; all 64 bytes at once, no early exit
        kandnq  k2, k1, k2                              ; counted bytes that differ
        vpmovm2b zmm28, k2
        vptestmq k3, zmm28, zmm28
        kmovw   eax, k3
        mov     edx, eax
        shr     edx, 1
        or      eax, edx
        mov     edx, 0x55
        pext    eax, eax, edx                           ; lanes whose tag failed

        ; ---- clear everything, return ----
        cmp     dword [rsi + SB_K10Q], 0                ; k10q | k12q: spills used?
        je      .clear
        vpxord  zmm31, zmm31, zmm31
%assign _l 0
%rep 18
        vmovdqa64 [rsp + 64 * _l], zmm31
%assign _l _l + 1
%endrep
.clear:
        CLEAR_VREGS zmm
        FRAME_LEAVE

section .note.GNU-stack noalloc noexec nowrite progbits
