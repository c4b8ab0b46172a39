# Recording with the software branch sampler (swbranch_record(), through the
# sampler-record helper, and through ocrec record -b once the command line
# offers --branch-sampler): perf reads the file in branch mode, the branch
# statistics match the programs' known control flow (the article's loop and
# div.c), the file says the branch stacks are emulated, and the workload
# behaves as without ocrec (exit status, signals, threads, fork and exec, -p).
. "$(dirname "$0")/../lib.sh"
need_cmd perf cc nm
case $(uname -m) in x86_64) ;; *) skip sampler-record "the software branch sampler decodes x86-64 only"; exit 0 ;; esac
export HOME="$TMP/home"
mkdir -p "$HOME"
HELPER=$BUILD/tests/helpers/sampler-trace
RECORDER=$BUILD/tests/helpers/sampler-record
PROGS=$ROOT/tests/progs
need_helper sampler-trace sampler-record
# The article's compiler branched at div.c:8; gcc 12 -O2 makes it a cmov
# unless if-conversion is off.
cc_prog div "$PROGS/div.c" -DITERS=30000000 -fno-if-conversion -fno-if-conversion2 ||
	{ fail "compile div.c" "cc failed"; exit 1; }
cc_prog loop "$PROGS/loop.c" || { fail "compile loop.c" "cc failed"; exit 1; }
cc_prog signal "$PROGS/sampler-signal.c" || { fail "compile sampler-signal.c" "cc failed"; exit 1; }
cc_prog threads "$PROGS/record-threads.c" -pthread || { fail "compile record-threads.c" "cc failed"; exit 1; }
cc_prog shared "$PROGS/sampler-shared.c" -pthread || { fail "compile sampler-shared.c" "cc failed"; exit 1; }
cc_prog mmap "$PROGS/sampler-mmap.c" || { fail "compile sampler-mmap.c" "cc failed"; exit 1; }
cc_prog unheld "$PROGS/sampler-unheld.c" -pthread -fno-if-conversion -fno-if-conversion2 ||
	{ fail "compile sampler-unheld.c" "cc failed"; exit 1; }
cc_prog handover "$PROGS/sampler-handover.c" || { fail "compile sampler-handover.c" "cc failed"; exit 1; }
cd "$TMP" || exit 1
REC=$RECORDER

# --- div.c, the article's --branch-history example ---
$REC -F 1000 -o div.data ./div >div.out 2>&1; rc=$?
check_eq "div: record exits 0" 0 "$rc"
check_match "div: perf sees the emulated event" '^task-clock:u \(software branch sampler\)' "$(perf evlist -i div.data 2>/dev/null)"
check_match "div: attr samples branch stacks (ANY)" 'branch_sample_type: ANY' "$(perf evlist -v -i div.data 2>/dev/null)"
check_match "div: the header says emulated" 'cpudesc : .*emulated by ocrec' "$(perf report -i div.data --header-only 2>/dev/null)"
perf script -i div.data -F ip,sym,brstacksym 2>/dev/null >div.script
n=$(grep -c . div.script)
check_match "div: perf script reads the samples" '^[1-9][0-9]+$' "$n"
check_eq "div: every sample has 32 branch entries" "$n" \
	"$(awk '{ c = 0; for (i = 1; i <= NF; i++) if ($i ~ /\//) c++; if (c == 32) print }' div.script | wc -l)"
# perf report in branch mode (the BRANCH_STACK feature switches it on).
perf report -i div.data --stdio --sort symbol_from,symbol_to 2>/dev/null >div.report
check_match "div: perf report in branch mode" 'Source Symbol +Target Symbol' "$(cat div.report)"
check_match "div: main -> compute_flag branches" '\[\.\] main +\[\.\] compute_flag' "$(cat div.report)"
check_match "div: compute_flag -> main branches" '\[\.\] compute_flag +\[\.\] main' "$(cat div.report)"
# The division at div.c:25 is a hot line (sample ips are where the thread
# was interrupted, time-weighted like a hardware sample's), and its branch
# history shows the flag set at div.c:8 just before.
perf report -i div.data --branch-history --stdio --no-children --sort srcline 2>/dev/null |
	grep -v '^#' | grep . >div.history
check "div: --branch-history: the division at div.c:25 is a hot line (>= 10%)" \
	awk '/^ +[0-9.]+% +div.c:25$/ { p = $1 + 0 } END { exit !(p >= 10) }' div.history
check_match "div: --branch-history: div.c:8 on the path to div.c:25" 'compute_flag div.c:8' \
	"$(awk '/^ +[0-9.]+% +div.c:25$/ { on = 1; next } on && /^ +[0-9.]+% / { exit } on' div.history | head -n 6)"

# --- loop.c: foo() is called in half of the iterations ---
# The share of calls (all to foo) among the taken branches, from the sampled
# windows and from a full single-step trace of the same program from main:
# the same, up to sampling noise (each window holds 64 consecutive real
# branches). 5 calls in the 22 branches of an outer iteration with gcc -O2.
# The run takes about 0.3 s of CPU: a 30 ms run (3000000) once got no window
# at all with the machine at load 7 (the tracer takes windows when it runs).
$REC -F 1000 --lbr-depth 64 -o loop.data ./loop 30000000 >loop.out 2>&1; rc=$?
check_eq "loop: record exits 0" 0 "$rc"
perf script -i loop.data -F brstacksym 2>/dev/null | tr ' ' '\n' | grep / >loop.br
total=$(wc -l <loop.br)
calls=$(grep -c '^main+0x[0-9a-f]*/foo+0x0/.*/CALL$' loop.br)
rets=$(grep -c '^foo+0x[0-9a-f]*/main+0x[0-9a-f]*/.*/RET$' loop.br)
check "loop: windows recorded ($((total / 64)))" test "$total" -gt 0
check_eq "loop: every window holds 64 branches" 0 "$((total % 64))"
check "loop: as many returns from foo as calls, up to window edges ($calls, $rets)" \
	awk -v c="$calls" -v r="$rets" -v n="$((total / 64))" 'BEGIN { d = c - r; exit !(d <= n && -d <= n && c > 0) }'
# Without address randomization a PIE is loaded at 0x555555554000.
main=$(nm loop | awk '$3 == "main" { print $1 }')
"$HELPER" full --start "$(printf '%x' $((0x555555554000 + 0x$main)))" -- ./loop 200 >loop.full 2>/dev/null
want=$(awk 'NF == 3 { n++; if ($3 == 4) c++ } END { if (n) printf "%.4f", c / n }' loop.full)
got=$(awk -v c="$calls" -v n="$total" 'BEGIN { if (n) printf "%.4f", c / n }')
check "loop: share of calls to foo matches the exact trace ($got vs $want)" \
	awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(b > 0.1 && d < 0.03 && -d < 0.03) }'

# --- the workload behaves as without ocrec ---
$REC -q -o exit.data sh -c 'exit 7' >/dev/null 2>&1
check_eq "exit status of the workload is ocrec's" 7 $?
./signal 3000 >/dev/null 2>&1; want=$?
$REC -q -F 2000 -o sig.data ./signal 3000 >/dev/null 2>&1
check_eq "signals: handled as without ocrec (exit = handled count)" "$want" $?
$REC -q -F 2000 -o timer.data ./signal 20000000 timer >/dev/null 2>&1
check_eq "signals: a program under an interval timer runs to its end" 0 $?
check_match "signals: windows recorded" '^[1-9]' "$(perf script -i timer.data 2>/dev/null | wc -l)"
# Each mapping has its MMAP2 record, also one made while a window followed
# the thread, with the timers off (a dummy event of its own brings them:
# open_tracker()), or, where a full ring had no room for it, is among the
# records the summary counts as lost. The program maps its own executable
# 3000 times; rings of one page (-m 1) lose some.
for stops in signal interrupt; do
	for m in "" "-m 1"; do
		# shellcheck disable=SC2086
		got=$(OCREC_SAMPLER_STOPS=$stops "$OCREC" record $m -b --branch-sampler=software -F 4000 \
			-o mmap.data ./mmap 3000 2>&1 >/dev/null) &&
		n=$(perf script -i mmap.data --show-mmap-events 2>/dev/null | grep -c 'PERF_RECORD_MMAP2 .* @ 0 .*r-xp .*/mmap$') &&
		lost=$(echo "$got" | sed -nE 's/.*Captured and wrote .* samples, ([0-9]+) lost\).*/\1/p') ||
		lost=
		check "side-band, $stops stops${m:+, $m}: each of 3000 mappings recorded or counted lost ($n recorded, ${lost:-no count of} lost)" \
			test -n "$lost" -a "$((${n:-0} + ${lost:-0}))" -ge 3000
	done
done
# A ring that fills while ocrec is stopped, with the program ending
# meanwhile, gets no LOST record from the kernel (it writes one only with the
# ring's next record): ocrec reads the events' own counts (PERF_FORMAT_LOST,
# Linux 6.0) and writes it. The program blocks SIGTRAP so that the timer's
# samples do not stop it for the stopped tracer, and maps only once the
# tracer is stopped.
release=$(uname -r)
if [ "${release%%.*}" -ge 6 ]; then
	rm -f go go.pid
	"$OCREC" record -m 1 -b --branch-sampler=software -F 4000 -o full.data ./mmap 3000 go >full.out 2>&1 &
	rp=$!
	waited=0
	while [ ! -s go.pid ] && [ $waited -lt 200 ]; do sleep 0.05; waited=$((waited + 1)); done
	kill -STOP $rp
	pid=$(cat go.pid 2>/dev/null)
	touch go
	# it has ended once it is a zombie: ocrec, stopped, has not reaped it
	waited=0
	while [ -n "$pid" ] && [ "$(awk '{ print $3 }' /proc/"$pid"/stat 2>/dev/null)" != Z ] && [ $waited -lt 400 ]; do
		sleep 0.05
		waited=$((waited + 1))
	done
	kill -CONT $rp
	wait $rp
	check_lost_at_end $? full.out full.data
else
	skip "a ring full at the end" "the kernel counts lost records from Linux 6.0 ($release)"
fi
# A process that ends leaves its emulator to the next one, and what was
# known of it goes: recording a build, with a process each 5-50 ms, used to
# keep an engine (1 MB or more) and its copies of memory for every process.
# Twenty runs of loop.c, one after another, need no more engines than run
# at once: the shell's, and its child's.
if ldconfig -p 2>/dev/null | grep -q 'libunicorn\.so\.2 '; then
	"$OCREC" record -v -b --branch-sampler=software -F 2000 -o seq.data \
		sh -c 'i=0; while [ $i -lt 20 ]; do ./loop 1000000; i=$((i + 1)); done' >/dev/null 2>seq.err
	check_eq "processes in turn: exit 0" 0 $?
	engines=$(sed -nE 's/.* ([0-9]+) emulators? for ([0-9]+) process(es)?.*/\1 \2/p' seq.err)
	check "processes in turn: their emulators are reused (emulators, processes: ${engines:-none})" \
		test -n "$engines" -a "${engines% *}" -le 3 -a "${engines#* }" -ge 10
else
	skip "processes in turn" "libunicorn.so.2 is not installed (make deps): nothing is emulated"
fi
# Where libunicorn is missing (hidden here by /dev/null mounted over it, in
# a mount namespace of the recording's own), the interpreter still computes
# the windows, and each is followed on from where libunicorn would have taken
# over: the program's bswap, rol, pshufd and x87. No engine is started.
lib=$(ldconfig -p 2>/dev/null | awk '/libunicorn\.so\.2 / { print $NF; exit }')
if [ -n "$lib" ] && unshare -m true 2>/dev/null; then
	./handover 20000000
	want=$?
	unshare -m sh -c 'mount --bind /dev/null "$(readlink -f "$0")" && exec "$@"' "$lib" \
		"$OCREC" record -v -b --branch-sampler=software -F 2000 -o nouc.data ./handover 20000000 >/dev/null 2>nouc.err
	check_eq "without libunicorn: the program's own exit status" "$want" $?
	check_match "without libunicorn: a warning names it" '^ocrec: warning: cannot load libunicorn\.so\.2 ' \
		"$(grep -m1 libunicorn nouc.err)"
	check_match "without libunicorn: windows interpreted, followed where it stops, no engine" \
		'instructions [1-9][0-9]* emulated \([1-9][0-9]* of them interpreted\) .*: no libunicorn [1-9][0-9]*.*, 0 emulators for 1 process;' \
		"$(grep 'software branch sampler:' nouc.err)"
	check_match "without libunicorn: perf script reads the windows" '^[1-9]' \
		"$(perf script -i nouc.data -F brstack 2>/dev/null | grep -c /)"
else
	skip "without libunicorn" "needs libunicorn.so.2 and a mount namespace (unshare -m: root)"
fi
# 300M iterations: some 150 ms on two CPUs. 30M (15 ms) left room for few
# windows, at times from one thread only (a sanitizer-built tracer's first
# window takes 2-3 ms).
$REC -q -F 1000 -o thr.data ./threads 3 300000000 >/dev/null 2>&1
check_eq "threads: exit 0" 0 $?
check_match "threads: windows from several threads" '^[2-9]$|^[1-9][0-9]+$' \
	"$(perf script -i thr.data -F tid 2>/dev/null | sort -u | wc -l)"
# Every timer sample is accounted for: a window, merged into its thread's
# next window (which then carries both periods), or in one of the -v line's
# counts of samples without a window. With a fixed period (-c) the periods in
# the file add up to the samples that made or joined a window.
"$OCREC" record -b --branch-sampler=software -c 1000000 -v -o acct.data ./threads 3 300000000 >/dev/null 2>acct.err
check_eq "accounting: exit 0" 0 $?
acct=$(grep -m1 'software branch sampler:' acct.err | sed -nE 's/.* ([0-9]+) windows of ([0-9]+) timer samples \(([0-9]+) cut short.*own: ([0-9]+) merged[^,]*, ([0-9]+) of threads gone, ([0-9]+) of threads that ended[^,]*, ([0-9]+) in windows cut short, ([0-9]+) at the end.*/\1 \2 \3 \4 \5 \6 \7 \8/p')
set -- $acct
check_match "accounting: windows written and samples without a window add up to the timer samples" "^${2:-none} " \
	"$(( ${1:-0} - ${3:-0} + ${4:-0} + ${5:-0} + ${6:-0} + ${7:-0} + ${8:-0} )) ($(grep -m1 'software branch sampler:' acct.err))"
check_eq "accounting: the windows' periods add up to the samples they stand for" \
	"$(( (${1:-0} - ${3:-0} + ${4:-0}) * 1000000 ))" \
	"$(perf script -i acct.data -F period 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')"
# A busy thread is resumed on the tracer's CPU, pinned there for the moment
# of the resume (and while a window is followed with ptrace): the processes
# it starts meanwhile must not keep that pin. Each background job looks at
# its own affinity once the recording is over: while it is traced, a
# followed window pins it, and it may see that (a fixed second was too
# short when the shell's loop outlasted it: 9 runs in 25 here).
$REC -q -F 4000 -o aff.data sh -c 'for j in $(seq 1 40); do i=0; while [ $i -lt 2000 ]; do i=$((i + 1)); done; (while [ ! -e aff.done ]; do sleep 0.2; done; grep Cpus_allowed_list /proc/self/status >>aff.masks) & done' \
	>/dev/null 2>&1
check_eq "affinity: exit 0" 0 $?
touch aff.done
waited=0
while [ "$(cat aff.masks 2>/dev/null | wc -l)" -lt 40 ] && [ $waited -lt 100 ]; do sleep 0.1; waited=$((waited + 1)); done
check_eq "affinity: the 40 processes the busy shell started keep its CPUs" \
	"40 $(grep Cpus_allowed_list /proc/self/status)" "$(sort aff.masks | uniq -c | sed 's/^ *//')"
# Threads that branch on what the others write, windows emulated while the
# others run on: the program still sees every turn in order (exit 0); with
# OCREC_SAMPLER_VERIFY=1 each emulated part is also followed, and the -v
# line counts those that differed (docs/sampler.md measures them).
$REC -q -F 1000 -o shared.data ./shared 2 50000 >/dev/null 2>&1
check_eq "shared memory threads: exit 0" 0 $?
check_match "shared memory threads: windows recorded" '^[1-9]' "$(perf script -i shared.data 2>/dev/null | wc -l)"
# Bounded (the runs here take 0.1-10 s): once, under the sanitizers and
# beside a loaded machine, a worker spun on for 14 minutes with the turns
# out of order (the counter at its end value, the sum short), which no
# rerun has shown again. SIGINT ends the recording with its -v line.
OCREC_SAMPLER_VERIFY=1 timeout -s INT 120 $REC -v -F 1000 -o verify.data ./shared 2 50000 >/dev/null 2>verify.err
rc=$?
check_eq "shared memory threads, verify: exit 0 (124: still running after 120 s)" 0 $rc
[ $rc = 0 ] || grep 'software branch sampler:' verify.err
if ldconfig -p 2>/dev/null | grep -q 'libunicorn\.so\.2 '; then
	check_match "verify: the -v line counts the emulated parts that diverged" \
		'instructions [1-9][0-9]* emulated .*, [0-9]+ emulated parts diverged[;,]' "$(grep 'software branch sampler:' verify.err)"
else
	skip "verify: the emulated parts that diverged" "libunicorn.so.2 is not installed (make deps)"
fi
# int3 mode, a window whose other threads cannot all be held (one waits in
# vfork(), which no interrupt ends) goes on by single steps; a signal taken
# meanwhile carries the steps past the end of the emulated part, and the
# part starts again. It started from the registers read before those steps,
# and the first jump set from them put the thread back: 5 runs in 6 of this
# ran loop iterations twice (the program counts them, exit 1).
if ldconfig -p 2>/dev/null | grep -q 'libunicorn\.so\.2 '; then
	OCREC_SAMPLER_VERIFY=1 OCREC_SAMPLER_BREAKPOINTS=int3 timeout -s INT 120 $REC -v -F 4000 -o unheld.data \
		./unheld 60000000 >/dev/null 2>unheld.err
	rc=$?
	check_eq "int3, a thread not held: the other's windows leave its registers as they were (exit 0)" 0 $rc
	[ $rc = 0 ] || grep -v 'emulated [0-9]* branches' unheld.err
else
	skip "int3, a thread not held" "libunicorn.so.2 is not installed (make deps)"
fi
# Each program runs a few hundred ms: a short one can end before a noisy
# machine lets the tracer take its first window. On a loaded machine the
# tracer was seen waiting 90 ms on the run queue while a div.c (85 ms) ran
# from start to end; three of them in a row leave room for that. On failure
# the message shows the windows per command, the programs exec'd, and the
# sampler's own count (where the timer samples without a window went).
$REC -v -F 1000 -o fork.data sh -c './loop 30000000; ./div; ./div; ./div; exit 0' >/dev/null 2>fork.err
check_eq "fork and exec: exit 0" 0 $?
check_match "fork and exec: windows in both programs" ' div .* loop |loop .* div ' \
	" $(perf script -i fork.data -F comm 2>/dev/null | sort | uniq -c | tr -s ' \n' '  ')$(perf script -i fork.data --show-task-events 2>/dev/null | grep -o 'COMM exec: [^:]*' | tr '\n' ' ')$(grep -m1 'software branch sampler:' fork.err)"
# The -v line: windows, stops a window, instructions emulated and followed,
# why emulation stopped early, by reason, and the windows taken while
# libunicorn was still loading (when there were some).
check_match "-v: the sampler's summary line" \
	'software branch sampler: [0-9]+ windows of [0-9]+ timer samples .*, [0-9]+\.[0-9]{2} stops a window \([0-9]+ at (int3|debug registers), [0-9]+ single-steps\), (instructions [0-9]+ emulated \([0-9]+ of them interpreted\) and about [0-9]+ followed, emulation stopped early( never|: [a-z ]+ [0-9]+(, [a-z ]+ [0-9]+)*)(, [0-9]+ windows while libunicorn loaded)?, [0-9]+ emulators? for [0-9]+ process(es)?;|not emulated)' \
	"$(grep 'software branch sampler:' fork.err)"
# A group-stop stays a stop until SIGCONT, as without ocrec.
rm -f stopped.pid
( for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ -s stopped.pid ] && sleep 0.3 && kill -CONT "$(cat stopped.pid)" && break
	sleep 0.1
  done ) &
$REC -q -o stop.data sh -c 'echo $$ >stopped.pid; kill -STOP $$; exit 5' >/dev/null 2>&1
check_eq "group-stop: the workload stops and continues on SIGCONT" 5 $?
wait
$REC -q -o none.data ./no-such-program >none.out 2>&1
check_eq "a missing program: exit 127" 127 $?
check_match "a missing program: named" 'no-such-program: command not found' "$(cat none.out)"
check_eq "a missing program: no output file" no "$([ -e none.data ] && echo yes || echo no)"

# -p: attach to a running multi-threaded process, sample every thread, leave it running.
# (long enough to still run when a sanitizer-built ocrec has started and attached)
./threads 3 1000000000 >/dev/null 2>&1 &
pid=$!
sleep 0.1
$REC -q -F 1000 -o attach.data -p $pid >/dev/null 2>&1
check_eq "-p: records until the process ends" 0 $?
wait $pid
check_eq "-p: the process ends normally" 0 $?
check_match "-p: windows from several threads" '^[2-9]$|^[1-9][0-9]+$' \
	"$(perf script -i attach.data -F tid 2>/dev/null | sort -u | wc -l)"
check_match "-p: symbols resolve from the synthesized maps" 'thread_work|main_work' \
	"$(perf script -i attach.data -F ip,sym 2>/dev/null | sort -u | tr '\n' ' ')"

# -p and Ctrl-C: SIGINT stops the recording and detaches even while busy threads
# keep samples waiting (they kept the signal out for 20-30 s); the process runs on.
# A job started in the background by a shell without job control ignores
# SIGINT: the recorder sees it once it has blocked it, which it has done by
# the time its task-clock events are open; a SIGINT before then is lost.
./threads 3 100000000000 >/dev/null 2>&1 &
pid=$!
sleep 0.1
$REC -q -F 1000 -o int.data -p $pid >/dev/null 2>&1 &
rec=$!
waited=0
while [ $waited -lt 300 ] && ! ls -l /proc/$rec/fd 2>/dev/null | grep -q 'perf_event'; do
	sleep 0.1; waited=$((waited + 1))
done
sleep 0.5
kill -INT $rec
# a bound for liveness only: the recorder stops within a second here
waited=0
while kill -0 $rec 2>/dev/null && [ $waited -lt 150 ]; do sleep 0.1; waited=$((waited + 1)); done
check_eq "-p: SIGINT ends the recording of a busy multi-threaded process" gone \
	"$(kill -0 $rec 2>/dev/null && echo "still recording after 15 s" || echo gone)"
kill $rec 2>/dev/null; wait $rec
check_eq "-p: the recorder exits 0 after SIGINT" 0 $?
check_eq "-p: the process runs on after the detach" running "$(kill -0 $pid 2>/dev/null && echo running)"
kill $pid 2>/dev/null; wait $pid 2>/dev/null
check_match "-p: windows recorded before SIGINT" '^[1-9]' "$(perf script -i int.data 2>/dev/null | wc -l)"

# Through the command line.
"$OCREC" record -b --branch-sampler=software -F 1000 -o cli.data ./div >cli.out 2>&1
check_eq "ocrec record -b --branch-sampler=software: exit 0" 0 $?
check_match "ocrec record: the summary says the branch stacks are emulated" 'software branch sampler|emulated' "$(cat cli.out)"
check_match "ocrec record: branch stacks in the file" 'branch_sample_type: ANY' "$(perf evlist -v -i cli.data 2>/dev/null)"
