# tests/hardening.mk - sanitizer builds and libFuzzer targets (included by the Makefile).
#
#   make sanitize            build the unit tests, decode_ref, simd_prop, the fuzz
#                            replayers and the daemon with ASan + UBSan in $(SAN_BUILD)
#                            and run all but the daemon (tests/check.d/35_sanitizers.sh
#                            runs this in make check; 40_concurrency.sh runs the daemon)
#   make fuzz FUZZ_SECONDS=N run each libFuzzer target N seconds (default 60) on
#                            top of its seed corpus; crashers land in fuzz-out/
#   make fuzz-build          only build the fuzz targets (clang) in $(FUZZ_BUILD)
#
# Both re-enter this Makefile with another BUILD folder, CC and CFLAGS, so the
# library objects are the ordinary ones built with extra instrumentation.

SAN_CC ?= $(shell command -v clang >/dev/null 2>&1 && echo clang || echo gcc)
SAN_BUILD ?= build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

FUZZ_CC ?= clang
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_OUT ?= fuzz-out
FUZZ_TARGETS := fuzz_model fuzz_decode
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

.PHONY: sanitize sanitize-build fuzz fuzz-build hardening-bins fuzz-bins fuzz-seeds

# Programs of the instrumented builds; only meaningful when re-entered with
# BUILD set to one of the folders above.
hardening-bins: $(TEST_PROGS) $(BUILD)/fuzz/replay_model $(BUILD)/fuzz/replay_decode $(BUILD)/gguffs
fuzz-bins: $(addprefix $(BUILD)/fuzz/,$(FUZZ_TARGETS))

# (the fuzzers also drive --dump, a command-line tool: tools.o)
$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c tests/fuzz/fuzz_common.h $(LIB_OBJ) $(TOOLS_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay_main.c $(LIB_OBJ) \
		$(TOOLS_OBJ) $(LDLIBS)

# The daemon itself, instrumented (run under FUSE by tests/check.d/40_concurrency.sh).
$(BUILD)/gguffs: $(LIB_OBJ) $(APP_OBJ)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(FUSE_LIBS) $(LDLIBS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(LIB_OBJ) $(TOOLS_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz -fsanitize=fuzzer -o $@ $< $(LIB_OBJ) $(TOOLS_OBJ) $(LDLIBS)

sanitize-build:
	@$(MAKE) -s --no-print-directory BUILD=$(SAN_BUILD) CC=$(SAN_CC) CFLAGS="$(SAN_FLAGS)" hardening-bins

sanitize: sanitize-build
	@BUILD=$(SAN_BUILD) tests/fuzz/run_sanitized.sh

fuzz-build:
	@$(MAKE) -s --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) CFLAGS="$(FUZZ_FLAGS)" fuzz-bins

fuzz-seeds:
	@mkdir -p $(FUZZ_BUILD)/seeds
	@/usr/bin/python3 tests/fuzz/make_seeds.py $(FUZZ_BUILD)/seeds
	@/usr/bin/python3 tests/malformed/gen.py $(FUZZ_BUILD)/seeds/malformed >/dev/null

# Each target runs FUZZ_SECONDS on a working corpus in fuzz-out/<target>/corpus
# seeded from the generated seeds (make_seeds.py), the committed regression
# inputs (tests/fuzz/regress/) and, for fuzz_model, the malformed suite
# (tests/malformed/gen.py). New crashers are written to fuzz-out/<target>/:
# fix, then add them to tests/fuzz/regress/<kind>/ (make check replays them).
fuzz: deps fuzz-build fuzz-seeds
	@set -e; for t in $(FUZZ_TARGETS); do \
	    kind=$${t#fuzz_}; out=$(FUZZ_OUT)/$$t; mkdir -p $$out/corpus; \
	    echo "== $$t ($(FUZZ_SECONDS) s)"; \
	    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
	    $(FUZZ_BUILD)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2560 \
	        -max_len=$$( [ $$kind = model ] && echo 131072 || echo 8192 ) \
	        -artifact_prefix=$$out/ -print_final_stats=1 \
	        $$( [ -f tests/fuzz/$$kind.dict ] && echo -dict=tests/fuzz/$$kind.dict ) \
	        $$out/corpus $(FUZZ_BUILD)/seeds/$$kind tests/fuzz/regress/$$kind \
	        $$( [ $$kind = model ] && echo $(FUZZ_BUILD)/seeds/malformed/files ); \
	done
