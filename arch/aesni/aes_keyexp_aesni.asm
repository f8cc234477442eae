; SPDX-License-Identifier: BSD-3-Clause
; aes_keyexp_aesni.asm — AES-128/192/256 key expansion with AESKEYGENASSIST (AES-NI, SSE4.1).
;
; void mbgcmi_aesni_expand128(const uint8_t *raw, uint8_t rk[11][16]);
; void mbgcmi_aesni_expand192(const uint8_t *raw, uint8_t rk[13][16]);
; void mbgcmi_aesni_expand256(const uint8_t *raw, uint8_t rk[15][16]);
;
; The FIPS-197 word recurrence, fully unrolled at assembly time (Nk = 4, 6, 8 words):
;   w[i] = w[i-Nk] ^ t,  t = w[i-1], except
;     i % Nk == 0:           t = SubWord(RotWord(w[i-1])) ^ Rcon[i/Nk]
;     Nk == 8, i % 8 == 4:   t = SubWord(w[i-1])
; AESKEYGENASSIST on a register whose dword 1 is t returns SubWord(t) in dword 0 and
; RotWord(SubWord(t)) ^ rcon in dword 1 (RotWord commutes with the bytewise S-box), so one
; instruction serves both special cases; rcon is an assembly-time constant per i.
; Words are little-endian dwords of the byte string, which is what AESKEYGENASSIST assumes.
; AES-192 runs that recurrence a word at a time (eax = current word t, xmm0/xmm1 scratch).
;
; AES-128 and AES-256 take a whole round key per step in xmm registers instead: a word at a
; time, every word waits on the previous one through a store and a reload, and the chain of
; 44 or 60 of them took about twice as long. With K = the previous round key (four words)
; and t the special word broadcast to all four dwords (PSHUFD of the AESKEYGENASSIST result,
; dword 3 = RotWord(SubWord(w3)) ^ rcon, dword 2 = SubWord(w3)):
;   next = K ^ (K << 32) ^ (K << 64) ^ (K << 96) ^ t      (shifts of the 128-bit value)
; which is w[i..i+3] of the recurrence above, each word the xor of all earlier ones of K.
; AES-256 alternates two such halves: rcon steps on the second half's last word, the
; SubWord-only steps (i % 8 == 4) on the first half's.
; Registers: rdi = raw key, rsi = rk; xmm0/xmm1 the two halves (AES-128: xmm0), xmm2 t, xmm3
; scratch. Key material left in registers is cleared before returning.
default rel
section .text

%macro EXPAND 1                         ; %1 = Nk (words of raw key)
%assign NK %1
%assign TOTAL 4 * (NK + 7)              ; 4 * (Nr + 1), Nr = Nk + 6
%assign i 0
%rep NK
        mov     eax, [rdi + 4 * i]
        mov     [rsi + 4 * i], eax
%assign i i + 1
%endrep
%assign rcon 1
%rep TOTAL - NK
        mov     eax, [rsi + 4 * (i - 1)]
%if (i % NK) == 0
        movd    xmm0, eax
        pshufd  xmm0, xmm0, 0           ; t in every dword (dword 1 is what counts)
        aeskeygenassist xmm1, xmm0, rcon
        pextrd  eax, xmm1, 1            ; RotWord(SubWord(t)) ^ rcon
%assign rcon ((rcon << 1) ^ (((rcon >> 7) & 1) * 0x1b)) & 0xff
%elif NK == 8 && (i % NK) == 4
        movd    xmm0, eax
        pshufd  xmm0, xmm0, 0
        aeskeygenassist xmm1, xmm0, 0
        movd    eax, xmm1               ; SubWord(t)
%endif
        xor     eax, [rsi + 4 * (i - NK)]
        mov     [rsi + 4 * i], eax
%assign i i + 1
%endrep
        pxor    xmm0, xmm0
        pxor    xmm1, xmm1
        xor     eax, eax
        ret
%endmacro

; NEXTKEY k, t: k = k ^ (k << 32) ^ (k << 64) ^ (k << 96) ^ t (xmm3 scratch)
%macro NEXTKEY 2
        movdqa  xmm3, %1
        pslldq  xmm3, 4
        pxor    %1, xmm3
        pslldq  xmm3, 4
        pxor    %1, xmm3
        pslldq  xmm3, 4
        pxor    %1, xmm3
        pxor    %1, %2
%endmacro

global mbgcmi_aesni_expand128:function hidden
mbgcmi_aesni_expand128:
        movdqu  xmm0, [rdi]
        movdqu  [rsi], xmm0
%assign rcon 1
%assign r 1
%rep 10
        aeskeygenassist xmm2, xmm0, rcon
        pshufd  xmm2, xmm2, 0xff                ; RotWord(SubWord(w3)) ^ rcon everywhere
        NEXTKEY xmm0, xmm2
        movdqu  [rsi + 16 * r], xmm0
%assign rcon ((rcon << 1) ^ (((rcon >> 7) & 1) * 0x1b)) & 0xff
%assign r r + 1
%endrep
        pxor    xmm0, xmm0
        pxor    xmm2, xmm2
        pxor    xmm3, xmm3
        ret

global mbgcmi_aesni_expand192:function hidden
mbgcmi_aesni_expand192:
        EXPAND 6

global mbgcmi_aesni_expand256:function hidden
mbgcmi_aesni_expand256:
        movdqu  xmm0, [rdi]
        movdqu  xmm1, [rdi + 16]
        movdqu  [rsi], xmm0
        movdqu  [rsi + 16], xmm1
%assign rcon 1
%assign r 2
%rep 7
        aeskeygenassist xmm2, xmm1, rcon
        pshufd  xmm2, xmm2, 0xff                ; RotWord(SubWord(w7)) ^ rcon everywhere
        NEXTKEY xmm0, xmm2
        movdqu  [rsi + 16 * r], xmm0
%if r < 14
        aeskeygenassist xmm2, xmm0, 0
        pshufd  xmm2, xmm2, 0xaa                ; SubWord(w3) everywhere
        NEXTKEY xmm1, xmm2
        movdqu  [rsi + 16 * (r + 1)], xmm1
%endif
%assign rcon ((rcon << 1) ^ (((rcon >> 7) & 1) * 0x1b)) & 0xff
%assign r r + 2
%endrep
        pxor    xmm0, xmm0
        pxor    xmm1, xmm1
        pxor    xmm2, xmm2
        pxor    xmm3, xmm3
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
