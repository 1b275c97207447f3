#!/bin/sh
# check_layers.sh — the layering check `make test` runs (docs/ARCHITECTURE.md).
#
# Usage: tools/check_layers.sh [BUILD_DIR [LAYERS_FILE]]
#        (default: build, tools/layers.txt; tools/test_check_layers.sh passes
#        altered copies of the layers file to show the check fails)
#
# 1. Layers depend only downward. The order is written once, in
#    tools/layers.txt. Every object of the cjax_objects target is read with
#    nm: an undefined symbol in a file of layer A that a file of a higher
#    layer B defines is a call (or data reference) from below to above, and
#    fails the check unless tools/layers.txt lists it as an exception with
#    its reason. An exception that no longer occurs fails too, so the list
#    only shrinks.
# 2. libcjax.so exports exactly the public functions include/cjax.h
#    declares: nothing internal, nothing missing (cmake/cjax.map).
#
# Only sh, awk, sed, sort, comm, cmp, find and nm (binutils): every
# machine that builds cjax has them.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
objdir=$build/CMakeFiles/cjax_objects.dir
layers=${2:-$root/tools/layers.txt}
header=$root/include/cjax.h
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cjax_layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

if [ ! -d "$objdir/src" ]; then
    echo "check_layers: no objects under $objdir/src (build first)" >&2
    exit 2
fi
# Only the objects of sources that exist: cmake leaves the object of a
# deleted or moved file behind in the build folder.
find "$objdir/src" -name '*.c.o' | sort | while read -r obj; do
    src=${obj#"$objdir"/}
    if [ -f "$root/${src%.o}" ]; then echo "$obj"; fi
done > "$tmp/objs"
if [ ! -s "$tmp/objs" ]; then
    echo "check_layers: no objects under $objdir/src (build first)" >&2
    exit 2
fi

# "OBJECT: ADDR TYPE SYMBOL" or "OBJECT: TYPE SYMBOL" (undefined) per line.
# shellcheck disable=SC2046  # object paths have no spaces (cmake's names)
nm -A $(cat "$tmp/objs") > "$tmp/nm"

status=0
awk -v objdir="$objdir/" '
function die(msg) { print "check_layers: " msg > "/dev/stderr"; bad = 1 }
# The source file of an object: src/core/ctx.c for .../src/core/ctx.c.o.
function source_of(obj) {
    if (index(obj, objdir) == 1) obj = substr(obj, length(objdir) + 1)
    sub(/\.o$/, "", obj)
    return obj
}
# The layer of a source file: its longest matching prefix in layers.txt.
function layer_of(f,    i, best, bestlen) {
    if (f in memo) return memo[f]
    best = 0; bestlen = -1
    for (i = 1; i <= n_prefix; i++)
        if (index(f, prefix[i]) == 1 && length(prefix[i]) > bestlen) {
            best = prefix_rank[i]; bestlen = length(prefix[i])
        }
    if (!best) die(f " is in no layer of tools/layers.txt")
    memo[f] = best
    return best
}
FILENAME == ARGV[1] {
    sub(/#.*/, "")
    if (NF == 0) next
    if ($1 == "layer") {
        if (NF < 3) { die("layers.txt:" FNR ": layer NAME PREFIX..."); next }
        n_layer++; layer_name[n_layer] = $2
        for (i = 3; i <= NF; i++) { n_prefix++; prefix[n_prefix] = $i; prefix_rank[n_prefix] = n_layer }
    } else if ($1 == "allow") {
        if (NF < 6 || $5 != "--") { die("layers.txt:" FNR ": allow FILE SYMBOL DEFINING-FILE -- reason"); next }
        key = $2 " " $3 " " $4
        allow[key] = FNR; n_allow++
    } else die("layers.txt:" FNR ": unknown line \"" $0 "\"")
    next
}
{
    # nm -A: the object, a colon, then "[ADDR] TYPE SYMBOL".
    c = index($0, ":"); obj = substr($0, 1, c - 1); rest = substr($0, c + 1)
    m = split(rest, w, " ")
    if (m < 2) next
    type = w[m - 1]; sym = w[m]; f = source_of(obj)
    files[f] = 1
    if (type == "U") { n_use++; use_file[n_use] = f; use_sym[n_use] = sym }
    else if (type ~ /^[TDBRGSVWC]$/) def[sym] = f
}
END {
    for (f in files) layer_of(f)
    for (i = 1; i <= n_use; i++) {
        s = use_sym[i]
        if (!(s in def)) continue          # libc, libm, BLAS, ...
        f = use_file[i]; g = def[s]
        if (layer_of(f) >= layer_of(g)) continue
        key = f " " s " " g
        if (key in allow) { used[key] = 1; n_excepted++; continue }
        print "layer violation: " f " (" layer_name[layer_of(f)] ") uses " s \
              ", defined in " g " (" layer_name[layer_of(g)] ", above it)"
        n_bad++
    }
    for (key in allow)
        if (!(key in used)) {
            print "stale exception (tools/layers.txt:" allow[key] "): " key " no longer occurs; delete the line"
            n_bad++
        }
    if (n_bad || bad) {
        print "check_layers: " (n_bad + 0) " problem(s); the layer order and the exceptions are in tools/layers.txt"
        exit 1
    }
    if (n_excepted) printf "check_layers: %d files in %d layers depend only downward, but for %d listed exception(s)\n",
                           length(files), n_layer, n_excepted
    else printf "check_layers: %d files in %d layers depend only downward, with no exceptions\n", length(files), n_layer
}' "$layers" "$tmp/nm" || status=1

# The shared library's exports against the header's declarations: each
# "cj_name(" in the header's code (comments out: they are full of examples
# that call cj_*), not a function pointer type's "(*cj_fn)(".
lib=$build/libcjax.so
if [ -e "$lib" ]; then
    awk '
    {
        line = $0; code = ""
        while (line != "") {
            if (in_comment) {
                j = index(line, "*/")
                if (!j) { line = ""; break }
                line = substr(line, j + 2); in_comment = 0
            } else {
                i = index(line, "/*"); k = index(line, "//")
                if (k && (!i || k < i)) { code = code substr(line, 1, k - 1); line = ""; break }
                if (!i) { code = code line; line = ""; break }
                code = code substr(line, 1, i - 1) " "; line = substr(line, i + 2); in_comment = 1
            }
        }
        text = text " " code
    }
    END {
        while (match(text, /[^A-Za-z0-9_]cj_[A-Za-z0-9_]+[ \t]*\(/)) {
            name = substr(text, RSTART + 1, RLENGTH - 1)
            sub(/[ \t]*\($/, "", name)
            before = substr(text, 1, RSTART)
            gsub(/[ \t]/, "", before)
            if (substr(before, length(before) - 1) != "(*") print name
            text = substr(text, RSTART + RLENGTH)
        }
    }
    ' "$header" | sort -u > "$tmp/declared"
    nm -D --defined-only "$lib" | awk 'NF >= 3 && $2 ~ /^[TDBRGSVWi]$/ { print $3 }' |
        sed 's/@.*//' | sort -u > "$tmp/exported"
    if cmp -s "$tmp/declared" "$tmp/exported"; then
        echo "check_layers: libcjax.so exports exactly the $(wc -l < "$tmp/declared" | tr -d ' ') functions include/cjax.h declares"
    else
        comm -13 "$tmp/declared" "$tmp/exported" | sed 's/^/libcjax.so exports a name include\/cjax.h does not declare: /'
        comm -23 "$tmp/declared" "$tmp/exported" | sed 's/^/include\/cjax.h declares a function libcjax.so does not export: /'
        echo "check_layers: libcjax.so must export exactly the functions include/cjax.h declares (cmake/cjax.map)"
        status=1
    fi
else
    echo "check_layers: no $lib (the shared library was not built): its exports were not checked"
fi
exit $status
