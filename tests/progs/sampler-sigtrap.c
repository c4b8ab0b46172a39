/* sampler-sigtrap.c — blocks SIGTRAP while it computes, and while it makes
 * system calls, then computes with it unblocked and raises one of its own.
 * The software branch sampler's signal stops make each sample a SIGTRAP of
 * the tracer's, and a window followed across a system call traps the thread
 * (which, were SIGTRAP blocked, would unblock it and reset its handler): the
 * program must see its own SIGTRAP only, through its handler, with its mask
 * as it set it. Exit 0 when so.
 * Usage: sampler-sigtrap [ITERATIONS per phase] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t traps, last_code;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	traps++;
	last_code = si->si_code;
}

/* With syscalls, one every 16 iterations. */
static unsigned long work(unsigned long n, int syscalls)
{
	volatile unsigned long x = 0;
	unsigned long i;

	for (i = 0; i < n; i++) {
		x += i % 7 == 3 ? i : 1;
		if (syscalls && i % 16 == 0)
			x += (unsigned long)getppid();
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000000;
	struct sigaction sa = { 0 }, now_sa;
	sigset_t trap, now;

	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	sigprocmask(SIG_BLOCK, &trap, NULL);
	work(n, 0);
	work(n / 64, 1);
	sigprocmask(SIG_BLOCK, NULL, &now);
	if (!sigismember(&now, SIGTRAP)) {
		fprintf(stderr, "sampler-sigtrap: SIGTRAP was unblocked behind the program's back\n");
		return 2;
	}
	sigprocmask(SIG_UNBLOCK, &trap, NULL);
	work(n, 0);
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
