/* pd-synth — write a perf.data file from a small text description, with
 * ocrec's writer, so tests get files with exactly the records they need
 * (known branch stacks for a binary compiled at test time, several events,
 * call chains) on a machine without LBR.
 *
 * usage: pd-synth -o FILE [SPEC]      (SPEC defaults to standard input)
 *
 * SPEC, one directive per line ('#' starts a comment; numbers in C syntax,
 * 0x.. or decimal):
 *   event NAME [fields=ip,tid,time,addr,id,cpu,period,identifier,callchain,branch]
 *         [hw_index] [no_sample_id_all] [type=hardware|software] [config=N] [period=N]
 *       an event (attr); samples name it by its position, from 0, and its
 *       sample id is 100 + position. Default: one event "cycles:u" with
 *       ip,tid,time,period,branch. Events come before every other line.
 *   comm PID TID NAME [exec] [SID...]
 *   mmap2 PID START LEN PGOFF PATH [SID...]     (tid = pid)
 *   fork PID PPID [SID...] | exit PID PPID [SID...]
 *       SID: time=T cpu=C ev=N — the record's sample_id_all trailer (pid and
 *       tid are the record's, id the event's). Without any, the trailer is
 *       zero-filled, as in records perf synthesizes.
 *   lost COUNT
 *   build-id PATH HEX                           a BUILD_ID feature entry
 *   sample PID TID IP [ev=N] [time=T] [cpu=C] [period=P] [addr=A] [id=N] [kernel]
 *          [hw_idx=N] [br FROM/TO[/M|/P][/CYCLES][/TYPE]...] [cc ADDR...]
 *       br entries are newest first, as the kernel writes them; TYPE is a
 *       PERF_BR_* number. cc is a call chain (PERF_CONTEXT_* values allowed;
 *       FIRST..LAST stands for every address from FIRST to LAST, one apart);
 *       'kernel' marks the sample's cpumode kernel instead of user. period
 *       defaults to 1, id to the event's.
 *   round                                       a FINISHED_ROUND record
 * Errors: one line naming the spec line, exit 2, and no output file.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

#define MAX_EVENTS 8
#define MAX_ITEMS 512

/* the file being written: removed (never left half-written) on any error exit */
static struct pd_writer *writing;
static int lineno;

static void abort_unfinished(void)
{
	if (writing)
		pd_writer_close(writing, false);
}

static void __attribute__((format(printf, 1, 2), noreturn)) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pd-synth: line %d: ", lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void die_write(void)
{
	fprintf(stderr, "pd-synth: %s\n", oc_errmsg());
	exit(2);
}

static uint64_t num(const char *s)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0)
		die("'%s' is not a number", s);
	return v;
}

static uint64_t parse_fields(const char *s)
{
	static const struct { const char *name; uint64_t bit; } names[] = {
		{ "ip", PERF_SAMPLE_IP }, { "tid", PERF_SAMPLE_TID }, { "time", PERF_SAMPLE_TIME },
		{ "cpu", PERF_SAMPLE_CPU }, { "period", PERF_SAMPLE_PERIOD }, { "id", PERF_SAMPLE_ID },
		{ "identifier", PERF_SAMPLE_IDENTIFIER }, { "callchain", PERF_SAMPLE_CALLCHAIN },
		{ "branch", PERF_SAMPLE_BRANCH_STACK }, { "addr", PERF_SAMPLE_ADDR },
	};
	size_t n, i, j;
	char **v = str_split(s, ',', &n);
	uint64_t t = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ARRAY_SIZE(names) && strcmp(v[i], names[j].name); j++)
			;
		if (j == ARRAY_SIZE(names))
			die("unknown field '%s'", v[i]);
		t |= names[j].bit;
	}
	strv_free(v);
	return t;
}

/* An attr like perf record -b's on a machine where the kernel is off limits. */
static void default_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_HARDWARE;
	a->sample_period = 4000;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_BRANCH_STACK;
	a->sample_id_all = 1;
	a->exclude_kernel = a->exclude_hv = 1;
	a->mmap = a->comm = a->mmap2 = a->comm_exec = 1;
}

static void parse_event(struct perf_event_attr *a, char **tok, size_t nt)
{
	size_t i;

	default_attr(a);
	for (i = 2; i < nt; i++) {
		if (str_starts_with(tok[i], "fields="))
			a->sample_type = parse_fields(tok[i] + 7);
		else if (!strcmp(tok[i], "hw_index"))
			a->branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
		else if (!strcmp(tok[i], "no_sample_id_all"))
			a->sample_id_all = 0;
		else if (!strcmp(tok[i], "type=software"))
			a->type = PERF_TYPE_SOFTWARE;
		else if (!strcmp(tok[i], "type=hardware"))
			a->type = PERF_TYPE_HARDWARE;
		else if (str_starts_with(tok[i], "config="))
			a->config = num(tok[i] + 7);
		else if (str_starts_with(tok[i], "period="))
			a->sample_period = num(tok[i] + 7);
		else
			die("unknown event option '%s'", tok[i]);
	}
	if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
		a->branch_sample_type |= PERF_SAMPLE_BRANCH_ANY;
}

/* Trailing time=/cpu=/ev= items of a side-band line: its sample_id_all
 * trailer, for the records written next. Returns the time. */
static uint64_t parse_sid(struct pd_writer *w, char **tok, size_t nt, size_t first, uint32_t pid,
		      uint32_t tid, size_t nr_evs, const uint64_t *ids)
{
	struct pd_sample sid = { .pid = pid, .tid = tid, .id = ids[0] };
	size_t i;

	for (i = first; i < nt; i++) {
		if (str_starts_with(tok[i], "time="))
			sid.time = num(tok[i] + 5);
		else if (str_starts_with(tok[i], "cpu="))
			sid.cpu = (uint32_t)num(tok[i] + 4);
		else if (str_starts_with(tok[i], "ev=")) {
			uint64_t ev = num(tok[i] + 3);
			if (ev >= nr_evs)
				die("no event %s", tok[i] + 3);
			sid.id = ids[ev];
		} else
			die("unknown item '%s'", tok[i]);
	}
	pd_writer_set_sample_id(w, first < nt ? &sid : NULL);
	return sid.time;
}

static void parse_branch(char *item, struct pd_branch *b)
{
	char *f[5] = { NULL }, *p, *save = NULL;
	size_t nf = 0, k;
	unsigned mis = 0, pred = 0, cyc = 0, type = 0, numeric = 0;

	for (p = strtok_r(item, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (nf == ARRAY_SIZE(f))
			die("branch entry has more than FROM/TO/FLAG/CYCLES/TYPE");
		f[nf++] = p;
	}
	if (nf < 2)
		die("branch entry needs FROM/TO");
	for (k = 2; k < nf; k++) {
		if (!strcmp(f[k], "M"))
			mis = 1;
		else if (!strcmp(f[k], "P"))
			pred = 1;
		else if (numeric++ == 0)
			cyc = (unsigned)num(f[k]);
		else
			type = (unsigned)num(f[k]);
	}
	if (cyc > 0xffff || type > 0xf)
		die("branch cycles (%u) or type (%u) out of range", cyc, type);
	b->from = num(f[0]);
	b->to = num(f[1]);
	b->flags = pd_br_make_flags(mis, pred, cyc, type);
}

/* A call-chain item: one address, or a FIRST..LAST run of them. */
static void add_frames(uint64_t *cc, uint64_t *nr, char *item)
{
	char *dots = strstr(item, "..");
	uint64_t first, last;

	if (!dots) {
		if (*nr == MAX_ITEMS)
			die("more than %d call-chain entries", MAX_ITEMS);
		cc[(*nr)++] = num(item);
		return;
	}
	*dots = 0;
	first = num(item);
	last = num(dots + 2);
	if (last < first || last - first >= MAX_ITEMS - *nr)
		die("call-chain run %s..%s: more than %d entries or backwards", item, dots + 2, MAX_ITEMS);
	while (first <= last)
		cc[(*nr)++] = first++;
}

static void parse_sample(struct pd_writer *w, char **tok, size_t nt, size_t nr_evs, const uint64_t *ids)
{
	static struct pd_branch br[MAX_ITEMS];
	static uint64_t cc[MAX_ITEMS];
	struct pd_sample s;
	bool have_id = false;
	int mode = 0;
	uint64_t ev = 0;
	size_t i;

	memset(&s, 0, sizeof(s));
	s.pid = (uint32_t)num(tok[1]);
	s.tid = (uint32_t)num(tok[2]);
	s.ip = num(tok[3]);
	s.period = 1;
	s.branches = br;
	s.callchain = cc;
	for (i = 4; i < nt; i++) {
		if (!strcmp(tok[i], "br"))
			mode = 1;
		else if (!strcmp(tok[i], "cc"))
			mode = 2;
		else if (mode == 1)
			parse_branch(tok[i], &br[s.branch_nr++]);
		else if (mode == 2)
			add_frames(cc, &s.callchain_nr, tok[i]);
		else if (str_starts_with(tok[i], "ev="))
			ev = num(tok[i] + 3);
		else if (str_starts_with(tok[i], "time="))
			s.time = num(tok[i] + 5);
		else if (str_starts_with(tok[i], "cpu="))
			s.cpu = (uint32_t)num(tok[i] + 4);
		else if (str_starts_with(tok[i], "period="))
			s.period = num(tok[i] + 7);
		else if (str_starts_with(tok[i], "addr="))
			s.addr = num(tok[i] + 5);
		else if (str_starts_with(tok[i], "id=")) {
			s.id = num(tok[i] + 3);
			have_id = true;
		} else if (!strcmp(tok[i], "kernel"))
			s.misc = PERF_RECORD_MISC_KERNEL;
		else if (str_starts_with(tok[i], "hw_idx=")) {
			s.has_hw_idx = true;
			s.branch_hw_idx = num(tok[i] + 7);
		} else
			die("unknown sample item '%s'", tok[i]);
	}
	if (ev >= nr_evs)
		die("no event %llu", (unsigned long long)ev);
	if (!have_id)
		s.id = ids[ev];
	if (pd_write_sample(w, (int)ev, &s) < 0)
		die_write();
}

static void parse_build_id(struct pd_writer *w, const char *path, const char *hex)
{
	uint8_t id[20];
	size_t n = strlen(hex) / 2, k;

	if (n == 0 || n > 20 || strlen(hex) % 2 || strspn(hex, "0123456789abcdefABCDEF") != strlen(hex))
		die("bad build-id '%s' (1 to 20 bytes in hex)", hex);
	for (k = 0; k < n; k++)
		id[k] = (uint8_t)strtoul((char[3]){ hex[2 * k], hex[2 * k + 1], 0 }, NULL, 16);
	pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, id, (uint8_t)n, path);
}

int main(int argc, char **argv)
{
	struct pd_writer_event evs[MAX_EVENTS];
	uint64_t ids[MAX_EVENTS];
	char *names[MAX_EVENTS];
	struct pd_writer *w = NULL;
	const char *out = NULL;
	FILE *in = stdin;
	char line[8192];
	size_t nr_evs = 0, k;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "-o"))
		out = argv[2];
	if (!out) {
		fprintf(stderr, "usage: pd-synth -o FILE [SPEC]\n");
		return 2;
	}
	if (argc == 4 && !(in = fopen(argv[3], "r"))) {
		fprintf(stderr, "pd-synth: cannot open %s: %s\n", argv[3], strerror(errno));
		return 2;
	}
	memset(evs, 0, sizeof(evs));
	while (fgets(line, sizeof(line), in)) {
		char *tok[MAX_ITEMS], *p, *save = NULL;
		size_t nt = 0;

		lineno++;
		if (!strchr(line, '\n') && !feof(in))
			die("line longer than %zu bytes", sizeof(line) - 1);
		if ((p = strchr(line, '#')))
			*p = 0;
		for (p = strtok_r(line, " \t\r\n", &save); p; p = strtok_r(NULL, " \t\r\n", &save)) {
			if (nt == MAX_ITEMS)
				die("more than %d items", MAX_ITEMS);
			tok[nt++] = p;
		}
		if (!nt)
			continue;
		if (!strcmp(tok[0], "event")) {
			if (w || nr_evs == MAX_EVENTS || nt < 2)
				die("'event NAME ...' lines come first, at most %d", MAX_EVENTS);
			parse_event(&evs[nr_evs].attr, tok, nt);
			names[nr_evs] = xstrdup(tok[1]);
			ids[nr_evs] = 100 + nr_evs;
			evs[nr_evs].name = names[nr_evs];
			evs[nr_evs].ids = &ids[nr_evs];
			evs[nr_evs].nr_ids = 1;
			nr_evs++;
			continue;
		}
		if (!w) {
			if (!nr_evs) {
				default_attr(&evs[0].attr);
				evs[0].attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
				names[0] = xstrdup("cycles:u");
				ids[0] = 100;
				evs[0].name = names[0];
				evs[0].ids = &ids[0];
				evs[0].nr_ids = 1;
				nr_evs = 1;
			}
			w = pd_writer_open(out, evs, nr_evs);
			if (!w)
				die_write();
			writing = w;
			atexit(abort_unfinished);
			pd_writer_set_cmdline(w, argc, argv);
		}
		if (!strcmp(tok[0], "comm") && nt >= 4) {
			uint32_t pid = (uint32_t)num(tok[1]), tid = (uint32_t)num(tok[2]);
			bool exec = nt > 4 && !strcmp(tok[4], "exec");
			parse_sid(w, tok, nt, exec ? 5 : 4, pid, tid, nr_evs, ids);
			if (pd_write_comm(w, pid, tid, tok[3], exec) < 0)
				die_write();
		} else if (!strcmp(tok[0], "mmap2") && nt >= 6) {
			uint32_t pid = (uint32_t)num(tok[1]);
			parse_sid(w, tok, nt, 6, pid, pid, nr_evs, ids);
			if (pd_write_mmap2(w, pid, pid, num(tok[2]), num(tok[3]), num(tok[4]), 8, 1,
					   12345, 5 /* PROT_READ|PROT_EXEC */, 2 /* MAP_PRIVATE */, tok[5]) < 0)
				die_write();
		} else if ((!strcmp(tok[0], "fork") || !strcmp(tok[0], "exit")) && nt >= 3) {
			uint32_t pid = (uint32_t)num(tok[1]), ppid = (uint32_t)num(tok[2]);
			uint64_t time = parse_sid(w, tok, nt, 3, pid, pid, nr_evs, ids);
			if ((tok[0][0] == 'f' ? pd_write_fork : pd_write_exit)(w, pid, ppid, pid, ppid, time) < 0)
				die_write();
		} else if (!strcmp(tok[0], "lost") && nt == 2) {
			pd_writer_set_sample_id(w, NULL);
			if (pd_write_lost(w, ids[0], num(tok[1])) < 0)
				die_write();
		} else if (!strcmp(tok[0], "round") && nt == 1) {
			if (pd_write_finished_round(w) < 0)
				die_write();
		} else if (!strcmp(tok[0], "build-id") && nt == 3) {
			parse_build_id(w, tok[1], tok[2]);
		} else if (!strcmp(tok[0], "sample") && nt >= 4) {
			parse_sample(w, tok, nt, nr_evs, ids);
		} else {
			die("cannot parse '%s' (wrong directive or number of items)", tok[0]);
		}
	}
	if (in != stdin)
		fclose(in);
	if (!w) {
		fprintf(stderr, "pd-synth: empty description\n");
		return 2;
	}
	writing = NULL;
	if (pd_writer_close(w, true) < 0)
		die_write();
	for (k = 0; k < nr_evs; k++)
		free(names[k]);
	return 0;
}
