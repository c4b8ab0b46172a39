#!/bin/sh
# Run ocrec's libFuzzer targets (make fuzz), each for SECONDS (default 30), on
# its committed seed corpus (tests/fuzz/corpus/NAME) and regression inputs
# (tests/fuzz/regress/NAME); the perf.data target also gets real LBR files
# from ../shared when it is there. The committed corpora are not changed.
# Prints one line of figures per target and fails on any crash, hang, leak
# or out-of-memory, keeping the input that caused it.
# usage: sh tests/fuzz/run-fuzz.sh [SECONDS] [NAME...]
# environment: FUZZ_FLAGS  more libFuzzer flags (-jobs=2 -workers=2 ...)
#              KEEP_CORPUS DIR: keep each grown corpus in DIR/NAME
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SECS=${1:-30}
[ $# -gt 0 ] && shift
NAMES=$*
[ -n "$NAMES" ] || NAMES=$(cd "$ROOT/tests/fuzz" && ls fuzz-*.c | sed 's/^fuzz-//; s/\.c$//')
ART=$BUILD/fuzz/artifacts
TMP=$(mktemp -d /tmp/ocrec-fuzz.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir -p "$ART"
export OCREC_ROOT=$ROOT
failed=

for name in $NAMES; do
	fuzz=$BUILD/fuzz/fuzz-$name
	[ -x "$fuzz" ] || { echo "run-fuzz.sh: no $fuzz (run make fuzz)" >&2; exit 2; }
	corpus=$TMP/$name
	mkdir -p "$corpus"
	for d in corpus regress; do
		[ -d "$ROOT/tests/fuzz/$d/$name" ] && cp "$ROOT/tests/fuzz/$d/$name"/* "$corpus/" 2>/dev/null
	done
	if [ "$name" = perfdata ]; then
		# real LBR files when ../shared is there (read from there, cut here)
		LBR=${OCREC_SHARED:-$ROOT/../shared}/data/lbr
		for f in quipper-branch-4.14/perf.data.branch-4.14 \
			 quipper-branch-4.14/derived-pipe/perf.data.branch-4.14.pipe \
			 quipper-branch_stack_hw_index/perf.data.branch_stack_hw_index \
			 autofdo-arm-etm-perf-kernel/perf-kernel.data; do
			[ -f "$LBR/$f" ] && head -c 200000 "$LBR/$f" >"$corpus/shared-$(basename "$f")"
		done
	fi
	dict=
	[ -f "$ROOT/tests/fuzz/$name.dict" ] && dict=-dict=$ROOT/tests/fuzz/$name.dict
	log=$TMP/$name.log
	# shellcheck disable=SC2086
	(cd "$TMP" && "$fuzz" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$ART/$name-" $dict $FUZZ_FLAGS "$corpus" >"$log" 2>&1)
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{s+=$1} END {print s+0}')
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | awk '{s+=$1} END {print s+0}')
	rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | sort -n | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\)\/\([0-9a-zA-Z]*\).*/\1 inputs, \2/p')
	printf '%-12s %10s execs %7s/s  cov %5s  ft %6s  corpus %s  peak %s MB\n' "$name" "$execs" "$rate" \
		"${cov:-?}" "${ft:-?}" "${corp:-?}" "${rss:-?}"
	if [ -n "${KEEP_CORPUS:-}" ]; then
		mkdir -p "$KEEP_CORPUS/$name" && cp "$corpus"/* "$KEEP_CORPUS/$name/" 2>/dev/null
	fi
	if [ $rc -ne 0 ]; then
		failed="$failed $name"
		echo "run-fuzz.sh: fuzz-$name found a problem (exit $rc); input kept in $ART/ (add it to tests/fuzz/regress/$name/):" >&2
		grep -E -A 30 'ERROR|fuzz: |==[0-9]+==' "$log" | head -n 50 >&2
		grep -E 'Test unit written to|artifact_prefix' "$log" >&2
	fi
done
[ -z "$failed" ] || { echo "run-fuzz.sh: failed:$failed" >&2; exit 1; }
exit 0
