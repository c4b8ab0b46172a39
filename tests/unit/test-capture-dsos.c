/* Unit tests for src/capture/buildid.c: which mapped objects got samples (fed
 * records in the order per-CPU buffers deliver them: a sample may come before
 * its MMAP2 or FORK), GNU build-ids, the BUILD_ID feature and perf's build-id
 * cache layout. */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "capture/capture.h"
#include "symbols/symbols.h"
#include "util/util.h"

static unsigned char rec[512];

static const struct perf_event_header *mmap2(uint32_t pid, uint64_t start, uint64_t len, const char *path)
{
	struct perf_event_header *h = (void *)rec;
	size_t n = (strlen(path) + 8) & ~(size_t)7;

	memset(rec, 0, sizeof(rec));
	h->type = PERF_RECORD_MMAP2;
	h->misc = PERF_RECORD_MISC_USER;
	h->size = (uint16_t)(sizeof(*h) + 64 + n);
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &pid, 4);
	memcpy(rec + 16, &start, 8);
	memcpy(rec + 24, &len, 8);
	memcpy(rec + 72, path, strlen(path));
	return h;
}

/* sample_type IP|TID|TIME|PERIOD */
static const struct perf_event_header *sample(uint32_t pid, uint64_t ip, uint16_t cpumode)
{
	struct perf_event_header *h = (void *)rec;

	memset(rec, 0, sizeof(rec));
	h->type = PERF_RECORD_SAMPLE;
	h->misc = cpumode;
	h->size = sizeof(*h) + 32;
	memcpy(rec + 8, &ip, 8);
	memcpy(rec + 16, &pid, 4);
	memcpy(rec + 20, &pid, 4);
	return h;
}

static const struct perf_event_header *task(uint32_t type, uint32_t pid, uint32_t ppid)
{
	struct perf_event_header *h = (void *)rec;

	memset(rec, 0, sizeof(rec));
	h->type = type;
	h->size = sizeof(*h) + 24;
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &ppid, 4);
	memcpy(rec + 16, &pid, 4);
	memcpy(rec + 20, &ppid, 4);
	return h;
}

static const struct perf_event_header *comm_exec(uint32_t pid)
{
	struct perf_event_header *h = (void *)rec;

	memset(rec, 0, sizeof(rec));
	h->type = PERF_RECORD_COMM;
	h->misc = PERF_RECORD_MISC_COMM_EXEC;
	h->size = sizeof(*h) + 16;
	memcpy(rec + 8, &pid, 4);
	memcpy(rec + 12, &pid, 4);
	memcpy(rec + 16, "prog", 4);
	return h;
}

static void test_tracker(void)
{
	struct dso_tracker *t = dso_tracker_new();

	/* A sample drained before the MMAP2 of its object (another CPU's buffer). */
	dso_tracker_record(t, sample(100, 0x401010, PERF_RECORD_MISC_USER), 0);
	dso_tracker_record(t, mmap2(100, 0x400000, 0x2000, "/x/prog"), 0);
	dso_tracker_record(t, mmap2(100, 0x7f0000, 0x1000, "/x/libc.so"), 0);
	dso_tracker_record(t, mmap2(100, 0x7e0000, 0x1000, "//anon"), 0);
	dso_tracker_record(t, mmap2(100, 0x900000, 0x1000, "/x/parent-only"), 0);
	CHECK(!dso_tracker_was_sampled(t, "/x/prog"), "sample before its mapping: not yet resolved");
	dso_tracker_resolve_pending(t);
	CHECK(dso_tracker_was_sampled(t, "/x/prog"), "resolved after the pass");
	CHECK(!dso_tracker_was_sampled(t, "/x/libc.so"), "an object without samples is not sampled");

	/* A child (FORK) shares its parent's maps until it execs; a new thread
	 * (pid == ppid) is the same process. */
	dso_tracker_record(t, sample(101, 0x7f0100, PERF_RECORD_MISC_USER), 0);
	dso_tracker_record(t, task(PERF_RECORD_FORK, 101, 100), 0);
	dso_tracker_record(t, task(PERF_RECORD_FORK, 100, 100), 0);
	dso_tracker_resolve_pending(t);
	CHECK(dso_tracker_was_sampled(t, "/x/libc.so"), "child's sample in the inherited libc map");
	dso_tracker_record(t, comm_exec(101), 0);
	dso_tracker_record(t, mmap2(101, 0x400000, 0x1000, "/x/other"), 0);
	dso_tracker_record(t, sample(101, 0x900100, PERF_RECORD_MISC_USER), 0);
	dso_tracker_record(t, sample(101, 0x400100, PERF_RECORD_MISC_USER), 0);
	dso_tracker_resolve_pending(t);
	CHECK(dso_tracker_was_sampled(t, "/x/other"), "exec'd child: sample in its new program");
	CHECK(!dso_tracker_was_sampled(t, "/x/parent-only"), "exec'd child: the parent's maps are gone");

	/* Samples at IDENTIFIER offset 8 (several events). */
	{
		struct dso_tracker *t2 = dso_tracker_new();
		struct perf_event_header *h;
		uint64_t id = 7, ip = 0x400020;
		uint32_t pid = 5;

		dso_tracker_record(t2, mmap2(5, 0x400000, 0x1000, "/x/ident"), 8);
		memset(rec, 0, sizeof(rec));
		h = (void *)rec;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = PERF_RECORD_MISC_USER;
		h->size = sizeof(*h) + 40;
		memcpy(rec + 8, &id, 8);
		memcpy(rec + 16, &ip, 8);
		memcpy(rec + 24, &pid, 4);
		dso_tracker_record(t2, h, 8);
		CHECK(dso_tracker_was_sampled(t2, "/x/ident"), "ip found after IDENTIFIER");
		dso_tracker_free(t2);
	}

	/* Addresses marked one by one (the software branch sampler's branches):
	 * a range marked before answers again only while it is still the newest
	 * mapping there, in that process. */
	{
		struct dso_tracker *t3 = dso_tracker_new();

		dso_tracker_record(t3, mmap2(200, 0x400000, 0x2000, "/y/prog"), 0);
		dso_tracker_record(t3, mmap2(201, 0x400000, 0x2000, "/y/other-process"), 0);
		dso_tracker_mark(t3, 200, 0x400100);
		dso_tracker_mark(t3, 201, 0x400100);
		CHECK(dso_tracker_was_sampled(t3, "/y/prog") && dso_tracker_was_sampled(t3, "/y/other-process"),
		      "the same address in two processes marks each one's object");
		dso_tracker_record(t3, mmap2(200, 0x400000, 0x1000, "/y/over-prog"), 0);
		dso_tracker_mark(t3, 200, 0x401500);   /* the part of /y/prog still seen */
		dso_tracker_mark(t3, 200, 0x400200);
		CHECK(dso_tracker_was_sampled(t3, "/y/over-prog"), "a mapping over a marked range takes its marks");
		dso_tracker_record(t3, comm_exec(200), 0);
		dso_tracker_mark(t3, 200, 0x400300);
		dso_tracker_record(t3, mmap2(200, 0x400000, 0x2000, "/y/after-exec"), 0);
		dso_tracker_resolve_pending(t3);
		CHECK(dso_tracker_was_sampled(t3, "/y/after-exec"),
		      "after an exec, an address marked before waits for the new program's mapping");
		dso_tracker_free(t3);
	}
	{
		struct dso_tracker *t4 = dso_tracker_new();

		dso_tracker_record(t4, mmap2(300, 0x500000, 0x1000, "/z/old"), 0);
		dso_tracker_record(t4, mmap2(301, 0x500000, 0x1000, "/z/parent"), 0);
		dso_tracker_mark(t4, 300, 0x500100);
		/* pid 300 ends, and comes back as a child of 301 */
		dso_tracker_record(t4, task(PERF_RECORD_FORK, 300, 301), 0);
		dso_tracker_mark(t4, 300, 0x500200);
		CHECK(dso_tracker_was_sampled(t4, "/z/parent"), "a pid used again marks its new process's object");
		/* ... and again, as the child of a process the recording never saw */
		dso_tracker_record(t4, mmap2(302, 0x700000, 0x1000, "/z/gone"), 0);
		dso_tracker_record(t4, task(PERF_RECORD_FORK, 302, 999), 0);
		dso_tracker_mark(t4, 302, 0x700100);
		dso_tracker_resolve_pending(t4);
		CHECK(!dso_tracker_was_sampled(t4, "/z/gone"), "a pid used again by an unknown parent's child: no old maps");
		dso_tracker_free(t4);
	}

	CHECK(!dso_tracker_was_sampled(t, "[kernel.kallsyms]"), "no kernel sample yet");
	dso_tracker_record(t, sample(100, 0xffffffff81000000ULL, PERF_RECORD_MISC_KERNEL), 0);
	CHECK(dso_tracker_was_sampled(t, "[kernel.kallsyms]"), "kernel sample");
	dso_tracker_free(t);
}

static int count_build_ids(const char *path, const char *want_file, const uint8_t *want_id, int want_size,
			   int *matched)
{
	struct pd_reader *r = pd_open(path);
	const struct pd_info *info;
	size_t i;
	int n;

	*matched = 0;
	if (!r)
		return -1;
	info = pd_get_info(r);
	n = (int)info->nr_build_ids;
	for (i = 0; i < info->nr_build_ids; i++)
		if (strcmp(info->build_ids[i].filename, want_file) == 0 && info->build_ids[i].size == want_size &&
		    memcmp(info->build_ids[i].id, want_id, (size_t)want_size) == 0)
			(*matched)++;
	pd_close(r);
	return n;
}

static void test_build_ids(void)
{
	char dir[4096], self[PATH_MAX], hex[41], target[PATH_MAX];
	uint8_t id[20];
	int size, i, matched;
	ssize_t n;
	char *cache, *elf, *link, *data, *orig, *out;
	size_t len, orig_len;
	struct dso_tracker *t;
	struct pd_writer_event ev = { .name = "cpu-clock" };
	struct pd_writer *w;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || !test_mkdtemp(dir, sizeof(dir), "ocrec-test-dsos-XXXXXX")) {
		SKIP("build-ids", "no /proc/self/exe or temporary directory");
		return;
	}
	self[n] = 0;
	size = sym_file_build_id(self, id);
	if (size == 0) {
		SKIP("build-ids", "this test binary has no GNU build-id (linked without --build-id)");
		return;
	}
	CHECK_INT(size, 20, "GNU build-id of this test binary: 20 bytes (SHA-1)");
	{
		uint8_t other[20];

		CHECK_INT(sym_file_build_id("/proc/self/status", other), 0, "a non-ELF file has none");
	}
	for (i = 0; i < size; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);

	/* perf's cache layout: DIR/<abs path>/<hex>/elf, DIR/.build-id/xx/<rest> -> ../../<abs path>/<hex> */
	cache = xasprintf("%s/.debug", dir);
	CHECK_INT(build_id_cache_add(cache, self, id, size), 0, "added to the build-id cache");
	elf = xasprintf("%s%s/%s/elf", cache, self, hex);
	link = xasprintf("%s/.build-id/%.2s/%s", cache, hex, hex + 2);
	data = read_file(elf, &len);
	orig = read_file(self, &orig_len);
	CHECK(data && orig && len == orig_len && memcmp(data, orig, len) == 0, "cache holds a copy of the object");
	n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = 0;
	{
		char *want = xasprintf("../..%s/%s", self, hex);

		CHECK_STR(target, want, ".build-id link points at the object's directory");
		free(want);
	}
	CHECK_INT(build_id_cache_add(cache, self, id, size), 0, "adding again is fine");

	/* The BUILD_ID feature: only the sampled objects that have a build-id. */
	t = dso_tracker_new();
	dso_tracker_record(t, mmap2(100, 0x400000, 0x1000, self), 0);
	dso_tracker_record(t, mmap2(100, 0x500000, 0x1000, "/nonexistent/lib.so"), 0);
	dso_tracker_record(t, mmap2(100, 0x600000, 0x1000, "/proc/self/status"), 0);
	dso_tracker_record(t, sample(100, 0x400010, PERF_RECORD_MISC_USER), 0);
	dso_tracker_record(t, sample(100, 0x500010, PERF_RECORD_MISC_USER), 0);
	dso_tracker_record(t, sample(100, 0x600010, PERF_RECORD_MISC_USER), 0);
	ev.attr.size = sizeof(ev.attr);
	ev.attr.type = PERF_TYPE_SOFTWARE;
	ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	out = xasprintf("%s/perf.data", dir);
	w = pd_writer_open(out, &ev, 1);
	CHECK(w != NULL, "writer opened");
	if (w) {
		dso_tracker_write_build_ids(t, w, NULL);
		CHECK_INT(pd_writer_close(w, true), 0, "file written");
		CHECK_INT(count_build_ids(out, self, id, size, &matched), 1, "one BUILD_ID entry (objects without an id skipped)");
		CHECK_INT(matched, 1, "the entry names this binary with its build-id");
		unlink(out);
	}
	dso_tracker_free(t);

	free(out);
	free(data);
	free(orig);
	free(elf);
	free(link);
	/* remove the cache tree */
	{
		char *cmd = xasprintf("rm -rf '%s'", dir);

		if (system(cmd) != 0)
			SKIP("cleanup", dir);
		free(cmd);
	}
	free(cache);
}

int main(void)
{
	test_tracker();
	test_build_ids();
	return test_done();
}
