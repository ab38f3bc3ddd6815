#!/bin/bash
# The second decoding oracle: the real ggml (tests/peer, libggml-base.so of
# npm node-llama-cpp 3.21.1) instead of reference files. For every type
# ggml_quantize_chunk accepts, thousands of blocks quantized by ggml from
# random rows and thousands of blocks of random bytes, and all 65536 F16 and
# BF16 patterns, decoded by gguffs on every SIMD path this CPU has, equal
# ggml's to_float bit for bit; gguffs' Q8_0 quantizer equals
# ggml_quantize_chunk on every path, NaN, infinities, huge and subnormal
# values included (tests/check_oracle.py says how).
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
BUILD=${BUILD:-build}
LIB=tests/peer/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so

check "the real ggml is installed (tests/deps.sh: npm ci in tests/peer)" [ -f "$LIB" ]
isas="scalar"
for isa in avx2 avx512; do
    "$GGUFFS" --version | grep -q "^simd paths:.* $isa" && isas="$isas $isa"
done
echo "SIMD paths: $isas"
"$PY" tests/check_oracle.py "$GGUFFS" "$BUILD/tests/test_quantize" "$TMP" $isas || fail "check_oracle.py"
finish 11_oracle
