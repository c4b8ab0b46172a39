/* sampler-unheld.c — a thread the software sampler cannot always hold, beside
 * one whose windows it follows (t0601). The second thread waits in vfork()
 * 22 ms at a time (an interrupt does not end that wait), so in int3 mode a
 * window of the first is often followed by single steps alone; a SIGALRM
 * every 2 ms makes those steps run past where emulation said the part ends.
 * The first thread runs a branchy loop twice and exits 0 when both runs
 * agree and its count of iterations, kept in memory, is exact: a thread
 * resumed with old registers runs some iterations again.
 * Usage: sampler-unheld [ITERATIONS] */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static volatile int done;
static volatile long iterations;

static void on_alarm(int sig)
{
	(void)sig;
	handled++;
}

static void *vforker(void *arg)
{
	(void)arg;
	while (!done) {
		struct timespec gap = { 0, 30000000 };
		int status;
		pid_t p = vfork();

		if (p == 0) {
			struct timespec wait = { 0, 22000000 };

			nanosleep(&wait, NULL);
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (p > 0)
			waitpid(p, &status, 0);
		nanosleep(&gap, NULL);
	}
	return NULL;
}

static __attribute__((noinline)) void work(long n, unsigned long *pa, unsigned long *pb)
{
	unsigned long a = 1, b = 0;
	long i;

	for (i = 0; i < n; i++) {
		if (i % 3 == 0)
			a = a * 6364136223846793005ul + 1;
		else if (i % 7 == 1)
			b ^= a >> 7;
		else
			b += (unsigned long)i;
		iterations++;
	}
	*pa = a;
	*pb = b;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 30000000;
	unsigned long a, b, a2, b2;
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } };
	sigset_t alarm;
	pthread_t t;

	/* the alarms go to the first thread */
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm, NULL);
	if (pthread_create(&t, NULL, vforker, NULL) != 0)
		return 2;
	pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	work(n, &a, &b);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	done = 1;
	pthread_join(t, NULL);
	work(n, &a2, &b2);
	if (a2 != a || b2 != b || iterations != 2 * n) {
		fprintf(stderr, "sampler-unheld: %ld iterations of %ld\n", iterations, 2 * n);
		return 1;
	}
	return 0;
}
