/* emulate.h — a window computed while the thread stays stopped (emulate.c):
 * ocrec's interpreter, then libunicorn (loaded on first use), run the
 * thread's code from its registers on a copy of its memory, and the taken
 * branches are read off what they run. The window engine (trace.c) falls
 * back to following the thread with ptrace from wherever emulation had to
 * stop (swb_uc_why). */
#ifndef OCREC_SAMPLER_EMULATE_H
#define OCREC_SAMPLER_EMULATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "sampler/swtrace.h"

/* One process's emulator: its code and memory pages stay mapped across windows
 * (code read again when its mapping changes; data read again each window). */
struct swb_uc;
/* NULL (oc_err) when capstone cannot be opened. libunicorn is started when
 * it first takes over a window from the interpreter; where it is missing,
 * windows stop there (SWB_UC_ENGINE) and are followed on. */
struct swb_uc *swb_uc_new(struct swb_space *sp);
/* Whether libunicorn may take over from the interpreter:
 * OCREC_SAMPLER_LIBUNICORN=0 runs the interpreter alone, as where libunicorn
 * is missing (for tests and comparisons). */
bool swb_libunicorn_wanted(void);
/* Before the first window, once: the tracer's memory without transparent
 * huge pages from now on. */
void swb_uc_no_huge_pages(void);
/* libunicorn engines started, and processes (or images, after exec)
 * emulated, so far: an ended one's engine goes to the next. */
unsigned swb_uc_started(void);
unsigned swb_uc_processes(void);
void swb_uc_free(struct swb_uc *u);
/* Code in [start, start+len) changed (a new mapping). */
void swb_uc_invalidate(struct swb_uc *u, uint64_t start, uint64_t len);
/* The emulator of a space, started on first use; NULL when there is none. */
struct swb_uc *swb_space_uc(struct swb_space *sp);

/* When a window is done (as the engine follows it): depth branches, and with
 * seek at the first pass through p0 after that, or a quarter window more. */
struct swb_uc_goal {
	int depth;
	bool seek;
	uint64_t p0;
	uint64_t taken;         /* the window's branches before this run */
	bool no_libunicorn;     /* it is not loaded (yet): stop where the interpreter does */
};

struct swb_uc_out {
	struct swb_entry *e;    /* caller's, cap entries: the branches emulated, oldest first */
	int cap, nr;
	uint64_t ip;            /* where the window ends (DONE), else the instruction
	                         * emulation stopped before, reached after the nr branches */
	enum swb_uc_why why;
	uint64_t insns;         /* instructions emulated */
	uint64_t interpreted;   /* of them, by ocrec's interpreter (before libunicorn) */
};

/* Emulate tid (in a ptrace-stop, registers regs) until the window is done or
 * the next instruction must run on the thread. The thread is not resumed.
 * The whole window must fit in out->cap (depth + depth / 4 + 1). */
void swb_uc_run(struct swb_uc *u, pid_t tid, const struct user_regs_struct *regs, const struct swb_uc_goal *g,
		struct swb_uc_out *out);

#endif
