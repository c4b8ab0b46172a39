/* stat output: perf stat's text layout, its -x CSV, and one JSON object. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "stat/stat.h"
#include "util/util.h"

static bool is_clock(const struct stat_counter *c)
{
	return c->attr.type == PERF_TYPE_SOFTWARE &&
	       (c->attr.config == PERF_COUNT_SW_TASK_CLOCK || c->attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

static bool is_hw(const struct stat_counter *c, uint64_t config)
{
	return c->attr.type == PERF_TYPE_HARDWARE && c->attr.config == config;
}

/* The value shown: clocks in msec (counted in ns), counts as they are. */
static double shown_value(const struct stat_counter *c)
{
	return is_clock(c) ? c->value.mean / 1e6 : c->value.mean;
}

static const struct stat_counter *find_counted(const struct stat_session *s,
					       bool (*match)(const struct stat_counter *))
{
	size_t i;
	for (i = 0; i < s->nr_counters; i++)
		if (s->counters[i].value.n > 0 && match(&s->counters[i]))
			return &s->counters[i];
	return NULL;
}

static bool match_cycles(const struct stat_counter *c) { return is_hw(c, PERF_COUNT_HW_CPU_CYCLES); }
static bool match_branches(const struct stat_counter *c) { return is_hw(c, PERF_COUNT_HW_BRANCH_INSTRUCTIONS); }

/* perf's shadow metrics for the generic events; false when there is none. */
static bool metric(const struct stat_session *s, const struct stat_counter *c, double *value, const char **unit)
{
	const struct stat_counter *base;
	double v = c->value.mean;

	if (c->value.n == 0)
		return false;
	if (is_clock(c)) {
		if (s->elapsed.mean <= 0)
			return false;
		*value = v / (s->elapsed.mean * 1e9);
		*unit = "CPUs utilized";
		return true;
	}
	if (c->attr.type == PERF_TYPE_SOFTWARE) {
		base = find_counted(s, is_clock);
		if (!base || base->value.mean <= 0)
			return false;
		*value = v / (base->value.mean / 1e9);
		*unit = "/sec";
		if (*value >= 1e9) {
			*value /= 1e9;
			*unit = "G/sec";
		} else if (*value >= 1e6) {
			*value /= 1e6;
			*unit = "M/sec";
		} else if (*value >= 1e3) {
			*value /= 1e3;
			*unit = "K/sec";
		}
		return true;
	}
	if (is_hw(c, PERF_COUNT_HW_INSTRUCTIONS) && (base = find_counted(s, match_cycles)) &&
	    base->value.mean > 0) {
		*value = v / base->value.mean;
		*unit = "insn per cycle";
		return true;
	}
	if (is_hw(c, PERF_COUNT_HW_BRANCH_MISSES) && (base = find_counted(s, match_branches)) &&
	    base->value.mean > 0) {
		*value = 100.0 * v / base->value.mean;
		*unit = "of all branches";
		return true;
	}
	return false;
}

static const char *state_text(const struct stat_counter *c)
{
	if (c->value.n > 0)
		return NULL;
	return c->ever_supported ? "<not counted>" : "<not supported>";
}

static void print_text(FILE *fp, const struct stat_session *s, const struct stat_print_opts *o)
{
	struct strbuf line = STRBUF_INIT;
	size_t i;

	fprintf(fp, "\n Performance counter stats for %s", o->target_desc);
	if (s->runs > 1)
		fprintf(fp, " (%d runs)", s->runs);
	fprintf(fp, ":\n\n");
	for (i = 0; i < s->nr_counters; i++) {
		const struct stat_counter *c = &s->counters[i];
		const char *state = state_text(c), *munit = NULL;
		double mval = 0, pct = c->pct.n > 0 ? c->pct.mean : 0;
		char num[64];
		bool has_metric = metric(s, c, &mval, &munit);
		bool scaled = c->value.n > 0 && pct < 100;

		if (state)
			snprintf(num, sizeof(num), "%s", state);
		else
			snprintf(num, sizeof(num), is_clock(c) ? "%.2f" : "%.0f", shown_value(c));
		sb_printf(&line, "%18s %-5s%-33s", num, is_clock(c) && !state ? "msec" : "", c->name);
		if (has_metric)
			sb_printf(&line, "# %8.3f %-23s", mval, munit);
		else
			sb_printf(&line, "%34s", "");
		if (s->runs > 1 && !state)
			sb_printf(&line, "  ( +- %5.2f%% )", stat_stats_rel_stddev(&c->value));
		if (scaled)
			sb_printf(&line, "  (%.2f%%)", pct);
		/* perf pads every column; the last one is not followed by blanks here */
		while (line.len && line.buf[line.len - 1] == ' ')
			line.buf[--line.len] = 0;
		fprintf(fp, "%s\n", sb_str(&line));
		sb_reset(&line);
	}
	sb_free(&line);
	fputc('\n', fp);
	if (s->runs > 1)
		fprintf(fp, "%18.9f +- %.9f seconds time elapsed  ( +- %5.2f%% )\n", s->elapsed.mean,
			stat_stats_stddev_mean(&s->elapsed), stat_stats_rel_stddev(&s->elapsed));
	else
		fprintf(fp, "%18.9f seconds time elapsed\n", s->elapsed.mean);
	if (o->show_times && s->runs == 1)
		fprintf(fp, "\n%18.9f seconds user\n%18.9f seconds sys\n", s->user_seconds, s->sys_seconds);
	fputc('\n', fp);
}

static void print_csv(FILE *fp, const struct stat_session *s, const struct stat_print_opts *o)
{
	const char *sep = o->csv_sep;
	size_t i;

	for (i = 0; i < s->nr_counters; i++) {
		const struct stat_counter *c = &s->counters[i];
		const char *state = state_text(c), *munit = "";
		double mval = 0;
		bool has_metric = metric(s, c, &mval, &munit);

		if (state)
			fprintf(fp, "%s", state);
		else
			fprintf(fp, is_clock(c) ? "%.2f" : "%.0f", shown_value(c));
		fprintf(fp, "%s%s%s%s", sep, is_clock(c) && !state ? "msec" : "", sep, c->name);
		if (s->runs > 1)
			fprintf(fp, "%s%.2f%%", sep, stat_stats_rel_stddev(&c->value));
		fprintf(fp, "%s%.0f%s%.2f%s", sep, s->runs ? (double)c->runtime_total / s->runs : 0.0, sep,
			c->pct.n > 0 ? c->pct.mean : 100.0, sep);
		if (has_metric)
			fprintf(fp, "%.3f%s%s", mval, sep, munit);
		else
			fprintf(fp, "%s", sep);
		fputc('\n', fp);
	}
}

static void print_json(FILE *fp, const struct stat_session *s, const struct stat_print_opts *o)
{
	json_t *top = json_object(), *arr = json_array();
	size_t i;
	char *text;

	json_object_set_new(top, "target", json_string(o->target_desc));
	json_object_set_new(top, "runs", json_integer(s->runs));
	json_object_set_new(top, "elapsed-seconds", json_real(s->elapsed.mean));
	if (s->runs > 1)
		json_object_set_new(top, "elapsed-stddev", json_real(stat_stats_stddev_mean(&s->elapsed)));
	if (o->show_times && s->runs == 1) {
		json_object_set_new(top, "user-seconds", json_real(s->user_seconds));
		json_object_set_new(top, "sys-seconds", json_real(s->sys_seconds));
	}
	for (i = 0; i < s->nr_counters; i++) {
		const struct stat_counter *c = &s->counters[i];
		json_t *e = json_object();
		const char *state = state_text(c), *munit;
		double mval;

		json_object_set_new(e, "event", json_string(c->name));
		json_object_set_new(e, "counter-value", state ? json_null() : json_real(shown_value(c)));
		json_object_set_new(e, "unit", json_string(is_clock(c) ? "msec" : ""));
		json_object_set_new(e, "state", json_string(state ? state : "counted"));
		json_object_set_new(e, "raw", json_integer((json_int_t)c->raw));
		json_object_set_new(e, "time-enabled", json_integer((json_int_t)c->enabled));
		json_object_set_new(e, "time-running", json_integer((json_int_t)c->running));
		json_object_set_new(e, "pcnt-running", json_real(c->pct.n > 0 ? c->pct.mean : 0));
		if (s->runs > 1)
			json_object_set_new(e, "variance", json_real(stat_stats_rel_stddev(&c->value)));
		if (metric(s, c, &mval, &munit)) {
			json_object_set_new(e, "metric-value", json_real(mval));
			json_object_set_new(e, "metric-unit", json_string(munit));
		}
		json_array_append_new(arr, e);
	}
	json_object_set_new(top, "counters", arr);
	text = json_dumps(top, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fprintf(fp, "%s\n", text);
	free(text);
	json_decref(top);
}

void stat_print(FILE *fp, const struct stat_session *s, const struct stat_print_opts *o)
{
	if (o->json)
		print_json(fp, s, o);
	else if (o->csv_sep)
		print_csv(fp, s, o);
	else
		print_text(fp, s, o);
}
