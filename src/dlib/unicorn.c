/* unicorn.c — the part of libunicorn's API ocrec uses, loaded on first use
 * (dlib.h says why; libunicorn is also GPL-2.0 and ocrec MIT, so it is never
 * linked in). A missing library makes uc_open() fail with UC_ERR_ARCH, which
 * the software branch sampler takes as "follow with ptrace instead". */
#include <pthread.h>
#include <stdarg.h>
#include <unicorn/unicorn.h>

#include "dlib/dlib.h"

static struct {
	uc_err (*open)(uc_arch, uc_mode, uc_engine **);
	uc_err (*close)(uc_engine *);
	const char *(*strerror)(uc_err);
	uc_err (*ctl)(uc_engine *, uc_control_type, ...);
	uc_err (*reg_read)(uc_engine *, int, void *);
	uc_err (*reg_write)(uc_engine *, int, const void *);
	uc_err (*reg_write_batch)(uc_engine *, int *, void *const *, int);
	uc_err (*mem_map_ptr)(uc_engine *, uint64_t, size_t, uint32_t, void *);
	uc_err (*mem_unmap)(uc_engine *, uint64_t, size_t);
	uc_err (*mem_read)(uc_engine *, uint64_t, void *, size_t);
	uc_err (*mem_write)(uc_engine *, uint64_t, const void *, size_t);
	uc_err (*hook_add)(uc_engine *, uc_hook *, int, void *, void *, uint64_t, uint64_t, ...);
	uc_err (*emu_start)(uc_engine *, uint64_t, uint64_t, uint64_t, size_t);
	uc_err (*emu_stop)(uc_engine *);
} uc;
static pthread_once_t uc_once = PTHREAD_ONCE_INIT;

static void uc_load(void)
{
	static const char *const libs[] = { "libunicorn.so.2", "libunicorn.so", NULL };
	/* the functions of uc, in its order (the entry point first: see dlib_load) */
	static const char *const syms[] = {
		"uc_open", "uc_close", "uc_strerror", "uc_ctl", "uc_reg_read", "uc_reg_write",
		"uc_reg_write_batch", "uc_mem_map_ptr", "uc_mem_unmap", "uc_mem_read",
		"uc_mem_write", "uc_hook_add", "uc_emu_start", "uc_emu_stop"
	};
	_Static_assert(sizeof(uc) == sizeof(syms) / sizeof(*syms) * sizeof(void *), "a name per member");

	dlib_load(libs, "libunicorn2", syms, (void **)&uc, sizeof(syms) / sizeof(*syms));
}

void dlib_unicorn_load(void)
{
	pthread_once(&uc_once, uc_load);
}

/* Every other function needs an engine from uc_open(), so only it loads. */
uc_err uc_open(uc_arch arch, uc_mode mode, uc_engine **engine)
{
	pthread_once(&uc_once, uc_load);
	return uc.open ? uc.open(arch, mode, engine) : UC_ERR_ARCH;
}

uc_err uc_close(uc_engine *engine)
{
	return uc.close ? uc.close(engine) : UC_ERR_HANDLE;
}

const char *uc_strerror(uc_err code)
{
	return uc.strerror ? uc.strerror(code) : "libunicorn is not loaded";
}

/* The controls ocrec uses, by their arguments (uc_ctl is variadic: each
 * control takes its own; see unicorn.h's uc_control_type). */
uc_err uc_ctl(uc_engine *engine, uc_control_type control, ...)
{
	va_list ap;
	uc_err err = UC_ERR_ARG;

	if (!uc.ctl)
		return UC_ERR_HANDLE;
	va_start(ap, control);
	switch ((control >> 0) & 0xffff) {   /* the control's type, without its flags */
	case UC_CTL_UC_USE_EXITS:
	case UC_CTL_CPU_MODEL: {
		int v = va_arg(ap, int);

		err = uc.ctl(engine, control, v);
		break;
	}
	case UC_CTL_UC_EXITS: {
		uint64_t *exits = va_arg(ap, uint64_t *);
		size_t n = va_arg(ap, size_t);

		err = uc.ctl(engine, control, exits, n);
		break;
	}
	case UC_CTL_TB_REMOVE_CACHE: {
		uint64_t start = va_arg(ap, uint64_t), end = va_arg(ap, uint64_t);

		err = uc.ctl(engine, control, start, end);
		break;
	}
	case UC_CTL_TB_FLUSH:
		err = uc.ctl(engine, control);
		break;
	default:
		break;
	}
	va_end(ap);
	return err;
}

uc_err uc_reg_read(uc_engine *engine, int regid, void *value)
{
	return uc.reg_read ? uc.reg_read(engine, regid, value) : UC_ERR_HANDLE;
}

uc_err uc_reg_write(uc_engine *engine, int regid, const void *value)
{
	return uc.reg_write ? uc.reg_write(engine, regid, value) : UC_ERR_HANDLE;
}

uc_err uc_reg_write_batch(uc_engine *engine, int *regs, void *const *vals, int count)
{
	return uc.reg_write_batch ? uc.reg_write_batch(engine, regs, vals, count) : UC_ERR_HANDLE;
}

uc_err uc_mem_map_ptr(uc_engine *engine, uint64_t address, size_t size, uint32_t perms, void *ptr)
{
	return uc.mem_map_ptr ? uc.mem_map_ptr(engine, address, size, perms, ptr) : UC_ERR_HANDLE;
}

uc_err uc_mem_unmap(uc_engine *engine, uint64_t address, size_t size)
{
	return uc.mem_unmap ? uc.mem_unmap(engine, address, size) : UC_ERR_HANDLE;
}

uc_err uc_mem_read(uc_engine *engine, uint64_t address, void *bytes, size_t size)
{
	return uc.mem_read ? uc.mem_read(engine, address, bytes, size) : UC_ERR_HANDLE;
}

uc_err uc_mem_write(uc_engine *engine, uint64_t address, const void *bytes, size_t size)
{
	return uc.mem_write ? uc.mem_write(engine, address, bytes, size) : UC_ERR_HANDLE;
}

/* UC_HOOK_INSN takes the instruction as one more argument. */
uc_err uc_hook_add(uc_engine *engine, uc_hook *hh, int type, void *callback, void *user_data, uint64_t begin,
		   uint64_t end, ...)
{
	va_list ap;
	uc_err err;

	if (!uc.hook_add)
		return UC_ERR_HANDLE;
	if (type != UC_HOOK_INSN)
		return uc.hook_add(engine, hh, type, callback, user_data, begin, end);
	va_start(ap, end);
	err = uc.hook_add(engine, hh, type, callback, user_data, begin, end, va_arg(ap, int));
	va_end(ap);
	return err;
}

uc_err uc_emu_start(uc_engine *engine, uint64_t begin, uint64_t until, uint64_t timeout, size_t count)
{
	return uc.emu_start ? uc.emu_start(engine, begin, until, timeout, count) : UC_ERR_HANDLE;
}

uc_err uc_emu_stop(uc_engine *engine)
{
	return uc.emu_stop ? uc.emu_stop(engine) : UC_ERR_HANDLE;
}
