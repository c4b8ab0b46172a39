/* pd-synth — write a perf.data file from a small text description, with
 * ocrec's writer, so tests get files with exactly the records they need
 * (known branch stacks for a binary compiled at test time, several events,
 * call chains) on a machine without LBR.
 *
 * usage: pd-synth -o FILE < SPEC
 *
 * SPEC, one directive per line ('#' starts a comment):
 *   event NAME [fields=ip,tid,time,cpu,period,id,identifier,callchain,branch]
 *         [hw_index] [no_sample_id_all] [type=hardware|software] [config=N] [period=N]
 *       an event (attr); samples name it by its position, from 0. Default:
 *       one event "cycles:u" with ip,tid,time,period,branch.
 *   comm PID TID NAME [exec]
 *   mmap2 PID START LEN PGOFF PATH      (numbers in C syntax: 0x.. or decimal)
 *   fork PID PPID | exit PID PPID
 *   lost COUNT
 *   build-id PATH HEX                   a BUILD_ID feature entry
 *   sample PID TID IP [ev=N] [time=T] [cpu=C] [period=P] [id=N] [hw_idx=N]
 *          [br FROM/TO[/M|/P][/CYCLES][/TYPE]...] [cc ADDR...]
 *       br entries are newest first, as the kernel writes them; TYPE is a
 *       PERF_BR_* number. cc is a call chain (PERF_CONTEXT_* values allowed).
 *   round                               a FINISHED_ROUND record
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

#define MAX_EVENTS 8
#define MAX_ITEMS 512

/* the file being written: removed (never left half-written) on any error exit */
static struct pd_writer *writing;

static void abort_unfinished(void)
{
	if (writing)
		pd_writer_close(writing, false);
}

static uint64_t num(const char *s, int line)
{
	uint64_t v;

	if (parse_u64(s, &v) < 0) {
		fprintf(stderr, "pd-synth: line %d: '%s' is not a number\n", line, s);
		exit(2);
	}
	return v;
}

static uint64_t parse_fields(const char *s, int line)
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
		if (j == ARRAY_SIZE(names)) {
			fprintf(stderr, "pd-synth: line %d: unknown field '%s'\n", line, v[i]);
			exit(2);
		}
		t |= names[j].bit;
	}
	strv_free(v);
	return t;
}

static void die_write(void)
{
	fprintf(stderr, "pd-synth: %s\n", oc_errmsg());
	exit(2);
}

int main(int argc, char **argv)
{
	struct pd_writer_event evs[MAX_EVENTS];
	uint64_t ids[MAX_EVENTS];
	char *names[MAX_EVENTS];
	struct pd_writer *w = NULL;
	const char *out = NULL;
	char line[8192];
	size_t nr_evs = 0;
	int lineno = 0;

	if (argc == 3 && !strcmp(argv[1], "-o"))
		out = argv[2];
	if (!out) {
		fprintf(stderr, "usage: pd-synth -o FILE < SPEC\n");
		return 2;
	}
	memset(evs, 0, sizeof(evs));
	while (fgets(line, sizeof(line), stdin)) {
		char *tok[MAX_ITEMS], *p, *save = NULL;
		size_t nt = 0, i;

		lineno++;
		if ((p = strchr(line, '#')))
			*p = 0;
		for (p = strtok_r(line, " \t\r\n", &save); p && nt < MAX_ITEMS; p = strtok_r(NULL, " \t\r\n", &save))
			tok[nt++] = p;
		if (!nt)
			continue;
		if (!strcmp(tok[0], "event")) {
			struct perf_event_attr *a;
			if (w || nr_evs == MAX_EVENTS || nt < 2) {
				fprintf(stderr, "pd-synth: line %d: events come first, at most %d\n", lineno, MAX_EVENTS);
				return 2;
			}
			a = &evs[nr_evs].attr;
			a->type = PERF_TYPE_HARDWARE;
			a->sample_period = 4000;
			a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
					 PERF_SAMPLE_BRANCH_STACK;
			a->sample_id_all = 1;
			a->exclude_kernel = a->exclude_hv = 1;
			a->mmap = a->comm = a->mmap2 = a->comm_exec = 1;
			names[nr_evs] = xstrdup(tok[1]);
			for (i = 2; i < nt; i++) {
				if (str_starts_with(tok[i], "fields="))
					a->sample_type = parse_fields(tok[i] + 7, lineno);
				else if (!strcmp(tok[i], "hw_index"))
					a->branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
				else if (!strcmp(tok[i], "no_sample_id_all"))
					a->sample_id_all = 0;
				else if (!strcmp(tok[i], "type=software"))
					a->type = PERF_TYPE_SOFTWARE;
				else if (!strcmp(tok[i], "type=hardware"))
					a->type = PERF_TYPE_HARDWARE;
				else if (str_starts_with(tok[i], "config="))
					a->config = num(tok[i] + 7, lineno);
				else if (str_starts_with(tok[i], "period="))
					a->sample_period = num(tok[i] + 7, lineno);
				else {
					fprintf(stderr, "pd-synth: line %d: unknown event option '%s'\n", lineno, tok[i]);
					return 2;
				}
			}
			if (a->sample_type & PERF_SAMPLE_BRANCH_STACK)
				a->branch_sample_type |= PERF_SAMPLE_BRANCH_ANY;
			ids[nr_evs] = 100 + nr_evs;
			evs[nr_evs].name = names[nr_evs];
			evs[nr_evs].ids = &ids[nr_evs];
			evs[nr_evs].nr_ids = 1;
			nr_evs++;
			continue;
		}
		if (!w) {
			if (!nr_evs) {
				struct perf_event_attr *a = &evs[0].attr;
				a->type = PERF_TYPE_HARDWARE;
				a->sample_period = 4000;
				a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
						 PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK;
				a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
				a->sample_id_all = a->exclude_kernel = a->exclude_hv = 1;
				a->mmap = a->comm = a->mmap2 = a->comm_exec = 1;
				names[0] = xstrdup("cycles:u");
				evs[0].name = names[0];
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
			if (pd_write_comm(w, (uint32_t)num(tok[1], lineno), (uint32_t)num(tok[2], lineno), tok[3],
					  nt > 4 && !strcmp(tok[4], "exec")) < 0)
				die_write();
		} else if (!strcmp(tok[0], "mmap2") && nt == 6) {
			if (pd_write_mmap2(w, (uint32_t)num(tok[1], lineno), (uint32_t)num(tok[1], lineno),
					   num(tok[2], lineno), num(tok[3], lineno), num(tok[4], lineno), 8, 1,
					   12345, 5 /* PROT_READ|PROT_EXEC */, 2 /* MAP_PRIVATE */, tok[5]) < 0)
				die_write();
		} else if ((!strcmp(tok[0], "fork") || !strcmp(tok[0], "exit")) && nt == 3) {
			uint32_t pid = (uint32_t)num(tok[1], lineno), ppid = (uint32_t)num(tok[2], lineno);
			if ((tok[0][0] == 'f' ? pd_write_fork : pd_write_exit)(w, pid, ppid, pid, ppid, 0) < 0)
				die_write();
		} else if (!strcmp(tok[0], "lost") && nt == 2) {
			if (pd_write_lost(w, ids[0], num(tok[1], lineno)) < 0)
				die_write();
		} else if (!strcmp(tok[0], "round")) {
			if (pd_write_finished_round(w) < 0)
				die_write();
		} else if (!strcmp(tok[0], "build-id") && nt == 3) {
			uint8_t id[20];
			size_t n = strlen(tok[2]) / 2, k;
			if (n > 20 || strlen(tok[2]) % 2) {
				fprintf(stderr, "pd-synth: line %d: bad build-id\n", lineno);
				return 2;
			}
			for (k = 0; k < n; k++)
				id[k] = (uint8_t)strtoul((char[3]){ tok[2][2 * k], tok[2][2 * k + 1], 0 }, NULL, 16);
			pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, id, (uint8_t)n, tok[1]);
		} else if (!strcmp(tok[0], "sample") && nt >= 4) {
			static struct pd_branch br[MAX_ITEMS];
			static uint64_t cc[MAX_ITEMS];
			struct pd_sample s;
			int mode = 0, ev = 0;
			memset(&s, 0, sizeof(s));
			s.pid = (uint32_t)num(tok[1], lineno);
			s.tid = (uint32_t)num(tok[2], lineno);
			s.ip = num(tok[3], lineno);
			s.period = 1;
			s.branches = br;
			s.callchain = cc;
			for (i = 4; i < nt; i++) {
				if (!strcmp(tok[i], "br")) {
					mode = 1;
				} else if (!strcmp(tok[i], "cc")) {
					mode = 2;
				} else if (mode == 1) {
					char *f[5] = { NULL };
					size_t nf = 0;
					unsigned mis = 0, pred = 0, cyc = 0, type = 0, numeric = 0;
					for (p = strtok_r(tok[i], "/", &save); p && nf < 5; p = strtok_r(NULL, "/", &save))
						f[nf++] = p;
					if (nf < 2) {
						fprintf(stderr, "pd-synth: line %d: branch entry needs FROM/TO\n", lineno);
						return 2;
					}
					for (size_t k = 2; k < nf; k++) {
						if (!strcmp(f[k], "M"))
							mis = 1;
						else if (!strcmp(f[k], "P"))
							pred = 1;
						else if (numeric++ == 0)
							cyc = (unsigned)num(f[k], lineno);
						else
							type = (unsigned)num(f[k], lineno);
					}
					br[s.branch_nr].from = num(f[0], lineno);
					br[s.branch_nr].to = num(f[1], lineno);
					br[s.branch_nr].flags = pd_br_make_flags(mis, pred, cyc, type);
					s.branch_nr++;
				} else if (mode == 2) {
					cc[s.callchain_nr++] = num(tok[i], lineno);
				} else if (str_starts_with(tok[i], "ev=")) {
					ev = (int)num(tok[i] + 3, lineno);
				} else if (str_starts_with(tok[i], "time=")) {
					s.time = num(tok[i] + 5, lineno);
				} else if (str_starts_with(tok[i], "cpu=")) {
					s.cpu = (uint32_t)num(tok[i] + 4, lineno);
				} else if (str_starts_with(tok[i], "period=")) {
					s.period = num(tok[i] + 7, lineno);
				} else if (str_starts_with(tok[i], "hw_idx=")) {
					s.has_hw_idx = true;
					s.branch_hw_idx = num(tok[i] + 7, lineno);
				} else {
					fprintf(stderr, "pd-synth: line %d: unknown sample item '%s'\n", lineno, tok[i]);
					return 2;
				}
			}
			if (ev < 0 || (size_t)ev >= nr_evs) {
				fprintf(stderr, "pd-synth: line %d: no event %d\n", lineno, ev);
				return 2;
			}
			s.id = ids[ev];
			if (pd_write_sample(w, ev, &s) < 0)
				die_write();
		} else {
			fprintf(stderr, "pd-synth: line %d: cannot parse '%s'\n", lineno, tok[0]);
			return 2;
		}
	}
	if (!w) {
		fprintf(stderr, "pd-synth: empty description\n");
		return 2;
	}
	writing = NULL;
	if (pd_writer_close(w, true) < 0)
		die_write();
	for (size_t k = 0; k < nr_evs; k++)
		free(names[k]);
	return 0;
}
