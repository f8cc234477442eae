#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""make_corpus.py — (re)create the starting corpora of the libFuzzer harnesses (issue 9).

The harnesses read every field from their input (test/fuzz/fuzz_common.h), so any bytes are a
valid input; these seeds are deterministic pseudo-random byte strings of assorted lengths with
the mode bits of the first bytes set so that every part of each harness is reached from the
start (ring / burst / flush / poll operations; one-shot decrypt and scatter-gather; raw and
genuine-then-damaged Cobblestone messages). scripts/fuzz.sh --merge adds what long runs find.
Usage: test/fuzz/make_corpus.py [corpus dir]   (default: test/fuzz/corpus next to this file)
"""
import hashlib, os, random, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), 'corpus')
rng = random.Random(20241130)


sizes = {}


def write(name, data):
    """Every file of a corpus gets a size of its own: libFuzzer orders the initial corpus by
    size only, so equal sizes would make the CI run depend on the directory order."""
    d = os.path.join(root, name)
    os.makedirs(d, exist_ok=True)
    used = sizes.setdefault(name, {len(open(os.path.join(d, f), 'rb').read())
                                   for f in os.listdir(d)})
    while len(data) in used:
        data += bytes([rng.getrandbits(8)])
    used.add(len(data))
    h = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, h), 'wb') as f:
        f.write(data)


def rnd(n):
    return bytes(rng.getrandbits(8) for _ in range(n))


# fuzz_jobs: c0 = arch | lanes << 3 | threshold mode << 5, c1 = ring size | timeout << 3,
# then operations (op % 8: 0-3 ring submit, 4 burst, 5 flush, 6 poll, 7 completed)
for i in range(48):
    c0 = (i % 4) | ((i // 4 % 4) << 3) | ((i % 4) << 5)
    c1 = (i % 8) | ((i % 2) << 3)
    body = bytearray(rnd(120 + 20 * (i % 13)))
    for j in range(0, len(body), 23):      # sprinkle operation bytes
        body[j] = [0, 1, 4, 5, 6, 2, 7, 3][(i + j) % 8]
    write('fuzz_jobs', bytes([c0, c1]) + bytes(body))

# fuzz_decrypt: first byte odd -> scatter-gather part, even -> one-shot; mode bits after
for i in range(64):
    sel = i & 1
    mode = (i >> 1) & 0x0F
    write('fuzz_decrypt', bytes([sel, rng.getrandbits(8), mode]) + rnd(40 + 37 * (i % 11)))

# fuzz_cobble: mode bit 0 key size, bit 1 genuine message, bits 2-3 arch, bit 4 threads
for i in range(40):
    mode = (i & 1) | ((i % 3 != 0) << 1) | ((i % 3) << 2) | (((i // 5) & 1) << 4)
    write('fuzz_cobble', bytes([mode]) + rnd(60 + 29 * (i % 9)))
# fuzz_dpdk: c = timeout | wrong driver id << 1, v = session xform bits (CCM 0x40, decrypt
# 0x20, key size 0x18, odd IV 0x04, odd digest 0x02), then ops
for i in range(40):
    c = i & 3
    v = [0x00, 0x20, 0x04, 0x22, 0x02, 0x08, 0x10, 0x28][i % 8]
    write('fuzz_dpdk', bytes([c, v]) + rnd(60 + 31 * (i % 13)))
print('corpora written under', root)
