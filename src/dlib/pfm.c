/* pfm.c — the part of libpfm4's API ocrec uses, loaded on first use (dlib.h
 * says why). A missing library makes pfm_initialize() fail, which callers
 * already report. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dlib/dlib.h"

static struct {
	pfm_err_t (*initialize)(void);
	void (*terminate)(void);
	const char *(*strerror)(int);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t, pfm_pmu_info_t *);
	int (*get_event_next)(int);
	int (*find_event)(const char *);
	pfm_err_t (*get_event_info)(int, pfm_os_t, pfm_event_info_t *);
	pfm_err_t (*get_os_event_encoding)(const char *, int, pfm_os_t, void *);
} pfm;
static void *pfm_handle;
static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;

static void pfm_load(void)
{
	static const char *const libs[] = { "libpfm.so.4", "libpfm.so", NULL };
	/* the functions of pfm, in its order (the entry point first: see dlib_load) */
	static const char *const syms[] = {
		"pfm_initialize", "pfm_terminate", "pfm_strerror", "pfm_get_pmu_info",
		"pfm_get_event_next", "pfm_find_event", "pfm_get_event_info",
		"pfm_get_os_event_encoding"
	};
	_Static_assert(sizeof(pfm) == sizeof(syms) / sizeof(*syms) * sizeof(void *), "a name per member");

	pfm_handle = dlib_load(libs, "libpfm4", syms, (void **)&pfm, sizeof(syms) / sizeof(*syms));
}

/* Every other function needs pfm_initialize() first, so only it loads. */
pfm_err_t pfm_initialize(void)
{
	pthread_once(&pfm_once, pfm_load);
	return pfm.initialize ? pfm.initialize() : PFM_ERR_NOINIT;
}

/* libpfm4's API reports no release (pfm_get_version() says 4.0 in 4.13), but its build
 * names the library after it: libpfm.so.4 links to libpfm.so.4.13.0. */
const char *dlib_pfm_release(void)
{
	static char release[32];
	struct link_map *lm = NULL;
	char path[PATH_MAX];
	const char *so;

	if (!release[0] && pfm_handle && dlinfo(pfm_handle, RTLD_DI_LINKMAP, &lm) == 0 && lm &&
	    realpath(lm->l_name, path) && (so = strstr(path, ".so.")) && strchr(so + 4, '.'))
		snprintf(release, sizeof(release), "%s", so + 4);
	return release;
}

void pfm_terminate(void)
{
	if (pfm.terminate)
		pfm.terminate();
}

const char *pfm_strerror(int code)
{
	return pfm.strerror ? pfm.strerror(code) : "libpfm4 is not loaded";
}

pfm_err_t pfm_get_pmu_info(pfm_pmu_t p, pfm_pmu_info_t *output)
{
	return pfm.get_pmu_info ? pfm.get_pmu_info(p, output) : PFM_ERR_NOINIT;
}

int pfm_get_event_next(int idx)
{
	return pfm.get_event_next ? pfm.get_event_next(idx) : -1;
}

int pfm_find_event(const char *str)
{
	return pfm.find_event ? pfm.find_event(str) : PFM_ERR_NOINIT;
}

pfm_err_t pfm_get_event_info(int idx, pfm_os_t os, pfm_event_info_t *output)
{
	return pfm.get_event_info ? pfm.get_event_info(idx, os, output) : PFM_ERR_NOINIT;
}

pfm_err_t pfm_get_os_event_encoding(const char *str, int dfl_plm, pfm_os_t os, void *args)
{
	return pfm.get_os_event_encoding ? pfm.get_os_event_encoding(str, dfl_plm, os, args)
					 : PFM_ERR_NOINIT;
}
