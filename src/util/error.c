/* Error and warning plumbing between the library and the front end. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static _Thread_local char errbuf[1024];
static oc_warn_fn warn_handler;
int oc_verbose;

static void set_msg(const char *fmt, va_list ap, const char *suffix) OC_PRINTF(1, 0);
static void set_msg(const char *fmt, va_list ap, const char *suffix)
{
	int n = vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	if (n < 0)
		errbuf[0] = 0;
	if (suffix) {
		size_t len = strlen(errbuf);
		snprintf(errbuf + len, sizeof(errbuf) - len, ": %s", suffix);
	}
}

int oc_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_msg(fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int oc_err_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	set_msg(fmt, ap, strerror(e));
	va_end(ap);
	errno = e;
	return -1;
}

const char *oc_errmsg(void) { return errbuf; }
void oc_err_clear(void) { errbuf[0] = 0; }

void oc_set_warn_handler(oc_warn_fn fn) { warn_handler = fn; }

void oc_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (warn_handler)
		warn_handler(msg);
	else
		fprintf(stderr, "ocrec: warning: %s\n", msg);
}

void oc_debug(int level, const char *fmt, ...)
{
	va_list ap;
	if (level > oc_verbose)
		return;
	va_start(ap, fmt);
	fputs("ocrec: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
