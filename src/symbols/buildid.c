/* buildid.c — GNU build-id notes: of an ELF file (its note sections, else its
 * note segments when the section headers are gone) and of the running kernel
 * (/sys/kernel/notes), and where perf's build-id cache is, for the symbol
 * search and the recorder alike. */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "util/util.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* Walk raw notes (Elf_Nhdr, name, desc, each 4-byte aligned) for NT_GNU_BUILD_ID;
 * perf keeps at most 20 bytes of it. */
static size_t notes_build_id(const unsigned char *p, size_t n, uint8_t id[20])
{
	size_t off = 0;

	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		size_t name_off, desc_off;

		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		name_off = off + 12;
		desc_off = name_off + ((namesz + 3) & ~(size_t)3);
		if (desc_off > n || descsz > n - desc_off)
			return 0;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(p + name_off, "GNU", 4) == 0 &&
		    descsz > 0) {
			size_t sz = descsz > 20 ? 20 : descsz;

			memcpy(id, p + desc_off, sz);
			return sz;
		}
		off = desc_off + ((descsz + 3) & ~(size_t)3);
	}
	return 0;
}

size_t sym_elf_build_id(struct Elf *elf, uint8_t id[20])
{
	Elf_Scn *scn = NULL;
	size_t nph, i, size = 0;

	while (!size && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		d = elf_rawdata(scn, NULL);
		if (d && d->d_buf)
			size = notes_build_id(d->d_buf, d->d_size, id);
	}
	if (size || elf_getphdrnum(elf, &nph) != 0)
		return size;
	for (i = 0; i < nph && !size; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_BYTE);
		if (d && d->d_buf)
			size = notes_build_id(d->d_buf, d->d_size, id);
	}
	return size;
}

size_t sym_file_build_id(const char *path, uint8_t id[20])
{
	size_t size = 0;
	Elf *elf;
	int fd;

	if ((fd = open_regular(path)) < 0) {
		oc_err_clear();
		return 0;
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		size = sym_elf_build_id(elf, id);
	if (elf)
		elf_end(elf);
	close(fd);
	return size;
}

size_t sym_running_kernel_build_id(uint8_t id[20])
{
	size_t n, size;
	char *buf = read_file("/sys/kernel/notes", &n);

	if (!buf) {
		oc_err_clear();
		return 0;
	}
	size = notes_build_id((const unsigned char *)buf, n, id);
	free(buf);
	return size;
}

const char *sym_build_id_cache_dir(char **owned)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");

	*owned = NULL;
	if (env && *env)
		return env;
	if (!home || !*home)
		return NULL;
	*owned = xasprintf("%s/.debug", home);
	return *owned;
}
