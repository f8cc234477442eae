# SPDX-License-Identifier: BSD-3-Clause
# dpdk/test/eal_env.sh — sourced by the crypto_mbgcm test and benchmark scripts.
#
#   mbgcm_pmd_path SO   sets MBGCM_PMD to a path of the plugin EAL will load with -d (call it
#                       directly, not in $(...), so that the cleanup sees the copy). EAL refuses a
#                       plugin when the file or any directory above it is world-writable
#                       (every ancestor is checked, so a 0700 folder inside /tmp still fails):
#                       then the .so is copied to a fresh folder under $HOME/.cache/mbgcm-dpdk,
#                       removed again by mbgcm_pmd_cleanup.
#   mbgcm_eal_args TAG  prints the EAL options every run uses: no hugepages, no PCI, and a
#                       --file-prefix unique to this process and TAG.

mbgcm_path_safe() { # PATH: 0 when neither PATH nor any ancestor is world-writable
  local p
  p=$(realpath -e "$1") || return 1
  while :; do
    if [ -n "$(find "$p" -maxdepth 0 -perm -0002 2>/dev/null)" ]; then
      return 1
    fi
    [ "$p" = / ] && return 0
    p=$(dirname "$p")
  done
}

MBGCM_PMD_COPY_DIR=""
MBGCM_PMD=""
mbgcm_pmd_path() { # SO
  local so="$1"
  [ -f "$so" ] || { echo "eal_env: no plugin at $so" >&2; return 1; }
  if mbgcm_path_safe "$so"; then
    MBGCM_PMD=$(realpath -e "$so")
    return 0
  fi
  [ -n "${HOME:-}" ] || { echo "eal_env: $so is below a world-writable folder and HOME is unset" >&2; return 1; }
  local base="$HOME/.cache/mbgcm-dpdk"
  mkdir -p "$base" && chmod 700 "$base"
  if ! mbgcm_path_safe "$base"; then
    echo "eal_env: $base is below a world-writable folder too; cannot load $so" >&2
    return 1
  fi
  MBGCM_PMD_COPY_DIR=$(mktemp -d "$base/pmd.XXXXXX")
  chmod 755 "$MBGCM_PMD_COPY_DIR"
  install -m 755 "$so" "$MBGCM_PMD_COPY_DIR/$(basename "$so")"
  echo "eal_env: $so is below a world-writable folder; loading a copy from $MBGCM_PMD_COPY_DIR" >&2
  MBGCM_PMD="$MBGCM_PMD_COPY_DIR/$(basename "$so")"
}

mbgcm_pmd_cleanup() {
  if [ -n "$MBGCM_PMD_COPY_DIR" ]; then
    rm -rf "$MBGCM_PMD_COPY_DIR"
    MBGCM_PMD_COPY_DIR=""
  fi
}

mbgcm_eal_args() { # TAG
  echo "--no-huge -m 1024 --no-pci --file-prefix mbgcm_${1}_$$ --log-level *:warning"
}
