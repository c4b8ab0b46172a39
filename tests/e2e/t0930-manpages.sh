# docs/*.1: a page per command of the table, every option the command's --help prints is in
# its page, every page renders with no groff warning, and `make install` puts the binary,
# the pages, the completion and the flame-graph converter under DESTDIR/PREFIX.
. "$(dirname "$0")/../lib.sh"
need_cmd groff make

DOCS=$ROOT/docs

# help_options TEXT-FILE: the options a --help text offers: every -x / --long of the
# usage lines (up to the first blank line) and of the option column (lines indented by
# at most 8 spaces that start with '-', up to the description after two spaces).
help_options() {
	{
		sed '/^$/q' "$1"
		sed -n 's/^ \{1,8\}\(-[^ ].*\)$/\1/p' "$1" | sed 's/  .*$//'
	} | grep -oE -- '(^|[][ ,|])--?[a-zA-Z][-a-zA-Z0-9]*' | sed 's/^[][ ,|]*//' | sort -u
}

# man_text PAGE: the page source with \- as - and font escapes removed.
man_text() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' "$1"
}

# check_options NAME HELP-FILE PAGE
check_options() {
	opts=$(help_options "$2")
	text=$(man_text "$3")
	missing=
	for o in $opts; do
		printf '%s\n' "$text" | grep -qE -- "(^|[^-a-zA-Z0-9])$o([^-a-zA-Z0-9]|\$)" || missing="$missing $o"
	done
	if [ -z "$opts" ]; then fail "$1" "no options found in --help (parser out of date?)"
	elif [ -n "$missing" ]; then fail "$1" "not in $(basename "$3"):$missing"
	else pass "$1 ($(echo $opts | wc -w) options)"; fi
}

# every environment variable ocrec reads is in a page's ENVIRONMENT section
vars=$(grep -rhoE 'getenv\("[A-Z_]+"\)' "$ROOT/src" | sed 's/getenv("\(.*\)")/\1/' | sort -u |
	grep -vxE 'HOME|PAGER')
check_match "the variables ocrec reads were found" "^OCREC_" "$vars"
missing=
for v in $vars; do
	for page in "$DOCS"/*.1; do
		sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$page" | grep -qx "\.B $v" && continue 2
	done
	missing="$missing $v"
done
check_eq "every environment variable ocrec reads is documented" "" "$missing"

commands=$(sed -n 's/^	{ "\([a-z-]*\)", *cmd_.*/\1/p' "$ROOT/src/cli/ocrec.c")
check_match "the command table was read" "record" "$commands"

$OCREC --help >"$TMP/help.txt"
check_options "ocrec.1 has every global option of ocrec --help" "$TMP/help.txt" "$DOCS/ocrec.1"
for cmd in $commands; do
	page=$DOCS/ocrec-$cmd.1
	if [ ! -f "$page" ]; then
		fail "ocrec-$cmd.1 exists" "no $page"
		continue
	fi
	check_match "ocrec-$cmd.1: .TH names the page" "^\.TH OCREC(\\\\?-)$(echo "$cmd" | tr a-z- A-Z. | sed 's/\./\\\\?-/g') 1 " \
		"$(grep '^\.TH' "$page")"
	check_match "ocrec.1 lists $cmd" "^\.BR ocrec(\\\\)?-$(echo "$cmd" | sed 's/-/(\\\\)?-/g') \(1\)" \
		"$(grep '^\.BR ocrec' "$DOCS/ocrec.1")"
	# `ocrec help --help` is the main help: ocrec.1 covers it
	[ "$cmd" = help ] && continue
	$OCREC "$cmd" --help >"$TMP/$cmd.help" 2>&1
	check_options "ocrec-$cmd.1 has every option of ocrec $cmd --help" "$TMP/$cmd.help" "$page"
done

# The checker itself: an option missing from a page is caught.
printf 'usage: ocrec x [--frobnicate] [-Q]\n\n  -z, --zap-it N   zap\n' >"$TMP/fake.help"
check_eq "the option parser finds usage and column options" "--frobnicate
--zap-it
-Q
-z" "$(help_options "$TMP/fake.help")"
check_options "(meta) a page lacking options" "$TMP/fake.help" "$DOCS/ocrec-help.1" >"$TMP/meta"
check_match "a page lacking options fails the check" "^FAIL .*not in ocrec-help.1: --frobnicate --zap-it -Q -z$" "$(cat "$TMP/meta")"

# Rendering: no warnings at all.
for page in "$DOCS"/*.1; do
	groff -man -ww -Tutf8 "$page" >"$TMP/out" 2>"$TMP/warn"
	check_eq "$(basename "$page") renders with no warnings" "0:" "$?:$(head -n 3 "$TMP/warn")"
done
for page in "$DOCS"/*.1; do
	for ref in $(man_text "$page" | sed -n 's/^\.BR \(ocrec[-a-z]*\) (1).*/\1/p'); do
		[ -f "$DOCS/$ref.1" ] || fail "$(basename "$page"): SEE ALSO $ref" "no docs/$ref.1"
	done
done

# make install honours DESTDIR and PREFIX. -o: never rebuild the binary from here.
make -s -C "$ROOT" -o "$BUILD/ocrec" install BUILD="$BUILD" DESTDIR="$TMP/inst" PREFIX=/usr >"$TMP/make.out" 2>&1
check_eq "make install DESTDIR=… PREFIX=/usr exits 0" "0" "$?"
I=$TMP/inst/usr
check_eq "installed binary runs" "$($OCREC --version)" "$("$I/bin/ocrec" --version 2>&1)"
missing=
for page in "$DOCS"/*.1; do
	cmp -s "$page" "$I/share/man/man1/$(basename "$page")" || missing="$missing $(basename "$page")"
done
check_eq "every man page installed in share/man/man1" "" "$missing"
check_eq "the pages are all that is in man1" "$(cd "$DOCS" && printf '%s\n' *.1)" "$(cd "$I/share/man/man1" && printf '%s\n' *)"
check "completion installed as share/bash-completion/completions/ocrec" \
	cmp "$ROOT/contrib/ocrec.bash" "$I/share/bash-completion/completions/ocrec"
check "ocrec-flamegraph installed and executable" test -x "$I/bin/ocrec-flamegraph"
if command -v man >/dev/null 2>&1; then
	MANPATH=$I/share/man man -P cat ocrec-record >"$TMP/man.out" 2>&1
	check_match "man finds the installed page" "ocrec.record +- +record +samples +and +branch" "$(cat "$TMP/man.out")"
fi
make -s -C "$ROOT" -o "$BUILD/ocrec" install BUILD="$BUILD" DESTDIR="$TMP/inst2" >"$TMP/make.out" 2>&1
check "default PREFIX is /usr/local" test -x "$TMP/inst2/usr/local/bin/ocrec" -a -f "$TMP/inst2/usr/local/share/man/man1/ocrec.1"
check_eq "nothing installed outside DESTDIR/PREFIX" "usr" "$(ls "$TMP/inst")"
