# ocrec record's errors a user can act on, reached for real on this machine:
# -b without LBR (the software-sampler rule), hardware events without a PMU
# (ENOENT), perf_event_paranoid (EACCES, as an unprivileged user with -a).
# Paths a machine without a PMU cannot reach (EBUSY, precise retry, the AMD
# precise drop) are covered by tests/unit/test-record-attr.c through the seam.
. "$(dirname "$0")/../lib.sh"
need_cmd perf cc
export HOME="$TMP/home"
cc_prog loop "$ROOT/tests/progs/loop.c" || { fail "compile loop.c" "cc failed"; exit 1; }
cd "$TMP" || exit 1
have_branch_stack() { "$OCREC" info --json 2>/dev/null | grep -q '"branch_stack": *true'; }

if have_branch_stack; then
	skip "t0403-record-errors" "this machine has hardware branch stacks; these are the no-LBR paths"
	exit 0
fi

# -b with no event or a software event: the software branch sampler takes over
# with a one-line notice, or (while it is not in the build) a clear error that
# names it. Never a crash.
for args in "-b" "-e cpu-clock -b" "-j any_call,u"; do
	# shellcheck disable=SC2086
	"$OCREC" record -N $args -o b.data ./loop 300000 >b.out 2>&1; rc=$?
	if [ "$rc" = 0 ]; then
		check_match "record $args: notice names the software branch sampler" 'software branch sampler' "$(grep warning b.out)"
		check_match "record $args: perf script shows branch stacks" '0x[0-9a-f]+/0x[0-9a-f]+/' "$(perf script -F brstack -i b.data 2>/dev/null | head -n 3)"
	else
		check_eq "record $args: clear error, exit 2" 2 "$rc"
		check_match "record $args: names --branch-sampler=software" '^ocrec: .*no branch stacks.*--branch-sampler=software' "$(grep -v warning b.out)"
		check_eq "record $args: error is one line" 1 "$(grep -vc warning b.out)"
	fi
done

# A named hardware event with -b: never the sampler; the error names the option.
"$OCREC" record -N -e cycles -b -o hw.data ./loop 300000 >hw.out 2>&1
check_eq "-e cycles -b: exit 2" 2 $?
check_eq "-e cycles -b: one line: no hardware PMU, names --branch-sampler=software" \
	"ocrec: cycles: no hardware PMU here — a VM? (software events such as cpu-clock work; for -b use --branch-sampler=software)" \
	"$(cat hw.out)"
"$OCREC" record -N -e cycles -o hw.data ./loop 300000 >hw.out 2>&1
check_eq "-e cycles: exit 2" 2 $?
check_match "-e cycles: no hardware PMU here — a VM?" '^ocrec: cycles: no hardware PMU here — a VM\?' "$(cat hw.out)"
check_eq "-e cycles: no file" no "$([ -e hw.data ] && echo yes || echo no)"
"$OCREC" record -N -b --branch-sampler=hardware -o hw.data ./loop 300000 >hw.out 2>&1
check_eq "-b --branch-sampler=hardware: exit 2 (no LBR here)" 2 $?
check_match "-b --branch-sampler=hardware: says why" 'no branch stacks' "$(cat hw.out)"

# EINVAL for a frequency above the kernel's limit: the sysctl is named.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$OCREC" record -N -e cpu-clock -F $((max + 1)) -o f.data ./loop 1000 >f.out 2>&1
check_eq "-F above the maximum: exit 2" 2 $?
check_eq "-F above the maximum: one line naming the sysctl" \
	"ocrec: -F $((max + 1)) is above kernel.perf_event_max_sample_rate ($max)" "$(cat f.out)"

# EACCES for real: an unprivileged user may not record every CPU (paranoid > 0).
if ! command -v setpriv >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
	skip "EACCES" "needs root and setpriv to run as an unprivileged user"
else
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	if [ "$paranoid" -le 0 ]; then
		skip "EACCES" "kernel.perf_event_paranoid is $paranoid: -a is allowed for everyone here"
	else
		chmod 777 "$TMP"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$OCREC" record -N -e cpu-clock -a \
			-o "$TMP/eacces.data" sleep 0.1 >eacces.out 2>&1
		check_eq "EACCES: exit 2" 2 $?
		check_eq "EACCES: one line naming kernel.perf_event_paranoid" \
			"ocrec: cpu-clock: permission denied: kernel.perf_event_paranoid is $paranoid, -a needs 0 or lower (or root/CAP_PERFMON): sysctl kernel.perf_event_paranoid=0" \
			"$(cat eacces.out)"
		# Per-process recording is allowed at paranoid 2 (user space only).
		setpriv --reuid=65534 --regid=65534 --clear-groups "$OCREC" record -q -N -e cpu-clock \
			-o "$TMP/user.data" ./loop 3000000 >user.out 2>&1
		check_eq "unprivileged per-process recording works" 0 $?
		check_match "unprivileged: kernel excluded" 'exclude_kernel: 1' "$(perf evlist -f -v -i user.data 2>/dev/null)"
	fi
fi
