/* fuzz-perfdata.c — libFuzzer target for the perf.data reader: any input must
 * give either records or one error, never a crash, a hang or a leak.
 * Build: make fuzz; run: sh tests/fuzz/run-fuzz.sh SECONDS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "util/util.h"

static int count(const struct pd_event *ev, void *arg)
{
	(*(uint64_t *)arg) += ev->size;
	return 0;
}

static void quiet(const char *msg)
{
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/ocrec-fuzz.XXXXXX";
	int fd = mkstemp(path);
	struct pd_reader *r;
	uint64_t total = 0;

	if (fd < 0)
		return 0;
	oc_set_warn_handler(quiet);
	if (write(fd, data, size) == (ssize_t)size) {
		r = pd_open(path);
		if (r) {
			pd_for_each(r, count, &total);
			pd_close(r);
		}
	}
	close(fd);
	unlink(path);
	return 0;
}
