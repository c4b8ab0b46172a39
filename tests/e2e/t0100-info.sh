# ocrec info: this machine, named CPUs (--cpu, --cpuinfo, --cpuid), fake sysfs trees, errors.
. "$(dirname "$0")/../lib.sh"
FIX=$ROOT/tests/fixtures/cpu

# jget FILE KEY.PATH...: the values at those paths of a JSON file, space-separated
# (JSON spelling for non-strings: null, true, 16).
jget() {
	python3 - "$@" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
out = []
for path in sys.argv[2:]:
    v = doc
    for k in path.split("."):
        v = v[k]
    out.append(v if isinstance(v, str) else json.dumps(v))
print(" ".join(out))
PY
} 2>/dev/null

# --- this machine -----------------------------------------------------------
check "info runs" "$OCREC" info
out=$("$OCREC" info 2>&1)
check_match "text names the perfmon id" 'perfmon id: +[A-Za-z]+-[0-9]+-[0-9A-F]+-[0-9A-F]+' "$out"
check_match "text tells what record -b uses" 'record -b uses: ' "$out"
"$OCREC" info --json >"$TMP/live.json"
check "--json is valid JSON" python3 -m json.tool "$TMP/live.json"
vendor=$(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
family=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
model=$(sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
stepping=$(sed -n 's/^stepping[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
check_eq "vendor, family, model, stepping as /proc/cpuinfo" "$vendor $family $model $stepping" \
	"$(jget "$TMP/live.json" cpu.vendor cpu.family cpu.model cpu.stepping)"
check_eq "perfmon id as perf writes it" "$(printf '%s-%d-%X-%X' "$vendor" "$family" "$model" "$stepping")" \
	"$(jget "$TMP/live.json" cpu.perfmon_id)"
check_eq "PMUs as in /sys" "$(ls /sys/bus/event_source/devices | LC_ALL=C sort | tr '\n' ' ')" \
	"$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["kernel"]["pmus"]) + " ")' "$TMP/live.json")"
check_eq "perf_event_paranoid as /proc" "$(cat /proc/sys/kernel/perf_event_paranoid)" \
	"$(jget "$TMP/live.json" kernel.perf_event_paranoid)"
# how the software sampler stops threads: what a recording reports using
case $(uname -m) in
x86_64)
	used=$("$OCREC" record -v -b --branch-sampler=software -o "$TMP/bp.data" true 2>&1 |
		sed -n 's/.* stops a window ([0-9]* at \(int3\|debug registers\),.*/\1/p')
	check_match "a recording names its breakpoints" '^(int3|debug registers)$' "$used"
	case $used in int3) want=int3 text='int3 written into the code' ;; *) want=debug-registers text='debug registers' ;; esac
	check_eq "--json: the sampler's breakpoints are the recording's" "$want" \
		"$(jget "$TMP/live.json" kernel.sampler_breakpoints)"
	check_match "text: the sampler's breakpoints are the recording's" "sampler stops at: +$text \\(" "$out"
	check_eq "OCREC_SAMPLER_BREAKPOINTS chooses them" "debug registers (OCREC_SAMPLER_BREAKPOINTS)" \
		"$(OCREC_SAMPLER_BREAKPOINTS=debugreg "$OCREC" info | sed -n 's/^  sampler stops at: *//p')"
	;;
*) skip "sampler breakpoints" "the software branch sampler is x86-64 only" ;;
esac
if [ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/cpu_core ]; then
	skip "no-core-PMU truth" "this machine has a core PMU"
else
	check_eq "no core PMU, no branch stack here: -b uses the software sampler" "null false software-sampler" \
		"$(jget "$TMP/live.json" kernel.core_pmu kernel.branch_stack kernel.branch_recorder)"
fi
# The live CPUID path and a `cpuid -r -1` dump of the same CPU must agree.
if command -v cpuid >/dev/null 2>&1; then
	cpuid -r -1 >"$TMP/live.cpuid"
	"$OCREC" info --json --cpuid "$TMP/live.cpuid" >"$TMP/dump.json"
	check_eq "cpuid -r dump gives the same CPU and LBR as live CPUID" \
		"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["cpu"]["perfmon_id"], d["lbr"])' "$TMP/live.json")" \
		"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["cpu"]["perfmon_id"], d["lbr"])' "$TMP/dump.json")"
	# An AMD family 0x19 CPU whose CPUID hides BRS and LbrExtV2 (this VM) has no branch stack.
	if [ "$vendor" = AuthenticAMD ] && [ "$family" = 25 ] &&
	   ! cpuid -1 -l 0x80000008 -r | grep -Eq 'ebx=0x[89a-f]' &&
	   ! cpuid -1 -l 0x80000022 -r | grep -Eq 'eax=0x0000000[37bf]'; then
		check_eq "LBR from what CPUID shows: none, depth 0" "none 0" "$(jget "$TMP/live.json" lbr.kind lbr.depth)"
	fi
else
	skip "live vs cpuid -r" "cpuid is not installed (make deps)"
fi

# --- named CPUs: fixtures (expected values from the kernel's model switch) -----
# jtable KEY.PATH... < LIST: for each line "FILE rest" of LIST, FILE and the values
# of $TMP/FILE.json at those paths (spaces in values as _); one python3 for all.
jtable() {
	python3 -c '
import json, sys
for line in sys.stdin:
    f = line.split()[0]
    try:
        doc = json.load(open(sys.argv[1] + "/" + f + ".json"))
    except ValueError:
        print(f, "(no JSON)")
        continue
    vals = []
    for path in sys.argv[2:]:
        v = doc
        for k in path.split("."):
            v = v[k]
        vals.append((v if isinstance(v, str) else json.dumps(v)).replace(" ", "_"))
    print(f, " ".join(vals))
' "$TMP" "$@"
}
# compare_table NAME-PREFIX EXPECTED-FILE ACTUAL-FILE: one check per line
compare_table() {
	_i=1
	while read -r _exp; do
		check_eq "$1 ${_exp%% *}" "$_exp" "$(sed -n "${_i}p" "$3")"
		_i=$((_i + 1))
	done <"$2"
}
# file  perfmon-id  kind  depth  name
cat >"$TMP/cpuinfo.expected" <<'EOF_T'
merom.cpuinfo GenuineIntel-6-F-6 legacy 4 Merom
atom-bonnell.cpuinfo GenuineIntel-6-1C-A legacy 8 Bonnell
atom-bonnell-old.cpuinfo GenuineIntel-6-1C-2 none 0 Bonnell
silvermont.cpuinfo GenuineIntel-6-4D-8 legacy 8 Silvermont-D
goldmont.cpuinfo GenuineIntel-6-5C-9 legacy 32 Goldmont
knl.cpuinfo GenuineIntel-6-57-1 legacy 8 Knights_Landing
amd-zen2.cpuinfo AuthenticAMD-23-31-0 none 0 Zen_2
amd-zen3.cpuinfo AuthenticAMD-25-1-1 unknown null Zen_3_(Milan)
amd-zen4.cpuinfo AuthenticAMD-25-11-1 amd-lbr-v2 null Zen_4_(Genoa)
intel-unknown.cpuinfo GenuineIntel-6-FF-0 unknown null unknown
EOF_T
while read -r f _; do
	"$OCREC" info --json --cpuinfo "$FIX/$f" >"$TMP/$f.json" 2>&1
done <"$TMP/cpuinfo.expected"
jtable cpu.perfmon_id lbr.kind lbr.depth cpu.name <"$TMP/cpuinfo.expected" >"$TMP/cpuinfo.actual"
compare_table "--cpuinfo" "$TMP/cpuinfo.expected" "$TMP/cpuinfo.actual"

# CPUID dumps: Arch LBR depth bitmaps, hybrid, AMD BRS and LbrExtV2
cat >"$TMP/cpuid.expected" <<'EOF_T'
spr-arch-lbr.cpuid GenuineIntel-6-8F-8 arch 32 false
adln-arch-lbr-8.cpuid GenuineIntel-6-BE-0 arch 8 false
adl-hybrid.cpuid GenuineIntel-6-97-2 arch 32 true
spr-vm-no-arch-lbr.cpuid GenuineIntel-6-8F-8 none 0 false
skx.cpuid GenuineIntel-6-55-4 legacy 32 false
amd-zen3-brs.cpuid AuthenticAMD-25-1-1 amd-brs 16 false
amd-zen4-lbrv2.cpuid AuthenticAMD-25-11-1 amd-lbr-v2 16 false
amd-epyc-milan-vm.cpuid AuthenticAMD-25-1-1 none 0 false
EOF_T
while read -r f _; do
	"$OCREC" info --json --cpuid "$FIX/$f" >"$TMP/$f.json" 2>&1
done <"$TMP/cpuid.expected"
jtable cpu.perfmon_id lbr.kind lbr.depth cpu.hybrid <"$TMP/cpuid.expected" >"$TMP/cpuid.actual"
compare_table "--cpuid" "$TMP/cpuid.expected" "$TMP/cpuid.actual"

# minimal cpuinfo files of real machines (tests/data/cpuinfo): the perfmon id must
# select the right file of Intel's own mapfile (its Family-model column is a regex).
CPUINFO=$(data_dir cpuinfo) MAPFILE=$(data_file perfmon/mapfile.csv)
cat >"$TMP/real.expected" <<'EOF_T'
skx.cpuinfo GenuineIntel-6-55-4 legacy 32 /SKX/events/skylakex_core.json
clx.cpuinfo GenuineIntel-6-55-7 legacy 32 /CLX/events/cascadelakex_core.json
hsw.cpuinfo GenuineIntel-6-3C-3 legacy 16 /HSW/events/haswell_core.json
nhm-ep.cpuinfo GenuineIntel-6-1A-5 legacy 16 /NHM-EP/events/NehalemEP_core.json
skl.cpuinfo GenuineIntel-6-5E-3 legacy 32 /SKL/events/skylake_core.json
spr.cpuinfo GenuineIntel-6-8F-8 arch null /SPR/events/sapphirerapids_core.json
adl.cpuinfo GenuineIntel-6-97-2 arch null /ADL/events/alderlake_gracemont_core.json
EOF_T
while read -r f _; do
	"$OCREC" info --json --cpuinfo "$CPUINFO/$f" >"$TMP/$f.json" 2>&1
done <"$TMP/real.expected"
jtable cpu.perfmon_id lbr.kind lbr.depth <"$TMP/real.expected" | while read -r f id rest; do
	# as pmu-tools does: the id with its stepping, or without it
	core=$(awk -F, -v id="$id" -v fm="${id%-*}" '($4 == "core" || $4 == "hybridcore") &&
		(id ~ ("^" $1 "$") || fm ~ ("^" $1 "$")) { print $3; exit }' "$MAPFILE")
	echo "$f $id $rest $core"
done >"$TMP/real.actual"
compare_table "real machines' cpuinfo" "$TMP/real.expected" "$TMP/real.actual"
check_match "hybrid core types in text" 'hybrid: +yes, Golden Cove \+ Gracemont \(from CPUID 7 EDX\[15\]\)' \
	"$("$OCREC" info --cpuid "$FIX/adl-hybrid.cpuid")"

# --cpu, and global options before the command name
"$OCREC" info --json --cpu GenuineIntel-6-3c-3 >"$TMP/c.json"
check_eq "--cpu: Haswell depth 16" "legacy 16 GenuineIntel-6-3C-3" \
	"$(jget "$TMP/c.json" lbr.kind lbr.depth cpu.perfmon_id)"
"$OCREC" --cpuinfo "$FIX/merom.cpuinfo" info --json >"$TMP/c.json"
check_eq "global --cpuinfo before the command" GenuineIntel-6-F-6 "$(jget "$TMP/c.json" cpu.perfmon_id)"
"$OCREC" info --json --cpu AuthenticAMD-25-1-1 --cpuid "$FIX/amd-zen3-brs.cpuid" >"$TMP/c.json"
check_eq "--cpu with a matching --cpuid uses CPUID" "amd-brs 16" "$(jget "$TMP/c.json" lbr.kind lbr.depth)"

# --- fake sysfs trees ---------------------------------------------------------
"$OCREC" info --json --sysfs "$FIX/sysfs-skx/sys" >"$TMP/s.json"
check_eq "skx tree: core PMU, caps/branches, paranoid" "cpu 32 true 1 hardware" \
	"$(jget "$TMP/s.json" kernel.core_pmu kernel.caps_branches) $(jget "$TMP/s.json" kernel.branch_stack kernel.perf_event_paranoid kernel.branch_recorder)"
OCREC_SYSFS=$FIX/sysfs-adl/sys "$OCREC" info --json >"$TMP/s.json"
check_eq "\$OCREC_SYSFS hybrid tree" "cpu_core true true" \
	"$(jget "$TMP/s.json" kernel.core_pmu kernel.hybrid kernel.branch_stack)"
"$OCREC" info --json --sysfs "$FIX/sysfs-nopmu/sys" >"$TMP/s.json"
check_eq "VM tree: no core PMU → software sampler; its breakpoints are not the tree's to tell" \
	"null false software-sampler null" \
	"$(jget "$TMP/s.json" kernel.core_pmu kernel.branch_stack kernel.branch_recorder kernel.sampler_breakpoints)"
"$OCREC" info --json --sysfs "$FIX/sysfs-old-kernel/sys" >"$TMP/s.json"
check_eq "tree without caps/branches or proc" "null false null" \
	"$(jget "$TMP/s.json" kernel.caps_branches kernel.branch_stack kernel.perf_event_paranoid)"

# --- bad input: one line, exit 2 ----------------------------------------------
bad() {  # NAME WHAT-THE-LINE-NAMES ARGS...
	_n=$1 _w=$2; shift 2
	"$OCREC" info "$@" >"$TMP/b.out" 2>"$TMP/b.err"; _rc=$?
	check_eq "$_n: exit 2" 2 "$_rc"
	check_eq "$_n: one line" 1 "$(wc -l <"$TMP/b.err")"
	check_match "$_n: names it" "$_w" "$(cat "$TMP/b.err")"
	check_eq "$_n: nothing on stdout" "" "$(cat "$TMP/b.out")"
}
bad "bad --cpu" "'GenuineIntel-6-55'" --cpu GenuineIntel-6-55
bad "bad --cpu hex family" "'GenuineIntel-0x6-55-4'" --cpu GenuineIntel-0x6-55-4
bad "non-x86 --cpuinfo" "arm64.cpuinfo: no 'vendor_id'" --cpuinfo "$FIX/arm64.cpuinfo"
bad "missing --cpuinfo" "/nonexistent" --cpuinfo /nonexistent
bad "bad --cpuid line" "bad-line.cpuid:3:" --cpuid "$FIX/bad-line.cpuid"
bad "--cpuid for another CPU than --cpu" "skx.cpuid describes GenuineIntel-6-55" --cpuid "$FIX/skx.cpuid" --cpu AuthenticAMD-25-1-1
bad "missing --sysfs" "/nonexistent-sys" --sysfs /nonexistent-sys
bad "--cpu with --cpuinfo" "--cpu and --cpuinfo both" --cpu GenuineIntel-6-55-4 --cpuinfo "$FIX/merom.cpuinfo"
bad "stray argument" "unexpected argument 'foo'" foo
"$OCREC" info --bogus >/dev/null 2>&1; check_eq "unknown option exits 2" 2 $?
