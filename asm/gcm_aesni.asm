; gcm_aesni.asm — single-stream AES-GCM kernels with AES-NI + PCLMULQDQ (xmm, SSE encoding),
; eight blocks per iteration ("by8"). These are the `aesni` arch's one-shot kernels; until
; their own kernels land, the one-shot calls of `avx2` and `avx512` use them too.
;
; CPU: AES-NI, PCLMULQDQ, SSSE3 (PSHUFB), SSE4.1 — what mb/dispatch.c requires for `aesni`.
; ABI: System V AMD64; all xmm registers are caller-saved there. Every xmm register used is
; cleared before returning (they hold key stream, data or hash state).
;
; void mbgcmi_aesni_block(const key *k, const uint8_t in[16], uint8_t out[16]);
;     out = AES_K(in)
; void mbgcmi_aesni_ghash(const key *k, uint64_t s[2], const uint8_t *in, size_t nblocks);
;     s = GHASH state in V form (see mb/ghash_ct.c), updated over nblocks full blocks
; void mbgcmi_aesni_ctr_enc(const key *k, uint8_t ctr[16], uint64_t s[2],
;                           const uint8_t *in, uint8_t *out, size_t nblocks);
; void mbgcmi_aesni_ctr_dec(...same...);
;     CTR from counter block ctr (inc32 per block; ctr is left at the next unused value),
;     GHASH of the ciphertext (out for _enc, in for _dec) into s. in == out is allowed: _dec
;     hashes each group of input blocks before it writes them.
; void mbgcmi_pclmul_hpowers(key *k);
;     from hpow[H^1] (Montgomery V form, already stored) fill hpow[H^2..H^32] and hkar[].
;
; Math: mb/ghash_ct.c derives the V form, the Montgomery product with the key stored as
; V(H^k)*y mod P', Karatsuba with the key's precomputed (lo ^ hi), and the two 64-bit folds by
; the constant 0xC200000000000000. Eight blocks are hashed with H^8..H^1 and reduced once:
;     S' = (S ^ X0) H^8 ^ X1 H^7 ^ ... ^ X7 H^1.
; Counters: the counter block is kept byte-reversed (a little-endian 128-bit integer whose low
; dword is GCM's 32-bit counter), so PADDD by 1 is inc32 and wraps mod 2^32 without touching
; the other 96 bits; each block is byte-reversed back before AES.
;
; Register plan (ctr kernels):
;   rdi k, rsi ctr, rdx s, rcx in, r8 out, r9 nblocks (counts down), eax rounds
;   xmm0-7   B0..B7     eight AES blocks (counter -> key stream -> output)
;   xmm8     CTR        next counter, byte-reversed (low dword = counter)
;   xmm9     BSWAP      byte-reversal shuffle mask
;   xmm10    S          GHASH state, V form
;   xmm11    X          block being hashed
;   xmm12    LO         sum of lo*lo products
;   xmm13    HI         sum of hi*hi products
;   xmm14    MI         sum of Karatsuba middle products
;   xmm15    T          scratch
default rel
%include "key.inc"

section .rodata
align 16
BSWAP_MASK:     db 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
ONE:            dq 1, 0                 ; +1 in the low dword (the 32-bit counter)
POLY_C2:        dq 0xC200000000000000, 0xC200000000000000  ; y^63 + y^62 + y^57, both qwords

section .text

; ---- AES -------------------------------------------------------------------------------
; AES_ALL n: encrypt xmm0..xmm(n-1) in place with the key at rdi; eax = rounds (10/12/14).
; Rounds 1..9 are common; the round count is public (key size), so branching on it is fine.
%macro AES_ALL 1
%assign _b 0
%rep %1
        pxor    xmm %+ _b, [rdi + KEY_RK]
%assign _b _b + 1
%endrep
%assign _r 1
%rep 9
%assign _b 0
%rep %1
        aesenc  xmm %+ _b, [rdi + KEY_RK + 16 * _r]
%assign _b _b + 1
%endrep
%assign _r _r + 1
%endrep
        cmp     eax, 10
        je      %%last10
%assign _r 10
%rep 2
%assign _b 0
%rep %1
        aesenc  xmm %+ _b, [rdi + KEY_RK + 16 * _r]
%assign _b _b + 1
%endrep
%assign _r _r + 1
%endrep
        cmp     eax, 12
        je      %%last12
%assign _r 12
%rep 2
%assign _b 0
%rep %1
        aesenc  xmm %+ _b, [rdi + KEY_RK + 16 * _r]
%assign _b _b + 1
%endrep
%assign _r _r + 1
%endrep
%assign _b 0
%rep %1
        aesenclast xmm %+ _b, [rdi + KEY_RK + 16 * 14]
%assign _b _b + 1
%endrep
        jmp     %%done
%%last12:
%assign _b 0
%rep %1
        aesenclast xmm %+ _b, [rdi + KEY_RK + 16 * 12]
%assign _b _b + 1
%endrep
        jmp     %%done
%%last10:
%assign _b 0
%rep %1
        aesenclast xmm %+ _b, [rdi + KEY_RK + 16 * 10]
%assign _b _b + 1
%endrep
%%done:
%endmacro

; CTR_LOAD n: B0..B(n-1) = byte-reversed CTR, CTR+1, ...; CTR += n.
%macro CTR_LOAD 1
%assign _b 0
%rep %1
        movdqa  xmm %+ _b, xmm8
        pshufb  xmm %+ _b, xmm9
        paddd   xmm8, [ONE]
%assign _b _b + 1
%endrep
%endmacro

; CTR_XOR_STORE n: out[i] = in[i] ^ B_i, i < n (all loads first: in may equal out).
%macro CTR_XOR_STORE 1
%assign _b 0
%rep %1
        movdqu  xmm11, [rcx + 16 * _b]
        pxor    xmm %+ _b, xmm11
        movdqu  [r8 + 16 * _b], xmm %+ _b
%assign _b _b + 1
%endrep
%endmacro

; ---- GHASH -----------------------------------------------------------------------------
; GH_MUL_FIRST j / GH_MUL_NEXT j: X * H^j into LO/HI/MI (first sets, next accumulates).
%macro GH_MUL_FIRST 1
        movdqa  xmm12, xmm11
        pclmulqdq xmm12, [rdi + HPOW(%1)], 0x00   ; LO = X.lo * H.lo
        movdqa  xmm13, xmm11
        pclmulqdq xmm13, [rdi + HPOW(%1)], 0x11   ; HI = X.hi * H.hi
        pshufd  xmm14, xmm11, 0x4e
        pxor    xmm14, xmm11                      ; X.lo ^ X.hi in both qwords
        pclmulqdq xmm14, [rdi + HKAR(%1)], 0x00   ; MI = (X.lo^X.hi)(H.lo^H.hi)
%endmacro
%macro GH_MUL_NEXT 1
        movdqa  xmm15, xmm11
        pclmulqdq xmm15, [rdi + HPOW(%1)], 0x00
        pxor    xmm12, xmm15
        movdqa  xmm15, xmm11
        pclmulqdq xmm15, [rdi + HPOW(%1)], 0x11
        pxor    xmm13, xmm15
        pshufd  xmm15, xmm11, 0x4e
        pxor    xmm15, xmm11
        pclmulqdq xmm15, [rdi + HKAR(%1)], 0x00
        pxor    xmm14, xmm15
%endmacro
; GH_REDUCE: S = reduce(LO, MI ^ LO ^ HI, HI) (Karatsuba fix-up, then the two folds).
%macro GH_REDUCE 0
        pxor    xmm14, xmm12
        pxor    xmm14, xmm13                      ; MI = MI ^ LO ^ HI
        movdqa  xmm15, xmm12
        pclmulqdq xmm15, [POLY_C2], 0x00          ; LO.lo * (y^57 + y^62 + y^63)
        pshufd  xmm12, xmm12, 0x4e                ; swap64(LO)
        pxor    xmm14, xmm12
        pxor    xmm14, xmm15                      ; fold LO into MI
        movdqa  xmm15, xmm14
        pclmulqdq xmm15, [POLY_C2], 0x00
        pshufd  xmm14, xmm14, 0x4e
        pxor    xmm13, xmm14
        pxor    xmm13, xmm15                      ; fold MI into HI
        movdqa  xmm10, xmm13                      ; S = HI
%endmacro
; GHASH8 ptr: S = GHASH of the eight blocks at ptr.
%macro GHASH8 1
        movdqu  xmm11, [%1]
        pshufb  xmm11, xmm9
        pxor    xmm11, xmm10
        GH_MUL_FIRST 8
%assign _j 1
%rep 7
        movdqu  xmm11, [%1 + 16 * _j]
        pshufb  xmm11, xmm9
        GH_MUL_NEXT (8 - _j)
%assign _j _j + 1
%endrep
        GH_REDUCE
%endmacro
; GHASH1 ptr: S = (S ^ X) * H.
%macro GHASH1 1
        movdqu  xmm11, [%1]
        pshufb  xmm11, xmm9
        pxor    xmm11, xmm10
        GH_MUL_FIRST 1
        GH_REDUCE
%endmacro

%macro CLEAR_XMM 0
%assign _b 0
%rep 16
        pxor    xmm %+ _b, xmm %+ _b
%assign _b _b + 1
%endrep
%endmacro

; ---------------------------------------------------------------------------------------
global mbgcmi_aesni_block:function hidden
mbgcmi_aesni_block:
        mov     eax, [rdi + KEY_ROUNDS]
        movdqu  xmm0, [rsi]
        AES_ALL 1
        movdqu  [rdx], xmm0
        pxor    xmm0, xmm0
        ret

; ---------------------------------------------------------------------------------------
global mbgcmi_aesni_ghash:function hidden
mbgcmi_aesni_ghash:                     ; rdi k, rsi s, rdx in, rcx nblocks
        movdqa  xmm9, [BSWAP_MASK]
        movdqu  xmm10, [rsi]
.by8:
        cmp     rcx, 8
        jb      .by1
        GHASH8  rdx
        add     rdx, 128
        sub     rcx, 8
        jmp     .by8
.by1:
        test    rcx, rcx
        jz      .done
        GHASH1  rdx
        add     rdx, 16
        dec     rcx
        jmp     .by1
.done:
        movdqu  [rsi], xmm10
        CLEAR_XMM
        ret

; ---------------------------------------------------------------------------------------
; CTR_KERNEL dec: the body of ctr_enc (0) / ctr_dec (1).
%macro CTR_KERNEL 1
        mov     eax, [rdi + KEY_ROUNDS]
        movdqa  xmm9, [BSWAP_MASK]
        movdqu  xmm8, [rsi]
        pshufb  xmm8, xmm9                        ; CTR: low dword = counter
        movdqu  xmm10, [rdx]
%%by8:
        cmp     r9, 8
        jb      %%by1
%if %1
        GHASH8  rcx                               ; decrypt: hash the ciphertext first
%endif
        CTR_LOAD 8
        AES_ALL 8
        CTR_XOR_STORE 8
%if %1 == 0
        GHASH8  r8                                ; encrypt: hash what was written
%endif
        add     rcx, 128
        add     r8, 128
        sub     r9, 8
        jmp     %%by8
%%by1:
        test    r9, r9
        jz      %%done
%if %1
        GHASH1  rcx
%endif
        CTR_LOAD 1
        AES_ALL 1
        CTR_XOR_STORE 1
%if %1 == 0
        GHASH1  r8
%endif
        add     rcx, 16
        add     r8, 16
        dec     r9
        jmp     %%by1
%%done:
        pshufb  xmm8, xmm9
        movdqu  [rsi], xmm8
        movdqu  [rdx], xmm10
        CLEAR_XMM
        ret
%endmacro

global mbgcmi_aesni_ctr_enc:function hidden
mbgcmi_aesni_ctr_enc:
        CTR_KERNEL 0

global mbgcmi_aesni_ctr_dec:function hidden
mbgcmi_aesni_ctr_dec:
        CTR_KERNEL 1

; ---------------------------------------------------------------------------------------
; H^k = mont(H^(k-1), H^1) for k = 2..32; hkar[k] = (lo ^ hi) of H^k in both qwords.
global mbgcmi_pclmul_hpowers:function hidden
mbgcmi_pclmul_hpowers:                  ; rdi k
        movdqa  xmm0, [rdi + HPOW(1)]
        pshufd  xmm1, xmm0, 0x4e
        pxor    xmm1, xmm0
        movdqa  [rdi + HKAR(1)], xmm1
        mov     ecx, 2
        lea     rdx, [rdi + HPOW(1)]            ; &H^(k-1): powers are stored highest first,
.next:                                          ; so H^k sits 16 bytes below H^(k-1)
        movdqa  xmm11, [rdx]
        GH_MUL_FIRST 1
        GH_REDUCE
        sub     rdx, 16
        movdqa  [rdx], xmm10                     ; H^k
        pshufd  xmm1, xmm10, 0x4e
        pxor    xmm1, xmm10
        movdqa  [rdx + (KEY_HKAR - KEY_HPOW)], xmm1
        inc     ecx
        cmp     ecx, 32
        jbe     .next
        CLEAR_XMM
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
