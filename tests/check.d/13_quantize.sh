#!/bin/bash
# gguffs' quantizers (gg_quantize_rows, the as/<recipe>.gguf views' kernels)
# against the real ggml (tests/peer, libggml-base.so of npm node-llama-cpp
# 3.21.1): for every type it makes, rows of 22 kinds of data (normal,
# outliers, zero and constant rows, tiny, subnormal and huge magnitudes,
# ties, NaN and infinities) at four row lengths quantize to ggml_quantize_chunk's
# bytes on every SIMD path this CPU has, and gguffs' decoder reads ggml's
# to_float from them (tests/check_quantize.py says how).
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
BUILD=${BUILD:-build}
LIB=tests/peer/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so

check "the real ggml is installed (tests/deps.sh: npm ci in tests/peer)" [ -f "$LIB" ]
"$PY" tests/check_quantize.py "$BUILD/tests/test_quantize" || fail "check_quantize.py"
finish 13_quantize
