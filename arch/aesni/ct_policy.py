# SPDX-License-Identifier: BSD-3-Clause
# arch/aesni/ct_policy.py — constant-time policy of this folder's NASM kernels for
# scripts/ct-check.sh, which reads it as plain data: POLICY maps each kernel (its .asm file name
# without the extension) to the registers that may feed a branch, CMOVcc or SETcc (flag_regs,
# from the kernel's "Register plan" comment), the memory that holds only public values
# (public_mem: base register, offset, length, what) and what is declassified on purpose. The
# shared struct layouts (G, LANE_SCALARS, AUTHFAIL_DECL, KEY_ROUNDS, ARGS_RBP) come from the
# script. Keep it next to the kernel: a change of register plan or stack frame changes both.
POLICY = {
    'aes_keyexp_aesni': dict(
        plan='arch/x86/include/aes_one.inc: expansion rdi raw key, rsi rk, eax current word t '
             '(key), xmm0-3 scratch; block rdi k, rsi in, rdx out, xmm0/xmm1',
        flag_regs={'rdi': 'k (the key pointer; block: the round count at k)'},
        public_mem=[KEY_ROUNDS], declassify=[]),
    'gcm_aesni': dict(
        plan='arch/aesni/gcm_aesni.asm "Register plan (ctr kernels and gcm)"',
        flag_regs={
            'rdi': 'k (key pointer)', 'rsi': 'ctr (ctr_*), j0 (gcm)', 'rdx': 's',
            'rcx': 'in', 'r8': 'out', 'r9': 'blocks left', 'r10': 'c, the counter value '
            '(from the IV: public)', 'rbx': 'gcm: message length', 'r12': 'gcm: AAD pointer',
            'r13': 'gcm: AAD length', 'r14': 'gcm: partial length', 'r15': 'gcm: copy scratch',
            'rbp': 'frame pointer', 'rsp': 'stack pointer'},
        not_public={'rax': 'counter word ^ rk0 word 3 (key-derived)',
                    'r11': 'rk0 word 3 (key) in the ctr kernels'},
        public_mem=[KEY_ROUNDS, ARGS_RBP], declassify=[]),
}
