#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench.sh — build and run the side-by-side benchmark (perf/mbgcm-bench.c; docs/perf.md).
#   setup (Debian packages, scripts/setup.sh) -> current intel-ipsec-mb built from source, once
#   (cached; see --ipsec-mb-src) -> Release build in build-bench/ (tests off) -> mbgcm-bench
#   pinned to one CPU: throughput (one thread; 64 keys round-robin and one key), latency (Poisson
#   arrivals, with and without flush timeout), threads (one engine per thread) and key setup
#   (ns per key, beside ipsec-mb's and OpenSSL's), then GMAC calls (no message; 64, 256 and
#   1420 bytes of AAD) and messages of 64, 256 and 1420 bytes with 0, 8 and 12 bytes of AAD
#   (IPsec ESP's lengths), the best arch's engines against intel-ipsec-mb -> tables on stdout,
#   progress on stderr; CSV, the table and a PNG plot (perf/plot.sh) in perf/results/
#   (gitignored; latest.* point to the newest run).
# Peers: OpenSSL EVP, Debian's intel-ipsec-mb 1.3 and, given its source, a current
# intel-ipsec-mb, each ipsec-mb through every API a user could pick: direct GCM calls, job API,
# burst API (IMB_SUBMIT_BURST, --burst jobs) and, with one key, the QUIC array call
# (imb_quic_aes_gcm). Ratios are against the fastest API of the current ipsec-mb; without a
# source the bench falls back to Debian's 1.3 and says so in its header.
#   --ipsec-mb-src DIR|TARBALL   current intel-ipsec-mb source: a source tree or a .tar.gz
#                  (default: $IPSEC_MB_SRC; nothing is looked up anywhere else). Built once
#                  (library only, Release, ~3 min on 2 cores) into
#                  ${XDG_CACHE_HOME:-~/.cache}/mbgcm/ipsec-mb-NAME-HASH (HASH: sha256 of the
#                  tarball, or of the tree's CMakeLists.txt, cmake/ and lib/); later runs reuse
#                  it. --rebuild-peer builds it again.
#   --imb-arch A   ipsec-mb managers from init_mb_mgr_A: auto (default), sse, avx2, avx512,
#                  avx10 (e.g. avx2 to compare AVX2 paths on an AVX-512 machine; mbgcm's own
#                  arch: MBGCM_ARCH=avx2 in the environment, or -- --engines avx2).
# Default: the quick run (5 reps, ~0.15 s per figure; about 6 minutes on 2 cores with a current
# peer, build included; the first run with a new source adds its ~5 minute build). --full: 9
# reps, 0.9 s per figure, every mbgcm arch even when arches share kernels (portable C lanes
# included), more latency and thread sizes, then mbgcm-kbench (where the ring API's cycles
# go) and a throughput pass with 16384 keys (beyond the caches); about 35 minutes.
# --update-docs: also copy the plot to docs/perf-latest.png and replace the results block of
# docs/perf.md with this run's tables.
# Anything after -- goes to mbgcm-bench (see mbgcm-bench --help), e.g.
#   scripts/bench.sh -- --mode tput --sizes 64,1420 --bits 256 --dirs enc --keys 1
# Options: --quick (default), --full, --update-docs, --ipsec-mb-src DIR|TARBALL,
# --rebuild-peer, --imb-arch A, -j N build jobs (default: nproc), --no-setup.
set -euo pipefail
CALLER_PWD=$PWD   # relative --ipsec-mb-src paths are the caller's
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD="$ROOT/build-bench"
RESULTS="$ROOT/perf/results"
JOBS=$(nproc)
MODE=quick
SETUP=1
DOCS=0
PEER_SRC=${IPSEC_MB_SRC:-}
PEER_REBUILD=0
IMB_ARCH=""
EXTRA=()
usage() {
  echo "usage: $0 [--quick|--full] [--update-docs] [--ipsec-mb-src DIR|TARBALL] [--rebuild-peer]" >&2
  echo "       [--imb-arch auto|sse|avx2|avx512|avx10] [-j N] [--no-setup] [-- mbgcm-bench options]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --full) MODE=full; shift ;;
    --quick) MODE=quick; shift ;;
    --update-docs) DOCS=1; shift ;;
    --ipsec-mb-src) [ $# -ge 2 ] || usage; PEER_SRC="$2"; shift 2 ;;
    --ipsec-mb-src=*) PEER_SRC="${1#*=}"; shift ;;
    --rebuild-peer) PEER_REBUILD=1; shift ;;
    --imb-arch) [ $# -ge 2 ] || usage; IMB_ARCH="$2"; shift 2 ;;
    -j) [ $# -ge 2 ] || usage; JOBS="$2"; shift 2 ;;
    --no-setup) SETUP=0; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    -h|--help) awk 'NR > 2 && /^#/ { sub(/^# ?/, ""); print; next } NR > 2 { exit }' "$0"; exit 0 ;;
    *) usage ;;
  esac
done

T0=$SECONDS
log() { echo "bench: $* ($((SECONDS - T0)) s)" >&2; }
fail() { echo "bench: error: $*" >&2; exit 1; }

if [ "$SETUP" -eq 1 ]; then
  log "checking packages (scripts/setup.sh)"
  scripts/setup.sh >&2
fi

# ---- the current intel-ipsec-mb: built once per source, cached outside the tree ------------
# scripts/ipsec-mb-peer.sh prints the prefix (include/intel-ipsec-mb.h, lib/libIPSec_MB.so*).
peer_prefix() {
  local src=$1 opts=(-j "$JOBS")
  case "$src" in /*) ;; *) src="$CALLER_PWD/$src" ;; esac
  [ "$PEER_REBUILD" -eq 0 ] || opts+=(--rebuild)
  "$ROOT/scripts/ipsec-mb-peer.sh" "${opts[@]}" "$src" || fail "no intel-ipsec-mb build from $src"
}

PEER_PREFIX=""
if [ -n "$PEER_SRC" ]; then
  PEER_PREFIX=$(peer_prefix "$PEER_SRC")
  [ -f "$PEER_PREFIX/.complete" ] || fail "no intel-ipsec-mb build from $PEER_SRC"
else
  log "no current intel-ipsec-mb source (--ipsec-mb-src or IPSEC_MB_SRC): peers are Debian's 1.3 and OpenSSL"
fi

log "configuring and building $BUILD (Release, -j $JOBS)"
mkdir -p "$BUILD"
buildlog="$BUILD/bench-build.log"
# A failed build is retried once after a pause: the tree may be mid-edit. The peer prefix is
# always passed, empty without a source, so that a previous run's peer is not reused.
build() {
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMBGCM_BUILD_TESTS=OFF \
        -DMBGCM_BUILD_PERF=ON -DMBGCM_SANITIZE= -DMBGCM_BENCH_IPSEC_MB_PREFIX="$PEER_PREFIX" &&
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
  echo "bench: $BIN was not built (OpenSSL missing?)" >&2
  exit 1
fi
log "built $BIN"

# shellcheck disable=SC2054 # the commas are inside option values
case "$MODE" in
  quick) ARGS=(--mode tput,latency,threads,keys --quick --keys 64,1 --seconds-per-point 0.15
               --thr-seconds 0.1) ;;
  full) ARGS=(--mode tput,latency,threads,keys --keys 64,1 --reps 9 --seconds-per-point 0.9 --warmup 1
              --all-arches --lat-sizes 64,256,1420,16384 --lat-seconds 1
              --thr-sizes 64,256,1420,16384 --thr-seconds 0.3) ;;
esac
if [ -n "$IMB_ARCH" ]; then
  ARGS+=(--imb-arch "$IMB_ARCH")
fi

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
CMD="scripts/bench.sh --$MODE${PEER_SRC:+ --ipsec-mb-src $(basename "$PEER_SRC")}${IMB_ARCH:+ --imb-arch $IMB_ARCH}${EXTRA[*]:+ -- ${EXTRA[*]}}"

log "running mbgcm-bench ($MODE): ${ARGS[*]} ${EXTRA[*]}"
{
  echo "# $CMD: commit $rev, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(uname -n), kernel $(uname -r)"
  echo "# library and bench built by $ccver, CMAKE_BUILD_TYPE=Release"
  if [ -n "$PEER_PREFIX" ]; then
    echo "# current peer: intel-ipsec-mb from $(basename "$PEER_SRC"), cached build $(basename "$(dirname "$PEER_PREFIX")")"
  else
    echo "# current peer: none given (--ipsec-mb-src): ratios against Debian's intel-ipsec-mb 1.3"
  fi
} >"$TXT"
# Tables to stdout and the .txt copy; progress (stderr) goes straight to the terminal.
"$BIN" "${ARGS[@]}" "${EXTRA[@]}" --label "commit $rev" --csv "$CSV" | tee -a "$TXT"

if [ "$MODE" = full ]; then
  # Many keys: 16384 keys and as many message slots, far beyond the caches (a gateway with
  # thousands of SAs): each message's key and buffers come from memory.
  log "running mbgcm-bench with cold keys (16384 keys, 16384 slots)"
  echo | tee -a "$TXT"
  echo "== Cold keys: 16384 keys round-robin over 16384 message slots" \
    "(keys and buffers beyond the caches) ==" | tee -a "$TXT"
  "$BIN" --mode tput --keys 16384 --bufs 16384 --sizes 16,64,256,1420 --reps 9 \
    --seconds-per-point 0.5 --warmup 1 ${IMB_ARCH:+--imb-arch "$IMB_ARCH"} \
    --label "commit $rev, cold keys" --csv "${CSV%.csv}-cold.csv" |
    awk '/^Summary/ {p=1} p' | sed 's/^Summary/Cold keys: summary/' | tee -a "$TXT"
fi

# The passes below run one mbgcm arch's engines: the one the main run's summary names most
# often (this machine's best: avx512 where AVX-512 and VAES are there, avx2 on Zen 3, ...).
ARCHW=$(awk '/^Summary/ {p = 1; next} p && NF == 0 {p = 0}
  p && $2 ~ /^AES-/ && $5 ~ /^mbgcm-/ {n = split($5, a, "-"); c[a[n]]++}
  END {for (k in c) if (c[k] > m) {m = c[k]; b = k}; print b}' "$TXT")
ARCHW=${ARCHW:-avx512}

if [ "$MODE" = full ]; then
  GMAC_ARGS=(--reps 9 --seconds-per-point 0.5 --warmup 1)
else
  GMAC_ARGS=(--quick --seconds-per-point 0.15)
fi
# aad_rows SIZES AAD: a short run of that arch's engines against intel-ipsec-mb (64 keys) with
# AAD bytes of AAD; its summary rows, the AAD length added (SIZES 0, GMAC: in place of the zero
# message length).
aad_rows() {
  "$BIN" --mode tput --sizes "$1" --aad "$2" --keys 64 --engines "$ARCHW",ipsec-mb \
    "${GMAC_ARGS[@]}" ${IMB_ARCH:+--imb-arch "$IMB_ARCH"} --label "commit $rev, AAD $2" |
    awk -v aad="$2" -v gmac="$([ "$1" = 0 ] && echo 1 || echo 0)" '
      /^Summary/ {p = 1; next} p && NF == 0 {p = 0}
      p && $2 ~ /^AES-/ && gmac {printf "  %5s %-7s %-3s %7s  %-28s  %-28s  %s\n", $1, $2, $3,
        aad, $5, $7, $9}
      p && $2 ~ /^AES-/ && !gmac {printf "  %5s %-7s %-3s %7s %7s  %-28s  %-28s  %s\n", $1, $2,
        $3, $4, aad, $5, $7, $9}' |
    tee -a "$TXT"
}

# GMAC calls (no message, the AAD authenticated: DPDK's AES-GMAC, ESP with NULL encryption) at
# 64, 256 and 1420 bytes of AAD.
log "running mbgcm-bench on GMAC calls (64, 256 and 1420 bytes of AAD)"
echo | tee -a "$TXT"
echo "== GMAC: no message, the AAD authenticated (64 keys; ratio as in the summary:" \
  "the reference's time / mbgcm's) ==" | tee -a "$TXT"
printf '   keys AES     dir     AAD  %-28s  %-28s  ratio\n' "mbgcm best" "reference best" |
  tee -a "$TXT"
for aad in 64 256 1420; do
  aad_rows 0 "$aad"
done

# The AAD lengths packets carry: IPsec ESP authenticates 8 bytes (SPI, sequence number) or 12
# (with the extended sequence number), and a message may have none. The tables above use 16
# bytes; intel-ipsec-mb has a quicker path of its own for 12 bytes and for none (docs/perf.md,
# "twenty-fourth stop"), so these rows are its best case.
log "running mbgcm-bench with 0, 8 and 12 bytes of AAD (64, 256 and 1420-byte messages)"
echo | tee -a "$TXT"
echo "== AAD of 0, 8 and 12 bytes (IPsec ESP: 8, or 12 with extended sequence numbers; 64" \
  "keys; ratio as in the summary) ==" | tee -a "$TXT"
printf '   keys AES     dir   bytes     AAD  %-28s  %-28s  ratio\n' "mbgcm best" \
  "reference best" | tee -a "$TXT"
for aad in 0 8 12; do
  aad_rows 64,256,1420 "$aad"
done

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
  # The block between the markers: this run's header, summary, small-message targets, latency and
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
    awk '/^Summary/ {p=1} /^== Latency/ {p=0} p' "$TXT"
    awk '/^== Latency/ {p=1} p' "$TXT"
    echo '```'
    echo
    echo '<details><summary>Full throughput table (every engine, size, key size and direction)</summary>'
    echo
    echo '```'
    awk '/^== Throughput/ {p=1} /^Summary/ {p=0} p' "$TXT"
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
