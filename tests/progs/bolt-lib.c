/* bolt-lib.c — a shared library for bolt-main -DWITH_LIB: a loop and a
 * local helper inside a .so. */
static __attribute__((noinline)) long mix(long i)
{
	return i % 3 == 0 ? i * 2 : i + 1;
}

long lib_work(long i)
{
	long s = 0, k;
	for (k = 0; k < 4; k++)
		s += (k & 1) ? mix(i + k) : k;
	return s;
}
