/* symbols.c — ELF symbols (libelf: .symtab, .dynsym, PLT stubs), DSOs found by
 * recorded path, build-id or --symfs, per-process maps from MMAP/MMAP2 records,
 * and kernel symbols from kallsyms when the recorded kernel is the running one.
 *
 * Symbol rules follow perf's util/symbol.c and symbol-elf.c: functions only
 * (STT_FUNC, STT_GNU_IFUNC), zero-sized symbols extended to the next one,
 * duplicates at one address reduced to the best one (non-zero size, non-weak,
 * global, fewer leading underscores, longer name), PLT entries named "f@plt".
 */
#define _GNU_SOURCE
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dlib/dlib.h"
#include "perfdata/perfdata.h"
#include "symbols/symbols.h"
#include "util/util.h"

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct proc {
	struct map *maps;          /* sorted by start, non-overlapping */
	size_t nr, cap;
};

struct build_id_entry {
	uint8_t id[20];
	uint8_t size;
};

struct symtab {
	struct sym_options opts;
	struct dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct hmap procs;         /* pid -> struct proc */
	struct map *kmaps;         /* kernel and module maps, sorted */
	size_t nr_kmaps, cap_kmaps;
	struct hmap bids;          /* path (owned) -> struct build_id_entry */
	struct dso *kernel_dso;    /* [kernel.kallsyms], symbols from kallsyms when allowed */
	uint64_t kstart, kend;     /* its map as recorded (old perf: from 0x15600000 up) */
	char *reloc_sym;           /* the kernel map's "[kernel.kallsyms]_text": "_text", */
	uint64_t reloc_addr;       /* and its address then (the map's pgoff), or NULL/0 */
};

/* --- ELF reading ------------------------------------------------------- */

struct sym_build {
	struct symbol *syms;
	size_t nr, cap;
	/* per symbol: binding rank for choosing among duplicates */
	unsigned char *bind;
	char **names;              /* owned names */
	size_t nr_names, cap_names;
};

static void add_sym(struct sym_build *b, uint64_t start, uint64_t size, const char *name,
		    unsigned bind)
{
	size_t cap = b->cap;

	GROW(b->syms, b->cap, b->nr + 1);
	if (b->cap != cap || !b->bind)   /* bind grows with syms, not on every symbol */
		b->bind = xrealloc(b->bind, b->cap);
	b->syms[b->nr] = (struct symbol){ start, size, name, false };
	b->bind[b->nr] = bind;
	b->nr++;
}

static const char *own_name(struct sym_build *b, char *name)
{
	GROW(b->names, b->cap_names, b->nr_names + 1);
	b->names[b->nr_names++] = name;
	return name;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when a is better than b. */
static bool better_symbol(const struct symbol *a, unsigned bind_a, const struct symbol *b,
			  unsigned bind_b)
{
	size_t la, lb;
	if ((a->size != 0) != (b->size != 0))
		return a->size != 0;
	if ((bind_a == STB_WEAK) != (bind_b == STB_WEAK))
		return bind_b == STB_WEAK;
	if ((bind_a == STB_GLOBAL) != (bind_b == STB_GLOBAL))
		return bind_a == STB_GLOBAL;
	la = leading_underscores(a->name);
	lb = leading_underscores(b->name);
	if (la != lb)
		return la < lb;
	return strlen(a->name) >= strlen(b->name);
}

struct sym_sort { struct symbol s; unsigned char bind; size_t order; };

static int cmp_sym_sort(const void *pa, const void *pb)
{
	const struct sym_sort *a = pa, *b = pb;
	if (a->s.start != b->s.start)
		return a->s.start < b->s.start ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;   /* perf's tree keeps file order */
}

/* Sort, then as perf's symbols__fixup_end() and symbols__fixup_duplicate(), in
 * that order: a zero-sized symbol runs to the next one (the last one to the
 * page after its own), then of symbols at one address the best one stays, the
 * earlier on a tie. perf makes the PLT stubs after that, so a zero-sized symbol
 * runs over them to the next symbol of the file (_init over .plt and .plt.got):
 * dso_find_symbol() gives the stub inside its own bytes, and it the rest. */
static void finish_symbols(struct dso *dso, struct sym_build *b)
{
	struct sym_sort *v = xcalloc(b->nr ? b->nr : 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < b->nr; i++)
		v[i] = (struct sym_sort){ b->syms[i], b->bind[i], i };
	qsort(v, b->nr, sizeof(*v), cmp_sym_sort);
	for (i = 0; i < b->nr; i++) {
		size_t next = i + 1;

		if (v[i].s.size != 0)
			continue;
		while (next < b->nr && v[next].s.plt)
			next++;
		v[i].s.size = next < b->nr ? v[next].s.start - v[i].s.start
			      : ((v[i].s.start + 4095) & ~4095ULL) + 4096 - v[i].s.start;
	}
	for (i = 0; i < b->nr; i++) {
		if (n && v[n - 1].s.start == v[i].s.start) {
			if (!better_symbol(&v[n - 1].s, v[n - 1].bind, &v[i].s, v[i].bind))
				v[n - 1] = v[i];
			continue;
		}
		v[n++] = v[i];
	}
	free(b->syms);
	free(b->bind);
	dso->syms = xcalloc(n ? n : 1, sizeof(*dso->syms));
	for (i = 0; i < n; i++)
		dso->syms[i] = v[i].s;
	dso->nr_syms = n;
	free(v);
}

/* perf's elf_sym__filter(): functions, and data objects (perf 6.1 keeps both
 * in one table: a sample's data address finds its variable) */
static bool sym_is_function(const GElf_Sym *sym)
{
	unsigned type = GELF_ST_TYPE(sym->st_info);
	if (type == STT_OBJECT && sym->st_shndx >= SHN_LORESERVE)
		return false;   /* absolute: version names (GLIBC_2.3), no section to map */
	return (type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT) && sym->st_name != 0 &&
	       sym->st_shndx != SHN_UNDEF;
}

/* perf's elf_sym__is_label() and its text-section filter: an assembly label
 * (_dl_start_user, _start's pieces) in a section named *text* is a symbol too. */
static bool sym_is_text_label(Elf *elf, const GElf_Sym *sym)
{
	unsigned vis = GELF_ST_VISIBILITY(sym->st_other);
	size_t shstrndx;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	const char *name;

	if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || sym->st_name == 0 || sym->st_shndx == SHN_UNDEF ||
	    sym->st_shndx >= SHN_LORESERVE || vis == STV_HIDDEN || vis == STV_INTERNAL)
		return false;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0 || !(scn = elf_getscn(elf, sym->st_shndx)) ||
	    !gelf_getshdr(scn, &shdr))
		return false;
	name = elf_strptr(elf, shstrndx, shdr.sh_name);
	return name && strstr(name, "text");
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *shdr_out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *n;
		if (!gelf_getshdr(scn, &shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (n && strcmp(n, name) == 0) {
			if (shdr_out)
				*shdr_out = shdr;
			return scn;
		}
	}
	return NULL;
}

static Elf_Scn *find_section_type(Elf *elf, unsigned type, GElf_Shdr *shdr_out)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, shdr_out) && shdr_out->sh_type == type)
			return scn;
	}
	return NULL;
}

static void read_symbols(struct sym_build *b, Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr,
			 size_t *nr_dynsyms)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;
	if (!data || !shdr->sh_entsize)
		return;
	n = shdr->sh_size / shdr->sh_entsize;
	if (nr_dynsyms)
		*nr_dynsyms = n;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		if (!gelf_getsym(data, (int)i, &sym) ||
		    !(sym_is_function(&sym) || sym_is_text_label(elf, &sym)))
			continue;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		add_sym(b, sym.st_value, sym.st_size, own_name(b, xstrdup(name)),
			GELF_ST_BIND(sym.st_info));
	}
}

/* PLT stubs: one "name@plt" per .rela.plt entry, as perf's dso__synthesize_plt_symbols. */
static void read_plt(struct sym_build *b, Elf *elf)
{
	GElf_Shdr plt, rela, dynsym;
	Elf_Scn *plt_scn = find_section(elf, ".plt", &plt);
	Elf_Scn *rela_scn = find_section(elf, ".rela.plt", &rela);
	Elf_Scn *sec_scn;
	GElf_Shdr plt_sec;
	Elf_Data *rdata, *sdata;
	Elf_Scn *dyn_scn;
	uint64_t addr, entsize;
	size_t i, n;

	if (!plt_scn || !rela_scn)
		return;
	dyn_scn = elf_getscn(elf, rela.sh_link);
	if (!dyn_scn || !gelf_getshdr(dyn_scn, &dynsym))
		return;
	rdata = elf_getdata(rela_scn, NULL);
	sdata = elf_getdata(dyn_scn, NULL);
	if (!rdata || !sdata || !rela.sh_entsize)
		return;
	n = rela.sh_size / rela.sh_entsize;
	/* With IBT (.plt.sec) the callable stubs live there, one per entry. */
	sec_scn = find_section(elf, ".plt.sec", &plt_sec);
	if (sec_scn) {
		addr = plt_sec.sh_addr;
		entsize = plt_sec.sh_entsize ? plt_sec.sh_entsize : 16;
	} else {
		entsize = plt.sh_entsize ? plt.sh_entsize : 16;
		addr = plt.sh_addr + entsize;   /* entry 0 is the resolver stub */
	}
	for (i = 0; i < n; i++, addr += entsize) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		if (!gelf_getrela(rdata, (int)i, &r) ||
		    !gelf_getsym(sdata, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		name = elf_strptr(elf, dynsym.sh_link, sym.st_name);
		if (!name)
			continue;
		/* an IRELATIVE slot has no symbol: perf names it "@plt" */
		add_sym(b, addr, entsize, own_name(b, xasprintf("%s@plt", name)), STB_GLOBAL);
		b->syms[b->nr - 1].plt = true;
	}
}

/* Read loads, symbols and the build-id of path into dso. -1 + oc_err when unreadable. */
static int load_elf(struct dso *dso, const char *path, uint8_t *file_id, size_t *file_id_size)
{
	struct sym_build b = { 0 };
	GElf_Ehdr ehdr;
	GElf_Shdr shdr;
	Elf_Scn *scn;
	size_t i, nph, nr_dynsyms = 0;
	bool have_text = false;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open_regular(path);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return oc_err("%s: not an ELF file", path);
	}
	dso->is_pie = ehdr.e_type == ET_DYN;
	if (elf_getphdrnum(elf, &nph) == 0) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			dso->loads = xrealloc(dso->loads, (dso->nr_loads + 1) * sizeof(*dso->loads));
			dso->loads[dso->nr_loads++] = (struct dso_load){ ph.p_vaddr, ph.p_offset, ph.p_filesz,
									 ph.p_memsz };
			if ((ph.p_flags & PF_X) && !have_text) {
				dso->text_vaddr = ph.p_vaddr;
				dso->text_offset = ph.p_offset;
				have_text = true;
			}
		}
	}
	*file_id_size = sym_elf_build_id(elf, file_id);

	scn = find_section_type(elf, SHT_SYMTAB, &shdr);
	if (scn)
		read_symbols(&b, elf, scn, &shdr, NULL);
	dso->has_symtab = b.nr > 0;
	scn = find_section_type(elf, SHT_DYNSYM, &shdr);
	if (scn && !b.nr)
		read_symbols(&b, elf, scn, &shdr, &nr_dynsyms);
	read_plt(&b, elf);
	finish_symbols(dso, &b);
	/* names stay owned by the dso: keep the pool in syms' lifetime */
	dso->name_pool = b.names;
	dso->nr_name_pool = b.nr_names;
	elf_end(elf);
	close(fd);
	return 0;
}

/* --- DSOs -------------------------------------------------------------- */

static struct dso *dso_new(const char *name)
{
	struct dso *d = xcalloc(1, sizeof(*d));
	const char *base = str_basename(name);
	d->name = xstrdup(name);
	d->short_name = xstrdup(*base ? base : name);
	return d;
}

/* What load_elf() filled in: symbols, their names and the load segments. */
static void release_symbols(struct dso *d)
{
	size_t j;

	for (j = 0; j < d->nr_name_pool; j++)
		free(d->name_pool[j]);
	free(d->name_pool);
	if (d->shown_names)
		for (j = 0; j < d->nr_syms; j++)
			free(d->shown_names[j]);
	free(d->shown_names);
	free(d->syms);
	free(d->loads);
	d->name_pool = NULL;
	d->shown_names = NULL;
	d->syms = NULL;
	d->loads = NULL;
	d->nr_name_pool = d->nr_syms = d->nr_loads = 0;
}

void dso_free(struct dso *dso)
{
	if (!dso)
		return;
	release_symbols(dso);
	if (dso->di)
		di_close(dso->di);
	free(dso->name);
	free(dso->short_name);
	free(dso->found_path);
	free(dso);
}

struct dso *dso_open_file(const char *path)
{
	struct dso *d = dso_new(path);
	uint8_t id[20];
	size_t n = 0;
	if (load_elf(d, path, id, &n) < 0) {
		dso_free(d);
		return NULL;
	}
	memcpy(d->build_id, id, n);
	d->build_id_size = (uint8_t)n;
	d->found_path = xstrdup(path);
	d->loaded = true;
	return d;
}

const struct symbol *dso_find_symbol(struct dso *dso, uint64_t file_addr)
{
	const struct symbol *s;
	size_t lo = COUNT_LE(dso->syms, dso->nr_syms, start, file_addr);

	if (lo == 0)
		return NULL;
	s = &dso->syms[lo - 1];
	if (file_addr - s->start < s->size)
		return s;
	/* past a PLT stub: the symbol that runs over the stubs, if one does */
	while (s > dso->syms && s->plt)
		s--;
	return !s->plt && file_addr - s->start < s->size ? s : NULL;
}

struct debuginfo *dso_debuginfo(struct dso *dso)
{
	if (!dso->di_tried) {
		dso->di_tried = true;
		if (dso->found_path && !dso->build_id_mismatch) {
			dso->di = di_open(dso->found_path);
			if (dso->di && !di_has_lines(dso->di)) {
				di_close(dso->di);
				dso->di = NULL;
			}
			oc_err_clear();
		}
	}
	return dso->di;
}

/* Names that never are files. */
static bool is_pseudo_name(const char *name)
{
	return name[0] == '[' || strcmp(name, "//anon") == 0 || str_starts_with(name, "/anon_hugepage") ||
	       str_starts_with(name, "/dev/zero") || str_starts_with(name, "/SYSV") ||
	       str_starts_with(name, "/memfd:");
}

bool sym_is_anon_map(const char *name)
{
	return strcmp(name, "//anon") == 0 || str_starts_with(name, "/dev/zero") ||
	       str_starts_with(name, "/anon_hugepage") || str_starts_with(name, "[stack") ||
	       str_starts_with(name, "/SYSV") || strcmp(name, "[heap]") == 0;
}

/* Maps perf addresses 1:1 (identity__map_ip()): those, and the JIT maps perf
 * names after them. */
static bool is_identity_name(const char *name)
{
	return sym_is_anon_map(name) || str_starts_with(name, "/tmp/perf-");
}

/* /proc/kallsyms is 10-20 MB with every module; a JIT's map of a long run
 * can be bigger. */
#define MAX_KALLSYMS (64u << 20)
#define MAX_PERF_MAP (256u << 20)

/* A JIT's symbols, perf's /tmp/perf-PID.map: "START SIZE NAME" lines, hex
 * (dso__load_perf_map()); absolute addresses. */
static void load_perf_map(struct dso *d)
{
	struct sym_build b = { 0 };
	size_t len;
	char *text = is_regular_file(d->name) ? read_file_max(d->name, &len, MAX_PERF_MAP,
								"a perf-PID.map JIT symbol file") : NULL;
	char *line, *save = NULL;

	if (!text) {
		oc_err_clear();
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *name;
		uint64_t start = strtoull(line, &end, 16), size;
		if (end == line || *end != ' ')
			continue;
		size = strtoull(end + 1, &name, 16);
		if (name == end + 1 || *name != ' ' || !name[1])
			continue;
		/* perf finds a symbol of size 0 at its start only */
		add_sym(&b, start, size ? size : 1, own_name(&b, xstrdup(name + 1)), STB_GLOBAL);
	}
	free(text);
	finish_symbols(d, &b);
	d->name_pool = b.names;
	d->nr_name_pool = b.nr_names;
	d->found_path = xstrdup(d->name);
}

static void hex_id(const uint8_t *id, size_t n, char *out)
{
	size_t i;
	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

static const struct build_id_entry *find_build_id(const struct symtab *st, const char *path)
{
	size_t i = hmap_find(&st->bids, &path);
	return i == HMAP_NONE ? NULL : hmap_val(&st->bids, i);
}

/* Candidate files for a DSO, in perf's order: build-id caches, then the path
 * under --symfs (or as recorded). */
static char **dso_candidates(const struct symtab *st, const struct dso *d, size_t *n)
{
	char **v = xcalloc(6, sizeof(*v));
	const char *symfs = st->opts.symfs && *st->opts.symfs ? st->opts.symfs : NULL;
	char hex[41], *owned = NULL, *in_symfs = NULL;
	/* like perf, a --symfs has its own build-id cache, DIR/.debug */
	const char *cache = symfs ? (in_symfs = xasprintf("%s/.debug", symfs)) : sym_build_id_cache_dir(&owned);
	size_t k = 0;

	if (d->build_id_size) {
		hex_id(d->build_id, d->build_id_size, hex);
		if (cache) {
			v[k++] = xasprintf("%s/.build-id/%.2s/%s/elf", cache, hex, hex + 2);
			v[k++] = xasprintf("%s/.build-id/%.2s/%s", cache, hex, hex + 2);
			if (!strcmp(d->name, "[vdso]"))   /* perf record's copy of the vdso */
				v[k++] = xasprintf("%s/.build-id/%.2s/%s/vdso", cache, hex, hex + 2);
		}
		v[k++] = xasprintf("%s/usr/lib/debug/.build-id/%.2s/%s.debug", symfs ? symfs : "",
				   hex, hex + 2);
	}
	if (symfs)
		v[k++] = xasprintf("%s%s%s", symfs, d->name[0] == '/' ? "" : "/", d->name);
	else
		v[k++] = xstrdup(d->name);
	free(owned);
	free(in_symfs);
	*n = k;
	return v;
}


/* Does the segment holding the text have file bytes? A separate debug file
 * (/usr/lib/debug/.build-id/xx/yyy.debug) keeps the program headers with its
 * sections NOBITS: offsets and sizes 0, useless for file offset -> address. */
static bool loads_have_bytes(const struct dso *d)
{
	size_t i;
	for (i = 0; i < d->nr_loads; i++)
		if (d->loads[i].vaddr == d->text_vaddr)
			return d->loads[i].filesz > 0;
	return false;
}

/* The PLT stubs of the object itself (perf synthesizes them from the runtime
 * image, a debug file has no .rela.plt bytes), added to the debug file's symbols. */
static void add_image_plt(struct dso *d, const char *path)
{
	struct sym_build b = { 0 };
	size_t i, nr_plt;
	Elf *elf;
	int fd = open_regular(path);

	if (fd < 0) {
		oc_err_clear();
		return;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for (i = 0; i < d->nr_syms; i++) {
		add_sym(&b, d->syms[i].start, d->syms[i].size, d->syms[i].name, STB_GLOBAL);
		b.syms[b.nr - 1].plt = d->syms[i].plt;
	}
	if (elf && elf_kind(elf) == ELF_K_ELF)
		read_plt(&b, elf);
	if (elf)
		elf_end(elf);
	close(fd);
	nr_plt = b.nr - d->nr_syms;
	if (!nr_plt) {
		free(b.syms);
		free(b.bind);
		free(b.names);
		return;
	}
	free(d->syms);
	finish_symbols(d, &b);
	d->name_pool = xrealloc(d->name_pool, (d->nr_name_pool + b.nr_names) * sizeof(char *));
	memcpy(d->name_pool + d->nr_name_pool, b.names, b.nr_names * sizeof(char *));
	d->nr_name_pool += b.nr_names;
	free(b.names);
}

/* Load candidate path into probe; false (error cleared) when it is not a readable ELF file. */
static bool probe_elf(const char *path, struct dso *probe, uint8_t id[20], size_t *id_size)
{
	if (is_dir(path) || access(path, R_OK) != 0 || load_elf(probe, path, id, id_size) != 0) {
		oc_err_clear();
		return false;
	}
	return true;
}

/* The segments (and PLT) of the object itself, for a DSO whose symbols come from a debug file. */
static void take_image_loads(struct dso *d, char **cand, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct dso probe = { 0 };
		uint8_t id[20];
		size_t id_size = 0;

		if (!probe_elf(cand[i], &probe, id, &id_size))
			continue;
		if (loads_have_bytes(&probe) &&
		    (!d->build_id_size || !id_size || pd_build_id_equal(id, id_size, d->build_id, d->build_id_size))) {
			free(d->loads);
			d->loads = probe.loads;
			d->nr_loads = probe.nr_loads;
			d->text_vaddr = probe.text_vaddr;
			d->text_offset = probe.text_offset;
			probe.loads = NULL;
			release_symbols(&probe);
			add_image_plt(d, cand[i]);
			return;
		}
		release_symbols(&probe);
	}
}

/* Symbols from the first candidate with a full symbol table (.symtab: a
 * debug file, an unstripped binary), else the first one that is this object
 * at all (.dynsym only), as perf prefers its symtab sources. */
static void dso_load(struct symtab *st, struct dso *d)
{
	struct dso best = { 0 };
	char **cand, *best_path = NULL;
	uint8_t best_id[20];
	size_t i, n, best_id_size = 0;
	bool mismatch_seen = false;

	d->loaded = true;
	/* the vdso is found by its build-id only: perf record keeps a copy in ~/.debug */
	if (d->kernel || (is_pseudo_name(d->name) && !(!strcmp(d->name, "[vdso]") && d->build_id_size)))
		return;
	if (str_starts_with(d->name, "/tmp/perf-")) {
		load_perf_map(d);
		return;
	}
	if (!d->build_id_size) {
		/* like perf's dso__load(): the file's own build-id finds its debug file */
		const char *symfs = st->opts.symfs && *st->opts.symfs ? st->opts.symfs : "";
		char *path = xasprintf("%s%s", symfs, d->name);
		d->build_id_size = (uint8_t)sym_file_build_id(path, d->build_id);
		free(path);
	}
	cand = dso_candidates(st, d, &n);
	for (i = 0; i < n && !best.has_symtab; i++) {
		struct dso probe = { 0 };
		uint8_t id[20];
		size_t id_size = 0;

		if (!probe_elf(cand[i], &probe, id, &id_size))
			continue;
		if (d->build_id_size && id_size &&
		    !pd_build_id_equal(id, id_size, d->build_id, d->build_id_size)) {
			/* like perf: a file with another build-id is not this object */
			mismatch_seen = true;
			release_symbols(&probe);
			continue;
		}
		if (best_path && !probe.has_symtab) {
			release_symbols(&probe);
			continue;
		}
		if (best_path) {
			release_symbols(&best);
			free(best_path);
		}
		best = probe;
		best_path = xstrdup(cand[i]);
		memcpy(best_id, id, id_size);
		best_id_size = id_size;
	}
	if (best_path) {
		d->syms = best.syms;
		d->nr_syms = best.nr_syms;
		d->loads = best.loads;
		d->nr_loads = best.nr_loads;
		d->text_vaddr = best.text_vaddr;
		d->text_offset = best.text_offset;
		d->is_pie = best.is_pie;
		d->has_symtab = best.has_symtab;
		d->name_pool = best.name_pool;
		d->nr_name_pool = best.nr_name_pool;
		d->found_path = best_path;
		if (!d->build_id_size) {
			memcpy(d->build_id, best_id, best_id_size);
			d->build_id_size = (uint8_t)best_id_size;
		}
		if (!loads_have_bytes(d))
			take_image_loads(d, cand, n);
	} else if (mismatch_seen) {
		d->build_id_mismatch = true;
		if (!st->opts.quiet)
			oc_warn("%s: build-id mismatch, not using the file found (symbols unresolved)",
				d->name);
	}
	for (i = 0; i < n; i++)
		free(cand[i]);
	free(cand);
}

/* The DSO of a path (and of the build-id the input recorded for it: inputs
 * recorded from two builds of one path have two DSOs). */
static struct dso *find_dso(struct symtab *st, const char *name, bool kernel)
{
	const struct build_id_entry *b = find_build_id(st, name);
	struct dso *d;
	size_t i;

	for (i = 0; i < st->nr_dsos; i++) {
		d = st->dsos[i];
		if (strcmp(d->name, name) != 0)
			continue;
		if (!b || pd_build_id_equal(b->id, b->size, d->build_id, d->build_id_size))
			return d;
		if (!d->build_id_size && !d->loaded) {
			memcpy(d->build_id, b->id, b->size);
			d->build_id_size = b->size;
			return d;
		}
	}
	d = dso_new(name);
	d->kernel = kernel;
	if (b) {
		memcpy(d->build_id, b->id, b->size);
		d->build_id_size = b->size;
	}
	GROW(st->dsos, st->cap_dsos, st->nr_dsos + 1);
	st->dsos[st->nr_dsos++] = d;
	return d;
}

/* --- session ----------------------------------------------------------- */

struct symtab *symtab_new(const struct sym_options *opts)
{
	struct symtab *st = xcalloc(1, sizeof(*st));
	if (opts)
		st->opts = *opts;
	if (st->opts.symfs && !strcmp(st->opts.symfs, "/"))
		st->opts.symfs = NULL;   /* perf takes --symfs / for none */
	hmap_init(&st->procs, sizeof(uint32_t), sizeof(struct proc), NULL);
	hmap_init(&st->bids, sizeof(char *), sizeof(struct build_id_entry), &hmap_str_ops);
	return st;
}

void symtab_free(struct symtab *st)
{
	size_t i;
	if (!st)
		return;
	for (i = 0; i < st->nr_dsos; i++)
		dso_free(st->dsos[i]);
	free(st->dsos);
	symtab_next_input(st);   /* what the last input's records made */
	hmap_free(&st->procs);
	hmap_free(&st->bids);
	free(st->kmaps);
	free(st);
}

void symtab_next_input(struct symtab *st)
{
	size_t i;

	for (i = 0; i < hmap_count(&st->procs); i++)
		free(((struct proc *)hmap_val(&st->procs, i))->maps);
	hmap_clear(&st->procs);
	st->nr_kmaps = 0;
	hmap_clear_interned(&st->bids);
	st->kernel_dso = NULL;
	st->kstart = st->kend = 0;
	free(st->reloc_sym);
	st->reloc_sym = NULL;
	st->reloc_addr = 0;
}

void symtab_add_build_id(struct symtab *st, const char *path, const uint8_t *id, uint8_t size)
{
	struct build_id_entry *e = hmap_val(&st->bids, hmap_intern(&st->bids, path, NULL));
	size_t i;

	if (size > 20)
		size = 20;
	memcpy(e->id, id, size);
	e->size = size;
	/* a DSO known before its id (a pipe's ids come late), not read yet, takes it */
	for (i = 0; i < st->nr_dsos; i++) {
		struct dso *d = st->dsos[i];
		if (!d->loaded && !d->build_id_size && strcmp(d->name, path) == 0) {
			memcpy(d->build_id, id, size);
			d->build_id_size = size;
		}
	}
}

/* The maps of process pid (made empty when create). Valid until the next created one. */
static struct proc *get_proc(struct symtab *st, uint32_t pid, bool create)
{
	size_t i = create ? hmap_add(&st->procs, &pid, NULL) : hmap_find(&st->procs, &pid);
	return i == HMAP_NONE ? NULL : hmap_val(&st->procs, i);
}

/* Insert m into a sorted map list, cutting whatever it overlaps (a new mapping
 * replaces the old one, as in the kernel). */
static void insert_map(struct map **maps, size_t *nr, size_t *cap, struct map m)
{
	struct map *v;
	size_t i, out = 0, n = *nr;

	GROW(*maps, *cap, n + 2);
	v = *maps;
	struct map *tmp = xcalloc(n + 2, sizeof(*tmp));
	for (i = 0; i < n; i++) {
		struct map o = v[i];
		if (o.end <= m.start || o.start >= m.end) {
			tmp[out++] = o;
			continue;
		}
		if (o.start < m.start) {
			struct map left = o;
			left.end = m.start;
			tmp[out++] = left;
		}
		if (o.end > m.end) {
			struct map right = o;
			right.pgoff += m.end - o.start;
			right.start = m.end;
			tmp[out++] = right;
		}
	}
	/* place m in order */
	for (i = 0; i < out && tmp[i].start < m.start; i++)
		;
	memmove(&tmp[i + 1], &tmp[i], (out - i) * sizeof(*tmp));
	tmp[i] = m;
	out++;
	memcpy(v, tmp, out * sizeof(*tmp));
	free(tmp);
	*nr = out;
}

void symtab_mmap(struct symtab *st, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		 const char *filename, bool kernel)
{
	struct map m = { start, start + len, pgoff, NULL };
	struct proc *p;

	if (len == 0)
		return;
	if (m.end < m.start)
		m.end = UINT64_MAX;
	if (kernel || pid == (uint32_t)-1) {
		/* the kernel text map: [kernel.kallsyms]_text (or _stext) */
		bool is_kernel_image = str_starts_with(filename, "[kernel.kallsyms]");
		m.dso = find_dso(st, is_kernel_image ? "[kernel.kallsyms]" : filename, true);
		if (is_kernel_image) {
			st->kernel_dso = m.dso;
			st->kstart = m.start;
			st->kend = m.end;
			/* perf relocates kallsyms by this symbol (KASLR); pgoff 0: kptr_restrict */
			if (pgoff) {
				free(st->reloc_sym);
				st->reloc_sym = xstrdup(filename + strlen("[kernel.kallsyms]"));
				st->reloc_addr = pgoff;
			}
			/* perf's kernel map runs from the text start to the top of memory */
			if (m.start < pgoff && pgoff >> 63)
				m.start = pgoff;
			m.end = UINT64_MAX;
		}
		insert_map(&st->kmaps, &st->nr_kmaps, &st->cap_kmaps, m);
		return;
	}
	m.dso = find_dso(st, filename, false);
	p = get_proc(st, pid, true);
	insert_map(&p->maps, &p->nr, &p->cap, m);
}

void symtab_fork(struct symtab *st, uint32_t pid, uint32_t ppid)
{
	struct proc *parent, *child;
	if (pid == ppid)
		return;
	child = get_proc(st, pid, true);
	parent = get_proc(st, ppid, false);   /* after child: adding one moves them */
	if (!parent || !parent->nr)
		return;
	free(child->maps);
	child->maps = xcalloc(parent->nr, sizeof(*child->maps));
	memcpy(child->maps, parent->maps, parent->nr * sizeof(*child->maps));
	child->nr = child->cap = parent->nr;
}

static const struct map *find_map(const struct map *v, size_t n, uint64_t addr)
{
	size_t lo = COUNT_LE(v, n, start, addr);

	return lo && addr < v[lo - 1].end ? &v[lo - 1] : NULL;
}

/* File offset -> the ELF virtual address of the PT_LOAD holding it (its .bss
 * too: the mapping's offsets run on past the file bytes). */
uint64_t dso_offset_to_vaddr(const struct dso *d, uint64_t off)
{
	size_t i;
	for (i = 0; i < d->nr_loads; i++)
		if (off >= d->loads[i].offset &&
		    off < d->loads[i].offset + (d->loads[i].memsz > d->loads[i].filesz ? d->loads[i].memsz
											  : d->loads[i].filesz))
			return off - d->loads[i].offset + d->loads[i].vaddr;
	return off - d->text_offset + d->text_vaddr;
}

/* --- kernel symbols ---------------------------------------------------- */

static void load_kallsyms(struct symtab *st, struct dso *d, const char *path)
{
	struct sym_build b = { 0 };
	uint64_t reloc = 0;
	size_t len, i;
	char *text = read_file_max(path, &len, MAX_KALLSYMS, "a kallsyms file"), *line, *save = NULL;
	if (!text) {
		if (!st->opts.quiet)
			oc_warn("%s", oc_errmsg());
		oc_err_clear();
		return;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *name;
		uint64_t addr = strtoull(line, &end, 16);
		char type;
		if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		type = end[1];
		name = end + 3;
		if (st->reloc_sym && *st->reloc_sym && !strcmp(name, st->reloc_sym))
			reloc = addr - st->reloc_addr;
		if (!(type == 't' || type == 'T' || type == 'w' || type == 'W') || addr == 0)
			continue;
		end = strchr(name, '\t');
		if (end)
			*end = 0;   /* drop "[module]" */
		add_sym(&b, addr, 0, name, type == 'T' ? STB_GLOBAL : type == 'W' || type == 'w' ? STB_WEAK : STB_LOCAL);
	}
	free(b.names);
	/* perf's kallsyms__delta(): the symbols where the recorded kernel had them */
	for (i = 0; i < b.nr; i++)
		b.syms[i].start -= reloc;
	finish_symbols(d, &b);
	d->name_pool = xmalloc(sizeof(char *));   /* the names point into the text */
	d->name_pool[0] = text;
	d->nr_name_pool = 1;
	d->found_path = xstrdup(path);
}

/* The kallsyms rule: only a kernel whose build-id we know to be the running one
 * (or an explicit --kallsyms file) gets names. With kallsyms_like_perf, perf's
 * (dso__load_kernel_sym(), dso__find_kallsyms()): never /proc/kallsyms with
 * --symfs, and also for a kernel without build-id (relocated by the map's symbol). */
static void kernel_load(struct symtab *st, struct dso *d)
{
	uint8_t id[20];
	int n;
	d->loaded = true;
	if (st->opts.kallsyms) {
		load_kallsyms(st, d, st->opts.kallsyms);
		return;
	}
	if (st->opts.kallsyms_like_perf && st->opts.symfs && *st->opts.symfs)
		return;
	if (!d->build_id_size) {
		if (st->opts.kallsyms_like_perf)
			load_kallsyms(st, d, "/proc/kallsyms");
		return;
	}
	n = sym_running_kernel_build_id(id);
	if (n && pd_build_id_equal(id, (size_t)n, d->build_id, d->build_id_size))
		load_kallsyms(st, d, "/proc/kallsyms");
}

/* --- resolution -------------------------------------------------------- */

static void found_in(struct addr_loc *out, const struct map *m)
{
	out->dso = m->dso;
	out->map_start = m->start;
	out->map_end = m->end;
	out->map_pgoff = m->pgoff;
}

/* A kernel-mode address: the kernel's and the modules' maps. */
static bool lookup_kernel(struct symtab *st, uint64_t addr, struct addr_loc *out)
{
	const struct map *m;

	if (!(addr >> 63)) {
		/* a user-range address inside the kernel map as recorded */
		if (!st->kernel_dso || addr < st->kstart || addr >= st->kend)
			return false;
		out->dso = st->kernel_dso;
		out->map_start = st->kstart;
		out->map_end = st->kend;
		out->kernel = true;
		return true;
	}
	m = find_map(st->kmaps, st->nr_kmaps, addr);
	if (!m)
		return false;
	found_in(out, m);
	out->kernel = true;
	if (!m->dso->loaded && !st->opts.maps_only) {
		if (m->dso == st->kernel_dso)
			kernel_load(st, m->dso);
		else
			m->dso->loaded = true;   /* modules: no symbols without their .ko */
	}
	/* perf shows module addresses relative to the module, the kernel's as they are */
	if (m->dso != st->kernel_dso)
		out->map_addr = addr - m->start + m->pgoff;
	if (m->dso == st->kernel_dso && m->dso->loaded) {
		out->sym = dso_find_symbol(m->dso, addr);
		if (out->sym)
			out->sym_off = addr - out->sym->start;
	}
	return true;
}

/* A user-mode address: the maps of process pid. */
static bool lookup_user(struct symtab *st, uint32_t pid, uint64_t addr, struct addr_loc *out)
{
	const struct map *m = NULL;
	struct proc *p;

	if (addr >> 63)
		return false;
	p = get_proc(st, pid, false);
	if (p)
		m = find_map(p->maps, p->nr, addr);
	if (!m)
		return false;
	found_in(out, m);
	out->map_addr = is_identity_name(m->dso->name) ? addr : addr - m->start + m->pgoff;
	out->file_addr = out->map_addr;
	if (st->opts.maps_only)
		return true;
	if (!m->dso->loaded)
		dso_load(st, m->dso);
	if (!m->dso->found_path)
		return true;
	out->file_addr = dso_offset_to_vaddr(m->dso, out->map_addr);
	out->sym = dso_find_symbol(m->dso, out->file_addr);
	if (out->sym)
		out->sym_off = out->file_addr - out->sym->start;
	return true;
}

/* addr in the maps of one cpumode, perf's thread__find_map(): the level is
 * the mode's even when nothing is found there. */
static bool lookup_mode(struct symtab *st, uint32_t pid, unsigned mode, uint64_t addr,
			struct addr_loc *out)
{
	memset(out, 0, sizeof(*out));
	out->map_addr = out->file_addr = addr;
	out->level = mode == PERF_RECORD_MISC_KERNEL ? 'k' : mode == PERF_RECORD_MISC_USER ? '.' : 'H';
	if (mode == PERF_RECORD_MISC_KERNEL)
		return lookup_kernel(st, addr, out);
	if (mode == PERF_RECORD_MISC_USER)
		return lookup_user(st, pid, addr, out);
	return false;
}

void symtab_lookup(struct symtab *st, uint32_t pid, unsigned cpumode, uint64_t addr,
		   enum sym_lookup how, struct addr_loc *out)
{
	unsigned own = addr >> 63 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;

	switch (how) {
	case SYM_AT_CPUMODE:
		lookup_mode(st, pid, cpumode, addr, out);
		break;
	case SYM_AT_FALLBACK:
		if (!lookup_mode(st, pid, cpumode, addr, out) && own != cpumode)
			lookup_mode(st, pid, own, addr, out);
		break;
	case SYM_AT_ANY:
		if (!lookup_mode(st, pid, PERF_RECORD_MISC_USER, addr, out) &&
		    !lookup_mode(st, pid, PERF_RECORD_MISC_KERNEL, addr, out))
			out->level = 'H';
		break;
	}
}

/* --- names ---------------------------------------------------------------- */

/* perf 6.1 demangles with libiberty's cplus_demangle(name, DMGL_NO_OPTS)
 * linked into it (C++, and Rust's legacy and v0 forms: libiberty tries
 * Rust first); ocrec takes the same function from binutils' libbfd. */
typedef char *(*demangle_fn)(const char *mangled, int options);

static demangle_fn demangler(void)
{
	static const char *const libs[] = { "libbfd-2.40-system.so", "libbfd-2.41-system.so",
					    "libbfd-2.42-system.so", "libbfd-2.43-system.so", "libbfd.so", NULL };
	static const char *const syms[] = { "cplus_demangle" };
	static demangle_fn fn;
	static bool tried;

	if (!tried) {
		tried = true;
		dlib_load(libs, "libbinutils (C++ names stay mangled)", syms, (void **)&fn, 1);
	}
	return fn;
}

static bool maybe_mangled(const char *name)
{
	return !strncmp(name, "_Z", 2) || !strncmp(name, "_R", 2);
}

char *sym_demangle(const char *name)
{
	if (!maybe_mangled(name) || !demangler())
		return NULL;
	return demangler()(name, 0);
}

const char *sym_name(struct dso *dso, const struct symbol *sym, bool demangle)
{
	size_t i = (size_t)(sym - dso->syms);
	const char *at;
	char *base, *d;

	if (!demangle || dso->kernel || !maybe_mangled(sym->name) || i >= dso->nr_syms || !demangler())
		return sym->name;
	if (!dso->shown_names)
		dso->shown_names = xcalloc(dso->nr_syms, sizeof(*dso->shown_names));
	if (!dso->shown_names[i]) {
		/* perf demangles a PLT stub's target and adds "@plt" after */
		at = strchr(sym->name, '@');
		base = at ? xstrndup(sym->name, (size_t)(at - sym->name)) : xstrdup(sym->name);
		d = sym_demangle(base);
		dso->shown_names[i] = d ? xasprintf("%s%s", d, at ? at : "") : xstrdup(sym->name);
		free(d);
		free(base);
	}
	return dso->shown_names[i];
}

const char *sym_dso_name(const struct addr_loc *loc)
{
	return loc->dso ? loc->dso->name : "[unknown]";
}
