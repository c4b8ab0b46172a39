/* ocrec list-events — the events of this CPU's tables, grouped like `ocperf.py list`. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"

static const char usage[] =
	"usage: ocrec list-events [PATTERN] [--desc] [--json] [--cpu STR] [--events PATH]\n"
	"\n"
	"List perf's generic events, then the events of the CPU's tables as 'ocperf.py list'\n"
	"prints them: lower-case names sorted per PMU (cpu, or cpu_core and cpu_atom on hybrid\n"
	"CPUs), then the uncore events. Works offline from the cache ('ocrec download'), the\n"
	"built-in architectural table (Intel CPUs), or libpfm4 (CPUs no table covers).\n"
	"\n"
	"  PATTERN         only names matching it: a glob (br_*.all_*) or a substring; any case\n"
	"  --desc          with descriptions (word-wrapped on a terminal, as ocperf does)\n"
	"  --json          one JSON array of event objects (every field of the table row)\n"
	"  --cpu STR       the events of this CPU (GenuineIntel-6-55-4) instead of this machine's\n"
	"  --events PATH   a JSON event file, a directory, or a mapfile.csv tree (also $OCREC_EVENTS)\n"
	"  --cpuinfo FILE, --cpuid FILE, --sysfs DIR   as for every command\n";

enum { OPT_DESC = OPT_FIRST_LOCAL, OPT_JSON };

static const struct {
	const char *name, *kind;
} generic_events[] = {
	{ "branch-instructions OR branches", "Hardware event" },
	{ "branch-misses", "Hardware event" },
	{ "bus-cycles", "Hardware event" },
	{ "cache-misses", "Hardware event" },
	{ "cache-references", "Hardware event" },
	{ "cpu-cycles OR cycles", "Hardware event" },
	{ "instructions", "Hardware event" },
	{ "ref-cycles", "Hardware event" },
	{ "stalled-cycles-backend OR idle-cycles-backend", "Hardware event" },
	{ "stalled-cycles-frontend OR idle-cycles-frontend", "Hardware event" },
	{ "alignment-faults", "Software event" },
	{ "bpf-output", "Software event" },
	{ "context-switches OR cs", "Software event" },
	{ "cpu-clock", "Software event" },
	{ "cpu-migrations OR migrations", "Software event" },
	{ "dummy", "Software event" },
	{ "emulation-faults", "Software event" },
	{ "major-faults", "Software event" },
	{ "minor-faults", "Software event" },
	{ "page-faults OR faults", "Software event" },
	{ "task-clock", "Software event" },
};

struct printer {
	bool desc, tty;
	const char *last_pmu;        /* the group being printed */
	bool several_pmus;           /* print "PMU:" headers (hybrid) */
	bool uncore_header;
	json_t *json;
	size_t count;
};

/* ocperf prints only ASCII (characters below 127) of a description. */
static void put_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 127)
			putchar(*s);
}

/* Python's textwrap.fill(width=70, indent 5 spaces) as ocperf uses it on a terminal:
 * whitespace becomes single-space-separated chunks, words may break after a hyphen. */
static void put_wrapped(const char *text)
{
	enum { WIDTH = 70, INDENT = 5 };
	struct strbuf line = STRBUF_INIT, word = STRBUF_INIT;
	const char *p = text;

	while (*p) {
		size_t n;
		sb_reset(&word);
		if (*p == ' ' || *p == '\t' || *p == '\n') {
			while (*p == ' ' || *p == '\t' || *p == '\n') {
				if ((unsigned char)*p < 127)
					sb_putc(&word, ' ');
				p++;
			}
		} else {
			/* a word, up to and including a hyphen between letters */
			while (*p && *p != ' ' && *p != '\t' && *p != '\n') {
				if ((unsigned char)*p < 127)
					sb_putc(&word, *p);
				p++;
				/* textwrap breaks "front-end" but not "(DSB)-to" or "x86-64" */
				if (p[-1] == '-' && word.len > 1 && isalpha((unsigned char)p[-2]) &&
				    isalpha((unsigned char)*p))
					break;
			}
		}
		n = word.len;
		if (!n)
			continue;
		if (line.len + n > WIDTH - INDENT && line.len) {
			while (line.len && line.buf[line.len - 1] == ' ')
				line.buf[--line.len] = 0;
			printf("%*s%s\n", INDENT, "", line.buf);
			sb_reset(&line);
		}
		if (!line.len && word.buf[0] == ' ')
			continue;   /* whitespace at the start of a line is dropped */
		sb_puts(&line, word.buf);
	}
	while (line.len && line.buf[line.len - 1] == ' ')
		line.buf[--line.len] = 0;
	if (line.len)
		printf("%*s%s\n", INDENT, "", line.buf);
	else
		printf("%*s\n", INDENT, "");
	sb_free(&line);
	sb_free(&word);
}

static char *lower_dup(const char *s)
{
	char *l = xstrdup(s);
	str_lower(l);
	return l;
}

static void add_json(struct printer *pr, const struct ev_list_entry *e)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(e->name));
	if (e->pmu)
		json_object_set_new(o, "pmu", json_string(e->pmu));
	if (e->unit) {
		json_object_set_new(o, "unit", json_string(e->unit));
		json_object_set_new(o, "uncore_pmu", json_string(e->uncore_pmu));
	}
	json_object_set_new(o, "description", json_string(e->desc));
	if (!e->from_libpfm) {
		json_object_set_new(o, "brief_description", json_string(e->brief));
		json_object_set_new(o, "event_code", json_integer((json_int_t)e->event_code));
		if (e->event_code2)
			json_object_set_new(o, "event_code2", json_integer((json_int_t)e->event_code2));
		json_object_set_new(o, "umask", json_integer((json_int_t)e->umask));
		json_object_set_new(o, "cmask", json_integer((json_int_t)e->cmask));
		json_object_set_new(o, "inv", json_integer((json_int_t)e->inv));
		json_object_set_new(o, "edge", json_integer((json_int_t)e->edge));
		json_object_set_new(o, "any", json_integer((json_int_t)e->any));
		if (e->msr_index) {
			json_object_set_new(o, "msr_index", json_integer((json_int_t)e->msr_index));
			json_object_set_new(o, "msr_value", json_integer((json_int_t)e->msr_value));
		}
		json_object_set_new(o, "sample_after_value", json_integer((json_int_t)e->period));
		json_object_set_new(o, "pebs", json_integer(e->pebs));
		json_object_set_new(o, "precise", json_integer(e->precise));
		json_object_set_new(o, "counter", json_string(e->counter));
		json_object_set_new(o, "errata", e->errata ? json_string(e->errata) : json_null());
		json_object_set_new(o, "deprecated", json_boolean(e->deprecated));
	}
	json_object_set_new(o, "source", json_string(e->from_libpfm ? "libpfm4" : "table"));
	json_array_append_new(pr->json, o);
}

static void print_entry(const struct ev_list_entry *e, void *arg)
{
	struct printer *pr = arg;
	char *name;

	pr->count++;
	if (pr->json) {
		add_json(pr, e);
		return;
	}
	if (pr->several_pmus && e->pmu && (!pr->last_pmu || strcmp(pr->last_pmu, e->pmu) != 0)) {
		printf("%s%s:\n\n", pr->last_pmu ? "\n" : "", e->pmu);
		pr->last_pmu = e->pmu;
	}
	if (pr->several_pmus && !e->pmu && !pr->uncore_header) {
		printf("\nuncore:\n\n");
		pr->uncore_header = true;
	}
	name = lower_dup(e->name);
	printf("  %-42s", name);
	free(name);
	if (e->pmu)
		printf(" [%s]", e->pmu);
	else if (!pr->desc)
		printf(" [%s]", e->uncore_pmu);
	if (!pr->desc) {
		putchar('\n');
	} else if (pr->tty) {
		putchar('\n');
		put_wrapped(e->desc);
	} else {
		printf(" [");
		put_ascii(e->desc);
		printf("]\n");
	}
}

int cmd_list_events(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "desc", no_argument, NULL, OPT_DESC },
		{ "json", no_argument, NULL, OPT_JSON },
		EVENTS_CPU_LONG_OPTION,
		EVENTS_PATH_LONG_OPTION,
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_events ev = { 0 };
	struct printer pr;
	struct ev_context *ctx;
	const char *pattern = NULL, *source;
	bool json = false;
	size_t i;
	int c;

	memset(&pr, 0, sizeof(pr));
	while ((c = cli_getopt(argc, argv, "hd", opts)) != -1) {
		if (cli_events_option(c, optarg, &ev))
			continue;
		switch (c) {
		case 'd':
		case OPT_DESC: pr.desc = true; break;
		case OPT_JSON: json = true; break;
		case 'h': return cli_help(usage);
		default: return cli_bad_usage("list-events");
		}
	}
	if (optind < argc)
		pattern = argv[optind++];
	if (optind < argc)
		return cli_error("list-events: one PATTERN at most (see 'ocrec list-events --help')");
	ctx = cli_events_get(&ev);
	if (!ctx)
		return cli_fail();
	oc_err_clear();
	source = ev_table_source(ctx);
	if (!source && *oc_errmsg()) {
		cli_events_close(&ev);
		return cli_fail();
	}
	if (!source)
		fprintf(stderr, "ocrec: %s\n", ev_no_table_hint(ctx));
	else if (!strcmp(source, "built-in architectural table"))
		fprintf(stderr, "ocrec: only the built-in architectural events of %s: run 'ocrec download --cpu %s' "
			"for the full table\n", ev.cpu.perfmon_id, ev.cpu.perfmon_id);
	pr.tty = isatty_stdout();
	if (json) {
		pr.json = json_array();
	} else {
		bool any = false;
		for (i = 0; i < ARRAY_SIZE(generic_events); i++) {
			if (!ev_pattern_match(pattern, generic_events[i].name))
				continue;
			if (!any)
				printf("Generic events (perf):\n");
			any = true;
			printf("  %-42s [%s]\n", generic_events[i].name, generic_events[i].kind);
		}
		if (any)
			putchar('\n');
		pr.several_pmus = ev_core_table_count(ctx) > 1;
	}
	if (ev_list(ctx, pattern, print_entry, &pr) < 0) {
		json_decref(pr.json);
		cli_events_close(&ev);
		return cli_fail();
	}
	if (pr.json) {
		json_dumpf(pr.json, stdout, JSON_INDENT(1));
		putchar('\n');
		json_decref(pr.json);
	}
	cli_events_close(&ev);
	if (pattern && !pr.count && !json)
		fprintf(stderr, "ocrec: no table event matches '%s'\n", pattern);
	return 0;
}
