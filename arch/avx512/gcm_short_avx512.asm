; SPDX-License-Identifier: BSD-3-Clause
; gcm_short_avx512.asm — short AES-GCM jobs (up to 256 bytes), four per lane group, groups
; software-pipelined: the AES rounds of group s run interleaved with the GHASH of group s-1.
;
; uint64_t mbgcmi_avx512_short_jobs(mbgcm_job *const *jobs, const uint32_t *shapes, size_t n,
;                                   unsigned nblk, unsigned flags);
;   jobs[0..n-1], 1 <= n <= 64: validated linear jobs, each with a 12-byte IV, at most 16
;   bytes of AAD, ceil(len / 16) == nblk (0..16) and a key of |flags & 0xFF| rounds (10, 12,
;   14); flags bit 8: every job has the same key object (rows are then plain broadcasts);
;   flags bit 9: every job is a GMAC job (with 2..16 blocks the call runs bodies that encrypt
;   the J0 row alone and only load and hash the AAD rows: no key stream, no output).
;   shapes[i] describes job i: aad_len | tag_len << 8 | (bytes of its last block, 0 when
;   len == 0) << 16 | kind << 24 (the scheduler builds it while it validates the job), kind:
;   0xC0 encrypt, 0x00 decrypt, 0x60 GMAC generate, 0x20 GMAC verify (bit 7: hash the output
;   rather than the input; bit 6: store the tag rather than compare it; bit 5: GMAC).
;   A GMAC job (len 0, AAD of 17..256 bytes) is hashed as if its AAD were the message:
;   ceil(aad_len / 16) == nblk, its shape's aad_len field 0 and its last-block bytes those of
;   the AAD; its rows come from job->aad (the kernel tells it by len == 0 in a call with
;   nblk > 0), its output goes to a sink on this kernel's stack, and its length block is
;   {aad bits, 0}.
;   Returns bit i set when job i is a decrypt whose tag did not match (the caller zeroes its
;   dst); writes every job's dst (len bytes), for encrypt jobs its tag (tag_len bytes), and
;   every job's status: MBGCM_OK (0), or MBGCM_ERR_AUTH (1) for a failed tag. Jobs
;   in one call must not write into each other's buffers. A job's expected tag is read before
;   any of its output is written, so it may lie inside its dst. No byte outside a job's
;   buffers is read or written: partial blocks use byte-masked loads and stores.
;
; Layout (as the lane kernels): a zmm "row" holds one 16-byte block of each of the four jobs
; of a group, lane l = job 4g + l. Per group, with n = nblk:
;   B0 = J0 = IV || 0^31 || 1, B1..Bn = J0 + 1..n          n+1 AES chains per lane
;   X rows for GHASH: A (the AAD block, zero-padded; zero when there is none: 0 * H^k adds
;   nothing), C1..Cn (the ciphertext, zero past each lane's end), L (the length block), each
;   byte-reflected to V form and multiplied by H^(n+2) .. H^1 of its lane's key; one
;   Montgomery reduction per group (arch/generic/ghash_ct.c derives it); four lanes are four
;   unrelated jobs, so there is no cross-lane fold.
;   T = E_K(J0) ^ S, written under the tag-length mask or compared over the tag bytes.
; Rows of four keys (round keys, powers) come from four 16-byte reads joined as two ymm halves
; (GATHER4). Message rows come in the same way, every row of a group before any of its stores
; (an in-place job's loads must not wait behind its own stores), and leave through xmm and
; VEXTRACTI32X4 stores (byte-masked xmm stores for a partial last block). The products are
; schoolbook, four per block from the power row alone: the Karatsuba form's operands (a
; shuffle and an XOR for the X row and for the power row) cost more than the product they save
; (2-4% of a one-key burst at 16-112 bytes on the Intel Xeon guest, docs/perf.md).
;
; Pipelining: stage s computes group s's counters, its AES rounds and, inside rounds 1..9,
; the GHASH of group s-1 (whose X rows, E_K(J0), expected tags and keys wait in registers),
; then group s-1's tag, then group s's message (loads, xor, stores) and X rows. A final drain
; finishes the last group. Jobs of 9..16 blocks are split: each group takes two stages, the
; first over J0 and blocks 1..8 (its X rows A, C1..C8 hashed under the second stage's rounds
; with H^(n+2)..H^(n-6), unreduced), the second over blocks 9..n (hashed, with L and the
; reduction, under the next group's first stage): ten X rows and nine AES chains at most, so
; the register plan below holds for every size. Idle lanes of the last group run a dummy job whose buffers are on
; this kernel's stack (wiped on return).
;
; CPU: AVX512F/BW/VL + VAES + VPCLMULQDQ + BMI1/BMI2 (the `avx512` arch). ABI: System V.
;
; Register plan
;   JA, JB, JC, JD (rbx, rsi, rdi, rbp)  the current group's job pointers
;   r8..r11     the current group's key pointers     r12..r15  the previous group's
;               (r12 is a buffer pointer in the data phase, after the previous group's tag)
;   rax, rcx, rdx, r12  the data phase's source, then destination pointers; rax the tag
;               pointers; the job list and the shapes are read through JA and JB (all public
;               values: lengths, pointers, shapes, masks; no secret ever sits in a GPR)
;   rax, rcx, rdx  scratch
;   zmm0..8     B0..Bn of the current group: J0, counters -> E_K(J0), key stream -> output
;   zmm9        KR: round-key row           zmm10, zmm11  PW, PK: power row, scratch
;   zmm12       TT: GHASH scratch           zmm13  DD: mask scratch, round-key row halves
;   zmm14       scratch (shapes, inserts, data row halves)  zmm15  BSW: byte-reflection control
;   zmm16..25   X rows of the previous group: A, C1..Cn, L (then of the current group)
;   zmm26       E_K(J0) of the previous group       zmm27, zmm28  expected tags: previous,
;               current group                      zmm29..31  LO, MI, HI of the GHASH
;   k4..k6      scratch masks
; Every vector register and the frame's secret part, from F_DBUF on (the dummy's buffers and
; the GMAC sink: key stream and tags; the whitened J0 row), are cleared before returning; the
; rest of the frame holds pointers, lengths, masks and outcomes only.
default rel
%include "key.inc"
%include "clear.inc"
%include "job.inc"

section .rodata
%include "consts.inc"
IDX:    times 4 db 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
SPREAD: dd 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3   ; shape l -> every dword of lane l
BYTE0:  times 16 db 0, 0, 0, 0          ; VPSHUFB controls: byte b of each lane's shape in
BYTE1:  times 16 db 1, 1, 1, 1          ; all 16 bytes of the lane
BYTE2:  times 16 db 2, 2, 2, 2
BYTE3:  times 16 db 3, 3, 3, 3
LPAT:   times 4 db 2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80
                                        ; {last-block bytes, aad_len} as two qwords per lane
LADD:                                   ; row n: {16 (n - 1), 0} per lane (row 0: zero):
        times 8 dq 0                    ; + last-block bytes = the message length
%assign _j 1
%rep 16
        times 4 dq 16 * (_j - 1), 0
%assign _j _j + 1
%endrep
CTRX:                                   ; row j: the last dword of J0 + j in byte order,
%assign _j 0                            ; 00 00 00 (1 + j) (j <= 16: no carry out of the byte)
%rep 17
        times 4 dd 0, 0, 0, (1 + _j) << 24
%assign _j _j + 1
%endrep
DUMMYSHAPE: dd 0xC0101000               ; encrypt, full last block, 16-byte tag, no AAD
TAGSTB: times 64 db 0x40                ; shape bit 30 in byte 3: store the tag
GMACD:  times 16 dd 0x20000000          ; shape bit 29: a GMAC lane

; ---- stack frame (rsp 64-byte aligned) ---------------------------------------------------
%define F_JP     0              ; 4 job pointers of the current group
%define F_PJP    32             ; 4 job pointers of the previous group
%define F_L      64             ; the current group's length row (V form)
%define F_M      128            ; the current group's masks (u64; lane l at bits 16l..):
%define M_AAD    0              ;   AAD bytes
%define M_TAIL   8              ;   bytes of the last message block
%define M_TAGST  16             ;   tag bytes to store (encrypt lanes)
%define M_TAGC   24             ;   tag bytes to compare (decrypt lanes)
%define M_ENC    32             ;   qword mask of encrypting lanes (8 bits)
%define M_GMAC   40             ;   dword mask of GMAC lanes (0: plain pointers suffice)
%define F_PM     192            ; the previous group's masks (same layout)
%define F_FAIL   256            ; failed-tag bits so far
%define F_I      264            ; next job to load
%define F_N      272            ; n
%define F_R      280            ; rounds
%define F_LIST   288            ; jobs
%define F_SHAPES 296            ; shapes
%define F_PREV   304            ; 1 once there is a previous group to finish
%define F_PI     312            ; index of the previous group's first job
%define F_CI     320            ; index of the current group's first job
%define F_SAVESP 328            ; the caller's rsp
%define F_SH     352            ; shapes of a partial last group (4 x u32)
%define F_PTAG   368            ; the previous group's tag pointers (4)
%define F_SINK   400            ; where GMAC lanes' (unused) output goes: rsp + F_DBUF
%define F_DUMMY  448            ; the dummy job of idle lanes (a struct mbgcm_job) ...
%define F_DBUF   576            ; ... and its buffers: 256 data, 16 IV (and AAD), 16 tag
%define D_IV     256
%define D_TAG    272
%define F_J0     896            ; split jobs: the current group's J0 row, whitened
%define FRAME    960
%if F_J0 < F_DBUF || (FRAME - F_DBUF) % 64 != 0
%error "the frame's secret part, wiped on return, must be F_DBUF .. FRAME, whole zmm"
%endif

%define KR   zmm9
%define PW   zmm10
%define PK   zmm11
%define TT   zmm12
%define DD   zmm13
%define SCR  zmm14
%define BSW  zmm15
%define EK0P zmm26
%define ETP  zmm27
%define ETC  zmm28
%define GLO  zmm29
%define GMI  zmm30
%define GHI  zmm31
%define JA   rbx
%define JB   rsi
%define JC   rdi
%define JD   rbp

section .text

; GATHER4 d, t, p0, p1, p2, p3: zmm<d> = the four 16-byte blocks at p0..p3, lane l from p_l,
; built as two ymm halves and one 256-bit insert (zmm<t> is clobbered). One broadcast and
; three merge-masked broadcasts do the same in four instructions, but beside AES rounds on
; Zen 4 each such row cost about an AES slot, the halves none (docs/perf.md, "Gathering rows
; of four on Zen 4").
%macro GATHER4 6
        vmovdqu64 xmm %+ %1, [%3]
        vinserti32x4 ymm %+ %1, ymm %+ %1, [%4], 1
        vmovdqu64 xmm %+ %2, [%5]
        vinserti32x4 ymm %+ %2, ymm %+ %2, [%6], 1
        vinserti64x4 zmm %+ %1, zmm %+ %1, ymm %+ %2, 1
%endmacro

; ROW4 d, t, p0, p1, p2, p3, off: lane l of zmm<d> = the 16 bytes at p_l + off (one key for
; all: one broadcast from p0; zmm<t> clobbered otherwise)
%macro ROW4 7
%if SAMEKEY
        vbroadcasti32x4 zmm %+ %1, [%3 + %7]
%else
        GATHER4 %1, %2, %3 + %7, %4 + %7, %5 + %7, %6 + %7
%endif
%endmacro
%macro CURROW 2                 ; dst, offset into the current group's keys (DD clobbered)
        ROW4    %1, 13, r8, r9, r10, r11, %2
%endmacro
%macro PREVROW 2                ; dst, offset into the previous group's keys (PK clobbered)
        ROW4    %1, 11, r12, r13, r14, r15, %2
%endmacro

; The GHASH a stage runs for the rows the previous stage left (X rows zmm16 + k), described
; by G_FIRST .. G_LAST (the rows' k), G_PBASE (row k multiplies H^(G_PBASE - k)), G_INIT (the
; first step starts LO/MI/HI rather than adding to them) and G_RED (a reduction step after
; the last row). GH_SET kind sets them: 0 a whole job's rows (A, C1..Cn, L) of NB blocks;
; 1 the second half of a split job (C9..Cn as k = 1..NB2, then L), finishing its GHASH;
; 2 the first half of a split job (A, C1..C8), starting it (no reduction).
%macro GH_SET 1
%if (%1) == 0
%assign G_FIRST 0
%assign G_LAST NB + 1
%assign G_PBASE NB + 2
%assign G_INIT 1
%assign G_RED 1
%elif (%1) == 1
%assign G_FIRST 1
%assign G_LAST NB2 + 1
%assign G_PBASE NB2 + 2
%assign G_INIT 0
%assign G_RED 1
%else
%assign G_FIRST 0
%assign G_LAST 8
%assign G_PBASE NT + 2
%assign G_INIT 1
%assign G_RED 0
%endif
%assign G_STEPS G_LAST - G_FIRST + 1 + G_RED
%endmacro

; GH_STEP k: X row k times its power into LO/MI/HI (schoolbook: MI = x.lo h.hi ^ x.hi h.lo);
; k = G_LAST + 1: the reduction, leaving S (V form) in GHI
%macro GH_STEP 1
%assign _k (%1)
%if _k <= G_LAST
%assign _x 16 + _k
        PREVROW 10, HPOW(G_PBASE - _k)                  ; PW (PK clobbered)
%if _k == G_FIRST && G_INIT
        vpclmulqdq GLO, zmm %+ _x, PW, 0x00
        vpclmulqdq GHI, zmm %+ _x, PW, 0x11
        vpclmulqdq GMI, zmm %+ _x, PW, 0x01
        vpclmulqdq TT, zmm %+ _x, PW, 0x10
        vpxorq  GMI, GMI, TT
%else
        vpclmulqdq TT, zmm %+ _x, PW, 0x00
        vpxorq  GLO, GLO, TT
        vpclmulqdq TT, zmm %+ _x, PW, 0x11
        vpxorq  GHI, GHI, TT
        vpclmulqdq TT, zmm %+ _x, PW, 0x01
        vpclmulqdq PK, zmm %+ _x, PW, 0x10
        vpternlogq GMI, TT, PK, 0x96
%endif
%elif G_RED
        vmovdqa64 PW, [POLY]
        vpclmulqdq TT, GLO, PW, 0x00                    ; fold LO into MI
        vpshufd GLO, GLO, 0x4e
        vpternlogq GMI, GLO, TT, 0x96
        vpclmulqdq TT, GMI, PW, 0x00                    ; fold MI into HI
        vpshufd GMI, GMI, 0x4e
        vpternlogq GHI, GMI, TT, 0x96
%endif
%endmacro

; GH_IN_ROUND r: the GHASH steps that ride in AES round r: step i in round 1 + 9i / G_STEPS
%macro GH_IN_ROUND 1
%assign _i 0
%rep G_STEPS
%if 1 + (_i * 9) / G_STEPS == (%1)
        GH_STEP G_FIRST + _i
%endif
%assign _i _i + 1
%endrep
%endmacro

; GH_ALL: every step at once (the drain)
%macro GH_ALL 0
%assign _i 0
%rep G_STEPS
        GH_STEP G_FIRST + _i
%assign _i _i + 1
%endrep
%endmacro

; AES_ROWS: the B rows a stage encrypts beyond B0: NB, or none in the GMAC-only bodies (no key
; stream, only E_K(J0))
%macro AES_ROWS 0
%if GMACONLY
%assign _na 0
%else
%assign _na NB
%endif
%endmacro

; ROUND insn, r: AES round r on B_R0..B_na (R0 = 0, or 1 in a split job's second half,
; which has no J0 block)
%macro ROUND 2
        CURROW  9, 16 * (%2)                            ; KR
        AES_ROWS
%assign _j R0
%rep _na + 1 - R0
        %1      zmm %+ _j, zmm %+ _j, KR
%assign _j _j + 1
%endrep
%endmacro

; SMALL dst, field, mask slot: lane l of zmm<dst> = the bytes at job_l->field under lane l's
; part of the current group's mask (exact reads: byte-masked xmm loads, then inserts)
%macro SMALL 3
        kmovq   k6, [rsp + F_M + (%3)]
        mov     rax, [JA + %2]
        vmovdqu8 xmm %+ %1{k6}{z}, [rax]
        kshiftrq k4, k6, 16
        mov     rax, [JB + %2]
        vmovdqu8 xmm14{k4}{z}, [rax]
        vinserti32x4 zmm %+ %1, zmm %+ %1, xmm14, 1
        kshiftrq k4, k6, 32
        mov     rax, [JC + %2]
        vmovdqu8 xmm14{k4}{z}, [rax]
        vinserti32x4 zmm %+ %1, zmm %+ %1, xmm14, 2
        kshiftrq k4, k6, 48
        mov     rax, [JD + %2]
        vmovdqu8 xmm14{k4}{z}, [rax]
        vinserti32x4 zmm %+ %1, zmm %+ %1, xmm14, 3
%endmacro

; Message rows: sources in rax, rcx, rdx, r12 while loading, then (every row of the group
; loaded) destinations in the same registers; DOFF: the stage's offset into the message (128 in
; a split job's second half).
; LOADROW / LOADTAIL j: message block j (1-based) of each lane into X row j's register;
; STOREROW / STORETAIL j: O = D ^ KS into B row j, stored; X row j = the ciphertext (O when
; encrypting, D when decrypting: k5), byte-reflected.
%macro LOADROW 1
%assign _o DOFF + 16 * ((%1) - 1)
%assign _x 16 + (%1)
        GATHER4 _x, 14, rax + _o, rcx + _o, rdx + _o, r12 + _o
%endmacro
%macro LOADTAIL 1
%assign _o DOFF + 16 * ((%1) - 1)
%assign _x 16 + (%1)
        kmovq   k6, [rsp + F_M + M_TAIL]
        vmovdqu8 xmm %+ _x{k6}{z}, [rax + _o]
        kshiftrq k4, k6, 16
        vmovdqu8 xmm14{k4}{z}, [rcx + _o]
        vinserti32x4 zmm %+ _x, zmm %+ _x, xmm14, 1
        kshiftrq k4, k6, 32
        vmovdqu8 xmm14{k4}{z}, [rdx + _o]
        vinserti32x4 zmm %+ _x, zmm %+ _x, xmm14, 2
        kshiftrq k4, k6, 48
        vmovdqu8 xmm14{k4}{z}, [r12 + _o]
        vinserti32x4 zmm %+ _x, zmm %+ _x, xmm14, 3
%endmacro
; SRCPTRS / DSTPTRS: each lane's message source (a GMAC lane, len == 0 in a call with message
; rows: its AAD) and destination (a GMAC lane: the stack sink); len is public.
; LANEPTR reg, job, field, alternative: reg = job->field, or the alternative when job->len == 0
%macro LANEPTR 4
        mov     %1, [%2 + %3]
        cmp     qword [%2 + J_LEN], 0
        cmove   %1, %4
%endmacro
; PTRS4 field, GMAC lanes' alternative ("aad": each job's AAD): plain loads when the group has
; no GMAC lane
%macro PTRS4 2
        cmp     word [rsp + F_M + M_GMAC], 0
        jne     %%gmac
        mov     rax, [JA + %1]
        mov     rcx, [JB + %1]
        mov     rdx, [JC + %1]
        mov     r12, [JD + %1]
        jmp     %%done
%%gmac:
%ifidn %2, aad
        LANEPTR rax, JA, %1, [JA + J_AAD]
        LANEPTR rcx, JB, %1, [JB + J_AAD]
        LANEPTR rdx, JC, %1, [JC + J_AAD]
        LANEPTR r12, JD, %1, [JD + J_AAD]
%else
        LANEPTR rax, JA, %1, %2
        LANEPTR rcx, JB, %1, %2
        LANEPTR rdx, JC, %1, %2
        LANEPTR r12, JD, %1, %2
%endif
%%done:
%endmacro
%macro SRCPTRS 0
        PTRS4   J_SRC, aad
%endmacro
%macro DSTPTRS 0
        PTRS4   J_DST, [rsp + F_SINK]
%endmacro
; LOAD_FRONT: the sources and message rows 1..NB-1, then the flags of "is the last row full in
; every lane" (the caller branches to its partial-row path on ne)
%macro LOAD_FRONT 0
        SRCPTRS
%assign _j 1
%rep NB - 1
        LOADROW _j
%assign _j _j + 1
%endrep
        cmp     qword [rsp + F_M + M_TAIL], -1
%endmacro
%macro STOREROW 1
%assign _o DOFF + 16 * ((%1) - 1)
%assign _x 16 + (%1)
        vpxorq  zmm %+ %1, zmm %+ %1, zmm %+ _x
        vmovdqu64 [rax + _o], xmm %+ %1
        vextracti32x4 [rcx + _o], zmm %+ %1, 1
        vextracti32x4 [rdx + _o], zmm %+ %1, 2
        vextracti32x4 [r12 + _o], zmm %+ %1, 3
        vmovdqa64 zmm %+ _x{k5}, zmm %+ %1
        vpshufb zmm %+ _x, zmm %+ _x, BSW
%endmacro
%macro STORETAIL 1
%assign _o DOFF + 16 * ((%1) - 1)
%assign _x 16 + (%1)
        vpxorq  zmm %+ %1, zmm %+ %1, zmm %+ _x
        vmovdqu8 zmm %+ %1{k6}{z}, zmm %+ %1            ; zero past each lane's end
        vmovdqu8 [rax + _o]{k6}, xmm %+ %1
        kshiftrq k4, k6, 16
        vextracti32x4 xmm14, zmm %+ %1, 1
        vmovdqu8 [rcx + _o]{k4}, xmm14
        kshiftrq k4, k6, 32
        vextracti32x4 xmm14, zmm %+ %1, 2
        vmovdqu8 [rdx + _o]{k4}, xmm14
        kshiftrq k4, k6, 48
        vextracti32x4 xmm14, zmm %+ %1, 3
        vmovdqu8 [r12 + _o]{k4}, xmm14
        vmovdqa64 zmm %+ _x{k5}, zmm %+ %1
        vpshufb zmm %+ _x, zmm %+ _x, BSW
%endmacro

; PREV_TAG: T = E_K(J0) ^ S of the previous group; its encrypt lanes' tags stored, its decrypt
; lanes' compared over their tag bytes (all 16 lanes' bytes at once, no early exit); the
; failed lanes' bits or-ed into F_FAIL at the group's index
%macro PREV_TAG 0
        vpshufb GHI, GHI, BSW
        vpxorq  EK0P, EK0P, GHI
        kmovq   k6, [rsp + F_PM + M_TAGST]
        kortestq k6, k6
        jz      %%nost
        jnc     %%masked                                ; CF: every lane stores 16 bytes
        mov     rax, [rsp + F_PTAG]
        vmovdqu64 [rax], xmm26
%assign _l 1
%rep 3
        mov     rax, [rsp + F_PTAG + 8 * _l]
        vextracti32x4 [rax], EK0P, _l
%assign _l _l + 1
%endrep
        jmp     %%nost
%%masked:
        mov     rax, [rsp + F_PTAG]
        vmovdqu8 [rax]{k6}, xmm26
%assign _l 1
%rep 3
        kshiftrq k4, k6, 16 * _l
        mov     rax, [rsp + F_PTAG + 8 * _l]
        vextracti32x4 xmm14, EK0P, _l
        vmovdqu8 [rax]{k4}, xmm14
%assign _l _l + 1
%endrep
%%nost:
        xor     eax, eax                                ; failed lanes (none unless decrypting)
        kmovq   k5, [rsp + F_PM + M_TAGC]
        kortestq k5, k5
        jz      %%allok
        vpcmpb  k4{k5}, EK0P, ETP, 4                    ; counted tag bytes that differ
        vpmovm2b SCR, k4
        vptestmq k4, SCR, SCR                           ; qwords with a difference
        kmovb   eax, k4
        mov     edx, eax
        shr     edx, 1
        or      eax, edx
        mov     edx, 0x55
        pext    eax, eax, edx                           ; one bit per lane
        mov     rcx, [rsp + F_PI]
        shlx    rdx, rax, rcx
        or      [rsp + F_FAIL], rdx
%%status:
        ; each job's status: MBGCM_OK (0) or MBGCM_ERR_AUTH (1), its lane's bit
%assign _l 0
%rep 4
        mov     rcx, [rsp + F_PJP + 8 * _l]
        mov     edx, eax
%if _l
        shr     edx, _l
%endif
        and     edx, 1
        mov     [rcx + J_STATUS], edx
%assign _l _l + 1
%endrep
        jmp     %%done
%%allok:                                                ; no lane compares a tag: all MBGCM_OK
%assign _l 0
%rep 4
        mov     rcx, [rsp + F_PJP + 8 * _l]
        mov     dword [rcx + J_STATUS], 0
%assign _l _l + 1
%endrep
%%done:
%endmacro

; STAGE half: the current group through counters and AES (the GHASH of the rows the
; previous stage left inside), the previous group's tag, then the current group's message
; and X rows. half 0: a whole job of NB blocks; split jobs (NT = 9..16 blocks) take two
; stages per group: half 1 the first 8 blocks (J0, A, C1..C8; the previous group's GHASH is
; finished and its tag made), half 2 blocks 9..NT (NB = NB2 = NT - 8; no J0 block; the GHASH
; of half 1 started inside its rounds; the L row left for the next group's half 1).
%macro STAGE 1
%if (%1) == 2
%if !GMACONLY
        vmovdqa64 SCR, [rsp + F_J0]
%assign _j NB
%rep NB
        vpxorq  zmm %+ _j, SCR, [CTRX + 64 * (8 + _j)]  ; B_j = J0 + 8 + j, whitened
%assign _j _j - 1
%endrep
%endif
%assign R0 1
%else
        mov     eax, 0x0FFF                             ; 12 IV bytes
        kmovw   k4, eax
        mov     rax, [JA + J_IV]
        vmovdqu8 xmm0{k4}{z}, [rax]
        mov     rax, [JB + J_IV]
        vmovdqu8 xmm14{k4}{z}, [rax]
        vinserti32x4 zmm0, zmm0, xmm14, 1
        mov     rax, [JC + J_IV]
        vmovdqu8 xmm14{k4}{z}, [rax]
        vinserti32x4 zmm0, zmm0, xmm14, 2
        mov     rax, [JD + J_IV]
        vmovdqu8 xmm14{k4}{z}, [rax]
        vinserti32x4 zmm0, zmm0, xmm14, 3
        CURROW  9, 0                                    ; KR
        vpxorq  zmm0, zmm0, KR                          ; IV || 0^32, whitened with rk0
%if (%1) == 1
        vmovdqa64 [rsp + F_J0], zmm0
%endif
        AES_ROWS
%assign _j _na
%rep _na + 1
        vpxorq  zmm %+ _j, zmm0, [CTRX + 64 * _j]       ; B_j = J0 + j, whitened
%assign _j _j - 1
%endrep
%assign R0 0
        vmovdqa64 ETP, ETC
        cmp     qword [rsp + F_M + M_TAGC], 0
        je      %%noet
        SMALL   28, J_TAG, M_TAGC                       ; before any of this group's stores
%%noet:
%endif
%if (%1) == 2 && GMACONLY
        GH_SET  2                                       ; no AES in a GMAC-only second half:
        GH_ALL                                          ; the first half's rows at once
%elif (%1) == 2
        GH_SET  2
%assign _r 1
%rep 9
        ROUND   vaesenc, _r
        GH_IN_ROUND _r
%assign _r _r + 1
%endrep
%else
        GH_SET  %1
        cmp     dword [rsp + F_PREV], 0
        je      %%first
%assign _r 1
%rep 9
        ROUND   vaesenc, _r
        GH_IN_ROUND _r
%assign _r _r + 1
%endrep
        jmp     %%r10
%%first:
%assign _r 1
%rep 9
        ROUND   vaesenc, _r
%assign _r _r + 1
%endrep
%%r10:
%endif
%if !((%1) == 2 && GMACONLY)
        mov     eax, [rsp + F_R]
        cmp     eax, 10
        je      %%last10
        ROUND   vaesenc, 10
        ROUND   vaesenc, 11
        cmp     eax, 12
        je      %%last12
        ROUND   vaesenc, 12
        ROUND   vaesenc, 13
        ROUND   vaesenclast, 14
        jmp     %%aesdone
%%last12:
        ROUND   vaesenclast, 12
        jmp     %%aesdone
%%last10:
        ROUND   vaesenclast, 10
%%aesdone:
%endif
%if (%1) != 2
        cmp     dword [rsp + F_PREV], 0
        je      %%notag
        PREV_TAG
%%notag:
        vmovdqa64 EK0P, zmm0
%endif
        kmovb   k5, [rsp + F_M + M_ENC]
%assign DOFF 0
%if (%1) == 2
%assign DOFF 128
%endif
%if (%1) == 1
        ; the first half: eight whole blocks
        SRCPTRS
%assign _j 1
%rep 8
        LOADROW _j
%assign _j _j + 1
%endrep
%if GMACONLY
%assign _j 1
%rep 8
%assign _x 16 + _j
        vpshufb zmm %+ _x, zmm %+ _x, BSW               ; AAD rows: hashed, nothing out
%assign _j _j + 1
%endrep
%else
        DSTPTRS
%assign _j 1
%rep 8
        STOREROW _j
%assign _j _j + 1
%endrep
%endif
%elif NB > 0 && GMACONLY
        ; every lane hashes its AAD (idle lanes' dummies: a junk tag on the stack): rows in,
        ; byte-reflected, nothing out
        LOAD_FRONT
        jne     %%gtail
        LOADROW NB
        jmp     %%gloaded
%%gtail:
        LOADTAIL NB
%%gloaded:
%assign _j 1
%rep NB
%assign _x 16 + _j
        vpshufb zmm %+ _x, zmm %+ _x, BSW
%assign _j _j + 1
%endrep
%elif NB > 0
        LOAD_FRONT
        jne     %%tail
        LOADROW NB
        DSTPTRS
%assign _j 1
%rep NB
        STOREROW _j
%assign _j _j + 1
%endrep
        jmp     %%tdone
%%tail:
        LOADTAIL NB
        DSTPTRS
%assign _j 1
%rep NB - 1
        STOREROW _j
%assign _j _j + 1
%endrep
        STORETAIL NB
%%tdone:
%endif
%if (%1) != 2
        vpxorq  zmm16, zmm16, zmm16
        mov     rax, [rsp + F_M + M_AAD]
        test    rax, rax
        jz      %%noaad
        cmp     rax, -1
        jne     %%aadsmall
        mov     rax, [JA + J_AAD]                       ; 16 bytes in every lane: plain reads
        mov     rcx, [JB + J_AAD]                       ; (the data phase is over: rcx, rdx,
        mov     rdx, [JC + J_AAD]                       ; r12 are free)
        mov     r12, [JD + J_AAD]
        GATHER4 16, 14, rax, rcx, rdx, r12
        jmp     %%aadrow
%%aadsmall:
        SMALL   16, J_AAD, M_AAD
%%aadrow:
        vpshufb zmm16, zmm16, BSW
%%noaad:
%endif
%if (%1) != 1
%assign _x 17 + NB
        vmovdqa64 zmm %+ _x, [rsp + F_L]
%endif
%endmacro

; NEXT_GROUP done: the current group becomes the previous one; the next four jobs (dummies
; past the end) become the current group, with their masks, length row and keys. Jumps to
; |done| when no job is left.
%macro NEXT_GROUP 1
        mov     [rsp + F_PJP], JA
        mov     [rsp + F_PJP + 8], JB
        mov     [rsp + F_PJP + 16], JC
        mov     [rsp + F_PJP + 24], JD
        mov     rax, [JA + J_TAG]
        mov     [rsp + F_PTAG], rax
        mov     rax, [JB + J_TAG]
        mov     [rsp + F_PTAG + 8], rax
        mov     rax, [JC + J_TAG]
        mov     [rsp + F_PTAG + 16], rax
        mov     rax, [JD + J_TAG]
        mov     [rsp + F_PTAG + 24], rax
        mov     rax, [rsp + F_M + M_TAGST]
        mov     [rsp + F_PM + M_TAGST], rax
        mov     rax, [rsp + F_M + M_TAGC]
        mov     [rsp + F_PM + M_TAGC], rax
        mov     r12, r8
        mov     r13, r9
        mov     r14, r10
        mov     r15, r11
        mov     rax, [rsp + F_CI]
        mov     [rsp + F_PI], rax
        mov     rax, [rsp + F_I]
        mov     [rsp + F_CI], rax
        cmp     rax, [rsp + F_N]
        jae     %1
        mov     rdx, [rsp + F_N]
        sub     rdx, rax                                ; jobs left
        ; the list and the shapes are read through JA/JB (public: pointers and shapes)
        mov     JA, [rsp + F_SHAPES]
        lea     JA, [JA + 4 * rax]
        mov     JB, [rsp + F_LIST]
        lea     JB, [JB + 8 * rax]
        cmp     rdx, 4
        jb      %%partial
        vmovdqu32 xmm14, [JA]
        mov     JA, [JB]
        mov     JC, [JB + 16]
        mov     JD, [JB + 24]
        mov     JB, [JB + 8]
        jmp     %%loaded
%%partial:
        ; dummy jobs (and shapes) past the end
        mov     ecx, [DUMMYSHAPE]
        mov     [rsp + F_SH + 4], ecx
        mov     [rsp + F_SH + 8], ecx
        mov     [rsp + F_SH + 12], ecx
        lea     JC, [rsp + F_DUMMY]
        mov     JD, JC
        mov     ecx, [JA]
        mov     [rsp + F_SH], ecx
        cmp     rdx, 2
        jb      %%p1
        mov     ecx, [JA + 4]
        mov     [rsp + F_SH + 4], ecx
        cmp     rdx, 3
        jb      %%p2
        mov     ecx, [JA + 8]
        mov     [rsp + F_SH + 8], ecx
        mov     JC, [JB + 16]
%%p2:
        mov     JA, [JB]
        mov     JB, [JB + 8]
        jmp     %%pdone
%%p1:
        mov     JA, [JB]
        mov     JB, JD
%%pdone:
        vmovdqu32 xmm14, [rsp + F_SH]
%%loaded:
        add     rax, 4
        mov     [rsp + F_I], rax
        mov     [rsp + F_JP], JA
        mov     [rsp + F_JP + 8], JB
        mov     [rsp + F_JP + 16], JC
        mov     [rsp + F_JP + 24], JD
        ; masks from the shapes: lane l's shape in every dword of the lane, one byte field
        ; spread over the lane's 16 bytes, compared with the byte index
        vmovdqa64 DD, [SPREAD]
        vpermd  zmm14, DD, zmm14
        vpshufb DD, zmm14, [BYTE0]
        vpcmpub k4, DD, [IDX], 6                        ; index < aad_len
        kmovq   [rsp + F_M + M_AAD], k4
        vpshufb DD, zmm14, [BYTE2]
        vpcmpub k4, DD, [IDX], 6                        ; index < bytes of the last block
        kmovq   [rsp + F_M + M_TAIL], k4
        vpshufb DD, zmm14, [BYTE3]
        vptestmb k5, DD, [TAGSTB]                       ; bytes of lanes that store the tag
        vpmovq2m k6, DD                                 ; qwords of lanes that hash the output
        kmovq   [rsp + F_M + M_ENC], k6
        vpshufb DD, zmm14, [BYTE1]
        vpcmpub k4, DD, [IDX], 6                        ; index < tag_len
        kandq   k6, k4, k5
        kmovq   [rsp + F_M + M_TAGST], k6
        kandnq  k6, k5, k4
        kmovq   [rsp + F_M + M_TAGC], k6
        vpshufb DD, zmm14, [LPAT]
        vpaddq  DD, DD, [LADD + 64 * NLEN]
        vpsllq  DD, DD, 3                               ; {len, aad_len} in bits
        vptestmd k4, zmm14, [GMACD]
        vpshufd DD{k4}, DD, 0x4e                        ; GMAC lanes: {0, aad_len}
        kmovw   [rsp + F_M + M_GMAC], k4
        vmovdqa64 [rsp + F_L], DD
        mov     r8, [JA + J_KEY]
        mov     r9, [JB + J_KEY]
        mov     r10, [JC + J_KEY]
        mov     r11, [JD + J_KEY]
%endmacro

; BODY: the whole call for NB blocks, NB <= 8 (SAMEKEY chosen by the caller's flag)
%macro BODY 0
%assign NLEN NB
        NEXT_GROUP %%drain
%%loop:
        STAGE   0
        mov     dword [rsp + F_PREV], 1
        NEXT_GROUP %%drain
        jmp     %%loop
%%drain:
        vmovdqa64 ETP, ETC
        GH_SET  0
        GH_ALL
        PREV_TAG
        jmp     .exit
%endmacro

; BODY_SPLIT: the whole call for NT = 9..16 blocks, two stages per group (NB2 = NT - 8); the
; second half's GHASH uses the group's own keys, so r12..r15 take them between the halves
%macro BODY_SPLIT 0
%assign NLEN NT
        NEXT_GROUP %%drain
%%loop:
%assign NB 8
        STAGE   1
        mov     dword [rsp + F_PREV], 1
        mov     r12, r8
        mov     r13, r9
        mov     r14, r10
        mov     r15, r11
%assign NB NB2
        STAGE   2
        NEXT_GROUP %%drain
        jmp     %%loop
%%drain:
        vmovdqa64 ETP, ETC
%assign NB NB2
        GH_SET  1
        GH_ALL
        PREV_TAG
        jmp     .exit
%endmacro

global mbgcmi_avx512_short_jobs:function hidden
mbgcmi_avx512_short_jobs:
        push    rbp
        push    rbx
        push    r12
        push    r13
        push    r14
        push    r15
        mov     rax, rsp
        sub     rsp, FRAME
        and     rsp, -64
        mov     [rsp + F_SAVESP], rax
        mov     [rsp + F_LIST], rdi
        mov     [rsp + F_SHAPES], rsi
        mov     [rsp + F_N], rdx
        movzx   eax, r8b
        mov     [rsp + F_R], rax
        xor     eax, eax
        mov     [rsp + F_FAIL], rax
        mov     [rsp + F_I], rax
        mov     [rsp + F_CI], rax
        mov     [rsp + F_PREV], rax
        ; the dummy job: job 0's key, encrypt, zero IV, no AAD, nblk full blocks, own buffers
        mov     JA, [rdi]
        mov     rax, [JA + J_KEY]
        mov     [rsp + F_DUMMY + J_KEY], rax
        mov     dword [rsp + F_DUMMY + J_DIR], 1
        lea     rax, [rsp + F_DBUF + D_IV]
        mov     [rsp + F_DUMMY + J_IV], rax
        mov     qword [rsp + F_DUMMY + J_IVLEN], 12
        mov     [rsp + F_DUMMY + J_AAD], rax
        mov     qword [rsp + F_DUMMY + J_AADLEN], 0
        lea     rax, [rsp + F_DBUF]
        mov     [rsp + F_DUMMY + J_SRC], rax
        mov     [rsp + F_DUMMY + J_DST], rax
        mov     [rsp + F_SINK], rax
        mov     rax, rcx
        shl     rax, 4
        mov     [rsp + F_DUMMY + J_LEN], rax
        lea     rax, [rsp + F_DBUF + D_TAG]
        mov     [rsp + F_DUMMY + J_TAG], rax
        mov     qword [rsp + F_DUMMY + J_TAGLEN], 16
        vpxord  xmm0, xmm0, xmm0
%assign _o 0
%rep 5
        vmovdqa64 [rsp + F_DBUF + _o], zmm0
%assign _o _o + 64
%endrep
        vpxord  ETC, ETC, ETC
        vmovdqa64 BSW, [BSWAP]
        lea     JA, [rsp + F_DUMMY]                     ; a "previous group" before the first
        mov     JB, JA
        mov     JC, JA
        mov     JD, JA
        mov     eax, ecx
        test    r8d, 0x200
        jz      .notgmac
        test    r8d, 0x100
        jnz     .gsame
%assign _nb 2
%rep 15
        cmp     eax, _nb
        je      .g %+ _nb
%assign _nb _nb + 1
%endrep
        jmp     .notgmac
.gsame:
%assign _nb 2
%rep 15
        cmp     eax, _nb
        je      .gs %+ _nb
%assign _nb _nb + 1
%endrep
.notgmac:
        test    r8d, 0x100
        jnz     .same
%assign _nb 0
%rep 17
        cmp     eax, _nb
        je      .d %+ _nb
%assign _nb _nb + 1
%endrep
.same:
%assign _nb 0
%rep 17
        cmp     eax, _nb
        je      .s %+ _nb
%assign _nb _nb + 1
%endrep

; BODIES d, s, first: the bodies of every block count from |first| to 16 (BODY up to 8, then
; BODY_SPLIT), each twice: at label d<n> for distinct keys and s<n> for one key
%macro BODIES 3
%assign _nb %3
%rep 9 - (%3)
%assign NB _nb
%assign SAMEKEY 0
%1 %+ _nb:
        BODY
%assign SAMEKEY 1
%2 %+ _nb:
        BODY
%assign _nb _nb + 1
%endrep
%rep 8
%assign NT _nb
%assign NB2 _nb - 8
%assign SAMEKEY 0
%1 %+ _nb:
        BODY_SPLIT
%assign SAMEKEY 1
%2 %+ _nb:
        BODY_SPLIT
%assign _nb _nb + 1
%endrep
%endmacro

%assign GMACONLY 0
        BODIES  .d, .s, 0
; GMAC-only calls of 2..16 blocks (flags bit 9): AES on the J0 row alone (in the first half
; of a split job; the second half has no AES pass at all)
%assign GMACONLY 1
        BODIES  .g, .gs, 2

.exit:
        mov     rax, [rsp + F_FAIL]
        mov     rcx, [rsp + F_SAVESP]
        vpxord  xmm0, xmm0, xmm0
%assign _o F_DBUF
%rep (FRAME - F_DBUF) / 64
        vmovdqa64 [rsp + _o], zmm0
%assign _o _o + 64
%endrep
        CLEAR_VREGS zmm
        mov     rsp, rcx
        pop     r15
        pop     r14
        pop     r13
        pop     r12
        pop     rbx
        pop     rbp
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
