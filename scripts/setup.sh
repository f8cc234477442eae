#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/setup.sh — install the Debian 12 packages mbgcm needs, when missing.
# Idempotent and non-interactive: runs `apt-get update` at most once, and only when
# something is missing. Used by scripts/test.sh, scripts/bench.sh and .ci/run.
set -euo pipefail

PKGS=(
  build-essential      # gcc, make, libc headers
  cmake                # >= 3.25 (Debian 12 ships 3.25.1)
  nasm                 # the x86-64 kernels
  pkg-config           # pkg-config file checks, DPDK discovery later
  libcmocka-dev        # test framework
  libssl-dev           # OpenSSL 3: differential tests and benchmark peer
  libipsec-mb-dev      # intel-ipsec-mb 1.3: differential tests and benchmark peer
  clang                # fuzzing builds (libFuzzer) and the portable-build check
  libclang-rt-14-dev   # clang's sanitizer/libFuzzer runtime, named explicitly
  valgrind             # memcheck on the portable paths
  gnuplot-nox          # benchmark plots (PNG)
  util-linux           # taskset for pinned benchmarks
  libdpdk-dev          # DPDK 22.11: the crypto_mbgcm cryptodev PMD (dpdk/)
  dpdk-dev             # DPDK development tools
  dpdk                 # dpdk-test-crypto-perf, crypto_aesni_gcm and crypto_scheduler PMDs
  dpkg-dev             # apt-get source (DPDK driver SDK headers, scripts/dpdk-headers.sh)
  xz-utils             # unpacks Debian's dpdk source tarball
  abigail-tools        # abidw/abidiff: the ABI check (scripts/abi-check.sh)
)
# Extra packages may be requested by callers: scripts/setup.sh pkg1 pkg2 ...
PKGS+=("$@")

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then
  SUDO="sudo"
fi
# DPDK's driver SDK headers come from Debian's dpdk source package (scripts/dpdk-headers.sh):
# apt needs deb-src entries for it, added before the one `apt-get update` below.
update=0
if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
  rc=0
  $SUDO "$(dirname "$0")/dpdk-headers.sh" --apt-sources >/dev/null || rc=$?
  case $rc in
    0) ;;
    3) update=1; echo "setup: added deb-src entries for the dpdk source package" ;;
    *) echo "setup: could not add deb-src entries (DPDK PMD headers will be missing)" >&2 ;;
  esac
fi

if [ ${#missing[@]} -eq 0 ] && [ $update -eq 0 ]; then
  echo "setup: all ${#PKGS[@]} packages present"
  exit 0
fi

if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
  echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ ${#missing[@]} -ne 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup: done"
