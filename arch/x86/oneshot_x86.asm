; SPDX-License-Identifier: BSD-3-Clause
; oneshot_x86.asm — the one-shot calls' common case on x86-64: mbgcm_encrypt / mbgcm_decrypt
; (api/aead.c, one jump each) come here first.
;
; int mbgcmi_x86_encrypt(const mbgcm_key *key, const void *iv, size_t iv_len, const void *aad,
;                        size_t aad_len, const void *in, size_t len, void *out, void *tag,
;                        size_t tag_len)
; int mbgcmi_x86_decrypt(...the same, tag the expected tag...)
;   The public calls' arguments, untouched. When the one-shot arch has a whole12
;   (mbgcmi_oneshot_whole12 not NULL), the IV is 12 bytes and every argument check of
;   jobs/validate.h passes (the key present, 64-byte aligned, initialised, with 10, 12 or 14
;   rounds; AAD and message lengths within their limits; a tag length of 4, 8 or 12..16; IV and
;   tag present, AAD with a length, source and destination with a message, the same buffer or
;   disjoint), whole12 runs the call; a failed decrypt zeroes the output (mbgcmi_wipe) and
;   returns MBGCM_ERR_AUTH. Anything else goes, arguments untouched, to the C implementation
;   (mbgcmi_encrypt_c / mbgcmi_decrypt_c), which checks everything again and returns each
;   check's own status: this entry only ever accepts what the C checks accept (api/aead.c pins
;   the constants below to the C ones).
;
; Why in asm: at 16 bytes a call is mostly fixed cost. The C version of this path kept ten
; arguments and the function pointer live across the checks and the call: three saved
; registers, a frame, the stack arguments reloaded and pushed again, about 80 instructions
; before the kernel's first; here about 60 (docs/perf.md). A tail jump into whole12 is not
; possible: its three stack arguments (out, tag, tag_len | decrypt << 8) sit one slot lower
; than the public call's (len, out, tag, tag_len), so they are pushed and whole12 called.
;
; Register plan: the arguments stay in their registers (rdi key, rsi iv, rdx iv_len, rcx aad,
; r8 aad_len, r9 in; [rsp + 8] len, [rsp + 16] out, [rsp + 24] tag, [rsp + 32] tag_len) until
; every check has passed; rax and r10 scratch, r11 whole12. Every branch is on a length, a
; pointer, the key's rounds and magic, or (decrypt) whole12's public tag result. No vector
; register, no secret.
default rel
%include "key.inc"

%define KEY_MAGIC       248
%define KEY_MAGIC_VALUE 0x6b67626d              ; "mbgk"
%define MAX_AAD_SHIFT   61                      ; aad_len < 2^61
%define MAX_TEXT_LEN    0xFFFFFFFE0             ; 2^36 - 32
%define TAG_LENS        0x1F110                 ; bit t set: tag length t is valid
%define ROUNDS_OK       0x5400                  ; bits 10, 12, 14
%define ERR_AUTH        1

extern mbgcmi_oneshot_whole12
extern mbgcmi_encrypt_c
extern mbgcmi_decrypt_c
extern mbgcmi_wipe

section .text

; ONESHOT decrypt, general: the checks (to general on any failure), then whole12
%macro ONESHOT 2
        mov     r11, [mbgcmi_oneshot_whole12]
        test    r11, r11
        jz      %2
        cmp     rdx, 12
        jne     %2
        test    rdi, rdi                                ; key: present, aligned, initialised
        jz      %2
        test    dil, 63
        jnz     %2
        cmp     dword [rdi + KEY_MAGIC], KEY_MAGIC_VALUE
        jne     %2
        mov     eax, [rdi + KEY_ROUNDS]
        cmp     eax, 14
        ja      %2
        mov     r10d, ROUNDS_OK
        bt      r10d, eax
        jnc     %2
        mov     rax, r8                                 ; lengths
        shr     rax, MAX_AAD_SHIFT
        jnz     %2
        mov     rax, [rsp + 8]
        mov     r10, MAX_TEXT_LEN
        cmp     rax, r10
        ja      %2
        mov     r10, [rsp + 32]                         ; tag length
        cmp     r10, 16
        ja      %2
        mov     eax, TAG_LENS
        bt      eax, r10d
        jnc     %2
        test    rsi, rsi                                ; pointers
        jz      %2
        cmp     qword [rsp + 24], 0
        je      %2
        test    r8, r8
        jz      %%no_aad
        test    rcx, rcx
        jz      %2
%%no_aad:
        mov     rax, [rsp + 8]
        test    rax, rax
        jz      %%checked
        test    r9, r9
        jz      %2
        mov     r10, [rsp + 16]
        test    r10, r10
        jz      %2
        neg     r10
        add     r10, r9                                 ; d = in - out
        jz      %%checked                               ; in place
        lea     r10, [r10 + rax - 1]
        lea     rax, [rax + rax - 1]
        cmp     r10, rax                                ; d + len - 1 < 2 len - 1: overlap
        jb      %2
%%checked:
        ; whole12(k, iv, aad, aad_len, in, len, out, tag, tag_len | decrypt << 8)
        mov     rdx, rcx
        mov     rcx, r8
        mov     r8, r9
        mov     r9, [rsp + 8]
        mov     rax, [rsp + 32]
%if %1
        or      eax, 0x100
%endif
        push    rax                                     ; (rsp 16-byte aligned after the
        push    qword [rsp + 32]                        ; three pushes: the call's frame)
        push    qword [rsp + 32]
        call    r11
        add     rsp, 24
%if %1
        test    eax, eax                                ; the tag result, public by design
        jnz     %%failed
%endif
        ret
%if %1
%%failed:
        mov     rdi, [rsp + 16]                         ; never release unauthenticated
        mov     rsi, [rsp + 8]                          ; plaintext: zero out[0 .. len)
        sub     rsp, 8
        call    mbgcmi_wipe
        add     rsp, 8
        mov     eax, ERR_AUTH
        ret
%endif
%endmacro

global mbgcmi_x86_encrypt:function hidden
mbgcmi_x86_encrypt:
        ONESHOT 0, mbgcmi_encrypt_c

global mbgcmi_x86_decrypt:function hidden
mbgcmi_x86_decrypt:
        ONESHOT 1, mbgcmi_decrypt_c

section .note.GNU-stack noalloc noexec nowrite progbits
