/* flag.c — ocrec's demo program (make demo). A cheap function sets a flag; several
 * branches later the flag decides whether an expensive division runs. The samples land
 * on the division, and the branch history shows which path led there: the pattern of
 * the branch-history example in Andi Kleen's introduction to last branch records. */
#include <stdlib.h>

volatile long iterations;

__attribute__((noinline)) int set_flag(long i)
{
	if (i % 10 < 4)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	volatile double x = 1212121212, y = 121212;

	for (long i = 0; i < n; i++) {
		int flag = set_flag(i);
		iterations++;
		if (flag)
			x += x / y + y / x;
	}
	return 0;
}
