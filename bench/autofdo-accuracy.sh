#!/bin/sh
# bench/autofdo-accuracy.sh — how close ocrec's AutoFDO profiles come to the
# exact line counts of the same run (docs/autofdo.md, "Accuracy").
#   usage: sh bench/autofdo-accuracy.sh [-v] PROG.c|PROG.cc [ARGS...]
# Builds PROG with -O2 -g with gcc 12 and clang 14, runs each under
# `ocrec record -b` (hardware LBR where there is one, else the software branch
# sampler) with ARGS, writes the gcc and the llvm profile, and compares each
# with gcov's counts of a `gcc --coverage` build run with the same ARGS. The
# last two lines are "overlap gcc: 0.NNN" and "overlap llvm: 0.NNN"; -v lists
# the lines that lose the most.
# Environment: DEFS (preprocessor flags for every build: div.c needs
# DEFS=-DITERS=N), FREQ (record -F), DEPTH (record --lbr-depth: the software
# sampler's window, default 1024 as docs/autofdo.md recommends for AutoFDO
# without LBR; empty: record's default), RUNS (profiled runs merged, default 1),
# EXACT=1 (also the profiles of callgrind's exact counts, the ceiling,
# through ocrec's own writers: "overlap exact-gcc", "overlap exact-llvm"),
# WORK (keep the files there; default a temporary directory), OCREC, BUILD.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
OCREC=${OCREC:-$BUILD/ocrec}
DEFS=${DEFS:-}
DEPTH=${DEPTH-1024}
verbose=
if [ "${1:-}" = -v ]; then verbose=-v; shift; fi
[ $# -ge 1 ] || { echo "usage: sh bench/autofdo-accuracy.sh [-v] PROG.c [ARGS...]" >&2; exit 2; }
SRC=$1; shift
[ -f "$SRC" ] || { echo "autofdo-accuracy.sh: no source file $SRC" >&2; exit 2; }
[ -x "$OCREC" ] || { echo "autofdo-accuracy.sh: no $OCREC (make)" >&2; exit 2; }
case $SRC in
*.c) GCC=gcc-12 CLANG=clang-14 ;;
*.cc|*.cpp|*.cxx|*.C) GCC=g++-12 CLANG=clang++-14 ;;
*) echo "autofdo-accuracy.sh: $SRC: a .c or .cc file" >&2; exit 2 ;;
esac
for c in $GCC $CLANG gcov-12 python3 /usr/lib/llvm-14/bin/llvm-dwarfdump /usr/lib/llvm-14/bin/llvm-profdata; do
	command -v "$c" >/dev/null 2>&1 || { echo "autofdo-accuracy.sh: $c is not installed (make deps)" >&2; exit 2; }
done
if [ "${EXACT:-0}" = 1 ]; then
	command -v valgrind >/dev/null 2>&1 || { echo "autofdo-accuracy.sh: EXACT=1 needs valgrind" >&2; exit 2; }
	[ -x "$BUILD/tests/helpers/afdo-exact" ] || { echo "autofdo-accuracy.sh: EXACT=1 needs $BUILD/tests/helpers/afdo-exact (make test-bins)" >&2; exit 2; }
fi
if [ -n "${WORK:-}" ]; then
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d /tmp/ocrec-accuracy.XXXXXX)
	trap 'rm -rf "$WORK"' EXIT INT TERM
fi
WORK=$(cd "$WORK" && pwd)
name=$(basename "$SRC")
prog=${name%.*}
rm -rf "$WORK/src" "$WORK/cov" && mkdir -p "$WORK/src" "$WORK/cov"
cp "$SRC" "$WORK/src/$name"

# the profiled builds, and the coverage build (at -O0: gcov's counts do not
# depend on it, its line table is the source's own)
# shellcheck disable=SC2086
(cd "$WORK" && $GCC -O2 -g $DEFS -o "$prog-gcc" "src/$name" -lm &&
	$CLANG -O2 -g -fdebug-info-for-profiling $DEFS -o "$prog-clang" "src/$name" -lm &&
	cd cov && $GCC -O0 --coverage $DEFS -o "$prog" "../src/$name" -lm) >"$WORK/build.log" 2>&1 ||
	{ echo "autofdo-accuracy.sh: building $name failed (see $WORK/build.log)" >&2; exit 1; }
"$WORK/cov/$prog" "$@" >/dev/null
(cd "$WORK/cov" && gcov-12 --json-format ./*.gcda >/dev/null)

# COMPILER ARGS...: RUNS profiled runs of PROG-COMPILER, as autofdo's inputs
record() {
	rec=$1; shift
	inputs=
	for r in $(seq "${RUNS:-1}"); do
		# shellcheck disable=SC2086
		"$OCREC" record -q -b ${FREQ:+-F "$FREQ"} ${DEPTH:+--lbr-depth "$DEPTH"} -o "$WORK/$rec.$r.data" "$WORK/$prog-$rec" "$@" >/dev/null
		inputs="$inputs -i $WORK/$rec.$r.data"
	done
}
record gcc "$@"
# shellcheck disable=SC2086
"$OCREC" autofdo $inputs --binary "$WORK/$prog-gcc" --format gcc -o "$WORK/$prog.gcov" 2>"$WORK/autofdo-gcc.log"
record clang "$@"
# shellcheck disable=SC2086
"$OCREC" autofdo $inputs --binary "$WORK/$prog-clang" --format llvm -o "$WORK/$prog.prof" 2>"$WORK/autofdo-llvm.log"

if [ "${EXACT:-0}" = 1 ]; then
	# callgrind runs a copy without debug info: valgrind 3.19 gives up on
	# some of clang 14's DWARF 5, and the profile needs only addresses
	mkdir -p "$WORK/nodebug"
	for compiler in gcc clang; do
		fmt=gcc; [ $compiler = gcc ] || fmt=llvm
		objcopy --strip-debug "$WORK/$prog-$compiler" "$WORK/nodebug/$prog-$compiler"
		valgrind -q --tool=callgrind --skip-plt=no --dump-instr=yes --collect-jumps=yes --compress-strings=no \
			--compress-pos=no --callgrind-out-file="$WORK/$compiler.callgrind" "$WORK/nodebug/$prog-$compiler" "$@" \
			>/dev/null 2>"$WORK/$compiler.valgrind.log"
		"$BUILD/tests/helpers/afdo-exact" --binary "$WORK/$prog-$compiler" --format $fmt \
			-o "$WORK/$prog-exact.$fmt" "$WORK/$compiler.callgrind"
	done
	set -- --profile exact-gcc gcc "$WORK/$prog-gcc" "$WORK/$prog-exact.gcc" \
		--profile exact-llvm llvm "$WORK/$prog-clang" "$WORK/$prog-exact.llvm"
else
	set --
fi
python3 "$ROOT/bench/autofdo-overlap.py" $verbose --root "$WORK/src" --gcov "$WORK"/cov/*.gcov.json.gz "$@" \
	--profile gcc gcc "$WORK/$prog-gcc" "$WORK/$prog.gcov" \
	--profile llvm llvm "$WORK/$prog-clang" "$WORK/$prog.prof"
