#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/dpdk-bench.sh — crypto_mbgcm vs crypto_aesni_gcm (Debian's DPDK 22.11 PMD, with
# ipsec-mb 1.3 inside) and, given a current intel-ipsec-mb source (--ipsec-mb-src), the same
# driver's crypto_aesni_gcm and crypto_aesni_mb built against it (scripts/ipsec-mb-peer.sh
# --dpdk-pmd; they load as crypto_cur_aesni_gcm and crypto_cur_aesni_mb) in one run:
# dpdk-test-crypto-perf throughput (64..2048 bytes and IMIX, burst 32; chained mbufs of 512-
# and 2048-byte segments) and latency, AES-128-GCM and AES-256-GCM encrypt, 16-byte AAD,
# 16-byte tag, in place; AES-GMAC generate throughput (crypto-perf --optype auth-only, 16-byte tag); and the
# CPU-crypto API (dpdk/test/cpu_crypto_bench.c: vectors of 32 one-segment elements of 64, 256
# and 1420 bytes, AES-GCM encrypt, MS ms per measurement) beside the op path.
#
#   scripts/dpdk-bench.sh [-B BUILD_DIR] [-r REPS] [-n OPS] [-k "16 32"] [-t MS]
#                         [--huge auto|on|off] [--tables all|vec] [--update-doc]
#                         [--ipsec-mb-src DIR|TARBALL]
#
# --ipsec-mb-src (default: $IPSEC_MB_SRC; nothing is looked up anywhere else): the ratios are
# then against the faster of the two current PMDs at each point ("best current"), beside the
# ratio against Debian's PMD; without it, against Debian's alone, two major versions old.
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
CALLER_PWD=$PWD   # relative --ipsec-mb-src paths are the caller's
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
PEER_SRC=${IPSEC_MB_SRC:-}
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
    --ipsec-mb-src) PEER_SRC="$2"; shift 2 ;;
    *) echo "usage: $0 [-B BUILD_DIR] [-r REPS] [-n OPS] [-k \"16 32\"] [-t MS] [--huge auto|on|off] [--tables all|vec] [--update-doc] [--ipsec-mb-src DIR|TARBALL]" >&2; exit 2 ;;
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
# the peers: Debian's PMD always; the current intel-ipsec-mb's two when its source is given
CUR_LIST=""   # the current intel-ipsec-mb's PMDs
CUR_PMD=""
CUR_COPY_DIR=""
IMB_CUR=""
if [ -n "$PEER_SRC" ]; then
  case "$PEER_SRC" in /*) ;; *) PEER_SRC="$CALLER_PWD/$PEER_SRC" ;; esac
  CUR_SO=$("$ROOT/scripts/ipsec-mb-peer.sh" --dpdk-pmd "$PEER_SRC")
  IMB_CUR=$(sed -n 's/^#define IMB_VERSION_STR "\(.*\)"$/\1/p' \
            "$("$ROOT/scripts/ipsec-mb-peer.sh" "$PEER_SRC")/include/intel-ipsec-mb.h")
  mbgcm_pmd_path "$CUR_SO"
  CUR_PMD=$MBGCM_PMD
  CUR_COPY_DIR=$MBGCM_PMD_COPY_DIR
  MBGCM_PMD_COPY_DIR=""
  CUR_LIST="cur_aesni_gcm cur_aesni_mb"
fi
PEERS="aesni_gcm${CUR_LIST:+ $CUR_LIST}"
PMDS="mbgcm $PEERS"
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
cleanup() { hp_release; mbgcm_pmd_cleanup; [ -z "$CUR_COPY_DIR" ] || rm -rf "$CUR_COPY_DIR"; }
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
  case "$1" in
    mbgcm) echo "-l 0,1 $prefix -d $MBGCM_PMD --vdev crypto_mbgcm0" ;;
    cur_*) echo "-l 0,1 $prefix -d $CUR_PMD --vdev crypto_${1}0" ;;
    *) echo "-l 0,1 $prefix --vdev crypto_${1}0" ;;
  esac
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

# chained mbufs (crypto-perf --segment-sz: each buffer a chain of segments of that many bytes),
# AES-GCM encrypt: "chain PMD KEY SIZE/SEGMENT MOPS GBPS" lines
run_chain() { # PMD KEY
  local out seg sizes
  for seg in 512 2048; do
    sizes="64,2048,8192"
    [ "$seg" -eq 512 ] || sizes="64,8192"
    # shellcheck disable=SC2046
    out=$("$PERF" $(eal "$1") -- --ptest throughput $(app "$1" "$2") --buffer-sz "$sizes" \
          --segment-sz "$seg" --total-ops "$((OPS / 4))" --csv-friendly 2>&1) ||
      { printf '%s\n' "$out" >&2; return 1; }
    printf '%s\n' "$out" | grep -E '^ *1,' | tail -n +2 |
      awk -F, -v p="$1" -v k="$2" -v g="$seg" '{ print "chain", p, k, ($2 + 0) "/" g, $8, $9 }' >> "$RAW"
  done
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

# CPU crypto: "cpu PMD KEY SIZE MOPS GBPS" lines; every PMD in one process, ORDER first
run_cpu() { # KEY ORDER...
  local key=$1 out; shift
  local devs=() vdevs=(-d "$MBGCM_PMD")
  [ -z "$CUR_PMD" ] || vdevs+=(-d "$CUR_PMD")
  for p in "$@"; do devs+=("crypto_${p}0"); vdevs+=(--vdev "crypto_${p}0"); done
  # shellcheck disable=SC2046
  out=$("$CPU_BENCH" -l 0 $MEM_OPT --no-pci --file-prefix mbgcm_bench_$$ --log-level '*:error' \
        "${vdevs[@]}" -- -r 1 -t "$CPU_MS" \
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

# which PMD goes first turns with each rep (and key size)
rotate() { # N WORDS... -> WORDS rotated left by N
  local n=$1; shift
  local a=("$@") k=$# i
  for ((i = 0; i < k; i++)); do printf '%s ' "${a[$(((i + n) % k))]}"; done
}
turn=0
for rep in $(seq 1 "$REPS"); do
  for key in $KEYS; do
    # shellcheck disable=SC2086
    order=$(rotate "$turn" $PMDS)
    turn=$((turn + 1))
    for pmd in $order; do
      echo "dpdk-bench: rep $rep/$REPS, AES-$((key * 8)), crypto_$pmd" >&2
      run_tp "$pmd" "$key"
      run_lat "$pmd" "$key"
      run_gmac "$pmd" "$key"
      run_chain "$pmd" "$key"
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

if [ -n "$IMB_CUR" ]; then
  PEER_NOTE="crypto_aesni_gcm (1.3) is Debian's DPDK 22.11 PMD with intel-ipsec-mb $IMBV inside;"
  PEER_NOTE="$PEER_NOTE (cur) the same driver's crypto_aesni_gcm and crypto_aesni_mb built against"
  PEER_NOTE="$PEER_NOTE intel-ipsec-mb $IMB_CUR; best current = the faster of those two at each point"
else
  PEER_NOTE="crypto_aesni_gcm is Debian's DPDK 22.11 PMD with intel-ipsec-mb $IMBV inside, two"
  PEER_NOTE="$PEER_NOTE major versions old (no current intel-ipsec-mb source was given)"
fi
MEDIAN_AWK='
      function median(s,   a, n, i, j, t) {
        n = split(s, a, " ")
        if (n == 0) return 0
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
      }'
# column titles of the PMDs, in the order of $PMDS
label() {
  case "$1" in
    mbgcm) echo "crypto_mbgcm" ;;
    aesni_gcm) if [ -n "$IMB_CUR" ]; then echo "aesni_gcm (1.3)"; else echo "crypto_aesni_gcm"; fi ;;
    cur_aesni_gcm) echo "aesni_gcm (cur)" ;;
    cur_aesni_mb) echo "aesni_mb (cur)" ;;
  esac
}
# The table awk programs share: median(), the PMD list, and ratios against the best current
# peer (or Debian's when no current one ran) and against Debian's.
TABLE_AWK="$MEDIAN_AWK"'
      function best(arr, s,   i, n, P, b, v) {
        n = split(cur, P, " "); b = 0
        for (i = 1; i <= n; i++) { v = median(arr[P[i], s]); if (v > b) b = v }
        return b
      }
      function ratios(a, arr, s,   b, d) {
        d = median(arr["aesni_gcm", s])
        if (cur == "") return sprintf(" %.2f |", d > 0 ? a / d : 0)
        b = best(arr, s)
        return sprintf(" %.2f | %.2f |", b > 0 ? a / b : 0, d > 0 ? a / d : 0)
      }'
ratio_titles() { # -> the ratio columns' titles and the rule's cells
  if [ -n "$IMB_CUR" ]; then echo "mbgcm / best current | mbgcm / aesni_gcm (1.3) |"; else
    echo "mbgcm / aesni_gcm |"; fi
}
ratio_rule() { if [ -n "$IMB_CUR" ]; then echo "---:|---:|"; else echo "---:|"; fi; }
out_header() {
  echo "Generated by \`scripts/dpdk-bench.sh -r $REPS -n $OPS -k \"$KEYS\" -t $CPU_MS${IMB_CUR:+ --ipsec-mb-src ...}\` on $(date -u '+%Y-%m-%d %H:%M UTC'):"
  echo "commit $COMMIT, $CPU ($(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end)," \
       "DPDK $DPDKV, intel-ipsec-mb $IMBV (Debian's)${IMB_CUR:+ and $IMB_CUR (built from source)}, mbgcm arch ${ARCH:-?}, memory: $MEM_NOTE. Median of $REPS runs; every PMD in the same run."
  echo
}
# | bytes | crypto_mbgcm Mops | Gbps | <each peer> Mops | ratios |, from KIND lines
mops_table() { # KIND KEY SIZES
  local head="| bytes | crypto_mbgcm Mops | Gbps |" rule="|---:|---:|---:|" p
  for p in $PEERS; do head="$head $(label "$p") Mops |"; rule="$rule---:|"; done
  echo "$head $(ratio_titles)"
  echo "$rule$(ratio_rule)"
  awk -v kind="$1" -v k="$2" -v sizes="$3" -v peers="$PEERS" -v cur="$CUR_LIST" "$TABLE_AWK"'
      $1 == kind && $3 == k { m[$2, $4] = m[$2, $4] " " $5; g[$2, $4] = g[$2, $4] " " $6 }
      END {
        n = split(sizes, S, ","); np = split(peers, P, " ")
        for (i = 1; i <= n; i++) {
          s = S[i]; a = median(m["mbgcm", s])
          line = sprintf("| %s | %.2f | %.1f |", (s == "imix" ? "IMIX 64/576/1420 7:4:1" : s), a,
                         median(g["mbgcm", s]))
          for (j = 1; j <= np; j++) line = line sprintf(" %.2f |", median(m[P[j], s]))
          print line ratios(a, m, s)
        }
      }' "$RAW"
}
out_gcm() { # KEY
  local key=$1 head rule p
    echo "**Throughput, AES-$((key * 8))-GCM encrypt, burst 32** (Mops; Gbps of payload; $PEER_NOTE):"
    echo
    mops_table tp "$key" "$SIZES,imix"
    echo
    echo "**Chained mbufs, AES-$((key * 8))-GCM encrypt, burst 32** (crypto-perf \`--segment-sz\`: bytes / segment size; Mops; Gbps of payload; $PEER_NOTE):"
    echo
    mops_table chain "$key" "2048/512,8192/512,8192/2048"
    echo
    echo "**Latency, AES-$((key * 8))-GCM encrypt, burst 32** (us from the enqueue of an op's burst to the op's dequeue; median and 99th percentile of $LAT_OPS ops, then the median over the runs; $PEER_NOTE):"
    echo
    head="| bytes |"; rule="|---:|"
    for p in $PMDS; do head="$head $(label "$p") median | p99 |"; rule="$rule---:|---:|"; done
    echo "$head"
    echo "$rule"
    awk -v k="$key" -v sizes="$LAT_SIZES" -v pmds="$PMDS" "$MEDIAN_AWK"'
      $1 == "lat" && $3 == k { l[$2, $4] = l[$2, $4] " " $5; q[$2, $4] = q[$2, $4] " " $6 }
      END {
        n = split(sizes, S, ","); np = split(pmds, P, " ")
        for (i = 1; i <= n; i++) {
          line = sprintf("| %s |", S[i])
          for (j = 1; j <= np; j++)
            line = line sprintf(" %.3f | %.3f |", median(l[P[j], S[i]]), median(q[P[j], S[i]]))
          print line
        }
      }' "$RAW"
    echo
}
out_vec() { # KEY
  local key=$1 head rule p
    echo "**AES-$((key * 8))-GMAC generate, burst 32** (crypto-perf \`--optype auth-only --auth-algo aes-gmac\`, 16-byte tag; Mops; Gbps of authenticated data; $PEER_NOTE):"
    echo
    mops_table gmac "$key" "$GMAC_SIZES"
    echo
    echo "**CPU crypto, AES-$((key * 8))-GCM encrypt** (\`rte_cryptodev_sym_cpu_crypto_process\`, vectors of 32 one-segment elements, in place; Mops = elements per us; \"ops\": crypto_mbgcm's op path, crypto-perf AES-GCM throughput of the same run; $PEER_NOTE):"
    echo
    head="| bytes | crypto_mbgcm CPU crypto Mops | Gbps | crypto_mbgcm ops Mops |"; rule="|---:|---:|---:|---:|"
    for p in $PEERS; do head="$head $(label "$p") Mops |"; rule="$rule---:|"; done
    echo "$head $(ratio_titles)"
    echo "$rule$(ratio_rule)"
    awk -v k="$key" -v sizes="${CPU_SIZES// /,}" -v peers="$PEERS" -v cur="$CUR_LIST" "$TABLE_AWK"'
      $1 == "cpu" && $3 == k { c[$2, $4] = c[$2, $4] " " $5; g[$2, $4] = g[$2, $4] " " $6 }
      $1 == "tp" && $3 == k { t[$2, $4] = t[$2, $4] " " $5 }
      END {
        n = split(sizes, S, ","); np = split(peers, P, " ")
        for (i = 1; i <= n; i++) {
          s = S[i]; a = median(c["mbgcm", s])
          line = sprintf("| %s | %.2f | %.1f | %.2f |", s, a, median(g["mbgcm", s]), median(t["mbgcm", s]))
          for (j = 1; j <= np; j++) line = line sprintf(" %.2f |", median(c[P[j], s]))
          print line ratios(a, c, s)
        }
      }' "$RAW"
    echo
}
out_cmds() {
  local mem=${MEM_OPT/\/tmp\/mbgcm-hugepages.*/HUGETLBFS_DIR} p devs=""
  echo "Commands (per PMD, key size K; crypto_mbgcm adds \`-d .../librte_crypto_mbgcm.so\`${IMB_CUR:+, the current PMDs \`-d .../librte_crypto_ipsec_mb_cur.so\`}):"
  echo
  echo '```'
  echo "dpdk-test-crypto-perf -l 0,1 $mem --no-pci --file-prefix P -d librte_crypto_mbgcm.so --vdev crypto_mbgcm0 -- \\"
  echo "  --ptest throughput $(app mbgcm K) --buffer-sz 64,$SIZES --total-ops $OPS --csv-friendly"
  for p in $PEERS; do
    echo "dpdk-test-crypto-perf -l 0,1 $mem --no-pci --file-prefix P ${CUR_PMD:+$([ "${p#cur_}" = "$p" ] || echo "-d librte_crypto_ipsec_mb_cur.so ")}--vdev crypto_${p}0 -- \\"
    echo "  --ptest throughput $(app "$p" K) --buffer-sz 64,$SIZES --total-ops $OPS --csv-friendly"
  done
  echo "  (IMIX: --buffer-sz $IMIX_SIZES --imix $IMIX_DIST; latency: --ptest latency --buffer-sz $LAT_SIZES --total-ops $LAT_OPS --csv-friendly)"
  echo "  (chained mbufs: --buffer-sz 64,2048,8192 --segment-sz 512, then --buffer-sz 64,8192 --segment-sz 2048; --total-ops $((OPS / 4)))"
  echo "  (GMAC: --optype auth-only --auth-algo aes-gmac --auth-op generate --auth-key-sz K --auth-iv-sz 12 --digest-sz 16 --burst-sz 32 --buffer-sz 64,$GMAC_SIZES)"
  for p in $PMDS; do devs="$devs crypto_${p}0"; done
  echo "cpu_crypto_bench -l 0 $mem --no-pci --file-prefix P -d librte_crypto_mbgcm.so${CUR_PMD:+ -d librte_crypto_ipsec_mb_cur.so}$(for p in $PMDS; do printf ' --vdev crypto_%s0' "$p"; done) -- \\"
  echo "  -r 1 -t $CPU_MS -k K -s \"$CPU_SIZES\" -n 32$devs   (order turning per rep)"
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
