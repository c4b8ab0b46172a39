/* sampler-int3.c — a program that runs its own int3 instructions and counts
 * the SIGTRAPs in a handler: a tracer that plants int3 breakpoints must still
 * deliver the program's own. Exits 0 when every int3 reached the handler.
 * SA_NODEFER: a single-step trap in a handler that blocks SIGTRAP is forced
 * on the thread by resetting the handler to the default (the kernel's
 * force_sig), so no ptrace tracer that steps can follow such a handler.
 * Usage: sampler-int3 [ITERATIONS] */
#include <signal.h>
#include <stdlib.h>

static volatile sig_atomic_t traps;
volatile long sink;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, i, j;
	struct sigaction sa = { .sa_handler = on_trap, .sa_flags = SA_NODEFER };

	sigaction(SIGTRAP, &sa, NULL);
	for (i = 0; i < n; i++) {
		for (j = 0; j < 30; j++)
			sink += j % 3 ? j : -j;
		__asm__ volatile("int3");
	}
	return traps == n ? 0 : 1;
}
