#!/bin/sh
# ocrec autofdo weighs the software branch sampler's windows against the
# timer's bias (docs/autofdo.md, "Accuracy"): a window starts where a timer
# interrupted the thread, so code that takes longer per branch opens more
# windows. Written with pd-synth: main calls slow() and fast(), each runs
# its loop's back edge three times, and 4-deep windows start at every branch
# of the period, three times as often in slow() (its branches take three
# times as long). Both loops ran equally often: --unweighted, and a hardware
# event's stacks (sampled on branches, not time), count them as they come
# (slow 4/3 of fast); weighed (one step of the estimate, not its fixed
# point), slow's loop comes within 1.2 times fast's and the head counts of
# the two functions come closer.
. "$(dirname "$0")/../lib.sh"
need_cmd gcc objdump
SYNTH=$BUILD/tests/helpers/pd-synth
need_helper pd-synth
cd "$TMP" || exit 1

cat >w.c <<'EOF'
volatile long sink;

__attribute__((noinline, aligned(256))) void slow(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline, aligned(256))) void fast(long n)
{
	for (long i = 0; i < n; i++)
		sink -= i;
}

int main(int argc, char **argv)
{
	for (long r = 0; r < argc * 1000; r++) {
		slow(argc + 3);
		fast(argc + 3);
	}
	return 0;
}
EOF
gcc -O1 -g -fpie -pie -o w w.c && objdump -d --no-show-raw-insn w >dis.txt ||
	{ fail "build" "gcc -O1 -g w.c or objdump failed"; exit 0; }

# FUNC: "FROM TO" of its first backward jump
back() {
	sed -n "/<$1>:/,/^\$/p" dis.txt | awk '$2 ~ /^j/ { a = $1; sub(":", "", a); print a, $3 }' |
		while read -r a t; do
			if [ $((0x$t)) -lt $((0x$a)) ]; then echo "$a $t"; break; fi
		done
}
ret() {
	sed -n "/<$1>:/,/^\$/p" dis.txt | awk '$2 == "ret" { a = $1; sub(":", "", a); print a; exit }'
}
# FUNC: main's call to it, its target and the instruction after the call
call() {
	sed -n "/<main>:/,/^\$/p" dis.txt | awk -v f="<$1>" 'c { n = $1; sub(":", "", n); print n; exit }
		$2 == "call" && $4 == f { a = $1; sub(":", "", a); printf "%s %s ", a, $3; c = 1 }'
}
BASE=0x555555554000
x() { printf '0x%x' $((BASE + 0x$1)); }
# TYPE: one period of main's loop as FROM/TO:TIMES (windows started there),
# 20 periods of 4-deep windows, newest entry first
write_spec() {
	set -- "$1" $(call slow) $(back slow) $(ret slow) $(call fast) $(back fast) $(ret fast) $(back main)
	[ $# -eq 15 ] || return 1
	period="$(x "$2")/$(x "$3"):1"
	for k in 1 2 3; do period="$period $(x "$5")/$(x "$6"):3"; done
	period="$period $(x "$7")/$(x "$4"):3 $(x "$8")/$(x "$9"):1"
	for k in 1 2 3; do period="$period $(x "${11}")/$(x "${12}"):1"; done
	period="$period $(x "${13}")/$(x "${10}"):1 $(x "${14}")/$(x "${15}"):1"
	echo "event task-clock:u fields=ip,tid,time,period,branch type=$1 config=1"
	echo "comm 4242 4242 w exec"
	echo "mmap2 4242 $(x 1000) 0x1000 0x1000 $PWD/w"
	echo "$period" | awk -v depth=4 -v periods=20 '{
		n = NF
		for (k = 1; k <= n; k++) { split($k, p, ":"); e[k] = p[1]; times[k] = p[2] }
		for (r = 0; r < periods; r++) for (k = 1; k <= n; k++) for (m = 0; m < times[k]; m++) {
			split(e[(k + depth - 2) % n + 1], newest, "/")
			line = "sample 4242 4242 " newest[2] " br"
			for (i = depth - 1; i >= 0; i--) line = line " " e[(k - 1 + i) % n + 1]
			print line
		}
	}'
}
# PROFILE FUNC: the largest body count of FUNC (the loop's lines)
loop_count() {
	awk -v f="$2" '/^[^ ]/ { on = index($0, f ":") == 1; next }
		on { v = $2 + 0; if (v > best) best = v } END { print best + 0 }' "$1"
}
# NAME A B: A within 1.2 times B and at least B
check_close() {
	if [ "${2:-0}" -gt 0 ] && [ "${3:-0}" -gt 0 ] && [ $(($2 * 10)) -le $(($3 * 12)) ] && [ "$2" -ge "$3" ]; then
		pass "$1: $2 and $3"
	else
		fail "$1" "'$2' and '$3': not within 1.2 times"
	fi
}
# PROFILE: "SLOW FAST" head counts
heads() {
	echo "$(sed -n 's/^slow:[0-9]*:\([0-9]*\)$/\1/p' "$1") $(sed -n 's/^fast:[0-9]*:\([0-9]*\)$/\1/p' "$1")"
}
# NAME "A B" "C D": A/B is nearer 1 than C/D (all > 0; B > A, D > C)
check_nearer() {
	set -- "$1" $2 $3
	if [ "${2:-0}" -gt 0 ] && [ "${4:-0}" -gt 0 ] && [ $(($2 * $5)) -gt $(($4 * $3)) ] && [ "$2" -le "$3" ]; then
		pass "$1: $2/$3 against $4/$5"
	else
		fail "$1" "'$2/$3' is not nearer 1 than '$4/$5'"
	fi
}
# NAME SLOW FAST: SLOW is 4/3 of FAST
check_biased() {
	if [ "${3:-0}" -gt 0 ] && [ $(($2 * 3)) -eq $(($3 * 4)) ]; then
		pass "$1: $2 and $3"
	else
		fail "$1" "'$2' and '$3': not 4 to 3"
	fi
}

if write_spec software >sw.spec && "$SYNTH" -o sw.data sw.spec && write_spec hardware >hw.spec &&
	"$SYNTH" -o hw.data hw.spec; then
	check "weighed profile" "$OCREC" autofdo --line-counts max -i sw.data --binary w -o sw.prof
	"$OCREC" autofdo -i sw.data --binary w -o /dev/null 2>sw.err
	check_match "4-deep windows: deeper ones are recommended" \
		"sw.data: the software sampler's windows are 4 branches deep: record with --lbr-depth 1024" "$(cat sw.err)"
	check_close "weighed windows: the loops count nearly the same" "$(loop_count sw.prof slow)" \
		"$(loop_count sw.prof fast)"
	check "unweighted profile" "$OCREC" autofdo --unweighted --line-counts max -i sw.data --binary w -o sw-u.prof
	check_biased "--unweighted: windows as they come" "$(loop_count sw-u.prof slow)" "$(loop_count sw-u.prof fast)"
	check_nearer "weighed windows: the head counts come closer" "$(heads sw.prof)" "$(heads sw-u.prof)"
	check "hardware event's profile" "$OCREC" autofdo --line-counts max -i hw.data --binary w -o hw.prof
	check_biased "a hardware event's stacks are not weighed" "$(loop_count hw.prof slow)" "$(loop_count hw.prof fast)"
	"$OCREC" autofdo -i hw.data --binary w -o /dev/null 2>hw.err
	check_eq "no window depth is recommended for hardware stacks" "" "$(grep -e --lbr-depth hw.err)"
else
	fail "pd-synth specs" "the addresses of w's branches were not found or pd-synth failed"
fi
