#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/spdx-check.sh [ROOT] — every project-authored source file carries the line
# "SPDX-License-Identifier: BSD-3-Clause" (LICENSE) within its first 3 lines, in its own comment
# syntax: C/C++ "/* ... */" or "// ...", NASM "; ...", shell/Python/CMake/pkg-config "# ..."
# (after a "#!" line).
#
# The files: those git tracks (every file under ROOT outside build*/ when ROOT is not a git
# checkout) named *.c *.h *.cpp *.asm *.inc *.sh *.py *.cmake *.cmake.in *.pc.in *.map,
# CMakeLists.txt, and .ci/run. Not checked: data and generated files (test/vectors/, fuzz
# corpora, abi/ baselines written by abidw, dpdk/test/dp_vectors.h written by mk_dp_vectors,
# test/data/cobble/kat.txt written by gen_kat.py) and docs.
# Exit 0 = every file has the line, 1 = the files without it are listed.
set -euo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root"
tag='SPDX-License-Identifier: BSD-3-Clause'

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path './build*' -prune -o -path './.git' -prune -o -type f -print |
                       sed 's|^\./||' | sort)
fi

src=()
for f in "${files[@]}"; do
  case "$f" in
    test/vectors/* | test/fuzz/corpus/* | build*/* | dpdk/test/dp_vectors.h) continue ;;
    *.c | *.h | *.cpp | *.asm | *.inc | *.sh | *.py | *.cmake | *.cmake.in | *.pc.in | *.map) ;;
    CMakeLists.txt | */CMakeLists.txt | .ci/run) ;;
    *) continue ;;
  esac
  [ -f "$f" ] && src+=("$f")  # not when tracked but deleted in this checkout
done
n=${#src[@]}
[ "$n" -gt 0 ] || { echo "spdx-check: no source files found under $PWD" >&2; exit 1; }
# one pass over all files: the ones whose first 3 lines do not hold the tag (empty files too)
mapfile -t missing < <(awk -v tag="$tag" '
  FNR == 1 { if (cur != "" && !ok) print cur; cur = FILENAME; ok = 0 }
  FNR <= 3 && index($0, tag) { ok = 1 }
  FNR > 3 { nextfile }
  END { if (cur != "" && !ok) print cur }' "${src[@]}")
for f in "${src[@]}"; do  # awk never sees an empty file
  [ -s "$f" ] || missing+=("$f")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "spdx-check: ${#missing[@]} of $n source files lack \"$tag\" in their first 3 lines:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  echo "spdx-check: add it as the first line (after any #! line) in the file's comment syntax" >&2
  exit 1
fi
echo "spdx-check: all $n source files carry \"$tag\""
