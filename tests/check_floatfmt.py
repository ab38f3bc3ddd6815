#!/usr/bin/python3
"""Float text against Python, value by value (tests/check.d/12_floatfmt.sh).

    check_floatfmt.py FMT_FLOATS [--seed N] [--random N]

FMT_FLOATS is build/tests/fmt_floats (our gg_fmt_f32/gg_fmt_f64 over raw bit
patterns). Sets, each for f32 and f64: every power of two (2^-149..2^127,
2^-1074..2^1023), boundary values (zeros, subnormal ends, least normal, max,
inf, nan, values around every power of ten and around powers of two, exact
ties), and N random bit patterns (seed printed; --seed repeats a run).

References:
  f64  Python's repr(float), text for text.
  f32  numpy's shortest digits (format_float_scientific(np.float32(x),
       unique=True)) laid out by Python's rules (py_layout below); and, for the
       powers of two, the boundary set, a random sample and any disagreement
       with numpy, an exact check in integer arithmetic: the text reads back
       to the same float (round to nearest even), no shorter decimal does,
       and no decimal of the same length is closer (an exact tie goes to the
       even digit). The exact check also runs on the f64 sets it covers, so
       it is itself checked against repr.
Prints one line per set and exits non-zero on any mismatch.
"""
import argparse
import random
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np

FORMATS = {
    # name: (numpy float, numpy uint, significand bits P, least exponent q)
    "f32": (np.float32, np.uint32, 24, -149),
    "f64": (np.float64, np.uint64, 53, -1074),
}


def py_layout(neg, digits, exp):
    """Python's repr layout of (-)0.d1d2...dn * 10^(exp+1), digits a str."""
    sign = "-" if neg else ""
    n = len(digits)
    if exp < -4 or exp >= 16:
        mant = digits[0] + ("." + digits[1:] if n > 1 else "")
        return f"{sign}{mant}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    if n <= exp + 1:
        return f"{sign}{digits}{'0' * (exp + 1 - n)}.0"
    return f"{sign}{digits[:exp + 1]}.{digits[exp + 1:]}"


def numpy_f32_text(x):
    """Reference text of one f32 (np.float32) from numpy's shortest digits."""
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "-inf" if x < 0 else "inf"
    s = np.format_float_scientific(x, unique=True)
    neg = s.startswith("-")
    mant, exp = s.lstrip("-").split("e")
    digits = mant.replace(".", "").rstrip("0") or "0"
    if digits == "0":
        return "-0.0" if neg else "0.0"
    return py_layout(neg, digits, int(exp))


def run_ours(fmt_floats, name, bits):
    dtype = FORMATS[name][1]
    data = np.asarray(bits, dtype=dtype).tobytes()
    r = subprocess.run([fmt_floats, name], input=data, capture_output=True, check=True)
    lines = r.stdout.decode().split("\n")
    assert lines[-1] == "" and len(lines) == len(bits) + 1, "fmt_floats gave a wrong line count"
    return lines[:-1]


def decode(name, b):
    """(neg, c, q, narrow, special) of bit pattern b: |v| = c * 2^q; narrow:
    the gap below v is half the gap above (v a power of two, not the least
    normal); special: "inf" or "nan" (then c, q mean nothing)."""
    p, q_min = FORMATS[name][2], FORMATS[name][3]
    width = 32 if name == "f32" else 64
    emax = (1 << (width - p)) - 1
    neg = b >> (width - 1)
    t = b & ((1 << (p - 1)) - 1)
    bq = (b >> (p - 1)) & emax
    if bq == emax:
        return neg, 0, 0, False, "nan" if t else "inf"
    if bq == 0:
        return neg, t, q_min, False, None
    return neg, t | 1 << (p - 1), q_min + bq - 1, t == 0 and bq > 1, None


def floor_log10(x):
    """floor(log10(x)) for a positive Fraction, exactly."""
    k = len(str(x.numerator)) - len(str(x.denominator))
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


def exact_problem(name, b, text):
    """None if text is the right text of bit pattern b, else why not."""
    neg, c, q, narrow, special = decode(name, b)
    if special:
        want = "-inf" if special == "inf" and neg else special
        return None if text == want else f"want {want}"
    if c == 0:
        want = "-0.0" if neg else "0.0"
        return None if text == want else f"want {want}"
    if text.startswith("-") != bool(neg):
        return "wrong sign"
    try:
        t = Decimal(text.lstrip("-")).as_tuple()
    except Exception:
        return "not a number"
    d = int("".join(map(str, t.digits)))
    k = t.exponent
    while d % 10 == 0:
        d //= 10
        k += 1
    ds = str(d)
    if py_layout(neg, ds, k + len(ds) - 1) != text:
        return "not Python's layout for its digits"
    v = Fraction(c) * Fraction(2) ** q
    lo = (Fraction(c) - (Fraction(1, 4) if narrow else Fraction(1, 2))) * Fraction(2) ** q
    hi = (Fraction(c) + Fraction(1, 2)) * Fraction(2) ** q
    closed = c % 2 == 0

    def inside(x):
        return lo <= x <= hi if closed else lo < x < hi

    ours = Fraction(d) * Fraction(10) ** k
    if not inside(ours):
        return "does not read back to the same value"
    pv = floor_log10(v)
    n = len(ds)
    for m in range(1, n + 1):  # the candidates of m digits nearest v
        r = Fraction(10) ** (pv - m + 1)
        fl = (v // r) * r
        ce = fl + r
        if m < n:
            if inside(fl) or inside(ce):
                return f"a {m}-digit decimal reads back too"
            continue
        if ours not in (fl, ce):
            return "not one of the two nearest decimals of its length"
        other = ce if ours == fl else fl
        if inside(other):
            dv, do = abs(ours - v), abs(other - v)
            if do < dv or (do == dv and ((ours / r) % 2 == 1)):
                return "a decimal of the same length is closer (or the tie's even one)"
    return None


def boundary_bits(name):
    """Bit patterns at the edges: zeros, subnormals, normals, extremes,
    neighbours of powers of ten and of powers of two, halfway ties."""
    ft, ut, p, _ = FORMATS[name]
    width = 32 if name == "f32" else 64
    sign = 1 << (width - 1)
    top = (1 << width) - 1
    exp_all = ((1 << (width - p)) - 1) << (p - 1)
    out = [0, 1, 2, 3, 9, 10, (1 << (p - 1)) - 1, 1 << (p - 1), (1 << (p - 1)) + 1,
           exp_all - 1, exp_all, exp_all | 1, exp_all | (1 << (p - 2))]
    # Around every power of ten the format reaches.
    lo, hi = (-46, 39) if name == "f32" else (-324, 309)
    for e in range(lo, hi):
        x = ft(float(f"1e{e}"))
        if not np.isfinite(x) or x == 0:
            continue
        b = int(np.array(x, dtype=ft).view(ut))
        out += [b + i for i in range(-2, 3)]
    # Neighbours of powers of two (the narrow gap and the step after it).
    for bq in range(1, (1 << (width - p)) - 1):
        b = bq << (p - 1)
        out += [b - 1, b + 1]
    # Exact halfway ties: v = integer + 0.25 or 0.75 where the ulp is 1/4 etc.
    for i in range(1, 2000):
        x = ft(2.0 ** (p - 3) + i * 0.25)
        out.append(int(np.array(x, dtype=ft).view(ut)))
    out = [b & top for b in out]
    return sorted(set(out + [b | sign for b in out]))


def check_set(fmt_floats, name, label, bits, exact="all"):
    """Our text of each pattern against the reference; exact: 'all' or an
    int sample size for the exact check (disagreements are always checked)."""
    ft, ut = FORMATS[name][:2]
    vals = np.asarray(bits, dtype=ut).view(ft)
    ours = run_ours(fmt_floats, name, np.asarray(bits, dtype=ut))
    if name == "f64":
        ref = list(map(repr, vals.tolist()))
    else:
        ref = [numpy_f32_text(x) for x in vals]
    bad = []
    numpy_wrong = 0
    if exact == "all":
        sample = range(len(bits))
    else:
        sample = random.Random(0).sample(range(len(bits)), min(exact, len(bits)))
    exact_idx = set(sample) | {i for i in range(len(bits)) if ours[i] != ref[i]}
    for i in sorted(exact_idx):
        why = exact_problem(name, int(bits[i]), ours[i])
        if why:
            bad.append(f"{name} bits 0x{int(bits[i]):0{len(ut(0).tobytes()) * 2}x}: ours {ours[i]!r}, "
                       f"reference {ref[i]!r}: {why}")
        elif ours[i] != ref[i]:
            if name == "f64":  # repr is the definition for f64
                bad.append(f"f64 bits 0x{int(bits[i]):016x}: ours {ours[i]!r} != repr {ref[i]!r}")
            else:
                numpy_wrong += 1
                print(f"  note: numpy gives {ref[i]!r} for f32 0x{int(bits[i]):08x}; "
                      f"ours {ours[i]!r} passes the exact check", file=sys.stderr)
    ref_name = "repr" if name == "f64" else "numpy"
    print(f"{label}: {len(bits)} values, {len(bits) - sum(o != r for o, r in zip(ours, ref))} equal to "
          f"{ref_name}, {len(exact_idx)} checked exactly, {len(bad)} wrong"
          + (f", {numpy_wrong} where numpy is not shortest/closest" if numpy_wrong else ""))
    for line in bad[:20]:
        print("  FAIL " + line, file=sys.stderr)
    return len(bad) == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fmt_floats")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--random", type=int, default=1_000_000)
    ap.add_argument("--exact-sample", type=int, default=5000)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(2**32)
    print(f"seed {seed} (repeat with --seed {seed})")
    rng = np.random.default_rng(seed)
    ok = True
    for name in ("f32", "f64"):
        ft, ut, p, q_min = FORMATS[name]
        width = 32 if name == "f32" else 64
        qmax = (1 << (width - p)) - 2 - ((1 << (width - p - 1)) - 1)
        pows = [int(np.array(2.0 ** e, dtype=ft).view(ut)) for e in range(q_min, qmax + 1)]
        ok &= check_set(a.fmt_floats, name, f"{name} powers of two", pows)
        ok &= check_set(a.fmt_floats, name, f"{name} boundaries", boundary_bits(name))
        rnd = rng.integers(0, 1 << width, a.random, dtype=np.uint64, endpoint=False).astype(ut)
        ok &= check_set(a.fmt_floats, name, f"{name} random bits", rnd, exact=a.exact_sample)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
