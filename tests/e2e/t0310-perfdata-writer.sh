#!/bin/sh
# ocrec's perf.data writer, checked with perf 6.1: files written by the test
# helper pd-synth (every sample_type combination ocrec record and the branch
# sampler write, side-band records with and without sample_id_all trailers)
# are read by perf without a warning; perf script shows the values written and
# ocrec script prints the same; perf report -b resolves branches in a binary
# compiled here; the header features match perf record's own on this machine.
. "$(dirname "$0")/../lib.sh"
need_cmd perf nm
SYNTH=$BUILD/tests/helpers/pd-synth
need_helper pd-synth
cc_prog prog "$ROOT/tests/progs/loop.c"
P=$TMP/prog

# roundtrip NAME FIELDS: write NAME.spec, then perf script and ocrec script must agree
roundtrip() {
	name=$1 fields=$2
	if ! "$SYNTH" -o "$TMP/$name.data" <"$TMP/$name.spec" 2>"$TMP/err"; then
		fail "$name: pd-synth" "$(cat "$TMP/err")"
		return
	fi
	perf script -i "$TMP/$name.data" -F "$fields" >"$TMP/$name.perf" 2>"$TMP/$name.perferr"
	check_empty "$name: perf script reads it without a warning" $? "$(cat "$TMP/$name.perferr")"
	"$OCREC" script -i "$TMP/$name.data" -F "$fields" >"$TMP/$name.ocrec" 2>&1
	check_files_eq "$name: ocrec script equals perf script (-F $fields)" "$TMP/$name.perf" "$TMP/$name.ocrec"
	# one line per sample with -F tid (call chains add lines to the other outputs)
	check_eq "$name: every sample read back" "$(grep -c '^sample' "$TMP/$name.spec")" \
		"$(perf script -i "$TMP/$name.data" -F tid 2>/dev/null | grep -c .)"
}

cat >"$TMP/branches.spec" <<EOF
event cycles:u fields=ip,tid,time,cpu,period,branch
comm 4242 4242 prog exec
mmap2 4242 0x555555554000 0x2000 0 $P
sample 4242 4242 0x555555555100 time=1000000 cpu=1 period=3 br 0x555555555010/0x555555555020/P/5 0x555555555030/0x555555555040/M/0/4 0x555555555050/0x555555555060
sample 4242 4243 0x555555555104 time=1500000 cpu=0 period=4 br 0x555555555070/0x555555555080/P/0/6
round
sample 4242 4242 0x555555555108 time=3000000 cpu=1 period=5
EOF
roundtrip branches comm,tid,pid,time,cpu,period,event,ip,brstack
# the values themselves, as written in the spec (perf prints the type name for
# TYPE 4 = CALL and 6 = RET, and tid 4243 has no COMM of its own)
cat >"$TMP/branches.want" <<'EOF'
            prog  4242/4242  [001]     0.001000:          3 cycles:u:      555555555100 0x555555555010/0x555555555020/P/-/-/5/  0x555555555030/0x555555555040/M/-/-/0/CALL  0x555555555050/0x555555555060/-/-/-/0/ 
           :4243  4242/4243  [000]     0.001500:          4 cycles:u:      555555555104 0x555555555070/0x555555555080/P/-/-/0/RET 
            prog  4242/4242  [001]     0.003000:          5 cycles:u:      555555555108
EOF
check_files_eq "branches: perf script shows the values written" "$TMP/branches.want" "$TMP/branches.perf"

# Symbols around the PLT: gcc's _init has no size, and perf 6.1 runs it to the
# next symbol of the file before it makes the "f@plt" stubs, so _init takes the
# PLT's resolver stub and .plt.got (called at exit, for __cxa_finalize); not
# the stubs' own bytes, where perf's choice between overlapping symbols
# depends on the shape of its tree.
sec() {  # NAME: the section's address (hex, no 0x), or nothing
	readelf -SW "$P" | sed -n "s/^ *\[ *[0-9]*\] $1  *[A-Z_]*  *\([0-9a-f]*\) .*/\1/p"
}
init=$(sec .init) plt=$(sec .plt) pltgot=$(sec .plt.got)
if [ -n "$init" ] && [ -n "$plt" ] && [ -n "$pltgot" ]; then
	at() { printf '0x%x' $((0x555555554000 + 0x$1 + $2)); }
	cat >"$TMP/plt.spec" <<EOF
comm 4242 4242 prog exec
mmap2 4242 0x555555554000 0x2000 0 $P
sample 4242 4242 $(at "$pltgot" 0) br $(at "$pltgot" 4)/$(at "$plt" 0) $(at "$init" 5)/$(at "$pltgot" 0)
EOF
	roundtrip plt ip,sym,brstacksym
else
	skip "plt: symbols around the PLT" "prog has no .init, .plt or .plt.got section"
fi

cat >"$TMP/hwidx.spec" <<EOF
event cycles:u fields=ip,tid,time,period,branch hw_index
comm 7 7 prog exec
sample 7 7 0x401000 time=5 hw_idx=3 br 0x401010/0x401020/P 0x401030/0x401040/M
sample 7 7 0x401004 time=6
EOF
roundtrip hwidx tid,time,ip,brstack

cat >"$TMP/multi.spec" <<EOF
event cycles:u fields=identifier,ip,tid,time,cpu,period,branch
event instructions:u fields=identifier,ip,tid,time,cpu,period,callchain
comm 100 100 prog exec
mmap2 100 0x400000 0x1000 0 $P
sample 100 100 0x400100 time=1000000 cpu=1 period=7 br 0x400010/0x400020/P/5
sample 100 100 0x400104 ev=1 time=2000000 cpu=0 period=9 cc 0xfffffffffffffe00 0x400104 0x400200
EOF
"$SYNTH" -o "$TMP/multi.data" <"$TMP/multi.spec"
perf script -i "$TMP/multi.data" -F comm,tid,time,cpu,period,event,ip,brstack >"$TMP/multi.perf" 2>"$TMP/err"
check_empty "multi: perf script reads it without a warning" $? "$(cat "$TMP/err")"
"$OCREC" script -i "$TMP/multi.data" -F comm,tid,time,cpu,period,event,ip,brstack >"$TMP/multi.ocrec"
check_files_eq "two events told apart by IDENTIFIER, call chains: equals perf script" "$TMP/multi.perf" "$TMP/multi.ocrec"
check_match "multi: the first event's sample with its branch stack" "cycles:u:.*400100 0x400010/0x400020/P" "$(cat "$TMP/multi.perf")"
check_match "multi: the second event's sample" "instructions:u:" "$(cat "$TMP/multi.perf")"

# ocrec record without -b (a software event)
cat >"$TMP/plain.spec" <<EOF
event cpu-clock type=software config=0 fields=ip,tid,time,period
comm 300 300 prog exec
mmap2 300 0x555555554000 0x2000 0 $P
sample 300 300 0x555555555100 time=7000000 period=250000
sample 300 301 0x555555555180 time=7250000 period=250000
EOF
roundtrip plain comm,tid,time,period,event,ip

# ocrec record -a -g -b: CPU, call chains (with context markers, a kernel sample) and branches
cat >"$TMP/callchain.spec" <<EOF
event cycles:u fields=ip,tid,time,cpu,period,callchain,branch
comm 9 9 prog exec
mmap2 9 0x555555554000 0x2000 0 $P
sample 9 9 0x555555555100 time=1000 cpu=1 period=2 br 0x555555555010/0x555555555020/P/5/1 0x555555555030/0x555555555040/M/0/4 cc 0xfffffffffffffe00 0x555555555100 0x555555555200
sample 9 9 0xffffffff81000000 kernel time=2000 cpu=0 period=3 cc 0xffffffffffffff80 0xffffffff81000000 0xfffffffffffffe00 0x555555555200
EOF
roundtrip callchain tid,time,cpu,period,ip,brstack

# ID instead of IDENTIFIER (older perf's layout), two events
cat >"$TMP/id.spec" <<EOF
event cycles:u fields=ip,tid,time,id,period,branch
event instructions:u config=1 fields=ip,tid,time,id,period
comm 9 9 prog exec time=5 ev=1
sample 9 9 0x400100 time=1000 period=2 br 0x400010/0x400020/P
sample 9 9 0x400104 ev=1 time=2000 period=3
EOF
roundtrip id tid,time,period,event,ip,brstack

# no sample_id_all: side-band records without a trailer
cat >"$TMP/nosid.spec" <<EOF
event cycles:u fields=ip,tid,period,branch no_sample_id_all
comm 5 5 prog exec
mmap2 5 0x555555554000 0x2000 0 $P
sample 5 5 0x555555555100 period=9 br 0x555555555010/0x555555555020/M
EOF
roundtrip nosid comm,tid,period,ip,brstack

# side-band records with a sample_id_all trailer, as the kernel writes them:
# perf takes their time and cpu from it
cat >"$TMP/sideband.spec" <<EOF
event cpu-clock type=software config=0 fields=ip,tid,time,cpu,period
comm 50 50 sh time=1000 cpu=1
fork 51 50 time=2000000 cpu=0
comm 51 51 prog exec time=2500000 cpu=1
mmap2 51 0x400000 0x1000 0 /bin/true time=3000000 cpu=1
sample 51 51 0x400100 time=3500000 cpu=1 period=250000
exit 51 50 time=4000000 cpu=0
lost 3
EOF
"$SYNTH" -o "$TMP/sideband.data" "$TMP/sideband.spec"
perf script -i "$TMP/sideband.data" --show-task-events --show-mmap-events --show-lost-events \
	-F comm,tid,time,cpu,period,event,ip >"$TMP/sideband.perf" 2>"$TMP/err"
check_empty "sideband: perf script reads it without a warning" $? "$(cat "$TMP/err")"
cat >"$TMP/sideband.want" <<'EOF'
         swapper     0 [000]     0.000000: PERF_RECORD_LOST lost 3
              sh    50 [001]     0.000001: PERF_RECORD_COMM: sh:50/50
              sh    51 [000]     0.002000: PERF_RECORD_FORK(51:51):(50:50)
            prog    51 [001]     0.002500: PERF_RECORD_COMM exec: prog:51/51
            prog    51 [001]     0.003000: PERF_RECORD_MMAP2 51/51: [0x400000(0x1000) @ 0 08:01 12345 0]: r-xp /bin/true
            prog    51 [001]     0.003500:     250000 cpu-clock:            400100
            prog    51 [000]     0.004000: PERF_RECORD_EXIT(51:51):(50:50)
EOF
check_files_eq "sideband: trailers (time, cpu) as written" "$TMP/sideband.want" "$TMP/sideband.perf"
perf script -i "$TMP/sideband.data" -F comm,tid,time,cpu,period,event,ip >"$TMP/sideband.perf2" 2>/dev/null
"$OCREC" script -i "$TMP/sideband.data" -F comm,tid,time,cpu,period,event,ip >"$TMP/sideband.ocrec" 2>&1
check_files_eq "sideband: ocrec script equals perf script" "$TMP/sideband.perf2" "$TMP/sideband.ocrec"

# the header: perf sees every feature ocrec writes
perf report -i "$TMP/branches.data" --header-only >"$TMP/hdr" 2>&1
for want in "hostname : " "os release : " "arch : " "nrcpus online : " "cpudesc : " "cpuid : " \
	    "cmdline : .*pd-synth" "event : name = cycles:u" "contains samples with branch stack"; do
	check_match "perf --header-only shows: $want" "# $want" "$(cat "$TMP/hdr")"
done
check_match "data size patched at close" "# data size *: [1-9]" "$(cat "$TMP/hdr")"
# the machine's features as perf record itself writes them on this machine
if perf record -q -e cpu-clock -o "$TMP/perf-own.data" true >/dev/null 2>&1; then
	perf report -i "$TMP/perf-own.data" --header-only >"$TMP/hdr-perf" 2>&1
	for f in "hostname" "os release" "arch" "nrcpus online" "nrcpus avail" "cpudesc" "cpuid" "total memory"; do
		want=$(grep "^# $f :" "$TMP/hdr-perf") || want="(no '$f' line from perf's own file)"
		check_eq "header '$f' as perf record writes it" "$want" "$(grep "^# $f :" "$TMP/hdr")"
	done
else
	skip "header fields as perf record writes them" "perf record -e cpu-clock does not run here"
fi
# branch mode from the BRANCH_STACK feature bit, no warning (perf 6.1 crashes on
# --sort symbol_from,symbol_to when entries carry cycles; -F is its workaround)
perf report -i "$TMP/branches.data" --stdio -F overhead,symbol_from,symbol_to >"$TMP/rep" 2>"$TMP/err"
check_empty "perf report: no warning" $? "$(cat "$TMP/err")"
check_match "perf report enters branch mode by itself" "Source Symbol +Target Symbol" "$(cat "$TMP/rep")"
check_match "perf report counts every branch entry" "Samples: 4 " "$(cat "$TMP/rep")"

# perf report -b on the binary compiled here: branches resolve to its symbols
B=0x555555554000
main=$(printf '0x%x' $((B + 0x$(nm "$P" | awk '$3 == "main" { print $1 }'))))
foo=$(printf '0x%x' $((B + 0x$(nm "$P" | awk '$3 == "foo" { print $1 }'))))
cat >"$TMP/syms.spec" <<EOF
event cycles:u fields=ip,tid,time,period,branch
comm 77 77 prog exec
mmap2 77 0x555555555000 0x1000 0x1000 $P
sample 77 77 $((main + 8)) time=100 period=1000 br $((main + 4))/$foo/P $((foo + 6))/$((main + 8))/M
sample 77 77 $((main + 8)) time=200 period=1000 br $((main + 4))/$foo/P
EOF
"$SYNTH" -o "$TMP/syms.data" "$TMP/syms.spec"
perf report -i "$TMP/syms.data" -b --stdio --sort symbol_from,symbol_to >"$TMP/rep" 2>"$TMP/err"
check_empty "perf report -b: no warning" $? "$(cat "$TMP/err")"
check_match "perf report -b: main -> foo twice" "66\.67% +\[\.\] main +\[\.\] foo" "$(cat "$TMP/rep")"
check_match "perf report -b: foo -> main once" "33\.33% +\[\.\] foo +\[\.\] main" "$(cat "$TMP/rep")"
perf report -i "$TMP/syms.data" --no-branch-stack --stdio --sort sym >"$TMP/rep" 2>"$TMP/err"
check_empty "perf report --no-branch-stack: no warning" $? "$(cat "$TMP/err")"
check_match "perf report: the periods summed" "Event count \(approx\.\): 2000" "$(cat "$TMP/rep")"
check_match "perf report: main resolved from the binary" "100\.00% +\[\.\] main" "$(cat "$TMP/rep")"

# build-ids: the BUILD_ID feature, as perf buildid-list reads it
printf 'event cycles:u\nbuild-id %s 0123456789abcdef0123456789abcdef01234567\ncomm 1 1 x\nsample 1 1 0x10\n' "$P" |
	"$SYNTH" -o "$TMP/bid.data"
check_eq "perf buildid-list reads the BUILD_ID feature" \
	"0123456789abcdef0123456789abcdef01234567 $P" "$(perf buildid-list -i "$TMP/bid.data" 2>/dev/null)"

# written to a temporary name: a failed write leaves nothing behind
printf 'event cycles:u\ncomm 1 1 x\nsample 1 1 zz\n' | "$SYNTH" -o "$TMP/broken.data" 2>"$TMP/err"
check_eq "pd-synth: exit 2 on a bad spec" 2 $?
check_eq "pd-synth: one error line naming the spec line" "pd-synth: line 3: 'zz' is not a number" "$(cat "$TMP/err")"
left=$(find "$TMP" -maxdepth 1 -name 'broken*'); rc=$?
check_empty "an aborted file is not left behind" "$rc" "$left"
