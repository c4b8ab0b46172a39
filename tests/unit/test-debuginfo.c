/* test-debuginfo.c — di_lookup against llvm-symbolizer on programs compiled
 * now (gcc DWARF 5 and 4, clang), every byte address of the sampled functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "tap.h"
#include "util/util.h"

#define SRC "tests/progs/autofdo-inline.c"

struct ref_frame {
	char func[128];
	unsigned line, column, start_line, disc;
};

static char tmpdir[4096];

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc == 0 ? 0 : -1;
}

/* Symbol start and size of name, from nm. */
static int symbol_range(const char *bin, const char *name, uint64_t *start, uint64_t *size)
{
	char *cmd = xasprintf("nm -S %s", bin), line[512];
	FILE *fp = popen(cmd, "r");
	int found = -1;
	free(cmd);
	while (fp && fgets(line, sizeof(line), fp)) {
		unsigned long long a, s;
		char type, sym[256];
		if (sscanf(line, "%llx %llx %c %255s", &a, &s, &type, sym) == 4 && !strcmp(sym, name)) {
			*start = a;
			*size = s;
			found = 0;
		}
	}
	if (fp)
		pclose(fp);
	return found;
}

/* Reads one llvm-symbolizer --verbose answer (frames until a blank line). */
static int read_ref(FILE *fp, struct ref_frame *fr, int max)
{
	char line[1024];
	int n = -1;
	while (fgets(line, sizeof(line), fp)) {
		if (line[0] == '\n') {
			if (n >= 0)
				break;
			continue;
		}
		if (line[0] != ' ') {
			if (++n >= max)
				return -1;
			memset(&fr[n], 0, sizeof(fr[n]));
			snprintf(fr[n].func, sizeof(fr[n].func), "%.*s", (int)strcspn(line, "\n"), line);
			continue;
		}
		if (n < 0)
			continue;
		sscanf(line, "  Function start line: %u", &fr[n].start_line);
		sscanf(line, "  Line: %u", &fr[n].line);
		sscanf(line, "  Column: %u", &fr[n].column);
		sscanf(line, "  Discriminator: %u", &fr[n].disc);
	}
	return n + 1;
}

/* Compare every byte address of func with llvm-symbolizer; returns mismatches. */
static int compare_function(struct debuginfo *di, const char *bin, const char *func,
			    int *inlined_seen)
{
	uint64_t start, size, a;
	char *addrs = xasprintf("%s/addrs", tmpdir), *cmd;
	FILE *fp;
	int bad = 0;

	if (symbol_range(bin, func, &start, &size) != 0)
		return 1;
	fp = fopen(addrs, "w");
	for (a = start; a < start + size; a++)
		fprintf(fp, "0x%llx\n", (unsigned long long)a);
	fclose(fp);
	cmd = xasprintf("llvm-symbolizer --verbose --inlines --functions=linkage --obj=%s < %s", bin, addrs);
	fp = popen(cmd, "r");
	for (a = start; fp && a < start + size; a++) {
		struct ref_frame ref[DI_MAX_FRAMES];
		struct di_location loc;
		int nref = read_ref(fp, ref, DI_MAX_FRAMES), i;

		if (nref <= 0 || !strcmp(ref[0].func, "??"))
			continue;
		if (di_lookup(di, a, &loc) != 0 || loc.nr_frames != nref) {
			if (bad++ < 5)
				printf("# %s 0x%llx: %d frames, symbolizer %d\n", bin, (unsigned long long)a,
				       loc.nr_frames, nref);
			continue;
		}
		if (nref > 1)
			(*inlined_seen)++;
		for (i = 0; i < nref; i++) {
			const struct di_frame *f = &loc.frames[i];
			if (strcmp(f->linkage_name, ref[i].func) || f->line != ref[i].line ||
			    f->column != ref[i].column || f->decl_line != ref[i].start_line ||
			    f->discriminator != ref[i].disc) {
				if (bad++ < 5)
					printf("# %s 0x%llx frame %d: %s:%u:%u start %u disc %u, symbolizer %s:%u:%u start %u disc %u\n",
					       bin, (unsigned long long)a, i, f->linkage_name, f->line, f->column,
					       f->decl_line, f->discriminator, ref[i].func, ref[i].line,
					       ref[i].column, ref[i].start_line, ref[i].disc);
				break;
			}
		}
	}
	if (fp)
		pclose(fp);
	free(cmd);
	free(addrs);
	return bad;
}

static void check_binary(const char *label, const char *compile)
{
	char *bin = xasprintf("%s/%s", tmpdir, label), *cmd, *name;
	struct debuginfo *di;
	struct di_location loc;
	uint64_t start, size, a;
	unsigned call_line = marker_line(SRC, "@work_call"), scale_decl = marker_line(SRC, "scale(long v)");
	int inlined = 0, found_chain = 0;

	cmd = xasprintf("%s -O2 -g -o %s " SRC " 2>/dev/null", compile, bin);
	if (run(cmd) != 0) {
		name = xasprintf("%s: compile", label);
		SKIP(name, "compiler not available");
		free(name);
		free(cmd);
		free(bin);
		return;
	}
	di = di_open(bin);
	name = xasprintf("%s: di_open", label);
	CHECK(di != NULL, name);
	free(name);
	if (!di)
		goto out;
	name = xasprintf("%s: has lines", label);
	CHECK(di_has_lines(di), name);
	free(name);

	name = xasprintf("%s: every address of work() and main() as llvm-symbolizer says", label);
	CHECK(compare_function(di, bin, "work", &inlined) + compare_function(di, bin, "main", &inlined) == 0, name);
	free(name);
	name = xasprintf("%s: inline chains seen", label);
	CHECK(inlined > 0, name);
	free(name);

	/* the inlined scale() is reported inside work() at the call line */
	if (symbol_range(bin, "work", &start, &size) == 0) {
		for (a = start; a < start + size && !found_chain; a++)
			if (di_lookup(di, a, &loc) == 0 && loc.nr_frames == 2 &&
			    !strcmp(loc.frames[0].function, "scale") && !strcmp(loc.frames[1].function, "work"))
				found_chain = loc.frames[1].line == call_line &&
					      loc.frames[0].decl_line == scale_decl &&
					      str_ends_with(loc.frames[0].file, "autofdo-inline.c");
	}
	name = xasprintf("%s: scale inlined at the @work_call line", label);
	CHECK(found_chain, name);
	free(name);
	name = xasprintf("%s: address 0 has no line", label);
	CHECK(di_lookup(di, 0, &loc) == -1 && loc.nr_frames == 0, name);
	free(name);
	di_close(di);
out:
	free(cmd);
	free(bin);
}

int main(void)
{
	struct debuginfo *di;
	struct di_location loc;
	char *cmd, *stripped;

	if (!test_mkdtemp(tmpdir, sizeof(tmpdir), "ocrec-di.XXXXXX")) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	if (system("llvm-symbolizer --version >/dev/null 2>&1") != 0) {
		SKIP("debuginfo", "llvm-symbolizer is not installed (make deps)");
		return 0;
	}
	check_binary("gcc-dwarf5", "gcc");
	check_binary("gcc-dwarf4", "gcc -gdwarf-4");
	check_binary("clang", "clang");

	stripped = xasprintf("%s/stripped", tmpdir);
	cmd = xasprintf("gcc -O2 -o %s " SRC " && strip %s", stripped, stripped);
	if (run(cmd) == 0) {
		di = di_open(stripped);
		CHECK(di != NULL, "a binary without DWARF opens");
		CHECK(!di_has_lines(di), "a binary without DWARF has no lines");
		CHECK(di_lookup(di, 0x1000, &loc) == -1, "lookup without DWARF fails");
		di_close(di);
	}
	free(cmd);
	CHECK(di_open("/nonexistent/binary") == NULL && strstr(oc_errmsg(), "/nonexistent/binary"),
	      "a missing file is an error naming it");
	CHECK(di_open(SRC) == NULL && strstr(oc_errmsg(), "not an ELF"), "a text file is not ELF");

	cmd = xasprintf("rm -rf %s", tmpdir);
	run(cmd);
	free(cmd);
	free(stripped);
	return test_done();
}
