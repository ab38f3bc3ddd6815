"""llama.py - the real llama.cpp (libllama.v0.4.0.so from npm @node-llama-cpp/linux-x64) through ctypes.

What embed.mjs cannot give: raw logits at every position, the model's own figures
(llama_model_n_params, n_ctx_train, n_layer, ...), the tokens that end generation
(llama_vocab_is_eog), llama.cpp's chat template formatting
(llama_chat_apply_template) and llama-quantize (llama_model_quantize), all in the
Python process that also runs transformers. The struct layouts below are those of
include/llama.h of the llama.cpp source node-llama-cpp 3.21.1 ships
(llama/gitRelease.bundle), the release its prebuilt binaries were built from.

    import llama
    L = llama.Llama()                           # loads libllama and the CPU backends
    m = L.load("model.gguf")                    # raises LlamaError with llama.cpp's log
    m.n_params(), m.n_layer(), m.chat_template(), m.tokenize("text"), m.detokenize(ids)
    m.eog()                                     # the tokens that end generation
    with m.context(n_ctx=256) as c:             # one thread, float32 KV cache
        logits = c.logits(ids)                  # numpy (len(ids), n_vocab), every position
    L.chat_apply_template(tmpl, [("user", "hi")], add_ass=True)
    L.quantize("in.gguf", "out.gguf", llama.FTYPE_Q8_0)   # (tests/peer/quantize.py: by name, in a child)
    L.log                                       # llama.cpp's log lines
"""
import ctypes as C
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BINS = os.path.join(HERE, "node_modules", "@node-llama-cpp", "linux-x64", "bins", "linux-x64")

FTYPE_Q8_0 = 7          # enum llama_ftype: LLAMA_FTYPE_MOSTLY_Q8_0
GGML_TYPE_F32, GGML_TYPE_F16 = 0, 1
FLASH_ATTN_AUTO = -1    # enum llama_flash_attn_type

LOG_CB = C.CFUNCTYPE(None, C.c_int, C.c_char_p, C.c_void_p)


class LlamaError(Exception):
    pass


class ModelParams(C.Structure):  # struct llama_model_params
    _fields_ = [
        ("devices", C.c_void_p), ("tensor_buft_overrides", C.c_void_p),
        ("n_gpu_layers", C.c_int32), ("split_mode", C.c_int), ("load_mode", C.c_int),
        ("lazy_mode", C.c_int), ("main_gpu", C.c_int32), ("tensor_split", C.c_void_p),
        ("progress_callback", C.c_void_p), ("progress_callback_user_data", C.c_void_p),
        ("kv_overrides", C.c_void_p),
        ("vocab_only", C.c_bool), ("check_tensors", C.c_bool), ("use_extra_bufts", C.c_bool),
        ("no_host", C.c_bool), ("no_alloc", C.c_bool), ("load_mtp", C.c_bool),
    ]


class ContextParams(C.Structure):  # struct llama_context_params
    _fields_ = [
        ("n_ctx", C.c_uint32), ("n_batch", C.c_uint32), ("n_ubatch", C.c_uint32),
        ("n_seq_max", C.c_uint32), ("n_rs_seq", C.c_uint32), ("n_outputs_max", C.c_uint32),
        ("n_outputs_max_per_seq", C.c_uint32), ("n_threads", C.c_int32), ("n_threads_batch", C.c_int32),
        ("ctx_type", C.c_int), ("rope_scaling_type", C.c_int), ("pooling_type", C.c_int),
        ("attention_type", C.c_int), ("flash_attn_type", C.c_int),
        ("rope_freq_base", C.c_float), ("rope_freq_scale", C.c_float), ("yarn_ext_factor", C.c_float),
        ("yarn_attn_factor", C.c_float), ("yarn_beta_fast", C.c_float), ("yarn_beta_slow", C.c_float),
        ("yarn_orig_ctx", C.c_uint32), ("defrag_thold", C.c_float),
        ("cb_eval", C.c_void_p), ("cb_eval_user_data", C.c_void_p),
        ("type_k", C.c_int), ("type_v", C.c_int),
        ("abort_callback", C.c_void_p), ("abort_callback_data", C.c_void_p),
        ("embeddings", C.c_bool), ("offload_kqv", C.c_bool), ("no_perf", C.c_bool),
        ("op_offload", C.c_bool), ("swa_full", C.c_bool), ("kv_unified", C.c_bool),
        ("samplers", C.c_void_p), ("n_samplers", C.c_size_t), ("ctx_other", C.c_void_p),
    ]


class QuantizeParams(C.Structure):  # llama_model_quantize_params
    _fields_ = [
        ("nthread", C.c_int32), ("ftype", C.c_int), ("output_tensor_type", C.c_int),
        ("token_embedding_type", C.c_int), ("allow_requantize", C.c_bool),
        ("quantize_output_tensor", C.c_bool), ("only_copy", C.c_bool), ("pure", C.c_bool),
        ("keep_split", C.c_bool), ("dry_run", C.c_bool),
        ("imatrix", C.c_void_p), ("kv_overrides", C.c_void_p), ("tt_overrides", C.c_void_p),
        ("prune_layers", C.c_void_p), ("max_buf_size", C.c_size_t),
    ]


class Batch(C.Structure):  # llama_batch
    _fields_ = [("n_tokens", C.c_int32), ("token", C.POINTER(C.c_int32)), ("embd", C.c_void_p),
                ("pos", C.POINTER(C.c_int32)), ("n_seq_id", C.POINTER(C.c_int32)),
                ("seq_id", C.POINTER(C.POINTER(C.c_int32))), ("logits", C.POINTER(C.c_int8))]


class ChatMessage(C.Structure):  # llama_chat_message
    _fields_ = [("role", C.c_char_p), ("content", C.c_char_p)]


def _sig(lib, name, res, *args):
    f = getattr(lib, name)
    f.restype, f.argtypes = res, list(args)


P = C.c_void_p


class Llama:
    def __init__(self, bins=None):
        bins = bins or os.environ.get("LLAMA_BINS") or BINS
        self.log = []
        # libllama needs libggml's symbols; the CPU backends are separate libraries that
        # ggml loads itself (the best variant for this CPU, as node-llama-cpp does)
        self.ggml = C.CDLL(os.path.join(bins, "libggml.v0.4.0.so"), mode=C.RTLD_GLOBAL)
        L = self.lib = C.CDLL(os.path.join(bins, "libllama.v0.4.0.so"), mode=C.RTLD_GLOBAL)
        self._cb = LOG_CB(lambda lvl, text, ud: self.log.append(text.decode("utf-8", "replace")))
        _sig(L, "llama_log_set", None, LOG_CB, P)
        L.llama_log_set(self._cb, None)
        _sig(self.ggml, "ggml_backend_load_all_from_path", None, C.c_char_p)
        self.ggml.ggml_backend_load_all_from_path(os.fsencode(bins))
        _sig(L, "llama_backend_init", None)
        L.llama_backend_init()
        _sig(L, "llama_model_default_params", ModelParams)
        _sig(L, "llama_context_default_params", ContextParams)
        _sig(L, "llama_model_quantize_default_params", QuantizeParams)
        _sig(L, "llama_model_load_from_file", P, C.c_char_p, ModelParams)
        _sig(L, "llama_model_free", None, P)
        _sig(L, "llama_init_from_model", P, P, ContextParams)
        _sig(L, "llama_free", None, P)
        _sig(L, "llama_model_get_vocab", P, P)
        for fn in ("n_ctx_train", "n_embd", "n_layer", "n_head", "n_head_kv", "n_swa"):
            _sig(L, "llama_model_" + fn, C.c_int32, P)
        _sig(L, "llama_model_n_params", C.c_uint64, P)
        _sig(L, "llama_model_size", C.c_uint64, P)
        _sig(L, "llama_model_desc", C.c_int32, P, C.c_char_p, C.c_size_t)
        _sig(L, "llama_model_chat_template", C.c_char_p, P, C.c_char_p)
        _sig(L, "llama_vocab_n_tokens", C.c_int32, P)
        _sig(L, "llama_vocab_is_eog", C.c_bool, P, C.c_int32)
        _sig(L, "llama_tokenize", C.c_int32, P, C.c_char_p, C.c_int32, C.POINTER(C.c_int32), C.c_int32,
             C.c_bool, C.c_bool)
        _sig(L, "llama_detokenize", C.c_int32, P, C.POINTER(C.c_int32), C.c_int32, C.c_char_p, C.c_int32,
             C.c_bool, C.c_bool)
        _sig(L, "llama_decode", C.c_int32, P, Batch)
        _sig(L, "llama_get_logits_ith", C.POINTER(C.c_float), P, C.c_int32)
        _sig(L, "llama_chat_apply_template", C.c_int32, C.c_char_p, C.POINTER(ChatMessage), C.c_size_t,
             C.c_bool, C.c_char_p, C.c_int32)
        _sig(L, "llama_model_quantize", C.c_uint32, C.c_char_p, C.c_char_p, C.POINTER(QuantizeParams))

    def load(self, path, vocab_only=False, mmap=True):
        p = self.lib.llama_model_default_params()
        p.n_gpu_layers = 0
        p.vocab_only = vocab_only
        del self.log[:]
        m = self.lib.llama_model_load_from_file(os.fsencode(path), p)
        if not m:
            raise LlamaError("llama.cpp could not load %s:\n%s" % (path, "".join(self.log[-20:])))
        return Model(self, m)

    def chat_apply_template(self, tmpl, messages, add_ass=True):
        """llama.cpp's own formatting of a chat: tmpl (a template's text, or a built-in
        name) picks one of its built-in formats; messages are (role, content) pairs."""
        msgs = (ChatMessage * len(messages))(*[ChatMessage(r.encode(), c.encode()) for r, c in messages])
        buf = C.create_string_buffer(4096)
        n = self.lib.llama_chat_apply_template(tmpl.encode() if tmpl is not None else None, msgs,
                                               len(messages), add_ass, buf, len(buf))
        if n > len(buf):
            buf = C.create_string_buffer(n)
            n = self.lib.llama_chat_apply_template(tmpl.encode() if tmpl is not None else None, msgs,
                                                   len(messages), add_ass, buf, len(buf))
        if n < 0:
            raise LlamaError("llama_chat_apply_template does not know this template")
        return buf.raw[:n].decode()

    def quantize(self, src, dst, ftype, threads=1, requantize=True):
        """llama-quantize: src to dst in ftype (LLAMA_FTYPE_*), tensors ggml requantizes
        (requantize=False: llama_model_quantize_default_params() as they are, which
        refuse a quantized tensor)."""
        q = self.lib.llama_model_quantize_default_params()
        q.nthread, q.ftype = threads, ftype
        if requantize:
            q.allow_requantize = True
        del self.log[:]
        if self.lib.llama_model_quantize(os.fsencode(src), os.fsencode(dst), C.byref(q)):
            raise LlamaError("llama_model_quantize %s failed:\n%s" % (src, "".join(self.log[-20:])))


class _Owned:
    """A llama.cpp object freed by free() or at the end of a with block."""
    def __init__(self, ptr, release):
        self._ptr, self._release = ptr, release

    def free(self):
        if self._ptr:
            self._release(self._ptr)
            self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.free()


class Model(_Owned):
    def __init__(self, llama, m):
        super().__init__(m, llama.lib.llama_model_free)
        self.llama, self.lib, self.m = llama, llama.lib, m
        self.vocab = self.lib.llama_model_get_vocab(m)

    def __getattr__(self, name):  # n_ctx_train, n_layer, n_params, size ... as methods
        f = getattr(self.lib, "llama_model_" + name)
        return lambda: f(self.m)

    def desc(self):
        b = C.create_string_buffer(256)
        self.lib.llama_model_desc(self.m, b, len(b))
        return b.value.decode()

    def chat_template(self):
        t = self.lib.llama_model_chat_template(self.m, None)
        return t.decode() if t is not None else None

    def n_vocab(self):
        return self.lib.llama_vocab_n_tokens(self.vocab)

    def eog(self):
        """The tokens llama.cpp ends generation at (llama_vocab_is_eog), ascending."""
        return [t for t in range(self.n_vocab()) if self.lib.llama_vocab_is_eog(self.vocab, t)]

    def tokenize(self, text, add_special=True, parse_special=True):
        b = text.encode()
        n = len(b) + 8
        out = (C.c_int32 * n)()
        k = self.lib.llama_tokenize(self.vocab, b, len(b), out, n, add_special, parse_special)
        if k < 0 and -k > n:  # (bytes of byte-fallback tokens: -k is the count)
            n = -k
            out = (C.c_int32 * n)()
            k = self.lib.llama_tokenize(self.vocab, b, len(b), out, n, add_special, parse_special)
        if k < 0:
            raise LlamaError("llama_tokenize: %d" % k)
        return list(out[:k])

    def detokenize(self, ids, remove_special=False, unparse_special=True):
        toks = (C.c_int32 * max(len(ids), 1))(*ids)
        n = 64 + 64 * len(ids)
        buf = C.create_string_buffer(n)
        k = self.lib.llama_detokenize(self.vocab, toks, len(ids), buf, n, remove_special, unparse_special)
        if k < 0:
            raise LlamaError("llama_detokenize: %d" % k)
        return buf.raw[:k].decode("utf-8", "replace")

    def context(self, n_ctx=256, n_batch=256, threads=1, kv=GGML_TYPE_F32, swa_full=False):
        p = self.lib.llama_context_default_params()
        p.n_ctx, p.n_batch, p.n_ubatch = n_ctx, n_batch, n_batch
        p.n_threads = p.n_threads_batch = threads
        p.n_outputs_max_per_seq = 0  # every position's logits, as asked
        p.type_k = p.type_v = kv
        p.swa_full = swa_full
        del self.llama.log[:]
        c = self.lib.llama_init_from_model(self.m, p)
        if not c:
            raise LlamaError("llama_init_from_model failed:\n%s" % "".join(self.llama.log[-20:]))
        return Context(self, c)


class Context(_Owned):
    def __init__(self, model, c):
        super().__init__(c, model.lib.llama_free)
        self.model, self.lib, self.c = model, model.lib, c
        self.n_vocab = model.n_vocab()
        self.pos = 0

    def decode(self, ids, all_logits=True, outputs=None):
        """Evaluates ids after what the context holds; returns the logits of every one of
        them (all_logits), of those at the indices outputs, or of the last, float32
        (rows, n_vocab)."""
        n = len(ids)
        tok = (C.c_int32 * n)(*ids)
        pos = (C.c_int32 * n)(*range(self.pos, self.pos + n))
        nseq = (C.c_int32 * n)(*([1] * n))
        seq0 = (C.c_int32 * 1)(0)
        seqs = (C.POINTER(C.c_int32) * n)(*([C.cast(seq0, C.POINTER(C.c_int32))] * n))
        if outputs is not None:
            want = [int(i in set(outputs)) for i in range(n)]
        else:
            want = [1] * n if all_logits else [0] * (n - 1) + [1]
        out = (C.c_int8 * n)(*want)
        rc = self.lib.llama_decode(self.c, Batch(n, tok, None, pos, nseq, seqs, out))
        if rc:
            raise LlamaError("llama_decode: %d" % rc)
        self.pos += n
        rows = [i for i in range(n) if want[i]]
        res = np.empty((len(rows), self.n_vocab), np.float32)
        for k, i in enumerate(rows):
            res[k] = np.ctypeslib.as_array(self.lib.llama_get_logits_ith(self.c, i), (self.n_vocab,))
        return res

    def greedy(self, ids, n):
        """llama.cpp's greedy continuation of ids, n tokens (argmax of each step's logits;
        ties to the lowest id, as llama_sampler_init_greedy). Returns (tokens, logits of
        each step's choice (n, n_vocab))."""
        lg = self.decode(ids, all_logits=False)[-1]
        toks, steps = [], []
        for _ in range(n):
            steps.append(lg)
            t = int(np.argmax(lg))
            toks.append(t)
            lg = self.decode([t], all_logits=False)[-1]
        return toks, np.stack(steps)


def _first_token(path, prompt):
    """load, context and first-token milliseconds of one run, one thread (the bench)."""
    import time
    L = Llama()
    t0 = time.perf_counter()
    m = L.load(path)
    t1 = time.perf_counter()
    with m.context(n_ctx=256, n_batch=256, kv=GGML_TYPE_F16) as c:
        t2 = time.perf_counter()
        tok = int(np.argmax(c.decode(m.tokenize(prompt), all_logits=False)[-1]))
        t3 = time.perf_counter()
    m.free()
    print("load_ms %.1f context_ms %.1f first_ms %.1f token %d" % (
        (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, tok))


if __name__ == "__main__":
    import sys
    if len(sys.argv) != 4 or sys.argv[1] != "first-token":
        print("usage: llama.py first-token MODEL.gguf PROMPT", file=sys.stderr)
        sys.exit(2)
    _first_token(sys.argv[2], sys.argv[3])
