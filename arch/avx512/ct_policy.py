# SPDX-License-Identifier: BSD-3-Clause
# arch/avx512/ct_policy.py — constant-time policy of this folder's NASM kernels for
# scripts/ct-check.sh, which reads it as plain data: POLICY maps each kernel (its .asm file name
# without the extension) to the registers that may feed a branch, CMOVcc or SETcc (flag_regs,
# from the kernel's "Register plan" comment), the memory that holds only public values
# (public_mem: base register, offset, length, what) and what is declassified on purpose. The
# shared struct layouts (G, LANE_SCALARS, AUTHFAIL_DECL, KEY_ROUNDS, ARGS_RBP) come from the
# script. Keep it next to the kernel: a change of register plan or stack frame changes both.
POLICY = {
    'gcm_by16_avx512': dict(
        plan='arch/avx512/gcm_by16_avx512.asm "Register plan" and the gcm/gcm12 entry comments',
        flag_regs={
            'rdi': 'k', 'rsi': 'ctr / j0; gcm: 16 x the counter\'s last byte (CTR_WB), '
            'then the tail length', 'rdx': 's; gcm: length scratch',
            'rcx': 'in', 'r8': 'out', 'r9': 'blocks left', 'rax': 'rounds, length scratch',
            'r10': 'scratch (lengths; F tail blocks)',
            'r11': 'gcm: AAD length; ctr ops: 16 x the counter\'s last byte; jobs: '
            '&jobs[i], previous job index', 'r12': 'gcm: j0 pointer; jobs: current job',
            'r13': 'gcm: tag pointer; jobs: fail mask', 'rbx': 'gcm: message length',
            'r14': 'gcm: whole group pending (0/1); gcm12: tag_len | decrypt << 8',
            'r15': 'gcm: scratch (block counts, power pointer); jobs: previous job\'s power '
            'pointer',
            'rbp': 'frame pointer', 'rsp': 'stack pointer'},
        public_mem=[KEY_ROUNDS, ARGS_RBP,
                    ('rsp', 16, 8, 'gcm: GF_DEC (direction); jobs: JF_I (job index)'),
                    ('rsp', 24, 8, 'gcm: GF_MODE (0: full tag out; 1: gcm12 handles the tag); '
                     'jobs: JF_PTAG (previous job\'s tag pointer)'),
                    ('rsp', 32, 32, 'jobs: JF_JOBS, JF_N (the job array and its length), '
                     'JF_PMODE, JF_PIDX, JF_PF, JF_PTMASK (previous job: enc/dec, index, final '
                     'block count, tag byte mask); gcm_list: GF_LIST (the next list entry, a '
                     'pointer), GF_PAR (a group parity)'),
                    ('r10', 0, 16, 'gcm_list: a list entry (CH_IN, CH_OUT: buffer pointers), '
                     'loaded into r10 first (elsewhere r10 points at the AAD, public too)'),
                    ('r11', 0, 8, 'jobs: jobs[i] (addressed through an LEA)'),
                    ('rsi', 15, 1, 'ctr kernels: the last byte of the counter block (from '
                     'the IV, public): CTR_WB\'s no-wrap test'),
                    ('r12', 0, 88, 'jobs: the current job\'s fields (pointers, lengths, '
                     'dir; gcm: r12 is the J0 pointer, an IV-derived public block)'),
                    ('rsi', 96, 4, 'stream_finish: the stream\'s used bytes of its partial '
                     'block (ST_USED: the message length mod 16, public)')],
        declassify=[],
        declassify_setcc=[('mbgcmi_avx512_gcm', {'k3'},
                           'gcm12 decrypt: KORTESTW of the differing counted tag bytes, SETNZ '
                           'into the return value: the tag result, public by design, computed '
                           'over all 16 bytes without a branch'),
                          ('mbgcmi_avx512_gcm12_jobs', {'k3'},
                           'jobs decrypt: the same tag result per job, SETNZ into its bit of '
                           'the returned fail mask')]),
    'gcm_by32_avx512': dict(
        plan='arch/avx512/gcm_by32_avx512.asm "Register plan"',
        flag_regs={
            'rdi': 'k', 'rsi': 'iv (gcm12); the counter byte tracker, then the tail bytes',
            'rdx': 'scratch (lengths, N)', 'rcx': 'in; length-block lane shift',
            'r8': 'out', 'r9': 'full blocks left', 'rax': 'rounds, length scratch',
            'r10': 'aad pointer; F', 'r11': 'AAD length; jobs12: &jobs[i]', 'r12': 'the first '
            'counter block (J0 or the ctr op\'s counter); jobs12: the current job',
            'r13': 'tag (ctr ops: s)',
            'rbx': 'message length (ctr ops: 16 * blocks)',
            'r14': 'whole group pending (0/1, 3: FIRST_ENC6\'s 24 blocks); gcm12: tag_len '
            '| decrypt << 8',
            'r15': 'scratch (gcm12 arguments; the final GHASH\'s power rows; jobs12: the '
            'pending job\'s)',
            'rbp': 'frame pointer', 'rsp': 'stack pointer'},
        public_mem=[KEY_ROUNDS, ARGS_RBP,
                    ('rsp', 16, 8, 'GF_DEC (direction)'),
                    ('rsp', 24, 8, 'GF_MODE (0: full tag out; 1: gcm12; 2: the ctr ops)'),
                    ('rsp', 1024, 8, 'GF_PRE (16 in the whole-message calls, whose length '
                     'block takes H^1 apart from the final GHASH\'s powers; 0 in the ctr ops)'),
                    ('rsp', 1032, 8, 'GF_SIX (a message-length limit set by the entry: '
                     'SIX_MAX in the whole-message entries, 0 in the ctr ops and gcm_list)'),
                    ('rsp', 1056, 8, 'GF_LIST: the chunk-list entries\' (ctr ops, gcm_list) '
                     'next list entry (a pointer)'),
                    ('r10', 0, 24, 'chunk-list ctr ops: list entries (CH_IN, CH_OUT of the '
                     'next group, CH_IN of the one after: buffer pointers) at the GF_LIST '
                     'pointer, loaded into r10 first (elsewhere r10 points at the AAD or the '
                     'IV, public too)'),
                    ('rcx', 0, 16, 'the chunk-list entries (ctr ops, gcm_list): the list\'s first '
                     'entry (buffer pointers)'),
                    ('rsp', 1088, 48, 'jobs12: JB_JOBS, JB_N, JB_I (the job array, its '
                     'length, the index), JB_PTAG, JB_PBASE, JB_PF, JB_PMASK (the pending '
                     'job\'s tag pointer, power rows, final block count, tag byte mask)'),
                    ('r11', 0, 8, 'jobs12: jobs[i] (addressed through an LEA)'),
                    ('rax', 0, 8, 'jobs12 (JOB_KEY_PREFETCH, the only loads through rax in '
                     'this file): an entry of the job array, then that job\'s key pointer '
                     '(J_KEY 0)'),

                    ('r12', 0, 88, 'the first counter block: J0 (IV-derived) or the ctr '
                     'op\'s counter, public: its last byte starts the wrap test, its last '
                     'dword gives the next counter; jobs12: the current job\'s fields '
                     '(pointers, lengths, dir)')],
        declassify=[],
        declassify_setcc=[('mbgcmi_avx512_by32_gcm', {'k3'},
                           'gcm12 decrypt: KORTESTW of the differing counted tag bytes, SETNZ '
                           'into the return value: the tag result, public by design, computed '
                           'over all 16 bytes without a branch')]),
    'gcm_x4_avx512': dict(
        plan='arch/avx512/gcm_x4_avx512.asm "Register plan"',
        flag_regs={
            'rdi': 'g (lane group)', 'rbp': 'frame pointer', 'rsp': 'stack pointer',
            'rcx': 'blocks left in this step; phase scratch', 'rax': 'lane masks (kmovw)',
            'rdx': 'lane masks (kmovw)',
            'k2': 'AAD lanes / lanes whose phase ends (compare of u64 lengths)',
            'k3': 'text lanes / finishing lanes', 'k4': 'lanes with a partial block'},
        public_mem=LANE_SCALARS + [
            ('rsp', 1044, 4, 'F_ACT: busy lanes'), ('rsp', 1048, 4, 'F_TEXT: text lanes'),
            ('rsp', 1056, 8, 'F_NB: blocks of the bulk step')],
        declassify=AUTHFAIL_DECL),
    'gcm_small_avx512': dict(
        plan='arch/avx512/gcm_small_avx512.asm "Register plan": no stack slot, no frame',
        flag_regs={
            'rdi': 'k', 'rdx': 'aad, then the power pointer HPOW(t + 2) (from len)',
            'rcx': 'aad_len, then nz and the last zmm\'s bytes (from len)', 'r8': 'in; '
            'gmac12: the power row pointer (from aad_len)', 'r9': 'len; gmac12: rows left',
            'r10': 'out; by16_whole12: a length limit; gmac12c: chunks left (from aad_len)',
            'r11': 'tag; by16_whole12: a length limit; gmac12c: a row mask (from aad_len)',
            'rsi': 'iv, then tag_len | decrypt << 8',
            'rax': 'rounds, masks from lengths, scratch; by16_whole12: len + aad_len',
            'rsp': 'stack pointer'},
        public_mem=[KEY_ROUNDS, ('rsp', 8, 24, 'stack arguments 7..9 (out, tag, tag_len | '
                                 'decrypt << 8 | a key to prefetch << 16): no frame')],
        declassify=[],
        declassify_setcc=[(f, {'k3'},
                           'decrypt: KORTESTW of the differing counted tag bytes, SETNZ into the '
                           'return value: the tag result, public by design, computed over all '
                           '16 bytes without a branch')
                          for f in ('mbgcmi_avx512_small12', 'mbgcmi_avx512_small12p',
                                    'mbgcmi_avx512_small12k', 'mbgcmi_avx512_tiny12',
                                    'mbgcmi_avx512_tiny12g', 'mbgcmi_avx512_gmac12',
                                    'mbgcmi_avx512_gmac12p', 'mbgcmi_avx512_gmac12c')]),
    'hpowers_avx512': dict(
        plan='arch/avx512/hpowers_avx512.asm "Register plan": rdi k only, no branch, no stack',
        flag_regs={}, public_mem=[], declassify=[]),
    'gcm_short_avx512': dict(
        plan='arch/avx512/gcm_short_avx512.asm "Register plan" and its stack frame',
        flag_regs={
            'rax': 'job index, rounds, nblk, F_PREV (all from the frame or the arguments)',
            'rdx': 'jobs left (n - index)', 'r8': 'flags at entry (rounds, one-key bit)',
            'rsp': 'stack pointer',
            'rbx': 'JA: lane 0 job\'s len (0: a GMAC job, its rows from its AAD), public',
            'rsi': 'JB: lane 1 job\'s len, public', 'rdi': 'JC: lane 2 job\'s len, public',
            'rbp': 'JD: lane 3 job\'s len, public',
            'k5': 'decrypt lanes\' tag bytes (from the shapes: public)',
            'k6': 'encrypt lanes\' tag bytes (from the shapes: public)'},
        public_mem=[
            ('rsp', 0, 576, 'frame scalars: job and key pointers, lane masks and length rows '
             '(from the shapes), indices, counts, the dummy job\'s fields'),
            ('rbx', 0, 88, 'JA: lane 0 job fields (pointers, lengths, dir)'),
            ('rsi', 0, 88, 'JB: lane 1 job fields'), ('rdi', 0, 88, 'JC: lane 2 job fields'),
            ('rbp', 0, 88, 'JD: lane 3 job fields (JA and JB also read the job list and the '
             'shape words, 32 bytes)')],
        declassify=[('rsp', 256, 8, 'F_FAIL: each job\'s tag result, reduced to one bit per '
                     'lane without a branch: public by design (the job\'s status reports it)')]),
}
