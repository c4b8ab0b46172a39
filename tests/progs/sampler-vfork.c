/* sampler-vfork.c — vfork() and exec /bin/true in a loop for argv[1]
 * seconds, then exit 0: a process that is nearly always waiting in vfork()
 * for a child, which ptrace stops at its attach and its exec (t0602). */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 3);

	while (time(NULL) < end) {
		int status;
		pid_t p = vfork();

		if (p == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		if (p < 0 || waitpid(p, &status, 0) != p || !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	return 0;
}
