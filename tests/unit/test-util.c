/* Unit tests for src/util: strings, numbers, atomic files. */
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "util/util.h"

int main(void)
{
	uint64_t v;
	struct strbuf sb = STRBUF_INIT;
	char tmpl[4096], *dir, *path, *data;
	size_t n;
	char **parts;

	CHECK(parse_u64("0x1a6", &v) == 0 && v == 0x1a6, "parse_u64 hex");
	CHECK(parse_u64("42", &v) == 0 && v == 42, "parse_u64 decimal");
	CHECK(parse_u64("42x", &v) < 0, "parse_u64 rejects trailing junk");
	CHECK(parse_u64("-1", &v) < 0, "parse_u64 rejects negative");
	CHECK(parse_u64("", &v) < 0, "parse_u64 rejects empty");
	CHECK_INT(str_distance("BR_INST_RETIRED", "BR_INST_RETIRD"), 1, "edit distance deletion");
	CHECK_INT(str_distance("abc", "ABC"), 0, "edit distance ignores case");

	sb_printf(&sb, "%s-%d", "a", 7);
	sb_putc(&sb, '!');
	CHECK_STR(sb_str(&sb), "a-7!", "strbuf printf");
	sb_free(&sb);

	parts = str_split("a,b,,c", ',', &n);
	CHECK(n == 4 && strcmp(parts[3], "c") == 0 && parts[2][0] == 0, "split keeps empty fields");
	strv_free(parts);

	dir = test_mkdtemp(tmpl, sizeof(tmpl), "ocrec-util.XXXXXX");
	path = xasprintf("%s/sub/dir/file", dir);
	CHECK(mkdir_p(dir, 0755) == 0, "mkdir_p existing");
	{
		char *sub = xasprintf("%s/sub/dir", dir);
		CHECK(mkdir_p(sub, 0755) == 0 && is_dir(sub), "mkdir_p nested");
		free(sub);
	}
	CHECK(write_file_atomic(path, "hello\n", 6) == 0, "atomic write");
	data = read_line_file(path);
	CHECK_STR(data, "hello", "read back atomic write");
	free(data);
	{
		struct atomic_file af;
		CHECK(atomic_open(&af, path) == 0, "atomic open");
		fputs("partial", af.fp);
		atomic_abort(&af);
		data = read_line_file(path);
		CHECK_STR(data, "hello", "aborted write leaves the old file");
		free(data);
	}
	CHECK(read_file("/nonexistent/x", NULL) == NULL && strstr(oc_errmsg(), "/nonexistent/x"),
	      "read_file error names the path");
	unlink(path);
	free(path);
	path = xasprintf("rm -rf %s", dir);
	if (system(path) != 0)
		SKIP("cleanup", "rm failed");
	free(path);
	return test_done();
}
