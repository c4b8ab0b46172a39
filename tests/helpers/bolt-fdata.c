/* bolt-fdata — BOLT's fdata from pre-aggregated text (B, F and f lines, as
 * `perf2bolt -pa` reads them) through ocrec's model of the binary, so tests
 * compare the model with perf2bolt on any traces they make up.
 * usage: bolt-fdata [--symbols FILE] BINARY < FILE.pa > FILE.fdata */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bolt/bolt-internal.h"
#include "util/util.h"

/* An address, maybe prefixed "BUILDID:". */
static uint64_t address(const char *s)
{
	const char *colon = strchr(s, ':');
	return strtoull(colon ? colon + 1 : s, NULL, 16);
}

int main(int argc, char **argv)
{
	const char *symbols = NULL, *path = NULL;
	struct bolt_binary *b;
	struct bolt_profile *p;
	char line[4096];
	int a, rc;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--symbols") && a + 1 < argc)
			symbols = argv[++a];
		else
			path = argv[a];
	}
	if (!path) {
		fprintf(stderr, "usage: bolt-fdata [--symbols FILE] BINARY < FILE.pa\n");
		return 2;
	}
	b = bolt_binary_open(path, symbols);
	if (!b) {
		fprintf(stderr, "bolt-fdata: %s\n", oc_errmsg());
		return 1;
	}
	p = bolt_profile_new(b);
	while (fgets(line, sizeof(line), stdin)) {
		char kind[4], from[128], to[128];
		uint64_t count = 0, mis = 0;
		int n = sscanf(line, "%3s %127s %127s %" SCNu64 " %" SCNu64, kind, from, to, &count, &mis);
		if (n >= 4 && (!strcmp(kind, "B") || !strcmp(kind, "F") || !strcmp(kind, "f")))
			bolt_profile_add_aggregated(p, kind[0], address(from), address(to), count, mis);
	}
	rc = bolt_write_fdata(p, stdout) ? 1 : 0;
	bolt_profile_free(p);
	bolt_binary_close(b);
	return rc;
}
