/* ocrec script — samples one per line, as perf script prints them. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "script/script.h"
#include "session/session.h"

static const char usage[] =
	"usage: ocrec script [-i FILE] [-F FIELDS] [--symfs DIR] [--kallsyms FILE]\n"
	"                    [--max-stack N] [--no-demangle] [--header | --header-only]\n"
	"\n"
	"Print the samples of a perf.data file (ocrec's or perf's, file or pipe mode) one per\n"
	"line, byte for byte as perf 6.1's 'perf script -F FIELDS' prints them, so tools that read\n"
	"perf script text (llvm-profgen --perfscript, BOLT, flame-graph scripts) read it.\n"
	"\n"
	"  -i, --input FILE        the perf.data file (default perf.data; - reads a pipe-mode\n"
	"                          stream from standard input)\n"
	"  -F, --fields LIST       comma-separated: comm,tid,pid,time,cpu,period,event,ip,sym,\n"
	"                          symoff,dso,addr,brstack,brstacksym. Default, perf's:\n"
	"                          comm,tid,cpu,time,period,event,ip,sym,symoff,dso (less what\n"
	"                          the samples lack). sym, symoff (needs sym) and dso print\n"
	"                          after the ip, or after each call-chain frame; brstacksym\n"
	"                          prints each branch as FROM_SYM+0xOFF/TO_SYM+0xOFF/flags\n"
	SESSION_OPTIONS_HELP
	"      --header            print the header before the samples\n"
	"      --header-only       print only the header, like 'perf report --header-only'\n";

enum { OPT_HEADER = OPT_FIRST_LOCAL, OPT_HEADER_ONLY };

int cmd_script(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "header", no_argument, NULL, OPT_HEADER },
		{ "header-only", no_argument, NULL, OPT_HEADER_ONLY },
		SESSION_LONG_OPTIONS,
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "perf.data", *field_spec = NULL;
	bool header = false, header_only = false;
	struct session_opts so = { 0 };
	struct session *s;
	unsigned fields = 0;
	int c, ret;

	while ((c = cli_getopt(argc, argv, "hi:F:", opts)) != -1) {
		if ((ret = cli_session_option("script", c, optarg, &so)) != 0) {
			if (ret < 0)
				return 2;
			continue;
		}
		switch (c) {
		case 'i': input = optarg; break;
		case 'F': field_spec = optarg; break;
		case OPT_HEADER: header = true; break;
		case OPT_HEADER_ONLY: header_only = true; break;
		case 'h': return cli_help(usage);
		default: return cli_bad_usage("script");
		}
	}
	if (optind < argc)
		return cli_error("script: unexpected argument '%s' (see 'ocrec script --help')", argv[optind]);
	if (field_spec && script_parse_fields(field_spec, &fields) < 0)
		return cli_fail();
	script_session_opts(&so);
	s = session_new(&so);
	if (session_open(s, input) < 0) {
		session_free(s);
		return cli_fail();
	}
	if (header || header_only)
		script_print_header(strcmp(input, "-") ? input : NULL, session_info(s), stdout);
	if (!header_only) {
		if (!field_spec)
			fields = script_default_fields(session_info(s));
		ret = script_check_fields(session_info(s), fields);
		if (ret == 0)
			ret = script_print_samples(s, fields, stdout);
	}
	session_free(s);
	if (header_only)
		return 0;
	if (fflush(stdout) != 0 || ret < 0)
		return ret < 0 ? cli_fail() : cli_error("script: write error on standard output");
	return 0;
}
