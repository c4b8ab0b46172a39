#!/bin/sh
# ocrec script on real perf.data files recorded with LBR on Intel machines
# (../shared/data/lbr): -F ip,brstack must be byte-identical to what perf 6.1
# printed for the same file, and --header-only must agree with perf's header.
. "$(dirname "$0")/../lib.sh"
need_shared
LBR=$SHARED/data/lbr

for conf in "$LBR"/*/fixture.conf "$LBR"/*/derived-*/fixture.conf; do
	dir=$(dirname "$conf")
	name=${dir#"$LBR"/}
	data=$dir/$(sed -n 's/^DATA=//p' "$conf")
	[ -f "$data" ] || continue
	expected=$dir/script-brstack.txt
	if [ ! -f "$expected" ] && [ -f "$expected.gz" ]; then
		gzip -dc "$expected.gz" >"$TMP/expected" && expected=$TMP/expected
	fi
	if ! "$OCREC" script -i "$data" -F ip,brstack >"$TMP/out" 2>"$TMP/err"; then
		fail "$name: script -F ip,brstack" "$(cat "$TMP/err")"
		continue
	fi
	case $name in
	autofdo-hierarchical_discriminator)
		# perf 6.1 cannot read this perf 6.8 file (attr size 136); its stored
		# output is perf 6.12's. derived-attr128/ is the same data perf 6.1 reads.
		check_files_eq "$name: the perf 6.8 file (attr size 136) equals perf 6.1 on its attr-128 copy" \
			"$dir/derived-attr128/script-brstack.txt" "$TMP/out"
		;;
	*/derived-pipe)
		# in pipe mode perf 6.1 adds a symbol column after the ip; drop it to compare
		sed 's/^\( *[0-9a-f]*\) [^ ]*\( 0x\|$\)/\1\2/' "$expected" >"$TMP/expected.nosym"
		check_files_eq "$name: pipe mode equals perf 6.1 (ip, brstack)" "$TMP/expected.nosym" "$TMP/out"
		;;
	*)
		if [ -f "$expected" ]; then
			check_files_eq "$name: -F ip,brstack equals perf 6.1 byte for byte" "$expected" "$TMP/out"
		fi
		;;
	esac
	# live comparison with the installed perf where it can read the file
	if command -v perf >/dev/null 2>&1 && perf script -i "$data" -F ip,brstack >"$TMP/live" 2>/dev/null &&
	   [ -s "$TMP/live" ] && [ "${name%derived-pipe}" = "$name" ]; then
		check_files_eq "$name: equals live perf script" "$TMP/live" "$TMP/out"
	fi
	# the numeric fields, live: equal output where perf prints, perf's refusal where it refuses
	if command -v perf >/dev/null 2>&1 && [ "${name%derived-pipe}" = "$name" ] &&
	   perf script -i "$data" -F ip >/dev/null 2>&1; then
		for fields in comm,tid,pid,time,period,event,ip,brstack cpu,ip addr,ip; do
			perf script -i "$data" -F $fields >"$TMP/live" 2>"$TMP/live.err"
			prc=$?
			"$OCREC" script -i "$data" -F $fields >"$TMP/out" 2>"$TMP/err"
			orc=$?
			if [ $prc = 0 ]; then
				check_files_eq "$name: -F $fields equals live perf script" "$TMP/live" "$TMP/out"
			else
				check_eq "$name: -F $fields refused as perf refuses it (exit 2)" 2 $orc
				check_eq "$name: -F $fields: perf's message" "ocrec: $(head -n 1 "$TMP/live.err")" "$(cat "$TMP/err")"
			fi
		done
	fi
	# every header line ocrec prints (but the file date) is one perf prints
	if [ -f "$dir/header.txt" ]; then
		# (the perf 6.8 file's stored header was printed by perf 6.12, whose
		# event line has more fields: that line is not compared)
		skip_event=
		case $name in autofdo-hierarchical_discriminator*) skip_event='^# event :' ;; esac
		"$OCREC" script --header-only -i "$data" |
			grep -v -e '^# captured on' -e '^# ========' -e '^#$' ${skip_event:+-e "$skip_event"} >"$TMP/hdr"
		missing=$(grep -vxF -f "$dir/header.txt" "$TMP/hdr" | head -n 3)
		check_eq "$name: --header-only lines match perf's" "" "$missing"
	fi
done
