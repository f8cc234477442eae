#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/dudect.sh — dudect-style constant-time timing test of every path (issue 9).
#   Builds the library (Release, build-dudect/), compiles test/dudect/mbgcm_dudect.c against it
#   and runs it pinned to one CPU: per target and arch, fixed-vs-random secret inputs in random
#   order, Welch's t-test on the cycle counts (cropped at several percentiles). max |t| < 4.5:
#   no leak detected at that sample count; >= 10: a leak (exit 1). NOT a CI gate: shared
#   machines are noisy; run it on an idle machine and compare with docs/security.md.
# Usage: scripts/dudect.sh [--samples N] [--target A,B] [--arch NAME] [--cpu N] [--no-build]
#   e.g. scripts/dudect.sh --samples 1000000 --target decrypt-tag,encrypt --cpu 1
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD="$ROOT/build-dudect"
CPU=""
BUILD_IT=1
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cpu) CPU="$2"; shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    --samples|--target|--arch) ARGS+=("$1" "$2"); shift 2 ;;
    -h|--help) sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--samples N] [--target A,B] [--arch NAME] [--cpu N] [--no-build]" >&2
       exit 2 ;;
  esac
done
if [ "$BUILD_IT" -eq 1 ]; then
  mkdir -p "$BUILD"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMBGCM_BUILD_TESTS=OFF \
        -DMBGCM_BUILD_PERF=OFF -DMBGCM_DPDK=OFF -DMBGCM_SANITIZE= >"$BUILD/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target mbgcm_static >>"$BUILD/build.log" 2>&1 ||
    { cat "$BUILD/build.log" >&2; echo "dudect: build failed" >&2; exit 1; }
  cmake --build "$BUILD" -j "$(nproc)" --target mbgcm_cobble_static >>"$BUILD/build.log" 2>&1 ||
    { cat "$BUILD/build.log" >&2; echo "dudect: build failed" >&2; exit 1; }
  cc -O2 -march=native -DMBGCM_HAVE_NASM -I api -I core -I jobs -I cobble \
     test/dudect/mbgcm_dudect.c "$BUILD/libmbgcm-cobble.a" "$BUILD/libmbgcm.a" -lcrypto \
     -lpthread -lm \
     -o "$BUILD/mbgcm_dudect"
fi
PIN=()
if [ -n "$CPU" ]; then
  PIN=(taskset -c "$CPU")
elif command -v taskset >/dev/null; then
  PIN=(taskset -c "$(($(nproc) - 1))")
fi
echo "# scripts/dudect.sh ${ARGS[*]:-}: commit $(git rev-parse --short HEAD 2>/dev/null || echo ?), $(date -u '+%Y-%m-%d %H:%M UTC'), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
exec "${PIN[@]}" "$BUILD/mbgcm_dudect" "${ARGS[@]}"
