# The Linux kernel's pmu-events (AMD Zen 4 and Zen 5, tests/data/pmu-events): every event of both
# tables resolved (with the kernel's formats, and with a sysfs tree), list-events, did-you-mean,
# info; ocrec download --from linux from file://, from a 127.0.0.1 server that answers like GitHub
# (raw files and the contents API: the default code path), and from a plain web server (an HTML
# index); conditional requests, a file removed upstream, and the cache kept whole on failure.
. "$(dirname "$0")/../lib.sh"
need_cmd python3

FIX=$ROOT/tests/fixtures/events
CPUFIX=$ROOT/tests/fixtures/cpu
CHECK=$FIX/check-pmu-events.py
DATA=$(data_dir pmu-events/x86) || { fail "pmu-events data" "tests/data/pmu-events/x86 is missing"; exit 0; }
export XDG_CACHE_HOME=$TMP/cache
CACHE=$XDG_CACHE_HOME/ocrec/linux/x86
unset OCREC_EVENTS OCREC_EVENTS_URL OCREC_LINUX_EVENTS_URL OCREC_GITHUB_RAW_URL OCREC_GITHUB_API_URL \
	https_proxy http_proxy HTTPS_PROXY HTTP_PROXY ALL_PROXY all_proxy
ZEN3=AuthenticAMD-25-1-1 ZEN4=AuthenticAMD-25-11-1 ZEN5=AuthenticAMD-26-2-0
mkdir -p "$TMP/nosys"
NOSYS="--sysfs $TMP/nosys"                  # no PMU at all: the kernel's formats
ZEN4SYS="--sysfs $CPUFIX/sysfs-amd-zen4/sys"  # cpu, amd_l3, amd_df, amd_umc_0 and _1
R="$OCREC $NOSYS resolve --events $DATA"

# --- every event of both tables ----------------------------------------------------------
for t in "amdzen4 $ZEN4" "amdzen5 $ZEN5"; do
	set -- $t
	python3 "$CHECK" names "$DATA/$1" >"$TMP/$1.names"
	n=$(wc -l <"$TMP/$1.names")
	$OCREC $NOSYS resolve --cpu "$2" --events "$DATA" --attr - <"$TMP/$1.names" >"$TMP/$1.out" 2>"$TMP/$1.err"
	check_eq "$1: every event resolves (kernel formats)" "0 $n" "$? $(grep -c . "$TMP/$1.out")"
	check_eq "$1: each to its row's EventCode/UMask, cpu or its Unit's PMU (kernel formats)" \
		"checked $n events" "$(python3 "$CHECK" check "$DATA/$1" "$TMP/$1.out")"
	$OCREC $ZEN4SYS resolve --cpu "$2" --events "$DATA" --attr - <"$TMP/$1.names" >"$TMP/$1.sys" 2>"$TMP/$1.err"
	check_eq "$1: each as the sysfs formats place it, UMC events on both boxes" "checked $n events" \
		"$(python3 "$CHECK" check "$DATA/$1" "$TMP/$1.sys" cpu=4 amd_l3=13 amd_df=12 amd_umc=16,17)"
done
check_match "the tables are not small" "^[0-9]{3}$" "$(wc -l <"$TMP/amdzen5.names")"

# --- names and modifiers -----------------------------------------------------------------------
check_eq "ex_ret_brn:u" "cpu/event=0xc2,umask=0x0,name=ex_ret_brn/u" "$($R --cpu $ZEN4 ex_ret_brn:u)"
check_eq "ex_ret_brn_tkn:u on Zen 5" "cpu/event=0xc4,umask=0x0,name=ex_ret_brn_tkn/u" "$($R --cpu $ZEN5 ex_ret_brn_tkn:u)"
check_match ":p on an AMD core event" "^cpu/event=0xc4,umask=0x0,name=ex_ret_brn_tkn/p	type=4 config=0xc4 .* precise_ip=1 " \
	"$($R --cpu $ZEN4 --attr ex_ret_brn_tkn:p)"
check_match "a code above 0xff goes to config bits 32-35" "^cpu/event=0x1d0,umask=0x0,name=ex_ret_fused_instr/	type=4 config=0x1000000d0 " \
	"$($R --cpu $ZEN4 --attr ex_ret_fused_instr)"
check_eq "case does not matter" "cpu/event=0xc2,umask=0x0,name=ex_ret_brn/" "$($R --cpu $ZEN4 EX_RET_BRN)"
check_eq "the row's UMask" "cpu/event=0x3,umask=0xf,name=fp_ret_sse_avx_ops_all/" "$($R --cpu $ZEN5 fp_ret_sse_avx_ops.all)"
check_eq "the L3 unit's terms, as jevents writes them" \
	"amd_l3/event=0xac,umask=0x1,enallcores=0x1,enallslices=0x1,sliceid=0x3,threadmask=0x3,name=l3_xi_sampled_latency_dram_near/" \
	"$($R --cpu $ZEN5 l3_xi_sampled_latency.dram_near)"
$R --cpu $ZEN5 l3_lookup_state.l3_hit:u >/dev/null 2>"$TMP/err"
check_eq "an uncore event takes no modifiers" "1" "$?"
check_match "and says so" "l3_lookup_state.l3_hit:u: amd_l3 counts for the whole package" "$(cat "$TMP/err")"
$R --cpu $ZEN4 ex_ret_brnn >/dev/null 2>"$TMP/err"
check_match "did you mean, across the kernel's names" "ex_ret_brnn: unknown event; did you mean ex_ret_brn" "$(cat "$TMP/err")"
$R --cpu $ZEN4 branch_misprediction_ratio >/dev/null 2>&1
check_eq "metric rows are not events" 1 "$?"
check_eq "--cpu $ZEN3: its row's amdzen3 is not here, the next row's amdzen4 serves" \
	"cpu/event=0xc2,umask=0x0,name=ex_ret_brn/" "$($R --cpu $ZEN3 ex_ret_brn)"
$OCREC resolve --cpu GenuineIntel-6-55-4 --events "$DATA" ex_ret_brn >/dev/null 2>&1
check_eq "no AMD table for an Intel CPU" 1 "$?"

# --- list-events ---------------------------------------------------------------------------
L="$OCREC $NOSYS list-events --events $DATA --cpu $ZEN5"
$L >"$TMP/list" 2>"$TMP/err"
check_eq "list-events: no warning" "" "$(cat "$TMP/err")"
check_match "list-events: core events with [cpu]" "^  ex_ret_brn +\[cpu\]$" "$(cat "$TMP/list")"
check_match "list-events: the uncore PMU" "^  umc_mem_clk +\[amd_umc\]$" "$(cat "$TMP/list")"
check_eq "list-events: every event once" "$(wc -l <"$TMP/amdzen5.names")" \
	"$(sed '1,/^$/d' "$TMP/list" | grep -c .)"
check_match "list-events --desc: the description" \
	"^  ex_ret_brn_tkn +\[cpu\] \[Retired taken branch instructions \(all types of architectural control flow changes" \
	"$($L --desc ex_ret_brn_tkn)"
$L --json local_or_remote_socket_read_data_beats_dram_0 >"$TMP/list.json"
check_eq "list-events --json: Unit and its PMU, code and umask" "DFPMC amd_df 31 4094" \
	"$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))[0]; print(e["unit"], e["uncore_pmu"], e["event_code"], e["umask"])' "$TMP/list.json")"

# --- download from file:// -------------------------------------------------------------------
AMD4="$OCREC --cpuinfo $CPUFIX/amd-zen4.cpuinfo"
out=$($AMD4 download --url "file://$DATA" 2>&1); rc=$?
check_eq "file://: the default source of an AMD CPU is linux" 0 "$rc"
check_match "file://: the summary names the directory" \
	"^11 files for $ZEN4 \(amdzen4\): 11 downloaded \([0-9]+ kB\), 0 unchanged, in $CACHE$" "$out"
check_files_eq "file://: mapfile.csv cached" "$DATA/mapfile.csv" "$CACHE/mapfile.csv"
check_files_eq "file://: every file of the directory, in the kernel's layout" "$DATA/amdzen4/branch.json" \
	"$CACHE/amdzen4/branch.json"
check_eq "file://: nothing else, and a sidecar each" "$(ls "$DATA/amdzen4" | sed 'p;s/$/.etag/')" "$(ls "$CACHE/amdzen4")"
check_eq "the cache serves resolve" "cpu/event=0xc2,umask=0x0,name=ex_ret_brn/u" "$($AMD4 $NOSYS resolve ex_ret_brn:u)"
check_match "and list-events" "^  ex_ret_brn_tkn +\[cpu\]$" "$($AMD4 $NOSYS list-events ex_ret_brn_tkn)"
$AMD4 info >"$TMP/info"
check_match "info: the download source" "download source: +linux \(the Linux kernel's pmu-events\)" "$(cat "$TMP/info")"
check_match "info: the table that serves the CPU" \
	"from: +$CACHE \(amdzen4, mapfile row AuthenticAMD-25-\[\[:xdigit:\]\]\+\)" "$(cat "$TMP/info")"
check_eq "info --json: events" "linux linux" \
	"$($AMD4 info --json | python3 -c 'import json,sys; e=json.load(sys.stdin)["events"]; print(e["download_source"], e["tables"])')"
out=$($OCREC download --from linux --cpu $ZEN3 --url "file://$DATA" 2>&1)
check_match "--cpu $ZEN3: the absent amdzen3 is said" "has no amdzen3, which mapfile.csv names: the next row for this CPU serves it" "$out"
check_match "--cpu $ZEN3: amdzen4 fetched" "11 files for $ZEN3 \(amdzen4\)" "$out"
check_eq "--cpu $ZEN3 resolves from the cache" "cpu/event=0xc2,umask=0x0,name=ex_ret_brn/u" \
	"$($OCREC $NOSYS resolve --cpu $ZEN3 ex_ret_brn:u)"
out=$($OCREC download --from linux --all --url "file://$DATA" 2>&1)
check_match "--all: both directories" "23 files for all CPUs" "$out"
check_match "--all: the absent ones in one line" "has no alderlake, .* and [0-9]+ more, which mapfile.csv names" "$out"
$OCREC download --cpu GenuineIntel-6-55-4 --url "file://$DATA" >/dev/null 2>"$TMP/err"
check_eq "an Intel CPU's default source is perfmon" 2 "$?"
check_match "which says this tree is the kernel's layout" "names a directory, .*: the Linux kernel's layout \(--from linux\)" \
	"$(cat "$TMP/err")"
$OCREC download --from nonsense --cpu $ZEN4 >/dev/null 2>"$TMP/err"
check_eq "an unknown source is a usage error" "2 ocrec: download: unknown event table source 'nonsense' (perfmon or linux)" \
	"$? $(cat "$TMP/err")"
here=$($OCREC info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["cpu"]["perfmon_id"])')
case $here in
AuthenticAMD-25-*|AuthenticAMD-26-*)   # Zen 3 (served by amdzen4 here), Zen 4, Zen 5
	rm -rf "$XDG_CACHE_HOME"
	$OCREC download --url "file://$DATA" >"$TMP/out" 2>&1
	check_eq "this AMD machine ($here): plain download fetches the kernel's tables" 0 "$?"
	check_eq "this AMD machine: ex_ret_brn:u" "cpu/event=0xc2,umask=0x0,name=ex_ret_brn/u" \
		"$($OCREC $NOSYS resolve ex_ret_brn:u)" ;;
*)
	skip "this machine: plain download and resolve" "$here is not a Zen 3, 4 or 5 (checked above with --cpuinfo)" ;;
esac

# --- a server that answers like GitHub: the default code path ------------------------------------
GH=$TMP/gh/raw/torvalds/linux/master/tools/perf/pmu-events/arch/x86
mkdir -p "$GH" && cp -r "$DATA/mapfile.csv" "$DATA/amdzen4" "$DATA/amdzen5" "$GH/"
events_server "$TMP/gh"
rm -rf "$XDG_CACHE_HOME"
export OCREC_GITHUB_RAW_URL=$URL/raw OCREC_GITHUB_API_URL=$URL/api
DL="$OCREC download --cpu $ZEN5"
out=$($DL 2>&1); rc=$?
check_eq "GitHub: download exits 0" 0 "$rc"
check_match "GitHub: the summary" "^13 files for $ZEN5 \(amdzen5\): 13 downloaded" "$out"
check_eq "GitHub: one contents API request for the CPU" \
	"GET /api/repos/torvalds/linux/contents/tools/perf/pmu-events/arch/x86/amdzen5?ref=master 200" \
	"$(grep ' /api/' "$TMP/log")"
check_eq "GitHub: the files from the raw host" 13 "$(grep -c ' /raw/torvalds/linux/master/tools/perf/pmu-events/arch/x86/.* 200$' "$TMP/log")"
check_eq "GitHub: every listed file cached" "$(ls "$DATA/amdzen5" | sed 'p;s/$/.etag/')" "$(ls "$CACHE/amdzen5")"
check_match "GitHub: sidecars keep the ETag" '^etag "[0-9a-f]{40}"$' "$(grep '^etag' "$CACHE/amdzen5/execution.json.etag")"
check_eq "GitHub: no temporary files" "" "$(find "$CACHE" -name '*.tmp*')"
check_eq "GitHub: no progress line when stderr is not a terminal" "" "$(printf '%s' "$out" | tr -d -c '\r')"

: >"$TMP/log"
out=$($DL 2>&1)
check_match "GitHub: the second download is conditional" "0 downloaded .*13 unchanged" "$out"
check_eq "GitHub: the listing and every file answered 304" 14 "$(grep -c ' 304$' "$TMP/log")"

sed -i 's/Retired taken branch instructions (all types/Changed (all types/' "$GH/amdzen5/execution.json"
out=$($DL 2>&1)
check_match "GitHub: a changed file is fetched again" "1 downloaded" "$out"
check_match "GitHub: the cache has it" "Changed \(all types" "$(cat "$CACHE/amdzen5/execution.json")"
mv "$GH/amdzen5/decode.json" "$TMP/decode.json"
out=$($DL 2>&1)
check_match "GitHub: a file gone upstream is removed" "12 files .*, 1 removed," "$out"
check "GitHub: and is gone from the cache" test ! -e "$CACHE/amdzen5/decode.json" -a ! -e "$CACHE/amdzen5/decode.json.etag"
mv "$TMP/decode.json" "$GH/amdzen5/decode.json"
$DL >/dev/null 2>&1

API=/api/repos/torvalds/linux/contents/tools/perf/pmu-events/arch/x86/amdzen5
RAW=/raw/torvalds/linux/master/tools/perf/pmu-events/arch/x86
before=$(tree_sum "$CACHE")
for fault in "$RAW/amdzen5/branch-prediction.json 404:HTTP status 404" \
	"$RAW/amdzen5/branch-prediction.json truncate:branch-prediction.json" \
	"$RAW/amdzen5/branch-prediction.json garbage:not a pmu-events event table" \
	"$API ratelimit:GitHub's limit of 60 API requests an hour without a token is used up until [0-9][0-9]:[0-9][0-9] UTC" \
	"$API garbage:no .json file listed \(expected GitHub's contents API answer" \
	"$API 404:has none of the directories mapfile.csv names for $ZEN5 \(amdzen5\)" \
	"$RAW/mapfile.csv garbage:not a pmu-events mapfile.csv"; do
	path=${fault%% *} rest=${fault#* } kind=${rest%%:*} msg=${rest#*:}
	echo "$path $kind" >"$TMP/faults"
	$DL --force >"$TMP/out" 2>"$TMP/err"; rc=$?
	what="${path##*/} $kind"
	check_eq "$what: download fails with 2" 2 "$rc"
	check_match "$what: one error line, the cache unchanged" "^ocrec: download failed, cache unchanged: .*$msg" \
		"$(grep -v '^ocrec: warning' "$TMP/err")"
	check_eq "$what: one line" 1 "$(grep -vc '^ocrec: warning' "$TMP/err")"
	check_eq "$what: the cache is as it was" "$before" "$(tree_sum "$CACHE")"
	check_eq "$what: no temporary files" "" "$(find "$CACHE" -name '*.tmp*')"
done
: >"$TMP/faults"

# shellcheck disable=SC2086
python3 "$ROOT/tests/helpers/on-tty.py" $DL --force </dev/null >"$TMP/tty" 2>&1
check_match "progress on a terminal" "downloading amdzen5/execution.json" "$(tr '\r' '\n' <"$TMP/tty")"

# --- a plain web server: BASE/DIR/ is an HTML index ------------------------------------------
unset OCREC_GITHUB_RAW_URL OCREC_GITHUB_API_URL
rm -rf "$XDG_CACHE_HOME"
: >"$TMP/log"
out=$($OCREC download --from linux --cpu $ZEN4 --url "$URL$RAW" 2>&1); rc=$?
check_eq "HTML index: download exits 0" 0 "$rc"
check_match "HTML index: every file" "^11 files for $ZEN4 \(amdzen4\): 11 downloaded" "$out"
check_eq "HTML index: the directory listed by BASE/DIR/" "GET $RAW/amdzen4/ 200" "$(grep '/amdzen4/ ' "$TMP/log")"
check_eq "HTML index: resolve" "cpu/event=0xc4,umask=0x0,name=ex_ret_brn_tkn/" "$($OCREC $NOSYS resolve --cpu $ZEN4 ex_ret_brn_tkn)"
OCREC_LINUX_EVENTS_URL=$URL$RAW $OCREC download --from linux --cpu $ZEN4 >"$TMP/out" 2>&1
check_match "OCREC_LINUX_EVENTS_URL" "0 downloaded .*11 unchanged" "$(cat "$TMP/out")"
