#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/ct-check.sh — constant-time check of the NASM kernels from their disassembly.
#
# valgrind 3.19 cannot execute AVX-512, VAES or VPCLMULQDQ, so the ctgrind check
# (test/test_ct_ctgrind.c) covers only the generic and aesni paths. This script covers every
# kernel (every arch/*/*.asm) statically: it assembles each one (nasm -f elf64), disassembles
# it (objdump -d -M intel) and checks, instruction by instruction:
#
#   index   no memory operand has an index register ([base + index*scale + disp]): every
#           address is a base register plus a constant, so no table is indexed by anything
#           (LEA is arithmetic, not an access, and is not a memory operand).
#   flags   every conditional branch, CMOVcc and SETcc takes its flags from an instruction
#           whose register inputs are in the kernel's documented set of length / pointer /
#           loop-counter / lane-mask / round-count registers (the kernel's policy in
#           arch/<name>/ct_policy.py, derived from its "Register plan" comment), and whose
#           memory input, if any, is a documented
#           public field (key rounds, lane-state scalars, named stack slots).
#   taint   a forward data-flow analysis over every path of every function: key bytes, data
#           and everything else loaded from memory not documented public, and every vector
#           register at entry, are secret; secrecy flows through every instruction (registers,
#           flags, the named stack slots). It fails when a flags input, an address register or
#           a store into public memory is secret. This is what backs the register sets: a
#           documented register that ever carried a secret into a branch would be caught even
#           though its name is on the list (e.g. eax holds the lanes' tag results for a few
#           instructions in the short-job kernel, and must never reach a branch).
#   call    a kernel calls only where its policy documents it (calls: function -> why); the
#           caller-saved registers come back public (the callee's documented results: a tag
#           result, or nothing).
#
# Usage: scripts/ct-check.sh [--arch-dir DIR] [--verbose] [--self-test]
#   --self-test  also plants one violation of each kind into a copy of the kernels and
#                fails unless every plant is reported (CI runs this: the checker is tested too)
#   --plant NAME check a copy of the kernels with one planted violation (see PLANTS) and show
#                the report (exit 1 expected); --list-plants lists them.
# Exit 0: no violation; 1: violations (listed with address, instruction and source line); 2:
# tool error. Needs nasm, objdump (binutils) and python3.
#
# What it does not prove: that the documented public memory really holds public values
# (the C code that fills lane state and stack slots is covered by ctgrind on the generic and
# aesni paths); stores through pointer registers are assumed not to alias the named stack
# slots; timing of individual instructions (VAES, VPCLMULQDQ, masked loads/stores are
# data-independent on the CPUs this targets; see docs/security.md).
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - "$@" <<'PY'
import argparse, os, re, shutil, subprocess, sys, tempfile

# ---------------------------------------------------------------------------------------------
# Per-kernel policy (arch/<name>/ct_policy.py): explicit data, derived from each kernel's
# opening comment ("Register plan", frame layout). flag_regs: registers that may feed a
# branch/cmov/setcc (what they hold). public_mem: (base register, first offset, length, what):
# memory that holds only public values (loads from it are public; a secret stored into it is a
# violation unless listed in declassify). Stack slots are named the same way with base rsp or
# rbp. rip-relative constants are public. Anything else loaded from memory is secret.
# The layouts below are shared by several kernels; policy files refer to them by name.
# ---------------------------------------------------------------------------------------------
G = dict(AAD=2560, SRC=2592, DST=2624, TAG=2656, AADLEFT=2688, TEXTLEFT=2720, ROUNDS=2752,
         TAGLEN=2768, ACTIVE=2784, DECRYPT=2788, INIT=2792, AUTHFAIL=2796, TAGMASK=2800,
         RMAX=2808, K10Q=2812, K12Q=2814, SIZE=2816)
LANE_SCALARS = [  # struct mbgcmi_group scalars (core/group.h, arch/x86/include/lane_state.inc)
    ('rdi', G['AAD'], 4 * 8, 'g->aad[4]: lane AAD pointers'),
    ('rdi', G['SRC'], 4 * 8, 'g->src[4]: lane input pointers'),
    ('rdi', G['DST'], 4 * 8, 'g->dst[4]: lane output pointers'),
    ('rdi', G['TAG'], 4 * 8, 'g->tag[4]: lane tag pointers'),
    ('rdi', G['AADLEFT'], 4 * 8, 'g->aad_left[4]'),
    ('rdi', G['TEXTLEFT'], 4 * 8, 'g->text_left[4]'),
    ('rdi', G['ROUNDS'], 4 * 4, 'g->rounds[4]'),
    ('rdi', G['TAGLEN'], 4 * 4, 'g->tag_len[4]'),
    ('rdi', G['ACTIVE'], 4, 'g->active'),
    ('rdi', G['DECRYPT'], 4, 'g->decrypt'),
    ('rdi', G['INIT'], 4, 'g->init'),
    ('rdi', G['AUTHFAIL'], 4, 'g->auth_fail (the per-lane tag result: public by design)'),
    ('rdi', G['TAGMASK'], 8, 'g->tagmask'),
    ('rdi', G['RMAX'], 4, 'g->rmax'),
    ('rdi', G['K10Q'], 2, 'g->k10q'),
    ('rdi', G['K12Q'], 2, 'g->k12q'),
]
AUTHFAIL_DECL = [('rdi', G['AUTHFAIL'], 4,
                  'g->auth_fail: each lane\'s tag result, reduced to one bit per lane without '
                  'a branch; the scheduler declassifies it (MBGCMI_DECLASSIFY) and acts on it')]
KEY_ROUNDS = ('rdi', 240, 4, 'key->rounds (struct mbgcmi_key: 10/12/14, public)')
ARGS_RBP = ('rbp', 0x10, 0x18, 'stack arguments 7..9 (out, tag, decrypt)')

SHARED = dict(G=G, LANE_SCALARS=LANE_SCALARS, AUTHFAIL_DECL=AUTHFAIL_DECL,
              KEY_ROUNDS=KEY_ROUNDS, ARGS_RBP=ARGS_RBP)


def load_policies(arch_dir):
    """POLICY of every arch/<name>/ct_policy.py, merged: kernel name -> (folder, policy)."""
    out = {}
    for folder in sorted(os.listdir(arch_dir)):
        path = os.path.join(arch_dir, folder, 'ct_policy.py')
        if not os.path.isfile(path):
            continue
        ns = dict(SHARED)
        exec(compile(open(path).read(), path, 'exec'), ns)
        for name, pol in ns['POLICY'].items():
            if name in out:
                print('ct-check: kernel %s has a policy in two folders' % name, file=sys.stderr)
                sys.exit(2)
            out[name] = (folder, pol)
    return out


def kernel_sources(arch_dir):
    """(folder, kernel name) of every arch/*/*.asm."""
    res = []
    for folder in sorted(os.listdir(arch_dir)):
        d = os.path.join(arch_dir, folder)
        if os.path.isdir(d):
            res += [(folder, f[:-4]) for f in sorted(os.listdir(d)) if f.endswith('.asm')]
    return res

# ---------------------------------------------------------------------------------------------
# Planted violations for the self-test: (kernel, anchor regex in the .asm source, lines inserted
# after the first line matching it, rules that must fire).
# ---------------------------------------------------------------------------------------------
PLANTS = {
    'index': ('gcm_by16_avx2', r'^mbgcmi_avx2_ghash:',
              ['        vmovdqu xmm11, [rdi + rax]'], {'index'}),
    'undocumented-register': ('gcm_aesni', r'^mbgcmi_aesni_ghash:',
                              ['        test r11, r11', '        jz $+2'], {'flags'}),
    'vector-flags': ('gcm_by16_avx512', r'^mbgcmi_avx512_ghash:',
                     ['        vmovdqu xmm1, [rdx]', '        vptest xmm1, xmm1',
                      '        jz $+2'], {'flags', 'taint'}),
    'early-exit-tag-compare': ('gcm_short_avx512', r'kmovb\s+eax, k4',
                               ['        cmp eax, 0', '        jne $+2'], {'taint'}),
    'cmov-on-tag-mask': ('gcm_short_avx512', r'vptestmq\s+k4, SCR, SCR',
                         ['        kmovw edx, k4', '        test edx, edx',
                          '        cmovnz ecx, esi'], {'taint'}),
    'setcc-on-keystream': ('gcm_x4_avx512', r'^\.k1_no_text:',
                           ['        vmovq rdx, xmm0', '        test rdx, rdx',
                            '        setz dl'], {'taint'}),
    'secret-address': ('gcm_aesni', r'^mbgcmi_aesni_ghash:',
                       ['        movzx eax, byte [rsi]', '        add rax, rdi',
                        '        mov r9d, [rax]'], {'taint'}),
    'secret-into-public-slot': ('gcm_x4_avx512', r'^\.k1_no_text:',
                                ['        vmovd [rsp + 1048], xmm0'], {'taint'}),
    'undocumented-call': ('gcm_aesni', r'^mbgcmi_aesni_ghash:', ['        call rax'], {'call'}),
}

# ---------------------------------------------------------------------------------------------
# Registers
# ---------------------------------------------------------------------------------------------
GPR = ['rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi', 'rbp', 'rsp'] + ['r%d' % i for i in range(8, 16)]
GPR_IDX = {r: i for i, r in enumerate(GPR)}
REG = {}  # name -> (canonical, width)
for b in 'abcd':
    REG['r%sx' % b] = ('r%sx' % b, 64); REG['e%sx' % b] = ('r%sx' % b, 32)
    REG['%sx' % b] = ('r%sx' % b, 16); REG['%sl' % b] = ('r%sx' % b, 8)
    REG['%sh' % b] = ('r%sx' % b, 8)
for b in ['si', 'di', 'bp', 'sp']:
    REG['r' + b] = ('r' + b, 64); REG['e' + b] = ('r' + b, 32)
    REG[b] = ('r' + b, 16); REG[b + 'l'] = ('r' + b, 8)
for i in range(8, 16):
    REG['r%d' % i] = ('r%d' % i, 64); REG['r%dd' % i] = ('r%d' % i, 32)
    REG['r%dw' % i] = ('r%d' % i, 16); REG['r%db' % i] = ('r%d' % i, 8)
    REG['r%dl' % i] = ('r%d' % i, 8)
for i in range(32):
    REG['xmm%d' % i] = ('v%d' % i, 128); REG['ymm%d' % i] = ('v%d' % i, 256)
    REG['zmm%d' % i] = ('v%d' % i, 512)
for i in range(8):
    REG['k%d' % i] = ('k%d' % i, 64)
REG['rip'] = ('rip', 64)
SIZES = {'BYTE': 1, 'WORD': 2, 'DWORD': 4, 'QWORD': 8, 'XMMWORD': 16, 'YMMWORD': 32,
         'ZMMWORD': 64, 'TBYTE': 10, 'OWORD': 16}


class Op:
    __slots__ = ('kind', 'reg', 'width', 'base', 'index', 'disp', 'size', 'mask', 'zero',
                 'imm', 'text')

    def __init__(self, text):
        self.text = text
        self.mask = None
        self.zero = False
        self.reg = self.base = self.index = None
        self.disp = 0
        self.size = None
        self.imm = None
        t = text.strip()
        for m in re.findall(r'\{([^}]*)\}', t):
            if re.fullmatch(r'k[1-7]', m):
                self.mask = m
            elif m == 'z':
                self.zero = True
        t = re.sub(r'\{[^}]*\}', '', t).strip()
        mm = re.match(r'(?:(\w+) PTR )?(?:\w+:)?\[([^\]]*)\]$', t)
        if mm:
            self.kind = 'mem'
            self.size = SIZES.get(mm.group(1)) if mm.group(1) else None
            expr = mm.group(2).replace(' ', '')
            for term in re.findall(r'[+-]?[^+-]+', expr):
                sign = -1 if term.startswith('-') else 1
                term = term.lstrip('+-')
                if '*' in term:
                    r, _ = term.split('*')
                    self.index = REG[r][0]
                elif term in REG:
                    if self.base is None:
                        self.base = REG[term][0]
                    else:
                        self.index = REG[term][0]
                else:
                    self.disp += sign * int(term, 16 if term.startswith('0x') else 10)
            return
        if t in REG:
            self.kind = 'reg'
            self.reg, self.width = REG[t]
            return
        mm = re.match(r'([0-9a-f]+) <[^>]*>$', t)  # branch target: hex without 0x
        if mm:
            self.kind = 'imm'
            self.imm = int(mm.group(1), 16)
            return
        mm = re.match(r'(-?0x[0-9a-f]+|-?\d+)$', t)
        if mm:
            self.kind = 'imm'
            self.imm = int(mm.group(1), 0)
            return
        raise ValueError('cannot parse operand %r' % text)


def split_ops(s):
    out, depth, cur = [], 0, ''
    for ch in s:
        if ch in '[{':
            depth += 1
        elif ch in ']}':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


class Insn:
    __slots__ = ('addr', 'mn', 'opstr', 'ops', 'target', 'func')

    def __init__(self, addr, mn, opstr):
        self.addr, self.mn, self.opstr = addr, mn, opstr
        self.ops = None
        self.target = None
        self.func = None


def disassemble(obj):
    out = subprocess.run(['objdump', '-d', '-M', 'intel', '--no-show-raw-insn', '-w', obj],
                         capture_output=True, text=True, check=True).stdout
    insns, funcs, label = [], {}, None
    # function entries: the object's global symbols (NASM keeps local labels as symbols too)
    nm = subprocess.run(['nm', '--defined-only', '-g', obj], capture_output=True, text=True,
                        check=True).stdout
    globs = {int(l.split()[0], 16) for l in nm.splitlines() if len(l.split()) == 3 and
             l.split()[1] in 'Tt'}
    for line in out.splitlines():
        m = re.match(r'^([0-9a-f]+) <([^>]+)>:$', line)
        if m:
            label = m.group(2)
            if int(m.group(1), 16) in globs:
                funcs[int(m.group(1), 16)] = label
            continue
        m = re.match(r'^\s*([0-9a-f]+):\t(\S+)\s*(.*)$', line)
        if not m:
            continue
        opstr = re.sub(r'\s*#.*$', '', m.group(3)).strip()
        insns.append(Insn(int(m.group(1), 16), m.group(2), opstr))
    return insns, funcs


# ---------------------------------------------------------------------------------------------
# Instruction semantics
# ---------------------------------------------------------------------------------------------
FLAG_CMP = {'cmp', 'test', 'bt', 'ptest', 'vptest', 'comiss', 'ucomiss', 'vcomiss', 'vucomiss',
            'kortestb', 'kortestw', 'kortestd', 'kortestq', 'ktestb', 'ktestw', 'ktestd',
            'ktestq'}
FLAG_RW = {'add', 'sub', 'and', 'or', 'xor', 'shl', 'shr', 'sal', 'sar', 'rol', 'ror', 'inc',
           'dec', 'neg', 'bts', 'btr', 'btc', 'adc', 'sbb'}
FLAG_W = {'andn', 'bextr', 'blsi', 'blsmsk', 'blsr', 'bzhi', 'tzcnt', 'lzcnt', 'popcnt', 'bsf',
          'bsr', 'imul'}
READS_FLAGS_DATA = {'adc', 'sbb'}
NOFLAG_RW = {'not', 'bswap'}
NOFLAG_MOVE = {'mov', 'movabs', 'movzx', 'movsx', 'movsxd', 'lea', 'shlx', 'shrx', 'sarx',
               'rorx', 'pdep', 'pext', 'mulx', 'movd', 'movq', 'pextrd', 'pextrq', 'pextrb',
               'pextrw', 'pmovmskb', 'movmskps', 'movmskpd'}
# legacy SSE: the destination's upper bits (and, for 2-operand forms, its value) survive
LEGACY_VEC_W = {'movdqa', 'movdqu', 'movaps', 'movups', 'movd', 'movq', 'pshufd', 'pinsrq',
                'pinsrd', 'pinsrb', 'pinsrw', 'aeskeygenassist', 'pmovzxbq'}
ZERO_IDIOM = {'xor', 'sub', 'pxor', 'vpxor', 'vpxord', 'vpxorq', 'xorps', 'vxorps', 'kxorw',
              'kxorq', 'kxorb', 'kxord', 'pcmpeqd', 'vpcmpeqd', 'psubq', 'vpsubq'}
VEC_RW3 = {'vpternlogq', 'vpternlogd', 'vpermt2q', 'vpermt2d', 'vpermi2q', 'vfmadd231ps'}
CC = r'(o|no|b|nae|c|nb|ae|nc|e|z|ne|nz|be|na|nbe|a|s|ns|p|pe|np|po|l|nge|nl|ge|le|ng|nle|g)'


def is_jcc(mn):
    return re.fullmatch('j' + CC, mn) is not None


def is_cmov(mn):
    return re.fullmatch('cmov' + CC, mn) is not None


def is_setcc(mn):
    return re.fullmatch('set' + CC, mn) is not None


class Violation(Exception):
    pass


class Kernel:
    def __init__(self, name, policy):
        self.name = name
        self.p = policy
        self.flag_regs = set(policy['flag_regs'])

    def pub_range(self, base, disp, size, lst):
        # every byte of [disp, disp + size) inside some listed range (adjacent fields may be
        # read together, e.g. k10q and k12q as one dword)
        pos = disp
        while pos < disp + size:
            for (b, off, ln, _what) in lst:
                if b == base and off <= pos < off + ln:
                    pos = off + ln
                    break
            else:
                return False
        return True

    def mem_public(self, op, size):
        if op.base == 'rip' and op.index is None:
            return True
        if op.base is None or op.index is not None:
            return False
        return self.pub_range(op.base, op.disp, size, self.p['public_mem'])

    def mem_declassify(self, op, size):
        return op.base is not None and self.pub_range(op.base, op.disp, size,
                                                      self.p['declassify'])


def access_size(insn, op, other_width):
    if op.size:
        return op.size
    return (other_width or 64) // 8


# State: (gpr bits, vec bits, k bits, flags taint, flags srcs (frozenset), pushed (tuple))
def join(a, b):
    if a is None:
        return b
    if len(a[5]) != len(b[5]):
        raise RuntimeError('stack depth differs at a join')
    return (a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] or b[3], a[4] | b[4],
            tuple(x or y for x, y in zip(a[5], b[5])))


def analyse(kernel, insns, funcs, src_lines, verbose):
    by_addr = {ins.addr: i for i, ins in enumerate(insns)}
    for ins in insns:
        ops = [Op(o) for o in split_ops(ins.opstr)] if ins.opstr else []
        ins.ops = ops
        if (ins.mn == 'jmp' or is_jcc(ins.mn)) and ops:
            if ops[0].kind != 'imm':
                raise RuntimeError('%s: indirect jump at %x' % (kernel.name, ins.addr))
            ins.target = by_addr[ops[0].imm]
    viol = {}
    stats = dict(insns=0, consumers=0, memops=0)

    def report(i, rule, msg):
        key = (i, rule, msg)
        if key not in viol:
            viol[key] = True

    def taint_of_reg(st, r):
        if r is None or r == 'rip':
            return False
        if r in GPR_IDX:
            return bool(st[0] >> GPR_IDX[r] & 1)
        if r[0] == 'v':
            return bool(st[1] >> int(r[1:]) & 1)
        if r[0] == 'k':
            return bool(st[2] >> int(r[1:]) & 1)
        raise RuntimeError(r)

    def set_reg(st, r, t):
        g, v, k, ft, fs, pu = st
        if r in GPR_IDX:
            bit = 1 << GPR_IDX[r]
            g = (g | bit) if t else (g & ~bit)
        elif r[0] == 'v':
            bit = 1 << int(r[1:])
            v = (v | bit) if t else (v & ~bit)
        elif r[0] == 'k':
            bit = 1 << int(r[1:])
            k = (k | bit) if t else (k & ~bit)
        return (g, v, k, ft, fs, pu)

    def step(i, st, check):
        """Transfer function of insns[i]; with check, report violations."""
        ins = insns[i]
        mn, ops = ins.mn, ins.ops
        src_note = ''

        def addr_check(op):
            if op.kind != 'mem':
                return
            if check:
                stats['memops'] += 1
            if mn == 'lea':
                return
            if op.index is not None and check:
                report(i, 'index', 'memory operand with index register %s' % op.index)
            for r in (op.base, op.index):
                if r is not None and taint_of_reg(st, r) and check:
                    report(i, 'taint', 'address register %s may hold a secret' % r)

        for op in ops:
            addr_check(op)

        # width of the register operand (for memory sizes without PTR)
        rw = None
        for op in ops:
            if op.kind == 'reg':
                rw = op.width
                break

        def load_taint(op):
            if op.kind == 'reg':
                return taint_of_reg(st, op.reg)
            if op.kind == 'imm':
                return False
            size = access_size(ins, op, rw)
            if mn == 'lea':
                return taint_of_reg(st, op.base) or taint_of_reg(st, op.index)
            return (not kernel.mem_public(op, size)) or taint_of_reg(st, op.base) or \
                taint_of_reg(st, op.index)

        def src_desc(op):
            if op.kind == 'reg':
                return {op.reg}
            if op.kind == 'mem':
                size = access_size(ins, op, rw)
                d = {('mem', op.base, op.disp, size)}
                if op.base not in (None, 'rip'):
                    d.add(op.base)
                return d
            return set()

        def flags_from(srcs_ops, const=False):
            nonlocal st
            if const:
                g, v, k, _, _, pu = st
                st = (g, v, k, False, frozenset(), pu)
                return
            t = any(load_taint(o) for o in srcs_ops)
            d = set()
            for o in srcs_ops:
                d |= src_desc(o)
            if mn in ('shl', 'shr', 'sar', 'sal', 'rol', 'ror') and len(ops) == 2 and \
                    ops[1].kind == 'reg':
                pass
            g, v, k, _, _, pu = st
            st = (g, v, k, t, frozenset(d), pu)

        def consume_flags(kind):
            if not check:
                return
            stats['consumers'] += 1
            ft, fs = st[3], st[4]
            for d in fs:
                if isinstance(d, tuple):
                    _, base, disp, size = d
                    if base == 'rip':
                        continue
                    if not kernel.pub_range(base, disp, size, kernel.p['public_mem']):
                        report(i, 'flags', '%s takes flags from memory [%s%+#x] (%d bytes), '
                               'not documented public' % (kind, base, disp, size))
                elif d not in kernel.flag_regs:
                    report(i, 'flags', '%s takes flags from %s, not in the documented set' %
                           (kind, d))
            if ft:
                report(i, 'taint', '%s depends on a secret (flags from secret data)' % kind)

        def write(op, t, merge=False):
            nonlocal st
            if op.kind == 'reg':
                old = taint_of_reg(st, op.reg)
                partial = op.reg in GPR_IDX and op.width in (8, 16)
                st = set_reg(st, op.reg, t or ((merge or partial) and old))
            elif op.kind == 'mem':
                size = access_size(ins, op, rw)
                if check and t:
                    if op.base in ('rsp', 'rbp') or kernel.mem_public(op, size):
                        if kernel.mem_public(op, size) and not kernel.mem_declassify(op, size):
                            report(i, 'taint', 'secret stored into public memory [%s%+#x]' %
                                   (op.base, op.disp))

        def masked(op):
            return op.kind == 'reg' and op.mask is not None

        if check:
            stats['insns'] += 1

        # ---- control flow and flag consumers ------------------------------------------------
        if mn in ('jmp', 'ret', 'nop', 'endbr64', 'vzeroupper', 'lfence', 'sfence', 'mfence'):
            return st
        if is_jcc(mn):
            consume_flags('branch')
            return st
        if is_setcc(mn):
            # a documented declassification: SETcc (no branch) of a tag-comparison result
            for (fn, srcs, _why) in kernel.p.get('declassify_setcc', []):
                if ins.func == fn and st[4] and set(st[4]) <= set(srcs):
                    if check:
                        stats['consumers'] += 1
                    write(ops[0], False)
                    return st
            consume_flags('setcc')
            write(ops[0], st[3])
            return st
        if is_cmov(mn):
            consume_flags('cmov')
            write(ops[0], st[3] or load_taint(ops[1]) or taint_of_reg(st, ops[0].reg))
            return st
        if mn == 'vzeroall':
            g, v, k, ft, fs, pu = st
            return (g, v & ~0xFFFF, k, ft, fs, pu)
        if mn == 'push':
            g, v, k, ft, fs, pu = st
            return (g, v, k, ft, fs, pu + (load_taint(ops[0]),))
        if mn == 'add' and ops[0].kind == 'reg' and ops[0].reg == 'rsp' and \
                ops[1].kind == 'imm' and ops[1].imm % 8 == 0 and 0 < ops[1].imm // 8 <= len(st[5]):
            # the pushed arguments of a call dropped (add rsp, 8n after it): n entries off the
            # stack model (the flags it writes depend on rsp alone)
            g, v, k, ft, fs, pu = st
            return (g, v, k, False, frozenset(), pu[:-(ops[1].imm // 8)])
        if mn == 'pop':
            g, v, k, ft, fs, pu = st
            if not pu:
                raise RuntimeError('%s: pop with an empty stack model at %x' %
                                   (kernel.name, ins.addr))
            t = pu[-1]
            st = (g, v, k, ft, fs, pu[:-1])
            write(ops[0], t)
            return st
        if mn == 'call':
            # a call the kernel's policy documents (calls: function -> why): the callee follows
            # the System V ABI, so the caller-saved registers come back holding its results,
            # which the policy says are public (a tag result, nothing)
            if check and ins.func not in kernel.p.get('calls', {}):
                report(i, 'call', 'call not documented in the policy (calls)')
            for r in ('rax', 'rcx', 'rdx', 'rsi', 'rdi', 'r8', 'r9', 'r10', 'r11'):
                st = set_reg(st, r, False)
            return st
        if mn == 'cpuid':
            for r in ('rax', 'rbx', 'rcx', 'rdx'):
                st = set_reg(st, r, False)
            return st
        if mn == 'xgetbv':
            for r in ('rax', 'rdx'):
                st = set_reg(st, r, False)
            return st
        # ---- flag writers --------------------------------------------------------------------
        same_regs = len(ops) >= 2 and all(o.kind == 'reg' for o in ops[-2:]) and \
            ops[-1].reg == ops[-2].reg and (len(ops) == 2 or ops[-3].kind == 'reg')
        if mn in ZERO_IDIOM and same_regs and mn not in ('psubq', 'vpsubq') or \
                (mn in ('psubq', 'vpsubq') and same_regs):
            if mn in ('xor', 'sub'):
                flags_from([], const=True)
            write(ops[0], False)
            return st
        if mn in FLAG_CMP:
            flags_from(ops)
            return st
        if mn in FLAG_RW:
            srcs = list(ops)
            if mn in ('shl', 'shr', 'sar', 'sal', 'rol', 'ror') and len(ops) == 1:
                srcs = ops
            t = any(load_taint(o) for o in srcs)
            if mn in READS_FLAGS_DATA:
                t = t or st[3]
            flags_from(srcs)
            write(ops[0], t)
            return st
        if mn in FLAG_W:
            if mn == 'imul' and len(ops) == 1:
                t = load_taint(ops[0]) or taint_of_reg(st, 'rax')
                flags_from(ops)
                st = set_reg(st, 'rax', t)
                st = set_reg(st, 'rdx', t)
                return st
            srcs = ops[1:] if len(ops) > 1 else ops
            if mn == 'imul' and len(ops) == 2:
                srcs = ops
            t = any(load_taint(o) for o in srcs)
            flags_from(srcs)
            write(ops[0], t)
            return st
        if mn in ('mul', 'div', 'idiv'):
            t = load_taint(ops[0]) or taint_of_reg(st, 'rax') or taint_of_reg(st, 'rdx')
            flags_from(ops + [Op('rax')])
            st = set_reg(st, 'rax', t)
            st = set_reg(st, 'rdx', t)
            return st
        if mn in NOFLAG_RW:
            write(ops[0], load_taint(ops[0]))
            return st
        if mn == 'xchg':
            a, b = load_taint(ops[0]), load_taint(ops[1])
            write(ops[0], b)
            write(ops[1], a)
            return st
        # ---- data moves and vector/mask instructions (no flags) --------------------------------
        if not ops:
            raise RuntimeError('%s: unclassified instruction %s at %x' %
                               (kernel.name, mn, ins.addr))
        dst, srcs = ops[0], ops[1:]
        if mn in ('vpternlogq', 'vpternlogd') and srcs[-1].kind == 'imm' and \
                srcs[-1].imm in (0, 0xFF):
            srcs = []  # constant all-zeros / all-ones: no input matters
        if mn in ('cmp', 'test'):
            raise RuntimeError('unreachable')
        vec_dst = dst.kind == 'reg' and dst.reg[0] == 'v'
        t = any(load_taint(o) for o in srcs)
        if dst.mask is not None:
            t = t or taint_of_reg(st, dst.mask)
        legacy = not mn.startswith('v') and not mn.startswith('k')
        merge = False
        if vec_dst and legacy:
            merge = True  # upper bits kept; 2-operand forms read the destination
        if mn in VEC_RW3:
            merge = True
        # merge-masking keeps the masked-off elements; a k destination (compare) is zeroed
        # under its mask, and VPBLENDM writes every element (the mask selects the source)
        if dst.mask is not None and not dst.zero and dst.kind == 'reg' and \
                dst.reg[0] == 'v' and not mn.startswith('vpblendm'):
            merge = True
        if mn in NOFLAG_MOVE or not legacy or vec_dst or dst.kind == 'mem':
            write(dst, t, merge)
            return st
        raise RuntimeError('%s: unclassified instruction %s at %x' % (kernel.name, mn, ins.addr))

    entry = (0, (1 << 32) - 1, 0xFF, True, frozenset({'<caller>'}), ())
    states = [None] * len(insns)
    work = []
    for a in funcs:
        i = by_addr[a]
        insns[i].func = funcs[a]
        states[i] = join(states[i], entry)
        work.append(i)
    # function of each instruction, for messages
    cur = None
    for ins in insns:
        if ins.func:
            cur = ins.func
        ins.func = cur

    def succs(i):
        ins = insns[i]
        if ins.mn == 'ret':
            return []
        if ins.mn == 'jmp':
            return [ins.target]
        out = []
        if ins.target is not None:
            out.append(ins.target)
        if i + 1 < len(insns):
            out.append(i + 1)
        return out

    while work:
        i = work.pop()
        out = step(i, states[i], False)
        for s in succs(i):
            new = join(states[s], out)
            if new != states[s]:
                states[s] = new
                work.append(s)
    reached = 0
    explain = os.environ.get('CT_EXPLAIN')
    for i in range(len(insns)):
        if explain and states[i] is not None and insns[i].addr == int(explain, 16):
            g, v, k, ft, fs, pu = states[i]
            print('explain %s %#x %s %s: secret gpr %s vec %s k %s flags %s from %s' % (
                kernel.name, insns[i].addr, insns[i].mn, insns[i].opstr,
                [r for r in GPR if g >> GPR_IDX[r] & 1], [j for j in range(32) if v >> j & 1],
                [j for j in range(8) if k >> j & 1], ft, sorted(map(str, fs))))
        if states[i] is not None:
            reached += 1
            step(i, states[i], True)
    res = []
    for (i, rule, msg) in sorted(viol, key=lambda x: (x[0], x[1])):
        ins = insns[i]
        res.append((rule, '%s: %s+%#x (%#x): %s %s: %s' % (
            kernel.name, ins.func, ins.addr, ins.addr, ins.mn, ins.opstr, msg)))
    stats['unreached'] = len(insns) - reached
    return res, stats


def assemble(arch_dir, folder, name, out_dir):
    """nasm with the shared includes (arch/x86/include) and the kernel's own folder."""
    src = os.path.join(arch_dir, folder, name + '.asm')
    obj = os.path.join(out_dir, name + '.o')
    inc = os.path.join(arch_dir, 'x86', 'include') + '/'
    own = os.path.join(arch_dir, folder) + '/'
    subprocess.run(['nasm', '-f', 'elf64', '-I', inc, '-I', own, '-o', obj, src], check=True)
    return obj


def check_tree(arch_dir, verbose, quiet=False, only=None):
    kernels = kernel_sources(arch_dir)
    if only:
        kernels = [(f, n) for (f, n) in kernels if n == only]
    policies = load_policies(arch_dir)
    unknown = ['arch/%s/%s.asm' % (f, n) for (f, n) in kernels
               if n not in policies or policies[n][0] != f]
    if unknown:
        print('ct-check: no policy for %s: add it to the folder\'s ct_policy.py' %
              ', '.join(unknown), file=sys.stderr)
        sys.exit(2)
    all_viol = []
    tot = dict(insns=0, consumers=0, memops=0)
    with tempfile.TemporaryDirectory(prefix='ct-check.') as tmp:
        for (folder, n) in kernels:
            obj = assemble(arch_dir, folder, n, tmp)
            insns, funcs = disassemble(obj)
            viol, stats = analyse(Kernel(n, policies[n][1]), insns, funcs, None, verbose)
            for k in tot:
                tot[k] += stats[k]
            if not quiet:
                print('ct-check: %-20s %5d instructions, %4d branch/cmov/setcc, %5d memory '
                      'operands: %s' % (n, stats['insns'], stats['consumers'], stats['memops'],
                                        'ok' if not viol else '%d violations' % len(viol)))
            all_viol += viol
    return all_viol, tot


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--arch-dir', default='arch')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--self-test', action='store_true')
    ap.add_argument('--plant')
    ap.add_argument('--list-plants', action='store_true')
    a = ap.parse_args()
    for tool in ('nasm', 'objdump'):
        if shutil.which(tool) is None:
            print('ct-check: %s not found' % tool, file=sys.stderr)
            return 2
    if a.list_plants:
        for k, (kern, anchor, lines, rules) in PLANTS.items():
            print('%-26s %-20s rules %s' % (k, kern, ','.join(sorted(rules))))
        return 0
    if a.plant:
        with tempfile.TemporaryDirectory(prefix='ct-plant.') as tmp:
            d = plant_tree(a.arch_dir, tmp, a.plant)
            viol, _ = check_tree(d, a.verbose)
            for rule, msg in viol:
                print('VIOLATION [%s] %s' % (rule, msg))
            return 1 if viol else 0
    viol, tot = check_tree(a.arch_dir, a.verbose)
    for rule, msg in viol:
        print('VIOLATION [%s] %s' % (rule, msg))
    print('ct-check: %d instructions, %d branch/cmov/setcc checked, %d memory operands '
          'checked, %d violations' % (tot['insns'], tot['consumers'], tot['memops'], len(viol)))
    rc = 1 if viol else 0
    if a.self_test:
        caught = 0
        for name in PLANTS:
            with tempfile.TemporaryDirectory(prefix='ct-plant.') as tmp:
                d = plant_tree(a.arch_dir, tmp, name)
                pv, _ = check_tree(d, False, quiet=True, only=PLANTS[name][0])
            # rules whose count of violations in the planted kernel went up
            kern = PLANTS[name][0] + ':'
            def count(vs, rule):
                return sum(1 for (r, m) in vs if r == rule and m.startswith(kern))
            want = PLANTS[name][3]
            got = {r for r in ('index', 'flags', 'taint', 'call') if count(pv, r) > count(viol, r)}
            ok = want <= got
            caught += ok
            print('ct-check: self-test plant %-26s -> %s%s' % (
                name, 'caught by ' + ','.join(sorted(got)) if got else 'NOT CAUGHT',
                '' if ok else ' (expected %s)' % ','.join(sorted(want))))
            if not ok:
                rc = 1
        print('ct-check: self-test %d of %d planted violations caught' % (caught, len(PLANTS)))
    return rc


def plant_tree(arch_dir, tmp, name):
    if name not in PLANTS:
        print('ct-check: unknown plant %s (--list-plants)' % name, file=sys.stderr)
        sys.exit(2)
    kern, anchor, lines, _ = PLANTS[name]
    d = os.path.join(tmp, 'arch')
    shutil.copytree(arch_dir, d, ignore=shutil.ignore_patterns('*.c', '*.h', '__pycache__'))
    folder = [f for (f, n) in kernel_sources(d) if n == kern]
    if not folder:
        print('ct-check: plant %s: no kernel %s' % (name, kern), file=sys.stderr)
        sys.exit(2)
    path = os.path.join(d, folder[0], kern + '.asm')
    src = open(path).read().split('\n')
    for j, l in enumerate(src):
        if re.search(anchor, l):
            src[j + 1:j + 1] = ['; ---- planted by ct-check --plant %s' % name] + lines
            break
    else:
        print('ct-check: plant %s: anchor %r not found in %s' % (name, anchor, path),
              file=sys.stderr)
        sys.exit(2)
    open(path, 'w').write('\n'.join(src))
    return d


if __name__ == '__main__':
    sys.exit(main())
PY
