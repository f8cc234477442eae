#!/usr/bin/env bash
# scripts/bench.sh — build and run the side-by-side benchmark (perf/mbgcm-bench.c; docs/perf.md).
#   setup (Debian packages, scripts/setup.sh) -> Release build in build-bench/ (tests off)
#   -> mbgcm-bench pinned to one CPU: throughput (one thread), latency (Poisson arrivals, with
#   and without flush timeout) and threads (one engine per thread) -> tables on stdout,
#   progress on stderr; CSV, the table and a PNG plot (perf/plot.sh) in perf/results/
#   (gitignored; latest.* point to the newest run).
# Default: the quick run (5 reps, ~0.15 s per figure; about 2 minutes on 2 quiet cores, build
# included). --full: 9 reps, 0.9 s per figure, every mbgcm arch even when arches share kernels
# (portable C lanes included), more latency and thread sizes, then mbgcm-kbench (where the
# ring API's cycles go); about 12 minutes.
# --update-docs: also copy the plot to docs/perf-latest.png and replace the results block of
# docs/perf.md with this run's tables.
# Anything after -- goes to mbgcm-bench (see mbgcm-bench --help), e.g.
#   scripts/bench.sh -- --mode tput --sizes 64,1420 --bits 256 --dirs enc
# Options: --quick (default), --full, --update-docs, -j N build jobs (default: nproc),
# --no-setup.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD="$ROOT/build-bench"
RESULTS="$ROOT/perf/results"
JOBS=$(nproc)
MODE=quick
SETUP=1
DOCS=0
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --full) MODE=full; shift ;;
    --quick) MODE=quick; shift ;;
    --update-docs) DOCS=1; shift ;;
    -j) JOBS="$2"; shift 2 ;;
    --no-setup) SETUP=0; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: $0 [--quick|--full] [--update-docs] [-j N] [--no-setup] [-- mbgcm-bench options]" >&2
       exit 2 ;;
  esac
done

T0=$SECONDS
log() { echo "bench: $* ($((SECONDS - T0)) s)" >&2; }

if [ "$SETUP" -eq 1 ]; then
  log "checking packages (scripts/setup.sh)"
  scripts/setup.sh >&2
fi

log "configuring and building $BUILD (Release, -j $JOBS)"
mkdir -p "$BUILD"
buildlog="$BUILD/bench-build.log"
# A failed build is retried once after a pause: the tree may be mid-edit.
build() {
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMBGCM_BUILD_TESTS=OFF \
        -DMBGCM_BUILD_PERF=ON -DMBGCM_SANITIZE= &&
  cmake --build "$BUILD" -j "$JOBS" --target mbgcm-bench mbgcm-kbench
}
if ! build >"$buildlog" 2>&1; then
  log "build failed, retrying in 20 s (log: $buildlog)"
  sleep 20
  if ! build >"$buildlog" 2>&1; then
    cat "$buildlog" >&2
    echo "bench: build failed (log: $buildlog)" >&2
    exit 1
  fi
fi
BIN="$BUILD/perf/mbgcm-bench"
KBIN="$BUILD/perf/mbgcm-kbench"
if [ ! -x "$BIN" ]; then
  grep -i 'perf:' "$buildlog" >&2 || true
  echo "bench: $BIN was not built (OpenSSL or intel-ipsec-mb missing?)" >&2
  exit 1
fi
log "built $BIN"

case "$MODE" in
  quick) ARGS=(--mode tput,latency,threads --quick --seconds-per-point 0.15 --thr-seconds 0.1) ;;
  full) ARGS=(--mode tput,latency,threads --reps 9 --seconds-per-point 0.9 --warmup 1
              --all-arches --lat-sizes 64,256,1420,16384 --lat-seconds 1
              --thr-sizes 64,256,1420,16384 --thr-seconds 0.3) ;;
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
PNG="$base.png"
cc_path=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
ccver=$("${cc_path:-cc}" --version 2>/dev/null | head -n 1)
CMD="scripts/bench.sh --$MODE${EXTRA[*]:+ -- ${EXTRA[*]}}"

log "running mbgcm-bench ($MODE): ${ARGS[*]} ${EXTRA[*]}"
{
  echo "# $CMD: commit $rev, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(uname -n), kernel $(uname -r)"
  echo "# library and bench built by $ccver, CMAKE_BUILD_TYPE=Release"
} >"$TXT"
# Tables to stdout and the .txt copy; progress (stderr) goes straight to the terminal.
"$BIN" "${ARGS[@]}" "${EXTRA[@]}" --label "commit $rev" --csv "$CSV" | tee -a "$TXT"

if [ "$MODE" = full ] && [ -x "$KBIN" ]; then
  log "running mbgcm-kbench (where the ring API's cycles go)"
  echo | tee -a "$TXT"
  echo "== mbgcm-kbench ==" | tee -a "$TXT"
  "$KBIN" | tee -a "$TXT"
fi

plotted=0
if [ -s "$CSV" ]; then
  log "plotting"
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  if perf/plot.sh "$CSV" "$PNG" "$model, $(date -u +%Y-%m-%d), mbgcm commit $rev, $CMD" >&2; then
    plotted=1
    ln -sfn "$(basename "$PNG")" "$RESULTS/latest.png"
  else
    echo "bench: plot failed (is gnuplot-nox installed?)" >&2
  fi
fi
ln -sfn "$(basename "$CSV")" "$RESULTS/latest.csv"
ln -sfn "$(basename "$TXT")" "$RESULTS/latest.txt"

if [ "$DOCS" -eq 1 ]; then
  log "updating docs/perf.md and docs/perf-latest.png"
  [ "$plotted" -eq 1 ] && cp "$PNG" "$ROOT/docs/perf-latest.png"
  # The block between the markers: this run's header, summary, DESIGN targets, latency and
  # threads tables, the kernel breakdown (full runs), then the full throughput table folded.
  block="$BUILD/perf-block.md"
  {
    echo "<!-- bench-results:begin (written by scripts/bench.sh --update-docs; do not edit by hand) -->"
    echo "Run: \`$CMD\`, commit \`$rev\`, $(date -u '+%Y-%m-%d %H:%M UTC'); $ccver."
    echo
    echo '![GB/s vs message size, every engine](perf-latest.png)'
    echo
    echo '```'
    # header lines (up to the first section), then every section but the detailed throughput
    awk '/^== Throughput/ {hdr=0} NR==1 {hdr=1} hdr' "$TXT"
    awk '/^Summary:/ {p=1} /^== Latency/ {p=0} p' "$TXT"
    awk '/^== Latency/ {p=1} p' "$TXT"
    echo '```'
    echo
    echo '<details><summary>Full throughput table (every engine, size, key size and direction)</summary>'
    echo
    echo '```'
    awk '/^== Throughput/ {p=1} /^Summary:/ {p=0} p' "$TXT"
    echo '```'
    echo
    echo '</details>'
    echo "<!-- bench-results:end -->"
  } >"$block"
  if grep -q '^<!-- bench-results:begin' "$ROOT/docs/perf.md" 2>/dev/null; then
    awk -v blk="$block" '
      /^<!-- bench-results:begin/ { while ((getline l < blk) > 0) print l; skip=1; next }
      /^<!-- bench-results:end/ { skip=0; next }
      !skip' "$ROOT/docs/perf.md" >"$ROOT/docs/perf.md.tmp"
    mv "$ROOT/docs/perf.md.tmp" "$ROOT/docs/perf.md"
  else
    echo "bench: docs/perf.md has no bench-results markers; block left in $block" >&2
  fi
fi

echo
echo "bench: table $TXT"
echo "bench: CSV   $CSV (latency: ${CSV%.csv}-latency.csv, threads: ${CSV%.csv}-threads.csv)"
if [ "$plotted" -eq 1 ]; then
  echo "bench: plot  $PNG"
fi
echo "bench: perf/results/latest.{txt,csv,png} point to the newest run"
echo "bench: total $((SECONDS - T0)) s"
