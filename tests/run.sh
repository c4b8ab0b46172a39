#!/bin/sh
# ocrec test runner: every unit test binary, then every end-to-end script.
# Each test prints "PASS name", "FAIL name: why" or "SKIP name: why" lines;
# this runner counts them and ends with "N passed, N failed, N skipped".
# Usage: sh tests/run.sh [PATTERN]   (only tests whose file name contains PATTERN)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
export OCREC_ROOT=$ROOT OCREC_BUILD=$BUILD OCREC=$BUILD/ocrec
export OCREC_SHARED=${OCREC_SHARED:-$ROOT/../shared}
# Never touch the user's cache or build-id cache from tests.
export XDG_CACHE_HOME=$(mktemp -d "${TMPDIR:-/tmp}/ocrec-test-cache.XXXXXX")
export HOME_SAVE=$HOME
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
PATTERN=$1
LOG=$BUILD/test-log
mkdir -p "$LOG"
pass=0 fail=0 skip=0
failed_list=

run_one() {  # name, command...
	name=$1; shift
	out=$LOG/$name.out
	start=$(date +%s)
	"$@" >"$out" 2>&1
	rc=$?
	p=$(grep -c '^PASS ' "$out"); f=$(grep -c '^FAIL ' "$out"); s=$(grep -c '^SKIP ' "$out")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		echo "FAIL $name: exited with status $rc" >>"$out"
		f=1
	fi
	if [ "$p$f$s" = 000 ]; then
		echo "FAIL $name: ran no check" >>"$out"
		f=1
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	secs=$(( $(date +%s) - start ))
	printf '%-40s %3d passed %3d failed %3d skipped  (%ss)\n' "$name" "$p" "$f" "$s" "$secs"
	grep '^SKIP ' "$out" | sed 's/^/    /'
	if [ "$f" != 0 ]; then
		failed_list="$failed_list $name"
		grep -E '^FAIL ' "$out" | sed 's/^/    /'
		echo "    --- last lines of $out:"
		tail -n 15 "$out" | sed 's/^/    | /'
	fi
}

for t in "$BUILD"/tests/test-*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	case $name in *"$PATTERN"*) ;; *) continue ;; esac
	case $name in *.d|*.o) continue ;; esac
	run_one "$name" "$t"
done
for t in "$ROOT"/tests/e2e/t*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case $name in *"$PATTERN"*) ;; *) continue ;; esac
	run_one "$name" sh "$t"
done

rm -rf "$XDG_CACHE_HOME"
[ -n "$failed_list" ] && echo "failed:$failed_list"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
