#!/bin/sh
# make demo: mount a small model from tests/data, look around, unmount.
set -u
cd "$(dirname "$0")/.."
M=$(mktemp -d /tmp/gguffs-demo.XXXXXX)
# Unmount however the demo ends: normally, ^C, or its reader gone
# (`make demo | head` ends it with SIGPIPE, which skips an EXIT trap).
cleanup() {
    cd /
    fusermount3 -u "$M" 2>/dev/null || fusermount3 -uz "$M" 2>/dev/null
    rmdir "$M" 2>/dev/null
}
trap cleanup EXIT
trap 'cleanup; trap - EXIT; exit 1' INT TERM HUP PIPE
MODEL=tests/data/mainline/mainline.gguf
show() { printf '\n$ %s\n' "$*"; sh -c "$*"; }
printf '$ ./gguffs %s %s\n' "$MODEL" "$M"
./gguffs "$MODEL" "$M" || exit $?
cd "$M"
show "ls"
show "ls metadata | head -n 8"
show "cat metadata/general.architecture"
show "cat metadata/llama.rope.freq_base"
show "head -n 5 metadata/tokenizer.ggml.tokens"
show "head -n 6 tensors.tsv | column -t"
show "cat types.tsv | column -t | head -n 6"
show "ls tensors/Q4_K"
show "cat tensors/Q4_K/info.json"
show "od -A d -t f4 -j 12288 -N 32 tensors/Q4_K/f32"
show "/usr/bin/python3 -c \"import numpy as np, json; s = json.load(open('tensors/Q4_K/info.json'))['shape']; a = np.fromfile('tensors/Q4_K/f32', '<f4').reshape(s); print(a.shape, a[3, :4])\""
show "cat tensors/Q4_K/stats"
show "getfattr -d tensors/Q4_K/f32"
cd /
printf '\n$ fusermount3 -u %s\n' "$M"
