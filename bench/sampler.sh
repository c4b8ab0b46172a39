#!/bin/sh
# Software branch sampler overhead: the slowdown of real programs (mawk, the
# article's div.c and loop.c) recorded with -b by the software branch sampler
# at 100 Hz, 1 kHz and 4 kHz, 32 branches deep, against plain runs (goal:
# at most 1.5x at 1 kHz). With the test helper built, also the sampler's
# statistics of one 1 kHz run (windows, stops, single-steps).
# Usage: sh bench/sampler.sh [RUNS]   (default 5 runs per measurement)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=${OCREC:-$BUILD/ocrec}
RUNS=${1:-5}
for c in hyperfine python3 cc mawk; do
	command -v $c >/dev/null 2>&1 || { echo "bench/sampler.sh: $c is not installed" >&2; exit 2; }
done
# The recorder's command line when it has the software sampler, else the
# test helper that calls swbranch_record() directly.
if [ -x "$OCREC" ] && "$OCREC" record --help 2>&1 | grep -q branch-sampler; then
	REC="$OCREC record -q -b --branch-sampler=software"
elif [ -x "$BUILD/tests/helpers/sampler-record" ]; then
	REC="$BUILD/tests/helpers/sampler-record -q"
else
	echo "bench/sampler.sh: neither $OCREC with --branch-sampler nor $BUILD/tests/helpers/sampler-record is built" >&2
	exit 2
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ocrec-bench-sampler.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
export HOME="$TMP/home"
mkdir -p "$HOME"
cc -O2 -g -DITERS=100000000 -o "$TMP/div" "$ROOT/tests/progs/div.c"
cc -O2 -g -o "$TMP/loop" "$ROOT/tests/progs/loop.c"
cd "$TMP"
printf '%s\n' 'BEGIN { for (i = 0; i < 3000000; i++) { s += i % 7; a[i % 1000] = s } print s }' >prog.awk

echo "recorder: $REC"
bench() {  # NAME COMMAND...
	name=$1; shift
	echo "== $name: $* =="
	hyperfine -N --warmup 1 --runs "$RUNS" --export-json "$name.json" \
		-n plain "$*" \
		-n 100Hz "$REC -F 100 -o $name-100.data $*" \
		-n 1kHz "$REC -F 1000 -o $name-1k.data $*" \
		-n 4kHz "$REC -F 4000 -o $name-4k.data $*" >"$name.out" 2>&1 || { cat "$name.out"; exit 1; }
	python3 - "$name.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
# The machine is shared: medians, and the spread of the runs (min..max).
base = r["plain"]["median"]
for n in ("plain", "100Hz", "1kHz", "4kHz"):
    t = r[n]["times"]
    print(f"  {n:6s} {r[n]['median']*1000:8.1f} ms (median; {min(t)*1000:.0f}..{max(t)*1000:.0f})"
          f"  slowdown {r[n]['median']/base:5.2f}x (min/min {min(t)/min(r['plain']['times']):5.2f}x)")
print(f"  goal at 1 kHz: <= 1.50x -> {'met' if r['1kHz']['median']/base <= 1.5 else 'NOT met'}")
PY
	if [ -x "$BUILD/tests/helpers/sampler-record" ]; then
		"$BUILD/tests/helpers/sampler-record" -q -v -F 1000 -o "$name-stats.data" "$@" 2>&1 >/dev/null |
			sed -n 's/^ocrec: software branch sampler: /  1 kHz: /p'
	fi
}
bench mawk mawk -f prog.awk
bench div ./div
bench loop ./loop 50000000
