#!/bin/bash
# Editing a model's metadata without rewriting it (-o edits=, issue 35), checked by the
# real llama.cpp, ggml and gguf-py (tests/peer), never by gguffs' own reading:
#  - without -o edits= nothing is writable; with it only metadata/ is, and the model
#    file is never opened for writing (strace of the daemon: every open of it O_RDONLY;
#    its bytes, mtime and ctime unchanged);
#  - a key takes the text written to its file, in its own type: strings, numbers, an
#    array edited by sed -i (a token made a control token), a new key (a string, or
#    typed by setfattr user.gguf.type), rm, mv, sed -i and vim keep types; `cat k > x;
#    cat x > k` changes nothing; a bad value is refused (EINVAL from write or close),
#    the key keeps its value and the log names it;
#  - every view follows: metadata.json, summary, summary.json, as/*.gguf, as/hf/'s
#    tokenizer_config.json (chat template, EOS), ls -l sizes; model.gguf is read by
#    gguf-py's GGUFReader and ggml's gguf_init_from_file with every key as edited and
#    every tensor byte for byte the original's; llama.cpp applies the new chat template,
#    stops at the new EOS and names the model by the new general.name;
#  - gguf-py's gguf_new_metadata making the same edits: the same keys, values and
#    tensor bytes (the layouts compared);
#  - a reader holding model.gguf (or llama.cpp holding it mapped) while an edit lands
#    keeps the bytes it opened; a header that grows past an alignment boundary and
#    shrinks back; two writers to one key;
#  - the edits file: made again at the next mount, by --cat and --dump without FUSE,
#    --set; refused for another model or this one changed since;
#  - a folder mount (-o edits=DIR), a split set, a remote model (nginx);
#  - 10 000 edits in a row with kill -9 of the daemon at random points: the edits
#    file is always one whole version.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
cd "$TOP"
MK=tests/peer/mkllama.py
MC=tests/peer/metacheck.mjs
M=$TMP/m Q=$TMP/q.gguf E=$TMP/q.edits.json LOG=$TMP/log
TEXT="The quick brown fox"
TPL='{% for m in messages %}<<{{ m.role }}|{{ m.content }}>>{% endfor %}'
# ce MODE ARGS...: tests/check_edits.py (its own counts; a failure also fails here, once)
ce() {
    "$PY" tests/check_edits.py "$@" > "$TMP/ce.out" 2>&1 || { cat "$TMP/ce.out"; fail "check_edits.py $*"; return; }
    grep -v "^check_edits" "$TMP/ce.out"
}
# mc MODEL TOKEN: what llama.cpp makes of the model (tests/peer/metacheck.mjs), JSON
mc() { node $MC "$1" "$TEXT" "$2" 2> "$TMP/mc.err" || { cat "$TMP/mc.err" >&2; echo '{}'; }; }
# jf FIELD: a field of the JSON on stdin ("" if missing)
jf() { python3 -c 'import json,sys; v=json.load(sys.stdin).get(sys.argv[1]); print("" if v is None else v)' "$1"; }
sha() { sha256sum "$1" | cut -c1-64; }
stamp() { stat -c '%s %Y.%y %Z' "$1"; }
T_LAP=$(date +%s%N)
lap() { local t; t=$(date +%s%N); echo "  ($1: $(((t - T_LAP) / 1000000)) ms)"; T_LAP=$t; }

check "node and the real llama.cpp are installed (tests/deps.sh)" \
    sh -c "[ -f tests/peer/node_modules/node-llama-cpp/package.json ] && command -v node strace vim setfattr > /dev/null"
# a tiny llama (seed 2: its first pick is an ordinary token) with the first 2000 tokens
# of the real llama-spm vocabulary: small enough for gguf-py to read in a blink
"$PY" - "$TMP/vocab.gguf" <<'PY' || fail "the vocabulary"
import sys
sys.path.insert(0, "tests/peer")
import mkllama as mk
kvs, _ = mk.read_gguf(mk.DEFAULT_VOCAB)
cut = ("tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type")
mk.write_gguf(sys.argv[1], [[k, t, (v[0], v[1][:2000]) if k in cut else v] for k, t, v in kvs], [])
PY
"$PY" $MK model "$Q" --type Q8_0 --seed 2 --vocab "$TMP/vocab.gguf" --n-embd 64 --n-ff 128 --n-head 2 \
    --n-head-kv 1 2> /dev/null || fail "mkllama.py model"
SHA_Q=$(sha "$Q")
STAMP_Q=$(stamp "$Q")

# --- 1. read-only without -o edits=; with it, only metadata/ is writable
mount_model "$M" "$Q"
check "without -o edits=, a key cannot be written (EROFS)" \
    bash -c "! echo x > '$M/metadata/general.name' && ! touch '$M/metadata/new.key'"
unmount "$M"
# the daemon under strace (it forks away: waited for by its mount, stopped by unmounting)
mkdir -p "$M"
MOUNTS="$MOUNTS $M"
strace -f -qq -e trace=open,openat,creat,truncate,ftruncate,rename,unlink,fsync -o "$TMP/strace.log" \
    "$GGUFFS" -o edits="$E",logfile="$LOG" "$Q" "$M" &
STRACE=$!
wait_until 10 grep -qs " $M fuse" /proc/mounts || fail "the mount under strace did not appear"
check "with -o edits=, metadata/ and its keys are writable (drwxr-xr-x, -rw-r--r--)" \
    [ "$(stat -c %A "$M/metadata" "$M/metadata/general.name" | xargs)" = "drwxr-xr-x -rw-r--r--" ]
check "... and nothing else is (EROFS)" bash -c "! touch '$M/summary' 2>/dev/null && ! echo > '$M/tensors/output.weight/raw' 2>/dev/null && ! mkdir '$M/as/x' 2>/dev/null && ! rm '$M/metadata.json' 2>/dev/null"
mkdir "$M/metadata/d" 2> "$TMP/err"
check "metadata/ holds keys only (mkdir: EPERM)" grep -q 'not permitted' "$TMP/err"

lap "made, mounted"
# --- 2. the unedited model, as llama.cpp runs it: the token it picks after TEXT
BEFORE=$(mc "$Q" 0)
X=$(jf next <<< "$BEFORE")
check "llama.cpp picks a token after the text ($X), not an end of generation" [ -n "$X" ]
PROBS=$(jf probs <<< "$BEFORE")
XTEXT=$(sed -n "$((X + 1))p" "$M/metadata/tokenizer.ggml.tokens")

lap "llama.cpp before"
# --- 3. keys by their text
cp "$M/model.gguf" "$TMP/before.gguf"
echo "Edited Name" > "$M/metadata/general.name"
check "a string set by echo" [ "$(cat "$M/metadata/general.name")" = "Edited Name" ]
echo "$X" > "$M/metadata/tokenizer.ggml.eos_token_id"
# the token of id X made a control token: line X+1 of an array of 32000 i32
sed -i "$((X + 1))s/.*/3/" "$M/metadata/tokenizer.ggml.token_type"
check "sed -i on an array: the element changed, its type kept (arr of i32, 2000)" \
    [ "$(sed -n "$((X + 1))p" "$M/metadata/tokenizer.ggml.token_type")$(getfattr --only-values -n user.gguf.type "$M/metadata/tokenizer.ggml.token_type")$(getfattr --only-values -n user.gguf.arr_type "$M/metadata/tokenizer.ggml.token_type")$(wc -l < "$M/metadata/tokenizer.ggml.token_type")" = "3arri322000" ]
printf '%s' "$TPL" > "$M/metadata/tokenizer.chat_template"
check "a new key, a string (printf, no newline)" [ "$(cat "$M/metadata/tokenizer.chat_template")" = "$TPL" ]
touch "$M/metadata/my.count"
check "a key made and not written: listed, empty, a string" \
    [ "$(stat -c %s "$M/metadata/my.count")$(getfattr --only-values -n user.gguf.type "$M/metadata/my.count")" = "0str" ]
setfattr -n user.gguf.type -v u32 "$M/metadata/my.count"
echo 7 > "$M/metadata/my.count"
touch "$M/metadata/my.list" && setfattr -n user.gguf.type -v 'arr[str]' "$M/metadata/my.list" &&
    printf 'one\ntwo\\nlines\n' > "$M/metadata/my.list"
check "setfattr user.gguf.type types a new key (u32, arr[str])" \
    [ "$(jq -c '[.["my.count"].type, .["my.count"].value, .["my.list"].arr_type, .["my.list"].value]' "$M/metadata.json")" = '["u32",7,"str",["one","two\nlines"]]' ]
setfattr -n user.gguf.type -v str "$M/metadata/my.count" 2> "$TMP/err"
check "setfattr of another type on a key that has a value: EINVAL" grep -q 'Invalid argument' "$TMP/err"
rm "$M/metadata/tokenizer.ggml.add_eos_token"
check "rm removes a key" [ ! -e "$M/metadata/tokenizer.ggml.add_eos_token" ]
mv "$M/metadata/my.count" "$M/metadata/my.renamed"
check "mv renames one (its type and value kept)" \
    [ "$(jq -c '[.["my.count"], .["my.renamed"].type, .["my.renamed"].value]' "$M/metadata.json")" = '[null,"u32",7]' ]
sed -i 's/Edited/Sed/' "$M/metadata/general.name"
vim -u NONE -N -n -es -c 's/128/96/' -c 'wq' "$M/metadata/llama.context_length"
check "sed -i and vim save (a temporary file and a rename; in place): the keys keep their types" \
    [ "$(jq -c '[.["general.name"].value, .["llama.context_length"].type, .["llama.context_length"].value]' "$M/metadata.json")" = '["Sed Name","u32",96]' ]
echo "Edited Name" > "$M/metadata/general.name"
cp "$M/metadata/llama.context_length" "$TMP/ctx" && cp "$TMP/ctx" "$M/metadata/llama.context_length"

lap "edits"
# round trips change nothing, whatever the type
SHA_E=$(sha "$E")
SHA_MODEL=$(sha "$M/model.gguf")
for k in general.name llama.attention.layer_norm_rms_epsilon tokenizer.ggml.add_bos_token tokenizer.ggml.scores \
    tokenizer.ggml.tokens tokenizer.chat_template my.list; do
    cat "$M/metadata/$k" > "$TMP/x" && cat "$TMP/x" > "$M/metadata/$k"
done
check "cat k > x; cat x > k changes nothing (str, f32, bool, 2000 f32, 2000 str, a template, arr[str])" \
    [ "$(sha "$E") $(sha "$M/model.gguf")" = "$SHA_E $SHA_MODEL" ]

lap "round trips"
# bad values: refused, the key kept, the log names it
BOS=$(cat "$M/metadata/tokenizer.ggml.bos_token_id")
(echo abc > "$M/metadata/tokenizer.ggml.bos_token_id") 2> "$TMP/err"
check "echo abc > a u32: the write fails (EINVAL)" grep -q 'write error: Invalid argument' "$TMP/err"
"$PY" - "$M/metadata/tokenizer.ggml.bos_token_id" "$M/metadata/llama.attention.layer_norm_rms_epsilon" \
    "$M/metadata/my.list" <<'PY' > "$TMP/closes" 2>&1
import sys
for path, text in ((sys.argv[1], "4294967296"), (sys.argv[2], "1e40"), (sys.argv[3], "a\\q\n")):
    f = open(path, "w")
    f.write(text)  # (buffered: written at close, in one piece)
    try:
        f.close()
        print("accepted", path)
    except OSError as e:
        print(e.errno)
PY
check "out of range and bad escapes fail at close (EINVAL)" [ "$(xargs < "$TMP/closes")" = "22 22 22" ]
check "... the keys keep their values, the edits file is unchanged" \
    [ "$(cat "$M/metadata/tokenizer.ggml.bos_token_id") $(sha "$E")" = "$BOS $SHA_E" ]
check "the log names the key and what was wrong" \
    grep -q 'metadata/tokenizer.ggml.bos_token_id: not changed: "4294967296" is out of the range of u32 (0 to 4294967295)' "$LOG"
check "... and where, in an array" grep -q 'metadata/my.list: not changed: line 1: a backslash' "$LOG"

lap "bad values"
# --- 4. every view follows
check "metadata.json" [ "$(jq -r '.["general.name"].value' "$M/metadata.json")" = "Edited Name" ]
check "summary and summary.json" bash -c "grep -q '^name *Edited Name$' '$M/summary' && [ \"\$(jq -r .name '$M/summary.json')\" = 'Edited Name' ]"
check "as/hf/tokenizer_config.json: the chat template and the EOS" \
    [ "$(jq -r '.chat_template, .eos_token' "$M/as/hf/tokenizer_config.json")" = "$TPL
$XTEXT" ]
ls "$M/as/hf" > "$TMP/hf.before"
echo none > "$M/metadata/tokenizer.ggml.model"
ls "$M/as/hf" > "$TMP/hf.none"
echo llama > "$M/metadata/tokenizer.ggml.model"
check "as/hf/ follows the tokenizer: without one, no tokenizer files (and back)" \
    [ "$(grep -c tokenizer "$TMP/hf.before") $(grep -c tokenizer "$TMP/hf.none") $(ls "$M/as/hf" | grep -c tokenizer)" = "2 0 2" ]
sizes_ok=1
for f in model.gguf metadata.json summary as/f16.gguf as/hf/tokenizer_config.json metadata/general.name; do
    [ "$(stat -c %s "$M/$f")" = "$(wc -c < "$M/$f")" ] || { sizes_ok=0; echo "ls -l size of $f: $(stat -c %s "$M/$f"), read: $(wc -c < "$M/$f")"; }
done
check "ls -l sizes are the new ones (model.gguf, texts, as/, as/hf/, keys)" [ $sizes_ok = 1 ]
check "model.gguf grew by the edits ($(stat -c %s "$TMP/before.gguf") -> $(stat -c %s "$M/model.gguf"))" \
    [ "$(stat -c %s "$M/model.gguf")" -gt "$(stat -c %s "$TMP/before.gguf")" ]
lap "views"
cp "$E" "$TMP/edits-now.json"
ce keys "$Q" "$M/model.gguf" "$E"
check "as/f16.gguf has the edited keys (gguf-py)" [ "$("$PY" -c 'import gguf,sys; r=gguf.GGUFReader(sys.argv[1]); print(r.fields["general.name"].contents(), r.fields["tokenizer.ggml.eos_token_id"].contents())' "$M/as/f16.gguf")" = "Edited Name $X" ]
lap "gguf-py, ggml"
AFTER=$(mc "$M/model.gguf" "$X")
check "llama.cpp: general.name is the new one" [ "$(jf name <<< "$AFTER")" = "Edited Name" ]
check "llama.cpp: the chat it renders is the new template's" [ "$(jf chat <<< "$AFTER")" = "<<user|hi>><<assistant|" ]
check "llama.cpp: its EOS is token $X, an end of generation" [ "$(jf eos <<< "$AFTER") $(jf is_eog <<< "$AFTER")" = "$X True" ]
check "llama.cpp: it stops at once where it picked $X before" [ -z "$(jf next <<< "$AFTER")" ]
check "llama.cpp: the weights are the same (next-token probabilities, bit for bit)" [ "$(jf probs <<< "$AFTER")" = "$PROBS" ]

lap "llama.cpp after"
# gguf-py's gguf_new_metadata making the same edits (the ones it can make)
"$GGUFFS" --set "general.name=Edited Name" --set "tokenizer.ggml.eos_token_id=$X" --set "tokenizer.chat_template=$TPL" \
    --remove tokenizer.ggml.add_eos_token -o edits="$TMP/nm.edits.json" "$Q" 2> /dev/null || fail "--set"
"$GGUFFS" --cat -o edits="$TMP/nm.edits.json" "$Q" model.gguf > "$TMP/ours.gguf" || fail "--cat -o edits="
"$PY" -m gguf.scripts.gguf_new_metadata "$Q" "$TMP/theirs.gguf" --general-name "Edited Name" --chat-template "$TPL" \
    --special-token-by-id eos "$X" --remove-metadata tokenizer.ggml.add_eos_token --force > /dev/null 2>&1 ||
    fail "gguf_new_metadata"
ce same "$TMP/ours.gguf" "$TMP/theirs.gguf"

lap "gguf_new_metadata"
# --- 5. a reader holding a view while an edit lands; the header past an alignment
# boundary and back
"$PY" - "$M" "$TMP/edits-now.json" <<'PY' > "$TMP/hold.out" 2>&1 || { cat "$TMP/hold.out"; fail "readers across edits"; }
import os, sys
m = sys.argv[1]
views = ["model.gguf", "metadata.json", "summary.json", "summary", "metadata/general.name"]
def whole(p):
    with open(os.path.join(m, p), "rb") as f:
        return f.read()
def data_at(path):
    sys.path.insert(0, "tests/peer")
    import ggml
    return ggml.Ggml().gguf_info(os.path.join(m, path))["data_offset"]
old = {v: whole(v) for v in views}
start = data_at("model.gguf")
for name, grow in (("x" * 200, True), ("Edited Name", False)):
    held = {v: open(os.path.join(m, v), "rb") for v in views}
    part = {v: held[v].read(7) for v in views}
    with open(os.path.join(m, "metadata/general.name"), "w") as f:
        f.write(name)
    for v in views:
        got = part[v] + held[v].read()
        assert got == old[v], "%s: a reader holding it across the edit got other bytes" % v
        held[v].close()
    new = {v: whole(v) for v in views}
    for v in views:
        assert new[v] != old[v], "%s: no change seen after the edit" % v
        assert os.stat(os.path.join(m, v)).st_size == len(new[v]), v
    at = data_at("model.gguf")
    assert (at > start) == grow, (name, start, at)
    print("general.name of %d bytes: the data starts at %d (was %d); readers kept theirs" % (len(name), at, start))
    old = new
PY
cat "$TMP/hold.out"
check "a reader holding a view across an edit gets the bytes it opened, whole; the next open the new ones" \
    grep -q "readers kept theirs" "$TMP/hold.out"
ce keys "$Q" "$M/model.gguf" "$E"

lap "readers"
# two writers to one key: each value lands whole
"$PY" - "$M/metadata/general.description" <<'PY' || fail "two writers"
import os, sys, multiprocessing as mp
p = sys.argv[1]
def writer(text):
    for _ in range(150):
        with open(p, "w") as f:
            f.write(text[: len(text) // 2])
            f.flush()
            f.write(text[len(text) // 2:])
a, b = "A" * 3000 + "\n", "B" * 5000 + "\n"
ws = [mp.Process(target=writer, args=(t,)) for t in (a, b)]
[w.start() for w in ws]
[w.join() for w in ws]
got = open(p).read()
assert got in (a, b), "mixed value: %r..." % got[:20]
print("two writers, 150 edits each: the key holds one whole value (%s)" % got[0])
PY
check "... and the edits file has that value" \
    [ "$(jq -r '.set["general.description"].value' "$E")" = "$(head -c -1 "$M/metadata/general.description")" ]
rm "$M/metadata/general.description"

lap "two writers"
# llama.cpp holding the model mapped while an edit lands
coproc HOLD { METACHECK_WAIT=1 node $MC "$M/model.gguf" "$TEXT" "$X" 2> "$TMP/hold.err"; }
HPID=$HOLD_PID
wait_until 30 grep -q loaded "$TMP/hold.err"
echo "Name While Mapped" > "$M/metadata/general.name"
echo 2 > "$M/metadata/tokenizer.ggml.eos_token_id"
exec {HOLD[1]}>&-
HELD=$(cat <&"${HOLD[0]}")
wait $HPID 2> /dev/null
check "llama.cpp holding model.gguf mapped across an edit computes with the weights it loaded" \
    [ "$(jf probs <<< "$HELD") $(jf name <<< "$HELD")" = "$PROBS Edited Name" ]
check "... and a new load sees the edit" [ "$("$PY" -c 'import gguf,sys; print(gguf.GGUFReader(sys.argv[1]).fields["general.name"].contents())' "$M/model.gguf")" = "Name While Mapped" ]
lap "mapped"
cp "$M/model.gguf" "$TMP/mounted.gguf"
unmount "$M"
wait $STRACE
check "the model file was only ever opened read-only (strace of the daemon)" \
    bash -c "grep -F '\"$Q\"' '$TMP/strace.log' | grep -q O_RDONLY && ! grep -F '\"$Q\"' '$TMP/strace.log' | grep -qE 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|truncate|rename|unlink'"
check "the model's bytes, size, mtime and ctime are unchanged" [ "$(sha "$Q") $(stamp "$Q")" = "$SHA_Q $STAMP_Q" ]
# each save: a new file beside the edits file, synced, renamed over it (never written in place)
grep -E "\"$E[^\"]*\"|fsync" "$TMP/strace.log" | sed -E 's/^[0-9]+ +//; s/\.tmp-[A-Za-z0-9]{6}/.tmp-X/g; s/= [0-9]+$//; s/\(([0-9]+)\)/(FD)/' > "$TMP/saves"
check "every save of the edits file: a temporary file, fsync, rename over it ($(grep -c rename "$TMP/saves") saves)" \
    "$PY" - "$TMP/saves" "$E" <<'PY'
import re, sys
lines = [l.strip() for l in open(sys.argv[1])]
e = sys.argv[2]
saves = 0
for i, l in enumerate(lines):
    if e + '"' in l and "rename" not in l and re.search("O_WRONLY|O_RDWR|O_TRUNC|O_CREAT|truncate", l):
        sys.exit("the edits file itself written: " + l)
    if l.startswith("rename("):
        assert l == 'rename("%s.tmp-X", "%s") ' % (e, e) or l.startswith('rename("%s.tmp-X", "%s")' % (e, e)), l
        assert any(x.startswith("fsync(") for x in lines[max(0, i - 3):i]), "no fsync before " + l
        saves += 1
assert saves > 10, saves
PY

lap "unmounted"

# --- 6. the edits file: the next mount, --cat, --dump, --set; refused for another model
mount_model "$M" "$Q" -o edits="$E"
check "a mount with the edits file shows the model edited" cmp "$M/model.gguf" "$TMP/mounted.gguf"
unmount "$M"
check "--cat -o edits= gives the edited model.gguf without FUSE" \
    cmp <("$GGUFFS" --cat -o edits="$E" "$Q" model.gguf) "$TMP/mounted.gguf"
check "--dump -o edits= shows the edited keys" bash -c "'$GGUFFS' --dump -o edits='$E' '$Q' | grep -q '^ *1 str   general.name = Name While Mapped$'"
cp "$E" "$TMP/e.keep"
"$GGUFFS" --set general.name=Other --set "llama.context_length=many" -o edits="$E" "$Q" 2> "$TMP/err"
check "--set with a bad value exits 2, naming the key and what was wrong" \
    [ "$?:$(cat "$TMP/err")" = "2:gguffs --set: llama.context_length: \"many\" is not a whole number ($E not changed)" ]
check "... and changes nothing (all or nothing)" cmp "$E" "$TMP/e.keep"
"$GGUFFS" --remove no.such.key -o edits="$E" "$Q" 2> "$TMP/err"
check "--remove of a key that is not there exits 2" [ "$?:$(grep -q "no.such.key: no such key" "$TMP/err" && echo 1)" = 2:1 ]
check "--set KEY:TYPE=VALUE makes a typed key" "$GGUFFS" --set "my.flag:bool=true" --set "my.ids:arr[u16]=$(printf '1\n2')" -o edits="$E" "$Q"
check "... as a mount shows it" [ "$("$GGUFFS" --cat -o edits="$E" "$Q" metadata.json | jq -c '[.["my.flag"].type, .["my.flag"].value, .["my.ids"].arr_type, .["my.ids"].value]')" = '["bool",true,"u16",[1,2]]' ]
"$GGUFFS" --set general.alignment:u32=64 -o edits="$TMP/al.json" "$Q" 2> /dev/null
"$GGUFFS" --cat -o edits="$TMP/al.json" "$Q" model.gguf > "$TMP/al.gguf"
ce keys "$Q" "$TMP/al.gguf" "$TMP/al.json"
check "general.alignment edited: every tensor placed again (data at a multiple of 64)" \
    [ $(("$("$PY" tests/peer/ggml.py info "$TMP/al.gguf" | jq .data_offset)" % 64)) = 0 ]
"$GGUFFS" --set general.alignment=3 -o edits="$TMP/al.json" "$Q" 2> "$TMP/err"
check "general.alignment 3 is refused (exit 2)" [ "$?:$(grep -q "not a power of two" "$TMP/err" && echo 1)" = 2:1 ]
cp "$E" "$TMP/other.edits.json"
"$GGUFFS" -o edits="$TMP/other.edits.json" tests/data/tour/tiny-q8_0.gguf "$M" 2> "$TMP/err"
check "an edits file made for another model is refused, naming it (exit 2)" \
    [ "$?:$(grep -q "made for another model, $Q" "$TMP/err" && echo 1):$(grep -cs " $M fuse" /proc/mounts)" = 2:1:0 ]
cp "$Q" "$TMP/q2.gguf"
"$GGUFFS" --set general.name=Q2 -o edits="$TMP/q2.edits.json" "$TMP/q2.gguf" 2> /dev/null
printf 'Z' | dd of="$TMP/q2.gguf" bs=1 seek=$(($(grep -abo tiny-llama "$TMP/q2.gguf" | head -1 | cut -d: -f1))) conv=notrunc 2> /dev/null
"$GGUFFS" --cat -o edits="$TMP/q2.edits.json" "$TMP/q2.gguf" metadata/general.name 2> "$TMP/err" > /dev/null
check "... and one made for this model before its header changed (--cat)" grep -q "whose header had SHA-256 .* (the model changed since)" "$TMP/err"
head -c 100 /dev/zero >> "$TMP/q2.gguf"
"$GGUFFS" --dump -o edits="$TMP/q2.edits.json" "$TMP/q2.gguf" 2> "$TMP/err" > /dev/null
check "... or its size (--dump)" grep -q "when it was $(stat -c %s "$Q") bytes; it is $(($(stat -c %s "$Q") + 100)) bytes now" "$TMP/err"
for bad in 5 '{}' '{"key_hex": 5}'; do
    jq --argjson b "$bad" '.removed = [$b]' "$E" > "$TMP/bad.edits.json"
    "$GGUFFS" --dump -o edits="$TMP/bad.edits.json" "$Q" 2> "$TMP/err" > /dev/null
    check "an edits file whose \"removed\" holds $bad is refused, naming the item (exit 2)" \
        [ "$?:$(grep -qF 'removed: item 0 is neither a key nor {"key_hex": ...}' "$TMP/err" && echo 1)" = 2:1 ]
done
# a member of "set" is named by at most 100 bytes of its key, 127 characters, cut between two bytes' escapes
jq '.set[("\u0001" * 60)] = {"type": "u32"}' "$E" > "$TMP/bad.edits.json"
"$GGUFFS" --dump -o edits="$TMP/bad.edits.json" "$Q" 2> "$TMP/err" > /dev/null
check "a bad member of \"set\" named by its key, cut between two escapes (exit 2)" \
    [ "$?:$(grep -cF "set \"$(printf '\\x01%.0s' $(seq 31))...\": no value" "$TMP/err")" = 2:1 ]
for n in 100 101; do
    jq --argjson n $n '.set[("k" * $n)] = {"type": "u32"}' "$E" > "$TMP/bad.edits.json"
    "$GGUFFS" --dump -o edits="$TMP/bad.edits.json" "$Q" 2> "$TMP/err" > /dev/null
    check "... a key of $n bytes shown whole up to its 100th byte" \
        grep -qF "set \"$(printf 'k%.0s' $(seq 100))$([ $n = 101 ] && echo ...)\": no value" "$TMP/err"
done
lap "edits files"

# --- 7. a folder of models (-o edits=DIR), a split set, a remote model
mkdir -p "$TMP/f/sub"
cp "$Q" "$TMP/f/sub/a.gguf"
cp tests/data/tour/tiny-q8_0.gguf "$TMP/f/b.gguf"
mount_model "$M" "$TMP/f" -o edits="$TMP/eds"
echo "A edited" > "$M/sub/a/metadata/general.name"
check "a folder: each model's edits go in DIR, named after its path in the tree" \
    [ "$(cd "$TMP/eds" && find . -type f | xargs) $(jq -r '.set["general.name"].value' "$TMP/eds/sub/a.edits.json")" = "./sub/a.edits.json A edited" ]
check "... the other model is as it was" [ "$(cat "$M/b/metadata/general.name")" = tour ]
unmount "$M"
mount_model "$M" "$TMP/f" -o edits="$TMP/eds"
check "... and shows the edit at the next mount" [ "$(cat "$M/sub/a/metadata/general.name")" = "A edited" ]
unmount "$M"
"$PY" $MK split "$Q" "$TMP/s" 5 2> /dev/null || fail "mkllama.py split"
mount_model "$M" "$TMP/s-00001-of-00002.gguf" -o edits="$TMP/s.edits.json"
echo "Split Edited" > "$M/metadata/general.name"
echo '{"general.name": {"type": "str", "value": "Split Edited"}}' | jq '{set: .}' > "$TMP/s.want.json"
ce keys "$Q" "$M/model.gguf" "$TMP/s.want.json"
unmount "$M"
W=$TMP/www
mkdir -p "$W"
cp "$Q" "$W/"
if net_start start "$W" "$TMP/web"; then
    . "$TMP/web/env"
    mount_model "$M" "$HTTP_URL/q.gguf" -o timeout=10,edits="$TMP/r.edits.json"
    echo "Remote Edited" > "$M/metadata/general.name"
    echo "$X" > "$M/metadata/tokenizer.ggml.eos_token_id"
    check "a remote model: its edits are local" [ "$(jq -r '.model.path, .set["general.name"].value' "$TMP/r.edits.json" | xargs)" = "$HTTP_URL/q.gguf Remote Edited" ]
    ce keys "$Q" "$M/model.gguf" "$TMP/r.edits.json"
    unmount "$M"
    net_stop "$TMP/web"
else
    fail "servers.sh start"
fi
lap "folder, split, remote"

# --- 8. 10 000 edits in a row, the daemon killed (-9) at random points: the edits file
# is always a whole one (on tmpfs: what is tested is the rename, not the disk's fsync)
SHM=$(mktemp -d /dev/shm/gguffs-edits.XXXXXX)
cp tests/data/tour/tiny-q8_0.gguf "$TMP/t.gguf"
done_n=0 round=0 bad=0
while [ $done_n -lt 10000 ]; do
    round=$((round + 1))
    mount_model "$M" "$TMP/t.gguf" -o edits="$SHM/t.json" || { fail "mount, round $round"; break; }
    pid=$(pgrep -f -- "-o edits=$SHM/t.json" | head -1)
    "$PY" - "$M/metadata/general.name" $done_n 10000 > "$TMP/acked" 2> /dev/null <<'PY' &
import os, sys
path, n, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
try:
    while n < end:
        fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
        os.write(fd, b"%d\n" % n)
        os.close(fd)  # (accepted: the value is in the edits file when close returns)
        n += 1
        print(n, flush=True)
except OSError:
    pass
PY
    writer=$!
    sleep "0.$((RANDOM % 9 + 1))$((RANDOM % 10))"
    kill -9 "$pid"
    wait $writer
    force_unmount "$M"
    acked=$(tail -n 1 "$TMP/acked")
    acked=${acked:-$done_n}
    # whole and loadable, and holding the last accepted edit or the one after it
    got=$("$GGUFFS" --cat -o edits="$SHM/t.json" "$TMP/t.gguf" metadata/general.name 2> "$TMP/err")
    if ! { [ "$got" = $((acked - 1)) ] || [ "$got" = "$acked" ] || { [ $acked = 0 ] && [ -z "$got" ]; }; }; then
        bad=$((bad + 1))
        echo "round $round: after $acked accepted edits the edits file holds \"$got\" $(cat "$TMP/err")"
    fi
    done_n=$acked
    [ $round -ge 60 ] && break
done
check "10 000 edits, $round kills -9: the edits file always whole, with the last accepted edit ($done_n done)" \
    [ "$bad:$((done_n >= 10000))" = 0:1 ]
mount_model "$M" "$TMP/t.gguf" -o edits="$SHM/t.json" && unmount "$M"
check "... and no temporary file left beside it once mounted again" [ "$(ls "$SHM")" = t.json ]
rm -rf "$SHM"
lap "kill -9"

finish 82_edits
