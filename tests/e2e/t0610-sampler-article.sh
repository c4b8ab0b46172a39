# The software branch sampler end to end through the command line: `ocrec
# record -b PROG` on this LBR-less machine, then `ocrec report`, `perf report`,
# `perf script` and `ocrec autofdo` on the file. Programs with known control
# flow: the loop and div.c of Andi Kleen's "An introduction to last branch
# records" (LWN.net, 2016), a switch through a jump table, recursion, threads,
# signals. Counts are compared as ratios in wide bands: which windows are
# sampled is random, what is inside a window is exact (t0600 checks that
# against a single-step trace).
. "$(dirname "$0")/../lib.sh"
need_cmd perf cc
case $(uname -m) in x86_64) ;; *) skip sampler-article "the software branch sampler decodes x86-64 only"; exit 0 ;; esac
export HOME="$TMP/home"
mkdir -p "$HOME"
PROGS=$ROOT/tests/progs
cd "$TMP" || exit 1

# gcc 12 -O2 turns div.c's `if (i % 10 < 4)` (div.c:7-8) into a cmov; the
# article's compiler branched there, and a branch is what LBR (and the
# sampler) can see, so if-conversion is off.
cc_prog div "$PROGS/div.c" -DITERS=30000000 -fno-if-conversion -fno-if-conversion2 ||
	{ fail "compile div.c" "cc failed"; exit 1; }
cc_prog loop "$PROGS/loop.c" || { fail "compile loop.c" "cc failed"; exit 1; }
cc_prog flow "$PROGS/sampler-flow.c" || { fail "compile sampler-flow.c" "cc failed"; exit 1; }
cc_prog signal "$PROGS/sampler-signal.c" || { fail "compile sampler-signal.c" "cc failed"; exit 1; }
cc_prog raise "$PROGS/sampler-raise.c" || { fail "compile sampler-raise.c" "cc failed"; exit 1; }
cc_prog threads "$PROGS/record-threads.c" -pthread || { fail "compile record-threads.c" "cc failed"; exit 1; }

# brstacksym entries of a file, one per line: FROM/TO/.../TYPE
branches() { perf script -i "$1" -F brstacksym 2>/dev/null | tr ' ' '\n' | grep /; }

# --- div.c: the article's --branch-history example ---
"$OCREC" record -b -o div.data ./div >div.out 2>&1
check_eq "div: ocrec record -b exits 0" 0 $?
check_match "div: the summary says the stacks are emulated" 'emulated by the software sampler' "$(cat div.out)"
"$OCREC" report -i div.data --branch-history --stdio >div.history 2>div.err
check_eq "div: ocrec report --branch-history exits 0" 0 $?
# The paths into the division at div.c:25 (a top-level row) pass the flag
# set at div.c:8 (one of the "--" rows under it).
check_match "div: --branch-history: div.c:8 on the path to the division at div.c:25" 'compute_flag div\.c:8 ' \
	"$(awk '/^ +[0-9.]+% .*div\.c:25 / { on = 1; next } on && /^ +[0-9.]+% / { on = 0 } on' div.history)"
perf report -i div.data -b --stdio >div.perf 2>div.perf.err
check_eq "div: perf report -b exits 0" 0 $?
check_eq "div: perf report -b: no warning" "" "$(cat div.perf.err)"
check_match "div: perf report -b: main -> compute_flag" '\[\.\] main +\[\.\] compute_flag' "$(cat div.perf)"
perf report -i div.data -F overhead,symbol_from,symbol_to --stdio >div.perf2 2>div.perf2.err
check_eq "div: perf report -F overhead,symbol_from,symbol_to exits 0" 0 $?
check_eq "div: perf report -F overhead,symbol_from,symbol_to: no warning" "" "$(cat div.perf2.err)"
check_match "div: perf report -F: compute_flag -> main" '%  \[\.\] compute_flag +\[\.\] main' "$(cat div.perf2)"

# --- build-ids: every sampled object in BUILD_ID and in ~/.debug ---
id=$(readelf -n div 2>/dev/null | awk '/Build ID:/ { print $3 }')
check_match "div: perf buildid-list lists the program's build-id" "^$id .*/div\$" \
	"$(perf buildid-list -i div.data 2>/dev/null)"
check "div: the program is in the build-id cache" test -e "$HOME/.debug/.build-id/${id%"${id#??}"}/${id#??}"
mkdir -p "$TMP/home2"
HOME="$TMP/home2" "$OCREC" record -q -b --no-buildid-cache -o nocache.data ./div >/dev/null 2>&1
check_match "--no-buildid-cache: BUILD_ID still in the file" "^$id " "$(perf buildid-list -i nocache.data 2>/dev/null)"
check "--no-buildid-cache: nothing cached" test ! -e "$TMP/home2/.debug"

# --- loop.c: foo() is called in half of the inner iterations ---
# Each inner iteration ends with one backward branch in main (a loop
# back-edge); half of them call foo. Calls to foo / back-edges = 0.5 up to
# the windows' edges. 30M iterations (some 200 ms): with 3M a loaded machine
# (load 5) left the tracer 6 windows, 91 back-edges.
"$OCREC" record -b -q -o loop.data ./loop 30000000 >/dev/null 2>&1
check_eq "loop: ocrec record -b exits 0" 0 $?
branches loop.data >loop.br
read -r calls back <<EOF
$(awk -F/ '
	function hex(s,  i, v) { s = tolower(s); v = 0
		for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v }
	$1 ~ /^main\+0x/ && $2 == "foo+0x0" && $NF == "CALL" { c++ }
	$1 ~ /^main\+0x/ && $2 ~ /^main\+0x/ && hex(substr($2, 8)) < hex(substr($1, 8)) { b++ }
	END { print c + 0, b + 0 }' loop.br)
EOF
check "loop: calls to foo are half the loop back-edges ($calls calls, $back back-edges)" \
	awk -v c="$calls" -v b="$back" 'BEGIN { exit !(b >= 100 && c / b > 0.4 && c / b < 0.6) }'
"$OCREC" report -i loop.data --stdio --sort symbol_from,symbol_to >loop.report 2>&1
check_match "loop: ocrec report shows main -> foo" 'main +\[\.\] foo' "$(cat loop.report)"

# --- a switch through a jump table, recursion, indirect calls ---
"$OCREC" record -b -q -o flow.data ./flow 3000000 >/dev/null 2>&1
check_eq "flow: the exit status is the program's" 3 $?
perf script -i flow.data -F brstack >flow.raw 2>flow.err
check_empty "flow: perf script -F brstack: no warning" $? "$(cat flow.err)"
check_match "flow: indirect jumps recorded (type IND)" '/IND( |$)' "$(cat flow.raw)"
branches flow.data >flow.br
check_match "flow: the jump table's jump is IND inside step_switch" '^step_switch\+0x[0-9a-f]+/step_switch\+0x[0-9a-f]+/.*/IND$' \
	"$(cat flow.br)"
check_match "flow: calls through a pointer are IND_CALL" '^main\+0x[0-9a-f]+/(twice|plus1)\+0x0/.*/IND_CALL$' "$(cat flow.br)"
windows=$(perf script -i flow.data 2>/dev/null | wc -l)
fcalls=$(grep -c '^fib+0x[0-9a-f]*/fib+0x0/.*/CALL$' flow.br)
frets=$(grep -c '^fib+0x[0-9a-f]*/fib+0x[0-9a-f]*/.*/RET$' flow.br)
# A window can cut a call/return pair at each end: they differ by at most
# one per window.
check "flow: recursion: fib's calls and returns balance ($fcalls calls, $frets returns, $windows windows)" \
	awk -v c="$fcalls" -v r="$frets" -v n="$windows" 'BEGIN { d = c - r; exit !(c > 0 && d <= n && -d <= n) }'

# --- threads: samples from every thread (main + 3) ---
# Four CPU-bound threads on few CPUs: the tracer gets a share of the CPU
# and windows of a small part of the samples; a longer run gives every
# thread some.
"$OCREC" record -b -v -o thr.data ./threads 3 400000000 >thr.out 2>&1
check_eq "threads: exit 0" 0 $?
n=$(perf script -i thr.data -F tid 2>/dev/null | sort -u | wc -l)
check_eq "threads: windows from all 4 threads" 4 "$n"
# (a failure once gave a single window for the whole run: the sampler's
# summary line says where the others went)
[ "$n" = 4 ] || grep 'software branch sampler' thr.out
check_match "threads: windows in thread_work and main_work" 'main_work.*thread_work|thread_work.*main_work' \
	"$(perf script -i thr.data -F ip,sym 2>/dev/null | awk '{ print $2 }' | sort -u | tr '\n' ' ')"

# --- signals: the handler runs and the exit status is returned ---
./signal 3000 >/dev/null 2>&1; want=$?
"$OCREC" record -b -q -F 4000 -o sig.data ./signal 3000 >/dev/null 2>&1
check_eq "signals: exit status = handled signals, as without ocrec" "$want" $?
# A signal delivered on every iteration: windows hold the deliveries to the
# handler (IRQ entries) and its return through __restore_rt; the program
# checks that its handler ran once per raise.
"$OCREC" record -b -q -F 4000 --lbr-depth 128 -o raise.data ./raise 20000 >/dev/null 2>&1
check_eq "signals: the handler ran once per raise (exit 0)" 0 $?
branches raise.data >raise.br
check_match "signals: delivery to the handler recorded (IRQ)" '/on_usr1\+0x0/.*/IRQ$' "$(cat raise.br)"
check_match "signals: the handler returns to __restore_rt" '^on_usr1\+0x[0-9a-f]+/__restore_rt\+0x0/.*/RET$' "$(cat raise.br)"

# --- AutoFDO from a sampled file: llvm-profdata and clang accept the profile ---
LLVM=/usr/lib/llvm-14/bin
if [ -x "$LLVM/clang" ] && [ -x "$LLVM/llvm-profdata" ]; then
	"$LLVM/clang" -O2 -g -fdebug-info-for-profiling -o cloop "$PROGS/loop.c" ||
		{ fail "compile loop.c with clang-14" "clang failed"; exit 1; }
	# 1024-deep windows, as docs/autofdo.md says to record AutoFDO's samples
	"$OCREC" record -b -q --lbr-depth 1024 -o cloop.data ./cloop 3000000 >/dev/null 2>&1
	"$OCREC" autofdo -i cloop.data --binary ./cloop -o cloop.prof 2>autofdo.err
	check_eq "autofdo: exit 0 on a sampled file" 0 $?
	check_eq "autofdo: no warning" "" "$(cat autofdo.err)"
	check_match "autofdo: llvm-profdata reads the profile, foo has samples" 'Function: foo: [1-9]' \
		"$("$LLVM/llvm-profdata" show --sample cloop.prof 2>&1)"
	"$LLVM/clang" -O2 -g -Wall -fprofile-sample-use=cloop.prof -S -emit-llvm -o cloop.ll "$PROGS/loop.c" 2>clang.err
	check_eq "autofdo: clang -fprofile-sample-use: exit 0" 0 $?
	check_eq "autofdo: clang -fprofile-sample-use: no warning" "" "$(cat clang.err)"
	check_match "autofdo: clang uses the profile (entry count of foo)" 'define .*@foo.*!prof' "$(cat cloop.ll)"
else
	skip "autofdo with clang-14" "$LLVM/clang or llvm-profdata is missing"
fi
