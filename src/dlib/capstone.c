/* capstone.c — the part of libcapstone's API ocrec uses, loaded on first use
 * (dlib.h says why). A missing library makes cs_open() fail like an
 * unsupported architecture, which callers already report. */
#include <capstone/capstone.h>
#include <pthread.h>

#include "dlib/dlib.h"

static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*close)(csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	cs_insn *(*malloc)(csh);
	void (*free)(cs_insn *, size_t);
	cs_err (*regs_access)(csh, const cs_insn *, cs_regs, uint8_t *, cs_regs, uint8_t *);
} cs;
static pthread_once_t cs_once = PTHREAD_ONCE_INIT;

static void cs_load(void)
{
	static const char *const libs[] = { "libcapstone.so.4", "libcapstone.so", NULL };
	/* the functions of cs, in its order (the entry point first: see dlib_load) */
	static const char *const syms[] = {
		"cs_open", "cs_close", "cs_option", "cs_disasm_iter", "cs_malloc", "cs_free",
		"cs_regs_access"
	};
	_Static_assert(sizeof(cs) == sizeof(syms) / sizeof(*syms) * sizeof(void *), "a name per member");

	dlib_load(libs, "libcapstone4", syms, (void **)&cs, sizeof(syms) / sizeof(*syms));
}

void dlib_capstone_load(void)
{
	pthread_once(&cs_once, cs_load);
}

/* Every other function needs a handle from cs_open(), so only it loads. */
cs_err cs_open(cs_arch arch, cs_mode mode, csh *handle)
{
	pthread_once(&cs_once, cs_load);
	return cs.open ? cs.open(arch, mode, handle) : CS_ERR_ARCH;
}

cs_err cs_close(csh *handle)
{
	return cs.close ? cs.close(handle) : CS_ERR_CSH;
}

cs_err cs_option(csh handle, cs_opt_type type, size_t value)
{
	return cs.option ? cs.option(handle, type, value) : CS_ERR_CSH;
}

bool cs_disasm_iter(csh handle, const uint8_t **code, size_t *size, uint64_t *address, cs_insn *insn)
{
	return cs.disasm_iter && cs.disasm_iter(handle, code, size, address, insn);
}

cs_insn *cs_malloc(csh handle)
{
	return cs.malloc ? cs.malloc(handle) : NULL;
}

void cs_free(cs_insn *insn, size_t count)
{
	if (cs.free)
		cs.free(insn, count);
}

cs_err cs_regs_access(csh handle, const cs_insn *insn, cs_regs regs_read, uint8_t *regs_read_count,
		      cs_regs regs_write, uint8_t *regs_write_count)
{
	return cs.regs_access ? cs.regs_access(handle, insn, regs_read, regs_read_count, regs_write,
					       regs_write_count)
			      : CS_ERR_CSH;
}
