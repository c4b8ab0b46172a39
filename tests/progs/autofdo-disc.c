/* autofdo-disc.c — one source line with several basic blocks, which gcc
 * tells apart by DWARF discriminators, for the AutoFDO tests. Lines marked
 * "@NAME" are found by the tests. */
volatile long sink;

__attribute__((noinline)) long odd(long v) { return v * 3; }
__attribute__((noinline)) long even(long v) { return v >> 2; }

__attribute__((noinline)) long count(const long *a, long n)
{
	long i, s = 0;

	for (i = 0; i < n; i++) if (a[i] & 1) s += odd(a[i]); else s -= even(a[i]); /* @disc_line */
	return s;
}

int main(void)
{
	long a[64];

	for (int i = 0; i < 64; i++)
		a[i] = i * 7;
	sink = count(a, 64);
	return 0;
}
