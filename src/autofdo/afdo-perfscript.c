/* afdo-perfscript.c — llvm-profgen's input: `perf script -F ip,brstack` text,
 * optionally with `--show-mmap-events` PERF_RECORD_MMAP2 lines that say where
 * the binary was loaded. Sample lines carry no pid, so every mapping of the
 * binary applies (as in llvm-profgen 14). */
#define _GNU_SOURCE   /* memmem */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "autofdo/afdo-internal.h"
#include "script/script.h"
#include "util/util.h"

#define MAX_STACK 256

/* hex digit values, -1 for anything else */
static signed char hex_value[256];

static void init_hex_values(void)
{
	int c;
	for (c = 0; c < 256; c++)
		hex_value[c] = c >= '0' && c <= '9' ? (signed char)(c - '0') :
			       c >= 'a' && c <= 'f' ? (signed char)(c - 'a' + 10) :
			       c >= 'A' && c <= 'F' ? (signed char)(c - 'A' + 10) : -1;
}

static inline int hex_digit(char c)
{
	return hex_value[(unsigned char)c];
}

/* "0x" and hex digits at *pp; advances past them. Hand-written: this loop
 * is most of the time spent on a large trace. */
static bool parse_hex(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int d;

	if (p[0] != '0' || p[1] != 'x')
		return false;
	p += 2;
	if (hex_digit(*p) < 0)
		return false;
	while ((d = hex_digit(*p)) >= 0) {
		v = v << 4 | (uint64_t)d;
		p++;
	}
	*out = v;
	*pp = p;
	return true;
}

/* One "0xFROM/0xTO/P/-/-/CYC[/TYPE/SPEC]" entry at *pp; *pp moves past the token. */
static bool parse_entry(const char **pp, uint64_t *from, uint64_t *to, bool *wrong_path)
{
	const char *p = *pp, *tok = p;
	unsigned slashes = 0;
	bool ok;

	ok = parse_hex(&p, from) && *p == '/' && (p++, parse_hex(&p, to)) && (*p == '/' || !*p ||
									   *p == ' ' || *p == '\t');
	while (*p && *p != ' ' && *p != '\t')
		slashes += *p++ == '/';
	/* perf 6.12 adds /TYPE/SPEC: a wrong-path entry never retired */
	*wrong_path = ok && slashes >= 6 && memmem(tok, (size_t)(p - tok), "WRONG_PATH", 10) != NULL;
	*pp = p;
	return ok;
}

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
		pl->text = xstrndup(text, len);
		pl->len = len;
		pl->count = 1;
		r->bytes += len;
		*v = ++r->nr_lines;
		return;
	}
}

static void count_line(struct reader *r, const char *p, uint64_t count)
{
	struct afdo_lbr lbr[MAX_STACK];
	struct {
		uint64_t from, to;
		bool wrong;
	} raw[MAX_STACK];
	size_t n = 0, i;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if (n < MAX_STACK && parse_entry(&p, &raw[n].from, &raw[n].to, &raw[n].wrong))
			n++;
	}
	if (!n)
		return;   /* the ip line of a call stack, a comm header, ... */
	if (!afdo_mapper_count(r->mapper) && !r->warned) {
		oc_warn("%s: no MMAP2 event for %s: using its link-time addresses", r->path,
			afdo_binary_path(r->bin));
		r->warned = true;
	}
	for (i = 0; i < n; i++) {
		lbr[i].from_in = afdo_mapper_map(r->mapper, -1, raw[i].from, &lbr[i].from);
		lbr[i].to_in = afdo_mapper_map(r->mapper, -1, raw[i].to, &lbr[i].to);
		lbr[i].spec_wrong = raw[i].wrong;
	}
	afdo_counts_add_stack(r->counts, lbr, n, count);
	r->stacks += count;
}

static void flush_lines(struct reader *r)
{
	size_t i;

	for (i = 0; i < r->nr_lines; i++) {
		count_line(r, r->lines[i].text, r->lines[i].count);
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
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int ret = 0;

	(void)opts;
	init_hex_values();
	if (!fp)
		return oc_err_errno("cannot open %s", path);
	r.mapper = afdo_mapper_new(b, true);
	hmap_init(&r.index, sizeof(struct afdo_pair), sizeof(uint64_t), NULL);
	while ((len = getline(&line, &cap, fp)) >= 0) {
		char *p = line, *end, *mm;

		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		while (isspace((unsigned char)*p))
			p++;
		/* Only an mmap event line has a '[' (memchr is much cheaper than
		 * strstr); with more -F fields the record name follows comm, pid
		 * and time, so it is searched for, not expected first. */
		if (memchr(p, '[', (size_t)(line + len - p)) && (mm = strstr(p, "PERF_RECORD_MMAP"))) {
			int64_t pid;
			uint64_t start, mlen, pgoff;
			const char *file;

			if (script_parse_mmap_line(mm, &pid, &start, &mlen, &pgoff, &file) != 0) {
				ret = oc_err("%s:%lu: malformed %.*s line", path, lineno,
					     (int)strcspn(mm, " "), mm);
				break;
			}
			if (afdo_path_matches(b, file)) {
				flush_lines(&r);
				afdo_mapper_add(r.mapper, -1, start, mlen, pgoff);
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
	if (ferror(fp) && !ret)
		ret = oc_err_errno("cannot read %s", path);
	flush_lines(&r);
	if (!ret && !r.stacks)
		ret = oc_err("%s: no branch stacks in the file (want `perf script -F ip,brstack` output)", path);
	free(r.lines);
	free(line);
	fclose(fp);
	afdo_mapper_free(r.mapper);
	return ret;
}
