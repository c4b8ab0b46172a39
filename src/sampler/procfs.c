/* procfs.c — what the software branch sampler reads from /proc for -p. */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sampler/sampler-internal.h"
#include "util/util.h"

int list_dir_names(const char *path, char ***names, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return oc_err_errno("%s", path);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		GROW(*names, cap, *n + 2);
		(*names)[(*n)++] = xstrdup(de->d_name);
		(*names)[*n] = NULL;
	}
	closedir(d);
	if (!*names)
		*names = xcalloc(1, sizeof(char *));
	return 0;
}

static int synthesize_maps(struct pd_writer *w, pid_t pid)
{
	char path[64], line[4096];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;   /* the process has ended */
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		char *name;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &pgoff, &maj, &min, &ino, &name_at) < 7 || perms[2] != 'x')
			continue;
		name = str_trim(line + name_at);
		if (!*name)
			name = "//anon";
		rc = pd_write_mmap2(w, (uint32_t)pid, (uint32_t)pid, start, end - start, pgoff, maj, min, ino,
				    PROT_READ | PROT_EXEC, perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE, name);
	}
	fclose(f);
	return rc;
}

int synthesize_threads(struct pd_writer *w, pid_t pid)
{
	char path[64];
	char **names;
	size_t n, i;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (list_dir_names(path, &names, &n) < 0) {
		oc_err_clear();
		return 0;
	}
	for (i = 0; rc == 0 && i < n; i++) {
		char *comm_path = xasprintf("%s/%s/comm", path, names[i]);
		char *comm = read_line_file(comm_path);

		if (comm)
			rc = pd_write_comm(w, (uint32_t)pid, (uint32_t)atoi(names[i]), comm, false);
		oc_err_clear();
		free(comm);
		free(comm_path);
	}
	strv_free(names);
	return rc < 0 ? -1 : synthesize_maps(w, pid);
}

uint64_t file_size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}
