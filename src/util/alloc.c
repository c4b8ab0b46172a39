/* Allocation that never returns NULL, growable arrays and their sorting, and
 * the growable string. */
#define _GNU_SOURCE  /* vasprintf, qsort_r */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static void oom(size_t n)
{
	fprintf(stderr, "ocrec: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = xmalloc(len + 1);
	memcpy(d, s, len);
	d[len] = 0;
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom(strlen(fmt));
	va_end(ap);
	return s;
}

void grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	if (need <= *cap)
		return;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	*p = xrealloc(*p, ncap * elem);
	*cap = ncap;
}

void sort_items(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void sort_items_r(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *, void *),
		  void *ctx)
{
	if (n > 1)
		qsort_r(base, n, size, cmp, ctx);
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	GROW(sb->buf, sb->cap, sb->len + n + 1);
	memcpy(sb->buf + sb->len, s, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void sb_puts(struct strbuf *sb, const char *s) { sb_add(sb, s, strlen(s)); }
void sb_putc(struct strbuf *sb, char c) { sb_add(sb, &c, 1); }

void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	GROW(sb->buf, sb->cap, sb->len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = 0;
}

char *sb_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

size_t count_le(const void *base, size_t n, size_t elem, size_t off, uint64_t key)
{
	const unsigned char *p = base;
	size_t lo = 0, hi = n;
	uint64_t v;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		memcpy(&v, p + mid * elem + off, sizeof(v));
		if (v <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
