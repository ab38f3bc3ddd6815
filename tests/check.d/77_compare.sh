#!/bin/bash
# Comparisons (issue 22): vs/<ref>/ in every model folder of a mount of
# several models, and gguffs --compare. One set of weights quantized by the
# real ggml into Q8_0 and Q4_K, and its F32 original (tests/check_compare.py
# make); every figure of every tensor against float64 numpy on ggml's own
# dequantization, diff and diff.npy exact, the summaries, different shapes,
# missing tensors, an undecodable type, a model against itself, imatrix
# weights (experts too), --compare against the mount, two readers computing
# once, nested folders and a live folder (and --cat of them), a model
# changed in place.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
M=$TMP/m
D=$TMP/models
CC="$PY $TOP/tests/check_compare.py"
size() { stat -c %s "$1"; }
cc() { $CC "$@" || fail "check_compare.py $1 ${2:-}"; }

$CC make "$D" > /dev/null || { fail "check_compare.py make"; finish; exit 1; }
cd "$D"

# --- 1. five models at once (one a byte copy), weighed by an imatrix
mount_model "$M" orig.gguf q8_0.gguf q4_K.gguf odd.gguf q8_0-copy.gguf -o imatrix=im.gguf
check "a model folder has vs/" [ -d "$M/q4_K/vs" ]
check "vs/ lists the other models, not itself" [ "$(ls "$M/q4_K/vs" | tr '\n' ' ')" = "odd orig q8_0 q8_0-copy " ]
check "vs/<ref>/ holds tensors.tsv, summary, summary.json, tensors/" \
    [ "$(ls "$M/q4_K/vs/orig" | tr '\n' ' ')" = "summary summary.json tensors tensors.tsv " ]
check "a tensor's folder holds diff and diff.npy" \
    [ "$(ls "$M/q4_K/vs/orig/tensors/output.weight" | tr '\n' ' ')" = "diff diff.npy " ]
# Nothing is computed to list them or learn their sizes.
ls -lR "$M/q4_K/vs" "$M/odd/vs" > /dev/null
declare -A SZ
for f in tensors.tsv summary summary.json; do SZ[$f]=$(size "$M/q4_K/vs/orig/$f"); done
check "ls -lR of vs/ computes nothing (compare_tensors $(stat_of "$M" compare_tensors))" \
    [ "$(stat_of "$M" compare_tensors)" = 0 ]
check "diff is elements x 4 bytes" [ "$(size "$M/q4_K/vs/orig/tensors/output.weight/diff")" = $((256 * 512 * 4)) ]

cc figures "$M/q4_K/vs/orig/tensors.tsv" q4_K.gguf orig.gguf --imatrix im.gguf
cc figures "$M/q8_0/vs/orig/tensors.tsv" q8_0.gguf orig.gguf --imatrix im.gguf
cc figures "$M/orig/vs/q4_K/tensors.tsv" orig.gguf q4_K.gguf --imatrix im.gguf
for f in tensors.tsv summary summary.json; do
    check "$f: the size known before is what a read gives" [ "$(wc -c < "$M/q4_K/vs/orig/$f")" = "${SZ[$f]}" ]
done
cc summary "$M/q4_K/vs/orig" q4_K.gguf orig.gguf --imatrix im.gguf
cc diffs "$M/q4_K/vs/orig" q4_K.gguf orig.gguf
cc closer "$M/q8_0/vs/orig/tensors.tsv" "$M/q4_K/vs/orig/tensors.tsv" orig.gguf
# different shapes, missing tensors, an undecodable type, both ways
cc figures "$M/odd/vs/q8_0/tensors.tsv" odd.gguf q8_0.gguf --values odd-values.gguf --imatrix im.gguf
cc figures "$M/q8_0/vs/odd/tensors.tsv" q8_0.gguf odd.gguf --ref-values odd-values.gguf --imatrix im.gguf
for t in blk.0.attn_q.weight blk.0.attn_k.weight extra.weight blk.1.ffn_up.weight; do
    check "no tensors/$t/ for a tensor not compared" [ ! -e "$M/odd/vs/q8_0/tensors/$t" ]
done
# a model against itself: all zero, snr inf
cc figures "$M/q8_0/vs/q8_0-copy/tensors.tsv" q8_0.gguf q8_0-copy.gguf --imatrix im.gguf
check "against itself: rmse, max_abs_err, rel_rmse 0, cosine 1, snr_db inf on every row" \
    awk -F'\t' 'NR > 1 && !($5 + 0 == 0 && $6 + 0 == 0 && $7 + 0 == 0 && $8 + 0 == 1 && $9 ~ /^ *inf$/) { bad = 1 }
                END { exit bad }' "$M/q8_0/vs/q8_0-copy/tensors.tsv"
check "against itself: diff is zeros" cmp -s "$M/q8_0/vs/q8_0-copy/tensors/output.weight/diff" <(head -c $((256 * 512 * 4)) /dev/zero)
check "tensors.tsv reads with sort -g and cut" sh -c "tail -n +2 '$M/q4_K/vs/orig/tensors.tsv' | sort -t'	' -g -k7 | cut -f7 | tail -n 1 | grep -q '0\.0'"

# --- 2. --compare prints the same bytes, whatever the threads, page size and SIMD path
"$GGUFFS" --compare -o imatrix=im.gguf q4_K.gguf orig.gguf > "$TMP/cmp.tsv"
check "--compare equals the mount's tensors.tsv" cmp "$TMP/cmp.tsv" "$M/q4_K/vs/orig/tensors.tsv"
"$GGUFFS" --compare --json -o imatrix=im.gguf q4_K.gguf orig.gguf > "$TMP/cmp.json"
check "--compare --json equals the mount's summary.json" cmp "$TMP/cmp.json" "$M/q4_K/vs/orig/summary.json"
"$GGUFFS" --compare odd.gguf q8_0.gguf > "$TMP/odd.tsv"
check "--compare without an imatrix: no w_rel_rmse, the rest the same" \
    cmp "$TMP/odd.tsv" <(cut -f 1-9,11 "$M/odd/vs/q8_0/tensors.tsv")
paths=$("$GGUFFS" --version | sed -n 's/^simd paths://p')
check "--version names the SIMD paths ($paths)" [ -n "$paths" ]
for o in threads=1 threads=4 page_size=4K,cache_size=64K page_size=64M $(for p in $paths; do echo simd=$p; done); do
    check "--compare -o $o: the same figures" \
        cmp <("$GGUFFS" --compare -o imatrix=im.gguf,$o q4_K.gguf orig.gguf) "$TMP/cmp.tsv"
done
computed=$(stat_of "$M" compare_tensors)
cat "$M"/q4_K/vs/orig/* "$M"/q8_0/vs/orig/* > /dev/null 2>&1
check "figures are kept: read again, nothing computed ($computed)" [ "$(stat_of "$M" compare_tensors)" = "$computed" ]
check "what was computed, once per pair: 21 x 4 + 18 x 2 ($computed)" [ "$computed" = $((21 * 4 + 18 * 2)) ]
unmount "$M"

# --- 3. experts: a weight per column of each expert's matrix (a count of 0 weighs 1)
mount_model "$M" moe-q8_0.gguf moe-f32.gguf -o imatrix=moe-im.gguf
cc figures "$M/moe-q8_0/vs/moe-f32/tensors.tsv" moe-q8_0.gguf moe-f32.gguf --imatrix moe-im.gguf
cc summary "$M/moe-q8_0/vs/moe-f32" moe-q8_0.gguf moe-f32.gguf --imatrix moe-im.gguf
cc diffs "$M/moe-q8_0/vs/moe-f32" moe-q8_0.gguf moe-f32.gguf
unmount "$M"
# an imatrix mounts like any model; its summary says what it holds
mount_model "$M" moe-im.gguf
cc imatrix-summary "$M" moe-im.gguf
unmount "$M"
mount_model "$M" im.gguf
cc imatrix-summary "$M" im.gguf
unmount "$M"

# --- 4. two readers at once compute each pair once; a third waits for it
ok_once=0
for try in 1 2 3; do
    mount_model "$M" big-f16.gguf big-f32.gguf -o threads=1
    V=$M/big-f16/vs/big-f32
    cat "$V/tensors.tsv" > "$TMP/r1" & cat "$V/tensors.tsv" > "$TMP/r2" & cat "$V/summary.json" > "$TMP/r3" &
    wait
    n=$(stat_of "$M" compare_tensors) w=$(stat_of "$M" compare_waits)
    unmount "$M"
    check "concurrent readers: the pair computed once ($n)" [ "$n" = 1 ]
    check "concurrent readers read the same" cmp -s "$TMP/r1" "$TMP/r2"
    [ "$w" -ge 1 ] && { ok_once=1; break; }
done
check "a reader waited for the pair another was computing (compare_waits >= 1 in $try tries)" [ $ok_once = 1 ]

# --- 5. folders: nested names keep their folders; a live folder's changes reach vs/
mkdir -p "$TMP/tree/sub"
cp moe-q8_0.gguf "$TMP/tree/sub/a.gguf"
cp moe-f32.gguf "$TMP/tree/sub/c.gguf"
cp moe-f32.gguf "$TMP/tree/b.gguf"
mount_model "$M" "$TMP/tree"
check "sub/a/vs: the root's names, without itself" [ "$(ls "$M/sub/a/vs" | tr '\n' ' ')" = "b sub " ]
check "sub/a/vs/sub: its folder, without itself" [ "$(ls "$M/sub/a/vs/sub" | tr '\n' ' ')" = "c " ]
check "b/vs/sub: both" [ "$(ls "$M/b/vs/sub" | tr '\n' ' ')" = "a c " ]
check "sub/a/vs/sub/c is the comparison" [ -f "$M/sub/a/vs/sub/c/tensors.tsv" ]
cc figures "$M/sub/a/vs/sub/c/tensors.tsv" moe-q8_0.gguf moe-f32.gguf
# --cat of the folder reads vs/ as the mount shows it (diff.npy: a composite read)
for f in tensors.tsv summary summary.json tensors/blk.0.ffn_up_exps.weight/diff \
    tensors/blk.0.ffn_up_exps.weight/diff.npy; do
    check "--cat FOLDER sub/a/vs/sub/c/$f: the mount's bytes" \
        cmp <("$GGUFFS" --cat "$TMP/tree" "sub/a/vs/sub/c/$f") "$M/sub/a/vs/sub/c/$f"
done
check "--cat -o imatrix= FOLDER ...vs/.../tensors.tsv: --compare's, weighed" \
    cmp <("$GGUFFS" --cat -o imatrix=moe-im.gguf "$TMP/tree" sub/a/vs/sub/c/tensors.tsv) \
    <("$GGUFFS" --compare -o imatrix=moe-im.gguf moe-q8_0.gguf moe-f32.gguf)
check "a name not there yet" [ ! -e "$M/b/vs/new" ]
cp q4_K.gguf "$TMP/tree/new.gguf.part" && mv "$TMP/tree/new.gguf.part" "$TMP/tree/new.gguf"
check "a model added appears at the root" wait_until 10 test -d "$M/new"
check "... and in the others' vs/ (the kernel forgot the missing name)" wait_until 10 test -d "$M/b/vs/new"
check "... where it compares" sh -c "tail -n +2 '$M/b/vs/new/tensors.tsv' | grep -q 'only in this model'"
rm "$TMP/tree/new.gguf"
check "a model removed leaves the root" wait_until 10 test ! -e "$M/new"
check "... and the others' vs/" wait_until 10 test ! -e "$M/b/vs/new"
unmount "$M"
# -o novs: no vs/ at all (a walk of N models would visit N(N-1) comparisons);
# the rest of every model folder stays, and --cat follows it
mount_model "$M" "$TMP/tree" -o novs
check "-o novs: no vs/ in any model folder" [ "$(find "$M" -name vs | wc -l) $(ls "$M/sub/a" | grep -c .)" = "0 $(ls "$M/b" | grep -c .)" ]
check "-o novs: the rest is there (sub/a/summary)" [ -s "$M/sub/a/summary" ]
unmount "$M"
check "-o novs: --cat has no vs/ either (exit 11)" sh -c "'$GGUFFS' --cat -o novs '$TMP/tree' sub/a/vs/b/summary > /dev/null 2>&1; [ \$? = 11 ]"
check "without it: find sees every model's vs/ (3 models: 3)" sh -c "'$GGUFFS' '$TMP/tree' '$M' && n=\$(find '$M' -name vs | wc -l); fusermount3 -u '$M'; [ \"\$n\" = 3 ]"

# --- 6. a model changed in place: its comparisons fail, never mixed
cp q4_K.gguf "$TMP/x.gguf"
mount_model "$M" "$TMP/x.gguf" orig.gguf
cat "$M/x/vs/orig/tensors.tsv" > /dev/null
touch -d '2001-01-01' "$TMP/x.gguf"
check "changed in place: a text already made fails too" sh -c "! cat '$M/x/vs/orig/tensors.tsv' > /dev/null 2>&1"
check "changed in place: diff fails with ESTALE" sh -c "! cat '$M/x/vs/orig/tensors/output.weight/diff' > /dev/null 2> '$TMP/err'"
check "... (Stale file handle)" grep -q "Stale file handle" "$TMP/err"
check "changed in place: the reference's side too" sh -c "! cat '$M/orig/vs/x/tensors.tsv' > /dev/null 2>&1"
unmount "$M"

# --- 7. figures over nothing (no tensor compared, a tensor of no elements, no
# element weighed): "-" in the texts, null in JSON, never 0.0
mount_model "$M" shapes-a.gguf shapes-b.gguf empty-a.gguf empty-b.gguf -o imatrix=im.gguf
for p in shapes-a:shapes-b empty-a:empty-b; do
    a=${p%%:*} b=${p#*:}
    cc figures "$M/$a/vs/$b/tensors.tsv" $a.gguf $b.gguf --imatrix im.gguf
    cc summary "$M/$a/vs/$b" $a.gguf $b.gguf --imatrix im.gguf
    "$GGUFFS" --compare --json -o imatrix=im.gguf $a.gguf $b.gguf > "$TMP/nothing.json"
    check "--compare --json $a $b: the mount's summary.json" cmp "$TMP/nothing.json" "$M/$a/vs/$b/summary.json"
done
check "nothing compared: rel_rmse null, w_rel_rmse null" \
    "$PY" -c "import json, sys; j = json.load(open(sys.argv[1])); sys.exit(not (j['tensors']['compared'] == 0 and
        j['rel_rmse'] is None and j['w_rel_rmse'] is None))" "$M/shapes-a/vs/shapes-b/summary.json"
check "nothing compared: the summary's rel_rmse is -" grep -qE '^rel_rmse +-$' "$M/shapes-a/vs/shapes-b/summary"
check "a tensor of no elements: its figures are -" \
    awk -F'\t' '$1 == "blk.0.e" { n = 0; for (i = 5; i <= 9; i++) n += $i ~ /^ *-$/; exit (n != 5) }' \
    "$M/empty-a/vs/empty-b/tensors.tsv"
unmount "$M"

# --- 8. the command line
"$GGUFFS" --compare q4_K.gguf > /dev/null 2> "$TMP/err"
check "--compare with one model: exit 2" [ $? = 2 ] && check "... says it wants two" grep -q "two models" "$TMP/err"
"$GGUFFS" --compare --full q4_K.gguf orig.gguf > /dev/null 2>&1
check "--compare --full: exit 2" [ $? = 2 ]
"$GGUFFS" --compare q4_K.gguf "$TMP/missing.gguf" > /dev/null 2>&1
check "--compare of a missing file: exit 3" [ $? = 3 ]
"$GGUFFS" --compare -o imatrix="$TMP/missing.gguf" q4_K.gguf orig.gguf > /dev/null 2>&1
check "-o imatrix= a missing file: exit 2" [ $? = 2 ]
"$GGUFFS" --compare -o imatrix=orig.gguf q4_K.gguf orig.gguf > /dev/null 2> "$TMP/err"
check "-o imatrix= a model, not an imatrix: exit 5" [ $? = 5 ] && check "... naming the file" grep -q "orig.gguf: not an imatrix" "$TMP/err"
for bad in "bad-type:w.in_sum2\": type Q8_0, an imatrix holds F32" "bad-size:w: 64 sums for 3 counts" \
    "bad-pair:w.in_sum2\" has no w.counts"; do
    "$GGUFFS" --compare -o imatrix=${bad%%:*}.gguf q4_K.gguf orig.gguf > /dev/null 2> "$TMP/err"
    check "-o imatrix=${bad%%:*}.gguf: exit 5" [ $? = 5 ] && check "... says why" grep -qF "${bad#*:}" "$TMP/err"
done
"$GGUFFS" --cat -o imatrix=orig.gguf "$TMP/tree" b/vs/sub/a/tensors.tsv > /dev/null 2> "$TMP/err"
check "--cat -o imatrix= not an imatrix: exit 5" [ $? = 5 ] && check "... naming the file" grep -q "orig.gguf: not an imatrix" "$TMP/err"
"$GGUFFS" --cat q4_K.gguf vs/orig/tensors.tsv > /dev/null 2> "$TMP/err"
check "--cat of one model's vs/: exit 11" [ $? = 11 ] && check "... saying vs/ needs several models, or --compare" \
    sh -c "grep -q 'a mount of several' '$TMP/err' && grep -q 'gguffs --compare MODEL REF' '$TMP/err'"
"$GGUFFS" -o imatrix=orig.gguf q4_K.gguf orig.gguf "$M" 2> "$TMP/err"
check "mount with -o imatrix= not an imatrix: exit 5, nothing mounted" [ $? = 5 ] && check "... not mounted" sh -c "! grep -qs ' $M fuse' /proc/mounts"

finish 77_compare
