#!/bin/sh
# ocrec autofdo on perf.data files written by ocrec (tests/helpers/pd-synth)
# with branch stacks at a PIE load address and in a shared library, against
# llvm-profgen 14 run live on the same files (--line-counts max: its count of
# a line); build-id matching (an 8-byte id padded to 20 bytes, a mismatch,
# --force, no build-id).
. "$(dirname "$0")/../lib.sh"
LLVM=/usr/lib/llvm-14/bin
need_cmd "$LLVM/llvm-profgen" "$LLVM/llvm-profdata" perf objdump
SYNTH=$BUILD/tests/helpers/pd-synth
need_helper pd-synth
cd "$TMP" || exit 1

similarity() {
	"$LLVM/llvm-profdata" overlap --sample "$1" "$2" 2>/dev/null |
		sed -n 's/.*Whole program profile similarity: \([0-9.]*\)%.*/\1/p'
}
hottest() {
	grep -v '^ ' "$1" | awk -F: '{ n = NF; if ($(n-1) + 0 > best) { best = $(n-1) + 0; f = $1 } } END { print f }'
}
# BINARY: "FROM TO" of the first backward jump (the loop's back edge) in work()
back_edge() {
	objdump -d --no-show-raw-insn "$1" |
		awk '/<work>:/ { f = 1; next } f && /^$/ { exit } f && $2 ~ /^j/ { sub(":", "", $1); print $1, $3 }' |
		while read -r a t; do
			if [ $((0x$t)) -lt $((0x$a)) ]; then echo "$a $t"; break; fi
		done
}
# SPEC BINARY BASE [BUILD-ID]: comm, the text mapping (file offset 0x1000 at
# BASE+0x1000, as ld lays out these small binaries) and 300 samples whose
# 8-deep stacks all take the loop's back edge
write_spec() {
	set -- "$1" "$2" "$3" "${4:-}" $(back_edge "$2")
	[ -n "$6" ] || return 1
	from=$(printf '0x%x' $(($3 + 0x$5)))
	to=$(printf '0x%x' $(($3 + 0x$6)))
	{
		echo "comm 4242 4242 $(basename "$2") exec"
		echo "mmap2 4242 $(printf '0x%x' $(($3 + 0x1000))) 0x1000 0x1000 $PWD/$2"
		[ -z "$4" ] || echo "build-id $PWD/$2 $4"
		i=0
		while [ $i -lt 300 ]; do
			printf 'sample 4242 4242 %s br' "$from"
			for k in 1 2 3 4 5 6 7 8; do printf ' %s/%s' "$from" "$to"; done
			echo
			i=$((i + 1))
		done
	} >"$1"
}
# NAME DATA BINARY: ocrec's profile against llvm-profgen's on the same file
compare_live() {
	"$LLVM/llvm-profgen" --perfdata="$2" --binary="$3" --format=text --output="$1.profgen" >/dev/null 2>&1
	if "$OCREC" autofdo --line-counts max -i "$2" --binary "$3" -o "$1.ocrec" 2>"$1.err"; then
		s=$(similarity "$1.profgen" "$1.ocrec")
		if [ -n "$s" ] && awk -v s="$s" 'BEGIN { exit !(s >= 95) }'; then
			pass "$1: similarity $s% with llvm-profgen 14 live"
		else
			fail "$1" "similarity '${s:-none}' < 95%"
		fi
		check_eq "$1: hottest function" "$(hottest "$1.profgen")" "$(hottest "$1.ocrec")"
		check_match "$1: the loop is counted in work()" '^work:[1-9][0-9]*:' "$(cat "$1.ocrec")"
	else
		fail "$1" "$(cat "$1.err")"
	fi
}

# PIE executable with an 8-byte build-id, loaded at the usual PIE base
cc -O2 -g -Wl,--build-id=0x0011223344556677 -o inl "$ROOT/tests/progs/autofdo-inline.c"
write_spec pie.spec inl 0x555555554000 0011223344556677 || fail "pie" "no back edge in work()"
"$SYNTH" -o pie.data pie.spec
compare_live pie pie.data inl
check_eq "8-byte build-id matches: no warning" "" "$(cat pie.err)"

# a shared library mapped high
cc -O2 -g -fPIC -shared -o libinl.so "$ROOT/tests/progs/autofdo-inline.c"
write_spec lib.spec libinl.so 0x7f0012340000 || fail "shared library" "no back edge in work()"
"$SYNTH" -o lib.data lib.spec
compare_live libinl.so lib.data libinl.so
check_match "no build-id recorded: matched by path with a warning" "matching it by path" "$(cat libinl.so.err)"

# another build's id: an error unless --force
sed 's/0011223344556677$/8899aabbccddeeff/' pie.spec >other.spec
"$SYNTH" -o other.data other.spec
"$OCREC" autofdo --line-counts max -i other.data --binary inl -o other.prof 2>other.err
check_eq "build-id mismatch: exit 2" 2 $?
check_match "build-id mismatch: says so" "build-id recorded for .*inl differs" "$(cat other.err)"
check_eq "build-id mismatch: one line" 1 "$(wc -l <other.err)"
check_eq "build-id mismatch: no output" no "$([ -e other.prof ] && echo yes || echo no)"
"$OCREC" autofdo --line-counts max -i other.data --binary inl --force -o other.prof 2>/dev/null
check_files_eq "--force: the same profile as with the right id" pie.ocrec other.prof

# two inputs of one binary merge
"$OCREC" autofdo --line-counts max -i pie.data -i pie.data --binary inl -o two.prof 2>/dev/null
check_eq "two inputs: the total doubles" \
	"$(( $(sed -n '1s/^work:\([0-9]*\):.*/\1/p' pie.ocrec) * 2 ))" "$(sed -n '1s/^work:\([0-9]*\):.*/\1/p' two.prof)"

# A stack of any depth is read whole: the software sampler writes up to 1024
# entries (record --lbr-depth). One stack of 260 back edges holds 259 runs of
# the loop's body, so its line has 259 (reading once stopped at 256 entries: 255).
set -- $(back_edge inl)
from=$(printf '0x%x' $((0x555555554000 + 0x$1)))
to=$(printf '0x%x' $((0x555555554000 + 0x$2)))
{
	grep -v '^sample' pie.spec
	printf 'sample 4242 4242 %s br' "$from"
	i=0
	while [ $i -lt 260 ]; do printf ' %s/%s' "$from" "$to"; i=$((i + 1)); done
	echo
} >deep.spec
# the loop's line: the largest body count of work() (--line-counts max)
loop_count() {
	awk '/^work:/ { f = 1; next } /^[^ ]/ { f = 0 } f && $2 + 0 > max { max = $2 + 0 } END { print max + 0 }' "$1"
}
"$SYNTH" -o deep.data deep.spec &&
	"$OCREC" autofdo --line-counts max -i deep.data --binary inl -o deep.prof 2>/dev/null
check_eq "perf.data: a 260-deep stack counts the loop 259 times" 259 "$(loop_count deep.prof)"
perf script -i deep.data -F ip,brstack --show-mmap-events >deep.script 2>/dev/null &&
	"$OCREC" autofdo --line-counts max --perfscript deep.script --binary inl -o deep-script.prof 2>/dev/null
check_eq "perf script text: the same stack, the same count" 259 "$(loop_count deep-script.prof)"
