#!/bin/sh
# ocrec script on files perf 6.1 records here (software events): plain,
# call chains (-g), two events, zstd-compressed (-z) and pipe mode must print
# what perf script prints for the same fields.
. "$(dirname "$0")/../lib.sh"
need_cmd perf
cc_prog loop "$ROOT/tests/progs/loop.c" -DITERS=30000000 2>/dev/null || cc_prog loop "$ROOT/tests/progs/loop.c"
F=comm,tid,pid,time,period,event,ip

compare() {  # NAME FILE FIELDS
	perf script -i "$2" -F "$3" >"$TMP/$1.perf" 2>/dev/null
	"$OCREC" script -i "$2" -F "$3" >"$TMP/$1.ocrec" 2>"$TMP/$1.err"
	if [ ! -s "$TMP/$1.perf" ]; then
		fail "$1" "perf script printed nothing"
	else
		check_files_eq "$1: equals perf script -F $3 ($(wc -l <"$TMP/$1.perf") lines)" "$TMP/$1.perf" "$TMP/$1.ocrec"
	fi
}

rec() {  # NAME PERF-RECORD-ARGS...
	n=$1; shift
	if ! perf record -q -o "$TMP/$n.data" "$@" "$TMP/loop" >/dev/null 2>"$TMP/$n.recerr"; then
		skip "$n" "perf record $* does not work here: $(head -n 1 "$TMP/$n.recerr")"
		return 1
	fi
}

rec plain -e cpu-clock -c 200000 && compare plain "$TMP/plain.data" $F
rec callchain -e cpu-clock -c 200000 -g && compare callchain "$TMP/callchain.data" $F
rec two-events -e cpu-clock,task-clock -c 200000 && compare two-events "$TMP/two-events.data" $F
rec compressed -z -e cpu-clock -c 200000 && compare compressed "$TMP/compressed.data" $F
if perf record -q -e cpu-clock -c 200000 -o - "$TMP/loop" >"$TMP/pipe.data" 2>/dev/null; then
	perf script -i - -F tid,period,ip <"$TMP/pipe.data" >"$TMP/pipe.perf" 2>/dev/null
	"$OCREC" script -i - -F tid,period,ip <"$TMP/pipe.data" >"$TMP/pipe.ocrec"
	check_files_eq "pipe mode from standard input: equals perf script (tid, period, ip)" "$TMP/pipe.perf" "$TMP/pipe.ocrec"
fi
# a field the samples do not carry is refused, as perf does
"$OCREC" script -i "$TMP/plain.data" -F ip,cpu >/dev/null 2>"$TMP/err"
check_eq "a field the samples lack: exit 2" 2 $?
check_match "a field the samples lack: perf's message" "do not have CPU attribute set. Cannot print 'cpu' field" "$(cat "$TMP/err")"
# default fields: one line per sample
check_eq "default fields: one line per sample" "$(perf script -i "$TMP/plain.data" -F ip 2>/dev/null | wc -l)" \
	"$("$OCREC" script -i "$TMP/plain.data" | wc -l)"
