/* afdo-binary.c — the profiled ELF file: build-id, load segments, executable
 * sections, instruction boundaries (capstone, decoded lazily per symbol-delimited
 * chunk, as llvm-profgen disassembles per symbol), and runtime address mapping. */
#include <capstone/capstone.h>
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "autofdo/afdo-internal.h"
#include "session/session.h"
#include "perfdata/perfdata.h"
#include "symbols/symbols.h"
#include "util/util.h"
#include "x86/x86.h"

struct exec_section {
	uint64_t addr, size, offset;
};

struct load_segment {
	uint64_t vaddr, offset, filesz;
	bool exec;
};

/* Instructions between two symbol boundaries, decoded on first use. */
struct chunk {
	uint64_t start, end;
	uint64_t *insn;          /* start addresses */
	uint8_t *size;
	uint8_t *kind;           /* enum afdo_insn_kind */
	size_t nr;
	bool decoded;
};

struct afdo_binary {
	char *path;
	struct session_binary *id;
	int fd;
	const uint8_t *map;
	size_t map_len;
	Elf *elf;
	struct load_segment *segs;
	size_t nr_segs;
	struct exec_section *secs;
	size_t nr_secs, main_sec;   /* main_sec: the largest */
	struct chunk *chunks;
	size_t nr_chunks;
	uint64_t *funcs;            /* entries of its function symbols, sorted */
	size_t nr_funcs;
	csh cs;
	bool cs_open;
	struct debuginfo *di;
};

const char *afdo_binary_path(const struct afdo_binary *b) { return b->path; }
struct debuginfo *afdo_binary_debuginfo(struct afdo_binary *b) { return b->di; }
bool afdo_binary_has_debuginfo(const struct afdo_binary *b) { return di_has_lines(b->di); }

struct session_binary *afdo_binary_id(const struct afdo_binary *b) { return b->id; }

uint64_t afdo_binary_base(const struct afdo_binary *b)
{
	uint64_t base = UINT64_MAX;
	size_t i;
	for (i = 0; i < b->nr_segs; i++)
		if (b->segs[i].vaddr < base)
			base = b->segs[i].vaddr;
	return base == UINT64_MAX ? 0 : base;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int read_elf(struct afdo_binary *b)
{
	GElf_Ehdr eh;
	size_t i, n, shstrndx;
	Elf_Scn *scn = NULL;
	uint64_t *bounds = NULL;
	size_t nr_bounds = 0, cap_bounds = 0, cap_funcs = 0;

	if (!gelf_getehdr(b->elf, &eh) || eh.e_machine != EM_X86_64)
		return oc_err("%s: not an x86-64 ELF file", b->path);
	if (elf_getphdrnum(b->elf, &n) != 0)
		n = 0;
	b->segs = xcalloc(n + 1, sizeof(*b->segs));
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(b->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		b->segs[b->nr_segs++] = (struct load_segment){ ph.p_vaddr, ph.p_offset, ph.p_filesz,
							       (ph.p_flags & PF_X) != 0 };
	}
	if (elf_getshdrstrndx(b->elf, &shstrndx) != 0)
		return oc_err("%s: no section header string table", b->path);
	/* executable sections, and symbol starts inside them as chunk boundaries */
	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		/* the section's bytes must lie in the file, its addresses must not wrap */
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size &&
		    sh.sh_offset <= b->map_len && sh.sh_size <= b->map_len - sh.sh_offset &&
		    sh.sh_size <= UINT64_MAX - sh.sh_addr) {
			b->secs = xrealloc(b->secs, (b->nr_secs + 1) * sizeof(*b->secs));
			b->secs[b->nr_secs++] = (struct exec_section){ sh.sh_addr, sh.sh_size, sh.sh_offset };
		}
	}
	for (i = 0; i < b->nr_secs; i++)
		if (b->secs[i].size > b->secs[b->main_sec].size)
			b->main_sec = i;
	scn = NULL;
	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t k, nsyms;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		nsyms = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < nsyms; k++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)k, &sym) || !sym.st_value ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC && GELF_ST_TYPE(sym.st_info) != STT_NOTYPE))
				continue;
			GROW(bounds, cap_bounds, nr_bounds + 1);
			bounds[nr_bounds++] = sym.st_value;
			if (GELF_ST_TYPE(sym.st_info) == STT_FUNC && sym.st_size) {
				GROW(b->funcs, cap_funcs, b->nr_funcs + 1);
				b->funcs[b->nr_funcs++] = sym.st_value;
			}
		}
	}
	for (i = 0; i < b->nr_secs; i++) {
		GROW(bounds, cap_bounds, nr_bounds + 2);
		bounds[nr_bounds++] = b->secs[i].addr;
		bounds[nr_bounds++] = b->secs[i].addr + b->secs[i].size;
	}
	sort_items(bounds, nr_bounds, sizeof(*bounds), cmp_u64);
	sort_items(b->funcs, b->nr_funcs, sizeof(*b->funcs), cmp_u64);
	b->chunks = xcalloc(nr_bounds + 1, sizeof(*b->chunks));
	for (i = 0; i + 1 < nr_bounds; i++) {
		if (bounds[i] == bounds[i + 1] || !afdo_is_code(b, bounds[i]))
			continue;
		b->chunks[b->nr_chunks++] = (struct chunk){ .start = bounds[i], .end = bounds[i + 1] };
	}
	free(bounds);
	return 0;
}

struct afdo_binary *afdo_binary_open(const char *path)
{
	struct afdo_binary *b;
	struct stat st;

	elf_version(EV_CURRENT);
	b = xcalloc(1, sizeof(*b));
	b->path = xstrdup(path);
	if (!file_exists(path)) {
		oc_err_errno("binary %s not found", path);
		goto fail;
	}
	b->fd = open_regular(path);
	if (b->fd < 0)
		goto fail;
	if (!(b->id = session_binary_new(path)))
		goto fail;
	if (fstat(b->fd, &st) != 0 || st.st_size == 0) {
		oc_err("%s: empty or unreadable", path);
		goto fail;
	}
	b->map_len = (size_t)st.st_size;
	b->map = mmap(NULL, b->map_len, PROT_READ, MAP_PRIVATE, b->fd, 0);
	if (b->map == MAP_FAILED) {
		b->map = NULL;
		oc_err_errno("cannot map %s", path);
		goto fail;
	}
	b->elf = elf_memory((char *)b->map, b->map_len);
	if (!b->elf || elf_kind(b->elf) != ELF_K_ELF) {
		oc_err("%s: not an ELF file", path);
		goto fail;
	}
	if (read_elf(b) != 0)
		goto fail;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &b->cs) != CS_ERR_OK) {
		oc_err("capstone cannot decode x86-64");
		goto fail;
	}
	b->cs_open = true;
	b->di = di_open(path);
	if (!b->di)
		goto fail;
	return b;
fail:
	afdo_binary_close(b);
	return NULL;
}

void afdo_binary_close(struct afdo_binary *b)
{
	size_t i;

	if (!b)
		return;
	di_close(b->di);
	if (b->cs_open)
		cs_close(&b->cs);
	for (i = 0; i < b->nr_chunks; i++) {
		free(b->chunks[i].insn);
		free(b->chunks[i].size);
		free(b->chunks[i].kind);
	}
	free(b->chunks);
	free(b->funcs);
	if (b->elf)
		elf_end(b->elf);
	if (b->map)
		munmap((void *)b->map, b->map_len);
	if (b->fd >= 0)
		close(b->fd);
	free(b->segs);
	free(b->secs);
	free(b->path);
	session_binary_free(b->id);
	free(b);
}

bool afdo_offset_to_vaddr(const struct afdo_binary *b, uint64_t offset, uint64_t *vaddr)
{
	size_t i;
	for (i = 0; i < b->nr_segs; i++) {
		const struct load_segment *s = &b->segs[i];
		if (s->exec && offset >= s->offset && offset < s->offset + s->filesz) {
			*vaddr = offset - s->offset + s->vaddr;
			return true;
		}
	}
	return false;
}

bool afdo_is_code(const struct afdo_binary *b, uint64_t vaddr)
{
	size_t i;
	/* one text section holds nearly every address */
	if (b->nr_secs && vaddr >= b->secs[b->main_sec].addr &&
	    vaddr - b->secs[b->main_sec].addr < b->secs[b->main_sec].size)
		return true;
	for (i = 0; i < b->nr_secs; i++)
		if (vaddr >= b->secs[i].addr && vaddr < b->secs[i].addr + b->secs[i].size)
			return true;
	return false;
}

static const struct exec_section *section_of(const struct afdo_binary *b, uint64_t vaddr)
{
	size_t i;
	for (i = 0; i < b->nr_secs; i++)
		if (vaddr >= b->secs[i].addr && vaddr < b->secs[i].addr + b->secs[i].size)
			return &b->secs[i];
	return NULL;
}

static uint8_t insn_kind(unsigned id)
{
	switch (id) {
	case X86_INS_CALL: case X86_INS_LCALL:
		return AFDO_INSN_CALL;
	case X86_INS_RET: case X86_INS_RETF: case X86_INS_RETFQ:
		return AFDO_INSN_RET;
	case X86_INS_JMP: case X86_INS_LJMP:
		return AFDO_INSN_JMP;
	default:
		return AFDO_INSN_OTHER;
	}
}

static void decode_chunk(struct afdo_binary *b, struct chunk *ch)
{
	const struct exec_section *sec = section_of(b, ch->start);
	cs_insn *insn = cs_malloc(b->cs);
	size_t cap = 0;
	uint64_t addr = ch->start;

	ch->decoded = true;
	if (!sec || !insn) {
		if (insn)
			cs_free(insn, 1);
		return;
	}
	while (addr < ch->end && addr < sec->addr + sec->size) {
		const uint8_t *code = b->map + sec->offset + (addr - sec->addr);
		/* chunks of overlapping sections may run past this one's bytes */
		uint64_t end = ch->end < sec->addr + sec->size ? ch->end : sec->addr + sec->size;
		size_t left = (size_t)(end - addr);
		uint64_t pc = addr;
		unsigned len;
		uint8_t kind = AFDO_INSN_OTHER;

		if (x86_disasm_iter(b->cs, &code, &left, &pc, insn)) {
			len = insn->size;
			kind = insn_kind(insn->id);
		} else {
			len = 1;   /* undecodable byte (data in code): step over it */
		}
		if (ch->nr == cap) {
			cap = cap ? cap * 2 : 64;
			ch->insn = xrealloc(ch->insn, cap * sizeof(*ch->insn));
			ch->size = xrealloc(ch->size, cap * sizeof(*ch->size));
			ch->kind = xrealloc(ch->kind, cap * sizeof(*ch->kind));
		}
		ch->insn[ch->nr] = addr;
		ch->kind[ch->nr] = kind;
		ch->size[ch->nr++] = (uint8_t)len;
		addr += len;
	}
	cs_free(insn, 1);
}

/* The decoded chunk and index of the first instruction at or after addr. */
static struct chunk *insn_index(struct afdo_binary *b, uint64_t addr, size_t *index)
{
	size_t lo = 0, hi = b->nr_chunks;

	/* the chunk holding addr, else the next one */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b->chunks[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < b->nr_chunks; lo++) {
		struct chunk *ch = &b->chunks[lo];
		size_t l = 0, h;
		if (!ch->decoded)
			decode_chunk(b, ch);
		h = ch->nr;
		while (l < h) {
			size_t mid = l + (h - l) / 2;
			if (ch->insn[mid] < addr)
				l = mid + 1;
			else
				h = mid;
		}
		if (l < ch->nr) {
			*index = l;
			return ch;
		}
	}
	return NULL;
}

bool afdo_insn_at_or_after(struct afdo_binary *b, uint64_t addr, uint64_t *out, unsigned *size)
{
	size_t i;
	struct chunk *ch = insn_index(b, addr, &i);

	if (!ch)
		return false;
	*out = ch->insn[i];
	*size = ch->size[i];
	return true;
}

size_t afdo_binary_functions(const struct afdo_binary *b, const uint64_t **entries)
{
	*entries = b->funcs;
	return b->nr_funcs;
}

enum afdo_insn_kind afdo_insn_kind_at(struct afdo_binary *b, uint64_t addr)
{
	size_t i;
	struct chunk *ch = insn_index(b, addr, &i);

	return ch && ch->insn[i] == addr ? (enum afdo_insn_kind)ch->kind[i] : AFDO_INSN_OTHER;
}

/* --- runtime address mapping --- */
struct mapping {
	int64_t pid;
	uint64_t start, len, pgoff;
};

struct afdo_mapper {
	struct afdo_binary *bin;
	bool identity;
	struct mapping *maps;
	size_t nr, cap;
};

struct afdo_mapper *afdo_mapper_new(struct afdo_binary *b, bool identity)
{
	struct afdo_mapper *m = xcalloc(1, sizeof(*m));
	m->bin = b;
	m->identity = identity;
	return m;
}

void afdo_mapper_free(struct afdo_mapper *m)
{
	if (!m)
		return;
	free(m->maps);
	free(m);
}

void afdo_mapper_add(struct afdo_mapper *m, int64_t pid, uint64_t start, uint64_t len, uint64_t pgoff)
{
	GROW(m->maps, m->cap, m->nr + 1);
	m->maps[m->nr++] = (struct mapping){ pid, start, len, pgoff };
}

size_t afdo_mapper_count(const struct afdo_mapper *m)
{
	return m->nr;
}

bool afdo_mapper_map(const struct afdo_mapper *m, int64_t pid, uint64_t addr, uint64_t *vaddr)
{
	size_t i;

	if (!m->nr) {
		if (!m->identity)
			return false;
		*vaddr = addr;
		return afdo_is_code(m->bin, addr);
	}
	/* newest mapping first: a later mmap of the same range replaces an older one */
	for (i = m->nr; i-- > 0;) {
		const struct mapping *mp = &m->maps[i];
		if (pid >= 0 && mp->pid >= 0 && mp->pid != pid)
			continue;
		if (addr >= mp->start && addr - mp->start < mp->len)
			return afdo_offset_to_vaddr(m->bin, addr - mp->start + mp->pgoff, vaddr) &&
			       afdo_is_code(m->bin, *vaddr);
	}
	return false;
}
