# SIGINT/SIGTERM during ocrec record: the workload is stopped, the buffers are
# drained and the file is complete (perf report reads it); the workload's fate
# becomes ocrec's exit status and is reported.
. "$(dirname "$0")/../lib.sh"
need_cmd perf cc
export HOME="$TMP/home"
cc_prog loop "$ROOT/tests/progs/loop.c" || { fail "compile loop.c" "cc failed"; exit 1; }
cd "$TMP" || exit 1
# this test's loop processes, by their executable: another test run beside this
# one (another checkout) runs ./loop with the same arguments
our_loops() {
	for _p in $(pgrep -x loop); do
		[ "$(readlink "/proc/$_p/exe" 2>/dev/null)" = "$TMP/loop" ] && echo "$_p"
	done
}

# until one of them has run 0.2 s on a CPU (20 clock ticks of /proc/PID/stat's
# utime), at most 30 s: a fixed wait of 0.6 s gave a sanitized ocrec on a busy
# machine too little time to start the workload, and the file no sample
loop_has_run() {
	_waited=0
	while [ $_waited -lt 300 ]; do
		for _p in $(our_loops); do
			[ "$(cut -d' ' -f14 /proc/$_p/stat 2>/dev/null || echo 0)" -ge 20 ] && return 0
		done
		sleep 0.1
		_waited=$((_waited + 1))
	done
	return 1
}

for sig in INT TERM; do
	"$OCREC" record -N -e cpu-clock -o $sig.data ./loop 100000000000 >$sig.out 2>&1 &
	rp=$!
	loop_has_run
	check_eq "SIG$sig: the workload runs" 0 $?
	kill -$sig $rp
	wait $rp; rc=$?
	check_eq "SIG$sig: ocrec exits 128+SIGTERM (the workload was terminated)" 143 "$rc"
	check_match "SIG$sig: the workload's end is reported" 'ocrec: \./loop was killed by signal 15' "$(cat $sig.out)"
	check_match "SIG$sig: summary printed" 'Captured and wrote .* \([1-9][0-9]* samples' "$(cat $sig.out)"
	perf report -i $sig.data --stdio --sort symbol >$sig.report 2>$sig.report.err
	check_eq "SIG$sig: perf report reads the file" 0 $?
	check_match "SIG$sig: samples in foo and main" 'foo' "$(grep -v '^#' $sig.report)"
	check_eq "SIG$sig: perf reports no problem" "" "$(grep -iE 'error|corrupt|invalid' $sig.report.err)"
	check_eq "SIG$sig: no loop process left" "" "$(our_loops)"
done

# A workload killed by a signal of its own is reported the same way.
"$OCREC" record -q -N -e cpu-clock -o self.data sh -c 'kill -SEGV $$' 2>self.out
check_eq "workload killed by SIGSEGV: exit 139" 139 $?
check_match "workload killed by SIGSEGV: reported" 'killed by signal 11 \(Segmentation fault\)' "$(cat self.out)"

# A signal while the recording is being set up ends it like one that comes
# later: ocrec takes it from before the output file exists, which is written
# under a temporary name until the end. Taken only after the file was made,
# it killed ocrec and left that file behind (15 of these 20 tries).
sleep 120 &
sp=$!
for i in 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9; do
	"$OCREC" record -q -e cpu-clock -o early.data -p $sp >/dev/null 2>&1 &
	rp=$!
	# Until the child is ocrec: before its exec the shell's TERM trap (lib.sh)
	# takes the signal, and ocrec then recorded until sleep ended.
	while [ -e /proc/$rp ] && [ "$(cat /proc/$rp/comm 2>/dev/null)" != ocrec ]; do :; done
	sleep 0.00$i
	kill -TERM $rp 2>/dev/null
	wait $rp
done
kill $sp
check_eq "SIGTERM while setting up: each recording ends at it (sleep outlives them)" 0 $?
check_eq "SIGTERM while setting up: no temporary file left" "" "$(ls early.data.tmp* 2>/dev/null)"
