/* ocrec download — fetch the event tables for a CPU into the cache. */
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cpu/cpu.h"
#include "events/events.h"

static const char usage[] =
	"usage: ocrec download [--from perfmon|linux] [--cpu STR | --all] [--url BASE] [--force] [--quiet]\n"
	"\n"
	"Download the event tables of a CPU into the cache: Intel's perfmon tables (mapfile.csv\n"
	"and the core, hybrid core, uncore and offcore files of the CPU) into\n"
	"$XDG_CACHE_HOME/ocrec/events, or the Linux kernel's pmu-events (mapfile.csv and every\n"
	"file of the CPU's directory, e.g. amdzen4) into $XDG_CACHE_HOME/ocrec/linux/x86\n"
	"(default ~/.cache/ocrec/...), laid out like their source. Requests are conditional\n"
	"(ETag / If-Modified-Since, kept in <file>.etag beside each file); the cache changes\n"
	"only when every file arrived whole and parses.\n"
	"\n"
	"  --from SOURCE perfmon (Intel's repository) or linux (the kernel's tools/perf/\n"
	"                pmu-events/arch/x86: AMD and the others); default: perfmon for\n"
	"                GenuineIntel, linux for every other vendor (of --cpu, --cpuinfo or\n"
	"                this machine)\n"
	"  --cpu STR     the files of this CPU (GenuineIntel-6-55-4) instead of this machine's\n"
	"  --all         every file (linux: every directory) mapfile.csv names\n"
	"  --url BASE    where the tables are (also $OCREC_EVENTS_URL, $OCREC_LINUX_EVENTS_URL):\n"
	"                https, http or file://; default\n"
	"                https://raw.githubusercontent.com/intel/perfmon/main, or\n"
	"                https://raw.githubusercontent.com/torvalds/linux/master/tools/perf/pmu-events/arch/x86\n"
	"                whose directories GitHub's contents API lists (one request per CPU;\n"
	"                60 an hour without a token); other http servers must list BASE/DIR/\n"
	"                (a JSON array like GitHub's, or an HTML index page)\n"
	"  --force       fetch everything again, without conditional requests\n"
	"  --quiet       no progress line and no summary\n"
	"\n"
	"Proxies come from the environment (https_proxy, http_proxy, no_proxy) as curl reads them.\n";

enum { OPT_CPU = OPT_FIRST_LOCAL, OPT_ALL, OPT_URL, OPT_FORCE, OPT_QUIET, OPT_FROM };

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
		{ "from", required_argument, NULL, OPT_FROM },
		GLOBAL_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct ev_download_opts o;
	struct ev_download_result res;
	struct cpu_source src = { NULL, NULL, NULL };
	struct cpu_desc cpu;
	bool quiet = false, tty = isatty_stderr(), have_cpu;
	const char *from = NULL;
	char *cache;
	int c, ret;

	memset(&o, 0, sizeof(o));
	while ((c = cli_getopt(argc, argv, "hq", opts)) != -1) {
		switch (c) {
		case OPT_CPU: src.cpu_string = optarg; break;
		case OPT_ALL: o.all = true; break;
		case OPT_URL: o.base_url = optarg; break;
		case OPT_FORCE: o.force = true; break;
		case OPT_FROM: from = optarg; break;
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
	if (from && ev_source_parse(from, &o.source) < 0)
		return cli_error("download: %s", oc_errmsg());
	src.cpuinfo = g_opts.cpuinfo;
	src.cpuid = g_opts.cpuid;
	/* --all needs the CPU only for the default source */
	have_cpu = (!o.all || !from) && cpu_detect(&src, &cpu) == 0;
	if (!have_cpu && (!o.all || !from))
		return cli_fail();
	if (!from)
		o.source = ev_default_source(&cpu);
	if (!o.all)
		o.cpu_id = cpu.perfmon_id;
	if (!quiet && tty)
		o.progress = show_progress;
	ret = ev_download(&o, &res);
	if (o.progress)
		fputs("\r\033[K", stderr);
	if (ret < 0)
		return cli_error("download failed, cache unchanged: %s", oc_errmsg());
	if (!quiet) {
		cache = ev_source_cache_dir(o.source);
		printf("%d files for %s%s%s%s: %d downloaded (%zu kB), %d unchanged", res.files,
		       o.all ? "all CPUs" : o.cpu_id, *res.table ? " (" : "", res.table, *res.table ? ")" : "",
		       res.fetched, res.bytes / 1024, res.not_modified);
		if (res.removed)
			printf(", %d removed", res.removed);
		printf(", in %s\n", cache);
		free(cache);
	}
	return 0;
}
