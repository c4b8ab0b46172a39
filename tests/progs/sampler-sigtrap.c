/* sampler-sigtrap.c — blocks SIGTRAP while it computes, and while it makes
 * system calls; blocks and unblocks it again and again; sends itself
 * signals whose handler blocks every signal; then computes with SIGTRAP
 * unblocked and raises one of its own.
 * The software branch sampler's signal stops make each sample a SIGTRAP of
 * the tracer's, and a window followed with steps or breakpoints traps the
 * thread (which, were SIGTRAP blocked, would unblock it and reset its
 * handler): the program must see its own SIGTRAP only, through its handler,
 * with its mask as it set it. Exit 0 when so. The phases are
 * compute_blocked(), syscalls_blocked(), mask_toggles(), signalled() and
 * compute_unblocked().
 * Usage: sampler-sigtrap [ITERATIONS per phase] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t traps, last_code;
static sigset_t trap;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	traps++;
	last_code = si->si_code;
}

static inline unsigned long compute(unsigned long n, unsigned long m, unsigned long r)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += i % m == r ? i : 1;
	return x;
}

/* Each phase its own function, for the test to count the windows of each. */
static __attribute__((noinline)) unsigned long compute_blocked(unsigned long n)
{
	return compute(n, 7, 3);
}

static __attribute__((noinline)) unsigned long syscalls_blocked(unsigned long n)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		x += (unsigned long)getppid();
	return x;
}

/* A few iterations between the changes: windows follow the thread across
 * the system calls that block SIGTRAP. */
static __attribute__((noinline)) unsigned long mask_toggles(unsigned long n)
{
	unsigned long i, x = 0;

	for (i = 0; i < n; i++) {
		sigprocmask(SIG_BLOCK, &trap, NULL);
		x += compute(8, 3, 1);
		sigprocmask(SIG_UNBLOCK, &trap, NULL);
		x += compute(8, 3, 2);
	}
	return x;
}

static volatile unsigned long in_handlers;

static void on_usr1(int sig)
{
	(void)sig;
	in_handlers += compute(16, 3, 1);
}

/* Signals it sends itself (not raise(), which blocks every signal around
 * its tgkill), taken by a handler that blocks every signal, as profilers'
 * handlers do: windows follow the thread into it. */
static __attribute__((noinline)) unsigned long signalled(unsigned long n)
{
	struct sigaction sa = { 0 };
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	unsigned long i, x = 0;

	sa.sa_handler = on_usr1;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++) {
		syscall(SYS_tgkill, pid, tid, SIGUSR1);
		x += compute(8, 3, 2);
	}
	return x;
}

static __attribute__((noinline)) unsigned long compute_unblocked(unsigned long n)
{
	return compute(n, 5, 2);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000;
	struct sigaction sa = { 0 }, now_sa;
	sigset_t now;

	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	sigprocmask(SIG_BLOCK, &trap, NULL);
	compute_blocked(n);
	syscalls_blocked(n / 1024);
	sigprocmask(SIG_BLOCK, NULL, &now);
	if (!sigismember(&now, SIGTRAP)) {
		fprintf(stderr, "sampler-sigtrap: SIGTRAP was unblocked behind the program's back\n");
		return 2;
	}
	sigprocmask(SIG_UNBLOCK, &trap, NULL);
	mask_toggles(n / 256);
	signalled(n / 2048);
	compute_unblocked(n);
	raise(SIGTRAP);
	sigaction(SIGTRAP, NULL, &now_sa);
	if (now_sa.sa_sigaction != on_trap) {
		fprintf(stderr, "sampler-sigtrap: the SIGTRAP handler was reset\n");
		return 3;
	}
	if (traps != 1 || last_code != SI_TKILL) {
		fprintf(stderr, "sampler-sigtrap: %d SIGTRAPs (last si_code %d), expected its own one\n", (int)traps,
			(int)last_code);
		return 1;
	}
	return 0;
}
