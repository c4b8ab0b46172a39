# The command table, global options and --help on every command.
. "$(dirname "$0")/../lib.sh"

check "ocrec --version" "$OCREC" --version
check_match "version string" '^ocrec [0-9]+\.[0-9]+' "$("$OCREC" --version)"
check "ocrec --help" "$OCREC" --help
for c in record report script list-events resolve download info stat autofdo perf; do
	out=$("$OCREC" "$c" --help 2>&1); rc=$?
	check_eq "$c --help exits 0" 0 "$rc"
	check_match "$c --help prints usage" "usage: ocrec \[?$c" "$out"
	check_eq "help $c equals $c --help" "$out" "$("$OCREC" help "$c" 2>&1)"
done
"$OCREC" prog >"$TMP/out" 2>&1; rc=$?
check_eq "unknown command exits 2" 2 "$rc"
check_match "unknown command is named" "'prog' is not an ocrec command" "$(cat "$TMP/out")"
check_eq "unknown command is one line" 1 "$(wc -l <"$TMP/out")"
"$OCREC" >/dev/null 2>&1; check_eq "no command exits 2" 2 $?
