/* report-lib.c — a shared library for the symbol tests (built with -shared -fPIC). */
int report_lib_work(int n);

int report_lib_work(int n)
{
	int i, s = 0;
	for (i = 0; i < n; i++)
		s += i % 7;
	return s;
}
