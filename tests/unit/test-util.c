/* Unit tests for src/util: strings, numbers, atomic files, /proc readers. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tap.h"
#include "util/util.h"

/* What proc_maps() says about the mappings holding this test's code and stack. */
struct where {
	uint64_t code, stack;
	char code_perms[5], code_name[4096];
	bool stack_named;
};

static int find_own(const struct proc_map *m, void *arg)
{
	struct where *w = arg;

	if (w->code >= m->start && w->code < m->end) {
		memcpy(w->code_perms, m->perms, sizeof(w->code_perms));
		snprintf(w->code_name, sizeof(w->code_name), "%s", m->name);
	}
	if (w->stack >= m->start && w->stack < m->end)
		w->stack_named = !strcmp(m->name, "[stack]");
	return 0;
}

/* Every mapping, and the anonymous one at anon. */
struct count {
	int calls;
	uint64_t anon;
	bool anon_ok;
};

static int count_maps(const struct proc_map *m, void *arg)
{
	struct count *c = arg;

	c->calls++;
	if (m->start == c->anon)
		c->anon_ok = m->end == c->anon + 4096 && !strcmp(m->perms, "r--p") && !m->pgoff && !m->ino &&
			     !m->maj && !m->min && !strcmp(m->name, "");
	return 0;
}

static int maps_lines(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	int c, n = 0;

	while (f && (c = getc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static int stop_at_first(const struct proc_map *m, void *arg)
{
	++*(int *)arg;
	return 7;
}

static void test_procfs(void)
{
	struct where w = { .code = (uint64_t)(uintptr_t)&find_own, .stack = (uint64_t)(uintptr_t)&w };
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t n, i;
	int *tids = proc_threads(getpid(), &n), calls = 0;
	bool self = false;

	for (i = 0; tids && i < n; i++)
		self |= tids[i] == getpid();
	CHECK(tids && n >= 1 && self, "proc_threads lists this process's main thread");
	free(tids);
	CHECK(!proc_threads(999999999, &n) && !strcmp(oc_errmsg(), "process 999999999: no such process"),
	      "proc_threads of a missing process: one line naming it");
	CHECK(proc_maps(getpid(), find_own, &w) == 0, "proc_maps reads this process's maps");
	exe[len > 0 ? len : 0] = 0;
	CHECK(!strcmp(w.code_perms, "r-xp") && !strcmp(w.code_name, exe),
	      "proc_maps: this code is mapped r-xp from the executable");
	CHECK(w.stack_named, "proc_maps: this stack variable is in [stack]");
	{
		/* read-only: the kernel does not merge it with a neighbour */
		void *anon = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct count c = { 0, (uint64_t)(uintptr_t)anon, false };
		int lines;

		CHECK(anon != MAP_FAILED && proc_maps(getpid(), count_maps, &c) == 0 && (lines = maps_lines()) > 0 &&
		      c.calls == lines && c.anon_ok,
		      "proc_maps reports every line, an anonymous mapping with no name, offset or inode");
		munmap(anon, 4096);
	}
	CHECK(proc_maps(getpid(), stop_at_first, &calls) == 7 && calls == 1, "proc_maps stops at fn's non-zero result");
	CHECK(proc_maps(999999999, find_own, &w) < 0 && strstr(oc_errmsg(), "/proc/999999999/maps"),
	      "proc_maps of a missing process fails naming the file");
}

static bool ends_with_json(const char *name, const void *arg)
{
	return str_ends_with(name, ".json");
}

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
	CHECK_STR(str_basename("/usr/lib/libc.so.6"), "libc.so.6", "str_basename: after the last slash");
	CHECK_STR(str_basename("gawk"), "gawk", "str_basename: a name without a slash is its own");
	CHECK_STR(str_basename("dir/"), "", "str_basename: nothing after a trailing slash");
	unsetenv("OCREC_TEST_SWITCH");
	CHECK(!env_off("OCREC_TEST_SWITCH"), "env_off: an unset switch is on");
	setenv("OCREC_TEST_SWITCH", "0", 1);
	CHECK(env_off("OCREC_TEST_SWITCH"), "env_off: 0 turns it off");
	setenv("OCREC_TEST_SWITCH", "1", 1);
	CHECK(!env_off("OCREC_TEST_SWITCH"), "env_off: another value leaves it on");
	setenv("OCREC_TEST_SWITCH", "", 1);
	CHECK(!env_off("OCREC_TEST_SWITCH"), "env_off: so does an empty one");
	unsetenv("OCREC_TEST_SWITCH");

	sb_printf(&sb, "%s-%d", "a", 7);
	sb_putc(&sb, '!');
	CHECK_STR(sb_str(&sb), "a-7!", "strbuf printf");
	sb_free(&sb);

	parts = str_split("a,b,,c", ',', &n);
	CHECK(n == 4 && strcmp(parts[3], "c") == 0 && parts[2][0] == 0, "split keeps empty fields");
	CHECK(strv_contains(parts, "b") && strv_contains(parts, "") && !strv_contains(parts, "ab"),
	      "strv_contains compares whole strings");
	strv_free(parts);
	parts = str_split("cpu_core,cpu,uncore_cbox_10,Cpu", ',', &n);
	strv_sort(parts, n);
	CHECK(!strcmp(parts[0], "Cpu") && !strcmp(parts[1], "cpu") && !strcmp(parts[2], "cpu_core") &&
	      !strcmp(parts[3], "uncore_cbox_10") && !parts[4], "strv_sort: strcmp order, still NULL-terminated");
	strv_free(parts);
	{
		static const struct name_bits names[] = { { "u", 1 }, { "k", 2 }, { "any", 8 } };
		uint64_t bits = 99;
		CHECK(parse_name_bits("any,u", names, ARRAY_SIZE(names), "-j", "branch filter", &bits) == 0 &&
		      bits == 9, "parse_name_bits ORs the bits of each name");
		CHECK(parse_name_bits("u,kk", names, ARRAY_SIZE(names), "-j", "branch filter", &bits) < 0,
		      "parse_name_bits rejects an unknown name");
		CHECK_STR(oc_errmsg(), "-j u,kk: unknown branch filter 'kk' (valid: u,k,any)",
			  "the error names the list, the name and the valid ones");
	}

	dir = test_mkdtemp(tmpl, sizeof(tmpl), "ocrec-util.XXXXXX");
	path = xasprintf("%s/sub/dir/file", dir);
	CHECK(mkdir_p(dir, 0755) == 0, "mkdir_p existing");
	{
		char *sub = xasprintf("%s/sub/dir", dir);
		CHECK(mkdir_p(sub, 0755) == 0 && is_dir(sub), "mkdir_p nested");
		free(sub);
	}
	CHECK(write_file_atomic(path, "hello\n", 6) == 0, "atomic write");
	{
		char *sub = xasprintf("%s/sub", dir), *dot = xasprintf("%s/sub/.hidden", dir);
		char *b = xasprintf("%s/sub/b.json", dir), *a = xasprintf("%s/sub/a.json", dir);
		char **names;
		CHECK(write_file_atomic(dot, "", 0) == 0 && write_file_atomic(b, "", 0) == 0 &&
		      write_file_atomic(a, "", 0) == 0, "files to list");
		names = dir_list(sub, NULL, NULL, &n);
		CHECK(names && n == 3 && !strcmp(names[0], "a.json") && !strcmp(names[1], "b.json") &&
		      !strcmp(names[2], "dir") && !names[3], "dir_list: sorted, no dot files, NULL-terminated");
		strv_free(names);
		names = dir_list(sub, ends_with_json, NULL, NULL);
		CHECK(names && names[0] && names[1] && !names[2], "dir_list keeps what the predicate accepts");
		strv_free(names);
		CHECK(!dir_list(path, NULL, NULL, &n) && strstr(oc_errmsg(), "cannot read"),
		      "dir_list of a file is an error naming it");
		unlink(dot);
		unlink(a);
		unlink(b);
		free(sub);
		free(dot);
		free(a);
		free(b);
	}
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
	test_procfs();
	return test_done();
}
