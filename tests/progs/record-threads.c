/* record-threads.c — N threads (argv[1], default 4) each burn CPU in
 * thread_work() for argv[2] iterations while main burns in main_work(): a
 * recorder must see samples from every thread. */
#include <pthread.h>
#include <stdlib.h>

static volatile unsigned long sink;

/* Each thread works on its own stack variable: no shared cache line, so the
 * threads' CPU time does not depend on how they are scheduled. */
__attribute__((noinline)) static void thread_work(unsigned long n)
{
	volatile unsigned long acc = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		acc += i * 7;
	sink = acc;
}

__attribute__((noinline)) static void main_work(unsigned long n)
{
	volatile unsigned long acc = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		acc ^= i;
	sink = acc;
}

static unsigned long iters = 100000000;

static void *run(void *arg)
{
	(void)arg;
	thread_work(iters);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4, i;
	pthread_t *t;

	if (argc > 2)
		iters = strtoul(argv[2], NULL, 0);
	t = calloc((size_t)n, sizeof(*t));
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, run, NULL);
	main_work(iters);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
