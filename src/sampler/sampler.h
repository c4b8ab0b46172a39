/* sampler.h — software branch sampling for machines without LBR: a timer
 * samples the workload and, at each sample, ptrace collects the next N taken
 * branches it really executes; each window becomes an ordinary
 * PERF_SAMPLE_BRANCH_STACK sample in perf.data.
 *
 * What a window holds (the engine is in swtrace.h):
 *  - exactly the next N taken branches the thread executes after the sample,
 *    in order, none missed: conditional (taken only, PERF_BR_COND), direct
 *    and indirect jumps and calls, returns;
 *  - a syscall is not a branch when it returns to the next instruction (as a
 *    user-only LBR filter sees it); one that resumes elsewhere (rt_sigreturn)
 *    is one PERF_BR_SYSCALL entry from the syscall instruction to where the
 *    thread resumes;
 *  - a signal delivered to a handler is one PERF_BR_IRQ entry from the
 *    instruction it interrupted to the handler; a signal that arrives where
 *    the planned path is ambiguous restarts the window (rare);
 *  - the sample's ip is where the window ended (the last branch's target),
 *    the entries are newest first, like the kernel writes hardware LBR;
 *    windows cut short by exit, exec or a group-stop are dropped.
 * The file says it is emulated: the event is named "task-clock:u (software
 * branch sampler)" (or cpu-clock with -e cpu-clock) and CPUDESC ends with
 * "(no LBR: branch stacks emulated by ocrec's software branch sampler, N deep)".
 *
 * The timer is task-clock (or cpu-clock), user mode, -F (default 1000 Hz) or
 * -c; it is off while a window is followed, so the sampler's own cost does
 * not bring more samples. Side-band records (COMM, MMAP2, FORK, EXIT) come
 * from the kernel through the timer's ring buffers; -p synthesizes COMM and
 * MMAP2 from /proc first.
 *
 * The workload behaves as without ocrec: its signals are delivered, group-
 * stops kept, its exit status returned (record_stats.exit_status), threads,
 * forks and exec followed. A window is emulated while the thread stays
 * stopped where it can be (libunicorn, emulate.h): the timer's stop is then
 * its only cost. Where it is followed with ptrace instead, the thread is
 * pinned to the CPU the tracer is on (a cross-CPU ptrace stop costs about 4x
 * more) and the timer is off; its affinity is restored before it runs freely
 * again. Costs that remain: every signal the workload receives is a ptrace
 * stop (about 20 us here), and a followed window costs one stop per branch
 * that the registers do not decide (memory-driven code such as an
 * interpreter: about 0.7 per taken branch) and at least one per loop
 * iteration (a tight one-block loop: one per taken branch). See
 * docs/sampler.md.
 */
#ifndef OCREC_SAMPLER_H
#define OCREC_SAMPLER_H

#include "capture/capture.h"

/* Run opts->argv (or attach to opts->pid) under the software branch sampler and
 * write opts->output. Same contract as record_run(). */
int swbranch_record(const struct record_opts *opts, struct record_stats *st);

/* `ocrec record` with the software branch sampler: swbranch_record() after the
 * command's checks (-j filters it cannot honour are refused), with an existing
 * output kept as .old (put back when nothing was written). automatic: the PMU
 * gave no branch stacks (record_run() returned RECORD_NO_BRANCH_STACKS), which
 * a notice says. */
int sampler_record(const struct record_opts *opts, struct record_stats *st, bool automatic);

/* How the engine stops a thread at an address: a hardware debug register (per
 * thread, nothing written), or, where those do not fire (hypervisors that do
 * not pass them through), an int3 written into the code while the thread
 * runs to it; the process's other threads are then held in a ptrace-stop
 * during the window, since they could run into the int3. */
enum swb_bp { SWB_BP_AUTO, SWB_BP_DEBUGREG, SWB_BP_INT3 };
/* This machine's: probed once with a child process (the environment variable
 * OCREC_SAMPLER_BREAKPOINTS=int3|debugreg chooses instead, for tests). */
enum swb_bp swb_breakpoints(void);
const char *swb_breakpoints_name(enum swb_bp bp);
/* Why: "debug registers do not fire here", or the environment variable. */
const char *swb_breakpoints_why(void);

#endif
