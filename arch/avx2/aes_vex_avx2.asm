; SPDX-License-Identifier: BSD-3-Clause
; aes_vex_avx2.asm — AES key expansion and one-block encryption VEX-encoded for the avx2 and
; avx512 arches (AES-NI + AVX): mbgcmi_avx_expand128/192/256 and mbgcmi_avx_block, the code of
; aes_one.inc with AES_ONE_VEX defined. A legacy SSE encoding called while the upper halves
; of the vector registers are dirty pays a state transition on Intel and Zen 5 cores;
; aes_one.inc says more.
default rel
%define AES_ONE_VEX
%include "aes_one.inc"

section .note.GNU-stack noalloc noexec nowrite progbits
