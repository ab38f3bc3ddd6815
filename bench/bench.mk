# bench.mk - `make bench`: per-type decode speed against memcpy (decode.sh),
# then FUSE streaming, latency, mount time and memory on synthetic models
# (fs.sh, needs FUSE), metadata array text against the renderer it
# replaced (render_bench), f16/bf16 conversion and reads against f32
# (export.sh), a folder of 1000 models mounted as a shelf (shelf.sh, needs
# FUSE), remote models through nginx and the fault proxy against curl
# and a local mount (remote.sh, needs FUSE and nginx), the GGUF views
# (as_gguf.sh: as/*.gguf streams against the f32 files, llama.cpp from a
# mount against a file, a 64 GiB model's as/; needs FUSE), the recipes
# (recipes.sh: as/q4_k_m.gguf against as/f32.gguf, llama.cpp from it against
# llama-quantize's file, quantizing against llama_model_quantize; needs
# FUSE), a comparison of two models against decoding both (compare.sh),
# an edit until model.gguf shows it (edits.sh, needs FUSE), gguf-py's
# dequantize of the real Gemma 3 270M against its f32 files, cold and warm
# (gguf_py.sh, needs FUSE), llama.cpp's load and first token of that model
# from a mount against its file (gemma.sh, needs FUSE and the Python
# peers), transformers loading it from its GGUF file against from as/hf/
# (transformers.sh; needs FUSE and the Python peers), and quantization speed
# per type against the real ggml (quantize_bench). Never part of
# `make check`; no timing thresholds.
BENCH_PROGS := $(BUILD)/bench/decode_bench $(BUILD)/bench/fsbench $(BUILD)/bench/render_bench \
	$(BUILD)/bench/halfconv_bench $(BUILD)/bench/quantize_bench
GGML_BASE := tests/peer/node_modules/@node-llama-cpp/linux-x64/bins/linux-x64/libggml-base.so

bench: gguffs $(BENCH_PROGS)
	@echo "== decode speed per type (bench/decode.sh)"
	@BUILD=$(BUILD) bench/decode.sh
	@echo
	@echo "== metadata array text, old renderer vs new (bench/render_bench)"
	@$(BUILD)/bench/render_bench
	@echo
	@echo "== FUSE (bench/fs.sh)"
	@BUILD=$(BUILD) bench/fs.sh
	@echo
	@echo "== f16 / bf16 against f32 (bench/export.sh)"
	@BUILD=$(BUILD) bench/export.sh
	@echo
	@echo "== a folder of 1000 models (bench/shelf.sh)"
	@bench/shelf.sh
	@echo
	@echo "== remote models (bench/remote.sh)"
	@BUILD=$(BUILD) bench/remote.sh
	@echo
	@echo "== GGUF views: model.gguf, as/*.gguf (bench/as_gguf.sh)"
	@BUILD=$(BUILD) bench/as_gguf.sh
	@echo
	@echo "== llama-quantize's recipes (bench/recipes.sh)"
	@BUILD=$(BUILD) bench/recipes.sh
	@echo
	@echo "== a comparison of two models against decoding both (bench/compare.sh)"
	@BUILD=$(BUILD) bench/compare.sh
	@echo
	@echo "== editing metadata: an edit until model.gguf shows it, llama.cpp, gguf_new_metadata (bench/edits.sh)"
	@BUILD=$(BUILD) bench/edits.sh
	@echo
	@echo "== gguf-py's dequantize against the f32 files, the real Gemma 3 270M (bench/gguf_py.sh)"
	@bench/gguf_py.sh
	@echo
	@echo "== llama.cpp on a real model: the file, model.gguf, as/f32.gguf (bench/gemma.sh)"
	@bench/gemma.sh
	@echo
	@echo "== transformers: from the GGUF file against from as/hf/ (bench/transformers.sh)"
	@bench/transformers.sh
	@echo
	@echo "== quantization per type against ggml_quantize_chunk (bench/quantize_bench)"
	@$(BUILD)/bench/quantize_bench $(GGML_BASE)
