#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk/test/perf_verify.sh — dpdk-test-crypto-perf --ptest verify with crypto_mbgcm loaded
# as a plugin (-d), on the vector file mk_perf_vectors wrote from the project's vectors.
#
#   perf_verify.sh CRYPTO_PERF PMD_SO VECTORS.data VECTORS.cases [GMAC.data GMAC.cases]
#
# Every AES-GCM case: encrypt and decrypt, in place. The first case of at least 64 bytes of each
# key size also: out of place, chained mbufs (--segment-sz 32), a 12- and an 8-byte digest.
# Every AES-GMAC case (--optype auth-only --auth-algo aes-gmac): generate and verify, 16- and
# 8-byte digests, and one chained run. A run passes when every op was enqueued, dequeued and
# verified (crypto-perf's "Failed Ops" column is 0).
set -euo pipefail
PERF="$1"; SO="$2"; DATA="$3"; CASES="$4"; GDATA="${5:-}"; GCASES="${6:-}"
. "$(dirname "$0")/eal_env.sh"

trap mbgcm_pmd_cleanup EXIT
mbgcm_pmd_path "$SO"
PMD="$MBGCM_PMD"
# shellcheck disable=SC2207
EAL=($(mbgcm_eal_args verify))
TOTAL=512
pass=0; fail=0

run() { # NAME KEY IV AAD BUF TAG OP EXTRA...   (AAD "gmac": auth-only AES-GMAC, OP generate|verify)
  local name=$1 key=$2 iv=$3 aad=$4 buf=$5 tag=$6 op=$7; shift 7
  local out line
  local -a alg
  if [ "$aad" = gmac ]; then
    alg=(--optype auth-only --auth-algo aes-gmac --auth-op "$op" --auth-key-sz "$key"
         --auth-iv-sz "$iv" --test-file "$GDATA")
  else
    alg=(--optype aead --aead-algo aes-gcm --aead-op "$op" --aead-key-sz "$key"
         --aead-iv-sz "$iv" --aead-aad-sz "$aad" --test-file "$DATA")
  fi
  out=$("$PERF" -l 0,1 "${EAL[@]}" -d "$PMD" --vdev crypto_mbgcm0 -- \
        --ptest verify --devtype crypto_mbgcm "${alg[@]}" \
        --digest-sz "$tag" --buffer-sz "$buf" --burst-sz 32 --total-ops $TOTAL \
        --test-name "$name" --csv-friendly "$@" 2>&1) || true
  # csv: lcore, buffer size, burst size, enqueued, dequeued, failed enq, failed deq, failed ops
  line=$(printf '%s\n' "$out" | grep -E '^ *[0-9]+, *[0-9]+,[0-9]+,[0-9]+,' | tail -1 || true)
  if [ -n "$line" ] && echo "$line" | awk -F, -v t=$TOTAL \
       '{ gsub(/ /, ""); exit !($4 == t && $5 == t && $8 == 0) }'; then
    pass=$((pass + 1))
    printf 'ok    %-24s %-7s tag %-2s %s\n' "$name" "$op" "$tag" "$*"
  else
    fail=$((fail + 1))
    printf 'FAIL  %-24s %-7s tag %-2s %s\n' "$name" "$op" "$tag" "$*"
    printf '%s\n' "$out" | tail -20 | sed 's/^/      /'
  fi
}

declare -A first=()
while read -r name key iv aad buf tag; do
  case "$name" in ''|'#'*) continue ;; esac
  for op in encrypt decrypt; do
    run "$name" "$key" "$iv" "$aad" "$buf" "$tag" "$op"
  done
  if [ -z "${first[$key]:-}" ] && [ "$buf" -ge 64 ]; then
    first[$key]=1
    for op in encrypt decrypt; do
      # crypto-perf 22.11 takes --out-of-place only with one segment, and only when
      # --segment-sz says so explicitly (larger than the buffer)
      run "$name" "$key" "$iv" "$aad" "$buf" "$tag" "$op" --out-of-place --segment-sz $((buf + 64))
      run "$name" "$key" "$iv" "$aad" "$buf" "$tag" "$op" --segment-sz 32
      # (crypto-perf verifies a chained digest only when it fits in the last data segment)
      run "$name" "$key" "$iv" "$aad" "$buf" 12 "$op" --segment-sz 32
      run "$name" "$key" "$iv" "$aad" "$buf" 8 "$op" --out-of-place --segment-sz $((buf + 64))
    done
  fi
done < "$CASES"

if [ -n "$GCASES" ]; then
  first_gmac=1
  while read -r name key iv buf tag; do
    case "$name" in ''|'#'*) continue ;; esac
    for op in generate verify; do
      run "$name" "$key" "$iv" gmac "$buf" "$tag" "$op"
      run "$name" "$key" "$iv" gmac "$buf" 8 "$op"
    done
    if [ "$first_gmac" = 1 ] && [ "$buf" -ge 64 ]; then
      first_gmac=0
      # chained: the range spans segments (gathered); the digest in the last one
      run "$name" "$key" "$iv" gmac "$buf" "$tag" generate --segment-sz 32
      run "$name" "$key" "$iv" gmac "$buf" "$tag" verify --segment-sz 32
    fi
  done < "$GCASES"
fi

echo "perf_verify: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
