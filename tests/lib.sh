# Shared helpers for the end-to-end tests (sourced by tests/e2e/t*.sh).
# A test prints PASS/FAIL/SKIP lines through these functions; tests/run.sh counts them.
set -u
ROOT=${OCREC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${OCREC_BUILD:-$ROOT/build}
OCREC=${OCREC:-$BUILD/ocrec}
SHARED=${OCREC_SHARED:-$ROOT/../shared}
TMP=$(mktemp -d /tmp/ocrec-t.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }

# check NAME CMD...: passes when CMD exits 0.
check() {
	_n=$1; shift
	if "$@" >"$TMP/.out" 2>&1; then pass "$_n"; else fail "$_n" "command failed: $* ($(tail -n 3 "$TMP/.out" | tr '\n' ' '))"; fi
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
# check_match NAME REGEX TEXT: TEXT matches the extended regex.
check_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then pass "$1"; else fail "$1" "'$3' does not match /$2/"; fi
}
# check_files_eq NAME EXPECTED_FILE ACTUAL_FILE
check_files_eq() {
	if cmp -s "$2" "$3"; then pass "$1"; else fail "$1" "$3 differs from $2: $(diff "$2" "$3" | head -n 5 | tr '\n' ' ')"; fi
}
# need_shared: skip the whole script when ../shared is absent (a user's fresh clone).
need_shared() {
	if [ ! -d "$SHARED/data" ]; then
		skip "$(basename "$0" .sh)" "../shared is absent: conformance data from real machines not available"
		exit 0
	fi
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
# cc_prog NAME SRC-FILE [FLAGS]: compile a test program into $TMP/NAME.
cc_prog() {
	_name=$1 _src=$2; shift 2
	cc -O2 -g "$@" -o "$TMP/$_name" "$_src"
}
