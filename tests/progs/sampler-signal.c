/* sampler-signal.c — a program that handles signals: in its first 100000
 * iterations it sends itself SIGUSR1 (handled) and SIGCHLD (ignored by
 * default); with a second argument an interval timer adds SIGALRM (handled)
 * every 2 ms and it exits 0, otherwise with the number of handled signals % 100.
 * Usage: sampler-signal [ITERATIONS [timer]] */
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
volatile long sink;

static void on_signal(int sig)
{
	(void)sig;
	handled++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	struct sigaction sa = { .sa_handler = on_signal };
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };

	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if (argc > 2)
		setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < n; i++) {
		if (i < 100000 && i % 100 == 0)
			raise(SIGUSR1);
		if (i < 100000 && i % 250 == 0)
			raise(SIGCHLD);
		sink += i % 3 ? i : -i;
	}
	if (argc > 2) {
		it.it_value.tv_usec = it.it_interval.tv_usec = 0;
		setitimer(ITIMER_REAL, &it, NULL);
		return 0;
	}
	return (int)(handled % 100);
}
