"""gen.py OUTDIR - the malformed-input suite: hostile and odd GGUF files and
the outcome each must have.

Writes OUTDIR/files/<case>.gguf and OUTDIR/expected.tsv. The table is
committed as tests/malformed/expected.tsv (tests/check.d/30_malformed.sh
fails when this script's table differs from it, so a changed expectation is
a reviewed change; copy the new table over after checking it); the files
are only generated (some are large). One line per file, tab-separated:

  file      the file name under files/
  exit      gguffs's exit status when mounting it (0: it mounts)
  outcome   refused | isolated (mounts, the bad part unreadable) | fine
  message   refused: a substring of the error message (the test also wants
            the file's path in it); mounted: "-"
  checks    mounted: ';'-separated checks of what is readable (below); "-" if none

checks (NAME is the escaped name as it appears in the tree; \\xNN escapes allowed):
  tensors=A,B,..    tensors/ lists exactly these, in this order
  keys=A,B,..       metadata/ lists exactly these
  raw:NAME=N        raw is N bytes and equals the file's bytes at info.json's offset
  f32:NAME=ok       f32 reads whole and equals the decoded raw bytes (F32/F16/BF16/Q8_0)
  f32:NAME=absent   no f32 (the tensor cannot be decoded: its folder has only
                    raw and info.json)
  stats:NAME=ok|absent
  info:NAME~TEXT    info.json's "error" (or "resolution") contains TEXT
  type:NAME=TYPE    info.json's type (null: unknown)
  meta:KEY~TEXT     metadata/KEY contains TEXT
  lines:KEY=N       metadata/KEY has N lines
  toolarge:PATH     PATH (under the mount) is not listed and gives ENOENT: its text
                    would pass 256 MiB (a hostile header's amplification)
Every mounted file also gets its whole tree read (every file listed reads
whole; a tensor folder lists f32, its views and stats exactly when info.json
says f32 is readable) and metadata.json / info.json parsed as JSON.
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import gguf_tool as g  # noqa: E402

U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
Q8_0, F16T, F32T = 8, 1, 0

CASES = []


def case(name, data, exit_code, outcome, message="-", checks="-"):
    CASES.append((name, bytes(data), exit_code, outcome, message, checks))


# ---- raw encoders, for what gguf_tool.build will not write ----

def cnt(n, v1=False):
    return struct.pack("<I" if v1 else "<Q", n)


def s(b, v1=False):
    b = b.encode() if isinstance(b, str) else b
    return cnt(len(b), v1) + b


def kv(key, t, payload, v1=False):
    return s(key, v1) + struct.pack("<I", t) + payload


def tinfo(name, dims, t, off, v1=False):
    return (s(name, v1) + struct.pack("<I", len(dims)) + b"".join(cnt(d, v1) for d in dims)
            + struct.pack("<IQ", t, off))


def head(n_t, n_kv, version=3):
    v1 = version == 1
    return b"GGUF" + struct.pack("<I", version) + cnt(n_t, v1) + cnt(n_kv, v1)


def pad(b, a=32):
    return b + b"\0" * (-len(b) % a)


def f32s(*v):
    return struct.pack("<%df" % len(v), *v)


def q8_0_block(d, qs):
    return struct.pack("<e", d) + bytes(q & 0xff for q in qs)


# ---- the valid base file, cut at every section boundary ----

F32_DATA = f32s(*[i * 0.5 - 3 for i in range(16)])
Q8_DATA = q8_0_block(0.25, range(-16, 16)) + q8_0_block(-2.0, range(31, -1, -1))
F16_DATA = struct.pack("<16e", *[1.0 / (i + 1) for i in range(16)])
BASE_KVS = [("general.architecture", STR, "llama"), ("general.name", STR, "base"),
            ("tokenizer.ggml.tokens", ARR, (STR, [b"<s>", b"a", b"b\nc"])),
            ("general.quantization_version", U32, 2)]
BASE_TENSORS = [("tok.weight", [8, 2], F32T, F32_DATA), ("blk.0.w", [32, 2], Q8_0, Q8_DATA),
                ("norm", [16], F16T, F16_DATA)]
BASE = g.build(kvs=BASE_KVS, tensors=BASE_TENSORS)
BH = g.read(BASE)
BASE_OK = ("tensors=tok.weight,blk.0.w,norm;raw:tok.weight=64;f32:tok.weight=ok;f32:blk.0.w=ok;"
           "f32:norm=ok;stats:blk.0.w=ok")


ONE_KV = g.build(kvs=[("general.architecture", STR, "llama")])
ONE_ARR = g.build(kvs=[("tokenizer.ggml.tokens", ARR, (STR, [b"<s>", b"a", b"b\nc"]))])


def cut(name, at, message, base=BASE):
    case(name, base[:at], 5, "refused", message)


def name_hash(b):
    """gguffs' name hash (include/gguffs/hash.h): 64-bit FNV-1a, then fmix64."""
    M = (1 << 64) - 1
    h = 1469598103934665603
    for c in b:
        h = ((h ^ c) * 1099511628211) & M
    for mul in (0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53):
        h ^= h >> 33
        h = (h * mul) & M
    return h ^ (h >> 33)


def build_cases():
    case("base", BASE, 0, "fine", checks=BASE_OK + ";meta:general.name~base;lines:tokenizer.ggml.tokens=3")
    t0 = BH.tensors[0]
    cut("trunc-empty", 0, "offset 0: not a GGUF file (magic missing")
    cut("trunc-magic", 2, "offset 0: not a GGUF file")
    cut("trunc-version", 6, "offset 4: version needs 4 bytes")
    cut("trunc-counts", 12, "offset 8: tensor count needs 8 bytes")
    cut("trunc-after-counts", BH.counts_end, "offset 16: key/value count 4 cannot fit in a 24-byte file")
    # Inside the first KV, with one KV only (so the count still fits).
    cut("trunc-after-counts-1kv", 24, "offset 16: key/value count 1 cannot fit in a 24-byte file", ONE_KV)
    cut("trunc-in-key-length", 24 + 13 - 8, "offset 16: key/value count 1 cannot fit", ONE_KV)
    cut("trunc-in-key", 24 + 13, "offset 24: key 0: length 20 runs past the end of the file (5 bytes left)",
        ONE_KV)
    cut("trunc-before-value-type", 24 + 8 + 20, "offset 52: key 0 \"general.architecture\" needs 4 bytes",
        ONE_KV)
    cut("trunc-before-value", 24 + 8 + 20 + 4,
        "offset 56: key 0 \"general.architecture\" needs 8 bytes", ONE_KV)
    cut("trunc-in-value", 24 + 8 + 20 + 4 + 8 + 2,
        "offset 56: key 0 \"general.architecture\": length 5 runs past the end", ONE_KV)
    cut("trunc-in-array-header", 24 + 8 + 21 + 4 + 6, "offset 61: key 0 \"tokenizer.ggml.tokens\" needs 8 bytes", ONE_ARR)
    cut("trunc-in-array", 98, "key 0 \"tokenizer.ggml.tokens\": length 3 runs past the end",
        ONE_ARR)
    cut("trunc-after-kvs", BH.kvs_end, "offset %d: tensor 0 name needs 8 bytes" % BH.kvs_end)
    cut("trunc-in-tensor-name", t0["info_offset"] + 10,
        "offset %d: tensor 0 name: length 10 runs past" % t0["info_offset"])
    cut("trunc-in-dims", t0["info_offset"] + 8 + 10 + 4 + 3, "tensor 0 \"tok.weight\" needs 8 bytes")
    cut("trunc-before-type", t0["type_field_offset"], "offset %d: tensor 0 \"tok.weight\" needs 4 bytes"
        % t0["type_field_offset"])
    cut("trunc-before-offset", t0["type_field_offset"] + 4,
        "offset %d: tensor 0 \"tok.weight\" needs 8 bytes" % (t0["type_field_offset"] + 4))
    cut("trunc-after-infos", BH.header_end, "data section would start at %d" % BH.data_offset)
    last = BH.tensors[-1]
    cut("trunc-in-last-tensor", BH.data_offset + last["offset"] + 10,
        "tensor 2 \"norm\": data [%d, %d) ends past end of file"
        % (BH.data_offset + last["offset"], BH.data_offset + last["offset"] + 32))
    cut("trunc-in-first-tensor", BH.data_offset + 40, "tensor 0 \"tok.weight\": data [%d, %d) ends past end"
        % (BH.data_offset, BH.data_offset + 64))

    # ---- huge counts and lengths ----
    case("huge-n-kv", head(0, 1 << 62) + kv("a", U8, b"\1"), 5, "refused",
         "offset 16: key/value count 4611686018427387904 cannot fit")
    case("huge-n-tensors", head(1 << 40, 0) + tinfo("t", [1], F32T, 0), 5, "refused",
         "offset 8: tensor count 1099511627776 cannot fit")
    case("huge-key-length", head(0, 1) + cnt(2 ** 64 - 1) + b"abc" + b"\0" * 16, 5, "refused",
         "offset 24: key 0: length 18446744073709551615 is over the 1 GiB limit")
    case("key-length-past-end", head(0, 1) + cnt(1000) + b"abc" + b"\0" * 16, 5, "refused",
         "offset 24: key 0: length 1000 runs past the end of the file")
    case("string-over-1gib", head(0, 1) + kv("k", STR, cnt((1 << 30) + 1) + b"x" * 8), 5, "refused",
         "key 0 \"k\": length 1073741825 is over the 1 GiB limit")
    case("huge-array-count", head(0, 1) + kv("k", ARR, struct.pack("<I", U8) + cnt(1 << 62) + b"\0" * 8),
         5, "refused", "offset 37: key 0 \"k\": array of 4611686018427387904 u8 elements cannot fit")
    case("huge-array-of-strings", head(0, 1) + kv("k", ARR, struct.pack("<I", STR) + cnt(10 ** 6) + s("x")),
         5, "refused", "array of 1000000 str elements cannot fit")
    case("huge-array-of-arrays", head(0, 1) + kv("k", ARR, struct.pack("<I", ARR) + cnt(10 ** 6) +
                                                  struct.pack("<I", U8) + cnt(0)),
         5, "refused", "array of 1000000 arr elements cannot fit")
    case("string-element-past-end", head(0, 1) + kv("k", ARR, struct.pack("<I", STR) + cnt(2) + s("ab") +
                                                     cnt(99) + b"cd"),
         5, "refused", "key 0 \"k\": length 99 runs past the end")

    # ---- bad value types ----
    case("bad-value-type", head(0, 1) + kv("k", 13, b"\0" * 8), 5, "refused",
         "offset 33: key 0 \"k\": unknown value type 13")
    case("bad-array-element-type", head(0, 1) + kv("k", ARR, struct.pack("<I", 99) + cnt(1) + b"\0" * 8),
         5, "refused", "offset 37: key 0 \"k\": unknown array element type 99")
    case("bad-nested-element-type", head(0, 1) + kv("k", ARR, struct.pack("<I", ARR) + cnt(1) +
                                                     struct.pack("<I", 1000) + cnt(0)),
         5, "refused", "unknown array element type 1000")
    case("bad-bool", head(0, 1) + kv("k", BOOL, b"\2"), 5, "refused",
         "offset 37: key 0 \"k\": bool value 2 is neither 0 nor 1")
    case("bad-bool-in-array", head(0, 1) + kv("k", ARR, struct.pack("<I", BOOL) + cnt(3) + b"\1\0\7"),
         5, "refused", "bool value 7 is neither 0 nor 1")

    # ---- alignment ----
    def with_align(t, payload, tensors=True):
        body = kv("general.alignment", t, payload)
        ti = tinfo("t", [8], F32T, 0) if tensors else b""
        return pad(head(1 if tensors else 0, 1) + body + ti) + (f32s(*range(8)) if tensors else b"")
    case("alignment-zero", with_align(U32, struct.pack("<I", 0)), 5, "refused",
         "offset 24: general.alignment 0 is not a power of two")
    case("alignment-not-power-of-two", with_align(U32, struct.pack("<I", 48)), 5, "refused",
         "general.alignment 48 is not a power of two")
    case("alignment-wrong-type-u64", with_align(U64, struct.pack("<Q", 32)), 5, "refused",
         "general.alignment has type u64 (must be u32)")
    case("alignment-wrong-type-str", with_align(STR, s("32")), 5, "refused",
         "general.alignment has type str (must be u32)")
    case("alignment-one", g.build(kvs=[("general.alignment", U32, 1)], alignment=1,
                                  tensors=[("a", [3], F32T, f32s(1, 2, 3)), ("b", [5], F16T, F16_DATA[:10])]),
         0, "fine", checks="f32:a=ok;f32:b=ok;raw:b=10")
    case("alignment-huge-no-tensors", head(0, 1) + kv("general.alignment", U32, struct.pack("<I", 1 << 31)),
         0, "fine", checks="meta:general.alignment~2147483648;tensors=")
    case("alignment-huge-with-tensor", with_align(U32, struct.pack("<I", 1 << 31)), 5, "refused",
         "data section would start at 2147483648")
    mis = g.build(tensors=[("a", [8], F32T, f32s(*range(8)), 0), ("b", [4], F32T, f32s(1, 2, 3, 4), 48)])
    case("tensor-offset-misaligned", mis, 5, "refused",
         "tensor 1 \"b\": data offset 48 is not a multiple of the alignment 32")

    # ---- tensor placement ----
    over = g.build(tensors=[("first", [32, 2], Q8_0, Q8_DATA, 0), ("second", [8], F32T, F32_DATA[:32], 32)])
    case("tensors-overlap", over, 0, "isolated", checks=(
        "type:first=null;raw:first=32;f32:first=absent;stats:first=absent;info:first~Q8_0 rejected: needs 68 bytes;"
        "f32:second=ok;raw:second=32"))
    same = g.build(tensors=[("x", [8, 2], F32T, F32_DATA, 0), ("y", [16], F32T, F32_DATA, 0)])
    case("tensors-same-offset", same, 0, "fine", checks="f32:x=ok;f32:y=ok;raw:x=64;raw:y=64")
    far = pad(head(1, 0) + tinfo("far", [8], F32T, 1 << 40)) + F32_DATA
    case("tensor-out-of-file", far, 5, "refused",
         "tensor-out-of-file.gguf: tensor 0 \"far\": data offset 1099511627776 is past the end of the file")
    wrap = pad(head(2, 0) + tinfo("a", [8], F32T, 0) + tinfo("b", [8], F32T, 2 ** 64 - 32)) + F32_DATA
    case("tensor-offset-wraps", wrap, 5, "refused",
         "tensor 1 \"b\": data offset 18446744073709551584 is past the end of the file")
    short = pad(head(1, 0) + tinfo("short", [64], F32T, 0)) + F32_DATA
    case("tensor-data-past-eof", short, 5, "refused", "tensor 0 \"short\": data [64, 320) ends past end of file")

    # ---- duplicates ----
    case("duplicate-key", g.build(kvs=[("a", U8, 1), ("b", U8, 2), ("a", STR, "x")]), 5, "refused",
         "key 2 \"a\" duplicates key 0")
    case("duplicate-tensor-name", g.build(tensors=[("w", [8], F32T, F32_DATA[:32]), ("v", [8], F32T, F32_DATA[:32]),
                                                   ("w", [8], F32T, F32_DATA[32:])]),
         5, "refused", "tensor 2 \"w\" has the same name as tensor 0")

    # ---- nesting ----
    def nested(depth, leaf=(I32, [1, 2, 3])):
        v = leaf
        for _ in range(depth - 1):
            v = (ARR, [v])
        return v
    case("nesting-8", g.build(kvs=[("deep", ARR, nested(8))]), 0, "fine",
         checks="lines:deep=1;meta:deep~[[[[[[[1, 2, 3]]]]]]]")
    case("nesting-9", g.build(kvs=[("deep", ARR, nested(9))]), 5, "refused",
         "key 0 \"deep\": arrays nested deeper than 8 levels")
    case("nesting-200", g.build(kvs=[("deep", ARR, nested(200))]), 5, "refused",
         "arrays nested deeper than 8 levels")
    case("huge-nested-array", g.build(kvs=[("big", ARR, (ARR, [(U16, [i, i + 1, i + 2]) for i in range(30000)]))]),
         0, "fine", checks="lines:big=30000;meta:big~[29999, 30000, 30001]")
    # (48 Mi bools: 288 MiB as metadata/bools, 336 MiB in metadata.json)
    case("huge-bool-array", head(0, 2) + kv("small", U8, b"\7") +
         kv("bools", ARR, struct.pack("<I", BOOL) + cnt(48 << 20) + bytes(48 << 20)), 0, "isolated",
         checks="toolarge:metadata/bools;toolarge:metadata.json;meta:small~7")
    case("huge-string-array", g.build(kvs=[("words", ARR, (STR, [b"w%d" % i for i in range(100000)]))]),
         0, "fine", checks="lines:words=100000;meta:words~w99999")

    # ---- names and strings ----
    names = [b".", b"..", b"", b"a/b", b"100%", b"nul\0x", b"\xff\xfe", b"%2F", b"x" * 300]
    odd = g.build(kvs=[(b"", STR, b"empty key"), (b".", U8, 1), (b"a/b", STR, b"\xff\xfe\x00bad"),
                       (b"k\xc3", STR, b"\xed\xa0\x80")],
                  tensors=[(n, [8], F32T, F32_DATA[:32]) for n in names])
    long_escaped = "x" * 237 + "%%~%016x" % name_hash(b"x" * 300)
    case("odd-names", odd, 0, "fine", checks=(
        "tensors=%2E,%2E%2E,%,a%2Fb,100%25,nul%00x,\\xff\\xfe,%252F," + long_escaped + ";"
        "keys=%,%2E,a%2Fb,k\\xc3;f32:%2E=ok;f32:%2E%2E=ok;f32:%=ok;f32:a%2Fb=ok;f32:nul%00x=ok;raw:100%25=32;"
        "f32:\\xff\\xfe=ok;meta:%~empty key;meta:a%2Fb~\\xff\\xfe\\x00bad"))
    case("non-utf8-strings", g.build(kvs=[("s", STR, b"\x80\xbf\xc0\xaf"), ("arr", ARR, (STR, [b"\xff", b"ok"])),
                                          (b"\xfe\xff", U32, 5)]),
         0, "fine", checks="meta:s~\\x80\\xbf\\xc0\\xaf;lines:arr=2;meta:\\xfe\\xff~5")

    # ---- shapes ----
    case("zero-dims", g.build(tensors=[("scalar", [], F32T, f32s(7.5))]), 0, "fine",
         checks="f32:scalar=ok;raw:scalar=4")
    case("zero-elements", g.build(tensors=[("empty", [0, 4], F32T, b""), ("after", [8], F32T, F32_DATA[:32])]),
         0, "fine", checks="f32:empty=ok;raw:empty=0;stats:empty=ok;f32:after=ok")
    case("zero-elements-interleaved", g.build(tensors=[("r8", [0, 8], 202, b""), ("r4", [32, 0], 220, b""),
                                                       ("after", [8], F32T, F32_DATA[:32])]),
         0, "fine", checks="f32:r8=ok;stats:r8=ok;f32:r4=ok;stats:r4=ok;f32:after=ok")
    case("zero-rows-meta", g.build(tensors=[("bn", [0, 3], 134, b"\0" * 6), ("after", [8], F32T, F32_DATA[:32])]),
         0, "fine", checks="f32:bn=ok;stats:bn=ok;raw:bn=6;f32:after=ok")
    case("five-dims", pad(head(1, 0) + tinfo("t", [1, 1, 1, 1, 1], F32T, 0)) + f32s(1), 5, "refused",
         "tensor 0 \"t\": 5 dimensions (ggml allows at most 4)")
    case("many-dims", pad(head(1, 0) + struct.pack("<Q", 1) + b"t" + struct.pack("<I", 0xffffffff)), 5,
         "refused", "4294967295 dimensions")
    case("element-count-overflow", pad(head(1, 0) + tinfo("t", [1 << 32, 1 << 32], F32T, 0)) + f32s(1), 5,
         "refused", "tensor 0 \"t\": element count overflows")
    case("f32-size-overflow", pad(head(1, 0) + tinfo("t", [1 << 31, 1 << 30], 9999, 0)) + f32s(1), 5,
         "refused", "tensor 0 \"t\": element count overflows")
    case("row-count-overflow", pad(head(1, 0) + tinfo("t", [0, 1 << 62, 4], F32T, 0)) + f32s(1), 5, "refused",
         "offset 53: tensor 0 \"t\": row count overflows 63 bits")
    case("negative-dim", pad(head(1, 0) + tinfo("t", [2 ** 64 - 8], F32T, 0)) + f32s(1), 5, "refused",
         "dimension 0 is negative (-8)")
    case("bytes-overflow", g.build(tensors=[("t", [0, 2 ** 63 - 1], 135, f32s(1))]), 0, "isolated",
         checks="type:t=null;raw:t=32;info:t~IQ2_BN rejected: byte size overflows")
    case("meta-rows-past-eof", g.build(tensors=[("t", [0, 1 << 62], 134, f32s(1))]), 5, "refused",
         "tensor 0 \"t\": data [96, 9223372036854775904) ends past end of file (128)")
    case("bytes-too-many", g.build(tensors=[("t", [1 << 40, 1 << 20], F32T, f32s(1)), ("ok", [1], F32T, f32s(2))]),
         0, "isolated", checks="type:t=null;raw:t=32;f32:t=absent;info:t~F32 rejected: needs;f32:ok=ok")

    # ---- versions and byte order ----
    case("big-endian", b"GGUF" + struct.pack(">I", 3) + struct.pack(">QQ", 0, 0), 5, "refused",
         "GGUF version 3 written big-endian")
    case("magic-byte-swapped", b"FUGG" + struct.pack(">I", 3) + b"\0" * 16, 5, "refused",
         "byte-swapped (big-endian) GGUF file")
    case("version-future", head(0, 0, version=4), 5, "refused", "offset 4: GGUF version 4 is not supported")
    case("version-zero", head(0, 0, version=0), 5, "refused", "GGUF version 0 is not supported")
    case("version-1", g.build(version=1, kvs=[("general.name", STR, "old"), ("list", ARR, (U16, [1, 2]))],
                              tensors=[("w", [8, 2], F32T, F32_DATA), ("q", [32, 2], Q8_0, Q8_DATA)]),
         0, "fine", checks="meta:general.name~old;lines:list=2;f32:w=ok;f32:q=ok")
    case("version-1-truncated", g.build(version=1, kvs=[("general.name", STR, "old")])[:41], 5, "refused",
         "key 0 \"general.name\": length 3 runs past")
    case("not-gguf", b"#!/bin/sh\necho this is not a model\n", 5, "refused", "not a GGUF file (magic is not")

    # ---- types ----
    ut = g.build(tensors=[("unk", [8], 9999, F32_DATA[:32]), ("ok", [8, 2], F32T, F32_DATA)])
    case("unknown-type-id", ut, 0, "isolated", checks=(
        "type:unk=null;raw:unk=32;f32:unk=absent;stats:unk=absent;info:unk~unsupported type 9999;f32:ok=ok"))
    nd = g.build(tensors=[("act", [32, 2], 97, Q8_DATA), ("ok", [16], F16T, F16_DATA)])
    case("type-without-decoder", nd, 0, "isolated", checks=(
        "type:act=Q8_0_X4;raw:act=68;f32:act=absent;info:act~no decoder for Q8_0_X4;f32:ok=ok"))
    bad_row = g.build(tensors=[("odd", [33], Q8_0, Q8_DATA[:34]), ("ok", [8], F32T, F32_DATA[:32])])
    case("row-not-whole-blocks", bad_row, 0, "isolated", checks=(
        "type:odd=null;raw:odd=64;f32:odd=absent;info:odd~row length is not a multiple of the block size;f32:ok=ok"))
    case("interleaved-rows-not-multiple", g.build(tensors=[("r8", [32, 3], 202, bytes(54)),
                                                           ("ok", [8], F32T, F32_DATA[:32])]),
         0, "isolated", checks="type:r8=null;f32:r8=absent;info:r8~row count is not a multiple;f32:ok=ok")

    # ---- split models ----
    sp = g.build(kvs=[("split.no", U16, 0), ("split.count", U16, 2)], tensors=[("a", [8], F32T, F32_DATA[:32])])
    case("split-bad-name", sp, 5, "refused", "split.count is 2 but the file name does not end in -NNNNN-of-00002.gguf")
    CASES.append(("split-missing-00001-of-00002", sp, 3, "refused", "missing shard 2 of 2", "-"))
    spn = g.build(kvs=[("split.no", U16, 5), ("split.count", U16, 2)], tensors=[("a", [8], F32T, F32_DATA[:32])])
    CASES.append(("split-bad-no-00001-of-00002", spn, 5, "refused", "split.no is missing or not in 0..1", "-"))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen.py OUTDIR")
    out = sys.argv[1]
    files = os.path.join(out, "files")
    os.makedirs(files, exist_ok=True)
    build_cases()
    seen = set()
    rows = ["file\texit\toutcome\tmessage\tchecks"]
    for name, data, code, outcome, msg, checks in CASES:
        assert name not in seen, name
        seen.add(name)
        assert outcome in ("refused", "isolated", "fine") and (code == 0) == (outcome != "refused"), name
        fn = name + ".gguf"
        with open(os.path.join(files, fn), "wb") as f:
            f.write(data)
        rows.append("\t".join([fn, str(code), outcome, msg, checks]))
    for old in os.listdir(files):
        if old[:-5] not in seen:
            os.remove(os.path.join(files, old))
    with open(os.path.join(out, "expected.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("%d files in %s" % (len(CASES), files))


if __name__ == "__main__":
    main()
