/* File helpers: whole-file reads, atomic writes (temp name + rename), mkdir -p. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/util.h"

char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;

	if (!fp) {
		oc_err_errno("cannot open %s", path);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sb_add(&sb, buf, n);
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

bool is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}
