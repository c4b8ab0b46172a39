/* dlib.h — libraries loaded on first use.
 *
 * libcapstone and libpfm4 hold large relocated tables: linked normally they
 * cost every ocrec process about 3 ms of dynamic loading, more than resolving an
 * event takes. The shims in this module define those libraries' functions
 * under their own names and forward to the real ones, loaded with dlopen() the
 * first time one is called, so callers include the usual headers and stay
 * unaware. */
#ifndef OCREC_DLIB_H
#define OCREC_DLIB_H

#include <stddef.h>

/* Load a shim's library: the first of libs (NULL-terminated) that loads
 * (none: a one-line warning naming pkg, the Debian package), then
 * each of syms (n names) into the same slot of fns, an array of n function
 * pointers (a shim's struct of them, in the order of syms). fns[0], the
 * entry point every other function needs first, is set last and only when
 * all the others were found, so the shims test only that one. The handle
 * (NULL when no library loaded); a warning for each thing missing. */
void *dlib_load(const char *const *libs, const char *pkg, const char *const *syms, void **fns, size_t n);
/* Load capstone, or libunicorn, now if not yet: for a caller that can spend
 * the time on another thread (a few ms: page faults over the library and its
 * relocations) rather than at the first call, which blocks until it is done. */
void dlib_capstone_load(void);
void dlib_unicorn_load(void);
/* libpfm4's release ("4.13.0", from its file name) once loaded, else "". */
const char *dlib_pfm_release(void);

#endif
