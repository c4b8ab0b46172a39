#!/bin/sh
# ocrec autofdo reading perf.data directly (the article's one step), on real
# LBR recordings from tests/data/lbr, against llvm-profgen 14's profiles
# of the same data (--line-counts max: llvm-profgen's count of a line); and
# its one-line errors on unusable input.
. "$(dirname "$0")/../lib.sh"
LLVM=/usr/lib/llvm-14/bin
need_cmd "$LLVM/llvm-profdata" perf

similarity() {
	"$LLVM/llvm-profdata" overlap --sample "$1" "$2" 2>/dev/null |
		sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'
}
at_least_95() { [ -n "$1" ] && awk -v s="$1" 'BEGIN { exit !(s >= 95) }'; }

# Haswell-E, DWARF 5, discriminators (perf 6.8 file, attr size 136)
H=$(data_dir lbr/autofdo-hierarchical_discriminator)
for data in "$(data_file lbr/autofdo-hierarchical_discriminator/hierarchical_discriminator_test.x86_64.perf.data)" \
	    "$(data_file lbr/autofdo-hierarchical_discriminator/derived-attr128/hierarchical_discriminator_test.x86_64.attr128.perf.data)"; do
	n=hierarchical/$(basename "$data")
	if "$OCREC" autofdo --line-counts max -i "$data" --binary "$H/symfs/local/home/kvivekananda/hierarchical_discriminator_test" \
		-o "$TMP/h.prof" 2>"$TMP/err"; then
		s=$(similarity "$H/profgen.prof.txt" "$TMP/h.prof")
		if at_least_95 "$s"; then pass "$n: similarity $s% with llvm-profgen 14"
		else fail "$n" "similarity '${s:-none}' < 95%"; fi
	else
		fail "$n" "$(cat "$TMP/err")"
	fi
done

# Westmere, perf 3.3 file without build-ids: matched by path, with a warning
T=$(data_dir lbr/autofdo-test_lbr)
TLBR=$(data_file lbr/autofdo-test_lbr/test.lbr)
if "$OCREC" autofdo --line-counts max -i "$TLBR" --binary "$T/test.binary" -o "$TMP/t.prof" 2>"$TMP/err"; then
	s=$(similarity "$T/profgen.prof.txt" "$TMP/t.prof")
	if at_least_95 "$s"; then pass "test_lbr: similarity $s% with llvm-profgen 14"
	else fail "test_lbr" "similarity '${s:-none}' < 95%"; fi
	check_match "test_lbr: warns that it matched by path" "matching it by path" "$(cat "$TMP/err")"
	check "test_lbr: llvm-profdata reads the profile" "$LLVM/llvm-profdata" show --sample "$TMP/t.prof"
else
	fail "test_lbr" "$(cat "$TMP/err")"
fi
# two inputs merge: every count doubles
"$OCREC" autofdo --line-counts max -i "$TLBR" -i "$TLBR" --binary "$T/test.binary" -o "$TMP/t2.prof" 2>/dev/null
check_eq "two inputs merge (total samples double)" \
	"$(( $(sed -n '1s/^[^:]*:\([0-9]*\):.*/\1/p' "$TMP/t.prof") * 2 ))" \
	"$(sed -n '1s/^[^:]*:\([0-9]*\):.*/\1/p' "$TMP/t2.prof")"

# errors: one line each, exit 2
cat >"$TMP/p.c" <<'C'
int main(void) { volatile unsigned long i, s = 0; for (i = 0; i < 300000000UL; i++) s += i; return (int)(s & 1); }
C
cc -O1 -g -o "$TMP/p" "$TMP/p.c"
if perf record -q -e cpu-clock -o "$TMP/nobr.data" "$TMP/p" >/dev/null 2>&1; then
	"$OCREC" autofdo --line-counts max -i "$TMP/nobr.data" --binary "$TMP/p" -o "$TMP/x.prof" 2>"$TMP/err"
	check_eq "no branch stacks: exit 2" 2 $?
	check_match "no branch stacks: says so" "no branch stacks in the file" "$(cat "$TMP/err")"
	check_eq "no branch stacks: no output file" no "$([ -e "$TMP/x.prof" ] && echo yes || echo no)"
else
	skip "no branch stacks" "perf record -e cpu-clock does not work here"
fi
"$OCREC" autofdo --line-counts max -i "$TLBR" --binary "$TMP/missing" -o "$TMP/x.prof" 2>"$TMP/err"
check_eq "missing binary: exit 2" 2 $?
check_eq "missing binary: one line" 1 "$(wc -l <"$TMP/err")"
cc -O1 -o "$TMP/nodebug" "$TMP/p.c"
"$OCREC" autofdo --line-counts max -i "$TLBR" --binary "$TMP/nodebug" -o "$TMP/x.prof" 2>"$TMP/err"
check_match "binary without debug info: says so" "no debug info" "$(cat "$TMP/err")"
printf 'PERFILE2garbage' >"$TMP/bad.data"
"$OCREC" autofdo --line-counts max -i "$TMP/bad.data" --binary "$T/test.binary" -o "$TMP/x.prof" 2>"$TMP/err"
check_match "corrupt perf.data: names the file and offset" "bad.data: .*offset" "$(cat "$TMP/err")"
