/* sampler-mmap.c — maps its own executable and unmaps it N times, a few
 * branches apart: each mapping is one MMAP2 record (t0601).
 * Usage: sampler-mmap N [GO]
 * With GO, it blocks SIGTRAP (the timer's samples then do not stop it for
 * the tracer), writes its pid to GO.pid and waits for the file GO before
 * it maps: a test can stop the tracer first. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static int wait_for(const char *go)
{
	char path[4096];
	sigset_t trap;
	FILE *f;

	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	sigprocmask(SIG_BLOCK, &trap, NULL);
	snprintf(path, sizeof(path), "%s.pid", go);
	if (!(f = fopen(path, "w")) || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) {
		perror(path);
		return -1;
	}
	while (access(go, F_OK) != 0)
		usleep(1000);
	return 0;
}

int main(int argc, char **argv)
{
	volatile long sink = 0;
	int n = argc > 1 ? atoi(argv[1]) : 3000, i, j;
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	if (argc > 2 && wait_for(argv[2]) < 0)
		return 1;
	for (i = 0; i < n; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		sink += *(volatile char *)p;
		munmap(p, 4096);
		for (j = 0; j < 5; j++)
			sink += j & 3 ? j : -j;
	}
	close(fd);
	return 0;
}
