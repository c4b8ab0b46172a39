/* binary.c — the binary a profile is made for (the --binary of autofdo and
 * bolt): recognized among an input's DSOs by build-id, else by path, and
 * checked against the build-ids the input recorded, so that a profile never
 * silently describes another build. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "session/session.h"
#include "util/util.h"

struct session_binary {
	char *path, *real;
	uint8_t build_id[20];
	size_t build_id_len;
	struct hmap seen;          /* const struct dso * -> bool: is it the binary? */
};

struct session_binary *session_binary_new(const char *path)
{
	struct session_binary *b;
	char real[PATH_MAX];

	if (!file_exists(path)) {
		oc_err("binary %s not found", path);
		return NULL;
	}
	if (!is_regular_file(path)) {
		oc_err("%s: not a regular file", path);
		return NULL;
	}
	b = xcalloc(1, sizeof(*b));
	b->path = xstrdup(path);
	if (realpath(path, real))
		b->real = xstrdup(real);
	b->build_id_len = sym_file_build_id(path, b->build_id);
	hmap_init(&b->seen, sizeof(const struct dso *), sizeof(bool), NULL);
	return b;
}

void session_binary_free(struct session_binary *b)
{
	if (!b)
		return;
	hmap_free(&b->seen);
	free(b->path);
	free(b->real);
	free(b);
}

const char *session_binary_path(const struct session_binary *b)
{
	return b->path;
}

size_t session_binary_build_id(const struct session_binary *b, const uint8_t **id)
{
	*id = b->build_id;
	return b->build_id_len;
}

bool session_binary_path_matches(const struct session_binary *b, const char *path)
{
	char real[PATH_MAX];

	if (!strcmp(path, b->path))
		return true;
	if (b->real && realpath(path, real) && !strcmp(real, b->real))
		return true;
	return !strcmp(str_basename(path), str_basename(b->path));
}

bool session_binary_id_matches(const struct session_binary *b, const uint8_t *id, size_t size)
{
	return b->build_id_len && size && pd_build_id_equal(id, size, b->build_id, b->build_id_len);
}

bool session_binary_is(struct session_binary *b, const struct dso *d)
{
	bool added, *is = hmap_val(&b->seen, hmap_add(&b->seen, &d, &added));

	if (added)
		*is = session_binary_path_matches(b, d->name) ||
		      session_binary_id_matches(b, d->build_id, d->build_id_size);
	return *is;
}

int session_binary_check(const struct session_binary *b, const char *input, const struct pd_info *in, bool force)
{
	bool named = false;
	size_t i;

	if (!b->build_id_len) {
		oc_warn("%s has no build-id: matching it by path", b->path);
		return 0;
	}
	for (i = 0; i < in->nr_build_ids; i++) {
		const struct pd_build_id *bid = &in->build_ids[i];
		if (session_binary_id_matches(b, bid->id, bid->size))
			return 0;
		if (session_binary_path_matches(b, bid->filename))
			named = true;
	}
	if (named && !force)
		return oc_err("%s: the build-id recorded for %s differs from the binary's: it was rebuilt "
			      "since (--force uses the data anyway)", input, b->path);
	if (!named)
		oc_warn("%s: no build-id recorded for %s: matching it by path", input, b->path);
	return 0;
}
