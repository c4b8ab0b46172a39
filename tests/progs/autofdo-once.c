/* autofdo-once.c — run() is entered once and spends the run in its loop, as
 * gawk's interpreter does: no sample sees its entry, so its AutoFDO head
 * count is 0, while its first block (after the call to start()) and the code
 * after the loop run once per call. Lines marked "@NAME" are found by the
 * tests. */
#include <stdio.h>
#include <stdlib.h>

volatile long seed;

__attribute__((noinline)) long start(long n)
{
	return seed + n % 2;
}

__attribute__((noinline)) long run(long n)
{
	long i, acc = start(n);

	for (i = 0; i < n; i++)
		acc += (i * 7) % 13;          /* @loop */
	printf("%ld\n", acc);
	return acc;
}

int main(int argc, char **argv)
{
	return run(argc > 1 ? atol(argv[1]) : 1000) == 42;
}
