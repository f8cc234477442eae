#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/fuzz.sh — long local runs of the libFuzzer harnesses (issue 9; CI runs them briefly
# with a fixed seed, scripts/test.sh stage "fuzz").
#   Builds test/fuzz with clang, ASan and UBSan in build-fuzz/, then runs every harness (or
#   those named) for --time seconds each, starting from the committed corpus
#   test/fuzz/corpus/<name> (copied to build-fuzz/corpus-work/<name>; new inputs go there).
#   Crash and timeout inputs land in build-fuzz/artifacts/. --merge adds the inputs that
#   increase coverage to the committed corpus (review and commit them).
# Usage: scripts/fuzz.sh [--time SECONDS] [--jobs N] [--merge] [--no-build] [harness ...]
#   e.g. scripts/fuzz.sh --time 3600 --jobs 2 fuzz_cobble
# Harnesses: fuzz_jobs fuzz_decrypt fuzz_cobble (and fuzz_dpdk when DPDK is installed).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD="$ROOT/build-fuzz"
TIME=600
JOBS=1
MERGE=0
BUILD_IT=1
NAMES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) TIME="$2"; shift 2 ;;
    --jobs) JOBS="$2"; shift 2 ;;
    --merge) MERGE=1; shift ;;
    --no-build) BUILD_IT=0; shift ;;
    -h|--help) sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "usage: $0 [--time S] [--jobs N] [--merge] [--no-build] [harness ...]" >&2; exit 2 ;;
    *) NAMES+=("$1"); shift ;;
  esac
done
if [ ${#NAMES[@]} -eq 0 ]; then
  NAMES=(fuzz_jobs fuzz_decrypt fuzz_cobble)
  [ -d "$ROOT/test/fuzz/corpus/fuzz_dpdk" ] && NAMES+=(fuzz_dpdk)
fi
if [ "$BUILD_IT" -eq 1 ]; then
  echo "fuzz: building ${NAMES[*]} in $BUILD (clang, address,undefined)"
  mkdir -p "$BUILD"
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DMBGCM_FUZZ=ON "-DMBGCM_SANITIZE=address,undefined,fuzzer-no-link" \
        "-DMBGCM_FUZZ_DPDK_SDK=$([ -f "$ROOT/build/dpdk/sdk/include/cryptodev_pmd.h" ] &&
                                 echo "$ROOT/build/dpdk/sdk")" \
        -DMBGCM_BUILD_PERF=OFF -DMBGCM_DPDK=OFF >"$BUILD/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" --target fuzzers >>"$BUILD/build.log" 2>&1 ||
    { tail -40 "$BUILD/build.log" >&2; echo "fuzz: build failed (log: $BUILD/build.log)" >&2; exit 1; }
fi
mkdir -p "$BUILD/artifacts"
rc=0
for n in "${NAMES[@]}"; do
  bin="$BUILD/test/fuzz/$n"
  [ -x "$bin" ] || { echo "fuzz: $n was not built (DPDK missing?)" >&2; rc=1; continue; }
  committed="$ROOT/test/fuzz/corpus/$n"
  work="$BUILD/corpus-work/$n"
  mkdir -p "$work"
  cp -n "$committed"/* "$work"/ 2>/dev/null || true
  echo "fuzz: $n for ${TIME}s ($JOBS job(s)); corpus $work ($(ls "$work" | wc -l) inputs)"
  extra=()
  [ "$JOBS" -gt 1 ] && extra=(-jobs="$JOBS" -workers="$JOBS")
  if ! "$bin" -max_total_time="$TIME" -max_len=4096 -timeout=60 -rss_limit_mb=4096 \
       -artifact_prefix="$BUILD/artifacts/$n-" -print_final_stats=1 "${extra[@]}" \
       "$work" "$committed" 2>&1 | grep -v -E '^#[0-9]+[[:space:]]+(NEW|REDUCE|pulse)'; then
    echo "fuzz: $n FAILED (see $BUILD/artifacts/)" >&2
    rc=1
  fi
  if [ "$MERGE" -eq 1 ]; then
    echo "fuzz: merging new coverage of $n into $committed"
    "$bin" -merge=1 -max_len=4096 "$committed" "$work" >/dev/null 2>&1 || true
  fi
done
exit "$rc"
