#!/bin/sh
# Recording overhead: ocrec record against perf record at the same frequency
# on the same program (slowdown of each over a plain run, and their ratio),
# then lost samples at 10 kHz (goal: none).
# Usage: sh bench/record.sh [EVENT] [FREQ]   (defaults cpu-clock, 4000)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OCREC=${OCREC:-$ROOT/ocrec}
EVENT=${1:-cpu-clock}
FREQ=${2:-4000}
for c in perf hyperfine python3 cc; do
	command -v $c >/dev/null 2>&1 || { echo "bench/record.sh: $c is not installed (make deps)" >&2; exit 2; }
done
[ -x "$OCREC" ] || { echo "bench/record.sh: $OCREC not built (make)" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ocrec-bench-record.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
export HOME="$TMP/home"     # both tools fill a build-id cache: keep it out of the real one
mkdir -p "$HOME"
cc -O2 -g -DITERS=300000000 -o "$TMP/div" "$ROOT/tests/progs/div.c"
cc -O2 -g -pthread -o "$TMP/threads" "$ROOT/tests/progs/record-threads.c"
cd "$TMP"

echo "== overhead: $EVENT at $FREQ Hz on div (ITERS=300000000), wall time of the whole command =="
# Default: both fill the build-id cache (perf finds the sampled objects by
# reading the file again at the end; ocrec while recording). -N: neither does.
hyperfine -N --warmup 1 --runs 10 --export-json overhead.json \
	-n plain "./div" \
	-n perf "perf record -q -e $EVENT -F $FREQ -o perf.data ./div" \
	-n ocrec "$OCREC record -q -e $EVENT -F $FREQ -o ocrec.data ./div" \
	-n "perf -N" "perf record -q -N -e $EVENT -F $FREQ -o perf.data ./div" \
	-n "ocrec -N" "$OCREC record -q -N -e $EVENT -F $FREQ -o ocrec.data ./div" >hyperfine.out 2>&1 ||
	{ cat hyperfine.out; exit 1; }
python3 - overhead.json <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["plain"]["mean"]
for n in ("plain", "perf", "ocrec", "perf -N", "ocrec -N"):
    print(f"{n:8s} {r[n]['mean']*1000:9.1f} ms ± {r[n]['stddev']*1000:6.1f}   slowdown {r[n]['mean']/base:6.3f}x")
for suffix in ("", " -N"):
    ps, os_ = r["perf" + suffix]["mean"] / base, r["ocrec" + suffix]["mean"] / base
    print(f"overhead{suffix or ' (default)'}: perf +{(ps-1)*100:.1f}%, ocrec +{(os_-1)*100:.1f}%; "
          f"ocrec/perf slowdown ratio {os_/ps:.3f}")
PY

echo "== lost samples at 10 kHz ($EVENT) =="
for prog in "./div" "./threads 2 200000000"; do
	# shellcheck disable=SC2086
	"$OCREC" record -N -e "$EVENT" -F 10000 -o lost.data $prog 2>lost.out
	ocrec_line=$(grep 'Captured' lost.out)
	# shellcheck disable=SC2086
	perf record -e "$EVENT" -F 10000 -o perf-lost.data $prog 2>perf-lost.out >/dev/null
	perf_lost=$(perf report -i perf-lost.data --stdio 2>/dev/null | sed -n 's/^# Total Lost Samples: //p')
	echo "$prog: ocrec: ${ocrec_line#*\(}" | sed 's/ \]$//'
	echo "$prog: perf:  $(perf script -i perf-lost.data 2>/dev/null | wc -l) samples, ${perf_lost:-0} lost)"
done
