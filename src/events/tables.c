/* tables.c — where the event tables for a CPU come from: --events PATH or
 * $OCREC_EVENTS (a JSON file, a directory of pmu-events files, or a
 * mapfile.csv tree), the download cache, then the built-in architectural
 * table (GenuineIntel only, the events CPUID leaf 0xA says exist). */
#define _GNU_SOURCE
#include <limits.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/ev-internal.h"

/* $XDG_CACHE_HOME/ocrec/SUB, else ~/.cache/ocrec/SUB */
static char *cache_path(const char *sub)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/ocrec/%s", xdg, sub);
	return xasprintf("%s/.cache/ocrec/%s", home && *home ? home : "/tmp", sub);
}

char *ev_cache_dir(void)
{
	return cache_path("events");
}

char *ev_source_cache_dir(enum ev_source source)
{
	return cache_path(source == EV_SOURCE_LINUX ? "linux/x86" : "events");
}

enum ev_source ev_default_source(const struct cpu_desc *cpu)
{
	return cpu_is_intel(cpu) ? EV_SOURCE_PERFMON : EV_SOURCE_LINUX;
}

const char *ev_source_name(enum ev_source source)
{
	return source == EV_SOURCE_LINUX ? "linux" : "perfmon";
}

int ev_source_parse(const char *name, enum ev_source *out)
{
	if (!strcmp(name, "perfmon"))
		*out = EV_SOURCE_PERFMON;
	else if (!strcmp(name, "linux"))
		*out = EV_SOURCE_LINUX;
	else
		return oc_err("unknown event table source '%s' (perfmon or linux)", name);
	return 0;
}

static void strv_free_n(char **v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void ev_tables_free(struct ev_tables *ts)
{
	size_t i;

	if (!ts)
		return;
	for (i = 0; i < ts->nr; i++)
		ev_table_free(ts->t[i]);
	free(ts->t);
	strv_free_n(ts->files, ts->nr_files);
	free(ts->source);
	if (ts->mapping)
		munmap(ts->mapping, ts->mapping_len);
	free(ts);
}

/* Remember a file the tables were read from (the index checks it later). */
static void note_file(struct ev_tables *ts, const char *path)
{
	GROW(ts->files, ts->cap_files, ts->nr_files + 1);
	ts->files[ts->nr_files++] = xstrdup(path);
}

static struct ev_table *tables_get(struct ev_tables *ts, const char *pmu)
{
	size_t i;

	for (i = 0; i < ts->nr; i++)
		if (!strcmp(ts->t[i]->pmu, pmu))
			return ts->t[i];
	ts->t = xrealloc(ts->t, (ts->nr + 1) * sizeof(*ts->t));
	return ts->t[ts->nr++] = ev_table_new(pmu);
}

static bool is_json_name(const char *n, const void *arg)
{
	return str_ends_with(n, ".json") && !strstr(n, "metric");
}

/* Every event file of a pmu-events directory (kernel layout: one directory
 * per CPU, a file per topic), in name order. */
static int add_json_dir(struct ev_tables *ts, struct ev_table *core, struct ev_table *uncore,
			const char *dir)
{
	char **names = dir_list(dir, is_json_name, NULL, NULL), **name;
	int ret = 0;

	if (!names)
		return -1;
	note_file(ts, dir);   /* its mtime changes when a file is added or removed */
	for (name = names; *name && ret == 0; name++) {
		char *path = xasprintf("%s/%s", dir, *name);
		note_file(ts, path);
		ret = ev_table_add_json(core, uncore, path);
		free(path);
	}
	strv_free(names);
	return ret;
}

static int add_path(struct ev_tables *ts, struct ev_table *core, struct ev_table *uncore, const char *path)
{
	if (is_dir(path))
		return add_json_dir(ts, core, uncore, path);
	note_file(ts, path);
	return ev_table_add_json(core, uncore, path);
}

/* --- mapfile.csv --------------------------------------------------------- */

/* Is a Family-model pattern one regcomp() compiles in bounded time and
 * memory? glibc copies the tree under each repetition: "6-++++...+" (78
 * stacked '+') took gigabytes in duplicate_tree(), and back-references make
 * matching exponential. The mapfiles' patterns ("GenuineIntel-6-55-[01234]",
 * "AuthenticAMD-25-([245][[:xdigit:]]|[[:xdigit:]])", powerpc's
 * "[[:xdigit:]]{4}") need none of that: at most 128 characters, 4
 * repetitions, none right after another, bounds up to 16, no backslash. */
static bool pattern_is_tame(const char *p)
{
	size_t i = 0, reps = 0;
	bool after_rep = false;

	if (strlen(p) > 128)
		return false;
	while (p[i]) {
		if (p[i] == '\\')
			return false;
		if (p[i] == '[') {   /* a bracket expression, [:class:] inside it */
			i++;
			if (p[i] == '^')
				i++;
			if (p[i] == ']')
				i++;
			while (p[i] && p[i] != ']') {
				if (p[i] == '[' && p[i + 1] == ':') {
					const char *end = strstr(p + i + 2, ":]");
					if (!end)
						return false;
					i = (size_t)(end - p) + 2;
				} else {
					i++;
				}
			}
			if (!p[i])
				return false;
			i++;
			after_rep = false;
			continue;
		}
		if (strchr("*+?{", p[i])) {
			if (after_rep || ++reps > 4)
				return false;
			if (p[i] == '{') {
				char *end;
				unsigned long lo = strtoul(p + i + 1, &end, 10), hi = lo;
				if (end == p + i + 1)
					return false;
				if (*end == ',')
					hi = strtoul(end + 1, &end, 10);
				if (*end != '}' || lo > 16 || hi > 16)
					return false;
				i = (size_t)(end - p);
			}
			after_rep = true;
		} else {
			after_rep = false;
		}
		i++;
	}
	return true;
}

/* Does the Family-model pattern match the CPU string? It must match from the
 * start up to the end or up to a '-' (a pattern without stepping matches
 * every stepping), like perf's pmu-events lookup. */
static bool cpu_pattern_matches(const char *pattern, const char *id)
{
	size_t lit = strcspn(pattern, "[(|.*+?\\^$"), idlen = strlen(id);
	regmatch_t m;
	regex_t re;
	bool ok;

	if (strncasecmp(pattern, id, lit < idlen ? lit : idlen) != 0)
		return false;   /* the literal prefix differs: no need to compile */
	if (pattern[lit] == 0)
		return !strcasecmp(pattern, id) || (lit < idlen && !strncasecmp(pattern, id, lit) && id[lit] == '-');
	if (regcomp(&re, pattern, REG_EXTENDED | REG_ICASE) != 0)
		return false;
	ok = regexec(&re, id, 1, &m, 0) == 0 && m.rm_so == 0 &&
	     ((size_t)m.rm_eo == idlen || id[m.rm_eo] == '-');
	regfree(&re);
	return ok;
}

void ev_map_row_free(struct ev_map_row *r)
{
	free(r->pattern);
	free(r->file);
	free(r->type);
	free(r->core_type);
	free(r->role);
}

/* The core PMU of a hybridcore row: "Core" → cpu_core, "Atom" → cpu_atom. */
static const char *hybrid_pmu(const struct ev_map_row *r)
{
	if (!strcasecmp(r->role, "Atom") || !strcasecmp(r->core_type, "0x20"))
		return "cpu_atom";
	return "cpu_core";
}

static bool pmu_in_sysfs(struct ev_context *ctx, const char *pmu)
{
	return ev_pmu_get(ctx, pmu)->in_sysfs;
}

bool ev_path_climbs(const char *file)
{
	const char *p = file;

	while ((p = strstr(p, ".."))) {
		if ((p == file || p[-1] == '/') && (p[2] == 0 || p[2] == '/'))
			return true;
		p += 2;
	}
	return false;
}

int ev_mapfile_parse(char *text, const char *id, struct ev_map_row **rows)
{
	size_t n = 0, cap = 0;
	char *line, *save = NULL;

	*rows = NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t nf;
		char **f;
		if (!strncmp(line, "Family-model", 12) || !*str_trim(line) || line[0] == '#')
			continue;
		f = str_split(line, ',', &nf);
		if (nf >= 4 && ev_path_climbs(str_trim(f[2]))) {
			oc_warn("mapfile.csv: the row of %s names %s, outside its directory: ignored",
				str_trim(f[0]), str_trim(f[2]));
		} else if (nf >= 4 && !pattern_is_tame(str_trim(f[0]))) {
			oc_warn("mapfile.csv: the pattern of a row (%.40s...) is not one ocrec compiles "
				"(at most 128 characters and 4 repetitions, none stacked, no backslash): ignored",
				str_trim(f[0]));
		} else if (nf >= 4 && (!id || cpu_pattern_matches(str_trim(f[0]), id))) {
			struct ev_map_row r = {
				xstrdup(str_trim(f[0])), xstrdup(str_trim(f[2])), xstrdup(str_trim(f[3])),
				xstrdup(nf > 4 ? str_trim(f[4]) : ""), xstrdup(nf > 6 ? str_trim(f[6]) : ""),
			};
			GROW(*rows, cap, n + 1);
			(*rows)[n++] = r;
		}
		strv_free(f);
	}
	return (int)n;
}

/* Read the rows of mapfile for id. Returns the number found, -1 on error. */
static int read_mapfile(const char *mapfile, const char *id, struct ev_map_row **rows)
{
	size_t len;
	char *text = read_file_max(mapfile, &len, EV_MAX_MAPFILE, "a mapfile.csv");
	int n;

	*rows = NULL;
	if (!text)
		return -1;
	n = ev_mapfile_parse(text, id, rows);
	free(text);
	return n;
}

static char *tree_path(const char *root, const char *file)
{
	while (*file == '/')
		file++;
	return xasprintf("%s/%s", root, file);
}

/* Load the tables mapfile names for the CPU. 1 when no row matches. *first gets
 * the first loaded row (its Family-model and file). A row whose file or
 * directory is absent (downloaded for another CPU, or not mirrored) is skipped.
 * A row naming a directory is the kernel's layout (pmu-events/arch/x86): there
 * the first such row that matches wins, as in perf, where rows overlap (Zen 3
 * and Zen 4 are both family 25). */
static int load_mapfile_tree(struct ev_context *ctx, const char *root, struct ev_tables *ts,
			     struct ev_map_row *first)
{
	char *mapfile = xasprintf("%s/mapfile.csv", root), *path;
	struct ev_map_row *rows;
	struct ev_table *uncore = NULL;
	int n = read_mapfile(mapfile, ctx->cpu.perfmon_id, &rows), i, ret = 0;
	bool hybrid = false, want_core = true, want_atom = true, kernel_dir = false, absent = false;

	if (n >= 0)
		note_file(ts, mapfile);
	free(mapfile);
	if (n < 0)
		return -1;
	for (i = 0; i < n; i++)
		hybrid |= !strcasecmp(rows[i].type, "hybridcore");
	if (hybrid && (pmu_in_sysfs(ctx, "cpu_core") || pmu_in_sysfs(ctx, "cpu_atom"))) {
		/* resolve for the core types this kernel has */
		want_core = pmu_in_sysfs(ctx, "cpu_core");
		want_atom = pmu_in_sysfs(ctx, "cpu_atom");
	}
	/* core tables first, then uncore, then matrices that extend the core tables */
	for (i = 0; i < n && ret == 0; i++) {
		const char *pmu = NULL;
		if (!strcasecmp(rows[i].type, "core"))
			pmu = "cpu";
		else if (!strcasecmp(rows[i].type, "hybridcore")) {
			pmu = hybrid_pmu(&rows[i]);
			if ((!strcmp(pmu, "cpu_core") && !want_core) || (!strcmp(pmu, "cpu_atom") && !want_atom))
				continue;
		} else
			continue;
		path = tree_path(root, rows[i].file);
		if (is_dir(path) && !kernel_dir) {
			/* a pmu-events directory mixes core and uncore (Unit) rows */
			kernel_dir = true;
			ret = add_path(ts, tables_get(ts, pmu), tables_get(ts, "uncore"), path);
		} else if (file_exists(path) && !is_dir(path)) {
			ret = add_path(ts, tables_get(ts, pmu), NULL, path);
		} else {
			absent |= !is_dir(path);
			free(path);
			continue;
		}
		free(path);
		if (!first->pattern) {
			first->pattern = xstrdup(rows[i].pattern);
			first->file = xstrdup(rows[i].file);
		}
	}
	/* a download of a skipped row's file or directory changes the root's mtime */
	if (absent)
		note_file(ts, root);
	for (i = 0; i < n && ret == 0; i++) {
		if (strcasecmp(rows[i].type, "uncore") != 0 || !ts->nr)
			continue;
		path = tree_path(root, rows[i].file);
		if (file_exists(path) || is_dir(path)) {
			if (!uncore)
				uncore = tables_get(ts, "uncore");
			ret = add_path(ts, uncore, uncore, path);
		}
		free(path);
	}
	for (i = 0; i < n && ret == 0; i++) {
		size_t k;
		if (strcasecmp(rows[i].type, "offcore") != 0)
			continue;
		path = tree_path(root, rows[i].file);
		if (!file_exists(path)) {
			free(path);
			continue;
		}
		note_file(ts, path);
		for (k = 0; k < ts->nr && ret == 0; k++)
			if (strcmp(ts->t[k]->pmu, "uncore") != 0)
				ret = ev_table_add_matrix(ts->t[k], path);
		free(path);
	}
	for (i = 0; i < n; i++)
		ev_map_row_free(&rows[i]);
	free(rows);
	if (ret < 0)
		return -1;
	return ts->nr ? 0 : 1;
}

/* --- the built-in architectural table ----------------------------------- */

/* CPUID.0AH:EBX bit of an architectural event (SDM vol. 3B, "Architectural
 * Performance Monitoring"), -1 when the encoding is not architectural. */
static int arch_event_bit(const struct ev_rec *r)
{
	static const struct { uint8_t code, umask; } arch[] = {
		{ 0x3c, 0x00 }, { 0xc0, 0x00 }, { 0x3c, 0x01 }, { 0x2e, 0x4f },
		{ 0x2e, 0x41 }, { 0xc4, 0x00 }, { 0xc5, 0x00 }, { 0xa4, 0x01 },
	};
	size_t i;

	if (r->code == 0 && r->umask == 3)
		return 2;   /* the fixed-counter form of reference cycles */
	for (i = 0; i < ARRAY_SIZE(arch); i++)
		if (r->code == arch[i].code && r->umask == arch[i].umask)
			return (int)i;
	return -1;
}

static int load_builtin(struct ev_context *ctx, struct ev_tables *ts, const char *cpuid_path)
{
	struct ev_table *t, *all;
	uint32_t present, i;

	all = ev_table_new("cpu");
	if (ev_table_add_json_text(all, BUILTIN_EVENTS_NAME, ocrec_builtin_events) < 0) {
		ev_table_free(all);
		return -1;
	}
	present = cpu_arch_events_present(cpuid_path, ctx->cpu.have_cpuid);
	t = tables_get(ts, ctx->cpu.hybrid ? "cpu_core" : "cpu");
	t->path = xstrdup(BUILTIN_EVENTS_NAME " (built-in)");
	for (i = 0; i < all->nr; i++) {
		int bit = arch_event_bit(&all->recs[i]);
		struct ev_rec *r;
		if (bit < 0 || !(present & (1u << bit)))
			continue;
		/* copy the row: its strings move to t's pool */
		GROW(t->recs, t->cap, (size_t)t->nr + 1);
		r = &t->recs[t->nr++];
		*r = all->recs[i];
#define MOVE(f) do { \
			const char *s_ = rec_str(all, all->recs[i].f); size_t l_ = strlen(s_); \
			r->f = 0; \
			if (l_) { r->f = t->pool_len; t->pool = xrealloc(t->pool, t->pool_len + l_ + 1); \
				  memcpy(t->pool + r->f, s_, l_ + 1); t->pool_len += (uint32_t)l_ + 1; } \
		} while (0)
		MOVE(name); MOVE(desc); MOVE(brief); MOVE(errata); MOVE(counter); MOVE(unit); MOVE(pname);
#undef MOVE
	}
	ev_table_free(all);
	return 0;
}

/* --- choosing the source --------------------------------------------------- */

/* Load a mapfile tree; the source names the tree, the table and the row. */
static int load_tree(struct ev_context *ctx, const char *root, struct ev_tables *ts)
{
	struct ev_map_row first = { NULL, NULL, NULL, NULL, NULL };
	int ret = load_mapfile_tree(ctx, root, ts, &first);

	if (ret == 0)
		ts->source = xasprintf("%s (%s, mapfile row %s)", root, first.file, first.pattern);
	ev_map_row_free(&first);
	return ret;
}

static int load_events_path(struct ev_context *ctx, const char *path, struct ev_tables *ts)
{
	int ret;

	ts->origin = EV_ORIGIN_PATH;
	if (is_dir(path)) {
		char *mapfile = xasprintf("%s/mapfile.csv", path);
		bool tree = file_exists(mapfile);

		free(mapfile);
		if (tree)
			return load_tree(ctx, path, ts);
	} else if (str_ends_with(path, "mapfile.csv")) {
		char *root = xstrdup(path), *slash = strrchr(root, '/');
		if (slash)
			*slash = 0;
		else
			strcpy(root, ".");
		ret = load_tree(ctx, root, ts);
		free(root);
		return ret;
	}
	ret = add_path(ts, tables_get(ts, "cpu"), tables_get(ts, "uncore"), path);
	if (ret == 0)
		ts->source = xstrdup(path);
	return ret;
}

static int table_rank(const struct ev_table *t)
{
	static const char *const order[] = { "cpu", "cpu_core", "cpu_atom" };
	int i;
	for (i = 0; i < (int)ARRAY_SIZE(order); i++)
		if (!strcmp(t->pmu, order[i]))
			return i;
	return i;
}

static int cmp_table(const void *a, const void *b)
{
	return table_rank(*(struct ev_table *const *)a) - table_rank(*(struct ev_table *const *)b);
}

/* Core tables in a fixed order (cpu_core before cpu_atom), uncore last. */
static void finish_all(struct ev_tables *ts)
{
	size_t i, n = 0;

	for (i = 0; i < ts->nr; i++) {
		if (ts->t[i]->nr)
			ts->t[n++] = ts->t[i];
		else
			ev_table_free(ts->t[i]);   /* an uncore table nothing went into */
	}
	ts->nr = n;
	if (ts->nr > 1)
		qsort(ts->t, ts->nr, sizeof(*ts->t), cmp_table);
	for (i = 0; i < ts->nr; i++) {
		if (strcmp(ts->t[i]->pmu, "uncore") != 0)
			ev_table_add_topdown(ts->t[i]);
		ev_table_finish(ts->t[i]);
	}
}

/* What identifies a set of tables in the index: where they come from, the
 * CPU, and what changes the selection (hybrid core types in sysfs, the
 * architectural events CPUID offers). */
static char *index_key(struct ev_context *ctx, const char *mode, const char *where, uint32_t extra)
{
	char *real = realpath(where, NULL);
	struct stat st;
	char *key;

	/* a rebuilt ocrec may build tables differently: its own mtime is part of the key */
	if (stat("/proc/self/exe", &st) < 0)
		memset(&st, 0, sizeof(st));
	key = xasprintf("%s|%s|%s|core=%d,atom=%d|%x|%lld.%09ld", mode, real ? real : where,
			ctx->cpu.perfmon_id, pmu_in_sysfs(ctx, "cpu_core"), pmu_in_sysfs(ctx, "cpu_atom"), extra,
			(long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	free(real);
	return key;
}

/* Load tables through the index: 0 loaded, 1 none for this CPU, -1 error. */
static int load_indexed(struct ev_context *ctx, const char *key, struct ev_tables **out,
			int (*load)(struct ev_context *ctx, struct ev_tables *ts, const void *arg), const void *arg)
{
	struct ev_tables *ts;
	int ret;

	if (ev_index_load(key, out) == 0)
		return 0;
	ts = xcalloc(1, sizeof(*ts));
	ret = load(ctx, ts, arg);
	if (ret != 0) {
		ev_tables_free(ts);
		return ret;
	}
	finish_all(ts);
	ev_index_save(key, ts);
	*out = ts;
	return 0;
}

static int load_path_cb(struct ev_context *ctx, struct ev_tables *ts, const void *arg)
{
	return load_events_path(ctx, arg, ts);
}

struct cache_arg {
	const char *dir;
	enum ev_source source;
};

static int load_cache_cb(struct ev_context *ctx, struct ev_tables *ts, const void *arg)
{
	const struct cache_arg *c = arg;

	ts->origin = c->source == EV_SOURCE_LINUX ? EV_ORIGIN_LINUX : EV_ORIGIN_PERFMON;
	return load_tree(ctx, c->dir, ts);
}

static int load_builtin_cb(struct ev_context *ctx, struct ev_tables *ts, const void *arg)
{
	int ret = load_builtin(ctx, ts, ctx->cpuid_path);
	(void)arg;
	if (ret == 0) {
		ts->source = xstrdup("built-in architectural table");
		ts->origin = EV_ORIGIN_BUILTIN;
	}
	return ret;
}

int ev_tables_load(struct ev_context *ctx)
{
	const char *path = ctx->events_path;
	enum ev_source order[2];
	char *key;
	int ret = 1, k;

	if (ctx->tables_tried)
		return ctx->tables ? 0 : ctx->tables_error;
	ctx->tables_tried = true;
	if (!ctx->have_cpu) {
		if (cpu_detect(NULL, &ctx->cpu) < 0)
			return ctx->tables_error = -1;
		ctx->have_cpu = true;
	}
	if (!path) {
		const char *env = getenv("OCREC_EVENTS");
		path = env && *env ? env : NULL;
	}
	if (path) {
		key = index_key(ctx, "path", path, 0);
		ret = load_indexed(ctx, key, &ctx->tables, load_path_cb, path);
		free(key);
		if (ret == 1)
			ctx->no_table_hint = xasprintf("%s has no event table for %s", path, ctx->cpu.perfmon_id);
		goto done;
	}
	/* both download caches, the one of the CPU's vendor first */
	order[0] = ev_default_source(&ctx->cpu);
	order[1] = order[0] == EV_SOURCE_LINUX ? EV_SOURCE_PERFMON : EV_SOURCE_LINUX;
	for (k = 0; k < 2 && ret == 1; k++) {
		struct cache_arg arg = { NULL, order[k] };
		char *cache = ev_source_cache_dir(order[k]), *mapfile = xasprintf("%s/mapfile.csv", cache);

		arg.dir = cache;
		if (file_exists(mapfile)) {
			key = index_key(ctx, "cache", cache, 0);
			ret = load_indexed(ctx, key, &ctx->tables, load_cache_cb, &arg);
			free(key);
		}
		free(mapfile);
		free(cache);
	}
	if (ret == 1 && cpu_is_intel(&ctx->cpu)) {
		key = index_key(ctx, "builtin", "", cpu_arch_events_present(ctx->cpuid_path, ctx->cpu.have_cpuid));
		ret = load_indexed(ctx, key, &ctx->tables, load_builtin_cb, NULL);
		free(key);
	}
	if (ret == 1) {
		char *cache = ev_source_cache_dir(order[0]);

		ctx->no_table_hint = xasprintf("no event table for %s in %s: run 'ocrec download --cpu %s'%s "
					       "(or pass --events PATH)", ctx->cpu.perfmon_id, cache,
					       ctx->cpu.perfmon_id, order[0] == EV_SOURCE_LINUX ?
					       " for the Linux kernel's tables" : "");
		free(cache);
		/* libpfm4 is loaded only when the hint is shown (ev_no_table_hint) */
		ctx->hint_needs_pfm = !cpu_is_intel(&ctx->cpu);
	}
done:
	if (ret < 0)
		return ctx->tables_error = -1;
	return 0;
}

const char *ev_table_source(struct ev_context *ctx)
{
	if (ev_tables_load(ctx) < 0 || !ctx->tables)
		return NULL;
	return ctx->tables->source;
}

const char *ev_table_origin(struct ev_context *ctx)
{
	static const char *const names[] = {
		[EV_ORIGIN_PATH] = "events", [EV_ORIGIN_BUILTIN] = "built-in",
		[EV_ORIGIN_PERFMON] = "perfmon", [EV_ORIGIN_LINUX] = "linux",
	};

	if (ev_tables_load(ctx) < 0 || !ctx->tables)
		return NULL;
	return names[ctx->tables->origin];
}

const char *ev_no_table_hint(struct ev_context *ctx)
{
	if (ctx->hint_needs_pfm) {
		char *why = ev_pfm_coverage(ctx), *hint = xasprintf("%s: %s", ctx->no_table_hint, why);
		free(ctx->no_table_hint);
		free(why);
		ctx->no_table_hint = hint;
		ctx->hint_needs_pfm = false;
	}
	return ctx->no_table_hint ? ctx->no_table_hint : "";
}
