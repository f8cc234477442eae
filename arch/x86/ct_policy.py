# SPDX-License-Identifier: BSD-3-Clause
# arch/x86/ct_policy.py — constant-time policy of this folder's NASM kernels for
# scripts/ct-check.sh, which reads it as plain data: POLICY maps each kernel (its .asm file name
# without the extension) to the registers that may feed a branch, CMOVcc or SETcc (flag_regs,
# from the kernel's "Register plan" comment), the memory that holds only public values
# (public_mem: base register, offset, length, what) and what is declassified on purpose. The
# shared struct layouts (G, LANE_SCALARS, AUTHFAIL_DECL, KEY_ROUNDS, ARGS_RBP) come from the
# script. Keep it next to the kernel: a change of register plan or stack frame changes both.
POLICY = {
    'cpu_x86': dict(
        plan='CPUID/XGETBV wrappers: edi leaf, esi subleaf, rdx out (no secrets)',
        flag_regs={}, public_mem=[], declassify=[]),
}
