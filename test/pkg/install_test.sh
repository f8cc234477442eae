#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/pkg/install_test.sh MODE key=value...  — install mbgcm and use it from outside.
#
# MODE install    cmake --install <build> --prefix <prefix> (fresh), then check the layout
#      cmake      configure + build consumer/ with find_package(mbgcm COMPONENTS cobble) against
#                 <prefix>; run consumer_shared (must load <prefix>'s libmbgcm.so.N and no
#                 libcrypto) and consumer_static (must not need libmbgcm.so at all), then
#                 cobble_consumer_shared (libmbgcm-cobble.so.N on libmbgcm.so.N) and
#                 cobble_consumer_static (neither shared library)
#      pkgconfig  cc consumer.c $(pkg-config --cflags --libs mbgcm) and cc cobble_consumer.c
#                 $(pkg-config --cflags --libs mbgcm-cobble) with
#                 PKG_CONFIG_PATH=<prefix>/<libdir>/pkgconfig; run with LD_LIBRARY_PATH
# Keys (all passed by test/pkg/CMakeLists.txt): build prefix work consumer libdir includedir
# version soversion cobble_soversion cc generator make_program build_type sanitize.
# With sanitize=LIST the installed libraries were built with -fsanitize=LIST, so every consumer
# is compiled and linked with the same flags (their runtime must come first in the process).
# Exit 0 = pass, 77 = skipped (a tool is missing), anything else = failure.
set -euo pipefail

mode="${1:?usage: install_test.sh install|cmake|pkgconfig key=value...}"
shift
declare -A arg=()
for kv in "$@"; do
  arg["${kv%%=*}"]="${kv#*=}"
done
need() { [ -n "${arg[$1]:-}" ] || { echo "install_test: missing $1=..." >&2; exit 2; }; }
for k in build prefix work consumer libdir includedir version soversion cobble_soversion cc; do
  need "$k"
done

prefix="${arg[prefix]}"
libdir="$prefix/${arg[libdir]}"
incdir="$prefix/${arg[includedir]}"
san="${arg[sanitize]:-}"
san_flags=()
if [ -n "$san" ]; then
  san_flags=("-fsanitize=$san" -fno-omit-frame-pointer)
fi

fail() { echo "install_test[$mode]: FAIL: $*" >&2; exit 1; }
say() { echo "install_test[$mode]: $*"; }
run() { echo "+ $*"; "$@"; }

# The dynamic loader must take libmbgcm.so.N from |dir| (not /usr/lib, not the build tree).
check_resolves_from() { # EXE DIR
  local line
  line=$(ldd "$1" | grep "libmbgcm\.so\.${arg[soversion]} " || true)
  [ -n "$line" ] || fail "$1 does not depend on libmbgcm.so.${arg[soversion]}"
  case "$line" in
    *"=> $2/libmbgcm.so.${arg[soversion]} "*) say "$(basename "$1") loads $2/libmbgcm.so.${arg[soversion]}" ;;
    *) fail "$1 loads the wrong libmbgcm: $line (expected $2)" ;;
  esac
}
cobble_so="libmbgcm-cobble.so.${arg[cobble_soversion]}"
check_cobble_from() { # EXE DIR
  local line
  line=$(ldd "$1" | grep "$cobble_so " || true)
  case "$line" in
    *"=> $2/$cobble_so "*) say "$(basename "$1") loads $2/$cobble_so" ;;
    *) fail "$1 loads the wrong (or no) $cobble_so: '$line' (expected $2)" ;;
  esac
  check_resolves_from "$1" "$2"
}
# The engine alone never needs OpenSSL.
check_no_libcrypto() { # EXE
  if grep -q 'libcrypto' <<<"$(ldd "$1")"; then fail "$1 (engine only) loads libcrypto"; fi
}

case "$mode" in
install)
  rm -rf "$prefix"
  run cmake --install "${arg[build]}" --prefix "$prefix"
  so="libmbgcm.so"
  for f in "$incdir/mbgcm.h" "$libdir/libmbgcm.a" "$libdir/$so" "$libdir/$so.${arg[soversion]}" \
           "$libdir/$so.${arg[version]}" "$libdir/cmake/mbgcm/mbgcmConfig.cmake" \
           "$libdir/cmake/mbgcm/mbgcmConfigVersion.cmake" "$libdir/cmake/mbgcm/mbgcmTargets.cmake" \
           "$libdir/pkgconfig/mbgcm.pc" "$incdir/mbgcm_cobble.h" "$libdir/libmbgcm-cobble.a" \
           "$libdir/libmbgcm-cobble.so" "$libdir/$cobble_so" \
           "$libdir/cmake/mbgcm/mbgcmCobbleTargets.cmake" "$libdir/pkgconfig/mbgcm-cobble.pc"; do
    [ -e "$f" ] || fail "not installed: $f"
  done
  if [ ! -L "$libdir/$so" ] || [ ! -L "$libdir/$so.${arg[soversion]}" ]; then
    fail "$so and $so.${arg[soversion]} should be symlinks to $so.${arg[version]}"
  fi
  # Internal headers stay private.
  if [ -n "$(find "$prefix" -name '*internal*.h')" ]; then
    fail "an internal header was installed: $(find "$prefix" -name '*internal*.h')"
  fi
  # Nothing may point back into the build or source tree (a relocatable, self-contained prefix).
  if [ -n "$(grep -rl -e "${arg[build]}" "$libdir/cmake/mbgcm" "$libdir/pkgconfig" 2>/dev/null)" ]; then
    fail "installed CMake/pkg-config files mention the build tree ${arg[build]}"
  fi
  say "installed to $prefix:"
  (cd "$prefix" && find . -mindepth 1 | sort | sed 's/^/  /')
  ;;

cmake)
  command -v cmake >/dev/null || { echo "install_test: cmake not found: skipped"; exit 77; }
  bdir="${arg[work]}/consumer-cmake"
  rm -rf "$bdir"
  gen=()
  [ -n "${arg[generator]:-}" ] && gen=(-G "${arg[generator]}")
  [ -n "${arg[make_program]:-}" ] && gen+=("-DCMAKE_MAKE_PROGRAM=${arg[make_program]}")
  run cmake -S "${arg[consumer]}" -B "$bdir" "${gen[@]}" \
    "-DCMAKE_PREFIX_PATH=$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
    "-DCMAKE_C_COMPILER=${arg[cc]}" \
    "-DCMAKE_BUILD_TYPE=${arg[build_type]:-Release}" \
    "-DCMAKE_C_FLAGS=${san_flags[*]}" \
    "-DCMAKE_EXE_LINKER_FLAGS=${san_flags[*]}"
  # find_package must have used the prefix, not some other mbgcm on the system.
  found=$(sed -n 's/^mbgcm_DIR:PATH=//p' "$bdir/CMakeCache.txt")
  [ "$found" = "$libdir/cmake/mbgcm" ] || fail "find_package found mbgcm in '$found', expected $libdir/cmake/mbgcm"
  run cmake --build "$bdir"
  run "$bdir/consumer_shared"
  check_resolves_from "$bdir/consumer_shared" "$libdir"
  check_no_libcrypto "$bdir/consumer_shared"
  run "$bdir/consumer_static"
  if grep -q 'NEEDED.*libmbgcm' <<<"$(readelf -d "$bdir/consumer_static")"; then
    fail "consumer_static (mbgcm::mbgcm_static) depends on the shared libmbgcm"
  fi
  check_no_libcrypto "$bdir/consumer_static"
  run "$bdir/cobble_consumer_shared"
  check_cobble_from "$bdir/cobble_consumer_shared" "$libdir"
  run "$bdir/cobble_consumer_static"
  if grep -q 'NEEDED.*libmbgcm' <<<"$(readelf -d "$bdir/cobble_consumer_static")"; then
    fail "cobble_consumer_static (mbgcm::cobble_static) depends on a shared libmbgcm library"
  fi
  say "OK"
  ;;

pkgconfig)
  command -v pkg-config >/dev/null || { echo "install_test: pkg-config not found: skipped"; exit 77; }
  export PKG_CONFIG_PATH="$libdir/pkgconfig"
  pcdir=$(pkg-config --variable=pcfiledir mbgcm) || fail "pkg-config cannot find mbgcm in $PKG_CONFIG_PATH"
  [ "$pcdir" = "$libdir/pkgconfig" ] || fail "pkg-config used $pcdir/mbgcm.pc, expected $libdir/pkgconfig"
  v=$(pkg-config --modversion mbgcm)
  [ "$v" = "${arg[version]}" ] || fail "pkg-config --modversion says $v, expected ${arg[version]}"
  # The .pc file must describe where it was installed: `cmake --install --prefix P` has to give
  # prefix=P (or a ${pcfiledir}-relative equivalent), not the configure-time CMAKE_INSTALL_PREFIX.
  pc_prefix=$(pkg-config --variable=prefix mbgcm)
  pc_inc=$(pkg-config --variable=includedir mbgcm)
  pc_lib=$(pkg-config --variable=libdir mbgcm)
  if [ ! -f "$pc_inc/mbgcm.h" ] || [ ! -e "$pc_lib/libmbgcm.so" ] ||
     [ "$(realpath -m "$pc_inc")" != "$(realpath -m "$incdir")" ] ||
     [ "$(realpath -m "$pc_lib")" != "$(realpath -m "$libdir")" ]; then
    fail "mbgcm.pc is not relocatable: installed with --prefix $prefix it says prefix=$pc_prefix," \
         "includedir=$pc_inc, libdir=$pc_lib (expected $incdir and $libdir). cmake/mbgcm.pc.in" \
         "bakes in the configure-time CMAKE_INSTALL_PREFIX; derive prefix from \${pcfiledir}" \
         "or generate the file at install time."
  fi
  cflags=$(pkg-config --cflags mbgcm)
  libs=$(pkg-config --libs mbgcm)
  say "pkg-config: cflags '$cflags' libs '$libs'"
  out="${arg[work]}/consumer-pkgconfig"
  rm -f "$out"
  # shellcheck disable=SC2086  # pkg-config output is a list of words by design
  run "${arg[cc]}" -std=c99 -Wall -Wextra -Werror "${san_flags[@]}" $cflags \
    "${arg[consumer]}/consumer.c" -o "$out" $libs
  LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run "$out"
  LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" check_resolves_from "$out" "$libdir"
  check_no_libcrypto "$out"
  [ "$(pkg-config --modversion mbgcm-cobble)" = "${arg[version]}" ] ||
    fail "pkg-config --modversion mbgcm-cobble is not ${arg[version]}"
  ccflags=$(pkg-config --cflags mbgcm-cobble)
  clibs=$(pkg-config --libs mbgcm-cobble)
  say "pkg-config mbgcm-cobble: cflags '$ccflags' libs '$clibs'"
  cout="${arg[work]}/cobble-consumer-pkgconfig"
  rm -f "$cout"
  # shellcheck disable=SC2086
  run "${arg[cc]}" -std=c99 -Wall -Wextra -Werror "${san_flags[@]}" $ccflags \
    "${arg[consumer]}/cobble_consumer.c" -o "$cout" $clibs
  LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run "$cout"
  LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" check_cobble_from "$cout" "$libdir"
  say "OK"
  ;;

*)
  echo "install_test: unknown mode $mode" >&2
  exit 2
  ;;
esac
