#!/bin/sh
# ocrec's perf.data writer, checked with perf 6.1: files written by the test
# helper pd-synth (every sample_type combination ocrec writes) are read by
# perf without a warning, and perf script and ocrec script print the same
# fields for them.
. "$(dirname "$0")/../lib.sh"
need_cmd perf
SYNTH=$BUILD/tests/helpers/pd-synth
[ -x "$SYNTH" ] || { fail "pd-synth" "$SYNTH is not built"; exit 0; }
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
	check_eq "$name: perf script reads it without a warning" "" "$(cat "$TMP/$name.perferr")"
	"$OCREC" script -i "$TMP/$name.data" -F "$fields" >"$TMP/$name.ocrec" 2>&1
	check_files_eq "$name: ocrec script equals perf script (-F $fields)" "$TMP/$name.perf" "$TMP/$name.ocrec"
	check_eq "$name: every sample printed" "$(grep -c '^sample' "$TMP/$name.spec")" "$(grep -c . "$TMP/$name.ocrec")"
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
"$OCREC" script -i "$TMP/multi.data" -F comm,tid,time,cpu,period,event,ip,brstack >"$TMP/multi.ocrec"
check_files_eq "two events told apart by IDENTIFIER, call chains: equals perf script" "$TMP/multi.perf" "$TMP/multi.ocrec"

# the header: perf sees every feature ocrec writes
perf report -i "$TMP/branches.data" --header-only >"$TMP/hdr" 2>&1
for want in "hostname : " "os release : " "arch : " "nrcpus online : " "cpudesc : " "cpuid : " \
	    "cmdline : .*pd-synth" "event : name = cycles:u" "contains samples with branch stack"; do
	check_match "perf --header-only shows: $want" "# $want" "$(cat "$TMP/hdr")"
done
check_match "data size patched at close" "# data size *: [1-9]" "$(cat "$TMP/hdr")"
# branch mode from the BRANCH_STACK feature bit, no warning (perf 6.1 crashes on
# --sort symbol_from,symbol_to when entries carry cycles; -F is its workaround)
perf report -i "$TMP/branches.data" --stdio -F overhead,symbol_from,symbol_to >"$TMP/rep" 2>"$TMP/err"
check_eq "perf report: no warning" "" "$(cat "$TMP/err")"
check_match "perf report enters branch mode by itself" "Source Symbol +Target Symbol" "$(cat "$TMP/rep")"
check_match "perf report counts every branch entry" "Samples: 4 " "$(cat "$TMP/rep")"

# build-ids: the BUILD_ID feature, as perf buildid-list reads it
printf 'event cycles:u\nbuild-id %s 0123456789abcdef0123456789abcdef01234567\ncomm 1 1 x\nsample 1 1 0x10\n' "$P" |
	"$SYNTH" -o "$TMP/bid.data"
check_eq "perf buildid-list reads the BUILD_ID feature" \
	"0123456789abcdef0123456789abcdef01234567 $P" "$(perf buildid-list -i "$TMP/bid.data" 2>/dev/null)"

# written to a temporary name: a failed write leaves nothing behind
printf 'event cycles:u\ncomm 1 1 x\nsample 1 1 zz\n' | "$SYNTH" -o "$TMP/broken.data" 2>/dev/null
check_eq "an aborted file is not left behind" "" "$(ls "$TMP" | grep broken)"
