#!/bin/sh
# test_install.sh — the README's install and build instructions, as a user
# follows them (`make test` runs this; `.ci/run` adds --cmake):
#   - cmake --install (what `make install PREFIX=...` runs) into a
#     temporary prefix installs the header, both libraries and the
#     pkg-config and CMake package files;
#   - the README's example, taken out of README.md (and equal to
#     examples/readme_example.c), builds with `pkg-config --cflags --libs
#     cjax` against the shared library and runs from the custom prefix both
#     through an rpath and through LD_LIBRARY_PATH, and with cjax-static
#     against the archive (no libcjax.so needed); each prints exactly the
#     output the README shows;
#   - `pkg-config --static --libs cjax` lists what the archive needs;
#   - cjax.hpp is installed and the example in C++ builds and prints the same;
#   - CJAX_VERBOSE=1 with no C compiler says so on stderr, once;
#   - with --cmake: a CMake project finds the package (find_package(cjax))
#     and links cjax::cjax_static.
#
# Usage: tools/test_install.sh [BUILD_DIR] [--cmake]   (default: build)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
with_cmake=0
[ "${2:-}" = "--cmake" ] && with_cmake=1
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cjax_install_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
failed=0
fail() {
    echo "test_install: $*"
    failed=1
}

command -v pkg-config > /dev/null || { echo "test_install: pkg-config is needed (apt-get install pkg-config)"; exit 1; }
prefix=$tmp/prefix
if ! cmake --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    echo "test_install: cmake --install failed"
    exit 1
fi
libdir=$(find "$prefix" -name libcjax.a -exec dirname {} \; | head -n 1)
[ -n "$libdir" ] || { echo "test_install: no libcjax.a under $prefix"; exit 1; }
for f in "$prefix/include/cjax.h" "$libdir/libcjax.so" "$libdir/pkgconfig/cjax.pc" \
         "$libdir/pkgconfig/cjax-static.pc" "$libdir/cmake/cjax/cjaxConfig.cmake" \
         "$libdir/cmake/cjax/CjaxExport.cmake"; do
    [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
# Hermetic runs: a private disk cache.
CJAX_CACHE_DIR=$tmp/cache
export CJAX_CACHE_DIR

# The README's example and the output it shows: the first ```c block of
# README.md and the ```text block after it.
awk '/^```c$/ && !done {on = 1; next} on && /^```$/ {on = 0; done = 1} on' "$root/README.md" > "$tmp/readme.c"
awk '/^```c$/ {seen = 1} seen && /^```text$/ && !done {on = 1; next} on && /^```$/ {on = 0; done = 1} on' \
    "$root/README.md" > "$tmp/expected.txt"
[ -s "$tmp/readme.c" ] || fail "README.md has no \`\`\`c block"
[ -s "$tmp/expected.txt" ] || fail "README.md shows no \`\`\`text output after its example"
sed 1d "$root/examples/readme_example.c" > "$tmp/example_body.c"
cmp -s "$tmp/readme.c" "$tmp/example_body.c" ||
    fail "README.md's example differs from examples/readme_example.c (after its first line): $(diff "$tmp/readme.c" "$tmp/example_body.c" | head -n 5)"

# run NAME: runs $tmp/NAME and compares its output with the README's.
run() {
    name=$1
    shift
    if ! env "$@" "$tmp/$name" > "$tmp/$name.out" 2> "$tmp/$name.err"; then
        fail "$name: exit status $? $(cat "$tmp/$name.err")"
    elif ! cmp -s "$tmp/expected.txt" "$tmp/$name.out"; then
        fail "$name: prints what README.md does not show:
$(diff "$tmp/expected.txt" "$tmp/$name.out" | head -n 20)"
    fi
}

# The shared library, found through an rpath ...
libs=$(pkg-config --libs cjax)
rdir=$(pkg-config --variable=libdir cjax)
# shellcheck disable=SC2046,SC2086
$cc -o "$tmp/shared_rpath" "$tmp/readme.c" $(pkg-config --cflags cjax) $libs "-Wl,-rpath,$rdir" ||
    fail "the example does not build with pkg-config --cflags --libs cjax"
if [ -x "$tmp/shared_rpath" ]; then
    run shared_rpath
    ldd "$tmp/shared_rpath" | grep -q "$prefix/.*libcjax.so" || fail "shared_rpath does not load libcjax.so from $prefix"
fi
# ... and through LD_LIBRARY_PATH.
# shellcheck disable=SC2046,SC2086
$cc -o "$tmp/shared_env" "$tmp/readme.c" $(pkg-config --cflags cjax) $libs ||
    fail "the example does not build without an rpath"
[ -x "$tmp/shared_env" ] && run shared_env "LD_LIBRARY_PATH=$rdir"

# The static library: cjax-static names the archive and what it needs.
# shellcheck disable=SC2046
$cc -o "$tmp/static" "$tmp/readme.c" $(pkg-config --cflags --libs cjax-static) ||
    fail "the example does not build with pkg-config --cflags --libs cjax-static"
if [ -x "$tmp/static" ]; then
    run static
    ! ldd "$tmp/static" | grep -q libcjax || fail "static still needs libcjax.so"
fi
for lib in -lpthread -lm -ldl; do
    pkg-config --static --libs cjax | grep -q -- "$lib" || fail "pkg-config --static --libs cjax lacks $lib"
done

# The C++ header is installed beside cjax.h, and the README's example in
# C++ (examples/cpp/readme_example.cpp, docs/CPP.md) builds against the
# installed archive and prints the README's output (when c++ exists).
[ -e "$prefix/include/cjax.hpp" ] || fail "not installed: include/cjax.hpp"
cxx=${CXX:-c++}
if command -v "$cxx" > /dev/null && [ -e "$prefix/include/cjax.hpp" ]; then
    # shellcheck disable=SC2046
    if "$cxx" -std=c++17 -o "$tmp/cpp_static" "$root/examples/cpp/readme_example.cpp" \
        $(pkg-config --cflags --libs cjax-static); then
        run cpp_static
    else
        fail "examples/cpp/readme_example.cpp does not build with pkg-config --cflags --libs cjax-static"
    fi
fi

# No C compiler, CJAX_VERBOSE=1: one line says so.
if [ -x "$tmp/static" ]; then
    CJAX_VERBOSE=1 CJAX_CC=/nonexistent/cc CJAX_BACKEND=cc "$tmp/static" > /dev/null 2> "$tmp/verbose.err" ||
        fail "the example fails without a C compiler"
    n=$(grep -c "generated C is not used" "$tmp/verbose.err" || true)
    [ "$n" = 1 ] || fail "CJAX_VERBOSE=1 without a compiler: $n messages, not 1: $(cat "$tmp/verbose.err")"
fi

if [ $with_cmake = 1 ]; then
    mkdir -p "$tmp/app"
    cp "$tmp/readme.c" "$tmp/app/main.c"
    cat > "$tmp/app/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(cjax REQUIRED)
if(NOT COMMAND cjax_export)
  message(FATAL_ERROR "find_package(cjax) does not give cjax_export (CjaxExport.cmake)")
endif()
add_executable(app main.c)
target_link_libraries(app PRIVATE cjax::cjax_static)
CMAKE
    if cmake -S "$tmp/app" -B "$tmp/app/build" "-DCMAKE_PREFIX_PATH=$prefix" > "$tmp/app.log" 2>&1 &&
        cmake --build "$tmp/app/build" >> "$tmp/app.log" 2>&1; then
        cp "$tmp/app/build/app" "$tmp/cmake_app"
        run cmake_app
    else
        fail "find_package(cjax) project: $(tail -n 20 "$tmp/app.log")"
    fi
fi

if [ $failed = 0 ]; then
    echo "test_install: ok (installed, built and ran the README's example: shared with rpath and LD_LIBRARY_PATH, static$([ $with_cmake = 1 ] && echo ', CMake package'))"
fi
exit $failed
