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
    'oneshot_x86': dict(
        plan='arch/x86/oneshot_x86.asm "Register plan": the public calls\' arguments, rax/r10 '
             'scratch, r11 whole12; no vector register',
        flag_regs={
            'rdi': 'key pointer', 'rsi': 'iv pointer', 'rdx': 'iv_len', 'rcx': 'aad pointer',
            'r8': 'aad_len', 'r9': 'in pointer', 'r11': 'the whole12 pointer',
            'rax': 'key rounds, len, 2 len - 1, then whole12\'s tag result (public by design)',
            'r10': 'the rounds and tag-length bit sets, tag_len, out, in - out (+ len - 1)',
            'rsp': 'stack pointer (the stack arguments\' slots)'},
        public_mem=[KEY_ROUNDS, ('rdi', 248, 4, 'key->magic (struct mbgcmi_key)'),
                    ('rsp', 8, 32, 'stack arguments 7..10: len, out, tag, tag_len')],
        declassify=[],
        calls={f: 'whole12 (returns the tag result: public by design, as MBGCMI_DECLASSIFY '
                  'marks it in C) and, after a failed tag, mbgcmi_wipe (returns nothing)'
               for f in ('mbgcmi_x86_encrypt', 'mbgcmi_x86_decrypt')}),
}
