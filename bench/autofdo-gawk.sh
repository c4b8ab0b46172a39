#!/bin/sh
# bench/autofdo-gawk.sh — the article's AutoFDO experiment on gawk, for both compilers:
#   1. apt-get source gawk (adds a deb-src entry when none exists; needs root and
#      network): bench/gawk-common.sh, which bench/bolt-gawk.sh shares
#   2. build gawk -O2 -g with gcc and with clang
#   3. profile a text-processing awk workload with `ocrec record -b` (hardware LBR
#      or ocrec's software sampler) and `ocrec autofdo`
#   4. rebuild with the profiles (gcc -fauto-profile with the flags ocrec
#      recommends, clang -fprofile-sample-use), and with instrumented PGO
#      trained on the same workload (gcc -fprofile-generate/-use, clang
#      -fprofile-instr-generate/-use)
#   5. the profiles' accuracy against gcov's counts of the same workload, with
#      the metric of bench/autofdo-accuracy.sh (bench/autofdo-overlap.py):
#      "overlap gcc: 0.NNN", "overlap llvm: 0.NNN"
#   6. time the plain, AutoFDO and PGO builds of both compilers in one
#      interleaved run of ROUNDS rounds (each round runs all of them, in an
#      order that rotates) and print each speedup over its compiler's plain
#      build (mean and 95% interval of the per-round ratios), in CPU time
#      (user + sys of the workload) and in wall time, and the share of PGO's
#      gain that AutoFDO reaches (ratio of the mean gains, 95% bootstrap
#      interval)
# Not part of CI. usage: sh bench/autofdo-gawk.sh [BUILD-DIR] [ROUNDS] [WORKDIR]
# ROUNDS >= 20. Builds run under nice, the timed runs do not.
# PROFILE_RUNS=N runs of PROFILE_FREQ Hz are merged into each profile (default 4 at 4000),
# recorded with PROFILE_DEPTH-deep windows where the software sampler records
# (--lbr-depth, default 1024; empty: record's default);
# GAWK_LOCALE sets the locale of the profiled and timed runs, default C.UTF-8;
# GAWK_SCRIPT=FILE.awk [GAWK_INPUT=FILE] profiles and times another workload: its
# profiles and optimized builds are named after it, the base builds are shared;
# GCC_AFDO_FLAGS replaces the flags added to gcc -fauto-profile; EXACT=1 also
# makes profiles from callgrind's exact counts (tests/helpers/afdo-exact),
# prints their overlap (the metric's ceiling) and times the builds made with
# them (what AutoFDO gives when sampling loses nothing); VERBOSE=1 lists the
# lines that lose the most. LAYOUTS=K (default 4) times every build in K code
# layouts (its objects linked behind 0, 16, 32, ... bytes of code: gawk_relink)
# and takes the mean: where hot loops fall against fetch and cache lines moves
# gawk's time as much as a profile does (docs/autofdo.md, "Layout").
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-${BUILD:-build}}
ROUNDS=${2:-20}
WORK=${3:-/tmp/ocrec-gawk}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
OCREC=${OCREC:-$BUILD/ocrec}
[ -x "$OCREC" ] || { echo "autofdo-gawk.sh: no $OCREC (make BUILD=...)" >&2; exit 2; }
[ "$ROUNDS" -ge 20 ] || { echo "autofdo-gawk.sh: use at least 20 rounds" >&2; exit 2; }
LLVM=/usr/lib/llvm-14/bin
for c in gcc-12 gcov-12 clang-14 python3 make $LLVM/llvm-profdata $LLVM/llvm-dwarfdump; do
	command -v $c >/dev/null 2>&1 || { echo "autofdo-gawk.sh: $c is not installed" >&2; exit 2; }
done
mkdir -p "$WORK"
cd "$WORK"
# 1-2. the gawk source, builds, workload and PGO bench/bolt-gawk.sh shares
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
PROFILE_DEPTH=${PROFILE_DEPTH-1024}
profile() {  # BUILD FORMAT OUT
	# made again after gawk or ocrec changed (an older ocrec recorded and
	# counted otherwise)
	if [ -f "$3" ] && [ "$3" -nt "$1/gawk" ] && [ "$3" -nt "$OCREC" ]; then
		return
	fi
	inputs=
	for r in $(seq "$PROFILE_RUNS"); do
		"$OCREC" record -q -b -F "$PROFILE_FREQ" ${PROFILE_DEPTH:+--lbr-depth "$PROFILE_DEPTH"} \
			-o "$1.$NAME.$r.data" "$1/gawk" -f "$NAME.awk" "$INPUT" >/dev/null
		inputs="$inputs -i $1.$NAME.$r.data"
	done
	# shellcheck disable=SC2086
	"$OCREC" autofdo $inputs --binary "$1/gawk" --format "$2" -o "$3" 2>"$3.log"
}
profile base-gcc gcc "gawk$SUFFIX.gcov"
profile base-clang llvm "gawk$SUFFIX.prof"
# the flags `ocrec autofdo --format gcc` recommends on its stderr
GCC_AFDO_FLAGS=${GCC_AFDO_FLAGS-$(sed -n 's/^ocrec autofdo: gcc: use -fauto-profile=[^ ]* *//p' "gawk$SUFFIX.gcov.log")}
build "fdo-gcc$SUFFIX" gcc-12 "-O2 -g -fauto-profile=$WORK/gawk$SUFFIX.gcov $GCC_AFDO_FLAGS" "gawk$SUFFIX.gcov"
build "fdo-clang$SUFFIX" clang-14 "-O2 -g -fdebug-info-for-profiling -fprofile-sample-use=$WORK/gawk$SUFFIX.prof" "gawk$SUFFIX.prof"

# instrumented PGO trained on the same workload
gawk_pgo

# the optimized builds must compute the same result
BINS="base-gcc fdo-gcc$SUFFIX pgo-gcc$SUFFIX base-clang fdo-clang$SUFFIX pgo-clang$SUFFIX"
# shellcheck disable=SC2086
gawk_same_result $BINS
echo "gcc -fauto-profile flags: ${GCC_AFDO_FLAGS:-(none)}"

# 5. accuracy against gcov's counts of the workload (a -O0 --coverage build)
build gcov-gcc gcc-12 "-O0 -g --coverage"
if [ ! -f "gcov$SUFFIX.stamp" ] || [ gcov-gcc/gawk -nt "gcov$SUFFIX.stamp" ]; then
	find gcov-gcc -name '*.gcda' -delete
	gawk_run gcov-gcc/gawk
	rm -rf "gcov$SUFFIX.d" && mkdir "gcov$SUFFIX.d"
	for d in gcov-gcc gcov-gcc/support; do
		(cd "$d" && gcov-12 --json-format ./*.gcda >/dev/null 2>&1)
		for j in "$d"/*.gcov.json.gz; do
			mv "$j" "gcov$SUFFIX.d/$(basename "$d")-$(basename "$j")"
		done
	done
	touch "gcov$SUFFIX.stamp"
fi
set --
if [ "${EXACT:-0}" = 1 ]; then
	EXACT_TOOL=$BUILD/tests/helpers/afdo-exact
	[ -x "$EXACT_TOOL" ] || { echo "autofdo-gawk.sh: EXACT=1 needs $EXACT_TOOL (make test-bins)" >&2; exit 2; }
	# callgrind runs a copy without debug info: valgrind 3.19 gives up on
	# clang 14's DWARF 5 in gawk, and the profile needs only addresses
	for c in gcc clang; do
		fmt=gcc; [ $c = gcc ] || fmt=llvm
		# made again after gawk or this script (how callgrind runs) changed
		if [ ! -f "exact-$c$SUFFIX.$fmt" ] || [ "base-$c/gawk" -nt "exact-$c$SUFFIX.$fmt" ] ||
			[ "$ROOT/bench/autofdo-gawk.sh" -nt "exact-$c$SUFFIX.$fmt" ]; then
			mkdir -p "nodebug-$c" && objcopy --strip-debug "base-$c/gawk" "nodebug-$c/gawk"
			valgrind -q --tool=callgrind --skip-plt=no --dump-instr=yes --collect-jumps=yes --compress-strings=no \
				--compress-pos=no --callgrind-out-file="exact-$c$SUFFIX.callgrind" \
				"nodebug-$c/gawk" -f "$NAME.awk" "$INPUT" >/dev/null 2>"exact-$c$SUFFIX.log"
			"$EXACT_TOOL" --binary "base-$c/gawk" --format $fmt -o "exact-$c$SUFFIX.$fmt" "exact-$c$SUFFIX.callgrind"
		fi
	done
	set -- --profile exact-gcc gcc base-gcc/gawk "exact-gcc$SUFFIX.gcc" --binary-root exact-gcc=base-gcc \
		--profile exact-llvm llvm base-clang/gawk "exact-clang$SUFFIX.llvm" --binary-root exact-llvm=base-clang
fi
# timing groups: COMPILER|PLAIN|NAME=BUILD...; EXACT=1 adds the builds made
# with the exact profiles: what AutoFDO gives when sampling loses nothing
GCC_GROUP="gcc-12|base-gcc|AutoFDO=fdo-gcc$SUFFIX|PGO=pgo-gcc$SUFFIX"
CLANG_GROUP="clang-14|base-clang|AutoFDO=fdo-clang$SUFFIX|PGO=pgo-clang$SUFFIX"
if [ "${EXACT:-0}" = 1 ]; then
	build "fdo-exact-gcc$SUFFIX" gcc-12 "-O2 -g -fauto-profile=$WORK/exact-gcc$SUFFIX.gcc $GCC_AFDO_FLAGS" "exact-gcc$SUFFIX.gcc"
	build "fdo-exact-clang$SUFFIX" clang-14 "-O2 -g -fdebug-info-for-profiling -fprofile-sample-use=$WORK/exact-clang$SUFFIX.llvm" "exact-clang$SUFFIX.llvm"
	for b in "fdo-exact-gcc$SUFFIX" "fdo-exact-clang$SUFFIX"; do
		"$b/gawk" -f "$NAME.awk" "$INPUT" >"$b.out"
		cmp -s base-gcc.out "$b.out" || { echo "autofdo-gawk.sh: $b/gawk prints a different result" >&2; exit 1; }
	done
	GCC_GROUP="$GCC_GROUP|exact=fdo-exact-gcc$SUFFIX"
	CLANG_GROUP="$CLANG_GROUP|exact=fdo-exact-clang$SUFFIX"
fi
python3 "$ROOT/bench/autofdo-overlap.py" ${VERBOSE:+-v} --root gcov-gcc --gcov "gcov$SUFFIX.d"/*.gcov.json.gz "$@" \
	--profile gcc gcc base-gcc/gawk "gawk$SUFFIX.gcov" --binary-root gcc=base-gcc \
	--profile llvm llvm base-clang/gawk "gawk$SUFFIX.prof" --binary-root llvm=base-clang

# 6. one interleaved run of all the builds, each in LAYOUTS layouts. CPU time
# (user + sys from wait4) is printed beside wall time: it leaves out the time
# the workload waits for a core on a shared machine (not the slowdown from
# sharing its caches).
LAYOUTS=${LAYOUTS:-4}
[ "$LAYOUTS" -ge 1 ] && [ "$LAYOUTS" -le 8 ] || { echo "autofdo-gawk.sh: LAYOUTS is 1 to 8" >&2; exit 2; }
for b in $(printf '%s|%s\n' "$GCC_GROUP" "$CLANG_GROUP" | tr '|' '\n' | sed -n 's/^[^=]*=//p; /^base-/p'); do
	i=1
	while [ $i -lt "$LAYOUTS" ]; do
		gawk_relink "$b" $((16 * i))
		i=$((i + 1))
	done
done
echo "load before timing: $(uptime)"
python3 - "$ROOT/bench" "$ROUNDS" "$NAME.awk" "$INPUT" "$LAYOUTS" "$GCC_GROUP" "$CLANG_GROUP" <<'EOF'
import random, statistics, sys
sys.path.insert(0, sys.argv[1])
from interleave import interleaved
rounds, script, data = int(sys.argv[2]), sys.argv[3], sys.argv[4]
pads = [""] + [f".pad{16 * i}" for i in range(1, int(sys.argv[5]))]
groups = []
for g in sys.argv[6:]:
    label, base, *rest = g.split("|")
    groups.append((label, base, [r.split("=", 1) for r in rest]))
bins = [b for _, base, rest in groups for b in [base] + [d for _, d in rest]]
runs = interleaved([b + p for b in bins for p in pads], ["-f", script, data], rounds, "autofdo-gawk.sh")
# a build's (wall, cpu) in a round: the mean over its layouts
times = {b: [tuple(statistics.mean(runs[b + p][r][k] for p in pads) for k in (0, 1))
             for r in range(rounds)] for b in bins}
def half_interval(xs):
    return 1.96 * statistics.stdev(xs) / len(xs) ** 0.5
rng = random.Random(1)
def share(num, den):
    """mean(num) / mean(den) and its 95% bootstrap interval over the rounds"""
    boot = []
    for _ in range(2000):
        idx = [rng.randrange(rounds) for _ in range(rounds)]
        d = statistics.mean(den[i] for i in idx)
        if d > 0:
            boot.append(statistics.mean(num[i] for i in idx) / d)
    boot.sort()
    interval = f" [{100*boot[int(0.025*len(boot))]:.0f} to {100*boot[int(0.975*len(boot))-1]:.0f}%]" if boot else ""
    return f"{100*statistics.mean(num)/statistics.mean(den):.0f}% of PGO's gain{interval}"
for k, kind in ((1, "cpu "), (0, "wall")):
    for label, base, rest in groups:
        b = [t[k] for t in times[base]]
        gain = {name: [x / y[k] - 1 for x, y in zip(b, times[d])] for name, d in rest}
        print(f"{label} {kind}: plain {statistics.median(b)*1000:.1f} ms; "
              + ", ".join(f"{n} {100*statistics.mean(g):+.1f}% ± {100*half_interval(g):.1f}%" for n, g in gain.items())
              + f" ({rounds} rounds)")
        for name in gain:
            if name != "PGO":
                print(f"{label} {kind}: {name} reaches {share(gain[name], gain['PGO'])}")
        if k and len(pads) > 1:
            plain = statistics.mean(b)
            for name, d in [("plain", base)] + rest:
                print(f"{label} {kind}: {name} by layout (0, 16, ... bytes): " + " ".join(
                    f"{100 * (plain / statistics.mean(t[k] for t in runs[d + p]) - 1):+.1f}%" for p in pads))
EOF
echo "load after timing: $(uptime)"
