#!/bin/sh
# bolt-synth-pa.sh BINARY: pre-aggregated text (llvm-bolt -pa) with made-up
# traces from every instruction of every function to the next few ones, and
# branches between instructions far apart: the model of the binary decides
# every fall-through line perf2bolt makes of them. Instruction addresses come
# from objdump's linear disassembly, symbol by symbol.
objdump -d --no-show-raw-insn "$1" | awk '
/^[0-9a-f]+ <.*>:$/ { flush(); next }
/^ *[0-9a-f]+:\t/ { sub(/:.*/, "", $1); a[n++] = $1 }
function flush(  i, k, d) {
	for (i = 0; i < n; i++) {
		split("1 2 3 5 8", d, " ")
		for (k = 1; k <= 5; k++)
			if (i + d[k] < n) printf "F %s %s %d\n", a[i], a[i + d[k]], k
		if (i + 1 < n) printf "f %s %s 7\n", a[i], a[i + 1]
		if (i + 2 < n) printf "f %s %s 11\n", a[i], a[i + 2]
		if (i % 7 == 0 && i + 4 < n) printf "B %s %s 3 1\n", a[i + 4], a[i]
	}
	if (n && prev != "") printf "B %s %s 5 0\n", a[n - 1], prev
	if (n) prev = a[0]
	n = 0
}
END { flush() }'
