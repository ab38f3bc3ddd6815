#!/bin/bash
# hf:// names against the hub emulation (tests/net/servers.sh start-hf) with
# HF_ENDPOINT pointing at it:
#  - hf://ORG/REPO/FILE.gguf: the hub's resolve redirect to the CDN (another
#    host:port); $HF_TOKEN, $HF_TOKEN_PATH and ~/.cache/huggingface/token go
#    to the hub as Authorization: Bearer, never to the CDN (its access log);
#    info.json names the commit the hub resolved (X-Repo-Commit);
#  - a private repo with and without a token; @REV; an unknown revision,
#    file or repo: clear errors;
#  - hf://ORG/REPO[@REV]: every GGUF of the repo from the two-page tree
#    listing, a folder each, a split set once;
#  - https hub and CDN (-o cafile); the CDN's object changed: ESTALE; the
#    CDN refusing a URL it gave (an expired signature): resolved again.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
unset CURL_CA_BUNDLE SSL_CERT_FILE SSL_CERT_DIR HF_TOKEN HF_TOKEN_PATH HF_ENDPOINT
export HOME=$TMP/home
MK=$TOP/tests/net/mkmodels.py
CMP=$TOP/tests/net/cmp_mounts.py
M=$TMP/m
L=$TMP/local
NO=(-o timeout=5,retries=1)
MiB=1048576

H=$TMP/hub
R=$H/org/repo
mkdir -p "$R/q" "$R/data" "$R/split" "$H/org/private" "$HOME"
cp "$DATA/mainline/mainline.gguf" "$R/model.gguf"
cp "$DATA/ik/ik.gguf" "$R/q/ik.gguf"
printf '# card\n' >"$R/README.md"
printf '{}\n' >"$R/q/config.json"
cp "$DATA/mainline/mainline.gguf" "$H/org/private/p.gguf"
"$PY" "$MK" data "$R/data/data.gguf" 6 &&
    "$PY" "$MK" split "$R/split" "$DATA/mainline/mainline.gguf" ml 3 || { fail "making the models"; finish; exit 1; }
COMMIT=$("$PY" "$NET/hf_tree.py" "$H" org/repo main | sed -n 's/.*commit=\([0-9a-f]*\).*/\1/p') && [ ${#COMMIT} = 40 ] &&
    "$PY" "$NET/hf_tree.py" "$H" org/repo v1.0 >/dev/null &&
    "$PY" "$NET/hf_tree.py" "$H" org/private main --token privtok >/dev/null || { fail "hf_tree.py"; finish; exit 1; }
net_start start-hf "$H" "$TMP/hf" || { fail "servers.sh start-hf"; finish; exit 1; }
HP=$(net_env "$TMP/hf" HTTP_PORT)
HS=$(net_env "$TMP/hf" HTTPS_PORT)
HLOG=$(net_env "$TMP/hf" ACCESS_LOG)
CLOG=$(net_env "$TMP/hf" CDN_ACCESS_LOG)
CP=$(net_env "$TMP/hf" CDN_PORT)
CA=$(net_env "$TMP/hf" CAFILE)
export HF_ENDPOINT=http://127.0.0.1:$HP

# marks of both logs; new LOG: the lines since the mark
mark() { HN=$(wc -l <"$HLOG"); CN=$(wc -l <"$CLOG"); }
hub_new() { sleep 0.2; tail -n +$((HN + 1)) "$HLOG"; }
cdn_new() { sleep 0.2; tail -n +$((CN + 1)) "$CLOG"; }
col() { cut -f "$1" | sort -u | tr '\n' ' '; }

# --- one file, the token from $HF_TOKEN
mount_model "$L" "$R/data/data.gguf"
mark
if HF_TOKEN=hftok mount_model "$M" hf://org/repo/data/data.gguf "${NO[@]}"; then
    check "hf://: every tensor as in the local mount" "$PY" "$CMP" "$L" "$M"
    hub_new >"$TMP/h"
    cdn_new >"$TMP/c"
    check "hf://: the hub resolves main with a 302 ($(col "$ALOG_URI" <"$TMP/h")|$(col "$ALOG_STATUS" <"$TMP/h"))" \
        test "$(col "$ALOG_URI" <"$TMP/h")|$(col "$ALOG_STATUS" <"$TMP/h")" = "/org/repo/resolve/main/data/data.gguf |302 "
    check "hf://: the hub got the token" test "$(col "$ALOG_AUTH" <"$TMP/h")" = "Bearer hftok "
    check "hf://: the bytes came from the CDN ($(wc -l <"$TMP/c") range GETs, 206)" \
        test "$(col "$ALOG_STATUS" <"$TMP/c")" = "206 " -a "$(wc -l <"$TMP/c")" -gt 1
    check "hf://: the CDN never got the token" test "$(col "$ALOG_AUTH" <"$TMP/c")" = "- "
    check "hf://: later GETs go straight to the CDN with If-Match" \
        test "$(tail -n +2 "$TMP/c" | cut -f "$ALOG_IF_MATCH" | grep -c '^"')" = "$(($(wc -l <"$TMP/c") - 1))"
    check "hf://: info.json names the resolve URL" \
        grep -q "\"file\":[[:space:]]*\"$HF_ENDPOINT/org/repo/resolve/main/data/data.gguf\"" "$M/tensors/$(ls "$M/tensors" | head -n 1)/info.json"
    check "hf://: info.json names the commit of main (the hub's X-Repo-Commit, $COMMIT)" \
        grep -q "\"repo_commit\":[[:space:]]*\"$COMMIT\"" "$M/tensors/$(ls "$M/tensors" | head -n 1)/info.json"
    unmount "$M"
else
    fail "mount of hf://org/repo/data/data.gguf"
fi
unmount "$L"

# --- the token from $HF_TOKEN_PATH, then from ~/.cache/huggingface/token
printf 'filetok\n' >"$TMP/tokfile"
mkdir -p "$HOME/.cache/huggingface"
printf 'hometok\n' >"$HOME/.cache/huggingface/token"
for how in path home; do
    mark
    if [ $how = path ]; then
        HF_TOKEN_PATH=$TMP/tokfile "$GGUFFS" --dump hf://org/repo/model.gguf "${NO[@]}" >/dev/null
        want="Bearer filetok "
    else
        "$GGUFFS" --dump hf://org/repo/model.gguf "${NO[@]}" >/dev/null
        want="Bearer hometok "
    fi
    check "token from $how: to the hub" test "$(hub_new | col "$ALOG_AUTH")" = "$want"
    check "token from $how: not to the CDN" test "$(cdn_new | col "$ALOG_AUTH")" = "- "
done
rm "$HOME/.cache/huggingface/token"

# --- a private repo
"$GGUFFS" hf://org/private/p.gguf "$M" "${NO[@]}" 2>"$TMP/err"
rc=$?
check "private repo without a token: exit 3, names the URL and says token ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q '$HF_ENDPOINT/org/private/resolve/main/p.gguf: HTTP 401.*HF_TOKEN' '$TMP/err'"
if HF_TOKEN=privtok mount_model "$M" hf://org/private/p.gguf "${NO[@]}"; then
    check "private repo with its token: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" \
        "$DATA/mainline/manifest.tsv" "$DATA/mainline/mainline.gguf"
    unmount "$M"
else
    fail "private repo with its token"
fi

# --- a URL elsewhere that redirects to the hub: the hub's hops get the token, as when named by hf://
net_proxy RP "$HP" || fail "faultproxy"
net_rules "$RP" '{"rules": [{"match": "/elsewhere.gguf", "times": -1, "action": "status", "code": 302,
    "headers": {"Location": "'"$HF_ENDPOINT"'/org/private/resolve/main/p.gguf"}}]}' >/dev/null
mark
if HF_TOKEN=privtok mount_model "$M" "http://127.0.0.1:$RP/elsewhere.gguf" "${NO[@]}"; then
    check "redirected to the hub: the hub got the token" test "$(hub_new | col "$ALOG_AUTH")" = "Bearer privtok "
    check "redirected to the hub: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" \
        "$DATA/mainline/manifest.tsv" "$DATA/mainline/mainline.gguf"
    unmount "$M"
else
    fail "redirected to the hub: mounted with the token"
fi
check "redirected to the hub: the redirector never got the token" \
    sh -c "! grep -q privtok '$TMP/proxy-RP.log'"
net_proxy_stop "$RP_PID"

# --- @REV, and what does not exist
mark
if mount_model "$M" hf://org/repo@v1.0/q/ik.gguf "${NO[@]}"; then
    check "@REV: resolved at that revision" test "$(hub_new | col "$ALOG_URI")" = "/org/repo/resolve/v1.0/q/ik.gguf "
    check "@REV: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" "$DATA/ik/manifest.tsv" "$DATA/ik/ik.gguf"
    unmount "$M"
else
    fail "mount of hf://org/repo@v1.0/q/ik.gguf"
fi
for c in "hf://org/repo@nope/model.gguf|/org/repo/resolve/nope/model.gguf: not found (HTTP 404)" \
    "hf://org/repo/missing.gguf|/org/repo/resolve/main/missing.gguf: not found (HTTP 404)" \
    "hf://nobody/none/x.gguf|/nobody/none/resolve/main/x.gguf: HTTP 401" \
    "hf://org/repo@nope|org/repo@nope: listing the repository: $HF_ENDPOINT/api/models/org/repo/tree/nope?...: not found" \
    "hf://org|expected hf://ORG/REPO[@REVISION][/FILE.gguf]"; do
    "$GGUFFS" "${c%%|*}" "$M" "${NO[@]}" 2>"$TMP/err"
    rc=$?
    check "${c%%|*}: refused (exit $rc): $(head -c 200 "$TMP/err")" sh -c "[ $rc != 0 ] && grep -qF '${c#*|}' '$TMP/err'"
done

# --- a whole repository, from the two-page tree listing
for rev in "" "@v1.0"; do
    mark
    if mount_model "$M" "hf://org/repo$rev" "${NO[@]}"; then
        check "hf://org/repo$rev: a folder per model (by its path), the split set once" \
            test "$(ls "$M" "$M/data" "$M/q" "$M/split" | tr '\n' ' ')" = "$M: data model models.tsv q split  $M/data: data  $M/q: ik  $M/split: ml "
        r=${rev#@}
        check "hf://org/repo$rev: both pages of the listing asked for" \
            test "$(hub_new | awk -F'\t' '$2 ~ /\/api\/models\// { print $2 }' | tr '\n' ' ')" = \
            "/api/models/org/repo/tree/${r:-main}?recursive=true&expand=false /api/models/org/repo/tree/${r:-main}?recursive=true&expand=false&cursor=p2 "
        check "hf://org/repo$rev: the split model whole" "$PY" tests/check_tensors.py --f32-only "$M/split/ml" \
            "$DATA/mainline/manifest.tsv" "$DATA/mainline/mainline.gguf"
        check "hf://org/repo$rev: ik" "$PY" tests/check_tensors.py --f32-only "$M/q/ik" "$DATA/ik/manifest.tsv" "$DATA/ik/ik.gguf"
        unmount "$M"
    else
        fail "mount of hf://org/repo$rev"
    fi
done
check "--dump of a whole repo: refused, names the models" sh -c \
    "! '$GGUFFS' --dump hf://org/repo ${NO[*]} >/dev/null 2>'$TMP/err' && grep -q 'names 4 models' '$TMP/err'"

# --- https hub and CDN
if HF_ENDPOINT=https://127.0.0.1:$HS HF_TOKEN=hftok mount_model "$M" hf://org/repo/model.gguf "${NO[@]}" -o "cafile=$CA"; then
    check "https hub -> https CDN: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" \
        "$DATA/mainline/manifest.tsv" "$DATA/mainline/mainline.gguf"
    unmount "$M"
else
    fail "https hub"
fi

# --- the CDN's object changes under a mount: ESTALE
cp "$R/data/data.gguf" "$TMP/data.orig"
if mount_model "$M" hf://org/repo/data/data.gguf "${NO[@]}" -o direct_io; then
    touch -d '2001-01-01' "$R/data/data.gguf"
    got=$(timeout 60 "$PY" "$NET/readcmp.py" "$M" "$TMP/data.orig" --at $((3 * MiB + 8192)) --len 4096)
    check "CDN object changed: ESTALE ($got)" test "$got" = ESTALE
    unmount "$M"
fi

# --- the CDN (behind a proxy) refuses the URL it gave once: resolved again
net_proxy CPX "$CP"
net_start start-hf "$H" "$TMP/hf2" --cdn-url "http://127.0.0.1:$CPX" || fail "start-hf --cdn-url"
HLOG2=$(net_env "$TMP/hf2" ACCESS_LOG)
if HF_ENDPOINT=$(net_env "$TMP/hf2" HTTP_URL) mount_model "$M" hf://org/repo/data/data.gguf "${NO[@]}" -o direct_io; then
    n0=$(wc -l <"$HLOG2")
    net_rules "$CPX" '{"rules": [{"action": "status", "code": 403, "times": 1}]}'
    got=$(timeout 60 "$PY" "$NET/readcmp.py" "$M" "$R/data/data.gguf" --at $((3 * MiB + 8192)) --len 4096)
    check "CDN 403 once: the read resolves again and works ($got)" test "$got" = ok
    sleep 0.2
    check "CDN 403 once: the hub was asked again" test "$(tail -n +$((n0 + 1)) "$HLOG2" | col "$ALOG_STATUS")" = "302 "
    net_rules "$CPX" '{"rules": [{"action": "status", "code": 503, "times": 1}]}'
    got=$(timeout 60 "$PY" "$NET/readcmp.py" "$M" "$R/data/data.gguf" --at $((5 * MiB + 8192)) --len 4096)
    check "CDN 503 once: retried there, ok ($got)" test "$got" = ok
    unmount "$M"
else
    fail "mount through the CDN proxy"
fi

finish 72_remote_hf
