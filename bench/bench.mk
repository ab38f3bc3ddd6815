# bench.mk - `make bench`: per-type decode speed against memcpy (decode.sh),
# then FUSE streaming, latency, mount time and memory on synthetic models
# (fs.sh, needs FUSE). Never part of `make check`; no timing thresholds.
BENCH_PROGS := $(BUILD)/bench/decode_bench $(BUILD)/bench/fsbench

bench: gguffs $(BENCH_PROGS)
	@echo "== decode speed per type (bench/decode.sh)"
	@BUILD=$(BUILD) bench/decode.sh
	@echo
	@echo "== FUSE (bench/fs.sh)"
	@BUILD=$(BUILD) bench/fs.sh
