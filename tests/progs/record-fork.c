/* record-fork.c — forks N children (argv[1], default 3) that burn CPU in
 * child_work(), one of them after exec'ing itself (argv "exec"), while the
 * parent burns in parent_work(): a recorder must follow every child. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void child_work(unsigned long n)
{
	volatile unsigned long acc = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		acc += i * 3;
	sink = acc;
}

__attribute__((noinline)) static void parent_work(unsigned long n)
{
	volatile unsigned long acc = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		acc ^= i;
	sink = acc;
}

__attribute__((noinline)) static void exec_child_work(unsigned long n)
{
	volatile unsigned long acc = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		acc += i ^ 5;
	sink = acc;
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 2 ? strtoul(argv[2], NULL, 0) : 100000000;
	int n, i, status;

	if (argc > 1 && strcmp(argv[1], "exec") == 0) {
		exec_child_work(iters);
		return 0;
	}
	n = argc > 1 ? atoi(argv[1]) : 3;
	for (i = 0; i < n; i++) {
		pid_t p = fork();

		if (p == 0) {
			if (i == 0) {
				execl("/proc/self/exe", argv[0], "exec", argc > 2 ? argv[2] : "100000000", (char *)NULL);
				_exit(127);
			}
			child_work(iters);
			_exit(0);
		}
	}
	parent_work(iters);
	while (wait(&status) > 0)
		;
	return 0;
}
