#!/bin/sh
# ocrec script on files recorded here (software events) by perf 6.1 and by
# ocrec record: plain, call chains (-g), two events, zstd-compressed (-z), pipe
# mode, and ocrec's software branch stacks must print what perf script prints
# for the same fields, the symbol fields (sym, symoff, dso, brstacksym) and the
# default output (no -F: ip, sym+off and dso) included, byte for byte.
. "$(dirname "$0")/../lib.sh"
need_cmd perf
cc_prog loop "$ROOT/tests/progs/loop.c"
F=comm,tid,pid,time,period,event,ip
# the symbol fields alone, with the ip, with call-chain frames, with branch stacks
SYMF="ip,sym ip,sym,symoff ip,dso ip,sym,symoff,dso comm,tid,ip,sym,dso sym,dso ip,brstacksym
comm,tid,ip,sym,dso,brstacksym ip,dso,brstack ip,brstack,brstacksym"

compare() {  # NAME FILE [ARGS...]: perf script and ocrec script with ARGS print the same
	n=$1 f=$2
	shift 2
	perf script -i "$f" "$@" >"$TMP/$n.perf" 2>"$TMP/$n.perf-err"
	"$OCREC" script -i "$f" "$@" >"$TMP/$n.ocrec" 2>"$TMP/$n.err"
	if [ ! -s "$TMP/$n.perf" ]; then
		fail "$n" "perf script $* printed nothing ($(head -n 3 "$TMP/$n.perf-err")); ocrec script: $(wc -l <"$TMP/$n.ocrec") lines; perf report: $(perf report -i "$f" --stdio --header-only 2>&1 | grep -E 'sample|error' | head -n 3)"
	else
		check_files_eq "$n: equals perf script ${*:-(default fields)} ($(wc -l <"$TMP/$n.perf") lines)" \
			"$TMP/$n.perf" "$TMP/$n.ocrec"
		# a live recording can hold what no fixture does (seen: a chain
		# ending in -1, which perf drops whole; see t0320): the recording
		# and both outputs stay beside the test's log
		cmp -s "$TMP/$n.perf" "$TMP/$n.ocrec" || cp "$f" "$TMP/$n.perf" "$TMP/$n.ocrec" "$BUILD/test-log/" ||
			echo "t0302: could not keep $f for a look" >&2
	fi
}

compare_all() {  # NAME FILE: the numeric fields, the default and every symbol field set
	compare "$1" "$2" -F $F
	compare "$1" "$2"
	for sf in $SYMF; do
		compare "$1" "$2" -F "$sf"
	done
}

rec() {  # NAME PERF-RECORD-ARGS...
	n=$1; shift
	if ! perf record -q -o "$TMP/$n.data" "$@" "$TMP/loop" 30000000 >/dev/null 2>"$TMP/$n.recerr"; then
		skip "$n" "perf record $* does not work here: $(head -n 1 "$TMP/$n.recerr")"
		return 1
	fi
}

rec plain -e cpu-clock -c 200000 && compare_all plain "$TMP/plain.data"
# --symfs: binaries and the build-id cache (DIR/.debug) under DIR only, no kallsyms;
# "/" is no symfs at all
mkdir -p "$TMP/empty"
if [ -f "$TMP/plain.data" ]; then
	compare plain "$TMP/plain.data" --symfs "$TMP/empty"
	compare plain "$TMP/plain.data" --symfs /
fi
rec callchain -e cpu-clock -c 200000 -g && compare_all callchain "$TMP/callchain.data"
rec two-events -e cpu-clock,task-clock -c 200000 && compare_all two-events "$TMP/two-events.data"
# without build-ids: kernel names from kallsyms, libraries' debug files found by
# the build-id read from the library itself, as perf finds them
rec compressed -z -e cpu-clock -c 200000 && compare_all compressed "$TMP/compressed.data"
# a shell that forks and execs: perf keeps a process's maps across exec()
if perf record -q -e cpu-clock -c 100000 -g -o "$TMP/shell.data" -- \
	/bin/sh -c "$TMP/loop 3000000; exec $TMP/loop 3000000" >/dev/null 2>&1; then
	compare shell "$TMP/shell.data"
	compare shell "$TMP/shell.data" -F comm,pid,tid,ip,sym,dso
fi

# page faults with their data addresses (-d): perf prints an address's symbol
# (variables too) and DSO after it; [vdso] symbols come from perf's ~/.debug copy
if rec faults -e page-faults -c 1 -d; then
	for args in "" "-F addr,ip,sym,symoff,dso" "-F comm,addr,sym" "-F addr,dso"; do
		compare faults "$TMP/faults.data" $args
	done
fi
if perf record -q -e cpu-clock -c 200000 -o - "$TMP/loop" 30000000 >"$TMP/pipe.data" 2>/dev/null; then
	perf script -i - -F tid,period,ip <"$TMP/pipe.data" >"$TMP/pipe.perf" 2>/dev/null
	"$OCREC" script -i - -F tid,period,ip <"$TMP/pipe.data" >"$TMP/pipe.ocrec"
	check_files_eq "pipe mode from standard input: equals perf script (tid, period, ip)" "$TMP/pipe.perf" "$TMP/pipe.ocrec"
	for args in "" "-F ip,sym,symoff,dso"; do
		perf script -i - $args <"$TMP/pipe.data" >"$TMP/pipe.perf" 2>/dev/null
		"$OCREC" script -i - $args <"$TMP/pipe.data" >"$TMP/pipe.ocrec"
		check_files_eq "pipe mode: equals perf script ${args:-(default fields)} ($(wc -l <"$TMP/pipe.perf") lines)" \
			"$TMP/pipe.perf" "$TMP/pipe.ocrec"
	done
fi
# call chains in pipe mode: perf adds ip and sym to the fields, ocrec too
if perf record -q -e cpu-clock -c 200000 -g -o - "$TMP/loop" 30000000 >"$TMP/pipe-g.data" 2>/dev/null; then
	for args in "" "-F tid,ip" "-F ip,dso"; do
		perf script -i - $args <"$TMP/pipe-g.data" >"$TMP/pipe.perf" 2>/dev/null
		"$OCREC" script -i - $args <"$TMP/pipe-g.data" >"$TMP/pipe.ocrec"
		check_files_eq "pipe mode with call chains: equals perf script ${args:-(default fields)} ($(wc -l <"$TMP/pipe.perf") lines)" \
			"$TMP/pipe.perf" "$TMP/pipe.ocrec"
	done
fi

# files ocrec record writes: plain, call chains, software branch stacks
if "$OCREC" record -q -e cpu-clock -c 200000 -o "$TMP/oc.data" "$TMP/loop" 30000000 >/dev/null 2>"$TMP/oc.err"; then
	compare_all ocrec-plain "$TMP/oc.data"
else
	fail "ocrec record -e cpu-clock" "$(head -n 1 "$TMP/oc.err")"
fi
if "$OCREC" record -q -e cpu-clock -c 200000 -g -o "$TMP/ocg.data" "$TMP/loop" 30000000 >/dev/null 2>"$TMP/oc.err"; then
	compare_all ocrec-callchain "$TMP/ocg.data"
else
	fail "ocrec record -g" "$(head -n 1 "$TMP/oc.err")"
fi
# 10 million iterations: about 100 ms, so that a loaded machine still gives windows
if "$OCREC" record -q -b --branch-sampler=software -o "$TMP/ocb.data" "$TMP/loop" 10000000 >/dev/null 2>"$TMP/oc.err"; then
	compare_all ocrec-branches "$TMP/ocb.data"
else
	skip "ocrec record -b (software branch sampler)" "$(head -n 1 "$TMP/oc.err")"
fi

# JIT code (executable anonymous memory): perf names its DSO /tmp/perf-PID.map,
# maps its addresses 1:1 and reads its symbols from that file when there is one
if [ "$(uname -m)" = x86_64 ] && cc_prog jit "$ROOT/tests/progs/script-jit.c" &&
   perf record -q -e cpu-clock -c 200000 -g -o "$TMP/jit.data" "$TMP/jit" 100000000 >"$TMP/jit.out" 2>/dev/null; then
	compare jit-no-map "$TMP/jit.data"
	read -r jpid jaddr <"$TMP/jit.out"
	jmap=/tmp/perf-$jpid.map
	if [ -n "$jpid" ] && [ ! -e "$jmap" ]; then
		printf '%s 3 jit_setup\n%x 6 jit_loop\n' "$jaddr" $((0x$jaddr + 3)) >"$jmap"
		compare jit-map "$TMP/jit.data"
		compare jit-map "$TMP/jit.data" -F ip,sym,symoff,dso
		check_match "jit-map: the JIT's symbol is named" "jit_loop\+0x[0-9a-f]+ \($jmap\)" "$(cat "$TMP/jit-map.ocrec")"
		rm -f "$jmap"
	fi
fi

# C++: perf prints names demangled, without parameters ("ns::Words::count")
if ! command -v c++ >/dev/null 2>&1; then
	skip "C++ names" "no C++ compiler"
elif c++ -O2 -g -o "$TMP/cxx" "$ROOT/tests/progs/script-cxx.cc" &&
     perf record -q -e cpu-clock -c 100000 -g -o "$TMP/cxx.data" "$TMP/cxx" 1000000 >/dev/null 2>&1; then
	compare cxx "$TMP/cxx.data"
	compare cxx "$TMP/cxx.data" -F ip,sym,dso
	check_match "cxx: a method's name demangled" "ns::Words::count" "$(cat "$TMP/cxx.ocrec")"
fi

# a field the samples do not carry is refused, as perf does
"$OCREC" script -i "$TMP/plain.data" -F ip,cpu >/dev/null 2>"$TMP/err"
check_eq "a field the samples lack: exit 2" 2 $?
check_match "a field the samples lack: perf's message" "do not have CPU attribute set. Cannot print 'cpu' field" "$(cat "$TMP/err")"
# symoff without sym is refused with perf's message (its typo included)
perf script -i "$TMP/plain.data" -F ip,symoff >/dev/null 2>"$TMP/perf.err"
"$OCREC" script -i "$TMP/plain.data" -F ip,symoff >/dev/null 2>"$TMP/err"
check_eq "symoff without sym: exit 2" 2 $?
check_eq "symoff without sym: perf's message" "ocrec: $(head -n 1 "$TMP/perf.err")" "$(cat "$TMP/err")"
