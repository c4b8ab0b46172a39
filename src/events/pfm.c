/* pfm.c — libpfm4 in the resolver: its own syntax (skl::BR_INST_RETIRED:ALL_BRANCHES:u)
 * and its tables for the CPUs no JSON table covers (AMD: RETIRED_BRANCH_INSTRUCTIONS).
 * LIBPFM_FORCE_PMU (read by libpfm4 itself) makes another CPU's PMU active. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "dlib/dlib.h"
#include "events/ev-internal.h"
#include "events/pfm-glue.h"

/* libpfm4 finds its PMUs on the CPU it runs on (or takes LIBPFM_FORCE_PMU): its tables
 * describe another CPU named with --cpu only when the user forces that CPU's PMU. */
static bool pfm_describes(const struct ev_context *ctx)
{
	return ctx->cpu.this_machine || getenv("LIBPFM_FORCE_PMU");
}

bool ev_pfm_ready(struct ev_context *ctx, bool explicit_pmu)
{
	if (!explicit_pmu && !pfm_describes(ctx))
		return false;
	if (ctx->pfm_state == 0)
		ctx->pfm_state = evpfm_acquire() == 0 ? 1 : -1;
	return ctx->pfm_state == 1;
}

void ev_pfm_release(struct ev_context *ctx)
{
	if (ctx->pfm_state != 0)
		evpfm_release();
	ctx->pfm_state = 0;
}

char *ev_pfm_coverage(struct ev_context *ctx)
{
	const char *rel;

	if (!pfm_describes(ctx))
		return xasprintf("libpfm4 knows the events of the CPU it runs on, not of %s "
				 "(LIBPFM_FORCE_PMU=NAME picks the PMU of another CPU)", ctx->cpu.perfmon_id);
	if (!ev_pfm_ready(ctx, false) || evpfm_core_pmu())
		return xstrdup("its events come from libpfm4");
	rel = dlib_pfm_release();
	return xasprintf("libpfm4%s%s has no PMU for this machine's CPU: a newer libpfm4 may have one, "
			 "or LIBPFM_FORCE_PMU=NAME picks one it has", *rel ? " " : "", rel);
}

/* The sysfs PMU whose type is type ("cpu" for PERF_TYPE_RAW); NULL when none. */
static char *pmu_of_type(struct ev_context *ctx, uint32_t type)
{
	const char *root = ctx->sysfs_root ? ctx->sysfs_root : "/sys";
	char *dir = xasprintf("%s/bus/event_source/devices", root), *found = NULL;
	DIR *d;
	struct dirent *de;

	if (type == PERF_TYPE_RAW && ev_pmu_get(ctx, "cpu")->in_sysfs) {
		free(dir);
		return xstrdup("cpu");
	}
	d = opendir(dir);
	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (ev_pmu_get(ctx, de->d_name)->type == type)
			found = xstrdup(de->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	return found;
}

static char *flags_of(const struct perf_event_attr *a)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned i;

	if (a->exclude_kernel && !a->exclude_user)
		sb_putc(&sb, 'u');
	else if (a->exclude_user && !a->exclude_kernel)
		sb_putc(&sb, 'k');
	for (i = 0; i < a->precise_ip; i++)
		sb_putc(&sb, 'p');
	return sb_detach(&sb);
}

static char *name_of(const char *spec)
{
	char *n = xstrdup(spec), *p;
	for (p = n; *p; p++)
		*p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
	return n;
}

int ev_resolve_pfm(struct ev_context *ctx, const char *spec, struct ev_resolved *out)
{
	struct perf_event_attr attr;
	struct ev_attr *a;
	char *fstr, *desc, *pmu, *flags, *name;
	const char *err = NULL;
	int ret;

	if (!ev_pfm_ready(ctx, strstr(spec, "::") != NULL))
		return 1;
	ret = evpfm_encode(spec, &attr, sizeof(attr), &fstr, &desc, &err);
	if (ret == 1)
		return 1;
	if (ret < 0)
		return oc_err("%s: libpfm4: %s", spec, err);
	attr.size = sizeof(attr);
	a = ev_resolved_add(out);
	a->attr = attr;
	pmu = pmu_of_type(ctx, attr.type);
	flags = flags_of(&attr);
	name = name_of(spec);
	if (pmu || attr.config1 || attr.config2 || attr.type != PERF_TYPE_RAW) {
		struct strbuf sb = STRBUF_INIT;
		sb_printf(&sb, "%s/config=0x%llx", pmu ? pmu : "cpu", (unsigned long long)attr.config);
		if (attr.config1)
			sb_printf(&sb, ",config1=0x%llx", (unsigned long long)attr.config1);
		if (attr.config2)
			sb_printf(&sb, ",config2=0x%llx", (unsigned long long)attr.config2);
		sb_printf(&sb, ",name=%s/%s", name, flags);
		a->perf_string = sb_detach(&sb);
	} else {
		/* no core PMU in sysfs (a VM): the raw form perf always parses */
		a->perf_string = *flags ? xasprintf("r%llx:%s", (unsigned long long)attr.config, flags)
					: xasprintf("r%llx", (unsigned long long)attr.config);
	}
	a->pmu = pmu ? pmu : xstrdup("cpu");
	a->name = name;
	if (desc)
		out->desc = xasprintf("%s (libpfm4: %s)", desc, fstr ? fstr : spec);
	free(flags);
	free(fstr);
	free(desc);
	return 0;
}
