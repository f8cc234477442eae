; SPDX-License-Identifier: BSD-3-Clause
; aes_keyexp_aesni.asm — the aesni arch's AES key expansion and one-block encryption in the
; legacy SSE encoding (AES-NI, SSE4.1; no AVX on this arch): mbgcmi_aesni_expand128/192/256 and
; mbgcmi_aesni_block. The code, its math and its register use are in aes_one.inc, shared with
; the VEX twins of the avx2 and avx512 arches (arch/avx2/aes_vex_avx2.asm).
default rel
%include "aes_one.inc"

section .note.GNU-stack noalloc noexec nowrite progbits
