#!/bin/bash
# At home in the Unix toolbox: the README tour, split models, several models
# in one mount, stats, --dump, --verify, --help/--version, the man page (every
# option, exit status and file kind in it, lint, README's links to it), make
# install, mount(8) and fstab.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
M=$TMP/m

# --- the README's quick tour, as written (mount point moved into $TMP)
awk '/^## Quick tour/ { on = 1 } on && /^```sh$/ { inb = 1; next } inb && /^```$/ { exit } inb' README.md \
    | sed "s|/tmp/model|$TMP/model|g" > "$TMP/tour.sh"
MOUNTS="$MOUNTS $TMP/model"
check "README tour extracted" [ "$(wc -l < "$TMP/tour.sh")" -gt 20 ]
# As a user whose python3 on PATH has no numpy (a virtual environment) runs it.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n' > "$TMP/bin/python3"
chmod +x "$TMP/bin/python3"
check "the shim python3 has no numpy" sh -c "! PATH='$TMP/bin':\$PATH python3 -c 'import numpy' 2>/dev/null"
PATH=$TMP/bin:$PATH bash -e "$TMP/tour.sh" > "$TMP/tour.out" 2>&1
check "README tour runs, with a python3 on PATH that has no numpy" [ $? = 0 ]
for want in "llama" "blk.0.attn_q.weight" "f32.npy" "count                     2048" "npy (128, 128) float32" \
    "q4_k_m.gguf" "$(printf 'name\ttype\tref_type\trel_rmse\tsnr_db')" \
    "$(printf 'output_norm.weight\tF32\tF32\t%24s\t%24s' 0.0 inf)" "worst by rel_rmse" \
    "$(printf 'tiny-q8_0\tllama\t18.56 K\tQ8_0\t8.66')" "parameters      18.56 K (18560)" "  Q8_0            2 tensors"; do
    check "README tour prints '$want'" grep -qF "$want" "$TMP/tour.out"
done
check "README tour leaves nothing mounted" sh -c "! grep -qs ' $TMP/model fuse' /proc/mounts"

# --- split models (gguf-split layout): any shard mounts the whole model
$PY - "$TMP" <<'PY'
import sys
sys.path.insert(0, "tests")
import gguf_tool as g
tmp = sys.argv[1]
src = "tests/data/mainline/mainline.gguf"
b = open(src, "rb").read()
h = g.read(b)
rows = [l.rstrip("\n").split("\t") for l in open("tests/data/mainline/manifest.tsv")][1:]
size = {r[0].encode(): int(r[5]) for r in rows}
ts = [(t["name"], t["dims"], t["type"], b[h.data_offset + t["offset"]:h.data_offset + t["offset"] + size[t["name"]]])
      for t in h.tensors]
kvs = [(k, t, v) for k, t, v, _ in h.kvs]
parts = [ts[:30], ts[30:50], ts[50:]]
for i, p in enumerate(parts):
    split = [("split.no", g.U16, i), ("split.count", g.U16, 3), ("split.tensors.count", g.I32, len(ts))]
    g.write(f"{tmp}/split-0000{i+1}-of-00003.gguf", kvs=(kvs + split) if i == 0 else split, tensors=p)
# a set whose count disagrees
for i, p in enumerate(parts[:2]):
    split = [("split.no", g.U16, i), ("split.count", g.U16, 2), ("split.tensors.count", g.I32, 99)]
    g.write(f"{tmp}/bad-0000{i+1}-of-00002.gguf", kvs=split, tensors=p)
PY
for shard in 1 2 3; do
    mount_model "$M" "$TMP/split-0000$shard-of-00003.gguf" &&
        check "split: shard $shard mounts the whole model" $PY tests/check_tensors.py "$M" \
            tests/data/mainline/manifest.tsv tests/data/mainline/mainline.gguf --f32-only
    check "split: metadata from the first shard" [ "$(cat "$M/metadata/general.architecture")" = llama ]
    check "split: all tensors listed" [ "$(ls "$M/tensors" | wc -l)" = 72 ]
    unmount "$M"
done
mv "$TMP/split-00002-of-00003.gguf" "$TMP/away.gguf"
"$GGUFFS" "$TMP/split-00001-of-00003.gguf" "$M" 2> "$TMP/err"
rc=$?
check "split: missing shard is an error naming it" grep -q "split-00002-of-00003.gguf: missing shard 2 of 3" "$TMP/err"
check "split: missing shard exit status 3" [ $rc = 3 ]
mv "$TMP/away.gguf" "$TMP/split-00002-of-00003.gguf"
"$GGUFFS" "$TMP/bad-00001-of-00002.gguf" "$M" 2> "$TMP/err"
rc=$?
check "split: tensor count checked" grep -q "split.tensors.count says 99" "$TMP/err"
check "split: bad count exit status 5" [ $rc = 5 ]

# --- several models in one mount
mkdir -p "$TMP/other"
cp tests/data/mainline/mainline.gguf "$TMP/other/mainline.gguf"
mount_model "$M" tests/data/mainline/mainline.gguf "$TMP/other/mainline.gguf" tests/data/ik/ik.gguf \
    "$TMP/split-00002-of-00003.gguf"
check "models: one folder each, clash suffixed, shard suffix dropped" \
    [ "$(ls -AU "$M" | tr '\n' ' ')" = "models.tsv .errors .stats ik mainline mainline~2 split " ]
check "models: cmp across models" cmp -s "$M/mainline/tensors/Q4_K/f32" "$M/mainline~2/tensors/Q4_K/f32"
check "models: diff of listings" diff <(ls "$M/mainline/tensors") <(ls "$M/split/tensors")
check "models: different models differ" bash -c "! diff -q <(ls '$M/mainline/tensors') <(ls '$M/ik/tensors') >/dev/null 2>&1" 
check "models: ik decodes" cmp -s "$M/ik/tensors/IQ4_KS/f32" tests/data/ik/f32/IQ4_KS.f32
unmount "$M"

# --- stats against numpy
mount_model "$M" tests/data/mainline/mainline.gguf
check "stats agree with numpy" $PY - "$M" <<'PY'
import sys, numpy as np
m = sys.argv[1]
for name in ("Q4_K", "rand.F32", "rand.MXFP4", "F16", "output_norm.weight"):
    want = np.fromfile(f"tests/data/mainline/f32/{name}.f32", "<f4")
    got = dict(l.split() for l in open(f"{m}/tensors/{name}/stats"))
    fin = want[np.isfinite(want)].astype(np.float64)
    assert int(got["count"]) == want.size, (name, got)
    assert int(got["nan"]) == np.isnan(want).sum() and int(got["inf"]) == np.isinf(want).sum(), (name, got)
    assert int(got["zeros"]) == (want == 0).sum(), (name, got)
    assert np.float32(got["min"]) == np.nanmin(want) and np.float32(got["max"]) == np.nanmax(want), (name, got)
    assert abs(float(got["mean"]) - fin.mean()) <= 1e-9 * max(1, abs(fin).max()), (name, got, fin.mean())
    assert abs(float(got["std"]) - fin.std()) <= 1e-6 * max(1, fin.std()), (name, got, fin.std())
PY
unmount "$M"
$PY -c "
import sys; sys.path.insert(0, 'tests'); import gguf_tool as g
g.write('$TMP/odd.gguf', tensors=[('odd', [64], 250, bytes(64))])"
mount_model "$M" "$TMP/odd.gguf"
check "an undecodable tensor has no stats" [ ! -e "$M/tensors/odd/stats" ]
check "cp -r of a mount with an undecodable tensor" cp -r "$M" "$TMP/copy"
check "tar of a mount with an undecodable tensor" tar -cf /dev/null -C "$M" .
unmount "$M"

# --- --dump, --verify, --help, --version
"$GGUFFS" --dump tests/data/mainline/mainline.gguf > "$TMP/dump"
check "dump: exit 0" [ $? = 0 ]
check "dump: header line" grep -q "GGUF version 3, 66 key/value pairs, 72 tensors, alignment 32, data at 58016" "$TMP/dump"
check "dump: long arrays shortened" grep -q "tokenizer.ggml.tokens = \[2000 x str\] <unk>, <s>, </s>.*(1992 more)" "$TMP/dump"
check "dump: tensor table" grep -qE "Q4_K +\(5, 1024\) +111520 +2880 +4.500  Q4_K" "$TMP/dump"
check "dump --full: whole arrays" [ "$("$GGUFFS" --dump --full tests/data/mainline/mainline.gguf | grep -c '(1992 more)')" = 0 ]
check "dump --json parses" $PY -c "
import json, subprocess
d = json.loads(subprocess.check_output(['$GGUFFS', '--dump', '--json', 'tests/data/ik/ik.gguf']))
assert d['n_tensors'] == 73 and len(d['tensors']) == 73 and d['tensors'][5]['type'] == 'Q5_1', d['tensors'][5]
assert d['metadata']['ref.tensor_types']['n'] == 73"
"$GGUFFS" --verify tests/data/ik/ik.gguf > "$TMP/verify" 2>&1
check "verify: clean model exits 0" [ $? = 0 ]
check "verify: one line per tensor" [ "$(grep -c '	ok	0	0$' "$TMP/verify")" = 73 ]
"$GGUFFS" --verify tests/data/mainline/mainline.gguf > "$TMP/verify" 2>&1
check "verify: infinities reported, exit 9" [ $? = 9 ]
check "verify: names the tensor" grep -q "^rand.MXFP4	MXFP4	non-finite	0	" "$TMP/verify"
"$GGUFFS" --dump /nonexistent.gguf 2>/dev/null
check "dump of a missing file: exit 3" [ $? = 3 ]
"$GGUFFS" --help > "$TMP/help"
check "--help exits 0" [ $? = 0 ]
# The -o options as (name, VALUE) in order: --help prints them from options.c's
# table, the man page lists them by hand; the two must agree.
sed -n "s/^  -o \([a-z0-9_]\+\)\(=\('[^']*'\|[^ ]*\)\)\?.*/\1 \3/p" "$TMP/help" > "$TMP/help.opts"
sed -n -e 's/^\.BI "\\-o \([a-z0-9_]\+\)=" "\?\([^"]*\)"\?$/\1 \2/p' \
    -e 's/^\.B \\-o \([a-z0-9_]\+\)$/\1 /p' man/gguffs.1 > "$TMP/man.opts"
check "--help lists the -o options (found $(wc -l < "$TMP/help.opts"))" [ "$(wc -l < "$TMP/help.opts")" -ge 20 ]
check "gguffs.1 lists the same -o options as --help, in the same order, with the same VALUE" \
    diff "$TMP/help.opts" "$TMP/man.opts"
# README names a few -o options of its own choosing: each is one of --help's.
grep -o -- '-o [a-z0-9_]\+' README.md | cut -c4- | sort -u > "$TMP/readme.opts"
check "README names -o options ($(wc -l < "$TMP/readme.opts")), all of them --help's" \
    bash -c "[ -s '$TMP/readme.opts' ] && ! grep -vxFf <(cut -d' ' -f1 '$TMP/help.opts') '$TMP/readme.opts'"
check "--version exits 0" "$GGUFFS" --version

# --- the man page is the reference (issue 37): everything the program has is
# in it, it lints clean, and every section README links to exists.
# The man page's text without its font and dash escapes.
sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\e/\\/g' man/gguffs.1 > "$TMP/man.txt"
in_man() { # a word, or a folder: its name followed by /
    case $1 in
    */) grep -qE -- "(^|[^[:alnum:]_.~-])${1%/}/" "$TMP/man.txt" ;;
    *) grep -qwF -- "$1" "$TMP/man.txt" ;;
    esac
}
missing=""
# Options, from --help: every -o NAME, every long option, -f -d -s.
for o in $(cut -d' ' -f1 "$TMP/help.opts"); do grep -qF -- "-o $o" "$TMP/man.txt" || missing="$missing -o:$o"; done
longs=$(grep -o -- '--[a-z][a-z-]*' "$TMP/help" | sort -u)
for o in $longs; do in_man "$o" || missing="$missing $o"; done
shorts=$(sed -n 's/^  \(-[a-z]\)  .*/\1/p' "$TMP/help")
for o in $shorts; do grep -qx -- "\.B $o" "$TMP/man.txt" || missing="$missing $o"; done
check "the man page names every option of --help ($(echo $longs $shorts | wc -w) long and short, $(wc -l < "$TMP/help.opts") -o; missing:${missing:- none})" \
    [ -z "$missing" -a -n "$longs" -a -n "$shorts" ]
# Exit statuses: cli.h's and --help's are the man page's EXIT STATUS entries.
sed -n 's/^ *GG_EXIT_[A-Z_]* = \([0-9]*\),.*/\1/p' src/app/cli.h | sort -n > "$TMP/exit.cli"
sed -n '/^exit status:/,/^See/p' "$TMP/help" | grep -o '\(^\|, \|: \)[0-9]\+ ' | tr -dc '0-9\n ' |
    tr -s ' ' '\n' | grep . | sort -n > "$TMP/exit.help"
sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$TMP/man.txt" | sed -n '/^\.TP/{n;s/^\.B \([0-9]*\)$/\1/p}' | sort -n > "$TMP/exit.man"
check "cli.h's exit statuses ($(wc -l < "$TMP/exit.cli")) are --help's" diff "$TMP/exit.cli" "$TMP/exit.help"
check "cli.h's exit statuses are the man page's EXIT STATUS entries" diff "$TMP/exit.cli" "$TMP/exit.man"
# File kinds: the rows of src/tree/files.c, the recipes of src/gguf/recipe.c,
# the side files of src/tree/stores.c, and whatever a mount of two models
# with every recipe listed shows (root, model, tensor, as/, vs/ files).
sed -n -e 's/.*{\(MODEL\|TENSOR\|AS\|HF\|VS\|VS_TENSOR\)("\([^"]*\)"), \(DIR\|ROWS\)(.*/\2\/ \1/p' \
    -e 's/.*{\(MODEL\|TENSOR\|AS\|HF\|VS\|VS_TENSOR\)("\([^"]*\)").*/\2 \1/p' src/tree/files.c > "$TMP/kinds"
recipes=$(grep -o '^ *R("[a-z0-9_]*"' src/gguf/recipe.c | cut -d'"' -f2)
sed -n 's/.*side_layers\[\] = {\(.*\)};/\1/p' src/tree/stores.c | tr -d '" ' | tr ',' '\n' >> "$TMP/kinds"
check "kinds read from files.c ($(grep -c ' ' "$TMP/kinds")), recipe.c ($(echo $recipes | wc -w)), stores.c ($(grep -vc ' ' "$TMP/kinds"))" \
    [ "$(grep -c ' ' "$TMP/kinds")" -ge 25 -a "$(echo $recipes | wc -w)" -ge 25 ]
echo "$recipes" >> "$TMP/kinds"
if mount_model "$M" -o "as=$(echo $recipes | tr ' ' ',')" tests/data/tour/tiny-f16.gguf tests/data/tour/tiny-q8_0.gguf; then
    # every name of the tree but a model's own: its keys, tensors, layers,
    # the other models; as/'s recipes without .gguf
    /usr/bin/python3 - "$M" >> "$TMP/kinds" <<'PY'
import os, sys
root = sys.argv[1]
for top in os.listdir(root):
    if not os.path.isdir(os.path.join(root, top)):
        print(top)
        continue
    for d, dirs, files in os.walk(os.path.join(root, top)):
        for n in dirs + files:
            p = os.path.relpath(os.path.join(d, n), os.path.join(root, top)).split(os.sep)
            if p[0] in ("metadata", "blocks") and len(p) > 1 or p[0] == "tensors" and len(p) == 2 \
                    or p[0] == "vs" and (len(p) == 2 or len(p) == 4 and p[2] == "tensors"):
                continue
            print(n[:-5] if p[0] == "as" and len(p) == 2 and n.endswith(".gguf") else n + "/" * (n in dirs))
PY
    unmount "$M"
else
    fail "mount with every recipe listed (-o as=)"
fi
missing=""
for k in $(cut -d' ' -f1 "$TMP/kinds" | sort -u); do in_man "$k" || missing="$missing $k"; done
check "the man page names every file kind of the tree ($(cut -d' ' -f1 "$TMP/kinds" | sort -u | wc -l); missing:${missing:- none})" \
    [ -z "$missing" ]
# It lints clean, with both formatters.
for tool in groff mandoc; do
    command -v $tool > /dev/null || fail "$tool is missing (tests/deps.sh installs it)"
done
groff -man -Tutf8 -ww -z man/gguffs.1 > "$TMP/groff.out" 2>&1
check "groff -man -ww: no warning ($(head -c 300 "$TMP/groff.out"))" [ $? = 0 -a ! -s "$TMP/groff.out" ]
mandoc -Tlint man/gguffs.1 > "$TMP/mandoc.out" 2>&1
check "mandoc -Tlint: nothing to say ($(head -c 300 "$TMP/mandoc.out"))" [ $? = 0 -a ! -s "$TMP/mandoc.out" ]
# README links to sections as [NAME](man/gguffs.1): each is a .SH or .SS.
sed -n 's/^\.S[HS] "\?\([^"]*\)"\?$/\1/p' "$TMP/man.txt" > "$TMP/man.sections"
bad=$(/usr/bin/python3 - README.md "$TMP/readme.refs" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
refs = [" ".join(r.split()) for r in re.findall(r"\[([^\]]+)\]\(man/gguffs\.1\)", text)]
open(sys.argv[2], "w").write("".join(r + "\n" for r in refs))
# Each section that sends the reader on names one.
bad = []
for sec in ("The tree at a glance", "For programs", "Comparisons", "Where models live", "Without FUSE", "Speed"):
    m = re.search(r"^## " + sec + r"\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m or "](man/gguffs.1)" not in m.group(1):
        bad.append(sec)
print(", ".join(bad))
PY
)
check "README's sections each link to the man page (without one: ${bad:-none})" [ -z "$bad" ]
missing=""
while read -r ref; do grep -qxF -- "$ref" "$TMP/man.sections" || missing="$missing '$ref'"; done < "$TMP/readme.refs"
check "README's links ($(wc -l < "$TMP/readme.refs")) name sections of the man page (missing:${missing:- none})" \
    [ -z "$missing" -a "$(wc -l < "$TMP/readme.refs")" -ge 10 ]

# --- make install, mount(8), fstab
make -s install DESTDIR="$TMP/dest" PREFIX=/usr/local > /dev/null
check "install: binary" [ -x "$TMP/dest/usr/local/bin/gguffs" ]
check "install: man page" [ -f "$TMP/dest/usr/local/share/man/man1/gguffs.1" ]
MODEL=$TOP/tests/data/mainline/mainline.gguf
mkdir -p "$M"
MOUNTS="$MOUNTS $M"
mount -t fuse "$TMP/dest/usr/local/bin/gguffs#$MODEL" "$M" -o ro
check "mount -t fuse prog#model" cmp -s "$M/tensors/Q4_K/f32" tests/data/mainline/f32/Q4_K.f32
unmount "$M"
# mount.fuse3 finds fuse.gguffs on its default PATH: borrow /usr/local/bin if free.
if [ ! -e /usr/local/bin/gguffs ]; then
    ln -s "$TMP/dest/usr/local/bin/gguffs" /usr/local/bin/gguffs
    mount -t fuse.gguffs -o ro "$MODEL" "$M"
    check "mount -t fuse.gguffs" cmp -s "$M/tensors/Q6_K/f32" tests/data/mainline/f32/Q6_K.f32
    check "mounted as fuse.gguffs" grep -qs "^$MODEL $M fuse.gguffs ro," /proc/mounts
    unmount "$M"
    printf '%s %s fuse.gguffs ro,noauto 0 0\n' "$MODEL" "$M" > "$TMP/fstab"
    mount -T "$TMP/fstab" "$M"
    check "fstab line" cmp -s "$M/tensors/IQ4_XS/f32" tests/data/mainline/f32/IQ4_XS.f32
    unmount "$M"
    rm -f /usr/local/bin/gguffs
else
    echo "note: /usr/local/bin/gguffs exists; mount -t fuse.gguffs / fstab checks skipped"
fi
finish 60_toolbox
