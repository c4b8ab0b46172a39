/* test-session.c — the session layer on perf.data files written here with
 * ocrec's writer: thread names (":TID", "swapper", COMM, copied on FORK), time
 * order on request (perf's FINISHED_ROUND rule), call chains without markers
 * and cut at max_stack, events of two inputs merged by name, addresses
 * resolved per mode; and the perf script text parser report and autofdo share. */
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "session/session.h"
#include "tap.h"
#include "util/util.h"

static char path[256];

/* A file: a FORK 10 -> 11 (a thread of 10, not named yet), a COMM for 10, a
 * FORK 10 -> 20 (a new process), samples out of time order, one with a call
 * chain. */
static int write_file(const char *name)
{
	struct pd_writer_event ev = { .name = name };
	uint64_t cc[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ULL, PERF_CONTEXT_USER, 0x401000, 0x401100, 0x401200 };
	struct pd_sample s = { .pid = 10, .tid = 10, .period = 1 };
	struct pd_writer *w;

	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.sample_period = 1;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			      PERF_SAMPLE_CALLCHAIN;
	ev.attr.sample_id_all = 1;
	ev.attr.comm = ev.attr.mmap = 1;
	w = pd_writer_open(path, &ev, 1);
	if (!w)
		return -1;
	pd_write_fork(w, 10, 10, 11, 10, 5);
	pd_write_comm(w, 10, 10, "main", false);
	pd_write_mmap2(w, 10, 10, 0x400000, 0x10000, 0, 8, 1, 1, 5, 2, "/nonexistent/prog");
	pd_write_fork(w, 20, 10, 20, 10, 6);
	/* times 300, 100 | round | 200, 400 | round */
	s.time = 300, s.ip = 0x401300;
	pd_write_sample(w, 0, &s);
	s.time = 100, s.ip = 0x401100, s.tid = 11;
	pd_write_sample(w, 0, &s);
	pd_write_finished_round(w);
	s.time = 200, s.ip = 0x401200, s.pid = s.tid = 20, s.callchain = cc, s.callchain_nr = 6;
	pd_write_sample(w, 0, &s);
	s.time = 400, s.ip = 0x401400, s.pid = s.tid = 7, s.callchain_nr = 0;
	pd_write_sample(w, 0, &s);
	pd_write_finished_round(w);
	return pd_writer_close(w, true);
}

struct seen {
	uint64_t time[8];
	const char *comm[8];
	unsigned event[8], input[8];
	size_t n, frames;
	uint8_t frame_mode[8];
	uint64_t frame_ip[8];
	char level;
	const struct dso *dso;
};

static int on_sample(struct session *s, const struct session_sample *ss, void *arg)
{
	struct seen *v = arg;
	size_t i;

	if (v->n == 8)
		return 0;
	v->time[v->n] = ss->s->time;
	v->comm[v->n] = ss->thread->comm;
	v->event[v->n] = ss->event->index;
	v->input[v->n++] = ss->input;
	if (ss->nr_frames) {
		v->frames = ss->nr_frames;
		for (i = 0; i < ss->nr_frames && i < 8; i++) {
			v->frame_mode[i] = ss->frames[i].cpumode;
			v->frame_ip[i] = ss->frames[i].ip;
		}
		v->level = session_frame(s, ss, 0)->level;
		v->dso = session_frame(s, ss, 1)->dso;
	}
	return 0;
}

static void test_perfdata(void)
{
	static const struct session_tool tool = { .sample = on_sample };
	struct session_opts so = { .ordered = true, .max_stack = 3 };
	struct session *s;
	struct seen v = { 0 };

	CHECK(write_file("cpu-clock") == 0, "write a file");
	s = session_new(&so);
	CHECK(session_read(s, path, &tool, &v) == 0, "read it");
	CHECK_INT(v.n, 4, "four samples");
	CHECK(v.time[0] == 100 && v.time[1] == 200 && v.time[2] == 300 && v.time[3] == 400,
	      "time order: a round's records wait for the next round, as perf delivers them");
	CHECK_STR(v.comm[0], ":11", "a thread whose parent had no name then: its tid");
	CHECK_STR(v.comm[2], "main", "COMM names a thread");
	CHECK_STR(v.comm[1], "main", "a forked process takes its parent's name");
	CHECK_STR(v.comm[3], ":7", "a thread never named: :TID");
	CHECK(v.comm[2] == session_intern(s, "main"), "names are interned");
	CHECK_INT(v.frames, 3, "the call chain: markers dropped, cut at max_stack");
	CHECK(v.frame_mode[0] == PERF_RECORD_MISC_KERNEL && v.frame_mode[1] == PERF_RECORD_MISC_USER &&
	      v.frame_ip[1] == 0x401000, "each frame in the mode of its marker");
	CHECK_INT(v.level, 'k', "a kernel frame resolves in kernel mode");
	CHECK(v.dso && !strcmp(v.dso->name, "/nonexistent/prog"), "a forked process has its parent's maps");
	CHECK_INT(session_nr_events(s), 1, "one event");

	/* a second input: its event of the same name is the same event */
	memset(&v, 0, sizeof(v));
	CHECK(session_read(s, path, &tool, &v) == 0 && v.n == 4 && v.input[0] == 1 && v.event[0] == 0,
	      "a second input: input 1, the same event");
	CHECK_INT(session_nr_events(s), 1, "two inputs, one event of one name");
	CHECK_INT(session_nr_inputs(s), 2, "two inputs");
	session_free(s);

	/* file order without ordered */
	so.ordered = false;
	s = session_new(&so);
	memset(&v, 0, sizeof(v));
	session_read(s, path, &tool, &v);
	CHECK(v.time[0] == 300 && v.time[1] == 100, "file order by default");
	CHECK_STR(v.comm[0], "main", "file order: the sample of time 300 first");
	session_free(s);
	unlink(path);
}

static void test_text(void)
{
	struct pd_branch br[4];
	struct pst_line pl;

	CHECK(pst_parse_line("", br, 4, &pl) == 0 && pl.kind == PST_EMPTY, "an empty line");
	CHECK(pst_parse_line("// x", br, 4, &pl) == 0 && pl.kind == PST_EMPTY, "a // comment");
	CHECK(pst_parse_line("PERF_RECORD_MMAP2 42/42: [0x400000(0x1000) @ 0x1000 08:01 12345 0]: r-xp /bin/prog",
			     br, 4, &pl) == 0 && pl.kind == PST_MMAP && pl.pid == 42 && pl.start == 0x400000 &&
	      pl.len == 0x1000 && pl.pgoff == 0x1000 && !strcmp(pl.path, "/bin/prog"), "an MMAP2 line");
	CHECK(pst_parse_line("x PERF_RECORD_MMAP2 42/42: [junk", br, 4, &pl) < 0, "a malformed MMAP2 line");
	CHECK(pst_parse_line("  4005d0  ", br, 4, &pl) == 0 && pl.kind == PST_ADDRESS && pl.ip == 0x4005d0,
	      "a call-stack address line");
	CHECK(pst_parse_line("hello world", br, 4, &pl) == 0 && pl.kind == PST_OTHER, "other text");
	CHECK(pst_parse_line(" 4005d0 0x4005c8/0x4005b0/P/-/-/3  0x4005a0/0x400590/M/-/-/0/COND/WRONG_PATH",
			     br, 4, &pl) == 0 && pl.kind == PST_BRANCHES && pl.ip == 0x4005d0 && pl.nr_branches == 2,
	      "a sample line: ip and two entries");
	CHECK(br[0].from == 0x4005c8 && br[0].to == 0x4005b0 && pd_br_predicted(&br[0]) &&
	      pd_br_cycles(&br[0]) == 3, "entry 1: addresses, predicted, cycles");
	CHECK(pd_br_mispred(&br[1]) && pd_br_spec(&br[1]) == 1, "entry 2: mispredicted, wrong path");
	CHECK(pst_parse_line("0x1/0x2/P/-/-/0 foo+0x1/bar+0x2/P/-/-/0 0x3/0x4", br, 1, &pl) == 0 &&
	      pl.nr_branches == 1 && pl.nr_bad == 1 && !strncmp(pl.bad, "foo", 3),
	      "a token that is no entry is counted, entries beyond max are dropped");
}

static int count_kinds(const struct pst_line *line, const struct pd_branch *br, void *arg)
{
	unsigned *kinds = arg;
	kinds[line->kind]++;
	return line->kind == PST_BRANCHES && br[0].from != 0x4005c8;   /* stop: parsed wrong */
}

static void test_buffer(void)
{
	const char buf[] = "# a comment\n"
			   "  PERF_RECORD_MMAP2 42/42: [0x400000(0x1000) @ 0x1000 08:01 12345 0]: r-xp /bin/prog\r\n"
			   "4005d0\n"
			   " 4005d0 0x4005c8/0x4005b0/P/-/-/3";   /* no newline at the end */
	unsigned kinds[8] = { 0 };

	CHECK_INT(pst_parse_buffer(buf, sizeof(buf) - 1, count_kinds, kinds), 0, "a buffer parses");
	CHECK(kinds[PST_EMPTY] == 1 && kinds[PST_MMAP] == 1 && kinds[PST_ADDRESS] == 1 && kinds[PST_BRANCHES] == 1,
	      "a buffer: one line of each kind, \\r\\n and a last line without newline");
	CHECK(pst_parse_buffer("PERF_RECORD_MMAP2 [x\n", 21, count_kinds, kinds) < 0 &&
	      strstr(oc_errmsg(), "line 1"), "a malformed MMAP line: the error names its line");
}

int main(void)
{
	char dir[200];

	if (!test_mkdtemp(dir, sizeof(dir), "ocrec-session.XXXXXX")) {
		printf("FAIL mkdtemp\n");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/s.data", dir);
	test_perfdata();
	test_text();
	test_buffer();
	rmdir(dir);
	return test_done();
}
