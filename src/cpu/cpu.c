/* cpu_detect(): which CPU — this one (CPUID), or one named by a perfmon CPU
 * string, a /proc/cpuinfo copy or a CPUID dump — then its name and LBR from
 * the tables (lbr_table.c). */
#define _DEFAULT_SOURCE   /* strsep */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu.h"
#include "cpu/cpuid.h"
#include "util/util.h"

static const char cpu_string_form[] =
	"VENDOR-FAMILY-MODEL-STEPPING like GenuineIntel-6-55-4 (family decimal, model and stepping hex)";

static int parse_uint(const char *s, int base, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;
	if (!*s || !isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || *end || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static bool valid_vendor(const char *v, size_t len)
{
	size_t i;
	if (len == 0 || len >= sizeof(((struct cpu_desc *)0)->vendor))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)v[i]))
			return false;
	return true;
}

int cpu_parse_string(const char *s, struct cpu_desc *out)
{
	size_t n;
	char **parts = str_split(s, '-', &n);
	int ret = 0;

	if (n != 4 || !valid_vendor(parts[0], strlen(parts[0])) ||
	    parse_uint(parts[1], 10, 0xfff, &out->family) ||
	    parse_uint(parts[2], 16, 0xff, &out->model) ||
	    parse_uint(parts[3], 16, 0xf, &out->stepping))
		ret = oc_err("bad CPU string '%s': expected %s", s, cpu_string_form);
	else
		strcpy(out->vendor, parts[0]);
	strv_free(parts);
	return ret;
}

/* /proc/cpuinfo of a 1024-CPU machine is about 2 MB. */
#define MAX_CPUINFO (16u << 20)

/* The first processor's vendor_id, cpu family, model and stepping. */
static int parse_cpuinfo(const char *path, struct cpu_desc *out)
{
	static const char *const keys[] = { "vendor_id", "cpu family", "model", "stepping" };
	char *text = read_file_max(path, NULL, MAX_CPUINFO, "a /proc/cpuinfo copy");
	char *values[ARRAY_SIZE(keys)] = { NULL };
	char *rest = text, *line;
	int ret = 0;
	size_t k;

	if (!text)
		return -1;
	while ((line = strsep(&rest, "\n"))) {
		char *colon = strchr(line, ':'), *key;
		if (!colon) {
			if (*str_trim(line) == 0 && values[0])
				break;  /* end of the first processor's block */
			continue;
		}
		*colon = 0;
		key = str_trim(line);
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if (strcmp(key, keys[k]) == 0 && !values[k])
				values[k] = str_trim(colon + 1);
	}
	for (k = 0; k < ARRAY_SIZE(keys) && ret == 0; k++)
		if (!values[k])
			ret = oc_err("%s: no '%s' line (expected an x86 /proc/cpuinfo copy)", path, keys[k]);
	if (ret == 0) {
		if (!valid_vendor(values[0], strlen(values[0])))
			ret = oc_err("%s: bad vendor_id '%s'", path, values[0]);
		else if (parse_uint(values[1], 10, 0xfff, &out->family))
			ret = oc_err("%s: bad cpu family '%s' (expected a decimal number)", path, values[1]);
		else if (parse_uint(values[2], 10, 0xff, &out->model))
			ret = oc_err("%s: bad model '%s' (expected a decimal number up to 255)",
				     path, values[2]);
		else if (parse_uint(values[3], 10, 0xf, &out->stepping))
			ret = oc_err("%s: bad stepping '%s' (expected a decimal number up to 15)",
				     path, values[3]);
		else
			strcpy(out->vendor, values[0]);
	}
	free(text);
	return ret;
}

/* Vendor (leaf 0) and family/model/stepping (leaf 1) as the kernel computes them. */
static void identity_from_cpuid(const struct cpuid_leaves *c, struct cpu_desc *out)
{
	struct cpuid_regs r;
	unsigned base_family;

	cpuid_query(c, 0, 0, &r);
	memcpy(out->vendor, &r.ebx, 4);
	memcpy(out->vendor + 4, &r.edx, 4);
	memcpy(out->vendor + 8, &r.ecx, 4);
	out->vendor[12] = 0;
	cpuid_query(c, 1, 0, &r);
	base_family = (r.eax >> 8) & 0xf;
	out->family = base_family;
	if (base_family == 0xf)
		out->family += (r.eax >> 20) & 0xff;
	out->model = (r.eax >> 4) & 0xf;
	if (base_family == 0x6 || base_family == 0xf)
		out->model |= ((r.eax >> 16) & 0xf) << 4;
	out->stepping = r.eax & 0xf;
}

static int identity_matches(const struct cpu_desc *a, const struct cpu_desc *b)
{
	return strcmp(a->vendor, b->vendor) == 0 && a->family == b->family && a->model == b->model;
}

/* Does a CPU named by --cpu, --cpuinfo or --cpuid have the identity of the one we run on? */
static bool is_this_machine(const struct cpu_desc *named)
{
	struct cpuid_leaves live;
	struct cpu_desc here;

	memset(&here, 0, sizeof(here));
	if (cpuid_use_live(&live) == 0) {
		identity_from_cpuid(&live, &here);
		cpuid_free(&live);
	} else {
		oc_err_clear();
		if (parse_cpuinfo("/proc/cpuinfo", &here) < 0) {
			oc_err_clear();
			return false;
		}
	}
	return identity_matches(named, &here);
}

int cpu_detect(const struct cpu_source *src, struct cpu_desc *out)
{
	static const struct cpu_source this_machine;
	struct cpuid_leaves cpuid;
	bool have_cpuid = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!src)
		src = &this_machine;
	if (src->cpuid) {
		if (cpuid_load(&cpuid, src->cpuid) < 0)
			return -1;
		have_cpuid = true;
	} else if (!src->cpu_string && !src->cpuinfo) {
		have_cpuid = cpuid_use_live(&cpuid) == 0;
	}

	if (src->cpu_string)
		ret = cpu_parse_string(src->cpu_string, out);
	else if (src->cpuinfo)
		ret = parse_cpuinfo(src->cpuinfo, out);
	else if (have_cpuid)
		identity_from_cpuid(&cpuid, out);
	else
		ret = parse_cpuinfo("/proc/cpuinfo", out);

	if (ret == 0 && have_cpuid && (src->cpu_string || src->cpuinfo)) {
		struct cpu_desc dumped;
		identity_from_cpuid(&cpuid, &dumped);
		if (!identity_matches(out, &dumped))
			ret = oc_err("%s describes %s-%u-%X, not the CPU named by %s",
				     src->cpuid, dumped.vendor, dumped.family, dumped.model,
				     src->cpu_string ? src->cpu_string : src->cpuinfo);
	}
	if (ret == 0) {
		out->have_cpuid = have_cpuid;
		out->this_machine = (!src->cpu_string && !src->cpuinfo && !src->cpuid) ||
				    is_this_machine(out);
		snprintf(out->perfmon_id, sizeof(out->perfmon_id), "%s-%u-%X-%X",
			 out->vendor, out->family, out->model, out->stepping);
		cpu_classify(out, have_cpuid ? &cpuid : NULL);
	}
	if (have_cpuid)
		cpuid_free(&cpuid);
	return ret;
}
