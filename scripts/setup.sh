#!/usr/bin/env bash
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
)
# Extra packages may be requested by callers: scripts/setup.sh pkg1 pkg2 ...
PKGS+=("$@")

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PKGS[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup: done"
