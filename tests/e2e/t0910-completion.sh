# contrib/ocrec.bash: bash completes commands, each command's options, option values and
# event names (from the download cache through `ocrec list-events`), asking the ocrec being
# completed every time (a changed --help changes the completion).
. "$(dirname "$0")/../lib.sh"
need_cmd bash

# comp WORD... : what bash completes for the last WORD of `ocrec WORD...`, one per line.
# COMP_WORDS[0] is the ocrec under test, as when the user types its path.
comp() {
	OCREC_UNDER_TEST=$OCREC bash -c '
		. "$1"; shift
		complete -p ocrec >/dev/null || { echo "not registered"; exit 1; }
		COMP_WORDS=("$OCREC_UNDER_TEST" "$@")
		COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
		COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
		fn=$(complete -p ocrec | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		"$fn" ocrec "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' comp "$ROOT/contrib/ocrec.bash" "$@" | sort
}

check_match "registered with complete -F" "^complete -F [_a-z]+ ocrec$" \
	"$(bash -c ". '$ROOT/contrib/ocrec.bash'; complete -p ocrec")"

# Commands: exactly those of the command table in src/cli/ocrec.c.
table=$(sed -n 's/^	{ "\([a-z-]*\)", *cmd_.*/\1/p' "$ROOT/src/cli/ocrec.c" | sort)
check_match "the command table was read" "^autofdo" "$table"
check_eq "first word: every command of the table" "$table" "$(comp '')"
check_eq "first word: prefix" "record
report
resolve" "$(comp re)"
check_eq "help COMMAND" "list-events" "$(comp help li)"

# Options: every long option of each command's --help is offered after "--".
for cmd in record report script list-events resolve download info stat autofdo bolt perf; do
	want=$($OCREC "$cmd" --help | grep -E '^ {1,8}-' | sed 's/^ *//; s/  .*$//' |
		grep -oE -- '--[a-z][-a-z0-9]*' | sort -u)
	got=$(comp "$cmd" --)
	missing=$(printf '%s\n' "$want" | while read -r o; do
		printf '%s\n' "$got" | grep -qx -- "$o" || printf '%s ' "$o"; done)
	if [ -n "$want" ] && [ -z "$missing" ]; then pass "$cmd: all --help options complete"
	else fail "$cmd: all --help options complete" "missing: $missing (got: $(echo $got))"; fi
done
check_eq "record --branch-" "--branch-any
--branch-filter
--branch-sampler" "$(comp record --branch-)"
check_eq "short options too" "-a
-e
-o
-p
-r
-v
-x" "$(comp stat - | grep -E '^-[a-z]$')"
check_match "default command: record's options before any command" "^--branch-any$" "$(comp --branch-a)"
check_match "global options before the command" "^--cpuinfo$" "$(comp --cpui)"

# The options come from the binary at completion time: a newer --help is followed.
cat >"$TMP/ocrec-new" <<EOF
#!/bin/sh
if [ "\$1" = report ] && [ "\$2" = --help ]; then
	"$OCREC" report --help; echo "      --brand-new-view     a view added later"; exit 0
fi
exec "$OCREC" "\$@"
EOF
chmod +x "$TMP/ocrec-new"
check_eq "a new --help option completes without changing the script" "--brand-new-view" \
	"$(OCREC=$TMP/ocrec-new comp report --brand)"

# Option values.
check_eq "--format values" "gcc
llvm
llvm-ext" "$(comp autofdo --format '')"
check_eq "--branch-sampler=VALUE" "--branch-sampler=software" "$(comp record --branch-sampler=s)"
check_eq "-j: last element of a comma list" "any,ind_call
any,ind_jmp" "$(comp record -b -j any,ind)"
mkdir "$TMP/d" && : >"$TMP/d/prof.data" && : >"$TMP/d/other"
check_eq "-o completes files" "$TMP/d/prof.data" "$(comp record -o "$TMP/d/pr")"
check_eq "-i completes files" "$TMP/d/prof.data" "$(comp report -i "$TMP/d/p")"
check_eq "bolt --binary completes files" "$TMP/d/prof.data" "$(comp bolt --binary "$TMP/d/pr")"

# The program of record/stat and its arguments are not ocrec's.
check_eq "after PROG, its own options are not record's" "" "$(comp record -b -o x.data ls --al)"
check_eq "after PROG (default command), files" "$TMP/d/prof.data" "$(comp -e task-clock ls "$TMP/d/pr")"
check_match "PROG: commands on PATH" "^true$" "$(comp stat -e task-clock tru)"
check_match "before PROG, still record's options" "^--all-cpus$" "$(comp record -e task-clock --al)"

# Event names: perf's generic ones, in comma lists, and after perf's -e in `ocrec perf`.
check_eq "-e generic events" "cpu-clock
cpu-cycles" "$(comp record -e cpu-c)"
check_eq "-e on the default command" "task-clock" "$(comp -e task-c)"
check_eq "-e comma list" "task-clock,cpu-clock
task-clock,cpu-cycles
task-clock,cpu-migrations" "$(comp record -e task-clock,cpu)"
check_eq "ocrec perf stat -e" "task-clock" "$(comp perf stat -e task-c)"
check_eq "stat --event=" "--event=page-faults" "$(comp stat --event=page-f)"

# Table events from the download cache (the test's own cache, filled from the fixtures),
# for the CPU named by --cpu or --cpuinfo on the command line.
printf 'vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 94\nstepping\t: 3\n' >"$TMP/skl.cpuinfo"
export XDG_CACHE_HOME=$TMP/cache
$OCREC download --quiet --cpu GenuineIntel-6-5E-3 --url "file://$ROOT/tests/fixtures/events/perfmon" >"$TMP/dl" 2>&1
check_eq "fixture tables downloaded into the test cache" 0 "$?"
check_eq "table events from the cache, for --cpu on the line" "br_inst_retired.all_branches
br_inst_retired.all_branches_pebs" "$(comp resolve --cpu GenuineIntel-6-5E-3 br_inst_retired.a)"
check_eq "upper-case prefix gets the tables' spelling" "BR_MISP_RETIRED.ALL_BRANCHES
BR_MISP_RETIRED.ALL_BRANCHES_PEBS" "$(comp record --cpuinfo "$TMP/skl.cpuinfo" -e BR_MISP)"
rm -rf "$XDG_CACHE_HOME/ocrec"
check_eq "without the cache only the built-in architectural event is left" "br_inst_retired.all_branches" \
	"$(comp resolve --cpu GenuineIntel-6-5E-3 br_inst_retired.a)"
# the kernel's tables (AMD), from their own cache
check_eq "download --from: the sources" "linux" "$(comp download --from l)"
$OCREC download --quiet --cpu AuthenticAMD-25-11-1 --url "file://$(data_dir pmu-events/x86)" >"$TMP/dl" 2>&1
check_eq "the kernel's Zen 4 tables downloaded into the test cache" 0 "$?"
check_eq "AMD events from the linux cache" "ex_ret_brn_tkn
ex_ret_brn_tkn_misp" "$(comp resolve --cpu AuthenticAMD-25-11-1 ex_ret_brn_t)"
