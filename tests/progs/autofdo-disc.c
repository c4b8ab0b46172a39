/* autofdo-disc.c — one source line with several basic blocks, which gcc
 * tells apart by DWARF discriminators, for the AutoFDO tests. Lines marked
 * "@NAME" are found by the tests. usage: autofdo-disc [REPEATS] */
#include <stdlib.h>

volatile long sink;

__attribute__((noinline)) long odd(long v) { return v * 3; }
__attribute__((noinline)) long even(long v) { return v >> 2; }

__attribute__((noinline)) long count(const long *a, long n)
{
	long i, s = 0;

	for (i = 0; i < n; i++) if (a[i] & 1) s += odd(a[i]); else s -= even(a[i]); /* @disc_line */
	return s;
}

int main(int argc, char **argv)
{
	long reps = argc > 1 ? atol(argv[1]) : 1, a[64];

	for (int i = 0; i < 64; i++)
		a[i] = i * 7;
	for (long r = 0; r < reps; r++)
		sink += count(a, 64);
	return 0;
}
