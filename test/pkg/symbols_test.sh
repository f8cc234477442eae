#!/usr/bin/env bash
# test/pkg/symbols_test.sh SHARED_LIB STATIC_LIB ABI_VERSION — the binary interface on disk.
#
# Shared library:
#   - the dynamic symbol table defines only mbgcm_* (plus the version-script node MBGCM_<abi>,
#     an absolute symbol the linker adds), including the core public calls, and no mbgcmi_*
#   - SONAME is libmbgcm.so.<abi>
#   - no executable stack (GNU_STACK present and not E), no text relocations (no TEXTREL entry,
#     no TEXTREL flag), full RELRO (GNU_RELRO segment, BIND_NOW) as the link options ask
# Static library:
#   - every object has a .note.GNU-stack section without the X flag (else a program linking
#     libmbgcm.a silently gets an executable stack)
#   - every defined global symbol starts with mbgcm (public mbgcm_ or internal mbgcmi_), or is
#     one the sanitizers generate in a sanitizer build
# Exit 0 = pass, 77 = skipped (binutils missing), 1 = failure (all problems are listed).
set -euo pipefail

so="${1:?usage: symbols_test.sh SHARED_LIB STATIC_LIB ABI_VERSION}"
ar_lib="${2:?}"
abi="${3:?}"
for tool in nm readelf; do
  command -v "$tool" >/dev/null || { echo "symbols_test: $tool not found: skipped"; exit 77; }
done

bad=0
fail() { echo "symbols_test: FAIL: $*" >&2; bad=1; }

# ---- shared library: exported symbols ----
# nm -D prints "value type name[@version]"; undefined symbols are excluded by --defined-only.
mapfile -t dyn < <(nm -D --defined-only "$so" | awk '{ print $NF }' | sed 's/@.*//' | sort -u)
[ ${#dyn[@]} -gt 0 ] || fail "no dynamic symbols defined in $so"
exported=()
for s in "${dyn[@]}"; do
  case "$s" in
    MBGCM_"$abi") ;;                        # version node from cmake/mbgcm.map
    mbgcmi_*) fail "internal symbol exported: $s" ;;
    mbgcm_*) exported+=("$s") ;;
    *) fail "foreign symbol exported: $s" ;;
  esac
done
for s in mbgcm_strerror mbgcm_version mbgcm_key_init mbgcm_key_wipe mbgcm_encrypt mbgcm_decrypt; do
  printf '%s\n' "${exported[@]}" | grep -qx "$s" || fail "public symbol not exported: $s"
done
# Every export carries the version node (the version script applied).
unversioned=$(nm -D --defined-only "$so" | awk '$NF ~ /^mbgcm_/ && $NF !~ /@@?MBGCM_/ { print $NF }')
[ -z "$unversioned" ] || fail "exports without the MBGCM_$abi version: $unversioned"
echo "symbols_test: ${#exported[@]} exported: ${exported[*]}"

# ---- shared library: dynamic section and program headers ----
dynsec=$(readelf -dW "$so")
soname=$(printf '%s\n' "$dynsec" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = "libmbgcm.so.$abi" ] || fail "SONAME is '$soname', expected libmbgcm.so.$abi"
if printf '%s\n' "$dynsec" | grep -q '(TEXTREL)'; then fail "TEXTREL entry (text relocations)"; fi
if printf '%s\n' "$dynsec" | grep -E '\((FLAGS|FLAGS_1)\)' | grep -q 'TEXTREL'; then
  fail "TEXTREL flag (text relocations)"
fi
if ! printf '%s\n' "$dynsec" | grep -E '\((FLAGS|FLAGS_1|BIND_NOW)\)' | grep -qE 'BIND_NOW|NOW'; then
  fail "not linked with -z now (no BIND_NOW)"
fi
phdr=$(readelf -lW "$so")
stack=$(printf '%s\n' "$phdr" | awk '$1 == "GNU_STACK" { print $(NF-1) }')
case "$stack" in
  "") fail "no GNU_STACK program header (the loader assumes an executable stack)" ;;
  *E*) fail "executable stack: GNU_STACK flags $stack" ;;
esac
printf '%s\n' "$phdr" | grep -q 'GNU_RELRO' || fail "no GNU_RELRO segment"
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
[ -z "$foreign" ] || { fail "libmbgcm.a defines globals outside the mbgcm namespace: $(tr '\n' ' ' <<<"$foreign")"; ar_bad=1; }
[ "$ar_bad" -ne 0 ] || echo "symbols_test: $(basename "$ar_lib"): stack notes ok, globals all mbgcm*"

if [ "$bad" -ne 0 ]; then exit 1; fi
echo "symbols_test: OK"
