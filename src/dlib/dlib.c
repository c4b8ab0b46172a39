/* dlib.c — dlopen helpers for the lazily loaded libraries (see dlib.h). */
#include <dlfcn.h>

#include "dlib/dlib.h"
#include "util/util.h"

void *dlib_open(const char *const *names, const char *pkg)
{
	void *h = NULL;
	size_t i;

	for (i = 0; names[i] && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		oc_warn("cannot load %s (%s): install %s", names[0], dlerror(), pkg);
	return h;
}

void *dlib_sym(void *handle, const char *sym)
{
	void *p = handle ? dlsym(handle, sym) : NULL;

	if (handle && !p)
		oc_warn("%s: %s", sym, dlerror());
	return p;
}
