/* record.c — record_run(): resolve the events, fork (or attach to) the
 * workload, open one ring buffer per CPU, drain it into perf.data until the
 * workload ends or a signal arrives, then add build-ids and commit the file.
 * Set-up follows perf 6.1's `perf record` (docs/perfdata.md, "Recording as perf record does"). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "events/events.h"
#include "capture/capture.h"
#include "symbols/symbols.h"
#include "record/record.h"
#include "util/util.h"

#define RING_PAGES 128        /* 512 KiB per CPU, what perf takes by default */
#define MIN_RING_PAGES 8
#define POLL_MS 100
#define STOP_GRACE_SECONDS 2.0

struct open_event {
	struct record_event ev;
	uint64_t *ids;
	size_t nr_ids, cap_ids;
};

struct recording {
	const struct record_opts *o;
	struct open_event *evs;
	size_t nr_evs;
	int *fds;                 /* every fd, for enable/disable and close */
	size_t nr_fds, cap_fds;
	struct ring *rings;       /* one per CPU (its first fd) */
	struct pollfd *pfds;
	size_t nr_rings;
	struct pd_writer *w;
	struct dso_tracker *dsos;
	size_t ip_offset;         /* where a sample's ip sits after its header */
	uint64_t samples, lost;
	uint64_t lost_told;       /* of lost, what LOST records told */
};

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
	stop_signal = sig;
}

static void on_sigchld(int sig)
{
	(void)sig;   /* only interrupts poll() */
}

/* CPUs from /sys/devices/system/cpu/online ("0-3,6"). */
static int *online_cpus(size_t *n)
{
	char *s = read_line_file("/sys/devices/system/cpu/online");
	char **parts;
	size_t nparts, i, cap = 0;
	int *cpus = NULL;

	*n = 0;
	if (!s) {
		long nr = sysconf(_SC_NPROCESSORS_ONLN);

		cpus = xcalloc((size_t)(nr > 0 ? nr : 1), sizeof(int));
		for (i = 0; i < (size_t)(nr > 0 ? nr : 1); i++)
			cpus[(*n)++] = (int)i;
		return cpus;
	}
	parts = str_split(s, ',', &nparts);
	for (i = 0; i < nparts; i++) {
		int lo, hi, c;

		if (sscanf(parts[i], "%d-%d", &lo, &hi) != 2)
			hi = lo = atoi(parts[i]);
		for (c = lo; c <= hi; c++) {
			GROW(cpus, cap, *n + 1);
			cpus[(*n)++] = c;
		}
	}
	strv_free(parts);
	free(s);
	return cpus;
}

static bool kernel_profiling_allowed(void)
{
	char *s;
	int paranoid;

	if (geteuid() == 0)
		return true;
	s = read_line_file("/proc/sys/kernel/perf_event_paranoid");
	paranoid = s ? atoi(s) : 2;
	free(s);
	return paranoid <= 1;
}

static void set_default_event(struct open_event *e, const struct record_opts *o, const struct cpu_desc *cpu)
{
	memset(e, 0, sizeof(*e));
	if (o->branch_stack && cpu && cpu->lbr.kind == LBR_AMD_BRS) {
		/* BRS samples branch stacks on this event only: perf's cpu/branch-brs/ */
		e->ev.name = xstrdup("cpu/branch-brs/");
		e->ev.attr.type = PERF_TYPE_RAW;
		e->ev.attr.config = AMD_BRS_EVENT;
		return;
	}
	e->ev.name = xstrdup("cycles");
	e->ev.attr.type = PERF_TYPE_HARDWARE;
	e->ev.attr.config = PERF_COUNT_HW_CPU_CYCLES;
	e->ev.attr.precise_ip = 3;   /* perf's precise_max: lowered silently until it opens */
	e->ev.precise_max = true;
}

/* The events of -e, each resolved (a name may give several, e.g. hybrid). */
static int resolve_events(const struct record_opts *o, const struct cpu_desc *cpu,
			  struct open_event **out, size_t *nr)
{
	struct ev_options eo = { .cpu = cpu, .events_path = o->events_path,
				 .sysfs_root = o->sysfs_root ? o->sysfs_root : "/sys", .record_mode = true };
	struct ev_context *ctx;
	struct open_event *evs = NULL;
	size_t cap = 0, i, k;
	int rc = 0;

	*nr = 0;
	if (o->nr_events == 0) {
		evs = xcalloc(1, sizeof(*evs));
		set_default_event(&evs[0], o, cpu);
		*out = evs;
		*nr = 1;
		return 0;
	}
	ctx = ev_open(&eo);
	if (!ctx)
		return -1;
	if (o->cpuid)
		ev_set_cpuid_path(ctx, o->cpuid);   /* the architectural events of that CPU */
	for (i = 0; i < o->nr_events && rc == 0; i++) {
		struct ev_resolved r;

		if (ev_resolve(ctx, o->events[i], &r) < 0) {
			rc = -1;
			break;
		}
		for (k = 0; k < r.nr_attrs; k++) {
			GROW(evs, cap, *nr + 1);
			memset(&evs[*nr], 0, sizeof(evs[*nr]));
			evs[*nr].ev.attr = r.attrs[k].attr;
			evs[*nr].ev.name = xstrdup(r.nr_attrs == 1 || !r.attrs[k].name ? r.input : r.attrs[k].name);
			evs[*nr].ev.named = true;
			(*nr)++;
		}
		ev_resolved_free(&r);
	}
	ev_close(ctx);
	*out = evs;
	return rc;
}

static void free_events(struct open_event *evs, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(evs[i].ev.name);
		free(evs[i].ids);
	}
	free(evs);
}

static void configure_events(struct recording *r, const struct cpu_desc *cpu, bool forked)
{
	size_t i;

	for (i = 0; i < r->nr_evs; i++) {
		struct record_layout l = {
			.tracking = i == 0,
			.several_events = r->nr_evs > 1,
			.enable_on_exec = forked && !r->o->all_cpus,
			.exclude_kernel = !kernel_profiling_allowed(),
			.count_lost = kernel_at_least(6, 0),
		};

		record_config_attr(&r->evs[i].ev, r->o, cpu, &l);
	}
}

/* Like perf: without a hardware PMU the default cycles event becomes cpu-clock. */
static bool fall_back_to_cpu_clock(struct recording *r, const struct cpu_desc *cpu, bool forked, int err)
{
	struct open_event *e = &r->evs[0];

	/* Not with -b: cpu-clock has no branch stacks either; the software sampler
	 * takes over from the open error (or it is reported). */
	if (r->nr_evs != 1 || e->ev.named || e->ev.attr.type != PERF_TYPE_HARDWARE ||
	    r->o->branch_stack || (err != ENOENT && err != ENXIO && err != ENODEV))
		return false;
	oc_warn("no hardware PMU here — a VM? recording cpu-clock instead of cycles");
	free(e->ev.name);
	memset(&e->ev, 0, sizeof(e->ev));
	e->ev.name = xstrdup("cpu-clock");
	e->ev.attr.type = PERF_TYPE_SOFTWARE;
	e->ev.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	configure_events(r, cpu, forked);
	return true;
}

static void add_fd(struct recording *r, int fd)
{
	GROW(r->fds, r->cap_fds, r->nr_fds + 1);
	r->fds[r->nr_fds++] = fd;
}

static int map_ring(struct ring *ring, int fd, size_t asked)
{
	size_t pages = asked ? asked : RING_PAGES;

	while (ring_map(ring, fd, pages) < 0) {
		/* Over the locked-memory limit (not root): smaller buffers, as
		 * perf does unless -m says how large. */
		if (errno != EPERM || asked || pages <= MIN_RING_PAGES)
			return -1;
		pages /= 2;
	}
	return 0;
}

/* Open every event for every target on every CPU; the first fd of a CPU owns
 * its ring buffer and the others are redirected into it (SET_OUTPUT). */
static int open_events(struct recording *r, const struct cpu_desc *cpu, const pid_t *targets,
		       size_t nr_targets, const int *cpus, size_t nr_cpus, bool forked)
{
	size_t c, e, t;

	r->rings = xcalloc(nr_cpus, sizeof(*r->rings));
	r->pfds = xcalloc(nr_cpus, sizeof(*r->pfds));
	for (c = 0; c < nr_cpus; c++) {
		int leader = -1;

		for (e = 0; e < r->nr_evs; e++) {
			struct open_event *oe = &r->evs[e];

			for (t = 0; t < nr_targets; t++) {
				uint64_t id;
				int fd = record_open_event(&oe->ev, targets[t], cpus[c], -1, r->o->all_cpus);

				if (fd < 0 && fall_back_to_cpu_clock(r, cpu, forked, errno))
					fd = record_open_event(&oe->ev, targets[t], cpus[c], -1, r->o->all_cpus);
				if (fd < 0)
					return -1;
				oc_debug(1, "%s: opened for pid %d on CPU %d (fd %d, type %u, config %#llx, precise %u)",
					 oe->ev.name, (int)targets[t], cpus[c], fd, oe->ev.attr.type,
					 (unsigned long long)oe->ev.attr.config, oe->ev.attr.precise_ip);
				add_fd(r, fd);
				if (leader < 0) {
					/* The buffer must exist before others are redirected into it. */
					leader = fd;
					if (map_ring(&r->rings[r->nr_rings], fd, r->o->mmap_pages) < 0)
						return -1;
					r->pfds[r->nr_rings].fd = fd;
					r->pfds[r->nr_rings].events = POLLIN;
					r->nr_rings++;
				} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, leader) < 0) {
					return oc_err_errno("%s: cannot redirect into the CPU %d ring buffer",
							    oe->ev.name, cpus[c]);
				}
				if (ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0)
					return oc_err_errno("%s: cannot read the sample id", oe->ev.name);
				GROW(oe->ids, oe->cap_ids, oe->nr_ids + 1);
				oe->ids[oe->nr_ids++] = id;
			}
		}
	}
	return 0;
}

static void close_all(struct recording *r)
{
	size_t i;

	for (i = 0; i < r->nr_rings; i++)
		ring_unmap(&r->rings[i]);
	for (i = 0; i < r->nr_fds; i++)
		close(r->fds[i]);
	free(r->rings);
	free(r->pfds);
	free(r->fds);
	r->rings = NULL;
	r->pfds = NULL;
	r->fds = NULL;
	r->nr_rings = r->nr_fds = 0;
}

static void ioctl_all(struct recording *r, unsigned long req)
{
	size_t i;

	for (i = 0; i < r->nr_fds; i++)
		ioctl(r->fds[i], req, 0);
}

static int write_record(const struct perf_event_header *h, void *arg)
{
	struct recording *r = arg;
	const uint64_t *body = (const uint64_t *)(h + 1);

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		r->samples++;
		break;
	case PERF_RECORD_LOST:
		if (h->size >= sizeof(*h) + 16) {
			r->lost += body[1];
			r->lost_told += body[1];
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= sizeof(*h) + 8)
			r->lost += body[0];
		break;
	}
	dso_tracker_record(r->dsos, h, r->ip_offset);
	return pd_write_raw(r->w, h, h->size);
}

/* One pass over every ring buffer, closed by FINISHED_ROUND when it found records. */
static long drain_all(struct recording *r)
{
	long total = 0, n;
	size_t i;

	for (i = 0; i < r->nr_rings; i++) {
		n = ring_drain(&r->rings[i], write_record, r);
		if (n < 0)
			return -1;
		total += n;
	}
	dso_tracker_resolve_pending(r->dsos);
	if (total && pd_write_finished_round(r->w) < 0)
		return -1;
	return total;
}

static size_t trailer_size(const struct perf_event_attr *a)
{
	uint64_t t = a->sample_type;

	return 8 * (!!(t & PERF_SAMPLE_TID) + !!(t & PERF_SAMPLE_TIME) + !!(t & PERF_SAMPLE_ID) +
		    !!(t & PERF_SAMPLE_STREAM_ID) + !!(t & PERF_SAMPLE_CPU) + !!(t & PERF_SAMPLE_IDENTIFIER));
}

static struct pd_writer *open_writer(struct recording *r)
{
	struct pd_writer_event *wevs = xcalloc(r->nr_evs, sizeof(*wevs));
	struct pd_writer *w;
	size_t i;

	for (i = 0; i < r->nr_evs; i++) {
		wevs[i].attr = r->evs[i].ev.attr;
		wevs[i].name = r->evs[i].ev.name;
		wevs[i].ids = r->evs[i].ids;
		wevs[i].nr_ids = r->evs[i].nr_ids;
	}
	w = pd_writer_open(r->o->output ? r->o->output : "perf.data", wevs, r->nr_evs);
	free(wevs);
	if (w && r->o->orig_argv)
		pd_writer_set_cmdline(w, r->o->orig_argc, r->o->orig_argv);
	return w;
}

/* -b where the PMU gives no branch stacks (err from opening): the software
 * sampler takes over for the default event or software events. A named
 * hardware event, or --branch-sampler=hardware, keeps the open error, which
 * names --branch-sampler=software. */
static bool software_sampler_takes_over(const struct recording *r, int err)
{
	size_t i;

	if (!r->o->branch_stack || r->o->sampler != BRANCH_SAMPLER_AUTO ||
	    (err != EOPNOTSUPP && err != ENOENT))
		return false;
	for (i = 0; i < r->nr_evs; i++) {
		const struct perf_event_attr *a = &r->evs[i].ev.attr;

		if (r->evs[i].ev.named && a->type != PERF_TYPE_SOFTWARE && a->type != PERF_TYPE_TRACEPOINT)
			return false;
	}
	return true;
}

/* Whether process pid still runs (a zombie has ended). */
static bool process_alive(pid_t pid)
{
	char state = proc_state((int)pid);

	return state && state != 'Z' && state != 'X';
}

/* Wait for the end: the workload exits, the attached process goes, or a
 * signal arrives (the workload is then terminated, with a grace period). */
static int record_loop(struct recording *r, pid_t workload, pid_t attached, struct record_stats *st)
{
	int handled_signal = 0;
	double deadline = 0;

	for (;;) {
		long n = drain_all(r);

		if (n < 0)
			return -1;
		if (stop_signal && !handled_signal) {
			handled_signal = stop_signal;
			if (!workload)
				break;
			/* SIGTERM like perf: a workload started in the background ignores SIGINT. */
			kill(workload, SIGTERM);
			deadline = now_seconds() + STOP_GRACE_SECONDS;
		}
		if (workload) {
			int status;
			pid_t p = waitpid(workload, &status, WNOHANG);

			if (p == workload) {
				st->exit_status = status;
				break;
			}
			if (handled_signal && now_seconds() > deadline) {
				kill(workload, SIGKILL);
				deadline = now_seconds() + STOP_GRACE_SECONDS;
			}
		}
		if (attached && !process_alive(attached))
			break;
		if (n == 0 && poll(r->pfds, r->nr_rings, POLL_MS) > 0) {
			size_t i;
			bool woken = false;

			for (i = 0; i < r->nr_rings; i++) {
				woken |= !!(r->pfds[i].revents & POLLIN);
				/* The buffer's own task has gone (its fd stays readable):
				 * poll no more, other tasks' records still arrive and are
				 * drained every round. */
				if (r->pfds[i].revents & (POLLHUP | POLLERR | POLLNVAL))
					r->pfds[i].fd = -1;
			}
			st->wakeups += woken;
		}
	}
	ioctl_all(r, PERF_EVENT_IOC_DISABLE);
	return drain_all(r) < 0 ? -1 : 0;
}

/* Records a ring had no room for: the kernel reports them in a LOST record
 * at its next write to that ring, which never comes when the ring filled up
 * at the end. The events count them all (PERF_FORMAT_LOST, Linux 6.0, which
 * perf reads at its end too); what no LOST record told is written as one. */
static int write_unreported_lost(struct recording *r)
{
	uint64_t read_format = r->evs[0].ev.attr.read_format, lost = 0;
	size_t i;

	if (!(read_format & PERF_FORMAT_LOST))
		return 0;
	for (i = 0; i < r->nr_fds; i++)
		lost += perf_event_lost(r->fds[i], read_format);
	if (lost <= r->lost_told)
		return 0;
	oc_debug(1, "%" PRIu64 " records lost without a LOST record", lost - r->lost_told);
	r->lost += lost - r->lost_told;
	return pd_write_lost(r->w, 0, lost - r->lost_told);
}

int record_run(const struct record_opts *o, struct record_stats *st)
{
	struct recording r = { .o = o };
	struct cpu_desc cpu;
	bool have_cpu, forked = o->argv && o->argv[0] && !o->pid;
	struct workload wl = { .go_fd = -1, .err_fd = -1 };
	struct sigaction sa_stop = { .sa_handler = on_stop_signal }, sa_chld = { .sa_handler = on_sigchld };
	struct sigaction old_int, old_term, old_chld;
	bool handlers_set = false;
	pid_t *targets = NULL, all = -1;
	size_t nr_targets = 0, nr_cpus = 0;
	int *cpus = NULL, rc = -1, exec_errno;
	const char *output = o->output ? o->output : "perf.data";
	char *cache_owned = NULL;

	memset(st, 0, sizeof(*st));
	if (o->branch_stack && o->sampler == BRANCH_SAMPLER_SOFTWARE)
		return oc_err("-b with --branch-sampler=software is the software branch sampler's");
	if (!forked && !o->pid && !o->all_cpus)
		return oc_err("nothing to record: name a program, -p PID or -a");
	have_cpu = cpu_detect(&(struct cpu_source){ NULL, o->cpuinfo, o->cpuid }, &cpu) == 0;
	if (!have_cpu && (o->cpuinfo || o->cpuid))
		return -1;   /* the named CPU description is bad: its error says where */
	if (resolve_events(o, have_cpu ? &cpu : NULL, &r.evs, &r.nr_evs) < 0)
		goto out;
	r.ip_offset = r.nr_evs > 1 ? 8 : 0;
	configure_events(&r, have_cpu ? &cpu : NULL, forked);
	cpus = online_cpus(&nr_cpus);

	if (o->all_cpus) {
		targets = &all;
		nr_targets = 1;
	} else if (o->pid) {
		targets = proc_threads(o->pid, &nr_targets);
		if (!targets)
			goto out;
	}
	if (forked) {
		if (workload_prepare(&wl, o->argv) < 0)
			goto out;
		if (!o->all_cpus) {
			targets = &wl.pid;
			nr_targets = 1;
		}
	}
	if (open_events(&r, have_cpu ? &cpu : NULL, targets, nr_targets, cpus, nr_cpus, forked) < 0) {
		if (software_sampler_takes_over(&r, errno))
			rc = RECORD_NO_BRANCH_STACKS;
		goto out;
	}

	if (o->branch_stack && o->lbr_depth)
		oc_warn("--lbr-depth %d is for the software branch sampler: the PMU gives its own depth (%d)",
			o->lbr_depth, have_cpu ? cpu.lbr.depth : -1);
	r.dsos = dso_tracker_new();
	/* From before the output exists: a Ctrl-C while it is set up ends the
	 * recording at once, instead of killing ocrec and leaving its
	 * temporary file behind. */
	stop_signal = 0;
	sigaction(SIGINT, &sa_stop, &old_int);
	sigaction(SIGTERM, &sa_stop, &old_term);
	sigaction(SIGCHLD, &sa_chld, &old_chld);
	handlers_set = true;
	r.w = open_writer(&r);
	if (!r.w)
		goto out;
	if (!r.evs[0].ev.attr.exclude_kernel &&
	    synthesize_kernel_mmap(r.w, trailer_size(&r.evs[0].ev.attr)) < 0)
		goto out;
	if (o->pid && synthesize_process(r.w, r.dsos, o->pid) < 0)
		goto out;
	if (o->all_cpus && synthesize_all_processes(r.w, r.dsos) < 0)
		goto out;

	if (!forked || o->all_cpus)
		ioctl_all(&r, PERF_EVENT_IOC_ENABLE);
	if (forked && workload_start(&wl, o->argv[0], &exec_errno) < 0) {
		int status = 0;

		while (waitpid(wl.pid, &status, 0) < 0 && errno == EINTR)
			;
		wl.pid = 0;
		st->exit_status = status;
	} else {
		rc = record_loop(&r, forked ? wl.pid : 0, o->pid, st);
		if (forked && rc < 0)
			workload_abort(&wl);
		wl.pid = 0;
	}
	if (rc < 0 || (rc = write_unreported_lost(&r)) < 0)
		goto out;

	dso_tracker_write_build_ids(r.dsos, r.w, o->buildid_cache ? sym_build_id_cache_dir(&cache_owned) : NULL);
	st->samples = r.samples;
	st->lost = r.lost;
	st->lbr_depth = o->branch_stack && have_cpu ? cpu.lbr.depth : 0;
	rc = -1;
	if (output_keep_old(output) < 0)
		goto out;
	if (pd_writer_close(r.w, true) < 0) {
		r.w = NULL;
		goto out;
	}
	r.w = NULL;
	st->bytes = file_size(output);
	rc = 0;
out:
	if (r.w)
		pd_writer_close(r.w, false);
	workload_abort(&wl);
	if (handlers_set) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGCHLD, &old_chld, NULL);
	}
	close_all(&r);
	dso_tracker_free(r.dsos);
	free_events(r.evs, r.nr_evs);
	if (targets != &all && targets != &wl.pid)
		free(targets);
	free(cpus);
	free(cache_owned);
	return rc;
}
