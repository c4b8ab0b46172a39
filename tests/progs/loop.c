/* loop.c — the article's first example: foo() is called in half of the iterations. */
#include <stdlib.h>

volatile long sink;

__attribute__((noinline))
void foo(int i)
{
	sink += i;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000;
	long r;

	for (r = 0; r < n; r++) {
		int i;
		for (i = 0; i < 10; i++)
			if (i % 2 != 0)
				foo(i);
	}
	return 0;
}
