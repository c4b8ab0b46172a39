/* context.c — the event context: which CPU, which tables, and the resolver
 * that tries perf's syntax, the perfmon tables and libpfm4 in turn. */
#include <stdlib.h>
#include <string.h>

#include "events/ev-internal.h"

struct ev_context *ev_open(const struct ev_options *opts)
{
	struct ev_context *ctx = xcalloc(1, sizeof(*ctx));

	if (opts && opts->cpu) {
		ctx->cpu = *opts->cpu;
		ctx->have_cpu = true;
	}
	if (opts && opts->events_path)
		ctx->events_path = xstrdup(opts->events_path);
	if (opts && opts->sysfs_root)
		ctx->sysfs_root = xstrdup(opts->sysfs_root);
	ctx->record_mode = opts && opts->record_mode;
	return ctx;
}

void ev_set_cpuid_path(struct ev_context *ctx, const char *path)
{
	free(ctx->cpuid_path);
	ctx->cpuid_path = path ? xstrdup(path) : NULL;
}

void ev_set_quiet(struct ev_context *ctx, bool quiet)
{
	ctx->quiet = quiet;
}

void ev_close(struct ev_context *ctx)
{
	struct ev_pmu *pmu, *next;

	if (!ctx)
		return;
	for (pmu = ctx->pmus; pmu; pmu = next) {
		next = pmu->next;
		free(pmu->name);
		strv_free(pmu->terms);
		strv_free(pmu->specs);
		free(pmu);
	}
	ev_pfm_release(ctx);
	ev_tables_free(ctx->tables);
	free(ctx->no_table_hint);
	free(ctx->cpuid_path);
	free(ctx->events_path);
	free(ctx->sysfs_root);
	free(ctx);
}

int ev_resolve(struct ev_context *ctx, const char *spec, struct ev_resolved *out)
{
	char *pfm_said = NULL;
	int ret;

	memset(out, 0, sizeof(*out));
	out->input = xstrdup(spec);
	if (!*spec) {
		ret = oc_err("empty event name");
		goto fail;
	}
	ret = 1;
	if (strchr(spec, '/'))
		ret = ev_resolve_table(ctx, spec, out);
	if (ret == 1)
		ret = ev_resolve_perf_syntax(ctx, spec, out);
	if (ret == 1 && !strstr(spec, "::"))
		ret = ev_resolve_table(ctx, spec, out);
	if (ret == 1) {
		ret = ev_resolve_pfm(ctx, spec, out);
		if (ret < 0 && !strstr(spec, "::")) {
			/* libpfm4 half-knew the name (EVENT.UMASK with a bad umask): the
			 * user more likely mistyped a table name, so suggest those */
			const char *msg = oc_errmsg();
			size_t len = strlen(spec);
			pfm_said = xstrdup(!strncmp(msg, spec, len) && msg[len] == ':' ? msg + len + 2 : msg);
			ret = 1;
		}
	}
	if (ret == 1) {
		struct strbuf sb = STRBUF_INIT;
		ev_suggest(ctx, spec, &sb);
		if (pfm_said)
			sb_printf(&sb, " (%s)", pfm_said);
		if (!ctx->tables && ctx->no_table_hint)
			sb_printf(&sb, " (%s)", ev_no_table_hint(ctx));
		else if (ctx->tables && ctx->tables->origin == EV_ORIGIN_BUILTIN)
			sb_printf(&sb, " (only the built-in architectural events are known offline: run "
				  "'ocrec download --cpu %s' for the full table)", ctx->cpu.perfmon_id);
		ret = oc_err("%s: unknown event%s", spec, sb_str(&sb));
		sb_free(&sb);
	}
	free(pfm_said);
	if (ret == 0) {
		if (out->deprecated && !ctx->quiet)
			oc_warn("%s is deprecated: %s", spec, out->desc ? out->desc : "");
		return 0;
	}
fail:
	ev_resolved_free(out);
	return -1;
}

void ev_resolved_free(struct ev_resolved *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nr_attrs; i++) {
		free(r->attrs[i].pmu);
		free(r->attrs[i].perf_string);
		free(r->attrs[i].name);
	}
	free(r->attrs);
	free(r->input);
	free(r->desc);
	memset(r, 0, sizeof(*r));
}

char *ev_perf_string(const struct ev_resolved *r)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < r->nr_attrs; i++) {
		if (i)
			sb_putc(&sb, ',');
		sb_puts(&sb, r->attrs[i].perf_string);
	}
	return sb.buf ? sb_detach(&sb) : xstrdup("");
}
