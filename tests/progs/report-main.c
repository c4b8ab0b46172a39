/* report-main.c — a program for the symbol and report tests: two local
 * functions, a call through the PLT (puts) and into report-lib.c's library. */
#include <stdio.h>
#include <stdlib.h>

int report_lib_work(int n);

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int hot_loop(int n)
{
	int i, s = 0;
	for (i = 0; i < n; i++)
		s += leaf(i);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int s = hot_loop(n) + report_lib_work(n);
	puts(s ? "done" : "zero");
	return 0;
}
