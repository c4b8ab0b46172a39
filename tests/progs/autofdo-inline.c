/* autofdo-inline.c — a loop with an always-inlined helper, for the DWARF
 * reader and AutoFDO tests. Lines marked "@NAME" are found by the tests. */
#include <stdlib.h>

volatile long sink;

static inline __attribute__((always_inline)) long scale(long v)
{
	if (v % 3 == 0)                       /* @scale_if */
		return v * 7;
	return v + 1;                         /* @scale_ret */
}

__attribute__((noinline)) long work(long n)
{
	long i, acc = 0;

	for (i = 0; i < n; i++)
		acc += scale(i);              /* @work_call */
	sink = acc;
	return acc;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;

	return work(n) == 42;
}
