#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/dpdk-headers.sh — the DPDK driver-SDK headers the crypto_mbgcm PMD needs.
#
# Debian 12's libdpdk-dev (22.11) installs the application headers but not the driver SDK
# ones (cryptodev_pmd.h, bus_vdev_driver.h, dev_driver.h). They come from Debian's own
# source package of the *installed* DPDK version, so that the struct layouts match the
# installed libraries (22.11.3 changed rte_cryptodev_data.socket_id to int, for example).
# No DPDK source is ever committed: the headers are extracted into the build tree.
#
#   scripts/dpdk-headers.sh --apt-sources (root; scripts/setup.sh runs it before its update)
#       When apt does not know the dpdk source package: writes deb-src entries matching the
#       deb822 `debian.sources` (or the one-line sources.list) suites to
#       /etc/apt/sources.list.d/mbgcm-deb-src.sources and exits 3 (apt-get update needed).
#   scripts/dpdk-headers.sh --apt-setup   (root) --apt-sources, then apt-get update if needed.
#   scripts/dpdk-headers.sh OUTDIR        (any user; dpdk/CMakeLists.txt runs it at configure)
#       `apt-get source --download-only dpdk=<installed version>` (falling back to the
#       candidate 22.11.x when that exact version is gone from the archive) into a temporary
#       folder, then extracts only the needed headers into OUTDIR/include and records the
#       version in OUTDIR/VERSION. Does nothing when OUTDIR already holds that version.
set -euo pipefail

HEADERS=(
  lib/cryptodev/cryptodev_pmd.h
  drivers/bus/vdev/bus_vdev_driver.h
  lib/eal/include/dev_driver.h
)

die() { echo "dpdk-headers: $*" >&2; exit 1; }

installed_version() {
  dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null || true
}

# Exit status: 0 when apt already knows the dpdk source package, 3 when the deb-src entries
# were (re)written and the caller must run `apt-get update`.
apt_sources() {
  [ "$(id -u)" -eq 0 ] || die "--apt-sources needs root"
  local ver; ver=$(installed_version)
  if apt-cache showsrc dpdk 2>/dev/null | grep -c '^Package: dpdk$' >/dev/null; then
    echo "dpdk-headers: apt knows the dpdk source package${ver:+ (installed: $ver)}"
    return 0
  fi
  local out=/etc/apt/sources.list.d/mbgcm-deb-src.sources
  local src=/etc/apt/sources.list.d/debian.sources
  if [ -f "$src" ]; then
    # deb822: copy each stanza whose Types has `deb` but not `deb-src`, as a deb-src stanza.
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ && !/deb-src/ {
           sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src"); sub(/^\n/, ""); print }' \
      "$src" > "$out.tmp"
  elif [ -f /etc/apt/sources.list ]; then
    # one-line form: write the deb-src twin of every `deb` line, in deb822 form.
    awk '$1 == "deb" { i = 2
           if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
           uri = $i; suite = $(i + 1); comps = ""
           for (j = i + 2; j <= NF; j++) comps = comps (comps ? " " : "") $j
           printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents: %s\n\n", uri, suite, comps }' \
      /etc/apt/sources.list > "$out.tmp"
  else
    die "no debian.sources or sources.list to derive deb-src entries from"
  fi
  [ -s "$out.tmp" ] || { rm -f "$out.tmp"; die "found no deb entries to mirror as deb-src"; }
  mv "$out.tmp" "$out"
  echo "dpdk-headers: wrote $out (apt-get update needed)"
  return 3
}

apt_setup() {
  local rc=0
  apt_sources || rc=$?
  case $rc in
    0) ;;
    3) DEBIAN_FRONTEND=noninteractive apt-get update -qq ;;
    *) return $rc ;;
  esac
}

fetch_headers() {
  local outdir="$1"
  local ver; ver=$(installed_version)
  [ -n "$ver" ] || die "libdpdk-dev is not installed (scripts/setup.sh installs it)"
  if [ -f "$outdir/VERSION" ] && [ "$(cat "$outdir/VERSION")" = "$ver" ]; then
    local ok=1 h
    for h in "${HEADERS[@]}"; do [ -f "$outdir/include/$(basename "$h")" ] || ok=0; done
    [ $ok -eq 1 ] && { echo "dpdk-headers: $outdir holds the $ver headers"; return 0; }
  fi
  command -v apt-get >/dev/null || die "apt-get not found"
  local tmp; tmp=$(mktemp -d "${TMPDIR:-/tmp}/mbgcm-dpdk-src.XXXXXX")
  trap 'rm -rf "$tmp"' RETURN
  chmod 755 "$tmp"   # apt's _apt user downloads into it when run as root
  local got="$ver"
  if ! (cd "$tmp" && apt-get source -qq --download-only "dpdk=$ver" >/dev/null 2>&1); then
    # The exact version may have left the archive: take the candidate 22.11.x source.
    got=$(apt-cache showsrc dpdk 2>/dev/null | awk '/^Version: 22\.11\./ { print $2 }' |
          sort -V | tail -1)
    [ -n "$got" ] || die "no dpdk source package known to apt (run scripts/setup.sh as root)"
    echo "dpdk-headers: dpdk $ver source not available; using $got" >&2
    (cd "$tmp" && apt-get source -qq --download-only "dpdk=$got" >/dev/null 2>&1) ||
      die "apt-get source --download-only dpdk=$got failed"
  fi
  local orig; orig=$(ls "$tmp"/dpdk_*.orig.tar.* 2>/dev/null | head -1 || true)
  [ -n "$orig" ] || die "no orig tarball among $(ls "$tmp")"
  # Debian's patches must not touch these headers (then they would differ from the tarball).
  local deb; deb=$(ls "$tmp"/dpdk_*.debian.tar.* 2>/dev/null | head -1 || true)
  if [ -n "$deb" ]; then
    local h
    for h in "${HEADERS[@]}"; do
      if tar -xOf "$deb" --wildcards 'debian/patches/*' 2>/dev/null | grep -c "^+++ b/$h" >/dev/null; then
        die "a Debian patch changes $h: extend this script to apply it"
      fi
    done
  fi
  local pats=() h
  for h in "${HEADERS[@]}"; do pats+=("*/$h"); done
  mkdir -p "$tmp/x"
  tar -xf "$orig" -C "$tmp/x" --wildcards "${pats[@]}" ||
    die "could not extract ${HEADERS[*]} from $(basename "$orig")"
  mkdir -p "$outdir/include"
  for h in "${HEADERS[@]}"; do
    local f; f=$(ls "$tmp"/x/*/"$h")
    install -m 644 "$f" "$outdir/include/$(basename "$h")"
  done
  echo "$ver" > "$outdir/VERSION"
  echo "$got" > "$outdir/SOURCE_VERSION"
  echo "dpdk-headers: extracted ${#HEADERS[@]} headers of dpdk $got into $outdir/include"
}

case "${1:-}" in
  --apt-sources) apt_sources ;;
  --apt-setup) apt_setup ;;
  ""|-h|--help) sed -n '3,23p' "$0"; exit 2 ;;
  *) fetch_headers "$1" ;;
esac
