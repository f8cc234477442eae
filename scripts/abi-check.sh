#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/abi-check.sh [--update] [-j N] — the binary interface of libmbgcm against the
# committed baselines (abi/, abidw XML; docs/api.md, "ABI").
#
# Builds libmbgcm.so with debug information (RelWithDebInfo in build-test-abi/, source paths
# recorded relative to the tree), describes its interface with abidw (the types of the public
# headers in api/ only), then:
#   - compares it with abi/libmbgcm.so.<N>.abi, N = the current SONAME (MBGCM_ABI_VERSION in
#     CMakeLists.txt): any difference fails the check;
#   - prints, for the record, how it differs from abi/libmbgcm.so.<N-1>.abi, the previous SONAME
#     (the intended changes are listed in docs/api.md, "ABI").
# --update writes abi/libmbgcm.so.<N>.abi from this build instead of comparing with it: after an
# intended change (one that breaks compatibility comes with a SONAME bump and a new baseline).
# Exit 0 = same ABI as the baseline, 1 = it changed (the report says how), 2 = tool error.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=$(nproc)
UPDATE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --update) UPDATE=1; shift ;;
    -j) JOBS="$2"; shift 2 ;;
    *) echo "usage: $0 [--update] [-j N]" >&2; exit 2 ;;
  esac
done
for tool in abidw abidiff cmake; do
  command -v "$tool" >/dev/null || { echo "abi-check: $tool not found (scripts/setup.sh)" >&2; exit 2; }
done
N=$(sed -n 's/^set(MBGCM_ABI_VERSION \([0-9]*\)).*/\1/p' CMakeLists.txt)
[ -n "$N" ] || { echo "abi-check: MBGCM_ABI_VERSION not found in CMakeLists.txt" >&2; exit 2; }

BUILD="$ROOT/build-test-abi"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBGCM_BUILD_TESTS=OFF \
      -DMBGCM_BUILD_PERF=OFF -DMBGCM_DPDK=OFF -DMBGCM_SANITIZE= \
      "-DCMAKE_C_FLAGS=-fdebug-prefix-map=$ROOT=." >"$BUILD.log" 2>&1 &&
  cmake --build "$BUILD" -j "$JOBS" --target mbgcm >>"$BUILD.log" 2>&1 ||
  { cat "$BUILD.log" >&2; echo "abi-check: build failed" >&2; exit 2; }
SO=$(readlink -f "$BUILD/libmbgcm.so")
CUR="$BUILD/libmbgcm.abi"
abidw --headers-dir api --drop-private-types --no-show-locs --no-corpus-path \
      --no-comp-dir-path --out-file "$CUR" "$SO"

BASE="abi/libmbgcm.so.$N.abi"
if [ "$UPDATE" -eq 1 ]; then
  cp "$CUR" "$BASE"
  echo "abi-check: wrote $BASE from $(basename "$SO")"
  exit 0
fi

prev="abi/libmbgcm.so.$((N - 1)).abi"
if [ "$N" -gt 0 ] && [ -f "$prev" ]; then
  # the version node and the SONAME change with every bump by design: compare the previous
  # interface under the current names, so that the report lists what really changed
  sed -e "s/MBGCM_$((N - 1))\b/MBGCM_$N/g" -e "s/libmbgcm\.so\.$((N - 1))'/libmbgcm.so.$N'/" \
    "$prev" >"$BUILD/prev.abi"
  echo "abi-check: for the record, libmbgcm.so.$((N - 1)) -> this build (symbol versions and"
  echo "abi-check: SONAME renamed; docs/api.md \"ABI\" lists the intended changes):"
  abidiff --no-show-locs "$BUILD/prev.abi" "$CUR" | sed 's/^/  /' || true
fi

[ -f "$BASE" ] || { echo "abi-check: no baseline $BASE (create it with --update)" >&2; exit 2; }
rc=0
abidiff --no-show-locs "$BASE" "$CUR" >"$BUILD/abidiff.txt" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
  echo "abi-check: libmbgcm.so.$N: the same ABI as $BASE"
  exit 0
fi
cat "$BUILD/abidiff.txt"
if [ $((rc & 3)) -ne 0 ]; then
  echo "abi-check: abidiff failed (status $rc)" >&2
  exit 2
fi
echo "abi-check: libmbgcm.so.$N differs from $BASE (abidiff status $rc):" \
     "an intended change needs docs/api.md \"ABI\" and, if incompatible, a SONAME bump;" \
     "then scripts/abi-check.sh --update" >&2
exit 1
