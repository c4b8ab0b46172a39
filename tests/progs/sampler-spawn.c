/* sampler-spawn.c — vfork() children that run the code a thread of their
 * parent runs, in the parent's memory (t0602). A thread spins through a loop
 * whose branches depend on memory; main vforks argv[1] children one after
 * the other (default 200), each running the same loop about 2 ms before it
 * execs /bin/true, as posix_spawn()'s children share their parent's memory
 * until they exec. An int3 the software sampler writes for one of them is in
 * the other's way. Exits 0 when every child exited 0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile int done;
static volatile unsigned long sink;
static volatile unsigned char table[256] = { 1, 0, 0, 1, 1, 0, 1 };

static __attribute__((noinline)) unsigned long work(unsigned long n)
{
	unsigned long a = 0, i;

	for (i = 0; i < n; i++) {
		if (table[i & 255] & 1)
			a += i;
		else
			a ^= i >> 1;
	}
	return a;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!done)
		sink += work(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	int children = argc > 1 ? atoi(argv[1]) : 200, i;
	pthread_t t;

	if (pthread_create(&t, NULL, spinner, NULL) != 0)
		return 2;
	for (i = 0; i < children; i++) {
		int status;
		pid_t p = vfork();

		if (p == 0) {
			sink += work(2000000);
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "sampler-spawn: child %d: wait status %#x\n", i, p < 0 ? 0 : status);
			return 1;
		}
	}
	done = 1;
	pthread_join(t, NULL);
	return 0;
}
