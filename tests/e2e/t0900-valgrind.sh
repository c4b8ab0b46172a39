# No leaks and no memory errors under valgrind, for every command on real input.
. "$(dirname "$0")/../lib.sh"
need_cmd valgrind
if [ "${SANITIZE:-}" = 1 ]; then
	skip "valgrind" "sanitizer build: ASan and valgrind do not mix (LeakSanitizer covers leaks here)"
	exit 0
fi

vg() {  # NAME CMD...: valgrind finds no leak and no error
	_n=$1; shift
	valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 "$@" >"$TMP/vg.out" 2>"$TMP/vg.err"
	_rc=$?
	if [ "$_rc" = 99 ]; then fail "valgrind: $_n" "$(head -n 20 "$TMP/vg.err" | tr '\n' ' ')"; else pass "valgrind: $_n"; fi
}

vg "info" "$OCREC" info
vg "info --json" "$OCREC" info --json
vg "bad option" "$OCREC" info --no-such-option
vg "resolve" "$OCREC" resolve cpu-clock task-clock
vg "unknown event" "$OCREC" resolve NO_SUCH_EVENT.AT_ALL
vg "list-events" "$OCREC" list-events

# the kernel's AMD tables: download (file://, and GitHub's contents API from a local server),
# resolve with sysfs formats and boxes, did-you-mean, list-events, info
export XDG_CACHE_HOME=$TMP/cache
PMU_EVENTS=$(data_dir pmu-events/x86)
vg "download --from linux, file://" "$OCREC" download --from linux --cpu AuthenticAMD-25-1-1 --url "file://$PMU_EVENTS"
mkdir -p "$TMP/gh/raw/o/r/main/x86" && cp -r "$PMU_EVENTS/mapfile.csv" "$PMU_EVENTS/amdzen5" "$TMP/gh/raw/o/r/main/x86/"
events_server "$TMP/gh"
OCREC_GITHUB_RAW_URL=$URL/raw OCREC_GITHUB_API_URL=$URL/api \
	vg "download --from linux, GitHub's contents API" "$OCREC" download --cpu AuthenticAMD-26-2-0 --url "$URL/raw/o/r/main/x86"
vg "resolve AMD events" "$OCREC" --sysfs "$ROOT/tests/fixtures/cpu/sysfs-amd-zen4/sys" resolve --cpu AuthenticAMD-25-11-1 \
	--attr ex_ret_brn:u l3_lookup_state.l3_hit umc_act_cmd.rd ex_ret_brnn
vg "list-events AMD" "$OCREC" list-events --cpu AuthenticAMD-26-2-0 --desc
vg "info AMD" "$OCREC" info --cpu AuthenticAMD-26-2-0

cc -O2 -g -DITERS=3000000 -o "$TMP/div" "$ROOT/tests/progs/div.c"
vg "record" "$OCREC" record -q -e cpu-clock -o "$TMP/perf.data" "$TMP/div"
if [ -s "$TMP/perf.data" ]; then
	vg "script" "$OCREC" script -i "$TMP/perf.data"
	vg "report" "$OCREC" report --stdio -i "$TMP/perf.data"
	vg "report --pprof (sample mode)" "$OCREC" report -i "$TMP/perf.data" --pprof "$TMP/s.pb.gz"
fi
# long enough for windows (emulated where libunicorn is) under valgrind
cc -O2 -g -DITERS=30000000 -o "$TMP/bdiv" "$ROOT/tests/progs/div.c"
vg "record -b (software sampler)" "$OCREC" record -q -b -F 500 -o "$TMP/b.data" "$TMP/bdiv"
if [ -s "$TMP/b.data" ]; then
	vg "report branch mode" "$OCREC" report --stdio -i "$TMP/b.data"
	vg "report --branch-history" "$OCREC" report --stdio --branch-history -i "$TMP/b.data"
	vg "report --source" "$OCREC" report --stdio --source -i "$TMP/b.data"
	vg "report --hot-paths --json" "$OCREC" report --json --hot-paths -i "$TMP/b.data"
	vg "report --pprof (branch mode)" "$OCREC" report -i "$TMP/b.data" --pprof "$TMP/b.pb.gz"
	vg "script -F ip,brstack" "$OCREC" script -F ip,brstack -i "$TMP/b.data"
	head -c 3000 "$TMP/b.data" >"$TMP/cut.data"
	vg "script on a truncated file" "$OCREC" script -i "$TMP/cut.data"
	vg "autofdo llvm" "$OCREC" autofdo -i "$TMP/b.data" --binary "$TMP/bdiv" -o "$TMP/div.prof"
	vg "autofdo gcc" "$OCREC" autofdo -i "$TMP/b.data" --binary "$TMP/bdiv" --format gcc -o "$TMP/div.afdo"
fi
vg "stat" "$OCREC" stat -e task-clock "$TMP/div"
# a real multi-event LBR file (ids, call chains) and a pipe-mode one
vg "script: callgraph+branch file" "$OCREC" script -F ip,brstack \
	-i "$(data_file lbr/quipper-callgraph_and_branch-3.8/perf.data.callgraph_and_branch-3.8)"
vg "report: pipe-mode file" "$OCREC" report --stdio \
	-i "$(data_file lbr/quipper-branch-4.14/derived-pipe/perf.data.branch-4.14.pipe)"
# ocrec bolt: BOLT's model of the binary, the fdata, the pre-aggregated and no_lbr forms
cc -O2 -g -Wl,--emit-relocs -o "$TMP/bolt-main" "$ROOT/tests/progs/bolt-main.c" "$ROOT/tests/progs/bolt-util.c"
vg "record -b for bolt" "$OCREC" record -q -b -F 500 -o "$TMP/bolt.data" "$TMP/bolt-main" 300000
if [ -s "$TMP/bolt.data" ]; then
	vg "bolt" "$OCREC" bolt -i "$TMP/bolt.data" --binary "$TMP/bolt-main" -o "$TMP/bolt.fdata"
	vg "bolt --pre-aggregated" "$OCREC" bolt -i "$TMP/bolt.data" --binary "$TMP/bolt-main" --pre-aggregated -o "$TMP/bolt.pa"
fi
if [ -s "$TMP/perf.data" ]; then
	vg "bolt: no_lbr" "$OCREC" bolt -i "$TMP/perf.data" --binary "$TMP/div" -o "$TMP/div.fdata"
fi
vg "bolt: a missing binary" "$OCREC" bolt -i "$TMP/perf.data" --binary "$TMP/missing"
