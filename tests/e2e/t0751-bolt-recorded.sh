#!/bin/sh
# ocrec bolt against perf2bolt 16 on programs compiled and recorded here with
# `ocrec record -b` (the software branch sampler on a machine without LBR):
# the fdata files must hold the same lines (sorted), for a non-PIE program, a
# PIE, the shared library it calls, C++ exceptions and a stripped binary read
# with its debug file (against perf2bolt on the unstripped one); samples
# without branch stacks give perf2bolt -nl's no_lbr form; inputs merge as
# merge-fdata merges perf2bolt's files; the pre-aggregated text gives
# perf2bolt -pa the same fdata; misprediction flags and kernel entries of
# hardware LBR records (written with the test helper pd-synth) count as in
# perf2bolt; a rebuilt binary is refused as by `ocrec autofdo`.
. "$(dirname "$0")/../lib.sh"
LLVM=/usr/lib/llvm-16/bin
need_cmd "$LLVM/perf2bolt" "$LLVM/merge-fdata" perf objcopy strip cc c++
need_helper pd-synth
cd "$TMP" || exit 1
SRC=$ROOT/tests/progs
export HOME="$TMP"   # record's build-id cache, and perf2bolt's

# record NAME CMD...: NAME.data with branch stacks, or a failed check
record() {
	_n=$1; shift
	if ! "$OCREC" record -q -b -o "$_n.data" "$@" >/dev/null 2>"$_n.rec.err"; then
		fail "record $_n" "$(cat "$_n.rec.err")"
		return 1
	fi
}

# same NAME DATA BINARY [ORACLE-BINARY [perf2bolt options]]: ocrec bolt and
# perf2bolt (on ORACLE-BINARY, default BINARY) write the same lines
same() {
	_n=$1 _data=$2 _bin=$3 _oracle=${4:-$3}
	shift 3; [ $# -gt 0 ] && shift
	if ! "$OCREC" bolt -i "$_data" --binary "$_bin" -o "$_n.ocrec" 2>"$_n.err"; then
		fail "$_n" "ocrec bolt failed: $(cat "$_n.err")"
		return
	fi
	"$LLVM/perf2bolt" "$@" -p "$_data" -o "$_n.p2b" "$_oracle" >"$_n.log" 2>&1
	sort "$_n.p2b" >"$_n.p2b.sorted" 2>/dev/null
	sort "$_n.ocrec" >"$_n.ocrec.sorted"
	if [ -s "$_n.ocrec.sorted" ] && cmp -s "$_n.p2b.sorted" "$_n.ocrec.sorted"; then
		pass "$_n: perf2bolt's $(wc -l <"$_n.p2b.sorted") lines"
	else
		fail "$_n" "differs from perf2bolt: $(diff "$_n.p2b.sorted" "$_n.ocrec.sorted" 2>&1 | head -n 6 | tr '\n' ' ')"
	fi
}

# a non-PIE program linked for BOLT
cc -O2 -g -fno-pie -no-pie -Wl,--emit-relocs -o main "$SRC/bolt-main.c" "$SRC/bolt-util.c" &&
	record main ./main 20000000 && same "non-PIE program" main.data main
check_match "the software sampler's missing misprediction bits are said, as perf2bolt does" \
	"warning: misprediction bit is missing in profile" "$(cat "non-PIE program.err" 2>/dev/null)"

# a PIE calling a shared library: the program, then the library as the binary
mkdir lib
cc -O2 -g -fPIC -shared -Wl,--emit-relocs -o lib/libbolt.so "$SRC/bolt-lib.c" &&
	cc -O2 -g -fPIE -pie -Wl,--emit-relocs -DWITH_LIB -o pie "$SRC/bolt-main.c" "$SRC/bolt-util.c" \
		-Llib -lbolt -Wl,-rpath,"$TMP/lib" &&
	record pie ./pie 10000000 && {
		same "PIE program" pie.data pie
		same "shared library as the binary" pie.data lib/libbolt.so
	}

# C++ exceptions: landing pads start basic blocks
c++ -O2 -g -Wl,--emit-relocs -o exc "$SRC/bolt-exc.cc" && record exc ./exc 1000000 &&
	same "C++ exceptions" exc.data exc

# a stripped program run from its own directory, its debug file beside it
mkdir full stripped
cp main full/prog && objcopy --only-keep-debug full/prog stripped/prog.debug &&
	strip -o stripped/prog full/prog && objcopy --add-gnu-debuglink=stripped/prog.debug stripped/prog &&
	record stripped ./stripped/prog 20000000 &&
	same "stripped binary with its debug file" stripped.data stripped/prog full/prog
"$OCREC" bolt -i stripped.data --binary stripped/prog --debug-file full/prog -o debugfile.fdata 2>/dev/null
check_files_eq "--debug-file names the file with the symbols" "stripped binary with its debug file.ocrec" debugfile.fdata
cp stripped/prog alone
"$OCREC" bolt -i stripped.data --binary alone -o none.fdata 2>err
check_match "a stripped binary without a debug file: one error line" \
	"^ocrec: alone has no symbol table and no debug file was found" "$(cat err)"

# samples without branch stacks: the no_lbr form, one event and two
if "$OCREC" record -q -e cpu-clock -o clock.data ./main 30000000 >/dev/null 2>err; then
	same "no branch stacks: no_lbr" clock.data main main -nl
	check_match "no_lbr names the event" "^no_lbr cpu-clock:$" "$(head -n 1 "no branch stacks: no_lbr.ocrec")"
else
	fail "record -e cpu-clock" "$(cat err)"
fi
if "$OCREC" record -q -e cpu-clock,task-clock -o clocks.data ./main 30000000 >/dev/null 2>err; then
	same "no_lbr with two events, in perf2bolt's order" clocks.data main main -nl
else
	fail "record -e cpu-clock,task-clock" "$(cat err)"
fi

# several inputs add up, as merge-fdata adds perf2bolt's files
if record main2 ./main 10000000; then
	"$LLVM/perf2bolt" -p main.data -o one.p2b main >/dev/null 2>&1
	"$LLVM/perf2bolt" -p main2.data -o two.p2b main >/dev/null 2>&1
	"$LLVM/merge-fdata" one.p2b two.p2b 2>/dev/null | sort >merged.p2b
	"$OCREC" bolt -i main.data -i main2.data --binary main 2>/dev/null | sort >merged.ocrec
	check_files_eq "two inputs: merge-fdata's sum of perf2bolt's" merged.p2b merged.ocrec
fi

# the pre-aggregated text: perf2bolt -pa makes the same fdata of it
if "$OCREC" bolt -i main.data --binary main --pre-aggregated -o main.pa 2>err; then
	id=$(readelf -n main | sed -n 's/.*Build ID: //p')
	check_eq "every address carries the build-id" "" \
		"$(awk -v id="$id" '{ for (i = 2; i <= 3; i++) if ($i != "0" && index($i, id ":") != 1) print }' main.pa)"
	"$LLVM/perf2bolt" -pa -p main.pa -o pa.p2b main >/dev/null 2>&1
	sort pa.p2b >pa.sorted
	check_files_eq "perf2bolt -pa of the pre-aggregated text" "non-PIE program.p2b.sorted" pa.sorted
	if [ -f main2.data ] && "$OCREC" bolt -i main2.data --binary main --pre-aggregated -o main2.pa 2>/dev/null; then
		cat main.pa main2.pa | awk '{ k = $1 " " $2 " " $3; c[k] += $4; m[k] += $5; b[k] = ($1 == "B") }
			END { for (k in c) print k, c[k] (b[k] ? " " m[k] : "") }' >sum.pa
		"$LLVM/perf2bolt" -pa -p sum.pa -o sum.p2b main >/dev/null 2>&1
		sort sum.p2b >sum.sorted
		check_files_eq "two pre-aggregated files summed line by line: the merged profile" merged.p2b sum.sorted
	fi
	"$OCREC" bolt -i pie.data --binary pie --pre-aggregated -o pie.pa 2>/dev/null &&
		"$LLVM/perf2bolt" -pa -p pie.pa -o pie-pa.p2b pie >/dev/null 2>&1
	sort pie-pa.p2b >pie-pa.sorted 2>/dev/null
	check_files_eq "a PIE's pre-aggregated text, in its own addresses" "PIE program.p2b.sorted" pie-pa.sorted
else
	fail "--pre-aggregated" "$(cat err)"
fi

# hardware LBR records: the recording's stacks rewritten by pd-synth with
# misprediction flags and a kernel entry in some stacks
perf script -i main.data --show-mmap-events -F pid,tid,ip,brstack 2>/dev/null | awk '
	/PERF_RECORD_MMAP2/ {
		if (!match($0, /\[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0x[0-9a-f]+|\[0x[0-9a-f]+\(0x[0-9a-f]+\) @ 0 /)) next
		split(substr($0, RSTART + 1, RLENGTH - 1), a, /[()@ ]+/)
		n = split($0, w, " "); pid = $0; sub(/.*PERF_RECORD_MMAP2 /, "", pid); sub(/\/.*/, "", pid)
		printf "mmap2 %s %s %s %s %s\n", pid, a[1], a[2], a[3], w[n]; next }
	NF > 2 {
		split($1, t, "/")
		line = "sample " t[1] " " t[2] " 0x" $2 " br"
		for (i = 3; i <= NF; i++) {
			split($i, e, "/"); k++
			line = line " " e[1] "/" e[2] "/" ((k % 3) ? "P" : "M")
			if (k % 97 == 0) line = line " 0xffffffff81000000/" e[2] "/P"
		}
		print line }' >lbr.spec
if "$BUILD/tests/helpers/pd-synth" -o lbr.data lbr.spec 2>err; then
	same "LBR records with mispredictions and kernel entries" lbr.data main
	check_match "misprediction counts are kept" "^1 .* [1-9][0-9]* [0-9]+$" \
		"$(cat "LBR records with mispredictions and kernel entries.ocrec")"
else
	fail "pd-synth of LBR records" "$(cat err)"
fi

# the binary is matched by build-id as ocrec autofdo matches it
cc -O2 -g -fno-pie -no-pie -Wl,--emit-relocs -DREBUILT -o rebuilt "$SRC/bolt-main.c" "$SRC/bolt-util.c" -O1
cp rebuilt main-new && mv main-new main.rebuilt
mkdir other && cp rebuilt other/main
"$OCREC" bolt -i main.data --binary other/main -o refused.fdata 2>err
check_eq "a rebuilt binary is refused (exit 2)" 2 $?
check_match "with autofdo's message" "the build-id recorded for other/main differs from the binary's: it was rebuilt since \(--force uses the data anyway\)" "$(cat err)"
"$OCREC" autofdo -i main.data --binary other/main -o /dev/null 2>afdo.err
check_eq "ocrec autofdo says the same" "$(cat err)" "$(cat afdo.err)"
check_fails "and writes no profile" test -e refused.fdata
check "--force uses the data anyway" "$OCREC" bolt -i main.data --binary other/main --force -o forced.fdata

# runs between records that leave their function: another binary, as perf2bolt warns
fib=$(nm main | awk '$3 == "fib" { print "0x" $1 }')
util=$(nm main | awk '$3 == "util_work" { print "0x" $1 }')
if [ -n "$fib" ] && [ -n "$util" ]; then
	{
		echo "mmap2 1 0x400000 0x100000 0 $TMP/main"
		# newest first: a run from fib's start (the older entry's target) to
		# util_work (the newer entry's source)
		for i in 1 2 3; do echo "sample 1 1 $fib br $util/$fib/P $util/$fib/P"; done
	} >cross.spec
	"$BUILD/tests/helpers/pd-synth" -o cross.data cross.spec 2>err &&
		"$OCREC" bolt -i cross.data --binary main -o cross.fdata 2>err
	check_match "traces that leave their function are said to mean another binary" \
		"warning: 3 of the 3 straight runs between branch records \(100.0%\) leave the function they start in: main is probably not the binary" \
		"$(cat err)"
fi

# bad input: one line, exit 2
"$OCREC" bolt -i main.data --binary missing -o x.fdata 2>err
check_eq "a missing binary: exit 2" 2 $?
check_match "and one line naming it" "^ocrec: binary missing not found" "$(cat err)"
"$OCREC" bolt -i nothing.data --binary main -o x.fdata 2>err
check_eq "a missing perf.data: exit 2" 2 $?
"$OCREC" bolt -i pie.data --binary main -o x.fdata 2>err
check_match "a binary the samples never touch: one line" "^ocrec: no samples in main" "$(cat err)"
