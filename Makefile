# gguffs - mount a GGUF model file as a read-only directory tree.
#
#   make            build ./gguffs
#   make check      build and run every test (installs missing Debian packages as root)
#   make check-arm  cross-build for aarch64 and run the decoder tests under qemu
#   make demo       mount a small model from tests/data and show it
#   make bench      decode and FUSE throughput figures
#   make fuzz       libFuzzer targets (FUZZ_SECONDS=N each)
#   make install    PREFIX=/usr/local DESTDIR=

CC ?= cc
PREFIX ?= /usr/local
BUILD ?= build

ARCH := $(shell $(CC) -dumpmachine 2>/dev/null)
X86 := $(if $(findstring x86_64,$(ARCH)),1,)
ARM64 := $(if $(findstring aarch64,$(ARCH)),1,)

FUSE_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
FUSE_LIBS := $(shell pkg-config --libs fuse3 2>/dev/null || echo -lfuse3)

# -ffp-contract=off: never fuse a multiply and an add the reference does not fuse.
WARN := -Wall -Wextra -Wno-unused-parameter
BASE_CFLAGS := -std=c11 -O2 -g $(WARN) -ffp-contract=off -fno-strict-aliasing \
	-D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Iinclude -Isrc -fopenmp -pthread
CFLAGS ?=
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS)
LDLIBS := -lcurl -lcjson -lm -fopenmp -pthread

AVX2_FLAGS := -mavx2 -mfma -mf16c -mbmi -mbmi2 -mlzcnt -mpopcnt
AVX512_FLAGS := $(AVX2_FLAGS) -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512cd

# The layers of src/, lowest first: a file includes headers of its own
# folder and of the folders before it (`make layers` checks it).
LAYERS := base decode cache source gguf text read remote tree app
# The core library: no FUSE and no command line in it (app/ has those).
APP_SRC := $(wildcard src/app/*.c)
CORE_SRC := $(filter-out $(APP_SRC) src/decode/%,$(wildcard src/*/*.c))
# The HTTP layer (remote/) needs libcurl's headers; a compiler without them
# (the aarch64 cross build) builds the rest of the core, which opens local
# files only.
NET_SRC := $(wildcard src/remote/*.c)
HAVE_CURL := $(shell $(CC) -E -include curl/curl.h -x c /dev/null >/dev/null 2>&1 && echo 1)
CORE_SRC := $(if $(HAVE_CURL),$(CORE_SRC),$(filter-out $(NET_SRC),$(CORE_SRC)))
DECODE_SRC := $(filter-out %_simd.c,$(wildcard src/decode/*.c))
# The kernels; the CPU dispatch and the f16 conversion of decode/ keep -O2.
KERNEL_SRC := $(filter-out src/decode/cpu.c src/decode/halfconv.c,$(DECODE_SRC))
# SIMD kernels: each family's src/decode/<family>_simd.c is compiled once per
# target into <family>_avx2.o, _avx512.o and _neon.o, on every architecture;
# an object whose target is foreign to the compiler holds an empty kernel list.
SIMD_TARGETS := avx2 avx512 neon
SIMD_FAMILIES := $(patsubst src/decode/%_simd.c,%,$(wildcard src/decode/*_simd.c))
SIMD_OBJ := $(foreach f,$(SIMD_FAMILIES),$(foreach t,$(SIMD_TARGETS),$(BUILD)/src/decode/$(f)_$(t).o))
LIB_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(CORE_SRC) $(DECODE_SRC)) $(SIMD_OBJ)
APP_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(APP_SRC))
# The command-line tools (--dump, --verify, --cat and the model set it opens),
# which the fuzzers drive too.
TOOLS_OBJ := $(filter %/tools.o %/mountset.o,$(APP_OBJ))

TEST_PROGS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(wildcard tests/*.c))

.PHONY: lib all check check-run check-arm decode-tests demo bench fuzz install uninstall clean deps tests layers
all: gguffs

gguffs: $(LIB_OBJ) $(APP_OBJ)
	$(CC) -o $@ $^ $(FUSE_LIBS) $(LDLIBS)

# The core as a static library (no FUSE in it); `make lib CC=aarch64-linux-gnu-gcc
# BUILD=build-arm` checks that it builds for another architecture. Plain
# linking works: the kernel registry refers to every family object.
lib: $(BUILD)/libgguffs.a
$(BUILD)/libgguffs.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

TARGET_FLAGS_avx2 := $(if $(X86),$(AVX2_FLAGS))
TARGET_FLAGS_avx512 := $(if $(X86),$(AVX512_FLAGS))
TARGET_FLAGS_neon :=

# -O3 for the kernels: measured up to 2x on the row-interleaved types and
# +7 % median over -O2. The K-quants keep -O2 without SLP vectorization:
# their scale unpacking is faster in general registers (Q2_K, Q4_K on AVX2:
# 5-10 %).
SIMD_OPT := -O3
# The scalar kernels (src/decode/*.c) too. Three families are not
# vectorized: SSE2 vectorization of their strided byte loads and 32-bit
# multiplies made Q8_K_R16, Q8_K_R8, IQ2_KT, Q6_0 and IQ4_K 1.3-2x slower.
$(patsubst %.c,$(BUILD)/%.o,$(KERNEL_SRC)): FILE_FLAGS := -O3
$(BUILD)/src/decode/ik_interleaved.o $(BUILD)/src/decode/ik_k.o \
$(BUILD)/src/decode/ik_kt.o: FILE_FLAGS := -O3 -fno-tree-vectorize
$(BUILD)/src/decode/kquants_%.o: SIMD_OPT := -O2 -fno-tree-slp-vectorize
define SIMD_RULE
$$(BUILD)/src/decode/%_$(1).o: src/decode/%_simd.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_CFLAGS) $$(SIMD_OPT) $$(TARGET_FLAGS_$(1)) -DGG_TARGET=$(1) -MMD -MP -c -o $$@ $$<
endef
$(foreach t,$(SIMD_TARGETS),$(eval $(call SIMD_RULE,$(t))))
# Dependency files of older builds may still name the per-target sources and
# headers these objects were once compiled from; they are gone, nothing to make.
src/decode/%_avx2.c src/decode/%_avx512.c: ;
src/decode/ik_interleaved_x86.h src/decode/forks_x86.h: ;

# app/ sees libfuse's headers; the core does not.
$(APP_OBJ): FILE_FLAGS := $(FUSE_CFLAGS)

# FILE_FLAGS: a file's own flags (the kernels' -O3, above; app/'s FUSE headers).
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FILE_FLAGS) -MMD -MP -c -o $@ $<

# (-MF: a program compiled and linked in one step; its .d names its headers)
$(BUILD)/tests/%: tests/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIB_OBJ) $(LDLIBS)

$(BUILD)/bench/%: bench/%.c $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(LIB_OBJ) $(LDLIBS)

tests: $(TEST_PROGS)

# Decoder tests linked against the static library alone (only the objects
# they need are pulled in: no cJSON, no FUSE), for a cross build.
DECODE_TESTS := $(BUILD)/libtests/decode_ref $(BUILD)/libtests/simd_prop $(BUILD)/libtests/test_quantize
$(BUILD)/libtests/%: tests/%.c $(BUILD)/libgguffs.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -MF $@.d -o $@ $< $(BUILD)/libgguffs.a -lm -fopenmp -pthread
decode-tests: $(DECODE_TESTS)

# `make check-arm`: the aarch64 build (NEON kernels) in build-arm/, its
# decoder tests run under qemu-user on every reference set, NEON and scalar,
# and the quantizers' (NEON equals scalar, and the properties).
ARM_CC ?= aarch64-linux-gnu-gcc
ARM_BUILD ?= build-arm
ARM_RUN ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
check-arm:
	@$(MAKE) -s --no-print-directory CC=$(ARM_CC) BUILD=$(ARM_BUILD) decode-tests
	@set -e; for isa in neon scalar; do \
	    RUN="$(ARM_RUN)" BIN=$(ARM_BUILD)/libtests/decode_ref STRICT=1 tests/decode_all.sh $$isa; done
	@$(ARM_RUN) $(ARM_BUILD)/libtests/simd_prop --bytes 1048576
	@$(ARM_RUN) $(ARM_BUILD)/libtests/test_quantize

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

deps:
	@tests/deps.sh

# The folders of src/ lowest first; fails naming the file and the include
# where a file reaches up into a folder above its own.
layers:
	@tests/layers.sh $(LAYERS)

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
	rm -rf $(BUILD) $(ARM_BUILD) gguffs
