/* script.c — samples one per line, byte for byte as perf 6.1's `perf script`
 * prints the same fields (tools/perf/builtin-script.c), so that tools which
 * parse perf script text (llvm-profgen, BOLT, flame-graph scripts) read it. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "script/script.h"
#include "util/util.h"

static const struct name_bits field_names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "time", SF_TIME },
	{ "cpu", SF_CPU }, { "period", SF_PERIOD }, { "event", SF_EVENT }, { "ip", SF_IP },
	{ "addr", SF_ADDR }, { "sym", SF_SYM }, { "symoff", SF_SYMOFF }, { "dso", SF_DSO },
	{ "brstack", SF_BRSTACK }, { "brstacksym", SF_BRSTACKSYM },
};

int script_parse_fields(const char *spec, unsigned *fields)
{
	uint64_t bits;

	if (parse_name_bits(spec, field_names, ARRAY_SIZE(field_names), "-F", "field", &bits) < 0)
		return -1;
	*fields = (unsigned)bits;
	if (!*fields)
		return oc_err("-F: no fields given");
	return 0;
}

/* The sample_type bit a field needs, and perf's name for it. perf refuses a
 * field that an event cannot give (addr included, unless the file has
 * AUXTRACE, which ocrec does not decode), except branch stacks, printed
 * empty; the period comes from the attr when the samples do not carry it. */
static const struct {
	unsigned field;
	uint64_t bit;
	const char *bit_name, *name;
	bool may_lack;
} field_needs[] = {   /* in the order perf's evsel__check_attr() checks them */
	{ SF_IP, PERF_SAMPLE_IP, "IP", "ip", false }, { SF_ADDR, PERF_SAMPLE_ADDR, "ADDR", "addr", false },
	{ SF_TID, PERF_SAMPLE_TID, "TID", "tid", false }, { SF_PID, PERF_SAMPLE_TID, "TID", "pid", false },
	{ SF_TIME, PERF_SAMPLE_TIME, "TIME", "time", false }, { SF_CPU, PERF_SAMPLE_CPU, "CPU", "cpu", false },
	{ SF_BRSTACK, PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK", "brstack", true },
	{ SF_BRSTACKSYM, PERF_SAMPLE_BRANCH_STACK, "BRANCH_STACK", "brstacksym", true },
};
#define NEEDS_BEFORE_SYM 2   /* perf checks sym, symoff and dso after ip and addr */

/* perf script's output type of an event: hardware, software, tracepoint,
 * cache, raw, breakpoint, synthesized; any other PMU is "other" (7). */
static unsigned output_type(const struct perf_event_attr *a)
{
	if (a->type <= PERF_TYPE_BREAKPOINT)
		return a->type;
	return a->type == 0x80000000u ? 6 : 7;   /* PERF_TYPE_SYNTH */
}

static int check_need(const struct pd_attr *a, unsigned fields, size_t j)
{
	char *ev;

	if (!(fields & field_needs[j].field) || field_needs[j].may_lack ||
	    (a->attr.sample_type & field_needs[j].bit))
		return 0;
	ev = pd_attr_name(a);
	oc_err("Samples for '%s' event do not have %s attribute set. Cannot print '%s' field.",
	       ev, field_needs[j].bit_name, field_needs[j].name);
	free(ev);
	return -1;
}

/* perf's evsel__check_attr() for one event, its messages (first lines) word for word */
static int check_attr(const struct pd_attr *a, unsigned fields)
{
	bool has_addr = a->attr.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);
	size_t j;

	for (j = 0; j < NEEDS_BEFORE_SYM; j++)
		if (check_need(a, fields, j) < 0)
			return -1;
	if ((fields & SF_SYM) && !has_addr)
		return oc_err("Display of symbols requested but neither sample IP nor sample address");
	if ((fields & SF_SYMOFF) && !(fields & SF_SYM))
		return oc_err("Display of offsets requested but symbol is notselected.");
	if ((fields & SF_DSO) && !has_addr)
		return oc_err("Display of DSO requested but no address to convert.");
	for (; j < ARRAY_SIZE(field_needs); j++)
		if (check_need(a, fields, j) < 0)
			return -1;
	return 0;
}

int script_check_fields(const struct pd_info *info, unsigned fields)
{
	unsigned type;
	size_t i;

	/* a pipe's events come later: what needs none of them is checked now */
	if (!info->nr_attrs && (fields & SF_SYMOFF) && !(fields & SF_SYM))
		return oc_err("Display of offsets requested but symbol is notselected.");
	/* perf checks the first event of each output type, in type order */
	for (type = 0; type < 8; type++) {
		for (i = 0; i < info->nr_attrs && output_type(&info->attrs[i].attr) != type; i++)
			;
		if (i < info->nr_attrs && check_attr(&info->attrs[i], fields) < 0)
			return -1;
	}
	return 0;
}

unsigned script_default_fields(const struct pd_info *info)
{
	/* perf 6.1's default for hardware, software, cache, raw and other events */
	unsigned f = SF_COMM | SF_TID | SF_CPU | SF_TIME | SF_PERIOD | SF_EVENT | SF_IP | SF_SYM |
		     SF_SYMOFF | SF_DSO | SF_DEFAULT;
	size_t i, j;

	/* what some event lacks is left out, as perf does for its defaults */
	for (i = 0; i < info->nr_attrs; i++)
		for (j = 0; j < ARRAY_SIZE(field_needs); j++)
			if (!(info->attrs[i].attr.sample_type & field_needs[j].bit))
				f &= ~field_needs[j].field;
	return f;
}

/* --- samples ---------------------------------------------------------------- */

/* Branch entries repeat (hot loops): their text is cached by (from, to, the
 * flag bits perf prints), direct-mapped. */
#define BR_CACHE_BITS 12
#define BR_CACHE_SIZE (1u << BR_CACHE_BITS)
#define BR_FLAGS_SHOWN 0xffffffULL   /* mispred, predicted, in_tx, abort, cycles, type */
struct br_text {
	uint64_t from, to, flags;
	uint8_t len;                      /* 0: empty slot */
	char text[72];
};

struct printer {
	struct session *s;
	const struct session_sample *ss;   /* the sample being printed */
	unsigned fields;
	FILE *out;
	char modname[64];      /* dso_name()'s "[usbnet]" */
	bool pipe_checked;     /* pipe mode's fields settled (see on_begin()) */
	bool *named;           /* per session event: its name counted in name_width */
	size_t nr_named;
	int name_width;
	char *ob;              /* output, written in blocks (see ob_reserve) */
	size_t ob_len, ob_cap;
	struct br_text *br_cache;
};

/* An event's name, the column as wide as the longest name met so far (all
 * of a file's at the start, a pipe's as its samples come). */
static const char *name_of(struct printer *p, const struct session_event *ev)
{
	if (ev->index >= p->nr_named) {
		p->named = xrealloc(p->named, (ev->index + 1) * sizeof(*p->named));
		memset(p->named + p->nr_named, 0, (ev->index + 1 - p->nr_named) * sizeof(*p->named));
		p->nr_named = ev->index + 1;
	}
	if (!p->named[ev->index]) {
		p->named[ev->index] = true;
		if ((int)strlen(ev->name) > p->name_width)
			p->name_width = (int)strlen(ev->name);
	}
	return ev->name;
}

/* Eight nibbles of v (its low 32 bits) as eight lower-case hex digits, most
 * significant first, computed in one 64-bit word. */
static uint64_t hex8(uint32_t v)
{
	uint64_t x = v, letters;

	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;   /* nibble k in byte k */
	letters = ((x + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
	x += 0x3030303030303030ULL + letters * ('a' - '0' - 10);
	return __builtin_bswap64(x);                 /* byte 0 = the top nibble */
}

/* Lower-case hex without leading zeros, like %lx. Stores whole words (from
 * registers: a byte-wise copy through memory would stall on store forwarding),
 * so it may write up to 8 bytes past the returned end. Little-endian hosts. */
static char *put_hex(char *q, uint64_t v)
{
	int n = v ? (64 - __builtin_clzll(v) + 3) / 4 : 1;
	uint64_t w;

	if (n > 8) {
		w = hex8((uint32_t)(v >> 32)) >> (8 * (16 - n));   /* drop the leading zeros */
		memcpy(q, &w, 8);
		q += n - 8;
		w = hex8((uint32_t)v);
		memcpy(q, &w, 8);
		return q + 8;
	}
	w = hex8((uint32_t)v) >> (8 * (8 - n));
	memcpy(q, &w, 8);
	return q + n;
}

static char *put_dec(char *q, unsigned v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*q++ = tmp[--n];
	return q;
}

/* "/M/X/A/CYCLES/TYPE ", the flags perf 6.1 prints after an entry's addresses */
static char *format_branch_flags(char *q, const struct pd_branch *b)
{
	unsigned type = pd_br_type(b);
	const char *tn = type ? pd_br_type_name(type) : "";

	*q++ = '/';
	*q++ = pd_br_mispred(b) ? 'M' : pd_br_predicted(b) ? 'P' : '-';
	*q++ = '/';
	*q++ = pd_br_in_tx(b) ? 'X' : '-';
	*q++ = '/';
	*q++ = pd_br_abort(b) ? 'A' : '-';
	*q++ = '/';
	q = put_dec(q, pd_br_cycles(b));
	*q++ = '/';
	while (*tn)
		*q++ = *tn++;
	*q++ = ' ';
	return q;
}

/* " 0xFROM/0xTO/M/X/A/CYCLES/TYPE ", as perf 6.1 prints a branch entry;
 * at most 61 bytes, written with put_hex's overrun into the 72 of text[]. */
static char *format_branch(char *q, const struct pd_branch *b)
{
	*q++ = ' ', *q++ = '0', *q++ = 'x';
	q = put_hex(q, b->from);
	*q++ = '/', *q++ = '0', *q++ = 'x';
	q = put_hex(q, b->to);
	return format_branch_flags(q, b);
}

/* Lines are built in the printer's own buffer and handed to stdio a megabyte
 * at a time, which writes blocks that large straight through: no copy per
 * line into FILE's buffer (a tenth of the time with branch stacks). */
#define OB_BLOCK (1u << 20)

static void ob_flush(struct printer *p)
{
	if (p->ob_len)
		fwrite(p->ob, 1, p->ob_len, p->out);
	p->ob_len = 0;
}

/* Room for n more bytes at p->ob + p->ob_len. */
static char *ob_reserve(struct printer *p, size_t n)
{
	if (p->ob_len + n > p->ob_cap) {
		ob_flush(p);
		if (n > p->ob_cap) {
			p->ob_cap = n > OB_BLOCK ? n : OB_BLOCK;
			p->ob = xrealloc(p->ob, p->ob_cap);
		}
	}
	return p->ob + p->ob_len;
}

static void ob_printf(struct printer *p, const char *fmt, ...) OC_PRINTF(2, 3);
static void ob_printf(struct printer *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	ob_reserve(p, 256);
	va_start(ap, fmt);
	n = vsnprintf(p->ob + p->ob_len, p->ob_cap - p->ob_len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= p->ob_cap - p->ob_len) {   /* a long comm or event name */
		ob_reserve(p, (size_t)n + 1);
		va_start(ap, fmt);
		n = vsnprintf(p->ob + p->ob_len, p->ob_cap - p->ob_len, fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		p->ob_len += (size_t)n;
}

static void ob_putc(struct printer *p, char c)
{
	*ob_reserve(p, 1) = c;
	p->ob_len++;
}

/* --- symbols ------------------------------------------------------------------ */

/* Where addr is for the sample: in its cpumode's maps; with fallback (branch
 * entries, data addresses: perf's thread__find_map_fb()) then in the
 * address's own mode's. */
static const struct session_loc *resolve(struct printer *p, uint64_t addr, bool fallback)
{
	return session_resolve(p->s, p->ss, addr, fallback ? SESSION_AT_BRANCH_FB : SESSION_AT_IP);
}

/* The DSO name perf prints: a kernel module as "[usbnet]" for
 * /lib/modules/.../usbnet.ko (kmod_path__parse_name()), but by its path when
 * the file's build-id table names it (perf made its DSO from that table
 * first). */
static const char *dso_name(struct printer *p, const struct session_loc *loc)
{
	const struct pd_info *info = session_info(p->s);
	const char *name = loc->dso ? loc->dso->name : "[unknown]", *base = strrchr(name, '/'), *ko;
	size_t i, n;

	if (!loc->kernel || !base || !(ko = strstr(base, ".ko")) || (ko[3] && ko[3] != '.'))
		return name;
	for (i = 0; i < info->nr_build_ids; i++)
		if (!strcmp(info->build_ids[i].filename, name))
			return name;
	n = (size_t)(ko - base - 1);
	if (n > sizeof(p->modname) - 3)
		n = sizeof(p->modname) - 3;
	p->modname[0] = '[';
	for (i = 0; i < n; i++)
		p->modname[i + 1] = base[i + 1] == '-' ? '_' : base[i + 1];
	p->modname[n + 1] = ']';
	p->modname[n + 2] = 0;
	return p->modname;
}

/* " sym[+0xoff]" and " (dso)" after an ip, as sample__fprintf_sym() prints them */
static void put_sym_dso(struct printer *p, const struct session_loc *loc)
{
	if (p->fields & SF_SYM) {
		if (!loc->sym)
			ob_printf(p, " [unknown]");
		else if (p->fields & SF_SYMOFF)
			ob_printf(p, " %s+0x%" PRIx64, loc->name, loc->sym_off);
		else
			ob_printf(p, " %s", loc->name);
	}
	if (p->fields & SF_DSO)
		ob_printf(p, " (%s)", dso_name(p, loc));
}

/* One brstacksym entry: "from+0xoff[(dso)]/to+0xoff[(dso)]/P/-/-/0/ " (the
 * offset always, perf's symbol__fprintf_symname_offs()). */
static void put_branch_sym(struct printer *p, const struct pd_branch *b)
{
	const struct session_loc *loc;
	char *q;
	int k;

	for (k = 0; k < 2; k++) {
		loc = resolve(p, k ? b->to : b->from, true);
		if (loc->sym)
			ob_printf(p, "%s%s+0x%" PRIx64, k ? "/" : "", loc->name, loc->sym_off);
		else
			ob_printf(p, "%s[unknown]", k ? "/" : "");
		if (p->fields & SF_DSO)
			ob_printf(p, "(%s)", dso_name(p, loc));
	}
	q = ob_reserve(p, 40);
	p->ob_len += (size_t)(format_branch_flags(q, b) - q);
}

/* One brstack entry with dso: " 0xfrom(dso)/0xto(dso)/P/-/-/0/ " */
static void put_branch_dso(struct printer *p, const struct pd_branch *b)
{
	char *q;

	ob_printf(p, " 0x%" PRIx64 "(%s)", b->from, dso_name(p, resolve(p, b->from, true)));
	ob_printf(p, "/0x%" PRIx64 "(%s)", b->to, dso_name(p, resolve(p, b->to, true)));
	q = ob_reserve(p, 40);
	p->ob_len += (size_t)(format_branch_flags(q, b) - q);
}

static void print_sample(struct printer *p, const struct session_sample *ss)
{
	const struct pd_sample *s = ss->s;
	const struct perf_event_attr *a = &ss->attr->attr;
	const struct session_loc *loc;
	uint64_t i;

	p->ss = ss;
	if (p->fields & SF_COMM) {
		/* perf drops the padding when a call chain follows */
		if ((p->fields & SF_IP) && (a->sample_type & PERF_SAMPLE_CALLCHAIN))
			ob_printf(p, "%s ", ss->thread->comm);
		else
			ob_printf(p, "%16s ", ss->thread->comm);
	}
	if ((p->fields & SF_PID) && (p->fields & SF_TID))
		ob_printf(p, "%5d/%-5d ", (int)s->pid, (int)s->tid);
	else if (p->fields & SF_PID)
		ob_printf(p, "%5d ", (int)s->pid);
	else if (p->fields & SF_TID)
		ob_printf(p, "%5d ", (int)s->tid);
	if (p->fields & SF_CPU)
		ob_printf(p, "[%03d] ", (int)s->cpu);
	if (p->fields & SF_TIME)
		ob_printf(p, "%5" PRIu64 ".%06" PRIu64 ": ", s->time / 1000000000, s->time % 1000000000 / 1000);
	if (p->fields & SF_PERIOD)
		ob_printf(p, "%10" PRIu64 " ", s->period);
	if (p->fields & SF_EVENT)
		ob_printf(p, "%*s: ", p->name_width, name_of(p, ss->event));
	if (p->fields & SF_ADDR) {
		ob_printf(p, "%16" PRIx64, s->addr);
		/* perf's sample_addr_correlates_sym(): a page fault's address is code
		 * or data of the process, printed with its symbol (offset with symoff) */
		if (a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		    a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN || a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ)) {
			loc = resolve(p, s->addr, true);
			if ((p->fields & SF_SYM) && loc->sym && (p->fields & SF_SYMOFF))
				ob_printf(p, " %s+0x%" PRIx64, loc->name, loc->sym_off);
			else if (p->fields & SF_SYM)
				ob_printf(p, " %s", loc->sym ? loc->name : "[unknown]");
			if (p->fields & SF_DSO)
				ob_printf(p, " (%s)", dso_name(p, loc));
		}
	}
	if ((p->fields & SF_IP) && (a->sample_type & PERF_SAMPLE_CALLCHAIN)) {
		/* perf prints the call chain instead of the ip, a frame per line
		 * (at most --max-stack), a user frame as its offset in its object
		 * (map->map_ip()) */
		ob_putc(p, '\n');
		for (i = 0; i < ss->nr_frames; i++) {
			loc = session_frame(p->s, ss, i);
			ob_printf(p, "\t%16" PRIx64, loc->dso && !loc->kernel ? loc->map_addr : ss->frames[i].ip);
			put_sym_dso(p, loc);
			ob_putc(p, '\n');
		}
	} else if (p->fields & SF_IP) {
		/* " %16lx" */
		char buf[48], *e = put_hex(buf + 17, s->ip);
		int n = (int)(e - (buf + 17)), pad = n < 16 ? 16 - n : 0;
		memset(buf + 17 - pad - 1, ' ', (size_t)pad + 1);
		memcpy(ob_reserve(p, 40), buf + 17 - pad - 1, (size_t)(pad + 1 + n));
		p->ob_len += (size_t)(pad + 1 + n);
		if (p->fields & (SF_SYM | SF_DSO))
			put_sym_dso(p, resolve(p, s->ip, false));
	}
	if ((p->fields & SF_BRSTACK) && (p->fields & SF_DSO)) {
		for (i = 0; i < s->branch_nr; i++)
			put_branch_dso(p, &s->branches[i]);
	} else if ((p->fields & SF_BRSTACK) && s->branch_nr) {
		/* the bulk of the output: formatted by hand, written at once */
		/* at most 61 bytes an entry, and a copy of 72 for the last */
		char *start = ob_reserve(p, s->branch_nr * 64 + 72), *q = start;
		if (!p->br_cache)
			p->br_cache = xcalloc(BR_CACHE_SIZE, sizeof(*p->br_cache));
		for (i = 0; i < s->branch_nr; i++) {
			const struct pd_branch *b = &s->branches[i];
			uint64_t flags = b->flags & BR_FLAGS_SHOWN;
			struct br_text *c = &p->br_cache[((b->from ^ (b->to * 0x9e3779b97f4a7c15ULL) ^ flags) *
							  0xff51afd7ed558ccdULL) >> (64 - BR_CACHE_BITS)];
			if (!c->len || c->from != b->from || c->to != b->to || c->flags != flags) {
				c->from = b->from;
				c->to = b->to;
				c->flags = flags;
				c->len = (uint8_t)(format_branch(c->text, b) - c->text);
			}
			/* a fixed-size copy, then step by the real length */
			memcpy(q, c->text, sizeof(c->text));
			q += c->len;
		}
		p->ob_len += (size_t)(q - start);
	} else if (p->fields & SF_BRSTACKSYM) {   /* perf prints one of the two */
		for (i = 0; i < s->branch_nr; i++)
			put_branch_sym(p, &s->branches[i]);
	}
	ob_putc(p, '\n');
}

/* In pipe mode perf's fields are settled when the attrs have come: the
 * defaults, and ip and sym added when call chains or branch stacks are sampled
 * (process_attr() in builtin-script.c), even with -F. */
static int on_begin(struct session *s, void *arg)
{
	struct printer *p = arg;
	const struct pd_info *info = session_info(s);
	uint64_t type = 0;
	size_t i;

	if (p->pipe_checked || !info->pipe_mode)
		return 0;
	p->pipe_checked = true;
	if (p->fields & SF_DEFAULT)
		p->fields = script_default_fields(info);
	for (i = 0; i < info->nr_attrs; i++)
		type |= info->attrs[i].attr.sample_type;
	if ((type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ||
	    ((type & PERF_SAMPLE_REGS_USER) && (type & PERF_SAMPLE_STACK_USER)))
		p->fields |= SF_IP | SF_SYM;
	return 0;
}

static int on_sample(struct session *s, const struct session_sample *ss, void *arg)
{
	print_sample(arg, ss);
	return 0;
}

void script_session_opts(struct session_opts *o)
{
	o->ordered = true;
	o->sym.quiet = true;   /* perf script says nothing of build-id mismatches */
	o->sym.kallsyms_like_perf = true;
}

int script_print_samples(struct session *s, unsigned fields, FILE *out)
{
	static const struct session_tool tool = { .begin = on_begin, .sample = on_sample };
	struct printer p = { .s = s, .fields = fields, .out = out };
	size_t i;
	int ret;

	for (i = 0; i < session_nr_events(s); i++)
		name_of(&p, session_event(s, i));
	ret = session_process(s, &tool, &p);
	ob_flush(&p);
	free(p.ob);
	free(p.br_cache);
	free(p.named);
	return ret < 0 ? -1 : 0;
}
