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
# with a one-line notice (at its own 1 kHz default), never a crash.
for args in "-b" "-e cpu-clock -b" "-e task-clock -j any,u"; do
	# shellcheck disable=SC2086
	"$OCREC" record -N $args -o b.data ./loop 3000000 >b.out 2>&1; rc=$?
	check_eq "record $args: exit 0 (the software sampler took over)" 0 "$rc"
	check_eq "record $args: one notice line" \
		"ocrec: warning: -b: no hardware branch stacks here: branch stacks emulated by the software sampler (1000 Hz)" \
		"$(grep warning b.out)"
	check_match "record $args: summary says the stacks are emulated, and how deep" \
		'^\[ ocrec record: branch stacks emulated by the software sampler, 32 deep \]$' "$(grep emulated b.out | grep -v warning)"
	check_match "record $args: perf script shows branch stacks" '0x[0-9a-f]+/0x[0-9a-f]+/' "$(perf script -F brstack -i b.data 2>/dev/null | head -n 3)"
	check_match "record $args: sampled at 1 kHz" 'sample_freq \}: 1000,' "$(perf evlist -v -i b.data 2>/dev/null)"
	check_eq "record $args: ocrec script -F ip,brstack prints what perf script prints" \
		"$(perf script -F ip,brstack -i b.data 2>/dev/null | md5sum)" \
		"$("$OCREC" script -F ip,brstack -i b.data 2>/dev/null | md5sum)"
done
# The sampler records every user-space branch: other -j filters are refused, not faked.
for j in any_call,u cond any,k; do
	"$OCREC" record -N -j $j -o j.data ./loop 3000000 >j.out 2>&1
	check_eq "-j $j without LBR: exit 2" 2 $?
	check_eq "-j $j without LBR: one line, the sampler cannot filter" \
		"ocrec: -j: no hardware branch stacks here, and the software branch sampler records every user-space branch (-b, -j any,u, save_type); other filters need hardware branch stacks (LBR)" \
		"$(cat j.out)"
done
"$OCREC" record -N -b -F 200 -q -o b.data ./loop 3000000 >b.out 2>&1
check_empty "-b -q: no notice, no summary" $? "$(cat b.out)"
check_match "-b -F 200: the sampler uses -F" 'sample_freq \}: 200,' "$(perf evlist -v -i b.data 2>/dev/null)"
cp b.data prev.data
"$OCREC" record -N --branch-sampler=software -q -o b.data ./loop 3000000 2>/dev/null
check_files_eq "software sampler: an existing output becomes .old" prev.data b.data.old
"$OCREC" record -N -b -o b.data no-such-program-xyz >nf.out 2>&1
check_eq "-b, missing program: exit 127" 127 $?
check_match "-b, missing program: named" 'no-such-program-xyz' "$(grep -v warning nf.out)"

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
check_eq "-b --branch-sampler=hardware: the default event's error, naming the software sampler" \
	"ocrec: cycles: no hardware PMU here — a VM? (software events such as cpu-clock work; for -b use --branch-sampler=software)" \
	"$(cat hw.out)"
"$OCREC" record -N -e cpu-clock -b --branch-sampler=hardware -o hw.data ./loop 300000 >hw.out 2>&1
check_eq "-e cpu-clock -b --branch-sampler=hardware: exit 2" 2 $?
check_eq "-e cpu-clock -b --branch-sampler=hardware: EOPNOTSUPP, one line naming the option" \
	"ocrec: cpu-clock: software events have no branch stacks (-b/-j); use --branch-sampler=software" "$(cat hw.out)"

# The article's command line, with the event named for a Skylake-SP (its CPUID
# dump and sysfs PMU): resolved to the raw event, refused here (no PMU).
F="$ROOT/tests/fixtures/cpu"
"$OCREC" --cpuid "$F/skx.cpuid" --sysfs "$F/sysfs-skx/sys" -e BR_INST_RETIRED.ALL_BRANCHES:p -b ./loop 3000 >art.out 2>&1
check_eq "ocrec -e BR_INST_RETIRED.ALL_BRANCHES:p -b prog (Skylake names): exit 2 here" 2 $?
check_eq "article's command line: one line, no PMU here, names --branch-sampler=software" \
	"ocrec: BR_INST_RETIRED.ALL_BRANCHES:p: no hardware PMU here — a VM? (software events such as cpu-clock work; for -b use --branch-sampler=software)" \
	"$(cat art.out)"
"$OCREC" --cpuid "$F/skx.cpuid" --sysfs "$F/sysfs-skx/sys" -e BR_INST_RETIRED.ALL_BRANCHES:p --branch-sampler=software ./loop 3000 >art.out 2>&1
check_eq "--branch-sampler=software with a hardware event: exit 2" 2 $?
check_match "--branch-sampler=software with a hardware event: says the sampler needs task-clock" \
	'^ocrec: BR_INST_RETIRED.ALL_BRANCHES:p: the software branch sampler samples on task-clock or cpu-clock' "$(cat art.out)"

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
		if [ "$paranoid" -gt 2 ]; then
			skip "unprivileged per-process recording" "kernel.perf_event_paranoid is $paranoid: no perf_event_open for users"
		else
			# Allowed by the sysctl but not by ptrace rules: another user's process.
			sleep 30 &
			sp=$!
			setpriv --reuid=65534 --regid=65534 --clear-groups "$OCREC" record -N -e cpu-clock -p $sp \
				-o "$TMP/other.data" >other.out 2>&1
			check_eq "-p of another user's process: exit 2" 2 $?
			check_eq "-p of another user's process: one line naming the cause" \
				"ocrec: cpu-clock: permission denied although kernel.perf_event_paranoid ($paranoid) allows it: the process is another user's, or kernel.yama.ptrace_scope forbids tracing it" \
				"$(cat other.out)"
			kill $sp
			# Per-process recording is allowed up to paranoid 2 (user space only).
			setpriv --reuid=65534 --regid=65534 --clear-groups "$OCREC" record -q -N -e cpu-clock \
				-o "$TMP/user.data" ./loop 3000000 >user.out 2>&1
			check_eq "unprivileged per-process recording works" 0 $?
			check_match "unprivileged: kernel excluded" 'exclude_kernel: 1' "$(perf evlist -f -v -i user.data 2>/dev/null)"
		fi
	fi
fi
