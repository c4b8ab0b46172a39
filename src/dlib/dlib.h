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

/* dlopen the first of names (NULL-terminated) that loads; NULL + a one-line
 * warning naming pkg (the Debian package) when none does. Thread-safe. */
void *dlib_open(const char *const *names, const char *pkg);
/* The symbol sym of handle, or NULL + a warning when it is missing. */
void *dlib_sym(void *handle, const char *sym);
/* libpfm4's release ("4.13.0", from its file name) once loaded, else "". */
const char *dlib_pfm_release(void);

#endif
