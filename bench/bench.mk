# bench.mk - `make bench`: per-type decode speed against memcpy (decode.sh),
# then FUSE streaming, latency, mount time and memory on synthetic models
# (fs.sh, needs FUSE), metadata array text against the renderer it
# replaced (render_bench), and remote models through nginx and the fault
# proxy against curl and a local mount (remote.sh, needs FUSE and nginx).
# Never part of `make check`; no timing thresholds.
BENCH_PROGS := $(BUILD)/bench/decode_bench $(BUILD)/bench/fsbench $(BUILD)/bench/render_bench

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
	@echo "== remote models (bench/remote.sh)"
	@BUILD=$(BUILD) bench/remote.sh
