#!/bin/sh
# bench/bolt.sh — `ocrec bolt` against perf2bolt 16 on the same large perf.data:
# tests/progs/bolt-main.c linked for BOLT and recorded here with `ocrec record -b`
# (hardware LBR, or the software branch sampler), its data section repeated to
# about SAMPLES samples (bench/make-big-perfdata.py). Prints wall time and peak
# memory of each (perf2bolt's is the largest of it and its perf script
# children), for one copy and for the large file, the ratios, and whether the
# two fdata files hold the same lines. Goals (issue 16): at least 20x faster,
# memory bounded by distinct branches (the same for one copy and for all).
# usage: sh bench/bolt.sh [BUILD-DIR] [SAMPLES]
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=${OCREC:-$BUILD/ocrec}
SAMPLES=${2:-1000000}
P2B=/usr/lib/llvm-16/bin/perf2bolt
for c in "$P2B" perf python3 cc /usr/bin/time; do
	command -v "$c" >/dev/null 2>&1 || { echo "bench/bolt.sh: $c is not installed (make deps)" >&2; exit 2; }
done
TMP=$(mktemp -d /tmp/ocrec-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
cd "$TMP" || exit 2

measure() {  # NAME CMD...: "wall-seconds peak-KB cpu-seconds" of CMD
	name=$1; shift
	/usr/bin/time -f "%e %M %U %S" -o "$name.time" "$@" >"$name.log" 2>&1 || {
		echo "bench/bolt.sh: $name failed: $(tail -n 3 "$name.log")" >&2; exit 1; }
	awk '{ print $1, $2, $3 + $4 }' "$name.time"
}

cc -O2 -g -Wl,--emit-relocs -o prog "$ROOT/tests/progs/bolt-main.c" "$ROOT/tests/progs/bolt-util.c" || exit 2
HOME=$TMP "$OCREC" record -b -F 4000 -o base.data ./prog 40000000 >/dev/null 2>record.log || {
	echo "bench/bolt.sh: record failed: $(cat record.log)" >&2; exit 1; }
base=$(sed -n 's/.*(\([0-9]*\) samples.*/\1/p' record.log | tail -n 1)
[ "${base:-0}" -gt 0 ] || { echo "bench/bolt.sh: no samples recorded" >&2; exit 1; }
copies=$(( (SAMPLES + base - 1) / base ))
echo "$(uptime)"
for n in 1 "$copies"; do
	python3 "$ROOT/bench/make-big-perfdata.py" base.data in.data "$n" || exit 2
	o=$(measure ocrec "$OCREC" bolt -i in.data --binary prog -o ocrec.fdata)
	p=$(measure perf2bolt "$P2B" -p in.data -o p2b.fdata prog)
	if [ "$(sort ocrec.fdata)" = "$(sort p2b.fdata)" ]; then same="the same $(wc -l <ocrec.fdata) lines"; else same=DIFFERENT; fi
	echo "$n $base $o $p $same" | awk '{
		printf "%8d samples (%d copies of %d): ocrec %.2fs (cpu %.2fs) %6.1f MB   perf2bolt %.2fs (cpu %.2fs) %7.1f MB   %s\n",
			$1 * $2, $1, $2, $3, $5, $4 / 1024, $6, $8, $7 / 1024, substr($0, index($0, $9)) }'
	last="$o $p"
done
echo "$last" | awk '{ r = $4 / $1; c = $6 / $3
	printf "ratio perf2bolt/ocrec: wall time %.1fx (goal >= 20x: %s), cpu time %.1fx, memory %.1fx\n",
		r, (r >= 20) ? "met" : "NOT met", c, $5 / $2 }'
