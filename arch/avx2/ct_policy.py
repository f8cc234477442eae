# SPDX-License-Identifier: BSD-3-Clause
# arch/avx2/ct_policy.py — constant-time policy of this folder's NASM kernels for
# scripts/ct-check.sh, which reads it as plain data: POLICY maps each kernel (its .asm file name
# without the extension) to the registers that may feed a branch, CMOVcc or SETcc (flag_regs,
# from the kernel's "Register plan" comment), the memory that holds only public values
# (public_mem: base register, offset, length, what) and what is declassified on purpose. The
# shared struct layouts (G, LANE_SCALARS, AUTHFAIL_DECL, KEY_ROUNDS, ARGS_RBP) come from the
# script. Keep it next to the kernel: a change of register plan or stack frame changes both.
POLICY = {
    'gcm_by16_avx2': dict(
        plan='arch/avx2/gcm_by16_avx2.asm "Register plan"',
        flag_regs={
            'rdi': 'k', 'rsi': 'ctr (ctr_*), j0 (gcm)', 'rdx': 's', 'rcx': 'in', 'r8': 'out',
            'r9': 'blocks left', 'rax': 'rounds', 'r10': 'gcm: AAD pointer',
            'r11': 'gcm: AAD length', 'r12': 'gcm: partial-block length, copy scratch',
            'r13': 'gcm: copy scratch', 'r14': 'gcm: copy scratch', 'r15': 'gcm: copy scratch',
            'rbx': 'gcm: message length', 'rbp': 'frame pointer', 'rsp': 'stack pointer'},
        public_mem=[KEY_ROUNDS, ARGS_RBP], declassify=[]),
}
