#!/bin/bash
# The malformed-input suite: tests/malformed/gen.py writes hostile and odd
# GGUF files, tests/malformed/expected.tsv says what each must do. A refused
# file: the expected exit status (mounting and --dump), a message naming the
# file and what is wrong, no mount left. A file that mounts: the bad part is
# isolated and everything else reads right (tests/malformed/check.py), and
# the daemon is still serving afterwards.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m
TABLE=$TOP/tests/malformed/expected.tsv

$PY "$TOP/tests/malformed/gen.py" "$TMP/mal" >/dev/null || fail "gen.py failed"
check "expected.tsv is the table gen.py writes (rerun it and review the difference)" \
    cmp -s "$TABLE" "$TMP/mal/expected.tsv"

n=0 refused=0 isolated=0 fine=0
while IFS=$'\t' read -r file code outcome msg checks; do
    [ "$file" = file ] && continue
    n=$((n + 1))
    f=$TMP/mal/files/$file
    if [ "$outcome" = refused ]; then
        refused=$((refused + 1))
        mkdir -p "$M"
        MOUNTS="$MOUNTS $M"
        timeout 30 "$GGUFFS" "$f" "$M" 2>"$TMP/err"
        rc=$?
        check "$file: exit status $rc, expected $code" [ "$rc" = "$code" ]
        check "$file: message has \"$msg\" (got: $(head -c 300 "$TMP/err"))" grep -qF -- "$msg" "$TMP/err"
        case $file in
        *-of-*) where=$TMP/mal/files/ ;; # the message names the missing or bad shard
        *) where=$f ;;
        esac
        check "$file: message names the file" grep -qF -- "$where" "$TMP/err"
        check "$file: one line of message" [ "$(wc -l < "$TMP/err")" = 1 ]
        if grep -qs " $M fuse" /proc/mounts; then
            fail "$file: it mounted"
            unmount "$M"
        fi
        timeout 30 "$GGUFFS" --dump "$f" >/dev/null 2>"$TMP/err"
        rc=$?
        check "$file: --dump exit status $rc, expected $code" [ "$rc" = "$code" ]
        check "$file: --dump message" grep -qF -- "$msg" "$TMP/err"
        continue
    fi
    [ "$outcome" = isolated ] && isolated=$((isolated + 1)) || fine=$((fine + 1))
    if ! mount_model "$M" "$f" 2>"$TMP/err"; then
        fail "$file: does not mount: $(cat "$TMP/err")"
        continue
    fi
    check "$file: $checks" timeout 120 $PY "$TOP/tests/malformed/check.py" "$M" "$f" "$checks"
    check "$file: daemon still serving" ls "$M/tensors" >/dev/null
    unmount "$M"
done < "$TABLE"
echo "malformed files: $n ($refused refused, $isolated isolated, $fine fine)"
check "at least 40 files" [ "$n" -ge 40 ]
finish 30_malformed
