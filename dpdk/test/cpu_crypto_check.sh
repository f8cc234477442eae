#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk/test/cpu_crypto_check.sh — the CPU-crypto API of crypto_mbgcm (loaded with -d, as an
# application would) against Debian's crypto_aesni_gcm: the same inputs, AES-GCM encrypt and
# AES-GMAC generate, 128/192/256-bit keys, vectors of 32 elements of 0..2048 bytes, must give
# the same ciphertext and tags (cpu_crypto_bench --check). Exit 77 (skipped) when
# crypto_aesni_gcm is not installed.
#
#   cpu_crypto_check.sh CPU_CRYPTO_BENCH PMD_SO
set -euo pipefail
BENCH="$1"; SO="$2"
. "$(dirname "$0")/eal_env.sh"
trap mbgcm_pmd_cleanup EXIT
mbgcm_pmd_path "$SO"
# shellcheck disable=SC2046
"$BENCH" -l 0 $(mbgcm_eal_args cpucheck) -d "$MBGCM_PMD" -- --check crypto_mbgcm0 \
  crypto_aesni_gcm0
