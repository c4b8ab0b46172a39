#!/bin/sh
# bench/script.sh — `ocrec script -F ip,brstack` against `perf script -F ip,brstack`
# on the same large branch-stack file (a real Skylake LBR recording from
# tests/data repeated to about 1M samples), printing both times and the ratio.
# Goal (issue 4): ocrec at least 10x faster. Both outputs must be identical.
# usage: sh bench/script.sh [BUILD-DIR] [COPIES]
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=$BUILD/ocrec
COPIES=${2:-270}
SRC_GZ=$ROOT/tests/data/lbr/autofdo-propeller_sample_1/propeller_sample_1.perfdata1.gz
for c in perf python3; do
	command -v $c >/dev/null 2>&1 || { echo "bench/script.sh: $c is not installed" >&2; exit 2; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ocrec-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
SRC=$TMP/src.data
gzip -dc "$SRC_GZ" >"$SRC" || exit 2
python3 "$ROOT/bench/make-big-perfdata.py" "$SRC" "$TMP/big.data" "$COPIES" || exit 2
echo "input: $(du -h "$TMP/big.data" | cut -f1), $((3740 * COPIES)) samples with 32-entry branch stacks"

secs() {  # CMD...: run 3 times with output to /dev/null, print the best wall seconds
	best=
	for _ in 1 2 3; do
		start=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		end=$(date +%s.%N)
		t=$(echo "$start $end" | awk '{ printf "%.3f", $2 - $1 }')
		best=$(echo "$t ${best:-$t}" | awk '{ print ($1 < $2) ? $1 : $2 }')
	done
	echo "$best"
}
# identical output (checked on a smaller copy: writing gigabytes would time the disk)
python3 "$ROOT/bench/make-big-perfdata.py" "$SRC" "$TMP/small.data" 5 || exit 2
"$OCREC" script -i "$TMP/small.data" -F ip,brstack >"$TMP/ocrec.txt" 2>/dev/null
perf script -i "$TMP/small.data" -F ip,brstack >"$TMP/perf.txt" 2>/dev/null
if cmp -s "$TMP/ocrec.txt" "$TMP/perf.txt"; then same=identical; else same=DIFFERENT; fi
t_ocrec=$(secs "$OCREC" script -i "$TMP/big.data" -F ip,brstack)
t_perf=$(secs perf script -i "$TMP/big.data" -F ip,brstack)
echo "ocrec script: ${t_ocrec}s   perf script: ${t_perf}s   (best of 3, output to /dev/null; outputs $same)"
echo "$t_perf $t_ocrec" | awk '{ r = $1 / $2; printf "ratio perf/ocrec: %.1fx  (goal >= 10x: %s)\n", r, (r >= 10) ? "met" : "NOT met" }'
