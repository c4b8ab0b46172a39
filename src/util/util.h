/* util.h — small shared helpers: errors, allocation, files, /proc, strings,
 * hashing and the hash table.
 *
 * Library code never prints errors or exits: it records one message with
 * oc_err() and returns -1 (or NULL); the command-line front end prints it.
 * Warnings go through oc_warn(), which the front end routes to stderr.
 * One header for the module: everything here is small and used everywhere.
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
/* qsort and qsort_r (the comparison gets ctx: no file-scope state) that also
 * take zero items at a NULL base, which qsort must not get. */
void sort_items(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
void sort_items_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		  void *ctx);
/* In an array of n elements of elem bytes, sorted by the uint64_t at byte
 * offset off of each: how many have that field <= key (so the last of them,
 * when there is one, is at the result - 1). A binary search. */
size_t count_le(const void *base, size_t n, size_t elem, size_t off, uint64_t key);
#define COUNT_LE(arr, n, field, key) \
	count_le((arr), (n), sizeof(*(arr)), offsetof(__typeof__(*(arr)), field), (key))

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
/* The same for a file from outside (a user's copy, a download, a name found in
 * data): more than max bytes, or a stream that goes on past them (/dev/zero),
 * is an error naming the limit and what the file was for ("a CPUID dump"). */
char *read_file_max(const char *path, size_t *len, size_t max, const char *what);
/* Read the first line of a small file (sysfs, /proc), trailing newline removed. */
char *read_line_file(const char *path);
/* Write data to path atomically: path.tmp.PID, fsync-free rename. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* Create a directory and its parents (like mkdir -p). */
int mkdir_p(const char *path, unsigned mode);
bool file_exists(const char *path);
uint64_t file_size(const char *path);      /* 0 when it cannot be read */
bool is_dir(const char *path);
bool is_regular_file(const char *path);
/* The names in dir but its dot files, those keep(name, arg) accepts (keep
 * NULL: all), in strcmp order and NULL-terminated; *n gets their count (n
 * may be NULL). NULL + oc_err() when dir cannot be read. Free with strv_free. */
char **dir_list(const char *dir, bool (*keep)(const char *name, const void *arg), const void *arg, size_t *n);
/* open(O_RDONLY) of a regular file only: a FIFO, a device or a directory named
 * in a perf.data or in DWARF is an error, not a wait or an endless read.
 * The fd, or -1 + oc_err(). */
int open_regular(const char *path);

/* Lines of a stream, none longer than max bytes: getline() would take all the
 * memory there is for /dev/zero or a 10 GB line. */
struct line_reader {
	FILE *fp;
	char *buf;
	size_t start, end, cap, max;
	unsigned long lineno;       /* of the line last returned, from 1 */
	bool eof;
	bool too_long;              /* lr_next() stopped at a line longer than max */
};
void lr_init(struct line_reader *lr, FILE *fp, size_t max);
/* The next line without its newline, NUL-terminated (it may hold NULs: *len
 * counts them), valid until the next call. NULL at the end, on a read error
 * (ferror(fp)) or at a line longer than max (too_long). */
char *lr_next(struct line_reader *lr, size_t *len);
void lr_free(struct line_reader *lr);

/* Temp-name-and-rename output: fopen a temp file beside path; commit renames it,
 * abort removes it. Nothing is left at path until the commit. */
struct atomic_file {
	FILE *fp;
	char *path, *tmp;
};
int atomic_open(struct atomic_file *af, const char *path);
int atomic_commit(struct atomic_file *af);  /* fclose + rename */
void atomic_abort(struct atomic_file *af);  /* fclose + unlink */

/* --- /proc ------------------------------------------------------------ */
/* The state letter of /proc/ID/stat ('R', 'S', 'Z'...); 0 when it is gone. */
char proc_state(int id);
/* The process (Tgid) and parent process (PPid) of thread or process id, from
 * /proc/ID/status; -1 and -1 when it is gone. */
void proc_ids(int id, long *tgid, long *ppid);
/* The thread ids of process pid (/proc/PID/task); NULL + oc_err() naming the
 * process when it does not exist or has no thread left. Caller frees. */
int *proc_threads(int pid, size_t *n);
/* One line of /proc/PID/maps. */
struct proc_map {
	uint64_t start, end, pgoff, ino;
	unsigned maj, min;
	char perms[5];             /* "r-xp" */
	const char *name;          /* path, "[heap]", "[vdso]"...; "" for anonymous memory */
};
/* Call fn for each mapping of pid in address order (m is valid during the call);
 * a non-zero result of fn stops and is returned. 0 at the end; -1 + oc_err()
 * when the maps cannot be read (the process is gone, or never was). */
typedef int (*proc_map_fn)(const struct proc_map *m, void *arg);
int proc_maps(int pid, proc_map_fn fn, void *arg);

/* perf_event_open(2), which glibc does not wrap. */
struct perf_event_attr;
int sys_perf_event_open(struct perf_event_attr *attr, int pid, int cpu, int group_fd, unsigned long flags);
/* The records an event could not write to its ring buffer, from read(2) of
 * its fd opened with read_format (which must have PERF_FORMAT_LOST, Linux
 * 6.0, and not PERF_FORMAT_GROUP); 0 when it cannot be read. */
uint64_t perf_event_lost(int fd, uint64_t read_format);
/* Whether the running kernel is at least major.minor (uname). */
bool kernel_at_least(int major, int minor);

/* --- strings ----------------------------------------------------------- */
bool str_starts_with(const char *s, const char *prefix);
bool str_ends_with(const char *s, const char *suffix);
char *str_trim(char *s);                 /* in place; returns s moved past blanks */
const char *str_basename(const char *path);     /* after the last '/', else path */
/* Whether the environment variable name is set to "0" (a switch that is on
 * unless turned off). */
bool env_off(const char *name);
void str_lower(char *s);
void str_upper(char *s);
/* Parse an unsigned number (decimal, 0x hex, 0 octal) that fills the whole string. */
int parse_u64(const char *s, uint64_t *out);
/* Edit distance for "did you mean" suggestions. */
size_t str_distance(const char *a, const char *b);
/* Split s at sep into a NULL-terminated array of fresh strings; free with strv_free. */
char **str_split(const char *s, char sep, size_t *n);
void strv_free(char **v);
/* A name of a comma-separated option value and the bits it stands for. */
struct name_bits {
	const char *name;
	uint64_t bits;
};
/* The bits of the names of list (comma-separated; table: the n known ones)
 * OR-ed into *bits; an unknown name: -1 + oc_err() "OPT LIST: unknown WHAT
 * 'NAME' (valid: the known names)". */
int parse_name_bits(const char *list, const struct name_bits *table, size_t n, const char *opt,
		    const char *what, uint64_t *bits);
/* Whether the NULL-terminated v holds a string equal to s. */
bool strv_contains(char *const *v, const char *s);
/* Sort n strings in strcmp order. */
void strv_sort(char **v, size_t n);

/* --- hashing ----------------------------------------------------------- */
uint64_t hash_bytes(const void *p, size_t n);   /* FNV-1a 64: stable, names cache files */
static inline uint64_t hash_str(const char *s) { size_t n = 0; while (s[n]) n++; return hash_bytes(s, n); }
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33; return x;
}
/* For hash tables: 8 bytes at a time (hash_bytes goes a byte at a time). */
uint64_t hash_mem(const void *p, size_t n);
static inline uint64_t hash_words(const uint64_t *w, size_t n) { return hash_mem(w, n * 8); }

/* --- hash table ---------------------------------------------------------
 * Keys and values of fixed sizes, kept as entries in insertion order (entry i
 * stays entry i, so tables double as arrays and iterate the same way on every
 * run) behind an open-addressing index. Keys compare as bytes, or as the ops
 * say: with hmap_str_ops a key is a const char * compared by content, and the
 * caller keeps the string alive. Key and value pointers are valid until the
 * next hmap_add. */
struct hmap_ops {
	uint64_t (*hash)(const void *key);
	bool (*eq)(const void *a, const void *b);
};
extern const struct hmap_ops hmap_str_ops;

struct hmap {
	const struct hmap_ops *ops;      /* NULL: keys are bytes */
	size_t key_size, val_size, val_off, entry_size;
	unsigned char *entries;
	size_t n, cap_entries;
	uint64_t *index;                 /* 32 bits of hash << 32 | entry + 1; 0 empty */
	size_t cap;                      /* a power of two, or 0 before the first add */
};
#define HMAP_NONE ((size_t)-1)

void hmap_init(struct hmap *m, size_t key_size, size_t val_size, const struct hmap_ops *ops);
/* The entry of key, or HMAP_NONE. */
size_t hmap_find(const struct hmap *m, const void *key);
/* The entry of key, added with a zeroed value when absent (*added says which;
 * added may be NULL). */
size_t hmap_add(struct hmap *m, const void *key, bool *added);
/* Drop every entry, keep the memory. */
void hmap_clear(struct hmap *m);
/* Keep only the entries for which keep(key, value, arg) is true, in their order
 * (keep may release what a dropped value points to). */
void hmap_retain(struct hmap *m, bool (*keep)(const void *key, void *val, void *arg), void *arg);
/* Release the memory; the table stays usable, empty. */
void hmap_free(struct hmap *m);
static inline size_t hmap_count(const struct hmap *m) { return m->n; }
static inline const void *hmap_key(const struct hmap *m, size_t i) { return m->entries + i * m->entry_size; }
static inline void *hmap_val(const struct hmap *m, size_t i) { return m->entries + i * m->entry_size + m->val_off; }
/* The value of key, added zeroed when absent. */
static inline void *hmap_get(struct hmap *m, const void *key) { return hmap_val(m, hmap_add(m, key, NULL)); }
/* For a table of hmap_str_ops that owns its key strings: the entry of s,
 * added with a copy of s as its key when absent (added as for hmap_add). */
size_t hmap_intern(struct hmap *m, const char *s, bool *added);
/* Free such a table's key strings and drop every entry, as hmap_clear. */
void hmap_clear_interned(struct hmap *m);

/* --- time / terminal --------------------------------------------------- */
double now_seconds(void);          /* CLOCK_MONOTONIC */
uint64_t now_ns(void);             /* CLOCK_MONOTONIC */
bool isatty_stdout(void);
bool isatty_stderr(void);

#endif
