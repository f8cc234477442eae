#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/dpdk-bench.sh — crypto_mbgcm vs crypto_aesni_gcm (Debian's DPDK 22.11 PMD, with
# ipsec-mb 1.3 inside) in one run: dpdk-test-crypto-perf throughput (64..2048 bytes and IMIX,
# burst 32) and latency, AES-128-GCM and AES-256-GCM encrypt, 16-byte AAD, 16-byte tag, in
# place; AES-GMAC generate throughput (crypto-perf --optype auth-only, 16-byte tag); and the
# CPU-crypto API (dpdk/test/cpu_crypto_bench.c: vectors of 32 one-segment elements of 64, 256
# and 1420 bytes, AES-GCM encrypt, MS ms per measurement) beside the op path.
#
#   scripts/dpdk-bench.sh [-B BUILD_DIR] [-r REPS] [-n OPS] [-k "16 32"] [-t MS]
#                         [--huge auto|on|off] [--tables all|vec] [--update-doc]
#
# Builds the PMD (Release, -DMBGCM_DPDK=ON) in BUILD_DIR (default build-dpdk-bench), then
# runs each measurement REPS times (default 5), alternating which PMD goes first, and reports
# the median. Each crypto-perf process measures a throw-away 64-byte size first (the first size
# of a process reads low on this machine). Writes BUILD_DIR/dpdk-bench.md; --update-doc also
# replaces the generated block of docs/dpdk.md (never edit those numbers by hand).
#
# Memory: DPDK runs on 2 MB hugepages in production, and 4 KB pages change the result (the
# mbuf pool of crypto-perf spreads a burst over 32+ pages, and TLB misses cost each PMD
# differently). --huge auto (default): when run as root on Linux, reserve 640 hugepages of
# 2 MB for the run (and mount hugetlbfs on a private folder), give them back afterwards, and
# say so in the table; otherwise --no-huge. --huge off always uses --no-huge (what the CI tests
# use). --update-doc writes the block of the mode it ran: dpdk-bench (hugepages) or
# dpdk-bench-nohuge; with --tables vec (everything is still measured, the op path's figures
# feed the CPU-crypto table) only the AES-GMAC and CPU-crypto tables go to the doc, into the
# block dpdk-bench-vec or dpdk-bench-vec-nohuge. BUILD_DIR/dpdk-bench-vec.md has them too.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD="$ROOT/build-dpdk-bench"
REPS=5
OPS=2000000
KEYS="16 32"
UPDATE_DOC=0
TABLES=all
HUGE=auto
CPU_MS=300
while [ $# -gt 0 ]; do
  case "$1" in
    -B) BUILD="$2"; shift 2 ;;
    -r) REPS="$2"; shift 2 ;;
    -n) OPS="$2"; shift 2 ;;
    -k) KEYS="$2"; shift 2 ;;
    -t) CPU_MS="$2"; shift 2 ;;
    --update-doc) UPDATE_DOC=1; shift ;;
    --tables) TABLES="$2"; shift 2 ;;
    --huge) HUGE="$2"; shift 2 ;;
    *) echo "usage: $0 [-B BUILD_DIR] [-r REPS] [-n OPS] [-k \"16 32\"] [-t MS] [--huge auto|on|off] [--tables all|vec] [--update-doc]" >&2; exit 2 ;;
  esac
done
SIZES="64,128,256,512,1024,1420,2048"
IMIX_SIZES="64,576,1420"   # 7:4:1 (58/33/9 %), the classic IMIX shape with a 1420-byte ESP payload
IMIX_DIST="58,33,9"
LAT_SIZES="64,256,1420"
LAT_OPS=20000
GMAC_SIZES="64,256,1420,2048"
CPU_SIZES="64 256 1420"

scripts/setup.sh >/dev/null
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DMBGCM_DPDK=ON -DMBGCM_BUILD_TESTS=OFF \
  -DMBGCM_BUILD_PERF=OFF >/dev/null
cmake --build "$BUILD" --target crypto_mbgcm cpu_crypto_bench -j "$(nproc)" >/dev/null
CPU_BENCH="$BUILD/dpdk/test/cpu_crypto_bench"
PERF=$(command -v dpdk-test-crypto-perf)
. "$ROOT/dpdk/test/eal_env.sh"
mbgcm_pmd_path "$BUILD/dpdk/librte_crypto_mbgcm.so"

# hugepages (see the header): reserve, mount privately, give back on exit
HP_SYS=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
HP_WANT=640
HP_OLD=""
HP_DIR=""
MEM_OPT="--no-huge -m 1024"
MEM_NOTE="4 KB pages (EAL --no-huge)"
hp_release() {
  if [ -n "$HP_DIR" ]; then umount "$HP_DIR" 2>/dev/null || true; rmdir "$HP_DIR" 2>/dev/null || true; fi
  if [ -n "$HP_OLD" ]; then echo "$HP_OLD" > "$HP_SYS" 2>/dev/null || true; fi
}
cleanup() { hp_release; mbgcm_pmd_cleanup; }
trap cleanup EXIT
if [ "$HUGE" != off ]; then
  if [ "$(id -u)" -eq 0 ] && [ -w "$HP_SYS" ]; then
    HP_OLD=$(cat "$HP_SYS")
    [ "$HP_OLD" -ge "$HP_WANT" ] || echo "$HP_WANT" > "$HP_SYS" || true
    HP_DIR=$(mktemp -d /tmp/mbgcm-hugepages.XXXXXX)
    if [ "$(cat "$HP_SYS")" -ge "$HP_WANT" ] && mount -t hugetlbfs -o pagesize=2M nodev "$HP_DIR"; then
      MEM_OPT="-m 1024 --huge-dir $HP_DIR"
      MEM_NOTE="2 MB hugepages ($HP_WANT reserved for the run)"
    else
      rmdir "$HP_DIR" 2>/dev/null || true
      HP_DIR=""
    fi
  fi
  if [ "$HUGE" = on ] && [ -z "$HP_DIR" ]; then
    echo "dpdk-bench: --huge on, but 2 MB hugepages could not be reserved (needs root)" >&2
    exit 1
  fi
fi
RAW="$BUILD/dpdk-bench.raw"
: > "$RAW"

eal() { # PMD -> the EAL part of the command line
  local prefix="$MEM_OPT --no-pci --file-prefix mbgcm_bench_$$ --log-level *:error"
  if [ "$1" = mbgcm ]; then
    echo "-l 0,1 $prefix -d $MBGCM_PMD --vdev crypto_mbgcm0"
  else
    echo "-l 0,1 $prefix --vdev crypto_aesni_gcm0"
  fi
}
app() { # PMD KEY -> the crypto-perf part shared by every run
  echo "--devtype crypto_$1 --optype aead --aead-algo aes-gcm --aead-op encrypt" \
       "--aead-key-sz $2 --aead-iv-sz 12 --aead-aad-sz 16 --digest-sz 16 --burst-sz 32"
}

# throughput: "tp PMD KEY SIZE MOPS GBPS CYCLES" lines; IMIX rows have SIZE "imix"
run_tp() { # PMD KEY
  local out
  # shellcheck disable=SC2046
  out=$("$PERF" $(eal "$1") -- --ptest throughput $(app "$1" "$2") --buffer-sz "64,$SIZES" \
        --total-ops "$OPS" --csv-friendly 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
  printf '%s\n' "$out" | grep -E '^ *1,' | tail -n +2 |
    awk -F, -v p="$1" -v k="$2" '{ print "tp", p, k, $2 + 0, $8, $9, $10 }' >> "$RAW"
  # shellcheck disable=SC2046
  out=$("$PERF" $(eal "$1") -- --ptest throughput $(app "$1" "$2") --buffer-sz "$IMIX_SIZES" \
        --imix "$IMIX_DIST" --total-ops "$OPS" --csv-friendly 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
  printf '%s\n' "$out" | grep -E '^ *1,' | tail -1 |
    awk -F, -v p="$1" -v k="$2" '{ print "tp", p, k, "imix", $8, $9, $10 }' >> "$RAW"
}

# AES-GMAC generate: "gmac PMD KEY SIZE MOPS GBPS" lines
run_gmac() { # PMD KEY
  local out
  # shellcheck disable=SC2046
  out=$("$PERF" $(eal "$1") -- --ptest throughput --devtype "crypto_$1" --optype auth-only \
        --auth-algo aes-gmac --auth-op generate --auth-key-sz "$2" --auth-iv-sz 12 --digest-sz 16 \
        --burst-sz 32 --buffer-sz "64,$GMAC_SIZES" --total-ops "$OPS" --csv-friendly 2>&1) ||
    { printf '%s\n' "$out" >&2; return 1; }
  printf '%s\n' "$out" | grep -E '^ *1,' | tail -n +2 |
    awk -F, -v p="$1" -v k="$2" '{ print "gmac", p, k, $2 + 0, $8, $9 }' >> "$RAW"
}

# CPU crypto: "cpu PMD KEY SIZE MOPS GBPS" lines; both PMDs in one process, ORDER first
run_cpu() { # KEY ORDER...
  local key=$1 out; shift
  local devs=()
  for p in "$@"; do devs+=("crypto_${p}0"); done
  # shellcheck disable=SC2046
  out=$("$CPU_BENCH" -l 0 $MEM_OPT --no-pci --file-prefix mbgcm_bench_$$ --log-level '*:error' \
        -d "$MBGCM_PMD" --vdev crypto_mbgcm0 --vdev crypto_aesni_gcm0 -- -r 1 -t "$CPU_MS" \
        -k "$key" -s "$CPU_SIZES" -n 32 "${devs[@]}" 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
  printf '%s\n' "$out" | awk '$1 == "cpu" { sub(/^crypto_/, "", $2); sub(/0$/, "", $2); print }' >> "$RAW"
}

# latency: "lat PMD KEY SIZE MEDIAN_US P99_US" lines, from crypto-perf's per-op times (enqueue
# of the op's burst to its dequeue); medians, because a preempted burst (this machine is
# shared) adds milliseconds to a mean
run_lat() { # PMD KEY
  local out size
  # shellcheck disable=SC2046
  out=$("$PERF" $(eal "$1") -- --ptest latency $(app "$1" "$2") --buffer-sz "$LAT_SIZES" \
        --total-ops "$LAT_OPS" --csv-friendly 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
  for size in ${LAT_SIZES//,/ }; do
    printf '%s\n' "$out" | awk -F, -v s="$size" '/^[0-9]+,/ && $2 == s { print $6 }' | sort -g |
      awk -v p="$1" -v k="$2" -v s="$size" '{ v[NR] = $1 }
        END { if (NR) { q = int(NR * 0.99); if (q < 1) q = 1
                        print "lat", p, k, s, v[int((NR + 1) / 2)], v[q] } }' >> "$RAW"
  done
}

for rep in $(seq 1 "$REPS"); do
  for key in $KEYS; do
    if [ $((rep % 2)) -eq 1 ]; then order="mbgcm aesni_gcm"; else order="aesni_gcm mbgcm"; fi
    for pmd in $order; do
      echo "dpdk-bench: rep $rep/$REPS, AES-$((key * 8)), crypto_$pmd" >&2
      run_tp "$pmd" "$key"
      run_lat "$pmd" "$key"
      run_gmac "$pmd" "$key"
    done
    # shellcheck disable=SC2086
    run_cpu "$key" $order
  done
done

CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || COMMIT="$COMMIT (+ uncommitted changes)"
DPDKV=$(pkg-config --modversion libdpdk)
IMBV=$(dpkg-query -W -f='${Version}' libipsec-mb1 2>/dev/null || echo "?")
# shellcheck disable=SC2046
ARCH=$("$PERF" -l 0,1 $MEM_OPT --no-pci --file-prefix mbgcm_bench_$$ -d "$MBGCM_PMD" \
       --vdev crypto_mbgcm0 -- --ptest throughput $(app mbgcm 16) --buffer-sz 64 --total-ops 1000 \
       --silent 2>&1 | sed -n 's/.*arch \([a-z0-9]*\),.*/\1/p' | head -1 || true)

PEER_NOTE="crypto_aesni_gcm is Debian's DPDK 22.11 PMD with intel-ipsec-mb $IMBV inside"
MEDIAN_AWK='
      function median(s,   a, n, i, j, t) {
        n = split(s, a, " ")
        if (n == 0) return 0
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }'
out_header() {
  echo "Generated by \`scripts/dpdk-bench.sh -r $REPS -n $OPS -k \"$KEYS\" -t $CPU_MS\` on $(date -u '+%Y-%m-%d %H:%M UTC'):"
  echo "commit $COMMIT, $CPU ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end)," \
       "DPDK $DPDKV, intel-ipsec-mb $IMBV, mbgcm arch ${ARCH:-?}, memory: $MEM_NOTE. Median of $REPS runs; both PMDs in the same run."
  echo
}
out_gcm() { # KEY
  local key=$1
    echo "**Throughput, AES-$((key * 8))-GCM encrypt, burst 32** (Mops; Gbps of payload; $PEER_NOTE):"
    echo
    echo "| bytes | crypto_mbgcm Mops | Gbps | crypto_aesni_gcm Mops | Gbps | mbgcm / aesni_gcm |"
    echo "|---:|---:|---:|---:|---:|---:|"
    awk -v k="$key" -v sizes="$SIZES,imix" '
      function median(s,   a, n, i, j, t) {
        n = split(s, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      $1 == "tp" && $3 == k { m[$2, $4] = m[$2, $4] " " $5; g[$2, $4] = g[$2, $4] " " $6 }
      END {
        n = split(sizes, S, ",")
        for (i = 1; i <= n; i++) {
          s = S[i]; a = median(m["mbgcm", s]); b = median(m["aesni_gcm", s])
          printf "| %s | %.2f | %.1f | %.2f | %.1f | %.2f |\n", (s == "imix" ? "IMIX 64/576/1420 7:4:1" : s),
                 a, median(g["mbgcm", s]), b, median(g["aesni_gcm", s]), (b > 0 ? a / b : 0)
        }
      }' "$RAW"
    echo
    echo "**Latency, AES-$((key * 8))-GCM encrypt, burst 32** (us from the enqueue of an op's burst to the op's dequeue; median and 99th percentile of $LAT_OPS ops, then the median over the runs; $PEER_NOTE):"
    echo
    echo "| bytes | crypto_mbgcm median | p99 | crypto_aesni_gcm median | p99 |"
    echo "|---:|---:|---:|---:|---:|"
    awk -v k="$key" -v sizes="$LAT_SIZES" '
      function median(s,   a, n, i, j, t) {
        n = split(s, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }
      $1 == "lat" && $3 == k { l[$2, $4] = l[$2, $4] " " $5; q[$2, $4] = q[$2, $4] " " $6 }
      END {
        n = split(sizes, S, ",")
        for (i = 1; i <= n; i++)
          printf "| %s | %.3f | %.3f | %.3f | %.3f |\n", S[i], median(l["mbgcm", S[i]]),
                 median(q["mbgcm", S[i]]), median(l["aesni_gcm", S[i]]), median(q["aesni_gcm", S[i]])
      }' "$RAW"
    echo
}
out_vec() { # KEY
  local key=$1
    echo "**AES-$((key * 8))-GMAC generate, burst 32** (crypto-perf \`--optype auth-only --auth-algo aes-gmac\`, 16-byte tag; Mops; Gbps of authenticated data; $PEER_NOTE):"
    echo
    echo "| bytes | crypto_mbgcm Mops | Gbps | crypto_aesni_gcm Mops | Gbps | mbgcm / aesni_gcm |"
    echo "|---:|---:|---:|---:|---:|---:|"
    awk -v k="$key" -v sizes="$GMAC_SIZES" "$MEDIAN_AWK"'
      $1 == "gmac" && $3 == k { m[$2, $4] = m[$2, $4] " " $5; g[$2, $4] = g[$2, $4] " " $6 }
      END {
        n = split(sizes, S, ",")
        for (i = 1; i <= n; i++) {
          s = S[i]; a = median(m["mbgcm", s]); b = median(m["aesni_gcm", s])
          printf "| %s | %.2f | %.1f | %.2f | %.1f | %.2f |\n", s, a, median(g["mbgcm", s]), b,
                 median(g["aesni_gcm", s]), (b > 0 ? a / b : 0)
        }
      }' "$RAW"
    echo
    echo "**CPU crypto, AES-$((key * 8))-GCM encrypt** (\`rte_cryptodev_sym_cpu_crypto_process\`, vectors of 32 one-segment elements, in place; Mops = elements per us; \"ops\": crypto_mbgcm's op path, crypto-perf AES-GCM throughput of the same run; $PEER_NOTE):"
    echo
    echo "| bytes | crypto_mbgcm CPU crypto Mops | Gbps | crypto_mbgcm ops Mops | crypto_aesni_gcm CPU crypto Mops | Gbps | mbgcm / aesni_gcm (CPU crypto) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
    awk -v k="$key" -v sizes="${CPU_SIZES// /,}" "$MEDIAN_AWK"'
      $1 == "cpu" && $3 == k { c[$2, $4] = c[$2, $4] " " $5; g[$2, $4] = g[$2, $4] " " $6 }
      $1 == "tp" && $3 == k { t[$2, $4] = t[$2, $4] " " $5 }
      END {
        n = split(sizes, S, ",")
        for (i = 1; i <= n; i++) {
          s = S[i]; a = median(c["mbgcm", s]); b = median(c["aesni_gcm", s])
          printf "| %s | %.2f | %.1f | %.2f | %.2f | %.1f | %.2f |\n", s, a, median(g["mbgcm", s]),
                 median(t["mbgcm", s]), b, median(g["aesni_gcm", s]), (b > 0 ? a / b : 0)
        }
      }' "$RAW"
    echo
}
out_cmds() {
  echo "Commands (per PMD, key size K; crypto_mbgcm adds \`-d .../librte_crypto_mbgcm.so\`):"
  echo
  echo '```'
  echo "dpdk-test-crypto-perf -l 0,1 ${MEM_OPT/\/tmp\/mbgcm-hugepages.*/HUGETLBFS_DIR} --no-pci --file-prefix P -d librte_crypto_mbgcm.so --vdev crypto_mbgcm0 -- \\"
  echo "  --ptest throughput $(app mbgcm K) --buffer-sz 64,$SIZES --total-ops $OPS --csv-friendly"
  echo "dpdk-test-crypto-perf -l 0,1 ${MEM_OPT/\/tmp\/mbgcm-hugepages.*/HUGETLBFS_DIR} --no-pci --file-prefix P --vdev crypto_aesni_gcm0 -- \\"
  echo "  --ptest throughput $(app aesni_gcm K) --buffer-sz 64,$SIZES --total-ops $OPS --csv-friendly"
  echo "  (IMIX: --buffer-sz $IMIX_SIZES --imix $IMIX_DIST; latency: --ptest latency --buffer-sz $LAT_SIZES --total-ops $LAT_OPS --csv-friendly)"
  echo "  (GMAC: --optype auth-only --auth-algo aes-gmac --auth-op generate --auth-key-sz K --auth-iv-sz 12 --digest-sz 16 --burst-sz 32 --buffer-sz 64,$GMAC_SIZES)"
  echo "cpu_crypto_bench -l 0 ${MEM_OPT/\/tmp\/mbgcm-hugepages.*/HUGETLBFS_DIR} --no-pci --file-prefix P -d librte_crypto_mbgcm.so --vdev crypto_mbgcm0 --vdev crypto_aesni_gcm0 -- \\"
  echo "  -r 1 -t $CPU_MS -k K -s \"$CPU_SIZES\" -n 32 crypto_mbgcm0 crypto_aesni_gcm0   (order alternating per rep)"
  echo '```'
}
OUT="$BUILD/dpdk-bench.md"          # every table
OUT_VEC="$BUILD/dpdk-bench-vec.md"  # AES-GMAC and CPU crypto only (--tables vec)
{
  out_header
  for key in $KEYS; do
    out_gcm "$key"
    out_vec "$key"
  done
  out_cmds
} > "$OUT"
{
  out_header
  for key in $KEYS; do
    out_vec "$key"
  done
  out_cmds
} > "$OUT_VEC"
cat "$OUT"

if [ "$UPDATE_DOC" -eq 1 ]; then
  DOC="$ROOT/docs/dpdk.md"
  TAG=dpdk-bench
  SRC="$OUT"
  if [ "$TABLES" = vec ]; then TAG=dpdk-bench-vec; SRC="$OUT_VEC"; fi
  [ -n "$HP_DIR" ] || TAG=$TAG-nohuge
  grep -q "<!-- $TAG:begin -->" "$DOC" || { echo "no $TAG markers in $DOC" >&2; exit 1; }
  awk -v f="$SRC" -v b="<!-- $TAG:begin -->" -v e="<!-- $TAG:end -->" '
    $0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
    $0 == e { skip = 0 }
    !skip' "$DOC" > "$DOC.tmp" && mv "$DOC.tmp" "$DOC"
  echo "dpdk-bench: updated $DOC"
fi
