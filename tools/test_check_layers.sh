#!/bin/sh
# test_check_layers.sh — shows that tools/check_layers.sh fails when it
# should (`make test` runs this after the check itself): on a call from a
# lower layer to a higher one, on an exception that no longer occurs, and
# on a source file that is in no layer. Each case runs the check on the
# real objects with an altered copy of tools/layers.txt and looks for the
# report's line.
#
# Usage: tools/test_check_layers.sh [BUILD_DIR]   (default: build)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
check=$root/tools/check_layers.sh
layers=$root/tools/layers.txt
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cjax_layers_test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
failed=0

# expect NAME PATTERN: the check, on $tmp/layers.txt, fails and says PATTERN.
expect() {
    if sh "$check" "$build" "$tmp/layers.txt" > "$tmp/out" 2>&1; then
        echo "test_check_layers: $1: the check passed; it should have failed"
        failed=1
    elif ! grep -q "$2" "$tmp/out"; then
        echo "test_check_layers: $1: the check failed without saying \"$2\":"
        sed 's/^/  /' "$tmp/out"
        failed=1
    fi
}

# 1. the runtime moved to the top: every layer calls it, so core now calls
#    up into it.
awk '$1 == "layer" && $2 == "runtime" { held = $0; next } { print } END { print held }' "$layers" > "$tmp/layers.txt"
expect "runtime on top" "^layer violation: src/core/[a-z_]*\.c (core) uses rt_[a-z_0-9]*, defined in src/runtime/[a-z_]*\.c (runtime, above it)"

# 2. an exception for a call that does not happen.
{ cat "$layers"; echo "allow src/core/ctx.c cj_add src/api/elementwise.c -- no such call"; } > "$tmp/layers.txt"
expect "stale exception" "^stale exception (tools/layers.txt:[0-9]*): src/core/ctx.c cj_add src/api/elementwise.c"

# 3. the runtime folder in no layer.
awk '!($1 == "layer" && $2 == "runtime")' "$layers" > "$tmp/layers.txt"
expect "file in no layer" "src/runtime/[a-z_]*\.c is in no layer"

# 4. an exception without its reason.
{ cat "$layers"; echo "allow src/core/ctx.c cj_add src/api/elementwise.c"; } > "$tmp/layers.txt"
expect "exception without a reason" "allow FILE SYMBOL DEFINING-FILE -- reason"

if [ "$failed" = 0 ]; then echo "test_check_layers: the check fails on each of 4 broken layer files"; fi
exit "$failed"
