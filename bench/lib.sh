# lib.sh - what the bench scripts share (sourced): a scratch folder $D with a
# mount point $M that is unmounted and removed on exit whatever happens, and
# an unmount that waits for readers that just exited.
#   bench_setup NAME      make $D (/tmp/gguffs-bench-NAME.XXXXXX), $M and $R
#   bench_need_fuse NAME  no FUSE here: say so and exit 0 (a skipped bench)
#   mnt ARG...            mount on $M ($GGUFFS ARG... $M) and wait until it answers;
#                         a failed mount ends the script, naming it
#   umnt                  unmount $M
#   stat_of KEY           KEY's value in $M/.stats
#   now                   the time in nanoseconds
#   pid_of_mount          the daemon serving $M (started as $GGUFFS ... $M)
#   cpu_ms                its CPU time so far, user + system (load on a shared
#                         machine disturbs it less than the clock)
#   llama_time MODEL NAME llama.cpp (tests/peer/embed.mjs, one thread) loads MODEL
#                         and gives the first token after a short prompt: puts
#                         NAME_load, NAME_eval and NAME_total (load + context + eval), ms
# Results, in $R: one file per key, one value per line.
#   put KEY VALUE         one more value
#   medv KEY              the median (0 when there is none)
#   med KEY [FORMAT]      "median [min..max]", the median printed by FORMAT
#                         (default $MED_FORMAT, else %g); "-" when there is none
#   ratio KEY1 KEY2       the medians' ratio, 2 decimals ("-" when KEY2's is 0)
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
    R=$D/results
    mkdir -p "$M" "$R"
    trap bench_exit EXIT
    trap 'exit 130' INT TERM
}

mnt() { "$GGUFFS" "$@" "$M" || { echo "${0##*/}: mount failed" >&2; exit 1; }; ls "$M" > /dev/null; }
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$M/.stats"; }

umnt() {
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        fusermount3 -u "$M" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "$M stays busy; lazy unmount" >&2
    fusermount3 -uz "$M"
}

now() { date +%s%N; }
pid_of_mount() { pgrep -f "^$GGUFFS .*$M\$" | head -1; }
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$(pid_of_mount)/stat"; }
llama_time() {
    EMBED_TIMING=1 node tests/peer/embed.mjs probs "$1" "Once upon a time" "$D/p.f32" 2>&1 >/dev/null |
        awk -v n="$2" '/^timing_ms probs/ { for (i = 1; i < NF; i++) if ($i == "load" || $i == "eval" || $i == "context") t[$i] = $(i + 1);
            printf "%s_load %s\n%s_eval %s\n%s_total %s\n", n, t["load"], n, t["eval"], n, t["load"] + t["context"] + t["eval"] }' |
        while read -r k v; do put "$k" "$v"; done
}

put() { echo "$2" >> "$R/$1"; }
medv() { sort -g "$R/$1" 2>/dev/null | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2); else print 0 }'; }
med() {
    [ -s "$R/$1" ] || { echo "-"; return; }
    sort -g "$R/$1" | awk -v f="${2:-${MED_FORMAT:-%g}}" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
        printf f " [%g..%g]", m, v[1], v[NR] }'
}
ratio() { awk -v a="$(medv "$1")" -v b="$(medv "$2")" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
