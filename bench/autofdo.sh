#!/bin/sh
# bench/autofdo.sh — `ocrec autofdo` against llvm-profgen 14 on the same large
# input: the Westmere LBR trace of tests/data/lbr/autofdo-test_lbr repeated
# N times (default 20: ~185k branch stacks), LLVM text profile from both.
# Prints both times and the ratio. Goal (issue 8): ocrec >= 5x faster.
# usage: sh bench/autofdo.sh [BUILD-DIR] [N]     (needs hyperfine, llvm-14)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
N=${2:-20}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=${OCREC:-$BUILD/ocrec}
PROFGEN=/usr/lib/llvm-14/bin/llvm-profgen
DATA=$ROOT/tests/data/lbr/autofdo-test_lbr
for c in hyperfine python3 "$PROFGEN"; do
	command -v "$c" >/dev/null 2>&1 || { echo "bench/autofdo.sh: $c is not installed" >&2; exit 2; }
done
[ -x "$OCREC" ] || { echo "bench/autofdo.sh: no $OCREC (make BUILD=...)" >&2; exit 2; }
[ -d "$DATA" ] || { echo "bench/autofdo.sh: $DATA is absent" >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ocrec-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
zcat "$DATA/script-brstack.txt.gz" >"$TMP/one.script"
i=0
while [ $i -lt "$N" ]; do cat "$TMP/one.script"; i=$((i + 1)); done >"$TMP/in.script"
BIN=$DATA/test.binary
echo "input: $(wc -l <"$TMP/in.script") branch stacks, $(du -h "$TMP/in.script" | cut -f1) of perf script text"

run() {  # NAME COMMAND: mean seconds into $TMP/NAME
	hyperfine -N --warmup 1 --min-runs 5 --export-json "$TMP/$1.json" "$2" >/dev/null 2>&1 || {
		echo "bench/autofdo.sh: '$2' failed" >&2; exit 1; }
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["mean"])' "$TMP/$1.json" >"$TMP/$1"
}
run ocrec "$OCREC autofdo --perfscript $TMP/in.script --binary $BIN -o $TMP/ocrec.prof"
run profgen "$PROFGEN --perfscript=$TMP/in.script --binary=$BIN --format=text --output=$TMP/profgen.prof"
python3 - "$TMP/ocrec" "$TMP/profgen" <<'EOF'
import sys
o, p = (float(open(f).read()) for f in sys.argv[1:3])
print(f"ocrec autofdo: {o * 1000:8.1f} ms")
print(f"llvm-profgen:  {p * 1000:8.1f} ms")
print(f"speedup:       {p / o:8.1f}x (goal >= 5x)")
EOF
/usr/lib/llvm-14/bin/llvm-profdata overlap --sample "$TMP/profgen.prof" "$TMP/ocrec.prof" 2>/dev/null |
	grep 'Whole program profile similarity'
