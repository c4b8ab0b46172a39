/* resolve.c — a sample's addresses resolved through the session's symbol
 * table, once per (process, address, mode): LBR samples repeat the same few
 * branches millions of times. Source lines follow perf's srcline rules. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "session/session-internal.h"
#include "util/util.h"

#define CHUNK 4096

void loc_cache_clear(struct session *s)
{
	hmap_clear(&s->cache);
	s->chunk = s->chunk_used = 0;
	s->maps_gen++;
}

unsigned session_maps_gen(const struct session *s)
{
	return s->maps_gen;
}

void loc_cache_free(struct session *s)
{
	size_t i;

	for (i = 0; i < s->nr_chunks; i++)
		free(s->chunks[i]);
	free(s->chunks);
	hmap_free(&s->cache);
}

/* A place for one more location: chunks are kept when the cache is cleared. */
static struct session_loc *new_loc(struct session *s)
{
	if (s->chunk_used == CHUNK) {
		s->chunk++;
		s->chunk_used = 0;
	}
	if (s->chunk == s->nr_chunks) {
		GROW(s->chunks, s->cap_chunks, s->nr_chunks + 1);
		s->chunks[s->nr_chunks++] = xmalloc(CHUNK * sizeof(struct session_loc));
	}
	return &s->chunks[s->chunk][s->chunk_used++];
}

static struct session_loc *lookup(struct session *s, uint32_t pid, unsigned cpumode, uint64_t addr,
				  enum session_at at)
{
	static const enum sym_lookup how[] = {
		[SESSION_AT_IP] = SYM_AT_CPUMODE, [SESSION_AT_BRANCH] = SYM_AT_ANY,
		[SESSION_AT_BRANCH_FB] = SYM_AT_FALLBACK,
	};
	/* the sample's mode does not matter to perf report's branch lookup */
	struct loc_key key = { addr, (uint64_t)pid << 32 | (at == SESSION_AT_BRANCH ? 0 : cpumode << 8) | at };
	struct session_loc **slot, *l;
	struct addr_loc al;
	bool added;

	slot = hmap_val(&s->cache, hmap_add(&s->cache, &key, &added));
	if (!added)
		return *slot;
	l = *slot = new_loc(s);
	symtab_lookup(s->st, pid, cpumode, addr, how[at], &al);
	*l = (struct session_loc){
		.addr = addr, .dso = al.dso, .map_start = al.map_start, .map_end = al.map_end,
		.map_pgoff = al.map_pgoff, .map_addr = al.map_addr, .file_addr = al.file_addr,
		.sym = al.sym, .sym_off = al.sym_off, .level = al.level, .kernel = al.kernel,
		.name = al.sym ? sym_name(al.dso, al.sym, !s->opts.no_demangle) : NULL,
	};
	return l;
}

struct session_loc *session_resolve(struct session *s, const struct session_sample *ss, uint64_t addr,
				    enum session_at at)
{
	return lookup(s, ss->s->pid, ss->cpumode, addr, at);
}

struct session_loc *session_frame(struct session *s, const struct session_sample *ss, size_t i)
{
	return lookup(s, ss->s->pid, ss->frames[i].cpumode, ss->frames[i].ip, SESSION_AT_IP);
}

/* perf's srcline: basename:line from DWARF (innermost frame); else "+off" in
 * a known symbol, "dso[0xaddr]", or "??:0" (util/srcline.c). */
void session_loc_line(struct session *s, struct session_loc *l)
{
	struct debuginfo *di;
	struct di_location dl;
	char buf[512];

	if (l->line_done)
		return;
	l->line_done = true;
	di = l->dso && !s->opts.sym.maps_only ? dso_debuginfo(l->dso) : NULL;
	if (di && di_lookup(di, l->file_addr, &dl) == 0 && dl.nr_frames > 0 && dl.frames[0].file) {
		const char *f = dl.frames[0].file;
		snprintf(buf, sizeof(buf), "%s:%u", s->opts.full_source_path ? f : str_basename(f),
			 dl.frames[0].line);
		l->srcline = session_intern(s, buf);
		l->file = session_intern(s, f);
		l->line = dl.frames[0].line;
		return;
	}
	if (!l->dso)
		snprintf(buf, sizeof(buf), "??:0");
	else if (l->sym)
		snprintf(buf, sizeof(buf), "+%" PRIu64, l->file_addr - l->sym->start);
	else
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", l->dso->short_name, l->map_addr);
	l->srcline = session_intern(s, buf);
}
