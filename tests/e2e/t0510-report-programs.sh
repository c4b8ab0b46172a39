#!/bin/sh
# ocrec report on programs recorded here: a PIE executable calling into a
# shared library (percentages equal perf report's), a stripped binary
# (addresses, no crash), a binary deleted after recording, filters, --json,
# and the branch views of the article's div.c recorded with -b (the software
# branch sampler on this machine).
. "$(dirname "$0")/../lib.sh"
need_cmd perf python3
export HOME=$TMP/home   # the build-id cache of these recordings stays here
mkdir -p "$HOME"
cd "$TMP" || exit 1
cc -O2 -g -shared -fPIC -o libreport.so "$ROOT/tests/progs/report-lib.c"
cc -O2 -g -fPIE -pie -o rmain "$ROOT/tests/progs/report-main.c" -L. -lreport -Wl,-rpath,"$TMP"

rows() { grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/  +/|/g'; }

if ! "$OCREC" record -q -e cpu-clock -c 100000 -o r.data ./rmain 200000000 >/dev/null 2>err; then
	fail "record the PIE + shared library program" "$(cat err)"
	exit 0
fi
# (rows of equal percentage come in no defined order: compare sorted; rows
# under 0.1% are start-up noise in ld.so and the kernel, where perf's choice
# among aliases at one address can differ)
big() { awk -F'|' '{ v = $2; sub(/%/, "", v); if (v + 0 >= 0.1) print }'; }
"$OCREC" report -i r.data --stdio --sort dso,symbol | rows | big | sort >ours
perf report -i r.data --stdio --sort dso,symbol 2>/dev/null | rows | sed -E 's/\|-\|-$//' | big | sort >perfs
check_files_eq "PIE + shared library: every (dso, symbol) percentage >= 0.1% equals perf's" perfs ours
check_match "the library's function is resolved" "libreport.so\|\[\.\] report_lib_work" "$(cat ours)"
check_match "the PIE's static function is resolved" "rmain\|\[\.\] leaf" "$(cat ours)"

# filters
check_eq "--dso keeps one object" "libreport.so" \
	"$("$OCREC" report -i r.data --stdio --sort dso --dso libreport.so | rows | cut -d'|' -f3 | sort -u)"
"$OCREC" report -i r.data --stdio --comm nosuchcomm >nocomm 2>&1
check_empty "--comm of another command shows nothing" $? "$(rows <nocomm)"
check_eq "--max-rows 2" 2 "$("$OCREC" report -i r.data --stdio --max-rows 2 | rows | wc -l)"
# (the rows at or above 20% in the full report: leaf's share, near 20%, varies)
above=$("$OCREC" report -i r.data --stdio | rows | awk -F'|' '{ v = $2; sub(/%/, "", v); if (v + 0 >= 20) n++ } END { print n + 0 }')
check_match "--percent-limit 20: the library's function is above it" "^[1-9]" "$above"
check_eq "--percent-limit 20 hides the small entries" "$above" \
	"$("$OCREC" report -i r.data --stdio --percent-limit 20 | rows | wc -l)"
if "$OCREC" report -i r.data --json | python3 -m json.tool >/dev/null 2>&1; then
	pass "--json is valid JSON"
else
	fail "--json" "python3 -m json.tool rejected it"
fi

# stripped: addresses instead of names, no crash
cp rmain rstrip && strip rstrip
"$OCREC" record -q -e cpu-clock -c 100000 -o s.data ./rstrip 50000000 >/dev/null 2>&1
"$OCREC" report -i s.data --stdio >out 2>err
check_eq "stripped binary: exit 0" 0 $?
check_match "stripped binary: its addresses are shown" "rstrip +\[\.\] 0x[0-9a-f]+" "$(cat out)"
check_match "stripped binary: the library still has names" "report_lib_work" "$(cat out)"

# missing: recorded without the build-id cache, then deleted
cp rmain rgone
"$OCREC" record -q --no-buildid-cache -e cpu-clock -c 100000 -o g.data ./rgone 50000000 >/dev/null 2>&1
rm rgone
"$OCREC" report -i g.data --stdio >out 2>err
check_eq "missing binary: exit 0" 0 $?
check_match "missing binary: shown as addresses" "rgone +\[\.\] 0x[0-9a-f]+" "$(cat out)"

# deleted, but kept in the build-id cache that PERF_BUILDID_DIR names: record
# fills it and report finds the binary there, as perf does
cp rmain rcached
PERF_BUILDID_DIR=$TMP/bidcache "$OCREC" record -q -e cpu-clock -c 100000 -o c.data ./rcached 50000000 >/dev/null 2>&1
rm rcached
PERF_BUILDID_DIR=$TMP/bidcache "$OCREC" report -i c.data --stdio --sort dso,symbol >out 2>err
check_eq "PERF_BUILDID_DIR: exit 0" 0 $?
check_match "PERF_BUILDID_DIR: the deleted binary's symbols come from that cache" "rcached +\[\.\] leaf" "$(cat out)"
check_eq "... which record filled (not ~/.debug)" "yes:no" \
	"$(test -d "$TMP/bidcache/.build-id" && echo yes || echo no):$(grep -rqs rcached "$HOME/.debug" && echo yes || echo no)"

# the article's div.c with branch stacks (-fno-if-conversion: gcc 12 turns the
# branch of compute_flag into a cmov otherwise, and there is no branch to see)
cc -O2 -g -fno-if-conversion -DITERS=100000000 -o div "$ROOT/tests/progs/div.c"
if ! "$OCREC" record -q -b -o d.data ./div >/dev/null 2>err; then
	fail "record -b div" "$(cat err)"
	exit 0
fi
"$OCREC" report -i d.data --stdio --sort symbol_from,symbol_to >out
check_match "branch mode by default: compute_flag -> main" "\[\.\] compute_flag +\[\.\] main" "$(cat out)"
"$OCREC" report -i d.data --stdio --sort srcline_from,srcline_to >out
check_match "source-line keys: div.c lines" "div.c:[0-9]+ +div.c:[0-9]+" "$(cat out)"
"$OCREC" report -i d.data --stdio --source >out
check_match "--source: compute_flag's lines with their text" "div.c:8 +return i \+ 1;" "$(cat out)"
check_match "--source: main's branch line with its text" "div.c:24 +if \(flag\)" "$(cat out)"
"$OCREC" report -i d.data --stdio --branch-history >out
awk '/div.c:25/ { d = NR } /div.c:8 / && d && !seen { print NR - d; seen = 1 }' out >dist
check_match "--branch-history: compute_flag's return at div.c:8 comes before the division at div.c:25" \
	"^[0-9]+$" "$(cat dist)"
check_match "--branch-history shows the source text" "\| *return i \+ 1;" "$(cat out)"
"$OCREC" report -i d.data --stdio --hot-paths >out 2>err
check_eq "--hot-paths: exit 0" 0 $?
check_match "--hot-paths names div.c lines" "div.c:[0-9]+" "$(cat out)"
for v in "" --source --branch-history --hot-paths; do
	if "$OCREC" report -i d.data --json $v | python3 -m json.tool >/dev/null 2>&1; then
		pass "--json $v is valid JSON"
	else
		fail "--json $v" "python3 -m json.tool rejected it"
	fi
done
