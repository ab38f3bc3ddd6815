#!/usr/bin/python3
"""quantize.py - llama-quantize itself: llama_model_quantize of the real llama.cpp
(tests/peer/llama.py's Llama: libllama.v0.4.0.so from npm @node-llama-cpp/linux-x64),
by recipe name, each call in a child process.

  quantize.py IN.gguf OUT.gguf RECIPE [--threads N] [--time]
        what `llama-quantize IN.gguf OUT.gguf RECIPE N` makes: RECIPE a name of
        llama-quantize's (q4_k_m, Q6_K, f16, ...) or a llama_ftype number;
        llama_model_quantize_default_params() with ftype and nthread (default 1: one
        thread gives the same bytes as any number), no importance matrix. Exits 1 with
        llama.cpp's reason on stderr when it refuses. --time: prints the milliseconds
        llama_model_quantize took (not Python's start or the library's load), and the
        CPU milliseconds it used (all its threads).

    import quantize
    q = quantize.Quantizer()
    ok, log = q.quantize("in.gguf", "out.gguf", "q4_k_m")    # log: llama.cpp's messages
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llama  # noqa: E402

# llama-quantize's names (tools/quantize/quantize.cpp QUANT_OPTIONS) -> llama_ftype (llama.h)
FTYPES = {
    "f32": 0, "f16": 1, "q4_0": 2, "q4_1": 3, "q8_0": 7, "q5_0": 8, "q5_1": 9, "q2_k": 10,
    "q3_k_s": 11, "q3_k_m": 12, "q3_k": 12, "q3_k_l": 13, "q4_k_s": 14, "q4_k_m": 15, "q4_k": 15,
    "q5_k_s": 16, "q5_k_m": 17, "q5_k": 17, "q6_k": 18, "iq2_xxs": 19, "iq2_xs": 20, "q2_k_s": 21,
    "iq3_xs": 22, "iq3_xxs": 23, "iq1_s": 24, "iq4_nl": 25, "iq3_s": 26, "iq3_m": 27, "iq2_s": 28,
    "iq2_m": 29, "iq4_xs": 30, "iq1_m": 31, "bf16": 32, "tq1_0": 36, "tq2_0": 37, "mxfp4_moe": 38,
    "q1_0": 40, "q2_0": 41,
}


def ftype_of(recipe):
    if isinstance(recipe, int) or str(recipe).isdigit():
        return int(recipe)
    return FTYPES[str(recipe).lower()]


class Quantizer:
    def __init__(self):
        os.environ["GGML_NO_BACKTRACE"] = "1"  # (ggml would attach gdb to print one)
        self.llama = llama.Llama()
        self.cpu_ms = 0

    def quantize(self, inp, out, recipe, nthread=1):
        """(ok, llama.cpp's log) of llama_model_quantize(inp, out) in recipe, with the
        default parameters. It runs in a child process: llama.cpp aborts on some files
        (a GGML_ASSERT), which must fail the one call, not the caller. self.cpu_ms: the
        CPU time the child used."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            ok = False
            try:
                self.llama.quantize(inp, out, ftype_of(recipe), nthread, requantize=False)
                ok = True
            except llama.LlamaError:
                pass
            finally:
                os.write(w, "".join(self.llama.log).encode())
                os._exit(0 if ok else 1)
        os.close(w)
        log = b""
        while True:
            b = os.read(r, 1 << 16)
            if not b:
                break
            log += b
        os.close(r)
        _, status, usage = os.wait4(pid, 0)
        self.cpu_ms = round((usage.ru_utime + usage.ru_stime) * 1000)
        log = log.decode("utf-8", "replace")
        if os.WIFSIGNALED(status):
            log += "\nllama_model_quantize: failed to quantize: killed by signal %d (an abort)" % os.WTERMSIG(status)
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, log


def reason(log):
    """The line of llama.cpp's log that says why it failed."""
    lines = [ln for ln in log.splitlines() if "failed to quantize" in ln]
    return lines[-1].split("failed to quantize: ", 1)[-1] if lines else log.strip()[-300:]


def main(argv):
    timed = "--time" in argv
    argv = [a for a in argv if a != "--time"]
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--threads"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    q = Quantizer()
    t = time.perf_counter()
    ok, log = q.quantize(argv[0], argv[1], argv[2], int(argv[4]) if len(argv) == 5 else 1)
    if not ok:
        print("llama_model_quantize %s %s: %s" % (argv[0], argv[2], reason(log)), file=sys.stderr)
    elif timed:
        print(round((time.perf_counter() - t) * 1000), q.cpu_ms)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
