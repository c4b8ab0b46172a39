# How the software branch sampler stops a sampled thread (docs/sampler.md,
# "Stopping with the timer's own signal"): on Linux 5.19 and later each sample
# of a program ocrec started stops its thread itself, with a SIGTRAP of the
# timer's that the program never sees; a thread that blocks SIGTRAP, a
# process recorded with -p, older kernels and OCREC_SAMPLER_STOPS=interrupt
# are stopped with PTRACE_INTERRUPT. Either way the windows are the same.
. "$(dirname "$0")/../lib.sh"
need_cmd perf cc
case $(uname -m) in x86_64) ;; *) skip sampler-stops "the software branch sampler decodes x86-64 only"; exit 0 ;; esac
export HOME="$TMP/home"
mkdir -p "$HOME"
REC=$BUILD/tests/helpers/sampler-record
PROGS=$ROOT/tests/progs
need_helper sampler-record
cc_prog div "$PROGS/div.c" -DITERS=30000000 -fno-if-conversion -fno-if-conversion2 ||
	{ fail "compile div.c" "cc failed"; exit 1; }
cc_prog loop "$PROGS/loop.c" || { fail "compile loop.c" "cc failed"; exit 1; }
cc_prog sigtrap "$PROGS/sampler-sigtrap.c" || { fail "compile sampler-sigtrap.c" "cc failed"; exit 1; }
cc_prog threads "$PROGS/record-threads.c" -pthread || { fail "compile record-threads.c" "cc failed"; exit 1; }
cd "$TMP" || exit 1

release=$(uname -r)
major=${release%%.*}
minor=${release#*.}
minor=${minor%%[!0-9]*}
if [ $((major * 1000 + minor)) -ge 5019 ]; then
	default="their samples (SIGTRAP)"
else
	default="PTRACE_INTERRUPT"
fi
stopped_by() { sed -n 's/.*software branch sampler:.*; threads stopped by \(.*\)$/\1/p' "$1"; }

$REC -v -F 1000 -o default.data ./div >/dev/null 2>default.err
check_eq "default: exit 0" 0 $?
check_match "default on Linux $major.$minor: threads stopped by $default" "^$(printf '%s' "$default" | sed 's/[()]/\\&/g')" \
	"$(stopped_by default.err)"

for mode in signal interrupt; do
	if [ $mode = signal ] && [ "$default" = PTRACE_INTERRUPT ]; then
		skip "$mode stops" "Linux $major.$minor is older than 5.19"
		continue
	fi
	export OCREC_SAMPLER_STOPS=$mode
	want=PTRACE_INTERRUPT
	[ $mode = signal ] && want="their samples"
	$REC -v -F 1000 -o div-$mode.data ./div >/dev/null 2>div-$mode.err
	check_eq "$mode: div: exit 0" 0 $?
	check_match "$mode: div: the -v line says how" "^$want" "$(stopped_by div-$mode.err)"
	perf report -i div-$mode.data --stdio --sort symbol_from,symbol_to >div-$mode.report 2>/dev/null
	check_match "$mode: div: main -> compute_flag branches" '\[\.\] main +\[\.\] compute_flag' "$(cat div-$mode.report)"
	$REC -q -F 1000 -o thr-$mode.data ./threads 3 300000000 >/dev/null 2>&1
	check_eq "$mode: threads: exit 0" 0 $?
	check_match "$mode: threads: windows from several threads" '^[2-9]$|^[1-9][0-9]+$' \
		"$(perf script -i thr-$mode.data -F tid 2>/dev/null | sort -u | wc -l)"
	# The exec'd programs' maps and names come before their first sample
	# (with signal stops, from /proc at each exec stop).
	$REC -q -F 1000 -o exec-$mode.data sh -c './loop 30000000; ./div; exit 0' >/dev/null 2>&1
	check_eq "$mode: fork and exec: exit 0" 0 $?
	perf script -i exec-$mode.data -F comm,ip,sym 2>/dev/null | sort -u >exec-$mode.syms
	check_match "$mode: fork and exec: loop's symbols resolve" '^ *loop +[0-9a-f]+ foo$' "$(cat exec-$mode.syms)"
	check_match "$mode: fork and exec: div's symbols resolve" '^ *div +[0-9a-f]+ compute_flag$' "$(cat exec-$mode.syms)"
	# A thread that blocks SIGTRAP: interrupted, its samples merged while the
	# tracer learns it; the program sees its own SIGTRAP only, its mask and
	# handler as it set them (exit 0).
	$REC -v -F 1000 -o sigtrap-$mode.data ./sigtrap 100000000 >/dev/null 2>sigtrap-$mode.err
	check_eq "$mode: SIGTRAP blocked: the program sees only its own" 0 $?
	counts=$(sed -nE 's/.*software branch sampler: ([0-9]+) windows of ([0-9]+) timer samples.*/\1 \2/p' sigtrap-$mode.err)
	set -- $counts
	check "$mode: SIGTRAP blocked: windows for at least half the samples (${1:-none} of ${2:-none})" \
		test "$(( ${1:-0} * 2 ))" -ge "${2:-1}"
done
unset OCREC_SAMPLER_STOPS

# -p: a process ocrec did not start must survive ocrec's end whenever it
# comes, which a queued SIGTRAP would not let it: interrupted.
./loop 400000000 >/dev/null 2>&1 &
pid=$!
sleep 0.1
$REC -v -F 1000 -o attach.data -p $pid >/dev/null 2>attach.err
check_eq "-p: records until the process ends" 0 $?
wait $pid
check_eq "-p: the process ends normally" 0 $?
check_match "-p: threads stopped by PTRACE_INTERRUPT" '^PTRACE_INTERRUPT' "$(stopped_by attach.err)"
