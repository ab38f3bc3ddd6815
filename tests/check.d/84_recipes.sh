#!/bin/bash
# as/<recipe>.gguf (issue 36) checked by llama.cpp itself: llama_model_quantize of the real
# llama.cpp (tests/peer/quantize.py, one thread, no imatrix) on each model's as/f32.gguf, read
# through the mount, for every recipe llama-quantize has; each view must be its file byte for
# byte (keys, tensor order, types, blocks), and where llama.cpp refuses, the recipe must be
# absent with as/why saying why (tests/check_recipes.py). Five tiny llamas: K-quants (8 layers,
# GQA 4), i-quants with tied embeddings, IQ2_KS of ik_llama.cpp, rows of 96 and 200 values (the
# fallbacks), 8 experts (MXFP4). Then gguf-py's dequantize of every quantized tensor of the
# K-quant and MoE models' files against gguffs' f32 through a second mount of them; llama.cpp
# loads every view of the K-quant model (embedding cosine to as/f32.gguf's printed); as/ lists
# -o as= (default ten), finds the others by name, lists in no time without quantizing, serves
# --cat; quantized pages come from the cache the second time. With metadata edits (-o edits=,
# issue 35): as/q4_k_m.gguf and as/q6_k.gguf are llama-quantize's files of the edited as/f32.gguf,
# and gguf-py and ggml read the edited keys in them, general.quantization_version and
# general.file_type last as llama-quantize sets them (the unedited keys' file fails that: the
# control); a reader holding as/q4_k_m.gguf across an edit keeps its bytes, the next open gets
# the new ones; --cat -o edits= serves them.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
CR="$PY $TOP/tests/check_recipes.py"
D=$TMP/models
OUT=$TMP/out
mkdir -p "$D" "$OUT"
# cr MODE ARGS...: a check_recipes.py mode; its lines shown, a failure failing here once
cr() { $CR "$@" > "$TMP/cr.out" 2>&1 || fail "check_recipes.py $1 $4"; grep -v "^check_recipes" "$TMP/cr.out"; }

RECIPES="f16 bf16 q4_0 q4_1 q8_0 q5_0 q5_1 q2_k q3_k_s q3_k_m q3_k_l q4_k_s q4_k_m q5_k_s q5_k_m q6_k iq4_nl iq3_s iq3_m
iq4_xs tq1_0 tq2_0 mxfp4_moe q1_0 q2_0"
# llama-quantize's other ftypes: refused without an imatrix (19-24, 28, 29, 31)
REFUSED="iq2_xxs iq2_xs q2_k_s iq3_xs iq3_xxs iq1_s iq2_s iq2_m iq1_m"

check "node, llama.cpp and gguf-py are installed (tests/deps.sh)" \
    sh -c "[ -f tests/peer/node_modules/node-llama-cpp/package.json ] && '$PY' -c 'import gguf'"
$CR models "$D" || fail "check_recipes.py models"

# --- 1. every recipe of every model against llama-quantize's own file (two lanes: two CPUs)
oracle() { # oracle NAME...: one after the other, each into $TMP/cr-NAME.out
    local n extra
    for n in "$@"; do
        extra=""
        [ $n = k ] && extra="q3_k q4_k q5_k $REFUSED"
        $CR oracle "$TMP/m-$n" "$OUT" $n $RECIPES $extra > "$TMP/cr-$n.out" 2>&1
        echo $? > "$TMP/cr-$n.rc"
    done
}
for n in k i ik odd moe; do
    mount_model "$TMP/m-$n" "$D/$n.gguf" -o as=f32
done
t0=$(date +%s%N)
oracle k &
oracle i ik odd moe
wait
for n in k i ik odd moe; do
    grep -v "^check_recipes" "$TMP/cr-$n.out"
    [ "$(cat "$TMP/cr-$n.rc")" = 0 ] || fail "check_recipes.py oracle $n"
done
echo "llama_model_quantize and the views compared in $((($(date +%s%N) - t0) / 1000000)) ms"
f32_same() { # as/f32.gguf holds what llama.cpp's F32 file does: the model's order, not llama-quantize's
    "$PY" - "$1" "$2" <<'PY'
import sys
sys.path.insert(0, "tests")
import check_recipes as c
a, b = c.header(sys.argv[1]), c.header(sys.argv[2])
ka = {k: v for k, _, v, _ in a.kvs if k not in (b"general.file_type", b"general.quantization_version")}
kb = {k: v for k, _, v, _ in b.kvs if k not in (b"general.file_type", b"general.quantization_version")}
da, db = c.tensor_bytes(sys.argv[1], a), c.tensor_bytes(sys.argv[2], b)
ta = {t["name"]: (t["dims"], t["type"], da[t["name"]].rstrip(b"\0")) for t in a.tensors}
tb = {t["name"]: (t["dims"], t["type"], db[t["name"]].rstrip(b"\0")) for t in b.tensors}
assert ka == kb and ta == tb, "differ"
PY
}
"$PY" tests/peer/quantize.py "$TMP/m-k/as/f32.gguf" "$OUT/k-f32.gguf" f32 || fail "llama_model_quantize f32"
check "as/f32.gguf holds llama-quantize's F32 file's keys and tensors (in the model's order: it is the source)" \
    f32_same "$TMP/m-k/as/f32.gguf" "$OUT/k-f32.gguf"
for a in q3_k:q3_k_m q4_k:q4_k_m q5_k:q5_k_m; do
    check "as/${a%:*}.gguf is as/${a#*:}.gguf (llama-quantize's other name)" cmp "$TMP/m-k/as/${a%:*}.gguf" "$TMP/m-k/as/${a#*:}.gguf"
done

# --- 2. gguf-py's dequantize of each quantized tensor = gguffs' f32, through a second mount
S=$TMP/s
mount_model "$S" "$OUT"
names=""
for r in $RECIPES; do [ -f "$OUT/k-$r.gguf" ] && names="$names k-$r"; done
[ -f "$OUT/moe-mxfp4_moe.gguf" ] && names="$names moe-mxfp4_moe"
[ -f "$OUT/odd-q2_0.gguf" ] && names="$names odd-q2_0 odd-iq4_xs"
t0=$(date +%s%N)
cr dequant "$S" "$OUT" $names
unmount "$S"
echo "gguf-py and a second mount compared in $((($(date +%s%N) - t0) / 1000000)) ms"

# --- 3. llama.cpp loads every view; its embedding's cosine to as/f32.gguf's
E=$TMP/emb
mkdir -p "$E"
jobs="embed:$TMP/m-k/as/f32.gguf:$E/f32.e"
for r in $RECIPES; do jobs="$jobs embed:$TMP/m-k/as/$r.gguf:$E/$r.e"; done
t0=$(date +%s%N)
node tests/peer/embed.mjs batch "The quick brown fox jumps over the lazy dog." $jobs 2> "$TMP/embed.err" ||
    { cat "$TMP/embed.err"; fail "llama.cpp could not load every view"; }
echo "llama.cpp ran $(echo $jobs | wc -w) views in $((($(date +%s%N) - t0) / 1000000)) ms"
for r in $RECIPES; do
    "$PY" tests/check_views.py cos "as/$r.gguf embedding" "$E/f32.e" "$E/$r.e" > "$TMP/cos.out" ||
        fail "as/$r.gguf: no embedding"
    grep -v "^check_views" "$TMP/cos.out"
done

# --- 4. as/: listed, found by name, lazy, cached; --cat
M=$TMP/m
mount_model "$M" "$D/k.gguf" -o direct_io
check "as/ lists the ten of the default and hf/" [ "$(ls "$M/as" | xargs)" = \
    "bf16.gguf f16.gguf f32.gguf hf iq4_xs.gguf q2_k.gguf q3_k_m.gguf q4_k_m.gguf q5_k_m.gguf q6_k.gguf q8_0.gguf" ]
ls -l "$M/as" > /dev/null
check "ls -l as/ made nothing (bytes_decoded $(stat_of "$M" bytes_decoded), bytes_quantized $(stat_of "$M" bytes_quantized))" \
    [ "$(stat_of "$M" bytes_decoded)" = 0 -a "$(stat_of "$M" bytes_quantized)" = 0 ]
check "an unlisted recipe is found by name" [ -f "$M/as/tq1_0.gguf" -a -f "$M/as/q4_k.gguf" ]
check "no such recipe: ENOENT" sh -c "! [ -e '$M/as/q7_k.gguf' ]"
cat "$M/as/q4_k_m.gguf" > /dev/null
q1=$(stat_of "$M" bytes_quantized) h1=$(stat_of "$M" cache_hits)
# read again with O_DIRECT: as/*.gguf stays in the kernel's page cache (loaders map it),
# so a plain second read would never reach gguffs' own cache
check "as/q4_k_m.gguf read again is the file llama-quantize makes" \
    sh -c "dd if='$M/as/q4_k_m.gguf' iflag=direct bs=1M status=none | cmp - '$OUT/k-q4_k_m.gguf'"
check "... from the cache's quantized pages ($q1 bytes quantized once; cache hits $h1 -> $(stat_of "$M" cache_hits))" \
    [ "$(stat_of "$M" bytes_quantized)" = "$q1" -a "$(stat_of "$M" cache_hits)" -gt "$h1" ]
unmount "$M"
mount_model "$M" "$D/odd.gguf" -o as=q1_0,q2_0,q8_0
check "-o as=q1_0,q2_0,q8_0: the two the model can take, and why" [ "$(ls "$M/as" | xargs)" = "hf q2_0.gguf q8_0.gguf why" ]
check "as/why says why q1_0 is absent" grep -q "^q1_0.gguf	.*96 values, which Q1_0's blocks of 128 do not divide" "$M/as/why"
unmount "$M"
check "-o as=q9_9 is refused, naming it" sh -c "'$GGUFFS' -o as=q9_9 '$D/k.gguf' '$TMP/none' 2>&1 | grep -q 'no recipe q9_9'"
check "--cat m.gguf as/iq4_xs.gguf is llama-quantize's file" \
    cmp <("$GGUFFS" --cat "$D/k.gguf" as/iq4_xs.gguf) "$OUT/k-iq4_xs.gguf"

# --- 5. metadata edits (-o edits=, issue 35): as/<recipe>.gguf is what llama-quantize makes of
# the edited model, its keys the edited ones, and a reader holding it across an edit keeps its bytes
ED=$TMP/k.edits.json
# recipe_keys VIEW RECIPE: tests/check_edits.py reads VIEW (gguf-py, ggml): the keys of k.gguf as
# $ED edits them, as llama-quantize writes them (its quantization_version and file_type last)
recipe_keys() {
    "$PY" tests/check_edits.py recipe "$D/k.gguf" "$1" "$ED" "$2" > "$TMP/ce.out" 2>&1
    local rc=$?
    grep -v "^check_edits" "$TMP/ce.out"
    return $rc
}
"$GGUFFS" --set "general.name=Recipe Edited Name" --set llama.context_length=96 --set general.file_type=1 \
    --set "general.quantization_version:u32=7" --set "my.note=kept by every recipe" \
    --remove tokenizer.ggml.add_eos_token -o edits="$ED" "$D/k.gguf" || fail "gguffs --set"
mount_model "$M" "$D/k.gguf" -o edits="$ED"
cr oracle "$M" "$OUT" ke q4_k_m q6_k
for r in q4_k_m q6_k; do
    check "as/$r.gguf of the edited model has its edited keys (gguf-py, ggml), llama-quantize's last" \
        recipe_keys "$M/as/$r.gguf" $r
done
# the control: a header made of the unedited keys fails the same check
"$GGUFFS" --cat "$D/k.gguf" as/q4_k_m.gguf > "$TMP/unedited.gguf"
recipe_keys "$TMP/unedited.gguf" q4_k_m > /dev/null
echo "the control, as/q4_k_m.gguf of the unedited keys: $(grep -c '^FAIL' "$TMP/ce.out") failures, such as $(grep -m1 '^FAIL: ggml: general.name' "$TMP/ce.out" | cut -c7-200)"
check "... which the unedited keys' as/q4_k_m.gguf fails ($(grep -m1 '^FAIL' "$TMP/ce.out" | cut -c7-100) ...)" \
    grep -q '^FAIL' "$TMP/ce.out"
exec {held}< "$M/as/q4_k_m.gguf"
head -c 7 <&$held > "$TMP/held"
echo "Renamed While Held" > "$M/metadata/general.name"
cat <&$held >> "$TMP/held"
exec {held}<&-
check "a reader holding as/q4_k_m.gguf across an edit gets the bytes it opened, whole" cmp "$TMP/held" "$OUT/ke-q4_k_m.gguf"
cr oracle "$M" "$OUT" ke2 q4_k_m
check "... the next open the new ones (general.name and all)" recipe_keys "$M/as/q4_k_m.gguf" q4_k_m
check "... and as/q4_k_m.gguf changed" sh -c "! cmp -s '$M/as/q4_k_m.gguf' '$OUT/ke-q4_k_m.gguf'"
unmount "$M"
check "--cat -o edits= serves the edited as/q4_k_m.gguf too" \
    cmp <("$GGUFFS" --cat -o edits="$ED" "$D/k.gguf" as/q4_k_m.gguf) "$OUT/ke2-q4_k_m.gguf"
finish 84_recipes
