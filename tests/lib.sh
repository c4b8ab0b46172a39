# Shared helpers for the end-to-end tests (sourced by tests/e2e/t*.sh).
# A test prints PASS/FAIL/SKIP lines through these functions; tests/run.sh counts them.
set -u
ROOT=${OCREC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${OCREC_BUILD:-$ROOT/build}
OCREC=${OCREC:-$BUILD/ocrec}
SHARED=${OCREC_SHARED:-$ROOT/../shared}
TESTDATA=$ROOT/tests/data
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ocrec-t.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# check NAME CMD...: passes when CMD exits 0; returns CMD's status too,
# so that a caller can print more on failure (check ... || cat log).
check() {
	_n=$1; shift
	if "$@" >"$TMP/.out" 2>&1; then pass "$_n"; else fail "$_n" "command failed: $* ($(tail -n 3 "$TMP/.out" | tr '\n' ' '))"; return 1; fi
}
# check_fails NAME CMD...: passes when CMD exits non-zero.
check_fails() {
	_n=$1; shift
	if "$@" >"$TMP/.out" 2>&1; then fail "$_n" "command succeeded but should fail: $*"; else pass "$_n"; fi
}
# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', got '$3'"; fi
}
# check_empty NAME STATUS TEXT: a command exited 0 (STATUS) and TEXT, what it printed or a
# filter of it, is empty (an empty-output check alone passes when the command crashes).
check_empty() {
	if [ "$2" != 0 ]; then fail "$1" "exit status $2${3:+: $3}"
	elif [ -n "$3" ]; then fail "$1" "expected nothing, got '$3'"
	else pass "$1"; fi
}
# check_match NAME REGEX TEXT: TEXT matches the extended regex.
check_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then pass "$1"; else fail "$1" "'$3' does not match /$2/"; fi
}
# check_files_eq NAME EXPECTED_FILE ACTUAL_FILE
check_files_eq() {
	if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$3 differs from $2: $(diff "$2" "$3" | head -n 5 | tr '\n' ' ')"; fi
}
# check_lost_at_end STATUS OUT DATA: a recording whose ring filled at its end,
# while ocrec was stopped and the workload ended (t0400, t0601), exited 0
# (STATUS), its summary (in file OUT) counts the lost records, and perf sees
# the LOST record ocrec wrote for them in DATA.
check_lost_at_end() {
	check_eq "a ring full at the end: exit 0" 0 "$1"
	check_match "a ring full at the end: the summary counts the lost records" \
		'samples, [1-9][0-9]* lost\)' "$(cat "$2")"
	check_match "a ring full at the end: perf sees a LOST record" 'LOST events: +[1-9]' \
		"$(perf report -i "$3" --stats 2>/dev/null)"
}
# data_file PATH: prints the path of data file PATH (relative to tests/data, e.g.
# lbr/quipper-branch-4.14/header.txt) to read: tests/data's copy, else the one in
# ../shared/data; a copy stored gzipped (PATH.gz) is unpacked into $TMP first.
# Prints nothing and fails when neither has it.
data_file() {
	for _root in "$TESTDATA" "$SHARED/data"; do
		if [ -f "$_root/$1" ]; then
			echo "$_root/$1"
			return 0
		elif [ -f "$_root/$1.gz" ]; then
			_out=$TMP/data/$1
			if [ ! -f "$_out" ]; then
				mkdir -p "$(dirname "$_out")" && gzip -dc "$_root/$1.gz" >"$_out.part" &&
					mv "$_out.part" "$_out" || return 1
			fi
			echo "$_out"
			return 0
		fi
	done
	return 1
}
# data_dir PATH: the directory PATH of tests/data, else of ../shared/data
data_dir() {
	for _root in "$TESTDATA" "$SHARED/data"; do
		[ -d "$_root/$1" ] && { echo "$_root/$1"; return 0; }
	done
	return 1
}
# data_sets PATH: the sets under PATH (directories with a fixture.conf, and their
# derived-* copies) as paths for data_file: tests/data's, then the extra sets that
# only ../shared/data holds.
data_sets() {
	for _root in "$TESTDATA" "$SHARED/data"; do
		for _conf in "$_root/$1"/*/fixture.conf "$_root/$1"/*/*/fixture.conf; do
			[ -f "$_conf" ] || continue
			_set=${_conf#"$_root/"}
			_set=${_set%/fixture.conf}
			[ "$_root" != "$TESTDATA" ] && [ -d "$TESTDATA/$_set" ] && continue
			echo "$_set"
		done
	done
}
# extra_sets WHAT: says (SKIP) that WHAT, data sets too large for tests/data that only
# ../shared holds, goes unchecked when ../shared is absent (a fresh clone).
extra_sets() {
	[ -d "$SHARED/data" ] ||
		skip "$1" "../shared is absent: extra data sets not checked (tests/data/README.md)"
}
# need_helper NAME...: the test helpers (tests/helpers/NAME.c) make check builds; a
# missing one fails the script, never skips it.
need_helper() {
	for _h in "$@"; do
		if [ ! -x "$BUILD/tests/helpers/$_h" ]; then
			fail "$(basename "$0" .sh)" "$BUILD/tests/helpers/$_h is not built (make test-bins)"
			exit 1
		fi
	done
}
# need_cmd CMD...: skip the whole script when a tool is missing.
need_cmd() {
	for _c in "$@"; do
		if ! command -v "$_c" >/dev/null 2>&1; then
			skip "$(basename "$0" .sh)" "$_c is not installed (make deps)"
			exit 0
		fi
	done
}
# events_server ROOT: serve ROOT on 127.0.0.1 until the script ends
# (tests/fixtures/events/perfmon-server.py: ETag and 304, GitHub's contents API, the
# faults listed in $TMP/faults, each request logged in $TMP/log); sets URL. A server
# that does not start fails the script.
events_server() {
	python3 "$ROOT/tests/fixtures/events/perfmon-server.py" "$1" "$TMP/port" "$TMP/log" "$TMP/faults" &
	_server=$!
	trap 'kill $_server 2>/dev/null; rm -rf "$TMP"' EXIT INT TERM
	_i=0
	while [ ! -s "$TMP/port" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	if [ ! -s "$TMP/port" ]; then
		fail "server" "the test HTTP server did not start"
		exit 1
	fi
	URL=http://127.0.0.1:$(cat "$TMP/port")
}
# tree_sum DIR: one checksum of every file below DIR (to see that a cache did not change).
tree_sum() {
	find "$1" -type f | sort | xargs cat | cksum
}
# cc_prog NAME SRC-FILE [FLAGS]: compile a test program into $TMP/NAME.
cc_prog() {
	_name=$1 _src=$2; shift 2
	cc -O2 -g "$@" -o "$TMP/$_name" "$_src"
}
