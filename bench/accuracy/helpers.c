/* helpers.c — small static helpers that the compiler inlines into several
 * callers, each caller hot at its own rate. Every call gets other
 * arguments, so that no compiler hoists it out of main's loop (the -O0
 * coverage build must make the calls the -O2 builds make).
 * usage: helpers [N] */
#include <stdio.h>
#include <stdlib.h>

static inline long clamp(long v, long lo, long hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

static inline unsigned long mix(unsigned long h, unsigned long v)
{
	h ^= v + 0x9e3779b97f4a7c15UL + (h << 6) + (h >> 2);
	return h;
}

__attribute__((noinline)) long smooth(const long *a, long n, long shift)
{
	long i, s = 0;

	for (i = 0; i < n; i++)
		s += clamp(a[i] + shift, -50, 50);
	return s;
}

__attribute__((noinline)) unsigned long digest(const long *a, long n, unsigned long h)
{
	long i;

	for (i = 0; i < n; i++)
		h = mix(h, (unsigned long)clamp(a[i], 0, 1000));
	return h;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, i, r, s = 0;
	long a[1024];
	unsigned long h = 0;

	for (i = 0; i < 1024; i++)
		a[i] = (i * 7919) % 211 - 100;
	for (r = 0; r < n; r++) {
		s += smooth(a, 1024, r % 64 - 32);
		if (r % 3 == 0)
			h = digest(a, 1024, h);
	}
	printf("%ld %lu\n", s, h);
	return 0;
}
