/* sampler-shared.c — threads whose branches depend on what the other threads
 * write, the software sampler's residual risk (docs/sampler.md): N threads
 * (argv[1], default 2) take turns through a shared counter, each waiting for
 * its turn in a loop that reads it, for argv[2] turns each (default 200000);
 * between turns each adds to a shared sum with an atomic instruction. Exits
 * 0 when every turn was taken in order. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static atomic_ulong turn, sum;
static unsigned long nthreads = 2, turns = 200000;

static void *run(void *arg)
{
	unsigned long me = (unsigned long)(uintptr_t)arg, i;

	for (i = 0; i < turns; i++) {
		unsigned spins = 0;

		/* the branch another thread decides; after many reads the CPU is
		 * given up, so that a loaded machine does not spend whole time
		 * slices here while the thread whose turn it is waits for a CPU */
		while (atomic_load_explicit(&turn, memory_order_acquire) % nthreads != me)
			if (++spins % 4096 == 0)
				sched_yield();
		atomic_fetch_add_explicit(&sum, i, memory_order_relaxed);
		atomic_fetch_add_explicit(&turn, 1, memory_order_release);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t *t;
	unsigned long i;

	if (argc > 1)
		nthreads = strtoul(argv[1], NULL, 0);
	if (argc > 2)
		turns = strtoul(argv[2], NULL, 0);
	if (nthreads < 1)
		return 2;
	t = calloc(nthreads, sizeof(*t));
	for (i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, run, (void *)(uintptr_t)i);
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	free(t);
	return atomic_load(&turn) == nthreads * turns && atomic_load(&sum) == nthreads * (turns * (turns - 1) / 2)
		       ? 0 : 1;
}
