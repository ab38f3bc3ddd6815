# lib.sh - what the bench scripts share (sourced): a scratch folder $D with a
# mount point $M that is unmounted and removed on exit whatever happens, and
# an unmount that waits for readers that just exited.
#   bench_setup NAME      make $D (/tmp/gguffs-bench-NAME.XXXXXX) and $M
#   bench_need_fuse NAME  no FUSE here: say so and exit 0 (a skipped bench)
#   umnt                  unmount $M
# A script with more to stop defines bench_cleanup (called on exit, after
# the unmount).

bench_need_fuse() {
    if ! [ -e /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
        echo "$1: no FUSE here (need /dev/fuse and fusermount3); skipped" >&2
        exit 0
    fi
}

bench_exit() {
    grep -qs " $M fuse" /proc/mounts && { fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M"; }
    command -v bench_cleanup >/dev/null && bench_cleanup
    rm -rf "$D"
}

bench_setup() {
    D=$(mktemp -d "/tmp/gguffs-bench-$1.XXXXXX")
    M=$D/mnt
    mkdir -p "$M"
    trap bench_exit EXIT
    trap 'exit 130' INT TERM
}

umnt() {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        fusermount3 -u "$M" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "$M stays busy; lazy unmount" >&2
    fusermount3 -uz "$M"
}
