# bench/gawk-common.sh — what the gawk benchmarks share, sourced by
# bench/autofdo-gawk.sh and bench/bolt-gawk.sh from their WORK directory:
# Debian's gawk source, a build function, the workload and instrumented PGO.
# ROOT names the checkout.
#   gawk_source          ./src: apt-get source gawk (adds a deb-src entry when
#                        none exists; needs root and network)
#   gawk_build NAME CC CFLAGS [NEWER-THAN]
#                        ./NAME/gawk, redone when older than NEWER-THAN
#   gawk_workload        ./input.txt and NAME.awk (NAME=work, or GAWK_SCRIPT's
#                        name); sets NAME, INPUT and SUFFIX ("" or -NAME)
#   gawk_run GAWK        one run of the workload
#   gawk_same_result BUILD...
#                        each BUILD/gawk prints what the first prints (else exit 1)
#   gawk_relink BUILD PAD
#                        ./BUILD.padPAD/gawk: BUILD's objects linked behind PAD
#                        bytes of code
#   gawk_pgo             ./pgo-gcc$SUFFIX and ./pgo-clang$SUFFIX: instrumented PGO
#                        trained on the workload (needs LLVM, llvm-14's bin)
# TOOL names the sourcing script in messages.

# In a UTF-8 locale gawk's substr/toupper/split and field splitting take
# multibyte paths: half of the run is then libc's mbrtowc and gconv, which no
# profile of gawk speeds up. Pin the locale so that runs compare;
# GAWK_LOCALE=C measures the byte paths (a fourth of the run in libc). The
# profiles and the timed runs use the same locale.
export LC_ALL="${GAWK_LOCALE:-C.UTF-8}"

gawk_source() {
	[ -d src ] && return
	if ! grep -rqs '^deb-src\|^Types:.*deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		# deb822 form with the archive keyring: a one-line entry without
		# Signed-By conflicts with Debian 12's debian.sources, and apt refuses both
		echo "adding a deb-src entry for bookworm (/etc/apt/sources.list.d/ocrec-deb-src.sources)"
		printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
			>/etc/apt/sources.list.d/ocrec-deb-src.sources
	fi
	apt-get update -qq
	rm -rf fetch && mkdir fetch
	(cd fetch && apt-get source -qq gawk)
	mv "$(find fetch -maxdepth 1 -type d -name 'gawk-*' | head -n 1)" src
}

# configure passes CFLAGS to the link too (libgcov, the profile runtimes,
# -Wl,--emit-relocs). cp -a keeps the timestamps (else make reruns automake);
# only the gawk target is built, after its support/ library (Debian's source
# lacks doc/gawktexi.in, so `make all` fails in doc/). Builds run under nice.
gawk_build() {
	if [ ! -x "$1/gawk" ] || { [ $# -ge 4 ] && [ "$4" -nt "$1/gawk" ]; }; then
		rm -rf "$1" && cp -a src "$1"
		if ! (cd "$1" && nice ./configure -q CC="$2" CFLAGS="$3" && nice make -C support -j"$(nproc)" &&
			nice make -j"$(nproc)" gawk) >"$1.log" 2>&1; then
			echo "$TOOL: building $1 failed (see $PWD/$1.log)" >&2; exit 1
		fi
	fi
	[ -x "$1/gawk" ] || { echo "$TOOL: building $1 failed (see $PWD/$1.log)" >&2; exit 1; }
}

# the workload (bench/gawk-workload.sh, which bench/sampler.sh uses too), or
# GAWK_SCRIPT on GAWK_INPUT
. "$ROOT/bench/gawk-workload.sh"
gawk_workload() {
	[ -f input.txt ] || gawk_input 400000 input.txt
	NAME=work
	if [ -n "${GAWK_SCRIPT:-}" ]; then
		NAME=$(basename "$GAWK_SCRIPT" .awk)
		case $GAWK_SCRIPT in /*) ;; *) GAWK_SCRIPT=$OLDPWD/$GAWK_SCRIPT ;; esac
		cp "$GAWK_SCRIPT" "$NAME.awk"
	fi
	INPUT=${GAWK_INPUT:-input.txt}
	case $INPUT in /*) ;; input.txt) ;; *) INPUT=$OLDPWD/$INPUT ;; esac
	[ -f "$INPUT" ] || { echo "$TOOL: no input $INPUT" >&2; exit 2; }
	# the default workload keeps its old names (gawk.gcov, fdo-gcc, ...)
	SUFFIX=; [ "$NAME" = work ] || SUFFIX=-$NAME
	[ "$NAME" != work ] || gawk_script work.awk
}

gawk_run() {
	"$1" -f "$NAME.awk" "$INPUT" >/dev/null
}

gawk_same_result() {
	for b in "$@"; do
		"$b/gawk" -f "$NAME.awk" "$INPUT" >"$b.out"
		cmp -s "$1.out" "$b.out" || { echo "$TOOL: $b/gawk prints a different result" >&2; exit 1; }
	done
	echo "workload: $NAME.awk on $INPUT; result: $(head -c 200 "$1.out" | head -n 3) (LC_ALL=$LC_ALL)"
}

# The same code at another place: every function moves by PAD bytes. How
# hot loops fall against the CPU's 16-64-byte fetch and cache lines moves a
# gawk build's time by as much as a profile does (docs/autofdo.md,
# "Layout"), so bench/autofdo-gawk.sh times each build in several layouts.
gawk_relink() {
	out=$1.pad$2
	[ -x "$out/gawk" ] && [ "$out/gawk" -nt "$1/gawk" ] && return
	# the first input section of .text in GNU ld's default script
	printf '\t.section .text.unlikely,"ax",@progbits\n\t.skip %d, 0xcc\n\t.section .note.GNU-stack,"",@progbits\n' \
		"$2" >"$out.s"
	link=$(cd "$1" && make -n -W main.o gawk 2>/dev/null | grep -e ' -o gawk ' | tail -n 1)
	[ -n "$link" ] || { echo "$TOOL: no link command for $1/gawk" >&2; exit 1; }
	rm -rf "$out" && mkdir "$out"
	link=$(printf '%s\n' "$link" | sed "s| -o gawk | -o $PWD/$out/gawk |; s|^\([^ ]*\) |\1 $PWD/$out.s |")
	if ! (cd "$1" && eval "$link") >"$out.log" 2>&1; then
		echo "$TOOL: linking $out failed (see $PWD/$out.log)" >&2; exit 1
	fi
}

# Instrumented PGO trained on the workload: gcc -fprofile-generate/-use,
# clang -fprofile-instr-generate/-use. gcc names its profile files after the
# objects' paths under -fprofile-prefix-path, so that the use build finds them
# from its own tree.
gawk_pgo() {
	gawk_build pgo-gen-gcc gcc-12 "-O2 -g -fprofile-generate=$PWD/pgo-gcc.d -fprofile-prefix-path=$PWD/pgo-gen-gcc"
	if [ ! -f "pgo-gcc$SUFFIX.stamp" ] || [ pgo-gen-gcc/gawk -nt "pgo-gcc$SUFFIX.stamp" ]; then
		rm -rf pgo-gcc.d && gawk_run pgo-gen-gcc/gawk
		if [ -n "$SUFFIX" ]; then
			rm -rf "pgo-gcc$SUFFIX.d" && mv pgo-gcc.d "pgo-gcc$SUFFIX.d"
		fi
		touch "pgo-gcc$SUFFIX.stamp"
	fi
	gawk_build "pgo-gcc$SUFFIX" gcc-12 \
		"-O2 -g -fprofile-use=$PWD/pgo-gcc$SUFFIX.d -fprofile-prefix-path=$PWD/pgo-gcc$SUFFIX" "pgo-gcc$SUFFIX.stamp"
	gawk_build pgo-gen-clang clang-14 "-O2 -g -fprofile-instr-generate"
	if [ ! -f "pgo-clang$SUFFIX.profdata" ] || [ pgo-gen-clang/gawk -nt "pgo-clang$SUFFIX.profdata" ]; then
		rm -f pgo-clang.*.profraw
		LLVM_PROFILE_FILE="$PWD/pgo-clang.%p.profraw" gawk_run pgo-gen-clang/gawk
		"$LLVM/llvm-profdata" merge -o "pgo-clang$SUFFIX.profdata" pgo-clang.*.profraw
	fi
	gawk_build "pgo-clang$SUFFIX" clang-14 "-O2 -g -fprofile-instr-use=$PWD/pgo-clang$SUFFIX.profdata" \
		"pgo-clang$SUFFIX.profdata"
}
