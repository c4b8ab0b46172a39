/* dlib.c — dlopen helpers for the lazily loaded libraries (see dlib.h). */
#include <dlfcn.h>

#include "dlib/dlib.h"
#include "util/util.h"

static void *dlib_open(const char *const *names, const char *pkg)
{
	void *h = NULL;
	size_t i;

	for (i = 0; names[i] && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		oc_warn("cannot load %s (%s): install %s", names[0], dlerror(), pkg);
	return h;
}

/* The symbol sym of handle, or NULL + a warning when it is missing. */
static void *dlib_sym(void *handle, const char *sym)
{
	void *p = dlsym(handle, sym);

	if (!p)
		oc_warn("%s: %s", sym, dlerror());
	return p;
}

void *dlib_load(const char *const *libs, const char *pkg, const char *const *syms, void **fns, size_t n)
{
	void *h = dlib_open(libs, pkg);
	bool all = h != NULL;
	size_t i;

	for (i = 1; i < n && h; i++)
		all &= (fns[i] = dlib_sym(h, syms[i])) != NULL;
	if (all)
		fns[0] = dlib_sym(h, syms[0]);
	return h;
}
