#!/usr/bin/python3
"""check_quantize.py - gguffs' quantizers against the real ggml (tests/peer/ggml.py).

  check_quantize.py TEST_QUANTIZE [TYPE...]

For every type of TYPES (every type a llama-quantize recipe makes without an importance
matrix, as llama_model_quantize of libllama 0.4.0 decides; or the types named), rows of many kinds of data, at several row lengths, are quantized by
ggml_quantize_chunk (importance matrix NULL, the path llama-quantize takes without one) and
by gguffs (test_quantize --rows TYPE N, i.e. gg_quantize_rows) on every path this CPU has
that quantizes the type with a kernel of its own (test_quantize --paths; GGUFFS_SIMD):
  - the blocks must be equal byte for byte, row kind by row kind (one check per type, kind
    and path, over every row length);
  - gguffs' decoder reading its own blocks (test_quantize --rows TYPE N f32) must give
    ggml's to_float of ggml's blocks, bit for bit (one check per type, at one row length).
The kinds: normal values, outliers, heavy tails, zero rows and zero blocks among others,
tiny, subnormal, huge and float16-overflowing magnitudes, constant rows, sparse rows, ties
of the legacy types' rounding, and NaN and infinities sprinkled in (ggml's answer to those
is whatever its C does; ours must be the same).

ggml has no answer for IQ3_S on NaN, infinities and values whose square overflows: its
neighbour search finds no distance below FLT_MAX and it aborts the process
(GGML_ASSERT in iq3_find_best_neighbour, or scale >= 0 failing on a NaN). Those kinds
(ABORTS) are checked to abort ggml still, in a child process, and gguffs must quantize
them without failing (its answer: the first neighbour, quantize_iquants.c).

Prints "N passed, N failed".
"""
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peer"))
import ggml  # noqa: E402
import checks  # noqa: E402
from checks import check  # noqa: E402

SEED = 0x0A4C36

# every type a llama-quantize recipe makes without an importance matrix (the recipes whose
# llama_model_quantize succeeds without one: all but IQ1_*, IQ2_*, IQ3_XS, IQ3_XXS, Q2_K_S)
TYPES = ["q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q1_0", "q2_0", "q2_K", "q3_K", "q4_K",
         "q5_K", "q6_K", "iq4_nl", "iq4_xs", "tq1_0", "tq2_0", "mxfp4", "iq3_s"]


def kind_rows(kind, rows, n, rng, bs):
    """rows x n float32 values of one kind."""
    x = rng.standard_normal((rows, n)).astype(np.float32)
    f = np.float32
    if kind == "normal":
        pass
    elif kind == "outliers":  # a few values 50-1000 times the rest
        m = rng.random((rows, n)) < 0.01
        x[m] *= f(50) + f(950) * rng.random(m.sum()).astype(np.float32)
    elif kind == "cauchy":
        x = rng.standard_cauchy((rows, n)).astype(np.float32)
    elif kind == "zero":
        x[:] = 0
    elif kind == "zero_blocks":  # whole blocks of zeros (and of -0) among normal ones
        b = x.reshape(rows, -1, bs)
        b[:, ::3] = 0
        b[:, 1::5] = f(-0.0)
    elif kind == "tiny":
        x *= f(1e-6)
    elif kind == "tinier":  # sums and scales near the float range's bottom
        x *= f(1e-19) * np.exp2(rng.integers(-60, 0, (rows, 1))).astype(np.float32)
    elif kind == "subnormal":
        x *= f(1e-40)
    elif kind == "huge":
        x *= f(1e30)
    elif kind == "max":  # near FLT_MAX: sums overflow
        x = np.clip(x, -2, 2) * f(1.5e38)
    elif kind == "f16_edge":  # scales past float16's range
        x *= f(3e4) * np.exp2(rng.integers(0, 8, (rows, 1))).astype(np.float32)
    elif kind == "constant":
        x[:] = rng.standard_normal((rows, 1)).astype(np.float32)
    elif kind == "sparse":
        x *= rng.random((rows, n)) < 0.05
    elif kind == "positive":
        x = np.abs(x) + f(0.5)
    elif kind == "ties":  # integers and halves: the rounding ties of the scales
        x = np.round(x * 4) / f(2)
    elif kind == "grid":  # few distinct values, many equal magnitudes
        x = rng.integers(-8, 8, (rows, n)).astype(np.float32) * f(0.25)
    elif kind == "one_value":  # a block of one non-zero value, the rest zero
        x[:] = 0
        b = x.reshape(rows, -1, bs)
        b[:, :, 5] = rng.standard_normal(b.shape[:2]).astype(np.float32)
    elif kind == "nan":
        x[rng.random((rows, n)) < 0.02] = np.nan
    elif kind == "nan_edges":  # NaN first or last in a block
        b = x.reshape(rows, -1, bs)
        b[:, ::2, 0] = np.nan
        b[:, 1::3, -1] = np.nan
    elif kind == "all_nan":
        x[:] = np.nan
    elif kind == "inf":
        m = rng.random((rows, n)) < 0.02
        x[m] = np.where(rng.random(m.sum()) < 0.5, np.inf, -np.inf).astype(np.float32)
    elif kind == "nan_inf":
        m = rng.random((rows, n))
        x[m < 0.01] = np.nan
        x[(m >= 0.01) & (m < 0.02)] = np.inf
        x[(m >= 0.02) & (m < 0.03)] = -np.inf
    else:
        raise KeyError(kind)
    return np.ascontiguousarray(x, dtype=np.float32)


# kinds on which ggml aborts, per type (see above)
ABORTS = {"iq3_s": ["huge", "max", "nan", "nan_edges", "all_nan", "inf", "nan_inf"]}

KINDS = ["normal", "outliers", "cauchy", "zero", "zero_blocks", "tiny", "tinier", "subnormal",
         "huge", "max", "f16_edge", "constant", "sparse", "positive", "ties", "grid", "one_value",
         "nan", "nan_edges", "all_nan", "inf", "nan_inf"]


def row_lengths(bs):
    return sorted({bs, 3 * bs, max(4096, bs), 8 * bs if bs < 256 else 2 * bs})


def run(test_quantize, t, n, x, f32=False, isa=None):
    args = [test_quantize, "--rows", t, str(n)] + (["f32"] if f32 else [])
    env = dict(os.environ, GGUFFS_SIMD=isa) if isa else None
    r = subprocess.run(args, input=x.tobytes(), capture_output=True, env=env)
    return r.returncode, r.stdout, r.stderr.decode().strip()


def ggml_aborts(g, t, x):
    """Whether ggml_quantize_chunk(t, x) aborts, tried in a child process."""
    os.environ["GGML_NO_BACKTRACE"] = "1"  # (else ggml runs gdb on itself first)
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        with np.errstate(all="ignore"):
            g.quantize(t, x)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return os.WIFSIGNALED(status) and os.WTERMSIG(status) == 6


def check_type(g, test_quantize, t):
    bs, size = g.blck_size(t), g.type_size(t)
    code, _, err = run(test_quantize, t, bs, np.zeros(bs, np.float32))
    if not check(code == 0, "%s: test_quantize --rows: %s" % (t, err)):
        return False
    isas = subprocess.run([test_quantize, "--paths", t], capture_output=True, text=True).stdout.split()
    rng = np.random.default_rng([SEED, ggml.type_id(t)])
    bad_kinds = {}  # (kind, isa) -> what
    values = 0
    dec_bad = dec_n = 0
    dec_first = ""
    kinds = [k for k in KINDS if k not in ABORTS.get(t, [])]
    for n in row_lengths(bs):
        nrows = max(2, 8192 // n)
        parts = [kind_rows(k, nrows, n, rng, bs) for k in kinds]
        x = np.concatenate(parts)
        values += x.size
        with np.errstate(all="ignore"):
            want = np.frombuffer(g.quantize(t, x), np.uint8).reshape(len(x), -1)
        for isa in isas:
            code, out, err = run(test_quantize, t, n, x, isa=isa)
            ok = code == 0 and len(out) == want.size
            check(ok, "%s rows of %d on %s: test_quantize gave %d bytes of %d: %s" % (
                t, n, isa, len(out), want.size, err))
            if not ok:
                continue
            got = np.frombuffer(out, np.uint8).reshape(len(x), -1)
            for i, k in enumerate(kinds):
                w = want[i * nrows:(i + 1) * nrows].reshape(-1, size)
                o = got[i * nrows:(i + 1) * nrows].reshape(-1, size)
                diff = np.nonzero((w != o).any(1))[0]
                if len(diff) and (k, isa) not in bad_kinds:
                    b = diff[0]
                    xb = x[i * nrows:(i + 1) * nrows].reshape(-1, bs)[b]
                    bad_kinds[k, isa] = "%d of %d blocks differ (rows of %d); first block %d: ours %s, ggml %s; " \
                        "x[:8] %s" % (len(diff), len(w), n, b, o[b][:12].tobytes().hex(),
                                      w[b][:12].tobytes().hex(), xb[:8])
        # gguffs' decoder on its own blocks = ggml's to_float of ggml's blocks (one row
        # length is enough: decoding does not see rows)
        if n != row_lengths(bs)[0]:
            continue
        code, out, err = run(test_quantize, t, n, x, f32=True)
        ref = g.dequantize(t, want.tobytes(), x.size).view("<u4")
        dec = np.frombuffer(out, "<u4") if code == 0 else np.zeros(0, "<u4")
        dec_n += x.size
        if dec.size != ref.size:
            dec_bad += x.size
            dec_first = dec_first or "test_quantize f32: %s" % err
            continue
        bad = np.nonzero(dec != ref)[0]
        dec_bad += len(bad)
        if len(bad) and not dec_first:
            dec_first = "first at %d (rows of %d): 0x%08x, ggml 0x%08x" % (bad[0], n, dec[bad[0]], ref[bad[0]])
    for k in ABORTS.get(t, []):  # (after ggml's tables are made: the children inherit them)
        x = kind_rows(k, 8, 4 * bs, rng, bs)
        code, out, err = run(test_quantize, t, 4 * bs, x)
        check(ggml_aborts(g, t, x) and code == 0 and len(out) == 8 * 4 * size,
              "%s, %s: ggml aborts and gguffs quantizes (%d bytes, %s)" % (t, k, len(out), err))
    for k in kinds:
        for isa in isas:
            check((k, isa) not in bad_kinds, "%s, %s, on %s: %s" % (t, k, isa, bad_kinds.get((k, isa))))
    check(dec_bad == 0, "%s: gguffs' f32 of its blocks: %d of %d values differ from ggml's to_float%s" % (
        t, dec_bad, dec_n, "; " + dec_first if dec_first else ""))
    print("%-7s %8d values in rows of %s: %d kinds, %d of %d equal ggml on %s" % (
        t, values, "/".join(str(n) for n in row_lengths(bs)), len(kinds),
        len(kinds) * len(isas) - len(bad_kinds), len(kinds) * len(isas), "/".join(isas)))
    return True


def main(argv):
    test_quantize = argv[0]
    types = argv[1:] or TYPES
    g = ggml.Ggml()
    print("ggml", *g.version())
    t0 = time.time()
    done = [t for t in types if check_type(g, test_quantize, t)]
    print("quantizers checked: %s (%.1f s)" % (" ".join(done), time.time() - t0))
    print("check_quantize.py: %d passed, %d failed" % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
