#!/bin/sh
# bench/autofdo-gawk.sh — the article's AutoFDO experiment on gawk, for both compilers:
#   1. apt-get source gawk (adds a deb-src entry when none exists; needs root and network)
#   2. build gawk -O2 -g with gcc and with clang
#   3. profile a text-processing awk workload with `ocrec record -b` (hardware LBR
#      or ocrec's software sampler) and `ocrec autofdo`
#   4. rebuild with the profiles: gcc -fauto-profile, clang -fprofile-sample-use
#   5. time base vs optimized in interleaved pairs (n >= 20) and print the
#      speedup with its spread (mean and 95% interval of the per-pair ratios),
#      in CPU time (user + sys of the workload) and in wall time
# Not part of CI. usage: sh bench/autofdo-gawk.sh [BUILD-DIR] [PAIRS] [WORKDIR]
# (PROFILE_RUNS=N runs of PROFILE_FREQ Hz are merged into each profile; default 4 at 4000;
# GAWK_LOCALE sets the locale of the profiled and timed runs, default C.UTF-8;
# GAWK_SCRIPT=FILE.awk [GAWK_INPUT=FILE] profiles and times another workload: its
# profiles and optimized builds are named after it, the base builds are shared)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
PAIRS=${2:-20}
WORK=${3:-/tmp/ocrec-gawk}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=${OCREC:-$BUILD/ocrec}
[ -x "$OCREC" ] || { echo "autofdo-gawk.sh: no $OCREC (make BUILD=...)" >&2; exit 2; }
[ "$PAIRS" -ge 20 ] || { echo "autofdo-gawk.sh: use at least 20 pairs" >&2; exit 2; }
for c in gcc-12 clang-14 python3 make; do
	command -v $c >/dev/null 2>&1 || { echo "autofdo-gawk.sh: $c is not installed" >&2; exit 2; }
done
mkdir -p "$WORK"
cd "$WORK"
# 1-2. the gawk source, builds and workload bench/bolt-gawk.sh shares
TOOL=autofdo-gawk.sh
. "$ROOT/bench/gawk-common.sh"
gawk_source
gawk_workload
build() {
	gawk_build "$@"
}

build base-gcc gcc-12 "-O2 -g -gdwarf-5"
build base-clang clang-14 "-O2 -g -fdebug-info-for-profiling"

# Several profiled runs merged (autofdo -i is repeatable): one run gives
# about 1.5k samples at 1 kHz, thin for a whole interpreter.
PROFILE_RUNS=${PROFILE_RUNS:-4}
PROFILE_FREQ=${PROFILE_FREQ:-4000}
profile() {  # BUILD FORMAT OUT
	inputs=
	for r in $(seq "$PROFILE_RUNS"); do
		"$OCREC" record -q -b -F "$PROFILE_FREQ" -o "$1.$NAME.$r.data" "$1/gawk" -f "$NAME.awk" "$INPUT" >/dev/null
		inputs="$inputs -i $1.$NAME.$r.data"
	done
	# shellcheck disable=SC2086
	"$OCREC" autofdo $inputs --binary "$1/gawk" --format "$2" -o "$3"
}
# the default workload keeps its old names (gawk.gcov, fdo-gcc, ...)
SUFFIX=; [ "$NAME" = work ] || SUFFIX=-$NAME
profile base-gcc gcc "gawk$SUFFIX.gcov"
profile base-clang llvm "gawk$SUFFIX.prof"
build "fdo-gcc$SUFFIX" gcc-12 "-O2 -g -fauto-profile=$WORK/gawk$SUFFIX.gcov" "gawk$SUFFIX.gcov"
build "fdo-clang$SUFFIX" clang-14 "-O2 -g -fdebug-info-for-profiling -fprofile-sample-use=$WORK/gawk$SUFFIX.prof" "gawk$SUFFIX.prof"
# the optimized builds must compute the same result
for b in base-gcc "fdo-gcc$SUFFIX" base-clang "fdo-clang$SUFFIX"; do
	"$b/gawk" -f "$NAME.awk" "$INPUT" >"$b.out"
	cmp -s base-gcc.out "$b.out" || { echo "autofdo-gawk.sh: $b/gawk prints a different result" >&2; exit 1; }
done
echo "workload: $NAME.awk on $INPUT; result: $(head -c 200 base-gcc.out | head -n 3) (LC_ALL=$LC_ALL)"

# 5. interleaved pairs; the order inside a pair alternates. CPU time (user +
# sys from wait4) is printed beside wall time: it leaves out the time the
# workload waits for a core on a shared machine (not the slowdown from
# sharing its caches).
measure() {  # BASE OPT LABEL
	python3 - "$1/gawk" "$2/gawk" "$PAIRS" "$3" "$NAME.awk" "$INPUT" <<'EOF'
import os, statistics, subprocess, sys, time
base, opt, pairs, label, script, data = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
def run(prog):
    t = time.perf_counter()
    p = subprocess.Popen([prog, "-f", script, data], stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        sys.exit(f"autofdo-gawk.sh: {prog} failed (wait status {status})")
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime
times = {base: [], opt: []}
for i in range(pairs):
    for prog in ((opt, base) if i % 2 else (base, opt)):
        times[prog].append(run(prog))
for k, name in ((1, "cpu "), (0, "wall")):
    b = [t[k] for t in times[base]]
    o = [t[k] for t in times[opt]]
    ratios = [x / y for x, y in zip(b, o)]
    m = statistics.mean(ratios)
    half = 1.96 * statistics.stdev(ratios) / len(ratios) ** 0.5
    print(f"{label} {name}: base {statistics.median(b)*1000:.1f} ms, AutoFDO {statistics.median(o)*1000:.1f} ms, "
          f"speedup {100*(m-1):+.1f}% ± {100*half:.1f}% (95% interval, {pairs} interleaved pairs)")
EOF
}
measure base-gcc "fdo-gcc$SUFFIX" "gcc-12   -fauto-profile       "
measure base-clang "fdo-clang$SUFFIX" "clang-14 -fprofile-sample-use "
