#!/bin/bash
# tests/layers.sh LAYER... - the folders of src/, lowest first, and the check
# that holds them: a file may include headers of its own folder and of the
# folders before it, never of one after it. Prints the folders one a line,
# then resolves every #include "..." of src/ and include/ as the compiler
# does (the including file's folder, then src/, then include/) and fails,
# naming the file and the include, on an include of a folder above, a file
# directly in src/, a folder not in LAYERS, an include found nowhere, and a
# public header (include/gguffs/) including an internal one (programs using
# the library have no -Isrc).
#
# A public header include/gguffs/X.h is in the folder of src/*/X.c, or as
# PUBLIC says for those without a .c of their name.
PUBLIC="decode.h=decode fp16.h=decode attr.h=tree store.h=tree"
cd "$(dirname "$0")/.." || exit 2
[ $# -gt 0 ] || { echo "usage: $0 LAYER..." >&2; exit 2; }
printf '%s\n' "$@"
find src include -name '*.[ch]' | LC_ALL=C sort | awk -v order="$*" -v public="$PUBLIC" '
function exists(p,   r, x) { r = (getline x < p) >= 0; close(p); return r }
function complain(f, what) { printf "%s: error: %s\n", f, what; bad = 1 }
function layer(f,   p, n) {
    n = split(f, p, "/")
    if (p[1] == "include") return p[n] in pub ? pub[p[n]] : ""
    return n >= 3 && (p[2] in rank) ? p[2] : ""
}
function target(f, inc,   d) {
    d = f; sub(/\/[^\/]*$/, "", d)
    if (exists(d "/" inc)) return d "/" inc
    if (exists("src/" inc)) return "src/" inc
    return exists("include/" inc) ? "include/" inc : ""
}
BEGIN { n = split(order, L, " "); for (i = 1; i <= n; i++) rank[L[i]] = i
        n = split(public, P, " "); for (i = 1; i <= n; i++) { split(P[i], kv, "="); pub[kv[1]] = kv[2] } }
{ file[++nf] = $0 }
END {
    for (i = 1; i <= nf; i++)   # a public header goes with the .c of its name
        if (split(file[i], p, "/") == 3 && p[1] == "src" && p[3] ~ /\.c$/) {
            h = p[3]; sub(/\.c$/, ".h", h); if (!(h in pub)) pub[h] = p[2] }
    for (i = 1; i <= nf; i++) {
        f = file[i]; l = layer(f)
        if (l == "") {
            if (f ~ /^include/) complain(f, "a public header of no layer (add it to PUBLIC in tests/layers.sh)")
            else if (f ~ /^src\/[^\/]*$/) complain(f, "directly in src/: it belongs in a layer folder")
            else complain(f, "in a folder that is not in LAYERS")
            continue
        }
        lineno = 0
        while ((getline line < f) > 0) {
            lineno++
            if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/) continue
            inc = line; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
            t = target(f, inc)
            at = f ":" lineno
            if (t == "") complain(at, "#include \"" inc "\": not found in its folder, src/ or include/")
            else if (f ~ /^include\// && t !~ /^include\//) complain(at, "#include \"" inc "\": a public header includes an internal one")
            else if (layer(t) != "" && rank[layer(t)] > rank[l]) complain(at, "#include \"" inc "\" is in " layer(t) "/, above " l "/")
        }
        close(f)
    }
    exit bad
}'
