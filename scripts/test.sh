#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/test.sh — the project's test command (README, .ci/run).
#   setup (Debian packages) -> for each build: configure, build, ctest
# Builds: release (NASM kernels, -O2, plus the DPDK PMD crypto_mbgcm and its tests),
#         asan (ASan+UBSan, randomized counts scaled down),
#         portable (MBGCM_USE_NASM=OFF: the generic C path only, as on non-x86 targets),
#         and the hardening checks (docs/security.md): ctcheck (objdump/data-flow
#         check of every NASM kernel, with its planted-violation self-test), ctgrind (valgrind
#         memcheck with secrets undefined: generic and aesni paths and all C code), fuzz
#         (libFuzzer harnesses, clang + ASan/UBSan, fixed -seed/-runs from test/fuzz/corpus),
#         tsan (ThreadSanitizer, clang: threads x managers sharing keys),
#         abi (scripts/abi-check.sh: libmbgcm's ABI against the committed abi/ baseline of the
#         current SONAME; the difference from the previous SONAME is printed for the record).
# Options: --only NAME[,NAME]  run only these builds; -j N parallel jobs (default: nproc).
# Every stage prints its wall time; the script fails on the first failing stage.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
JOBS=$(nproc)
ONLY=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) ONLY="$2"; shift 2 ;;
    -j) JOBS="$2"; shift 2 ;;
    *) echo "usage: $0 [--only release,asan,portable,ctcheck,ctgrind,fuzz,tsan,abi] [-j N]" >&2
       exit 2 ;;
  esac
done

declare -a SUMMARY=()
stage() { # stage NAME CMD...
  local name="$1"; shift
  local t0=$SECONDS
  echo "=== [$name] $*"
  if "$@"; then
    SUMMARY+=("$(printf '%-28s %5ds  ok' "$name" $((SECONDS - t0)))")
  else
    local rc=$?
    SUMMARY+=("$(printf '%-28s %5ds  FAILED (%d)' "$name" $((SECONDS - t0)) "$rc")")
    printf '%s\n' "${SUMMARY[@]}"
    exit "$rc"
  fi
}
want() { [ -z "$ONLY" ] || [[ ",$ONLY," == *",$1,"* ]]; }

T0=$SECONDS
stage setup scripts/setup.sh

run_build() { # NAME cmake-args...
  local name="$1"; shift
  local dir="$ROOT/build-test-$name"
  stage "$name: configure" cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release "$@"
  stage "$name: build" cmake --build "$dir" -j "$JOBS"
  stage "$name: ctest" ctest --test-dir "$dir" --output-on-failure -j "$JOBS" --timeout 1500
}

# The DPDK PMD and its tests (dpdk/) run in the release build only: Debian's uninstrumented
# DPDK tools cannot load an ASan-built plugin, and the portable build adds nothing for them.
want release && run_build release -DMBGCM_DPDK=ON
want asan && run_build asan -DMBGCM_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMBGCM_DPDK=OFF
want portable && run_build portable -DMBGCM_USE_NASM=OFF -DMBGCM_DPDK=OFF

# ---- hardening checks -----------------------------------------------------------------------
# Each builds only what it runs, in its own directory.
run_check() { # NAME "targets" "ctest args" cmake-args...
  local name="$1" targets="$2" cargs="$3"; shift 3
  local dir="$ROOT/build-test-$name"
  stage "$name: configure" cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DMBGCM_BUILD_PERF=OFF -DMBGCM_DPDK=OFF "$@"
  # shellcheck disable=SC2086
  stage "$name: build" cmake --build "$dir" -j "$JOBS" --target $targets
  # shellcheck disable=SC2086
  stage "$name: ctest" ctest --test-dir "$dir" --output-on-failure -j "$JOBS" --timeout 1500 $cargs
}
want ctcheck && stage "ctcheck: kernels" scripts/ct-check.sh --self-test
want ctgrind && run_check ctgrind test_ct_ctgrind "-L ctgrind -V" -DMBGCM_CTGRIND=ON
# (fuzz_dpdk reuses the release build's DPDK driver headers when they are there)
want fuzz && run_check fuzz fuzzers "-L fuzz -V" \
  -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBGCM_FUZZ=ON \
  "-DMBGCM_SANITIZE=address,undefined,fuzzer-no-link" \
  "-DMBGCM_FUZZ_DPDK_SDK=$([ -f "$ROOT/build-test-release/dpdk/sdk/include/cryptodev_pmd.h" ] &&
                           echo "$ROOT/build-test-release/dpdk/sdk")"
want tsan && MBGCM_THREADS_REPS=40 run_check tsan test_threads "-L tsan -V" \
  -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMBGCM_SANITIZE=thread
want abi && stage "abi: libmbgcm" scripts/abi-check.sh -j "$JOBS"

echo "=== summary"
printf '%s\n' "${SUMMARY[@]}"
echo "total $((SECONDS - T0))s"
