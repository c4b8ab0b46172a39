/* autofdo-plt.c — for the exact-profile tests (t0705): gcc 12 -O2 ends
 * release()'s first line with a tail call through the PLT (`jmp free@plt`,
 * its pieces around the epilogue's), which callgrind charges with the stub's
 * instructions unless --skip-plt=no, and clears a node with `rep stos`, which
 * callgrind counts once per iteration. */
#include <stdlib.h>
#include <string.h>

struct node {
	long v[11];
};

volatile int mode = 2;

__attribute__((noinline)) void release(void *ptr)
{
	if (mode == 2) { free(ptr); return; }
	if (ptr == NULL)
		return;
	mode++;
}

struct node *pool;

__attribute__((noinline)) struct node *make(long i)
{
	struct node *n = &pool[i & 15];

	memset(n, '\0', sizeof(*n));
	n->v[i % 11] = i;
	return n;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000;

	pool = calloc(16, sizeof(*pool));
	for (i = 0; i < n; i++) {
		make(i);
		release(malloc(16));
	}
	free(pool);
	return 0;
}
