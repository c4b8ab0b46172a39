/* pfm-glue.c — libpfm4 calls (see pfm-glue.h for why they live apart). */
#include <perfmon/pfmlib_perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "events/pfm-glue.h"

static int users;
static int init_result = -1;

int evpfm_acquire(void)
{
	if (users++ == 0)
		init_result = pfm_initialize();
	return init_result == PFM_SUCCESS ? 0 : -1;
}

void evpfm_release(void)
{
	if (users > 0 && --users == 0 && init_result == PFM_SUCCESS)
		pfm_terminate();
}

int evpfm_encode(const char *spec, void *attr_out, size_t attr_size, char **fstr, char **desc,
		 const char **err)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t info;
	int ret;

	*fstr = NULL;
	*desc = NULL;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.fstr = fstr;
	arg.size = sizeof(arg);
	ret = pfm_get_os_event_encoding(spec, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_ERR_NOTFOUND)
		return 1;
	if (ret != PFM_SUCCESS) {
		*err = pfm_strerror(ret);
		return -1;
	}
	memset(attr_out, 0, attr_size);
	memcpy(attr_out, &attr, attr_size < sizeof(attr) ? attr_size : sizeof(attr));
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (pfm_get_event_info(arg.idx, PFM_OS_NONE, &info) == PFM_SUCCESS && info.desc)
		*desc = strdup(info.desc);
	return 0;
}

void evpfm_foreach_name(void (*fn)(const char *pmu, const char *name, void *arg), void *arg)
{
	int pmu_id;

	pfm_for_all_pmus(pmu_id) {
		pfm_pmu_info_t pinfo;
		int i;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		/* the "perf" and "perf_raw" PMUs repeat perf's generic events */
		if (pfm_get_pmu_info(pmu_id, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
		    pinfo.type == PFM_PMU_TYPE_OS_GENERIC)
			continue;
		for (i = pinfo.first_event; i != -1; i = pfm_get_event_next(i)) {
			pfm_event_info_t info;
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_event_info(i, PFM_OS_PERF_EVENT_EXT, &info) == PFM_SUCCESS)
				fn(pinfo.name, info.name, arg);
		}
	}
}

const char *evpfm_core_pmu(void)
{
	int pmu_id;

	pfm_for_all_pmus(pmu_id) {
		pfm_pmu_info_t pinfo;
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu_id, &pinfo) == PFM_SUCCESS && pinfo.is_present &&
		    pinfo.type == PFM_PMU_TYPE_CORE)
			return pinfo.name;
	}
	return NULL;
}

const char *evpfm_event_desc(const char *pmu, const char *name)
{
	char *full = malloc(strlen(pmu) + strlen(name) + 3);
	pfm_event_info_t info;
	int idx;

	if (!full)
		return NULL;
	strcpy(full, pmu);
	strcat(full, "::");
	strcat(full, name);
	idx = pfm_find_event(full);
	free(full);
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (idx < 0 || pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
		return NULL;
	return info.desc;
}
