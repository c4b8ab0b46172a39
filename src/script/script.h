/* script.h — `ocrec script`: samples one per line in perf script's format
 * (perf 6.1), and the header as `perf report --header-only` prints it. */
#ifndef OCREC_SCRIPT_H
#define OCREC_SCRIPT_H

#include <stdint.h>
#include <stdio.h>

#include "perfdata/perfdata.h"

enum script_field {
	SF_COMM = 1 << 0, SF_TID = 1 << 1, SF_PID = 1 << 2, SF_TIME = 1 << 3, SF_CPU = 1 << 4,
	SF_PERIOD = 1 << 5, SF_EVENT = 1 << 6, SF_IP = 1 << 7, SF_ADDR = 1 << 8,
	SF_BRSTACK = 1 << 9, SF_SYM = 1 << 10, SF_SYMOFF = 1 << 11, SF_DSO = 1 << 12,
	SF_BRSTACKSYM = 1 << 13,
	SF_DEFAULT = 1u << 31,   /* perf's default set: redone when a pipe's attrs arrive */
};

struct sym_options;

/* perf's -F list ("ip,sym,dso"); 0, or -1 + oc_err naming the unknown field. */
int script_parse_fields(const char *spec, unsigned *fields);
/* Can every attr of the file give these fields, and do they go together (symoff
 * needs sym)? 0, or -1 + oc_err (perf's message). */
int script_check_fields(const struct pd_info *info, unsigned fields);
/* The default fields for a file, as perf script picks them (with SF_DEFAULT). */
unsigned script_default_fields(const struct pd_info *info);
/* Print every sample of r; symbols (sym, dso, brstacksym, user call-chain
 * offsets) come from the symbol layer with sym (NULL: the defaults). 0, or
 * -1 + oc_err (malformed data). */
int script_print_samples(struct pd_reader *r, unsigned fields, const struct sym_options *sym,
			 FILE *out);
/* A `perf script --show-mmap-events` line ("... PERF_RECORD_MMAP2 PID/TID:
 * [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH"), as llvm-profgen reads it: 0 with
 * the fields (path points into line), -1 when the line is not one. */
int script_parse_mmap_line(const char *line, int64_t *pid, uint64_t *start, uint64_t *len,
			   uint64_t *pgoff, const char **path);
/* The header, like `perf report --header-only`. */
void script_print_header(const char *path, const struct pd_info *info, FILE *out);

#endif
