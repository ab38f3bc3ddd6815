#!/usr/bin/python3
"""Numeric arrays through the renderers, element by element, no mount
(tests/check.d/12_floatfmt.sh).

    check_numeric_arrays.py GGUFFS TMPDIR [--seed N]

Writes a GGUF (tests/gguf_tool.py) with an array of every numeric type and
bool, holding edge values and random bit patterns (several blocks of the
renderer long), plus arrays of arrays; reads it back with `gguffs --dump
--full` (one text line per element, joined by ", ") and `gguffs --dump
--json --full` (value_json), and compares every element with Python's text:
repr for f64, the shortest f32 digits (check_floatfmt.numpy_f32_text), str
for integers, true/false; in JSON, nan and infinities are strings.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_tool as g  # noqa: E402
from check_floatfmt import numpy_f32_text  # noqa: E402

INTS = {g.U8: (0, 2**8), g.I8: (-2**7, 2**7), g.U16: (0, 2**16), g.I16: (-2**15, 2**15),
        g.U32: (0, 2**32), g.I32: (-2**31, 2**31), g.U64: (0, 2**64), g.I64: (-2**63, 2**63)}


def f32_texts(x):
    return [numpy_f32_text(v) for v in np.asarray(x, dtype=np.float32)]


def f64_texts(x):
    return [repr(v) for v in np.asarray(x, dtype=np.float64).tolist()]


def arrays(rng, n):
    """[(key, element type, values for gguf_tool, expected texts)]."""
    out = []
    for t, (lo, hi) in INTS.items():
        vals = [lo, hi - 1, 0, 1, -1 if lo < 0 else 2, 9, 10, 99, 100]
        vals = [v for v in vals if lo <= v < hi]
        vals += [int(v) for v in rng.integers(lo, hi, n, dtype=np.int64 if lo < 0 else np.uint64)]
        out.append((f"a.{g.TYPE_NAMES[t]}", t, vals, [str(v) for v in vals]))
    out.append(("a.bool", g.BOOL, [True, False] * 3, ["true", "false"] * 3))
    special = [0.0, -0.0, float("nan"), float("inf"), float("-inf"), 1e-5, 1e16, 0.0001, 2.0**-96]
    # Vocabulary-like scores, then raw bit patterns.
    scale = 10.0 ** rng.integers(0, 8, n)
    scores = (np.round(rng.uniform(-1e4, 0, n) * scale) / scale).astype(np.float32)
    bits = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    f32 = np.concatenate([np.array(special, dtype=np.float32), scores, bits])
    out.append(("a.f32", g.F32, f32.tolist(), f32_texts(f32)))
    bits = rng.integers(0, 2**64, n, dtype=np.uint64, endpoint=False).view(np.float64)
    f64 = np.concatenate([np.array(special), bits])
    out.append(("a.f64", g.F64, f64.tolist(), f64_texts(f64)))
    return out


def json_token(t):
    return f'"{t}"' if t in ("nan", "inf", "-inf") else t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gguffs")
    ap.add_argument("tmp")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--n", type=int, default=10000)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    arrs = arrays(rng, a.n)
    nested_vals = [(g.F64, [0.1, float("nan")]), (g.U8, [255]), (g.F32, [])]
    nested_json = '[[0.1, "nan"], [255], []]'
    kvs = [(k, g.ARR, (t, v)) for k, t, v, _ in arrs] + [("a.nested", g.ARR, (g.ARR, nested_vals))]
    path = os.path.join(a.tmp, "arrays.gguf")
    g.write(path, kvs=kvs)

    text = subprocess.run([a.gguffs, "--dump", "--full", path], capture_output=True, check=True).stdout.decode()
    lines = {}
    for line in text.split("\n"):  # "    3 arr   KEY = [N x TYPE] e1, e2, ..."
        m = re.match(r"\s*\d+ arr\s+(\S+) = \[\d+ x \w+\](?: (.*))?$", line)
        if m:
            lines[m.group(1)] = m.group(2) or ""
    js = subprocess.run([a.gguffs, "--dump", "--json", "--full", path], capture_output=True,
                        check=True).stdout.decode()
    raw = json.loads(js, parse_float=str, parse_int=str)["metadata"]

    bad = 0
    checked = 0
    for key, t, _, want in arrs:
        got_text = lines.get(key, "").split(", ")
        got_json = [{True: "true", False: "false"}.get(v, v) if isinstance(v, bool) else v
                    for v in raw[key]["value"]]
        for form, got in (("text", got_text), ("json", got_json)):
            if got != want:
                bad += 1
                diffs = [(i, x, y) for i, (x, y) in enumerate(zip(got, want)) if x != y][:5]
                print(f"FAIL {key} ({form}): {len(got)} elements, want {len(want)}; first differences "
                      f"(index, ours, want): {diffs}", file=sys.stderr)
            checked += len(want)
    # JSON quotes nan and infinities: check the raw text of the f32 array.
    f32_key = "a.f32"
    f32_want = "[" + ", ".join(json_token(x) for x in dict((k, w) for k, _, _, w in arrs)[f32_key]) + "]"
    if f32_want not in js:
        bad += 1
        print("FAIL a.f32: JSON text is not [elements joined by ', ', nan/inf quoted]", file=sys.stderr)
    if nested_json not in js:
        bad += 1
        print(f"FAIL a.nested: want {nested_json} in the JSON", file=sys.stderr)
    if lines.get("a.nested") != nested_json[1:-1]:
        bad += 1
        print(f"FAIL a.nested text: {lines.get('a.nested')!r}", file=sys.stderr)
    print(f"numeric arrays: {len(arrs)} arrays, {checked} element texts compared, {bad} wrong")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
