# ocrec download: real HTTP against a server this test starts on 127.0.0.1 (200, 304, 404,
# a truncated body, a body that is not JSON), file://, and the cache kept whole on failure.
. "$(dirname "$0")/../lib.sh"
need_cmd python3

FIX=$ROOT/tests/fixtures/events
export XDG_CACHE_HOME=$TMP/cache
CACHE=$XDG_CACHE_HOME/ocrec/events
unset OCREC_EVENTS OCREC_EVENTS_URL https_proxy http_proxy HTTPS_PROXY HTTP_PROXY ALL_PROXY all_proxy
cp -r "$FIX/perfmon" "$TMP/repo"

events_server "$TMP/repo"
DL="$OCREC download --cpu GenuineIntel-6-5E-3 --url $URL"
sum() { tree_sum "$CACHE"; }

out=$($DL 2>&1); rc=$?
check_eq "download exits 0" 0 "$rc"
check_match "download summary" "^3 files for GenuineIntel-6-5E-3: 3 downloaded" "$out"
check_files_eq "mapfile.csv cached" "$FIX/perfmon/mapfile.csv" "$CACHE/mapfile.csv"
check_files_eq "core table cached in the repository layout" "$FIX/perfmon/SKL/events/skylake_core.json" \
	"$CACHE/SKL/events/skylake_core.json"
check "uncore table cached" test -f "$CACHE/SKL/events/skylake_uncore.json"
check "metrics are not fetched" test ! -e "$CACHE/SKL/metrics"
check_match "sidecar keeps the ETag" '^etag "[0-9a-f]{40}"$' "$(grep '^etag' "$CACHE/SKL/events/skylake_core.json.etag")"
check_match "sidecar keeps Last-Modified" '^last-modified [A-Z][a-z][a-z], ' \
	"$(grep '^last-modified' "$CACHE/SKL/events/skylake_core.json.etag")"
left=$(find "$CACHE" -name '*.tmp*'); rc=$?
check_empty "no temporary files left" "$rc" "$left"
check_eq "the cache serves resolve" "cpu/event=0xc4,umask=0x0,name=br_inst_retired_all_branches/" \
	"$($OCREC resolve --cpu GenuineIntel-6-5E-3 BR_INST_RETIRED.ALL_BRANCHES)"
check_eq "no progress line when stderr is not a terminal" "" "$(printf '%s' "$out" | tr -d -c '\r')"

: >"$TMP/log"
out=$($DL 2>&1)
check_match "second download is conditional" "0 downloaded .*3 unchanged" "$out"
check_eq "the server answered 304 three times" 3 "$(grep -c ' 304$' "$TMP/log")"

# a changed file is fetched again
sed -i 's/Test event BR_INST_RETIRED.ALL_BRANCHES\./Changed./' "$TMP/repo/SKL/events/skylake_core.json"
out=$($DL 2>&1)
check_match "a changed file is downloaded" "1 downloaded" "$out"
check_match "the cache has the new file" "Changed\." "$(cat "$CACHE/SKL/events/skylake_core.json")"

# failures leave the cache as it was
before=$(sum)
for fault in "404:HTTP status 404" "truncate:" "garbage:not a perfmon event table"; do
	kind=${fault%%:*} msg=${fault#*:}
	echo "/SKL/events/skylake_core.json $kind" >"$TMP/faults"
	$DL --force >"$TMP/out" 2>"$TMP/err"; rc=$?
	check_eq "$kind: download fails with 2" 2 "$rc"
	check_match "$kind: one error line saying the cache is unchanged" "download failed, cache unchanged: .*skylake_core.json" \
		"$(cat "$TMP/err")"
	[ -n "$msg" ] && check_match "$kind: the reason" "$msg" "$(cat "$TMP/err")"
	check_eq "$kind: cache unchanged" "$before" "$(sum)"
	left=$(find "$CACHE" -name '*.tmp*'); rc=$?
	check_empty "$kind: no temporary files left" "$rc" "$left"
done
echo "/mapfile.csv garbage" >"$TMP/faults"
$DL --force >/dev/null 2>"$TMP/err"
check_match "a mapfile that is not one" "not a perfmon mapfile.csv" "$(cat "$TMP/err")"
check_eq "bad mapfile: cache unchanged" "$before" "$(sum)"
: >"$TMP/faults"

$OCREC download --cpu GenuineIntel-6-1A-5 --url "$URL" >/dev/null 2>"$TMP/err"; rc=$?
check_eq "a CPU the mapfile does not cover fails" 2 "$rc"
check_match "and says so" "has no event table for GenuineIntel-6-1A-5" "$(cat "$TMP/err")"
$OCREC download --url "http://127.0.0.1:1" --cpu GenuineIntel-6-5E-3 >/dev/null 2>"$TMP/err"; rc=$?
check_eq "an unreachable server fails" 2 "$rc"
check_eq "unreachable: cache unchanged" "$before" "$(sum)"

# hybrid: both core files, and OCREC_EVENTS_URL
out=$(OCREC_EVENTS_URL=$URL $OCREC download --cpu GenuineIntel-6-97-2 2>&1)
check_match "OCREC_EVENTS_URL and a hybrid CPU" "^4 files for GenuineIntel-6-97-2" "$out"
check "both core types cached" test -f "$CACHE/ADL/events/alderlake_gracemont_core.json" -a \
	-f "$CACHE/ADL/events/alderlake_goldencove_core.json"

# file:// and --all
rm -rf "$XDG_CACHE_HOME"
out=$($OCREC download --from perfmon --all --url "file://$TMP/repo" 2>&1); rc=$?
check_eq "file:// download" 0 "$rc"
check "--all fetches every CPU's tables" test -f "$CACHE/HSW/events/haswell_matrix.json" -a \
	-f "$CACHE/CLX/events/cascadelakex_core.json"
check_eq "the offcore matrix from the cache" "cpu/event=0xb7,umask=0x1,offcore_rsp=0x10001,name=offcore_response_demand_data_rd_any_response/" \
	"$($OCREC resolve --cpu GenuineIntel-6-3C-3 OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE)"
$OCREC download --all --cpu GenuineIntel-6-5E-3 --url "file://$TMP/repo" >/dev/null 2>&1
check_eq "--cpu with --all is a usage error" 2 "$?"
$OCREC download --url "ftp://127.0.0.1/x" --cpu GenuineIntel-6-5E-3 >/dev/null 2>"$TMP/err"
check_match "only https, http and file" "download failed" "$(cat "$TMP/err")"

python3 "$ROOT/tests/helpers/on-tty.py" $OCREC download --force --cpu GenuineIntel-6-5E-3 --url "$URL" \
	</dev/null >"$TMP/tty" 2>&1
check_match "progress on a terminal" "downloading SKL/events/skylake_core.json" "$(tr '\r' '\n' <"$TMP/tty")"
