# contrib/ocrec-flamegraph: folded stacks from `perf script` call chains (files recorded
# here by perf and by ocrec) and from `ocrec report --branch-history --json`.
. "$(dirname "$0")/../lib.sh"
need_cmd python3 perf
FG="python3 $ROOT/contrib/ocrec-flamegraph"
# perf's own folding script, the oracle for perf script input (same output as
# stackcollapse-perf.pl on these files: comm first, callers before callees)
SC=/usr/lib/perf-core/scripts/python/stackcollapse.py

# same_as_perf NAME PERF.DATA FOLDED: FOLDED equals what perf's stackcollapse.py prints.
same_as_perf() {
	if [ ! -f "$SC" ]; then skip "$1" "perf's $SC is not installed"; return; fi
	perf script -i "$2" -s "$SC" 2>/dev/null | LC_ALL=C sort >"$TMP/oracle"
	LC_ALL=C sort "$3" >"$TMP/mine"
	if [ -s "$TMP/oracle" ] && cmp -s "$TMP/oracle" "$TMP/mine"; then pass "$1"
	else fail "$1" "differs from perf's stackcollapse.py: $(diff "$TMP/oracle" "$TMP/mine" | head -n 4 | cut -c1-200 | tr '\n' ' ')"; fi
}

# A program whose hot path is main -> middle -> leaf; -O0 keeps a frame pointer in every
# function (gcc -O1 drops it in leaf even with -fno-omit-frame-pointer).
cat >"$TMP/chain.c" <<'EOF'
volatile unsigned long sink;
__attribute__((noinline)) void leaf(unsigned long i) { for (int k = 0; k < 50; k++) sink += i * k; }
__attribute__((noinline)) void middle(unsigned long i) { leaf(i); sink ^= i; }
int main(void) { for (unsigned long i = 0; i < 3000000; i++) middle(i); return 0; }
EOF
cc_prog chain "$TMP/chain.c" -O0 -fno-omit-frame-pointer

# sum_counts FILE: the sum of the last fields of folded lines.
sum_counts() { awk '{ s += $NF } END { print s + 0 }' "$1"; }

# --- perf script text from perf's own recording --------------------------------------
if perf record -q -e cpu-clock -g -o "$TMP/perf.data" "$TMP/chain" >"$TMP/rec.out" 2>&1; then
	perf script -i "$TMP/perf.data" >"$TMP/perf.txt" 2>/dev/null
	$FG "$TMP/perf.txt" >"$TMP/folded" 2>"$TMP/err"
	check_eq "perf script: exit 0, nothing on stderr" "0:" "$?:$(cat "$TMP/err")"
	nsamples=$(grep -c 'cpu-clock:' "$TMP/perf.txt")
	check_eq "perf script: one count per sample" "$nsamples" "$(sum_counts "$TMP/folded")"
	check_eq "perf script: every line is 'frame;frame;... N'" "" \
		"$(grep -vE '^[^;]+(;[^;]+)* [0-9]+$' "$TMP/folded")"
	check_match "perf script: comm at the bottom, callers before callees, no offsets" \
		"^chain;(.*;)?main;middle;leaf [0-9]+$" "$(cat "$TMP/folded")"
	hot=$(grep -E ';main;middle;leaf [0-9]+$' "$TMP/folded" | awk '{ s += $NF } END { print s + 0 }')
	if [ "$hot" -gt $((nsamples / 2)) ]; then pass "perf script: most samples in main;middle;leaf ($hot of $nsamples)"
	else fail "perf script: most samples in main;middle;leaf" "$hot of $nsamples"; fi
	periods=$(sed -n 's/.* \([0-9][0-9]*\) cpu-clock:.*/\1/p' "$TMP/perf.txt" | awk '{ s += $1 } END { print s + 0 }')
	$FG --period "$TMP/perf.txt" >"$TMP/folded-p"
	check_eq "perf script --period: weights are the sample periods" "$periods" "$(sum_counts "$TMP/folded-p")"
	same_as_perf "perf script: the same stacks and counts as perf's stackcollapse.py" "$TMP/perf.data" "$TMP/folded"
	$FG --no-comm <"$TMP/perf.txt" >"$TMP/nocomm" 2>&1
	check_empty "--no-comm drops the command name" $? "$(grep '^chain;' "$TMP/nocomm")"
else
	skip "perf script from perf record" "perf record -e cpu-clock -g failed: $(tail -n 1 "$TMP/rec.out")"
fi

# --- perf script text from ocrec's recording ----------------------------------------
if $OCREC record -q -e cpu-clock -g -o "$TMP/ocrec.data" "$TMP/chain" >"$TMP/orec.out" 2>&1; then
	perf script -i "$TMP/ocrec.data" >"$TMP/ocrec.txt" 2>"$TMP/err"
	$FG "$TMP/ocrec.txt" >"$TMP/folded-o"
	check_eq "ocrec's perf.data: one count per sample" "$(grep -c 'cpu-clock' "$TMP/ocrec.txt")" \
		"$(sum_counts "$TMP/folded-o")"
	check_match "ocrec's perf.data: main;middle;leaf stacks" "^chain;(.*;)?main;middle;leaf [0-9]+$" \
		"$(cat "$TMP/folded-o")"
	same_as_perf "ocrec's perf.data: the same as perf's stackcollapse.py" "$TMP/ocrec.data" "$TMP/folded-o"
else
	fail "ocrec record -e cpu-clock -g" "$(tail -n 1 "$TMP/orec.out")"
fi

# --- ocrec report --branch-history --json: a document with known numbers -------------
cat >"$TMP/bh.json" <<'EOF'
{"ocrec_report": 1, "mode": "branch", "view": "branch_history", "lost": 0, "events": [
 {"event": "cycles", "samples": 200, "event_count": 2000000, "tree": [
  {"percent": 75.0, "function": "main", "srcline": "div.c:25", "text": "x += 1;", "children": [
    {"percent": 50.0, "function": "compute_flag", "srcline": "div.c:8", "text": null, "children": [
      {"percent": 50.0, "function": "main", "srcline": "div.c:19", "text": null, "children": []}]},
    {"percent": 20.0, "function": "main", "srcline": "div.c:18", "text": null, "children": []}]},
  {"percent": 25.0, "function": "compute_flag", "srcline": "div.c:7", "text": null, "children": [
    {"percent": 25.0, "function": "compute_flag", "srcline": "div.c:6", "text": null, "children": []}]}]}]}
EOF
check_eq "branch history: oldest frame first, own weight in samples" \
"compute_flag div.c:6;compute_flag div.c:7 50
main div.c:18;main div.c:25 40
main div.c:19;compute_flag div.c:8;main div.c:25 100
main div.c:25 10" "$($FG "$TMP/bh.json")"
check_eq "branch history --period: weights in events" "compute_flag div.c:6;compute_flag div.c:7 500000
main div.c:18;main div.c:25 400000
main div.c:19;compute_flag div.c:8;main div.c:25 1000000
main div.c:25 100000" "$($FG --period <"$TMP/bh.json")"
check_eq "branch history --no-lines: repeated functions merge" "compute_flag 50
main 50
main;compute_flag;main 100" "$($FG --no-lines "$TMP/bh.json")"

# --- and from a real recording (software branch sampler on machines without LBR) ----
if $OCREC record -q -b -o "$TMP/b.data" "$TMP/chain" >"$TMP/brec.out" 2>&1 &&
   $OCREC report -i "$TMP/b.data" --branch-history --json >"$TMP/real.json" 2>"$TMP/err"; then
	samples=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"][0]["samples"])' "$TMP/real.json")
	$FG "$TMP/real.json" >"$TMP/folded-b"
	check_eq "report JSON: counts add up to the samples" "$samples" "$(sum_counts "$TMP/folded-b")"
	check_match "report JSON: frames are 'function file:line'" "(^|;)leaf chain\.c:2[;| ]" "$(cat "$TMP/folded-b")"
else
	fail "ocrec record -b and report --branch-history --json" "$(tail -n 1 "$TMP/brec.out" "$TMP/err" | tr '\n' ' ')"
fi

# --- bad input: one line, exit 2 ----------------------------------------------------
for bad in 'not perf script at all' '{"ocrec_report": 1, "view": "hist", "events": []}' '{"broken'; do
	printf '%s\n' "$bad" >"$TMP/bad"
	$FG "$TMP/bad" >"$TMP/out" 2>"$TMP/err"; rc=$?
	check_eq "bad input '$(printf '%.20s' "$bad")': exit 2, one line, no output" "2 1 0" \
		"$rc $(wc -l <"$TMP/err") $(wc -c <"$TMP/out")"
done
check_match "bad input names the file" "^ocrec-flamegraph: $TMP/bad: " "$(cat "$TMP/err")"
$FG "$TMP/missing" 2>"$TMP/err"
check_eq "a missing file: exit 2" "2" "$?"
