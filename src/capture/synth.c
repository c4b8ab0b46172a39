/* synth.c — records for what already runs when recording starts, read from
 * /proc like perf's util/synthetic-events.c (docs/perfdata.md, "The side band"):
 * COMM per thread, FORK for non-leader threads, MMAP2 for executable maps,
 * and the kernel's MMAP [kernel.kallsyms]_text. */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/capture.h"
#include "util/util.h"

struct synth_maps {
	struct pd_writer *w;
	struct dso_tracker *t;
	pid_t pid;
	bool write_failed;
};

static int synthesize_map(const struct proc_map *m, void *arg)
{
	struct synth_maps *sm = arg;
	const char *name = *m->name ? m->name : "//anon";
	uint32_t prot, flags;

	if (m->perms[2] != 'x')
		return 0;   /* perf synthesizes executable maps only (no mmap_data) */
	prot = (m->perms[0] == 'r' ? PROT_READ : 0) | (m->perms[1] == 'w' ? PROT_WRITE : 0) | PROT_EXEC;
	flags = m->perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	if (pd_write_mmap2(sm->w, (uint32_t)sm->pid, (uint32_t)sm->pid, m->start, m->end - m->start, m->pgoff,
			   m->maj, m->min, m->ino, prot, flags, name) < 0) {
		sm->write_failed = true;
		return -1;
	}
	dso_tracker_add_map(sm->t, (uint32_t)sm->pid, m->start, m->end - m->start, name);
	return 0;
}

static int synthesize_maps(struct pd_writer *w, struct dso_tracker *t, pid_t pid)
{
	struct synth_maps sm = { w, t, pid, false };

	if (proc_maps(pid, synthesize_map, &sm) < 0 && !sm.write_failed) {
		oc_err_clear();
		return 0;   /* gone meanwhile, or a kernel thread */
	}
	return sm.write_failed ? -1 : 0;
}

int synthesize_process(struct pd_writer *w, struct dso_tracker *t, pid_t pid)
{
	size_t n, i;
	pid_t *tids = proc_threads(pid, &n);
	int rc = 0;

	if (!tids) {
		oc_err_clear();
		return 0;   /* it ended meanwhile: nothing to describe */
	}
	for (i = 0; i < n && rc == 0; i++) {
		char path[80], *comm;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tids[i]);
		comm = read_line_file(path);
		if (!comm)
			continue;   /* the thread ended meanwhile */
		if (tids[i] != pid)
			rc = pd_write_fork(w, (uint32_t)pid, (uint32_t)pid, (uint32_t)tids[i], (uint32_t)pid, 0);
		if (rc == 0)
			rc = pd_write_comm(w, (uint32_t)pid, (uint32_t)tids[i], comm, false);
		free(comm);
	}
	free(tids);
	if (rc == 0)
		rc = synthesize_maps(w, t, pid);
	return rc;
}

int synthesize_kernel_mmap(struct pd_writer *w, size_t trailer_size)
{
	static const char name[] = "[kernel.kallsyms]_text";
	uint64_t text = 0, etext = 0, addr;
	char *line = NULL, sym[128], type;
	size_t cap = 0, name_len, size;
	FILE *fp = fopen("/proc/kallsyms", "re");
	unsigned char *rec;
	struct perf_event_header *h;
	int rc;

	if (!fp)
		return 0;
	while ((!text || !etext) && getline(&line, &cap, fp) > 0) {
		if (sscanf(line, "%" SCNx64 " %c %127s", &addr, &type, sym) != 3)
			continue;
		if (strcmp(sym, "_text") == 0)
			text = addr;
		else if (strcmp(sym, "_etext") == 0)
			etext = addr;
	}
	free(line);
	fclose(fp);
	if (!text || etext <= text)
		return 0;   /* addresses hidden (kptr_restrict): perf reports kernel samples unresolved too */

	/* PERF_RECORD_MMAP: pid, tid; start, len, pgoff; filename (8-aligned); zero trailer */
	name_len = (sizeof(name) + 7) & ~(size_t)7;
	size = sizeof(*h) + 8 + 24 + name_len + trailer_size;
	rec = xcalloc(1, size);
	h = (struct perf_event_header *)rec;
	h->type = PERF_RECORD_MMAP;
	h->misc = PERF_RECORD_MISC_KERNEL;
	h->size = (uint16_t)size;
	memcpy(rec + 8, &(uint32_t){ UINT32_MAX }, 4);   /* pid -1: the kernel */
	memcpy(rec + 16, &text, 8);
	memcpy(rec + 24, &(uint64_t){ etext - text }, 8);
	memcpy(rec + 32, &text, 8);
	memcpy(rec + 40, name, sizeof(name));
	rc = pd_write_raw(w, rec, size);
	free(rec);
	return rc;
}

int synthesize_all_processes(struct pd_writer *w, struct dso_tracker *t)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int rc = 0;

	if (!d)
		return oc_err_errno("cannot read /proc");
	while (rc == 0 && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		rc = synthesize_process(w, t, (pid_t)atoi(de->d_name));
	}
	closedir(d);
	return rc;
}
