#!/bin/sh
# Run the perf.data reader's fuzz target for SECONDS (default 30) on a corpus
# of small valid files made here (ocrec's writer through the sampler helper,
# when built, and perf's own). Fails on any crash, hang or leak.
# usage: sh tests/fuzz/run-fuzz.sh [SECONDS]   (after make fuzz)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
FUZZ=$BUILD/fuzz/fuzz-perfdata
SECS=${1:-30}
[ -x "$FUZZ" ] || { echo "run-fuzz.sh: no $FUZZ (run make fuzz)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/ocrec-fuzz.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
mkdir "$TMP/corpus"
printf 'int main(void){volatile int i,s=0;for(i=0;i<3000000;i++)s+=i&3?1:2;return s&1;}\n' >"$TMP/p.c"
cc -O1 -o "$TMP/p" "$TMP/p.c"
if command -v perf >/dev/null 2>&1; then
	perf record -q -e cpu-clock -c 100000 -o "$TMP/corpus/perf-file.data" "$TMP/p" >/dev/null 2>&1
	perf record -q -e cpu-clock -c 100000 -o - "$TMP/p" >"$TMP/corpus/perf-pipe.data" 2>/dev/null
	# call chains, two events (ids, sample_id_all), zstd-compressed records
	perf record -q -e cpu-clock -c 100000 -g -o "$TMP/corpus/perf-callchain.data" "$TMP/p" >/dev/null 2>&1
	perf record -q -e cpu-clock,task-clock -c 100000 -o "$TMP/corpus/perf-two.data" "$TMP/p" >/dev/null 2>&1
	perf record -q -z -e cpu-clock -c 100000 -o "$TMP/corpus/perf-zstd.data" "$TMP/p" >/dev/null 2>&1
fi
# real LBR files from ../shared when it is there (read from there, cut below)
LBR=${OCREC_SHARED:-$ROOT/../shared}/data/lbr
for f in quipper-branch-4.14/perf.data.branch-4.14 \
	 quipper-branch-4.14/derived-pipe/perf.data.branch-4.14.pipe \
	 quipper-branch_stack_hw_index/perf.data.branch_stack_hw_index \
	 autofdo-arm-etm-perf-kernel/perf-kernel.data; do
	[ -f "$LBR/$f" ] && head -c 200000 "$LBR/$f" >"$TMP/corpus/shared-$(basename "$f")"
done
if [ -x "$BUILD/tests/helpers/sampler-record" ]; then
	"$BUILD/tests/helpers/sampler-record" -q -F 2000 --lbr-depth 4 -o "$TMP/corpus/ocrec-branches.data" -- "$TMP/p" >/dev/null 2>&1
fi
# keep the corpus small: the fuzzer mutates better from small files
for f in "$TMP"/corpus/*; do
	[ -f "$f" ] && [ "$(stat -c %s "$f")" -gt 200000 ] && head -c 200000 "$f" >"$f.head" && mv "$f.head" "$f"
done
echo "fuzzing the perf.data reader for ${SECS}s on $(ls "$TMP/corpus" | wc -l) seed files"
cd "$TMP" && "$FUZZ" -max_total_time="$SECS" -max_len=65536 -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=1 "$TMP/corpus" 2>"$TMP/log"
rc=$?
tail -n 12 "$TMP/log"
if [ $rc -ne 0 ]; then
	echo "run-fuzz.sh: the fuzzer found a problem (exit $rc); the reproducer is in the log above" >&2
	grep -A 30 'ERROR' "$TMP/log" | head -n 40 >&2
fi
exit $rc
