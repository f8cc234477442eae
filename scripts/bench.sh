#!/usr/bin/env bash
# scripts/bench.sh — build and run the benchmark (perf/mbgcm-bench.c).
#   setup (Debian packages) -> configure + build a Release build in build-bench/ (tests off)
#   -> run mbgcm-bench pinned to one CPU -> table on stdout, progress on stderr,
#   CSV and a copy of the table in perf/results/ (gitignored).
# Default is the quick run (5 reps, ~0.5 s per figure; about a minute on 2 cores, build
# included). --full: 11 reps, 1 s per figure, every mbgcm arch even when arches share
# kernels (about 4 minutes). Anything after -- goes to mbgcm-bench (see mbgcm-bench --help),
# e.g. scripts/bench.sh -- --sizes 64,1420 --bits 256 --dirs enc
# Options: --full, --quick (default), -j N build jobs (default: nproc), --no-setup.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD="$ROOT/build-bench"
RESULTS="$ROOT/perf/results"
JOBS=$(nproc)
MODE=quick
SETUP=1
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --full) MODE=full; shift ;;
    --quick) MODE=quick; shift ;;
    -j) JOBS="$2"; shift 2 ;;
    --no-setup) SETUP=0; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--quick|--full] [-j N] [--no-setup] [-- mbgcm-bench options]" >&2; exit 2 ;;
  esac
done

T0=$SECONDS
log() { echo "bench: $* ($((SECONDS - T0)) s)" >&2; }

if [ "$SETUP" -eq 1 ]; then
  log "checking packages (scripts/setup.sh)"
  scripts/setup.sh >&2
fi

log "configuring $BUILD (Release)"
mkdir -p "$BUILD"
buildlog="$BUILD/bench-build.log"
if ! { cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMBGCM_BUILD_TESTS=OFF \
         -DMBGCM_BUILD_PERF=ON -DMBGCM_SANITIZE= &&
       cmake --build "$BUILD" -j "$JOBS" --target mbgcm-bench; } >"$buildlog" 2>&1; then
  cat "$buildlog" >&2
  echo "bench: build failed (log: $buildlog)" >&2
  exit 1
fi
BIN="$BUILD/perf/mbgcm-bench"
if [ ! -x "$BIN" ]; then
  grep -i 'perf:' "$buildlog" >&2 || true
  echo "bench: $BIN was not built (OpenSSL or intel-ipsec-mb missing?)" >&2
  exit 1
fi
log "built $BIN"

case "$MODE" in
  quick) ARGS=(--quick --seconds-per-point 0.5) ;;
  full) ARGS=(--reps 11 --seconds-per-point 1.0 --warmup 1 --all-arches) ;;
esac

mkdir -p "$RESULTS"
stamp=$(date -u +%Y%m%d-%H%M%S)
rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null || true)" ]; then
  rev="$rev-dirty"
fi
base="$RESULTS/bench-$MODE-$stamp-$rev"
CSV="$base.csv"
TXT="$base.txt"

log "running mbgcm-bench ($MODE): ${ARGS[*]} ${EXTRA[*]}"
{
  echo "# scripts/bench.sh --$MODE, commit $rev, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(uname -n)"
  cc_path=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
  echo "# $("${cc_path:-cc}" --version 2>/dev/null | head -n 1), CMAKE_BUILD_TYPE=Release"
} >"$TXT"
# Table to stdout and the .txt copy; progress (stderr) goes straight to the terminal.
"$BIN" "${ARGS[@]}" "${EXTRA[@]}" --csv "$CSV" | tee -a "$TXT"
ln -sfn "$(basename "$CSV")" "$RESULTS/latest.csv"
ln -sfn "$(basename "$TXT")" "$RESULTS/latest.txt"

echo
echo "bench: CSV   $CSV"
echo "bench: table $TXT  (perf/results/latest.{csv,txt} point to the newest run)"
echo "bench: total $((SECONDS - T0)) s"
