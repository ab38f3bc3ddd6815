"""gguf_tool - a small GGUF reader and writer for the tests.

Independent of gguffs (so a bug cannot hide by being shared): it finds the
byte offsets of header fields, so tests can patch a type id or truncate at
a section boundary, and it writes GGUF files from a plain description, so
tests can make files of any shape, valid or not.

    import gguf_tool as g
    h = g.read("model.gguf")          # h.kvs, h.tensors, h.data_offset, offsets
    g.write("x.gguf", kvs=[("general.name", g.STR, "x")],
            tensors=[("w", [32, 2], 2, b"...")])
"""
import struct

U8, I8, U16, I16, U32, I32, F32, BOOL, STR, ARR, U64, I64, F64 = range(13)
SCALAR_FMT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i",
              F32: "<f", BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}
TYPE_NAMES = ["u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr",
              "u64", "i64", "f64"]


def esc(name):
    """A GGUF name (str) as gguffs writes it in the tree: % -> %25, / -> %2F,
    NUL -> %00; ".", ".." -> %2E, %2E%2E; the empty name -> %."""
    if name == "":
        return "%"
    if name in (".", ".."):
        return "%2E" * len(name)
    return name.replace("%", "%25").replace("/", "%2F").replace("\0", "%00")


class Header:
    pass


class _R:
    def __init__(self, b, v1):
        self.b, self.p, self.v1 = b, 0, v1

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.p)
        self.p += struct.calcsize(fmt)
        return v[0]

    def count(self):
        return self.take("<I" if self.v1 else "<Q")

    def string(self):
        n = self.count()
        s = self.b[self.p:self.p + n]
        self.p += n
        return s

    def value(self, t):
        if t == STR:
            return self.string()
        if t == ARR:
            et = self.take("<I")
            n = self.count()
            return (et, [self.value(et) for _ in range(n)])
        return self.take(SCALAR_FMT[t])


def read(path_or_bytes):
    """Parse a GGUF header. Returns a Header with version, kvs [(key, type,
    value, kv_offset)], tensors [dict(name, dims, type, offset, info_offset,
    type_field_offset)], header_end, alignment, data_offset, and the section
    boundaries (offsets where each KV and tensor info starts)."""
    b = path_or_bytes if isinstance(path_or_bytes, (bytes, bytearray)) else open(path_or_bytes, "rb").read()
    assert b[:4] == b"GGUF", "not GGUF"
    version = struct.unpack_from("<I", b, 4)[0]
    r = _R(b, version == 1)
    r.p = 8
    h = Header()
    h.version = version
    n_tensors, n_kv = r.count(), r.count()
    h.counts_end = r.p
    h.kvs = []
    for _ in range(n_kv):
        at = r.p
        k = r.string()
        t = r.take("<I")
        v = r.value(t)
        h.kvs.append((k, t, v, at))
    h.kvs_end = r.p
    h.tensors = []
    for _ in range(n_tensors):
        at = r.p
        name = r.string()
        nd = r.take("<I")
        dims = [r.take("<I" if version == 1 else "<Q") for _ in range(nd)]
        tf = r.p
        ty = r.take("<I")
        off = r.take("<Q")
        h.tensors.append(dict(name=name, dims=dims, type=ty, offset=off, info_offset=at,
                              type_field_offset=tf))
    h.header_end = r.p
    h.alignment = 32
    for k, t, v, _ in h.kvs:
        if k == b"general.alignment" and t == U32:
            h.alignment = v
    a = h.alignment
    h.data_offset = (r.p + a - 1) // a * a
    return h


def _enc_count(n, v1):
    return struct.pack("<I" if v1 else "<Q", n)


def enc_string(s, v1=False):
    if isinstance(s, str):
        s = s.encode()
    return _enc_count(len(s), v1) + s


def enc_value(t, v, v1=False):
    if t == STR:
        return enc_string(v, v1)
    if t == ARR:
        et, items = v
        return struct.pack("<I", et) + _enc_count(len(items), v1) + b"".join(enc_value(et, x, v1) for x in items)
    return struct.pack(SCALAR_FMT[t], v)


def build(kvs=(), tensors=(), version=3, alignment=32, n_kv=None, n_tensors=None, pad_end=True):
    """Bytes of a GGUF file. kvs: [(key, type, value)]; tensors: [(name,
    dims, type_id, data_bytes)] or with a 5th element, an explicit data
    offset (data is then placed there). Counts can be overridden to lie."""
    v1 = version == 1
    out = bytearray(b"GGUF" + struct.pack("<I", version))
    out += _enc_count(len(tensors) if n_tensors is None else n_tensors, v1)
    out += _enc_count(len(kvs) if n_kv is None else n_kv, v1)
    for k, t, v in kvs:
        out += enc_string(k, v1) + struct.pack("<I", t) + enc_value(t, v, v1)
    offsets, pos = [], 0
    for tn in tensors:
        if len(tn) > 4 and tn[4] is not None:
            offsets.append(tn[4])
            pos = max(pos, tn[4] + len(tn[3]))
        else:
            offsets.append(pos)
            pos += len(tn[3])
        pos = (pos + alignment - 1) // alignment * alignment
    for tn, off in zip(tensors, offsets):
        name, dims, ty = tn[0], tn[1], tn[2]
        out += enc_string(name, v1) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<I" if v1 else "<Q", d) for d in dims)
        out += struct.pack("<IQ", ty, off)
    data_start = (len(out) + alignment - 1) // alignment * alignment
    out += b"\0" * (data_start - len(out))
    data = bytearray(pos if pad_end else 0)
    for tn, off in zip(tensors, offsets):
        need = off + len(tn[3])
        if len(data) < need:
            data += b"\0" * (need - len(data))
        data[off:off + len(tn[3])] = tn[3]
    return bytes(out + data)


def write(path, **kw):
    with open(path, "wb") as f:
        f.write(build(**kw))
