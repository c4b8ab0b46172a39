# ocrec stat: counts of known workloads with software events, CSV, JSON, -r, -p, -a, errors.
. "$(dirname "$0")/../lib.sh"
cc_prog loop "$ROOT/tests/progs/loop.c"
cc_prog pages "$ROOT/tests/progs/stat-pages.c"

# field N of line M of a CSV file (separator SEP)
csv() { sed -n "${2}p" "$1" | cut -d "$3" -f "$4"; }

# --- the article's loop under task-clock -------------------------------------
"$OCREC" stat -e task-clock "$TMP/loop" 3000000 2>"$TMP/text"; rc=$?
check_eq "stat exits with the program's status" 0 "$rc"
text=$(cat "$TMP/text")
check_match "text: task-clock in msec with CPUs utilized" \
	'^ +[0-9]+\.[0-9]{2} msec task-clock +# +[0-9]+\.[0-9]{3} CPUs utilized$' "$text"
check_match "text: header names the program" "Performance counter stats for '$TMP/loop 3000000':" "$text"
check_match "text: elapsed, user and sys" 'seconds time elapsed' "$text"
check_match "text: user time" '^ +[0-9]+\.[0-9]{9} seconds user$' "$text"
"$OCREC" stat --json -o "$TMP/loop.json" -e task-clock "$TMP/loop" 3000000 2>"$TMP/err"
check_empty "-o: nothing on stderr" $? "$(cat "$TMP/err")"
check "--json output is valid JSON" python3 -m json.tool "$TMP/loop.json"
check_eq "task-clock: counted, never multiplexed, CPUs utilized = msec / elapsed, at most one CPU" "ok" \
	"$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counters"][0]
util = c["counter-value"] / 1000 / d["elapsed-seconds"]
ok = (c["event"] == "task-clock" and c["state"] == "counted" and c["counter-value"] > 0
      and c["time-enabled"] == c["time-running"] and c["pcnt-running"] == 100
      and abs(c["metric-value"] - util) < 1e-6 and c["metric-value"] <= 1.0)
print("ok" if ok else d)' "$TMP/loop.json")"

# --- page faults: a count with a known floor ----------------------------------
"$OCREC" stat -x, -e page-faults "$TMP/pages" 0 2>"$TMP/p0"
"$OCREC" stat -x, -e page-faults "$TMP/pages" 2000 2>"$TMP/p2000"
base=$(csv "$TMP/p0" 1 , 1) n=$(csv "$TMP/p2000" 1 , 1)
check_match "CSV: value,unit,event,runtime,pct,metric,unit" '^[0-9]+,,page-faults,[0-9]+,100\.00,,$' "$(cat "$TMP/p2000")"
if [ $((n - base)) -ge 1980 ] && [ $((n - base)) -le 2100 ]; then
	pass "2000 touched pages: about 2000 more page faults ($base → $n)"
else
	fail "2000 touched pages" "page faults $base → $n"
fi
"$OCREC" stat -x';' -e page-faults "$TMP/pages" 2000 fork 2>"$TMP/pf"
n=$(csv "$TMP/pf" 1 ';' 1)
if [ "$n" -ge 2000 ]; then pass "faults of a forked child are counted ($n)"; else fail "inherit" "$n page faults"; fi
if command -v perf >/dev/null 2>&1; then
	perf stat -x, -e page-faults "$TMP/pages" 2000 2>"$TMP/perf"
	pn=$(grep page-faults "$TMP/perf" | cut -d, -f1)
	n=$(csv "$TMP/p2000" 1 , 1)
	d=$((n - pn)); [ $d -lt 0 ] && d=$((-d))
	if [ "$d" -le 30 ]; then pass "page faults agree with perf stat ($n vs $pn)"; else fail "agree with perf" "$n vs perf $pn"; fi
else
	skip "agree with perf" "perf is not installed (make deps)"
fi

# --- groups, repeats, default events, exit status ------------------------------
"$OCREC" stat -x, -e '{task-clock,page-faults}' -e context-switches "$TMP/pages" 10 2>"$TMP/g"
check_eq "group and a second -e: three counters, all counted" "task-clock page-faults context-switches" \
	"$(cut -d, -f3 "$TMP/g" | tr '\n' ' ' | sed 's/ $//')"
"$OCREC" stat -r 3 -e task-clock,page-faults "$TMP/pages" 100 2>"$TMP/r"
check_match "-r 3: header says 3 runs" "'$TMP/pages 100' \(3 runs\):" "$(cat "$TMP/r")"
check_match "-r 3: relative stddev per event" 'page-faults +# +[0-9.]+ [KM]?/sec +\( \+- +[0-9]+\.[0-9]{2}% \)' "$(cat "$TMP/r")"
check_match "-r 3: elapsed mean +- stddev" '[0-9.]+ \+- [0-9.]+ seconds time elapsed' "$(cat "$TMP/r")"
"$OCREC" stat -r 2 --json -e task-clock "$TMP/pages" 10 2>"$TMP/r.json"
check_eq "-r 2 --json: runs 2 with a variance" "2 True" \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["runs"], "variance" in d["counters"][0])' "$TMP/r.json")"
"$OCREC" stat "$TMP/pages" 10 2>"$TMP/d"
check_match "default events include task-clock and page-faults" 'page-faults' "$(grep -E 'msec task-clock' "$TMP/d" >/dev/null && cat "$TMP/d")"
if [ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/cpu_core ]; then
	skip "hardware events unsupported" "this machine has a core PMU"
else
	check_match "no core PMU: cycles is <not supported>, as perf says" '^ +<not supported> +cycles$' "$(cat "$TMP/d")"
fi
"$OCREC" stat -e task-clock sh -c 'exit 3' 2>/dev/null; check_eq "exit status of the program" 3 $?

# --- a libpfm4 name (resolved by the events module) counts like the generic one ----
"$OCREC" stat -x, -e perf::PERF_COUNT_SW_PAGE_FAULTS "$TMP/pages" 2000 2>"$TMP/pfm"; rc=$?
n=$(csv "$TMP/pfm" 1 , 1)
check_eq "libpfm4 name: exit 0" 0 "$rc"
if [ "${n:-0}" -ge 2000 ] 2>/dev/null; then pass "libpfm4 perf::PERF_COUNT_SW_PAGE_FAULTS counts 2000 touched pages ($n)"
else fail "libpfm4 name" "$(cat "$TMP/pfm")"; fi

# --- names from the event tables (for a Skylake-X, tests/data) ----------------------
"$OCREC" --cpuinfo "$(data_file cpuinfo/skx.cpuinfo)" --sysfs "$ROOT/tests/fixtures/cpu/sysfs-skx/sys" \
	stat --events "$(data_dir perfmon)" -x, -e '{BR_INST_RETIRED.NEAR_TAKEN,INST_RETIRED.ANY},task-clock' \
	true 2>"$TMP/tab"; rc=$?
check_eq "table names: exit 0" 0 "$rc"
check_eq "table names resolved and shown by their perf names" \
	"br_inst_retired_near_taken inst_retired_any task-clock" "$(cut -d, -f3 "$TMP/tab" | tr '\n' ' ' | sed 's/ $//')"
check_match "each is counted or, without that PMU here, <not supported>" \
	'^([0-9.]+|<not supported>),,br_inst_retired_near_taken,' "$(head -n 1 "$TMP/tab")"

# --- -p PID: attach to a running process ---------------------------------------
mkfifo "$TMP/fifo"
"$TMP/pages" 3000 wait "$TMP/fifo" & prog=$!
"$OCREC" stat -v -x, -e page-faults -p "$prog" 2>"$TMP/pid" & st=$!
# let the program go once ocrec counts (-v says so after enabling the
# counter: an open perf_event fd alone is not yet counting)
i=0
while [ $i -lt 600 ] && ! grep -q '^ocrec: counting' "$TMP/pid"; do
	sleep 0.1; i=$((i + 1))
done
echo go >"$TMP/fifo"
wait "$st"; rc=$?
wait "$prog" 2>/dev/null
n=$(grep ',page-faults,' "$TMP/pid" | cut -d, -f1)
check_eq "-p: ends when the process exits" 0 "$rc"
if [ "${n:-0}" -ge 3000 ] 2>/dev/null; then pass "-p: the process's 3000 page faults counted ($n)"; else fail "-p count" "$(cat "$TMP/pid")"; fi

# --- -a: system wide -------------------------------------------------------------
if [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] || [ "$(id -u)" = 0 ]; then
	"$OCREC" stat -a -x, -e task-clock sleep 0.1 2>"$TMP/a"
	check_match "-a: task-clock over all CPUs counted" '^[0-9]+\.[0-9]{2},msec,task-clock,[0-9]+,100\.00,' "$(cat "$TMP/a")"
	"$OCREC" stat -a -e task-clock 2>"$TMP/a2" & st=$!
	i=0
	while [ $i -lt 100 ] && ! ls -l /proc/$st/fd 2>/dev/null | grep -q 'perf_event'; do
		sleep 0.1; i=$((i + 1))
	done
	sleep 0.1
	kill -INT "$st"
	wait "$st"; rc=$?
	check_eq "-a without a program: Ctrl-C ends it, exit 0" 0 "$rc"
	check_match "-a without a program: 'system wide' counted" \
		"Performance counter stats for 'system wide':" "$(cat "$TMP/a2")"
else
	skip "-a" "needs root or perf_event_paranoid <= 0"
fi

# --- errors: one line, exit 2 ------------------------------------------------------
bad() {  # NAME WHAT-THE-LINE-SAYS ARGS...
	_n=$1 _w=$2; shift 2
	"$OCREC" stat "$@" >"$TMP/b.out" 2>"$TMP/b.err"; _rc=$?
	check_eq "$_n: exit 2" 2 "$_rc"
	check_eq "$_n: one line" 1 "$(wc -l <"$TMP/b.err")"
	check_match "$_n: says why" "$_w" "$(cat "$TMP/b.err")"
}
bad "unknown event" "no-such-event" -e no-such-event true
bad "unbalanced group" "'\{task-clock'" -e '{task-clock' true
bad "-r 0" "-r needs a positive number" -r 0 true
bad "nothing to count" "nothing to count" -e task-clock
bad "program that does not exist" "/nonexistent/prog: command not found" -e task-clock /nonexistent/prog
bad "no such process" "process 999999999: no such process" -p 999999999
# an unprivileged user may not count system wide when perf_event_paranoid > 0
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null 2>&1 &&
   [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 0 ] &&
   runuser -u nobody -- test -x "$OCREC"; then
	runuser -u nobody -- "$OCREC" stat -a -e task-clock true >/dev/null 2>"$TMP/perm"; rc=$?
	check_eq "-a as nobody: exit 2" 2 "$rc"
	check_match "-a as nobody: names the cause" 'cannot count task-clock: Permission denied \(perf_event_paranoid' \
		"$(cat "$TMP/perm")"
else
	skip "-a permission error" "needs root, runuser and perf_event_paranoid > 0"
fi
