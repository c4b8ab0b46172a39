/* early.c — loops with early exits: a linear search that returns at the
 * first match, and a scan that breaks out when a running sum passes a
 * bound. usage: early [N] */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long find(const int *a, long n, int key)
{
	long i;

	for (i = 0; i < n; i++)
		if (a[i] == key)
			return i;
	return -1;
}

__attribute__((noinline)) long prefix(const int *a, long n, long bound)
{
	long i, s = 0;

	for (i = 0; i < n; i++) {
		s += a[i];
		if (s > bound)
			break;
		if (a[i] < 0)
			continue;
		s++;
	}
	return i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, r, acc = 0;
	static int a[4096];
	int i;

	for (i = 0; i < 4096; i++)
		a[i] = (i * 37) % 1000 - 100;
	for (r = 0; r < n; r++) {
		acc += find(a, 4096, (int)(r % 1200) - 100);
		acc += prefix(a, 4096, 20000 + r % 5000);
	}
	printf("%ld\n", acc);
	return 0;
}
