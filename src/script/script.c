/* script.c — samples one per line, byte for byte as perf 6.1's `perf script`
 * prints the same fields (tools/perf/builtin-script.c), so that tools which
 * parse perf script text (llvm-profgen, BOLT, flame-graph scripts) read it. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "dlib/dlib.h"
#include "script/script.h"
#include "symbols/symbols.h"
#include "util/util.h"

static const struct {
	const char *name;
	unsigned bit;
} field_names[] = {
	{ "comm", SF_COMM }, { "tid", SF_TID }, { "pid", SF_PID }, { "time", SF_TIME },
	{ "cpu", SF_CPU }, { "period", SF_PERIOD }, { "event", SF_EVENT }, { "ip", SF_IP },
	{ "addr", SF_ADDR }, { "sym", SF_SYM }, { "symoff", SF_SYMOFF }, { "dso", SF_DSO },
	{ "brstack", SF_BRSTACK }, { "brstacksym", SF_BRSTACKSYM },
};

int script_parse_fields(const char *spec, unsigned *fields)
{
	size_t n, i, j;
	char **v = str_split(spec, ',', &n);
	struct strbuf known = STRBUF_INIT;

	*fields = 0;
	for (i = 0; i < n; i++) {
		for (j = 0; j < ARRAY_SIZE(field_names); j++)
			if (!strcmp(v[i], field_names[j].name))
				break;
		if (j == ARRAY_SIZE(field_names)) {
			for (j = 0; j < ARRAY_SIZE(field_names); j++)
				sb_printf(&known, "%s%s", j ? "," : "", field_names[j].name);
			oc_err("-F %s: unknown or unsupported field '%s' (fields: %s)", spec, v[i], sb_str(&known));
			sb_free(&known);
			strv_free(v);
			return -1;
		}
		*fields |= field_names[j].bit;
	}
	strv_free(v);
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

/* --- thread names ------------------------------------------------------------- */

struct comm_map {
	struct { uint32_t tid; char *comm; } *slots;
	size_t cap, nr;   /* open addressing, cap a power of two */
};

static size_t comm_slot(const struct comm_map *m, uint32_t tid)
{
	size_t i = hash_u64(tid) & (m->cap - 1);

	while (m->slots[i].comm && m->slots[i].tid != tid)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static const char *comm_get(const struct comm_map *m, uint32_t tid)
{
	return m->cap ? m->slots[comm_slot(m, tid)].comm : NULL;
}

static void comm_set(struct comm_map *m, uint32_t tid, const char *comm)
{
	size_t i;

	if ((m->nr + 1) * 2 > m->cap) {
		struct comm_map bigger = { NULL, m->cap ? m->cap * 2 : 64, 0 };
		bigger.slots = xcalloc(bigger.cap, sizeof(*bigger.slots));
		for (i = 0; i < m->cap; i++)
			if (m->slots[i].comm) {
				size_t j = comm_slot(&bigger, m->slots[i].tid);
				bigger.slots[j] = m->slots[i];
				bigger.nr++;
			}
		free(m->slots);
		*m = bigger;
	}
	i = comm_slot(m, tid);
	if (m->slots[i].comm)
		free(m->slots[i].comm);
	else
		m->nr++;
	m->slots[i].tid = tid;
	m->slots[i].comm = xstrdup(comm);
}

static void comm_free(struct comm_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		free(m->slots[i].comm);
	free(m->slots);
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
	struct pd_reader *r;
	unsigned fields;
	FILE *out;
	struct comm_map comms;
	struct symtab *st;     /* process maps and DSOs: symbols, user frames' offsets */
	size_t nr_build_ids;   /* the file's build-ids already given to st */
	uint64_t kstart, kend; /* the kernel's map as recorded (old perf: from 0x15600000 up) */
	char modname[64];      /* dso_name()'s "[usbnet]" */
	struct { const char *mangled; char *name; } *names_cxx;   /* sym_name()'s, open */
	size_t nr_cxx, cap_cxx;                                   /* addressing */
	bool pipe_checked;     /* pipe mode's fields settled (see before_sample()) */
	char **names;          /* per attr, made when first needed (pipe mode) */
	size_t nr_names;
	int name_width;
	struct queued *queue;  /* records waiting for their turn, see on_event() */
	size_t nr_queue, cap_queue;
	bool queue_sorted;     /* inserted in time order (the usual case) */
	unsigned char *arena;  /* their bytes, 8-byte aligned */
	size_t arena_len, arena_cap;
	uint64_t seq, max_time, next_flush;
	char *ob;              /* output, written in blocks (see ob_reserve) */
	size_t ob_len, ob_cap;
	struct br_text *br_cache;
};

static const char *name_of(struct printer *p, int idx)
{
	const struct pd_attr *a = pd_attr_of(p->r, idx);

	if (!a)
		return "[unknown]";
	if ((size_t)idx >= p->nr_names) {
		p->names = xrealloc(p->names, ((size_t)idx + 1) * sizeof(char *));
		memset(p->names + p->nr_names, 0, ((size_t)idx + 1 - p->nr_names) * sizeof(char *));
		p->nr_names = (size_t)idx + 1;
	}
	if (!p->names[idx]) {
		p->names[idx] = pd_attr_name(a);
		if ((int)strlen(p->names[idx]) > p->name_width)
			p->name_width = (int)strlen(p->names[idx]);
	}
	return p->names[idx];
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

/* addr in the maps of one cpumode, as perf's thread__find_map() looks: a
 * user address in the kernel's map as recorded (which old perf started low),
 * a kernel address never in user maps; other modes (hypervisor, guests) find
 * nothing. */
static bool resolve_in(struct printer *p, uint32_t pid, unsigned mode, uint64_t addr,
		       struct addr_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->file_addr = loc->map_addr = addr;
	if (mode == PERF_RECORD_MISC_KERNEL && !(addr >> 63) && addr >= p->kstart && addr < p->kend) {
		loc->dso = symtab_kernel_dso(p->st);
		loc->kernel = true;
	} else if (mode == PERF_RECORD_MISC_KERNEL ? addr >> 63 : mode == PERF_RECORD_MISC_USER && !(addr >> 63)) {
		symtab_resolve(p->st, pid, addr, loc);
	}
	return loc->dso;
}

/* Where addr is for a sample: in its cpumode's maps; with fallback (branch
 * entries, perf's thread__find_map_fb()) then in the address's own mode's. */
static void resolve(struct printer *p, const struct pd_sample *s, uint64_t addr, bool fallback,
		    struct addr_loc *loc)
{
	unsigned mode = s->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	unsigned own = addr >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;

	if (!resolve_in(p, s->pid, mode, addr, loc) && fallback && own != mode)
		resolve_in(p, s->pid, own, addr, loc);
}

/* The DSO name perf prints: a kernel module as "[usbnet]" for
 * /lib/modules/.../usbnet.ko (kmod_path__parse_name()), but by its path when
 * the file's build-id table names it (perf made its DSO from that table
 * first). */
static const char *dso_name(struct printer *p, const struct addr_loc *loc)
{
	const struct pd_info *info = pd_get_info(p->r);
	const char *name = sym_dso_name(loc), *base = strrchr(name, '/'), *ko;
	size_t i, n;

	if (!loc->kernel || loc->dso == symtab_kernel_dso(p->st) || !base ||
	    !(ko = strstr(base, ".ko")) || (ko[3] && ko[3] != '.'))
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

/* --- C++ names: perf 6.1 prints them demangled without parameters, by
 * libiberty's cplus_demangle(name, DMGL_NO_OPTS) linked into it; ocrec takes
 * the same function from binutils' libbfd when it is installed. */

typedef char *(*demangle_fn)(const char *mangled, int options);

static demangle_fn demangler(void)
{
	static const char *const libs[] = { "libbfd-2.40-system.so", "libbfd-2.41-system.so",
					    "libbfd-2.42-system.so", "libbfd-2.43-system.so", "libbfd.so", NULL };
	static demangle_fn fn;
	static bool tried;

	if (!tried) {
		void *h = dlib_open(libs, "libbinutils (C++ names stay mangled)");
		tried = true;
		fn = h ? (demangle_fn)dlib_sym(h, "cplus_demangle") : NULL;
	}
	return fn;
}

static size_t cxx_slot(const struct printer *p, const char *mangled)
{
	size_t i = hash_u64((uint64_t)(uintptr_t)mangled) & (p->cap_cxx - 1);

	while (p->names_cxx[i].mangled && p->names_cxx[i].mangled != mangled)
		i = (i + 1) & (p->cap_cxx - 1);
	return i;
}

/* A symbol's name as perf prints it: C++ demangled ("ns::work", a PLT stub's
 * "std::ostream::put@plt"), once per symbol. */
static const char *sym_name(struct printer *p, const struct addr_loc *loc)
{
	const char *mangled = loc->sym->name, *at;
	char *base, *d;
	size_t i;

	if (loc->kernel || strncmp(mangled, "_Z", 2) || !demangler())
		return mangled;
	if ((p->nr_cxx + 1) * 2 > p->cap_cxx) {
		size_t old = p->cap_cxx;
		__typeof__(p->names_cxx) v = p->names_cxx;
		p->cap_cxx = old ? old * 2 : 256;
		p->names_cxx = xcalloc(p->cap_cxx, sizeof(*p->names_cxx));
		for (i = 0; i < old; i++)
			if (v[i].mangled)
				p->names_cxx[cxx_slot(p, v[i].mangled)] = v[i];
		free(v);
	}
	i = cxx_slot(p, mangled);
	if (!p->names_cxx[i].mangled) {
		/* perf demangles a PLT stub's target and adds "@plt" after */
		at = strchr(mangled, '@');
		base = at ? xstrndup(mangled, (size_t)(at - mangled)) : xstrdup(mangled);
		d = demangler()(base, 0);
		p->names_cxx[i].mangled = mangled;
		p->names_cxx[i].name = d ? xasprintf("%s%s", d, at ? at : "") : xstrdup(mangled);
		free(d);
		free(base);
		p->nr_cxx++;
	}
	return p->names_cxx[i].name;
}

/* " sym[+0xoff]" and " (dso)" after an ip, as sample__fprintf_sym() prints them */
static void put_sym_dso(struct printer *p, const struct addr_loc *loc)
{
	if (p->fields & SF_SYM) {
		if (!loc->sym)
			ob_printf(p, " [unknown]");
		else if (p->fields & SF_SYMOFF)
			ob_printf(p, " %s+0x%" PRIx64, sym_name(p, loc), loc->sym_off);
		else
			ob_printf(p, " %s", sym_name(p, loc));
	}
	if (p->fields & SF_DSO)
		ob_printf(p, " (%s)", dso_name(p, loc));
}

/* One brstacksym entry: "from+0xoff[(dso)]/to+0xoff[(dso)]/P/-/-/0/ " (the
 * offset always, perf's symbol__fprintf_symname_offs()). */
static void put_branch_sym(struct printer *p, const struct pd_sample *s, const struct pd_branch *b)
{
	struct addr_loc loc;
	char *q;
	int k;

	for (k = 0; k < 2; k++) {
		resolve(p, s, k ? b->to : b->from, true, &loc);
		if (loc.sym)
			ob_printf(p, "%s%s+0x%" PRIx64, k ? "/" : "", sym_name(p, &loc), loc.sym_off);
		else
			ob_printf(p, "%s[unknown]", k ? "/" : "");
		if (p->fields & SF_DSO)
			ob_printf(p, "(%s)", dso_name(p, &loc));
	}
	q = ob_reserve(p, 40);
	p->ob_len += (size_t)(format_branch_flags(q, b) - q);
}

/* One brstack entry with dso: " 0xfrom(dso)/0xto(dso)/P/-/-/0/ " */
static void put_branch_dso(struct printer *p, const struct pd_sample *s, const struct pd_branch *b)
{
	struct addr_loc from, to;
	char *q;

	resolve(p, s, b->from, true, &from);
	resolve(p, s, b->to, true, &to);
	ob_printf(p, " 0x%" PRIx64 "(%s)", b->from, dso_name(p, &from));
	ob_printf(p, "/0x%" PRIx64 "(%s)", b->to, dso_name(p, &to));
	q = ob_reserve(p, 40);
	p->ob_len += (size_t)(format_branch_flags(q, b) - q);
}

static void print_sample(struct printer *p, const struct pd_sample *s)
{
	uint64_t i;
	struct addr_loc loc;

	if (p->fields & SF_COMM) {
		const char *c = comm_get(&p->comms, s->tid);
		char unknown[16];
		if (!c && s->tid == 0)
			c = "swapper";   /* the idle task, which perf names itself */
		if (!c) {
			snprintf(unknown, sizeof(unknown), ":%d", (int)s->tid);
			c = unknown;
		}
		/* perf drops the padding when a call chain follows */
		if ((p->fields & SF_IP) &&
		    (pd_attr_of(p->r, s->attr_index)->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
			ob_printf(p, "%s ", c);
		else
			ob_printf(p, "%16s ", c);
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
	if (p->fields & SF_EVENT) {
		const char *name = name_of(p, s->attr_index);
		ob_printf(p, "%*s: ", p->name_width, name);
	}
	if (p->fields & SF_ADDR) {
		const struct perf_event_attr *a = &pd_attr_of(p->r, s->attr_index)->attr;
		ob_printf(p, "%16" PRIx64, s->addr);
		/* perf's sample_addr_correlates_sym(): a page fault's address is code
		 * or data of the process, printed with its symbol (offset with symoff) */
		if (a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_PAGE_FAULTS ||
		    a->config == PERF_COUNT_SW_PAGE_FAULTS_MIN || a->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ)) {
			resolve(p, s, s->addr, true, &loc);
			if ((p->fields & SF_SYM) && loc.sym && (p->fields & SF_SYMOFF))
				ob_printf(p, " %s+0x%" PRIx64, sym_name(p, &loc), loc.sym_off);
			else if (p->fields & SF_SYM)
				ob_printf(p, " %s", loc.sym ? sym_name(p, &loc) : "[unknown]");
			if (p->fields & SF_DSO)
				ob_printf(p, " (%s)", dso_name(p, &loc));
		}
	}
	if ((p->fields & SF_IP) && (pd_attr_of(p->r, s->attr_index)->attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
		/* perf prints the call chain instead of the ip, a frame per line,
		 * a user frame as its offset in its object (map->map_ip());
		 * PERF_CONTEXT_* markers are not frames but set the mode */
		struct pd_sample mode = *s;
		mode.misc = PERF_RECORD_MISC_USER;
		ob_putc(p, '\n');
		for (i = 0; i < s->callchain_nr; i++) {
			uint64_t ip = s->callchain[i];
			if (ip >= (uint64_t)-4095) {
				mode.misc = ip == (uint64_t)PERF_CONTEXT_USER ? PERF_RECORD_MISC_USER
					    : ip == (uint64_t)PERF_CONTEXT_KERNEL ? PERF_RECORD_MISC_KERNEL
					    : PERF_RECORD_MISC_HYPERVISOR;
				continue;
			}
			resolve(p, &mode, ip, false, &loc);
			ob_printf(p, "\t%16" PRIx64, loc.dso && !loc.kernel ? loc.map_addr : ip);
			put_sym_dso(p, &loc);
			ob_putc(p, '\n');
		}
	} else if (p->fields & SF_IP) {
		/* " %16lx" */
		char buf[48], *e = put_hex(buf + 17, s->ip);
		int n = (int)(e - (buf + 17)), pad = n < 16 ? 16 - n : 0;
		memset(buf + 17 - pad - 1, ' ', (size_t)pad + 1);
		memcpy(ob_reserve(p, 40), buf + 17 - pad - 1, (size_t)(pad + 1 + n));
		p->ob_len += (size_t)(pad + 1 + n);
		if (p->fields & (SF_SYM | SF_DSO)) {
			resolve(p, s, s->ip, false, &loc);
			put_sym_dso(p, &loc);
		}
	}
	if ((p->fields & SF_BRSTACK) && (p->fields & SF_DSO)) {
		for (i = 0; i < s->branch_nr; i++)
			put_branch_dso(p, s, &s->branches[i]);
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
			put_branch_sym(p, s, &s->branches[i]);
	}
	ob_putc(p, '\n');
}

/* perf delivers records in time order: it queues them and, at each
 * FINISHED_ROUND, flushes those not later than the newest time seen before
 * the previous round (util/ordered-events.c); records without a time go
 * straight through. The same order gives the same lines. */
struct queued {
	uint64_t time, seq;
	int attr;
	size_t rec;            /* offset of the record in the printer's arena */
};

/* The file's build-ids (a pipe's arrive as records) and, in pipe mode, perf's
 * fields: the defaults are settled when the attrs have come, and perf adds ip
 * and sym when call chains or branch stacks are sampled (process_attr() in
 * builtin-script.c), even with -F. */
static void before_sample(struct printer *p)
{
	const struct pd_info *info = pd_get_info(p->r);
	uint64_t type = 0;
	size_t i;

	for (; p->nr_build_ids < info->nr_build_ids; p->nr_build_ids++) {
		const struct pd_build_id *b = &info->build_ids[p->nr_build_ids];
		symtab_add_build_id(p->st, b->filename, b->id, b->size);
	}
	if (p->pipe_checked || !info->pipe_mode)
		return;
	p->pipe_checked = true;
	if (p->fields & SF_DEFAULT)
		p->fields = script_default_fields(info);
	for (i = 0; i < info->nr_attrs; i++)
		type |= info->attrs[i].attr.sample_type;
	if ((type & (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK)) ||
	    ((type & PERF_SAMPLE_REGS_USER) && (type & PERF_SAMPLE_STACK_USER)))
		p->fields |= SF_IP | SF_SYM;
}

static void deliver(struct printer *p, uint32_t type, const unsigned char *rec, int attr)
{
	const struct perf_event_header *h = (const void *)rec;
	uint32_t ids[4];
	const char *parent;

	switch (type) {
	case PERF_RECORD_COMM:
		memcpy(ids, rec + 8, 8);
		/* perf keeps the maps across an exec (the new image's MMAPs cover
		 * the old ones): a sample in execve() still finds the old libc */
		comm_set(&p->comms, ids[1], (const char *)rec + 16);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		const char *name = (const char *)rec + (type == PERF_RECORD_MMAP ? 40 : 72);
		char jit[32];
		uint64_t v[3];
		uint32_t prot = PROT_EXEC;
		memcpy(ids, rec + 8, 8);
		memcpy(v, rec + 16, 24);
		if (type == PERF_RECORD_MMAP2)
			memcpy(&prot, rec + 64, 4);
		else if (h->misc & PERF_RECORD_MISC_MMAP_DATA)
			prot = 0;
		/* perf's map__new(): executable anonymous memory is a JIT's, named
		 * after its symbol file */
		if ((prot & PROT_EXEC) && sym_is_anon_map(name) &&
		    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL) {
			snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", ids[0]);
			name = jit;
		}
		if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL &&
		    !strncmp(name, "[kernel.kallsyms]", 17)) {
			p->kstart = v[0];
			p->kend = v[0] + v[1] < v[0] ? UINT64_MAX : v[0] + v[1];
		}
		if (type == PERF_RECORD_MMAP2 && (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
			symtab_add_build_id(p->st, name, rec + 44, rec[40] > 20 ? 20 : rec[40]);
		symtab_mmap(p->st, ids[0], v[0], v[1], v[2], name,
			    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL);
		break;
	}
	case PERF_RECORD_FORK:
		/* a new thread starts with its parent's name and maps */
		memcpy(ids, rec + 8, 16);
		if (ids[0] != ids[1])
			symtab_fork(p->st, ids[0], ids[1]);
		parent = comm_get(&p->comms, ids[3]);
		if (parent && ids[2] != ids[3])
			comm_set(&p->comms, ids[2], parent);   /* copies; parent's slot stays */
		break;
	case PERF_RECORD_SAMPLE: {
		struct pd_sample s;
		before_sample(p);
		/* already decoded once by the reader: cannot fail now */
		if (pd_parse_sample(&pd_attr_of(p->r, attr)->attr, rec, h->size, &s) == 0) {
			s.attr_index = attr;
			print_sample(p, &s);
		}
		break;
	}
	default:
		break;
	}
}

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void flush(struct printer *p, uint64_t limit)
{
	size_t i, k, len = 0;
	unsigned char *rest;

	if (!p->nr_queue)
		return;
	if (!p->queue_sorted)
		qsort(p->queue, p->nr_queue, sizeof(*p->queue), cmp_queued);
	for (i = 0; i < p->nr_queue && p->queue[i].time <= limit; i++) {
		const unsigned char *rec = p->arena + p->queue[i].rec;
		deliver(p, ((const struct perf_event_header *)(const void *)rec)->type, rec,
			p->queue[i].attr);
	}
	/* keep the records not yet due, packed at the start of a new arena */
	rest = xmalloc(p->arena_cap);
	for (k = 0; i < p->nr_queue; i++, k++) {
		const struct perf_event_header *h = (const void *)(p->arena + p->queue[i].rec);
		memcpy(rest + len, h, h->size);
		p->queue[k] = p->queue[i];
		p->queue[k].rec = len;
		len += (h->size + 7u) & ~7u;
	}
	free(p->arena);
	p->arena = rest;
	p->arena_len = len;
	p->nr_queue = k;
	p->queue_sorted = true;
}

static int on_event(const struct pd_event *ev, void *arg)
{
	struct printer *p = arg;
	uint64_t time = ev->type == PERF_RECORD_SAMPLE ? ev->u.sample.time
			: ev->has_sample_id ? ev->sid_time : 0;
	struct queued *q;

	if (ev->type == PD_RECORD_FINISHED_ROUND) {
		flush(p, p->next_flush);
		p->next_flush = p->max_time;
		return 0;
	}
	if (ev->type != PERF_RECORD_SAMPLE && ev->type != PERF_RECORD_COMM &&
	    ev->type != PERF_RECORD_FORK && ev->type != PERF_RECORD_MMAP &&
	    ev->type != PERF_RECORD_MMAP2)
		return 0;
	if (time == 0 || time == UINT64_MAX) {
		deliver(p, ev->type, ev->raw, ev->attr_index);
		return 0;
	}
	if (p->nr_queue && time < p->queue[p->nr_queue - 1].time)
		p->queue_sorted = false;
	if (time > p->max_time)
		p->max_time = time;
	GROW(p->queue, p->cap_queue, p->nr_queue + 1);
	q = &p->queue[p->nr_queue++];
	q->time = time;
	q->seq = p->seq++;
	q->attr = ev->attr_index;
	if (p->arena_len + ev->size + 8 > p->arena_cap)
		GROW(p->arena, p->arena_cap, p->arena_len + ev->size + 8);
	q->rec = p->arena_len;
	memcpy(p->arena + p->arena_len, ev->raw, ev->size);
	p->arena_len += (ev->size + 7u) & ~7u;
	return 0;
}

int script_print_samples(struct pd_reader *r, unsigned fields, const struct sym_options *sym,
			 FILE *out)
{
	struct printer p = { .r = r, .fields = fields, .out = out, .queue_sorted = true };
	struct sym_options so = { 0 };
	const struct pd_info *info = pd_get_info(r);
	size_t i;
	int ret;

	if (sym)
		so = *sym;
	so.quiet = true;   /* perf script says nothing of build-id mismatches */
	so.kallsyms_like_perf = true;
	p.st = symtab_new(&so);
	p.nr_names = info->nr_attrs;
	p.names = xcalloc(p.nr_names + 1, sizeof(char *));
	for (i = 0; i < info->nr_attrs; i++)
		name_of(&p, (int)i);
	ret = pd_for_each(r, on_event, &p);
	if (ret < 0) {
		/* the samples before a cut are printed; symbol lookups clear errors */
		char *why = xstrdup(oc_errmsg());
		flush(&p, UINT64_MAX);
		oc_err("%s", why);
		free(why);
	} else {
		flush(&p, UINT64_MAX);
	}
	free(p.queue);
	free(p.arena);
	ob_flush(&p);
	free(p.ob);
	free(p.br_cache);
	for (i = 0; i < p.nr_names; i++)
		free(p.names[i]);
	free(p.names);
	comm_free(&p.comms);
	symtab_free(p.st);
	for (i = 0; i < p.cap_cxx; i++)
		free(p.names_cxx[i].name);
	free(p.names_cxx);
	return ret < 0 ? -1 : 0;
}

int script_parse_mmap_line(const char *line, int64_t *pid, uint64_t *start, uint64_t *len,
			   uint64_t *pgoff, const char **path)
{
	const char *p = strstr(line, "PERF_RECORD_MMAP");
	char *end;

	if (!p || !(p = strchr(p, ' ')))
		return -1;
	*pid = strtoll(p + 1, &end, 10);
	p = strchr(end, '[');
	if (!p)
		return -1;
	*start = strtoull(p + 1, &end, 0);
	if (*end != '(')
		return -1;
	*len = strtoull(end + 1, &end, 0);
	p = strchr(end, '@');
	if (!p)
		return -1;
	*pgoff = strtoull(p + 1, &end, 0);
	p = strstr(end, "]: ");
	if (!p)
		return -1;
	p += 3;
	while (*p && *p != ' ')
		p++;   /* protection */
	while (*p == ' ')
		p++;
	*path = p;
	return *p ? 0 : -1;
}
