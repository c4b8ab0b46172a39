/* common.c — scratch files and fixtures for the fuzz targets (common.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "util/util.h"

#ifndef OCREC_SRCDIR
#define OCREC_SRCDIR "."
#endif

static char dir[64];

static void remove_dir(void)
{
	char cmd[96];

	if (!dir[0])
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz: could not remove %s\n", dir);
}

const char *fuzz_dir(void)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/ocrec-fuzz.XXXXXX");
		if (!mkdtemp(dir))
			fuzz_fail("cannot create a temporary directory: %s", strerror(errno));
		atexit(remove_dir);
	}
	return dir;
}

const char *fuzz_file_path(const char *name)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", fuzz_dir(), name);
	return path;
}

const char *fuzz_file(const char *name, const void *data, size_t size)
{
	const char *path = fuzz_file_path(name);
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		fuzz_fail("cannot write %s: %s", path, strerror(errno));
	close(fd);
	return path;
}

const char *fuzz_text(const uint8_t *data, size_t size)
{
	static char *buf;

	free(buf);
	buf = xmalloc(size + 1);
	if (size)
		memcpy(buf, data, size);
	buf[size] = 0;
	return buf;
}

const char *fuzz_repo_path(const char *rel)
{
	static char path[4096];
	const char *root = getenv("OCREC_ROOT");

	snprintf(path, sizeof(path), "%s/%s", root && *root ? root : OCREC_SRCDIR, rel);
	if (access(path, R_OK) != 0)
		fuzz_fail("%s: %s (set OCREC_ROOT to the checkout)", path, strerror(errno));
	return path;
}

FILE *fuzz_devnull(void)
{
	static FILE *devnull;

	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		fuzz_fail("cannot open /dev/null: %s", strerror(errno));
	return devnull;
}

static void drop(const char *msg)
{
	(void)msg;
}

void fuzz_quiet(void)
{
	oc_set_warn_handler(drop);
}

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
