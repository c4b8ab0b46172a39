/* sampler-vfork.c — vfork() and exec /bin/true in a loop for argv[1]
 * seconds, then exit 0: a process that is nearly always waiting in vfork()
 * for a child, which ptrace stops at its attach and its exec (t0602).
 *
 * sampler-vfork SECONDS orphan FILE: the process forks and exits at once;
 * its child runs the loop and writes FILE at the end. Its timer events are
 * inherited copies of those of a process that is gone, which ocrec no longer
 * turns off around followed windows, so a window that steps vfork() gives
 * the vfork child a running timer. Each vfork() comes right after 64,000
 * instructions without a branch (the timer samples user time only: most of
 * the windows of this process step its vfork), and each vfork child spins
 * 1 ms before its exec (long enough for the timer to sample it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* Calls only: a vfork child shares its parent's stack frame. */
static void spin_us(long long us)
{
	long long end = now_us() + us;

	while (now_us() < end)
		;
}

/* 16,000 multiplications in a row, without a branch. */
static void straight(void)
{
	unsigned long x = 3;

	__asm__ volatile(".rept 16000\n\timul %1, %0\n\t.endr" : "+r"(x) : "r"(1ul));
}

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 3);
	int orphan = 0;
	FILE *done;

	if (argc > 3 && strcmp(argv[2], "orphan") == 0) {
		pid_t p = fork();

		if (p < 0)
			return 1;
		if (p > 0)
			return 0;
		orphan = 1;
	}
	while (time(NULL) < end) {
		int status;
		pid_t p;

		if (orphan) {
			straight();
			straight();
			straight();
			straight();
		}
		p = vfork();
		if (p == 0) {
			if (orphan)
				spin_us(1000);
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	if (orphan) {
		done = fopen(argv[3], "w");
		if (!done || fclose(done) != 0)
			return 1;
	}
	return 0;
}
