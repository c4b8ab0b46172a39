/* Minimal checks for ocrec's C unit tests: each prints PASS/FAIL/SKIP lines
 * that tests/run.sh counts. Return test_done() from main(). */
#ifndef OCREC_TAP_H
#define OCREC_TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_failed;

#define CHECK(cond, name) do { \
	if (cond) printf("PASS %s\n", name); \
	else { printf("FAIL %s: %s (%s:%d)\n", name, #cond, __FILE__, __LINE__); tap_failed++; } \
} while (0)

#define CHECK_INT(got, want, name) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ == w_) printf("PASS %s\n", name); \
	else { printf("FAIL %s: got %lld, want %lld (%s:%d)\n", name, g_, w_, __FILE__, __LINE__); tap_failed++; } \
} while (0)

#define CHECK_U64(got, want, name) do { \
	uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want); \
	if (g_ == w_) printf("PASS %s\n", name); \
	else { printf("FAIL %s: got 0x%" PRIx64 ", want 0x%" PRIx64 " (%s:%d)\n", name, g_, w_, __FILE__, __LINE__); tap_failed++; } \
} while (0)

#define CHECK_STR(got, want, name) do { \
	const char *g_ = (got), *w_ = (want); \
	if (g_ && w_ && strcmp(g_, w_) == 0) printf("PASS %s\n", name); \
	else { printf("FAIL %s: got \"%s\", want \"%s\" (%s:%d)\n", name, g_ ? g_ : "(null)", w_ ? w_ : "(null)", __FILE__, __LINE__); tap_failed++; } \
} while (0)

#define SKIP(name, why) printf("SKIP %s: %s\n", name, why)

static inline int test_done(void) { return tap_failed ? 1 : 0; }

/* Temporary files go under $TMPDIR, else /tmp, as the runner's do: BUF (of SIZE) gets
 * $TMPDIR/NAME, NAME ending in XXXXXX, made unique by mkdtemp or mkstemp. */
static inline void tmp_template(char *buf, size_t size, const char *name)
{
	const char *dir = getenv("TMPDIR");

	snprintf(buf, size, "%s/%s", dir && *dir ? dir : "/tmp", name);
}
static inline char *test_mkdtemp(char *buf, size_t size, const char *name)
{
	tmp_template(buf, size, name);
	return mkdtemp(buf);
}
static inline int test_mkstemp(char *buf, size_t size, const char *name)
{
	tmp_template(buf, size, name);
	return mkstemp(buf);
}

/* The line number of the first line of a source file holding marker; 0 if none. */
static inline unsigned marker_line(const char *path, const char *marker)
{
	FILE *fp = fopen(path, "r");
	char buf[256];
	unsigned n = 0;

	while (fp && fgets(buf, sizeof(buf), fp)) {
		n++;
		if (strstr(buf, marker)) {
			fclose(fp);
			return n;
		}
	}
	if (fp)
		fclose(fp);
	return 0;
}

#endif
