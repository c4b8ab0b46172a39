/* afdo-perfscript.c — llvm-profgen's input: `perf script -F ip,brstack` text,
 * optionally with `--show-mmap-events` PERF_RECORD_MMAP2 lines that say where
 * the binary was loaded. Sample lines carry no pid, so every mapping of the
 * binary applies (as in llvm-profgen 14). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "session/session.h"
#include "util/util.h"

/* Identical stack lines are counted once and parsed once (llvm-profgen
 * aggregates the same way); pending lines are flushed before the binary's
 * mapping changes and when they hold too much text. */
#define MAX_PENDING_BYTES (256u << 20)

struct pending_line {
	char *text;
	size_t len;
	uint64_t count;
};

struct reader {
	const char *path;
	struct afdo_binary *bin;
	struct afdo_counts *counts;
	struct afdo_mapper *mapper;
	struct hmap index;           /* afdo_pair (hash, probe) -> line index + 1 */
	struct pending_line *lines;
	size_t nr_lines, cap_lines, bytes;
	struct pd_branch *br;        /* as many entries as the longest line can hold */
	struct afdo_lbr *lbr;
	size_t cap_br, cap_lbr;
	uint64_t stacks;
	bool warned;
};

static uint64_t hash_text(const char *s, size_t n)
{
	uint64_t h = n * 0x9e3779b97f4a7c15ULL, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	return hash_u64(h ^ w);
}

static void add_line(struct reader *r, const char *text, size_t len)
{
	uint64_t h = hash_text(text, len), k;

	for (k = 0;; k++) {
		uint64_t *v = hmap_get(&r->index, &(struct afdo_pair){ h, k });
		struct pending_line *pl;
		if (*v) {
			pl = &r->lines[*v - 1];
			if (pl->len == len && !memcmp(pl->text, text, len)) {
				pl->count++;
				return;
			}
			continue;
		}
		GROW(r->lines, r->cap_lines, r->nr_lines + 1);
		pl = &r->lines[r->nr_lines];
		/* the whole line, NULs and all: xstrndup() would stop at a NUL, and
		 * the comparison above reads len bytes */
		pl->text = xmalloc(len + 1);
		memcpy(pl->text, text, len);
		pl->text[len] = 0;
		pl->len = len;
		pl->count = 1;
		r->bytes += len;
		*v = ++r->nr_lines;
		return;
	}
}

static void count_line(struct reader *r, const char *text, size_t len, uint64_t count)
{
	struct pd_branch *br;
	struct afdo_lbr *lbr;
	struct pst_line pl;
	size_t i;

	/* an entry takes at least 4 characters: "a/b" and a blank */
	GROW(r->br, r->cap_br, len / 4 + 1);
	br = r->br;
	if (pst_parse_line(text, br, r->cap_br, &pl) < 0 || pl.kind != PST_BRANCHES || !pl.nr_branches)
		return;   /* the ip line of a call stack, a comm header, ... */
	if (!afdo_mapper_count(r->mapper) && !r->warned) {
		oc_warn("%s: no MMAP2 event for %s: using its link-time addresses", r->path,
			afdo_binary_path(r->bin));
		r->warned = true;
	}
	GROW(r->lbr, r->cap_lbr, pl.nr_branches);
	lbr = r->lbr;
	for (i = 0; i < pl.nr_branches; i++) {
		lbr[i].from_in = afdo_mapper_map(r->mapper, -1, br[i].from, &lbr[i].from);
		lbr[i].to_in = afdo_mapper_map(r->mapper, -1, br[i].to, &lbr[i].to);
		lbr[i].spec_wrong = pd_br_spec(&br[i]) == 1;   /* PERF_BR_SPEC_WRONG_PATH */
	}
	afdo_counts_add_stack(r->counts, lbr, pl.nr_branches, count);
	r->stacks += count;
}

static void flush_lines(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_lines; i++) {
		count_line(r, r->lines[i].text, r->lines[i].len, r->lines[i].count);
		free(r->lines[i].text);
	}
	r->nr_lines = 0;
	r->bytes = 0;
	hmap_free(&r->index);
}

int afdo_read_perfscript(const char *path, struct afdo_binary *b, struct afdo_counts *c,
			 const struct afdo_input_opts *opts)
{
	struct reader r = { .path = path, .bin = b, .counts = c };
	FILE *fp = fopen(path, "r");
	struct line_reader lr;
	char *line;
	size_t len;
	int ret = 0;

	(void)opts;
	if (!fp)
		return oc_err_errno("cannot open %s", path);
	r.mapper = afdo_mapper_new(b, true);
	hmap_init(&r.index, sizeof(struct afdo_pair), sizeof(uint64_t), NULL);
	lr_init(&lr, fp, PST_MAX_LINE);
	while ((line = lr_next(&lr, &len))) {
		char *p = line, *end, *mm;
		unsigned long lineno = lr.lineno;

		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		/* Only an mmap event line has a '[' (memchr is much cheaper than
		 * strstr); with more -F fields the record name follows comm, pid
		 * and time, so it is searched for, not expected first. */
		if (memchr(p, '[', (size_t)(line + len - p)) && (mm = strstr(p, "PERF_RECORD_MMAP"))) {
			struct pst_line pl;

			/* the parser reads up to a NUL: a line holding one may not be an mmap line to it */
			if (pst_parse_line(mm, NULL, 0, &pl) != 0 || pl.kind != PST_MMAP) {
				ret = oc_err("%s:%lu: malformed %.*s line", path, lineno,
					     (int)strcspn(mm, " "), mm);
				break;
			}
			if (session_binary_path_matches(afdo_binary_id(b), pl.path)) {
				flush_lines(&r);
				afdo_mapper_add(r.mapper, -1, pl.start, pl.len, pl.pgoff);
			}
			continue;
		}
		if (!memchr(p, '/', (size_t)(line + len - p)))
			continue;
		/* the leading sample ip is not part of the stack */
		end = p + strcspn(p, " \t");
		if (!memchr(p, '/', (size_t)(end - p)))
			p = end;
		add_line(&r, p, (size_t)(line + len - p));
		if (r.bytes > MAX_PENDING_BYTES)
			flush_lines(&r);
	}
	if (!ret && lr.too_long)
		ret = oc_err("%s:%lu: a line longer than %u MiB", path, lr.lineno + 1, PST_MAX_LINE >> 20);
	else if (ferror(fp) && !ret)
		ret = oc_err_errno("cannot read %s", path);
	flush_lines(&r);
	if (!ret && !r.stacks)
		ret = oc_err("%s: no branch stacks in the file (want `perf script -F ip,brstack` output)", path);
	free(r.lines);
	free(r.br);
	free(r.lbr);
	lr_free(&lr);
	fclose(fp);
	afdo_mapper_free(r.mapper);
	return ret;
}
