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
PY=${PYTHON:-/usr/bin/python3}
TMP=$(mktemp -d /tmp/gguffs-test.XXXXXX)
MOUNTS=""
FAILS=0
PASSES=0

cleanup() {
    for m in $MOUNTS; do
        if grep -qs " $m fuse" /proc/mounts; then
            fusermount3 -u "$m" 2>/dev/null || fusermount3 -uz "$m" 2>/dev/null
        fi
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

finish() {
    local name=${1:-$(basename "$0")}
    echo "$name: $PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
