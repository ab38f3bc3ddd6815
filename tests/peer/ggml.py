"""ggml.py - the real ggml (libggml-base.so from npm @node-llama-cpp/linux-x64) through ctypes.

An oracle for tests: quantize f32 rows with ggml_quantize_chunk, dequantize with the
type traits' to_float, and parse a GGUF with ggml's own gguf_init_from_file. Layouts
below are from ggml/include/ggml.h and gguf.h of the llama.cpp source that
node-llama-cpp 3.21.1 ships (llama/gitRelease.bundle; ggml_version() 0.23.0,
ggml_commit() 5b4ebc5).

    import ggml
    g = ggml.Ggml()                       # finds the library (or GGML_BASE_LIB=path)
    blocks = g.quantize("q4_K", f32_2d)   # bytes, rows quantized with imatrix NULL
    f32 = g.dequantize("q4_K", blocks, n) # numpy float32 of n values
    info = g.gguf_info("m.gguf")          # dict, or raises GgufError with ggml's message
"""
import ctypes
import struct
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LIB = os.path.join(HERE, "node_modules", "@node-llama-cpp", "linux-x64",
                           "bins", "linux-x64", "libggml-base.so")

# enum ggml_type (ggml.h). Ids 4, 5, 31..33, 36..38 are removed from ggml.
TYPES = {
    "f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q5_0": 6, "q5_1": 7, "q8_0": 8,
    "q8_1": 9, "q2_K": 10, "q3_K": 11, "q4_K": 12, "q5_K": 13, "q6_K": 14,
    "q8_K": 15, "iq2_xxs": 16, "iq2_xs": 17, "iq3_xxs": 18, "iq1_s": 19,
    "iq4_nl": 20, "iq3_s": 21, "iq2_s": 22, "iq4_xs": 23, "i8": 24, "i16": 25,
    "i32": 26, "i64": 27, "f64": 28, "iq1_m": 29, "bf16": 30, "tq1_0": 34,
    "tq2_0": 35, "mxfp4": 39, "nvfp4": 40, "q1_0": 41, "q2_0": 42,
}
GGML_TYPE_COUNT = 43

# Types ggml_quantize_chunk accepts (its switch): every quantized storage type plus
# f16/bf16/f32. Not q8_1/q8_K (activation-only types, no quantize_chunk case).
QUANTIZABLE = ["q1_0", "q2_0", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "mxfp4",
               "nvfp4", "q2_K", "q3_K", "q4_K", "q5_K", "q6_K", "tq1_0", "tq2_0",
               "iq2_xxs", "iq2_xs", "iq3_xxs", "iq3_s", "iq2_s", "iq1_s", "iq1_m",
               "iq4_nl", "iq4_xs", "f16", "bf16", "f32"]

# ggml_quantize_requires_imatrix(): these GGML_ASSERT (abort the process) on a NULL
# imatrix. iq2_s and iq1_m run without one in ggml, but llama-quantize refuses
# IQ2_S/IQ2_M/IQ1_M file types without an imatrix (llama-quant.cpp) since the
# result is poor; ggml still quantizes them deterministically.
NEEDS_IMATRIX = ("iq2_xxs", "iq2_xs", "iq1_s")


class GgufError(Exception):
    pass


# struct ggml_type_traits (ggml.h, this version). Note blck_size_interleave between
# blck_size and type_size: older ggml had no such field, so type_size moves.
class TypeTraits(ctypes.Structure):
    _fields_ = [
        ("type_name", ctypes.c_char_p),
        ("blck_size", ctypes.c_int64),
        ("blck_size_interleave", ctypes.c_int64),
        ("type_size", ctypes.c_size_t),
        ("is_quantized", ctypes.c_bool),
        ("to_float", ctypes.c_void_p),        # void (*)(const void *, float *, int64_t)
        ("from_float_ref", ctypes.c_void_p),  # void (*)(const float *, void *, int64_t)
    ]


# struct gguf_init_params (gguf.h): bool no_alloc; struct ggml_context ** ctx;
class GgufInitParams(ctypes.Structure):
    _fields_ = [("no_alloc", ctypes.c_bool), ("ctx", ctypes.c_void_p)]


TO_FLOAT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
FROM_FLOAT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
# typedef void (*ggml_log_callback)(enum ggml_log_level level, const char * text, void * user_data);
LOG_CB = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)

# enum gguf_type (gguf.h)
GGUF_STRING, GGUF_ARRAY = 8, 9
# the others: the struct format of one value (bool as a byte 0 / 1)
GGUF_SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q",
               11: "<q", 12: "<d"}


def type_id(t):
    if isinstance(t, int):
        return t
    for k, v in TYPES.items():
        if k.lower() == str(t).lower():
            return v
    raise KeyError("unknown ggml type %r" % (t,))


_LOG = []
_LOG_CB = None


class Ggml:
    def __init__(self, path=None):
        path = path or os.environ.get("GGML_BASE_LIB") or DEFAULT_LIB
        self.path = path
        L = self.lib = ctypes.CDLL(path)
        L.ggml_version.restype = ctypes.c_char_p
        L.ggml_commit.restype = ctypes.c_char_p
        L.ggml_type_name.restype = ctypes.c_char_p
        L.ggml_type_name.argtypes = [ctypes.c_int]
        L.ggml_type_size.restype = ctypes.c_size_t
        L.ggml_type_size.argtypes = [ctypes.c_int]
        L.ggml_blck_size.restype = ctypes.c_int64
        L.ggml_blck_size.argtypes = [ctypes.c_int]
        L.ggml_row_size.restype = ctypes.c_size_t
        L.ggml_row_size.argtypes = [ctypes.c_int, ctypes.c_int64]
        L.ggml_is_quantized.restype = ctypes.c_bool
        L.ggml_is_quantized.argtypes = [ctypes.c_int]
        L.ggml_quantize_requires_imatrix.restype = ctypes.c_bool
        L.ggml_quantize_requires_imatrix.argtypes = [ctypes.c_int]
        L.ggml_quantize_init.argtypes = [ctypes.c_int]
        L.ggml_quantize_chunk.restype = ctypes.c_size_t
        L.ggml_quantize_chunk.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                          ctypes.c_void_p]
        L.ggml_get_type_traits.restype = ctypes.POINTER(TypeTraits)
        L.ggml_get_type_traits.argtypes = [ctypes.c_int]
        L.ggml_log_set.argtypes = [LOG_CB, ctypes.c_void_p]

        L.gguf_init_from_file.restype = ctypes.c_void_p
        L.gguf_init_from_file.argtypes = [ctypes.c_char_p, GgufInitParams]
        L.gguf_free.argtypes = [ctypes.c_void_p]
        for fn, res, args in [
            ("gguf_get_version", ctypes.c_uint32, []),
            ("gguf_get_alignment", ctypes.c_size_t, []),
            ("gguf_get_data_offset", ctypes.c_size_t, []),
            ("gguf_get_n_kv", ctypes.c_int64, []),
            ("gguf_get_key", ctypes.c_char_p, [ctypes.c_int64]),
            ("gguf_get_kv_type", ctypes.c_int, [ctypes.c_int64]),
            ("gguf_get_arr_type", ctypes.c_int, [ctypes.c_int64]),
            ("gguf_get_arr_n", ctypes.c_size_t, [ctypes.c_int64]),
            ("gguf_get_val_str", ctypes.c_char_p, [ctypes.c_int64]),
            ("gguf_get_n_tensors", ctypes.c_int64, []),
            ("gguf_get_tensor_name", ctypes.c_char_p, [ctypes.c_int64]),
            ("gguf_get_tensor_type", ctypes.c_int, [ctypes.c_int64]),
            ("gguf_get_tensor_offset", ctypes.c_size_t, [ctypes.c_int64]),
            ("gguf_get_tensor_size", ctypes.c_size_t, [ctypes.c_int64]),
            ("gguf_get_tensor_ne", ctypes.POINTER(ctypes.c_int64), [ctypes.c_int64]),
            ("gguf_get_val_data", ctypes.c_void_p, [ctypes.c_int64]),
            ("gguf_get_arr_data", ctypes.c_void_p, [ctypes.c_int64]),
            ("gguf_get_arr_str", ctypes.c_char_p, [ctypes.c_int64, ctypes.c_size_t]),
        ]:
            f = getattr(L, fn)
            f.restype = res
            f.argtypes = [ctypes.c_void_p] + args

        # Keep ggml's log lines (gguf_init_from_file's reason for a refusal) instead of
        # letting them go to stderr. The logger is process-wide in ggml, so every Ggml
        # object shares one list and one callback (which must stay referenced).
        global _LOG_CB
        self.log = _LOG
        if _LOG_CB is None:
            _LOG_CB = LOG_CB(lambda lvl, text, ud: _LOG.append(text.decode("utf-8", "replace")))
            L.ggml_log_set(_LOG_CB, None)

    # -- types ---------------------------------------------------------------
    def version(self):
        return self.lib.ggml_version().decode(), self.lib.ggml_commit().decode()

    def traits(self, t):
        return self.lib.ggml_get_type_traits(type_id(t)).contents

    def type_name(self, t):
        n = self.lib.ggml_type_name(type_id(t))
        return n.decode() if n else None

    def type_size(self, t):
        return self.lib.ggml_type_size(type_id(t))

    def blck_size(self, t):
        return self.lib.ggml_blck_size(type_id(t))

    def row_size(self, t, n):
        return self.lib.ggml_row_size(type_id(t), n)

    def requires_imatrix(self, t):
        return self.lib.ggml_quantize_requires_imatrix(type_id(t))

    # -- quantize / dequantize -----------------------------------------------
    def quantize(self, t, x, imatrix=None):
        """x: 2-D float32 array (rows, n_per_row) or 1-D (one row). Returns the blocks as bytes.
        imatrix: None or float32 of n_per_row (importance per column)."""
        tid = type_id(t)
        x = np.ascontiguousarray(x, dtype=np.float32)
        if x.ndim == 1:
            x = x[None, :]
        nrows, n = x.shape
        if n % self.blck_size(tid):
            raise ValueError("%s: row of %d is not a multiple of the block %d" %
                             (self.type_name(tid), n, self.blck_size(tid)))
        if imatrix is None and self.requires_imatrix(tid):
            # ggml would GGML_ASSERT and abort the whole process
            raise ValueError("%s needs an imatrix" % self.type_name(tid))
        im = None
        if imatrix is not None:
            im = np.ascontiguousarray(imatrix, dtype=np.float32)
            assert im.shape == (n,)
        out = ctypes.create_string_buffer(self.row_size(tid, n) * nrows)
        self.lib.ggml_quantize_init(tid)
        got = self.lib.ggml_quantize_chunk(tid, x.ctypes.data, out, 0, nrows, n,
                                           im.ctypes.data if im is not None else None)
        assert got == len(out.raw), (got, len(out.raw))
        return out.raw

    def dequantize(self, t, data, n):
        """data: bytes of whole blocks; n: number of values. Returns float32 array via
        ggml_get_type_traits(t)->to_float."""
        tid = type_id(t)
        tr = self.traits(tid)
        if tid == TYPES["f32"]:  # f32's traits have to_float NULL: nothing to convert
            return np.frombuffer(bytes(data[:4 * n]), dtype="<f4").copy()
        if not tr.to_float:
            raise ValueError("%s has no to_float" % self.type_name(tid))
        need = n // tr.blck_size * tr.type_size
        assert n % tr.blck_size == 0 and len(data) >= need, (n, len(data), need)
        src = ctypes.create_string_buffer(bytes(data[:need]), need)
        y = np.empty(n, dtype=np.float32)
        TO_FLOAT(tr.to_float)(ctypes.addressof(src), y.ctypes.data, n)
        return y

    def quantize_row_ref(self, t, x):
        """The type's from_float_ref (e.g. quantize_row_q8_0_ref) on a 1-D float32 array."""
        tid = type_id(t)
        tr = self.traits(tid)
        x = np.ascontiguousarray(x, dtype=np.float32).ravel()
        out = ctypes.create_string_buffer(x.size // tr.blck_size * tr.type_size)
        FROM_FLOAT(tr.from_float_ref)(x.ctypes.data, out, x.size)
        return out.raw

    # -- gguf ----------------------------------------------------------------
    def gguf_info(self, path):
        """Parse with ggml's gguf_init_from_file (no_alloc, metadata only). Raises
        GgufError (with ggml's log lines) when ggml refuses the file."""
        del self.log[:]
        ctx = self.lib.gguf_init_from_file(os.fsencode(path), GgufInitParams(True, None))
        if not ctx:
            raise GgufError("ggml refused %s: %s" % (path, "".join(self.log).strip()))
        L = self.lib
        try:
            info = {
                "version": L.gguf_get_version(ctx),
                "alignment": L.gguf_get_alignment(ctx),
                "data_offset": L.gguf_get_data_offset(ctx),
                "n_kv": L.gguf_get_n_kv(ctx),
                "keys": [], "tensors": [],
            }
            for i in range(info["n_kv"]):
                k = {"key": L.gguf_get_key(ctx, i).decode(), "type": L.gguf_get_kv_type(ctx, i)}
                if k["type"] == GGUF_STRING:
                    k["value"] = L.gguf_get_val_str(ctx, i).decode("utf-8", "replace")
                elif k["type"] == GGUF_ARRAY:
                    k["arr_type"] = L.gguf_get_arr_type(ctx, i)
                    k["n"] = L.gguf_get_arr_n(ctx, i)
                    if k["arr_type"] == GGUF_STRING:
                        k["value"] = [L.gguf_get_arr_str(ctx, i, j).decode("utf-8", "replace")
                                      for j in range(k["n"])]
                    elif k["arr_type"] in GGUF_SCALAR:
                        fmt = GGUF_SCALAR[k["arr_type"]]
                        n = struct.calcsize(fmt) * k["n"]
                        raw = ctypes.string_at(L.gguf_get_arr_data(ctx, i), n) if n else b""
                        k["value"] = [v[0] for v in struct.iter_unpack(fmt, raw)]
                elif k["type"] in GGUF_SCALAR:
                    fmt = GGUF_SCALAR[k["type"]]
                    k["value"] = struct.unpack(fmt, ctypes.string_at(L.gguf_get_val_data(ctx, i),
                                                                     struct.calcsize(fmt)))[0]
                info["keys"].append(k)
            for i in range(L.gguf_get_n_tensors(ctx)):
                ne = L.gguf_get_tensor_ne(ctx, i)
                shape = [ne[d] for d in range(4)]
                while len(shape) > 1 and shape[-1] == 1:
                    shape.pop()
                tt = L.gguf_get_tensor_type(ctx, i)
                info["tensors"].append({
                    "name": L.gguf_get_tensor_name(ctx, i).decode(),
                    "type": tt, "type_name": self.type_name(tt),
                    "ne": shape,
                    "offset": L.gguf_get_tensor_offset(ctx, i),
                    "size": L.gguf_get_tensor_size(ctx, i),
                })
            return info
        finally:
            L.gguf_free(ctx)


def _main(argv):
    """ggml.py info FILE.gguf | ggml.py types : a quick look from the shell."""
    import json
    g = Ggml()
    if len(argv) >= 2 and argv[0] == "info":
        try:
            print(json.dumps(g.gguf_info(argv[1]), indent=1))
        except GgufError as e:
            print(e, file=sys.stderr)
            return 1
        return 0
    if argv and argv[0] == "types":
        print("ggml", *g.version())
        for name in QUANTIZABLE:
            tr = g.traits(name)
            # the struct layout above agrees with the library's own getters
            assert (tr.type_name.decode(), tr.blck_size, tr.type_size) == (
                g.type_name(name), g.blck_size(name), g.type_size(name)), name
            print("%-8s id %2d blck %3d size %3d interleave %d quantized %d needs_imatrix %d" % (
                tr.type_name.decode(), type_id(name), tr.blck_size, tr.type_size,
                tr.blck_size_interleave, tr.is_quantized, g.requires_imatrix(name)))
        return 0
    print(_main.__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
