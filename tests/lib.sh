# tests/lib.sh - shared helpers for the shell test suites (source it).
#
# Every mount goes into a fresh temporary folder and is unmounted by a trap,
# even when the test fails or is interrupted. Only the PIDs we started are
# ever killed.
set -u
TOP=$(cd "$(dirname "$0")" && pwd)
while [ "$TOP" != / ] && ! { [ -f "$TOP/Makefile" ] && [ -d "$TOP/src" ]; }; do TOP=$(dirname "$TOP"); done
GGUFFS=${GGUFFS:-$TOP/gguffs}
DATA=$TOP/tests/data
# The pinned Python of the peers (tests/pyenv.sh): numpy, torch, transformers,
# gguf-py, safetensors, tokenizers, moto. Missing, it fails the suite, naming it.
PY=${PYTHON:-$("$TOP/tests/pyenv.sh" python)} || exit 1
TMP=$(mktemp -d /tmp/gguffs-test.XXXXXX)
MOUNTS=""
FAILS=0
PASSES=0

# abort_mount DIR: abort the FUSE connection of the mount on DIR, so that
# nothing (its own daemon included) waits on it any longer. Root only.
abort_mount() {
    local dev
    [ -d /sys/fs/fuse/connections ] && ! grep -qs ' /sys/fs/fuse/connections ' /proc/mounts &&
        mount -t fusectl none /sys/fs/fuse/connections 2>/dev/null
    dev=$(awk -v m="$1" '$5 == m { print $3 }' /proc/self/mountinfo | tail -n 1)
    [ -n "$dev" ] && [ -w "/sys/fs/fuse/connections/${dev#*:}/abort" ] &&
        echo 1 > "/sys/fs/fuse/connections/${dev#*:}/abort"
}

# force_unmount DIR: unmount, even a mount whose daemon hangs or is gone.
force_unmount() {
    local m=$1
    grep -qs " $m fuse" /proc/mounts || return 0
    timeout 10 fusermount3 -u "$m" 2>/dev/null && return 0
    abort_mount "$m"
    timeout 10 fusermount3 -uz "$m" 2>/dev/null
}

# KEEP_TMP=DIR keeps a copy of the suite's temporary folder there (debugging).
cleanup() {
    [ -n "${KEEP_TMP:-}" ] && cp -r "$TMP" "$KEEP_TMP" 2>/dev/null
    for m in $MOUNTS; do
        force_unmount "$m"
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { PASSES=$((PASSES + 1)); }
fail() { FAILS=$((FAILS + 1)); echo "FAIL: $*" >&2; }
check() { # check "description" command...
    local what=$1
    shift
    if "$@"; then ok; else fail "$what"; fi
}

# wait_until SECONDS command...: poll every 0.1 s until it succeeds.
wait_until() {
    local n=$(($1 * 10))
    shift
    while [ $n -gt 0 ]; do
        "$@" 2>/dev/null && return 0
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}

# mount_model MOUNTDIR MODEL... [-- gguffs options]: mounts (daemonized) and
# waits until the tree answers.
mount_model() {
    local mnt=$1
    shift
    mkdir -p "$mnt"
    MOUNTS="$MOUNTS $mnt"
    "$GGUFFS" "$@" "$mnt" || return $?
    for _ in $(seq 1 100); do
        grep -qs " $mnt fuse" /proc/mounts && return 0
        sleep 0.05
    done
    echo "mount of $mnt did not appear" >&2
    return 1
}

unmount() {
    fusermount3 -u "$1"
}

# Escape a GGUF name as the tree does: % -> %25, / -> %2F.
esc() { printf '%s' "$1" | sed 's/%/%25/g; s|/|%2F|g'; }

# stat_of MOUNT NAME: the value of NAME in the mount's .stats
stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1/.stats"; }

finish() {
    local name=${1:-$(basename "$0")}
    echo "$name: $PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
