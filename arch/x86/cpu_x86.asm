; SPDX-License-Identifier: BSD-3-Clause
; cpu_x86.asm — CPUID and XGETBV for core/cpu.c (the only code that probes the CPU).
;
; void     mbgcmi_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]);  out = eax,ebx,ecx,edx
; uint64_t mbgcmi_xgetbv(uint32_t index);   only when CPUID.1:ECX.OSXSAVE = 1
; System V AMD64 ABI. rbx is callee-saved, CPUID clobbers it: saved and restored.
default rel
section .text

global mbgcmi_cpuid:function hidden
mbgcmi_cpuid:
        push    rbx
        mov     r8, rdx                 ; out
        mov     eax, edi                ; leaf
        mov     ecx, esi                ; subleaf
        cpuid
        mov     [r8], eax
        mov     [r8 + 4], ebx
        mov     [r8 + 8], ecx
        mov     [r8 + 12], edx
        pop     rbx
        ret

global mbgcmi_xgetbv:function hidden
mbgcmi_xgetbv:
        mov     ecx, edi
        xgetbv                          ; edx:eax = XCR[ecx]
        shl     rdx, 32
        or      rax, rdx                ; the 32-bit write to eax cleared rax[63:32]
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
