/* fuzz-index.c — the event index in the cache ($XDG_CACHE_HOME/ocrec/index/
 * *.idx, src/events/index.c), replaced by arbitrary bytes: whatever the file
 * holds, the tables ocrec then uses are the ones its JSON gives (a corrupt
 * index is rebuilt, never trusted), and the index on disk is sound again.
 *
 * An index names the paths and times of this checkout's files, so an input is
 * a change to the index this machine writes: byte 0 holds flags, bytes 1-4 a
 * length the index is cut to (flag 2), the rest is XORed onto the index from
 * its start and what goes past its end is appended. With flag 1 the checksum
 * is recomputed before the index is read, so that the fuzzer also gets past it
 * to the structure checks; such an index is a well-formed one and may be used
 * with other contents: it must then only not crash. */
#include <dirent.h>
#include <stdlib.h>

#include "events-common.h"

static char idx_path[2048];
static char *reference;          /* ev_list of the tables read from JSON */
static char *good_index;
static size_t good_len;

static void list_line(const struct ev_list_entry *e, void *arg)
{
	sb_printf(arg, "%s %s %s %llx %llx %llx %llx %llx %d\n", e->name, e->pmu ? e->pmu : "-",
		  e->unit ? e->unit : "-", e->event_code, e->umask, e->cmask, e->msr_index, e->msr_value,
		  e->deprecated);
}

/* What the tables say, as text: the events, and a few resolved. */
static char *tables_text(void)
{
	static const char *const specs[] = { "br_inst_retired.all_branches:pp", "unc_cbo_cache_lookup.any_i",
					     "inst_retired.any:u", "offcore_response.demand_data_rd.any_response" };
	char tree[4096];
	struct strbuf sb = STRBUF_INIT;
	struct ev_context *ctx;
	size_t i;

	snprintf(tree, sizeof(tree), "%s", fuzz_repo_path("tests/fixtures/events/perfmon"));
	ctx = fuzz_ev_open(0, tree);
	if (ev_list(ctx, NULL, list_line, &sb) < 0)
		sb_printf(&sb, "error %s\n", oc_errmsg());
	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		struct ev_resolved r;
		if (ev_resolve(ctx, specs[i], &r) == 0) {
			char *s = ev_perf_string(&r);
			sb_printf(&sb, "%s %s\n", specs[i], s);
			free(s);
			ev_resolved_free(&r);
		} else {
			sb_printf(&sb, "%s error %s\n", specs[i], oc_errmsg());
		}
	}
	oc_err_clear();
	ev_close(ctx);
	return sb_detach(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = good_len, i;
	char *text, *now, *image;
	bool sealed;

	if (size < 5)
		return 0;
	sealed = data[0] & 1;
	if (data[0] & 2) {
		uint32_t cut;
		memcpy(&cut, data + 1, 4);
		len = cut % (good_len + 1);
	}
	data += 5;
	size -= 5;
	if (size > len)
		len = size;
	image = xcalloc(1, len + 1);
	memcpy(image, good_index, len < good_len ? len : good_len);
	for (i = 0; i < size; i++)
		image[i] ^= (char)data[i];
	if (sealed)
		ev_index_seal(image, len);
	fuzz_file("index", image, len);
	free(image);
	if (rename(fuzz_file_path("index"), idx_path) != 0)
		fuzz_fail("cannot put the index in place");
	text = tables_text();
	if (!sealed && strcmp(text, reference) != 0)
		fuzz_fail("a damaged index was trusted: the tables differ from their JSON");
	free(text);
	/* an index that was not used is rebuilt */
	now = read_file(idx_path, &len);
	if (!now)
		fuzz_fail("the index was not rebuilt");
	if (!sealed && (len != good_len || memcmp(now, good_index, len) != 0))
		fuzz_fail("the rebuilt index differs from a fresh one");
	free(now);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[1100];
	DIR *d;
	struct dirent *de;

	(void)argc;
	(void)argv;
	fuzz_quiet();
	setenv("XDG_CACHE_HOME", fuzz_dir(), 1);
	unsetenv("OCREC_EVENTS");
	reference = tables_text();        /* writes the index */
	snprintf(dir, sizeof(dir), "%s/ocrec/index", fuzz_dir());
	d = opendir(dir);
	while (d && (de = readdir(d)))
		if (strstr(de->d_name, ".idx"))
			snprintf(idx_path, sizeof(idx_path), "%s/%s", dir, de->d_name);
	if (d)
		closedir(d);
	if (!idx_path[0] || !(good_index = read_file(idx_path, &good_len)))
		fuzz_fail("no index was written in %s", dir);
	free(tables_text());              /* read back from the index: the same */
	return 0;
}
