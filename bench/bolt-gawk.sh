#!/bin/sh
# bench/bolt-gawk.sh — BOLT on gawk from sampled profiles alone, for both compilers:
#   1. Debian's gawk source and the workload of bench/gawk-common.sh (shared
#      with bench/autofdo-gawk.sh)
#   2. gawk -O2 -g linked with -Wl,--emit-relocs: plain, and with the AutoFDO
#      profile `ocrec autofdo` makes of the plain build (gcc -fauto-profile,
#      clang -fprofile-sample-use)
#   3. each of those profiled with `ocrec record -b` (hardware LBR or ocrec's
#      software sampler; PROFILE_RUNS runs of PROFILE_FREQ Hz merged) and
#      `ocrec bolt`, and rewritten by llvm-bolt-16 with BOLT_OPTS
#   4. instrumented PGO trained on the same workload (gcc -fprofile-generate
#      and -use, clang -fprofile-instr-generate and -use), for comparison
#   5. the ten builds timed in one interleaved run of ROUNDS rounds (each
#      round runs all, in an order that rotates): every speedup over its
#      compiler's plain build, the mean and 95% interval of the per-round
#      ratios, in CPU time (user + sys of the workload) and in wall time, with
#      the machine's load before and after
# The goal it serves: a sampled profile alone (AutoFDO + BOLT, no
# instrumentation) makes gawk at least as fast as instrumented PGO.
# Not part of CI. usage: sh bench/bolt-gawk.sh [BUILD-DIR] [ROUNDS] [WORKDIR]
# ROUNDS >= 20; GAWK_LOCALE, GAWK_SCRIPT and GAWK_INPUT as in bench/autofdo-gawk.sh.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
ROUNDS=${2:-20}
WORK=${3:-/tmp/ocrec-bolt-gawk}
TOOL=bolt-gawk.sh
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=${OCREC:-$BUILD/ocrec}
[ -x "$OCREC" ] || { echo "$TOOL: no $OCREC (make BUILD=...)" >&2; exit 2; }
[ "$ROUNDS" -ge 20 ] || { echo "$TOOL: use at least 20 rounds" >&2; exit 2; }
LLVM=/usr/lib/llvm-14/bin
BOLT=/usr/lib/llvm-16/bin/llvm-bolt
for c in gcc-12 clang-14 python3 make $LLVM/llvm-profdata $BOLT; do
	command -v $c >/dev/null 2>&1 || { echo "$TOOL: $c is not installed (make deps)" >&2; exit 2; }
done
BOLT_OPTS=${BOLT_OPTS:--reorder-blocks=ext-tsp -reorder-functions=hfsort -split-functions -split-all-cold -icf=1}
PROFILE_RUNS=${PROFILE_RUNS:-4}
PROFILE_FREQ=${PROFILE_FREQ:-4000}
mkdir -p "$WORK"
cd "$WORK"
. "$ROOT/bench/gawk-common.sh"
gawk_source
gawk_workload

RELOCS=-Wl,--emit-relocs
GCC_FLAGS="-O2 -g -gdwarf-5 $RELOCS"
CLANG_FLAGS="-O2 -g -fdebug-info-for-profiling $RELOCS"
gawk_build plain-gcc gcc-12 "$GCC_FLAGS"
gawk_build plain-clang clang-14 "$CLANG_FLAGS"

# stale FILE THAN: FILE is missing or older than THAN (a product to redo)
stale() {
	[ ! -e "$1" ] || [ "$2" -nt "$1" ]
}

# record BUILD: PROFILE_RUNS recordings of the workload, their -i options on stdout
record() {
	for r in $(seq "$PROFILE_RUNS"); do
		if stale "$1.$NAME.$r.data" "$1/gawk"; then
			"$OCREC" record -q -b -F "$PROFILE_FREQ" -o "$1.$NAME.$r.data" "$1/gawk" -f "$NAME.awk" "$INPUT" >/dev/null
		fi
		printf ' -i %s' "$1.$NAME.$r.data"
	done
}

# AutoFDO builds from profiles of the plain ones
if stale "gawk$SUFFIX.gcov" plain-gcc/gawk; then
	# shellcheck disable=SC2046
	"$OCREC" autofdo $(record plain-gcc) --binary plain-gcc/gawk --format gcc -o "gawk$SUFFIX.gcov" 2>"gawk$SUFFIX.gcov.log"
fi
if stale "gawk$SUFFIX.prof" plain-clang/gawk; then
	# shellcheck disable=SC2046
	"$OCREC" autofdo $(record plain-clang) --binary plain-clang/gawk --format llvm -o "gawk$SUFFIX.prof" 2>"gawk$SUFFIX.prof.log"
fi
# the flags `ocrec autofdo --format gcc` recommends on its stderr, if it does
GCC_AFDO_FLAGS=${GCC_AFDO_FLAGS-$(sed -n 's/^ocrec autofdo: gcc: use \(.*\)$/\1/p' "gawk$SUFFIX.gcov.log")}
gawk_build "fdo-gcc$SUFFIX" gcc-12 "$GCC_FLAGS -fauto-profile=$WORK/gawk$SUFFIX.gcov $GCC_AFDO_FLAGS" "gawk$SUFFIX.gcov"
gawk_build "fdo-clang$SUFFIX" clang-14 "$CLANG_FLAGS -fprofile-sample-use=$WORK/gawk$SUFFIX.prof" "gawk$SUFFIX.prof"

# BOLT on top of a build: NAME SOURCE-BUILD
bolt() {
	if stale "$1/gawk" "$2/gawk"; then
		# shellcheck disable=SC2046
		"$OCREC" bolt $(record "$2") --binary "$2/gawk" -o "$1.fdata" 2>"$1.fdata.log"
		mkdir -p "$1"
		# shellcheck disable=SC2086
		"$BOLT" "$2/gawk" -o "$1/gawk" -data="$1.fdata" $BOLT_OPTS -dyno-stats >"$1.log" 2>&1 ||
			{ echo "$TOOL: llvm-bolt $2/gawk failed (see $WORK/$1.log)" >&2; exit 1; }
	fi
	echo "$1: $(grep -o '[0-9]* out of [0-9]* functions in the binary ([0-9.]*%) have non-empty execution profile' "$1.log")"
}
bolt "bolt-gcc$SUFFIX" plain-gcc
bolt "bolt-clang$SUFFIX" plain-clang
bolt "fdo-bolt-gcc$SUFFIX" "fdo-gcc$SUFFIX"
bolt "fdo-bolt-clang$SUFFIX" "fdo-clang$SUFFIX"

# instrumented PGO on the same workload
gawk_pgo

# every build must compute the same result
BINS="plain-gcc bolt-gcc$SUFFIX fdo-gcc$SUFFIX fdo-bolt-gcc$SUFFIX pgo-gcc$SUFFIX
      plain-clang bolt-clang$SUFFIX fdo-clang$SUFFIX fdo-bolt-clang$SUFFIX pgo-clang$SUFFIX"
# shellcheck disable=SC2086
gawk_same_result $BINS
echo "llvm-bolt options: $BOLT_OPTS; gcc -fauto-profile flags: ${GCC_AFDO_FLAGS:-(none)}"

# one interleaved run of all builds. CPU time (user + sys from wait4) is
# printed beside wall time: it leaves out the time the workload waits for a
# core on a shared machine (not the slowdown from sharing its caches).
echo "load before timing: $(uptime)"
# shellcheck disable=SC2086
python3 - "$ROOT/bench" "$ROUNDS" "$NAME.awk" "$INPUT" $BINS <<'EOF'
import statistics, sys
sys.path.insert(0, sys.argv[1])
from interleave import interleaved
rounds, script, data, bins = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
times = interleaved(bins, ["-f", script, data], rounds, "bolt-gawk.sh")
labels = ("BOLT", "AutoFDO", "AutoFDO+BOLT", "PGO")
for k, kind in ((1, "cpu "), (0, "wall")):
    for group, label in ((bins[0:5], "gcc-12  "), (bins[5:10], "clang-14")):
        base = [t[k] for t in times[group[0]]]
        parts = []
        for name, opt in zip(labels, group[1:]):
            g = [x / y[k] - 1 for x, y in zip(base, times[opt])]
            half = 1.96 * statistics.stdev(g) / len(g) ** 0.5
            parts.append(f"{name} {100*statistics.mean(g):+.1f}% ± {100*half:.1f}%")
        print(f"{label} {kind}: plain {statistics.median(base)*1000:.1f} ms; " + ", ".join(parts)
              + f" ({rounds} rounds)")
EOF
echo "load after timing: $(uptime)"
