#!/bin/sh
# BOLT 16's view of a binary as ocrec models it (src/bolt): made-up traces
# from every instruction of a test program to the next few and branches
# between them (tests/helpers/bolt-synth-pa.sh) go through perf2bolt 16 (-pa)
# and through ocrec's model (tests/helpers/bolt-fdata), and the two fdata
# files must hold the same lines. Fall-through lines come from BOLT's basic
# blocks and branch lines name functions as BOLT does, so this checks both on
# gcc and clang code, PIE and not, with and without relocations (BOLT's
# relocation mode), a shared library, C++ exceptions (landing pads) and a
# stripped binary read with the symbols of its debug file.
. "$(dirname "$0")/../lib.sh"
P2B=/usr/lib/llvm-16/bin/perf2bolt
need_cmd "$P2B" objdump objcopy strip cc c++
need_helper bolt-fdata
cd "$TMP" || exit 1
SRC=$ROOT/tests/progs

# same NAME BINARY [ORACLE-BINARY [bolt-fdata options]]: the lines agree.
same() {
	_name=$1 _bin=$2 _oracle=${3:-$2}
	shift 2; [ $# -gt 0 ] && shift
	sh "$ROOT/tests/helpers/bolt-synth-pa.sh" "$_oracle" >"$_bin.pa"
	if ! "$P2B" -pa -p "$_bin.pa" -o "$_bin.p2b" "$_oracle" >"$_bin.log" 2>&1; then
		fail "$_name" "perf2bolt -pa failed: $(tail -n 2 "$_bin.log" | tr '\n' ' ')"
		return
	fi
	if ! "$BUILD/tests/helpers/bolt-fdata" "$@" "$_bin" <"$_bin.pa" >"$_bin.ocrec" 2>"$_bin.err"; then
		fail "$_name" "bolt-fdata failed: $(cat "$_bin.err")"
		return
	fi
	sort "$_bin.p2b" >"$_bin.p2b.sorted"
	sort "$_bin.ocrec" >"$_bin.ocrec.sorted"
	if [ -s "$_bin.p2b.sorted" ] && cmp -s "$_bin.p2b.sorted" "$_bin.ocrec.sorted"; then
		pass "$_name: the $(wc -l <"$_bin.p2b.sorted") lines of perf2bolt"
	else
		fail "$_name" "differs from perf2bolt: $(diff "$_bin.p2b.sorted" "$_bin.ocrec.sorted" | head -n 6 | tr '\n' ' ')"
	fi
}

cc -O2 -g -fPIC -shared -Wl,--emit-relocs -o libbolt.so "$SRC/bolt-lib.c" || fail "build libbolt.so" "cc failed"
same "shared library, relocations" libbolt.so
compilers=cc
command -v clang >/dev/null 2>&1 && compilers="cc clang"
for c in $compilers; do
	for pie in pie no-pie; do
		for rel in reloc plain; do
			[ $pie = pie ] && flags="-fPIE -pie" || flags="-fno-pie -no-pie"
			[ $rel = reloc ] && flags="$flags -Wl,--emit-relocs"
			out=main-$c-$pie-$rel
			# shellcheck disable=SC2086
			if $c -O2 -g $flags -DWITH_LIB -o $out "$SRC/bolt-main.c" "$SRC/bolt-util.c" \
				-L. -lbolt -Wl,-rpath,"$TMP"; then
				same "$c $pie $rel" $out
			else
				fail "$c $pie $rel" "build failed"
			fi
		done
	done
done
for rel in reloc plain; do
	flags=
	[ $rel = reloc ] && flags=-Wl,--emit-relocs
	if c++ -O2 -g $flags -o exc-$rel "$SRC/bolt-exc.cc"; then
		same "C++ exceptions, $rel" exc-$rel
	else
		fail "C++ exceptions, $rel" "build failed"
	fi
done
# the stripped binary with its symbols in a debug file reads as the whole one
objcopy --only-keep-debug main-cc-pie-reloc main.debug &&
	strip -o main.stripped main-cc-pie-reloc &&
	same "stripped binary, symbols from its debug file" main.stripped main-cc-pie-reloc --symbols main.debug
# a real program: ocrec itself as built (no relocations: BOLT's lite mode);
# BOLT refuses sanitizer builds, and so does the model
cp "$OCREC" ocrec-self
if nm ocrec-self 2>/dev/null | grep -q ' __asan_init'; then
	"$BUILD/tests/helpers/bolt-fdata" ocrec-self </dev/null >/dev/null 2>err
	check_match "a sanitizer build is refused, as llvm-bolt does" "built with sanitizer support" "$(cat err)"
else
	same "ocrec's own binary" ocrec-self
fi
