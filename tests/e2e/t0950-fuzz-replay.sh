#!/bin/sh
# The fuzz targets (tests/fuzz, docs/fuzzing.md), built without libFuzzer,
# replay their seed corpora and every input a fuzzer once failed on: each
# input ends, with no crash, hang, leak or sanitizer report (under
# SANITIZE=1 these binaries are built with ASan and UBSan).
. "$(dirname "$0")/../lib.sh"

for src in "$ROOT"/tests/fuzz/fuzz-*.c; do
	name=$(basename "$src" .c)
	short=${name#fuzz-}
	bin=$BUILD/tests/fuzz/$name
	if [ ! -x "$bin" ]; then
		fail "$name" "not built: $bin (make test-bins)"
		continue
	fi
	for set in corpus regress; do
		dir=$ROOT/tests/fuzz/$set/$short
		[ -d "$dir" ] || continue
		n=$(ls "$dir" | wc -l)
		# a generous bound only against a hang: every input takes milliseconds
		if OCREC_ROOT=$ROOT timeout 600 "$bin" "$dir" >"$TMP/out" 2>"$TMP/err" &&
		   grep -q "^$n inputs ran" "$TMP/out"; then
			pass "$name replays its $set ($n inputs)"
		else
			fail "$name replays its $set ($n inputs)" \
			     "$(grep -v '^replay: ' "$TMP/err" | head -n 5 | tr '\n' ' ') last input: $(grep '^replay: ' "$TMP/err" | tail -n 1)"
		fi
	done
done
[ -d "$ROOT/tests/fuzz/corpus" ] || fail "seed corpora" "tests/fuzz/corpus is missing"
