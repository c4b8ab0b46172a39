/* ocrec download — fetch the event tables for a CPU into the cache. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"

static const char usage[] =
	"usage: ocrec download [--cpu STR | --all] [--url BASE] [--force] [--quiet]\n"
	"\n"
	"Download Intel's perfmon event tables (mapfile.csv and the core, hybrid core,\n"
	"uncore and offcore files of a CPU) into the cache, $XDG_CACHE_HOME/ocrec/events\n"
	"(default ~/.cache/ocrec/events), laid out like the perfmon repository. Requests are\n"
	"conditional (ETag / If-Modified-Since, kept in <file>.etag beside each file); the\n"
	"cache changes only when every file arrived whole and parses.\n"
	"\n"
	"  --cpu STR     the files of this CPU (GenuineIntel-6-55-4) instead of this machine's\n"
	"  --all         every file mapfile.csv names\n"
	"  --url BASE    where the repository is (also $OCREC_EVENTS_URL); https, http or\n"
	"                file:// (default https://raw.githubusercontent.com/intel/perfmon/main)\n"
	"  --force       fetch everything again, without conditional requests\n"
	"  --quiet       no progress line and no summary\n"
	"\n"
	"Proxies come from the environment (https_proxy, http_proxy, no_proxy) as curl reads them.\n";

enum { OPT_CPU = OPT_FIRST_LOCAL, OPT_ALL, OPT_URL, OPT_FORCE, OPT_QUIET };

static void show_progress(const char *file, size_t done, size_t total, void *arg)
{
	(void)arg;
	if (total)
		fprintf(stderr, "\r\033[Kdownloading %s  %zu / %zu kB", file, done / 1024, total / 1024);
	else
		fprintf(stderr, "\r\033[Kdownloading %s  %zu kB", file, done / 1024);
}

int cmd_download(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, OPT_CPU },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "url", required_argument, NULL, OPT_URL },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct ev_download_opts o;
	struct ev_download_result res;
	struct cpu_source src = { NULL, NULL, NULL };
	struct cpu_desc cpu;
	bool quiet = false, tty = isatty_stderr();
	char *cache;
	int c, ret;

	memset(&o, 0, sizeof(o));
	while ((c = getopt_long(argc, argv, "hq", opts, NULL)) != -1) {
		if (global_option(c, optarg))
			continue;
		switch (c) {
		case OPT_CPU: src.cpu_string = optarg; break;
		case OPT_ALL: o.all = true; break;
		case OPT_URL: o.base_url = optarg; break;
		case OPT_FORCE: o.force = true; break;
		case 'q':
		case OPT_QUIET: quiet = true; break;
		case 'h': return cli_help(usage);
		default: return cli_bad_usage("download");
		}
	}
	if (optind < argc)
		return cli_error("download: unexpected argument '%s' (see 'ocrec download --help')", argv[optind]);
	if (src.cpu_string && o.all)
		return cli_error("download: --cpu and --all exclude each other");
	if (!o.all) {
		src.cpuinfo = g_opts.cpuinfo;
		src.cpuid = g_opts.cpuid;
		if (cpu_detect(&src, &cpu) < 0)
			return cli_fail();
		o.cpu_id = cpu.perfmon_id;
	}
	if (!quiet && tty)
		o.progress = show_progress;
	ret = ev_download(&o, &res);
	if (o.progress)
		fputs("\r\033[K", stderr);
	if (ret < 0)
		return cli_error("download failed, cache unchanged: %s", oc_errmsg());
	if (!quiet) {
		cache = ev_cache_dir();
		printf("%d files for %s: %d downloaded (%zu kB), %d unchanged, in %s\n", res.files,
		       o.all ? "all CPUs" : o.cpu_id, res.fetched, res.bytes / 1024, res.not_modified, cache);
		free(cache);
	}
	return 0;
}
