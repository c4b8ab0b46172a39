/* fuzz-perfdata.c — libFuzzer target for the perf.data reader and `ocrec
 * script`'s printer on top of it: any input must give either output or one
 * error, never a crash, a hang or a leak.
 * Build: make fuzz; run: sh tests/fuzz/run-fuzz.sh SECONDS. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "script/script.h"
#include "session/session.h"
#include "util/util.h"

static void quiet(const char *msg)
{
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/ocrec-fuzz.XXXXXX";
	int fd = mkstemp(path);
	static FILE *devnull;
	struct session *s;

	if (fd < 0)
		return 0;
	if (!devnull)
		devnull = fopen("/dev/null", "w");
	oc_set_warn_handler(quiet);
	if (devnull && write(fd, data, size) == (ssize_t)size) {
		struct session_opts so = { 0 };
		script_session_opts(&so);
		s = session_new(&so);
		if (session_open(s, path) == 0) {
			/* every field, whether the samples carry it or not */
			script_print_header(path, session_info(s), devnull);
			script_print_samples(s, SF_COMM | SF_TID | SF_PID | SF_TIME | SF_CPU | SF_PERIOD |
					     SF_EVENT | SF_IP | SF_ADDR | SF_BRSTACK, devnull);
		}
		session_free(s);
	}
	close(fd);
	unlink(path);
	return 0;
}
