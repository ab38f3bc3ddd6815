# gguffs - mount a GGUF model file as a read-only directory tree.
#
#   make            build ./gguffs
#   make check      build and run every test (installs missing Debian packages as root)
#   make demo       mount a small model from tests/data and show it
#   make bench      decode and FUSE throughput figures
#   make fuzz       libFuzzer targets (FUZZ_SECONDS=N each)
#   make install    PREFIX=/usr/local DESTDIR=

CC ?= cc
PREFIX ?= /usr/local
BUILD ?= build

ARCH := $(shell $(CC) -dumpmachine 2>/dev/null)
X86 := $(if $(findstring x86_64,$(ARCH)),1,)

FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
FUSE_LIBS := $(shell pkg-config --libs fuse3 2>/dev/null || echo -lfuse3)

# -ffp-contract=off: never fuse a multiply and an add the reference does not fuse.
WARN := -Wall -Wextra -Wno-unused-parameter
BASE_CFLAGS := -std=c11 -O2 -g $(WARN) -ffp-contract=off -fno-strict-aliasing \
	-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Iinclude -fopenmp -pthread
CFLAGS ?=
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS)
LDLIBS := -lcurl -lcjson -lm -fopenmp -pthread

AVX2_FLAGS := -mavx2 -mfma -mf16c -mbmi -mbmi2 -mlzcnt -mpopcnt
AVX512_FLAGS := $(AVX2_FLAGS) -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512cd

# The core library: no FUSE and no command line in it.
APP_SRC := src/main.c src/fuse.c src/options.c src/tools.c
CORE_SRC := $(filter-out $(APP_SRC),$(wildcard src/*.c))
DECODE_SRC := $(filter-out %_avx2.c %_avx512.c,$(wildcard src/decode/*.c))
ifeq ($(X86),1)
SIMD_SRC := $(wildcard src/decode/*_avx2.c src/decode/*_avx512.c)
endif
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC) $(DECODE_SRC) $(SIMD_SRC))
APP_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(APP_SRC))

TEST_PROGS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/*.c))

.PHONY: lib all check check-run demo bench fuzz install uninstall clean deps tests
all: gguffs

gguffs: $(LIB_OBJ) $(APP_OBJ)
	$(CC) -o $@ $^ $(FUSE_LIBS) $(LDLIBS)

# The core as a static library (no FUSE in it); `make lib CC=aarch64-linux-gnu-gcc
# BUILD=build-arm` checks that it builds for another architecture. Link it
# with --whole-archive: kernels are found through weak references.
lib: $(BUILD)/libgguffs.a
$(BUILD)/libgguffs.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

$(BUILD)/src/%_avx2.o: src/%_avx2.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(AVX2_FLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/src/%_avx512.o: src/%_avx512.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(AVX512_FLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/src/fuse.o $(BUILD)/src/main.o $(BUILD)/src/options.o: $(BUILD)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FUSE_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJ) $(LDLIBS)

tests: $(TEST_PROGS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

deps:
	@tests/deps.sh

# Set-up first, then a fresh make that sees what set-up installed.
check: deps
	@$(MAKE) --no-print-directory check-run

check-run: gguffs tests
	@BUILD=$(BUILD) tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory gguffs
	@tests/demo.sh

# Fragments that add targets (fuzzing, sanitizers, benchmarks).
-include tests/*.mk bench/*.mk

install: gguffs
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 gguffs $(DESTDIR)$(PREFIX)/bin/gguffs
	install -m 644 man/gguffs.1 $(DESTDIR)$(PREFIX)/share/man/man1/gguffs.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gguffs $(DESTDIR)$(PREFIX)/share/man/man1/gguffs.1

clean:
	rm -rf $(BUILD) gguffs
