/* String helpers, number parsing, hashing, clocks. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

bool str_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

const char *str_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool env_off(const char *name)
{
	const char *v = getenv(name);

	return v && strcmp(v, "0") == 0;
}

char *str_trim(char *s)
{
	char *e;
	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

void str_lower(char *s) { for (; *s; s++) *s = (char)tolower((unsigned char)*s); }
void str_upper(char *s) { for (; *s; s++) *s = (char)toupper((unsigned char)*s); }

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

size_t str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *row = xcalloc(lb + 1, sizeof(*row)), d;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	d = row[lb];
	free(row);
	return d;
}

char **str_split(const char *s, char sep, size_t *n)
{
	size_t cnt = 1, i = 0;
	const char *p, *q;
	char **v;
	for (p = s; *p; p++)
		cnt += *p == sep;
	v = xcalloc(cnt + 1, sizeof(*v));
	for (p = s; ; p = q + 1) {
		q = strchr(p, sep);
		if (!q) {
			v[i++] = xstrdup(p);
			break;
		}
		v[i++] = xstrndup(p, (size_t)(q - p));
	}
	if (n)
		*n = i;
	return v;
}

void strv_free(char **v)
{
	char **p;
	if (!v)
		return;
	for (p = v; *p; p++)
		free(*p);
	free(v);
}

int parse_name_bits(const char *list, const struct name_bits *table, size_t n, const char *opt,
		    const char *what, uint64_t *bits)
{
	size_t nr, i, k;
	char **names = str_split(list, ',', &nr);

	*bits = 0;
	for (i = 0; i < nr; i++) {
		for (k = 0; k < n && strcmp(names[i], table[k].name) != 0; k++)
			;
		if (k == n) {
			struct strbuf valid = STRBUF_INIT;

			for (k = 0; k < n; k++)
				sb_printf(&valid, "%s%s", k ? "," : "", table[k].name);
			oc_err("%s %s: unknown %s '%s' (valid: %s)", opt, list, what, names[i], sb_str(&valid));
			sb_free(&valid);
			strv_free(names);
			return -1;
		}
		*bits |= table[k].bits;
	}
	strv_free(names);
	return 0;
}

bool strv_contains(char *const *v, const char *s)
{
	for (; *v; v++)
		if (strcmp(*v, s) == 0)
			return true;
	return false;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort(char **v, size_t n)
{
	sort_items(v, n, sizeof(*v), cmp_str);
}

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL;
	while (n--) {
		h ^= *s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double now_seconds(void)
{
	return (double)now_ns() / 1e9;
}

bool isatty_stdout(void) { return isatty(1); }
bool isatty_stderr(void) { return isatty(2); }
