/* afdo-exact — an AutoFDO profile from the exact counts of a run, written
 * with ocrec's own profile builder and writers: the ceiling of what sampled
 * branch stacks can give (bench/autofdo-accuracy.sh, docs/autofdo.md).
 *
 * usage: afdo-exact --binary PROG [--format llvm|gcc] [--line-counts max] -o OUT CALLGRIND.OUT
 *
 * The input is what `valgrind --tool=callgrind --skip-plt=no --dump-instr=yes
 * --collect-jumps=yes --compress-strings=no --compress-pos=no` writes: the
 * executions of every instruction (each becomes a one-instruction range, as
 * if every instruction had been sampled) and the calls and jumps taken (a
 * branch into a function's entry is a call: head counts and call targets).
 * --skip-plt=no: by default callgrind adds the instructions of a PLT stub
 * to the instruction that called it, so a call counts more executions than
 * its neighbours, the straight piece of code around it is cut there, and
 * the flow rule counts a line twice (a tail call `jmp free@plt` at the end
 * of a line split around another: twice the line's count).
 * A `rep` string instruction counts each iteration as an execution and a
 * jump to itself (valgrind runs it as a loop); LBR records no branch for
 * it, and the flow rule would count its line once per iteration (gawk's
 * inlined `memset(n, '\0', sizeof(NODE))` ten times over). Jumps from an
 * instruction to itself are dropped and taken off its executions.
 * Addresses in it are the object's own (link-time) addresses. The object
 * is PROG, or a file of the same name (valgrind may have run a copy without
 * debug info).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autofdo/autofdo.h"
#include "util/util.h"

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "afdo-exact: %s\n", what);
	exit(2);
}

/* Is the object named by an ob=/cob= line the profiled binary? The same
 * file, or one of the same name (a copy without debug info: valgrind 3.19
 * gives up on some of clang 14's DWARF 5). */
static bool is_binary(const char *obj, const char *real)
{
	char r[PATH_MAX];
	const char *a = strrchr(obj, '/'), *b = strrchr(real, '/');

	if (realpath(obj, r) && !strcmp(r, real))
		return true;
	return !strcmp(a ? a + 1 : obj, b ? b + 1 : real);
}

int main(int argc, char **argv)
{
	const char *binary = NULL, *out = NULL, *format = "llvm", *input = NULL;
	char real[PATH_MAX], *line = NULL;
	size_t cap = 0;
	bool in_obj = false, callee_in = false, pending = false, pending_in = false, max_lines = false;
	uint64_t pending_to = 0, pending_count = 0;
	struct afdo_binary *bin;
	struct afdo_counts *counts;
	struct afdo_profile *prof;
	struct hmap execs, self;   /* uint64_t address -> executions, jumps to itself */
	FILE *in, *fp;
	size_t k;
	int i, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--binary") && i + 1 < argc)
			binary = argv[++i];
		else if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--line-counts") && i + 1 < argc)
			max_lines = !strcmp(argv[++i], "max");
		else if (!input && argv[i][0] != '-')
			input = argv[i];
		else
			goto usage;
	}
	if (!binary || !out || !input || (strcmp(format, "llvm") && strcmp(format, "gcc")))
		goto usage;
	if (!realpath(binary, real))
		die("the binary does not exist");
	bin = afdo_binary_open(binary);
	if (!bin)
		die(oc_errmsg());
	in = fopen(input, "r");
	if (!in)
		die("cannot open the callgrind file");
	counts = afdo_counts_new();
	hmap_init(&execs, sizeof(uint64_t), sizeof(uint64_t), NULL);
	hmap_init(&self, sizeof(uint64_t), sizeof(uint64_t), NULL);
	while (getline(&line, &cap, in) > 0) {
		uint64_t addr, n, m;
		unsigned lineno;
		int fields;

		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "ob=", 3)) {
			in_obj = is_binary(line + 3, real);
			callee_in = in_obj;
		} else if (!strncmp(line, "cob=", 4)) {
			callee_in = is_binary(line + 4, real);
		} else if (sscanf(line, "calls=%" SCNu64 " %" SCNx64, &n, &addr) == 2) {
			/* the next line is the call's source, with the call's
			 * inclusive cost: never an instruction count */
			pending = true;
			pending_in = callee_in;
			pending_to = addr;
			pending_count = n;
			callee_in = in_obj;   /* cob= names the object of one call */
		} else if (sscanf(line, "jump=%" SCNu64 " %" SCNx64, &n, &addr) == 2 ||
			   /* jcnd=TAKEN/EXECUTED */
			   sscanf(line, "jcnd=%" SCNu64 "/%" SCNu64 " %" SCNx64, &n, &m, &addr) == 3) {
			pending = true;
			pending_in = in_obj;
			pending_to = addr;
			pending_count = n;
		} else if (!strncmp(line, "0x", 2) &&
			   (fields = sscanf(line, "%" SCNx64 " %u %" SCNu64, &addr, &lineno, &n)) >= 2) {
			if (pending) {
				if (in_obj && pending_in && pending_count && addr == pending_to)
					*(uint64_t *)hmap_get(&self, &addr) += pending_count;
				else if (in_obj && pending_in && pending_count)
					afdo_counts_add_branch(counts, addr, pending_to, pending_count);
				pending = false;
			} else if (in_obj && fields == 3 && n) {
				*(uint64_t *)hmap_get(&execs, &addr) += n;
			}
		}
	}
	free(line);
	fclose(in);
	for (k = 0; k < hmap_count(&execs); k++) {
		uint64_t addr = *(const uint64_t *)hmap_key(&execs, k), n = *(uint64_t *)hmap_val(&execs, k);
		size_t at = hmap_find(&self, &addr);
		uint64_t iterations = at == HMAP_NONE ? 0 : *(uint64_t *)hmap_val(&self, at);

		if (n > iterations)
			afdo_counts_add_range(counts, addr, addr, n - iterations);
	}
	hmap_free(&execs);
	hmap_free(&self);
	if (!afdo_counts_nr_in_binary(counts))
		die("no instruction of the binary in the callgrind file");
	prof = afdo_build(bin, counts, &(struct afdo_build_opts){
				  .flavor = !strcmp(format, "gcc") ? AFDO_GCC : AFDO_LLVM,
				  .lines = max_lines ? AFDO_LINES_MAX : AFDO_LINES_FLOW });
	fp = fopen(out, "w");
	if (!fp)
		die("cannot write the output");
	rc = (!strcmp(format, "gcc") ? afdo_write_gcc : afdo_write_llvm_text)(prof, fp);
	if (fclose(fp) != 0 || rc != 0)
		die("cannot write the output");
	afdo_profile_free(prof);
	afdo_counts_free(counts);
	afdo_binary_close(bin);
	return 0;
usage:
	fprintf(stderr, "usage: afdo-exact --binary PROG [--format llvm|gcc] [--line-counts max] -o OUT CALLGRIND.OUT\n");
	return 2;
}
