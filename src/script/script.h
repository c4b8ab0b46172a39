/* script.h — `ocrec script`: samples one per line in perf script's format
 * (perf 6.1), and the header as `perf report --header-only` prints it. */
#ifndef OCREC_SCRIPT_H
#define OCREC_SCRIPT_H

#include <stdint.h>
#include <stdio.h>

#include "perfdata/perfdata.h"
#include "session/session.h"

enum script_field {
	SF_COMM = 1 << 0, SF_TID = 1 << 1, SF_PID = 1 << 2, SF_TIME = 1 << 3, SF_CPU = 1 << 4,
	SF_PERIOD = 1 << 5, SF_EVENT = 1 << 6, SF_IP = 1 << 7, SF_ADDR = 1 << 8,
	SF_BRSTACK = 1 << 9, SF_SYM = 1 << 10, SF_SYMOFF = 1 << 11, SF_DSO = 1 << 12,
	SF_BRSTACKSYM = 1 << 13,
	SF_DEFAULT = 1u << 31,   /* perf's default set: redone when a pipe's attrs arrive */
};

/* perf's -F list ("ip,sym,dso"); 0, or -1 + oc_err naming the unknown field. */
int script_parse_fields(const char *spec, unsigned *fields);
/* Can every attr of the file give these fields, and do they go together (symoff
 * needs sym)? 0, or -1 + oc_err (perf's message). */
int script_check_fields(const struct pd_info *info, unsigned fields);
/* The default fields for a file, as perf script picks them (with SF_DEFAULT). */
unsigned script_default_fields(const struct pd_info *info);
/* The session options perf script reads with (time order, perf's kallsyms
 * rule, no build-id warnings), set on top of the user's. */
void script_session_opts(struct session_opts *o);
/* Print every sample of the session's open input (made with
 * script_session_opts()); symbols (sym, dso, brstacksym, call-chain frames)
 * come from the session. 0, or -1 + oc_err (malformed data: the samples
 * before it are printed). */
int script_print_samples(struct session *s, unsigned fields, FILE *out);
/* The header, like `perf report --header-only`. */
void script_print_header(const char *path, const struct pd_info *info, FILE *out);

#endif
