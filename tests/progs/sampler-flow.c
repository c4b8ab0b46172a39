/* sampler-flow.c — known control flow for the software branch sampler's tests:
 * a switch through a jump table (indirect jump), recursion (calls and returns),
 * calls through a function pointer (indirect call) and a loop with a branch
 * taken in half of its iterations. Usage: sampler-flow [ITERATIONS] */
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) static long step_switch(int k)
{
	switch (k & 7) {    /* dense cases: compiled as a jump table */
	case 0: return sink + 3;
	case 1: return sink * 5;
	case 2: return sink - 7;
	case 3: return sink ^ 11;
	case 4: return sink + 13;
	case 5: return sink * 17;
	case 6: return sink - 19;
	default: return sink ^ 23;
	}
}

__attribute__((noinline)) static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static long twice(long x) { return 2 * x; }
__attribute__((noinline)) static long plus1(long x) { return x + 1; }
static long (*volatile ops[2])(long) = { twice, plus1 };

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;

	for (i = 0; i < n; i++) {
		sink = step_switch((int)i);
		if (i % 2)
			sink += fib(5);
		sink = ops[i & 1](sink);
	}
	return (int)(sink & 0) + 3;   /* a known exit status */
}
