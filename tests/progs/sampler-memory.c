/* Branches that depend on memory the program itself writes, in the ways the
 * software sampler's planner must follow exactly (x86-64):
 *  - vector stores (movups, movq) then scalar loads of what they wrote
 *    (capstone 4 marks those stores as reads);
 *  - memset (rep stos or vector code) then loads;
 *  - returns and calls through function pointers kept in memory;
 *  - a shared mapping seen at two addresses: a store through one changes what
 *    a load through the other reads.
 * usage: sampler-memory ROUNDS */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct pair { unsigned long lo, hi; };

static __attribute__((noinline)) void store16(struct pair *p, unsigned long lo, unsigned long hi)
{
	__asm__ volatile("movq %1, %%xmm0\n\tmovq %2, %%xmm1\n\tpunpcklqdq %%xmm1, %%xmm0\n\t"
			 "movups %%xmm0, %0" : "=m"(*p) : "r"(lo), "r"(hi) : "xmm0", "xmm1");
}

static __attribute__((noinline)) void store8(unsigned long *p, unsigned long v)
{
	__asm__ volatile("movq %1, %%xmm0\n\tmovq %%xmm0, %0" : "=m"(*p) : "r"(v) : "xmm0");
}

static int hits;

/* A call in each if-body keeps the compiler from turning it into a cmov. */
static __attribute__((noinline)) void hit(int n)
{
	hits += n;
	__asm__ volatile("");
}

static int odd(int x) { return x & 1; }
static int big(int x) { return x > 40; }
static int (*const checks[])(int) = { odd, big };

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10, r, i;
	struct pair pr = { 0, 0 };
	unsigned long cell = 0;
	unsigned char buf[64];
	int (*volatile fn[2])(int) = { checks[0], checks[1] };
	int fd = memfd_create("sampler-memory", 0);
	volatile unsigned long *a = MAP_FAILED, *b = MAP_FAILED;

	if (fd >= 0 && ftruncate(fd, 4096) == 0) {
		a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (a == MAP_FAILED || b == MAP_FAILED) {
		perror("sampler-memory: a shared mapping");
		return 1;
	}
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 8; i++) {
			/* if-then with no else: a wrong guess would rejoin the path */
			store16(&pr, (unsigned long)(i * r), (unsigned long)~0UL);
			if (*(volatile unsigned long *)&pr.lo < (unsigned long)(3 * i))
				hit(1);
			store8(&cell, (unsigned long)(r + i));
			if (*(volatile unsigned long *)&cell & 2)
				hit(2);
			memset(buf, i, sizeof(buf));
			if (((volatile unsigned char *)buf)[i * 7] == 3)
				hit(3);
			if (fn[i & 1](r * i))
				hit(4);
			a[i] = (unsigned long)(r ^ i);
			if (b[i] & 1)
				hit(5);
		}
	}
	fprintf(stderr, "%d\n", hits);   /* stdout carries the trace */
	return 0;
}
