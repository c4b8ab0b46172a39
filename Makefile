# ocrec — build, test, install.
#   make                 build ./ocrec (objects under $(BUILD))
#   make check           build and run the whole test suite
#   make check SANITIZE=1  the same under AddressSanitizer + UBSan (separate build dir)
#   make deps            install the Debian packages ocrec needs (root)
#   make fuzz            build the libFuzzer target for the perf.data reader
#   make demo            record and report the bundled demo program (contrib/demo)
#   make bench           run the benchmarks: ocrec against perf, ocperf.py, llvm-profgen
#   make install         PREFIX=/usr/local DESTDIR=

VERSION  := 0.1.0
PREFIX   ?= /usr/local
DESTDIR  ?=
CC       ?= cc
PKGS     := jansson libcurl libelf libdw capstone libzstd zlib
# Linked normally; libcurl, libcapstone and libpfm4 are loaded on first use
# (src/dlib/dlib.h, src/events/download.c): they cost milliseconds at start-up.
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

MAN_PAGES := $(wildcard docs/*.1)

.PHONY: all check test-bins deps fuzz install clean bench
all: ocrec

ocrec: $(BUILD)/ocrec
	@ln -sf $(BUILD)/ocrec ocrec

$(BUILD)/ocrec: $(CLI_OBJ) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

# builtin.c embeds the built-in event table with .incbin (make runs at the top).
$(BUILD)/src/events/builtin.o: events/intel-architectural.json

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

test-bins: $(BUILD)/ocrec $(UNIT_BIN) $(HELPER_BIN)

# The one test command: builds everything and runs unit + end-to-end tests.
check: test-bins
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) sh tests/run.sh $(T)

deps:
	sh contrib/install-deps.sh

# The reader and what it uses, instrumented for libFuzzer.
fuzz: test-bins
	@mkdir -p $(BUILD)/fuzz
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Isrc $(PKG_CFLAGS) \
	    -o $(BUILD)/fuzz/fuzz-perfdata tests/fuzz/fuzz-perfdata.c \
	    $(wildcard src/perfdata/*.c) $(wildcard src/script/*.c) $(wildcard src/session/*.c) \
	    $(wildcard src/symbols/*.c) \
	    src/dlib/dlib.c $(wildcard src/util/*.c) $(LDLIBS)

# Each benchmark runs ocrec and its peer on the same input and prints both and the
# ratio (hyperfine, perf, llvm-14 from make deps). bench/autofdo-gawk.sh builds gawk
# from Debian's sources (root, network, an hour): run it by hand.
BENCHES := events script report autofdo record sampler
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

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
