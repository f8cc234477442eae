#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/pkg/cxx_test.sh CXX SOURCE INCLUDE_DIR SHARED_LIB OUT_DIR [SANITIZE]
# Compiles SOURCE (which includes mbgcm.h) as C++11 and C++17 with warnings as errors, links it
# with SHARED_LIB from the build tree and runs it. The top project stays C-only: this script
# drives the C++ compiler itself. Exit 0 = pass, 77 = skipped (no C++ compiler), 1 = failure.
set -euo pipefail

cxx="${1:-}"
src="${2:?usage: cxx_test.sh CXX SOURCE INCLUDE_DIR SHARED_LIB OUT_DIR [SANITIZE]}"
inc="${3:?}"
lib="${4:?}"
out="${5:?}"
san="${6:-}"
if [ -z "$cxx" ] || [ "${cxx%-NOTFOUND}" != "$cxx" ] || ! command -v "$cxx" >/dev/null; then
  echo "cxx_test: no C++ compiler found: skipped"
  exit 77
fi

flags=(-Wall -Wextra -Werror -Wpedantic -Wshadow -Wold-style-cast -Wcast-align
       -Wzero-as-null-pointer-constant -Wundef -Wconversion -Wsign-conversion)
san_flags=()
[ -z "$san" ] || san_flags=("-fsanitize=$san" -fno-omit-frame-pointer)
libdir=$(dirname "$lib")
mkdir -p "$out"
for std in c++11 c++17; do
  exe="$out/cxx_header_${std//+/x}"
  rm -f "$exe"
  echo "+ $cxx -std=$std ${flags[*]} ${san_flags[*]} -I$inc $src $lib"
  "$cxx" "-std=$std" "${flags[@]}" "${san_flags[@]}" "-I$inc" "$src" -o "$exe" \
    "$lib" "-Wl,-rpath,$libdir"
  "$exe"
done
