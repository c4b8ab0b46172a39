/* ocrec bolt — profiles for llvm-bolt from branch stacks: BOLT's fdata (the
 * file perf2bolt 16 writes) or its pre-aggregated text. The session reads the
 * perf.data inputs; each branch entry that lands in the binary becomes one of
 * its own addresses for the bolt module. */
#include <stdlib.h>
#include <string.h>

#include "bolt/bolt.h"
#include "cli/cli.h"
#include "session/session.h"
#include "symbols/symbols.h"

static const char usage[] =
	"usage: ocrec bolt [-i perf.data]... --binary PROG [-o FILE] [--pre-aggregated]\n"
	"                  [--debug-file FILE] [--force]\n"
	"\n"
	"Turn branch stacks (hardware LBR or ocrec's software sampler) into the profile\n"
	"llvm-bolt reads: BOLT's fdata, with the lines and counts perf2bolt (BOLT 16)\n"
	"writes. Samples without branch stacks give its no_lbr form.\n"
	"\n"
	"  -i, --input FILE     perf.data (repeatable: inputs merge; default perf.data)\n"
	"      --binary PROG    the profiled executable or shared library (link it with\n"
	"                       -Wl,--emit-relocs for llvm-bolt to move functions)\n"
	"  -o, --output FILE    write the profile here (atomically); default stdout\n"
	"      --pre-aggregated BOLT's pre-aggregated text (llvm-bolt -pa): B, F and f\n"
	"                       lines, addresses prefixed with the build-id\n"
	"      --debug-file FILE  the symbols of a stripped PROG (default: its debug file\n"
	"                       by .gnu_debuglink or build-id, as gdb finds it)\n"
	"      --force          use samples even when the recorded build-id differs\n";

enum { OPT_BINARY = OPT_FIRST_LOCAL, OPT_PRE_AGGREGATED, OPT_DEBUG_FILE, OPT_FORCE };

/* The user map an address was last found in: branch entries of a process
 * mostly fall in two or three, and their answer stands until a record (an
 * mmap, a fork, an exec) changes the maps. */
struct map_hit {
	uint32_t pid;
	uint64_t start, end, pgoff;
	bool binary;                /* the map is of the binary */
	bool one_segment;           /* in one segment: address = runtime address + delta */
	uint64_t delta;
};

struct feed {
	struct session_binary *id;
	struct dso *dso;            /* the binary's segments: file offset -> address */
	struct bolt_profile *prof;
	struct bolt_branch *br;
	size_t cap;
	uint64_t in_binary;         /* entries and samples that landed in it */
	struct map_hit hits[4];
	size_t nr_hits, next_hit;
};

/* addr of sample ss -> an address of the binary, if it lands there. */
static bool to_binary(struct feed *f, struct session *s, const struct session_sample *ss, uint64_t addr,
		      enum session_at at, uint64_t *out)
{
	const struct session_loc *l;
	struct map_hit *h;
	size_t i;

	for (i = 0; i < f->nr_hits; i++) {
		h = &f->hits[i];
		if (h->pid == ss->s->pid && addr >= h->start && addr < h->end)
			goto found;
	}
	l = session_resolve(s, ss, addr, at);
	if (!l->dso || l->kernel)
		return false;
	h = &f->hits[f->next_hit];
	f->next_hit = (f->next_hit + 1) % ARRAY_SIZE(f->hits);
	if (f->nr_hits < ARRAY_SIZE(f->hits))
		f->nr_hits++;
	*h = (struct map_hit){ .pid = ss->s->pid, .start = l->map_start, .end = l->map_end,
			       .pgoff = l->map_pgoff, .binary = session_binary_is(f->id, l->dso) };
	if (h->binary) {
		uint64_t first = dso_offset_to_vaddr(f->dso, h->pgoff);
		uint64_t last = dso_offset_to_vaddr(f->dso, h->pgoff + (h->end - h->start) - 1);
		h->delta = first - h->start;
		h->one_segment = last - (h->end - 1) == h->delta;
	}
found:
	if (h->binary)
		*out = h->one_segment ? addr + h->delta : dso_offset_to_vaddr(f->dso, addr - h->start + h->pgoff);
	return h->binary;
}

static int on_record(struct session *s, const struct pd_event *ev, void *arg)
{
	((struct feed *)arg)->nr_hits = 0;
	return 0;
}

static int on_sample(struct session *s, const struct session_sample *ss, void *arg)
{
	struct feed *f = arg;
	const struct pd_sample *ps = ss->s;
	size_t n = (size_t)ps->branch_nr, i;
	uint64_t ip;

	if (!n) {
		bool in = to_binary(f, s, ss, ps->ip, SESSION_AT_IP, &ip);
		f->in_binary += in;
		bolt_profile_add_sample(f->prof, in ? ip : ps->ip, in, ss->event->name);
		return 0;
	}
	GROW(f->br, f->cap, n);
	for (i = 0; i < n; i++) {
		const struct pd_branch *b = &ps->branches[i];
		struct bolt_branch *e = &f->br[i];
		e->from_in = to_binary(f, s, ss, b->from, SESSION_AT_BRANCH, &e->from);
		e->to_in = to_binary(f, s, ss, b->to, SESSION_AT_BRANCH, &e->to);
		if (!e->from_in)
			e->from = b->from;
		if (!e->to_in)
			e->to = b->to;
		e->mispred = pd_br_mispred(b);
		e->predicted = pd_br_predicted(b);
		f->in_binary += e->from_in || e->to_in;
	}
	bolt_profile_add_stack(f->prof, f->br, n);
	return 0;
}

static int read_input(struct feed *f, const char *path, bool force)
{
	static const struct session_tool tool = { .sample = on_sample, .record = on_record };
	struct session_opts so = { .sym = { .quiet = true, .maps_only = true } };
	struct session *s = session_new(&so);
	int ret = -1;

	if (session_open(s, path) == 0 && session_binary_check(f->id, path, session_info(s), force) == 0)
		ret = session_process(s, &tool, f) < 0 ? -1 : 0;
	session_free(s);
	return ret;
}

struct output {
	struct bolt_profile *prof;
	bool pre_aggregated;
};

static int write_profile(void *arg, FILE *fp)
{
	const struct output *o = arg;
	return o->pre_aggregated ? bolt_write_preaggregated(o->prof, fp) : bolt_write_fdata(o->prof, fp);
}

int cmd_bolt(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "binary", required_argument, NULL, OPT_BINARY },
		{ "pre-aggregated", no_argument, NULL, OPT_PRE_AGGREGATED },
		{ "debug-file", required_argument, NULL, OPT_DEBUG_FILE },
		{ "force", no_argument, NULL, OPT_FORCE },
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char **inputs = xcalloc((size_t)argc + 1, sizeof(*inputs));
	const char *binary = NULL, *out = NULL, *debug_opt = NULL;
	char *debug = NULL;
	struct feed f = { 0 };
	struct bolt_binary *bin = NULL;
	struct bolt_stats st;
	size_t nr_inputs = 0, i;
	bool pre_aggregated = false, force = false;
	int c, rc = 2;

	while ((c = getopt_long(argc, argv, "i:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i': inputs[nr_inputs++] = optarg; break;
		case 'o': out = optarg; break;
		case OPT_BINARY: binary = optarg; break;
		case OPT_PRE_AGGREGATED: pre_aggregated = true; break;
		case OPT_DEBUG_FILE: debug_opt = optarg; break;
		case OPT_FORCE: force = true; break;
		case 'h':
			free(inputs);
			return cli_help(usage);
		default:
			if (global_option(c, optarg))
				break;
			free(inputs);
			return cli_bad_usage("bolt");
		}
	}
	if (optind < argc) {
		cli_error("bolt: unexpected argument '%s' (see 'ocrec bolt --help')", argv[optind]);
		goto out;
	}
	if (!binary) {
		cli_error("bolt: --binary PROG is required (see 'ocrec bolt --help')");
		goto out;
	}
	if (!nr_inputs)
		inputs[nr_inputs++] = "perf.data";

	if (!(f.id = session_binary_new(binary)) || !(f.dso = dso_open_file(binary))) {
		rc = cli_fail();
		goto out;
	}
	if (debug_opt)
		debug = xstrdup(debug_opt);
	else if (!f.dso->has_symtab && !(debug = sym_debug_file(binary))) {
		cli_error("%s has no symbol table and no debug file was found: give the unstripped "
			  "binary or --debug-file FILE", binary);
		goto out;
	}
	if (!(bin = bolt_binary_open(binary, debug))) {
		rc = cli_fail();
		goto out;
	}
	f.prof = bolt_profile_new(bin);
	for (i = 0; i < nr_inputs; i++)
		if (read_input(&f, inputs[i], force) != 0) {
			rc = cli_fail();
			goto out;
		}
	bolt_profile_stats(f.prof, &st);
	if (!f.in_binary) {
		cli_error("no samples in %s: none of the %llu branch stacks and %llu other samples touch it",
			  binary, (unsigned long long)st.stacks, (unsigned long long)st.samples);
		goto out;
	}
	if (pre_aggregated && !st.stacks) {
		cli_error("%s: no branch stacks: the pre-aggregated form holds branches only "
			  "(record with -b, or leave out --pre-aggregated for the no_lbr form)", inputs[0]);
		goto out;
	}
	if (st.mismatched_traces * 10 > st.traces)
		oc_warn("%llu of the %llu straight runs between branch records (%.1f%%) leave the function "
			"they start in: %s is probably not the binary the samples come from",
			(unsigned long long)st.mismatched_traces, (unsigned long long)st.traces,
			100.0 * (double)st.mismatched_traces / (double)st.traces, binary);
	if (st.stacks && st.mispred_missing && !pre_aggregated)
		oc_warn("misprediction bit is missing in profile: the branch records do not say which "
			"branches were mispredicted (ocrec's software sampler cannot know), so those counts are 0");
	rc = cli_write_output(out, write_profile, &(struct output){ f.prof, pre_aggregated });
out:
	bolt_profile_free(f.prof);
	bolt_binary_close(bin);
	session_binary_free(f.id);
	dso_free(f.dso);
	free(f.br);
	free(debug);
	free(inputs);
	return rc;
}
