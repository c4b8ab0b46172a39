# ocrec autofdo on real LBR traces (tests/data/lbr) against llvm-profgen 14's
# stored answers (with --line-counts max, llvm-profgen's count of a line),
# and the profiles read by llvm-profdata, clang 14 and gcc 12.
. "$(dirname "$0")/../lib.sh"
LLVM=/usr/lib/llvm-14/bin
need_cmd "$LLVM/llvm-profdata" clang-14 gcc-12
PG=$(data_dir lbr/llvm14-profgen-inputs)

# similarity PERCENT of two LLVM text profiles, as llvm-profdata overlap says
similarity() {
	"$LLVM/llvm-profdata" overlap --sample "$1" "$2" 2>/dev/null |
		sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'
}
# the function with the largest total samples in a text profile
hottest() {
	grep -v '^ ' "$1" | awk -F: '{ n = NF; if ($(n-1) + 0 > best) { best = $(n-1) + 0; f = $1 } } END { print f }'
}
# compare NAME ORACLE OURS: overlap >= 95% and the same hottest function
compare() {
	s=$(similarity "$2" "$3")
	if [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s >= 95) }'; then
		pass "$1: similarity $s% with llvm-profgen 14"
	else
		fail "$1" "similarity '${s:-none}' < 95% ($2 vs $3)"
	fi
	check_eq "$1: hottest function" "$(hottest "$2")" "$(hottest "$3")"
}

# llvm-profgen's own test inputs (non-context-sensitive ones: plain LBR lines)
for n in noprobe inline-noprobe inline-noprobe2 coroutine; do
	if "$OCREC" autofdo --line-counts max --perfscript "$PG/Inputs/$n.perfscript" --binary "$PG/Inputs/$n.perfbin" \
		-o "$TMP/$n.prof" 2>"$TMP/$n.err"; then
		compare "$n" "$PG/oracle/$n.perfscript.prof.txt" "$TMP/$n.prof"
	else
		fail "$n" "ocrec autofdo failed: $(cat "$TMP/$n.err")"
	fi
done
# with MMAP2 lines: the load address comes from the mmap event
if [ -f "$PG/oracle/noprobe.mmap.perfscript.prof.txt" ]; then
	"$OCREC" autofdo --line-counts max --perfscript "$PG/Inputs/noprobe.mmap.perfscript" --binary "$PG/Inputs/noprobe.perfbin" \
		-o "$TMP/mmap.prof" 2>"$TMP/mmap.err"
	check_empty "MMAP2 input: no link-time address warning" $? "$(cat "$TMP/mmap.err")"
	compare "noprobe.mmap" "$PG/oracle/noprobe.mmap.perfscript.prof.txt" "$TMP/mmap.prof"
fi

# Westmere LBR (perf 3.3), DWARF 2, non-PIE
T=$(data_dir lbr/autofdo-test_lbr)
TSCRIPT=$(data_file lbr/autofdo-test_lbr/script-brstack.txt)
"$OCREC" autofdo --line-counts max --perfscript "$TSCRIPT" --binary "$T/test.binary" -o "$TMP/test_lbr.prof" 2>/dev/null
compare "autofdo-test_lbr" "$T/profgen.prof.txt" "$TMP/test_lbr.prof"

# Haswell LBR, clang DWARF 5 with hierarchical discriminators
HD=$(data_dir lbr/autofdo-hierarchical_discriminator)
HDBIN=$HD/symfs/local/home/kvivekananda/hierarchical_discriminator_test
HDSCRIPT=$(data_file lbr/autofdo-hierarchical_discriminator/script-brstack.txt)
"$OCREC" autofdo --line-counts max --perfscript "$HDSCRIPT" --binary "$HDBIN" -o "$TMP/hd.prof" 2>/dev/null
compare "hierarchical_discriminator" "$HD/profgen.prof.txt" "$TMP/hd.prof"
check_match "discriminators are LLVM base discriminators" '^ 2\.1: [0-9]+' "$(cat "$TMP/hd.prof")"

# the same data through perf 6.1 (attr-128 copy) with MMAP2 lines, against llvm-profgen run now
HD128=$(data_file lbr/autofdo-hierarchical_discriminator/derived-attr128/hierarchical_discriminator_test.x86_64.attr128.perf.data)
if command -v perf >/dev/null 2>&1 && [ -x "$LLVM/llvm-profgen" ]; then
	perf script -i "$HD128" --show-mmap-events -F ip,brstack >"$TMP/hd-mmap.script" 2>/dev/null
	"$OCREC" autofdo --line-counts max --perfscript "$TMP/hd-mmap.script" --binary "$HDBIN" -o "$TMP/hd-mmap.prof" 2>"$TMP/hd-mmap.err"
	check_empty "perf 6.1 script with MMAP2: the mmap is used" $? "$(cat "$TMP/hd-mmap.err")"
	(cd "$TMP" && "$LLVM/llvm-profgen" --perfdata="$HD128" --binary="$HDBIN" --format=text \
		--output="$TMP/hd-live.prof" >/dev/null 2>&1)
	compare "hierarchical_discriminator, llvm-profgen live" "$TMP/hd-live.prof" "$TMP/hd-mmap.prof"
else
	skip "llvm-profgen live" "perf or llvm-profgen is not installed"
fi

# llvm-profdata reads and converts the text profile
check "llvm-profdata show --sample" "$LLVM/llvm-profdata" show --sample "$TMP/hd.prof"
check "llvm-profdata merge --sample to extbinary" \
	"$LLVM/llvm-profdata" merge --sample --extbinary -o "$TMP/hd.extbin" "$TMP/hd.prof" "$TMP/test_lbr.prof"

# --format llvm-ext: the extensible binary form, byte for byte what llvm-profdata 14
# makes of the text profile (both with llvm-profgen's line counts), and the same
# profile when read back
for n in hd test_lbr; do
	if [ $n = hd ]; then in=$HDSCRIPT bin=$HDBIN; else in=$TSCRIPT bin="$T/test.binary"; fi
	"$OCREC" autofdo --line-counts max --perfscript "$in" --binary "$bin" --format llvm-ext -o "$TMP/$n.ext" 2>/dev/null
	"$LLVM/llvm-profdata" merge --sample --extbinary -o "$TMP/$n.ref" "$TMP/$n.prof"
	check "llvm-ext $n: identical to llvm-profdata merge --extbinary of the text" cmp "$TMP/$n.ref" "$TMP/$n.ext"
	"$LLVM/llvm-profdata" merge --sample --text -o "$TMP/$n.back" "$TMP/$n.ext" 2>/dev/null
	"$LLVM/llvm-profdata" merge --sample --text -o "$TMP/$n.norm" "$TMP/$n.prof"
	check_files_eq "llvm-ext $n: reads back as the text profile" "$TMP/$n.norm" "$TMP/$n.back"
done
if clang-14 -O2 -g -Wno-unknown-attributes -fprofile-sample-use="$TMP/hd.ext" -c "$HD/hierarchical_discriminator_test.c" -o "$TMP/hd-ext.o" 2>"$TMP/clang-ext.err"; then
	check_eq "clang-14 uses the llvm-ext profile without warnings" "" "$(cat "$TMP/clang-ext.err")"
else
	fail "clang-14 -fprofile-sample-use llvm-ext" "$(head -n 3 "$TMP/clang-ext.err")"
fi

# clang 14 uses it on the profiled source without complaint
cp "$HD/hierarchical_discriminator_test.c" "$TMP/hd.c"
if clang-14 -O2 -g -Wno-unknown-attributes -fprofile-sample-use="$TMP/hd.prof" -c "$TMP/hd.c" -o "$TMP/hd-clang.o" 2>"$TMP/clang.err"; then
	pass "clang-14 -fprofile-sample-use accepts the profile"
	check_eq "clang-14 prints no warnings" "" "$(cat "$TMP/clang.err")"
else
	fail "clang-14 -fprofile-sample-use" "$(head -n 3 "$TMP/clang.err")"
fi
# the profile changes clang's decisions: the IR carries its entry counts
clang-14 -O2 -g -fprofile-sample-use="$TMP/hd.prof" -S -emit-llvm -o "$TMP/hd.ll" "$TMP/hd.c" 2>/dev/null
check_match "clang annotates function entry counts" 'function_entry_count' "$(cat "$TMP/hd.ll")"

# gcc 12 reads the GCC profile and annotates block counts from it
"$OCREC" autofdo --perfscript "$HDSCRIPT" --binary "$HDBIN" --format gcc -o "$TMP/hd.gcov" 2>/dev/null
check_eq "gcov magic and version 2" "adcg 2" \
	"$(od -An -c -N4 "$TMP/hd.gcov" | tr -d ' ')$(od -An -tu4 -j4 -N4 "$TMP/hd.gcov" | tr -s ' ')"
hot=$(awk '/^test_vector_loop:/ { f = 1; next } /^[^ ]/ { f = 0 } f && $1 == "2.1:" { print $2 }' "$TMP/hd.prof")
(cd "$TMP" && gcc-12 -O2 -g -fauto-profile="$TMP/hd.gcov" -fdump-ipa-afdo=afdo.dump -c hd.c -o hd-gcc.o 2>"$TMP/gcc.err")
check_empty "gcc-12 -fauto-profile accepts the profile" $? "$(cat "$TMP/gcc.err")"
check_match "gcc-12 -fdump-ipa-afdo shows the profile's hot count ($hot)" "count: $hot\]" "$(cat "$TMP/afdo.dump" 2>/dev/null)"

# error messages: one line each
"$OCREC" autofdo --perfscript "$HDSCRIPT" --binary "$TMP/missing" >"$TMP/out" 2>&1
check_match "binary not found" "binary .*missing not found" "$(cat "$TMP/out")"
cc -O2 -o "$TMP/nodebug" "$ROOT/tests/progs/loop.c"
"$OCREC" autofdo --perfscript "$HDSCRIPT" --binary "$TMP/nodebug" >"$TMP/out" 2>&1
check_match "binary without debug info" "has no debug info" "$(cat "$TMP/out")"
cc -O2 -g -o "$TMP/other" "$ROOT/tests/progs/loop.c"
"$OCREC" autofdo --perfscript "$HDSCRIPT" --binary "$TMP/other" >"$TMP/out" 2>&1; rc=$?
check_match "no samples in the binary" "no samples in .*other" "$(cat "$TMP/out")"
check_eq "no samples exits 2" 2 "$rc"
echo "not a trace" >"$TMP/empty.script"
"$OCREC" autofdo --perfscript "$TMP/empty.script" --binary "$HDBIN" >"$TMP/out" 2>&1
check_match "no branch stacks" "no branch stacks" "$(cat "$TMP/out")"
check_eq "error is one line" 1 "$(wc -l <"$TMP/out")"

# -o is atomic: a failed run leaves an existing file alone
echo keep >"$TMP/keep.prof"
"$OCREC" autofdo --perfscript "$TMP/empty.script" --binary "$HDBIN" -o "$TMP/keep.prof" 2>/dev/null
check_eq "failed run keeps the old output" keep "$(cat "$TMP/keep.prof")"
