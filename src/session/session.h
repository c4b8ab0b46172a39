/* session.h — one pass over perf.data inputs and the machine state they
 * describe, in the spirit of Linux perf's perf_session, perf_tool and machine:
 * threads and their names, process and kernel maps, DSOs and build-ids. A
 * consumer gives a tool of callbacks; each sample arrives decoded, with its
 * event, its thread and its call chain (markers dropped, cut at --max-stack),
 * and its addresses resolve through the session on request — map, DSO,
 * symbol, demangled name, source line — computed once per address.
 *
 * Every reader of perf.data (report, script, autofdo, bolt, pprof) goes
 * through here: none decodes records or keeps maps of its own. Records come
 * in file order, or in time order when the consumer asks (perf script's
 * ordered events). Several inputs read into one session add up: the DSOs,
 * names and events (by name) are shared, each input's threads and maps are
 * its own. perf script text (llvm-profgen's input) is an input too.
 */
#ifndef OCREC_SESSION_H
#define OCREC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"
#include "symbols/symbols.h"

struct session;

struct session_opts {
	struct sym_options sym;    /* --symfs, --kallsyms, quiet, maps_only, perf script's kallsyms rule */
	bool ordered;              /* records in time order, as perf script delivers them */
	bool no_demangle;          /* --no-demangle: names as in the symbol table */
	bool full_source_path;     /* srclines with the source file's whole path */
	int max_stack;             /* call-chain frames kept (--max-stack); 0: perf's default,
	                            * session_default_max_stack(); negative: none */
};

/* perf's default --max-stack: kernel.perf_event_max_stack as this machine
 * says now (/proc/sys/kernel/perf_event_max_stack), else 127. */
int session_default_max_stack(void);

struct session *session_new(const struct session_opts *opts);
void session_free(struct session *s);

/* --- inputs --- */

/* Open a perf.data file ("-": a pipe-mode stream on standard input) as the
 * next input: its header is read, its events added. 0, or -1 + oc_err()
 * naming the file and the place. */
int session_open(struct session *s, const char *path);
/* The open input's header (a pipe's grows while it is processed). */
const struct pd_info *session_info(const struct session *s);
/* How many inputs have been opened (the open one included). */
unsigned session_nr_inputs(const struct session *s);

/* --- what the consumer sees --- */

struct session_event {
	unsigned index;            /* session_event(s, index) */
	const char *name;          /* perf's name: EVENT_DESC's, else from the attr ("cycles:u") */
	struct perf_event_attr attr;   /* of the first input that has the event */
};
/* Events in the order of the inputs' attrs; an event of a later input with
 * an earlier input's name is that event. */
size_t session_nr_events(const struct session *s);
const struct session_event *session_event(const struct session *s, size_t index);

struct session_thread {
	uint32_t pid, tid;
	const char *comm;          /* interned (one pointer per name): ":TID" until named, 0 is "swapper" */
};

/* One frame of a call chain, with the cpumode its PERF_CONTEXT_* marker set. */
struct session_frame {
	uint64_t ip;
	uint8_t cpumode;
};

struct session_sample {
	const struct pd_sample *s;          /* every decoded field: time, cpu, period, raw branches... */
	const struct pd_attr *attr;         /* the input's attr of the sample */
	const struct session_event *event;
	const struct session_thread *thread;
	unsigned cpumode;                   /* header.misc & PERF_RECORD_MISC_CPUMODE_MASK */
	const struct session_frame *frames; /* the call chain without markers, at most max_stack */
	size_t nr_frames;
	unsigned input;                     /* which input, from 0 */
};

/* The callbacks of a consumer; any may be NULL. A non-zero return stops the
 * pass and is returned by session_process(). */
struct session_tool {
	/* Once per input, before its first sample (a pipe's attrs have all come
	 * then), or at its end when it has none. */
	int (*begin)(struct session *s, void *arg);
	int (*sample)(struct session *s, const struct session_sample *ss, void *arg);
	/* Every other record (COMM, MMAP, FORK, LOST, ...), after the session
	 * has applied it to its state. */
	int (*record)(struct session *s, const struct pd_event *ev, void *arg);
};

/* Stream the open input's records to tool and close it: 0, the tool's
 * non-zero value, or -1 + oc_err() on malformed data (the records before it
 * were delivered). */
int session_process(struct session *s, const struct session_tool *tool, void *arg);
/* session_open() and session_process() in one. */
int session_read(struct session *s, const char *path, const struct session_tool *tool, void *arg);

/* perf script text as an input: `perf script -F ip,brstack` lines, call-stack
 * address lines before them (llvm-profgen's hybrid samples) and
 * `--show-mmap-events` PERF_RECORD_MMAP2 lines. Its event is "perf-script"
 * with branch stacks; a sample belongs to the process of the MMAP2 line before
 * it. binary (may be NULL) stands for the recorded path of the same basename,
 * or, when no MMAP2 line came before the first sample, is mapped at its own
 * addresses. 0, the tool's value, or -1 + oc_err() naming the line. */
int session_read_perfscript(struct session *s, const char *path, const char *binary,
			    const struct session_tool *tool, void *arg);

/* --- addresses --- */

struct session_loc {
	uint64_t addr;             /* as sampled */
	struct dso *dso;           /* NULL: in no map */
	uint64_t map_start, map_end, map_pgoff;   /* the map that holds it */
	uint64_t map_addr;         /* perf's al->addr: offset in the mapped file (the address
	                            * itself in the kernel and in 1:1 maps) */
	uint64_t file_addr;        /* in the DSO's own ELF address space */
	const struct symbol *sym;  /* NULL: unknown */
	uint64_t sym_off;          /* file_addr - sym->start */
	const char *name;          /* sym's name as shown (demangled unless no_demangle), or NULL */
	char level;                /* perf's '.' user, 'k' kernel, 'H' neither */
	bool kernel;
	/* session_loc_line() fills the rest */
	bool line_done;
	const char *srcline;       /* perf's: "file.c:12" (innermost frame), else "+OFF" in a
	                            * symbol (decimal), "DSO[MAPADDR]" (hex), or "??:0"; interned */
	const char *file;          /* the full source path, interned; NULL when unknown */
	unsigned line;
};

/* Where perf looks for an address of a sample: */
enum session_at {
	SESSION_AT_IP,             /* the sample's cpumode (the ip, perf's thread__find_map()) */
	SESSION_AT_BRANCH,         /* user maps, then the kernel's (perf report's branch entries) */
	SESSION_AT_BRANCH_FB,      /* the sample's cpumode, then the address's own (perf
	                            * script's branch entries and data addresses) */
};

/* addr of sample ss, resolved (once per address: the result stays until the
 * maps change, so a consumer copies what it keeps beyond the callback). */
struct session_loc *session_resolve(struct session *s, const struct session_sample *ss, uint64_t addr,
				    enum session_at at);
/* Changes whenever an address may resolve differently from now on (an MMAP,
 * a new input): what a consumer keeps of session_resolve() by address holds
 * only while this stays the same. */
unsigned session_maps_gen(const struct session *s);
/* Call-chain frame i of ss, in the mode of its marker. */
struct session_loc *session_frame(struct session *s, const struct session_sample *ss, size_t i);
/* Fill loc's srcline, file and line (DWARF, read once per DSO). */
void session_loc_line(struct session *s, struct session_loc *loc);

/* A string interned in the session: one pointer per text, valid as long as
 * the session (consumers compare names by pointer). */
const char *session_intern(struct session *s, const char *text);

/* --- the binary a profile is made for (autofdo's and bolt's --binary) --- */

struct session_binary;
/* path's identity: its real path and its GNU build-id. NULL + oc_err() when
 * it does not exist. */
struct session_binary *session_binary_new(const char *path);
void session_binary_free(struct session_binary *b);
const char *session_binary_path(const struct session_binary *b);
/* Its build-id; the length (0: none). */
size_t session_binary_build_id(const struct session_binary *b, const uint8_t **id);
/* Does a recorded path name it: the same file, else the same basename? */
bool session_binary_path_matches(const struct session_binary *b, const char *path);
/* Is a recorded build-id (maybe zero-padded to 20 bytes) its own? */
bool session_binary_id_matches(const struct session_binary *b, const uint8_t *id, size_t size);
/* Is dso the binary (by path or build-id)? Answered once per DSO. */
bool session_binary_is(struct session_binary *b, const struct dso *d);
/* The build-ids an input (named input, header in) recorded: a differing one
 * recorded for the binary's path is an error unless force; none recorded for
 * it warns that the binary is matched by path. 0, or -1 + oc_err(). */
int session_binary_check(const struct session_binary *b, const char *input, const struct pd_info *in,
			 bool force);

/* --- perf script text, the parser report and autofdo share --- */

enum pst_kind {
	PST_EMPTY,                 /* blank, or a "//" or "#" comment */
	PST_OTHER,                 /* text this parser does not know */
	PST_MMAP,                  /* a PERF_RECORD_MMAP or MMAP2 line */
	PST_ADDRESS,               /* a lone hex address: a call-stack line of a hybrid sample */
	PST_BRANCHES,              /* branch entries, after an optional sample ip */
};

struct pst_line {
	enum pst_kind kind;
	int64_t pid;               /* PST_MMAP: the record's pid, its map and file */
	uint64_t start, len, pgoff;
	const char *path;          /* points into the line */
	uint64_t ip;               /* PST_ADDRESS: the address; PST_BRANCHES: the ip, 0 if none */
	size_t nr_branches;        /* PST_BRANCHES: entries stored (at most the caller's max) */
	size_t nr_bad;             /* PST_BRANCHES: tokens with a '/' that are no branch entry */
	const char *bad;           /* the first of them */
};

/* The longest perf script line the readers take (a 32-entry brstack line is
 * 2 KB, 20 KB with symbols): a longer one is an error, not all the memory
 * there is (docs/fuzzing.md). */
#define PST_MAX_LINE (1u << 20)
/* The most call-stack lines before a sample's branches: the kernel's
 * perf_event_max_stack is at most 65535. */
#define PST_MAX_CALL_STACK 65536

/* One line of perf script text (NUL-terminated, without its newline). Branch entries
 * "0xFROM/0xTO/M|P|-/X|-/A|-/CYCLES[/TYPE[/SPEC]]" are stored in br, newest
 * first as printed, with their flags (a WRONG_PATH spec of perf 6.12 too).
 * 0, or -1 when an MMAP line is malformed. */
int pst_parse_line(const char *line, struct pd_branch *br, size_t max_br, struct pst_line *out);
/* Every line of buf, to fn (with up to 256 branch entries); a non-zero
 * return of fn stops. 0, fn's value, or -1 + oc_err() on a malformed MMAP
 * line (named by its line number). For callers with the text in memory (the
 * fuzz target). */
int pst_parse_buffer(const char *buf, size_t len,
		     int (*fn)(const struct pst_line *line, const struct pd_branch *br, void *arg), void *arg);

#endif
