/* debuginfo.c — DWARF lines and inline chains with libdw.
 *
 * Everything is read once at di_open(): one address-sorted table of all
 * line-table rows, and one flat map from address ranges to the innermost
 * subprogram/inlined-subroutine node (the scope tree flattened). A lookup is
 * then two binary searches and a walk up the node parents, which matters
 * because AutoFDO symbolizes every instruction of every sampled range.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/debuginfo.h"
#include "util/util.h"

/* gcc writes the call-site discriminator of an inlined call here (not in dwarf.h) */
#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

struct di_row {
	uint64_t addr;
	const char *file;
	unsigned line, column, discriminator;
	bool end_sequence;
	uint32_t order;          /* position in its line program: last row at an address wins */
};

/* A subprogram or inlined subroutine. */
struct di_node {
	const char *name, *linkage_name;
	unsigned decl_line;
	/* where this node was inlined into its parent (inlined subroutines only) */
	const char *call_file;
	unsigned call_line, call_column, call_discriminator;
	int parent;              /* index of the enclosing node, -1 for a subprogram */
	unsigned depth;
	/* subprograms: entry address and their ranges in debuginfo.franges */
	uint64_t entry;
	uint32_t first_range, nr_ranges;
};

/* A code range of a top-level function, or a function entry (lo only). */
struct di_func_index {
	uint64_t lo, hi;
	int node;
};

struct di_interval {
	uint64_t lo, hi;
	int node;
};

/* From start up to the next segment's start, node is the innermost scope (-1: none). */
struct di_segment {
	uint64_t start;
	int node;
};

struct debuginfo {
	int fd;
	Elf *elf;
	Dwarf *dwarf;
	struct di_row *rows;
	size_t nr_rows, cap_rows;
	struct di_node *nodes;
	size_t nr_nodes, cap_nodes;
	struct di_interval *ivs;
	size_t nr_ivs, cap_ivs;
	struct di_segment *segs;
	size_t nr_segs, cap_segs;
	struct di_range *franges;        /* subprogram ranges, grouped by node */
	size_t nr_franges, cap_franges;
	struct di_func_index *by_addr;   /* franges sorted by lo */
	struct di_func_index *by_entry;  /* subprograms sorted by entry */
	size_t nr_entries;
	const char *producer;
};

static const char *die_string(Dwarf_Die *die, unsigned attr)
{
	Dwarf_Attribute a;
	if (!dwarf_attr_integrate(die, attr, &a))
		return NULL;
	return dwarf_formstring(&a);
}

static unsigned die_udata(Dwarf_Die *die, unsigned attr)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(die, attr, &a) || dwarf_formudata(&a, &w) != 0)
		return 0;
	return (unsigned)w;
}

static void add_cu_lines(struct debuginfo *di, Dwarf_Die *cudie)
{
	Dwarf_Lines *lines;
	size_t n, i;

	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return;
	GROW(di->rows, di->cap_rows, di->nr_rows + n);
	for (i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct di_row *r = &di->rows[di->nr_rows];
		Dwarf_Addr addr;
		int line = 0, col = 0;
		unsigned disc = 0;
		bool end = false;

		if (!l || dwarf_lineaddr(l, &addr) != 0)
			continue;
		dwarf_lineno(l, &line);
		dwarf_linecol(l, &col);
		dwarf_linediscriminator(l, &disc);
		dwarf_lineendsequence(l, &end);
		r->addr = addr;
		r->file = dwarf_linesrc(l, NULL, NULL);
		r->line = line > 0 ? (unsigned)line : 0;
		r->column = col > 0 ? (unsigned)col : 0;
		r->discriminator = disc;
		r->end_sequence = end;
		r->order = (uint32_t)di->nr_rows;
		di->nr_rows++;
	}
}

static int add_node(struct debuginfo *di, Dwarf_Die *die, Dwarf_Files *files, size_t nfiles,
		    int parent)
{
	struct di_node *nd;
	int decl = 0;

	GROW(di->nodes, di->cap_nodes, di->nr_nodes + 1);
	nd = &di->nodes[di->nr_nodes];
	memset(nd, 0, sizeof(*nd));
	nd->name = die_string(die, DW_AT_name);
	nd->linkage_name = die_string(die, DW_AT_linkage_name);
	if (!nd->linkage_name)
		nd->linkage_name = die_string(die, DW_AT_MIPS_linkage_name);
	if (!nd->name)
		nd->name = nd->linkage_name ? nd->linkage_name : "??";
	if (!nd->linkage_name)
		nd->linkage_name = nd->name;
	if (dwarf_decl_line(die, &decl) == 0 && decl > 0)
		nd->decl_line = (unsigned)decl;
	nd->parent = parent;
	nd->depth = parent >= 0 ? di->nodes[parent].depth + 1 : 0;
	if (dwarf_tag(die) == DW_TAG_inlined_subroutine) {
		Dwarf_Attribute a;
		Dwarf_Word fidx;
		if (files && dwarf_attr(die, DW_AT_call_file, &a) && dwarf_formudata(&a, &fidx) == 0 &&
		    fidx < nfiles)
			nd->call_file = dwarf_filesrc(files, fidx, NULL, NULL);
		nd->call_line = die_udata(die, DW_AT_call_line);
		nd->call_column = die_udata(die, DW_AT_call_column);
		nd->call_discriminator = die_udata(die, DW_AT_GNU_discriminator);
	}
	return (int)di->nr_nodes++;
}

static void add_ranges(struct debuginfo *di, Dwarf_Die *die, int node)
{
	struct di_node *nd = &di->nodes[node];
	Dwarf_Addr base, lo, hi, entry;
	ptrdiff_t off = 0;

	nd->first_range = (uint32_t)di->nr_franges;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		GROW(di->ivs, di->cap_ivs, di->nr_ivs + 1);
		di->ivs[di->nr_ivs++] = (struct di_interval){ lo, hi, node };
		if (nd->parent < 0) {
			GROW(di->franges, di->cap_franges, di->nr_franges + 1);
			di->franges[di->nr_franges++] = (struct di_range){ lo, hi };
		}
	}
	nd->nr_ranges = (uint32_t)di->nr_franges - nd->first_range;
	if (nd->parent < 0 && nd->nr_ranges) {
		if (dwarf_entrypc(die, &entry) == 0)
			nd->entry = entry;
		else
			nd->entry = di->franges[nd->first_range].lo;
	}
}

/* Walk the DIE tree below die, recording functions and inlined calls. */
static void walk_scopes(struct debuginfo *di, Dwarf_Die *die, Dwarf_Files *files, size_t nfiles,
			int parent, unsigned level)
{
	Dwarf_Die child;

	if (level > 256 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child), node = parent;

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			/* a declaration or abstract instance has no code */
			if (!dwarf_hasattr(&child, DW_AT_low_pc) && !dwarf_hasattr(&child, DW_AT_ranges)) {
				if (tag == DW_TAG_subprogram)
					continue;
			}
			node = add_node(di, &child, files, nfiles, tag == DW_TAG_subprogram ? -1 : parent);
			add_ranges(di, &child, node);
		}
		if (dwarf_haschildren(&child))
			walk_scopes(di, &child, files, nfiles, node, level + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_row(const void *a, const void *b)
{
	const struct di_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* an end of sequence gives way to a sequence starting at the same address */
	if (x->end_sequence != y->end_sequence)
		return x->end_sequence ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_func_index(const void *a, const void *b)
{
	const struct di_func_index *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->node - y->node;
}

static void build_function_index(struct debuginfo *di)
{
	size_t i, n = 0;
	uint32_t r;

	di->by_addr = xcalloc(di->nr_franges + 1, sizeof(*di->by_addr));
	di->by_entry = xcalloc(di->nr_nodes + 1, sizeof(*di->by_entry));
	for (i = 0; i < di->nr_nodes; i++) {
		const struct di_node *nd = &di->nodes[i];
		if (nd->parent >= 0 || !nd->nr_ranges)
			continue;
		for (r = 0; r < nd->nr_ranges; r++) {
			const struct di_range *fr = &di->franges[nd->first_range + r];
			di->by_addr[n++] = (struct di_func_index){ fr->lo, fr->hi, (int)i };
		}
		di->by_entry[di->nr_entries++] = (struct di_func_index){ nd->entry, nd->entry, (int)i };
	}
	sort_items(di->by_addr, n, sizeof(*di->by_addr), cmp_func_index);
	sort_items(di->by_entry, di->nr_entries, sizeof(*di->by_entry), cmp_func_index);
}

static int cmp_interval(const void *a, const void *b, void *ctx)
{
	const struct debuginfo *di = ctx;
	const struct di_interval *x = a, *y = b;
	unsigned dx = di->nodes[x->node].depth, dy = di->nodes[y->node].depth;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (dx != dy)
		return dx < dy ? -1 : 1;     /* outer scope first */
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1;
	return x->node - y->node;
}

static void emit_segment(struct debuginfo *di, uint64_t start, int node)
{
	if (di->nr_segs && di->segs[di->nr_segs - 1].start == start) {
		di->segs[di->nr_segs - 1].node = node;
		return;
	}
	GROW(di->segs, di->cap_segs, di->nr_segs + 1);
	di->segs[di->nr_segs++] = (struct di_segment){ start, node };
}

/* Drop segments that continue the previous one's node. */
static void merge_segments(struct debuginfo *di)
{
	size_t i, n = 0;
	for (i = 0; i < di->nr_segs; i++)
		if (!n || di->segs[n - 1].node != di->segs[i].node)
			di->segs[n++] = di->segs[i];
	di->nr_segs = n;
}

/* Flatten properly nested intervals into innermost-scope segments. */
static void build_segments(struct debuginfo *di)
{
	struct di_interval **stack = NULL;
	size_t depth = 0, cap = 0, i;

	sort_items_r(di->ivs, di->nr_ivs, sizeof(*di->ivs), cmp_interval, di);
	for (i = 0; i < di->nr_ivs; i++) {
		struct di_interval *iv = &di->ivs[i];
		while (depth && stack[depth - 1]->hi <= iv->lo) {
			uint64_t end = stack[--depth]->hi;
			/* close every scope that ended before this one starts */
			while (depth && stack[depth - 1]->hi <= end)
				depth--;
			emit_segment(di, end, depth ? stack[depth - 1]->node : -1);
		}
		emit_segment(di, iv->lo, iv->node);
		GROW(stack, cap, depth + 1);
		stack[depth++] = iv;
	}
	while (depth) {
		uint64_t end = stack[--depth]->hi;
		while (depth && stack[depth - 1]->hi <= end)
			depth--;
		emit_segment(di, end, depth ? stack[depth - 1]->node : -1);
	}
	free(stack);
	merge_segments(di);
}

struct debuginfo *di_open(const char *path)
{
	struct debuginfo *di;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;

	elf_version(EV_CURRENT);
	di = xcalloc(1, sizeof(*di));
	di->fd = open_regular(path);
	if (di->fd < 0) {
		free(di);
		return NULL;
	}
	di->elf = elf_begin(di->fd, ELF_C_READ_MMAP, NULL);
	if (!di->elf || elf_kind(di->elf) != ELF_K_ELF) {
		oc_err("%s: not an ELF file", path);
		di_close(di);
		return NULL;
	}
	di->dwarf = dwarf_begin_elf(di->elf, DWARF_C_READ, NULL);
	if (!di->dwarf)
		return di;   /* no DWARF: opens, without lines */

	while (dwarf_get_units(di->dwarf, cu, &cu, &version, &unit_type, &cudie, NULL) == 0) {
		Dwarf_Files *files = NULL;
		size_t nfiles = 0;

		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial &&
		    unit_type != DW_UT_skeleton)
			continue;
		if (!di->producer)
			di->producer = die_string(&cudie, DW_AT_producer);
		add_cu_lines(di, &cudie);
		if (dwarf_getsrcfiles(&cudie, &files, &nfiles) != 0)
			files = NULL;
		walk_scopes(di, &cudie, files, nfiles, -1, 0);
	}
	sort_items(di->rows, di->nr_rows, sizeof(*di->rows), cmp_row);
	build_segments(di);
	build_function_index(di);
	free(di->ivs);
	di->ivs = NULL;
	di->nr_ivs = di->cap_ivs = 0;
	return di;
}

void di_close(struct debuginfo *di)
{
	if (!di)
		return;
	if (di->dwarf)
		dwarf_end(di->dwarf);
	if (di->elf)
		elf_end(di->elf);
	if (di->fd >= 0)
		close(di->fd);
	free(di->rows);
	free(di->nodes);
	free(di->ivs);
	free(di->segs);
	free(di->franges);
	free(di->by_addr);
	free(di->by_entry);
	free(di);
}

bool di_has_lines(const struct debuginfo *di)
{
	return di && di->nr_rows > 0;
}

static const struct di_row *find_row(const struct debuginfo *di, uint64_t addr)
{
	size_t lo = COUNT_LE(di->rows, di->nr_rows, addr, addr);

	if (lo == 0 || di->rows[lo - 1].end_sequence)
		return NULL;
	return &di->rows[lo - 1];
}

static int find_node(const struct debuginfo *di, uint64_t addr)
{
	size_t lo = COUNT_LE(di->segs, di->nr_segs, start, addr);

	return lo ? di->segs[lo - 1].node : -1;
}

int di_lookup(struct debuginfo *di, uint64_t addr, struct di_location *out)
{
	const struct di_row *row;
	int node, n = 0;
	const char *file;
	unsigned line, column, disc;

	out->nr_frames = 0;
	if (!di || !di->nr_rows)
		return -1;
	row = find_row(di, addr);
	if (!row)
		return -1;
	file = row->file;
	line = row->line;
	column = row->column;
	disc = row->discriminator;
	node = find_node(di, addr);
	if (node < 0) {
		out->frames[0] = (struct di_frame){ "??", "??", 0, file, line, column, disc };
		out->nr_frames = 1;
		return 0;
	}
	while (node >= 0 && n < DI_MAX_FRAMES) {
		const struct di_node *nd = &di->nodes[node];
		out->frames[n++] = (struct di_frame){ nd->name, nd->linkage_name, nd->decl_line,
						      file, line, column, disc };
		/* the caller's frame is at this node's call site */
		file = nd->call_file;
		line = nd->call_line;
		column = nd->call_column;
		disc = nd->call_discriminator;
		node = nd->parent;
	}
	out->nr_frames = n;
	return 0;
}

/* Index of the last entry of a sorted index whose lo <= addr, or -1. */
static long index_floor(const struct di_func_index *ix, size_t n, uint64_t addr)
{
	return (long)COUNT_LE(ix, n, lo, addr) - 1;
}

int di_function_ranges(const struct debuginfo *di, uint64_t addr, struct di_range *out, int max)
{
	const struct di_node *nd;
	long i;
	int n;

	if (!di || !di->by_addr)
		return 0;
	i = index_floor(di->by_addr, di->nr_franges, addr);
	/* nested or overlapping subprogram ranges are rare; look back a little */
	for (; i >= 0 && di->by_addr[i].hi <= addr; i--)
		if (addr - di->by_addr[i].lo > (1u << 24))
			return 0;
	if (i < 0)
		return 0;
	nd = &di->nodes[di->by_addr[i].node];
	for (n = 0; n < (int)nd->nr_ranges && n < max; n++)
		out[n] = di->franges[nd->first_range + n];
	return (int)nd->nr_ranges;
}

const char *di_function_at_entry(const struct debuginfo *di, uint64_t addr)
{
	long i;

	if (!di || !di->by_entry)
		return NULL;
	i = index_floor(di->by_entry, di->nr_entries, addr);
	if (i < 0 || di->by_entry[i].lo != addr)
		return NULL;
	return di->nodes[di->by_entry[i].node].linkage_name;
}

const char *di_producer(const struct debuginfo *di)
{
	return di ? di->producer : NULL;
}
