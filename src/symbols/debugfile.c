/* debugfile.c — the separate debug file of a stripped binary, where gdb looks
 * for it: by build-id under /usr/lib/debug/.build-id/, then by the name in its
 * .gnu_debuglink section next to it, in its .debug/ directory and under
 * /usr/lib/debug/ followed by its directory. A candidate must have a symbol
 * table and the binary's build-id. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "symbols/symbols.h"
#include "util/util.h"

/* The name .gnu_debuglink gives, or NULL. */
static char *debuglink(const char *path)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	char *name = NULL;
	Elf *elf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;
			Elf_Data *d;
			if (!gelf_getshdr(scn, &sh) || !(n = elf_strptr(elf, shstrndx, sh.sh_name)) ||
			    strcmp(n, ".gnu_debuglink") || !(d = elf_getdata(scn, NULL)) || !d->d_size)
				continue;
			name = xstrndup(d->d_buf, strnlen(d->d_buf, d->d_size));
			break;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return name;
}

/* Is path an ELF file with a symbol table and the build-id id (when known)? */
static bool is_debug_file(const char *path, const uint8_t *id, size_t id_len)
{
	struct dso *d;
	uint8_t own[20];
	size_t own_len;
	bool ok;

	if (access(path, R_OK) != 0 || is_dir(path))
		return false;
	own_len = sym_file_build_id(path, own);
	if (id_len && own_len && !pd_build_id_equal(id, id_len, own, own_len))
		return false;
	d = dso_open_file(path);
	ok = d && d->has_symtab;
	dso_free(d);
	oc_err_clear();
	return ok;
}

char *sym_debug_file(const char *path)
{
	uint8_t id[20];
	size_t id_len = sym_file_build_id(path, id), i;
	char *link = debuglink(path), *dir, *slash, *cand[4] = { NULL }, *found = NULL;
	char real[PATH_MAX];

	elf_version(EV_CURRENT);
	if (id_len) {
		struct strbuf sb = STRBUF_INIT;
		sb_printf(&sb, "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (i = 1; i < id_len; i++)
			sb_printf(&sb, "%02x", id[i]);
		sb_puts(&sb, ".debug");
		cand[0] = sb_detach(&sb);
	}
	if (link) {
		dir = xstrdup(realpath(path, real) ? real : path);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			strcpy(dir, ".");
		cand[1] = xasprintf("%s/%s", dir, link);
		cand[2] = xasprintf("%s/.debug/%s", dir, link);
		cand[3] = xasprintf("/usr/lib/debug%s/%s", dir, link);
		free(dir);
	}
	for (i = 0; i < ARRAY_SIZE(cand) && !found; i++)
		if (cand[i] && strcmp(cand[i], path) && is_debug_file(cand[i], id, id_len))
			found = xstrdup(cand[i]);
	for (i = 0; i < ARRAY_SIZE(cand); i++)
		free(cand[i]);
	free(link);
	return found;
}
