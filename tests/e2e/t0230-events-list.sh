# ocrec list-events: grouped like `ocperf.py list`, patterns, --desc, --json, and what it says
# when no table covers the CPU.
. "$(dirname "$0")/../lib.sh"

FIX=$ROOT/tests/fixtures/events
P=$FIX/perfmon
L="$OCREC --sysfs $FIX/sysfs-intel list-events --cpu GenuineIntel-6-5E-3 --events $P"

$L >"$TMP/out" 2>"$TMP/err"; rc=$?
check_eq "list exits 0" 0 "$rc"
check_eq "no warning with a table" "" "$(cat "$TMP/err")"
check_match "generic events first" "^Generic events \(perf\):" "$(head -n 1 "$TMP/out")"
check_match "a generic event" "^  cpu-clock +\[Software event\]$" "$(cat "$TMP/out")"
sed '1,/^$/d' "$TMP/out" >"$TMP/table"
check_eq "table events, lower case, sorted, with their PMU" \
"  br_inst_retired.all_branches               [cpu]
  br_inst_retired.all_branches_pebs          [cpu]
  br_misp_retired.all_branches               [cpu]" "$(head -n 3 "$TMP/table")"
check_eq "every table event once" 19 "$(wc -l <"$TMP/table")"
check_eq "core events sorted" "$(grep '\[cpu\]' "$TMP/table" | LC_ALL=C sort)" "$(grep '\[cpu\]' "$TMP/table")"
check_eq "uncore events after the core ones, with their perf PMU" "  unc_arb_trk_occupancy.all                  [uncore_arb]" \
	"$(grep -m1 uncore "$TMP/table")"

$L --desc >"$TMP/desc"
check_match "--desc: ocperf's one-line format, errata appended" \
	"^  br_inst_retired.all_branches               \[cpu\] \[Test event BR_INST_RETIRED.ALL_BRANCHES, made up for ocrec's tests. Errata: SKL091\]$" \
	"$(cat "$TMP/desc")"
check_match "--desc: non-ASCII dropped as ocperf does" "\[Counts L2 lines evicted without being used \(caf test" "$(cat "$TMP/desc")"
check_match "--desc: uncore events without a PMU tag" "^  unc_clock.socket +\[Uncore clock ticks.\]$" "$(cat "$TMP/desc")"

check_eq "substring pattern" "  br_misp_retired.all_branches               [cpu]
  br_misp_retired.all_branches_pebs          [cpu]" "$($L MISP)"
check_eq "glob pattern, any case" "  inst_retired.any                           [cpu]
  inst_retired.prec_dist                     [cpu]" "$($L 'INST_RETIRED.*')"
$L NO_SUCH_THING >"$TMP/out" 2>"$TMP/err"
check_match "a pattern nothing matches says so" "no table event matches 'NO_SUCH_THING'" "$(cat "$TMP/err")"

$L --json >"$TMP/json"
check "--json is JSON (python3 -m json.tool)" python3 -m json.tool "$TMP/json"
check_eq "--json fields" "BR_INST_RETIRED.ALL_BRANCHES cpu 196 0 400009 SKL091 False" \
	"$(python3 -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1])) if x["name"]=="BR_INST_RETIRED.ALL_BRANCHES"][0]; print(e["name"], e["pmu"], e["event_code"], e["umask"], e["sample_after_value"], e["errata"], e["deprecated"])' "$TMP/json")"
check_eq "--json offcore MSR" "422 65537" \
	"$(python3 -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1])) if x["name"].startswith("OFFCORE")][0]; print(e["msr_index"], e["msr_value"])' "$TMP/json")"
check_eq "--json uncore unit and PMU" "iMPH-U uncore_arb" \
	"$(python3 -c 'import json,sys; e=[x for x in json.load(open(sys.argv[1])) if x["name"]=="UNC_ARB_TRK_OCCUPANCY.ALL"][0]; print(e["unit"], e["uncore_pmu"])' "$TMP/json")"
check_eq "--json deprecated" "True" \
	"$(python3 -c 'import json,sys; print([x for x in json.load(open(sys.argv[1])) if x["name"]=="L2_LINES_OUT.USELESS_PREF"][0]["deprecated"])' "$TMP/json")"

# hybrid: one group per core type
$OCREC list-events --cpu GenuineIntel-6-97-2 --events "$P" >"$TMP/hyb"
check_eq "hybrid groups" "cpu_core: cpu_atom: uncore:" "$(grep -E '^[a-z_]+:$' "$TMP/hyb" | tr '\n' ' ' | sed 's/ $//')"
check_match "atom-only event under cpu_atom" "ld_head.any_at_ret +\[cpu_atom\]" "$(sed -n '/^cpu_atom:/,$p' "$TMP/hyb")"

# offline: the built-in table, with the download command
$OCREC list-events --cpu GenuineIntel-6-5E-3 >"$TMP/out" 2>"$TMP/err"
check_match "built-in table says how to get the full one" "run 'ocrec download --cpu GenuineIntel-6-5E-3'" "$(cat "$TMP/err")"
check_match "built-in events listed" "br_inst_retired.all_branches +\[cpu\]" "$(cat "$TMP/out")"
check_eq "only architectural events" 11 "$(sed '1,/^$/d' "$TMP/out" | grep -c .)"
# AMD: libpfm4's events
LIBPFM_FORCE_PMU=amd64_fam19h_zen3 $OCREC list-events --cpu AuthenticAMD-25-1-1 RETIRED_BRANCH >"$TMP/out" 2>"$TMP/err"
check_match "AMD: libpfm4 events" "retired_branch_instructions +\[amd64_fam19h_zen3\]" "$(cat "$TMP/out")"
check_match "AMD: says where the events come from" "its events come from libpfm4" "$(cat "$TMP/err")"

$OCREC list-events a b >/dev/null 2>&1
check_eq "two patterns is a usage error" 2 "$?"
