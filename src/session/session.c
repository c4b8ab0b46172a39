/* session.c — inputs, events, threads, and the pass over the records: each
 * record applied to the machine state as perf's machine.c does, then handed to
 * the tool; in time order on request, as perf's ordered events deliver them. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "session/session-internal.h"
#include "util/util.h"

#define DEFAULT_MAX_STACK 127   /* perf's PERF_MAX_STACK_DEPTH */

/* --- interned strings -------------------------------------------------- */

const char *session_intern(struct session *s, const char *text)
{
	return *(char *const *)hmap_key(&s->strs, hmap_intern(&s->strs, text, NULL));
}

/* --- the session ------------------------------------------------------- */

int session_default_max_stack(void)
{
	char *line = read_line_file("/proc/sys/kernel/perf_event_max_stack");
	uint64_t v;
	int n = DEFAULT_MAX_STACK;

	if (line && parse_u64(line, &v) == 0 && v > 0 && v <= INT32_MAX)
		n = (int)v;
	free(line);
	oc_err_clear();
	return n;
}

struct session *session_new(const struct session_opts *opts)
{
	struct session *s = xcalloc(1, sizeof(*s));

	if (opts)
		s->opts = *opts;
	if (s->opts.max_stack == 0)
		s->opts.max_stack = session_default_max_stack();
	else if (s->opts.max_stack < 0)
		s->opts.max_stack = 0;
	s->st = symtab_new(&s->opts.sym);
	s->queue_sorted = true;
	hmap_init(&s->strs, sizeof(char *), 0, &hmap_str_ops);
	hmap_init(&s->threads, sizeof(uint32_t), sizeof(struct thread_slot *), NULL);
	hmap_init(&s->cache, sizeof(struct loc_key), sizeof(struct session_loc *), NULL);
	return s;
}

static void free_threads(struct session *s)
{
	size_t i;

	for (i = 0; i < hmap_count(&s->threads); i++)
		free(*(struct thread_slot **)hmap_val(&s->threads, i));
	hmap_clear(&s->threads);
	s->last_thread = NULL;
}

static void close_input(struct session *s)
{
	pd_close(s->rd);
	s->rd = NULL;
	s->info = NULL;
}

void session_free(struct session *s)
{
	size_t i;

	if (!s)
		return;
	close_input(s);
	free_threads(s);
	hmap_free(&s->threads);
	for (i = 0; i < s->nr_events; i++)
		free(s->events[i]);
	free(s->events);
	free(s->event_of_attr);
	free(s->frames);
	free(s->queue);
	free(s->arena);
	loc_cache_free(s);
	symtab_free(s->st);
	hmap_clear_interned(&s->strs);
	hmap_free(&s->strs);
	free(s);
}

/* --- events ------------------------------------------------------------ */

unsigned session_add_event(struct session *s, const char *name, const struct perf_event_attr *attr)
{
	struct session_event *e;
	size_t i, k;

	for (i = 0; i < s->nr_events; i++) {
		if (strcmp(s->events[i]->name, name))
			continue;
		for (k = 0; k < s->nr_event_of_attr && s->event_of_attr[k] != i; k++)
			;
		if (k == s->nr_event_of_attr)
			break;   /* this input has not taken it */
	}
	if (i == s->nr_events) {
		GROW(s->events, s->cap_events, s->nr_events + 1);
		e = s->events[s->nr_events] = xcalloc(1, sizeof(*e));
		e->index = (unsigned)s->nr_events++;
		e->name = session_intern(s, name);
		e->attr = *attr;
	}
	s->event_of_attr = xrealloc(s->event_of_attr, (s->nr_event_of_attr + 1) * sizeof(unsigned));
	s->event_of_attr[s->nr_event_of_attr++] = (unsigned)i;
	return (unsigned)i;
}

/* Events for the attrs the open file has shown so far (a pipe's come as records). */
static void sync_events(struct session *s)
{
	while (s->rd && s->nr_event_of_attr < s->info->nr_attrs) {
		const struct pd_attr *a = &s->info->attrs[s->nr_event_of_attr];
		char *name = pd_attr_name(a);
		session_add_event(s, name, &a->attr);
		free(name);
	}
}

size_t session_nr_events(const struct session *s)
{
	return s->nr_events;
}

const struct session_event *session_event(const struct session *s, size_t index)
{
	return index < s->nr_events ? s->events[index] : NULL;
}

/* --- threads ----------------------------------------------------------- */

static struct thread_slot *find_thread(struct session *s, uint32_t tid)
{
	size_t i = hmap_find(&s->threads, &tid);
	return i == HMAP_NONE ? NULL : *(struct thread_slot **)hmap_val(&s->threads, i);
}

/* perf's machine__findnew_thread(): a thread never named is ":TID". */
static struct thread_slot *findnew_thread(struct session *s, uint32_t pid, uint32_t tid)
{
	struct thread_slot **place, *t = s->last_thread;
	char name[16];

	if (t && t->t.tid == tid)
		return t;
	place = hmap_get(&s->threads, &tid);
	t = *place;
	if (t)
		return s->last_thread = t;
	t = *place = xcalloc(1, sizeof(*t));
	t->t.pid = pid;
	t->t.tid = tid;
	snprintf(name, sizeof(name), ":%d", (int)tid);
	t->t.comm = session_intern(s, name);
	return s->last_thread = t;
}

static void set_comm(struct session *s, uint32_t pid, uint32_t tid, const char *comm)
{
	struct thread_slot *t = findnew_thread(s, pid, tid);

	t->t.comm = session_intern(s, comm);
	t->named = true;
}

/* --- inputs ------------------------------------------------------------ */

void session_begin_input(struct session *s)
{
	close_input(s);
	if (s->nr_inputs)
		symtab_next_input(s->st);
	s->nr_inputs++;
	free_threads(s);
	loc_cache_clear(s);
	s->nr_event_of_attr = 0;
	s->nr_build_ids = 0;
	s->begun = false;
	/* perf_session__register_idle_thread() */
	set_comm(s, 0, 0, "swapper");
}

int session_open(struct session *s, const char *path)
{
	struct pd_reader *rd = pd_open(path);

	if (!rd)
		return -1;
	session_begin_input(s);
	s->rd = rd;
	s->info = pd_get_info(rd);
	sync_events(s);
	return 0;
}

const struct pd_info *session_info(const struct session *s)
{
	return s->info;
}

unsigned session_nr_inputs(const struct session *s)
{
	return s->nr_inputs;
}

/* --- records ----------------------------------------------------------- */

/* The input's build-ids (a pipe's arrive as records) to the symbol table. */
static void pass_build_ids(struct session *s)
{
	for (; s->info && s->nr_build_ids < s->info->nr_build_ids; s->nr_build_ids++) {
		const struct pd_build_id *b = &s->info->build_ids[s->nr_build_ids];
		symtab_add_build_id(s->st, b->filename, b->id, b->size);
	}
}

static int begin(struct session *s)
{
	s->begun = true;
	sync_events(s);
	return s->tool && s->tool->begin ? s->tool->begin(s, s->arg) : 0;
}

static void apply_mmap(struct session *s, const struct pd_event *ev)
{
	unsigned mode = ev->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	const char *name = ev->u.mmap.filename;
	uint32_t prot = ev->type == PERF_RECORD_MMAP2 ? ev->u.mmap.prot
			: ev->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC;
	char jit[32];

	/* perf's map__new(): executable anonymous memory is a JIT's, named after
	 * its symbol file */
	if ((prot & PROT_EXEC) && sym_is_anon_map(name) && mode != PERF_RECORD_MISC_KERNEL) {
		snprintf(jit, sizeof(jit), "/tmp/perf-%u.map", ev->u.mmap.pid);
		name = jit;
	}
	if (ev->u.mmap.build_id_size)
		symtab_add_build_id(s->st, name, ev->u.mmap.build_id, ev->u.mmap.build_id_size);
	symtab_mmap(s->st, ev->u.mmap.pid, ev->u.mmap.start, ev->u.mmap.len, ev->u.mmap.pgoff, name,
		    mode == PERF_RECORD_MISC_KERNEL);
	loc_cache_clear(s);
}

static void apply_fork(struct session *s, const struct pd_event *ev)
{
	struct thread_slot *parent;

	/* a new process starts with its parent's maps, a new thread with its name */
	if (ev->u.fork.pid != ev->u.fork.ppid)
		symtab_fork(s->st, ev->u.fork.pid, ev->u.fork.ppid);
	parent = find_thread(s, ev->u.fork.ptid);
	if (parent && parent->named && ev->u.fork.tid != ev->u.fork.ptid)
		set_comm(s, ev->u.fork.pid, ev->u.fork.tid, parent->t.comm);
}

/* The call chain as perf's resolve_callchain_sample() walks it: markers set
 * the mode of the frames after them, and at most max_stack frames count. Any
 * other value in the marker range (the kernel's user-stack walk can store a
 * return address of -1) makes perf's add_callchain_ip() take the whole chain
 * for corrupt and drop it: none of it is kept here either. */
static size_t make_frames(struct session *s, const struct pd_sample *smp)
{
	uint8_t mode = PERF_RECORD_MISC_USER;
	size_t n = 0, i;

	for (i = 0; i < smp->callchain_nr && n < (size_t)s->opts.max_stack; i++) {
		uint64_t ip = smp->callchain[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip == (uint64_t)PERF_CONTEXT_USER)
				mode = PERF_RECORD_MISC_USER;
			else if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
				mode = PERF_RECORD_MISC_KERNEL;
			else if (ip == (uint64_t)PERF_CONTEXT_HV)
				mode = PERF_RECORD_MISC_HYPERVISOR;
			else
				return 0;
			continue;
		}
		if (n == s->cap_frames)
			GROW(s->frames, s->cap_frames, n + 1);
		s->frames[n].ip = ip;
		s->frames[n++].cpumode = mode;
	}
	return n;
}

int session_deliver_sample(struct session *s, const struct pd_sample *smp, unsigned event, unsigned cpumode)
{
	struct session_sample ss;
	int ret;

	if (!s->begun && (ret = begin(s)) != 0)
		return ret;
	if (!s->tool || !s->tool->sample)
		return 0;
	ss.s = smp;
	ss.attr = smp->attr_index >= 0 && (size_t)smp->attr_index < s->info->nr_attrs
		  ? &s->info->attrs[smp->attr_index] : NULL;
	ss.event = s->events[event];
	ss.thread = &findnew_thread(s, smp->pid, smp->tid)->t;
	ss.cpumode = cpumode;
	ss.nr_frames = smp->callchain_nr ? make_frames(s, smp) : 0;
	ss.frames = s->frames;   /* after make_frames() grew it */
	ss.input = s->nr_inputs - 1;
	return s->tool->sample(s, &ss, s->arg);
}

int session_deliver(struct session *s, const struct pd_event *ev)
{
	pass_build_ids(s);
	switch (ev->type) {
	case PERF_RECORD_SAMPLE:
		if ((size_t)ev->attr_index >= s->nr_event_of_attr)
			sync_events(s);
		if ((size_t)ev->attr_index >= s->nr_event_of_attr)
			return 0;
		return session_deliver_sample(s, &ev->u.sample, s->event_of_attr[ev->attr_index],
					      ev->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	case PERF_RECORD_COMM:
		/* perf keeps a process's maps across an exec: the new image's MMAPs
		 * cover the old ones, and a sample in execve() still finds the old libc */
		set_comm(s, ev->u.comm.pid, ev->u.comm.tid, ev->u.comm.comm);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		apply_mmap(s, ev);
		break;
	case PERF_RECORD_FORK:
		apply_fork(s, ev);
		break;
	default:
		break;
	}
	return s->tool && s->tool->record ? s->tool->record(s, ev, s->arg) : 0;
}

/* --- time order -------------------------------------------------------- */

/* perf queues records and, at each FINISHED_ROUND, delivers those not later
 * than the newest time seen before the previous round; records without a time
 * go straight through. The same order gives the same output. */

static int cmp_queued(const void *a, const void *b)
{
	const struct queued *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int flush(struct session *s, uint64_t limit)
{
	size_t i, k, len = 0;
	unsigned char *rest;
	int ret = 0;

	if (!s->nr_queue)
		return 0;
	if (!s->queue_sorted)
		qsort(s->queue, s->nr_queue, sizeof(*s->queue), cmp_queued);
	for (i = 0; i < s->nr_queue && s->queue[i].time <= limit && !ret; i++) {
		struct pd_event ev;
		/* decoded once already when it was queued: cannot fail now */
		if (pd_decode(s->rd, s->arena + s->queue[i].rec, s->queue[i].offset, &ev) == 0)
			ret = session_deliver(s, &ev);
	}
	/* keep the records not yet due, packed at the start of a new arena */
	rest = xmalloc(s->arena_cap ? s->arena_cap : 1);
	for (k = 0; i < s->nr_queue; i++, k++) {
		const struct perf_event_header *h = (const void *)(s->arena + s->queue[i].rec);
		memcpy(rest + len, h, h->size);
		s->queue[k] = s->queue[i];
		s->queue[k].rec = len;
		len += (h->size + 7u) & ~7u;
	}
	free(s->arena);
	s->arena = rest;
	s->arena_len = len;
	s->nr_queue = k;
	s->queue_sorted = true;
	return ret;
}

static bool ordered_type(uint32_t type)
{
	return type == PERF_RECORD_SAMPLE || type == PERF_RECORD_COMM || type == PERF_RECORD_FORK ||
	       type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2;
}

static int on_event(const struct pd_event *ev, void *arg)
{
	struct session *s = arg;
	uint64_t time;
	struct queued *q;

	if (!s->opts.ordered)
		return session_deliver(s, ev);
	if (ev->type == PD_RECORD_FINISHED_ROUND) {
		int ret = flush(s, s->next_flush);
		s->next_flush = s->max_time;
		return ret;
	}
	time = ev->type == PERF_RECORD_SAMPLE ? ev->u.sample.time : ev->has_sample_id ? ev->sid_time : 0;
	if (!ordered_type(ev->type) || time == 0 || time == UINT64_MAX)
		return session_deliver(s, ev);
	if (s->nr_queue && time < s->queue[s->nr_queue - 1].time)
		s->queue_sorted = false;
	if (time > s->max_time)
		s->max_time = time;
	GROW(s->queue, s->cap_queue, s->nr_queue + 1);
	q = &s->queue[s->nr_queue++];
	q->time = time;
	q->seq = s->seq++;
	q->offset = ev->file_offset;
	if (s->arena_len + ev->size + 8 > s->arena_cap)
		GROW(s->arena, s->arena_cap, s->arena_len + ev->size + 8);
	q->rec = s->arena_len;
	memcpy(s->arena + s->arena_len, ev->raw, ev->size);
	s->arena_len += (ev->size + 7u) & ~7u;
	return 0;
}

int session_process(struct session *s, const struct session_tool *tool, void *arg)
{
	int ret;

	if (!s->rd)
		return oc_err("no input open");
	s->tool = tool;
	s->arg = arg;
	ret = pd_for_each(s->rd, on_event, s);
	if (ret < 0) {
		/* what came before a cut is delivered; resolving clears oc_err */
		char *why = xstrdup(oc_errmsg());
		flush(s, UINT64_MAX);
		oc_err("%s", why);
		free(why);
	} else if (ret == 0) {
		ret = flush(s, UINT64_MAX);
	}
	s->nr_queue = s->arena_len = 0;
	s->max_time = s->next_flush = 0;
	return session_end_input(s, ret);
}

int session_end_input(struct session *s, int ret)
{
	if (ret == 0 && !s->begun)
		ret = begin(s);
	close_input(s);
	s->tool = NULL;
	return ret;
}

int session_read(struct session *s, const char *path, const struct session_tool *tool, void *arg)
{
	return session_open(s, path) < 0 ? -1 : session_process(s, tool, arg);
}
