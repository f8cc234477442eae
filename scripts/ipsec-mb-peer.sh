#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/ipsec-mb-peer.sh — the current intel-ipsec-mb, built from a source the caller names,
# once per source, cached outside the tree; and, on request, DPDK's own ipsec-mb PMDs built
# against it (the peer a DPDK user with a current intel-ipsec-mb would run).
#
#   scripts/ipsec-mb-peer.sh [--rebuild] [-j N] SRC
#       SRC: an intel-ipsec-mb source tree or tarball. Builds the library (Release, library
#       only, ~3 min on 2 cores) into ${XDG_CACHE_HOME:-~/.cache}/mbgcm/ipsec-mb-NAME-HASH
#       (HASH: sha256 of the tarball, or of the tree's CMakeLists.txt, cmake/ and lib/) unless
#       it is there, and prints the prefix (include/intel-ipsec-mb.h, lib/libIPSec_MB.so*).
#   scripts/ipsec-mb-peer.sh --dpdk-pmd [--rebuild] [-j N] SRC
#       The same library, then DPDK's crypto_aesni_gcm and crypto_aesni_mb PMDs compiled from
#       Debian's source package of the installed DPDK (22.11: drivers/crypto/ipsec_mb, fetched
#       with `apt-get source --download-only`, never kept in the tree) against it, renamed
#       crypto_cur_aesni_gcm and crypto_cur_aesni_mb so that they load beside Debian's own
#       (intel-ipsec-mb 1.3 inside) in one process. Prints the path of the plugin
#       (librte_crypto_ipsec_mb_cur.so, for EAL's -d), cached beside the library per DPDK
#       version. The other PMDs of that driver (KASUMI, SNOW3G, ZUC, ChaCha20-Poly1305) are
#       left out.
# Progress goes to stderr, the path to stdout. Relative SRC paths are the caller's.
set -euo pipefail
CALLER_PWD=$PWD
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JOBS=$(nproc)
REBUILD=0
DPDK=0
usage() { echo "usage: $0 [--dpdk-pmd] [--rebuild] [-j N] SRC" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --dpdk-pmd) DPDK=1; shift ;;
    --rebuild) REBUILD=1; shift ;;
    -j) [ $# -ge 2 ] || usage; JOBS="$2"; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || usage
SRC=$1

T0=$SECONDS
log() { echo "ipsec-mb-peer: $* ($((SECONDS - T0)) s)" >&2; }
fail() { echo "ipsec-mb-peer: error: $*" >&2; exit 1; }
# cached DIR DONE WHAT: 0 (with a log line) when DIR holds a finished build (its file DONE);
# else 1, with DIR emptied for a new one. --rebuild removes it first.
cached() {
  [ "$REBUILD" -eq 0 ] || rm -rf "$1"
  if [ -f "$2" ]; then
    log "$3: cached in $1"
    return 0
  fi
  rm -rf "$1"
  mkdir -p "$1"
  return 1
}

# ---- the library ------------------------------------------------------------------------------
case "$SRC" in /*) ;; *) SRC="$CALLER_PWD/$SRC" ;; esac
if [ -f "$SRC" ]; then
  case "$SRC" in
    *.tar.gz|*.tgz|*.tar.xz|*.tar.bz2|*.tar) ;;
    *) fail "$SRC: not a directory or a tarball" ;;
  esac
  NAME=$(basename "$SRC")
  NAME=${NAME%.tgz}
  NAME=${NAME%.tar*}
  NAME=${NAME#intel-ipsec-mb-}
  HASH=$(sha256sum "$SRC" | cut -c1-12)
elif [ -d "$SRC" ]; then
  [ -f "$SRC/lib/intel-ipsec-mb.h" ] || fail "$SRC: no lib/intel-ipsec-mb.h there"
  SRC=$(cd "$SRC" && pwd)
  NAME=$(basename "$SRC")
  NAME=${NAME#intel-ipsec-mb-}
  # What the library target builds from; a build directory inside the tree is not hashed.
  HASH=$(cd "$SRC" && find CMakeLists.txt cmake lib -type f -print0 | LC_ALL=C sort -z |
         xargs -0 sha256sum | sha256sum | cut -c1-12)
else
  fail "$SRC: no such file or directory"
fi
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/mbgcm/ipsec-mb-$NAME-$HASH"
mkdir -p "$(dirname "$CACHE")"
(
  flock 9   # two runs at once build it once
  ! cached "$CACHE" "$CACHE/prefix/.complete" "intel-ipsec-mb $NAME" || exit 0
  srcdir=$SRC
  if [ -f "$SRC" ]; then
    mkdir -p "$CACHE/src"
    tar -xf "$SRC" -C "$CACHE/src"
    srcdir=$(dirname "$(find "$CACHE/src" -maxdepth 3 -path '*/lib/intel-ipsec-mb.h' | head -n 1)")
    srcdir=${srcdir%/lib}
    [ -f "$srcdir/lib/intel-ipsec-mb.h" ] || fail "$SRC: no lib/intel-ipsec-mb.h inside"
  fi
  log "building intel-ipsec-mb $NAME (library only, Release, -j $JOBS; log: $CACHE/build.log)"
  if ! { cmake -S "$srcdir" -B "$CACHE/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_LIBRARY_ONLY=ON &&
         cmake --build "$CACHE/build" -j "$JOBS" --target IPSec_MB; } >"$CACHE/build.log" 2>&1; then
    tail -n 30 "$CACHE/build.log" >&2
    fail "intel-ipsec-mb build failed (log: $CACHE/build.log)"
  fi
  mkdir -p "$CACHE/prefix/include" "$CACHE/prefix/lib"
  cp "$srcdir/lib/intel-ipsec-mb.h" "$CACHE/prefix/include/"
  cp -a "$CACHE/build/lib/"libIPSec_MB.so* "$CACHE/prefix/lib/"
  echo "intel-ipsec-mb built from $SRC (sha256 prefix $HASH) on $(date -u '+%Y-%m-%d %H:%M UTC')" \
    >"$CACHE/prefix/SOURCE"
  rm -rf "$CACHE/src" "$CACHE/build"
  touch "$CACHE/prefix/.complete"
  log "intel-ipsec-mb $NAME: built into $CACHE"
) 9>"$CACHE.lock" >&2 || exit 1
PREFIX="$CACHE/prefix"
[ -f "$PREFIX/.complete" ] || fail "no intel-ipsec-mb build from $SRC"
if [ "$DPDK" -eq 0 ]; then
  echo "$PREFIX"
  exit 0
fi

# ---- DPDK's ipsec-mb PMDs against it ------------------------------------------------------------
DPDKVER=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
  fail "libdpdk-dev is not installed (scripts/setup.sh installs it)"
PMDDIR="$CACHE/dpdk-$DPDKVER"
SO="$PMDDIR/librte_crypto_ipsec_mb_cur.so"
(
  flock 9
  ! cached "$PMDDIR" "$PMDDIR/.complete" "DPDK $DPDKVER ipsec-mb PMDs on intel-ipsec-mb $NAME" ||
    exit 0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  # The driver SDK headers (cryptodev_pmd.h, bus_vdev_driver.h, dev_driver.h) the mbgcm PMD
  # uses too, then the driver's own sources from the same source package.
  "$ROOT/scripts/dpdk-headers.sh" "$tmp/sdk" >&2
  log "fetching Debian's dpdk source package ($DPDKVER) for drivers/crypto/ipsec_mb"
  (cd "$tmp" && apt-get source --download-only "dpdk=$DPDKVER" >/dev/null 2>&1 ||
     apt-get source --download-only dpdk >/dev/null 2>&1) ||
    fail "apt-get source dpdk failed (deb-src entries: scripts/dpdk-headers.sh --apt-setup)"
  orig=$(ls "$tmp"/dpdk_*.orig.tar.* | head -n 1)
  tar -xf "$orig" -C "$tmp" --wildcards '*/drivers/crypto/ipsec_mb/*'
  drv=$(dirname "$(find "$tmp" -path '*/drivers/crypto/ipsec_mb/pmd_aesni_gcm.c' | head -n 1)")
  [ -f "$drv/ipsec_mb_private.h" ] || fail "no drivers/crypto/ipsec_mb in $orig"
  # Renamed, so that both this build and Debian's (loaded from DPDK's plugin folder) register.
  sed -i -e 's/^\(#define CRYPTODEV_NAME_AESNI_MB_PMD\) crypto_aesni_mb$/\1 crypto_cur_aesni_mb/' \
         -e 's/^\(#define CRYPTODEV_NAME_AESNI_GCM_PMD\) crypto_aesni_gcm$/\1 crypto_cur_aesni_gcm/' \
      "$drv/ipsec_mb_private.h"
  grep -q 'crypto_cur_aesni_gcm$' "$drv/ipsec_mb_private.h" &&
    grep -q 'crypto_cur_aesni_mb$' "$drv/ipsec_mb_private.h" ||
    fail "the PMD names in $drv/ipsec_mb_private.h are not where this script expects them"
  # The driver IDs of the PMDs left out (the shared header's switch names them all).
  printf '#include <stdint.h>\nuint8_t pmd_driver_id_kasumi, pmd_driver_id_snow3g,\n%s\n' \
    '        pmd_driver_id_zuc, pmd_driver_id_chacha20_poly1305;' > "$drv/ids_left_out.c"
  major=$(ls "$PREFIX/lib" | sed -n 's/^libIPSec_MB\.so\.\([0-9]*\)$/\1/p' | head -n 1)
  [ -n "$major" ] || fail "no libIPSec_MB.so.N in $PREFIX/lib"
  log "compiling crypto_cur_aesni_gcm and crypto_cur_aesni_mb against intel-ipsec-mb $NAME"
  # shellcheck disable=SC2046 # pkg-config's flags are words
  if ! gcc -O3 -fPIC -shared -o "$SO.tmp" \
        $(pkg-config --cflags libdpdk) -I"$tmp/sdk/include" -I"$PREFIX/include" \
        -DALLOW_EXPERIMENTAL_API -DALLOW_INTERNAL_API \
        -DRTE_LOG_DEFAULT_LOGTYPE=pmd.crypto.ipsec_mb_cur \
        "$drv/ipsec_mb_private.c" "$drv/ipsec_mb_ops.c" "$drv/pmd_aesni_gcm.c" \
        "$drv/pmd_aesni_mb.c" "$drv/ids_left_out.c" \
        -L"$PREFIX/lib" -l:libIPSec_MB.so."$major" \
        -Wl,-rpath,"$PREFIX/lib" $(pkg-config --libs libdpdk) -lrte_bus_vdev -lrte_security \
        -Wl,--no-undefined >"$PMDDIR/build.log" 2>&1; then
    tail -n 30 "$PMDDIR/build.log" >&2
    fail "building the PMDs failed (log: $PMDDIR/build.log)"
  fi
  mv "$SO.tmp" "$SO"
  echo "DPDK $DPDKVER drivers/crypto/ipsec_mb (aesni_gcm, aesni_mb) on intel-ipsec-mb $NAME" \
    >"$PMDDIR/SOURCE"
  touch "$PMDDIR/.complete"
  log "DPDK ipsec-mb PMDs: built into $PMDDIR"
) 9>"$CACHE.dpdk.lock" >&2 || exit 1
[ -f "$PMDDIR/.complete" ] || fail "no DPDK PMD build for intel-ipsec-mb $NAME"
echo "$SO"
