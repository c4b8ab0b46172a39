/* sampler-raise.c — a program that handles a signal on every iteration:
 * raise(SIGUSR1), whose handler counts it, then a little work. Most branch
 * windows of the software sampler then hold a delivery to the handler.
 * Exits 0 when the handler ran once per raise, 1 otherwise.
 * Usage: sampler-raise [ITERATIONS] */
#include <signal.h>
#include <stdlib.h>

static volatile sig_atomic_t handled;
volatile long sink;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i, j;
	struct sigaction sa = { .sa_handler = on_usr1 };

	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++) {
		raise(SIGUSR1);
		for (j = 0; j < 20; j++)
			sink += j % 3 ? j : -j;
	}
	return handled == n ? 0 : 1;
}
