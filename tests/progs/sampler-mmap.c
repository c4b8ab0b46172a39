/* sampler-mmap.c — maps its own executable and unmaps it N times, a few
 * branches apart: each mapping is one MMAP2 record (t0601).
 * Usage: sampler-mmap N */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile long sink = 0;
	int n = argc > 1 ? atoi(argv[1]) : 3000, i, j;
	int fd = open("/proc/self/exe", O_RDONLY);

	if (fd < 0) {
		perror("/proc/self/exe");
		return 1;
	}
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
