/* Counting: open, enable, read, scale; run a workload under counters. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/capture.h"
#include "stat/stat.h"
#include "util/util.h"

void stat_stats_update(struct stat_stats *s, double x)
{
	double delta;
	s->n += 1;
	delta = x - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (x - s->mean);
}

double stat_stats_stddev_mean(const struct stat_stats *s)
{
	if (s->n < 2)
		return 0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

double stat_stats_rel_stddev(const struct stat_stats *s)
{
	if (s->n < 2 || s->mean == 0)
		return 0;
	return 100.0 * stat_stats_stddev_mean(s) / fabs(s->mean);
}

double stat_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *pct)
{
	if (running == 0) {
		*pct = 0;
		return -1;
	}
	if (enabled == 0 || running >= enabled) {
		*pct = 100;
		return (double)raw;
	}
	*pct = 100.0 * (double)running / (double)enabled;
	/* long double keeps raw * enabled exact far past 2^64 */
	return (double)((long double)raw * enabled / running);
}

void stat_add(struct stat_session *s, const char *name, const struct perf_event_attr *attr, int group)
{
	struct stat_counter *c;
	s->counters = xrealloc(s->counters, (s->nr_counters + 1) * sizeof(*s->counters));
	c = &s->counters[s->nr_counters++];
	memset(c, 0, sizeof(*c));
	c->name = xstrdup(name);
	c->attr = *attr;
	c->attr.size = sizeof(c->attr);
	c->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	c->attr.sample_period = 0;
	c->attr.sample_type = 0;
	c->group = group;
}

int stat_target_pid(struct stat_target *t, pid_t pid)
{
	size_t n;
	pid_t *tids = proc_threads(pid, &n);

	if (!tids)
		return -1;
	free(t->tids);
	t->tids = tids;
	t->nr_tids = (int)n;
	return 0;
}

int stat_target_cpus(struct stat_target *t)
{
	char *list = read_line_file("/sys/devices/system/cpu/online");
	char **ranges, **r;
	size_t cap = 0;

	if (!list)
		return -1;
	free(t->cpus);
	t->cpus = NULL;
	t->nr_cpus = 0;
	ranges = str_split(list, ',', NULL);
	for (r = ranges; *r; r++) {
		int lo, hi, n;
		if (sscanf(*r, "%d-%d%n", &lo, &hi, &n) == 2 && (*r)[n] == 0)
			;
		else if (sscanf(*r, "%d%n", &lo, &n) == 1 && (*r)[n] == 0)
			hi = lo;
		else
			continue;
		for (; lo <= hi; lo++) {
			GROW(t->cpus, cap, (size_t)t->nr_cpus + 1);
			t->cpus[t->nr_cpus++] = lo;
		}
	}
	strv_free(ranges);
	free(list);
	t->system_wide = true;
	if (t->nr_cpus == 0)
		return oc_err("no online CPUs in /sys/devices/system/cpu/online");
	return 0;
}

static int nr_slots(const struct stat_session *s)
{
	return s->target.system_wide ? s->target.nr_cpus : s->target.nr_tids;
}

static int open_one(struct stat_counter *c, const struct stat_target *t, int slot, int group_fd)
{
	struct perf_event_attr attr = c->attr;
	pid_t pid = t->system_wide ? -1 : t->tids[slot];
	int cpu = t->system_wide ? t->cpus[slot] : -1;

	/* a leader starts disabled (the whole group follows it); inherit counts
	 * the children the workload forks */
	attr.disabled = group_fd < 0;
	attr.enable_on_exec = group_fd < 0 && t->enable_on_exec;
	attr.inherit = !t->system_wide;
	return sys_perf_event_open(&attr, pid, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

static bool is_permission_error(int err)
{
	return err == EACCES || err == EPERM;
}

int stat_open(struct stat_session *s)
{
	int slots = nr_slots(s);
	size_t i, j;

	for (i = 0; i < s->nr_counters; i++) {
		struct stat_counter *c = &s->counters[i];
		int slot, err = 0;

		free(c->fds);
		c->fds = xmalloc((size_t)slots * sizeof(*c->fds));
		for (slot = 0; slot < slots; slot++)
			c->fds[slot] = -1;
		for (slot = 0; slot < slots; slot++) {
			int leader = -1;
			/* the first open counter of the same group in this slot leads it */
			for (j = 0; j < i && c->group >= 0 && leader < 0; j++)
				if (s->counters[j].group == c->group)
					leader = s->counters[j].fds[slot];
			c->fds[slot] = open_one(c, &s->target, slot, leader);
			if (c->fds[slot] < 0 && leader >= 0 && !is_permission_error(errno)) {
				/* the group does not fit (more events than counters): count alone */
				oc_debug(1, "%s does not fit its group (%s); counting it alone", c->name,
					 strerror(errno));
				c->fds[slot] = open_one(c, &s->target, slot, -1);
			}
			if (c->fds[slot] < 0) {
				err = errno;
				if (is_permission_error(err))
					return oc_err("cannot count %s: %s (perf_event_paranoid too high? "
						      "see /proc/sys/kernel/perf_event_paranoid)",
						      c->name, strerror(err));
				if (err == ESRCH)
					continue;   /* a thread of -p PID that has exited */
			}
		}
		free(c->why);
		c->why = err ? xstrdup(strerror(err)) : NULL;
	}
	return 0;
}

static int ioctl_all(struct stat_session *s, unsigned long req)
{
	int slots = nr_slots(s), slot;
	size_t i;
	for (i = 0; i < s->nr_counters; i++)
		for (slot = 0; slot < slots; slot++)
			if (s->counters[i].fds && s->counters[i].fds[slot] >= 0 &&
			    ioctl(s->counters[i].fds[slot], req, 0) < 0)
				return oc_err_errno("cannot enable or disable %s", s->counters[i].name);
	return 0;
}

int stat_enable(struct stat_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int stat_disable(struct stat_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

int stat_read(struct stat_session *s, double elapsed_seconds)
{
	int slots = nr_slots(s), slot;
	size_t i;

	for (i = 0; i < s->nr_counters; i++) {
		struct stat_counter *c = &s->counters[i];
		bool any_open = false;
		double scaled, pct;

		c->raw = c->enabled = c->running = 0;
		for (slot = 0; slot < slots; slot++) {
			uint64_t v[3];
			if (!c->fds || c->fds[slot] < 0)
				continue;
			any_open = true;
			if (read(c->fds[slot], v, sizeof(v)) != (ssize_t)sizeof(v))
				return oc_err_errno("cannot read counter %s", c->name);
			c->raw += v[0];
			c->enabled += v[1];
			c->running += v[2];
		}
		if (!any_open) {
			c->state = STAT_NOT_SUPPORTED;
			continue;
		}
		c->ever_supported = true;
		scaled = stat_scale(c->raw, c->enabled, c->running, &pct);
		if (scaled < 0) {
			c->state = STAT_NOT_COUNTED;
			continue;
		}
		c->state = STAT_COUNTED;
		stat_stats_update(&c->value, scaled);
		stat_stats_update(&c->pct, pct);
		c->runtime_total += c->running;
	}
	stat_stats_update(&s->elapsed, elapsed_seconds);
	s->runs++;
	return 0;
}

void stat_close(struct stat_session *s)
{
	int slots = nr_slots(s), slot;
	size_t i;
	for (i = 0; i < s->nr_counters; i++) {
		struct stat_counter *c = &s->counters[i];
		for (slot = 0; c->fds && slot < slots; slot++)
			if (c->fds[slot] >= 0)
				close(c->fds[slot]);
		free(c->fds);
		c->fds = NULL;
	}
}

void stat_session_free(struct stat_session *s)
{
	size_t i;
	stat_close(s);
	for (i = 0; i < s->nr_counters; i++) {
		free(s->counters[i].name);
		free(s->counters[i].why);
	}
	free(s->counters);
	free(s->target.tids);
	free(s->target.cpus);
	memset(s, 0, sizeof(*s));
}

static void on_signal(int sig)
{
	(void)sig;   /* only interrupts the wait; the workload gets the signal itself */
}

int stat_run_workload(struct stat_session *s, char **argv, int *status)
{
	bool on_child = !s->target.system_wide && s->target.nr_tids == 0;
	struct sigaction sa, old_int, old_term;
	struct workload w;
	int exec_errno, ret = 0;
	struct rusage ru;
	double t0;

	/* held before exec until the counters are on it */
	if (workload_prepare(&w, argv) < 0)
		return -1;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	if (on_child) {
		s->target.tids = xmalloc(sizeof(*s->target.tids));
		s->target.tids[0] = w.pid;
		s->target.nr_tids = 1;
		s->target.enable_on_exec = true;
	}
	if (stat_open(s) < 0 || (!on_child && stat_enable(s) < 0)) {
		ret = -1;
		workload_abort(&w);
		goto out;
	}
	t0 = now_seconds();
	if (workload_start(&w, argv[0], &exec_errno) < 0)
		ret = -1;
	while (wait4(w.pid, status, 0, &ru) < 0) {
		if (errno != EINTR) {
			ret = oc_err_errno("waiting for %s", argv[0]);
			break;
		}
	}
	if (ret == 0) {
		double elapsed = now_seconds() - t0;
		if (!on_child)
			stat_disable(s);
		s->user_seconds = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		s->sys_seconds = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		ret = stat_read(s, elapsed);
	}
out:
	stat_close(s);
	if (on_child) {
		free(s->target.tids);
		s->target.tids = NULL;
		s->target.nr_tids = 0;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* Waits up to 20 ms; true once the watched process has exited. */
static bool process_gone(int pidfd, pid_t pid)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	if (pid <= 0) {
		poll(NULL, 0, 20);
		return false;
	}
	if (pidfd >= 0)
		return poll(&p, 1, 20) > 0;
	poll(NULL, 0, 20);
	return kill(pid, 0) < 0 && errno == ESRCH;
}

int stat_count_until_stopped(struct stat_session *s, pid_t watch)
{
	struct sigaction sa, old_int, old_term;
	int ret, watch_fd;
	double t0;

	/* the handlers first: once the counters show, Ctrl-C must end the count */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	stop_requested = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	watch_fd = watch > 0 ? (int)syscall(SYS_pidfd_open, watch, 0) : -1;
	ret = stat_open(s);
	t0 = now_seconds();
	if (ret == 0)
		ret = stat_enable(s);
	/* after the enable, not the open: a script may start the workload on it */
	if (ret == 0 && watch > 0)
		oc_debug(1, "counting process %d until it exits (or Ctrl-C)", (int)watch);
	else if (ret == 0)
		oc_debug(1, "counting until Ctrl-C");
	/* until Ctrl-C, or until the watched process has exited (a pidfd also
	 * sees a zombie that kill(pid, 0) would still find) */
	while (ret == 0 && !stop_requested && !process_gone(watch_fd, watch))
		;
	if (ret == 0) {
		stat_disable(s);
		ret = stat_read(s, now_seconds() - t0);
	}
	stat_close(s);
	if (watch_fd >= 0)
		close(watch_fd);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return ret;
}
