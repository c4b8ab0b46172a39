#!/bin/sh
# Source-line keys against perf: on the real Haswell LBR file whose binary has
# DWARF 5 (tests/data/lbr), every (srcline_from, srcline_to) row perf 6.1 prints
# for the profiled program's own source file is printed by ocrec with the same
# percentage. (perf resolves the other objects against this host's libraries
# and prints "(null)" for some targets; those rows are not comparable.)
. "$(dirname "$0")/../lib.sh"
need_cmd perf
D=$(data_dir lbr/autofdo-hierarchical_discriminator)
DATA=$(data_file lbr/autofdo-hierarchical_discriminator/derived-attr128/hierarchical_discriminator_test.x86_64.attr128.perf.data)
SRC=hierarchical_discriminator_test.c
rows() { grep -E '^ +[0-9.]+%' | sed -E 's/ +$//; s/  +/|/g' | grep -E "\|$SRC:[0-9]+\|$SRC:[0-9]+$" | sort; }
set -- -i "$DATA" --symfs "$D/symfs" --stdio -F overhead,srcline_from,srcline_to
timeout 300 perf report "$@" 2>/dev/null | rows >"$TMP/perf"
"$OCREC" report -q "$@" | rows >"$TMP/ocrec"
if [ ! -s "$TMP/perf" ]; then
	skip "srcline" "perf printed no source-line rows for $SRC"
	exit 0
fi
missing=$(comm -23 "$TMP/perf" "$TMP/ocrec")
check_eq "every perf srcline_from,srcline_to row of $SRC ($(wc -l <"$TMP/perf")) is ocrec's too" "" "$missing"
check_match "the hottest: $SRC:27 -> $SRC:28" "^\|62\.16%\|$SRC:27\|$SRC:28$" "$(cat "$TMP/ocrec")"

# --perfscript: llvm-profgen's own input text (no perf.data) gives the same
# symbol view as the binary's functions
PG=$(data_dir lbr/llvm14-profgen-inputs/Inputs)
"$OCREC" report --perfscript "$PG/noprobe.perfscript" --binary "$PG/noprobe.perfbin" --stdio \
	--sort symbol_from,symbol_to >"$TMP/ps" 2>"$TMP/err"
check_eq "--perfscript: exit 0" 0 $?
check_match "--perfscript: foo -> foo is the hottest pair" "^ +[0-9.]+% +\[\.\] foo +\[\.\] foo" \
	"$(grep -m1 -E '^ +[0-9.]+%' "$TMP/ps")"
"$OCREC" report --perfscript "$PG/noprobe.perfscript" --binary "$PG/noprobe.perfbin" --stdio \
	--sort srcline_from,srcline_to >"$TMP/ps" 2>/dev/null
check_match "--perfscript: source lines from the binary's DWARF" "[a-z_]+\.c:[0-9]+ +[a-z_]+\.c:[0-9]+" "$(cat "$TMP/ps")"
