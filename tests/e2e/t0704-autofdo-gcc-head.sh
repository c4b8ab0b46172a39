#!/bin/sh
# gcc 12 and a function no sample enters (gawk's r_interpret: one call runs
# the whole program). Its head count is 0; when a block that runs once per
# call has a sample, gcc 12 scales the function's annotated counts to that
# head count and every count of the function becomes 0, the hot loop
# included. The gcc profile gives such a function a head count of 1. The
# trace is perf-script text written from the binary's own addresses. The
# profile also lists main(), which has no sample, with zero counts, and
# ocrec says which gcc options to use.
. "$(dirname "$0")/../lib.sh"
need_cmd gcc-12 objdump
cd "$TMP" || exit 1
cp "$ROOT/tests/progs/autofdo-once.c" once.c
gcc-12 -O2 -g -no-pie -o once once.c

# FUNC: the disassembly of FUNC, one "address mnemonic operand" line each
disasm() {
	objdump -d --no-show-raw-insn once |
		awk -v f="<$1>:" '$2 == f { on = 1; next } on && /^$/ { exit } on { sub(":", "", $1); print $1, $2, $3 }'
}
# run()'s loop back edge, the return address of its call to start(), start()'s ret
back=$(disasm run | while read -r a m t; do
	case $m in j*) if [ $((0x$t)) -lt $((0x$a)) ]; then echo "0x$a/0x$t"; break; fi ;; esac
done)
after_call=$(disasm run | awk '$2 == "call" && $3 == "'"$(disasm start | head -n 1 | cut -d' ' -f1)"'" { f = 1; next } f { print $1; exit }')
ret=$(disasm start | awk '$2 == "ret" { print $1; exit }')
if [ -z "$back" ] || [ -z "$after_call" ] || [ -z "$ret" ]; then
	fail "addresses in once" "back edge '$back', return address '$after_call', ret '$ret'"
	exit 0
fi
# 300 stacks of the loop's back edge, and one where run() returned from
# start() (its first block ran once) before taking the back edge
{
	i=0
	while [ $i -lt 300 ]; do
		printf ' %s' "${back#*/}"
		for k in 1 2 3 4 5 6 7 8; do printf ' %s/P/-/-/0' "$back"; done
		echo
		i=$((i + 1))
	done
	echo " ${back#*/} $back/P/-/-/0 0x$ret/0x$after_call/P/-/-/0"
} >once.script

"$OCREC" autofdo --perfscript once.script --binary once -o once.prof 2>/dev/null
"$OCREC" autofdo --perfscript once.script --binary once --format gcc -o once.gcov 2>gcov.err
check_match "no sample enters run(): head count 0 in the LLVM profile" '^run:[0-9]+:0$' "$(cat once.prof)"
hot=$(awk '/^run:/ { f = 1; next } /^[^ ]/ { f = 0 } f && $2 + 0 > max { max = $2 + 0 } END { print max + 0 }' once.prof)
check_match "the loop has the trace's count" '^[1-9][0-9]{3}$' "$hot"
gcc-12 -O2 -g -fauto-profile=once.gcov -fdump-ipa-afdo=afdo.dump -c once.c -o once-afdo.o 2>gcc.err
check_empty "gcc-12 -fauto-profile reads it without a warning" $? "$(cat gcc.err)"
# the afdo dump prints run()'s body once it is annotated: its block counts
body=$(awk '/^long int run \(/ { f = 1 } f { print } f && /^}/ { exit }' afdo.dump |
	grep -o '<bb [0-9]*> \[count: [0-9]*\]' | tr '\n' ' ')
check_match "gcc-12 annotates run()'s loop with its count ($hot)" "count: $hot\]" "$body"
check_match "and its first block with the head count 1" '<bb 2> \[count: 1\]' "$body"

# main() has no sample: it is listed with zero counts, and gcc 12 annotates
# its blocks with 0 (optimized as code that never ran, as with PGO), not
# with its own guesses as for a function the profile does not name
main_counts() {
	awk '/^int main \(/ { f = 1 } f { print } f && /^}/ { exit }' "$1" | grep -o '<bb [0-9]*> \[[a-z ]*count: [0-9]*' | tr '\n' ' '
}
check_match "main() without samples: its blocks count 0" '^<bb 2> \[count: 0 ' "$(main_counts afdo.dump)"
"$OCREC" autofdo --perfscript once.script --binary once --format gcc --sampled-only -o sampled.gcov 2>/dev/null &&
	gcc-12 -O2 -g -fauto-profile=sampled.gcov -fdump-ipa-afdo=sampled.dump -c once.c -o sampled.o 2>/dev/null
check_match "--sampled-only: main() keeps gcc's guessed counts" '^<bb 2> \[local count: [1-9]' "$(main_counts sampled.dump)"
check_match "stderr: the gcc options to use with the profile" \
	'^ocrec autofdo: gcc: use -fauto-profile=once.gcov -fno-tracer$' "$(cat gcov.err)"
