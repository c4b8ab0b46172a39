/* bolt-util.c — the second file of bolt-main: its own static step(). */
static __attribute__((noinline)) long step(long i)
{
	return (i >> 1) + 5;
}

long util_work(long i)
{
	long s = 0, k;
	for (k = 0; k < (i & 7); k++)
		s += step(i + k);
	return s;
}
