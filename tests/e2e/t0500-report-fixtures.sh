# ocrec report on every real branch-stack file of tests/data/lbr (and of ../shared's
# extra sets): the
# percentages per (symbol_from, symbol_to) and the sample/event-count header
# lines equal perf's own answers (report-symbol-F.txt from perf 6.1, or perf
# 6.12's report-symbol.perf612.txt where 6.1 cannot read the file), with
# --symfs pointing at the fixture's symfs/ like the oracle runs. JSON output of
# each file is checked with python3 -m json.tool.
. "$(dirname "$0")/../lib.sh"
need_cmd python3

# perf's rows as "pct|from|to", sorted (ties in perf's order are not defined)
rows() {
	grep -v '^#' "$1" | grep -E '^ +[0-9.]+%' | sed -E 's/^ +//; s/ +$//; s/  +/|/g' |
		cut -d'|' -f1-3 | sort
}
header_line() { grep -E "^# ($2)" "$1" | head -n 1; }

found=0
for set in $(data_sets lbr); do
	dir=$(data_dir "$set")
	name=${set#lbr/}
	DATA= SYMFS=
	. "$(data_file "$set/fixture.conf")"
	oracle=
	for o in report-symbol-F.txt report-symbol.perf612.txt; do
		f=$(data_file "$set/$o") || continue
		if [ -s "$f" ] && grep -q '^# Overhead' "$f"; then oracle=$f; break; fi
	done
	if [ -z "$oracle" ]; then
		skip "$name" "perf produced no symbol_from,symbol_to report for this file"
		continue
	fi
	found=$((found + 1))
	set -- -i "$(data_file "$set/$DATA")" --stdio -F overhead,symbol_from,symbol_to
	[ -n "$SYMFS" ] && set -- "$@" --symfs "$dir/$SYMFS"
	if ! "$OCREC" report -q "$@" >"$TMP/out" 2>"$TMP/err"; then
		fail "$name: report runs" "$(head -n 2 "$TMP/err" | tr '\n' ' ')"
		continue
	fi
	check_eq "$name: # Samples line" "$(header_line "$oracle" Samples)" "$(header_line "$TMP/out" Samples)"
	check_eq "$name: # Event count line" "$(header_line "$oracle" 'Event count')" \
		"$(header_line "$TMP/out" 'Event count')"
	rows "$oracle" >"$TMP/want"
	rows "$TMP/out" >"$TMP/got"
	if [ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/got"; then
		pass "$name: every (symbol_from, symbol_to) percentage equals perf's ($(wc -l <"$TMP/want") rows)"
	else
		fail "$name: percentages differ from perf's" "$(diff "$TMP/want" "$TMP/got" | head -n 6 | tr '\n' ' ')"
	fi
	if "$OCREC" report -q "$@" --json 2>/dev/null | python3 -m json.tool >/dev/null 2>&1; then
		pass "$name: --json is valid JSON"
	else
		fail "$name: --json" "python3 -m json.tool rejected the output"
	fi
done
[ "$found" -gt 0 ] || fail "fixtures" "no fixture with a perf oracle found under tests/data/lbr"
extra_sets "autofdo-propeller_sample_1/derived-pipe (tests/data/lbr/README.md)"
