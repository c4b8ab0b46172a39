/* Rewriting perf command lines, as ocperf.py does. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "passthrough/passthrough.h"
#include "util/util.h"

/* perf's hardware cache events: CACHE-OP[-RESULT] (tools/perf/util/evsel.c tables) */
static const char *const cache_units[] = {
	"L1-dcache", "l1-d", "l1d", "L1-data", "L1-icache", "l1-i", "l1i", "L1-instruction",
	"LLC", "L2", "dTLB", "d-tlb", "Data-TLB", "iTLB", "i-tlb", "Instruction-TLB",
	"branch", "branches", "bpu", "btb", "bpc", "node",
};
static const char *const cache_ops[] = {
	"loads", "load", "load-misses", "load-miss", "stores", "store", "store-misses", "store-miss",
	"prefetches", "prefetch", "prefetch-misses", "prefetch-miss", "speculative-read",
	"speculative-load", "refs", "Reference", "ops", "access", "misses", "miss",
};

static bool is_cache_event(const char *name, size_t len)
{
	size_t i, j;
	for (i = 0; i < ARRAY_SIZE(cache_units); i++) {
		size_t ul = strlen(cache_units[i]);
		if (len <= ul + 1 || strncmp(name, cache_units[i], ul) != 0 || name[ul] != '-')
			continue;
		for (j = 0; j < ARRAY_SIZE(cache_ops); j++)
			if (strlen(cache_ops[j]) == len - ul - 1 &&
			    strncmp(name + ul + 1, cache_ops[j], len - ul - 1) == 0)
				return true;
	}
	return false;
}

/* ocperf's pmu/NAME/ form: a term without '=' spelled like a table event
 * (upper case or a dot), unlike perf's own sysfs aliases (cycles-t, mem-loads) */
static bool has_table_name_term(const char *event)
{
	const char *open = strchr(event, '/'), *close = open ? strchr(open + 1, '/') : NULL;
	const char *p, *term = open ? open + 1 : NULL;
	bool eq = false, tableish = false;

	if (!close)
		return false;
	for (p = term; p <= close; p++) {
		if (p == close || *p == ',') {
			if (!eq && tableish)
				return true;
			eq = tableish = false;
		} else if (*p == '=') {
			eq = true;
		} else if (*p == '.' || isupper((unsigned char)*p)) {
			tableish = true;
		}
	}
	return false;
}

/* subsystem:event, both made of [a-z0-9_] (the tracefs directory names) */
static bool is_tracepoint(const char *event, size_t subsys_len)
{
	const char *p;
	if (subsys_len == 0)
		return false;
	for (p = event; *p; p++)
		if (p - event != (long)subsys_len && !islower((unsigned char)*p) &&
		    !isdigit((unsigned char)*p) && *p != '_')
			return false;
	return p - event > (long)subsys_len + 1;
}

bool perf_knows_event(const char *event)
{
	struct perf_event_attr attr;
	const char *colon = strchr(event, ':');
	size_t len = colon ? (size_t)(colon - event) : strlen(event), i;
	bool generic;
	char *base;

	if (strchr(event, '/'))
		return !has_table_name_term(event);
	if (str_starts_with(event, "mem:"))
		return true;
	if (colon && !ev_is_perf_modifiers(colon + 1))
		return is_tracepoint(event, len);
	base = xstrndup(event, len);
	generic = ev_perf_generic_attr(base, &attr) == 0;
	free(base);
	if (generic)
		return true;
	if (is_cache_event(event, len))
		return true;
	/* raw rNNNN */
	if (event[0] == 'r' && len > 1) {
		for (i = 1; i < len && isxdigit((unsigned char)event[i]); i++)
			;
		if (i == len)
			return true;
	}
	return false;
}

char *perf_rewrite_event_list(const char *list, pt_resolve_fn resolve, void *arg)
{
	struct evlist l = { NULL, 0 };
	size_t g, e;
	char *out;

	if (evlist_parse(&l, list) < 0) {
		evlist_free(&l);
		return NULL;
	}
	for (g = 0; g < l.nr_groups; g++) {
		for (e = 0; e < l.groups[g].nr_events; e++) {
			char **ev = &l.groups[g].events[e], *rewritten;
			if (perf_knows_event(*ev))
				continue;
			rewritten = resolve(*ev, arg);
			if (rewritten) {
				free(*ev);
				*ev = rewritten;
			}
		}
	}
	out = evlist_format(&l);
	evlist_free(&l);
	return out;
}

/* Options of the workload-running subcommands that take a separate value
 * (perf's parse-options: optional arguments only come with '='). */
struct value_opts {
	const char *cmd;
	const char *shorts;
	const char *const *longs;
};

static const char *const record_longs[] = {
	"filter", "pid", "tid", "realtime", "count", "output", "mmap-pages", "freq", "cpu", "cgroup",
	"uid", "delay", "branch-filter", "clockid", "call-graph", "max-size", "affinity", "mmap-flush",
	"control", "synth", "num-thread-synthesize", "exclude-perf", "vmlinux", "switch-max-files", NULL,
};
static const char *const stat_longs[] = {
	"pid", "tid", "cpu", "cgroup", "output", "repeat", "field-separator", "interval-print", "delay",
	"metrics", "log-fd", "pre", "post", "interval-count", "timeout", "td-level", "for-each-cgroup",
	"control", NULL,
};
static const char *const top_longs[] = {
	"count", "cpu", "delay", "entries", "freq", "cgroup", "pid", "tid", "uid", "mmap-pages",
	"sort", "fields", "call-graph", "max-stack", "percent-limit", "percentage", "branch-filter",
	"proc-map-timeout", "num-thread-synthesize", "clockid", "vmlinux", "kallsyms", "symbol-filter",
	"disassembler-style", "objdump", NULL,
};
static const char *const trace_longs[] = {
	"expr", "output", "pid", "tid", "cpu", "freq", "mmap-pages", "uid", "cgroup", "delay", "duration",
	"max-stack", "min-stack", "filter-pids", "call-graph", "max-events", "proc-map-timeout",
	"sort-events", "syscalls", NULL,
};
static const struct value_opts workload_cmds[] = {
	{ "record", "pctromFCGuDjk", record_longs },
	{ "stat", "ptCGorxIDM", stat_longs },
	{ "top", "cCdEFGptumsK", top_longs },
	{ "trace", "optCFmuGD", trace_longs },
};
/* perf's own options before the subcommand that take a separate value */
static const char *const global_longs[] = { "debug", "buildid-dir", "exec-path", NULL };

static bool in_list(const char *const *list, const char *name, size_t len)
{
	for (; *list; list++)
		if (strlen(*list) == len && strncmp(*list, name, len) == 0)
			return true;
	return false;
}

/* Does option token tok consume the next argument as its value? */
static bool takes_value(const struct value_opts *v, const char *tok)
{
	if (tok[1] == '-')
		return !strchr(tok, '=') && in_list(v->longs, tok + 2, strlen(tok + 2));
	/* a short cluster like -ag: the last letter may take the next token */
	return tok[1] && !tok[2] && strchr(v->shorts, tok[1]);
}

static const struct value_opts *find_workload_cmd(const char *cmd)
{
	size_t i;
	for (i = 0; i < ARRAY_SIZE(workload_cmds); i++)
		if (strcmp(workload_cmds[i].cmd, cmd) == 0)
			return &workload_cmds[i];
	return NULL;
}

/* Rewrite list and append it (with prefix, e.g. "--event=") to out. */
static int push_rewritten(char ***out, size_t *n, const char *prefix, const char *list,
			  pt_resolve_fn resolve, void *arg)
{
	char *r = perf_rewrite_event_list(list, resolve, arg);
	if (!r)
		return -1;
	(*out)[(*n)++] = xasprintf("%s%s", prefix, r);
	free(r);
	return 0;
}

char **perf_rewrite_args(char **args, pt_resolve_fn resolve, void *arg)
{
	size_t argc = 0, n = 0, i = 0;
	const struct value_opts *v = NULL;
	char **out;

	while (args[argc])
		argc++;
	out = xcalloc(argc + 1, sizeof(*out));
	/* perf's global options, then the subcommand */
	for (; i < argc && args[i][0] == '-'; i++) {
		out[n++] = xstrdup(args[i]);
		if (args[i][1] == '-' && !strchr(args[i], '=') && in_list(global_longs, args[i] + 2,
									strlen(args[i] + 2)) && i + 1 < argc)
			out[n++] = xstrdup(args[++i]);
	}
	if (i < argc) {
		v = find_workload_cmd(args[i]);
		out[n++] = xstrdup(args[i++]);
	}
	for (; i < argc; i++) {
		const char *a = args[i];
		int ret = 0;

		if (strcmp(a, "--") == 0 || (v && a[0] != '-'))
			break;   /* the workload and its arguments stay as they are */
		if ((strcmp(a, "-e") == 0 || strcmp(a, "--event") == 0) && i + 1 < argc) {
			out[n++] = xstrdup(a);
			ret = push_rewritten(&out, &n, "", args[++i], resolve, arg);
		} else if (str_starts_with(a, "--event=")) {
			ret = push_rewritten(&out, &n, "--event=", a + 8, resolve, arg);
		} else if (a[0] == '-' && a[1] == 'e' && a[2]) {
			ret = push_rewritten(&out, &n, "-e", a + 2, resolve, arg);
		} else {
			out[n++] = xstrdup(a);
			if (v && a[0] == '-' && takes_value(v, a) && i + 1 < argc)
				out[n++] = xstrdup(args[++i]);
		}
		if (ret < 0) {
			strv_free(out);
			return NULL;
		}
	}
	for (; i < argc; i++)
		out[n++] = xstrdup(args[i]);
	out[n] = NULL;
	return out;
}
