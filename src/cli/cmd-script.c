/* ocrec script — samples one per line, as perf script prints them. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "perfdata/perfdata.h"
#include "script/script.h"
#include "symbols/symbols.h"

static const char usage[] =
	"usage: ocrec script [-i FILE] [-F FIELDS] [--symfs DIR] [--kallsyms FILE]\n"
	"                    [--header | --header-only]\n"
	"\n"
	"Print the samples of a perf.data file (ocrec's or perf's, file or pipe mode) one per\n"
	"line, byte for byte as perf 6.1's 'perf script -F FIELDS' prints them, so tools that read\n"
	"perf script text (llvm-profgen --perfscript, BOLT, flame-graph scripts) read it.\n"
	"\n"
	"  -i, --input FILE   the perf.data file (default perf.data; - reads a pipe-mode stream\n"
	"                     from standard input)\n"
	"  -F, --fields LIST  comma-separated: comm,tid,pid,time,cpu,period,event,ip,sym,\n"
	"                     symoff,dso,addr,brstack,brstacksym. Default, perf's:\n"
	"                     comm,tid,cpu,time,period,event,ip,sym,symoff,dso (less what\n"
	"                     the samples lack). sym, symoff (needs sym) and dso print after\n"
	"                     the ip, or after each call-chain frame; brstacksym prints each\n"
	"                     branch as FROM_SYM+0xOFF/TO_SYM+0xOFF/flags\n"
	"      --symfs DIR    look for binaries under DIR, like perf\n"
	"      --kallsyms FILE\n"
	"                     kernel symbols (default: /proc/kallsyms when the recorded kernel\n"
	"                     is the running one or has no build-id, and no --symfs)\n"
	"      --header       print the header before the samples\n"
	"      --header-only  print only the header, like 'perf report --header-only'\n";

enum { OPT_HEADER = OPT_FIRST_LOCAL, OPT_HEADER_ONLY, OPT_SYMFS, OPT_KALLSYMS };

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		{ "symfs", required_argument, NULL, OPT_SYMFS },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "perf.data", *field_spec = NULL;
	bool header = false, header_only = false;
	struct sym_options sym = { 0 };
	struct pd_reader *r;
	unsigned fields = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, "hi:F:", opts, NULL)) != -1) {
		if (global_option(c, optarg))
			continue;
		switch (c) {
		case 'i': input = optarg; break;
		case 'F': field_spec = optarg; break;
		case OPT_HEADER: header = true; break;
		case OPT_HEADER_ONLY: header_only = true; break;
		case OPT_SYMFS: sym.symfs = optarg; break;
		case OPT_KALLSYMS: sym.kallsyms = optarg; break;
		case 'h': return cli_help(usage);
		default: return cli_bad_usage("script");
		}
	}
	if (optind < argc)
		return cli_error("script: unexpected argument '%s' (see 'ocrec script --help')", argv[optind]);
	if (field_spec && script_parse_fields(field_spec, &fields) < 0)
		return cli_fail();
	r = pd_open(input);
	if (!r)
		return cli_fail();
	if (header || header_only)
		script_print_header(strcmp(input, "-") ? input : NULL, pd_get_info(r), stdout);
	if (header_only) {
		pd_close(r);
		return 0;
	}
	if (!field_spec)
		fields = script_default_fields(pd_get_info(r));
	if (script_check_fields(pd_get_info(r), fields) < 0) {
		pd_close(r);
		return cli_fail();
	}
	ret = script_print_samples(r, fields, &sym, stdout);
	pd_close(r);
	if (fflush(stdout) != 0 || ret < 0)
		return ret < 0 ? cli_fail() : cli_error("script: write error on standard output");
	return 0;
}
