/* util.h — small shared helpers: errors, allocation, files, strings.
 *
 * Library code never prints errors or exits: it records one message with
 * oc_err() and returns -1 (or NULL); the command-line front end prints it.
 * Warnings go through oc_warn(), which the front end routes to stderr.
 */
#ifndef OCREC_UTIL_H
#define OCREC_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define OC_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* --- errors and warnings ------------------------------------------------ */

/* Record the error message for the current failure (replaces any earlier one). */
int oc_err(const char *fmt, ...) OC_PRINTF(1, 2);      /* always returns -1 */
/* Same, with ": strerror(errno)" appended. */
int oc_err_errno(const char *fmt, ...) OC_PRINTF(1, 2); /* always returns -1 */
/* The last recorded message ("" when none). */
const char *oc_errmsg(void);
void oc_err_clear(void);

/* Warnings: by default printed as "ocrec: warning: MSG" on stderr. */
typedef void (*oc_warn_fn)(const char *msg);
void oc_warn(const char *fmt, ...) OC_PRINTF(1, 2);
void oc_set_warn_handler(oc_warn_fn fn);   /* NULL restores the default */
/* Verbosity for oc_debug(): printed when level <= oc_verbose. */
extern int oc_verbose;
void oc_debug(int level, const char *fmt, ...) OC_PRINTF(2, 3);

/* --- allocation (abort with a message on out-of-memory) ---------------- */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) OC_PRINTF(1, 2);
/* Grow *p (element size elem) so that it holds at least need elements. */
void grow_array(void **p, size_t *cap, size_t need, size_t elem);
#define GROW(arr, cap, need) grow_array((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* --- growable string --------------------------------------------------- */
struct strbuf {
	char *buf;       /* always NUL-terminated once anything was added */
	size_t len, cap;
};
#define STRBUF_INIT { NULL, 0, 0 }
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_puts(struct strbuf *sb, const char *s);
void sb_putc(struct strbuf *sb, char c);
void sb_printf(struct strbuf *sb, const char *fmt, ...) OC_PRINTF(2, 3);
void sb_reset(struct strbuf *sb);
char *sb_detach(struct strbuf *sb);  /* caller frees; sb is reset */
void sb_free(struct strbuf *sb);
static inline const char *sb_str(const struct strbuf *sb) { return sb->buf ? sb->buf : ""; }

/* --- files ------------------------------------------------------------- */
/* Read a whole file; *len gets its size. NUL-terminated. NULL + oc_err on failure. */
char *read_file(const char *path, size_t *len);
/* Read the first line of a small file (sysfs, /proc), trailing newline removed. */
char *read_line_file(const char *path);
/* The state letter of /proc/ID/stat ('R', 'S', 'Z'...); 0 when it is gone. */
char proc_state(int id);
/* Write data to path atomically: path.tmp.PID, fsync-free rename. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* Create a directory and its parents (like mkdir -p). */
int mkdir_p(const char *path, unsigned mode);
bool file_exists(const char *path);
bool is_dir(const char *path);

/* Temp-name-and-rename output: fopen a temp file beside path; commit renames it,
 * abort removes it. Nothing is left at path until the commit. */
struct atomic_file {
	FILE *fp;
	char *path, *tmp;
};
int atomic_open(struct atomic_file *af, const char *path);
int atomic_commit(struct atomic_file *af);  /* fclose + rename */
void atomic_abort(struct atomic_file *af);  /* fclose + unlink */

/* --- strings ----------------------------------------------------------- */
bool str_starts_with(const char *s, const char *prefix);
bool str_ends_with(const char *s, const char *suffix);
char *str_trim(char *s);                 /* in place; returns s moved past blanks */
void str_lower(char *s);
void str_upper(char *s);
/* Parse an unsigned number (decimal, 0x hex, 0 octal) that fills the whole string. */
int parse_u64(const char *s, uint64_t *out);
/* Edit distance for "did you mean" suggestions. */
size_t str_distance(const char *a, const char *b);
/* Split s at sep into a NULL-terminated array of fresh strings; free with strv_free. */
char **str_split(const char *s, char sep, size_t *n);
void strv_free(char **v);

/* --- hashing ----------------------------------------------------------- */
uint64_t hash_bytes(const void *p, size_t n);   /* FNV-1a 64 */
static inline uint64_t hash_str(const char *s) { size_t n = 0; while (s[n]) n++; return hash_bytes(s, n); }
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33; return x;
}

/* Hash of a key made of 64-bit words: a word at a time, for hot hash tables
 * (hash_bytes goes a byte at a time). */
static inline uint64_t hash_words(const uint64_t *w, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	size_t i;
	for (i = 0; i < n; i++)
		h = (h ^ w[i]) * 0xff51afd7ed558ccdULL + 0x2545f4914f6cdd1dULL;
	return hash_u64(h);
}

/* --- time / terminal --------------------------------------------------- */
double now_seconds(void);          /* CLOCK_MONOTONIC */
uint64_t now_ns(void);             /* CLOCK_MONOTONIC */
bool isatty_stdout(void);
bool isatty_stderr(void);

#endif
