#!/bin/sh
# AutoFDO end to end on this machine: `ocrec record -b` (the software branch
# sampler here) of the article's div.c, then `ocrec autofdo`. The LLVM profile
# must agree with llvm-profgen 14 run on the same samples (through
# `ocrec script`; --line-counts max: llvm-profgen's count of a line), clang 14
# must use it, and gcc 12 must read the GCC profile
# and annotate its blocks with the counts.
. "$(dirname "$0")/../lib.sh"
LLVM=/usr/lib/llvm-14/bin
need_cmd "$LLVM/llvm-profgen" "$LLVM/llvm-profdata" clang-14 gcc-12 perf
cd "$TMP" || exit 1
# non-PIE, so that llvm-profgen (which gets no mmap events from perf script
# text here) and ocrec map addresses the same way; -fno-if-conversion keeps
# compute_flag's branch (gcc 12 makes it a cmov otherwise)
cp "$ROOT/tests/progs/div.c" div.c
cc -O2 -g -no-pie -fno-if-conversion -DITERS=100000000 -o div div.c
if ! HOME=$TMP "$OCREC" record -q -b -o div.data ./div >/dev/null 2>err; then
	fail "record -b" "$(cat err)"
	exit 0
fi
"$OCREC" script -i div.data -F ip,brstack >div.script
"$LLVM/llvm-profgen" --binary div --perfscript div.script --output profgen.prof >/dev/null 2>&1
if "$OCREC" autofdo --line-counts max -i div.data --binary div -o ocrec.prof 2>err; then
	s=$("$LLVM/llvm-profdata" overlap --sample profgen.prof ocrec.prof 2>/dev/null |
		sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p')
	if [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s >= 95) }'; then
		pass "similarity with llvm-profgen 14 on the same samples: $s%"
	else
		fail "similarity with llvm-profgen 14" "'${s:-none}' < 95%"
	fi
	check_match "main and compute_flag are profiled" "^compute_flag:[0-9]+" "$(cat ocrec.prof)"
	# llvm-profgen reading ocrec's perf.data itself (through perf 6.1's perf script)
	"$LLVM/llvm-profgen" --perfdata=div.data --binary=div --format=text --output=profgen-data.prof >/dev/null 2>&1
	s=$("$LLVM/llvm-profdata" overlap --sample profgen-data.prof ocrec.prof 2>/dev/null |
		sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p')
	if [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s >= 95) }'; then
		pass "similarity with llvm-profgen 14 --perfdata on ocrec's file: $s%"
	else
		fail "llvm-profgen --perfdata on ocrec's file" "similarity '${s:-none}' < 95%"
	fi
	check "llvm-profdata merges it into the extensible binary form" \
		"$LLVM/llvm-profdata" merge --sample --extbinary ocrec.prof -o ocrec.extbin
	clang-14 -O2 -g -fprofile-sample-use=ocrec.prof -DITERS=100000000 -c div.c -o div-clang.o 2>clang.err
	check_empty "clang-14 -fprofile-sample-use uses it without a warning" $? "$(cat clang.err)"
	clang-14 -O2 -g -fprofile-sample-use=ocrec.prof -DITERS=100000000 -S -emit-llvm -o div.ll div.c 2>/dev/null
	check_match "clang's IR carries the profile's entry counts" "function_entry_count" "$(cat div.ll)"
else
	fail "autofdo --format llvm" "$(cat err)"
fi
if "$OCREC" autofdo --line-counts max -i div.data --binary div --format gcc -o ocrec.gcov 2>err; then
	gcc-12 -O2 -g -DITERS=100000000 -fauto-profile=ocrec.gcov -fdump-ipa-afdo=afdo.dump -c div.c -o div-gcc.o 2>gcc.err
	check_empty "gcc-12 -fauto-profile reads it without a warning" $? "$(cat gcc.err)"
	check_match "gcc-12 annotates blocks with the profile's counts" "\[count: [1-9][0-9]*\]" "$(cat afdo.dump 2>/dev/null)"
else
	fail "autofdo --format gcc" "$(cat err)"
fi
