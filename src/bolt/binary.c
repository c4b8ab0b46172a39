/* binary.c — the profiled ELF file as BOLT 16 sees it before disassembly:
 * sections, functions discovered from the symbol table, the FDEs of
 * .eh_frame and the PLT (RewriteInstance::discoverFileObjects), their
 * maximum sizes (adjustFunctionBoundaries), and in relocation mode the code
 * locations that static relocations name (handleRelocation). */
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bolt/bolt-internal.h"
#include "symbols/symbols.h"
#include "util/util.h"

/* --- small sorted sets ---------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static size_t sort_unique_u64(uint64_t *v, size_t n)
{
	size_t i, k = 0;
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

bool bolt_sorted_has(const uint64_t *v, size_t n, uint64_t x)
{
	size_t i = bolt_bound(v, n, sizeof(*v), 0, sizeof(*v), x, false);
	return i < n && v[i] == x;
}

/* Insert x into a sorted uint32 set. */
static void set_add(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
	size_t lo = bolt_bound(*v, *n, sizeof(**v), 0, sizeof(**v), x, false);

	if (lo < *n && (*v)[lo] == x)
		return;
	GROW(*v, *cap, *n + 1);
	memmove(*v + lo + 1, *v + lo, (*n - lo) * sizeof(**v));
	(*v)[lo] = x;
	(*n)++;
}

void bolt_func_add_entry(struct bolt_func *f, uint32_t offset)
{
	set_add(&f->entries, &f->nr_entries, &f->cap_entries, offset);
}

void bolt_func_add_ext_ref(struct bolt_func *f, uint32_t offset)
{
	set_add(&f->ext_refs, &f->nr_ext_refs, &f->cap_ext_refs, offset);
}

void bolt_func_add_label(struct bolt_func *f, uint32_t offset)
{
	set_add(&f->labels, &f->nr_labels, &f->cap_labels, offset);
}

/* --- lookups ---------------------------------------------------------------- */

const struct bolt_section *bolt_section_at(const struct bolt_binary *b, uint64_t addr)
{
	size_t i;
	for (i = 0; i < b->nr_sections; i++) {
		const struct bolt_section *s = &b->sections[i];
		if (s->alloc && addr >= s->addr && addr - s->addr < s->size)
			return s;
	}
	return NULL;
}

/* Index of the last function starting at or before addr, or -1. */
static long func_index_before(const struct bolt_func *v, size_t n, uint64_t addr)
{
	return (long)BOLT_BOUND(v, n, addr, addr, true) - 1;
}

struct bolt_func *bolt_func_containing(const struct bolt_binary *b, uint64_t addr)
{
	long i = func_index_before(b->funcs, b->nr_funcs, addr);
	if (i < 0 || addr - b->funcs[i].addr >= b->funcs[i].max_size)
		return NULL;
	return &b->funcs[i];
}

struct bolt_func *bolt_func_at(const struct bolt_binary *b, uint64_t addr)
{
	long i = func_index_before(b->funcs, b->nr_funcs, addr);
	return i >= 0 && b->funcs[i].addr == addr ? &b->funcs[i] : NULL;
}


/* --- opening ---------------------------------------------------------------- */

static int map_file(const char *path, int *fd, const uint8_t **map, size_t *len, Elf **elf)
{
	struct stat st;

	if (!file_exists(path))
		return oc_err("binary %s not found", path);
	*fd = open_regular(path);
	if (*fd < 0)
		return -1;
	if (fstat(*fd, &st) != 0 || st.st_size == 0)
		return oc_err("%s: empty or unreadable", path);
	*len = (size_t)st.st_size;
	*map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, *fd, 0);
	if (*map == MAP_FAILED) {
		*map = NULL;
		return oc_err_errno("cannot map %s", path);
	}
	*elf = elf_memory((char *)*map, *len);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF)
		return oc_err("%s: not an ELF file", path);
	return 0;
}

static int read_sections(struct bolt_binary *b)
{
	size_t shstrndx, i = 0;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(b->elf, &shstrndx) != 0 || elf_getshdrnum(b->elf, &b->nr_sections) != 0)
		return oc_err("%s: no section headers", b->path);
	b->sections = xcalloc(b->nr_sections + 1, sizeof(*b->sections));
	while ((scn = elf_nextscn(b->elf, scn))) {
		struct bolt_section *s;
		GElf_Shdr sh;
		const char *name;

		i = elf_ndxscn(scn);
		if (i >= b->nr_sections || !gelf_getshdr(scn, &sh))
			continue;
		s = &b->sections[i];
		name = elf_strptr(b->elf, shstrndx, sh.sh_name);
		s->name = xstrdup(name ? name : "");
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		s->alloc = (sh.sh_flags & SHF_ALLOC) != 0;
		s->text = (sh.sh_flags & SHF_EXECINSTR) != 0;
		s->writable = (sh.sh_flags & SHF_WRITE) != 0;
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset <= b->map_len && sh.sh_size <= b->map_len - sh.sh_offset)
			s->data = b->map + sh.sh_offset;
	}
	for (i = 0; i < b->nr_sections; i++)
		if (!b->sections[i].name)
			b->sections[i].name = xstrdup("");
	return 0;
}

static const struct bolt_section *section_named(const struct bolt_binary *b, const char *name)
{
	size_t i;
	for (i = 0; i < b->nr_sections; i++)
		if (!strcmp(b->sections[i].name, name))
			return &b->sections[i];
	return NULL;
}

/* Bytes of the image at addr (n of them), or NULL. */
static const uint8_t *image_bytes(const struct bolt_binary *b, uint64_t addr, size_t n)
{
	const struct bolt_section *s = bolt_section_at(b, addr);
	if (!s || !s->data || n > s->size - (addr - s->addr))
		return NULL;
	return s->data + (addr - s->addr);
}

/* --- the symbol table ------------------------------------------------------- */

enum sym_kind { SK_UNKNOWN, SK_FUNCTION, SK_DATA, SK_DEBUG, SK_FILE, SK_OTHER };

struct sym {
	const char *name;
	uint64_t addr, size;
	uint32_t index;             /* in the symbol table: the stable-sort tie break */
	uint16_t shndx;
	enum sym_kind kind;
	bool global, undefined, absolute;
	const char *file;           /* the FILE symbol before a local one */
};

static enum sym_kind sym_kind_of(unsigned type)
{
	switch (type) {
	case STT_NOTYPE: return SK_UNKNOWN;
	case STT_SECTION: return SK_DEBUG;
	case STT_FILE: return SK_FILE;
	case STT_FUNC: return SK_FUNCTION;
	case STT_OBJECT: case STT_COMMON: return SK_DATA;
	default: return SK_OTHER;
	}
}

/* BOLT's symbol order: by address; functions first, section symbols last,
 * else as in the table (llvm::stable_sort with CompareSymbols). */
static int sym_rank(const struct sym *s)
{
	return s->kind == SK_FUNCTION ? 0 : s->kind == SK_DEBUG ? 2 : 1;
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (sym_rank(a) != sym_rank(b))
		return sym_rank(a) - sym_rank(b);
	return a->index < b->index ? -1 : a->index > b->index;
}

static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == SHT_SYMTAB)
			return scn;
	return NULL;
}

/* The symbols of the symbols file's .symtab (LLVM's symbols(): none
 * without one), with the FILE name that precedes each local. */
static struct sym *read_symtab(Elf *elf, size_t *nr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(elf, &sh);
	Elf_Data *data;
	struct sym *v;
	const char *file = NULL;
	size_t i, n;

	*nr = 0;
	if (!scn || !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
		return NULL;
	n = sh.sh_size / sh.sh_entsize;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++) {
		GElf_Sym es;
		struct sym *s = &v[*nr];
		const char *name;

		if (!gelf_getsym(data, (int)i, &es))
			continue;
		name = elf_strptr(elf, sh.sh_link, es.st_name);
		s->name = name ? name : "";
		s->addr = es.st_value;
		s->size = es.st_size;
		s->index = (uint32_t)i;
		s->shndx = es.st_shndx;
		s->kind = sym_kind_of(GELF_ST_TYPE(es.st_info));
		s->global = GELF_ST_BIND(es.st_info) != STB_LOCAL;
		s->undefined = es.st_shndx == SHN_UNDEF;
		s->absolute = es.st_shndx == SHN_ABS;
		if (s->kind == SK_FILE && !s->undefined) {
			/* Clang LTO's artificial FILE symbol is not always there */
			if (strcmp(s->name, "ld-temp.o"))
				file = s->name;
			continue;
		}
		if (!s->global && file && *file)
			s->file = file;
		(*nr)++;
	}
	return v;
}

/* --- names: BOLT's NameResolver (local NAME becomes NAME/N) ------------------ */

struct name_counts {
	struct hmap counts;         /* const char * -> unsigned */
	char **keys;                /* the keys' strings, owned */
	size_t nr_keys;
};

static unsigned uniquify_count(struct name_counts *t, char *name)
{
	bool added;
	size_t i = hmap_add(&t->counts, &name, &added);

	if (added) {
		t->keys = xrealloc(t->keys, (t->nr_keys + 1) * sizeof(*t->keys));
		t->keys[t->nr_keys++] = name;
	} else {
		free(name);
	}
	return ++*(unsigned *)hmap_val(&t->counts, i);
}

static void name_counts_free(struct name_counts *t)
{
	size_t i;
	hmap_free(&t->counts);
	for (i = 0; i < t->nr_keys; i++)
		free(t->keys[i]);
	free(t->keys);
}

static const char *own_name(struct bolt_binary *b, char *name)
{
	b->names = xrealloc(b->names, (b->nr_names + 1) * sizeof(*b->names));
	b->names[b->nr_names++] = name;
	return name;
}

/* --- .eh_frame: the FDEs' code ranges and LSDAs --------------------------- */

struct fde {
	uint64_t start, range, lsda;
};

uint64_t bolt_read_uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (*p < end) {
		uint8_t c = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			break;
	}
	return v;
}

static int64_t read_sleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t c = 0;
	while (*p < end) {
		c = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			break;
	}
	if (shift < 64 && (c & 0x40))
		v |= ~0ULL << shift;
	return (int64_t)v;
}

bool bolt_read_encoded(const uint8_t **p, const uint8_t *end, unsigned enc, uint64_t addr, uint64_t *out)
{
	uint64_t v = 0;
	int64_t sv;
	size_t n = 0;

	switch (enc & 0x0f) {
	case 0x00: n = 8; break;            /* absptr */
	case 0x01: sv = (int64_t)bolt_read_uleb(p, end); goto apply;
	case 0x09: sv = read_sleb(p, end); goto apply;
	case 0x02: case 0x0a: n = 2; break; /* udata2, sdata2 */
	case 0x03: case 0x0b: n = 4; break; /* udata4, sdata4 */
	case 0x04: case 0x0c: n = 8; break; /* udata8, sdata8 */
	default: return false;
	}
	if ((size_t)(end - *p) < n)
		return false;
	memcpy(&v, *p, n);
	sv = (enc & 0x08) && n < 8 ? (int64_t)(v << (64 - 8 * n)) >> (64 - 8 * n) : (int64_t)v;
	*p += n;
apply:
	switch (enc & 0x70) {
	case 0x00: *out = (uint64_t)sv; return true;
	case 0x10: *out = addr + (uint64_t)sv; return true;   /* pcrel */
	default: return false;
	}
}

/* The encodings of a CIE: of its FDEs' addresses and of their LSDA pointers
 * (0xff: none). */
static bool read_cie(const uint8_t *cie, const uint8_t *end, uint64_t cie_addr, unsigned *fde_enc,
		     unsigned *lsda_enc)
{
	const uint8_t *c, *cend;
	uint32_t len;
	const char *aug, *a;
	uint8_t version;

	if (end - cie < 9)
		return false;
	memcpy(&len, cie, 4);
	if (len > (size_t)(end - cie) - 4)
		return false;
	cend = cie + 4 + len;
	c = cie + 8;
	version = *c++;
	aug = (const char *)c;
	c += strnlen(aug, (size_t)(cend - c)) + 1;
	bolt_read_uleb(&c, cend);                    /* code alignment */
	read_sleb(&c, cend);                         /* data alignment */
	if (version == 1)
		c++;                                 /* return register */
	else
		bolt_read_uleb(&c, cend);
	*fde_enc = 0;
	*lsda_enc = 0xff;
	if (aug[0] != 'z')
		return true;
	bolt_read_uleb(&c, cend);
	for (a = aug + 1; *a && c < cend; a++) {
		if (*a == 'R') {
			*fde_enc = *c++;
		} else if (*a == 'L') {
			*lsda_enc = *c++;
		} else if (*a == 'P') {
			unsigned penc = *c++;
			uint64_t ignored;
			if (!bolt_read_encoded(&c, cend, penc & 0x7f, cie_addr + (uint64_t)(c - cie), &ignored))
				return false;
		} else if (*a != 'S' && *a != 'B') {
			return false;
		}
	}
	return true;
}

static int cmp_fde(const void *pa, const void *pb)
{
	const struct fde *a = pa, *b = pb;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The FDEs of .eh_frame, sorted by start. */
static struct fde *read_fdes(const struct bolt_binary *b, size_t *nr)
{
	const struct bolt_section *s = section_named(b, ".eh_frame");
	struct fde *v = NULL;
	size_t cap = 0;
	const uint8_t *base, *p, *end;

	*nr = 0;
	if (!s || !s->data)
		return NULL;
	base = p = s->data;
	end = base + s->size;
	while (end - p >= 8) {
		const uint8_t *body, *next;
		uint32_t len, id;
		unsigned enc, lenc;
		struct fde e = { 0 };

		memcpy(&len, p, 4);
		if (len == 0 || len == 0xffffffff || len > (uint64_t)(end - p - 4))
			break;
		body = p + 4;
		next = body + len;
		memcpy(&id, body, 4);
		p = next;
		if (id == 0 || id > (size_t)(body - base) ||
		    !read_cie(body - id, end, s->addr + (uint64_t)(body - id - base), &enc, &lenc))
			continue;
		body += 4;
		if (!bolt_read_encoded(&body, next, enc, s->addr + (uint64_t)(body - base), &e.start) ||
		    !bolt_read_encoded(&body, next, enc & 0x0f, 0, &e.range))
			continue;
		if (lenc != 0xff) {
			const uint8_t *aug;
			uint64_t alen = bolt_read_uleb(&body, next);
			aug = body;
			if (alen && !bolt_read_encoded(&aug, next, lenc, s->addr + (uint64_t)(aug - base), &e.lsda))
				e.lsda = 0;
		}
		GROW(v, cap, *nr + 1);
		v[(*nr)++] = e;
	}
	if (*nr > 1)
		qsort(v, *nr, sizeof(*v), cmp_fde);
	return v;
}

/* --- relocations ------------------------------------------------------------ */

struct dyn_reloc {
	uint64_t offset;
	const char *sym;            /* the symbol's name, NULL without one */
};

static int cmp_dyn(const void *pa, const void *pb)
{
	const struct dyn_reloc *a = pa, *b = pb;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* Dynamic relocations: the allocatable SHT_RELA sections of the image. */
static struct dyn_reloc *read_dyn_relocs(struct bolt_binary *b, size_t *nr)
{
	struct dyn_reloc *v = NULL;
	size_t cap = 0, i;
	Elf_Scn *scn = NULL;

	*nr = 0;
	while ((scn = elf_nextscn(b->elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Shdr symsh;
		Elf_Scn *symscn;
		Elf_Data *symdata;
		size_t k, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		symscn = elf_getscn(b->elf, sh.sh_link);
		symdata = symscn && gelf_getshdr(symscn, &symsh) ? elf_getdata(symscn, NULL) : NULL;
		n = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < n; k++) {
			GElf_Rela r;
			GElf_Sym es;
			const char *name = NULL;

			if (!gelf_getrela(data, (int)k, &r) || GELF_R_TYPE(r.r_info) == R_X86_64_NONE)
				continue;
			if (GELF_R_SYM(r.r_info) && symdata &&
			    gelf_getsym(symdata, (int)GELF_R_SYM(r.r_info), &es))
				name = elf_strptr(b->elf, symsh.sh_link, es.st_name);
			GROW(v, cap, *nr + 1);
			v[(*nr)++] = (struct dyn_reloc){ r.r_offset, name && *name ? name : NULL };
		}
	}
	if (*nr > 1)
		qsort(v, *nr, sizeof(*v), cmp_dyn);
	b->dyn_relocs = xcalloc(*nr + 1, sizeof(*b->dyn_relocs));
	for (i = 0; i < *nr; i++)
		b->dyn_relocs[i] = v[i].offset;
	b->nr_dyn_relocs = sort_unique_u64(b->dyn_relocs, *nr);
	return v;
}

static const struct dyn_reloc *dyn_reloc_at(const struct dyn_reloc *v, size_t n, uint64_t addr)
{
	size_t i = BOLT_BOUND(v, n, offset, addr, false);
	return i < n && v[i].offset == addr ? &v[i] : NULL;
}

/* --- discovery -------------------------------------------------------------- */

struct discovery {
	struct bolt_binary *b;
	struct sym *syms;
	size_t nr_syms;
	struct fde *fdes;
	size_t nr_fdes;
	/* FileSymRefs: the last symbol seen at each address, sorted by address
	 * (sym NULL: erased) */
	struct ref { uint64_t addr; const struct sym *sym; } *refs;
	size_t nr_refs;
	size_t cap_funcs;
};

static struct bolt_func *add_func(struct discovery *d, const char *name, uint64_t addr, uint64_t size,
				  uint32_t section)
{
	struct bolt_binary *b = d->b;
	struct bolt_func *f;

	GROW(b->funcs, d->cap_funcs, b->nr_funcs + 1);
	f = &b->funcs[b->nr_funcs++];
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->addr = addr;
	f->size = f->max_size = size;
	f->section = section;
	f->simple = true;
	return f;
}

/* The function at addr among those made so far (they come in address order,
 * except the PLT's and the FDEs', which are sorted in later). */
static struct bolt_func *made_func_at(struct discovery *d, uint64_t addr)
{
	size_t i;
	for (i = d->b->nr_funcs; i-- > 0;)
		if (d->b->funcs[i].addr == addr)
			return &d->b->funcs[i];
	return NULL;
}

static long section_index_at(const struct bolt_binary *b, uint64_t addr)
{
	const struct bolt_section *s = bolt_section_at(b, addr);
	return s ? s - b->sections : -1;
}

/* BinaryFunction::isSymbolValidInScope */
static bool valid_in_scope(const struct bolt_binary *b, const struct bolt_func *f, const struct sym *s)
{
	const struct bolt_section *sec = &b->sections[f->section];
	if (!(s->addr >= sec->addr && s->addr < sec->addr + sec->size))
		return false;
	if (s->size == 0 && bolt_func_contains(f, s->addr))
		return true;
	if (s->kind != SK_UNKNOWN || s->global)
		return false;
	return true;
}

static void discover_symbols(struct discovery *d)
{
	struct bolt_binary *b = d->b;
	struct name_counts nr = { 0 };
	struct bolt_func *prev = NULL;
	unsigned anonymous = 0;

	hmap_init(&nr.counts, sizeof(char *), sizeof(unsigned), &hmap_str_ops);
	size_t i;

	for (i = 0; i < d->nr_syms; i++) {
		const struct sym *s = &d->syms[i];
		struct bolt_func *f;
		const struct bolt_section *sec;
		uint64_t size = s->size;
		bool simple = true;
		char *unique;
		long si;

		if (s->addr == 0)
			continue;
		if (!strcmp(s->name, "__hot_start") || !strcmp(s->name, "__hot_end"))
			continue;
		/* FileSymRefs[Address] = Symbol */
		if (!d->nr_refs || d->refs[d->nr_refs - 1].addr != s->addr)
			d->refs[d->nr_refs++].addr = s->addr;
		d->refs[d->nr_refs - 1].sym = s;
		sec = s->absolute ? NULL : bolt_section_at(b, s->addr);
		if (s->kind == SK_DEBUG && sec &&
		    (!strcmp(sec->name, ".plt") || !strcmp(sec->name, ".plt.sec") ||
		     !strcmp(sec->name, ".plt.got") || !strcmp(sec->name, ".iplt")))
			continue;
		if (!*s->name) {
			unique = xasprintf("ANONYMOUS.%u", anonymous++);
		} else if (s->global) {
			unique = xstrdup(s->name);
		} else {
			const char *pg = str_starts_with(s->name, ".L") ? "PG" : "";
			unique = xasprintf("%s%s", pg, s->name);
			if (s->kind == SK_FUNCTION && s->file)
				uniquify_count(&nr, xasprintf("%s/%s", unique, s->file));
			{
				char *u = xasprintf("%s/%u", unique, uniquify_count(&nr, xstrdup(unique)));
				free(unique);
				unique = u;
			}
		}
		si = s->absolute ? -1 : (long)s->shndx;
		if (si < 0 || (size_t)si >= b->nr_sections || !b->sections[si].alloc) {
			free(unique);
			continue;
		}
		sec = &b->sections[si];
		if (s->addr == sec->addr + sec->size || !sec->text) {
			free(unique);
			continue;
		}
		if (prev && s->kind != SK_FUNCTION) {
			if (bolt_func_contains(prev, s->addr) ||
			    (prev->size == 0 && valid_in_scope(b, prev, s))) {
				free(unique);
				continue;
			}
		}
		if (prev && bolt_func_contains(prev, s->addr) && prev->addr != s->addr) {
			/* another entry, or a local label of the previous function */
			if (!valid_in_scope(b, prev, s)) {
				bolt_func_add_entry(prev, (uint32_t)(s->addr - prev->addr));
				d->refs[d->nr_refs - 1].sym = NULL;   /* erased from FileSymRefs */
			}
			free(unique);
			continue;
		}
		/* conflicts with the FDEs */
		{
			size_t lo = BOLT_BOUND(d->fdes, d->nr_fdes, start, s->addr, false);
			if (lo < d->nr_fdes) {
				if (d->fdes[lo].start != s->addr) {
					if (lo > 0 && s->addr > d->fdes[lo - 1].start &&
					    s->addr < d->fdes[lo - 1].start + d->fdes[lo - 1].range)
						simple = false;
				} else if (d->fdes[lo].range != size) {
					if (d->fdes[lo].range > size)
						size = d->fdes[lo].range;
				}
			}
		}
		f = made_func_at(d, s->addr);
		if (f) {
			if (size > f->size)
				f->size = f->max_size = size;
			free(unique);
		} else {
			if (!sec->size) {
				free(unique);
				continue;
			}
			f = add_func(d, own_name(b, unique), s->addr, size, (uint32_t)si);
			f->simple = simple;
		}
		if (strstr(s->name, ".cold"))
			f->fragment = true;
		prev = f;
	}
	name_counts_free(&nr);
}

/* PLT entries become functions NAME@PLT (disassemblePLTSectionX86). */
static void discover_plt(struct discovery *d, const struct dyn_reloc *dyn, size_t nr_dyn)
{
	static const struct { const char *name; uint64_t entry; } plts[] = {
		{ ".plt", 16 }, { ".plt.sec", 8 }, { ".plt.got", 8 }, { ".iplt", 16 },
	};
	struct bolt_binary *b = d->b;
	size_t k;

	for (k = 0; k < ARRAY_SIZE(plts); k++) {
		const struct bolt_section *sec = section_named(b, plts[k].name);
		uint64_t entry = plts[k].entry, off;
		uint32_t si;

		if (!sec || !sec->data || !sec->alloc)
			continue;
		si = (uint32_t)(sec - b->sections);
		for (off = 0; off + entry <= sec->size; off += entry) {
			uint64_t got;
			const struct dyn_reloc *r;
			struct bolt_func *f;

			if (!bolt_plt_target(b, sec->data + off, (size_t)(sec->size - off), sec->addr + off, &entry,
					     off == 0, &got))
				continue;
			r = dyn_reloc_at(dyn, nr_dyn, got);
			if (!r || !r->sym)
				continue;
			f = made_func_at(d, sec->addr + off);
			if (!f) {
				f = add_func(d, own_name(b, xasprintf("%s@PLT", r->sym)), sec->addr + off, 0, si);
				f->max_size = entry;
				f->plt = true;
			}
		}
		if (!made_func_at(d, sec->addr)) {
			struct bolt_func *f = add_func(d, own_name(b, xasprintf("__BOLT_PSEUDO_%s", sec->name)),
						       sec->addr, 0, si);
			f->plt = true;
			f->ignored = true;
		} else {
			made_func_at(d, sec->addr)->ignored = true;   /* pseudo */
		}
	}
}

static int cmp_func(const void *pa, const void *pb)
{
	const struct bolt_func *a = pa, *b = pb;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Functions for FDEs that no symbol named. */
static void discover_fdes(struct discovery *d)
{
	struct bolt_binary *b = d->b;
	size_t i;

	if (b->nr_funcs > 1)
		qsort(b->funcs, b->nr_funcs, sizeof(*b->funcs), cmp_func);
	for (i = 0; i < d->nr_fdes; i++) {
		const struct fde *e = &d->fdes[i];
		long si;
		if (bolt_func_at(b, e->start))
			continue;
		{
			long j = func_index_before(b->funcs, b->nr_funcs, e->start);
			if (j >= 0 && bolt_func_contains(&b->funcs[j], e->start))
				continue;
		}
		si = section_index_at(b, e->start);
		if (si < 0)
			continue;
		add_func(d, own_name(b, xasprintf("__BOLT_FDE_FUNCat%llx", (unsigned long long)e->start)),
			 e->start, e->range, (uint32_t)si);
		qsort(b->funcs, b->nr_funcs, sizeof(*b->funcs), cmp_func);
	}
}

static const struct sym *next_ref(const struct discovery *d, size_t *i)
{
	while (*i < d->nr_refs && !d->refs[*i].sym)
		(*i)++;
	return *i < d->nr_refs ? d->refs[*i].sym : NULL;
}

/* adjustFunctionBoundaries: a function runs at most to the next symbol,
 * function or the end of its section. */
static void adjust_boundaries(struct discovery *d)
{
	struct bolt_binary *b = d->b;
	size_t i, r = 0;

	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		const struct bolt_func *next = i + 1 < b->nr_funcs ? &b->funcs[i + 1] : NULL;
		const struct bolt_section *sec = &b->sections[f->section];
		const struct sym *s;
		uint64_t end;

		while (r < d->nr_refs && d->refs[r].addr <= f->addr)
			r++;
		{
			size_t k = r;
			while ((s = next_ref(d, &k))) {
				if (next && s->addr >= next->addr)
					break;
				if (!valid_in_scope(b, f, s))
					break;
				bolt_func_add_entry(f, (uint32_t)(s->addr - f->addr));
				k++;
			}
			end = sec->addr + sec->size;
			if (s && s->addr < end)
				end = s->addr;
		}
		if (next && next->addr < end)
			end = next->addr;
		if (end - f->addr < f->size) {
			f->simple = false;
			f->max_size = f->size;
			continue;
		}
		f->max_size = end - f->addr;
		if (!f->size && f->simple)
			f->size = f->max_size;
	}
}

/* registerFragments: NAME.cold[.N][/ID] belongs to NAME[/ID]. */
static void register_fragments(struct bolt_binary *b)
{
	size_t i, j;

	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		const char *cold, *slash;
		char *parent;
		long p = -1;

		if (!f->fragment)
			continue;
		cold = strstr(f->name, ".cold");
		slash = strchr(f->name, '/');
		if (!cold || (slash && slash < cold))
			continue;
		parent = xstrndup(f->name, (size_t)(cold - f->name));
		/* for a local NAME.cold/ID prefer the local NAME/ID over a global NAME */
		for (j = 0; j < b->nr_funcs && slash; j++) {
			char *local = xasprintf("%s%s", parent, slash);
			bool hit = !strcmp(b->funcs[j].name, local);
			free(local);
			if (hit) {
				p = (long)j;
				break;
			}
		}
		for (j = 0; j < b->nr_funcs && p < 0; j++)
			if (!strcmp(b->funcs[j].name, parent))
				p = (long)j;
		free(parent);
		if (p < 0)
			continue;
		f->parents = xrealloc(f->parents, (f->nr_parents + 1) * sizeof(*f->parents));
		f->parents[f->nr_parents++] = (uint32_t)p;
		if (!b->relocs) {
			f->simple = false;
			b->funcs[p].simple = false;
		}
	}
}

/* --- static relocations (relocation mode) -------------------------------------- */

enum {
	R_NONE = 0, R_64 = 1, R_PC32 = 2, R_GOT32 = 3, R_PLT32 = 4, R_GOTPCREL = 9, R_32 = 10,
	R_32S = 11, R_16 = 12, R_PC16 = 13, R_8 = 14, R_PC8 = 15, R_PC64 = 24, R_GOTPC32 = 26,
	R_GOT64 = 27, R_GOTPCREL64 = 28, R_GOTPC64 = 29, R_GOTPCRELX = 41, R_REX_GOTPCRELX = 42,
};

static bool reloc_tls(unsigned t)
{
	return (t >= 16 && t <= 23) || (t >= 34 && t <= 36);
}

static bool reloc_pcrel(unsigned t)
{
	return t == R_PC32 || t == R_PLT32 || t == R_GOTPCREL || t == R_PC16 || t == R_PC8 || t == R_PC64 ||
	       t == R_GOTPC32 || t == R_GOTPCREL64 || t == R_GOTPC64 || t == R_GOTPCRELX || t == R_REX_GOTPCRELX;
}

static bool reloc_got(unsigned t)
{
	return t == R_GOT32 || t == R_GOTPCREL || t == R_GOTPC32 || t == R_GOT64 || t == R_GOTPCREL64 ||
	       t == R_GOTPC64 || t == R_GOTPCRELX || t == R_REX_GOTPCRELX;
}

static size_t reloc_size(unsigned t)
{
	switch (t) {
	case R_64: case R_PC64: case R_GOT64: case R_GOTPCREL64: case R_GOTPC64: return 8;
	case R_16: case R_PC16: return 2;
	case R_8: case R_PC8: return 1;
	default: return 4;
	}
}

static const struct bolt_section *image_section(const struct bolt_binary *b, Elf *elf, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	size_t shstrndx;
	GElf_Shdr sh;
	const char *name;

	if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name ? section_named(b, name) : NULL;
}

/* The function of the symbol size holding addr ([start, start + size], with
 * the end when past_end), or NULL. */
static struct bolt_func *func_sized(const struct bolt_binary *b, uint64_t addr, bool past_end)
{
	long i = func_index_before(b->funcs, b->nr_funcs, addr);
	if (i < 0 || addr - b->funcs[i].addr >= b->funcs[i].size + past_end)
		return NULL;
	return &b->funcs[i];
}

static void add_code_ref(struct bolt_func *f, uint64_t at, bool pcrel, uint64_t value)
{
	GROW(f->code_refs, f->cap_code_refs, f->nr_code_refs + 1);
	f->code_refs[f->nr_code_refs++] = (struct bolt_code_ref){ (uint32_t)(at - f->addr), pcrel, value };
}

struct reloc_sets {
	uint64_t *abs, *pcrel;
	size_t nr_abs, nr_pcrel, cap_abs, cap_pcrel;
};

/* RewriteInstance::handleRelocation, for what it tells of code. */
static void handle_reloc(struct bolt_binary *b, struct reloc_sets *rs, const struct bolt_section *target,
			 const GElf_Rela *r, Elf *elf, Elf_Data *symdata, size_t strndx)
{
	unsigned type = (unsigned)GELF_R_TYPE(r->r_info);
	bool from_code = target->text, pcrel = reloc_pcrel(type), section_sym = false, named_global = false;
	struct bolt_func *in = NULL, *ref;
	const struct bolt_section *refsec = NULL;
	uint64_t sym_addr = 0, value = 0, address;
	int64_t addend = r->r_addend;
	size_t rsize = reloc_size(type);
	const uint8_t *p;
	GElf_Sym es;

	if (type == R_NONE || reloc_tls(type) || bolt_sorted_has(b->dyn_relocs, b->nr_dyn_relocs, r->r_offset))
		return;
	if (from_code) {
		in = bolt_func_containing(b, r->r_offset);
		if (!in)
			return;
		if (!bolt_func_contains(in, r->r_offset)) {
			in->size = in->max_size;   /* relocations in its padding */
			in->simple = false;
			return;
		}
	}
	p = image_bytes(b, r->r_offset, rsize);
	if (p) {
		memcpy(&value, p, rsize);
		if (rsize < 8 && (pcrel || type == R_32S))
			value = (uint64_t)((int64_t)(value << (64 - 8 * rsize)) >> (64 - 8 * rsize));
	}
	if (GELF_R_SYM(r->r_info) && symdata && gelf_getsym(symdata, (int)GELF_R_SYM(r->r_info), &es)) {
		const char *name = elf_strptr(elf, strndx, es.st_name);
		sym_addr = es.st_value;
		section_sym = GELF_ST_TYPE(es.st_info) == STT_SECTION;
		named_global = !section_sym && GELF_ST_BIND(es.st_info) != STB_LOCAL && name && *name;
		if (name && !strcmp(name, "_end"))
			return;   /* forced relocation: BOLT keeps it symbolic */
		if (es.st_shndx != SHN_UNDEF && es.st_shndx < SHN_LORESERVE)
			refsec = image_section(b, elf, es.st_shndx);
		if (section_sym) {
			const struct bolt_section *s = bolt_section_at(b, sym_addr);
			uint64_t pc_off = pcrel ? r->r_offset : 0;
			if (s && value >= s->addr && value < s->addr + s->size && !pcrel) {
				sym_addr = value;
				addend = 0;
			} else {
				addend = (int64_t)(value - (sym_addr - pc_off));
			}
		}
	} else {
		sym_addr = value - (uint64_t)addend + (pcrel ? r->r_offset : 0);
	}
	if (reloc_got(type)) {
		addend = 0;
		sym_addr = value + (pcrel ? r->r_offset : 0);
	}
	address = sym_addr + (uint64_t)addend;
	if (!refsec)
		refsec = bolt_section_at(b, sym_addr);
	if (pcrel) {
		if (!from_code && refsec && refsec->text) {
			GROW(rs->pcrel, rs->cap_pcrel, rs->nr_pcrel + 1);
			rs->pcrel[rs->nr_pcrel++] = r->r_offset;
		} else if (in && named_global) {
			add_code_ref(in, r->r_offset, true, value - (uint64_t)addend + r->r_offset);
		}
		return;
	}
	if (!refsec)
		return;
	ref = func_sized(b, address, true);
	if (!section_sym) {
		struct bolt_func *bf = func_sized(b, sym_addr, false);
		if (bf && bf != ref)
			ref = bf;
	} else if (ref && &b->sections[ref->section] != refsec) {
		ref = NULL;
	}
	if (ref && address - ref->addr < ref->max_size && address >= ref->addr) {
		uint32_t off = (uint32_t)(address - ref->addr);
		if (off) {
			if (in && in != ref) {
				bolt_func_add_entry(ref, off);
			} else {
				bolt_func_add_label(ref, off);
				if (!in)
					bolt_func_add_ext_ref(ref, off);
			}
		}
		if (in)
			add_code_ref(in, r->r_offset, false, address);
	}
	if (!in && refsec->text) {
		GROW(rs->abs, rs->cap_abs, rs->nr_abs + 1);
		rs->abs[rs->nr_abs++] = r->r_offset;
	}
}

static void process_relocations(struct bolt_binary *b, Elf *elf)
{
	static const char *const skip[] = { ".plt", ".rela.plt", ".got.plt", ".eh_frame", ".gcc_except_table" };
	struct reloc_sets rs = { 0 };
	Elf_Scn *scn = NULL;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		const struct bolt_section *target;
		GElf_Shdr sh, tsh, symsh;
		Elf_Scn *tscn, *symscn;
		Elf_Data *data, *symdata = NULL;
		size_t k, n, shstrndx;
		const char *tname;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || (sh.sh_flags & SHF_ALLOC) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		tscn = elf_getscn(elf, sh.sh_info);
		if (!tscn || !gelf_getshdr(tscn, &tsh) || !(tsh.sh_flags & SHF_ALLOC) ||
		    elf_getshdrstrndx(elf, &shstrndx) != 0)
			continue;
		tname = elf_strptr(elf, shstrndx, tsh.sh_name);
		for (k = 0; tname && k < ARRAY_SIZE(skip); k++)
			if (!strcmp(tname, skip[k]))
				tname = NULL;
		if (!tname || !(target = section_named(b, tname)))
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		if (symscn && gelf_getshdr(symscn, &symsh))
			symdata = elf_getdata(symscn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (k = 0; k < n; k++) {
			GElf_Rela r;
			if (gelf_getrela(data, (int)k, &r))
				handle_reloc(b, &rs, target, &r, elf, symdata, symdata ? symsh.sh_link : 0);
		}
	}
	b->data_abs = rs.abs;
	b->nr_data_abs = sort_unique_u64(rs.abs, rs.nr_abs);
	b->data_pcrel = rs.pcrel;
	b->nr_data_pcrel = sort_unique_u64(rs.pcrel, rs.nr_pcrel);
	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		size_t x, y;
		for (x = 1; x < f->nr_code_refs; x++)
			for (y = x; y > 0 && f->code_refs[y - 1].off > f->code_refs[y].off; y--) {
				struct bolt_code_ref t = f->code_refs[y];
				f->code_refs[y] = f->code_refs[y - 1];
				f->code_refs[y - 1] = t;
			}
	}
}

/* --- open and close ------------------------------------------------------------- */

static bool has_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name))
			return true;
	}
	return false;
}

static int discover(struct bolt_binary *b, Elf *symelf)
{
	struct discovery d = { .b = b };
	struct sym *all;
	struct dyn_reloc *dyn;
	size_t nr_all, nr_dyn, i;

	all = read_symtab(symelf, &nr_all);
	if (!nr_all) {
		free(all);
		return oc_err("%s: no symbol table (.symtab): give the unstripped binary or its debug file",
			      b->path);
	}
	for (i = 0; i < nr_all; i++)
		if (str_starts_with(all[i].name, "__asan_init") ||
		    str_starts_with(all[i].name, "__llvm_coverage_mapping")) {
			/* llvm-bolt refuses such files: a profile of one serves nothing */
			oc_err("%s was built with %s support (%s): BOLT cannot optimize it", b->path,
			       all[i].name[2] == 'a' ? "sanitizer" : "coverage", all[i].name);
			free(all);
			return -1;
		}
	d.syms = xcalloc(nr_all + 1, sizeof(*d.syms));
	for (i = 0; i < nr_all; i++) {
		struct sym *s = &all[i];
		const struct bolt_section *sec;
		if (s->undefined)
			continue;
		if (!s->absolute) {
			/* a debug file numbers the sections as the unstripped binary */
			sec = s->shndx < SHN_LORESERVE ? image_section(b, symelf, s->shndx) : NULL;
			if (!sec || !sec->alloc)
				continue;
			s->shndx = (uint16_t)(sec - b->sections);
		}
		d.syms[d.nr_syms++] = *s;
	}
	if (d.nr_syms > 1)
		qsort(d.syms, d.nr_syms, sizeof(*d.syms), cmp_sym);
	d.refs = xcalloc(d.nr_syms + 1, sizeof(*d.refs));
	d.fdes = read_fdes(b, &d.nr_fdes);
	discover_symbols(&d);
	dyn = read_dyn_relocs(b, &nr_dyn);
	discover_plt(&d, dyn, nr_dyn);
	discover_fdes(&d);
	for (i = 0; i < b->nr_funcs; i++) {
		struct fde key = { .start = b->funcs[i].addr };
		const struct fde *e = d.nr_fdes ? bsearch(&key, d.fdes, d.nr_fdes, sizeof(*d.fdes), cmp_fde) : NULL;
		if (e)
			b->funcs[i].lsda = e->lsda;
	}
	adjust_boundaries(&d);
	if (b->relocs)
		process_relocations(b, symelf);
	register_fragments(b);
	free(dyn);
	free(d.fdes);
	free(d.refs);
	free(d.syms);
	free(all);
	return 0;
}

struct bolt_binary *bolt_binary_open(const char *path, const char *symbols)
{
	struct bolt_binary *b = xcalloc(1, sizeof(*b));
	GElf_Ehdr eh;
	Elf *symelf;

	elf_version(EV_CURRENT);
	b->path = xstrdup(path);
	b->fd = b->sym_fd = -1;
	if (map_file(path, &b->fd, &b->map, &b->map_len, &b->elf) != 0)
		goto fail;
	if (!gelf_getehdr(b->elf, &eh) || eh.e_machine != EM_X86_64 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		oc_err("%s: not an x86-64 ELF file (BOLT profiles are made for x86-64 here)", path);
		goto fail;
	}
	b->build_id_len = sym_elf_build_id(b->elf, b->build_id);
	if (read_sections(b) != 0)
		goto fail;
	symelf = b->elf;
	if (symbols) {
		if (map_file(symbols, &b->sym_fd, &b->sym_map, &b->sym_map_len, &b->sym_elf) != 0)
			goto fail;
		symelf = b->sym_elf;
	}
	b->relocs = has_section(symelf, ".rela.text");
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &b->cs) != CS_ERR_OK) {
		oc_err("capstone cannot decode x86-64 (install libcapstone4)");
		goto fail;
	}
	cs_option(b->cs, CS_OPT_DETAIL, CS_OPT_ON);
	b->cs_insn = cs_malloc(b->cs);
	if (discover(b, symelf) != 0)
		goto fail;
	return b;
fail:
	bolt_binary_close(b);
	return NULL;
}

void bolt_binary_close(struct bolt_binary *b)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < b->nr_funcs; i++) {
		struct bolt_func *f = &b->funcs[i];
		free(f->parents);
		free(f->entries);
		free(f->ext_refs);
		free(f->labels);
		free(f->code_refs);
		free(f->blocks);
	}
	free(b->funcs);
	for (i = 0; i < b->nr_names; i++)
		free(b->names[i]);
	free(b->names);
	for (i = 0; i < b->nr_sections; i++)
		free(b->sections[i].name);
	free(b->sections);
	free(b->dyn_relocs);
	free(b->data_abs);
	free(b->data_pcrel);
	if (b->cs_insn)
		cs_free(b->cs_insn, 1);
	if (b->cs)
		cs_close(&b->cs);
	if (b->elf)
		elf_end(b->elf);
	if (b->sym_elf)
		elf_end(b->sym_elf);
	if (b->map)
		munmap((void *)b->map, b->map_len);
	if (b->sym_map)
		munmap((void *)b->sym_map, b->sym_map_len);
	if (b->fd >= 0)
		close(b->fd);
	if (b->sym_fd >= 0)
		close(b->sym_fd);
	free(b->path);
	free(b);
}
