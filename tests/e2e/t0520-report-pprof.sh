#!/bin/sh
# ocrec report --pprof, read back by pprof itself (go tool pprof): a C++
# program recorded here with call chains (same functions and flat percentages
# as ocrec report --sort symbol, names demangled, the hot line in -list), the
# demo program recorded with -b (the branch-mode stacks are the sampled address
# and the LBR entries of each sample; --branch-history's head in -traces),
# merging, several events, filters, errors, and the web UI's flame graph in
# headless Chromium.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

# --- what needs no pprof ------------------------------------------------------
cc -O2 -g -o flag "$ROOT/contrib/demo/flag.c" || { fail "compile the demo" "cc failed"; exit 0; }
if ! "$OCREC" record -q -e cpu-clock -o s.data ./flag 30000000 >/dev/null 2>err; then
	fail "record the demo with cpu-clock" "$(cat err)"
	exit 0
fi
"$OCREC" report -i s.data --pprof s.pb.gz 2>err
check_eq "--pprof writes quietly and succeeds" "0:" "$?:$(cat err)"
check_eq "the profile is gzip" "1f8b" "$(head -c 2 s.pb.gz | od -An -tx1 | tr -d ' \n')"
for v in --json --source --hot-paths; do
	"$OCREC" report -i s.data --pprof x.pb.gz $v >out 2>err
	check_eq "--pprof with $v: one error line, exit 2, no file" "2:1:ocrec: report: --pprof does not combine with $v:no" \
		"$?:$(wc -l <err):$(head -n 1 err):$(test -e x.pb.gz && echo yes || echo no)"
done
"$OCREC" report -i s.data --pprof x.pb.gz --max-rows 3 2>err
check_match "--max-rows with --pprof: a warning that it does not apply" \
	"^ocrec: warning: --pprof writes every entry: --max-rows does not apply" "$(cat err)"
"$OCREC" report -i s.data --pprof "$TMP/no/such/dir/x.pb.gz" 2>err
check_eq "an unwritable --pprof path: exit 2" 2 "$?"
check_match "... and one line naming the file" "^ocrec: cannot create $TMP/no/such/dir/x.pb.gz" "$(cat err)"

if ! command -v go >/dev/null 2>&1 || ! go tool pprof -h >/dev/null 2>&1; then
	skip "pprof reads ocrec's profiles" "go (go tool pprof) is not installed (make deps)"
	exit 0
fi
export HOME=$TMP/home GOCACHE=$TMP/gocache   # pprof keeps its settings under $HOME
mkdir -p "$HOME"

# --- sample mode: a C++ program with call chains --------------------------------
if c++ -O2 -g -fno-omit-frame-pointer -o cxx "$ROOT/tests/progs/script-cxx.cc" &&
   "$OCREC" record -q -g -e cpu-clock -o cxx.data ./cxx 3000000 >/dev/null 2>err; then
	"$OCREC" report -i cxx.data --pprof cxx.pb.gz
	check_eq "export of the C++ recording" 0 "$?"
	"$OCREC" report -i cxx.data --sort symbol --json >sym.json
	go tool pprof -top -noinlines -nodefraction=0 cxx.pb.gz >top.txt 2>top.err
	check_eq "pprof -top reads it" "0" "$?"
	# every function pprof lists has ocrec's flat percentage (pprof prints two
	# decimals, one under 1%), and the named ones are all there
	python3 - sym.json top.txt >cmp.txt <<'EOF'
import json, re, sys
rep = json.load(open(sys.argv[1]))["events"][0]["rows"]
ours = {}
for row in rep:
    s = row["symbol"]
    if s["name"]:
        ours[s["name"]] = ours.get(s["name"], 0) + row["overhead"]
theirs = {}
for line in open(sys.argv[2]):
    m = re.match(r"\s*\S+\s+([0-9.]+)%\s+[0-9.]+%\s+\S+\s+[0-9.]+%\s+(.*)$", line)
    if m:
        theirs[m.group(2)] = float(m.group(1))
bad = [n for n in ours if ours[n] >= 0.5 and abs(theirs.get(n, -99) - ours[n]) > 0.06]
bad += [n for n in theirs if theirs[n] >= 0.5 and n not in ours]
print("rows %d %d" % (len(ours), len(theirs)))
for n in bad:
    print("differs: %s ours %.2f pprof %s" % (n, ours.get(n, -1), theirs.get(n)))
EOF
	check_eq "pprof -top -noinlines: the functions and flat percentages of ocrec report --sort symbol" "" \
		"$(grep differs cmp.txt)"
	check_match "... over more than a few rows" "^rows ([5-9]|[1-9][0-9]+) " "$(cat cmp.txt)"
	check_match "C++ names demangled (ns::Words::count)" " ns::Words::count$" "$(cat top.txt)"
	go tool pprof -raw cxx.pb.gz >raw.txt 2>&1
	# pprof prints no system names: read the Function messages themselves
	python3 - cxx.pb.gz >functions.txt <<'EOF2'
import gzip, sys
def fields(b):
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        if key & 7 == 0:
            v, i = varint(b, i)
        else:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        yield key >> 3, v
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
prof = gzip.open(sys.argv[1]).read()
strings = [v.decode() for f, v in fields(prof) if f == 6]
for f, v in fields(prof):
    if f == 5:
        fn = dict(fields(v))
        print("%s|%s|%s|%d" % (strings[fn.get(2, 0)], strings[fn.get(3, 0)], strings[fn.get(4, 0)], fn.get(5, 0)))
EOF2
	check_match "Function: the demangled name, the mangled system name, the file and the first line" \
		"^ns::Words::count\|_ZNK2ns5Words5countEv\|.*script-cxx.cc\|2[0-9]$" "$(cat functions.txt)"
	check_match "sample types: samples/count, cpu/nanoseconds" "^samples/count cpu/nanoseconds" "$(cat raw.txt)"
	check_match "inline frames: several lines of one location" "\(inline\)" "$(go tool pprof -top -nodefraction=0 cxx.pb.gz)"
	check_match "the mapping names the binary and its build-id" \
		"^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $TMP/cxx [0-9a-f]{40} \[FN\]\[FL\]\[LN\]\[IN\]" "$(sed -n '/^Mappings/,$p' raw.txt)"
	check_match "labels: comm, pid, tid" "comm:\[cxx\]" "$(cat raw.txt)"
	check_match "... numeric pid" "pid:\[[0-9]+\] tid:\[[0-9]+\]" "$(cat raw.txt)"
	check_match "call chains: main is below ns::Words::count" "^ +[0-9.]+m?s +[0-9.]+% .* main$" \
		"$(go tool pprof -top -cum -noinlines cxx.pb.gz 2>/dev/null)"
	check_match "the time of the recording" "^Time: $(date -u -r cxx.data +%Y-%m-%d) " "$(cat raw.txt)"
	check_match "... and its duration" "^Duration: [1-9]" "$(cat raw.txt)"
else
	fail "record the C++ program with call chains" "$(cat err)"
fi

# Mapping 1 is the program's binary (profile.proto), also when most samples
# are in a library: this one spends three quarters of its time in memset.
printf '%s\n' '#include <stdlib.h>' '#include <string.h>' 'static char buf[1 << 20];' 'static volatile long sink;' \
	'int main(int argc, char **argv) { long n = argc > 1 ? atol(argv[1]) : 3000, i;' \
	'while (n--) { memset(buf, (int)n, sizeof(buf)); for (i = 0; i < 5000; i++) sink += i ^ n; }' \
	'return buf[7] == 1; }' >memsets.c
if cc -O1 -g -o memsets memsets.c && "$OCREC" record -q -e cpu-clock -o memsets.data ./memsets 30000 >/dev/null 2>err &&
   "$OCREC" report -i memsets.data --pprof memsets.pb.gz 2>>err; then
	top=$(go tool pprof -top memsets.pb.gz 2>/dev/null | grep -A1 '^ *flat ' | tail -n 1)
	check_match "most samples in libc's memset (the premise)" "^ +[0-9.]+m?s +([5-9][0-9]|100)(\\.[0-9]+)?% .* __memset" "$top"
	case $top in
	*__memset*) ;;
	*)	# Seen once, in CI beside a loop of t06 runs: pprof's <unknown> for
		# all of memset's samples, whose first came before libc's MMAP2 (the
		# export kept that answer; the check below covers it). Should it fail
		# again, what the file held: both reports by DSO, the record's
		# messages, and its first MMAP2/COMM records and first sample in
		# file order (perf report -D), which ocrec report takes them in.
		echo "diagnosis: ocrec report --sort dso: $("$OCREC" report -i memsets.data --stdio --sort dso 2>&1 | grep '%' | head -n 4 | tr '\n' ';')"
		echo "diagnosis: perf report --sort dso: $(perf report -i memsets.data --stdio --sort dso 2>&1 | grep '%' | head -n 4 | tr '\n' ';')"
		echo "diagnosis: ocrec record: $(cat err)"
		echo "diagnosis: in file order: $(perf report -D -i memsets.data 2>/dev/null | grep -E 'PERF_RECORD_(MMAP2|COMM|SAMPLE|LOST)' |
			awk '!/SAMPLE/ || !s++' | head -n 12 | tr '\n' ';')"
		;;
	esac
	check_match "mapping 1 is the program, not libc" "^1: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ $TMP/memsets " \
		"$(go tool pprof -raw memsets.pb.gz 2>/dev/null | sed -n '/^Mappings/,$p')"
else
	fail "record and export a program that spends its time in libc" "$(cat err)"
fi

# A sample before the MMAP2 of the code it ran in (a file written from several
# CPUs' buffers in turn can hold one): it resolves to nothing, and the samples
# at the same address after the MMAP2 still resolve (the export once kept the
# first answer per address: all of memset's samples came out <unknown>).
main_at=$(nm memsets 2>/dev/null | awk '$3 == "main" { print $1 }')
size=$(wc -c <memsets)
if [ -n "$main_at" ] && [ -x "$BUILD/tests/helpers/pd-synth" ] && {
	echo "event cpu-clock fields=ip,tid,time,period type=software"
	echo "comm 7 7 memsets exec"
	echo "sample 7 7 $((0x555555554000 + 0x$main_at)) time=100"
	echo "mmap2 7 0x555555554000 $(( (size + 4095) / 4096 * 4096 )) 0 $TMP/memsets"
	for t in 200 300 400; do echo "sample 7 7 $((0x555555554000 + 0x$main_at)) time=$t"; done
   } >early.spec && "$BUILD/tests/helpers/pd-synth" -o early.data early.spec 2>err &&
   "$OCREC" report -i early.data --pprof early.pb.gz 2>>err; then
	check_match "a sample before its MMAP2: the later ones at its address still resolve (main, 3 of 4)" \
		"^ +[0-9.]+[mun]?s +75(\\.0+)?% .* main$" "$(go tool pprof -top early.pb.gz 2>/dev/null)"
else
	fail "a sample before its MMAP2" "no main in memsets, or: $(cat err)"
fi

# -list: the demo's hot line is its division, as ocrec report's srcline says
top_line=$("$OCREC" report -i s.data --stdio --sort srcline | awk '/%/ { sub(/.*:/, "", $2); print $2; exit }')
go tool pprof -list '^main$' s.pb.gz >list.txt 2>&1
hot=$(awk '/^ +[0-9.]+m?s / && $3 ~ /^[0-9]+:$/ { v = $1; sub(/ms$/, "", v); sub(/s$/, "000", v); if (v + 0 > best) { best = v + 0; line = $3 } } END { sub(/:$/, "", line); print line }' list.txt)
check_eq "pprof -list main: the hottest line is ocrec's hottest srcline (flag.c:$top_line)" "$top_line" "$hot"
check_match "... with the source text" "x \+= x / y \+ y / x;" "$(cat list.txt)"

# --- branch mode: the demo recorded with -b -------------------------------------
if "$OCREC" record -q -b -o b.data ./flag 30000000 >/dev/null 2>err; then
	"$OCREC" report -i b.data --pprof b.pb.gz
	check_eq "export of the -b recording" 0 "$?"
	go tool pprof -raw b.pb.gz >braw.txt 2>&1
	check_match "branch mode: samples/count branches/count cpu/nanoseconds" \
		"^samples/count branches/count cpu/nanoseconds" "$(cat braw.txt)"
	# each sample's stack is its address, then every LBR entry's target and
	# source, newest first: the same multiset of stacks as ocrec script prints
	"$OCREC" script -i b.data -F ip,brstack >brstack.txt
	python3 - braw.txt brstack.txt >bcmp.txt <<'EOF'
import re, sys
from collections import Counter
raw = open(sys.argv[1]).read()
locs = {}
for m in re.finditer(r"^\s+(\d+): 0x([0-9a-f]+)", raw.split("Locations")[1], re.M):
    locs[m.group(1)] = int(m.group(2), 16)
theirs = Counter()
sec = raw.split("Samples:")[1].split("Locations")[0]
for m in re.finditer(r"^\s+(\d+)\s+\d+\s+\d+: ([\d ]+)$", sec, re.M):
    theirs[tuple(locs[i] for i in m.group(2).split())] += int(m.group(1))
ours = Counter()
for line in open(sys.argv[2]):
    f = line.split()
    if not f:
        continue
    stack = [int(f[0], 16)]
    for b in f[1:]:
        fr, to = b.split("/")[:2]
        stack += [int(to, 16), int(fr, 16)]
    ours[tuple(stack)] += 1
print("samples %d %d" % (sum(ours.values()), sum(theirs.values())))
print("same" if ours == theirs else "differ: %d stacks only ocrec script's, %d only pprof's" %
      (len(ours - theirs), len(theirs - ours)))
EOF
	check_eq "the pprof stacks are the samples' addresses and LBR entries (target, source, newest first)" \
		"same" "$(tail -n 1 bcmp.txt)"
	check_match "... for every sample" "^samples ([1-9][0-9]*) \1$" "$(head -n 1 bcmp.txt)"
	# --branch-history's first node (the sampled line) has pprof's flat share of that line
	"$OCREC" report -i b.data --branch-history --stdio --max-rows 1 >bh.txt
	bh_pct=$(awk '/^ +[0-9.]+%/ { print $1; exit }' bh.txt | tr -d %)
	bh_line=$(awk '/^ +[0-9.]+%/ { print $3; exit }' bh.txt)
	pp_pct=$(go tool pprof -top -lines -nodefraction=0 b.pb.gz 2>/dev/null |
		awk -v l="$bh_line" '$0 ~ l"$" || $0 ~ l" " { print $2; exit }' | tr -d %)
	check_eq "--branch-history's head ($bh_line, $bh_pct%) is pprof's flat share of that line" \
		"$bh_pct" "$pp_pct"
	go tool pprof -traces -lines b.pb.gz >traces.txt 2>&1
	check_match "-traces shows the LBR paths, line by line" "set_flag .*flag.c:1[1-4]" "$(cat traces.txt)"
	check_match "-traces: the sampled line leads a trace" "^ +[0-9.]+m?s +main .*flag.c:2[1-5]" "$(cat traces.txt)"

	# two exports merge in pprof, and ocrec merges two inputs the same way
	"$OCREC" record -q -b -o b2.data ./flag 20000000 >/dev/null 2>&1 &&
	"$OCREC" report -i b2.data --pprof b2.pb.gz &&
	go tool pprof -proto b.pb.gz b2.pb.gz >merged.pb.gz 2>/dev/null &&
	"$OCREC" report -i b.data -i b2.data --pprof both.pb.gz
	check_eq "two exports merge with pprof -proto; two -i merge in ocrec" 0 "$?"
	total() { go tool pprof -raw "$1" 2>/dev/null | awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ +[0-9]+ / { n += $1 } END { print n + 0 }'; }
	n1=$(total b.pb.gz) n2=$(total b2.pb.gz)
	check_eq "pprof's merge has the samples of both" "$((n1 + n2))" "$(total merged.pb.gz)"
	check_eq "ocrec report -i a -i b --pprof has the same" "$((n1 + n2))" "$(total both.pb.gz)"
	check_eq "... as ocrec report -i a -i b counts them" "$((n1 + n2))" \
		"$("$OCREC" report -i b.data -i b2.data --no-branch-stack --json |
		   python3 -c 'import json,sys; print(json.load(sys.stdin)["events"][0]["samples"])')"
else
	fail "record the demo with -b" "$(cat err)"
fi

# several events: a pair of values each
if "$OCREC" record -q -e cpu-clock -e task-clock -o two.data ./flag 20000000 >/dev/null 2>err; then
	"$OCREC" report -i two.data --pprof two.pb.gz
	check_match "two events: a pair of sample types each" \
		"^cpu-clock_samples/count cpu-clock/nanoseconds task-clock_samples/count task-clock/nanoseconds" \
		"$(go tool pprof -raw two.pb.gz 2>&1)"
else
	fail "record two events" "$(cat err)"
fi

# filters apply as in the text views
"$OCREC" report -i s.data --comm nosuchcomm --pprof none.pb.gz
check_eq "--comm of another command: exit 0" 0 "$?"
go tool pprof -raw none.pb.gz >none.raw 2>&1
check_eq "... pprof reads the profile" 0 "$?"
check_eq "... an empty profile" "0" \
	"$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && /^ +[0-9]+ / { n++ } END { print n + 0 }' none.raw)"

# --- the web UI's flame graph, rendered by headless Chromium ---------------------
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || [ ! -f b.pb.gz ]; then
	skip "pprof's flame graph in Chromium" "chromium is not installed (make deps)"
	exit 0
fi
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
go tool pprof -http=127.0.0.1:$port -no_browser b.pb.gz >http.log 2>&1 &
web=$!
i=0
while ! python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || break
	sleep 0.2
done
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMP/chromium" --virtual-time-budget=10000 \
	--dump-dom "http://127.0.0.1:$port/ui/flamegraph" >dom.html 2>chromium.err
rc=$?
kill $web 2>/dev/null
wait $web 2>/dev/null
check_eq "Chromium renders pprof's flame graph page" 0 "$rc"
check_match "the flame graph's DOM names the hot function" 'set_flag \([0-9.]+%' "$(cat dom.html)"
