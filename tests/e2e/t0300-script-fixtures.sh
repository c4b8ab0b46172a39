#!/bin/sh
# ocrec script on real perf.data files recorded with LBR on Intel machines
# (tests/data/lbr, and ../shared's extra sets): -F ip,brstack and -F comm,tid,ip,sym,dso,brstacksym
# must be byte-identical to what perf 6.1 printed for the same file (with the
# --symfs the oracle used), the symbol fields and the default output to what
# the installed perf prints here (with and without --symfs: perf's kernel
# symbols come from this machine's kallsyms for a kernel without build-id), and
# --header-only must agree with perf's header.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$TMP/empty"   # the oracle's EMPTY_SYMFS: no binaries at all

# live NAME DATA PIPE ARGS...: perf script and ocrec script with ARGS print the same
# bytes (a pipe-mode file is read from standard input, as perf needs), or both
# refuse it with perf's message and exit 2.
live() {
	name=$1 data=$2 pipe=$3
	shift 3
	if [ "$pipe" = yes ]; then
		perf script -i - "$@" <"$data" >"$TMP/live" 2>"$TMP/live.err"; prc=$?
		"$OCREC" script -i - "$@" <"$data" >"$TMP/out" 2>"$TMP/err"; orc=$?
	else
		perf script -i "$data" "$@" >"$TMP/live" 2>"$TMP/live.err"; prc=$?
		"$OCREC" script -i "$data" "$@" >"$TMP/out" 2>"$TMP/err"; orc=$?
	fi
	what="$name: script $(echo "$*" | sed "s|$TMP/empty|EMPTY|; s|$dir/||")"
	if [ $prc = 0 ] && [ -s "$TMP/live" ]; then
		check_eq "$what: exit 0" 0 $orc
		check_files_eq "$what equals live perf script ($(wc -l <"$TMP/live") lines)" "$TMP/live" "$TMP/out"
	elif [ $prc != 0 ]; then
		check_eq "$what: refused as perf refuses it (exit 2)" 2 $orc
		check_eq "$what: perf's message" "ocrec: $(head -n 1 "$TMP/live.err")" "$(cat "$TMP/err")"
	fi
}

for set in $(data_sets lbr); do
	conf=$(data_file "$set/fixture.conf")
	dir=$(data_dir "$set")
	name=${set#lbr/}
	data=$(data_file "$set/$(sed -n 's/^DATA=//p' "$conf")") || continue
	symfs=$(sed -n 's/^SYMFS=//p' "$conf")
	symfs=${symfs:+$dir/$symfs}
	symfs=${symfs:-$TMP/empty}
	pipe=no
	case $name in */derived-pipe) pipe=yes ;; esac

	# the stored perf 6.1 outputs, made with --symfs (in pipe mode perf 6.1 adds the
	# sym column to -F ip,brstack: ocrec does too)
	for kind in brstack:ip,brstack brstacksym:comm,tid,ip,sym,dso,brstacksym; do
		fields=${kind#*:}
		kind=${kind%%:*}
		expected=$(data_file "$set/script-$kind.txt")
		if ! "$OCREC" script -i "$data" --symfs "$symfs" -F "$fields" >"$TMP/out" 2>"$TMP/err"; then
			fail "$name: script -F $fields" "$(cat "$TMP/err")"
			continue
		fi
		case $name in
		autofdo-hierarchical_discriminator)
			# perf 6.1 cannot read this perf 6.8 file (attr size 136); its stored
			# output is perf 6.12's. derived-attr128/ is the same data perf 6.1 reads.
			check_files_eq "$name: the perf 6.8 file (attr size 136), -F $fields, equals perf 6.1 on its attr-128 copy" \
				"$(data_file "$set/derived-attr128/script-$kind.txt")" "$TMP/out"
			;;
		*)
			if [ -n "$expected" ]; then
				check_files_eq "$name: -F $fields equals perf 6.1 byte for byte ($(wc -l <"$expected") lines)" \
					"$expected" "$TMP/out"
			fi
			;;
		esac
	done

	# every header line ocrec prints (but the file date) is one perf prints
	if header=$(data_file "$set/header.txt"); then
		# (the perf 6.8 file's stored header was printed by perf 6.12, whose
		# event line has more fields: that line is not compared)
		skip_event=
		case $name in autofdo-hierarchical_discriminator*) skip_event='^# event :' ;; esac
		"$OCREC" script --header-only -i "$data" >"$TMP/hdr.all" 2>"$TMP/err"; rc=$?
		grep -v -e '^# captured on' -e '^# ========' -e '^#$' ${skip_event:+-e "$skip_event"} "$TMP/hdr.all" >"$TMP/hdr"
		missing=$(grep -vxF -f "$header" "$TMP/hdr" | head -n 3)
		check_empty "$name: --header-only lines match perf's" "$rc" "$missing"
	fi

	# live comparisons with the installed perf where it can read the file
	command -v perf >/dev/null 2>&1 || continue
	[ "$name" = autofdo-hierarchical_discriminator ] && continue
	# the default fields (no -F); in pipe mode perf names the event differently
	# ("cycles:uH", ocrec "cycles:u"), so there the default set without the event
	if [ $pipe = no ]; then
		live "$name" "$data" $pipe --symfs "$symfs"
		live "$name" "$data" $pipe
	else
		live "$name" "$data" $pipe -F comm,tid,time,period,ip,sym,symoff,dso
	fi
	for fields in ip,sym ip,sym,symoff,dso comm,tid,ip,sym,dso,brstacksym ip,dso,brstack \
		      ip,brstack,brstacksym sym,dso symoff ip,symoff; do
		live "$name" "$data" $pipe --symfs "$symfs" -F $fields
	done
	live "$name" "$data" $pipe -F ip,sym,symoff,dso,brstacksym
	# the numeric fields: equal output where perf prints, perf's refusal where it refuses
	if [ $pipe = no ]; then
		for fields in comm,tid,pid,time,period,event,ip,brstack cpu,ip addr,ip; do
			live "$name" "$data" $pipe -F $fields
		done
	fi
done
extra_sets "autofdo-propeller_sample_1/derived-pipe (tests/data/lbr/README.md)"
