/* sampler.c — swbranch_record(): the software branch sampler. A task-clock
 * event samples the workload (a dummy event beside it brings the COMM,
 * MMAP2, FORK and EXIT records: open_tracker()); at each sample the sampled
 * thread is stopped for the tracer (with PTRACE_INTERRUPT, or, asked for, by
 * the sample's own SIGTRAP: see stop_by_signal()) and the engine (trace.c)
 * collects its next N taken branches, written as one
 * PERF_SAMPLE_BRANCH_STACK sample whose ip is where the window ended, entries
 * newest first, like hardware LBR.
 * The workload runs as without ocrec: ptrace stops are hidden (signals are
 * delivered, group-stops kept), threads, forks and exec are followed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "dlib/dlib.h"
#include "capture/capture.h"
#include "symbols/symbols.h"
#include "sampler/emulate.h"
#include "sampler/sampler-internal.h"
#include "sampler/sampler.h"
#include "sampler/swtrace.h"
#include "util/util.h"

#define RING_PAGES 64    /* unless -m */
#define DEFAULT_DEPTH 32
#define MAX_DEPTH 1024
#define STOP_POLL_NS 100000     /* spin_deadline() */
/* With signal stops the rings wake the tracer only when half full: a sample
 * whose thread did not stop by itself is looked for this often (wait_time()). */
#define FALLBACK_POLL_MS 10
#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD)
#define PTRACE_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
			PTRACE_O_TRACEEXEC)

/* Threads pinned for a window (pin_thread) are remembered, so that what they
 * made while pinned gets their own affinity back (unpin_child) even once other
 * threads were pinned meanwhile. */
#define PIN_MEMORY 16

struct pin {
	pid_t tid, pid;
	int cpu;                  /* pinned there */
	cpu_set_t mask;           /* its own affinity */
	uint64_t seq;             /* when last pinned */
};

/* One address space (process) and its decoded code. */
struct space {
	pid_t pid;
	struct swb_space *sp;
	bool gone;              /* the process ended, or its pid is a new one's: freed between windows */
};

/* A timer sample not yet turned into a window: its thread is still to be
 * interrupted, interrupted and not yet stopped, stopped for its window, or
 * done with (its window taken, or none to take). */
enum pending_state { SAMPLED, INTERRUPTED, STOPPED, SETTLED };

/* A task-clock event and the thread it was opened for. */
struct timer_fd {
	int fd;
	pid_t tid;
};

struct pending_sample {
	uint32_t pid, tid, cpu;
	uint64_t period;          /* the timer's, summed over the samples merged into it */
	uint64_t samples;         /* 1 + those merged */
	enum pending_state state;
	uint64_t pass;            /* record_loop()'s pass that read it */
};

struct session {
	const struct record_opts *o;
	int depth;
	pid_t workload;           /* forked workload, or 0 */
	pid_t attached;           /* -p PID, or 0 */
	bool workload_done;
	int exit_status;
	struct timer_fd *fds;     /* the task-clock events, turned off during followed windows */
	size_t nr_fds, cap_fds;
	int *retired;             /* signal stops: events of an exec'd or ended process */
	size_t nr_retired, cap_retired;
	struct perf_event_attr tracker_attr;
	int *trackers;            /* the side-band events, never turned off */
	size_t nr_trackers, cap_trackers;
	/* Signal stops (stop_by_signal()): each sample stops its own thread with
	 * a SIGTRAP. The events go when their process execs (the kernel wants
	 * remove_on_exec with sigtrap) and are opened again at its exec stop;
	 * their rings belong to one dummy event per CPU (carriers). */
	bool signal_stops;
	struct perf_event_attr timer_attr;
	int *carriers;            /* per CPU, -1 where offline */
	int ncpu;
	pid_t *early_stops;       /* stopped by their sample before its record was read */
	size_t nr_early, cap_early;
	bool ending;              /* no more windows: such a stop just resumes */
	uint64_t pass;            /* record_loop()'s passes so far */
	uint64_t interrupts;      /* signal stops: samples whose thread was interrupted instead */
	pid_t *no_signal;         /* threads seen not to stop by their samples (SIGTRAP blocked) */
	size_t nr_no_signal, cap_no_signal;
	struct ring *rings;       /* one per CPU */
	size_t ring_pages;
	struct pollfd *pfds;      /* rings, then the signalfd */
	size_t nr_rings;
	int sigfd;
	struct pd_writer *w;
	struct dso_tracker *dsos; /* objects the windows touched, for BUILD_ID */
	struct space *spaces;
	size_t nr_spaces, cap_spaces;
	struct swb_tracer tracer;
	struct swb_entry *entries;
	struct pd_branch *branches;
	struct pending_sample *pending;   /* one per thread, until its window is taken */
	size_t nr_pending, cap_pending;
	uint64_t window_end;      /* CLOCK_MONOTONIC ns: when the last window ended (its sample's time) */
	int tracer_cpu;           /* pinned there (see hold_cpu), or -1 */
	cpu_set_t tracer_mask;    /* the tracer's own affinity otherwise */
	pid_t last_tid;           /* the last window's thread */
	int same_tid_windows;     /* windows in a row from it, up to ONE_THREAD_WINDOWS */
	bool timer_off;           /* for the rest of a window */
	bool pinned;              /* the window's thread too (pin says how) */
	struct pin *pin;          /* the thread pinned now, or last */
	struct pin pins[PIN_MEMORY];      /* the threads pinned last, one entry each */
	int nr_pins;
	uint64_t pin_seq;
	pid_t window_pid;         /* the process of the window being taken */
	uint64_t samples, timer_samples, lost, wakeups, dropped_windows;
	/* libunicorn is loaded by a thread of its own (load_libunicorn), started
	 * by the first window that needs it; libunicorn_ready is set
	 * (atomically) when it is done. Until then windows are emulated by the
	 * interpreter alone and followed from where it stops
	 * (tracer.no_libunicorn), loading_windows of them while it loads. */
	pthread_t libunicorn_loader;
	bool libunicorn_loading, libunicorn_ready;
	uint64_t loading_windows;
	/* Timer samples without a window of their own: merged into an earlier
	 * one of the same thread (which got a window), or without any because the
	 * thread was gone before the interrupt, ended or group-stopped before it
	 * stopped for it, the window was cut short, or recording ended. With the
	 * windows written they add up to timer_samples. */
	uint64_t merged_samples, gone_samples, preempted_samples, cut_samples, late_samples;
	int error;                /* a record callback failed */
};

static struct swb_space *space_of(struct session *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->nr_spaces; i++)
		if (s->spaces[i].pid == pid && !s->spaces[i].gone)
			return s->spaces[i].sp;
	GROW(s->spaces, s->cap_spaces, s->nr_spaces + 1);
	s->spaces[s->nr_spaces] = (struct space){ pid, swb_space_new(), false };
	return s->spaces[s->nr_spaces++].sp;
}

/* Process pid ended, or pid is new (a fork's child): what was known of a
 * process of that pid goes (its memory and its emulator, which the next
 * process takes over: a recording of a build runs thousands of processes).
 * Not freed here: a window may be using it (this runs inside windows). */
static void forget_space(struct session *s, pid_t pid)
{
	size_t i;

	for (i = 0; i < s->nr_spaces; i++)
		if (s->spaces[i].pid == pid)
			s->spaces[i].gone = true;
}

static void free_gone_spaces(struct session *s)
{
	size_t i, n;

	for (i = n = 0; i < s->nr_spaces; i++) {
		if (s->spaces[i].gone)
			swb_space_free(s->spaces[i].sp);
		else
			s->spaces[n++] = s->spaces[i];
	}
	s->nr_spaces = n;
}

/* Forget a process's decoded code (exec, or a new mapping over old code). */
static void invalidate(struct session *s, pid_t pid, uint64_t start, uint64_t len)
{
	size_t i;

	for (i = 0; i < s->nr_spaces; i++)
		if (s->spaces[i].pid == pid && s->spaces[i].sp)
			swb_space_invalidate(s->spaces[i].sp, start, len);
}

static bool is_group_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void unpin_child(struct session *s, pid_t child, pid_t parent);
static void release_cpu(struct session *s);
static int open_task_timer(struct session *s, pid_t tid, bool enabled);

/* Signal stops: pid exec'd (which removed its events) or ended. Its events
 * are no longer turned off and on around followed windows, which an
 * exec-heavy workload would otherwise multiply; they stay open to the end,
 * since processes it forked before carry copies of them. Retired during a
 * followed window, they are turned on again at once: a process that forks
 * and exits in one window (a daemon's double fork) left its child a timer
 * that was off for good. */
static void retire_timer(struct session *s, pid_t pid)
{
	size_t i, n = 0;

	for (i = 0; i < s->nr_fds; i++) {
		if (s->fds[i].tid != pid) {
			s->fds[n++] = s->fds[i];
			continue;
		}
		if (s->timer_off)
			ioctl(s->fds[i].fd, PERF_EVENT_IOC_ENABLE, 0);
		GROW(s->retired, s->cap_retired, s->nr_retired + 1);
		s->retired[s->nr_retired++] = s->fds[i].fd;
	}
	s->nr_fds = n;
}

static struct pending_sample *pending_of(struct session *s, pid_t tid)
{
	size_t i;

	for (i = 0; i < s->nr_pending; i++)
		if (s->pending[i].tid == (uint32_t)tid && s->pending[i].state != SETTLED)
			return &s->pending[i];
	return NULL;
}

static pid_t *find_tid(pid_t *tids, size_t n, pid_t tid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tids[i] == tid)
			return &tids[i];
	return NULL;
}

/* Done with a sample that gets no window: its samples go to *count, and a
 * thread stopped for it runs on. */
static void settle(struct pending_sample *ps, uint64_t *count)
{
	if (ps->state == STOPPED)
		ptrace(PTRACE_CONT, (pid_t)ps->tid, NULL, NULL);
	*count += ps->samples;
	ps->state = SETTLED;
}

/* Handle one wait status of a traced thread so that the workload behaves as
 * without ptrace: resume it, delivering its signal or keeping its group-stop.
 * The interrupt stop of a thread waiting for its window keeps it stopped
 * for take_windows(). */
static void handle_status(struct session *s, pid_t pid, int status)
{
	struct pending_sample *ps = pending_of(s, pid);
	int event = status >> 16, sig;

	if (s->signal_stops && WIFSTOPPED(status) && !event && WSTOPSIG(status) == SIGTRAP && swb_timer_trap(pid)) {
		/* Stopped by its sample, whose window it waits for; when that
		 * record is not read yet, record_loop() matches them after the
		 * next drain. (An interrupt asked for meanwhile reports later, as
		 * an old one.) */
		pid_t *slow = find_tid(s->no_signal, s->nr_no_signal, pid);

		if (slow)
			*slow = s->no_signal[--s->nr_no_signal];
		if (ps) {
			ps->state = STOPPED;
		} else if (!s->ending) {
			GROW(s->early_stops, s->cap_early, s->nr_early + 1);
			s->early_stops[s->nr_early++] = pid;
		} else {
			ptrace(PTRACE_CONT, pid, NULL, NULL);
		}
		return;
	}
	if (ps && ps->state == INTERRUPTED) {
		if (WIFSTOPPED(status) && event == PTRACE_EVENT_STOP && !is_group_stop_signal(WSTOPSIG(status))) {
			ps->state = STOPPED;
			return;
		}
		/* Something else came first: handled below. The thread ended or
		 * entered a group-stop; or another trap (exec, fork, a signal)
		 * took the interrupt's place (ptrace_stop() in kernel/signal.c:
		 * any trap clears a pending STOP trap), so it is asked again, to
		 * stop once this trap is resumed. */
		if (!WIFSTOPPED(status) || event == PTRACE_EVENT_STOP)
			settle(ps, &s->preempted_samples);
		else
			ptrace(PTRACE_INTERRUPT, pid, NULL, NULL);
	}
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		/* The lone busy thread the tracer kept to its CPU for: the next
		 * one may start on that CPU, where the tracer, left pinned, waited
		 * up to 90 ms on the run queue (schedstat) while it ran. */
		if (pid == s->last_tid)
			release_cpu(s);
		if (s->signal_stops)
			retire_timer(s, pid);
		if (pid == s->workload) {
			s->workload_done = true;
			s->exit_status = status;
		}
		/* a thread group's leader reports its end after its other threads */
		forget_space(s, pid);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	sig = WSTOPSIG(status);
	if (event == PTRACE_EVENT_STOP) {
		if (is_group_stop_signal(sig))
			ptrace(PTRACE_LISTEN, pid, NULL, NULL);
		else {
			unpin_child(s, pid, 0);
			ptrace(PTRACE_CONT, pid, NULL, NULL);   /* new thread, or an old interrupt */
		}
		return;
	}
	if (event == PTRACE_EVENT_EXEC) {
		unsigned long former;
		struct pending_sample *gone;

		/* A thread other than the main one exec'd: it now reports as the
		 * main thread (whose interrupt, if any, was asked for again above),
		 * and its own tid is gone without an exit report. */
		if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &former) == 0 && (pid_t)former != pid &&
		    (gone = pending_of(s, (pid_t)former)))
			settle(gone, &s->preempted_samples);
		invalidate(s, pid, 0, 0);
		/* the exec removed the process's events (remove_on_exec) */
		if (s->signal_stops)
			retire_timer(s, pid);
		if (s->signal_stops && !s->ending && open_task_timer(s, pid, !s->timer_off) < 0) {
			oc_warn("%s: process %d is not sampled after its exec", oc_errmsg(), (int)pid);
			oc_err_clear();
		}
	}
	if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
		unsigned long child;

		if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &child) == 0) {
			unpin_child(s, (pid_t)child, pid);
			if (event != PTRACE_EVENT_CLONE)
				forget_space(s, (pid_t)child);
		}
	}
	if (event) {
		ptrace(PTRACE_CONT, pid, NULL, NULL);
		return;
	}
	if (sig == SIGTRAP && swb_trace_trap(pid))
		sig = 0;
	ptrace(PTRACE_CONT, pid, NULL, (void *)(uintptr_t)sig);   /* signal-delivery-stop */
}

static void on_other_thread(pid_t pid, int status, void *arg)
{
	handle_status(arg, pid, status);
}

static int write_window(struct session *s, const struct pending_sample *ps, const struct swb_window *win)
{
	struct pd_sample smp = { 0 };
	int i;

	for (i = 0; i < win->nr; i++) {   /* newest first, as the kernel writes */
		const struct swb_entry *e = &win->e[win->nr - 1 - i];

		s->branches[i].from = e->from;
		s->branches[i].to = e->to;
		s->branches[i].flags = pd_br_make_flags(0, 0, 0, e->type);
		/* A branch into a library makes it part of the profile as much as
		 * the sample's ip: its build-id goes into the file too. */
		dso_tracker_mark(s->dsos, ps->pid, e->from);
		dso_tracker_mark(s->dsos, ps->pid, e->to);
	}
	dso_tracker_mark(s->dsos, ps->pid, win->ip);
	smp.ip = win->ip;
	smp.pid = ps->pid;
	smp.tid = ps->tid;
	smp.time = s->window_end;
	smp.cpu = ps->cpu;
	smp.period = ps->period;
	smp.misc = PERF_RECORD_MISC_USER;
	smp.branch_nr = (uint64_t)win->nr;
	smp.branches = s->branches;
	if (pd_write_sample(s->w, 0, &smp) < 0)
		return -1;
	s->samples++;
	return 0;
}

/* While the windows come from one thread, the tracer stays on its CPU and
 * each window's thread is resumed there (pin_thread): a sample's wake-up,
 * the interrupt and the resume are then context switches on one CPU. Across
 * two CPUs each of them woke a virtual CPU from idle with an interrupt, which
 * in a VM costs tens of microseconds of the program's time (docs/sampler.md).
 * Several busy threads would be crowded onto one CPU that way (three threads
 * and main on two CPUs: 1.5x slower instead of 1.05x), so once windows come
 * from another thread the tracer is free again (release_cpu), and a thread
 * joins it only while it follows that thread's window with ptrace. Moving
 * the tracer to the thread's CPU instead cost about 190 us a window: it
 * waited until the busy thread there made room for it. */
#define ONE_THREAD_WINDOWS 4    /* in a row from one thread: it is the busy one */

static bool one_busy_thread(struct session *s, pid_t tid)
{
	if (tid != s->last_tid) {
		s->last_tid = tid;
		s->same_tid_windows = 0;
	} else if (s->same_tid_windows < ONE_THREAD_WINDOWS) {
		s->same_tid_windows++;
	}
	return s->same_tid_windows >= ONE_THREAD_WINDOWS;
}

static void hold_cpu(struct session *s)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (s->tracer_cpu >= 0 || cpu < 0 || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		s->tracer_cpu = cpu;
}

/* Widening the tracer's mask moves nothing. */
static void release_cpu(struct session *s)
{
	if (s->tracer_cpu >= 0 && sched_setaffinity(0, sizeof(s->tracer_mask), &s->tracer_mask) == 0)
		s->tracer_cpu = -1;
}

/* tid's entry in s->pins, else a free one, else the one pinned longest ago. */
static struct pin *pin_entry(struct session *s, pid_t tid)
{
	struct pin *oldest = &s->pins[0];
	int i;

	for (i = 0; i < s->nr_pins; i++) {
		if (s->pins[i].tid == tid)
			return &s->pins[i];
		if (s->pins[i].seq < oldest->seq)
			oldest = &s->pins[i];
	}
	return s->nr_pins < PIN_MEMORY ? &s->pins[s->nr_pins++] : oldest;
}

/* Move the stopped thread to the tracer's CPU: a resume then wakes it there
 * rather than on the other CPU (which the scheduler picks while the tracer
 * runs). Its own affinity comes back (unpin_thread) right after the resume
 * or, for a window followed with ptrace, after its last stop. The scheduler
 * may run the resumed thread before the tracer unpins it, up to a time
 * slice: a sched_getaffinity() then sees one CPU, and what it starts
 * meanwhile inherits the pin (unpin_child). */
static void pin_thread(struct session *s, pid_t pid, pid_t tid)
{
	cpu_set_t own, set;
	struct pin *p;

	if (s->pinned || s->tracer_cpu < 0 || sched_getaffinity(tid, sizeof(own), &own) < 0 ||
	    !CPU_ISSET(s->tracer_cpu, &own))
		return;
	CPU_ZERO(&set);
	CPU_SET(s->tracer_cpu, &set);
	if (sched_setaffinity(tid, sizeof(set), &set) < 0)
		return;
	p = pin_entry(s, tid);
	*p = (struct pin){ tid, pid, s->tracer_cpu, own, ++s->pin_seq };
	s->pin = p;
	s->pinned = true;
}

static void unpin_thread(struct session *s, pid_t tid)
{
	if (s->pinned)
		sched_setaffinity(tid, sizeof(s->pin->mask), &s->pin->mask);
	s->pinned = false;
}

/* A thread or process that a pinned thread made while pinned (in a followed
 * window, or before the tracer had the CPU back to unpin it: the scheduler
 * may run it first) inherited the pin: it gets its parent's own affinity
 * instead. Its parent, when known, else it is seen at the child's first stop
 * (which may come before the parent's report): a thread of a pinned thread's
 * process, or a process it made. Not only the last pinned thread's: another
 * thread may have been pinned before the parent's report was read (seen: a
 * busy shell's job kept one CPU, 2 runs in 16 of t0601 under the sanitizers). */
static void unpin_child(struct session *s, pid_t child, pid_t parent)
{
	const struct pin *p = NULL;
	long tgid = 0, ppid = 0;
	cpu_set_t set;
	int i;

	if (!s->nr_pins || sched_getaffinity(child, sizeof(set), &set) < 0 || CPU_COUNT(&set) != 1)
		return;
	if (!parent)
		proc_ids((int)child, &tgid, &ppid);
	for (i = 0; i < s->nr_pins; i++) {
		const struct pin *q = &s->pins[i];

		if (!CPU_ISSET(q->cpu, &set) || CPU_EQUAL(&set, &q->mask) ||
		    !(parent ? q->tid == parent : q->pid == tgid || q->pid == ppid))
			continue;
		if (!p || q->seq > p->seq)
			p = q;
	}
	if (p)
		sched_setaffinity(child, sizeof(p->mask), &p->mask);
}

static void on_spawn(pid_t parent, pid_t child, void *arg)
{
	unpin_child(arg, child, parent);
}

static bool stopped_for_window(pid_t tid, void *arg)
{
	const struct pending_sample *ps = pending_of(arg, tid);

	return ps && ps->state == STOPPED;
}

/* Signal stops: the threads stopped by a sample whose record is not read
 * yet run on (their samples wait for an interrupt, or get no window). */
static void resume_early_stops(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_early; i++)
		ptrace(PTRACE_CONT, s->early_stops[i], NULL, NULL);
	s->nr_early = 0;
}

/* The window's thread waits in the kernel, maybe for a thread kept stopped
 * for its own window (a vfork() parent for its child's exec): those run on,
 * their samples left to an interrupt (interrupt_sampled()). */
static void release_held(void *arg)
{
	struct session *s = arg;
	size_t i;

	for (i = 0; i < s->nr_pending; i++) {
		if (s->pending[i].state != STOPPED)
			continue;
		oc_debug(2, "thread %d runs on while a window waits in the kernel", (int)s->pending[i].tid);
		ptrace(PTRACE_CONT, (pid_t)s->pending[i].tid, NULL, NULL);
		s->pending[i].state = SAMPLED;
	}
	resume_early_stops(s);
}

static void timer_ioctl(struct session *s, unsigned long req);

/* Before the engine first lets a window's thread run (an emulated window
 * never does). The timer goes off for the rest of the window: the stops'
 * kernel time would count as the workload's task-clock and bring more
 * samples the more the sampler costs (with the thread stopped, this needs no
 * cross-CPU call). And the thread joins the tracer's CPU for the stops to come. */
static void before_follow(pid_t tid, void *arg)
{
	struct session *s = arg;

	timer_ioctl(s, PERF_EVENT_IOC_DISABLE);
	s->timer_off = true;
	hold_cpu(s);
	pin_thread(s, s->window_pid, tid);
}

/* libunicorn (28 M instructions to load, 8-9 ms of CPU time here) only for
 * a program whose windows need it: most end in the interpreter (div.c's,
 * loop.c's and mawk's, all of them). ready: the session's libunicorn_ready. */
static void *load_libunicorn(void *ready)
{
	dlib_unicorn_load();
	__atomic_store_n((bool *)ready, true, __ATOMIC_RELEASE);
	return NULL;
}

/* A window needed libunicorn: it loads beside the recording, and windows
 * are followed from where the interpreter stops meanwhile, at a few hundred
 * us each, rather than one waiting for it with its thread stopped. Without
 * a thread, it loads when the next window needs it. */
static void load_libunicorn_later(struct session *s)
{
	if (s->libunicorn_loading)
		return;
	s->libunicorn_loading =
		pthread_create(&s->libunicorn_loader, NULL, load_libunicorn, &s->libunicorn_ready) == 0;
	if (!s->libunicorn_loading)
		s->tracer.no_libunicorn = false;
}

/* Collect the window of a thread stopped for it. */
static int take_window(struct session *s, struct pending_sample *ps)
{
	struct swb_space *sp;
	pid_t tid = (pid_t)ps->tid;
	struct swb_window win = { .e = s->entries };
	enum swb_result r;
	uint64_t t0, stops, engine_stops;

	/* first: an ended process's emulator goes to this one if it needs one */
	free_gone_spaces(s);
	sp = space_of(s, (pid_t)ps->pid);
	ps->state = SETTLED;
	if (!sp)
		return -1;
	t0 = now_ns();
	stops = s->tracer.stops + s->tracer.steps;
	s->window_pid = (pid_t)ps->pid;
	/* A thread that blocks SIGTRAP cannot be followed: its window waits for
	 * libunicorn rather than being dropped where the interpreter stops (on a
	 * busy machine the loading outlasted a program's first phase, which
	 * blocked SIGTRAP: none of its windows were kept). */
	if (s->tracer.no_libunicorn && swb_blocks_sigtrap(tid)) {
		load_libunicorn_later(s);
		while (s->tracer.no_libunicorn && !__atomic_load_n(&s->libunicorn_ready, __ATOMIC_ACQUIRE))
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	if (s->tracer.no_libunicorn && __atomic_load_n(&s->libunicorn_ready, __ATOMIC_ACQUIRE))
		s->tracer.no_libunicorn = false;
	s->loading_windows += s->tracer.no_libunicorn && s->libunicorn_loading;
	engine_stops = s->tracer.fallbacks[SWB_UC_ENGINE];
	r = swb_collect(&s->tracer, sp, tid, s->depth, &win);
	if (s->tracer.no_libunicorn && s->tracer.fallbacks[SWB_UC_ENGINE] != engine_stops)
		load_libunicorn_later(s);
	s->window_end = now_ns();
	if (s->timer_off)
		timer_ioctl(s, PERF_EVENT_IOC_ENABLE);
	s->timer_off = false;
	oc_debug(2, "window of thread %d on CPU %u: %d branches, %" PRIu64 " stops, %" PRIu64 " us",
		 (int)tid, ps->cpu, win.nr, s->tracer.stops + s->tracer.steps - stops,
		 (s->window_end - t0) / 1000);
	if (r == SWB_DONE) {
		if (write_window(s, ps, &win) < 0)
			return -1;
		s->merged_samples += ps->samples - 1;
		if (one_busy_thread(s, tid)) {
			hold_cpu(s);
			pin_thread(s, (pid_t)ps->pid, tid);
		} else {
			release_cpu(s);
		}
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		unpin_thread(s, tid);
		return 0;
	}
	/* The window was cut short (exit, exec, group-stop) or failed: hardware
	 * stacks are full, so the partial window is dropped. */
	unpin_thread(s, tid);
	release_cpu(s);
	s->dropped_windows++;
	s->cut_samples += ps->samples;
	if (r == SWB_EVENT)
		handle_status(s, tid, win.status);
	else
		ptrace(PTRACE_CONT, tid, NULL, NULL);
	return 0;
}

static int on_record(const struct perf_event_header *h, void *arg)
{
	struct session *s = arg;

	if (h->type == PERF_RECORD_SAMPLE) {
		/* IP, TID, TIME, CPU, PERIOD. The timer is off during followed
		 * windows, so no sample is stale. A thread sampled again before its
		 * window was taken gets one window, which carries both periods: the
		 * profile's time stays the threads' task-clock. */
		const uint64_t *p = (const void *)(h + 1);
		const uint32_t *pt = (const void *)&p[1];
		struct pending_sample *ps = pending_of(s, (pid_t)pt[1]);

		s->timer_samples++;
		if (ps) {
			ps->period += p[4];
			ps->samples++;
			return 0;
		}
		GROW(s->pending, s->cap_pending, s->nr_pending + 1);
		s->pending[s->nr_pending++] = (struct pending_sample){ pt[0], pt[1], (uint32_t)p[3], p[4], 1, SAMPLED,
								       s->pass };
		return 0;
	}
	if (h->type == PERF_RECORD_LOST)
		s->lost += ((const uint64_t *)(h + 1))[1];
	if (h->type == PERF_RECORD_MMAP2) {
		const uint32_t *pt = (const void *)(h + 1);
		const uint64_t *range = (const void *)&pt[2];

		invalidate(s, (pid_t)pt[0], range[0], range[1]);
	}
	if (h->type == PERF_RECORD_COMM && (h->misc & PERF_RECORD_MISC_COMM_EXEC))
		invalidate(s, (pid_t)((const uint32_t *)(h + 1))[0], 0, 0);
	dso_tracker_record(s->dsos, h, 0);
	return pd_write_raw(s->w, h, h->size);
}

static int drain(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_rings; i++)
		if (ring_drain(&s->rings[i], on_record, s) < 0)
			return -1;
	dso_tracker_resolve_pending(s->dsos);
	return 0;
}

static void configure_timer(const struct record_opts *o, struct perf_event_attr *a, bool forked)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	if (o->nr_events && o->events[0] && str_starts_with(o->events[0], "cpu-clock"))
		a->config = PERF_COUNT_SW_CPU_CLOCK;
	if (o->period) {
		a->sample_period = o->period;
	} else {
		a->freq = 1;
		a->sample_freq = o->freq ? o->freq : SWB_DEFAULT_FREQ;
	}
	a->sample_type = SAMPLE_TYPE;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
	a->enable_on_exec = forked;
	a->inherit = 1;
	a->sample_id_all = 1;
	if (kernel_at_least(6, 0))
		a->read_format = PERF_FORMAT_LOST;
	a->wakeup_events = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* Whether each sample is to stop its own thread: the timer event sends it a
 * SIGTRAP (perf_event_attr.sigtrap), which ptrace reports to the tracer as
 * the thread takes it, on its way back to the sampled instruction. Else the
 * sample wakes the tracer, which stops the thread with PTRACE_INTERRUPT: two
 * more context switches on the thread's CPU, 30-70 us a sample in the VMs
 * measured (docs/sampler.md, Costs). From Linux 5.19 only: until commit
 * 78ed93d72ded ("signal: Deliver SIGTRAP on perf event asynchronously if
 * blocked") the kernel forced the signal through, unblocking it and resetting
 * the program's handler for SIGTRAP where it was blocked. A thread that keeps
 * SIGTRAP blocked is interrupted instead, FALLBACK_POLL_MS late, and from
 * then on the tracer looks for such samples every timer period.
 * For a program ocrec started only: a SIGTRAP queued or being taken when the
 * tracer dies (SIGKILL) kills the program, which a process recorded with -p
 * must survive. OCREC_SAMPLER_STOPS=interrupt asks for interrupts. */
static bool stop_by_signal(const struct perf_event_attr *timer, bool forked)
{
	const char *env = getenv("OCREC_SAMPLER_STOPS");
	struct perf_event_attr a = *timer;
	int fd;

	if (!forked || (env && strcmp(env, "interrupt") == 0) || !kernel_at_least(5, 19))
		return false;
	/* the kernel's word on it: an event of ocrec's own */
	a.sigtrap = a.remove_on_exec = 1;
	a.enable_on_exec = 0;
	a.disabled = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The timer of signal stops: removed at exec (the kernel's condition for
 * sigtrap), opened again at the exec stop. The rings wake the tracer only
 * when half full: each sample's stop wakes it instead. */
static void signal_stop_timer(struct perf_event_attr *a, size_t ring_pages)
{
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = SWB_TIMER_SIG_DATA;
	a->enable_on_exec = 0;
	a->wakeup_events = 0;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 2);
}

/* Out of descriptors (each event is one, and signal stops open more at each
 * exec): the soft limit goes up to the hard one, as perf's evsel__open_cpu()
 * does on EMFILE. Whether it went up. */
static bool raise_nofile_limit(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0 || r.rlim_cur >= r.rlim_max)
		return false;
	r.rlim_cur = r.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &r) == 0;
}

/* Map fd's ring buffer, polled with the others. */
static int add_ring(struct session *s, int fd)
{
	if (ring_map(&s->rings[s->nr_rings], fd, s->ring_pages) < 0)
		return -1;
	s->pfds[s->nr_rings++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	return 0;
}

/* a's event of tid on cpu, into ring_fd's ring if >= 0: 1; 0 when tid is
 * gone or cpu offline (*fd -1); -1 on other errors. */
static int open_into_ring(struct perf_event_attr *a, pid_t tid, int cpu, int ring_fd, int *fd)
{
	const char *what = a->config == PERF_COUNT_SW_DUMMY ? "the side-band event" : "task-clock";

	*fd = sys_perf_event_open(a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (*fd < 0 && errno == EMFILE && raise_nofile_limit())
		*fd = sys_perf_event_open(a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (*fd < 0)
		return errno == ESRCH || errno == ENODEV || (errno == EINVAL && cpu >= 0) ? 0
		       : oc_err_errno("cannot open %s for the software branch sampler (thread %d)", what, (int)tid);
	if (ring_fd >= 0 && ioctl(*fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd) < 0) {
		oc_err_errno("cannot send %s of thread %d to a shared ring buffer", what, (int)tid);
		close(*fd);
		*fd = -1;
		return -1;
	}
	return 1;
}

/* A task-clock event of tid on cpu into ring_fd's ring (or, if -1, a ring
 * of its own, mapped and polled); 0 when tid is gone or cpu offline (*fd -1). */
static int open_event(struct session *s, struct perf_event_attr *a, pid_t tid, int cpu, int ring_fd, int *fd)
{
	int rc = open_into_ring(a, tid, cpu, ring_fd, fd);

	if (rc <= 0)
		return rc;
	GROW(s->fds, s->cap_fds, s->nr_fds + 1);
	s->fds[s->nr_fds++] = (struct timer_fd){ *fd, tid };
	return ring_fd >= 0 ? 0 : add_ring(s, *fd);
}

/* The side-band records (COMM, MMAP2, FORK, EXIT) of tid and the processes
 * it starts come from a dummy event of their own on each CPU, into that
 * CPU's ring: inherited, kept through exec, never turned off. The kernel
 * sends them only to enabled events (perf_iterate_ctx() in
 * kernel/events/core.c), and the timers are off while a window is followed:
 * carried by the timers, whatever a thread mapped then had no record (once,
 * libc: docs/sampler.md, "Side-band records"). perf's tracking event is
 * such a dummy. */
static int open_tracker(struct session *s, pid_t tid, int cpu, int ring_fd)
{
	int fd, rc = open_into_ring(&s->tracker_attr, tid, cpu, ring_fd, &fd);

	if (rc <= 0)
		return rc;
	GROW(s->trackers, s->cap_trackers, s->nr_trackers + 1);
	s->trackers[s->nr_trackers++] = fd;
	return 0;
}

/* on at the exec for a program ocrec starts, at once for -p */
static void configure_tracker(struct perf_event_attr *t, const struct perf_event_attr *timer, bool forked)
{
	*t = *timer;
	t->config = PERF_COUNT_SW_DUMMY;
	t->sample_period = 0;
	t->freq = 0;
	t->disabled = forked;
	t->enable_on_exec = forked;
	t->mmap = t->mmap2 = t->comm = t->comm_exec = t->task = 1;
}

static void alloc_rings(struct session *s)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int c;

	s->ncpu = n > 0 ? (int)n : 1;
	s->rings = xcalloc((size_t)s->ncpu, sizeof(*s->rings));
	s->pfds = xcalloc((size_t)s->ncpu + 1, sizeof(*s->pfds));
	s->carriers = xmalloc((size_t)s->ncpu * sizeof(int));
	for (c = 0; c < s->ncpu; c++)
		s->carriers[c] = -1;
}

/* One task-clock event per thread and CPU; the events of one CPU share its
 * ring buffer (inherited per-task events cannot be mapped with cpu -1). */
static int open_timer(struct session *s, struct perf_event_attr *a, const pid_t *tids, size_t nr_tids)
{
	int c;
	size_t t;

	for (c = 0; c < s->ncpu; c++) {
		int ring_fd = -1, fd;

		for (t = 0; t < nr_tids; t++) {
			if (open_event(s, a, tids[t], c, ring_fd, &fd) < 0)
				return -1;
			if (ring_fd < 0)
				ring_fd = fd;
		}
		for (t = 0; t < nr_tids && ring_fd >= 0; t++)
			if (open_tracker(s, tids[t], c, ring_fd) < 0)
				return -1;
	}
	if (!s->nr_rings)
		return oc_err("cannot open task-clock on any CPU for the software branch sampler");
	return 0;
}

/* Signal stops: a dummy event of ocrec's own per CPU owns that CPU's ring,
 * which the threads' events, opened and removed at every exec, write into,
 * as the workload's side-band event does. */
static int open_carriers(struct session *s)
{
	struct perf_event_attr d = s->timer_attr;
	int c;

	d.type = PERF_TYPE_SOFTWARE;
	d.config = PERF_COUNT_SW_DUMMY;
	d.sample_period = 0;
	d.freq = 0;
	d.sigtrap = d.remove_on_exec = d.inherit = 0;
	d.disabled = 1;
	for (c = 0; c < s->ncpu; c++) {
		int fd = sys_perf_event_open(&d, 0, c, -1, PERF_FLAG_FD_CLOEXEC);

		s->carriers[c] = fd;
		if (fd < 0) {
			if (errno == ENODEV || errno == EINVAL)
				continue;   /* an offline CPU */
			return oc_err_errno("cannot open a ring buffer for the software branch sampler");
		}
		if (add_ring(s, fd) < 0 || open_tracker(s, s->workload, c, fd) < 0)
			return -1;
	}
	if (!s->nr_rings)
		return oc_err("cannot open a ring buffer on any CPU for the software branch sampler");
	return 0;
}

/* Signal stops: tid's events, one per CPU, into the CPU's ring. */
static int open_task_timer(struct session *s, pid_t tid, bool enabled)
{
	struct perf_event_attr a = s->timer_attr;
	int c, fd;

	a.disabled = !enabled;
	for (c = 0; c < s->ncpu; c++)
		if (s->carriers[c] >= 0 && open_event(s, &a, tid, c, s->carriers[c], &fd) < 0)
			return -1;
	return 0;
}

static void close_timer(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_rings; i++)
		ring_unmap(&s->rings[i]);
	for (i = 0; i < s->nr_fds; i++)
		close(s->fds[i].fd);
	for (i = 0; i < s->nr_retired; i++)
		close(s->retired[i]);
	free(s->retired);
	for (i = 0; i < s->nr_trackers; i++)
		close(s->trackers[i]);
	free(s->trackers);
	for (i = 0; s->carriers && i < (size_t)s->ncpu; i++)
		if (s->carriers[i] >= 0)
			close(s->carriers[i]);
	free(s->fds);
	free(s->rings);
	free(s->pfds);
	free(s->carriers);
}

static void timer_ioctl(struct session *s, unsigned long req)
{
	size_t i;

	for (i = 0; i < s->nr_fds; i++)
		ioctl(s->fds[i].fd, req, 0);
}

/* "AMD EPYC ..." from /proc/cpuinfo, for the CPUDESC note. */
static char *cpu_model_name(void)
{
	char *info = read_file("/proc/cpuinfo", NULL), *p, *end, *name = NULL;

	oc_err_clear();
	if (!info)
		return xstrdup("unknown CPU");
	p = strstr(info, "model name");
	if (p && (p = strchr(p, ':'))) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		end = strchr(p, '\n');
		name = xstrndup(p, end ? (size_t)(end - p) : strlen(p));
	}
	free(info);
	return name ? name : xstrdup("unknown CPU");
}

static int open_output(struct session *s, const struct perf_event_attr *timer)
{
	struct pd_writer_event ev = { .attr = *timer };
	char *cpudesc, *name;

	ev.attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	ev.attr.branch_sample_type = s->o->branch_filter ? s->o->branch_filter : PERF_SAMPLE_BRANCH_ANY;
	ev.attr.wakeup_events = 0;
	name = xasprintf("%s:u (software branch sampler)",
			 timer->config == PERF_COUNT_SW_CPU_CLOCK ? "cpu-clock" : "task-clock");
	ev.name = name;
	s->w = pd_writer_open(s->o->output ? s->o->output : "perf.data", &ev, 1);
	free(name);
	if (!s->w)
		return -1;
	cpudesc = cpu_model_name();
	name = xasprintf("%s (no LBR: branch stacks emulated by ocrec's software branch sampler, %d deep)",
			 cpudesc, s->depth);
	pd_writer_set_string(s->w, PD_FEAT_CPUDESC, name);
	free(name);
	free(cpudesc);
	if (s->o->orig_argv)
		pd_writer_set_cmdline(s->w, s->o->orig_argc, s->o->orig_argv);
	return 0;
}

/* capstone, which every window needs, loaded while the workload starts:
 * the first window would otherwise load it with its thread stopped (a few
 * ms here, longer than the program runs between two windows). Started after
 * the workload is forked, so that no fork copies a half-held loader lock. */
static void *preload_capstone(void *unused)
{
	(void)unused;
	dlib_capstone_load();
	return NULL;
}

/* Fork argv held before exec (the recorder's workload), traced from the start. */
static int start_workload(struct session *s, int *go_fd, int *err_fd)
{
	struct workload w;

	if (workload_prepare(&w, s->o->argv) < 0)
		return -1;
	s->workload = w.pid;
	*go_fd = w.go_fd;
	*err_fd = w.err_fd;
	if (ptrace(PTRACE_SEIZE, w.pid, NULL, (void *)(uintptr_t)PTRACE_OPTIONS) < 0)
		return oc_err_errno("cannot trace %s (ptrace)", s->o->argv[0]);
	return 0;
}

/* Release the forked workload; -1 + oc_err() when exec failed. */
static int release_workload(struct session *s, int go_fd, int err_fd)
{
	struct workload w = { s->workload, go_fd, err_fd };
	int exec_errno;

	return workload_start(&w, s->o->argv[0], &exec_errno);
}

/* Seize every thread of a running process (-p); *tids gets them. */
static int attach_process(struct session *s, pid_t pid, pid_t **tids, size_t *nr_tids)
{
	size_t n = 0, i;
	pid_t *all = proc_threads(pid, &n);

	if (!all)
		return -1;
	*tids = xcalloc(n + 1, sizeof(pid_t));
	*nr_tids = 0;
	for (i = 0; i < n; i++) {
		if (ptrace(PTRACE_SEIZE, all[i], NULL, (void *)(uintptr_t)PTRACE_OPTIONS) == 0)
			(*tids)[(*nr_tids)++] = all[i];
		else if (errno == EPERM)
			break;
	}
	free(all);
	if (!*nr_tids)
		return oc_err_errno("cannot trace process %d (ptrace)", (int)pid);
	s->attached = pid;
	return 0;
}

/* Letting threads go (the end of -p, or of signal stops): a report of a
 * thread that was asked to stop with PTRACE_INTERRUPT. At that stop it is
 * detached; any other report is handled as during recording, and a thread
 * whose interrupt another trap took (ptrace_stop() in kernel/signal.c: any
 * trap clears a pending STOP trap) is asked again. Whether the thread is
 * done with: detached, or gone. */
static bool let_go(struct session *s, pid_t tid, int status)
{
	if (WIFSTOPPED(status) && status >> 16 == PTRACE_EVENT_STOP) {
		/* A SIGTRAP of ours still queued (a step's, when an interrupt
		 * ended a window in a syscall and the thread was resumed but has
		 * not taken it yet: the interrupt stop comes first) would kill
		 * the thread once detached: it comes as a report first, which
		 * handle_status() discards, and the thread is asked again. */
		if (swb_own_trap_queued(tid)) {
			ptrace(PTRACE_CONT, tid, NULL, NULL);
			return false;
		}
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return true;
	}
	handle_status(s, tid, status);
	return !WIFSTOPPED(status) || ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0;
}

/* How long detach_process() waits for the threads' interrupt stops. A thread
 * that has not stopped by then (one waiting in vfork() for a child that does
 * not go on to its exec) is left to the kernel, which detaches every tracee
 * as ocrec exits. */
#define DETACH_LIMIT_NS 500000000ull

/* Stop tracing every thread of the attached process and leave it running. */
static void detach_process(struct session *s)
{
	uint64_t deadline = now_ns() + DETACH_LIMIT_NS;
	size_t n = 0, left = 0, i;
	pid_t *tids = proc_threads(s->attached, &n);

	if (!tids) {
		oc_err_clear();
		return;
	}
	for (i = 0; i < n; i++)
		if (ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL) == 0)
			tids[left++] = tids[i];
	/* Every report is handled meanwhile, not only the interrupted threads':
	 * a thread in vfork() stops only once its child, whose stops (its
	 * attach, its exec) are reports too, has gone on to its exec. */
	while (left && now_ns() < deadline) {
		int status;
		pid_t p = waitpid(-1, &status, __WALL | WNOHANG), *t;

		if (p < 0)
			break;
		if (p == 0) {
			nanosleep(&(struct timespec){ 0, 20000 }, NULL);
			continue;
		}
		t = find_tid(tids, left, p);
		if (!t)
			handle_status(s, p, status);
		else if (let_go(s, p, status))
			*t = tids[--left];
	}
	free(tids);
}

/* The threads ocrec traces (TracerPid), in *n; NULL if /proc cannot be read. */
static pid_t *traced_threads(size_t *n)
{
	char me[32], path[80], *status, *tracer;
	pid_t *all = NULL;
	size_t cap = 0, nt, i;
	struct dirent *de;
	DIR *d = opendir("/proc");

	*n = 0;
	if (!d)
		return NULL;
	snprintf(me, sizeof(me), "TracerPid:\t%d\n", (int)getpid());
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name), *tids;

		if (pid <= 0 || !(tids = proc_threads(pid, &nt))) {
			oc_err_clear();
			continue;
		}
		for (i = 0; i < nt; i++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tids[i]);
			if (!(status = read_file(path, NULL))) {
				oc_err_clear();
				continue;
			}
			tracer = strstr(status, "TracerPid:");
			if (tracer && strncmp(tracer, me, strlen(me)) == 0) {
				GROW(all, cap, *n + 1);
				all[(*n)++] = tids[i];
			}
			free(status);
		}
		free(tids);
	}
	closedir(d);
	return all;
}

/* How long release_survivors() may take before ocrec exits all the same. */
#define RELEASE_LIMIT_NS 2000000000ull

/* Signal stops: processes the workload left running (background jobs,
 * daemons) are still traced, and a thread of theirs may have one of the
 * timer's SIGTRAPs queued, or be taking one: left so when ocrec exits, the
 * signal would kill it (2 of 10 busy background jobs here). With every event
 * off, each traced thread is interrupted and let go (let_go(): whatever else
 * it reports first is handled as during recording, a SIGTRAP of the timer's
 * discarded, an exec or a fork resumed: a thread waiting in vfork() for a
 * child stopped at its exec would never stop otherwise), and threads started
 * meanwhile are found by the next look. One SIGTRAP queued
 * while the thread blocks SIGTRAP stays: it comes when the thread unblocks it. */
static void release_survivors(struct session *s)
{
	uint64_t deadline = now_ns() + RELEASE_LIMIT_NS;
	pid_t *asked = NULL;
	size_t nr_asked = 0, cap_asked = 0, n, i;

	for (i = 0; i < s->nr_retired; i++)
		ioctl(s->retired[i], PERF_EVENT_IOC_DISABLE, 0);
	timer_ioctl(s, PERF_EVENT_IOC_DISABLE);
	while (now_ns() < deadline) {
		siginfo_t si;
		pid_t *tids, p;
		int status;

		/* No child and no tracee left (the usual end): no /proc scan,
		 * which reads every thread's status on the machine. */
		if (waitid(P_ALL, 0, &si, WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) < 0 && errno == ECHILD)
			break;
		tids = traced_threads(&n);

		for (i = 0; i < n; i++)
			if (!find_tid(asked, nr_asked, tids[i]) && ptrace(PTRACE_INTERRUPT, tids[i], NULL, NULL) == 0) {
				GROW(asked, cap_asked, nr_asked + 1);
				asked[nr_asked++] = tids[i];
			}
		free(tids);
		if (!n)
			break;
		/* every report that came, before /proc is read again (all of it) */
		while ((p = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
			if (find_tid(asked, nr_asked, p))
				let_go(s, p, status);
			else
				handle_status(s, p, status);
		}
		nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	free(asked);
}

/* SIGINT/SIGTERM (read off the signalfd): terminate a forked workload like
 * perf (a second one kills it), or stop recording an attached process
 * (true). The SIGCHLD that comes with every ptrace stop is read as well:
 * left pending, it would wake the next poll() at once. */
static bool read_signals(struct session *s, bool *stopping)
{
	struct signalfd_siginfo si[8];
	bool detach = false;
	ssize_t n;
	size_t i;

	while ((n = read(s->sigfd, si, sizeof(si))) > 0) {
		for (i = 0; i < (size_t)n / sizeof(si[0]); i++) {
			if (si[i].ssi_signo == SIGCHLD)
				continue;
			if (!s->workload)
				detach = true;
			else
				kill(s->workload, *stopping ? SIGKILL : SIGTERM);
			*stopping = true;
		}
		if ((size_t)n < sizeof(si))
			break;
	}
	return detach;
}

/* Interrupt every thread sampled since the last pass, all at once: a thread
 * a busy CPU keeps waiting stops only when it runs again, up to a scheduling
 * slice later, and the others' windows need not wait for it. With signal
 * stops, only a thread sampled before the last poll that has not stopped by
 * itself (SIGTRAP blocked, or the record read before its stop came), and
 * then at once whenever it is sampled, until it stops by itself again. */
static void interrupt_sampled(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_pending; i++) {
		struct pending_sample *ps = &s->pending[i];
		bool slow = s->signal_stops && find_tid(s->no_signal, s->nr_no_signal, (pid_t)ps->tid);

		if (ps->state != SAMPLED || (s->signal_stops && ps->pass == s->pass && !slow))
			continue;
		if (ptrace(PTRACE_INTERRUPT, (pid_t)ps->tid, NULL, NULL) == 0) {
			ps->state = INTERRUPTED;
			if (s->signal_stops && !slow) {
				GROW(s->no_signal, s->cap_no_signal, s->nr_no_signal + 1);
				s->no_signal[s->nr_no_signal++] = (pid_t)ps->tid;
			}
			s->interrupts += s->signal_stops;
		} else {
			settle(ps, &s->gone_samples);
		}
	}
}

/* Signal stops: the threads that stopped for a sample before its record
 * was read get it now; one whose record never came (lost) runs on. */
static void match_early_stops(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_early; i++) {
		struct pending_sample *ps = pending_of(s, s->early_stops[i]);

		if (ps)
			ps->state = STOPPED;
		else
			ptrace(PTRACE_CONT, s->early_stops[i], NULL, NULL);
	}
	s->nr_early = 0;
}

/* An interrupted thread that was running on another CPU than the tracer's
 * stops within some 20 us: asking for its stop without sleeping spares the
 * tracer a sleep and a wake-up (two context switches, which cost more than
 * the asking in a VM). On the tracer's own CPU the thread needs the CPU to
 * stop, so the tracer sleeps at once, in poll(). */
static uint64_t spin_deadline(const struct session *s)
{
	int cpu = sched_getcpu();
	size_t i;

	for (i = 0; i < s->nr_pending && cpu >= 0; i++)
		if (s->pending[i].state == INTERRUPTED && s->pending[i].cpu != (uint32_t)cpu)
			return now_ns() + STOP_POLL_NS;
	return 0;
}

static bool any_interrupted(const struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_pending; i++)
		if (s->pending[i].state == INTERRUPTED)
			return true;
	return false;
}

/* Handle the threads' reports that have come (without waiting, or spinning
 * until `until` while an interrupted thread has not stopped) and take the
 * window of each thread stopped for one, in the order they stop. The
 * number of windows taken, or -1. */
static int take_windows(struct session *s, uint64_t until)
{
	int taken = 0;
	size_t i, n;

	for (;;) {
		int status;
		pid_t p;

		for (i = 0; i < s->nr_pending; i++) {
			struct pending_sample *ps = &s->pending[i];

			if (ps->state != STOPPED)
				continue;
			if (s->workload_done) {
				settle(ps, &s->late_samples);
			} else if (take_window(s, ps) < 0) {
				return -1;
			} else {
				taken++;
			}
		}
		p = waitpid(-1, &status, __WALL | WNOHANG);
		if (p > 0) {
			handle_status(s, p, status);
			continue;
		}
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0 || !any_interrupted(s) || now_ns() >= until)
			break;
	}
	for (i = n = 0; i < s->nr_pending; i++)
		if (s->pending[i].state != SETTLED)
			s->pending[n++] = s->pending[i];
	s->nr_pending = n;
	return taken;
}

/* At the end: a thread stopped for its window runs on; an interrupted one
 * reports its stop to whoever waits next (handle_status() resumes it, or
 * detach_process() detaches it). */
static void settle_pending(struct session *s)
{
	size_t i;

	s->ending = true;
	for (i = 0; i < s->nr_pending; i++)
		settle(&s->pending[i], &s->late_samples);
	s->nr_pending = 0;
	resume_early_stops(s);
}

/* How long the loop sleeps at most: with signal stops, a sample whose thread
 * did not stop by itself is seen only when the tracer wakes for something
 * else, so it looks every FALLBACK_POLL_MS, and once such a thread was seen,
 * every timer period. */
static struct timespec wait_time(const struct session *s)
{
	uint64_t ns = 100000000;

	if (s->signal_stops && s->interrupts)   /* the timer's period, in ns of task-clock */
		ns = s->timer_attr.freq ? 1000000000ull / s->timer_attr.sample_freq : s->timer_attr.sample_period;
	else if (s->signal_stops)
		ns = FALLBACK_POLL_MS * 1000000ull;
	return (struct timespec){ (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
}

/* One pass per wake-up: the samples, the interrupts they ask for, the
 * signals (and the SIGCHLDs of the threads' stops, read before their stops
 * are asked for: a stop after the last waitpid() leaves its SIGCHLD to wake
 * poll()), the windows of the threads that stopped, then sleep until the
 * next sample, signal or stop. */
static int record_loop(struct session *s)
{
	bool stopping = false, detach = false;
	size_t i;

	for (;;) {
		struct timespec wait;
		uint64_t until;
		int ready, taken;

		if (drain(s) < 0)
			return -1;
		match_early_stops(s);
		interrupt_sampled(s);
		until = spin_deadline(s);
		do {
			if (read_signals(s, &stopping))
				detach = true;
			taken = take_windows(s, until);
			until = 0;
		} while (taken > 0);
		if (taken < 0)
			return -1;
		if (s->workload_done || detach || (s->attached && kill(s->attached, 0) < 0))
			break;
		s->pass++;
		if (s->nr_early)
			continue;   /* their records are in the rings by now */
		wait = wait_time(s);
		ready = ppoll(s->pfds, s->nr_rings + 1, &wait, NULL);
		if (ready < 0 && errno != EINTR)
			return oc_err_errno("poll");
		if (ready <= 0)
			continue;
		s->wakeups++;
		/* A ring whose threads have all ended reports POLLHUP until the
		 * tracer reaps them (a few ms at exit): poll() would return at once
		 * all that time. Its last records are drained all the same. */
		for (i = 0; i < s->nr_rings; i++)
			if (s->pfds[i].revents & (POLLHUP | POLLERR))
				s->pfds[i].fd = -1;
	}
	settle_pending(s);
	timer_ioctl(s, PERF_EVENT_IOC_DISABLE);
	if (drain(s) < 0)
		return -1;
	settle_pending(s);
	return 0;
}

/* Records a ring had no room for: the kernel reports them in a LOST record
 * at its next write to that ring, which never comes when the ring filled up
 * at the end. The events count them all (PERF_FORMAT_LOST, Linux 6.0); what
 * no LOST record told is written as one. */
static int write_unreported_lost(struct session *s)
{
	uint64_t lost = 0;
	size_t i;

	if (!(s->tracker_attr.read_format & PERF_FORMAT_LOST))
		return 0;
	for (i = 0; i < s->nr_fds; i++)
		lost += perf_event_lost(s->fds[i].fd, s->tracker_attr.read_format);
	for (i = 0; i < s->nr_retired; i++)
		lost += perf_event_lost(s->retired[i], s->tracker_attr.read_format);
	for (i = 0; i < s->nr_trackers; i++)
		lost += perf_event_lost(s->trackers[i], s->tracker_attr.read_format);
	if (lost <= s->lost)
		return 0;
	oc_debug(1, "software branch sampler: %" PRIu64 " records lost without a LOST record", lost - s->lost);
	if (pd_write_lost(s->w, 0, lost - s->lost) < 0)
		return -1;
	s->lost = lost;
	return 0;
}

/* The -v line: how the windows were had, and what they cost. */
static void print_summary(const struct session *s)
{
	const struct swb_tracer *t = &s->tracer;
	struct strbuf sb = STRBUF_INIT, how = STRBUF_INIT;
	uint64_t early = 0;
	int k;

	sb_printf(&sb, "%" PRIu64 " windows of %" PRIu64 " timer samples (%" PRIu64 " cut short, %" PRIu64
		  " ending where they began), %.2f stops a window (%" PRIu64 " at %s, %" PRIu64 " single-steps), ",
		  t->windows, s->timer_samples, s->dropped_windows, t->seek_hits,
		  t->windows ? (double)(t->stops + t->steps) / (double)t->windows : 0.0, t->stops,
		  swb_breakpoints_name(t->bp), t->steps);
	if (s->signal_stops)
		sb_printf(&how, "their samples (SIGTRAP), %" PRIu64 " interrupted instead", s->interrupts);
	else
		sb_puts(&how, "PTRACE_INTERRUPT");
	if (t->emulating) {
		sb_printf(&sb, "instructions %" PRIu64 " emulated (%" PRIu64 " of them interpreted) and about %" PRIu64
			  " followed, emulation stopped early", t->emulated_insns, t->interpreted_insns, t->followed_insns);
		for (k = 1; k < SWB_UC_NR; k++)
			if (t->fallbacks[k]) {
				sb_printf(&sb, "%s%s %" PRIu64, early ? ", " : ": ", swb_uc_why_name((enum swb_uc_why)k),
					  t->fallbacks[k]);
				early += t->fallbacks[k];
			}
		if (!early)
			sb_puts(&sb, " never");
		if (t->verify)
			sb_printf(&sb, ", %" PRIu64 " emulated parts diverged", t->diverged);
		if (s->loading_windows)
			sb_printf(&sb, ", %" PRIu64 " windows while libunicorn loaded", s->loading_windows);
		sb_printf(&sb, ", %u emulator%s for %u process%s", swb_uc_started(), swb_uc_started() == 1 ? "" : "s",
			  swb_uc_processes(), swb_uc_processes() == 1 ? "" : "es");
	} else {
		sb_puts(&sb, !t->no_emulation ? "not emulated (no window was)" : "not emulated (OCREC_SAMPLER_EMULATION=0)");
	}
	oc_debug(1, "software branch sampler: %s; %" PRIu64 " restarted on a plan mismatch, %" PRIu64
		 " by steps alone, %" PRIu64 " holding other threads, %" PRIu64 " at a blocking syscall, %" PRIu64
		 " lost, %" PRIu64 " not followed (SIGTRAP blocked); timer samples without a window of their own: %" PRIu64 " merged into their thread's next window, %" PRIu64
		 " of threads gone, %" PRIu64 " of threads that ended or group-stopped first, %" PRIu64
		 " in windows cut short, %" PRIu64 " at the end; threads stopped by %s",
		 sb_str(&sb), t->mismatches, t->stepped_windows, t->held_windows, t->blocked, t->lost, t->sigtrap_blocked,
		 s->merged_samples, s->gone_samples, s->preempted_samples, s->cut_samples, s->late_samples,
		 sb_str(&how));
	sb_free(&sb);
	sb_free(&how);
}

int swbranch_record(const struct record_opts *o, struct record_stats *st)
{
	struct session s = { .o = o, .sigfd = -1, .tracer_cpu = -1,
			     .ring_pages = o->mmap_pages ? o->mmap_pages : RING_PAGES };
	struct perf_event_attr timer;
	struct cpu_desc cpu;
	sigset_t block, old_mask;
	bool forked = o->argv && o->argv[0] && !o->pid;
	int go_fd = -1, err_fd = -1, rc = -1;
	char *cache_owned = NULL;
	pid_t *tids = NULL;
	size_t i, nr_tids = 0;
	pthread_t preloader;
	bool preloading = false;

	memset(st, 0, sizeof(*st));
	if (o->all_cpus)
		return oc_err("the software branch sampler follows a program or -p PID, not -a");
	if (!forked && !o->pid)
		return oc_err("nothing to record: name a program or -p PID");
	for (i = 0; i < o->nr_events; i++)
		if (!str_starts_with(o->events[i], "task-clock") && !str_starts_with(o->events[i], "cpu-clock"))
			return oc_err("%s: the software branch sampler samples on task-clock or cpu-clock, not other events",
				      o->events[i]);
	s.depth = o->lbr_depth;
	if (s.depth <= 0)
		s.depth = cpu_detect(&(struct cpu_source){ 0 }, &cpu) == 0 && cpu.lbr.depth > 0
			  ? cpu.lbr.depth : DEFAULT_DEPTH;
	if (s.depth > MAX_DEPTH)
		return oc_err("--lbr-depth %d: at most %d", s.depth, MAX_DEPTH);
	oc_err_clear();
	s.entries = xcalloc((size_t)s.depth, sizeof(*s.entries));
	s.dsos = dso_tracker_new();
	s.branches = xcalloc((size_t)s.depth, sizeof(*s.branches));
	if (sched_getaffinity(0, sizeof(s.tracer_mask), &s.tracer_mask) < 0)
		CPU_ZERO(&s.tracer_mask);   /* keep pinning: release_cpu() then fails harmlessly */
	s.tracer.other = on_other_thread;
	s.tracer.before_follow = before_follow;
	s.tracer.on_spawn = on_spawn;
	s.tracer.release_held = release_held;
	s.tracer.stopped_by_caller = stopped_for_window;
	s.tracer.arg = &s;
	s.tracer.seek = true;
	/* for tests: every emulated part is also followed, and compared */
	s.tracer.verify = getenv("OCREC_SAMPLER_VERIFY") && strcmp(getenv("OCREC_SAMPLER_VERIFY"), "1") == 0;

	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old_mask);
	s.sigfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s.sigfd < 0) {
		oc_err_errno("signalfd");
		goto out;
	}

	configure_timer(o, &timer, forked);
	configure_tracker(&s.tracker_attr, &timer, forked);
	if (forked ? start_workload(&s, &go_fd, &err_fd) < 0 : attach_process(&s, o->pid, &tids, &nr_tids) < 0)
		goto out;
	preloading = pthread_create(&preloader, NULL, preload_capstone, NULL) == 0;
	s.tracer.no_emulation = !swb_emulation_wanted();
	s.tracer.no_libunicorn = !s.tracer.no_emulation && swb_libunicorn_wanted();
	if (!s.tracer.no_emulation)
		swb_uc_no_huge_pages();
	/* Its probe's first debug register waits for an RCU grace period (the
	 * kernel's first task-bound perf event does, 5 to 22 ms here), which
	 * the timers would wait for otherwise: the libraries load meanwhile.
	 * The probe's child calls nothing that takes the loader's lock. */
	s.tracer.bp = swb_breakpoints();
	alloc_rings(&s);
	s.signal_stops = stop_by_signal(&timer, forked);
	if (s.signal_stops) {
		/* a forked workload's events come at its exec stop */
		s.timer_attr = timer;
		signal_stop_timer(&s.timer_attr, s.ring_pages);
		if (open_carriers(&s) < 0)
			goto out;
	} else if (open_timer(&s, &timer, forked ? &s.workload : tids, forked ? 1 : nr_tids) < 0) {
		goto out;
	}
	s.pfds[s.nr_rings] = (struct pollfd){ .fd = s.sigfd, .events = POLLIN };
	if (open_output(&s, &timer) < 0)
		goto out;
	if (o->pid && synthesize_process(s.w, s.dsos, o->pid) < 0)
		goto out;
	if (forked) {
		rc = release_workload(&s, go_fd, err_fd);
		go_fd = err_fd = -1;
		if (rc < 0) {
			int status = 0;

			while (waitpid(s.workload, &status, __WALL) < 0 && errno == EINTR)
				;
			s.workload = 0;
			st->exit_status = status;
			goto out;
		}
		rc = -1;
	} else {
		timer_ioctl(&s, PERF_EVENT_IOC_ENABLE);
	}
	if (record_loop(&s) < 0)
		goto out;
	if (s.attached)
		detach_process(&s);
	else if (s.signal_stops)
		release_survivors(&s);
	if (write_unreported_lost(&s) < 0)
		goto out;
	if (oc_verbose >= 1)
		print_summary(&s);
	dso_tracker_write_build_ids(s.dsos, s.w, o->buildid_cache ? sym_build_id_cache_dir(&cache_owned) : NULL);
	if (pd_writer_close(s.w, true) < 0) {
		s.w = NULL;
		goto out;
	}
	s.w = NULL;
	st->samples = s.samples;
	st->lost = s.lost;
	st->wakeups = s.wakeups;
	st->bytes = file_size(o->output ? o->output : "perf.data");
	st->exit_status = s.exit_status;
	st->emulated_branches = true;
	st->lbr_depth = s.depth;
	rc = 0;
out:
	if (go_fd >= 0)
		close(go_fd);
	if (err_fd >= 0)
		close(err_fd);
	if (rc < 0 && s.workload && !s.workload_done) {
		int status;

		kill(s.workload, SIGKILL);
		while (waitpid(s.workload, &status, __WALL) < 0 && errno == EINTR)
			;
	}
	if (s.w)
		pd_writer_close(s.w, false);
	close_timer(&s);
	if (s.sigfd >= 0)
		close(s.sigfd);
	if (preloading)
		pthread_join(preloader, NULL);
	if (s.libunicorn_loading)
		pthread_join(s.libunicorn_loader, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	for (i = 0; i < s.nr_spaces; i++)
		swb_space_free(s.spaces[i].sp);
	free(s.spaces);
	free(s.entries);
	free(s.branches);
	free(s.pending);
	free(s.early_stops);
	free(s.no_signal);
	free(tids);
	free(cache_owned);
	dso_tracker_free(s.dsos);
	swb_tracer_free(&s.tracer);
	return rc;
}
