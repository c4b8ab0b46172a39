# gawk-workload.sh — the log-processing workload of bench/autofdo-gawk.sh and
# bench/sampler.sh, sourced by both: a log-like text file, aggregated by
# fields, regexes and printf.
# gawk_input LINES FILE: the input; gawk_script FILE: the awk program.
gawk_input() {
	awk -v n="$1" 'BEGIN { srand(42); for (i = 0; i < n; i++)
		printf "%d,user%d,%s,%d.%02d,/path/%d/item%d.html\n", i, int(rand() * 5000),
		    (rand() < 0.3 ? "GET" : (rand() < 0.5 ? "POST" : "PUT")), int(rand() * 900),
		    int(rand() * 100), int(rand() * 50), int(rand() * 1000) }' >"$2"
}

gawk_script() {
	cat >"$1" <<'EOF'
BEGIN { FS = "," }
{
	bytes[$2] += $4; hits[$3]++
	if ($5 ~ /item[0-9]*7\.html$/) special++
	n = split($5, parts, "/"); depth[n]++
	key = toupper(substr($2, 1, 5)) "-" $3; seen[key]++
}
END {
	for (u in bytes) total += bytes[u]
	for (k in seen) if (seen[k] > 40) big++
	printf "%d users %.2f bytes %d special %d big\n", length(bytes), total, special, big
}
EOF
}
