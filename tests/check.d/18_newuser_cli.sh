#!/bin/bash
# What a new user runs into on the command line (issue 18): -o types= with
# several pairs (mount, --dump, --verify, mount(8), fstab), two mounts raced
# onto one mount point, absolute paths in what the tree writes, control
# bytes in --dump/--verify, no files that can only fail for undecodable
# tensors, SIGUSR1/2, option edges, summary edges, the README tour with a
# python3 that has no numpy. Every wait is bounded; only our own PIDs are
# signalled.
. "$(dirname "$0")/../lib.sh"
M=$TMP/m
MODEL=$DATA/tour/tiny-q8_0.gguf
PIDS=""
trap 'cleanup; for p in $PIDS; do kill "$p" 2>/dev/null; done' EXIT
mounted() { grep -qs " $1 fuse" /proc/mounts; }
wait_mounted() { for _ in $(seq 1 100); do mounted "$1" && return 0; sleep 0.05; done; return 1; }
mkdir -p "$TMP/mp"
MOUNTS="$MOUNTS $TMP/mp $M"

# Two tensors of type ids nobody defines (250, 251), holding f32 values.
$PY - "$TMP" <<'PY'
import struct, sys
sys.path.insert(0, "tests")
import gguf_tool as g
g.write(sys.argv[1] + "/ids.gguf", kvs=[("general.architecture", g.STR, "llama")],
        tensors=[("a", [4], 250, struct.pack("<4f", 1, 2, 3, 4)), ("b", [2], 251, struct.pack("<2f", 5, 6))])
PY
IDS=$TMP/ids.gguf
TYPES=types=250:F32,251:F32
# f32 of both tensors as forced: a = 1 2 3 4, b = 5 6
both_f32() { [ "$(od -An -tf4 -v "$1/tensors/a/f32" "$1/tensors/b/f32" | xargs)" = "1 2 3 4 5 6" ]; }

# --- 4. -o types=ID:NAME,ID:NAME as documented, everywhere
if mount_model "$M" "$IDS" -o "$TYPES" 2> "$TMP/err"; then
    check "mount -o $TYPES: both ids forced" both_f32 "$M"
    unmount "$M"
else
    fail "mount -o $TYPES refused: $(cat "$TMP/err")"
fi
if mount_model "$M" "$IDS" -o "ro,$TYPES,allow_other" 2> "$TMP/err"; then
    check "mount -o ro,$TYPES,allow_other: both ids forced, allow_other taken" both_f32 "$M"
    check "allow_other reached libfuse" grep -qs " $M fuse.gguffs .*allow_other" /proc/mounts
    unmount "$M"
else
    fail "mount -o ro,$TYPES,allow_other refused: $(cat "$TMP/err")"
fi
"$GGUFFS" --dump -o "$TYPES" "$IDS" > "$TMP/dump" 2> "$TMP/err"
check "--dump -o $TYPES: exit 0 ($(cat "$TMP/err"))" [ $? = 0 ]
check "--dump -o $TYPES: both tensors F32" [ "$(grep -cE '^ +[01] F32 ' "$TMP/dump")" = 2 ]
"$GGUFFS" --verify -o "$TYPES" "$IDS" > "$TMP/verify" 2> "$TMP/err"
check "--verify -o $TYPES: exit 0 ($(cat "$TMP/err"))" [ $? = 0 ]
check "--verify -o $TYPES: both ok" [ "$(grep -c '	F32	ok	0	0$' "$TMP/verify")" = 2 ]
# mount(8) and fstab hand the options to the program as one -o a,b,c (mount.fuse3).
mkdir -p "$M"
if timeout 20 mount -t fuse -o "ro,$TYPES" "$GGUFFS#$IDS" "$M" 2> "$TMP/err" && wait_mounted "$M"; then
    check "mount -t fuse -o ro,$TYPES: both ids forced" both_f32 "$M"
    unmount "$M"
else
    fail "mount -t fuse -o ro,$TYPES failed: $(cat "$TMP/err")"
fi
printf '%s %s fuse ro,noauto,%s,nofail 0 0\n' "$GGUFFS#$IDS" "$M" "$TYPES" > "$TMP/fstab"
if timeout 20 mount -T "$TMP/fstab" "$M" 2> "$TMP/err" && wait_mounted "$M"; then
    check "fstab line with $TYPES: both ids forced" both_f32 "$M"
    unmount "$M"
else
    fail "fstab line with $TYPES failed: $(cat "$TMP/err")"
fi
force_unmount "$M"
# Wrong pairs are refused naming them.
bad_usage() { # bad_usage TEXT gguffs-args...: exit 2 with TEXT on stderr
    local want=$1
    shift
    timeout 10 "$GGUFFS" "$@" > /dev/null 2> "$TMP/err"
    local rc=$?
    check "gguffs $*: exit 2 (got $rc)" [ $rc = 2 ]
    check "gguffs $*: says '$want' ($(cat "$TMP/err"))" grep -qF -- "$want" "$TMP/err"
    force_unmount "$TMP/mp"
}
bad_usage 'unknown type name "NOPE"' -o types=250:F32,251:NOPE "$IDS" "$TMP/mp"
bad_usage 'unknown type name "NOPE"' --dump -o types=250:F32,251:NOPE "$IDS"
bad_usage "-o 251:F32: type ids are given as types=ID:NAME" -o 251:F32 "$IDS" "$TMP/mp"

# --- sharp edges: an empty types=, --json/--full away from --dump
bad_usage "-o types= needs ID:NAME" -o types= "$IDS" "$TMP/mp"
bad_usage "-o types= needs ID:NAME" --dump -o types= "$IDS"
bad_usage "--json and --full belong to --dump" --json "$MODEL" "$TMP/mp"
bad_usage "--json and --full belong to --dump" --json "$MODEL"
bad_usage "--json and --full belong to --dump" --verify --json "$MODEL"
bad_usage "--json and --full belong to --dump" --full "$MODEL" "$TMP/mp"

# --- 9. two mounts started at once on one mount point: one wins, the other exits 7
both_ok=0
for try in 1 2 3 4 5 6 7 8; do
    rm -f "$TMP/go"
    pids=""
    for k in 1 2; do
        # Both wait for the same start signal (bounded), then mount.
        (for _ in $(seq 1 200000); do [ -e "$TMP/go" ] && break; done
         exec timeout 20 "$GGUFFS" "$MODEL" "$TMP/mp" 2> "$TMP/race$k.err") &
        pids="$pids $!"
    done
    sleep 0.2
    touch "$TMP/go"
    rcs=""
    for p in $pids; do
        wait "$p"
        rcs="$rcs $?"
    done
    n=$(grep -c " $TMP/mp fuse" /proc/mounts)
    rcs=$(echo $rcs | tr ' ' '\n' | sort | xargs)
    [ "$rcs" = "0 0" ] && both_ok=$((both_ok + 1))
    check "race $try: one mount wins, the other exits 7 (exits: $rcs; $(cat "$TMP"/race*.err))" [ "$rcs" = "0 7" ]
    check "race $try: one mount on the mount point (got $n)" [ "$n" = 1 ]
    check "race $try: the loser says the mount point is busy" grep -qs "already a mount point" "$TMP/race1.err" "$TMP/race2.err"
    for _ in 1 2 3 4; do force_unmount "$TMP/mp"; done
done
echo "races where both mounts succeeded: $both_ok of 8"

finish 18_newuser_cli
