# Conformance with pmu-tools' ocperf.py: every row of tests/data/oracle/ocperf resolved by
# `ocrec resolve -` (one process per file) must print ocperf's string, or differ only as a rule
# of tests/fixtures/events/ocperf-differences.tsv explains; `list-events --desc` must print
# ocperf's list. The oracle ran with a simulated sysfs (oracle/ocperf/sysfs/*.txt): the same
# trees are built here, with the format terms the Linux kernel gives those PMUs.
. "$(dirname "$0")/../lib.sh"
need_cmd python3

PERFMON=$(data_dir perfmon)
CPUINFO=$(data_dir cpuinfo)
# oracle FILE: the oracle file FILE of oracle/ocperf, unpacked
oracle() { data_file "oracle/ocperf/$1"; }
FIX=$ROOT/tests/fixtures/events
RULES=$FIX/ocperf-differences.tsv
CHECK="python3 $FIX/check-conformance.py"

# make_sysfs TOPOLOGY DIR: the PMU directories and format files a topology listing names
make_sysfs() {
	awk -v dir="$2" '
	function spec(t) {
		if (t == "event") return "config:0-7"; if (t == "umask") return "config:8-15"
		if (t == "edge") return "config:18"; if (t == "pc") return "config:19"
		if (t == "any") return "config:21"; if (t == "inv") return "config:23"
		if (t == "cmask" || t == "thresh") return "config:24-31"
		if (t == "in_tx") return "config:32"; if (t == "in_tx_cp") return "config:33"
		if (t == "ch_mask") return "config:36-43"; if (t == "fc_mask") return "config:44-46"
		if (t == "offcore_rsp") return "config1:0-63"; if (t == "ldlat") return "config1:0-15"
		if (t == "frontend") return "config1:0-23"
		return "config:0-63"
	}
	{
		sub("^/sys/", "")
		n = split($0, part, "/")
		if (n == 4) {
			type = part[4] == "cpu" || part[4] == "cpu_core" ? 4 : 100 + NR
			system("mkdir -p \"" dir "/" $0 "/format\" && echo " type " > \"" dir "/" $0 "/type\"")
		} else if (n == 6 && part[5] == "format") {
			print spec(part[6]) > (dir "/" $0)
			close(dir "/" $0)
		}
	}' "$1"
}
for t in cpu cpu_core cpu_atom hsw-uncore skx-uncore; do
	make_sysfs "$(oracle "sysfs/topology-$t.txt")" "$TMP/sysfs-$t"
done

# resolve_file LABEL ORACLE-FILE SYSFS CPUINFO [--record]
resolve_file() {
	_label=$1 _file=$2 _sys=$3 _cpuinfo=$4; shift 4
	cut -f1 "$_file" | "$OCREC" --sysfs "$TMP/sysfs-$_sys" --cpuinfo "$CPUINFO/$_cpuinfo" \
		resolve --events "$PERFMON" "$@" - >"$TMP/$_label.out" 2>"$TMP/$_label.err"
	$CHECK "$RULES" "$_file" "$TMP/$_label.out" "$_label"
}

for spec in nhm-ep:cpu:nhm-ep hsw:cpu:hsw skl:cpu:skl skx:cpu:skx spr:cpu:spr \
	    adl-core:cpu_core:adl adl-atom:cpu_atom:adl; do
	tag=${spec%%:*} rest=${spec#*:}
	sys=${rest%%:*} cpu=${rest#*:}
	resolve_file "$tag" "$(oracle "$tag.tsv")" "$sys" "$cpu.cpuinfo"
	resolve_file "$tag.record" "$(oracle "$tag.record.tsv")" "$sys" "$cpu.cpuinfo" --record
	resolve_file "$tag.mods" "$(oracle "$tag.mods.tsv")" "$sys" "$cpu.cpuinfo"
	resolve_file "$tag.mods.record" "$(oracle "$tag.mods.record.tsv")" "$sys" "$cpu.cpuinfo" --record
done
resolve_file hsw.offcore-matrix "$(oracle hsw.offcore-matrix.tsv)" cpu hsw.cpuinfo
resolve_file hsw.uncore "$(oracle hsw.uncore.tsv)" hsw-uncore hsw.cpuinfo
resolve_file skx.uncore "$(oracle skx.uncore.tsv)" skx-uncore skx.cpuinfo

# The oracle's raw encodings (rXXXX[:flags] and the MSR write ocperf makes in old-kernel mode)
# against the perf_event_attr ocrec builds: config, precise_ip, and config1 for the MSR value.
for tag in nhm-ep:nhm-ep hsw:hsw skl:skl skx:skx spr:spr; do
	t=${tag%%:*} cpu=${tag#*:}
	raw=$(oracle "$t.raw.tsv")
	cut -f1 "$raw" | "$OCREC" --sysfs "$TMP/sysfs-cpu" --cpuinfo "$CPUINFO/$cpu.cpuinfo" \
		resolve --events "$PERFMON" --attr - >"$TMP/$t.attr" 2>"$TMP/$t.attr.err"
	bad=$(awk -F'\t' '
		NR == FNR { raw[$1] = $2; msr[$1] = $3; next }
		raw[$1] !~ /^r[0-9a-f]/ { next }   # topdown metrics: a kernel alias, no raw code
		{
			split(raw[$1], r, ":"); want = substr(r[1], 2); p = r[2]; gsub(/[^p]/, "", p)
			match($3, /config=0x[0-9a-f]+/); got = substr($3, RSTART + 9, RLENGTH - 9)
			match($3, /precise_ip=[0-9]/); prec = substr($3, RSTART + 11, 1)
			match($3, /config1=0x[0-9a-f]+/); c1 = substr($3, RSTART + 10, RLENGTH - 10)
			n = split(msr[$1], m, " ")
			if (got != want || prec != length(p) || (n == 4 && c1 != m[4])) {
				bad++
				if (bad <= 3) printf "%s: ocperf %s %s, ocrec %s; ", $1, raw[$1], msr[$1], $3
			}
		}
		END { print bad + 0 }' "$raw" "$TMP/$t.attr")
	check_eq "$t: perf_event_attr of every event matches ocperf's raw encoding" 0 "$bad"
done

# ocperf.py list (its own part): file mode for each table, CPU-string mode for Haswell.
list_check() {  # LABEL ORACLE-LIST CPUINFO SYSFS EVENTS
	"$OCREC" --sysfs "$TMP/sysfs-$4" --cpuinfo "$CPUINFO/$3" list-events --desc --events "$5" \
		>"$TMP/$1.full" 2>"$TMP/$1.err"
	sed '1,/^$/d' "$TMP/$1.full" >"$TMP/$1.list"
	$CHECK --list "$RULES" "$2" "$TMP/$1.list" "$1"
}
list_check nhm-ep.list "$(oracle list/nhm-ep.list.txt)" nhm-ep.cpuinfo cpu "$PERFMON/NHM-EP/events/NehalemEP_core.json"
list_check hsw.list "$(oracle list/hsw.list.txt)" hsw.cpuinfo cpu "$PERFMON/HSW/events/haswell_core.json"
list_check skl.list "$(oracle list/skl.list.txt)" skl.cpuinfo cpu "$PERFMON/SKL/events/skylake_core.json"
list_check skx.list "$(oracle list/skx.list.txt)" skx.cpuinfo cpu "$PERFMON/SKX/events/skylakex_core.json"
list_check spr.list "$(oracle list/spr.list.txt)" spr.cpuinfo cpu "$PERFMON/SPR/events/sapphirerapids_core.json"
list_check adl-core.list "$(oracle list/adl-core.list.txt)" adl.cpuinfo cpu "$PERFMON/ADL/events/alderlake_goldencove_core.json"
list_check adl-atom.list "$(oracle list/adl-atom.list.txt)" adl.cpuinfo cpu "$PERFMON/ADL/events/alderlake_gracemont_core.json"
list_check hsw.cpustring-mode.list "$(oracle list/hsw.cpustring-mode.list.txt)" hsw.cpuinfo cpu "$PERFMON"
# on a terminal ocperf word-wraps the descriptions (Python's textwrap)
python3 "$ROOT/tests/helpers/on-tty.py" "$OCREC" --cpuinfo "$CPUINFO/skl.cpuinfo" list-events --desc \
	--events "$PERFMON/SKL/events/skylake_core.json" </dev/null | tr -d '\r' | sed '1,/^$/d' >"$TMP/skl.tty"
$CHECK --list "$RULES" "$(oracle list/skl.list-tty-format.txt)" "$TMP/skl.tty" skl.list-tty-format

# the checker itself: a changed string, or a difference no rule covers, must fail
sed '5s/umask=0x/umask=0x1/' "$TMP/skl.out" >"$TMP/skl.bad"
$CHECK "$RULES" "$(oracle skl.tsv)" "$TMP/skl.bad" self-test >"$TMP/self" 2>&1
check_eq "the checker catches a changed row" 1 "$?"
sed 's/,inv=1//' "$TMP/skl.mods.out" >"$TMP/skl.mods.bad"
$CHECK "$RULES" "$(oracle skl.mods.tsv)" "$TMP/skl.mods.bad" self-test >"$TMP/self" 2>&1
check_eq "a rule does not excuse a different string" 1 "$?"
