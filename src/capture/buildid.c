/* buildid.c — which mapped objects got samples (a small process model fed by
 * the records as they are written), their GNU build-ids for the BUILD_ID
 * feature, and perf's build-id cache (~/.debug, perf's util/build-id.c layout:
 * DIR/<abs path>/<hex>/elf and DIR/.build-id/<2 hex>/<rest> -> ../../<abs path>/<hex>). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/capture.h"
#include "symbols/symbols.h"
#include "util/util.h"

struct vma {
	uint64_t start, end;
	size_t dso;
};

struct proc {
	struct vma *vmas;
	size_t nr, cap;
};

/* A user sample whose address was not mapped yet when it went by. */
struct pending {
	uint32_t pid;
	uint64_t ip;
};

#define MAX_PENDING 4096

/* A range of a process whose object is marked sampled already. */
struct marked {
	uint32_t pid;
	uint64_t start, end;    /* end 0: none */
};

/* The software branch sampler marks a window's 65 addresses (both ends of
 * each branch), nearly all in one or two objects: the ranges marked last
 * answer them before the process's mappings are searched. */
#define MARKED_RANGES 4

struct dso_tracker {
	struct hmap dsos;      /* char *path (owned) -> bool sampled */
	struct hmap procs;     /* uint32_t pid -> struct proc */
	bool kernel_hit;
	/* Records of one pass come from several per-CPU buffers, so a sample can
	 * go by before the MMAP2 (or FORK) that maps it, drained later in the same
	 * pass: it waits here until dso_tracker_resolve_pending(). */
	struct pending *pending;
	size_t nr_pending, cap_pending;
	struct marked marked[MARKED_RANGES];    /* newest first; a mapping, fork or exec empties it */
};

struct dso_tracker *dso_tracker_new(void)
{
	struct dso_tracker *t = xcalloc(1, sizeof(*t));

	hmap_init(&t->dsos, sizeof(char *), sizeof(bool), &hmap_str_ops);
	hmap_init(&t->procs, sizeof(uint32_t), sizeof(struct proc), NULL);
	return t;
}

void dso_tracker_free(struct dso_tracker *t)
{
	size_t i;

	if (!t)
		return;
	hmap_clear_interned(&t->dsos);
	for (i = 0; i < hmap_count(&t->procs); i++)
		free(((struct proc *)hmap_val(&t->procs, i))->vmas);
	hmap_free(&t->dsos);
	hmap_free(&t->procs);
	free(t->pending);
	free(t);
}

/* A process's maps changed (a mapping, a fork over a used pid, an exec): a
 * range remembered may no longer be what its addresses are. */
static void forget_marked(struct dso_tracker *t)
{
	memset(t->marked, 0, sizeof(t->marked));
}

static size_t dso_index(struct dso_tracker *t, const char *path)
{
	return hmap_intern(&t->dsos, path, NULL);
}

static bool *dso_hit(const struct dso_tracker *t, size_t dso)
{
	return hmap_val(&t->dsos, dso);
}

static const char *dso_path(const struct dso_tracker *t, size_t dso)
{
	return *(char *const *)hmap_key(&t->dsos, dso);
}

/* The process (NULL when unknown); creating one moves the others. */
static struct proc *find_proc(struct dso_tracker *t, uint32_t pid, bool create)
{
	size_t i = create ? hmap_add(&t->procs, &pid, NULL) : hmap_find(&t->procs, &pid);

	return i == HMAP_NONE ? NULL : hmap_val(&t->procs, i);
}

void dso_tracker_add_map(struct dso_tracker *t, uint32_t pid, uint64_t start, uint64_t len, const char *path)
{
	struct proc *p;

	if (path[0] != '/')   /* [vdso], //anon, [heap]: no file to identify */
		return;
	forget_marked(t);   /* the new mapping may cover a marked range */
	p = find_proc(t, pid, true);
	GROW(p->vmas, p->cap, p->nr + 1);
	p->vmas[p->nr++] = (struct vma){ start, start + len, dso_index(t, path) };
}

static void on_fork(struct dso_tracker *t, uint32_t pid, uint32_t ppid)
{
	struct proc *parent, *child;
	size_t n;

	if (pid == ppid)
		return;   /* a new thread shares its process's maps */
	forget_marked(t);   /* pid may be an old process's, with its ranges */
	parent = find_proc(t, ppid, false);
	if (!parent) {
		/* maps unknown: not those of an old process that had the pid */
		if ((child = find_proc(t, pid, false)))
			child->nr = 0;
		return;
	}
	n = parent->nr;
	child = find_proc(t, pid, true);
	parent = find_proc(t, ppid, false);   /* creating the child may have moved it */
	GROW(child->vmas, child->cap, n);
	memcpy(child->vmas, parent->vmas, n * sizeof(struct vma));
	child->nr = n;
}

/* vma i of p is marked: its range answers later marks, unless a newer
 * mapping covers part of it (the addresses there are the newer one's). */
static void remember_marked(struct dso_tracker *t, uint32_t pid, const struct proc *p, size_t i)
{
	size_t j;

	for (j = i + 1; j < p->nr; j++)
		if (p->vmas[j].start < p->vmas[i].end && p->vmas[j].end > p->vmas[i].start)
			return;
	memmove(&t->marked[1], &t->marked[0], (MARKED_RANGES - 1) * sizeof(t->marked[0]));
	t->marked[0] = (struct marked){ pid, p->vmas[i].start, p->vmas[i].end };
}

/* Mark the object mapped at ip in pid as sampled; false when nothing is mapped there. */
static bool mark_hit(struct dso_tracker *t, uint32_t pid, uint64_t ip)
{
	struct proc *p;
	size_t i;

	for (i = 0; i < MARKED_RANGES; i++)
		if (t->marked[i].pid == pid && ip >= t->marked[i].start && ip < t->marked[i].end)
			return true;
	p = find_proc(t, pid, false);
	if (!p)
		return false;
	/* Newest mapping first: a later mmap over the same range replaced it. */
	for (i = p->nr; i-- > 0;)
		if (ip >= p->vmas[i].start && ip < p->vmas[i].end) {
			*dso_hit(t, p->vmas[i].dso) = true;
			remember_marked(t, pid, p, i);
			return true;
		}
	return false;
}

static void on_sample(struct dso_tracker *t, uint16_t misc, uint64_t ip, uint32_t pid)
{
	struct pending *last;

	if ((misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
		t->kernel_hit = true;
		return;
	}
	if (mark_hit(t, pid, ip))
		return;
	/* [vdso], anonymous code, or a mapping still to come; samples in one
	 * place come in runs, keep one of a run. */
	last = t->nr_pending ? &t->pending[t->nr_pending - 1] : NULL;
	if (t->nr_pending == MAX_PENDING || (last && last->pid == pid && last->ip >> 12 == ip >> 12))
		return;
	GROW(t->pending, t->cap_pending, t->nr_pending + 1);
	t->pending[t->nr_pending++] = (struct pending){ pid, ip };
}

void dso_tracker_mark(struct dso_tracker *t, uint32_t pid, uint64_t ip)
{
	on_sample(t, PERF_RECORD_MISC_USER, ip, pid);
}

void dso_tracker_resolve_pending(struct dso_tracker *t)
{
	size_t i;

	for (i = 0; i < t->nr_pending; i++)
		mark_hit(t, t->pending[i].pid, t->pending[i].ip);
	t->nr_pending = 0;
}

void dso_tracker_record(struct dso_tracker *t, const struct perf_event_header *h, size_t ip_offset)
{
	const unsigned char *body = (const unsigned char *)(h + 1);
	size_t len = h->size - sizeof(*h);
	uint32_t u32[4];
	uint64_t u64[2];

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		if (len < ip_offset + 16)
			return;
		memcpy(&u64[0], body + ip_offset, 8);
		memcpy(&u32[0], body + ip_offset + 8, 4);
		on_sample(t, h->misc, u64[0], u32[0]);
		break;
	case PERF_RECORD_MMAP2:
		/* pid, tid; addr, len, pgoff; maj, min, ino, ino_gen (24); prot, flags; filename */
		if (len <= 64)
			return;
		memcpy(u32, body, 8);
		memcpy(u64, body + 8, 16);
		if (memchr(body + 64, 0, len - 64))
			dso_tracker_add_map(t, u32[0], u64[0], u64[1], (const char *)body + 64);
		break;
	case PERF_RECORD_FORK:
		if (len < 16)
			return;
		memcpy(u32, body, 16);
		on_fork(t, u32[0], u32[1]);
		break;
	case PERF_RECORD_COMM:
		if ((h->misc & PERF_RECORD_MISC_COMM_EXEC) && len >= 8) {
			struct proc *p;

			memcpy(u32, body, 8);
			p = find_proc(t, u32[0], false);
			if (p)
				p->nr = 0;   /* exec: a new address space */
			forget_marked(t);
		}
		break;
	}
}

bool dso_tracker_was_sampled(const struct dso_tracker *t, const char *path)
{
	size_t i;

	if (strcmp(path, "[kernel.kallsyms]") == 0)
		return t->kernel_hit;
	i = hmap_find(&t->dsos, &path);
	return i != HMAP_NONE && *dso_hit(t, i);
}

static void hex_id(const uint8_t *id, int size, char *out)
{
	int i;

	for (i = 0; i < size; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * size] = 0;
}

int build_id_cache_add(const char *cache_dir, const char *path, const uint8_t *id, int size)
{
	char hex[41], abs[PATH_MAX];
	char *dir = NULL, *elf = NULL, *linkdir = NULL, *link = NULL, *target = NULL, *tmp = NULL;
	char *data = NULL;
	size_t len;
	int rc = -1;

	if (!realpath(path, abs))
		return oc_err_errno("build-id cache: %s", path);
	hex_id(id, size, hex);
	dir = xasprintf("%s%s/%s", cache_dir, abs, hex);
	elf = xasprintf("%s/elf", dir);
	linkdir = xasprintf("%s/.build-id/%.2s", cache_dir, hex);
	link = xasprintf("%s/%s", linkdir, hex + 2);
	target = xasprintf("../..%s/%s", abs, hex);
	if (mkdir_p(dir, 0755) < 0 || mkdir_p(linkdir, 0755) < 0)
		goto out;
	if (!file_exists(elf)) {
		data = read_file(abs, &len);
		if (!data || write_file_atomic(elf, data, len) < 0)
			goto out;
	}
	/* The link, made under a temporary name and renamed into place. */
	tmp = xasprintf("%s.tmp.%d", link, (int)getpid());
	unlink(tmp);
	if (symlink(target, tmp) < 0) {
		oc_err_errno("build-id cache: symlink %s", link);
		goto out;
	}
	if (rename(tmp, link) < 0) {
		oc_err_errno("build-id cache: rename to %s", link);
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(data); free(dir); free(elf); free(linkdir); free(link); free(target); free(tmp);
	return rc;
}

void dso_tracker_write_build_ids(struct dso_tracker *t, struct pd_writer *w, const char *cache_dir)
{
	uint8_t id[20];
	size_t i;
	int size;

	dso_tracker_resolve_pending(t);
	for (i = 0; i < hmap_count(&t->dsos); i++) {
		if (!*dso_hit(t, i))
			continue;
		size = (int)sym_file_build_id(dso_path(t, i), id);
		if (!size)
			continue;
		pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, id, (uint8_t)size, dso_path(t, i));
		if (cache_dir && build_id_cache_add(cache_dir, dso_path(t, i), id, size) < 0)
			oc_warn("%s", oc_errmsg());
	}
	if (t->kernel_hit) {
		size = (int)sym_running_kernel_build_id(id);
		if (size)
			pd_writer_add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, id, (uint8_t)size, "[kernel.kallsyms]");
	}
}
