/* What the kernel offers: PMU devices under <sysfs>/bus/event_source/devices,
 * the core PMU's caps/branches, perf_event_paranoid, format terms, uncore boxes. */
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/cpu.h"
#include "util/util.h"

static char *devices_dir(const char *sysfs_root)
{
	return xasprintf("%s/bus/event_source/devices", sysfs_root);
}

static int read_int_file(const char *path, int fallback)
{
	char *s = read_line_file(path);
	char *end;
	long v;
	if (!s)
		return fallback;
	errno = 0;
	v = strtol(str_trim(s), &end, 10);
	if (errno || *end || end == str_trim(s))
		v = fallback;
	free(s);
	return (int)v;
}

/* Only for the live /sys, and only when the kernel exports no caps/branches
 * (kernels before 4.14): can this process open a branch-stack sampling event? */
static bool probe_branch_stack(void)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int kernel_pmu_probe(const char *sysfs_root, struct kernel_pmu *out)
{
	char *dir = devices_dir(sysfs_root), *path, *parent, *slash;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->caps_branches = -1;
	out->pmus = dir_list(dir, NULL, NULL, &n);
	free(dir);
	if (!out->pmus)
		return -1;
	out->nr_pmus = (int)n;

	out->hybrid = strv_contains(out->pmus, "cpu_core") && strv_contains(out->pmus, "cpu_atom");
	if (strv_contains(out->pmus, "cpu"))
		out->core_pmu = "cpu";
	else if (strv_contains(out->pmus, "cpu_core"))
		out->core_pmu = "cpu_core";

	if (out->core_pmu) {
		path = xasprintf("%s/bus/event_source/devices/%s/caps/branches", sysfs_root, out->core_pmu);
		out->caps_branches = read_int_file(path, -1);
		free(path);
		if (out->caps_branches >= 0)
			out->branch_stack = out->caps_branches > 0;
		else if (strcmp(sysfs_root, "/sys") == 0)
			out->branch_stack = probe_branch_stack();
	}

	/* procfs sits beside sysfs: /sys → /proc, FAKE/sys → FAKE/proc */
	parent = xstrdup(sysfs_root);
	n = strlen(parent);
	while (n > 1 && parent[n - 1] == '/')
		parent[--n] = 0;
	slash = strrchr(parent, '/');
	if (slash)
		*slash = 0;
	path = xasprintf("%s/proc/sys/kernel/perf_event_paranoid", slash ? parent : ".");
	out->perf_event_paranoid = read_int_file(path, -99);
	free(path);
	free(parent);
	return 0;
}

void kernel_pmu_free(struct kernel_pmu *k)
{
	strv_free(k->pmus);
	memset(k, 0, sizeof(*k));
}

char **pmu_format_terms(const char *sysfs_root, const char *pmu)
{
	char *dir = xasprintf("%s/bus/event_source/devices/%s/format", sysfs_root, pmu);
	char **v = dir_list(dir, NULL, NULL, NULL);

	free(dir);
	return v;
}

char *pmu_format_term_spec(const char *sysfs_root, const char *pmu, const char *term)
{
	char *path = xasprintf("%s/bus/event_source/devices/%s/format/%s", sysfs_root, pmu, term);
	char *s = read_line_file(path);
	free(path);
	if (s) {
		char *t = str_trim(s);
		memmove(s, t, strlen(t) + 1);
	}
	return s;
}

/* prefix itself, or prefix_N (N decimal) */
static bool is_box_of(const char *name, const void *arg)
{
	const char *prefix = arg;
	size_t len = strlen(prefix);
	const char *p;

	if (strncmp(name, prefix, len) != 0)
		return false;
	if (name[len] == 0)
		return true;
	if (name[len] != '_' || !name[len + 1])
		return false;
	for (p = name + len + 1; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/* uncore_cbox_2 before uncore_cbox_10 */
static int cmp_box(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	const char *ux = strrchr(x, '_'), *uy = strrchr(y, '_');
	size_t lx = strlen(x), ly = strlen(y);
	if (ux && uy && ux - x == uy - y && strncmp(x, y, (size_t)(ux - x)) == 0 && lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(x, y);
}

char **pmu_boxes(const char *sysfs_root, const char *prefix)
{
	char *dir = devices_dir(sysfs_root);
	size_t n;
	char **v = dir_list(dir, is_box_of, prefix, &n);

	free(dir);
	if (v)
		sort_items(v, n, sizeof(*v), cmp_box);
	return v;
}
