/* generic.c — perf's own event syntax: generic hardware, software and cache
 * names, raw rNNNN, pmu/term=value,.../ with the PMU's sysfs format terms, and
 * perf's modifiers (tools/perf/util/parse-events.c semantics). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/ev-internal.h"
#include "cpu/cpu.h"

static const struct generic_event {
	const char *name;
	uint32_t type;
	uint64_t config;
} generic_events[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "bpf-output", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT },
};

/* perf's hardware cache events: CACHE-OP(s) and CACHE-OP-misses. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache", [PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
	[PERF_COUNT_HW_CACHE_LL] = "LLC", [PERF_COUNT_HW_CACHE_DTLB] = "dTLB",
	[PERF_COUNT_HW_CACHE_ITLB] = "iTLB", [PERF_COUNT_HW_CACHE_BPU] = "branch",
	[PERF_COUNT_HW_CACHE_NODE] = "node",
};
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX] = {
	[PERF_COUNT_HW_CACHE_OP_READ] = "load", [PERF_COUNT_HW_CACHE_OP_WRITE] = "store",
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = "prefetch",
};

static const char *cache_lookup(const char *name, uint64_t *config)
{
	static __thread char canon[64];
	unsigned c, o;

	for (c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		size_t cl = strlen(cache_names[c]);
		if (strncasecmp(name, cache_names[c], cl) != 0 || name[cl] != '-')
			continue;
		for (o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++) {
			const char *rest = name + cl + 1;
			size_t ol = strlen(cache_ops[o]);
			unsigned result;
			if (strncasecmp(rest, cache_ops[o], ol) != 0)
				continue;
			rest += ol;
			if (!strcasecmp(rest, "s") || (o == PERF_COUNT_HW_CACHE_OP_PREFETCH && !strcasecmp(rest, "es")))
				result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
			else if (!strcasecmp(rest, "-misses"))
				result = PERF_COUNT_HW_CACHE_RESULT_MISS;
			else
				continue;
			*config = c | (o << 8) | ((uint64_t)result << 16);
			snprintf(canon, sizeof(canon), "%s-%s%s", cache_names[c], cache_ops[o],
				 result == PERF_COUNT_HW_CACHE_RESULT_MISS ? "-misses" :
				 o == PERF_COUNT_HW_CACHE_OP_PREFETCH ? "es" : "s");
			return canon;
		}
	}
	return NULL;
}

/* perf's generic hardware/software/cache event NAME (case-insensitive):
 * fills type and config, returns the canonical spelling, or NULL. */
static const char *ev_generic_lookup(const char *name, uint32_t *type, uint64_t *config)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(generic_events); i++) {
		if (strcasecmp(name, generic_events[i].name) == 0) {
			*type = generic_events[i].type;
			*config = generic_events[i].config;
			return generic_events[i].name;
		}
	}
	*type = PERF_TYPE_HW_CACHE;
	return cache_lookup(name, config);
}

const char *ev_generic_event(const char *name, uint32_t *type, uint64_t *config)
{
	return ev_generic_lookup(name, type, config);
}

static const char perf_mod_chars[] = "ukhIGHpPSDWeb";

bool ev_is_perf_modifiers(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(perf_mod_chars, *s))
			return false;
	return true;
}

/* Apply perf's event modifiers ("ukp", "u", "ppp" ...) to attr; 0, or -1 +
 * oc_err() naming spec and the valid modifiers. */
static int ev_apply_perf_mods(const char *spec, const char *mods, struct perf_event_attr *attr)
{
	int eu = attr->exclude_user, ek = attr->exclude_kernel, eh = attr->exclude_hv;
	int eG = attr->exclude_guest, eH = attr->exclude_host;
	int exclude = eu | ek | eh, exclude_GH = eG | eH;
	int precise = attr->precise_ip;
	const char *p;

	for (p = mods; *p; p++) {
		switch (*p) {
		case 'u': case 'k': case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			if (!exclude_GH)
				eG = 1;   /* perf: user/kernel-only means host-only too */
			if (*p == 'u')
				eu = 0;
			else if (*p == 'k')
				ek = 0;
			else
				eh = 0;
			break;
		case 'G': case 'H':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			if (*p == 'G')
				eG = 0;
			else
				eH = 0;
			break;
		case 'I': attr->exclude_idle = 1; break;
		case 'p':
			precise++;
			if (!exclude_GH)
				eG = 1;   /* perf: precise requires exclude_guest */
			break;
		case 'P': precise = 3; break;   /* perf probes down from the maximum */
		case 'D': attr->pinned = 1; break;
		case 'e': attr->exclusive = 1; break;
		case 'S': case 'W': case 'b':
			break;   /* group and counter-reading options: not attr fields */
		default:
			return oc_err("%s: unknown modifier '%c' (perf modifiers: %s; p may repeat up to ppp)",
				      spec, *p, perf_mod_chars);
		}
	}
	if (precise > 3)
		return oc_err("%s: too many 'p' modifiers (at most ppp)", spec);
	attr->exclude_user = eu;
	attr->exclude_kernel = ek;
	attr->exclude_hv = eh;
	attr->exclude_guest = eG;
	attr->exclude_host = eH;
	attr->precise_ip = precise;
	return 0;
}

int ev_perf_generic_attr(const char *spec, struct perf_event_attr *attr)
{
	const char *colon = strchr(spec, ':');
	char *name = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(spec);
	uint32_t type;
	uint64_t config;
	const char *canon = ev_generic_lookup(name, &type, &config);
	/* perf's own command line spells them exactly (perf knows cycles, not CYCLES) */
	bool exact = canon && strcmp(canon, name) == 0;

	free(name);
	if (!exact)
		return 1;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	return ev_apply_perf_mods(spec, colon ? colon + 1 : "", attr);
}

/* --- PMUs and their format terms ---------------------------------------- */

static const char *sysfs_of(struct ev_context *ctx)
{
	return ctx->sysfs_root ? ctx->sysfs_root : "/sys";
}

struct ev_pmu *ev_pmu_get(struct ev_context *ctx, const char *name)
{
	struct ev_pmu *pmu;
	char *path, *type;
	size_t i, n = 0;

	for (pmu = ctx->pmus; pmu; pmu = pmu->next)
		if (!strcmp(pmu->name, name))
			return pmu;
	pmu = xcalloc(1, sizeof(*pmu));
	pmu->name = xstrdup(name);
	pmu->type = EV_TYPE_UNKNOWN;
	path = xasprintf("%s/bus/event_source/devices/%s/type", sysfs_of(ctx), name);
	type = file_exists(path) ? read_line_file(path) : NULL;
	free(path);
	if (type) {
		uint64_t t;
		if (parse_u64(str_trim(type), &t) == 0 && t < EV_TYPE_UNKNOWN)
			pmu->type = (uint32_t)t;
		pmu->in_sysfs = true;
		free(type);
		pmu->terms = pmu_format_terms(sysfs_of(ctx), name);
	}
	if (pmu->terms) {
		while (pmu->terms[n])
			n++;
		pmu->specs = xcalloc(n + 1, sizeof(char *));
		for (i = 0; i < n; i++) {
			pmu->specs[i] = pmu_format_term_spec(sysfs_of(ctx), name, pmu->terms[i]);
			if (!pmu->specs[i])
				pmu->specs[i] = xstrdup("");
		}
	} else {
		/* not in sysfs (another machine): the kernel's formats where ocrec knows them */
		uint32_t kernel_type;
		const struct ev_format *f = ev_kernel_formats(ctx, name, &kernel_type);

		/* a test tree may list the PMU without a type file */
		if (pmu->type == EV_TYPE_UNKNOWN)
			pmu->type = kernel_type;
		while (f && f[n].term)
			n++;
		pmu->terms = f ? xcalloc(n + 1, sizeof(char *)) : NULL;
		pmu->specs = f ? xcalloc(n + 1, sizeof(char *)) : NULL;
		for (i = 0; f && i < n; i++) {
			pmu->terms[i] = xstrdup(f[i].term);
			pmu->specs[i] = xstrdup(f[i].spec);
		}
	}
	if (!strcmp(name, "software"))
		pmu->type = PERF_TYPE_SOFTWARE;
	pmu->next = ctx->pmus;
	ctx->pmus = pmu;
	return pmu;
}

static const char *pmu_term_spec(const struct ev_pmu *pmu, const char *term)
{
	size_t i;
	for (i = 0; pmu->terms && pmu->terms[i]; i++)
		if (!strcmp(pmu->terms[i], term))
			return pmu->specs[i];
	return NULL;
}

/* Put value into the bits a format spec ("config:0-7,21", "config1:0-63") names. */
static int apply_format(const char *spec, const char *where, const char *term, uint64_t value,
			struct perf_event_attr *attr)
{
	const char *colon = strchr(spec, ':'), *p;
	uint64_t *field;
	int shift = 0;

	if (!colon)
		return oc_err("%s: format of '%s' is not understood: '%s'", where, term, spec);
	if (!strncmp(spec, "config:", 7))
		field = (uint64_t *)&attr->config;
	else if (!strncmp(spec, "config1:", 8))
		field = (uint64_t *)&attr->config1;
	else if (!strncmp(spec, "config2:", 8))
		field = (uint64_t *)&attr->config2;
	else
		return oc_err("%s: format of '%s' is not understood: '%s'", where, term, spec);
	for (p = colon + 1; *p;) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo, bit;
		if (end == p)
			return oc_err("%s: format of '%s' is not understood: '%s'", where, term, spec);
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p)
				return oc_err("%s: format of '%s' is not understood: '%s'", where, term, spec);
		}
		if (hi > 63 || lo > hi)
			return oc_err("%s: format of '%s' is not understood: '%s'", where, term, spec);
		for (bit = lo; bit <= hi; bit++, shift++) {
			uint64_t mask = 1ULL << bit;
			if (shift < 64 && (value >> shift) & 1)
				*field |= mask;
			else
				*field &= ~mask;
		}
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return oc_err("%s: format of '%s' is not understood: '%s'", where, term, spec);
	}
	if (shift < 64 && (value >> shift))
		return oc_err("%s: value 0x%llx of '%s' does not fit its %d bits", where,
			      (unsigned long long)value, term, shift);
	return 0;
}

static char *pmu_alias(struct ev_context *ctx, struct ev_pmu *pmu, const char *term)
{
	const char *kernel;
	char *path, *s;

	if (pmu->in_sysfs) {
		path = xasprintf("%s/bus/event_source/devices/%s/events/%s", sysfs_of(ctx), pmu->name, term);
		s = file_exists(path) ? read_line_file(path) : NULL;
		free(path);
		if (s)
			return s;
	}
	kernel = ev_kernel_alias(ctx, pmu->name, term);
	return kernel ? xstrdup(kernel) : NULL;
}

static void list_terms(struct strbuf *sb, const struct ev_pmu *pmu)
{
	size_t i;
	for (i = 0; pmu->terms && pmu->terms[i]; i++)
		sb_printf(sb, "%s%s", i ? " " : "", pmu->terms[i]);
	sb_puts(sb, i ? " config config1 config2 period freq name" : "config config1 config2 period freq name");
}

/* Apply "event=0x3c,umask=0x0,name=foo,period=N,slots" to attr as perf does for
 * pmu/terms/. *display gets the name= value (malloc'd) or stays NULL. */
static int ev_apply_terms(struct ev_context *ctx, struct ev_pmu *pmu, const char *spec, const char *terms,
			  struct perf_event_attr *attr, char **display)
{
	size_t n, i;
	char **v = str_split(terms, ',', &n);
	int ret = 0;

	for (i = 0; i < n && ret == 0; i++) {
		char *t = str_trim(v[i]), *eq = strchr(t, '=');
		const char *val = "1", *fmt;
		uint64_t num = 0;

		if (!*t)
			continue;
		if (eq) {
			*eq = 0;
			val = eq + 1;
		}
		if (!strcmp(t, "name")) {
			if (display) {
				free(*display);
				*display = xstrdup(val);
			}
			continue;
		}
		if (!eq && !pmu_term_spec(pmu, t)) {
			char *alias = pmu_alias(ctx, pmu, t);
			if (alias) {
				ret = ev_apply_terms(ctx, pmu, spec, alias, attr, NULL);
				free(alias);
				continue;
			}
		}
		if (parse_u64(val, &num) < 0) {
			ret = oc_err("%s: term '%s' needs a number, not '%s'", spec, t, val);
			break;
		}
		if (!strcmp(t, "config"))
			attr->config = num;
		else if (!strcmp(t, "config1"))
			attr->config1 = num;
		else if (!strcmp(t, "config2"))
			attr->config2 = num;
		else if (!strcmp(t, "period")) {
			attr->sample_period = num;
			attr->freq = 0;
		} else if (!strcmp(t, "freq")) {
			attr->sample_freq = num;
			attr->freq = 1;
		} else if ((fmt = pmu_term_spec(pmu, t)))
			ret = apply_format(fmt, spec, t, num, attr);
		else {
			struct strbuf sb = STRBUF_INIT;
			list_terms(&sb, pmu);
			ret = oc_err("%s: PMU '%s' has no term '%s' (valid: %s)", spec, pmu->name, t, sb_str(&sb));
			sb_free(&sb);
		}
	}
	strv_free(v);
	return ret;
}

int ev_attr_from_string(struct ev_context *ctx, const char *spec, const char *pmu_name,
			const char *terms, const char *mods, struct ev_attr *out)
{
	struct ev_pmu *pmu = ev_pmu_get(ctx, pmu_name);
	struct perf_event_attr *attr = &out->attr;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = pmu->type;
	out->pmu = xstrdup(pmu_name);
	if (ev_apply_terms(ctx, pmu, spec, terms, attr, &out->name) < 0 ||
	    ev_apply_perf_mods(spec, mods, attr) < 0)
		return -1;
	if (!out->name)
		out->name = xasprintf("%s/%s/%s", pmu_name, terms, mods);
	out->perf_string = xasprintf("%s/%s/%s", pmu_name, terms, mods);
	return 0;
}

struct ev_attr *ev_resolved_add(struct ev_resolved *out)
{
	struct ev_attr *a;
	out->attrs = xrealloc(out->attrs, (out->nr_attrs + 1) * sizeof(*out->attrs));
	a = &out->attrs[out->nr_attrs++];
	memset(a, 0, sizeof(*a));
	return a;
}

static bool is_raw_spec(const char *name)
{
	const char *p;
	if (name[0] != 'r' || !name[1])
		return false;
	for (p = name + 1; *p; p++)
		if (!isxdigit((unsigned char)*p))
			return false;
	return true;
}

static bool valid_pmu_name(const char *s, size_t n)
{
	size_t i;
	if (!n)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
			return false;
	return true;
}

int ev_resolve_perf_syntax(struct ev_context *ctx, const char *spec, struct ev_resolved *out)
{
	const char *slash = strchr(spec, '/');
	const char *colon, *canon;
	char *name;
	uint32_t type;
	uint64_t config;
	struct ev_attr *a;
	int ret = 1;

	if (slash) {
		const char *end = strchr(slash + 1, '/');
		char *pmu, *terms;
		if (!end || !valid_pmu_name(spec, (size_t)(slash - spec)))
			return oc_err("%s: not an event (perf's form is PMU/term=value,.../modifiers)", spec);
		pmu = xstrndup(spec, (size_t)(slash - spec));
		terms = xstrndup(slash + 1, (size_t)(end - slash - 1));
		struct ev_pmu *p = ev_pmu_get(ctx, pmu);
		if (!p->in_sysfs && !p->terms && strcmp(pmu, "software"))
			ret = oc_err("%s: no PMU '%s' in %s/bus/event_source/devices", spec, pmu, sysfs_of(ctx));
		else
			ret = ev_attr_from_string(ctx, spec, pmu, terms, end + 1, ev_resolved_add(out));
		free(pmu);
		free(terms);
		return ret;
	}
	colon = strchr(spec, ':');
	name = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(spec);
	canon = ev_generic_lookup(name, &type, &config);
	if (canon || is_raw_spec(name)) {
		a = ev_resolved_add(out);
		a->attr.size = sizeof(a->attr);
		if (canon) {
			a->attr.type = type;
			a->attr.config = config;
			a->pmu = xstrdup(type == PERF_TYPE_SOFTWARE ? "software" : "cpu");
			a->name = colon ? xasprintf("%s%s", canon, colon) : xstrdup(canon);
		} else {
			a->attr.type = PERF_TYPE_RAW;
			a->attr.config = strtoull(name + 1, NULL, 16);
			a->pmu = xstrdup("cpu");
			a->name = xstrdup(spec);
		}
		a->perf_string = xstrdup(a->name);
		ret = ev_apply_perf_mods(spec, colon ? colon + 1 : "", &a->attr);
	}
	free(name);
	return ret;
}
