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
    'burst_x86': dict(
        plan='arch/x86/burst_x86.asm "Register plan": the job\'s fields in whole12\'s argument '
             'registers, rbx the job, r12 end, rbp the window, r13 whole12; no vector register',
        flag_regs={
            'rbx': 'the job pointer', 'r12': 'end of the jobs',
            'rbp': 'the window (struct mbgcmi_x86_burst12) pointer', 'rdi': 'key pointer',
            'rsi': 'iv pointer', 'rdx': 'aad pointer', 'rcx': 'aad_len', 'r8': 'in pointer',
            'r9': 'len', 'r11': 'the direction (0 encrypt, 1 decrypt)',
            'rax': 'key rounds, len, 2 len - 1, the list pointers ORed, then whole12\'s tag '
                   'result (public by design)',
            'r10': 'the window\'s limit, the rounds and tag-length bit sets, tag_len, out, '
                   'in - out (+ len - 1)'},
        public_mem=[KEY_ROUNDS, ('rdi', 248, 4, 'key->magic (struct mbgcmi_key)'),
                    ('rbx', 0, 136, 'the job\'s fields (struct mbgcm_job: pointers, lengths, '
                     'direction, status)'),
                    ('rbp', 0, 80, 'struct mbgcmi_x86_burst12: the window, whole12, the '
                     'results, the gathering\'s limits, list and count')],
        declassify=[],
        calls={'mbgcmi_x86_burst12': 'whole12 (returns the tag result: public by design, as '
                                     'MBGCMI_DECLASSIFY marks it in C)'}),
}
