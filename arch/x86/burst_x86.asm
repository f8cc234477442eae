; SPDX-License-Identifier: BSD-3-Clause
; burst_x86.asm — a burst's common jobs on x86-64: mbgcm_submit_burst (jobs/mgr.c) hands a run
; of its jobs here, and each one that whole12 takes now runs without the C path around it.
;
; mbgcm_job *mbgcmi_x86_burst12(mbgcm_job *job, mbgcm_job *end, struct mbgcmi_x86_burst12 *p)
;   Runs job, job + 1, ... (up to end) through p->w12 (the arch's whole12) while each one is
;   valid (check12.inc's checks; direction MBGCM_ENCRYPT or MBGCM_DECRYPT, a 12-byte IV, no
;   scatter-gather list, reserved_ NULL) and has p->from <= len < p->below[dir - 1]: the
;   lengths for which the burst's routing sends a valid job straight to whole12 (the caller
;   works them out once per burst, within 1 .. the longest message, 2^36 - 32 bytes). Each such
;   job gets MBGCM_OK and its message bytes are added to p->bytes. A valid job with
;   p->from, p->below[dir - 1] <= len < p->dbelow[dir - 1] (the lengths the burst gathers for
;   the arch's pipelined call, mbgcmi_jobs12_takes) is appended to p->defer (p->ndefer jobs,
;   while fewer than MBGCMI_JOBS12_MAX - 1: the job that fills the list is the C path's, which
;   runs it), its bytes counted, its status left to the call that runs it, so that a burst of
;   mixed lengths (IMIX) stays in this loop past such jobs (docs/perf.md). Returns the first
;   job not completed: a job it does not take (untouched: the C path runs and, if need be,
;   rejects it with its own status) or end, p->failed = 0; or a job that ran and failed its
;   tag, p->failed = 1 (its bytes counted, its status and output left to the caller, which
;   completes it as the C path does: output zeroed, counted).
;
; Why in asm: the C loop over such jobs (fill_single12: the routing tests, the checks, the
; call's nine arguments and the values kept across it) executed about 100 instructions per job
; around whole12: a loop of bare calls took 0.77-0.80 of a 64-byte burst job's time on the
; Intel Xeon guest. Here the job's fields go straight into whole12's argument registers, the
; checks run on them (the one-shot entry's: check12.inc), the window is two compares and the
; loop's state stays in callee-saved registers: about 60 instructions, 9-13% off bursts of
; 16-64-byte jobs there (docs/perf.md).
;
; Register plan: rbx the job, r12 end, rbp p, r13 whole12, r14 the bytes run, r15 failed
; (0/1); whole12's arguments rdi key, rsi iv, rdx aad, rcx aad_len, r8 src, r9 len and on the
; stack dst, tag, tag_len | decrypt << 8; r11d decrypt (0/1); rax, r10 scratch. Every branch
; is on a length, a pointer, the direction, the key's rounds and magic or whole12's public
; tag result. No vector register, no secret.
default rel
%include "key.inc"
%include "job.inc"
%include "check12.inc"

; struct mbgcmi_x86_burst12 (arch/x86/x86.h, which asserts these offsets)
%define B_FROM          0
%define B_BELOW_ENC     8
%define B_BELOW_DEC     16
%define B_W12           24
%define B_BYTES         32
%define B_FAILED        40
%define B_DBELOW_ENC    48
%define B_DBELOW_DEC    56
%define B_DEFER         64
%define B_NDEFER        72
%define DEFER_MAX       64                              ; MBGCMI_JOBS12_MAX (x86.h asserts it)

%define DIR_ENCRYPT     1
%define DIR_DECRYPT     2
%define ST_OK           0

; JOB_CHECKS: the job's own checks (a 12-byte IV, linear, no extension), then its fields into
; whole12's argument registers and the one-shot entry's checks on them; any failure leaves
; through .done (the C path takes the job)
%macro JOB_CHECKS 0
        cmp     qword [rbx + J_IVLEN], 12
        jne     .done
        mov     rax, [rbx + J_SRCSGL]
        or      rax, [rbx + J_DSTSGL]
        or      rax, [rbx + J_RESERVED]
        jnz     .done
        mov     rdi, [rbx + J_KEY]
        mov     rsi, [rbx + J_IV]
        mov     rdx, [rbx + J_AAD]
        mov     rcx, [rbx + J_AADLEN]
        mov     r8, [rbx + J_SRC]
        CHECK12 .done, rdi, dil, rsi, rdx, rcx, r8, r9, qword [rbx + J_DST], \
                qword [rbx + J_TAG], qword [rbx + J_TAGLEN], 1
%endmacro

section .text

global mbgcmi_x86_burst12:function hidden
mbgcmi_x86_burst12:
        push    rbx
        push    rbp
        push    r12
        push    r13
        push    r14
        push    r15                                     ; (rsp 8 mod 16 from here)
        mov     rbx, rdi
        mov     r12, rsi
        mov     rbp, rdx
        mov     r13, [rbp + B_W12]
        xor     r14d, r14d
        xor     r15d, r15d
.next:
        cmp     rbx, r12
        jae     .done
        ; the routing: a valid direction and a length whole12 takes now
        mov     r9, [rbx + J_LEN]
        mov     r11d, [rbx + J_DIR]
        sub     r11d, DIR_ENCRYPT                       ; 0 encrypt, 1 decrypt
        cmp     r11d, DIR_DECRYPT - DIR_ENCRYPT
        ja      .done
        mov     r10, [rbp + B_BELOW_ENC]
        cmove   r10, [rbp + B_BELOW_DEC]
        cmp     r9, r10
        jae     .later
        cmp     r9, [rbp + B_FROM]
        jb      .done
        JOB_CHECKS
        ; whole12(k, iv, aad, aad_len, in, len, out, tag, tag_len | decrypt << 8)
        shl     r11d, 8
        or      r11, [rbx + J_TAGLEN]
        push    r11                                     ; (rsp 16-byte aligned at the call)
        push    qword [rbx + J_TAG]
        push    qword [rbx + J_DST]
        call    r13
        add     rsp, 24
        add     r14, [rbx + J_LEN]
        test    eax, eax                                ; the tag result, public by design
        jnz     .failed
        mov     dword [rbx + J_STATUS], ST_OK
        add     rbx, J_SIZE
        jmp     .next
.later:
        ; a length the pipelined call takes (below <= len < dbelow): checked as above, then
        ; added to its list (the caller's m->defer), while the list has room for two more (the
        ; C path takes the one that fills it, and runs the call)
        cmp     r11d, DIR_DECRYPT - DIR_ENCRYPT
        mov     r10, [rbp + B_DBELOW_ENC]
        cmove   r10, [rbp + B_DBELOW_DEC]
        cmp     r9, r10
        jae     .done
        cmp     r9, [rbp + B_FROM]                      ; single-stream by its length too
        jb      .done
        cmp     qword [rbp + B_NDEFER], DEFER_MAX - 1
        jae     .done
        JOB_CHECKS                                      ; (a copy: none of it on the run path)
        mov     rax, [rbp + B_NDEFER]
        lea     r10, [rax + 1]
        mov     [rbp + B_NDEFER], r10
        shl     rax, 3
        add     rax, [rbp + B_DEFER]                    ; &defer[ndefer] (no index register)
        mov     [rax], rbx
        add     r14, r9
        add     rbx, J_SIZE
        jmp     .next
.failed:
        mov     r15d, 1
.done:
        mov     [rbp + B_BYTES], r14
        mov     [rbp + B_FAILED], r15
        mov     rax, rbx
        pop     r15
        pop     r14
        pop     r13
        pop     r12
        pop     rbp
        pop     rbx
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
