/* Unit tests for src/capture/ring.c: head/tail handling and records that wrap
 * around the end of the data area (a hand-built buffer), then a live software
 * event drained through a one-page buffer many times over. */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "capture/capture.h"
#include "util/util.h"

struct seen {
	int n;
	size_t sizes[8];
	int pattern_ok;
	pid_t pid;
	long samples, other;
};

/* Records of the fake buffer carry bytes i*7 after their header. */
static int check_record(const struct perf_event_header *h, void *arg)
{
	struct seen *s = arg;
	const unsigned char *p = (const unsigned char *)(h + 1);
	size_t i;

	if (s->n < 8)
		s->sizes[s->n] = h->size;
	s->n++;
	for (i = 0; i < h->size - sizeof(*h); i++)
		if (p[i] != (unsigned char)(i * 7))
			s->pattern_ok = 0;
	return 0;
}

static void put(unsigned char *data, size_t data_size, uint64_t pos, const void *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		data[(pos + i) & (data_size - 1)] = ((const unsigned char *)src)[i];
}

static uint64_t put_record(unsigned char *data, size_t data_size, uint64_t pos, uint16_t size)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = size };
	unsigned char body[256];
	size_t i;

	for (i = 0; i < size - sizeof(h); i++)
		body[i] = (unsigned char)(i * 7);
	put(data, data_size, pos, &h, sizeof(h));
	put(data, data_size, pos + sizeof(h), body, size - sizeof(h));
	return pos + size;
}

static void test_wrap(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct ring r = { 0 };
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t start, pos;
	struct seen s = { .pattern_ok = 1 };
	long n;

	r.size = 3 * page;
	r.data_size = 2 * page;
	r.base = mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pg = r.base;
	pg->data_offset = page;
	pg->data_size = r.data_size;
	data = (unsigned char *)r.base + page;
	/* Positions are free-running counters: start in the fifth lap, 16 bytes
	 * before the end, so the first record straddles the end. */
	start = 5 * r.data_size - 16;
	pg->data_tail = start;
	pos = put_record(data, r.data_size, start, 48);
	pos = put_record(data, r.data_size, pos, 24);
	pos = put_record(data, r.data_size, pos, 200);
	pg->data_head = pos;
	n = ring_drain(&r, check_record, &s);
	CHECK_INT(n, 3, "three records drained");
	CHECK(s.sizes[0] == 48 && s.sizes[1] == 24 && s.sizes[2] == 200, "record sizes in order");
	CHECK(s.pattern_ok, "wrapped record joined byte for byte");
	CHECK_U64(pg->data_tail, pos, "tail released up to head");
	CHECK_INT(ring_drain(&r, check_record, &s), 0, "nothing more to drain");

	/* A record that claims more bytes than head allows is an error, not a hang. */
	pos = put_record(data, r.data_size, pos, 64);
	pg->data_head = pos - 8;
	CHECK(ring_drain(&r, check_record, &s) < 0 && strstr(oc_errmsg(), "bad record size"), "truncated record rejected");
	CHECK_U64(pg->data_tail, pg->data_head, "tail moved past the bad data");
	munmap(r.base, r.size);
	r.base = NULL;
	ring_unmap(&r);
}

static int count_live(const struct perf_event_header *h, void *arg)
{
	struct seen *s = arg;

	if (h->type == PERF_RECORD_SAMPLE) {
		/* sample_type IP|TID: ip, then pid/tid */
		const uint32_t *pidtid = (const uint32_t *)((const char *)(h + 1) + 8);

		if ((pid_t)pidtid[0] == s->pid)
			s->samples++;
	} else {
		s->other++;
	}
	return 0;
}

static void test_live(void)
{
	struct perf_event_attr a = { 0 };
	struct ring r;
	struct seen s = { .pid = getpid() };
	volatile unsigned long x = 0;
	int fd, round, drain_errors = 0;
	double t;

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = 200000;   /* 0.2 ms of CPU time */
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	a.exclude_kernel = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		SKIP("live ring buffer", "cannot open task-clock here");
		return;
	}
	CHECK(ring_map(&r, fd, 3) < 0 && strstr(oc_errmsg(), "power of two"), "3 data pages refused");
	CHECK(ring_map(&r, fd, 1) == 0, "one-page ring buffer mapped");
	/* 40 rounds of 5 ms: ~1000 samples of 24 bytes through a 4 KiB buffer. */
	for (round = 0; round < 40; round++) {
		t = now_seconds();
		while (now_seconds() - t < 0.005)
			x++;
		if (ring_drain(&r, count_live, &s) < 0)
			drain_errors++;
	}
	CHECK_INT(drain_errors, 0, "live drains succeed");
	CHECK(s.samples > 200, "samples of this process drained through many wrap-arounds");
	CHECK_INT(s.other, 0, "no lost or other records");
	ring_unmap(&r);
	close(fd);
}

int main(void)
{
	test_wrap();
	test_live();
	return test_done();
}
