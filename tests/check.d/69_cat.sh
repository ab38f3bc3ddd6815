#!/bin/bash
# gguffs --cat MODEL PATH: the bytes a mount gives, for every kind of file
# (every row of the table of file kinds: metadata/<key>, the root's texts,
# model.safetensors, model.gguf, as/*.gguf, as/why, every file of as/hf/
# (its model.safetensors of rows a stride apart, values less one and expert
# slices, from F32 files and from a Q8_0 model's cached pages, in f32 and
# bf16), every file of tensor folders of many types, a path through a link
# of blocks/), for a file, a
# split set (by any shard) and a folder of models (models.tsv, .errors, a
# model's as/); -o options as a mount takes them; a progress bar only when
# stderr is a terminal and stdout is not; clear errors and exit status 11
# for a PATH that names no file.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
M=$TMP/m
MAIN=$DATA/mainline/mainline.gguf

# same MODEL MOUNT PATH... [-- --cat options]: --cat gives each file's bytes as the mount does
same() {
    local model=$1 mnt=$2 p bad=0 n=0
    shift 2
    local paths=() opts=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do paths+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift && opts=("$@")
    for p in "${paths[@]}"; do
        n=$((n + 1))
        if ! "$GGUFFS" --cat "${opts[@]}" "$model" "$p" > "$TMP/cat.out" 2> "$TMP/cat.err" ||
            ! cmp -s "$TMP/cat.out" "$mnt/$p"; then
            bad=$((bad + 1))
            [ $bad -le 3 ] && echo "--cat $model $p differs from the mount: $(head -c 300 "$TMP/cat.err")"
        fi
    done
    check "--cat gives the mount's bytes: $n files of $(basename "$model") ${opts[*]}" [ $bad = 0 ]
}

# --- every kind of file of one model
mount_model "$M" "$MAIN"
paths=()
while IFS= read -r p; do paths+=("$p"); done < <(cd "$M" && find . -maxdepth 1 -type f ! -name .stats | sed 's|^\./||'
    find as metadata -type f
    # every file of tensor folders of a dozen types
    for t in F32 F16 BF16 Q4_K Q8_0 IQ2_XXS IQ4_XS MXFP4 TQ1_0 Q6_K output_norm.weight rand.MXFP4; do
        [ -d "tensors/$t" ] && find "tensors/$t" -type f
    done
    ls blocks/*/* -d | head -n 1 | sed 's|$|/f32|')
check "the paths cover every row of the table: root, as/, metadata/, tensor files ($(printf '%s\n' "${paths[@]}" | grep -c .))" \
    [ "$(printf '%s\n' "${paths[@]}" | grep -c '^tensors/.*/stats$')" -ge 10 ]
same "$MAIN" "$M" "${paths[@]}"
unmount "$M"
mount_model "$M" "$MAIN" -o safetensors_dtype=bf16,simd=scalar
same "$MAIN" "$M" model.safetensors as/q8_0.gguf tensors/Q4_K/f32 -- -o safetensors_dtype=bf16,simd=scalar
unmount "$M"

# --- a split set, by its second shard; a folder of models
mkdir -p "$TMP/split"
"$PY" tests/net/mkmodels.py split "$TMP/split" "$MAIN" ml 3 || fail "mkmodels.py split"
mount_model "$M" "$TMP/split/ml-00002-of-00003.gguf"
same "$TMP/split/ml-00002-of-00003.gguf" "$M" model.gguf as/f32.gguf as/q8_0.gguf tensors.tsv metadata.json summary
unmount "$M"
mount_model "$M" "$DATA/tour"
same "$DATA/tour" "$M" models.tsv .errors tiny-q8_0/as/q8_0.gguf tiny-f16/model.gguf tiny-f16/tensors.tsv
unmount "$M"

# --- as/hf/: Hugging Face folders (tests/peer/mkhf.py): llama's q/k rows a stride apart,
# gemma's norms less one, mixtral's expert slices; a llama in Q8_0 reads cached pages
mkdir -p "$TMP/hf"
for a in llama gemma mixtral; do
    "$PY" tests/peer/mkhf.py $a "$TMP/hf/$a.gguf" || fail "mkhf.py $a"
done
"$PY" tests/peer/mkllama.py convert "$TMP/hf/llama.gguf" "$TMP/hf/llama-q8.gguf" q8_0 || fail "mkllama.py convert"
HFFILES="config.json generation_config.json model.safetensors special_tokens_map.json tokenizer.json tokenizer_config.json"
for dt in f32 bf16; do
    mount_model "$M" "$TMP/hf" -o safetensors_dtype=$dt
    for a in llama gemma mixtral llama-q8; do
        check "$a ($dt): as/hf/ holds the weights, config and tokenizer files" [ "$(ls "$M/$a/as/hf" | xargs)" = "$HFFILES" ]
        same "$TMP/hf/$a.gguf" "$M/$a" $(for f in $HFFILES; do echo as/hf/$f; done) -- -o safetensors_dtype=$dt
    done
    unmount "$M"
done

check "--cat follows blocks/ links and . and .." cmp <("$GGUFFS" --cat "$MAIN" ./blocks/0/../0/ffn_up_exps.weight/info.json) \
    <("$GGUFFS" --cat "$MAIN" tensors/blk.0.ffn_up_exps.weight/info.json)

# --- the progress bar: on a terminal (stderr, stdout elsewhere) only
script -qec "'$GGUFFS' --cat '$MAIN' as/f32.gguf > '$TMP/tty.out'" /dev/null > "$TMP/tty.log" 2>&1
check "--cat on a terminal shows a progress bar" grep -q 'MB/s' "$TMP/tty.log"
check "... and still writes the bytes" cmp "$TMP/tty.out" <("$GGUFFS" --cat "$MAIN" as/f32.gguf)
"$GGUFFS" --cat "$MAIN" as/f32.gguf > "$TMP/notty.out" 2> "$TMP/notty.err"
check "no progress bar when stderr is not a terminal" [ ! -s "$TMP/notty.err" ]
script -qec "'$GGUFFS' --cat '$MAIN' summary" /dev/null > "$TMP/tty2.log" 2>&1
check "no progress bar when stdout is the terminal too" sh -c "! grep -q 'MB/s' '$TMP/tty2.log'"

# --- errors
err() { # err WANT_STATUS PATTERN ARGS...: --cat fails so, saying PATTERN
    local want=$1 pat=$2 rc
    shift 2
    "$GGUFFS" --cat "$@" > "$TMP/e.out" 2> "$TMP/e.err"
    rc=$?
    check "--cat $* exits $want (got $rc), saying '$pat': $(head -c 200 "$TMP/e.err" | tr '\n' ' ')" \
        sh -c "[ $rc = $want ] && grep -q -- '$pat' '$TMP/e.err' && [ ! -s '$TMP/e.out' ]"
}
err 11 'no "nope" in .*/tensors/' "$MAIN" tensors/nope/f32
err 11 'tensors holds: F32/ F16/' "$MAIN" tensors/nope/f32
err 11 'is a folder' "$MAIN" tensors/Q4_K
err 11 'summary is a file, not a folder' "$MAIN" summary/x
err 11 'no "x.gguf" in' "$MAIN" as/x.gguf
err 11 'f32 is a file, not a folder' "$MAIN" tensors/rand.MXFP4/f32/..
err 11 'is a folder' "$MAIN" /
err 3 'no-such.gguf' "$TMP/no-such.gguf" summary
err 2 'which model and which file' "$MAIN"
err 2 'one model and one file' "$MAIN" summary summary.json
err 2 'only applies to mounting' -o allow_other "$MAIN" summary
finish 69_cat
