/* stat-pages.c — a workload with a known page-fault count: touches N fresh
 * pages (no transparent huge pages). Usage: stat-pages N [fork] [wait FIFO]
 *   fork: a child process touches the pages (tests inherit)
 *   wait FIFO: read one byte from FIFO first (lets a test attach with -p) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;
	char *p;

	if (n <= 0)
		return;
	p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	madvise(p, (size_t)(n * page), MADV_NOHUGEPAGE);
	for (i = 0; i < n; i++)
		p[i * page] = 1;
	munmap(p, (size_t)(n * page));
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int i, use_fork = 0;
	char c;

	for (i = 2; i < argc; i++) {
		if (strcmp(argv[i], "fork") == 0) {
			use_fork = 1;
		} else if (strcmp(argv[i], "wait") == 0 && i + 1 < argc) {
			int fd = open(argv[++i], O_RDONLY);
			if (fd < 0 || read(fd, &c, 1) != 1) {
				perror(argv[i]);
				return 1;
			}
			close(fd);
		}
	}
	if (use_fork) {
		pid_t pid = fork();
		int status;
		if (pid == 0) {
			touch_pages(n);
			_exit(0);
		}
		waitpid(pid, &status, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	touch_pages(n);
	return 0;
}
