/* ring.c — perf_event mmap ring buffers.
 * Protocol: docs/perfdata.md, "The ring buffer" (head with acquire, records may
 * wrap at the end of the data area, tail released after they are consumed). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture/capture.h"
#include "util/util.h"

int ring_map(struct ring *r, int fd, size_t data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	memset(r, 0, sizeof(*r));
	if (data_pages == 0 || (data_pages & (data_pages - 1)))
		return oc_err("ring buffer: %zu data pages is not a power of two", data_pages);
	/* Read-write: the kernel then never overwrites records we have not read. */
	p = mmap(NULL, (data_pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return oc_err_errno("cannot map a %zu KiB perf ring buffer%s", data_pages * page / 1024,
				    errno == EPERM ? " (over kernel.perf_event_mlock_kb and RLIMIT_MEMLOCK)" : "");
	r->base = p;
	r->size = (data_pages + 1) * page;
	r->data_size = data_pages * page;
	return 0;
}

void ring_unmap(struct ring *r)
{
	if (r->base)
		munmap(r->base, r->size);
	free(r->copybuf);
	memset(r, 0, sizeof(*r));
}

long ring_drain(struct ring *r, ring_record_fn fn, void *arg)
{
	struct perf_event_mmap_page *pg = r->base;
	unsigned char *data = (unsigned char *)r->base + (pg->data_offset ? pg->data_offset
						      : (uint64_t)sysconf(_SC_PAGESIZE));
	uint64_t mask = r->data_size - 1;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	long n = 0;

	while (tail < head) {
		size_t off = tail & mask;
		const struct perf_event_header *hdr = (const void *)(data + off);
		size_t size = hdr->size;

		if (size < sizeof(*hdr) || size > head - tail) {
			/* A corrupt size would loop forever: drop what is left. */
			__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
			return oc_err("ring buffer: bad record size %zu at offset %zu", size, off);
		}
		if (off + size > r->data_size) {
			/* The record wraps: join its two pieces. */
			size_t first = r->data_size - off;

			if (r->copybuf_size < size) {
				r->copybuf = xrealloc(r->copybuf, size);
				r->copybuf_size = size;
			}
			memcpy(r->copybuf, data + off, first);
			memcpy(r->copybuf + first, data, size - first);
			hdr = (const void *)r->copybuf;
		}
		if (fn(hdr, arg) < 0) {
			__atomic_store_n(&pg->data_tail, tail + size, __ATOMIC_RELEASE);
			return -1;
		}
		tail += size;
		n++;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}
