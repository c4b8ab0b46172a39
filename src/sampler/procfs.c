/* procfs.c — what the software branch sampler reads from /proc for -p. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

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
