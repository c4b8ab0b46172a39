# ocrec perf: perf command lines with table events rewritten, then a real perf run.
. "$(dirname "$0")/../lib.sh"
need_cmd perf
FIX=$ROOT/tests/fixtures/cpu

# --- perf's own events pass unchanged, and perf really runs ---------------------
out=$("$OCREC" perf -n stat -e '{task-clock,page-faults}:u' -x, -- sh -c 'echo -e x')
check_eq "-n: perf's own events and the workload unchanged" \
	"perf stat -e '{task-clock,page-faults}:u' -x, -- sh -c 'echo -e x'" "$out"
"$OCREC" perf stat -x, -e task-clock,page-faults true 2>"$TMP/perf.err"; rc=$?
check_eq "perf stat through ocrec exits 0" 0 "$rc"
check_match "perf counted task-clock" '^[0-9.]+,msec,task-clock,' "$(cat "$TMP/perf.err")"
check_match "perf counted page-faults" '^[0-9]+,,page-faults,' "$(cat "$TMP/perf.err")"
"$OCREC" perf -v stat -e cpu-clock -x, true 2>"$TMP/v.err"
check_match "-v prints the command on stderr" '^perf stat -e cpu-clock -x, true$' "$(head -n 1 "$TMP/v.err")"
perf stat -e no-such-event-xyz true >/dev/null 2>&1; want=$?
"$OCREC" perf stat -e no-such-event-xyz true >/dev/null 2>&1
check_eq "perf's exit status is ocrec's (exec)" "$want" $?
OCREC_PERF=/nonexistent/perf "$OCREC" perf stat true 2>"$TMP/e"; rc=$?
check_eq "missing perf binary: exit 127" 127 "$rc"
check_match "missing perf binary: named" "cannot run /nonexistent/perf" "$(cat "$TMP/e")"
"$OCREC" perf stat -e '{task-clock' true 2>"$TMP/e"; rc=$?
check_eq "unbalanced group: exit 2" 2 "$rc"
"$OCREC" perf >/dev/null 2>&1; check_eq "no perf command: exit 2" 2 $?
# an event perf does not know by that name (libpfm4's), rewritten, really counted by perf
cc_prog pages "$ROOT/tests/progs/stat-pages.c"
"$OCREC" perf -v stat -x, -e perf::PERF_COUNT_SW_PAGE_FAULTS "$TMP/pages" 2000 2>"$TMP/pfm"; rc=$?
check_eq "rewritten libpfm4 event: perf exits 0" 0 "$rc"
check_match "-v shows the rewritten event" '^perf stat -x, -e software/[^ ]+/ ' "$(head -n 1 "$TMP/pfm")"
n=$(sed -n 2p "$TMP/pfm" | cut -d, -f1)
if [ "${n:-0}" -ge 2000 ] 2>/dev/null; then pass "perf counted the 2000 touched pages ($n)"
else fail "perf count of the rewritten event" "$(cat "$TMP/pfm")"; fi
cmd=$("$OCREC" perf -n stat -x, -e '{task-clock,page-faults}' true)
eval "$cmd" 2>"$TMP/eval.err"; rc=$?
check_eq "the printed command runs as printed (shell quoting)" "0 2" "$rc $(grep -c -E ',(task-clock|page-faults),' "$TMP/eval.err")"

# --- table events rewritten as pmu-tools' ocperf.py does (tests/data/oracle/ocperf) ---
SKX_CPUINFO=$(data_file cpuinfo/skx.cpuinfo) PERFMON=$(data_dir perfmon)
# oracle FILE NAME: ocperf.py's -e string for NAME
oracle() { awk -F'\t' -v n="$2" '$1 == n { print $2; exit }' "$(data_file "oracle/ocperf/$1")"; }
skx() { "$OCREC" --cpuinfo "$SKX_CPUINFO" --sysfs "$FIX/sysfs-skx/sys" perf -n --events "$PERFMON" "$@"; }
br=$(oracle skx.tsv BR_INST_RETIRED.NEAR_TAKEN) inst=$(oracle skx.tsv INST_RETIRED.ANY)
l2=$(oracle skx.tsv L2_RQSTS.ALL_DEMAND_MISS)
check_eq "stat: list and group rewritten, perf's events kept" \
	"perf stat -e '$br,{$inst,cycles}:u,$l2' -a sleep 1" \
	"$(skx stat -e 'BR_INST_RETIRED.NEAR_TAKEN,{INST_RETIRED.ANY,cycles}:u,L2_RQSTS.ALL_DEMAND_MISS' -a sleep 1)"
rbr=$(oracle skx.record.tsv BR_INST_RETIRED.NEAR_TAKEN) rl3=$(oracle skx.record.tsv MEM_LOAD_RETIRED.L3_MISS)
check_eq "record: --event= and -e with the sampling period, workload's -e untouched" \
	"perf record --event=$rbr -b -e $rl3 -- ./prog -e BR_INST_RETIRED.NEAR_TAKEN" \
	"$(skx record --event=BR_INST_RETIRED.NEAR_TAKEN -b -e MEM_LOAD_RETIRED.L3_MISS -- ./prog -e BR_INST_RETIRED.NEAR_TAKEN)"
check_eq "ocperf's pmu/NAME/ form" "perf stat -e ${br%/}/u true" \
	"$(skx stat -e cpu/BR_INST_RETIRED.NEAR_TAKEN/u true)"
skx -v stat -e NO_SUCH.EVENT true >"$TMP/o" 2>"$TMP/e"
check_eq "an unknown name is left for perf" "perf stat -e NO_SUCH.EVENT true" "$(cat "$TMP/o")"
check_match "-v says why it was left" "NO_SUCH.EVENT" "$(cat "$TMP/e")"
