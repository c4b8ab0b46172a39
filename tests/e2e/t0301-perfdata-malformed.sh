#!/bin/sh
# Bad perf.data input: each truncation or corruption of a valid file gets one
# error line naming the file and the byte offset, exit 2, and no crash or hang.
. "$(dirname "$0")/../lib.sh"
need_cmd python3
need_helper sampler-record
SAMPLER=$BUILD/tests/helpers/sampler-record

printf 'int main(void){volatile long i,s=0;for(i=0;i<200000000;i++)s+=i&3?1:2;return s&1;}\n' >"$TMP/p.c"
cc -O1 -o "$TMP/p" "$TMP/p.c"
if ! "$SAMPLER" -q -F 500 --lbr-depth 8 -o "$TMP/good.data" -- "$TMP/p" >/dev/null 2>"$TMP/err"; then
	fail "a valid file with branch stacks" "$(cat "$TMP/err")"
	exit 0
fi
check "the valid file reads" "$OCREC" script -i "$TMP/good.data" -F ip,brstack

# make the bad files: NAME and the python expression that corrupts the bytes b
python3 - "$TMP" <<'PY'
import struct, sys
tmp = sys.argv[1]
good = open(tmp + "/good.data", "rb").read()
magic, hsize, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<8sQQQQQQ", good, 0)
# the first SAMPLE record and where its branch count sits
# (sample_type IP|TID|TIME|CPU|PERIOD|BRANCH_STACK: 5 u64 before nr)
off = d_off
while off < d_off + d_size:
    typ, misc, size = struct.unpack_from("<IHH", good, off)
    if typ == 9:
        break
    off += size
sample, nr_at = off, off + 8 + 5 * 8
def put(b, at, fmt, *v):
    b = bytearray(b); struct.pack_into(fmt, b, at, *v); return bytes(b)
cases = {
    "empty": b"",
    "short-header": good[:10],
    "bad-magic": b"NOTPERF!" + good[8:],
    "byteswapped": struct.pack(">Q", 0x32454c4946524550) + good[8:],
    "v1-magic": b"PERFFILE" + good[8:],
    "bad-header-size": put(good, 8, "<Q", 64),
    "bad-attr-size": put(good, 16, "<Q", 8),
    "attrs-past-end": put(good, 32, "<Q", 1 << 40),
    "data-past-end": put(good, 48, "<Q", len(good) * 4),
    "cut-in-data": good[:sample + 20],
    "record-size-zero": put(good, sample + 6, "<H", 0),
    "record-size-past-data": put(good, sample + 6, "<H", 0xfff8),
    "absurd-branch-nr": put(good, nr_at, "<Q", 1 << 60),
    "cut-in-features": good[:d_off + d_size + 8],
    # the first attr's ids section (after its attr), the first feature's size
    "ids-past-end": put(good, a_off + attr_size - 16, "<Q", 1 << 40),
    "feature-past-end": put(good, d_off + d_size + 8, "<Q", 1 << 40),
    # a sample's bytes taken for a zstd stream
    "bad-zstd": put(good, sample, "<I", 81),
}
for name, data in cases.items():
    open("%s/%s.data" % (tmp, name), "wb").write(data)
PY

# NAME  expected message (extended regex)
while read -r name want; do
	f=$TMP/$name.data
	timeout 20 "$OCREC" script -i "$f" -F ip,brstack >/dev/null 2>"$TMP/err"
	rc=$?
	check_eq "$name: exit 2" 2 "$rc"
	check_eq "$name: one error line" 1 "$(wc -l <"$TMP/err")"
	check_match "$name: names the file, offset and problem" "$name.data: .*$want.* at offset [0-9]+" "$(cat "$TMP/err")"
done <<'EOF2'
empty truncated file
short-header truncated file
bad-magic not a perf.data file
byteswapped byte-swapped
v1-magic version 1
bad-header-size unsupported header size
bad-attr-size implausible attr size
attrs-past-end attr section
data-past-end data section
cut-in-data truncated file
record-size-zero record of size 0
record-size-past-data truncated SAMPLE record
absurd-branch-nr BRANCH_STACK count
cut-in-features truncated file
ids-past-end attr ids section runs past the end
feature-past-end feature section [0-9]+ has size [0-9]+, larger than the file
bad-zstd COMPRESSED record: 
EOF2

# pipe mode (perf record -o -), cut inside a record, from a file and from standard input
if command -v perf >/dev/null 2>&1 &&
   perf record -q -e cpu-clock -c 100000 -o - "$TMP/p" >"$TMP/pipe.full" 2>/dev/null && [ -s "$TMP/pipe.full" ]; then
	head -c $(( $(stat -c %s "$TMP/pipe.full") / 2 + 3 )) "$TMP/pipe.full" >"$TMP/pipe-cut.data"
	for how in file stdin; do
		if [ $how = file ]; then
			timeout 20 "$OCREC" script -i "$TMP/pipe-cut.data" >/dev/null 2>"$TMP/err"
		else
			timeout 20 "$OCREC" script -i - <"$TMP/pipe-cut.data" >/dev/null 2>"$TMP/err"
		fi
		check_eq "pipe mode cut in a record ($how): exit 2" 2 $?
		check_eq "pipe mode cut in a record ($how): one error line" 1 "$(wc -l <"$TMP/err")"
		check_match "pipe mode cut in a record ($how): says where" \
			"(pipe-cut.data|<stdin>): truncated ([A-Z_0-9]+ record|record header) .* at offset [0-9]+" "$(cat "$TMP/err")"
	done
else
	skip "pipe mode cut in a record" "perf record -o - does not work here"
fi

# the same bad files never crash the other readers either
for cmd in "report --stdio" "autofdo --binary $TMP/p -o $TMP/x.prof"; do
	crashed=
	for f in "$TMP"/*.data; do
		[ "$f" = "$TMP/good.data" ] && continue
		timeout 20 "$OCREC" ${cmd%% *} -i "$f" ${cmd#* } >/dev/null 2>&1
		[ $? -gt 2 ] && crashed="$crashed $(basename "$f")"
	done
	check_eq "ocrec ${cmd%% *}: exit 2 on every bad file, no crash" "" "$crashed"
done
