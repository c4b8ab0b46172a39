#!/bin/sh
# bench/report.sh — `ocrec report` against `perf report -F overhead,symbol_from,symbol_to`
# on the same large branch file (a real Skylake LBR recording from tests/data repeated
# to about 1M samples = 32M branch entries): wall time and peak memory of each, and
# the ratios. Goals (issue 6): at least 10x faster, memory bounded by distinct keys.
# usage: sh bench/report.sh [BUILD-DIR] [COPIES]
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=$BUILD/ocrec
COPIES=${2:-270}
FIX=$ROOT/tests/data/lbr/autofdo-propeller_sample_1
for c in perf python3 /usr/bin/time; do
	command -v $c >/dev/null 2>&1 || { echo "bench/report.sh: $c is not installed" >&2; exit 2; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ocrec-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
gzip -dc "$FIX/propeller_sample_1.perfdata1.gz" >"$TMP/src.data" || exit 2

measure() {  # NAME FILE CMD...: "seconds peak-KB" of CMD into NAME
	name=$1; shift
	/usr/bin/time -f "%e %M" -o "$TMP/$name.time" "$@" >"$TMP/$name.out" 2>/dev/null
	cat "$TMP/$name.time"
}
rows() { grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/  +/|/g' | sort; }

for copies in 1 "$COPIES"; do
	python3 "$ROOT/bench/make-big-perfdata.py" "$TMP/src.data" "$TMP/in.data" "$copies" || exit 2
	set -- -i "$TMP/in.data" --symfs "$FIX/symfs" --stdio -F overhead,symbol_from,symbol_to
	o=$(measure ocrec "$OCREC" report -q "$@")
	p=$(measure perf perf report "$@")
	if [ "$(rows <"$TMP/ocrec.out")" = "$(rows <"$TMP/perf.out")" ]; then same=same; else same=DIFFERENT; fi
	echo "$copies $o $p $same" | awk '{
		printf "%8d samples (%d branch entries): ocrec %.2fs %6.1f MB   perf %.2fs %7.1f MB   percentages %s\n",
			3740 * $1, 119424 * $1, $2, $3 / 1024, $4, $5 / 1024, $6 }'
	last="$o $p"
done
echo "$last" | awk '{ r = $3 / $1; printf "ratio perf/ocrec: time %.1fx (goal >= 10x: %s), memory %.1fx\n", r, (r >= 10) ? "met" : "NOT met", $4 / $2 }'
