/* script-jit.c — a "JIT": a counting loop copied into executable anonymous
 * memory and run there (x86-64 code). Prints "PID ADDRESS" of the code, for a
 * perf map file (/tmp/perf-PID.map) that names it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	/* mov rcx, rdi; 1: dec rcx; jnz 1b; ret */
	static const unsigned char code[] = { 0x48, 0x89, 0xf9, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3 };
	long n = argc > 1 ? atol(argv[1]) : 300000000;
	unsigned char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	printf("%d %lx\n", (int)getpid(), (unsigned long)p);
	fflush(stdout);
	((void (*)(long))p)(n);
	return 0;
}
