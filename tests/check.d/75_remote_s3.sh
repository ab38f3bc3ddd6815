#!/bin/bash
# s3:// names against S3 stores on loopback, two moto_servers (the machine
# image's Python):
#   gguffs -> faultproxy -> s3gate -> moto (no checks of its own)
#   gguffs -> moto (INITIAL_NO_AUTH_ACTION_COUNT=3: checks every action
#             after the three that make its set-up user)
#
# Which checks whom:
#  - moto's own check (moto 5.2.1, moto/iam/access_control.py): the key is
#    an IAM user's or a live session's (else 403 InvalidAccessKeyId), a
#    session's x-amz-security-token is its own (400 InvalidToken), the
#    SigV4 signature over the signed headers and the x-amz-content-sha256
#    value (403 SignatureDoesNotMatch), and the key's IAM policy allows the
#    action (403 AccessDenied: the reader may GetObject and ListBucket, not
#    PUT). It recomputes over the URL as werkzeug rebuilds it, decoded, so
#    it refuses right signatures with %2B in a path or %2F in a query (a
#    prefix listing, boto3's own too), and a request with no Authorization
#    header or a presigned URL is a 500 there. Used for: an object read by
#    the reader's key (every tensor as a local mount's, every request let
#    in), the whole bucket listed, a wrong secret, a session token, a wrong
#    one; and curl's positive controls (a wrong secret and a request
#    without x-amz-content-sha256 are refused).
#  - tests/net/s3gate.py (botocore over the request exactly as received):
#    the signature, the token, that host, x-amz-date and
#    x-amz-content-sha256 are signed, presigned queries (and never both),
#    no auth at all (403 AccessDenied); it takes the region from the
#    credential scope, as moto does, so neither checks that the region is
#    the bucket's. Used for everything moto cannot check: keys with spaces
#    and '+', a prefix of more than 1000 keys (prefixes have '/',
#    continuation tokens), presigned URLs, no credentials; and for what
#    needs the fault proxy in front:
#  - an object read by an IAM user's key: every tensor as a local mount's,
#    every request signed by that key (the gate's log);
#  - a wrong secret: 403 SignatureDoesNotMatch named, exit 3, and nothing of
#    what the store echoes (StringToSign, CanonicalRequest);
#  - no credentials, a profile of ~/.aws/credentials, a session token (and
#    without it: InvalidToken);
#  - a key with spaces and '+'; a prefix of more than 1000 keys (two pages
#    and more of ListObjectsV2) with models and a split set after them;
#  - an object replaced under its key: ESTALE, never bytes of both;
#  - a presigned URL: read as it is, never signed again (the gate refuses a
#    request with both);
#  - faults: a reset, 503 SlowDown, a hang, the store refusing connections;
#  - the secrets, the session tokens, the key ids and the region in no
#    message, log, info.json, --dump, /proc/mounts or command line.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/net/netlib.sh"
unset CURL_CA_BUNDLE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_PROFILE AWS_REGION \
    AWS_DEFAULT_REGION AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_SHARED_CREDENTIALS_FILE AWS_CONFIG_FILE
export HOME=$TMP/home
mkdir -p "$HOME"
MK=$TOP/tests/net/mkmodels.py
CMP=$TOP/tests/net/cmp_mounts.py
RC=$TOP/tests/net/readcmp.py
M=$TMP/m
L=$TMP/local
MODEL=$DATA/mainline/mainline.gguf
REGION=gguffs-west-9 # (a region no message may name)

MOTO_PY=$(net_moto_python) || { fail "a Python with moto and boto3"; finish; exit 1; }
S3S() { "$MOTO_PY" "$NET/s3store.py" "$@"; }
W=$TMP/w
mkdir -p "$W/split"
"$PY" "$MK" data "$W/data.gguf" 12 && "$PY" "$MK" data "$W/data2.gguf" 12 2 &&
    "$PY" "$MK" split "$W/split" "$MODEL" ml 3 || { fail "making the models"; finish; exit 1; }
net_moto S3 || { fail "moto_server"; finish; exit 1; }
UP=http://127.0.0.1:$S3
CREDS=$TMP/creds.json
read -r AK SK SAK SSK STOKEN < <(S3S keys "$UP" "$CREDS")
[ -n "$STOKEN" ] || { fail "s3store.py keys"; finish; exit 1; }
S3S bucket "$UP" models &&
    S3S put "$UP" models m/model.gguf "$MODEL" &&
    S3S put "$UP" models "dir with space/a b+c.gguf" "$DATA/ik/ik.gguf" &&
    S3S put "$UP" models r/model.gguf "$W/data.gguf" &&
    S3S put "$UP" models dots/x.gguf "$W/data.gguf" &&
    S3S put "$UP" models "dots/a/../x.gguf" "$W/data2.gguf" &&
    S3S put "$UP" models "dots/./y.gguf" "$MODEL" &&
    S3S fill "$UP" models big/pad 1100 &&
    S3S put "$UP" models big/zz/data.gguf "$W/data.gguf" &&
    for k in 1 2 3; do S3S put "$UP" models "big/zz/split/ml-0000$k-of-00003.gguf" "$W/split/ml-0000$k-of-00003.gguf" || exit 1; done ||
    { fail "filling the bucket"; finish; exit 1; }
net_s3gate G "$S3" "$CREDS" || { fail "s3gate"; finish; exit 1; }
net_proxy P "$G" || { fail "faultproxy"; finish; exit 1; }
EP=http://127.0.0.1:$P
GLOG=$TMP/s3gate-G.log
ERRS=$TMP/all-stderr # every message gguffs wrote, for the leak check at the end
DLOG=$TMP/daemon.log
NO=(-o "s3_endpoint=$EP,timeout=5,retries=2,logfile=$DLOG")
export AWS_REGION=$REGION
glog_mark() { GN=$(wc -l <"$GLOG" 2>/dev/null || echo 0); }
glog_new() { tail -n +$((GN + 1)) "$GLOG"; }
# gj EXPR: a Python expression over L, the gate's log lines since the mark
gj() { glog_new | "$PY" -c 'import json,sys; L=[json.loads(l) for l in sys.stdin]; print('"$1"')'; }
keyed() { AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=$SK "$@"; }

# --- first: the gate refuses what S3 refuses (else nothing below proves a signature)
code_of() { curl -s --noproxy '*' -o /dev/null -w '%{http_code}' "$@"; }
check "gate: no signature: 403" test "$(code_of "$EP/models/m/model.gguf")" = 403
check "gate: a wrong secret: 403" test "$(code_of --aws-sigv4 aws:amz:us-east-1:s3 --user "$AK:x$SK" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$EP/models/m/model.gguf")" = 403
check "gate: the right one: 200" test "$(code_of --aws-sigv4 aws:amz:us-east-1:s3 --user "$AK:$SK" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$EP/models/m/model.gguf")" = 200
check "gate: an unsorted query signed as it is: 403 (SigV4 sorts it)" test "$(code_of --aws-sigv4 aws:amz:us-east-1:s3 \
    --user "$AK:$SK" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$EP/models?prefix=m&list-type=2")" = 403

# --- one object, the IAM user's key from the environment
mount_model "$L" "$MODEL"
glog_mark
if keyed mount_model "$M" s3://models/m/model.gguf "${NO[@]}" 2>>"$ERRS"; then
    check "s3://: every tensor as in the local mount" "$PY" "$CMP" "$L" "$M"
    check "s3://: every request signed by the key and let in ($(gj 'set((e["auth"], e["key"] == "'"$AK"'", e["status"]) for e in L)'))" \
        test "$(gj 'all(e["auth"] == "header" and e["key"] == "'"$AK"'" and e["status"] in (200, 206) for e in L) and len(L) > 0')" = True
    check "s3://: info.json names the object's URL" \
        grep -q "\"file\":[[:space:]]*\"$EP/models/m/model.gguf\"" "$M/tensors/$(ls "$M/tensors" | head -n 1)/info.json"
    cat "$M"/tensors/*/info.json "$M/tensors.tsv" >>"$TMP/texts"
    unmount "$M"
else
    fail "mount of s3://models/m/model.gguf"
fi
keyed "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >>"$TMP/texts" 2>>"$ERRS" &&
    keyed "$GGUFFS" --dump --json "${NO[@]}" s3://models/m/model.gguf >>"$TMP/texts" 2>>"$ERRS"
check "--dump and --dump --json of s3://" test $? = 0

# --- a wrong secret, no credentials
AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=wrong$SK "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf \
    >/dev/null 2>"$TMP/err"
rc=$?
cat "$TMP/err" >>"$ERRS"
check "wrong secret: exit 3, HTTP 403 SignatureDoesNotMatch named ($(head -c 300 "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q '/models/m/model.gguf: HTTP 403: SignatureDoesNotMatch: The request signature' '$TMP/err'"
check "wrong secret: what the store echoes is not repeated" sh -c "! grep -q -e StringToSign -e CanonicalRequest -e AWS4-HMAC '$TMP/err'"
check "wrong secret: the message says where keys come from" grep -q 'AWS_SECRET_ACCESS_KEY' "$TMP/err"
"$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
rc=$?
check "no credentials: exit 3, AccessDenied, says none were found ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'HTTP 403: AccessDenied.*no credentials were found' '$TMP/err'"
"$GGUFFS" --dump -o s3_endpoint=http://192.0.2.1:9000 s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
rc=$?
check "an http endpoint off this machine: refused, exit 2 ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 2 ] && grep -q 's3_endpoint=http://192.0.2.1:9000: http:// only to this machine' '$TMP/err'"

# --- a profile of ~/.aws/credentials; a session token
mkdir -p "$HOME/.aws"
printf '[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing\n\n[gguffs]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
    "$AK" "$SK" >"$HOME/.aws/credentials"
glog_mark
AWS_PROFILE=gguffs "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>>"$ERRS"
check "AWS_PROFILE=gguffs in ~/.aws/credentials: read with its key" \
    test "$?|$(gj 'set(e["key"] for e in L) == {"'"$AK"'"}')" = "0|True"
rm -r "$HOME/.aws"
glog_mark
if AWS_ACCESS_KEY_ID=$SAK AWS_SECRET_ACCESS_KEY=$SSK AWS_SESSION_TOKEN=$STOKEN \
    mount_model "$M" s3://models/m/model.gguf "${NO[@]}" 2>>"$ERRS"; then
    check "session token: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" "$DATA/mainline/manifest.tsv" "$MODEL"
    check "session token: every request with the session's key" \
        test "$(gj 'all(e["key"] == "'"$SAK"'" and e["status"] in (200, 206) for e in L)')" = True
    cat "$M"/tensors/*/info.json >>"$TMP/texts"
    unmount "$M"
else
    fail "mount with a session token"
fi
AWS_ACCESS_KEY_ID=$SAK AWS_SECRET_ACCESS_KEY=$SSK "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
rc=$?
cat "$TMP/err" >>"$ERRS"
check "session key without its token: exit 3, InvalidToken ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'HTTP 403: InvalidToken' '$TMP/err'"

# --- a key with spaces and '+'
mount_model "$TMP/l2" "$DATA/ik/ik.gguf"
if keyed mount_model "$M" "s3://models/dir with space/a b+c.gguf" "${NO[@]}" 2>>"$ERRS"; then
    check "key with spaces and '+': every tensor as in the local mount" "$PY" "$CMP" "$TMP/l2" "$M"
    check "key with spaces and '+': sent as %20 and %2B" grep -q '"path": "/models/dir%20with%20space/a%20b%2Bc.gguf"' "$GLOG"
    unmount "$M"
else
    fail "mount of a key with spaces and '+'"
fi
unmount "$TMP/l2"

# --- a prefix of more than 1000 keys: ListObjectsV2 page after page
glog_mark
if keyed mount_model "$M" s3://models/big "${NO[@]}" 2>>"$ERRS"; then
    check "prefix: two models after 1100 other keys ($(cd "$M" && find . -maxdepth 3 | sort | tr '\n' ' '))" \
        test "$(ls "$M/zz" | tr '\n' ' ')" = "data split "
    check "prefix: the split set once, named without its shard suffix" test "$(ls "$M/zz/split")" = ml
    check "prefix: listed in pages, with continuation tokens" \
        test "$(gj 'sum(1 for e in L if "list-type=2" in e["path"] and "continuation-token=" in e["path"])')" -ge 1
    mount_model "$TMP/l3" "$W/split/ml-00001-of-00003.gguf"
    check "prefix: the split set, every tensor as in a local mount" "$PY" "$CMP" "$TMP/l3" "$M/zz/split/ml"
    unmount "$TMP/l3"
    cat "$M/models.tsv" "$M/.errors" >>"$TMP/texts"
    unmount "$M"
else
    fail "mount of s3://models/big"
fi

# --- keys with '.' and '..' segments are names: sent as they are (and
# signed so), never squashed into another key
glog_mark
if keyed mount_model "$M" "s3://models/dots/a/../x.gguf" "${NO[@]}" -o direct_io 2>>"$ERRS"; then
    check "key dots/a/../x.gguf: its own bytes, not those of dots/x.gguf" \
        test "$(timeout 120 "$PY" "$RC" "$M" "$W/data2.gguf" --all | tr ' ' '\n' | sort -u)" = ok
    check "key dots/a/../x.gguf: asked for as it is, every request let in ($(gj 'sorted(set((e["path"], e["status"]) for e in L))'))" \
        test "$(gj 'set(e["path"] for e in L) == {"/models/dots/a/../x.gguf"} and all(e["status"] in (200, 206) for e in L)')" = True
    unmount "$M"
else
    fail "mount of s3://models/dots/a/../x.gguf"
fi
glog_mark
keyed "$GGUFFS" --dump "${NO[@]}" "s3://models/dots/./y.gguf" >"$TMP/dump" 2>"$TMP/err"
rc=$?
cat "$TMP/err" >>"$ERRS"
check "key dots/./y.gguf: read as it is ($rc: $(head -c 200 "$TMP/err"))" \
    test "$rc|$(gj 'set(e["path"] for e in L)')" = "0|{'/models/dots/./y.gguf'}"

# --- the object replaced under its key
glog_mark
if keyed mount_model "$M" s3://models/r/model.gguf "${NO[@]}" -o direct_io 2>>"$ERRS"; then
    check "before the object is replaced: ok" test "$("$PY" "$RC" "$M" "$W/data.gguf" --at $((2 << 20)) --len 4096)" = ok
    check "range GETs after the first with If-Match: the ETag of the first answer ($(gj '[(e["range"], e["if_match"]) for e in L]'))" \
        test "$(gj 'len(L) > 1 and all(e["if_match"] == L[0].get("etag", e["if_match"]) and e["if_match"] for e in L[1:])')" = True
    S3S put "$UP" models r/model.gguf "$W/data2.gguf"
    check "replaced: ESTALE, never the new bytes" \
        test "$("$PY" "$RC" "$M" "$W/data.gguf" --at $((9 << 20)) --len 4096)" = ESTALE
    check "replaced: cached blocks stale too" test "$("$PY" "$RC" "$M" "$W/data.gguf" --at $((2 << 20)) --len 4096)" = ESTALE
    unmount "$M"
else
    fail "mount of s3://models/r/model.gguf"
fi

# --- a presigned URL: never signed again (the store refuses two signatures)
URL=$(S3S presign "$EP" "$CREDS" models m/model.gguf)
glog_mark
if AWS_ACCESS_KEY_ID=$AK AWS_SECRET_ACCESS_KEY=wrong mount_model "$M" "$URL" "${NO[@]}" 2>>"$ERRS"; then
    check "presigned: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" "$DATA/mainline/manifest.tsv" "$MODEL"
    check "presigned: every request by its query alone ($(gj 'set((e["auth"], e["status"]) for e in L)'))" \
        test "$(gj 'all(e["auth"] == "query" and e["status"] in (200, 206) for e in L)')" = True
    check "presigned: its query is not shown" sh -c "! grep -q 'X-Amz-Signature' '$M/tensors/$(ls "$M/tensors" | head -n 1)/info.json' /proc/mounts"
    unmount "$M"
else
    fail "mount of a presigned URL"
fi

# --- moto's own check, no gate: a second moto_server that checks every
# action after its first three (INITIAL_NO_AUTH_ACTION_COUNT=3: s3store.py
# checked makes its set-up user with those, and everything else through the
# check), read by gguffs directly, with keys of no '+' or '%' (moto checks a
# rebuilt URL: s3gate.py says why)
net_moto SC 3 || { fail "moto_server with INITIAL_NO_AUTH_ACTION_COUNT"; finish; exit 1; }
MC=http://127.0.0.1:$SC
MLOG=$TMP/moto-SC.out
read -r RK RSK TK TSK TTOK < <(S3S checked "$MC" models m/model.gguf="$MODEL" p/data.gguf="$W/data.gguf" \
    p/split/ml-00001-of-00003.gguf="$W/split/ml-00001-of-00003.gguf" \
    p/split/ml-00002-of-00003.gguf="$W/split/ml-00002-of-00003.gguf" \
    p/split/ml-00003-of-00003.gguf="$W/split/ml-00003-of-00003.gguf" 2>"$TMP/checked.err")
check "moto checks: set up through its own check ($(tail -n 1 "$TMP/checked.err"))" test -n "$TTOK"
MO=(-o "s3_endpoint=$MC,timeout=5,retries=2,logfile=$DLOG")
reader() { AWS_ACCESS_KEY_ID=$RK AWS_SECRET_ACCESS_KEY=$RSK "$@"; }
mlog_mark() { MN=$(wc -l <"$MLOG"); }
# mlog_codes: the statuses moto answered since the mark, counted ("206 x12 200 x3")
# (werkzeug colours its log lines: the escapes go first)
mlog_codes() { tail -n +$((MN + 1)) "$MLOG" | sed 's/\x1b\[[0-9;]*m//g' | grep -o 'HTTP/1.1" [0-9]*' | cut -d' ' -f2 | sort | uniq -c | awk '{ printf "%s x%d ", $2, $1 }'; }
# mlog_ok: some requests since the mark, every one answered 2xx
mlog_ok() { case " $(mlog_codes)" in " " | *" "[!2]??" x"*) return 1 ;; esac; }
# positive controls: moto refuses what is not signed right (else the rest proves nothing)
ms3() { curl -s --noproxy '*' -o "$TMP/body" -w '%{http_code}' --aws-sigv4 aws:amz:us-east-1:s3 -r 0-3 "$@"; }
check "moto checks: the reader's key: 206" test "$(ms3 --user "$RK:$RSK" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$MC/models/m/model.gguf")" = 206
check "moto checks: a wrong secret: 403 SignatureDoesNotMatch" test "$(ms3 --user "$RK:x$RSK" \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$MC/models/m/model.gguf")|$(grep -o 'SignatureDoesNotMatch' "$TMP/body")" = "403|SignatureDoesNotMatch"
check "moto checks: the payload hash it signs: without x-amz-content-sha256, 403 SignatureDoesNotMatch" \
    test "$(ms3 --user "$RK:$RSK" "$MC/models/m/model.gguf")|$(grep -o 'SignatureDoesNotMatch' "$TMP/body")" = "403|SignatureDoesNotMatch"
check "moto checks: the reader's policy: a PUT is AccessDenied" test "$(ms3 --user "$RK:$RSK" -X PUT \
    -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$MC/models/x")|$(grep -o 'AccessDenied' "$TMP/body")" = "403|AccessDenied"
mlog_mark
if reader mount_model "$M" s3://models/m/model.gguf "${MO[@]}" 2>>"$ERRS"; then
    check "moto checks: every tensor as in the local mount" "$PY" "$CMP" "$L" "$M"
    unmount "$M"
    check "moto checks: every request let in ($(mlog_codes))" mlog_ok
else
    fail "mount of s3://models/m/model.gguf from moto"
fi
mlog_mark
# (the whole bucket: moto's check refuses every listing whose prefix has a
# '/', boto3's own too: it signs "prefix=p/" for the "prefix=p%2F" sent)
if reader mount_model "$M" s3://models "${MO[@]}" 2>>"$ERRS"; then
    check "moto checks: the bucket, listed ($(cd "$M" && find . -mindepth 1 -maxdepth 2 | sort | tr '\n' ' '))" \
        test "$(ls "$M" | tr '\n' ' ')|$(ls "$M/p" | tr '\n' ' ')" = "m models.tsv p |data split "
    mount_model "$TMP/l3" "$W/split/ml-00001-of-00003.gguf"
    check "moto checks: the bucket's split set, every tensor as in a local mount" "$PY" "$CMP" "$TMP/l3" "$M/p/split/ml"
    unmount "$TMP/l3"
    unmount "$M"
    check "moto checks: the listing and reads let in ($(mlog_codes))" mlog_ok
else
    fail "mount of s3://models from moto"
fi
AWS_ACCESS_KEY_ID=$RK AWS_SECRET_ACCESS_KEY=wrong$RSK "$GGUFFS" --dump "${MO[@]}" s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
rc=$?
cat "$TMP/err" >>"$ERRS"
check "moto checks: a wrong secret: exit 3, moto's 403 SignatureDoesNotMatch named ($(head -c 300 "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q '/models/m/model.gguf: HTTP 403: SignatureDoesNotMatch: The request signature we calculated' '$TMP/err'"
mlog_mark
if AWS_ACCESS_KEY_ID=$TK AWS_SECRET_ACCESS_KEY=$TSK AWS_SESSION_TOKEN=$TTOK \
    mount_model "$M" s3://models/m/model.gguf "${MO[@]}" 2>>"$ERRS"; then
    check "moto checks: a session token: every tensor" "$PY" tests/check_tensors.py --f32-only "$M" "$DATA/mainline/manifest.tsv" "$MODEL"
    unmount "$M"
    check "moto checks: a session token: every request let in ($(mlog_codes))" mlog_ok
else
    fail "mount with a session token from moto"
fi
AWS_ACCESS_KEY_ID=$TK AWS_SECRET_ACCESS_KEY=$TSK AWS_SESSION_TOKEN=x$TTOK "$GGUFFS" --dump "${MO[@]}" s3://models/m/model.gguf \
    >/dev/null 2>"$TMP/err"
rc=$?
cat "$TMP/err" >>"$ERRS"
check "moto checks: a wrong session token: exit 3, InvalidToken ($(head -c 300 "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'HTTP 400: InvalidToken' '$TMP/err'"

# --- a bucket in another region: AWS's 301 PermanentRedirect, with no
# Location and the bucket's region in x-amz-bucket-region
net_rules "$P" '{"rules": [{"match": "/models/m/model.gguf", "action": "status", "code": 301, "times": -1,
    "headers": {"Content-Type": "application/xml", "x-amz-bucket-region": "eu-west-1"},
    "body": "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.</Message><Endpoint>models.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>models</Bucket></Error>"}]}'
keyed "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
rc=$?
cat "$TMP/err" >>"$ERRS"
check "a bucket in eu-west-1: exit 3, S3's code, its region and -o s3_region= named ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -q 'HTTP 301, a redirect without a Location: PermanentRedirect: The bucket you are attempting' '$TMP/err' &&
        grep -q '(the bucket is in eu-west-1: -o s3_region=eu-west-1)' '$TMP/err'"
net_reset "$P"

# --- listings that never end: a page that gives the continuation token it
# was asked with
net_rules "$P" '{"rules": [{"match": "list-type=2", "action": "status", "code": 200, "times": -1,
    "headers": {"Content-Type": "application/xml"},
    "body": "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>models</Name><Prefix>big/</Prefix><KeyCount>0</KeyCount><IsTruncated>true</IsTruncated><NextContinuationToken>same</NextContinuationToken></ListBucketResult>"}]}'
net_plog_clear "$P"
keyed timeout 60 "$GGUFFS" "${NO[@]}" s3://models/big "$M" 2>"$TMP/err"
rc=$?
cat "$TMP/err" >>"$ERRS"
pages=$(net_plog "$P" | grep -o 'list-type=2' | wc -l)
check "a listing whose token comes again: exit 3, said, after 2 pages ($rc, $pages: $(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && [ $pages = 2 ] &&
        grep -q 'listing would never end: page 2 leads to page 2 again (the same continuation token)' '$TMP/err'"
grep -qs " $M fuse" /proc/mounts && unmount "$M"
net_reset "$P"

# --- the profile as botocore reads it (aws_config.h)
mkdir -p "$HOME/.aws"
AWS_PROFILE=nonexistent keyed "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
rc=$?
check "AWS_PROFILE=nonexistent: exit 2, as botocore says it ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 2 ] && grep -q 'the config profile (nonexistent) could not be found' '$TMP/err'"
printf '[profile default]\nregion = eu-central-1\n' >"$HOME/.aws/config"
glog_mark
(unset AWS_REGION && keyed "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>>"$ERRS")
check "[profile default] region = eu-central-1 of ~/.aws/config: signed for eu-central-1 ($(gj 'set(e["region"] for e in L)'))" \
    test "$?|$(gj 'set(e["region"] for e in L)')" = "0|{'eu-central-1'}"
rm "$HOME/.aws/config"
AWS_SHARED_CREDENTIALS_FILE=$TMP/no-such-credentials "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
rc=$?
check "AWS_SHARED_CREDENTIALS_FILE naming a missing file: the 403's message names it, not ~/.aws/credentials ($(cat "$TMP/err"))" \
    sh -c "[ $rc = 3 ] && grep -qF '$TMP/no-such-credentials (\$AWS_SHARED_CREDENTIALS_FILE: no such file)' '$TMP/err' &&
        ! grep -qF '~/.aws/credentials' '$TMP/err'"
printf '[gguffs]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$AK" "$SK" >"$HOME/.aws/credentials"
printf '%s\n' '[profile proc]' 'credential_process = /bin/false' '[profile role]' \
    'role_arn = arn:aws:iam::123456789012:role/reader' 'source_profile = gguffs' '[profile sso]' \
    'sso_start_url = https://example.awsapps.com/start' 'sso_region = us-east-1' 'sso_account_id = 123456789012' \
    'sso_role_name = reader' '[profile half]' 'aws_access_key_id = AKIAHALF' >"$HOME/.aws/config"
for c in "proc|a program (credential_process)" "role|assuming a role (role_arn" "sso|AWS IAM Identity Center (sso_*)" \
    "half|partial credentials: profile"; do
    AWS_PROFILE=${c%%|*} "$GGUFFS" --dump "${NO[@]}" s3://models/m/model.gguf >/dev/null 2>"$TMP/err"
    rc=$?
    check "AWS_PROFILE=${c%%|*}: exit 2, what it needs named as not supported ($(cat "$TMP/err"))" \
        sh -c "[ $rc = 2 ] && grep -qF \"${c#*|}\" '$TMP/err'"
done
rm -r "$HOME/.aws"

# --- faults between us and the store
fault_read() { "$PY" "$RC" "$M" "$W/data.gguf" --at $(($1 + 4096)) --len 4096; }
if keyed mount_model "$M" s3://models/big/zz/data.gguf "${NO[@]}" -o direct_io 2>>"$ERRS"; then
    net_rules "$P" '{"rules": [{"regex": "data.gguf$", "range": ".", "action": "reset"}]}'
    check "a connection reset: retried, ok" test "$(fault_read $((3 << 20)))" = ok
    net_rules "$P" '{"rules": [{"regex": "data.gguf$", "action": "status", "code": 503, "times": 2,
        "headers": {"Content-Type": "application/xml"},
        "body": "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"}]}'
    check "503 SlowDown twice: retried, ok" test "$(fault_read $((5 << 20)))" = ok
    net_rules "$P" '{"rules": [{"regex": "data.gguf$", "action": "status", "code": 503, "times": -1,
        "body": "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"}]}'
    check "503 for ever: EIO" test "$(fault_read $((7 << 20)))" = EIO
    check "503: the log names SlowDown" grep -q 'HTTP 503: SlowDown: Please reduce' "$DLOG"
    net_rules "$P" '{"rules": [{"regex": "data.gguf$", "action": "hang", "times": -1}]}'
    t0=$(date +%s)
    check "a hanging store: EIO within the timeout" test "$(fault_read $((9 << 20)))" = EIO
    check "a hanging store: within 5 s and a little ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -le 8
    net_rules "$P" '{}'
    net_proxy_stop "$P_PID"
    t0=$(date +%s)
    check "a store refusing connections: EIO" test "$(fault_read $((11 << 20)))" = EIO
    check "a store refusing connections: within 10 s ($(($(date +%s) - t0)) s)" test $(($(date +%s) - t0)) -le 10
    unmount "$M"
else
    fail "mount for the faults"
fi

# --- no secret anywhere: messages, the daemon's log, texts of the mounts, --dump
cat "$DLOG" "$ERRS" "$TMP/texts" /proc/mounts >"$TMP/everything" 2>/dev/null
for what in SK SSK STOKEN REGION RSK TSK TTOK; do
    check "the $what is nowhere in what gguffs wrote ($(wc -c <"$TMP/everything") bytes)" \
        sh -c "! grep -qF -- \"\$1\" '$TMP/everything'" _ "${!what}"
done
for what in AK RK TK; do
    check "the key id $what is in no message either" sh -c "! grep -qF -- \"\$1\" '$TMP/everything'" _ "${!what}"
done
finish
