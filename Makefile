# ocrec — build, test, install.
#   make                 build ./ocrec (objects under $(BUILD))
#   make check           build and run the whole test suite
#   make check SANITIZE=1  the same under AddressSanitizer + UBSan (separate build dir)
#   make deps            install the Debian packages ocrec needs (root)
#   make fuzz            build the libFuzzer targets (tests/fuzz: build/fuzz/fuzz-NAME)
#   make demo            record and report the bundled demo program (contrib/demo)
#   make bench           run the benchmarks: ocrec against perf, ocperf.py, llvm-profgen
#   make install         PREFIX=/usr/local DESTDIR=

VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
PKGS     := jansson libcurl libelf libdw capstone libzstd zlib unicorn
# Linked normally; libcurl, libcapstone, libpfm4 and libunicorn are loaded on first
# use (src/dlib/dlib.h, src/events/download.c): they cost milliseconds at start-up
# (libunicorn, GPL-2.0, is never linked into MIT ocrec: the software branch sampler
# emulates with it when it is there).
LINKED_PKGS := jansson libelf libdw libzstd zlib

ifeq ($(SANITIZE),1)
BUILD    ?= build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
BUILD    ?= build
SANFLAGS :=
endif

WARN     := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wmissing-prototypes
ifeq ($(WERROR),1)
WARN     += -Werror
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(LINKED_PKGS) 2>/dev/null)
CFLAGS   ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(CFLAGS) $(WARN) $(SANFLAGS) -Isrc $(PKG_CFLAGS) \
              -DOCREC_VERSION='"$(VERSION)"' -MMD -MP
LDLIBS   := $(PKG_LIBS) -ldl -lpthread -lm
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS)

# The library: every module below src/ except the command-line front end.
LIB_SRC  := $(sort $(filter-out src/cli/%,$(wildcard src/*/*.c)))
CLI_SRC  := $(sort $(wildcard src/cli/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libocrec.a

UNIT_SRC := $(sort $(wildcard tests/unit/test-*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(BUILD)/tests/helpers/%)
# Fuzz targets: tests/fuzz/fuzz-NAME.c, each also built without libFuzzer
# (with tests/fuzz/replay.c) so that `make check` replays their inputs.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz-*.c))
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/%.c=%)
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/%)
FUZZ_COMMON := tests/fuzz/common.c

MAN_PAGES := $(wildcard docs/*.1)

.PHONY: all check test-bins deps fuzz install clean bench
all: ocrec

ocrec: $(BUILD)/ocrec
	@ln -sf $(BUILD)/ocrec ocrec

$(BUILD)/ocrec: $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

# builtin.c embeds the built-in event table with .incbin (make runs at the top).
$(BUILD)/src/events/builtin.o $(BUILD)/fuzz/obj/src/events/builtin.o: events/intel-architectural.json

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/tests/helpers/%: tests/helpers/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/tests/fuzz/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/fuzz -DOCREC_SRCDIR='"$(CURDIR)"' -c -o $@ $<

$(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/common.o $(BUILD)/tests/fuzz/replay.o $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

# (objects kept: make would delete them as intermediate files)
.SECONDARY: $(FUZZ_REPLAY:%=%.o) $(BUILD)/tests/fuzz/common.o $(BUILD)/tests/fuzz/replay.o

test-bins: $(BUILD)/ocrec $(UNIT_BIN) $(HELPER_BIN) $(FUZZ_REPLAY)

# The one test command: builds everything and runs unit + end-to-end tests.
check: test-bins
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) sh tests/run.sh $(T)

deps:
	sh contrib/install-deps.sh

# libFuzzer targets: the whole library built again by clang with the fuzzer's
# coverage instrumentation and ASan+UBSan, one executable per tests/fuzz/fuzz-NAME.c.
# Run them with tests/fuzz/run-fuzz.sh (docs/fuzzing.md).
FUZZ_CC    ?= clang
FUZZ_DIR   := $(BUILD)/fuzz
FUZZ_FLAGS := -std=gnu11 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
              -fno-sanitize-recover=all $(WARN) -Isrc $(PKG_CFLAGS) -DOCREC_VERSION='"$(VERSION)"' -MMD -MP
FUZZ_OBJ   := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BIN   := $(FUZZ_NAMES:%=$(FUZZ_DIR)/%)

fuzz: $(FUZZ_BIN)

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/libocrec.a: $(FUZZ_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/%: tests/fuzz/%.c $(FUZZ_COMMON) tests/fuzz/common.h $(FUZZ_DIR)/libocrec.a
	$(FUZZ_CC) $(filter-out -MMD -MP,$(FUZZ_FLAGS)) -Itests/fuzz -DOCREC_SRCDIR='"$(CURDIR)"' \
	    -fsanitize=fuzzer -o $@ $< $(FUZZ_COMMON) $(FUZZ_DIR)/libocrec.a $(LDLIBS)

# Each benchmark runs ocrec and its peer on the same input and prints both and the
# ratio (hyperfine, perf, llvm-14, bolt-16 from make deps). bench/autofdo-gawk.sh and
# bench/bolt-gawk.sh build gawk from Debian's sources (root, network, an hour): run
# them by hand.
BENCHES := events script report autofdo bolt record sampler
bench: test-bins
	@for b in $(BENCHES); do \
		echo "== bench/$$b.sh"; \
		BUILD=$(BUILD) OCREC=$(abspath $(BUILD))/ocrec sh bench/$$b.sh || exit 1; \
	done

# The README's first command: record the bundled demo program with branch stacks (LBR,
# or the software branch sampler where there is none) and show ocrec's views of it.
DEMO := $(BUILD)/demo
.PHONY: demo
demo: ocrec
	@mkdir -p $(DEMO)
	$(CC) -O2 -g -o $(DEMO)/flag contrib/demo/flag.c
	$(BUILD)/ocrec info
	$(BUILD)/ocrec record -b -o $(DEMO)/perf.data $(DEMO)/flag
	$(BUILD)/ocrec report -i $(DEMO)/perf.data --sort symbol_from,symbol_to --stdio
	$(BUILD)/ocrec report -i $(DEMO)/perf.data --source --stdio
	$(BUILD)/ocrec report -i $(DEMO)/perf.data --branch-history --max-rows 1 --stdio
	$(BUILD)/ocrec autofdo -i $(DEMO)/perf.data --binary $(DEMO)/flag -o $(DEMO)/flag.prof
	@echo "AutoFDO profile for clang -fprofile-sample-use: $(DEMO)/flag.prof"

# Installs the binary, the man pages (docs/*.1), bash completion and the flame-graph
# converter. Depends on the binary, not on the ./ocrec link, so that installing from
# another BUILD leaves the source tree alone.
install: $(BUILD)/ocrec
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 $(BUILD)/ocrec $(DESTDIR)$(PREFIX)/bin/ocrec
	install -m 755 contrib/ocrec-flamegraph $(DESTDIR)$(PREFIX)/bin/ocrec-flamegraph
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 contrib/ocrec.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/ocrec

clean:
	rm -rf build build-san build-* ocrec

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(wildcard $(BUILD)/fuzz/obj/src/*/*.d $(BUILD)/tests/fuzz/*.d)
