/* input-text.c — perf script text as llvm-profgen reads it: `perf script -F
 * ip,brstack` lines (optionally preceded by call-stack address lines for hybrid
 * samples) and `--show-mmap-events` PERF_RECORD_MMAP2 lines
 * (llvm-project 14 llvm/tools/llvm-profgen/PerfReader.cpp). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"
#include "script/script.h"

/* "0xFROM/0xTO/P|M|-/X|-/A|-/CYCLES[/TYPE]" */
static int parse_entry(const char *tok, struct report_branch *b)
{
	char *end;
	memset(b, 0, sizeof(*b));
	b->from = strtoull(tok, &end, 16);
	if (*end != '/')
		return -1;
	b->to = strtoull(end + 1, &end, 16);
	if (*end != '/')
		return -1;
	end++;
	b->mispred = *end == 'M';
	b->predicted = *end == 'P';
	end = strchr(end, '/');
	if (end)
		end = strchr(end + 1, '/');
	if (end)
		end = strchr(end + 1, '/');
	if (end)
		b->cycles = (unsigned)strtoul(end + 1, NULL, 10);
	return 0;
}

static void map_binary_at_own_addresses(struct report *r, const char *binary, uint32_t pid)
{
	struct dso *d = dso_open_file(binary);
	size_t i;
	if (!d) {
		oc_warn("%s", oc_errmsg());
		oc_err_clear();
		return;
	}
	for (i = 0; i < d->nr_loads; i++)
		report_mmap(r, pid, d->loads[i].vaddr, d->loads[i].filesz ? d->loads[i].filesz : 1,
			    d->loads[i].offset, binary, false);
	dso_free(d);
}

static bool same_basename(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	return strcmp(sa ? sa + 1 : a, sb ? sb + 1 : b) == 0;
}

int report_read_perfscript(struct report *r, const char *path, const char *binary)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct report_branch *br = NULL;
	size_t cap_br = 0, cap_cc = 0, nr_cc = 0, lineno = 0, linecap = 0;
	uint64_t *cc = NULL;
	char *line = NULL;
	ssize_t len;
	uint32_t pid = 0;
	bool mapped = false;
	int ev, ret = 0;

	if (!fp)
		return oc_err_errno("cannot open %s", path);
	ev = report_add_event(r, "perf-script");
	report_set_has_branch_stack(r, true);
	if (report_check(r) < 0) {
		if (fp != stdin)
			fclose(fp);
		return -1;
	}
	while ((len = getline(&line, &linecap, fp)) >= 0) {
		char *p = line, *tok, *save = NULL;
		size_t nr = 0;
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || str_starts_with(p, "//"))
			continue;
		if (strstr(p, "PERF_RECORD_MMAP2")) {
			uint64_t start, mlen, pgoff;
			const char *file;
			int64_t mpid;
			if (script_parse_mmap_line(p, &mpid, &start, &mlen, &pgoff, &file) < 0) {
				ret = oc_err("%s:%zu: malformed PERF_RECORD_MMAP2 line", path, lineno);
				break;
			}
			pid = (uint32_t)mpid;
			if (binary && same_basename(file, binary))
				file = binary;
			report_mmap(r, pid, start, mlen, pgoff, file, false);
			mapped = true;
			continue;
		}
		if (!strchr(p, '/')) {
			/* a call-stack address line of a hybrid sample */
			char *end;
			uint64_t a = strtoull(p, &end, 16);
			if (*end) {
				ret = oc_err("%s:%zu: expected an address or branch entries: '%.40s'", path, lineno, p);
				break;
			}
			GROW(cc, cap_cc, nr_cc + 1);
			cc[nr_cc++] = a;
			continue;
		}
		if (!mapped && binary) {
			map_binary_at_own_addresses(r, binary, pid);
			mapped = true;
		}
		uint64_t ip = 0;
		for (tok = strtok_r(p, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
			if (!strchr(tok, '/')) {
				ip = strtoull(tok, NULL, 16);
				continue;
			}
			GROW(br, cap_br, nr + 1);
			if (parse_entry(tok, &br[nr]) < 0) {
				ret = oc_err("%s:%zu: malformed branch entry '%s'", path, lineno, tok);
				break;
			}
			nr++;
		}
		if (ret)
			break;
		struct report_sample s = { .event = ev, .pid = pid, .tid = pid, .period = 1,
					   .branches = br, .nr_branches = nr, .callchain = cc, .nr_callchain = nr_cc };
		s.ip = nr_cc ? cc[0] : ip ? ip : (nr ? br[0].to : 0);
		report_sample(r, &s);
		nr_cc = 0;
	}
	free(line);
	free(br);
	free(cc);
	if (fp != stdin)
		fclose(fp);
	return ret;
}
