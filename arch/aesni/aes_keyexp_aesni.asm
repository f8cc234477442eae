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
; Registers: rdi = raw key, rsi = rk, eax = current word t, xmm0/xmm1 = scratch. Key material
; left in registers is cleared before returning.
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

global mbgcmi_aesni_expand128:function hidden
mbgcmi_aesni_expand128:
        EXPAND 4

global mbgcmi_aesni_expand192:function hidden
mbgcmi_aesni_expand192:
        EXPAND 6

global mbgcmi_aesni_expand256:function hidden
mbgcmi_aesni_expand256:
        EXPAND 8

section .note.GNU-stack noalloc noexec nowrite progbits
