/* replay.c — main() for a fuzz target built without libFuzzer: runs each
 * input file (or every file of each directory) once, naming it on stderr
 * first, so a failure in `make check` says which input it was. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common.h"
#include "util/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_file(const char *path)
{
	size_t len;
	char *data = read_file(path, &len);

	if (!data) {
		fprintf(stderr, "replay: %s\n", oc_errmsg());
		return -1;
	}
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput((const uint8_t *)data, len);
	free(data);
	return 0;
}

static int run_dir(const char *path, int *count)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		return -1;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.') {
			GROW(names, cap, n + 1);
			names[n++] = xasprintf("%s/%s", path, de->d_name);
		}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_name);
	for (i = 0; i < n; i++) {
		if (!ret && !is_dir(names[i])) {
			ret = run_file(names[i]);
			++*count;
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	int i, count = 0, ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...   (runs each input once)\n", argv[0]);
		return 2;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc && !ret; i++) {
		if (is_dir(argv[i]))
			ret = run_dir(argv[i], &count);
		else if (!(ret = run_file(argv[i])))
			count++;
	}
	if (ret)
		return 1;
	printf("%d inputs ran\n", count);
	return 0;
}
