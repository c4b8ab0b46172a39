#!/bin/sh
# Rebuild the committed seed corpora (tests/fuzz/corpus/NAME/) from the
# repository's fixtures and small files made here: programs compiled now,
# perf.data files recorded now with perf and with ocrec's own writer. Run from
# a built checkout (make test-bins) when a target's input format grows; the
# fuzzers find the rest from these. Keeps every seed small (the whole corpus is
# a few hundred KB) because libFuzzer mutates small inputs best.
# usage: sh tests/fuzz/make-corpus.sh [NAME...]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
C=$ROOT/tests/fuzz/corpus
FIX=$ROOT/tests/fixtures
TMP=$(mktemp -d /tmp/ocrec-corpus.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
NAMES=${*:-cpuinfo cpuid mapfile events-json event-name index elf perfdata perfscript x86}

fresh() {  # NAME: an empty corpus directory
	rm -rf "${C:?}/$1"
	mkdir -p "$C/$1"
}
# prefixed NAME BYTE FILE OUT: FILE with one leading byte (the targets' CPU choice)
prefixed() {
	{ printf "\\$(printf %03o "$2")"; cat "$3"; } >"$C/$1/$4"
}

for name in $NAMES; do
	case $name in
	x86)
		# one instruction of each kind x86_decode_common() takes (and some
		# it leaves to capstone), as hex
		fresh x86
		n=0
		while read -r hex; do
			n=$((n + 1))
			for byte in $hex; do
				printf "\\$(printf %03o "0x$byte")"
			done >"$C/x86/$(printf %02d $n)"
		done <<'INSNS'
48 8b 45 f8
89 7c 24 0c
41 83 c4 01
48 81 ec 08 01 00 00
80 7e 04 80
0f 1f 84 00 00 00 00 00
66 0f 1f 44 00 00
f3 0f 1e fa
66 41 0f b6 04 24
48 0f be 0c 10
64 48 8b 04 25 28 00 00 00
48 8d 05 f9 ff ff ff
ff 24 c5 10 00 00 00
41 ff d3
e8 00 00 00 00
0f 85 11 0c 00 00
75 0d
c2 08 00
c3
0f 05
48 f7 e1
48 99
d1 e8
c0 14 1e c9
f6 c4 04
0f 97 03
45 0f 45 ee
69 d2 ec f4 ff ff
4c 0f 1f 47 e0
f3 48 ab
c5 f9 6f 06
INSNS
		;;
	cpuinfo)
		fresh cpuinfo
		cp "$FIX"/cpu/*.cpuinfo "$C/cpuinfo/"
		# this machine's first processor, as /proc/cpuinfo shows it
		sed -n '/^$/q;p' /proc/cpuinfo >"$C/cpuinfo/host.cpuinfo"
		;;
	cpuid)
		fresh cpuid
		cp "$FIX"/cpu/*.cpuid "$C/cpuid/"
		;;
	mapfile)
		fresh mapfile
		i=0
		for f in "$FIX/events/perfmon/mapfile.csv" "$FIX/events/pmu-events/x86/mapfile.csv"; do
			for cpu in 0 1 2 3; do
				prefixed mapfile "$cpu" "$f" "$(basename "$(dirname "$f")")-cpu$cpu.csv"
			done
		done
		;;
	events-json)
		fresh events-json
		find "$FIX/events/perfmon" "$FIX/events/pmu-events" -name '*.json' | sort | while read -r f; do
			rel=$(echo "${f#"$FIX"/events/}" | tr / -)
			prefixed events-json 0 "$f" "$rel"
		done
		prefixed events-json 3 "$FIX/events/perfmon/ADL/events/alderlake_goldencove_core.json" adl-core-hybrid.json
		prefixed events-json 2 "$FIX/events/perfmon/SKX/events/skylakex_uncore.json" skx-uncore-skx.json
		prefixed events-json 0 "$ROOT/events/intel-architectural.json" intel-architectural.json
		;;
	event-name)
		fresh event-name
		n=0
		while IFS=' ' read -r cpu spec; do
			[ -n "$spec" ] || continue
			n=$((n + 1))
			printf "\\$(printf %03o "$cpu")%s" "$spec" >"$C/event-name/$(printf %02d $n)"
		done <<'SPECS'
0 cycles
0 Instructions:u
0 branch-misses:ppk
0 LLC-load-misses
0 L1-dcache-prefetches:G
0 task-clock
0 cycles:pppp
0 r1a8:u
0 cpu/event=0x3c,umask=0x1,cmask=2,inv,period=5000/k
0 cpu/event=0x1ff/
0 cpu/config=0x1,config1=0x2,name=foo,freq=100/uk
0 cpu/slots/
0 software/config=1/
0 uncore_cbox_1/event=0x34,umask=0x88/
0 nosuchpmu/event=1/
0 BR_INST_RETIRED.ALL_BRANCHES
0 br_inst_retired.all_branches:u:c=1:inv:e
0 br_inst_retired.all_branches:period=1000:pp
0 br_inst_retired.all_branches_ps
0 br_inst_retired_all_branches
0 cpu/br_inst_retired.all_branches,cmask=2/u
0 INST_RETIRED.ANY:sup:anythr=yes:usr=no
0 topdown.slots
0 perf_metrics.retiring
0 UNC_CBO_CACHE_LOOKUP.ANY_I
0 unc_cbo_cache_lookup.any_i:e1:t=3:one_unit
0 UNC_ARB_TRK_OCCUPANCY.ALL:c1
0 BR_MISP_RETIRED.ALL
0 skl::BR_INST_RETIRED:ALL_BRANCHES:u
0 IPC
1 OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE
1 OFFCORE_RESPONSE:request=DEMAND_RFO:response=ANY_RESPONSE
1 offcore_response.demand_rfo.l3_hit.any_snoop:ocr_msr_val=0x10
1 mem_load_uops_retired.l3_miss:pp
2 UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0
2 unc_cha_tor_inserts.ia_miss:filter=0x40:nc=1
2 MEM_LOAD_RETIRED.LOCAL_PMM:ldlat=3
3 BR_INST_RETIRED.NEAR_TAKEN:u
3 cpu_atom/br_inst_retired.all_branches/
3 cpu_core/event=0xc4,umask=0/pp
3 UNC_M_CAS_COUNT.RD
SPECS
		;;
	index)
		# fuzz-index.c: byte 0 flags (1 reseal, 2 cut), bytes 1-4 the cut length, then XOR
		fresh index
		printf '\000\000\000\000\000' >"$C/index/unchanged"
		printf '\001\000\000\000\000' >"$C/index/resealed"
		printf '\002\100\000\000\000' >"$C/index/cut-64"
		printf '\003\000\002\000\000' >"$C/index/cut-512-resealed"
		printf '\001\000\000\000\000\000\000\000\000\000\000\000\000\001' >"$C/index/version-resealed"
		printf '\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\377' \
			>"$C/index/key-length"
		;;
	elf)
		fresh elf
		p=$ROOT/tests/progs
		cc -O2 -g -o "$TMP/loop" "$p/loop.c"
		cc -O2 -gdwarf-4 -fno-pie -no-pie -o "$TMP/loop-dwarf4-nopie" "$p/loop.c"
		clang -O2 -g -DITERS=1000 -o "$TMP/div-clang" "$p/div.c"
		cc -O2 -g -o "$TMP/inline" "$p/autofdo-inline.c"
		cc -O2 -g -fPIC -shared -o "$TMP/lib.so" "$p/report-lib.c"
		# C++: namespaces, templates, inlined calls, without the standard library
		cat >"$TMP/cxx.cc" <<'CXX'
namespace geo { template <typename T> struct Sq { T s; T area() const { return s * s; } }; }
static volatile int sink;
template <typename T> static T sum(int n) { T t = 0; for (int i = 0; i < n; i++) t += geo::Sq<T>{T(i)}.area(); return t; }
int main() { sink = sum<int>(1000) + (int)sum<double>(10); return 0; }
CXX
		c++ -O2 -g -o "$TMP/cxx" "$TMP/cxx.cc"
		cc -O2 -o "$TMP/stripped" "$p/loop.c" && strip "$TMP/stripped"
		for f in loop loop-dwarf4-nopie div-clang inline lib.so cxx stripped; do
			cp "$TMP/$f" "$C/elf/$f"
		done
		;;
	perfdata)
		fresh perfdata
		printf 'int main(void){volatile int i,s=0;for(i=0;i<3000000;i++)s+=i&3?1:2;return s&1;}\n' >"$TMP/p.c"
		cc -O1 -o "$TMP/p" "$TMP/p.c"
		d=$C/perfdata
		perf record -q -e cpu-clock -c 2000000 -o "$d/perf-file.data" "$TMP/p" >/dev/null 2>&1
		perf record -q -e cpu-clock -c 2000000 -o - "$TMP/p" >"$d/perf-pipe.data" 2>/dev/null
		perf record -q -e cpu-clock -c 2000000 -g -o "$d/perf-callchain.data" "$TMP/p" >/dev/null 2>&1
		perf record -q -e cpu-clock,task-clock -c 2000000 -o "$d/perf-two.data" "$TMP/p" >/dev/null 2>&1
		perf record -q -z -e cpu-clock -c 2000000 -o "$d/perf-zstd.data" "$TMP/p" >/dev/null 2>&1
		# long enough for a few samples
		printf 'int main(void){volatile int i,s=0;for(i=0;i<30000000;i++)s+=i&3?1:2;return s&1;}\n' >"$TMP/q.c"
		cc -O1 -o "$TMP/q" "$TMP/q.c"
		"$BUILD/tests/helpers/sampler-record" -q -F 100 --lbr-depth 4 -o "$d/ocrec-branches.data" -- "$TMP/q" >/dev/null 2>&1
		# branch stacks, call chains, hw_index and several events, from ocrec's writer
		"$BUILD/tests/helpers/pd-synth" -o "$d/synth-branches.data" <<'SPEC'
event cycles:u fields=ip,tid,time,id,cpu,period,callchain,branch hw_index
event instructions:u fields=ip,tid,time,id,period,branch
comm 42 42 prog exec
mmap2 42 0x400000 0x1000 0 /bin/true
fork 43 42 time=5 cpu=1 ev=0
sample 42 42 0x401000 time=10 cpu=0 br 0x401010/0x401020/M/3/1 0x401030/0x401000/P/5 cc 0x401000 0x401100
sample 43 43 0x401004 ev=1 period=7 br 0x401000/0x401004
build-id /bin/true 0123456789abcdef0123456789abcdef01234567
lost 3
round
SPEC
		;;
	perfscript)
		# llvm-profgen's input; "loop" is the binary the target maps (corpus/elf/loop)
		fresh perfscript
		d=$C/perfscript
		b=0x555555554000
		cat >"$d/mmap-brstack.txt" <<TXT
PERF_RECORD_MMAP2 4242/4242: [$b(0x2000) @ 0 fe:00 1234 0]: r-xp /tmp/build/loop
 0x555555555082/0x5555555551b0/P/-/-/2  0x55555555508a/0x555555555078/P/-/-/1  0x55555555507b/0x555555555070/M/-/-/7
 0x555555555093/0x555555555068/P/-/-/3  0x5555555550b6/0x555555555068/P/-/-/1
 0x555555555093/0x555555555068/P/-/-/3  0x5555555550b6/0x555555555068/P/-/-/1
TXT
		# the own addresses of the binary, no MMAP2; a sample ip first; comments
		cat >"$d/own-addresses.txt" <<'TXT'
// perf script -F ip,brstack
            1082 0x1082/0x11b0/P/-/-/2 0x108a/0x1078/-/-/-/0 0x107b/0x1070/M/X/A/7
            10b6 0x10b6/0x1068/P/-/-/1
# a comment
TXT
		# hybrid samples: call-stack lines, then the branches (llvm-profgen's CS format)
		cat >"$d/hybrid-stack.txt" <<'TXT'
	1082
	10b6
	10db
 0x1082/0x11b0/P/-/-/2  0x108a/0x1078/P/-/-/1
	1093
 0x1093/0x1068/P/-/-/3
TXT
		# perf 6.12's /TYPE/SPEC fields, a wrong-path entry, and -F with comm, pid and time
		cat >"$d/type-spec.txt" <<TXT
            loop  4242  1234.567890: PERF_RECORD_MMAP2 4242/4242: [$b(0x2000) @ 0 fe:00 1234 0]: r-xp /tmp/build/loop
 0x555555555082/0x5555555551b0/P/-/-/2/CALL/-  0x55555555508a/0x555555555078/P/-/-/1/COND/NON_SPEC_CORRECT_PATH  0x55555555507b/0x555555555070/M/-/-/7/COND/WRONG_PATH
TXT
		# what perf script prints for a recording of ocrec's software branch sampler
		perf script -F ip,brstack --show-mmap-events -i "$C/perfdata/ocrec-branches.data" 2>/dev/null |
			head -n 40 >"$d/perf-ocrec-branches.txt"
		;;
	*)
		echo "make-corpus.sh: no target $name" >&2
		exit 2
		;;
	esac
	echo "$name: $(ls "$C/$name" | wc -l) seeds, $(du -sk "$C/$name" | cut -f1) KB"
done
