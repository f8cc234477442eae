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
%include "check12.inc"

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
        CHECK12 %2, rdi, dil, rsi, rcx, r8, r9, qword [rsp + 8], qword [rsp + 16], \
                qword [rsp + 24], qword [rsp + 32]
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
