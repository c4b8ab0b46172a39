# bash completion for ocrec                                    -*- shell-script -*-
#
# Install as $(PREFIX)/share/bash-completion/completions/ocrec (make install does),
# or `source contrib/ocrec.bash`.
#
# Nothing here is a copy of ocrec's option lists: commands come from `ocrec help`,
# a command's options from `ocrec CMD --help`, and event names from `ocrec list-events`
# (which reads the download caches, $XDG_CACHE_HOME/ocrec/events for Intel's perfmon
# tables and $XDG_CACHE_HOME/ocrec/linux/x86 for the kernel's, through its index),
# all asked at completion time, so the completion follows the binary it completes.

# The ocrec being completed: the word the user typed, else ocrec on PATH.
_ocrec_bin()
{
	local b=${COMP_WORDS[0]}
	b=${b/#\~/$HOME}
	if [[ $b == */* && -x $b ]] || type -P -- "$b" >/dev/null 2>&1; then
		printf '%s\n' "$b"
	else
		printf 'ocrec\n'
	fi
}

# Command names: the "Commands:" block of `ocrec help`.
_ocrec_commands()
{
	"$(_ocrec_bin)" help 2>/dev/null |
		sed -n '/^Commands:/,/^$/{s/^  \([a-z][-a-z]*\) .*/\1/p}'
}

# The option column of `ocrec [CMD] --help`: the lines indented by at most 8 spaces
# that start with '-', up to the description (after a run of two or more spaces).
_ocrec_option_lines()
{
	"$(_ocrec_bin)" ${1:+"$1"} --help 2>/dev/null |
		sed -n 's/^ \{1,8\}\(-[^ ].*\)$/\1/p' | sed 's/   *.*$//'
}

# Options of a command (without CMD: the global ones), and the global options every
# command accepts.
_ocrec_options()
{
	{
		[[ -z $1 ]] && printf '%s\n' --version --help
		printf '%s\n' --cpuinfo --cpuid --sysfs
		_ocrec_option_lines "$1" |
			grep -oE '(^|[ ,])--?[a-zA-Z][-a-zA-Z0-9]*' | sed 's/^[ ,]*//'
	} | sort -u
}

# Does OPT take an argument? Its line in the option column names one: "-o, --output
# FILE", "--format FMT", "--branch-sampler=auto|..."; "-b, --branch-any" does not.
_ocrec_takes_arg()
{
	_ocrec_option_lines "$1" | grep -E -- "(^|[ ,])$2([ ,=]|\$)" |
		grep -qE -- '--?[a-zA-Z][-a-zA-Z0-9]*[ =][A-Za-z]'
}

# Event names for -e: the first column of `ocrec list-events` (both names of
# "a OR b" lines), for the CPU and tables named on the command line if any.
_ocrec_events()
{
	local -a args=()
	local i w
	for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
		((i == COMP_CWORD)) && continue
		w=${COMP_WORDS[i]}
		case $w in
		--cpu|--events|--cpuinfo|--cpuid|--sysfs)
			if ((i + 1 != COMP_CWORD)); then
				args+=("$w" "${COMP_WORDS[i+1]}")
			fi ;;
		--cpu=*|--events=*|--cpuinfo=*|--cpuid=*|--sysfs=*)
			args+=("$w") ;;
		esac
	done
	"$(_ocrec_bin)" list-events "${args[@]}" 2>/dev/null |
		sed -n 's/^  \([^ ]\{1,\}\)\( OR \([^ ]\{1,\}\)\)\{0,1\} .*/\1 \3/p' |
		tr ' ' '\n' | sed '/^$/d'
}

# Complete CUR as an event list: "a,b,c" completes its last element; an upper-case
# prefix gets upper-case names (the tables' spelling; names match in any case).
_ocrec_complete_events()
{
	local cur=$1 head='' last=$1 names
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		last=${cur##*,}
	fi
	head=${head#\{}
	[[ $cur == \{* ]] && head="{$head" && [[ $cur != *,* ]] && last=${last#\{}
	names=$(_ocrec_events)
	if [[ $last == *[A-Z]* ]]; then
		names=${names^^}
	fi
	local IFS=$'\n'
	mapfile -t COMPREPLY < <(compgen -P "$head" -W "$names" -- "$last")
	compopt -o nospace 2>/dev/null
}

# Values of options whose argument is a fixed word list or a path.
_ocrec_complete_value()
{
	local cmd=$1 opt=$2 cur=$3 IFS=$'\n'
	case $opt in
	-e|--event)
		_ocrec_complete_events "$cur"; return 0 ;;
	--format)
		mapfile -t COMPREPLY < <(compgen -W $'llvm\nllvm-ext\ngcc' -- "$cur"); return 0 ;;
	--branch-sampler)
		mapfile -t COMPREPLY < <(compgen -W $'auto\nhardware\nsoftware' -- "$cur"); return 0 ;;
	--from)
		mapfile -t COMPREPLY < <(compgen -W $'perfmon\nlinux' -- "$cur"); return 0 ;;
	-j|--branch-filter)
		local f w=${cur##*,} h=''
		[[ $cur == *,* ]] && h=${cur%,*},
		f=$'any\nany_call\nany_ret\nind_call\nind_jmp\ncall\ncond\nu\nk\nhv\nabort_tx\nin_tx\nno_tx\nstack\nsave_type'
		mapfile -t COMPREPLY < <(compgen -P "$h" -W "$f" -- "$w"); compopt -o nospace 2>/dev/null; return 0 ;;
	--call-graph)
		mapfile -t COMPREPLY < <(compgen -W fp -- "$cur"); return 0 ;;
	--sysfs|--symfs)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;
	-p|--pid|--tid)
		mapfile -t COMPREPLY < <(compgen -W "$(cd /proc 2>/dev/null && printf '%s\n' [0-9]*)" -- "$cur"); return 0 ;;
	--cpu|-c|--count|-F|--freq|-r|--repeat|-x|--field-separator|--lbr-depth|-m|--mmap-pages|\
	--percent-limit|--max-rows|--comm|--dso|-s|--sort|--fields|--url)
		COMPREPLY=(); return 0 ;;
	esac
	if [[ $cmd == report && $opt == -F ]]; then COMPREPLY=(); return 0; fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	compopt -o filenames 2>/dev/null
	return 0
}

_ocrec()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev='' cmd='' cmd_at=0 i w IFS=$'\n'
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()

	# Find the command: the first word that is not a global option (or its value).
	# A word starting with '-' that is not global means record, the default command.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--cpuinfo|--cpuid|--sysfs) ((i++)); continue ;;
		--cpuinfo=*|--cpuid=*|--sysfs=*) continue ;;
		-*) cmd=record; cmd_at=$((i - 1)); break ;;
		*) cmd=$w; cmd_at=$i; break ;;
		esac
	done

	# record and stat run a program: from its name on, the words are its own
	if [[ $cmd == record || $cmd == stat ]]; then
		for ((i = cmd_at + 1; i < COMP_CWORD; i++)); do
			w=${COMP_WORDS[i]}
			[[ $w == -* ]] && continue
			w=${COMP_WORDS[i-1]}
			if ((i - 1 > cmd_at)) && [[ $w == -* && $w != *=* ]] && _ocrec_takes_arg "$cmd" "$w"; then
				continue   # the value of an option
			fi
			if declare -F _command_offset >/dev/null; then
				_command_offset "$i"   # bash-completion completes the program's arguments
			else
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
				compopt -o filenames 2>/dev/null
			fi
			return 0
		done
	fi

	# --opt=value
	if [[ $cur == --*=* ]]; then
		local o=${cur%%=*}
		_ocrec_complete_value "$cmd" "$o" "${cur#*=}"
		local j
		for j in "${!COMPREPLY[@]}"; do COMPREPLY[j]="$o=${COMPREPLY[j]}"; done
		compopt -o nospace 2>/dev/null
		return 0
	fi

	# The value of the previous option?
	if [[ $prev == -* && $prev != *=* ]] && ((COMP_CWORD - 1 > cmd_at || cmd_at == 0)); then
		case $prev in
		--cpuinfo|--cpuid) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); compopt -o filenames 2>/dev/null; return 0 ;;
		--sysfs) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return 0 ;;
		esac
		if [[ -n $cmd ]] && _ocrec_takes_arg "$cmd" "$prev"; then
			_ocrec_complete_value "$cmd" "$prev" "$cur"
			return 0
		fi
	fi

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			# record is the default command, so its options are valid here too
			mapfile -t COMPREPLY < <(compgen -W "$(_ocrec_options; _ocrec_options record)" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_ocrec_commands)" -- "$cur")
		fi
		return 0
	fi

	case $cmd in
	help)
		((COMP_CWORD == cmd_at + 1)) && mapfile -t COMPREPLY < <(compgen -W "$(_ocrec_commands)" -- "$cur")
		return 0 ;;
	perf)
		# ocrec perf's own options, then perf's command line: -e still takes our events
		if [[ $prev == -e || $prev == --event ]]; then
			_ocrec_complete_events "$cur"; return 0
		fi
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$(_ocrec_options perf)" -- "$cur")
		fi
		return 0 ;;
	esac

	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_ocrec_options "$cmd")" -- "$cur")
		return 0
	fi

	case $cmd in
	resolve|list-events)
		_ocrec_complete_events "$cur" ;;
	record|stat)
		# the program to run
		mapfile -t COMPREPLY < <(compgen -c -- "$cur"; compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null ;;
	*)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		compopt -o filenames 2>/dev/null ;;
	esac
	return 0
}
complete -F _ocrec ocrec
