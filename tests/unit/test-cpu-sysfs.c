/* Unit tests for the kernel part of src/cpu: PMUs, caps/branches,
 * perf_event_paranoid, format terms and uncore boxes from fake sysfs trees. */
#include <stdlib.h>

#include "tap.h"
#include "cpu/cpu.h"
#include "util/util.h"

static char *tree(const char *name)
{
	const char *r = getenv("OCREC_ROOT");
	return xasprintf("%s/tests/fixtures/cpu/%s/sys", r && *r ? r : ".", name);
}

static size_t count(char **v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

int main(void)
{
	struct kernel_pmu k;
	char *root, **v, *spec;

	root = tree("sysfs-skx");
	CHECK(kernel_pmu_probe(root, &k) == 0, "probe skx tree");
	CHECK_STR(k.core_pmu, "cpu", "skx core PMU is cpu");
	CHECK_INT(k.caps_branches, 32, "skx caps/branches");
	CHECK(k.branch_stack && !k.hybrid, "skx: branch stack, not hybrid");
	CHECK_INT(k.perf_event_paranoid, 1, "paranoid read from proc beside the tree");
	CHECK(k.nr_pmus == 27 && !k.pmus[k.nr_pmus] && !strcmp(k.pmus[0], "breakpoint"),
	      "all PMUs listed, sorted, NULL-terminated");
	kernel_pmu_free(&k);

	v = pmu_boxes(root, "uncore_cha");
	CHECK_INT(count(v), 12, "12 CHA boxes (uncore_chabox_fake is not one)");
	CHECK(v && !strcmp(v[0], "uncore_cha_0") && !strcmp(v[9], "uncore_cha_9") &&
	      !strcmp(v[10], "uncore_cha_10"), "boxes in numeric order");
	strv_free(v);
	v = pmu_boxes(root, "uncore_imc");
	CHECK_INT(count(v), 6, "6 IMC boxes");
	strv_free(v);
	v = pmu_boxes(root, "uncore_nope");
	CHECK(v && count(v) == 0, "no boxes: empty list, not an error");
	strv_free(v);

	v = pmu_format_terms(root, "cpu");
	CHECK(count(v) == 12 && !strcmp(v[0], "any") && !strcmp(v[11], "umask"), "cpu format terms sorted");
	strv_free(v);
	v = pmu_format_terms(root, "uncore_cha_3");
	CHECK(count(v) == 3 && !strcmp(v[1], "filter_tid"), "uncore format terms");
	strv_free(v);
	spec = pmu_format_term_spec(root, "uncore_cha_3", "filter_tid");
	CHECK_STR(spec, "config1:0-8", "format term spec");
	free(spec);
	CHECK(!pmu_format_terms(root, "nosuchpmu") && strstr(oc_errmsg(), "nosuchpmu"),
	      "missing PMU: NULL and a message naming it");
	free(root);

	root = tree("sysfs-adl");
	CHECK(kernel_pmu_probe(root, &k) == 0 && k.hybrid && !strcmp(k.core_pmu, "cpu_core") &&
	      k.caps_branches == 32 && k.branch_stack, "hybrid tree: cpu_core + cpu_atom");
	kernel_pmu_free(&k);
	free(root);

	root = tree("sysfs-nopmu");
	CHECK(kernel_pmu_probe(root, &k) == 0 && !k.core_pmu && !k.branch_stack && k.caps_branches == -1 &&
	      k.perf_event_paranoid == 2, "VM tree: no core PMU, no branch stack");
	kernel_pmu_free(&k);
	free(root);

	root = tree("sysfs-old-kernel");
	CHECK(kernel_pmu_probe(root, &k) == 0 && !strcmp(k.core_pmu, "cpu") && k.caps_branches == -1 &&
	      !k.branch_stack && k.perf_event_paranoid == -99,
	      "no caps/branches in a fake tree: not probed, no branch stack; paranoid unreadable");
	kernel_pmu_free(&k);
	free(root);

	CHECK(kernel_pmu_probe("/nonexistent-sysfs", &k) < 0 && strstr(oc_errmsg(), "/nonexistent-sysfs"),
	      "missing sysfs root named");

	CHECK(kernel_pmu_probe("/sys", &k) == 0 && k.nr_pmus > 0 && k.perf_event_paranoid != -99,
	      "live /sys readable");
	kernel_pmu_free(&k);
	return test_done();
}
