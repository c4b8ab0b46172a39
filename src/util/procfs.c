/* procfs.c — what ocrec reads of a process in /proc (its state, its threads
 * and its mappings), the perf_event_open system call and the kernel's
 * version, for the recorder, the software sampler, stat and the PMU probe
 * alike. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/util.h"

char proc_state(int id)
{
	char path[64], *stat, *end, state = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", id);
	stat = read_line_file(path);
	if (!stat) {
		oc_err_clear();
		return 0;
	}
	end = strrchr(stat, ')');   /* after the comm, which may hold spaces and parentheses */
	if (end && end[1] == ' ')
		state = end[2];
	free(stat);
	return state;
}

void proc_ids(int id, long *tgid, long *ppid)
{
	char path[64], *status;
	const char *p;

	*tgid = *ppid = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", id);
	status = read_file(path, NULL);
	if (!status) {
		oc_err_clear();
		return;
	}
	if ((p = strstr(status, "\nTgid:")))
		*tgid = strtol(p + 6, NULL, 10);
	if ((p = strstr(status, "\nPPid:")))
		*ppid = strtol(p + 6, NULL, 10);
	free(status);
}

int *proc_threads(int pid, size_t *n)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int *tids = NULL;
	size_t cap = 0;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			oc_err("process %d: no such process", pid);
		else
			oc_err_errno("process %d: cannot read %s", pid, path);
		return NULL;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		GROW(tids, cap, *n + 1);
		tids[(*n)++] = atoi(de->d_name);
	}
	closedir(d);
	if (*n == 0) {
		free(tids);
		oc_err("process %d: no thread left", pid);
		return NULL;
	}
	return tids;
}

/* The number at *p in base, and *p past the separator after it: sep, or
 * for ' ' any white space or the end. */
static bool field(char **p, int base, char sep, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*p, &end, base);
	if (end == *p || errno || (sep == ' ' ? *end && !isspace((unsigned char)*end) : *end != sep))
		return false;
	*p = *end ? end + 1 : end;
	return true;
}

/* A line of /proc/PID/maps: "start-end perms pgoff maj:min ino   name"
 * (proc(5)). By hand: sscanf() took 4.8 million instructions of a
 * recording's windows on gawk, which read the maps again as they grow. */
static bool parse_map(char *line, struct proc_map *m)
{
	char *p = line;
	uint64_t maj, min;

	if (!field(&p, 16, '-', &m->start) || !field(&p, 16, ' ', &m->end) || strlen(p) < 5 || p[4] != ' ')
		return false;
	memcpy(m->perms, p, 4);
	m->perms[4] = 0;
	p += 5;
	if (!field(&p, 16, ' ', &m->pgoff) || !field(&p, 16, ':', &maj) || !field(&p, 16, ' ', &min) ||
	    !field(&p, 10, ' ', &m->ino))
		return false;
	m->maj = (unsigned)maj;
	m->min = (unsigned)min;
	m->name = str_trim(p);
	return true;
}

int proc_maps(int pid, proc_map_fn fn, void *arg)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	FILE *fp;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	fp = fopen(path, "re");
	if (!fp)
		return oc_err_errno("process %d: cannot read %s", pid, path);
	while (rc == 0 && getline(&line, &cap, fp) > 0) {
		struct proc_map m;

		if (parse_map(line, &m))
			rc = fn(&m, arg);
	}
	free(line);
	fclose(fp);
	return rc;
}

int sys_perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

uint64_t perf_event_lost(int fd, uint64_t read_format)
{
	/* value, then time_enabled, time_running, id as asked, then lost
	 * (perf_event_open(2), "Reading results") */
	size_t at = 1 + !!(read_format & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		    !!(read_format & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(read_format & PERF_FORMAT_ID);
	uint64_t v[5];

	if (!(read_format & PERF_FORMAT_LOST) || (read_format & PERF_FORMAT_GROUP) ||
	    read(fd, v, (at + 1) * sizeof(v[0])) != (ssize_t)((at + 1) * sizeof(v[0])))
		return 0;
	return v[at];
}

bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma, mi;

	return uname(&u) == 0 && sscanf(u.release, "%d.%d", &ma, &mi) == 2 && ma * 1000 + mi >= major * 1000 + minor;
}
