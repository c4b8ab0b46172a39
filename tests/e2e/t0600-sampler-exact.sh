# The software branch sampler's engine is exact: back-to-back windows of N taken
# branches list the very branches a full single-step trace of the same run
# lists, in order (programs with known control flow: jump table, recursion,
# indirect calls, loops, signals, branches on memory, hand-overs from the
# interpreter to libunicorn). Windows are emulated (ocrec's interpreter, then
# libunicorn) and followed with breakpoints and decoding from where emulation
# stops, the emulated branches guiding the plans; the helper then follows the
# thread to each window's end without them and prints the emulated branches,
# so that the full trace judges emulation. The follower alone (without
# libunicorn, or OCREC_SAMPLER_EMULATION=0), libunicorn alone
# (OCREC_SAMPLER_INTERPRETER=0), the interpreter alone, followed where it
# stops (OCREC_SAMPLER_LIBUNICORN=0, as where libunicorn is missing) and
# verify mode (every emulated part followed without the emulated branches)
# are checked too.
. "$(dirname "$0")/../lib.sh"
HELPER=$BUILD/tests/helpers/sampler-trace
PROGS=$ROOT/tests/progs
need_helper sampler-trace
case $(uname -m) in x86_64) ;; *) skip sampler-exact "the software branch sampler decodes x86-64 only"; exit 0 ;; esac

# Static programs start with fewer branches (no dynamic loader); fall back
# to dynamic ones where libc.a is missing.
static=-static
echo 'int main(void){return 0;}' >"$TMP/s.c"
cc -static -o "$TMP/s" "$TMP/s.c" 2>/dev/null || static=
cc_prog flow "$PROGS/sampler-flow.c" $static
cc_prog loop "$PROGS/loop.c" $static
cc_prog div "$PROGS/div.c" -DITERS=1000 $static
cc_prog signal "$PROGS/sampler-signal.c" $static
cc_prog memory "$PROGS/sampler-memory.c" $static
cc_prog int3 "$PROGS/sampler-int3.c" $static
cc_prog handover "$PROGS/sampler-handover.c" $static

# Trace from main on (the C start-up code is long to single-step); the
# address is fixed in a static program run without address randomization.
start_of() {
	[ -n "$static" ] && nm "$1" | awk '$3 == "main" { print "--start", $1 }'
}

# Emulation needs libunicorn (loaded at run time); without it the engine
# follows every window, and the checks of emulation itself are skipped.
if ldconfig -p 2>/dev/null | grep -q 'libunicorn\.so\.2 '; then
	unicorn=yes
else
	unicorn=
	skip "emulated windows" "libunicorn.so.2 is not installed (make deps): windows are only followed"
fi

# windows NAME LABEL HELPER-ARGS...: one windows run, checked against NAME's
# full trace.
windows() {
	_n=$1 _label=$2; shift 2
	"$HELPER" windows "$@" >"$TMP/$_n.win" 2>"$TMP/$_n.err"
	check_files_eq "$_n: $_label = single-step trace" "$TMP/$_n.full" "$TMP/$_n.win"
	# a plan that ran otherwise but rejoined would not show in the trace:
	# the registers at each stop are the planned ones, each emulated part
	# followed without the emulated branches took the same ones, and no
	# window was dropped (a thread that overran its limit)
	check_match "$_n: $_label: registers at every stop as planned, none dropped" \
		' mismatches 0 diverged 0 blocked 0 lost 0$' "$(tail -n 1 "$TMP/$_n.err")"
}

# exact NAME PROG ARGS...: the windows at several depths equal the full trace.
exact() {
	_n=$1; shift
	_start=$(start_of "$1")
	"$HELPER" full $_start -- "$@" >"$TMP/$_n.full" 2>/dev/null
	if [ "$(wc -l <"$TMP/$_n.full")" -lt 100 ]; then
		fail "$_n full trace" "only $(wc -l <"$TMP/$_n.full") lines"
		return
	fi
	for plan in 1:4 7:1 32:4; do
		depth=${plan%:*} leaves=${plan#*:}
		windows "$_n" "windows of $depth ($leaves leaves)" $depth --leaves $leaves $_start -- "$@"
	done
	if [ -n "$unicorn" ]; then
		check_match "$_n: windows of 32: emulated, interpreted" '^emulated [1-9][0-9]* interpreted [1-9]' \
			"$(tail -n 2 "$TMP/$_n.err" | head -n 1)"
		export OCREC_SAMPLER_INTERPRETER=0
		windows "$_n" "windows of 32, libunicorn alone" 32 $_start -- "$@"
		unset OCREC_SAMPLER_INTERPRETER
		check_match "$_n: windows of 32, libunicorn alone: emulated, nothing interpreted" \
			'^emulated [1-9][0-9]* interpreted 0 ' "$(tail -n 2 "$TMP/$_n.err" | head -n 1)"
		export OCREC_SAMPLER_LIBUNICORN=0
		windows "$_n" "windows of 32, the interpreter alone" 32 $_start -- "$@"
		unset OCREC_SAMPLER_LIBUNICORN
		check_match "$_n: windows of 32, the interpreter alone: all that was emulated, interpreted" \
			'^emulated ([1-9][0-9]*) interpreted \1 ' "$(tail -n 2 "$TMP/$_n.err" | head -n 1)"
		windows "$_n" "windows of 32, verify" 32 --verify $_start -- "$@"
		windows "$_n" "windows of 32, followed alone" 32 --follow $_start -- "$@"
		check_match "$_n: windows of 32, followed alone: nothing emulated" '^emulated 0 ' \
			"$(tail -n 2 "$TMP/$_n.err" | head -n 1)"
	fi
}

exact flow "$TMP/flow" 20
exact loop "$TMP/loop" 100
exact div "$TMP/div"
exact signal "$TMP/signal" 300
# branches on memory the program writes (vector stores, memset, function
# pointers, a shared mapping seen at two addresses)
exact memory "$TMP/memory" 20
# the program's own int3 instructions reach its SIGTRAP handler
exact int3 "$TMP/int3" 50
check_eq "int3: the program's own traps are delivered (exit 0)" "exit 0" "$(tail -n 1 "$TMP/int3.full")"
check_eq "int3: and so they are between windows" "exit 0" "$(tail -n 1 "$TMP/int3.win")"
# windows the interpreter starts and libunicorn (or, at x87, the follower)
# finishes, with its registers, flags and xmm values
exact handover "$TMP/handover" 300
if [ -n "$unicorn" ]; then
	windows handover "windows of 32 once more" 32 $(start_of "$TMP/handover") -- "$TMP/handover" 300
	check "handover: the interpreter ran part of the windows, libunicorn the rest" awk \
		'/^emulated / { exit !($2 > $4 && $4 > 0) }' "$TMP/handover.err"
	OCREC_SAMPLER_LIBUNICORN=0 "$HELPER" windows 32 $(start_of "$TMP/handover") -- "$TMP/handover" 300 \
		>/dev/null 2>"$TMP/handover-alone.err"
	check_match "handover, the interpreter alone: it stops where libunicorn would go on" \
		' no libunicorn [1-9]' "$(tail -n 2 "$TMP/handover-alone.err" | head -n 1)"
fi

# A loaded machine: the program waits for a CPU (here at idle priority beside
# a busy loop on its CPU; the helper unstarves itself) far longer than the
# limits a round or a syscall step has. It neither ran away from its plan
# nor blocked: no window may be dropped for that.
if [ -n "$static" ] && command -v taskset >/dev/null && command -v chrt >/dev/null; then
	"$HELPER" full $(start_of "$TMP/flow") -- "$TMP/flow" 3 >"$TMP/short.full" 2>/dev/null
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	taskset -c 0 chrt --idle 0 "$HELPER" windows 32 $(start_of "$TMP/flow") -- "$TMP/flow" 3 \
		>"$TMP/starved.win" 2>"$TMP/starved.err"
	kill $hog
	check_files_eq "a starved program: windows of 32 = single-step trace" "$TMP/short.full" "$TMP/starved.win"
	check_match "a starved program: no window dropped" ' blocked 0 lost 0$' "$(tail -n 1 "$TMP/starved.err")"
else
	skip "a starved program" "needs a static libc, taskset and chrt"
fi

# The engine stops threads with debug registers where they fire, else with
# int3 written into the code (some hypervisors do not pass debug registers
# through). Where debug registers fire, the int3 way is checked too.
kind=$("$HELPER" windows 32 -- "$TMP/flow" 20 2>&1 >/dev/null | sed -n 's/^breakpoints: //p')
check_match "the engine names the breakpoints it uses" '^(int3|debug registers)$' "$kind"
if [ "$kind" = "debug registers" ]; then
	export OCREC_SAMPLER_BREAKPOINTS=int3
	exact flow-int3 "$TMP/flow" 20
	exact memory-int3 "$TMP/memory" 20
	exact int3-int3 "$TMP/int3" 50
	unset OCREC_SAMPLER_BREAKPOINTS
else
	skip "exactness with debug registers" "they do not fire on this machine: the engine uses int3 here, checked above"
fi

# Windows that run on to their starting point (as the sampler records them)
# are still runs of consecutive real branches, in order.
"$HELPER" windows 32 --seek $(start_of "$TMP/flow") -- "$TMP/flow" 20 >"$TMP/seek.win" 2>/dev/null
check "windows that seek their starting point are pieces of the trace, in order" \
	awk 'function place(   p, i) {
		for (p = at; p + nw - 1 <= n; p++) {
			for (i = 1; i <= nw && full[p + i - 1] == win[i]; i++);
			if (i > nw) { at = p + nw; return 1 }
		}
		return 0
	     }
	     NR == FNR { if (NF == 3) full[++n] = $0; next }
	     /^--$/ { if (nw && !place()) exit 1; nw = 0; windows++; next }
	     NF == 3 { win[++nw] = $0 }
	     BEGIN { at = 1 }
	     END { exit !(windows > 5) }' "$TMP/flow.full" "$TMP/seek.win"

# A dynamic program from its first instruction: the loader, PLT calls and
# jump tables (one jumps to the very next instruction: still a taken branch).
cc_prog flowdyn "$PROGS/sampler-flow.c"
"$HELPER" full -- "$TMP/flowdyn" 3 >"$TMP/flowdyn.full" 2>/dev/null
windows flowdyn "from exec, windows of 32" 32 -- "$TMP/flowdyn" 3
[ -n "$unicorn" ] && windows flowdyn "from exec, windows of 32, verify" 32 --verify -- "$TMP/flowdyn" 3

# A real program from exec (loader, libc start-up, an interpreter): the
# planner resolves most branches from register arithmetic it follows ahead
# (emu.c); one wrong guess there would show as a difference here.
if command -v mawk >/dev/null 2>&1; then
	prog='BEGIN { for (i = 0; i < 30; i++) s += i % 7; print s }'
	"$HELPER" full -- mawk "$prog" >"$TMP/mawk.full" 2>"$TMP/mawk.full.err"
	check_match "mawk from exec: a long trace" '^[0-9]{5,}$' "$(wc -l <"$TMP/mawk.full")"
	# a syscall step that waits for a CPU on a loaded machine is not a
	# blocking syscall: no window may be dropped for it
	windows mawk "from exec, windows of 32" 32 -- mawk "$prog"
	if [ -n "$unicorn" ]; then
		windows mawk "from exec, windows of 32, verify" 32 --verify -- mawk "$prog"
		windows mawk "from exec, windows of 32, followed alone" 32 --follow -- mawk "$prog"
	fi
	# glibc's string functions in their AVX2 or AVX-512 versions (by the
	# CPU), whose vector instructions ocrec emulates itself (vec.c); capstone
	# 4 does not decode some of them (kmovd), which must not read as branches
	prog='BEGIN { s = "alpha,beta,gamma,delta"; for (i = 0; i < 8; i++) { n += split(s, a, ","); t = t substr(s, 1 + i % 7, 5) toupper(a[1 + i % 4]); if (index(t, "mma")) c++ } print n, c, length(t), t }'
	"$HELPER" full -- mawk "$prog" >"$TMP/mawks.full" 2>"$TMP/mawks.full.err"
	windows mawks "strings, windows of 32" 32 -- mawk "$prog"
	if [ -n "$unicorn" ]; then
		windows mawks "strings, windows of 32, verify" 32 --verify -- mawk "$prog"
	fi
else
	skip "mawk from exec" "mawk is not installed"
fi
# The traces hold the branch kinds the programs were written to have.
types_of() { awk 'NF == 3 { print $3 }' "$TMP/$1.full" | sort -un | tr '\n' ' '; }
check_match "flow: conditional, direct and indirect jumps, calls, indirect calls, returns" \
	'(^| )1 2 3 4 5 6 ' "$(types_of flow)"
check_match "signal: signal delivery (IRQ) and sigreturn (SYSCALL) entries" '(^| )7 .*12 ' "$(types_of signal)"
check_eq "signal: the program's exit status is kept (3 handled signals)" "exit 3" "$(tail -n 1 "$TMP/signal.full")"
check_eq "signal: one handler entry per handled signal" 3 "$(awk '$3 == 12' "$TMP/signal.full" | wc -l)"
check_eq "flow: exit status 3 kept" "exit 3" "$(tail -n 1 "$TMP/flow.full")"

# loop.c: foo() is called in half of the inner iterations: 5 calls per outer one.
foo=$(nm "$TMP/loop" | awk '$3 == "foo" { sub(/^0+/, "", $1); print $1 }')
check_eq "loop: foo() called 5 times per outer iteration (100)" 500 \
	"$(awk -v f="$foo" '$2 == f && $3 == 4' "$TMP/loop.full" | wc -l)"
