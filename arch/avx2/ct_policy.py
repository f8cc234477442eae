# SPDX-License-Identifier: BSD-3-Clause
# arch/avx2/ct_policy.py — constant-time policy of this folder's NASM kernels for
# scripts/ct-check.sh, which reads it as plain data: POLICY maps each kernel (its .asm file name
# without the extension) to the registers that may feed a branch, CMOVcc or SETcc (flag_regs,
# from the kernel's "Register plan" comment), the memory that holds only public values
# (public_mem: base register, offset, length, what) and what is declassified on purpose. The
# shared struct layouts (G, LANE_SCALARS, AUTHFAIL_DECL, KEY_ROUNDS, ARGS_RBP) come from the
# script. Keep it next to the kernel: a change of register plan or stack frame changes both.
POLICY = {
    'aes_vex_avx2': dict(
        plan='arch/x86/include/aes_one.inc (VEX): expansion rdi raw key, rsi rk, eax current '
             'word t (key), xmm0-3 scratch; block rdi k, rsi in, rdx out, xmm0/xmm1',
        flag_regs={'rdi': 'k (the key pointer; block: the round count at k)'},
        public_mem=[KEY_ROUNDS], declassify=[]),
    'gcm_by16_avx2': dict(
        plan='arch/avx2/gcm_by16_avx2.asm "Register plan", the gcm/gcm12 comments and the '
             'short path\'s "Register plan (short path)"',
        flag_regs={
            'rdi': 'k', 'rsi': 'ctr (ctr_*), j0 / iv (gcm, gcm12); tail copy pointer',
            'rdx': 's; gcm: pair counts, copy pointers, the tag-result bits (declassified '
            'below)',
            'rcx': 'in; gcm12 entry: aad_len; short path: tag_len | decrypt << 8, copy '
                   'counts',
            'r8': 'out', 'r9': 'blocks left; the tail\'s full pairs; short path: len',
            'rax': 'rounds; gcm12: tag_len | decrypt << 8 while unpacked',
            'r10': 'gcm: AAD pointer, copy scratch; gcm12: tag_len, the counted-byte mask',
            'r11': 'gcm: AAD length; short path: AAD length',
            'r12': 'gcm: partial-block length, copy scratch',
            'r13': 'gcm: tail blocks, copy scratch; short path: the pass\'s ymm count, the '
                   'counter-row pointer, the end pair\'s bytes, tag_len',
            'r14': 'gcm: copy scratch',
            'r15': 'gcm: copy scratch; short path: tag_len, the last pass\'s ymm count',
            'rbx': 'gcm: message length',
            'rbp': 'frame pointer', 'rsp': 'stack pointer'},
        public_mem=[KEY_ROUNDS, ARGS_RBP,
                    ('rsp', 80, 8, 'gcm: F_PEND (a whole group\'s GHASH pending); short path: '
                     'F_SLEN (the message length)'),
                    ('rsp', 224, 16, 'gcm: F_DEC (direction), F_MODE (0: full tag out; 1: '
                     'gcm12)'),
                    ('rsp', 272, 8, 'gcm12: F_TLEN (tag length)'),
                    ('rsi', 15, 1, 'ctr kernels: the last byte of the counter block; gcm: '
                     'J0\'s (both from the IV, public): CTR_F_CHECK')],
        declassify=[],
        declassify_setcc=[('mbgcmi_avx2_gcm', {'rdx', 'r10'},
                           'gcm12 decrypt (both paths; the short path follows mbgcmi_avx2_gcm '
                           'in the file): TEST of the differing counted tag bytes (VPCMPEQB, '
                           'VPMOVMSKB), SETNZ into the return value: the tag result, public by '
                           'design, computed over all 16 bytes without a branch')]),
    'hpowers_avx2': dict(
        plan='arch/avx2/hpowers_avx2.asm "Register plan": rdi k only, no branch, no stack',
        flag_regs={}, public_mem=[], declassify=[]),
}
