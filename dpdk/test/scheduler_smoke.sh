#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk/test/scheduler_smoke.sh — crypto_mbgcm instances as workers of DPDK's crypto_scheduler
# PMD in round-robin mode, driven by dpdk-test-crypto-perf:
#   1. --ptest verify through the scheduler (encrypt and decrypt, two vector cases);
#   2. a short throughput run (64..1420 bytes): every op enqueued comes back.
#
#   scheduler_smoke.sh CRYPTO_PERF PMD_SO VECTORS.data VECTORS.cases
#
# Multi-core mode needs a spare worker lcore per worker device (see docs/dpdk.md).
set -euo pipefail
PERF="$1"; SO="$2"; DATA="$3"; CASES="$4"
. "$(dirname "$0")/eal_env.sh"

trap mbgcm_pmd_cleanup EXIT
mbgcm_pmd_path "$SO"
# shellcheck disable=SC2207
EAL=($(mbgcm_eal_args sched))
VDEVS=(--vdev crypto_mbgcm_w0 --vdev crypto_mbgcm_w1
       --vdev "crypto_scheduler_rr,worker=crypto_mbgcm_w0,worker=crypto_mbgcm_w1,mode=round-robin")
fail=0; pass=0

check_csv() { # OUTPUT TOTAL MAX_FAILED_COL: every op back (and verified when a verify run)
  local line
  line=$(printf '%s\n' "$1" | grep -E '^ *[0-9]+, *[0-9]+,[0-9]+,[0-9]+,' || true)
  [ -n "$line" ] || return 1
  printf '%s\n' "$line" | awk -F, -v t="$2" -v v="$3" \
    '{ gsub(/ /, ""); if (!($4 == t && $5 == t && (v == 0 || $8 == 0))) bad = 1 } END { exit bad }'
}

# 1. verify through the scheduler: a short and a long case of each direction
for name in $(awk '!/^#/ && $5 >= 60 { print $1 }' "$CASES" | head -2); do
  read -r _ key iv aad buf tag < <(grep "^$name " "$CASES")
  for op in encrypt decrypt; do
    out=$("$PERF" -l 0,1 "${EAL[@]}" -d "$MBGCM_PMD" "${VDEVS[@]}" -- \
          --ptest verify --devtype crypto_scheduler --optype aead --aead-algo aes-gcm \
          --aead-op "$op" --aead-key-sz "$key" --aead-iv-sz "$iv" --aead-aad-sz "$aad" \
          --digest-sz "$tag" --buffer-sz "$buf" --burst-sz 32 --total-ops 1024 \
          --test-file "$DATA" --test-name "$name" --csv-friendly 2>&1) || true
    if check_csv "$out" 1024 1; then
      pass=$((pass + 1)); echo "ok    scheduler verify $name $op"
    else
      fail=$((fail + 1)); echo "FAIL  scheduler verify $name $op"; printf '%s\n' "$out" | tail -15
    fi
  done
done

# 2. throughput through the scheduler: nothing lost
out=$("$PERF" -l 0,1 "${EAL[@]}" -d "$MBGCM_PMD" "${VDEVS[@]}" -- \
      --ptest throughput --devtype crypto_scheduler --optype aead --aead-algo aes-gcm \
      --aead-op encrypt --aead-key-sz 16 --aead-iv-sz 12 --aead-aad-sz 16 --digest-sz 16 \
      --buffer-sz 64,1420 --burst-sz 32 --total-ops 200000 --csv-friendly 2>&1) || true
if check_csv "$out" 200000 0; then
  pass=$((pass + 1)); echo "ok    scheduler throughput"
  printf '%s\n' "$out" | grep -E '^ *[0-9]+, *[0-9]+,' | sed 's/^/      /'
else
  fail=$((fail + 1)); echo "FAIL  scheduler throughput"; printf '%s\n' "$out" | tail -15
fi

echo "scheduler_smoke: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
