/* sampler-handover.c — windows that the software sampler's interpreter
 * starts and libunicorn finishes (x86-64): right after instructions the
 * interpreter computes come ones it leaves to libunicorn (bswap, rol, pshufd,
 * x87), which must take over its registers, flags and xmm values exactly,
 * and the branches after them depend on all of those.
 * usage: sampler-handover ROUNDS; the exit status is a sum of the branches'
 * outcomes, modulo 256. */
#include <stdlib.h>

/* cmp in the interpreter; bswap (libunicorn) leaves the flags; jb reads
 * them, adc reads CF */
static __attribute__((noinline)) unsigned long mix(unsigned long a, unsigned long b)
{
	unsigned long r;

	__asm__ volatile("mov %1, %0\n\t"
			 "cmp %2, %1\n\t"
			 "bswap %0\n\t"
			 "jb 1f\n\t"
			 "rol $7, %0\n"
			 "1:\n\t"
			 "adc $0, %0"
			 : "=&r"(r) : "r"(a), "r"(b) : "cc");
	return r;
}

/* addsd in the interpreter, then pshufd (libunicorn) reads its result */
static __attribute__((noinline)) double fmix(double x, double y)
{
	double r;

	__asm__ volatile("addsd %2, %1\n\t"
			 "pshufd $0x4e, %1, %0\n\t"
			 "pshufd $0x4e, %0, %0"
			 : "=&x"(r), "+x"(x) : "x"(y));
	return r;
}

/* x87 arithmetic on a value the interpreter computed */
static __attribute__((noinline)) int big(long v)
{
	volatile long double x = (long double)v * 1.5L;

	return x > 1000.0L;
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100, i;
	unsigned long sum = 0;

	for (i = 0; i < rounds; i++) {
		unsigned long m = mix((unsigned long)i * 2654435761u, (unsigned long)(rounds - i) * 40503u);

		if (m & 1)
			sum += 3;
		if (fmix((double)i, 0.5) > 50.0)
			sum += 5;
		if (big(i))
			sum += 7;
	}
	return (int)(sum & 255);
}
