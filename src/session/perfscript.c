/* perfscript.c — perf script text as llvm-profgen reads it (L14
 * tools/llvm-profgen/PerfReader.cpp): `perf script -F ip,brstack` lines,
 * call-stack address lines of hybrid samples before them, and
 * `--show-mmap-events` PERF_RECORD_MMAP2 lines. One parser for report's and
 * autofdo's --perfscript, and a session input built on it. */
#define _GNU_SOURCE   /* memmem */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "session/session-internal.h"
#include "util/util.h"

#define MAX_BUFFER_BRANCHES 256

/* hex digit values, -1 for anything else */
static signed char hex_value[256];

static void init_hex_values(void)
{
	static bool done;
	int c;

	if (done)
		return;
	for (c = 0; c < 256; c++)
		hex_value[c] = c >= '0' && c <= '9' ? (signed char)(c - '0') :
			       c >= 'a' && c <= 'f' ? (signed char)(c - 'a' + 10) :
			       c >= 'A' && c <= 'F' ? (signed char)(c - 'A' + 10) : -1;
	done = true;
}

static inline int hex_digit(char c)
{
	return hex_value[(unsigned char)c];
}

/* Hex digits at *pp ("0x" first when need_0x); advances past them.
 * Hand-written: this loop is most of the time spent on a large trace. */
static bool parse_hex(const char **pp, bool need_0x, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int d;

	if (p[0] == '0' && p[1] == 'x')
		p += 2;
	else if (need_0x)
		return false;
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

static inline bool token_end(char c)
{
	return !c || c == ' ' || c == '\t';
}

/* One "0xFROM/0xTO[/M|P|-/X|-/A|-/CYCLES[/TYPE[/SPEC]]]" token at *pp; *pp
 * moves past the token either way. */
static bool parse_entry(const char **pp, struct pd_branch *b)
{
	const char *p = *pp, *tok = p;
	unsigned field = 2, mispred = 0, predicted = 0, cycles = 0;
	uint64_t from, to;
	bool ok;

	ok = parse_hex(&p, true, &from) && *p == '/' && (p++, parse_hex(&p, true, &to)) &&
	     (*p == '/' || token_end(*p));
	while (!token_end(*p)) {
		if (*p++ != '/')
			continue;
		field++;
		if (field == 3) {
			mispred = *p == 'M';
			predicted = *p == 'P';
		} else if (field == 6) {
			for (; *p >= '0' && *p <= '9'; p++)
				cycles = cycles < 0xffff ? cycles * 10 + (unsigned)(*p - '0') : 0xffff;
		}
	}
	*pp = p;
	if (!ok)
		return false;
	b->from = from;
	b->to = to;
	b->flags = pd_br_make_flags(mispred, predicted, cycles > 0xffff ? 0xffff : cycles, 0);
	/* perf 6.12 adds /TYPE/SPEC: a wrong-path entry never retired (PERF_BR_SPEC_WRONG_PATH) */
	if (field >= 8 && memmem(tok, (size_t)(p - tok), "WRONG_PATH", 10))
		b->flags |= 1ULL << 24;
	return true;
}

/* "... PERF_RECORD_MMAP2 PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH" */
static int parse_mmap(const char *line, struct pst_line *out)
{
	const char *p = strstr(line, "PERF_RECORD_MMAP");
	char *end;

	if (!p || !(p = strchr(p, ' ')))
		return -1;
	out->pid = strtoll(p + 1, &end, 10);
	p = strchr(end, '[');
	if (!p)
		return -1;
	out->start = strtoull(p + 1, &end, 0);
	if (*end != '(')
		return -1;
	out->len = strtoull(end + 1, &end, 0);
	p = strchr(end, '@');
	if (!p)
		return -1;
	out->pgoff = strtoull(p + 1, &end, 0);
	p = strstr(end, "]: ");
	if (!p)
		return -1;
	p += 3;
	while (*p && *p != ' ')
		p++;   /* protection */
	while (*p == ' ')
		p++;
	out->path = p;
	return *p ? 0 : -1;
}

int pst_parse_line(const char *line, struct pd_branch *br, size_t max_br, struct pst_line *out)
{
	const char *p = line, *mm;
	uint64_t v;

	init_hex_values();
	memset(out, 0, sizeof(*out));
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || !strncmp(p, "//", 2) || *p == '#') {
		out->kind = PST_EMPTY;
		return 0;
	}
	/* only an mmap event line has a '[' (strchr is much cheaper than strstr) */
	if (strchr(p, '[') && (mm = strstr(p, "PERF_RECORD_MMAP"))) {
		out->kind = PST_MMAP;
		return parse_mmap(mm, out);
	}
	if (!strchr(p, '/')) {
		const char *q = p;
		out->kind = PST_OTHER;
		if (parse_hex(&q, false, &v)) {
			while (*q == ' ' || *q == '\t')
				q++;
			if (!*q) {
				out->kind = PST_ADDRESS;
				out->ip = v;
			}
		}
		return 0;
	}
	out->kind = PST_BRANCHES;
	while (*p) {
		const char *tok;
		struct pd_branch b;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok = p;
		while (!token_end(*p) && *p != '/')
			p++;
		if (*p != '/') {
			/* a token without '/': the sample ip (the last one, as the fields come) */
			const char *q = tok;
			if (parse_hex(&q, false, &v) && token_end(*q))
				out->ip = v;
			continue;
		}
		p = tok;
		if (!parse_entry(&p, &b)) {
			if (!out->nr_bad++)
				out->bad = tok;
		} else if (out->nr_branches < max_br) {
			br[out->nr_branches++] = b;
		}
	}
	return 0;
}

int pst_parse_buffer(const char *buf, size_t len,
		     int (*fn)(const struct pst_line *line, const struct pd_branch *br, void *arg), void *arg)
{
	struct pd_branch *br = xmalloc(MAX_BUFFER_BRANCHES * sizeof(*br));
	char *text = NULL;
	size_t pos = 0, cap = 0, lineno = 0;
	int ret = 0;

	while (pos < len && !ret) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (buf + pos)) : len - pos;
		struct pst_line pl;

		lineno++;
		GROW(text, cap, n + 1);
		memcpy(text, buf + pos, n);
		text[n] = 0;
		if (n && text[n - 1] == '\r')
			text[n - 1] = 0;
		pos += n + 1;
		if (pst_parse_line(text, br, MAX_BUFFER_BRANCHES, &pl) < 0)
			ret = oc_err("line %zu: malformed PERF_RECORD_MMAP line", lineno);
		else
			ret = fn(&pl, br, arg);
	}
	free(text);
	free(br);
	return ret;
}

/* --- perf script text as a session input --- */

static struct pd_attr text_attr = {
	.attr = { .type = PERF_TYPE_HARDWARE, .size = sizeof(struct perf_event_attr),
		  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK,
		  .branch_sample_type = PERF_SAMPLE_BRANCH_ANY },
	.name = (char *)"perf-script",
};
static struct pd_info text_info = {
	.pipe_mode = true, .features = { 1ULL << PD_FEAT_BRANCH_STACK }, .attrs = &text_attr, .nr_attrs = 1,
};

static bool same_basename(const char *a, const char *b)
{
	return strcmp(str_basename(a), str_basename(b)) == 0;
}

static int deliver_mmap(struct session *s, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
			const char *file)
{
	struct pd_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = PERF_RECORD_MMAP2;
	ev.misc = PERF_RECORD_MISC_USER;
	ev.attr_index = -1;
	ev.u.mmap.pid = ev.u.mmap.tid = pid;
	ev.u.mmap.start = start;
	ev.u.mmap.len = len;
	ev.u.mmap.pgoff = pgoff;
	ev.u.mmap.prot = PROT_READ | PROT_EXEC;
	ev.u.mmap.filename = file;
	return session_deliver(s, &ev);
}

/* The binary at its own addresses, for text without MMAP2 lines. */
static int map_at_own_addresses(struct session *s, const char *binary, uint32_t pid)
{
	struct dso *d = dso_open_file(binary);
	size_t i;
	int ret = 0;

	if (!d) {
		oc_warn("%s", oc_errmsg());
		oc_err_clear();
		return 0;
	}
	for (i = 0; i < d->nr_loads && !ret; i++)
		ret = deliver_mmap(s, pid, d->loads[i].vaddr, d->loads[i].filesz ? d->loads[i].filesz : 1,
				   d->loads[i].offset, binary);
	dso_free(d);
	return ret;
}

int session_read_perfscript(struct session *s, const char *path, const char *binary,
			    const struct session_tool *tool, void *arg)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct pd_branch *br = NULL;
	uint64_t *cc = NULL;
	size_t cap_br = 0, cap_cc = 0, nr_cc = 0, lineno = 0, len;
	struct line_reader lr;
	char *line;
	uint32_t pid = 0;
	bool mapped = false;
	unsigned event;
	int ret = 0;

	if (!fp)
		return oc_err_errno("cannot open %s", path);
	session_begin_input(s);
	s->info = &text_info;
	event = session_add_event(s, "perf-script", &text_attr.attr);
	s->tool = tool;
	s->arg = arg;
	lr_init(&lr, fp, PST_MAX_LINE);
	while (!ret && (line = lr_next(&lr, &len))) {
		struct pst_line pl;
		struct pd_sample smp;

		lineno = lr.lineno;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		/* an entry takes at least 8 characters */
		GROW(br, cap_br, (size_t)len / 8 + 1);
		if (pst_parse_line(line, br, cap_br, &pl) < 0) {
			ret = oc_err("%s:%zu: malformed PERF_RECORD_MMAP2 line", path, lineno);
			break;
		}
		switch (pl.kind) {
		case PST_EMPTY:
			break;
		case PST_OTHER:
			ret = oc_err("%s:%zu: expected an address or branch entries: '%.40s'", path, lineno, line);
			break;
		case PST_MMAP:
			pid = (uint32_t)pl.pid;
			ret = deliver_mmap(s, pid, pl.start, pl.len, pl.pgoff,
					   binary && same_basename(pl.path, binary) ? binary : pl.path);
			mapped = true;
			break;
		case PST_ADDRESS:
			if (nr_cc == PST_MAX_CALL_STACK) {
				ret = oc_err("%s:%zu: a call stack of more than %u addresses", path, lineno,
					     PST_MAX_CALL_STACK);
				break;
			}
			GROW(cc, cap_cc, nr_cc + 1);
			cc[nr_cc++] = pl.ip;
			break;
		case PST_BRANCHES:
			if (pl.nr_bad) {
				ret = oc_err("%s:%zu: malformed branch entry '%.*s'", path, lineno,
					     (int)strcspn(pl.bad, " \t"), pl.bad);
				break;
			}
			if (!mapped && binary) {
				mapped = true;
				if ((ret = map_at_own_addresses(s, binary, pid)) != 0)
					break;
			}
			memset(&smp, 0, sizeof(smp));
			smp.pid = smp.tid = pid;
			smp.period = 1;
			smp.branches = br;
			smp.branch_nr = pl.nr_branches;
			smp.callchain = cc;
			smp.callchain_nr = nr_cc;
			smp.ip = nr_cc ? cc[0] : pl.ip ? pl.ip : pl.nr_branches ? br[0].to : 0;
			ret = session_deliver_sample(s, &smp, event, PERF_RECORD_MISC_USER);
			nr_cc = 0;
			break;
		}
	}
	if (!ret && lr.too_long)
		ret = oc_err("%s:%lu: a line longer than %u MiB", path, lr.lineno + 1, PST_MAX_LINE >> 20);
	else if (!ret && ferror(fp))
		ret = oc_err_errno("cannot read %s", path);
	lr_free(&lr);
	free(br);
	free(cc);
	if (fp != stdin)
		fclose(fp);
	return session_end_input(s, ret);
}
