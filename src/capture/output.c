/* output.c — the perf.data file a recording writes: an existing one is kept as
 * FILE.old, like perf record. */
#include <stdio.h>
#include <stdlib.h>

#include "capture/capture.h"
#include "util/util.h"

int output_keep_old(const char *path)
{
	char *old;
	int rc = 0;

	if (!file_exists(path))
		return 0;
	old = xasprintf("%s.old", path);
	if (rename(path, old) < 0)
		rc = oc_err_errno("cannot rename %s to %s", path, old);
	free(old);
	return rc;
}
