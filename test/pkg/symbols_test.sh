#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/pkg/symbols_test.sh SO AR ABI COBBLE_SO COBBLE_AR COBBLE_ABI — the binary interface on disk.
#
# For each shared library (libmbgcm.so, libmbgcm-cobble.so):
#   - the dynamic symbol table defines only its public calls (plus the version-script node, an
#     absolute symbol the linker adds), every one carrying that node, and no mbgcmi_*:
#     libmbgcm: mbgcm_* but no mbgcm_cobble_* / mbgcm_batch_* (node MBGCM_<abi>);
#     libmbgcm-cobble: mbgcm_cobble_* and mbgcm_batch_* (node MBGCM_COBBLE_<abi>)
#   - SONAME is libmbgcm.so.<abi> / libmbgcm-cobble.so.<abi>
#   - no executable stack (GNU_STACK present and not E), no text relocations (no TEXTREL entry,
#     no TEXTREL flag), full RELRO (GNU_RELRO segment, BIND_NOW) as the link options ask
# The engine is free of OpenSSL: libmbgcm.so needs no libcrypto and no OpenSSL symbol.
# For each static library:
#   - every object has a .note.GNU-stack section without the X flag (else a program linking
#     it silently gets an executable stack)
#   - every defined global symbol starts with mbgcm (public mbgcm_ or internal mbgcmi_), or is
#     one the sanitizers generate in a sanitizer build
# Exit 0 = pass, 77 = skipped (binutils missing), 1 = failure (all problems are listed).
set -euo pipefail

usage="usage: symbols_test.sh SO AR ABI COBBLE_SO COBBLE_AR COBBLE_ABI"
so_e="${1:?$usage}"
ar_e="${2:?$usage}"
abi_e="${3:?$usage}"
so_c="${4:?$usage}"
ar_c="${5:?$usage}"
abi_c="${6:?$usage}"
for tool in nm readelf; do
  command -v "$tool" >/dev/null || { echo "symbols_test: $tool not found: skipped"; exit 77; }
done

bad=0
fail() { echo "symbols_test: FAIL: $*" >&2; bad=1; }

# check_lib KIND SO AR ABI NODE MUST... — one library (KIND engine or cobble)
check_lib() {
  local kind="$1" so="$2" ar_lib="$3" abi="$4" node="$5"
  shift 5
  local must=("$@")
  local base
  base=$(basename "$so" | sed 's/\.so.*//')
  # ---- shared library: exported symbols ----
  # nm -D prints "value type name[@version]"; undefined symbols are excluded by --defined-only.
  mapfile -t dyn < <(nm -D --defined-only "$so" | awk '{ print $NF }' | sed 's/@.*//' | sort -u)
  [ ${#dyn[@]} -gt 0 ] || fail "no dynamic symbols defined in $so"
  exported=()
  for s in "${dyn[@]}"; do
    case "$s" in
      "$node") ;;                             # version node from the version script
      mbgcmi_*) fail "$base: internal symbol exported: $s" ;;
      mbgcm_cobble_* | mbgcm_batch_*)
        if [ "$kind" = cobble ]; then exported+=("$s"); else fail "$base: storage-layer call exported: $s"; fi ;;
      mbgcm_*)
        if [ "$kind" = engine ]; then exported+=("$s"); else fail "$base: engine call exported: $s"; fi ;;
      *) fail "$base: foreign symbol exported: $s" ;;
    esac
  done
  # (grep reads here-strings, not pipes: with pipefail, a `printf | grep -q` whose grep exits
  # at its first match fails on the writer's SIGPIPE now and then)
  local exported_list
  exported_list=$(printf '%s\n' "${exported[@]}")
  for s in "${must[@]}"; do
    grep -qx "$s" <<<"$exported_list" || fail "$base: public symbol not exported: $s"
  done
  # Every export carries the version node (the version script applied).
  unversioned=$(nm -D --defined-only "$so" | awk -v n="$node" '$NF ~ /^mbgcm_/ && $NF !~ ("@@?" n "$") { print $NF }')
  [ -z "$unversioned" ] || fail "$base: exports without the $node version: $unversioned"
  echo "symbols_test: $base: ${#exported[@]} exported: ${exported[*]}"

  # ---- shared library: dynamic section and program headers ----
  dynsec=$(readelf -dW "$so")
  soname=$(printf '%s\n' "$dynsec" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
  [ "$soname" = "$base.so.$abi" ] || fail "SONAME is '$soname', expected $base.so.$abi"
  if grep -q '(TEXTREL)' <<<"$dynsec"; then fail "TEXTREL entry (text relocations)"; fi
  flags=$(grep -E '\((FLAGS|FLAGS_1|BIND_NOW)\)' <<<"$dynsec" || true)
  if grep -qE '\((FLAGS|FLAGS_1)\).*TEXTREL' <<<"$flags"; then
    fail "TEXTREL flag (text relocations)"
  fi
  if ! grep -qE 'BIND_NOW|NOW' <<<"$flags"; then
    fail "not linked with -z now (no BIND_NOW)"
  fi
  phdr=$(readelf -lW "$so")
  stack=$(printf '%s\n' "$phdr" | awk '$1 == "GNU_STACK" { print $(NF-1) }')
  case "$stack" in
    "") fail "no GNU_STACK program header (the loader assumes an executable stack)" ;;
    *E*) fail "executable stack: GNU_STACK flags $stack" ;;
  esac
  grep -q 'GNU_RELRO' <<<"$phdr" || fail "no GNU_RELRO segment"
  echo "symbols_test: SONAME $soname, GNU_STACK $stack, no TEXTREL"

  # ---- static library: stack notes and global names ----
  # readelf -SW on an archive prints "File: lib.a(member.o)" before each section table.
  notes=$(readelf -SW "$ar_lib" | awk '
    /^File: / { if (obj != "" && !seen) print obj ": no .note.GNU-stack"; obj = $2; seen = 0; next }
    /\.note\.GNU-stack/ {
      seen = 1
      # flags column follows Type, Addr, Off, Size, ES; X means an executable stack is requested
      for (i = 1; i <= NF; i++) if ($i == "PROGBITS") { if ($(i + 5) ~ /X/) print obj ": .note.GNU-stack has flag X" }
    }
    END { if (obj != "" && !seen) print obj ": no .note.GNU-stack" }')
  ar_bad=0
  [ -z "$notes" ] || { fail "static objects that would make the stack executable:
  $notes"; ar_bad=1; }
  # Defined globals (T, D, B, R, ...; not U, not local lowercase). Sanitizer builds add their own.
  foreign=$(nm -g --defined-only "$ar_lib" 2>/dev/null | awk 'NF >= 3 { print $3 }' |
    grep -v -E '^(mbgcm_|mbgcmi_)' | grep -v -E '^(__asan|__odr_asan|__ubsan|__sanitizer|__tsan|__msan)' |
    sort -u || true)
  [ -z "$foreign" ] || { fail "$base.a defines globals outside the mbgcm namespace: $(tr '\n' ' ' <<<"$foreign")"; ar_bad=1; }
  [ "$ar_bad" -ne 0 ] || echo "symbols_test: $(basename "$ar_lib"): stack notes ok, globals all mbgcm*"
}

check_lib engine "$so_e" "$ar_e" "$abi_e" "MBGCM_$abi_e" mbgcm_strerror mbgcm_version \
  mbgcm_key_init mbgcm_key_wipe mbgcm_encrypt mbgcm_decrypt mbgcm_ctx_copy mbgcm_mgr_create
check_lib cobble "$so_c" "$ar_c" "$abi_c" "MBGCM_COBBLE_$abi_c" mbgcm_cobble_seal \
  mbgcm_cobble_open mbgcm_cobble_strerror mbgcm_batch_encrypt

# ---- the engine is free of OpenSSL ----
needed=$(readelf -dW "$so_e" | grep -E '\(NEEDED\)' || true)
if grep -q 'libcrypto\|libssl' <<<"$needed"; then
  fail "libmbgcm.so needs OpenSSL: $(readelf -dW "$so_e" | grep NEEDED | tr -s ' ')"
fi
ossl=$(nm -D --undefined-only "$so_e" | awk '{ print $NF }' |
  grep -E '^(OPENSSL_|CRYPTO_|EVP_|RAND_|ERR_|OSSL_|HMAC|SHA[0-9]|AES_)' || true)
[ -z "$ossl" ] || fail "libmbgcm.so needs OpenSSL symbols: $(tr '\n' ' ' <<<"$ossl")"
[ -n "$ossl" ] || echo "symbols_test: libmbgcm.so: no libcrypto, no OpenSSL symbol"

if [ "$bad" -ne 0 ]; then exit 1; fi
echo "symbols_test: OK"
