#!/bin/sh
# Hostile and huge inputs (docs/fuzzing.md, "Limits on hostile input"): a
# perf.data whose header claims terabytes, a 1 GB event table, /dev/zero and
# /dev/urandom as every kind of input, a call chain of 65,535 entries, a perf
# script line of 10 MB. Each ends with one error line naming the file (exit 2)
# or a correct result, in bounded memory: the peak RSS is checked with
# /usr/bin/time, and under SANITIZE=1 with ASan's hard_rss_limit_mb. The
# timeout is only a guard against a hang.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
SYNTH=$BUILD/tests/helpers/pd-synth
MAX_MB=256            # plain build: every case here stays far below
SAN_MAX_MB=1024       # ASan's own quarantine and shadow come on top

if [ "${SANITIZE:-}" = 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:hard_rss_limit_mb=$SAN_MAX_MB"
	TIME=
else
	TIME=/usr/bin/time
	[ -x "$TIME" ] || { skip "$(basename "$0" .sh)" "/usr/bin/time is not installed (make deps)"; exit 0; }
fi

# run CMD... with the hang guard and the memory check; status in $rc, stderr in $TMP/err
bounded_run() {
	if [ -n "$TIME" ]; then
		timeout 300 "$TIME" -f '%M' -o "$TMP/rss" "$@" >"$TMP/out" 2>"$TMP/err" <"${STDIN:-/dev/null}"
	else
		echo 0 >"$TMP/rss"
		timeout 300 "$@" >"$TMP/out" 2>"$TMP/err" <"${STDIN:-/dev/null}"
	fi
	rc=$?
	rss_kb=$(grep -E '^[0-9]+$' "$TMP/rss" 2>/dev/null | tail -n 1)
	rss_mb=$(( ${rss_kb:-0} / 1024 ))
}

memory_ok() {
	[ "$rss_mb" -le "$MAX_MB" ] && ! grep -q 'hard rss limit' "$TMP/err"
}

# refused NAME REGEX CMD...: exit 2 (resolve: 1, as ocrec-resolve(1) says), one error
# line (warnings aside) matching REGEX, memory bounded
refused() {
	_n=$1 _re=$2 _want=2
	shift 2
	[ "$2" = resolve ] && _want=1
	bounded_run "$@"
	_errs=$(grep -v '^ocrec: warning:' "$TMP/err")
	if [ "$rc" = "$_want" ] && [ "$(printf '%s\n' "$_errs" | grep -c .)" = 1 ] &&
	   printf '%s\n' "$_errs" | grep -Eq -- "$_re" && memory_ok; then
		pass "$_n"
	else
		fail "$_n" "exit $rc, peak ${rss_mb} MB, stderr: $(head -c 400 "$TMP/err" | tr '\n' ' ')"
	fi
}

# works NAME CMD...: exit 0, memory bounded
works() {
	_n=$1
	shift
	bounded_run "$@"
	if [ "$rc" = 0 ] && memory_ok; then
		pass "$_n"
	else
		fail "$_n" "exit $rc, peak ${rss_mb} MB, stderr: $(head -c 400 "$TMP/err" | tr '\n' ' ')"
	fi
}

# --- perf.data headers that claim terabytes ------------------------------
cc -O2 -g -o "$TMP/prog" "$ROOT/tests/progs/loop.c" || { fail "setup" "cannot compile loop.c"; exit 0; }
"$SYNTH" -o "$TMP/good.data" <<EOF || { fail "setup" "pd-synth"; exit 0; }
event cycles:u fields=ip,tid,time,period,callchain,branch
comm 42 42 prog exec
mmap2 42 0x400000 0x100000 0 $TMP/prog
sample 42 42 0x401000 br 0x401010/0x401020/P/3 cc 0x401000 0x401100
sample 42 42 0x401004 br 0x401000/0x401004/M/2 cc 0x401004 0x401100
EOF
check "the valid file reads" "$OCREC" script -i "$TMP/good.data"

python3 - "$TMP" <<'PY' || fail "setup" "python could not write the hostile files"
import struct, sys
tmp = sys.argv[1]
good = bytearray(open(tmp + "/good.data", "rb").read())
_, hsize, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<8sQQQQQQ", good, 0)
TB = 1 << 40
def write(name, b, size=None):
    with open("%s/%s.data" % (tmp, name), "wb") as f:
        f.write(b)
        if size:
            f.truncate(size)   # sparse: the file really is that big, of zeros
def put(b, at, fmt, *v):
    b = bytearray(b); struct.pack_into(fmt, b, at, *v); return b
# a header that says its data section is 1 TB, in a small file
write("data-claims-tb", put(good, 48, "<Q", TB))
# and a sparse file of a terabyte that has it
write("sparse-data-tb", put(good, 48, "<Q", TB), d_off + TB + 4096)
# an attr section of 1 TB, in the zeros past the file's end: 8 billion attributes
write("sparse-attrs-tb", put(put(good, 24, "<Q", len(good)), 32, "<Q", TB), len(good) + TB + 4096)
# the first attr's ids section: 1 TB of ids
ids_at = a_off + attr_size - 16
write("sparse-ids-tb", put(put(good, ids_at, "<Q", len(good)), ids_at + 8, "<Q", TB), len(good) + TB)
# the first feature section: 1 TB
f_at = d_off + d_size
write("sparse-feature-tb", put(put(good, f_at, "<Q", len(good)), f_at + 8, "<Q", TB), len(good) + TB)

# a sample whose call chain count says 65,535 (a record holds at most 65,535 bytes)
off = d_off
while off < d_off + d_size:
    typ, misc, size = struct.unpack_from("<IHH", good, off)
    if typ == 9:
        break
    off += size
sample = off
# sample_type IP|TID|TIME|PERIOD|CALLCHAIN|BRANCH_STACK: 4 u64 before the chain's nr
nr_at = sample + 8 + 4 * 8
write("callchain-claims-65535", put(good, nr_at, "<Q", 65535))

# the longest call chain a record can hold: the sample grows, what follows moves
typ, misc, size = struct.unpack_from("<IHH", good, sample)
old_nr = struct.unpack_from("<Q", good, nr_at)[0]
extra = (65528 - size) // 8
new = bytearray(good[sample:nr_at]) + struct.pack("<Q", old_nr + extra) + \
      good[nr_at + 8:nr_at + 8 + 8 * old_nr] + struct.pack("<Q", 0x401100) * extra + \
      good[nr_at + 8 + 8 * old_nr:sample + size]
struct.pack_into("<H", new, 6, len(new))
grown = good[:sample] + new + good[sample + size:]
delta = len(new) - size
struct.pack_into("<Q", grown, 48, d_size + delta)
nfeat = sum(bin(b).count("1") for b in good[72:104])
for i in range(nfeat):
    at = d_off + d_size + delta + 16 * i
    o = struct.unpack_from("<Q", grown, at)[0]
    struct.pack_into("<Q", grown, at, o + delta)
write("callchain-longest", grown)
open(tmp + "/callchain-longest.nr", "w").write(str(old_nr + extra))
PY

refused "a header claiming a 1 TB data section" "data-claims-tb.data: truncated file: data section" \
	"$OCREC" script -i "$TMP/data-claims-tb.data"
refused "a 1 TB sparse data section ends at its first zero record" "sparse-data-tb.data: .*corrupt data at offset" \
	"$OCREC" script -i "$TMP/sparse-data-tb.data"
refused "a 1 TB attr section: report" "sparse-attrs-tb.data: attr section .* more than 65536" \
	"$OCREC" report -i "$TMP/sparse-attrs-tb.data" --stdio
refused "a 1 TB attr section: script" "sparse-attrs-tb.data: attr section .* more than 65536" \
	"$OCREC" script -i "$TMP/sparse-attrs-tb.data"
refused "a 1 TB ids section" "sparse-ids-tb.data: attr ids sections hold more than 4194304 ids" \
	"$OCREC" script -i "$TMP/sparse-ids-tb.data"
refused "a 1 TB feature section" "sparse-feature-tb.data: feature section [0-9]+ of 1099511627776 bytes: larger than the 64 MiB" \
	"$OCREC" report -i "$TMP/sparse-feature-tb.data" --stdio
refused "a 1 TB feature section: autofdo" "sparse-feature-tb.data: feature section" \
	"$OCREC" autofdo -i "$TMP/sparse-feature-tb.data" --binary "$TMP/prog" -o "$TMP/out.prof"
check "autofdo wrote nothing for it" test ! -e "$TMP/out.prof"

# --- call chains of 65,535 entries --------------------------------------
refused "a call chain count of 65,535 in a small record" "CALLCHAIN count 65535 does not fit" \
	"$OCREC" script -i "$TMP/callchain-claims-65535.data"
nr=$(cat "$TMP/callchain-longest.nr")
works "the longest call chain a record holds ($nr entries): script --max-stack 65535" \
	"$OCREC" script --max-stack 65535 -i "$TMP/callchain-longest.data"
cp "$TMP/out" "$TMP/script-all.txt"
# perf script prints each call-chain entry on a line of its own, under the sample
check_eq "script prints every entry of it" "$((nr + 2 * 2))" "$(grep -c . "$TMP/script-all.txt")"
works "the longest call chain: report --branch-history" \
	"$OCREC" report -i "$TMP/callchain-longest.data" --branch-history --stdio
if command -v perf >/dev/null 2>&1; then
	perf script --max-stack 65535 -i "$TMP/callchain-longest.data" >"$TMP/perf-all.txt" 2>/dev/null
	check_files_eq "perf script prints the same" "$TMP/perf-all.txt" "$TMP/script-all.txt"
fi
# perf script text: a hybrid sample's call stack of 65,535 address lines, then its branches
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(int(sys.argv[2])):
        f.write("  %x\n" % (0x401000 + i % 256))
    f.write(" 0x401010/0x401020/P/-/-/3  0x401000/0x401004/M/-/-/2\n")
' "$TMP/stack-65535.txt" 65535
works "a perf script call stack of 65,535 lines: report --perfscript" \
	"$OCREC" report --perfscript "$TMP/stack-65535.txt" --binary "$TMP/prog" --stdio
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(70000):
        f.write("  %x\n" % 0x401000)
' "$TMP/stack-endless.txt"
refused "more call-stack lines than the kernel can record" "stack-endless.txt:65537: a call stack of more than 65536 addresses" \
	"$OCREC" report --perfscript "$TMP/stack-endless.txt" --stdio

# --- a perf script line of 10 MB ---------------------------------------
python3 -c '
import sys
e = " 0x401010/0x401020/P/-/-/3"
with open(sys.argv[1], "w") as f:
    f.write(" 0x401000/0x401004/M/-/-/2\n")
    f.write(e * (10 * 1024 * 1024 // len(e) + 1) + "\n")
' "$TMP/long-line.txt"
refused "a 10 MB perf script line: report" "long-line.txt:2: a line longer than 1 MiB" \
	"$OCREC" report --perfscript "$TMP/long-line.txt" --stdio
refused "a 10 MB perf script line: autofdo" "long-line.txt:2: a line longer than 1 MiB" \
	"$OCREC" autofdo --perfscript "$TMP/long-line.txt" --binary "$TMP/prog" -o "$TMP/out.prof"

# --- a 1 GB event table ---------------------------------------------------
python3 -c 'import sys; f = open(sys.argv[1], "wb"); f.truncate(1 << 30)' "$TMP/table-1g.json"
refused "a 1 GB event table: resolve" "table-1g.json: larger than 32 MiB, the most ocrec reads of an event table" \
	"$OCREC" resolve --cpu GenuineIntel-6-5E-3 --events "$TMP/table-1g.json" br_inst_retired.all_branches
refused "a 1 GB event table: list-events" "table-1g.json: larger than 32 MiB" \
	"$OCREC" list-events --cpu GenuineIntel-6-5E-3 --events "$TMP/table-1g.json"
mkdir -p "$TMP/tree"
printf 'Family-model,Version,Filename,EventType,Core Type,Native Model ID,Core Role Name\nGenuineIntel-6-5E,V1,/t.json,core,,,\n' \
	>"$TMP/tree/mapfile.csv"
ln -s "$TMP/table-1g.json" "$TMP/tree/t.json"
refused "a 1 GB table through a mapfile" "t.json: larger than 32 MiB" \
	"$OCREC" resolve --cpu GenuineIntel-6-5E-3 --events "$TMP/tree" br_inst_retired.all_branches
python3 -c 'import sys; f = open(sys.argv[1], "wb"); f.truncate(1 << 30)' "$TMP/mapfile-1g/mapfile.csv" 2>/dev/null ||
	{ mkdir -p "$TMP/mapfile-1g" && python3 -c 'import sys; f = open(sys.argv[1], "wb"); f.truncate(1 << 30)' "$TMP/mapfile-1g/mapfile.csv"; }
refused "a 1 GB mapfile.csv" "mapfile.csv: larger than 1 MiB, the most ocrec reads of a mapfile.csv" \
	"$OCREC" resolve --cpu GenuineIntel-6-5E-3 --events "$TMP/mapfile-1g" br_inst_retired.all_branches
# a pattern glibc's regcomp() would copy 2^60 times (60 stacked '+')
mkdir -p "$TMP/regex"
printf 'Family-model,Version,Filename,EventType\nGenuineIntel-6-%s5E,V1,/t.json,core\n' \
	"$(printf '+%.0s' $(seq 60))" >"$TMP/regex/mapfile.csv"
cp "$ROOT/tests/fixtures/events/perfmon/SKL/events/skylake_core.json" "$TMP/regex/t.json"
refused "a mapfile pattern of 60 stacked repetitions" "regex has no event table for GenuineIntel-6-5E-3" \
	"$OCREC" resolve --cpu GenuineIntel-6-5E-3 --events "$TMP/regex" br_inst_retired.all_branches
check_match "and says why" "is not one ocrec compiles" "$(cat "$TMP/err")"
# a mirror that serves 1 GB: the download stops at the limit, the cache stays as it was
mkdir -p "$TMP/mirror/SKL/events"
printf 'Family-model,Version,Filename,EventType,Core Type,Native Model ID,Core Role Name\nGenuineIntel-6-5E,V1,/SKL/events/skylake_core.json,core,,,\n' \
	>"$TMP/mirror/mapfile.csv"
ln -s "$TMP/table-1g.json" "$TMP/mirror/SKL/events/skylake_core.json"
XDG_CACHE_HOME=$TMP/cache refused "a 1 GB download" "skylake_core.json: larger than 32 MiB, the most ocrec reads of an event file" \
	"$OCREC" download --cpu GenuineIntel-6-5E-3 --url "file://$TMP/mirror"
check "the cache has nothing of it" test ! -e "$TMP/cache/ocrec/events/mapfile.csv"
# a mirror's mapfile row that climbs out of the cache
printf 'Family-model,Version,Filename,EventType,Core Type,Native Model ID,Core Role Name\nGenuineIntel-6-5E,V1,/../../outside.json,core,,,\nGenuineIntel-6-5E,V1,/SKL/events/real.json,core,,,\n' \
	>"$TMP/mirror/mapfile.csv"
cp "$ROOT/tests/fixtures/events/perfmon/SKL/events/skylake_core.json" "$TMP/mirror/SKL/events/real.json"
cp "$ROOT/tests/fixtures/events/perfmon/SKL/events/skylake_core.json" "$TMP/outside.json"
XDG_CACHE_HOME=$TMP/cache2 works "a mapfile row naming ../ downloads the rest" \
	"$OCREC" download --cpu GenuineIntel-6-5E-3 --url "file://$TMP/mirror"
check_match "and says it ignored the row" "outside its directory: ignored" "$(cat "$TMP/err")"
check "nothing was written outside the cache" test ! -e "$TMP/cache2/outside.json"
# a local tree's row whose ".." hides behind a carriage return, which the
# fields' trimming removes: the row is ignored, the file beside the tree unread
mkdir -p "$TMP/crtree/SKL/events"
printf 'Family-model,Version,Filename,EventType\nGenuineIntel-6-5E,V1,\r../outside.json\r,core\n' >"$TMP/crtree/mapfile.csv"
printf '[{"EventName":"OUTSIDE.EVENT","EventCode":"0x3C","UMask":"0x00","Counter":"0,1,2,3"}]\n' >"$TMP/outside.json"
refused "a mapfile row naming ../ behind a carriage return is not followed" "outside.event" \
	"$OCREC" resolve --cpu GenuineIntel-6-5E-3 --events "$TMP/crtree/mapfile.csv" outside.event
check_match "and says it ignored the row" "outside its directory: ignored" "$(cat "$TMP/err")"

# a kernel pmu-events mirror whose CPU directory lists 5,000 files
mkdir -p "$TMP/linux/amdzen9"
printf 'Family-model,Version,Filename,EventType\nAuthenticAMD-26-[[:xdigit:]]+,v1,amdzen9,core\n' >"$TMP/linux/mapfile.csv"
(cd "$TMP/linux/amdzen9" && seq 5000 | sed 's/$/.json/' | xargs touch)
XDG_CACHE_HOME=$TMP/cache3 refused "a listing of 5,000 event files" "amdzen9: 4096 or more event files listed" \
	"$OCREC" download --from linux --cpu AuthenticAMD-26-1-0 --url "file://$TMP/linux"

# --- /dev/zero and /dev/urandom as every input ---------------------------
for dev in /dev/zero /dev/urandom; do
	refused "$dev as --cpuinfo" "$dev: larger than 16 MiB, the most ocrec reads of a /proc/cpuinfo copy" \
		"$OCREC" --cpuinfo "$dev" info
	refused "$dev as --cpuid" "$dev: larger than 16 MiB, the most ocrec reads of a CPUID dump" \
		"$OCREC" --cpuid "$dev" info
	refused "$dev as --events" "$dev: (larger than 32 MiB|not a valid JSON event table)" \
		"$OCREC" resolve --cpu GenuineIntel-6-5E-3 --events "$dev" br_inst_retired.all_branches
	refused "$dev as a perf.data: script" "$dev: not a perf.data file \(bad magic\)" \
		"$OCREC" script -i "$dev"
	refused "$dev as a perf.data: report" "$dev: not a perf.data file \(bad magic\)" \
		"$OCREC" report -i "$dev" --stdio
	refused "$dev as a perf.data: autofdo" "$dev: not a perf.data file \(bad magic\)" \
		"$OCREC" autofdo -i "$dev" --binary "$TMP/prog" -o "$TMP/out.prof"
	refused "$dev as autofdo's binary" "$dev: not a regular file" \
		"$OCREC" autofdo -i "$TMP/good.data" --binary "$dev" -o "$TMP/out.prof"
	refused "$dev as a perf.data: bolt" "$dev: not a perf.data file \(bad magic\)" \
		"$OCREC" bolt -i "$dev" --binary "$TMP/prog" -o "$TMP/out.fdata"
	refused "$dev as bolt's binary" "$dev: not a regular file" \
		"$OCREC" bolt -i "$TMP/good.data" --binary "$dev" -o "$TMP/out.fdata"
	refused "$dev as bolt's --debug-file" "$dev: not a regular file" \
		"$OCREC" bolt -i "$TMP/good.data" --binary "$TMP/prog" --debug-file "$dev" -o "$TMP/out.fdata"
	works "$dev as --kallsyms: no kernel symbols, the rest is reported" \
		"$OCREC" report -i "$TMP/good.data" --kallsyms "$dev" --stdio
done
refused "/dev/zero as perf script text: report" "/dev/zero:1: a line longer than 1 MiB" \
	"$OCREC" report --perfscript /dev/zero --stdio
refused "/dev/zero as perf script text: autofdo" "/dev/zero:1: a line longer than 1 MiB" \
	"$OCREC" autofdo --perfscript /dev/zero --binary "$TMP/prog" -o "$TMP/out.prof"
STDIN=/dev/zero refused "/dev/zero as names for resolve -" "<stdin>:1: an event name longer than 64 KiB" \
	"$OCREC" resolve -
check "no profile was left behind" test ! -e "$TMP/out.prof"

# a perf.data that maps a FIFO and /dev/zero: symbolized as unknown, never waited on
mkfifo "$TMP/fifo"
"$SYNTH" -o "$TMP/fifo.data" <<EOF
event cycles:u fields=ip,tid,time,period,branch
comm 42 42 prog exec
mmap2 42 0x400000 0x1000 0 $TMP/fifo
mmap2 42 0x500000 0x1000 0 /dev/zero
sample 42 42 0x400100 br 0x400010/0x500020
EOF
works "a perf.data naming a FIFO and /dev/zero: report" "$OCREC" report -i "$TMP/fifo.data" --stdio
works "a perf.data naming a FIFO and /dev/zero: script" "$OCREC" script -i "$TMP/fifo.data" -F ip,sym,dso
