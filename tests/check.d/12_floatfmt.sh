#!/bin/bash
# Float text against Python (no mount): every f32 and f64 power of two,
# boundary values, and random bit patterns (FLOATFMT_SEED repeats a run,
# FLOATFMT_N sets how many), through build/tests/fmt_floats; numeric arrays
# of every type through gguffs --dump (text and JSON renderers); and the
# generated power-of-ten table is what its generator writes.
. "$(dirname "$0")/../lib.sh"
cd "$TOP"
B=${BUILD:-build}
seed=()
[ -n "${FLOATFMT_SEED:-}" ] && seed=(--seed "$FLOATFMT_SEED")
check "floatfmt_tables.h is what floatfmt_gen.py writes" \
    sh -c "$PY src/text/floatfmt_gen.py | cmp -s - src/text/floatfmt_tables.h"
check "float text equals Python's" \
    $PY tests/check_floatfmt.py "$B/tests/fmt_floats" "${seed[@]}" --random "${FLOATFMT_N:-1000000}"
check "numeric arrays render element for element (text and JSON)" \
    $PY tests/check_numeric_arrays.py "$GGUFFS" "$TMP" "${seed[@]}"
finish 12_floatfmt
