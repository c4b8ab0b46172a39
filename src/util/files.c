/* File helpers: whole-file reads, atomic writes (temp name + rename), mkdir -p,
 * directory listings. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

/* "16 MiB" */
static void size_text(size_t n, char *buf, size_t size)
{
	if (n >= (1u << 30) && n % (1u << 30) == 0)
		snprintf(buf, size, "%zu GiB", n >> 30);
	else if (n >= (1u << 20) && n % (1u << 20) == 0)
		snprintf(buf, size, "%zu MiB", n >> 20);
	else if (n >= 1024 && n % 1024 == 0)
		snprintf(buf, size, "%zu KiB", n >> 10);
	else
		snprintf(buf, size, "%zu bytes", n);
}

static char *too_big(const char *path, size_t max, const char *what)
{
	char limit[32];

	size_text(max, limit, sizeof(limit));
	oc_err("%s: larger than %s, the most ocrec reads of %s", path, limit, what);
	return NULL;
}

char *read_file_max(const char *path, size_t *len, size_t max, const char *what)
{
	FILE *fp = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	struct stat st;
	char buf[65536];
	size_t n;

	if (!fp) {
		oc_err_errno("cannot open %s", path);
		return NULL;
	}
	/* a regular file says its size; a device or a pipe (/dev/zero) is read up to the limit */
	if (fstat(fileno(fp), &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
		fclose(fp);
		return too_big(path, max, what);
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0) {
		if (n > max - sb.len) {
			fclose(fp);
			sb_free(&sb);
			return too_big(path, max, what);
		}
		sb_add(&sb, buf, n);
	}
	if (ferror(fp)) {
		oc_err_errno("cannot read %s", path);
		fclose(fp);
		sb_free(&sb);
		return NULL;
	}
	fclose(fp);
	if (len)
		*len = sb.len;
	return sb_detach(&sb);
}

char *read_file(const char *path, size_t *len)
{
	return read_file_max(path, len, SIZE_MAX, "a file");
}

char *read_line_file(const char *path)
{
	size_t len;
	char *s = read_file(path, &len);
	if (!s)
		return NULL;
	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		s[--len] = 0;
	return s;
}

static char *tmp_name(const char *path)
{
	return xasprintf("%s.tmp.%ld", path, (long)getpid());
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	struct atomic_file af;
	if (atomic_open(&af, path) < 0)
		return -1;
	if (len && fwrite(data, 1, len, af.fp) != len) {
		oc_err_errno("cannot write %s", af.tmp);
		atomic_abort(&af);
		return -1;
	}
	return atomic_commit(&af);
}

int atomic_open(struct atomic_file *af, const char *path)
{
	af->path = xstrdup(path);
	af->tmp = tmp_name(path);
	af->fp = fopen(af->tmp, "wb");
	if (!af->fp) {
		oc_err_errno("cannot create %s", af->tmp);
		free(af->path);
		free(af->tmp);
		af->path = af->tmp = NULL;
		return -1;
	}
	return 0;
}

int atomic_commit(struct atomic_file *af)
{
	int ret = 0;
	if (fflush(af->fp) != 0 || ferror(af->fp)) {
		ret = oc_err_errno("cannot write %s", af->tmp);
		fclose(af->fp);
	} else if (fclose(af->fp) != 0) {
		ret = oc_err_errno("cannot write %s", af->tmp);
	} else if (rename(af->tmp, af->path) != 0) {
		ret = oc_err_errno("cannot rename %s to %s", af->tmp, af->path);
	}
	if (ret)
		unlink(af->tmp);
	free(af->path);
	free(af->tmp);
	af->fp = NULL;
	af->path = af->tmp = NULL;
	return ret;
}

void atomic_abort(struct atomic_file *af)
{
	if (af->fp)
		fclose(af->fp);
	if (af->tmp)
		unlink(af->tmp);
	free(af->path);
	free(af->tmp);
	af->fp = NULL;
	af->path = af->tmp = NULL;
}

int mkdir_p(const char *path, unsigned mode)
{
	char *p = xstrdup(path), *s;
	int ret = 0;
	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == 0) {
			char c = *s;
			*s = 0;
			if (mkdir(p, mode) != 0 && errno != EEXIST) {
				ret = oc_err_errno("cannot create directory %s", p);
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	return ret;
}

bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

void lr_init(struct line_reader *lr, FILE *fp, size_t max)
{
	memset(lr, 0, sizeof(*lr));
	lr->fp = fp;
	lr->max = max;
	lr->cap = 131072;
	lr->buf = xmalloc(lr->cap);
}

char *lr_next(struct line_reader *lr, size_t *len)
{
	for (;;) {
		char *line = lr->buf + lr->start, *nl;
		size_t have = lr->end - lr->start, n;

		nl = have ? memchr(line, '\n', have) : NULL;
		if (nl || (lr->eof && have)) {
			size_t l = nl ? (size_t)(nl - line) : have;
			if (l > lr->max)
				break;
			line[l] = 0;   /* the newline, or the byte kept free past the end */
			lr->start += nl ? l + 1 : l;
			lr->lineno++;
			*len = l;
			return line;
		}
		if (lr->eof || have > lr->max)
			break;
		/* room for a chunk more (and a NUL) at the end of the buffer */
		if (lr->start) {
			memmove(lr->buf, line, have);
			lr->start = 0;
			lr->end = have;
		}
		if (lr->cap - lr->end < 65536 + 1) {
			lr->cap *= 2;
			lr->buf = xrealloc(lr->buf, lr->cap);
		}
		n = fread(lr->buf + lr->end, 1, lr->cap - lr->end - 1, lr->fp);
		lr->end += n;
		if (n == 0)
			lr->eof = true;
	}
	lr->too_long = lr->end - lr->start > lr->max;
	return NULL;
}

void lr_free(struct line_reader *lr)
{
	free(lr->buf);
	lr->buf = NULL;
}

bool is_regular_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int open_regular(const char *path)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (no effect on a regular file) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return oc_err_errno("cannot open %s", path);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return oc_err("%s: not a regular file", path);
	}
	return fd;
}

uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char **dir_list(const char *dir, bool (*keep)(const char *name, const void *arg), const void *arg, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t nr = 0, cap = 0;

	if (!d) {
		oc_err_errno("cannot read %s", dir);
		return NULL;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (keep && !keep(de->d_name, arg)))
			continue;
		GROW(v, cap, nr + 2);
		v[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	GROW(v, cap, nr + 1);
	v[nr] = NULL;
	strv_sort(v, nr);
	if (n)
		*n = nr;
	return v;
}
