#!/bin/bash
# ollama:// names against an Ollama registry emulated on nginx
# (tests/net/servers.py start-ollama: manifests, blobs redirected (307) to a
# CDN on another port, 412 to a client whose user agent is not Ollama's),
# with the fault proxy in front of both:
#   gguffs -> faultproxy R -> registry;  gguffs -> faultproxy C -> CDN
#  - a model with a projector and template, system, params and two license
#    layers: the model and the projector byte for byte as local mounts, the
#    small layers as files of the model's folder, as written;
#  - the manifest asked for with Ollama's user agent and Accept header; the
#    blob's ranges from the CDN, without If-Match (content-addressed), and
#    an ETag that changes there is no change of the blob;
#  - a tag whose layers are not GGUF, an unknown tag, a damaged small
#    layer (its digest checked): clear errors, exit status;
#  - the model's blob is its layer: another size than the manifest's (the
#    manifest's size off by 4096, the registry sending it to another blob)
#    refused at mount, exit 5; bytes that are not its digest's fail the
#    read of its end when read whole, and every read after;
#  - the same store mounted as a local store (--ollama) shows the same files;
#  - faults on both: 503 on the manifest, resets and short bodies on the
#    CDN, a hanging CDN (EIO within the timeout).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
unset CURL_CA_BUNDLE OLLAMA_MODELS
export HOME=$TMP/home
mkdir -p "$HOME"
MK=$TOP/tests/net/mkmodels.py
CMP=$TOP/tests/net/cmp_mounts.py
RC=$TOP/tests/net/readcmp.py
OS=$TOP/tests/net/ollama_store.py
M=$TMP/m
S=$TMP/store
MODEL=$DATA/mainline/mainline.gguf
PROJ=$DATA/ik/ik.gguf

"$PY" "$MK" data "$TMP/data.gguf" 10 || { fail "making the model"; finish; exit 1; }
printf 'a tensor layer of safetensors\n' >"$TMP/tensor.bin"
TEMPLATE='{{ if .System }}<|system|>{{ .System }}{{ end }}<|user|>{{ .Prompt }}<|assistant|>'
PARAMS='{"stop":["<|end|>"],"temperature":0.6}'
TINY=$("$PY" "$OS" "$S" tiny:q8 --model "$TMP/data.gguf" --projector "$PROJ" --template "$TEMPLATE" \
    --system 'You are terse.' --params "$PARAMS" --license 'MIT License' --license 'Gemma Terms' |
    awk '$1 == "model" { print $2 }') &&
    "$PY" "$OS" "$S" ns1/plain:v1 --model "$MODEL" >/dev/null &&
    "$PY" "$OS" "$S" st:latest --tensor "$TMP/tensor.bin" --template "x" >/dev/null &&
    BAD=$("$PY" "$OS" "$S" damaged:latest --model "$MODEL" --template 'a template to damage' | awk '$1 == "template" { print $2 }') ||
    { fail "ollama_store.py"; finish; exit 1; }
printf 'a template to DAMAGE' >"$S/blobs/${BAD/:/-}" # (same size, other bytes)
# A blob whose bytes are not its digest's (same size), manifests that give
# the model's layer 4096 bytes more or less than its blob, and a tag whose
# model layer the registry (the fault proxy) sends to a 25 MiB blob.
"$PY" "$MK" data "$TMP/forge.gguf" 3 3 && "$PY" "$MK" data "$TMP/big.gguf" 25 4 &&
    FORGED=$("$PY" "$OS" "$S" forged:latest --model "$TMP/forge.gguf" | awk '$1 == "model" { print $2 }') &&
    BIG=$("$PY" "$OS" "$S" big:latest --model "$TMP/big.gguf" | awk '$1 == "model" { print $2 }') &&
    "$PY" "$OS" "$S" redir:latest --model "$TMP/data.gguf" >/dev/null &&
    "$PY" "$OS" "$S" lying:plus --model "$TMP/data.gguf" >/dev/null &&
    "$PY" "$OS" "$S" lying:minus --model "$TMP/data.gguf" >/dev/null &&
    "$PY" - "$S" "${FORGED/:/-}" <<'PYEOF' || { fail "the forged blob and the lying manifests"; finish; exit 1; }
import json, os, sys
store, forged = sys.argv[1], sys.argv[2]
for tag, delta in (("plus", 4096), ("minus", -4096)):
    p = os.path.join(store, "manifests/registry.ollama.ai/library/lying", tag)
    m = json.load(open(p))
    for l in m["layers"]:
        if l["mediaType"].endswith(".model"):
            l["size"] += delta
    json.dump(m, open(p, "w"))
with open(os.path.join(store, "blobs", forged), "r+b") as f:
    f.seek(-1000, 2)
    b = f.read(100)
    f.seek(-1000, 2)
    f.write(bytes(x ^ 0x5a for x in b))
PYEOF

net_start start "$S" "$TMP/cdn" || { fail "servers.sh start (the CDN)"; finish; exit 1; }
net_proxy C "$(net_env "$TMP/cdn" HTTP_PORT)" || { fail "faultproxy C"; finish; exit 1; }
net_start start-ollama "$S" "$TMP/reg" --cdn-url "http://127.0.0.1:$C" || { fail "servers.sh start-ollama"; finish; exit 1; }
net_proxy R "$(net_env "$TMP/reg" HTTP_PORT)" || { fail "faultproxy R"; finish; exit 1; }
REG=http://127.0.0.1:$R
NO=(-o "ollama_registry=$REG,timeout=5,retries=2")
rj() { net_plog "$R" | "$PY" -c 'import json,sys; L=json.load(sys.stdin); print('"$1"')'; }
cj() { net_plog "$C" | "$PY" -c 'import json,sys; L=json.load(sys.stdin); print('"$1"')'; }
hdr() { printf 'dict((k.lower(), v) for k, v in %s["headers"]).get("%s")' "$1" "$2"; }

# --- the emulation: 412 without Ollama's user agent
check "registry: 412 to another user agent" \
    test "$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' "$REG/v2/library/tiny/manifests/q8")" = 412
check "registry: 200 to Ollama's" \
    test "$(curl -s --noproxy '*' -A ollama/0.12.0 -o /dev/null -w '%{http_code}' "$REG/v2/library/tiny/manifests/q8")" = 200

# --- a model, its projector and its small layers
mount_model "$TMP/l1" "$TMP/data.gguf"
mount_model "$TMP/l2" "$PROJ"
net_plog_clear "$R"
net_plog_clear "$C"
if mount_model "$M" ollama://tiny:q8 "${NO[@]}"; then
    check "ollama://: the model and its projector, named as Ollama's store names them" \
        test "$(ls "$M" | tr '\n' ' ')" = "models.tsv tiny:q8 tiny:q8.projector "
    check "ollama://: every tensor of the model as in the local mount" "$PY" "$CMP" "$TMP/l1" "$M/tiny:q8"
    check "ollama://: model.gguf read whole, its digest the manifest's" cmp "$M/tiny:q8/model.gguf" "$TMP/data.gguf"
    check "ollama://: every tensor of the projector as in the local mount" "$PY" "$CMP" "$TMP/l2" "$M/tiny:q8.projector"
    check "ollama://: template as written" test "$(cat "$M/tiny:q8/template")" = "$TEMPLATE"
    check "ollama://: params as written" test "$(cat "$M/tiny:q8/params")" = "$PARAMS"
    check "ollama://: system as written" test "$(cat "$M/tiny:q8/system")" = 'You are terse.'
    check "ollama://: two licenses: license and license~2" \
        test "$(cat "$M/tiny:q8/license")|$(cat "$M/tiny:q8/license~2")" = "MIT License|Gemma Terms"
    check "ollama://: models.tsv filled for the model and its projector ($(cut -f1-6 "$M/models.tsv" | tr '\t\n' ' |'))" \
        test "$(awk -F'\t' 'NR > 1 { print $1, $2 != "-", $6 }' "$M/models.tsv" | tr '\n' '|')" = \
        "tiny:q8 1 $(stat -c %s "$TMP/data.gguf")|tiny:q8.projector 1 $(stat -c %s "$PROJ")|"
    check "ollama://: the projector has no small files" sh -c "! ls '$M/tiny:q8.projector' | grep -qx -e template -e license"
    check "ollama://: the manifest asked for with Ollama's user agent and the manifest type" \
        test "$(rj "[($(hdr 'e' user-agent) or '')[:7] + ' ' + str($(hdr 'e' accept)) for e in L if '/manifests/' in e['path']]")" \
        = "['ollama/ application/vnd.docker.distribution.manifest.v2+json']"
    check "ollama://: blobs redirected by the registry ($(rj "sorted(set(e['status'] for e in L if '/blobs/' in e['path']))"))" \
        test "$(rj "sorted(set(e['status'] for e in L if '/blobs/' in e['path']))")" = "[307]"
    check "ollama://: the model's bytes by ranges from the CDN, without If-Match ($(cj "len(L)") GETs)" \
        test "$(cj "len(L) > 2 and all(e['status'] == 206 and not e['if_match'] for e in L)")" = True
    unmount "$M"
else
    fail "mount of ollama://tiny:q8"
fi

"$GGUFFS" --dump "${NO[@]}" ollama://tiny:q8 >"$TMP/dump" 2>"$TMP/err"
rc=$?
check "--dump ollama://: the model, not its projector ($(head -c 200 "$TMP/dump"))" \
    sh -c "[ $rc = 0 ] && head -n 1 '$TMP/dump' | grep -q '/v2/library/tiny/blobs/$TINY: GGUF version'"

# --- a namespace; one model at the root
if mount_model "$M" ollama://ns1/plain:v1 "${NO[@]}"; then
    check "ollama://NS/MODEL:TAG: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" "$DATA/mainline/manifest.tsv" "$MODEL"
    unmount "$M"
else
    fail "mount of ollama://ns1/plain:v1"
fi

# --- errors
"$GGUFFS" "${NO[@]}" ollama://st "$M" 2>"$TMP/err"
rc=$?
check "a tag whose layers are not GGUF: exit 3, says so ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'ollama://st: the tag.s layers are not GGUF (application/vnd.ollama.image.tensor' '$TMP/err'"
"$GGUFFS" "${NO[@]}" ollama://tiny:nope "$M" 2>"$TMP/err"
rc=$?
check "an unknown tag: exit 3, MANIFEST_UNKNOWN named ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'manifests/nope: not found (HTTP 404: MANIFEST_UNKNOWN: manifest unknown)' '$TMP/err'"
"$GGUFFS" "${NO[@]}" ollama://damaged "$M" 2>"$TMP/err"
rc=$?
check "a damaged template blob: refused, its digest named ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 5 ] && grep -q \"the template file's sha256 is [0-9a-f]*, not ${BAD#sha256:} (its digest): damaged\" '$TMP/err'"
for d in plus minus; do
    "$GGUFFS" "${NO[@]}" "ollama://lying:$d" "$M" 2>"$TMP/err"
    rc=$?
    check "a manifest that gives the model's layer 4096 bytes $d: refused, exit 5 ($(cat "$TMP/err"))" \
        sh -c "[ $rc = 5 ] && grep -q 'where its manifest.s layer has [0-9]*: not the blob its digest names' '$TMP/err'"
    grep -qs " $M fuse" /proc/mounts && unmount "$M"
done
net_rules "$R" "{\"rules\": [{\"match\": \"/v2/library/redir/blobs/$TINY\", \"action\": \"status\", \"code\": 307,
    \"headers\": {\"Location\": \"http://127.0.0.1:$C/blobs/${BIG/:/-}\"}, \"times\": -1}]}"
"$GGUFFS" "${NO[@]}" ollama://redir "$M" 2>"$TMP/err"
rc=$?
check "a registry that sends the model's layer to a 25 MiB blob: refused, exit 5 ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 5 ] && grep -q '26[0-9]* bytes, where its manifest.s layer has 10[0-9]*' '$TMP/err'"
grep -qs " $M fuse" /proc/mounts && unmount "$M"
net_reset "$R"
if mount_model "$M" ollama://forged "${NO[@]}" -o logfile="$TMP/forged.log"; then
    check "a blob whose bytes are not its digest's, read whole: an I/O error at its end" \
        sh -c "! cat '$M/model.gguf' >/dev/null 2>'$TMP/cat' && grep -q 'Input/output error' '$TMP/cat'"
    check "a blob whose bytes are not its digest's: the log names both digests" \
        grep -q "its bytes' sha256 is [0-9a-f]*, not the ${FORGED#sha256:} it is named by: damaged" "$TMP/forged.log"
    check "a blob whose bytes are not its digest's: damaged for good" test "$("$PY" "$RC" "$M" "$TMP/forge.gguf" --at 8192 --len 100)" = EIO
    unmount "$M"
else
    fail "mount of ollama://forged"
fi
"$GGUFFS" -o ollama_registry=http://192.0.2.1 ollama://tiny:q8 "$M" 2>"$TMP/err"
rc=$?
check "an http registry off this machine: exit 2 ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 2 ] && grep -q 'http:// only to this machine' '$TMP/err'"

# --- the same store as a local store: the same small files
if OLLAMA_MODELS=$S mount_model "$TMP/local" --ollama; then
    for f in template params system license license~2; do
        check "local store: tiny:q8/$f as written" cmp -s "$TMP/local/tiny:q8/$f" <(
            case $f in template) printf '%s' "$TEMPLATE" ;; params) printf '%s' "$PARAMS" ;;
            system) printf 'You are terse.' ;; license) printf 'MIT License' ;; *) printf 'Gemma Terms' ;; esac)
    done
    check "local store: the damaged blob is in .errors" grep -q "damaged" "$TMP/local/.errors"
    unmount "$TMP/local"
else
    fail "mount of the local store"
fi

# --- faults on both
if mount_model "$M" ollama://tiny:q8 "${NO[@]}" -o direct_io; then
    rd() { "$PY" "$RC" "$M/tiny:q8" "$TMP/data.gguf" --at $(($1 * 1048576 + 4096)) --len 4096; }
    net_rules "$C" '{"rules": [{"match": "/blobs/", "range": ".", "action": "reset"}]}'
    check "CDN: a connection reset: retried, ok" test "$(rd 2)" = ok
    net_rules "$C" '{"rules": [{"match": "/blobs/", "action": "short", "bytes": 1000}]}'
    check "CDN: a short body: retried, ok" test "$(rd 4)" = ok
    net_rules "$C" '{"rules": [{"match": "/blobs/", "action": "set_header", "name": "ETag", "value": "\"another-edge\"", "times": -1}]}'
    got=$(rd 5)
    check "CDN: another ETag (another edge): no change of a content-addressed blob ($got)" test "$got" = ok
    net_rules "$C" '{"rules": [{"match": "/blobs/", "action": "hang", "times": -1}]}'
    t0=$(date +%s)
    check "CDN: hanging: EIO" test "$(rd 8)" = EIO
    check "CDN: hanging: within the timeout and a little ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -le 8
    net_reset "$C"
    unmount "$M"
else
    fail "mount for the CDN faults"
fi
net_rules "$R" '{"rules": [{"match": "/manifests/", "action": "status", "code": 503, "times": 2}]}'
"$GGUFFS" --dump "${NO[@]}" ollama://ns1/plain:v1 >/dev/null 2>"$TMP/err"
check "registry: 503 twice on the manifest: retried, ok ($(cat "$TMP/err"))" test $? = 0
net_rules "$R" '{"rules": [{"match": "/manifests/", "action": "reset", "times": -1}]}'
"$GGUFFS" --dump "${NO[@]}" ollama://ns1/plain:v1 >/dev/null 2>"$TMP/err"
rc=$?
check "registry: resetting every connection: exit 3, the manifest named ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'ollama://ns1/plain:v1: the manifest: .*manifests/v1' '$TMP/err'"
net_reset "$R"
finish
