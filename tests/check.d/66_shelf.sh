#!/bin/bash
# The shelf: a folder or a model store mounted as one folder per model, kept
# current while it changes (issue 11).
#  - fake stores built by tests/make_stores.py (a plain folder with a split
#    set, odd names, files that are not GGUF and malformed ones; an Ollama
#    store; a Hugging Face cache with two revisions; an LM Studio tree):
#    every model name exactly, models.tsv line by line, .errors, and each
#    model's summary, summary.json, types.tsv and blocks/ against figures
#    computed from the file by Python (tests/gguf_tool.py), not by gguffs;
#  - --ollama, --hf-cache and --lmstudio find the stores through their
#    environment variables and default places;
#  - live: models added (copied in; written slowly in pieces, not shown
#    until whole), replaced by rename and rewritten in place while a reader
#    holds a file open (old bytes or ESTALE, never a mix; new lookups see the
#    new model), deleted (gone from listings), a malformed one added (in
#    .errors, logged once, not listed), a folder made and removed, Hugging
#    Face's refs/main moved to another revision.
# Every wait is a bounded poll; no timing thresholds.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
M=$TMP/m
S=$TMP/st
MS="$PY tests/make_stores.py"
$MS build "$S" || { echo "FAIL: make_stores build"; exit 1; }

# models M: column 1 of M/models.tsv (without its header), one per line.
models() { tail -n +2 "$1/models.tsv" | cut -f1; }
nl2sp() { tr '\n' ' '; }
# summary_ok DIR FILE...: the figures of a model folder (see make_stores.py)
summary_ok() { $MS summary "$@"; }

# ---- a plain folder ----
P=$S/plain
mount_model "$M" -o logfile="$TMP/plain.log" "$P"
check "plain: root lists its files, then the models in name order" \
    [ "$(ls -U -A "$M" | nl2sp)" = "models.tsv .errors .stats 100%25 deep linked llama models.tsv~2 noarch ref rounding split tab	here with space " ]
check "plain: models.tsv names, in name order (links followed, loops not)" [ "$(models "$M" | nl2sp)" = \
    '100%25 deep/er/moe deep/perlayer linked/Moe-GGUF/Moe-Q4_K llama models.tsv~2 noarch ref/mainline rounding split/big tab\there with space/m 1 ' ]
check "plain: folders hold only models and folders" \
    [ "$(ls -A "$M/deep" | nl2sp)|$(ls -A "$M/deep/er" | nl2sp)|$(ls -A "$M/split" | nl2sp)" = "er perlayer |moe |big " ]
check "plain: a model folder as today, and vs/ (the others)" [ "$(ls "$M/llama" | nl2sp)" = \
    "as blocks metadata metadata.json model.gguf model.safetensors summary summary.json tensors tensors.tsv types.tsv vs " ]
for nm in README model.bin notes.gguf.txt .cache hidden empty.gguf.d empty bad junk cut; do
    check "plain: $nm not shown" [ ! -e "$M/$nm" ]
done
for p in llama deep/er/moe deep/perlayer noarch rounding "100%25:100%" "models.tsv~2:models.tsv" "tab	here" \
    "with space/m 1"; do
    check "plain: summary of $p" summary_ok "$M/${p%%:*}" "$P/${p#*:}.gguf"
done
check "plain: split set is one model with all its tensors" summary_ok "$M/split/big" \
    "$P"/split/big-0000{1,2,3}-of-00003.gguf
check "plain: the reference model's type mix against its manifest" \
    summary_ok --manifest tests/data/mainline/manifest.tsv "$M/ref/mainline" "$P/ref/mainline.gguf"
check "plain: blocks/1 shows one layer" [ "$(ls "$M/llama/blocks/1" | nl2sp)" = \
    "attn_k.weight attn_norm.weight attn_output.weight attn_q.weight attn_v.weight ffn_down.weight ffn_gate.weight ffn_norm.weight ffn_up.weight " ]
check "plain: a block link leads to the tensor" cmp -s "$M/llama/blocks/3/ffn_up.weight/raw" \
    "$M/llama/tensors/blk.3.ffn_up.weight/raw"
check "plain: models.tsv figures" $PY - "$M" "$P" <<'PY'
import sys
sys.path.insert(0, "tests")
import make_stores as ms
m, p = sys.argv[1], sys.argv[2]
rows = [l.rstrip("\n").split("\t") for l in open(m + "/models.tsv")]
assert rows[0] == ["name", "architecture", "parameters", "main_type", "bits_per_weight", "bytes", "path"], rows[0]
bad = 0
for r in rows[1:]:
    files = [r[6].replace("\\t", "\t")]
    if "-00001-of-" in files[0]:
        files = [files[0].replace("-00001-", "-%05d-" % k) for k in (1, 2, 3)]
    man = "tests/data/mainline/manifest.tsv" if "mainline" in files[0] else None
    f = ms.figures(files, man)
    want = [f["architecture"] or "-", ms.params_text(f["parameters"]), f["main_type"],
            ms.bpw_text(f["bits_per_weight"]), str(f["file_bytes"])]
    if r[1:6] != want:
        print("models.tsv %s: %r, expected %r" % (r[0], r[1:6], want))
        bad += 1
sys.exit(bad)
PY
check "plain: .errors lists the malformed files, path, offset, message" [ "$(cat "$M/.errors")" = "path	offset	message
$P/bad/cut.gguf	8	$P/bad/cut.gguf: offset 8: tensor count 39 cannot fit in a 300-byte file
$P/bad/junk.gguf	0	$P/bad/junk.gguf: offset 0: not a GGUF file (magic is not \"GGUF\")" ]
cat "$M/.errors" "$M/models.tsv" > /dev/null
check "plain: each malformed file logged once" [ "$(grep -c 'left out' "$TMP/plain.log")" = 2 ]
check "plain: statfs counts the models' bytes" [ "$(stat -f -c '%b' "$M")" -gt 0 ]
unmount "$M"

# ---- an Ollama store: found as a folder, and with --ollama ----
O=$S/ollama
blob() { # blob MANIFEST [MEDIATYPE]: the blob path the manifest's layer names
    $PY -c "import json,sys; m=json.load(open(sys.argv[1]))
print(sys.argv[2] + '/blobs/' + next(l['digest'] for l in m['layers'] if l['mediaType'] == sys.argv[3]).replace(':', '-'))" \
        "$O/manifests/$1" "$O" "application/vnd.ollama.image.${2:-model}"
}
OLLAMA_NAMES='gemma3:1b hf.co/bartowski/Tiny-GGUF:Q4_0 huihui_ai/qwen3-abliterated:30b llama3:8b llama3:latest llava:7b llava:7b.projector '
mount_model "$M" "$O"
check "ollama: names (library, other namespace, other registry, projector, manifests-v2)" \
    [ "$(ls -U "$M" | nl2sp)" = "models.tsv gemma3:1b hf.co huihui_ai llama3:8b llama3:latest llava:7b llava:7b.projector " ]
check "ollama: a namespace and a registry are folders" \
    [ "$(ls -U "$M/huihui_ai" "$M/hf.co" "$M/hf.co/bartowski" | nl2sp)" = "$M/huihui_ai: qwen3-abliterated:30b  $M/hf.co: bartowski  $M/hf.co/bartowski: Tiny-GGUF:Q4_0 " ]
check "ollama: models.tsv names" [ "$(models "$M" | nl2sp)" = "$OLLAMA_NAMES" ]
check "ollama: .errors: the manifest that is not JSON (one without a model layer, a partial blob: nothing)" \
    [ "$(tail -n +2 "$M/.errors" | cut -f1 | nl2sp)" = "$O/manifests/registry.ollama.ai/library/broken/latest " ]
check "ollama: llama3:8b is its model blob" summary_ok "$M/llama3:8b" "$(blob registry.ollama.ai/library/llama3/8b)"
check "ollama: a namespace's model" summary_ok "$M/huihui_ai/qwen3-abliterated:30b" \
    "$(blob registry.ollama.ai/huihui_ai/qwen3-abliterated/30b)"
check "ollama: the projector beside its model" summary_ok "$M/llava:7b.projector" \
    "$(blob registry.ollama.ai/library/llava/7b projector)"
check "ollama: models.tsv path is the blob" \
    grep -qF "llava:7b	llama	" "$M/models.tsv"
unmount "$M"
mkdir -p "$TMP/home"
export HOME=$TMP/home
OLLAMA_MODELS=$O mount_model "$M" --ollama
check "--ollama: \$OLLAMA_MODELS" [ "$(models "$M" | nl2sp)" = "$OLLAMA_NAMES" ]
unmount "$M"
mkdir -p "$HOME/.ollama" && ln -s "$O" "$HOME/.ollama/models"
mount_model "$M" --ollama
check "--ollama: ~/.ollama/models" [ "$(models "$M" | nl2sp)" = "$OLLAMA_NAMES" ]
unmount "$M"

# ---- a Hugging Face cache ----
H=$S/hf
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
HF_NAMES="Org2/Other@dddddddddddddddddddddddddddddddddddddddd/other TinyOrg/Tiny-GGUF/plain TinyOrg/Tiny-GGUF/sub/tiny-moe TinyOrg/Tiny-GGUF/tiny-Q4_0 TinyOrg/Tiny-GGUF@$B/tiny-Q4_0 gpt2/gpt2 "
mount_model "$M" "$H"
check "hf: names (main revision, another one, no org, files in sub-folders)" [ "$(models "$M" | nl2sp)" = "$HF_NAMES" ]
check "hf: the folders" [ "$(ls -U "$M" "$M/TinyOrg" | nl2sp)" = "$M: models.tsv Org2 TinyOrg gpt2  $M/TinyOrg: Tiny-GGUF Tiny-GGUF@$B " ]
check "hf: main revision's file (a symbolic link into blobs/)" \
    summary_ok "$M/TinyOrg/Tiny-GGUF/tiny-Q4_0" "$H/models--TinyOrg--Tiny-GGUF/snapshots/$A/tiny-Q4_0.gguf"
check "hf: the other revision's" \
    summary_ok "$M/TinyOrg/Tiny-GGUF@$B/tiny-Q4_0" "$H/models--TinyOrg--Tiny-GGUF/snapshots/$B/tiny-Q4_0.gguf"
check "hf: the two revisions differ" [ "$(cat "$M/TinyOrg/Tiny-GGUF/tiny-Q4_0/tensors/output.weight/raw" | md5sum)" != \
    "$(cat "$M/TinyOrg/Tiny-GGUF@$B/tiny-Q4_0/tensors/output.weight/raw" | md5sum)" ]
check "hf: a sub-folder's model" summary_ok "$M/TinyOrg/Tiny-GGUF/sub/tiny-moe" \
    "$H/models--TinyOrg--Tiny-GGUF/snapshots/$A/sub/tiny-moe.gguf"
unmount "$M"
HF_HUB_CACHE=$H mount_model "$M" --hf-cache
check "--hf-cache: \$HF_HUB_CACHE" [ "$(models "$M" | nl2sp)" = "$HF_NAMES" ]
unmount "$M"
mkdir -p "$TMP/hfhome" && ln -s "$H" "$TMP/hfhome/hub"
HF_HOME=$TMP/hfhome mount_model "$M" --hf-cache
check "--hf-cache: \$HF_HOME/hub" [ "$(models "$M" | nl2sp)" = "$HF_NAMES" ]
unmount "$M"
mkdir -p "$HOME/.cache/huggingface" && ln -s "$H" "$HOME/.cache/huggingface/hub"
mount_model "$M" --hf-cache
check "--hf-cache: ~/.cache/huggingface/hub" [ "$(models "$M" | nl2sp)" = "$HF_NAMES" ]
unmount "$M"

# ---- LM Studio ----
LMS_NAMES="bartowski/Moe-GGUF/Moe-Q4_K lmstudio-community/Tiny-GGUF/Tiny-Q4_0 lmstudio-community/Tiny-GGUF/mmproj-Tiny-F16 "
mkdir -p "$HOME/.cache/lm-studio" && ln -s "$S/lmstudio" "$HOME/.cache/lm-studio/models"
mount_model "$M" --lmstudio
check "--lmstudio: ~/.cache/lm-studio/models (older versions)" [ "$(models "$M" | nl2sp)" = "$LMS_NAMES" ]
unmount "$M"
mkdir -p "$HOME/.lmstudio" && ln -s "$S/lmstudio" "$HOME/.lmstudio/models"
mount_model "$M" --lmstudio
check "--lmstudio: ~/.lmstudio/models" [ "$(models "$M" | nl2sp)" = "$LMS_NAMES" ]
check "--lmstudio: a model" summary_ok "$M/bartowski/Moe-GGUF/Moe-Q4_K" "$S/lmstudio/bartowski/Moe-GGUF/Moe-Q4_K.gguf"
unmount "$M"
mount_model "$M" --lmstudio --ollama --hf-cache
check "all three stores in one mount" [ "$(models "$M" | sort | nl2sp)" = \
    "$(printf '%s' "$LMS_NAMES$OLLAMA_NAMES$HF_NAMES" | tr ' ' '\n' | sort | nl2sp)" ]
unmount "$M"
rm "$HOME/.ollama/models"
OLLAMA_MODELS=$TMP/none "$GGUFFS" --ollama "$M" 2> "$TMP/err"
rc=$?
check "--ollama: a missing store is an error" [ $rc != 0 ]
check "--ollama: naming it" grep -q "$TMP/none" "$TMP/err"

# ---- live ----
L=$TMP/live
mkdir -p "$L/sub" "$L/gone/deep" "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$L/linked"
$MS model "$L/a.gguf" llama 61 && $MS model "$L/b.gguf" moe 62 && $MS model "$L/sub/c.gguf" noarch 63 &&
    $MS model "$L/gone/deep/d.gguf" noarch 64
# direct_io: tensor reads reach the daemon, not the kernel's page cache
mount_model "$M" -o direct_io -o logfile="$TMP/live.log" "$L"
check "live: the models at first" [ "$(models "$M" | nl2sp)" = "a b gone/deep/d sub/c " ]
# Looked up before it exists: the kernel must not keep the miss.
check "live: a model not there yet" [ ! -e "$M/new" ]

# Added: copied in (and into a new folder), and one written slowly in pieces.
$MS model "$TMP/new.gguf" moe 65
cp "$TMP/new.gguf" "$L/new.gguf"
mkdir -p "$L/fresh/dir" && cp "$TMP/new.gguf" "$L/fresh/dir/n2.gguf"
$MS model "$TMP/dl.gguf" llama 66
timeout 60 $PY - "$M" "$TMP/dl.gguf" "$L/dl.gguf" <<'PY'
import os, sys, time
m, src, dst = sys.argv[1:]
data = open(src, "rb").read()
cuts = [0] + [len(data) * k // 12 for k in range(1, 12)] + [len(data)]
bad = 0
with open(dst, "wb") as f:
    for a, b in zip(cuts, cuts[1:]):
        f.write(data[a:b])
        f.flush()
        time.sleep(0.15)
        seen = os.path.exists(m + "/dl") or "dl" in os.listdir(m) or "\ndl\t" in open(m + "/models.tsv").read()
        if seen and b < len(data):
            print("FAIL: a download shown at %d of %d bytes" % (b, len(data)))
            bad = 1
sys.exit(bad)
PY
check "live: a download in progress is not shown" [ $? = 0 ]
check "live: a copied-in model appears" wait_until 20 [ -e "$M/new/summary" ]
check "live: so does the download, once whole" wait_until 20 [ -e "$M/dl/summary" ]
check "live: and a model in a new folder" wait_until 20 [ -e "$M/fresh/dir/n2/summary" ]
check "live: the model looked up before it existed" [ -d "$M/new" ]
check "live: new model's summary" summary_ok "$M/new" "$L/new.gguf"
check "live: the download's" summary_ok "$M/dl" "$L/dl.gguf"
check "live: listed" [ "$(ls -U "$M" | nl2sp)" = "models.tsv a b dl fresh gone new sub " ]
check "live: models.tsv" [ "$(models "$M" | nl2sp)" = "a b dl fresh/dir/n2 gone/deep/d new sub/c " ]
check "live: the download never in .errors" [ "$(grep -c dl.gguf "$M/.errors")" = 0 ]

# Replaced by a rename, and rewritten in place, while readers hold files open.
$MS model "$TMP/a2.gguf" llama 67
timeout 60 $PY - "$M" "$L" "$TMP/a2.gguf" <<'PY'
import errno, os, sys, time
sys.path.insert(0, "tests")
import gguf_tool as g
m, live, new = sys.argv[1:]
bad = []
def wait(cond, what):
    for _ in range(200):
        try:
            if cond():
                return True
        except OSError:
            pass
        time.sleep(0.1)
    bad.append("timed out waiting for " + what)
    return False
T = "/tensors/blk.0.ffn_down.weight/"
# a: replaced by a rename; c: rewritten in place (same size, other bytes)
old = {v: open(m + "/a" + T + v, "rb").read() for v in ("raw", "f32")}
oldc = open(m + "/sub/c/tensors/w/raw", "rb").read()
readers = {v: open(m + "/a" + T + v, "rb", buffering=0) for v in ("raw", "f32")}
rc = open(m + "/sub/c/tensors/w/raw", "rb", buffering=0)
got = {v: r.read(len(old[v]) // 2) for v, r in readers.items()}
gotc = rc.read(100)
os.rename(new, live + "/a.gguf")
b = open(live + "/sub/c.gguf", "rb").read()
at = g.read(b).data_offset
with open(live + "/sub/c.gguf", "r+b") as f:
    f.write(b[:at] + bytes(x ^ 0xff for x in b[at:]))
wait(lambda: open(m + "/a" + T + "raw", "rb").read() != old["raw"], "the new a")
for v, r in readers.items():
    try:
        rest = r.read()
        if got[v] + rest != old[v]:
            bad.append("a/%s: the reader got a mix of old and new bytes" % v)
    except OSError as e:
        if e.errno != errno.ESTALE:
            bad.append("a/%s: %s" % (v, e))
try:
    rest = rc.read()
    if gotc + rest != oldc:
        bad.append("sub/c: the reader got a mix of old and new bytes")
except OSError as e:
    if e.errno != errno.ESTALE:
        bad.append("sub/c: %s" % e)
want = open(live + "/a.gguf", "rb").read()
if open(m + "/a" + T + "raw", "rb").read() not in want:
    bad.append("a: a new lookup does not see the new model's bytes")
wait(lambda: open(m + "/sub/c/tensors/w/raw", "rb").read() != oldc, "the new sub/c")
for x in bad:
    print("FAIL: " + x)
sys.exit(len(bad) > 0)
PY
check "live: replaced while read: old bytes or ESTALE, new lookups see the new model" [ $? = 0 ]
check "live: the replaced model's summary" summary_ok "$M/a" "$L/a.gguf"
check "live: the rewritten model's summary" summary_ok "$M/sub/c" "$L/sub/c.gguf"

# Deleted: a model (while a reader holds one of its files), and a folder's
# only model (its folders go too).
exec 7< "$M/b/tensors/blk.1.ffn_down_exps.weight/raw"
head -c 1000 <&7 > "$TMP/b.head"
rm "$L/b.gguf"
rm -r "$L/gone"
check "live: a deleted model vanishes" wait_until 20 [ ! -e "$M/b" ]
check "live: so does a deleted folder" wait_until 20 [ ! -e "$M/gone" ]
cat <&7 >> "$TMP/b.head"
exec 7<&-
check "live: its reader still reads its bytes" cmp -s "$TMP/b.head" \
    <($PY -c "import sys; sys.path.insert(0, 'tests'); import make_stores as ms, gguf_tool as g
kvs, ts = ms.moe(62); t = [t for t in ts if t[0] == 'blk.1.ffn_down_exps.weight'][0]; sys.stdout.buffer.write(t[3])")
check "live: ls no longer shows them" [ "$(ls -U "$M" | nl2sp)" = "models.tsv a dl fresh new sub " ]
check "live: nor models.tsv" [ "$(models "$M" | nl2sp)" = "a dl fresh/dir/n2 new sub/c " ]

# A malformed model added: listed in .errors, not in the folder.
printf 'GGUF\003\000\000\000garbage' > "$TMP/junk"
mv "$TMP/junk" "$L/junk.gguf"
check "live: a malformed file goes to .errors" wait_until 20 grep -q "^$L/junk.gguf	" "$M/.errors"
check "live: and is not listed" [ ! -e "$M/junk" ] && check "live: not in ls" sh -c "! ls '$M' | grep -q junk" &&
    check "live: nor in models.tsv" sh -c "! grep -q junk '$M/models.tsv'"
cat "$M/.errors" > /dev/null
check "live: logged once" [ "$(grep -c 'junk.gguf: left out' "$TMP/live.log")" = 1 ]
rm "$L/junk.gguf"
check "live: removed, it leaves .errors" wait_until 20 sh -c "! grep -q junk '$M/.errors'"

# A model added to a folder the folder links to.
cp "$P/noarch.gguf" "$TMP/elsewhere/e.gguf"
check "live: a model added behind a symbolic link to a folder" wait_until 20 [ -e "$M/linked/e/summary" ]

# A split set downloaded one shard after the other: left out while a shard
# is missing, shown once the set is whole.
mkdir -p "$TMP/parts" && $MS split "$TMP/parts/two" 2 68
mv "$TMP/parts/two-00001-of-00002.gguf" "$L/"
check "live: a split set missing a shard goes to .errors" \
    wait_until 20 grep -q "^$L/two-00001-of-00002.gguf	-	.*missing shard 2 of 2" "$M/.errors"
check "live: and is not listed" [ ! -e "$M/two" ]
mv "$TMP/parts/two-00002-of-00002.gguf" "$L/"
check "live: the split set shows once whole" wait_until 20 [ -e "$M/two/summary" ]
check "live: it leaves .errors" [ "$(grep -c two- "$M/.errors")" = 0 ]
check "live: the whole set's summary" summary_ok "$M/two" "$L"/two-0000{1,2}-of-00002.gguf
unmount "$M"

# The mount point inside the folder it shows: rescans do not walk into the
# mount (which would open every model it shows, at every change).
F=$TMP/inside
mkdir -p "$F/mnt"
for i in 1 2 3 4 5; do cp "$P/noarch.gguf" "$F/m$i.gguf"; done
MOUNTS="$MOUNTS $F/mnt"
"$GGUFFS" -f "$F" "$F/mnt" 2> "$TMP/inside.log" &
pid=$!
check "inside: mounted" wait_until 10 grep -qs " $F/mnt fuse" /proc/mounts
check "inside: the models" [ "$(models "$F/mnt" | nl2sp)" = "m1 m2 m3 m4 m5 " ]
cp "$P/noarch.gguf" "$F/m6.gguf"
check "inside: a new model shows" wait_until 20 [ -e "$F/mnt/m6" ]
check "inside: no model was opened by the rescan" [ "$(ls -l /proc/$pid/fd | grep -c '\.gguf$')" = 0 ]
unmount "$F/mnt"
wait $pid

# Names that meet (xK.gguf and xK/y.gguf) get their ~2 the same way
# whatever order readdir() gives (the pairs made in both orders).
C=$TMP/clash
for k in $(seq 10 29); do
    mkdir -p "$C/x$k"
    if [ $((k % 2)) = 0 ]; then
        cp "$P/noarch.gguf" "$C/x$k.gguf" && cp "$P/noarch.gguf" "$C/x$k/y.gguf"
    else
        cp "$P/noarch.gguf" "$C/x$k/y.gguf" && cp "$P/noarch.gguf" "$C/x$k.gguf"
    fi
done
mount_model "$M" "$C"
check "clash: the model keeps the name, the folder gets ~2, for every pair" [ "$(models "$M" | nl2sp)" = \
    "$(for k in $(seq 10 29); do printf 'x%s x%s~2/y ' $k $k; done)" ]
unmount "$M"

# Models opened concurrently (8 readers and the background check), four
# mounts in a row: the daemon stays up and every model's tensors are placed
# right (tensor_bytes depends on the order of the tensors' offsets). A race
# between opens is caught by some runs, not all.
$MS race "$TMP/race"
for r in 1 2 3 4; do
    mount_model "$M" "$TMP/race"
    ls "$M" | grep -v models.tsv | xargs -P 8 -I{} cat "$M/{}/summary.json" > /dev/null 2>&1
    check "concurrent opens, mount $r: every model placed right" $PY - "$M" <<'PY'
import json, sys
bad = 0
for i in range(40):
    try:
        got = json.load(open("%s/r%02d/summary.json" % (sys.argv[1], i)))["tensor_bytes"]
    except (OSError, ValueError) as e:
        got = e
    if got != 32 * (1000 + 101 * i):
        print("r%02d: tensor_bytes %s, expected %d" % (i, got, 32 * (1000 + 101 * i)))
        bad += 1
sys.exit(bad > 0)
PY
    check "concurrent opens, mount $r: nothing in .errors" [ "$(wc -l < "$M/.errors")" = 1 ]
    unmount "$M" || force_unmount "$M"
done

# More models than the soft limit of open files allows: the daemon raises it.
mkdir -p "$TMP/fds"
for i in $(seq 1 80); do cp "$P/noarch.gguf" "$TMP/fds/m$i.gguf"; done
(ulimit -Sn 64 && mount_model "$M" "$TMP/fds")
MOUNTS="$MOUNTS $M"
check "fd limit: ls -R of 80 models under a soft limit of 64" sh -c "ls -R '$M' > /dev/null"
check "fd limit: all listed" [ "$(models "$M" | wc -l)" = 80 ]
check "fd limit: none in .errors" [ "$(wc -l < "$M/.errors")" = 1 ]
unmount "$M"

# Hugging Face: refs/main moved to the other revision renames both.
cp -a "$H" "$TMP/hflive"
mount_model "$M" "$TMP/hflive"
ls "$M/TinyOrg/Tiny-GGUF" > /dev/null
printf '%s' "$B" > "$TMP/hflive/models--TinyOrg--Tiny-GGUF/refs/main"
check "hf live: refs/main moved: its revision takes the plain name" \
    wait_until 20 [ -e "$M/TinyOrg/Tiny-GGUF@$A/tiny-Q4_0" ]
check "hf live: names after the move" [ "$(models "$M" | nl2sp)" = \
    "Org2/Other@dddddddddddddddddddddddddddddddddddddddd/other TinyOrg/Tiny-GGUF/tiny-Q4_0 TinyOrg/Tiny-GGUF@$A/plain TinyOrg/Tiny-GGUF@$A/sub/tiny-moe TinyOrg/Tiny-GGUF@$A/tiny-Q4_0 gpt2/gpt2 " ]
check "hf live: the plain name is revision B's file" \
    summary_ok "$M/TinyOrg/Tiny-GGUF/tiny-Q4_0" "$H/models--TinyOrg--Tiny-GGUF/snapshots/$B/tiny-Q4_0.gguf"
# a download finishing: the blob renamed from .incomplete, then its link
R=$TMP/hflive/models--TinyOrg--Tiny-GGUF
$MS model "$R/blobs/fresh.incomplete" moe 69
mv "$R/blobs/fresh.incomplete" "$R/blobs/fresh"
ln -s ../../blobs/fresh "$R/snapshots/$B/fresh.gguf"
check "hf live: a finished download shows" wait_until 20 [ -e "$M/TinyOrg/Tiny-GGUF/fresh/summary" ]
check "hf live: its summary" summary_ok "$M/TinyOrg/Tiny-GGUF/fresh" "$R/snapshots/$B/fresh.gguf"
unmount "$M"

# Ollama: a tag pulled anew (its manifest names another blob), one removed,
# one added.
cp -a "$O" "$TMP/olive"
mount_model "$M" "$TMP/olive"
cat "$M/llama3:8b/summary" > /dev/null
$PY - "$TMP/olive" <<'PY'
import json, os, sys
d = sys.argv[1] + "/manifests/registry.ollama.ai/"
m = json.load(open(d + "library/llama3/8b"))
moe = json.load(open(d + "huihui_ai/qwen3-abliterated/30b"))
m["layers"][0] = moe["layers"][0]
json.dump(m, open(d + "library/llama3/8b.tmp", "w"))
os.rename(d + "library/llama3/8b.tmp", d + "library/llama3/8b")
os.makedirs(d + "library/moe")
json.dump(moe, open(d + "library/moe/latest", "w"))
os.unlink(d + "library/llava/7b")
PY
check "ollama live: a new tag shows" wait_until 20 [ -e "$M/moe:latest/summary" ]
check "ollama live: a removed one goes, with its projector" wait_until 20 [ ! -e "$M/llava:7b" ]
check "ollama live: a tag pulled anew is its new blob" \
    wait_until 20 grep -q '^architecture    qwen3moe' "$M/llama3:8b/summary"
check "ollama live: names" [ "$(models "$M" | nl2sp)" = \
    'gemma3:1b hf.co/bartowski/Tiny-GGUF:Q4_0 huihui_ai/qwen3-abliterated:30b llama3:8b llama3:latest moe:latest ' ]
unmount "$M"

# ---- opened models stay within -o model_memory ----
# Twelve copies of the reference model under a 1 MiB bound: reading every
# model's files opens them all in turn, idle ones are closed and opened
# again when read; every byte read is what an unbounded mount reads, also
# through a file held open across the closing of its model.
B=$TMP/bounded
mkdir -p "$B/m"
for i in $(seq 1 12); do cp tests/data/mainline/mainline.gguf "$B/m/c$i.gguf"; done
MB=$TMP/mb
mkdir -p "$MB"
mount_model "$M" "$B"
mount_model "$MB" -o model_memory=1M "$B"
check "bound: nothing opened by mounting" [ "$(stat_of "$MB" models_open)" = 0 ]
exec 7< "$MB/m/c1/tensors.tsv"
ok=1
for i in $(seq 1 12); do
    for f in metadata.json tensors.tsv summary tensors/F32/f32 tensors/Q4_K/raw tensors/Q8_0/f32.npy; do
        cmp -s "$M/m/c$i/$f" "$MB/m/c$i/$f" || { ok=0; echo "differs: m/c$i/$f"; }
    done
done
check "bound: every file reads as without a bound" [ $ok = 1 ]
check "bound: idle models were closed" [ "$(stat_of "$MB" models_closed_idle)" -gt 0 ]
check "bound: models held within the bound (+ one model)" [ "$(stat_of "$MB" models_open_bytes)" -lt $((2 << 20)) ]
check "bound: the unbounded mount keeps them all" [ "$(stat_of "$M" models_open)" = 12 ]
check "bound: a file held open across the closes reads whole" cmp <(cat <&7) "$M/m/c1/tensors.tsv"
exec 7<&-
ok=1
for i in 12 1 7; do # (again, after being closed)
    cmp -s "$M/m/c$i/tensors/Q6_K/f32" "$MB/m/c$i/tensors/Q6_K/f32" || ok=0
    [ "$(ls "$MB/m/c$i/tensors" | wc -l)" = "$(ls "$M/m/c$i/tensors" | wc -l)" ] || ok=0
done
check "bound: models closed while idle open again" [ $ok = 1 ]
# A model rewritten in place while a reader holds one of its files open:
# the reader gets the old bytes or an error, never the new bytes; the other
# models, read meanwhile, push the idle ones out.
F32_AT=$(awk -F'\t' '$1 == "F32" { print $6 }' "$M/m/c2/tensors.tsv")
exec 7< "$MB/m/c2/tensors/F32/raw"
printf 'X' | dd of="$B/m/c2.gguf" bs=1 seek=$((F32_AT + 100)) conv=notrunc status=none
for i in $(seq 3 12); do cat "$MB/m/c$i/metadata.json" > /dev/null; done
if cat <&7 > "$TMP/held.raw" 2>/dev/null; then
    check "bound: a reader of a rewritten model gets its old bytes" cmp "$TMP/held.raw" "$M/m/c3/tensors/F32/raw"
else
    check "bound: a reader of a rewritten model gets an error" true
fi
exec 7<&-
unmount "$MB"
unmount "$M"

finish 66_shelf
