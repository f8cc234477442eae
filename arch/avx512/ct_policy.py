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
            'rdi': 'k', 'rsi': 'ctr / j0; gcm: tail length', 'rdx': 's; gcm: length scratch',
            'rcx': 'in', 'r8': 'out', 'r9': 'blocks left', 'rax': 'rounds, length scratch',
            'r10': 'scratch (lengths; F tail blocks)', 'r11': 'gcm: AAD length; jobs: '
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
                     'block count, tag byte mask)'),
                    ('r11', 0, 8, 'jobs: jobs[i] (addressed through an LEA)'),
                    ('rsi', 15, 1, 'ctr kernels: the last byte of the counter block (from '
                     'the IV, public): CTR_WB\'s no-wrap test'),
                    ('r12', 0, 88, 'jobs: the current job\'s fields (pointers, lengths, '
                     'dir; gcm: r12 is the J0 pointer, an IV-derived public block)')],
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
            'r10': 'aad pointer; F', 'r11': 'AAD length', 'r12': 'the first counter block '
            '(J0 or the ctr op\'s counter)', 'r13': 'tag (ctr ops: s)',
            'rbx': 'message length (ctr ops: 16 * blocks)',
            'r14': 'whole group pending (0/1); gcm12: tag_len | decrypt << 8',
            'r15': 'scratch (gcm12 arguments; the final GHASH\'s power rows)',
            'rbp': 'frame pointer', 'rsp': 'stack pointer'},
        public_mem=[KEY_ROUNDS, ARGS_RBP,
                    ('rsp', 16, 8, 'GF_DEC (direction)'),
                    ('rsp', 24, 8, 'GF_MODE (0: full tag out; 1: gcm12; 2: the ctr ops)'),
                    ('r12', 0, 16, 'the first counter block: J0 (IV-derived) or the ctr '
                     'op\'s counter, public: its last byte starts the wrap test, its last '
                     'dword gives the next counter')],
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
    'gcm_x4short_avx512': dict(
        plan='arch/avx512/gcm_x4short_avx512.asm "Register plan"',
        flag_regs={
            'rsi': 'b (the batch)', 'rdi': 'b->active (lane mask; the plan omits it)',
            'rax': 'lane count / masks', 'rsp': 'stack pointer', 'rbp': 'frame pointer',
            'r12': 'lane 0 key pointer (compared with the others: one key for all lanes?)',
            'r13': 'lane 1 key pointer', 'r14': 'lane 2 key pointer',
            'r15': 'lane 3 key pointer'},
        public_mem=[
            ('rsi', 0, 64, 'b->job[4], tagmask, active, decrypt, nblk, rmax, k10q, k12q'),
            ('rsi', 64, 64, 'b->lenblk (lengths)'),
            ('r8', 0, 88, 'lane 0 job fields (pointers, lengths, dir)'),
            ('r9', 0, 88, 'lane 1 job fields'), ('r10', 0, 88, 'lane 2 job fields'),
            ('r11', 0, 88, 'lane 3 job fields'),
            ('r12', 240, 4, 'lane 0 key->rounds'), ('r13', 240, 4, 'lane 1 key->rounds'),
            ('r14', 240, 4, 'lane 2 key->rounds'), ('r15', 240, 4, 'lane 3 key->rounds')],
        declassify=[]),
}
