/* bolt-main.c — code shapes BOLT's profile reader cares about: a switch
 * compiled to a jump table, a cold path gcc splits into NAME.cold, a static
 * function whose name bolt-util.c uses too (BOLT names them step/1 and
 * step/2), recursion, a call through a pointer, a tail call, calls through
 * the PLT into libc and, with -DWITH_LIB, into a shared library (bolt-lib.c).
 * usage: bolt-main [ITERATIONS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long util_work(long i);
#ifdef WITH_LIB
long lib_work(long i);
#endif

volatile long sink;

static __attribute__((noinline)) long step(long i)
{
	return i * 3 + 1;
}

static __attribute__((noinline)) long classify(long i)
{
	switch (i % 9) {
	case 0: return step(i) + 11;
	case 1: return i ^ 0x55;
	case 2: return i << 2;
	case 3: return i - 7;
	case 4: return step(i) >> 1;
	case 5: return i * i;
	case 6: return i / 3;
	case 7: return i + 1000;
	default: return 0;
	}
}

static __attribute__((noinline)) void fail(const char *what, long i)
{
	fprintf(stderr, "bolt-main: %s at %ld\n", what, i);
	abort();
}

static __attribute__((noinline)) long checked(long i)
{
	if (__builtin_expect(i < 0, 0))
		fail("negative", i);
	if (__builtin_expect(i == 123456789, 0)) {
		char buf[64];
		snprintf(buf, sizeof(buf), "%ld", i);
		sink += strlen(buf);
	}
	return i & 0xffff;
}

static __attribute__((noinline)) long fib(long n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static long (*const ops[])(long) = { step, classify, checked };

static __attribute__((noinline)) long dispatch(long i)
{
	return ops[i % 3](i);
}

static __attribute__((noinline)) long tail(long i)
{
	if (i & 1)
		return util_work(i);   /* a tail call at -O2 */
	return classify(i);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000000, i, s = 0;

	for (i = 0; i < n; i++) {
		s += dispatch(i) + tail(i) + checked(i);
#ifdef WITH_LIB
		s += lib_work(i);
#endif
		if (i % 100000 == 0)
			s += fib(15);
	}
	sink = s;
	printf("%ld\n", s & 0xff);
	return 0;
}
