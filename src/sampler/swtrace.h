/* swtrace.h — the software sampler's window engine (x86-64): given a thread in
 * a ptrace-stop, collect the next N taken branches it really executes. A
 * window is first emulated while the thread stays stopped (emulate.h); from
 * where emulation has to stop it is followed with ptrace, as below.
 *
 * The engine decodes the straight-line code ahead with capstone, follows direct
 * jumps and calls without stopping, and stops the thread (hardware debug
 * registers, so no text is written; int3 where those do not fire, see
 * swb_breakpoints) only where the next branch's outcome is not
 * known yet: conditional branches are resolved from the flags at the stop,
 * returns from the stack, indirect branches from registers and memory. The
 * register and memory arithmetic of the code ahead is followed (emu.c: loads
 * from memory only the thread can change, mem.c; the path's own stores kept),
 * so branches whose flags or targets it computes need no stop at all (a stop
 * is still needed each time the path comes back to an address it passed: a
 * debug register fires at the first pass). Where memory cannot be read, a
 * return from a call followed on the path is still predicted when the callee
 * provably left its return address alone (stack pointer tracked, no stores
 * that could reach the stack). Up to four debug registers cover the outcomes
 * of conditional branches ahead (decision tree), so one stop can resolve
 * several of them. At a stop the registers must be the ones the planner
 * computed for it; if not, the window starts again (swb_tracer.mismatches).
 *
 * Modelled as follows (see also sampler.h):
 *  - conditional branches appear only when taken (PERF_BR_COND), like LBR;
 *  - a syscall that returns to the next instruction is not a branch; one that
 *    resumes elsewhere (rt_sigreturn) is a PERF_BR_SYSCALL entry from the
 *    syscall instruction to where execution resumes;
 *  - signal delivery to a handler is a PERF_BR_IRQ entry from the interrupted
 *    instruction to the handler;
 *  - a jump, call or return to the next instruction is still a taken branch.
 */
#ifndef OCREC_SAMPLER_SWTRACE_H
#define OCREC_SAMPLER_SWTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler/sampler.h"

/* One taken branch. */
struct swb_entry {
	uint64_t from, to;
	unsigned type;          /* PERF_BR_* */
};

/* Decoded code of one address space (a process); read through any of its threads. */
struct swb_space;
struct swb_space *swb_space_new(void);
void swb_space_free(struct swb_space *sp);
/* Forget decoded code in [start, start+len) (len 0: all), and cached
 * memory, after exec or a new mapping: at the next swb_space_settle(). */
void swb_space_invalidate(struct swb_space *sp, uint64_t start, uint64_t len);
/* Do what swb_space_invalidate() noted; each window starts with it. */
void swb_space_settle(struct swb_space *sp);
/* Its memory as the planner reads it (mem.h). */
struct swb_mem *swb_space_mem(struct swb_space *sp);

/* Kinds of instruction that end a straight-line run. */
enum swb_kind {
	SWB_JCC,        /* conditional, incl. loop/jrcxz */
	SWB_JMP,        /* direct jump */
	SWB_CALL,       /* direct call */
	SWB_JMP_IND,
	SWB_CALL_IND,
	SWB_RET,
	SWB_SYSCALL,    /* syscall, sysenter, int 0x80 */
	SWB_OTHER,      /* anything else that may transfer control: single-stepped */
};

/* The first control-transfer instruction at or after an address. */
struct swb_ctl {
	uint64_t addr;          /* of the control instruction */
	uint64_t next;          /* addr + length */
	uint64_t target;        /* direct branches */
	enum swb_kind kind;
	unsigned insn_id;       /* capstone X86_INS_* (condition of a jcc) */
	/* indirect operand: a register, or memory [seg:base + index*scale + disp] */
	bool op_mem;
	unsigned reg, base, index, seg;  /* capstone x86_reg, 0 when absent */
	int scale;
	int64_t disp;
	bool ret_imm;           /* ret $N */
	/* The straight-line run before it (from the run's start): how it moves
	 * the stack pointer, and whether it may write to the stack other than by
	 * push (only then could it touch a return address). */
	bool rsp_known;
	int64_t rsp_delta;
	bool stack_clean;
	/* Its instructions' effects on the registers, in order (emu.h). */
	const struct swb_uop *uops;
	int nr_uops;
};

/* The control instruction ending the run that starts at addr, read through tid
 * (cached). Code that cannot be read ends the run as SWB_OTHER: running it faults. */
const struct swb_ctl *swb_decode_run(struct swb_space *sp, pid_t tid, uint64_t addr);
/* The same, for the run entered at addr from the end of from (a run of sp's,
 * or NULL): the way from one run to the next is remembered, so that a path
 * through code met before needs no lookup. */
const struct swb_ctl *swb_decode_next(struct swb_space *sp, pid_t tid, const struct swb_ctl *from, uint64_t addr);

/* The PERF_BR_* type of a branch by the kind of its instruction. */
unsigned swb_perf_type(enum swb_kind k);
/* Whether it is a taken branch even to the next instruction (jumps, calls, returns). */
bool swb_always_taken(const struct swb_ctl *c);
/* Whether a conditional branch (jcc, jrcxz, loop) is taken with these flags
 * and rcx (loop: before it counts down): 1, 0, -1 for another instruction. */
int swb_jcc_taken(const struct swb_ctl *c, uint64_t eflags, uint64_t rcx);

/* Whether a window that has seen taken branches ends here: depth of them and,
 * with seek, at its starting point or a quarter window later (see seek below). */
static inline bool swb_window_ends(int depth, bool seek, uint64_t taken, bool at_start)
{
	return taken >= (uint64_t)depth && (!seek || at_start || taken >= (uint64_t)(depth + depth / 4));
}

/* Why emulation stopped (emulate.h): the window is done, or the next
 * instruction is one that only the thread itself can run (or ocrec's
 * emulation cannot). */
enum swb_uc_why {
	SWB_UC_DONE,
	SWB_UC_SYSCALL,         /* syscall, sysenter, int */
	SWB_UC_VECTOR,          /* an AVX or AVX-512 instruction ocrec does not emulate */
	SWB_UC_X87,             /* x87 or MMX */
	SWB_UC_INSN,            /* another instruction whose result the CPU alone knows:
	                         * cpuid, rdtsc, rdrand, xgetbv, one libunicorn lacks... */
	SWB_UC_MEMORY,          /* memory that cannot be read (unmapped, the vDSO's data),
	                         * that the kernel writes (rseq), or a write it forbids */
	SWB_UC_TRAP,            /* the program's own int3, a division by zero... */
	SWB_UC_CODE,            /* code in writable memory (a JIT) */
	SWB_UC_LIMIT,           /* too many blocks without the window filling */
	SWB_UC_SIGNAL,          /* a signal is pending: the thread takes it first */
	SWB_UC_ENGINE,          /* libunicorn would go on, but is missing or still loading */
	SWB_UC_NR
};
const char *swb_uc_why_name(enum swb_uc_why why);

/* The perf_event_attr.sig_data of the sampler's timer when its samples stop
 * their threads with SIGTRAP (sigtrap, sampler.c): ASCII "ocrec". */
#define SWB_TIMER_SIG_DATA 0x6365726f63ULL
/* Whether tid, in a signal-delivery-stop, is taking such a SIGTRAP: the
 * tracer's, never delivered to the program. */
bool swb_timer_trap(pid_t tid);
/* Whether tid, in a signal-delivery-stop, is taking the SIGTRAP of a single
 * step or a breakpoint: the tracer's too (one a window left queued). */
bool swb_trace_trap(pid_t tid);
/* Whether a SIGTRAP of the tracer's own waits in tid's queue, not blocked: a
 * step's or a breakpoint's (queued when an interrupt ended a stepped syscall)
 * or the timer's. Detached with it, the thread would die of it. */
bool swb_own_trap_queued(pid_t tid);
/* Whether tid blocks SIGTRAP: a window of it can be emulated, not followed
 * (trace.c). */
bool swb_blocks_sigtrap(pid_t tid);

/* What a thread other than the window's reported while the engine waited: the
 * caller resumes or records it (the engine waits with waitpid(-1, __WALL)). */
typedef void (*swb_other_fn)(pid_t pid, int status, void *arg);

struct swb_tracer {
	swb_other_fn other;
	/* Called (with arg) before a window's thread first runs, if it does: an
	 * emulated window leaves it stopped. Or NULL. */
	void (*before_follow)(pid_t tid, void *arg);
	/* Called (with arg) when the window's thread, running, made a thread or
	 * process. Or NULL. */
	void (*on_spawn)(pid_t parent, pid_t child, void *arg);
	/* Whether the caller keeps this thread in a ptrace-stop (for a window of
	 * its own to come): holding the window's process's other threads then
	 * leaves it be. Or NULL. */
	bool (*stopped_by_caller)(pid_t tid, void *arg);
	/* Called (with arg) when the window's thread, past its limit, waits in
	 * the kernel uninterruptibly: a vfork() parent waits so for its child's
	 * exec, and a child kept in a ptrace-stop never gets there. Every thread
	 * the caller keeps stopped must run on. Or NULL. */
	void (*release_held)(void *arg);
	void *arg;
	int max_leaves;         /* debug registers to use, 1..4 (4 by default: 0) */
	enum swb_bp bp;         /* SWB_BP_AUTO: swb_breakpoints() */
	/* After the N branches, run on (the window slides over the branches met
	 * meanwhile) until the thread is back where the window started, if it
	 * comes back soon: then the sample ip is as time-weighted as a timer
	 * sample's, not always a branch target. */
	bool seek;
	/* counters: breakpoint stops, single-steps, windows, windows restarted
	 * by a signal at an ambiguous point, windows that ended where they began,
	 * windows restarted because the registers at a stop were not the ones
	 * the planner computed (memory written behind its back, or a bug) */
	uint64_t stops, steps, windows, restarts, seek_hits, mismatches;
	uint64_t stepped_windows;   /* collected by single steps alone (int3 and threads) */
	uint64_t held_windows;      /* int3 windows that held the process's other threads */
	uint64_t blocked;       /* windows ended at a syscall that blocked, or not begun in one */
	uint64_t lost;          /* windows whose thread ran past every breakpoint (a planner bug) */
	uint64_t sigtrap_blocked;       /* windows not followed: the thread blocks SIGTRAP */
	/* Emulation (emulate.h): windows are emulated first unless no_emulation
	 * (the caller's swb_emulation_wanted(), read once: the environment is
	 * not scanned each window); with no_libunicorn, by the interpreter
	 * alone: libunicorn is not loaded yet), and followed from where it stops,
	 * the emulated branches guiding the plans. An emulated window leaves
	 * the thread where it was, or where emulation last went on; with
	 * finish, the thread is followed to the window's end. With verify
	 * (which implies finish), every emulated part is followed without the
	 * emulated branches. A part followed without them is compared with the
	 * emulated one: diverged counts those that differed, and the window
	 * holds the emulated branches (for tests to judge emulation). */
	bool no_emulation, no_libunicorn, finish, verify;
	bool emulating;         /* a window was emulated */
	uint64_t emulated_insns, followed_insns;        /* about, for the latter */
	uint64_t interpreted_insns;     /* of the emulated, by ocrec's own interpreter */
	uint64_t fallbacks[SWB_UC_NR];  /* emulation stopped early, by why */
	uint64_t diverged;
	bool spawned;           /* internal: the window's thread made a thread */
	struct swb_entry *emulated, *part;      /* internal buffers, cap entries */
	int cap;
};
/* Whether windows are emulated (libunicorn) before they are followed:
 * OCREC_SAMPLER_EMULATION=0 turns it off (for tests and comparisons). */
bool swb_emulation_wanted(void);
/* Free the tracer's buffers. */
void swb_tracer_free(struct swb_tracer *t);

enum swb_result {
	SWB_DONE,     /* depth branches collected; the thread is in a ptrace-stop */
	SWB_EVENT,    /* the thread reported something else (in *status): exit, exec, group-stop */
	SWB_FAILED,   /* oc_err() set; the thread is in a ptrace-stop if it still exists */
	SWB_BLOCKED,  /* no window: the thread was stopped in a blocking syscall, which
	               * restarts when it resumes; it is in its ptrace-stop */
	SWB_SKIPPED,  /* no window: it could not be emulated to its end and the thread
	               * blocks SIGTRAP, which following would undo; in its ptrace-stop */
};

struct swb_window {
	struct swb_entry *e;    /* oldest first; caller-owned, at least depth entries */
	int nr;
	uint64_t taken;         /* branches seen (more than nr when the window slid) */
	uint64_t ip;            /* where the thread stopped at the end */
	int status;             /* SWB_EVENT: the wait status to process */
};

/* tid is in a ptrace-stop (e.g. after PTRACE_INTERRUPT). Collect its next depth
 * taken branches into w (the last depth ones, with seek), and leave it stopped
 * after the last one, at w->ip. */
enum swb_result swb_collect(struct swb_tracer *t, struct swb_space *sp, pid_t tid, int depth,
			    struct swb_window *w);

/* Single-step tid once and report the taken branch, if any (for full traces
 * in tests and where the engine must). 1 taken (in *e), 0 not taken, -1 event
 * (status in *status) or error. */
int swb_step(struct swb_tracer *t, struct swb_space *sp, pid_t tid, struct swb_entry *e, int *status);

/* Let tid (in a ptrace-stop) run until it is about to execute addr, with the
 * engine's breakpoints; -1 (oc_err) when something else stopped it first
 * (its wait status in *status). */
int swb_run_to(struct swb_tracer *t, pid_t tid, uint64_t addr, int *status);

#endif
