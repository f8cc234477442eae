#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/comment_check.sh ROOT — comments say what and why, never history: no issue numbers
# ("issue 7", "issue #7") and no dated measurements (2024-05-01: numbers belong in
# docs/perf.md) in the code of api/ jobs/ core/ arch/ cobble/ tools/ dpdk/ and perf/*.c.
# And the project stands alone: no file it ships (docs, README, headers, code, build, scripts,
# test data's READMEs) points at files outside the repository (a "../shared" tree, a DESIGN
# document): the contract lives in docs/api.md.
# Exit 0 = clean, 1 = the offending lines are listed.
set -euo pipefail
root="${1:?usage: comment_check.sh ROOT}"
cd "$root"
paths=()
for d in api jobs core arch cobble tools dpdk; do
  [ -d "$d" ] && paths+=("$d")
done
for f in perf/*.c; do
  [ -f "$f" ] && paths+=("$f")
done
hits=$(grep -rnIiE --include='*.c' --include='*.h' --include='*.asm' --include='*.inc' \
         --include='*.py' --include='*.sh' --include='*.txt' --include='*.map' \
         'issue ?#|issue [0-9]|20[0-9][0-9]-[01][0-9]-[0-3][0-9]' "${paths[@]}" || true)
if [ -n "$hits" ]; then
  echo "comment_check: issue numbers or dated measurements in code comments:" >&2
  printf '%s\n' "$hits" >&2
  exit 1
fi
outside=()
for d in README.md CMakeLists.txt docs api jobs core arch cobble tools dpdk perf scripts test \
         .ci cmake; do
  [ -e "$d" ] && outside+=("$d")
done
hits=$(grep -rnIE --exclude-dir=corpus --exclude-dir=results --exclude=comment_check.sh \
         '\.\./shared|/work/shared|DESIGN\.md|the DESIGN|DESIGN section' "${outside[@]}" || true)
if [ -n "$hits" ]; then
  echo "comment_check: references to files outside the repository:" >&2
  printf '%s\n' "$hits" >&2
  exit 1
fi
echo "comment_check: no issue numbers or dated measurements in ${paths[*]}; nothing points outside the repository"
