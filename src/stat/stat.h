/* stat.h — counting with perf_event_open, like `perf stat`: counters opened per
 * thread or per CPU, grouped where asked, read with TOTAL_TIME_ENABLED/RUNNING
 * and scaled when the kernel multiplexed them; repeated runs averaged. */
#ifndef OCREC_STAT_STAT_H
#define OCREC_STAT_STAT_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Running mean and variance (Welford), as perf's stats.c keeps them. */
struct stat_stats {
	double n, mean, m2;
};
void stat_stats_update(struct stat_stats *s, double x);
/* Relative standard deviation of the mean in percent (perf's "( +- x% )"); 0 for n < 2. */
double stat_stats_rel_stddev(const struct stat_stats *s);
double stat_stats_stddev_mean(const struct stat_stats *s);

/* The multiplex scaling: raw * enabled / running. *pct gets running / enabled in
 * percent (100 when never descheduled). Returns -1 when the counter never ran
 * (running == 0: "<not counted>"). */
double stat_scale(uint64_t raw, uint64_t enabled, uint64_t running, double *pct);

enum stat_state { STAT_COUNTED, STAT_NOT_COUNTED, STAT_NOT_SUPPORTED };

struct stat_counter {
	char *name;                 /* as shown */
	struct perf_event_attr attr;
	int group;                  /* counters with the same group >= 0 are opened as one group */
	int *fds;                   /* one per thread or CPU; -1 where not open */
	/* this run */
	uint64_t raw, enabled, running;
	enum stat_state state;
	char *why;                  /* strerror of a failed open, for -v */
	/* over runs */
	struct stat_stats value;    /* scaled counts */
	struct stat_stats pct;      /* running/enabled percent */
	uint64_t runtime_total;     /* sum of running times (ns) */
	bool ever_supported;
};

struct stat_target {
	pid_t *tids;                /* threads to count; NULL when system_wide */
	int nr_tids;
	bool system_wide;           /* -a: every online CPU */
	int *cpus;
	int nr_cpus;
	bool enable_on_exec;        /* the workload is a forked child that execs */
};

struct stat_session {
	struct stat_counter *counters;
	size_t nr_counters;
	struct stat_target target;
	int runs;                   /* completed runs */
	struct stat_stats elapsed;  /* seconds */
	double user_seconds, sys_seconds;   /* of the last run's children (rusage) */
};

/* Add a counter (attr is copied; the session sets disabled/inherit/read_format). */
void stat_add(struct stat_session *s, const char *name, const struct perf_event_attr *attr, int group);
/* Threads of a process (/proc/PID/task); 0, or -1 + oc_err(). */
int stat_target_pid(struct stat_target *t, pid_t pid);
/* Every online CPU (/sys/devices/system/cpu/online); 0, or -1 + oc_err(). */
int stat_target_cpus(struct stat_target *t);

/* Open every counter on the target. Counters the kernel rejects as unknown or
 * unsupported (hardware events in a VM) become STAT_NOT_SUPPORTED; a group that
 * does not fit is opened as separate counters. -1 + oc_err() when no counter
 * could be opened, or on a permission error. */
int stat_open(struct stat_session *s);
int stat_enable(struct stat_session *s);
int stat_disable(struct stat_session *s);
/* Read, sum over threads/CPUs, scale, and add this run to the statistics. */
int stat_read(struct stat_session *s, double elapsed_seconds);
void stat_close(struct stat_session *s);
void stat_session_free(struct stat_session *s);

/* Fork argv, count it from exec to exit (counters opened on the child before
 * it execs). *status gets the wait status. 0, or -1 + oc_err() (exec failure
 * included: "PROG: command not found"). Counters must have been added. */
int stat_run_workload(struct stat_session *s, char **argv, int *status);
/* Count the target (-p threads or -a CPUs) from now until SIGINT/SIGTERM or,
 * when watch > 0, until that process is gone. */
int stat_count_until_stopped(struct stat_session *s, pid_t watch);

/* The counters of -e lists in perf's syntax (commas, {a,b}:mods groups, a braced
 * group counted as one); no list: perf stat's default set. perf's generic names
 * become attrs directly, every other name is resolved in the event tables that
 * tables(arg) gives on first need (NULL + oc_err() when they cannot be had;
 * the caller closes them). 0, or -1 + oc_err(). */
struct ev_context;
typedef struct ev_context *(*stat_tables_fn)(void *arg);
int stat_add_events(struct stat_session *s, char *const *lists, size_t nr_lists, stat_tables_fn tables, void *arg);

/* Output like perf stat. */
struct stat_print_opts {
	const char *target_desc;    /* "'./prog args'", "process id '123'", "system wide" */
	const char *csv_sep;        /* -x SEP: CSV like perf stat -x */
	bool json;
	bool show_times;            /* user/sys lines (a workload that was run once) */
};
void stat_print(FILE *fp, const struct stat_session *s, const struct stat_print_opts *o);

#endif
