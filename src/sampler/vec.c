/* vec.c — AVX, AVX2 and AVX-512 integer and move instructions, as glibc's
 * string and memory functions use them (vec.h): VEX and EVEX decoding, then
 * the instruction on the state given. Written from the Intel SDM, volume 2
 * (encodings, disp8*N compression, masking); tests/unit/test-vec.c runs each
 * form on the real CPU beside this code and compares.
 *
 * Supported: moves (vmovdqu/a and their EVEX element forms, vmovups/aps,
 * vmovntdq, vmovd, vmovq), compares into vectors or mask registers (vpcmpeq,
 * vpcmpgt, vpcmp/vpcmpu with a predicate, vptestm, vptestnm), element-wise
 * minimum, maximum, add, subtract and logic, vpternlog, vpshufb, vpbroadcast,
 * vpmovmskb, vptest, vzeroupper, vzeroall, and the mask instructions kmov,
 * kortest, ktest, kand, kandn, kor, kxor, kxnor, knot, kunpck. Memory operands
 * of masked instructions touch only the elements the mask enables, as the
 * CPU's fault suppression does. */
#include <string.h>

#include "sampler/vec.h"

#define RIP_BASE 16

struct insn {
	unsigned len;
	bool evex;
	unsigned map, op, pp, w, l, vl;  /* pp: 0 none, 1 66, 2 F3, 3 F2; vl: bytes */
	unsigned reg, vvvv, rm;         /* vector registers 0-31 (rm: register form) */
	unsigned reg3, rm3;             /* ModRM's own 3 bits: mask and general registers */
	bool mem;                       /* the r/m operand is memory */
	int seg, base, index;           /* seg: 0, 1 fs, 2 gs; base/index: -1 none */
	unsigned scale;
	int64_t disp;
	bool disp8;                     /* EVEX: times the operand's N */
	unsigned aaa;
	bool z, b;
	uint8_t imm;
};

struct ctx {
	struct swb_vec_cpu *c;
	struct insn d;
	uint64_t ip;
	uint32_t synced, *written;      /* zmm registers */
};

static bool decode(const uint8_t *p, size_t n, struct insn *d)
{
	unsigned R = 0, X = 0, B = 0, R2 = 0, mod;
	size_t i = 0;
	uint8_t modrm;

	memset(d, 0, sizeof(*d));
	d->base = d->index = -1;
	for (; i < n; i++) {
		if (p[i] == 0x64)
			d->seg = 1;
		else if (p[i] == 0x65)
			d->seg = 2;
		else if (p[i] != 0x2e && p[i] != 0x36 && p[i] != 0x3e && p[i] != 0x26)
			break;
	}
	if (i + 3 >= n)
		return false;
	if (p[i] == 0xc5) {
		R = !(p[i + 1] & 0x80);
		d->vvvv = (~p[i + 1] >> 3) & 15;
		d->l = (p[i + 1] >> 2) & 1;
		d->pp = p[i + 1] & 3;
		d->map = 1;
		i += 2;
	} else if (p[i] == 0xc4) {
		R = !(p[i + 1] & 0x80);
		X = !(p[i + 1] & 0x40);
		B = !(p[i + 1] & 0x20);
		d->map = p[i + 1] & 31;
		d->w = p[i + 2] >> 7;
		d->vvvv = (~p[i + 2] >> 3) & 15;
		d->l = (p[i + 2] >> 2) & 1;
		d->pp = p[i + 2] & 3;
		i += 3;
	} else if (p[i] == 0x62) {
		if (i + 4 >= n || (p[i + 1] & 0x0c) || !(p[i + 2] & 0x04))
			return false;
		R = !(p[i + 1] & 0x80);
		X = !(p[i + 1] & 0x40);
		B = !(p[i + 1] & 0x20);
		R2 = !(p[i + 1] & 0x10);
		d->map = p[i + 1] & 3;
		d->w = p[i + 2] >> 7;
		d->vvvv = ((~p[i + 2] >> 3) & 15) | (p[i + 3] & 8 ? 0 : 16);
		d->pp = p[i + 2] & 3;
		d->z = p[i + 3] >> 7;
		d->l = (p[i + 3] >> 5) & 3;
		d->b = (p[i + 3] >> 4) & 1;
		d->aaa = p[i + 3] & 7;
		d->evex = true;
		i += 4;
	} else {
		return false;
	}
	if (d->map < 1 || d->map > 3 || d->l > 2 || i + 1 >= n)
		return false;
	d->vl = 16u << d->l;
	d->op = p[i++];
	if (d->map == 1 && d->op == 0x77) {     /* vzeroupper, vzeroall: no ModRM */
		d->len = (unsigned)i;
		return !d->evex;
	}
	modrm = p[i++];
	mod = modrm >> 6;
	d->reg3 = (modrm >> 3) & 7;
	d->rm3 = modrm & 7;
	d->reg = d->reg3 | R << 3 | R2 << 4;
	if (mod == 3) {
		d->rm = d->rm3 | B << 3 | (d->evex ? X << 4 : 0);
	} else {
		bool disp32 = mod == 2;

		d->mem = true;
		if (d->rm3 == 4) {
			uint8_t sib;
			unsigned idx;

			if (i >= n)
				return false;
			sib = p[i++];
			idx = ((sib >> 3) & 7) | X << 3;
			d->scale = 1u << (sib >> 6);
			d->index = idx == 4 ? -1 : (int)idx;
			if ((sib & 7) == 5 && mod == 0)
				disp32 = true;
			else
				d->base = (int)((sib & 7) | B << 3);
		} else if (d->rm3 == 5 && mod == 0) {
			d->base = RIP_BASE;
			disp32 = true;
		} else {
			d->base = (int)(d->rm3 | B << 3);
		}
		if (mod == 1) {
			if (i >= n)
				return false;
			d->disp = (int8_t)p[i++];
			d->disp8 = true;
		} else if (disp32) {
			if (i + 4 > n)
				return false;
			d->disp = (int32_t)((uint32_t)p[i] | (uint32_t)p[i + 1] << 8 | (uint32_t)p[i + 2] << 16 |
					    (uint32_t)p[i + 3] << 24);
			i += 4;
		}
	}
	/* an immediate: all of 0F3A, and in 0F vpshufd, the shifts by an
	 * immediate, vcmpps, vpinsrw, vpextrw, vshufps */
	if (d->map == 3 || (d->map == 1 && ((d->op >= 0x70 && d->op <= 0x73) || (d->op >= 0xc4 && d->op <= 0xc6) ||
					    d->op == 0xc2))) {
		if (i >= n)
			return false;
		d->imm = p[i++];
	}
	d->len = (unsigned)i;
	return true;
}

unsigned swb_vec_length(const uint8_t *code, size_t avail)
{
	struct insn d;

	return decode(code, avail, &d) ? d.len : 0;
}

/* --- operands --- */

/* The memory operand's address; n: its N for EVEX's compressed disp8. */
static uint64_t address(const struct ctx *x, unsigned n)
{
	const struct insn *d = &x->d;
	uint64_t a = (uint64_t)(d->disp8 && d->evex ? d->disp * (int64_t)n : d->disp);

	if (d->base == RIP_BASE)
		a += x->ip + d->len;
	else if (d->base >= 0)
		a += x->c->gpr(x->c->arg, (unsigned)d->base);
	if (d->index >= 0)
		a += x->c->gpr(x->c->arg, (unsigned)d->index) * d->scale;
	if (d->seg)
		a += x->c->seg_base(x->c->arg, (unsigned)d->seg);
	return a;
}

/* Vector register r, up to date. */
static uint8_t *vreg(struct ctx *x, unsigned r)
{
	if (r < 16 && x->c->sync_xmm && !(x->synced & (1u << r))) {
		x->c->sync_xmm(x->c->arg, r);
		x->synced |= 1u << r;
	}
	return x->c->z[r];
}

/* Whether element i (of the masked ones) takes the result. */
static bool enabled(const struct ctx *x, unsigned i)
{
	return !x->d.aaa || ((x->c->k[x->d.aaa] >> i) & 1);
}

/* Read or write the n bytes at a, elements of es bytes: with a mask, only
 * the enabled ones (a read leaves the others 0). */
static bool access_elems(const struct ctx *x, uint64_t a, uint8_t *buf, unsigned n, unsigned es, bool write)
{
	unsigned i, j;

	if (!write)
		memset(buf, 0, n);
	for (i = 0; i < n / es; i = j) {
		bool ok;

		if (x->d.aaa && !enabled(x, i)) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < n / es && (!x->d.aaa || enabled(x, j)); j++)
			;
		ok = write ? x->c->write(x->c->arg, a + i * es, buf + i * es, (j - i) * es)
			   : x->c->read(x->c->arg, a + i * es, buf + i * es, (j - i) * es);
		if (!ok)
			return false;
	}
	return true;
}

/* The r/m operand as a vector of the instruction's length (memory: N = vl). */
static bool src_rm(struct ctx *x, uint8_t *v, unsigned es)
{
	if (!x->d.mem) {
		memcpy(v, vreg(x, x->d.rm), 64);
		return true;
	}
	memset(v, 0, 64);
	return access_elems(x, address(x, x->d.vl), v, x->d.vl, es, false);
}

/* Write a vector result to register r: VEX zeroes the rest of the register,
 * EVEX merges or zeroes the elements its mask leaves out. */
static void put_vec(struct ctx *x, unsigned r, const uint8_t *res, unsigned es)
{
	uint8_t *dst = vreg(x, r);      /* merging keeps what it held */
	unsigned i;

	if (!x->d.evex || !x->d.aaa) {
		memcpy(dst, res, x->d.vl);
	} else {
		for (i = 0; i < x->d.vl / es; i++)
			if (enabled(x, i))
				memcpy(dst + i * es, res + i * es, es);
			else if (x->d.z)
				memset(dst + i * es, 0, es);
	}
	memset(dst + x->d.vl, 0, 64 - x->d.vl);
	*x->written |= 1u << r;
}

static void put_k(const struct ctx *x, unsigned r, uint64_t bits)
{
	if (x->d.aaa)
		bits &= x->c->k[x->d.aaa];
	x->c->k[r] = bits;
}

static uint64_t elem(const uint8_t *v, unsigned i, unsigned es)
{
	uint64_t e = 0;

	memcpy(&e, v + i * es, es);
	return e;
}

static int64_t selem(const uint8_t *v, unsigned i, unsigned es)
{
	uint64_t e = elem(v, i, es);
	unsigned sh = 64 - 8 * es;

	return (int64_t)(e << sh) >> sh;
}

static void set_elem(uint8_t *v, unsigned i, unsigned es, uint64_t e)
{
	memcpy(v + i * es, &e, es);
}

static void set_gpr(const struct ctx *x, unsigned r, uint64_t v, unsigned bytes)
{
	x->c->set_gpr(x->c->arg, r, bytes == 8 ? v : (uint32_t)v);     /* a 32-bit write zero-extends */
}

/* ZF and CF as given, the other arithmetic flags clear (vptest, kortest, ktest). */
static void set_zc(const struct ctx *x, bool zf, bool cf)
{
	uint64_t fl = x->c->flags(x->c->arg);

	x->c->set_flags(x->c->arg, (fl & ~(uint64_t)0x8d5) | (zf ? 0x40 : 0) | (cf ? 1 : 0));
}

/* --- instructions --- */

enum cmp { C_EQ, C_LT, C_LE, C_FALSE, C_NE, C_NLT, C_NLE, C_TRUE, C_GT_SIGNED = 16, C_EQ_ANY };

static bool compare(unsigned pred, bool sign, const uint8_t *a, const uint8_t *b, unsigned i, unsigned es)
{
	int64_t sa = selem(a, i, es), sb = selem(b, i, es);
	uint64_t ua = elem(a, i, es), ub = elem(b, i, es);
	bool lt = sign ? sa < sb : ua < ub, eq = ua == ub;

	switch (pred & 7) {
	case C_EQ: return eq;
	case C_LT: return lt;
	case C_LE: return lt || eq;
	case C_FALSE: return false;
	case C_NE: return !eq;
	case C_NLT: return !lt;
	case C_NLE: return !lt && !eq;
	default: return true;
	}
}

/* vpcmpeq/vpcmpgt (VEX: into a vector; EVEX: into a mask), vpcmp[u] with a
 * predicate, vptestm/vptestnm. */
static enum swb_vec_result cmp_op(struct ctx *x, unsigned es, unsigned pred, bool sign, int test)
{
	uint8_t a[64], b[64], res[64];
	uint64_t bits = 0;
	unsigned i, n = x->d.vl / es;

	if (x->d.b)
		return SWB_VEC_UNSUPPORTED;
	memcpy(a, vreg(x, x->d.vvvv), 64);
	if (!src_rm(x, b, es))
		return SWB_VEC_FAULT;
	memset(res, 0, sizeof(res));
	for (i = 0; i < n; i++) {
		bool t;

		if (test)
			t = ((elem(a, i, es) & elem(b, i, es)) != 0) == (test > 0);
		else
			t = compare(pred, sign, a, b, i, es);
		if (t) {
			bits |= 1ULL << i;
			memset(res + i * es, 0xff, es);
		}
	}
	if (x->d.evex)
		put_k(x, x->d.reg3, bits);
	else
		put_vec(x, x->d.reg, res, es);
	return SWB_VEC_OK;
}

enum binop { B_ADD, B_SUB, B_AND, B_ANDN, B_OR, B_XOR, B_MINU, B_MINS, B_MAXU, B_MAXS };

static enum swb_vec_result bin_op(struct ctx *x, enum binop op, unsigned es)
{
	uint8_t a[64], b[64], res[64];
	unsigned i;

	if (x->d.b)
		return SWB_VEC_UNSUPPORTED;
	memcpy(a, vreg(x, x->d.vvvv), 64);
	if (!src_rm(x, b, es))
		return SWB_VEC_FAULT;
	for (i = 0; i < x->d.vl / es; i++) {
		uint64_t ua = elem(a, i, es), ub = elem(b, i, es), r;
		int64_t sa = selem(a, i, es), sb = selem(b, i, es);

		switch (op) {
		case B_ADD: r = ua + ub; break;
		case B_SUB: r = ua - ub; break;
		case B_AND: r = ua & ub; break;
		case B_ANDN: r = ~ua & ub; break;
		case B_OR: r = ua | ub; break;
		case B_XOR: r = ua ^ ub; break;
		case B_MINU: r = ua < ub ? ua : ub; break;
		case B_MAXU: r = ua > ub ? ua : ub; break;
		case B_MINS: r = (uint64_t)(sa < sb ? sa : sb); break;
		default: r = (uint64_t)(sa > sb ? sa : sb); break;
		}
		set_elem(res, i, es, r);
	}
	put_vec(x, x->d.reg, res, es);
	return SWB_VEC_OK;
}

static enum swb_vec_result ternlog(struct ctx *x, unsigned es)
{
	uint8_t a[64], b[64], c[64], res[64];
	unsigned i, bit;

	if (x->d.b)
		return SWB_VEC_UNSUPPORTED;
	memcpy(a, vreg(x, x->d.reg), 64);
	memcpy(b, vreg(x, x->d.vvvv), 64);
	if (!src_rm(x, c, es))
		return SWB_VEC_FAULT;
	for (i = 0; i < x->d.vl; i++) {
		res[i] = 0;
		for (bit = 0; bit < 8; bit++) {
			unsigned idx = ((a[i] >> bit) & 1) << 2 | ((b[i] >> bit) & 1) << 1 | ((c[i] >> bit) & 1);

			res[i] |= (uint8_t)(((x->d.imm >> idx) & 1) << bit);
		}
	}
	put_vec(x, x->d.reg, res, es);
	return SWB_VEC_OK;
}

static enum swb_vec_result pshufb(struct ctx *x)
{
	uint8_t a[64], b[64], res[64];
	unsigned i;

	memcpy(a, vreg(x, x->d.vvvv), 64);
	if (!src_rm(x, b, 1))
		return SWB_VEC_FAULT;
	for (i = 0; i < x->d.vl; i++)
		res[i] = b[i] & 0x80 ? 0 : a[(i & ~15u) | (b[i] & 15)];
	put_vec(x, x->d.reg, res, 1);
	return SWB_VEC_OK;
}

/* A whole-vector move: load into reg (store: reg to r/m). align: the
 * memory operand must be aligned to the vector. */
static enum swb_vec_result move(struct ctx *x, bool store, unsigned es, bool align)
{
	uint8_t v[64];

	if (x->d.b || (store && x->d.mem && x->d.z))
		return SWB_VEC_UNSUPPORTED;
	if (x->d.mem && align && address(x, x->d.vl) % x->d.vl)
		return SWB_VEC_FAULT;  /* #GP on the CPU */
	if (!store) {
		if (!src_rm(x, v, es))
			return SWB_VEC_FAULT;
		put_vec(x, x->d.reg, v, es);
		return SWB_VEC_OK;
	}
	memcpy(v, vreg(x, x->d.reg), 64);
	if (!x->d.mem) {
		put_vec(x, x->d.rm, v, es);     /* the register form stores into the r/m register */
		return SWB_VEC_OK;
	}
	return access_elems(x, address(x, x->d.vl), v, x->d.vl, es, true) ? SWB_VEC_OK : SWB_VEC_FAULT;
}

/* vpbroadcast from a vector register or memory (from_gpr: a general register). */
static enum swb_vec_result broadcast(struct ctx *x, unsigned es, bool from_gpr)
{
	uint8_t res[64];
	uint64_t e = 0;
	unsigned i;

	if (from_gpr) {
		if (x->d.mem)
			return SWB_VEC_UNSUPPORTED;
		e = x->c->gpr(x->c->arg, x->d.rm & 15);
	} else if (x->d.mem) {
		if (!x->c->read(x->c->arg, address(x, es), &e, es))
			return SWB_VEC_FAULT;
	} else {
		e = elem(vreg(x, x->d.rm), 0, es);
	}
	for (i = 0; i < x->d.vl / es; i++)
		set_elem(res, i, es, e);
	put_vec(x, x->d.reg, res, es);
	return SWB_VEC_OK;
}

/* vmovd, vmovq between general registers or memory and a vector. */
static enum swb_vec_result movdq(struct ctx *x)
{
	const struct insn *d = &x->d;
	uint8_t res[64] = { 0 };
	uint64_t e = 0;
	unsigned n = d->w ? 8 : 4;

	if (d->l || d->aaa || d->b)
		return SWB_VEC_UNSUPPORTED;
	if (d->op == 0x6e && d->pp == 1) {              /* vmovd/q xmm, r/m */
		if (d->mem ? !x->c->read(x->c->arg, address(x, n), &e, n) : !(e = x->c->gpr(x->c->arg, d->rm & 15), true))
			return SWB_VEC_FAULT;
		set_elem(res, 0, n, e);
		put_vec(x, d->reg, res, n);
		return SWB_VEC_OK;
	}
	if (d->op == 0x7e && d->pp == 1) {              /* vmovd/q r/m, xmm */
		e = elem(vreg(x, d->reg), 0, n);
		if (!d->mem) {
			set_gpr(x, d->rm & 15, e, n);
			return SWB_VEC_OK;
		}
		return x->c->write(x->c->arg, address(x, n), &e, n) ? SWB_VEC_OK : SWB_VEC_FAULT;
	}
	if (d->op == 0x7e && d->pp == 2) {              /* vmovq xmm, xmm/m64 */
		if (d->evex && !d->w)
			return SWB_VEC_UNSUPPORTED;
		if (d->mem ? !x->c->read(x->c->arg, address(x, 8), &e, 8) : !(e = elem(vreg(x, d->rm), 0, 8), true))
			return SWB_VEC_FAULT;
		set_elem(res, 0, 8, e);
		put_vec(x, d->reg, res, 8);
		return SWB_VEC_OK;
	}
	if (d->op == 0xd6 && d->pp == 1) {              /* vmovq xmm/m64, xmm */
		if (d->evex && !d->w)
			return SWB_VEC_UNSUPPORTED;
		e = elem(vreg(x, d->reg), 0, 8);
		if (d->mem)
			return x->c->write(x->c->arg, address(x, 8), &e, 8) ? SWB_VEC_OK : SWB_VEC_FAULT;
		set_elem(res, 0, 8, e);
		put_vec(x, d->rm, res, 8);
		return SWB_VEC_OK;
	}
	return SWB_VEC_UNSUPPORTED;
}

/* The mask instructions' operand size by pp and W: b, w, d, q (bytes). */
static unsigned k_size(unsigned pp, unsigned w)
{
	return pp == 1 ? (w ? 4 : 1) : (w ? 8 : 2);
}

static uint64_t k_bits(unsigned bytes)
{
	return bytes == 8 ? ~0ULL : (1ULL << (8 * bytes)) - 1;
}

static enum swb_vec_result mask_op(struct ctx *x)
{
	const struct insn *d = &x->d;
	uint64_t *k = x->c->k;
	unsigned n;
	uint64_t v = 0, full;

	if (d->evex)
		return SWB_VEC_UNSUPPORTED;
	switch (d->op) {
	case 0x90:      /* kmov k, k/m */
	case 0x91:      /* kmov m, k */
		n = k_size(d->pp, d->w);
		if (d->l || d->pp > 1 || (d->op == 0x91 && !d->mem))
			return SWB_VEC_UNSUPPORTED;
		if (d->op == 0x91)
			return x->c->write(x->c->arg, address(x, n), &k[d->reg3], n) ? SWB_VEC_OK : SWB_VEC_FAULT;
		if (d->mem ? !x->c->read(x->c->arg, address(x, n), &v, n) : !(v = k[d->rm3], true))
			return SWB_VEC_FAULT;
		k[d->reg3] = v & k_bits(n);
		return SWB_VEC_OK;
	case 0x92:      /* kmov k, r32/r64 */
	case 0x93:      /* kmov r32/r64, k */
		/* kmovw (no prefix), kmovb (66), kmovd (F2), kmovq (F2, W1) */
		if (d->l || d->mem || d->pp == 2 || (d->pp < 2 && d->w))
			return SWB_VEC_UNSUPPORTED;
		n = d->pp == 0 ? 2 : d->pp == 1 ? 1 : d->w ? 8 : 4;
		if (d->op == 0x92)
			k[d->reg3] = x->c->gpr(x->c->arg, d->rm & 15) & k_bits(n);
		else
			set_gpr(x, d->reg & 15, k[d->rm3] & k_bits(n), n == 8 ? 8 : 4);
		return SWB_VEC_OK;
	case 0x98:      /* kortest */
	case 0x99:      /* ktest */
		if (d->l || d->mem || d->pp > 1)
			return SWB_VEC_UNSUPPORTED;
		n = k_size(d->pp, d->w);
		full = k_bits(n);
		if (d->op == 0x98) {
			v = (k[d->reg3] | k[d->rm3]) & full;
			set_zc(x, v == 0, v == full);
		} else {
			set_zc(x, (k[d->reg3] & k[d->rm3] & full) == 0, (~k[d->reg3] & k[d->rm3] & full) == 0);
		}
		return SWB_VEC_OK;
	case 0x41: case 0x42: case 0x44: case 0x45: case 0x46: case 0x47: {
		uint64_t a = k[d->vvvv & 7], b = k[d->rm3];

		if (d->mem || d->pp > 1 || d->l != (d->op == 0x44 ? 0u : 1u))
			return SWB_VEC_UNSUPPORTED;
		n = k_size(d->pp, d->w);
		switch (d->op) {
		case 0x41: v = a & b; break;
		case 0x42: v = ~a & b; break;
		case 0x44: v = ~b; break;
		case 0x45: v = a | b; break;
		case 0x46: v = ~(a ^ b); break;
		default: v = a ^ b; break;
		}
		k[d->reg3] = v & k_bits(n);
		return SWB_VEC_OK;
	}
	case 0x4b: {    /* kunpckbw, kunpckwd, kunpckdq: src1's low half above src2's */
		unsigned half;

		if (d->mem || !d->l || (d->pp == 1 && d->w) || d->pp > 1)
			return SWB_VEC_UNSUPPORTED;
		half = d->pp == 1 ? 8 : d->w ? 32 : 16;
		k[d->reg3] = (k[d->vvvv & 7] & k_bits(half / 8)) << half | (k[d->rm3] & k_bits(half / 8));
		return SWB_VEC_OK;
	}
	default:
		return SWB_VEC_UNSUPPORTED;
	}
}

static enum swb_vec_result vzero(struct ctx *x)
{
	unsigned r;

	for (r = 0; r < 16; r++) {
		memset(vreg(x, r) + (x->d.l ? 0 : 16), 0, x->d.l ? 64 : 48);
		*x->written |= 1u << r;
	}
	return SWB_VEC_OK;
}

static enum swb_vec_result pmovmskb(struct ctx *x)
{
	uint64_t bits = 0;
	unsigned i;

	if (x->d.evex || x->d.mem)
		return SWB_VEC_UNSUPPORTED;
	const uint8_t *v = vreg(x, x->d.rm);

	for (i = 0; i < x->d.vl; i++)
		bits |= (uint64_t)(v[i] >> 7) << i;
	set_gpr(x, x->d.reg & 15, bits, 8);
	return SWB_VEC_OK;
}

static enum swb_vec_result ptest(struct ctx *x)
{
	uint8_t b[64];
	bool zf = true, cf = true;
	unsigned i;

	if (x->d.evex)
		return SWB_VEC_UNSUPPORTED;
	const uint8_t *a = vreg(x, x->d.reg);

	if (!src_rm(x, b, 1))
		return SWB_VEC_FAULT;
	for (i = 0; i < x->d.vl; i++) {
		zf &= (a[i] & b[i]) == 0;
		cf &= (~a[i] & b[i]) == 0;
	}
	set_zc(x, zf, cf);
	return SWB_VEC_OK;
}

/* Element size of the EVEX moves and logic by pp and W: vmovdqu8/16
 * (F2), vmovdqu32/64 (F3), vmovdqa32/64 (66), vpandd/q... */
static unsigned move_es(const struct insn *d)
{
	if (!d->evex)
		return 8;
	if (d->pp == 3)
		return d->w ? 2 : 1;
	return d->w ? 8 : 4;
}

static enum swb_vec_result map1(struct ctx *x)
{
	const struct insn *d = &x->d;
	unsigned wes = d->w ? 8 : 4;    /* EVEX: d or q by W */

	switch (d->op) {
	case 0x6f:
	case 0x7f:
		if (d->pp == 0 || (!d->evex && d->pp == 3))
			return SWB_VEC_UNSUPPORTED;
		return move(x, d->op == 0x7f, move_es(d), d->pp == 1);
	case 0x10:
	case 0x11:
	case 0x28:
	case 0x29:
		if (d->pp > 1 || (d->evex && d->w != d->pp))
			return SWB_VEC_UNSUPPORTED;     /* no scalar vmovss/vmovsd */
		return move(x, d->op & 1, d->pp ? 8 : 4, d->op >= 0x28);
	case 0xe7:
		if (d->pp != 1 || !d->mem || d->aaa || (d->evex && d->w))
			return SWB_VEC_UNSUPPORTED;
		return move(x, true, 4, true);
	case 0x74: case 0x75: case 0x76:
		if (d->pp != 1 || (d->evex && d->w != (d->op == 0x76 ? 0u : d->w)))
			return SWB_VEC_UNSUPPORTED;
		return cmp_op(x, 1u << (d->op - 0x74), C_EQ, false, 0);
	case 0x64: case 0x65: case 0x66:
		if (d->pp != 1)
			return SWB_VEC_UNSUPPORTED;
		return cmp_op(x, 1u << (d->op - 0x64), C_NLE, true, 0);
	case 0xda: return d->pp == 1 ? bin_op(x, B_MINU, 1) : SWB_VEC_UNSUPPORTED;
	case 0xde: return d->pp == 1 ? bin_op(x, B_MAXU, 1) : SWB_VEC_UNSUPPORTED;
	case 0xea: return d->pp == 1 ? bin_op(x, B_MINS, 2) : SWB_VEC_UNSUPPORTED;
	case 0xee: return d->pp == 1 ? bin_op(x, B_MAXS, 2) : SWB_VEC_UNSUPPORTED;
	case 0xfc: return d->pp == 1 ? bin_op(x, B_ADD, 1) : SWB_VEC_UNSUPPORTED;
	case 0xfd: return d->pp == 1 ? bin_op(x, B_ADD, 2) : SWB_VEC_UNSUPPORTED;
	case 0xfe: return d->pp == 1 && !(d->evex && d->w) ? bin_op(x, B_ADD, 4) : SWB_VEC_UNSUPPORTED;
	case 0xd4: return d->pp == 1 && !(d->evex && !d->w) ? bin_op(x, B_ADD, 8) : SWB_VEC_UNSUPPORTED;
	case 0xf8: return d->pp == 1 ? bin_op(x, B_SUB, 1) : SWB_VEC_UNSUPPORTED;
	case 0xf9: return d->pp == 1 ? bin_op(x, B_SUB, 2) : SWB_VEC_UNSUPPORTED;
	case 0xfa: return d->pp == 1 && !(d->evex && d->w) ? bin_op(x, B_SUB, 4) : SWB_VEC_UNSUPPORTED;
	case 0xfb: return d->pp == 1 && !(d->evex && !d->w) ? bin_op(x, B_SUB, 8) : SWB_VEC_UNSUPPORTED;
	case 0xdb: return d->pp == 1 ? bin_op(x, B_AND, wes) : SWB_VEC_UNSUPPORTED;
	case 0xdf: return d->pp == 1 ? bin_op(x, B_ANDN, wes) : SWB_VEC_UNSUPPORTED;
	case 0xeb: return d->pp == 1 ? bin_op(x, B_OR, wes) : SWB_VEC_UNSUPPORTED;
	case 0xef: return d->pp == 1 ? bin_op(x, B_XOR, wes) : SWB_VEC_UNSUPPORTED;
	case 0xd7: return d->pp == 1 ? pmovmskb(x) : SWB_VEC_UNSUPPORTED;
	case 0x6e: case 0x7e: case 0xd6:
		return movdq(x);
	case 0x77:
		return d->pp ? SWB_VEC_UNSUPPORTED : vzero(x);
	case 0x41: case 0x42: case 0x44: case 0x45: case 0x46: case 0x47: case 0x4b:
	case 0x90: case 0x91: case 0x92: case 0x93: case 0x98: case 0x99:
		return mask_op(x);
	default:
		return SWB_VEC_UNSUPPORTED;
	}
}

static enum swb_vec_result map2(struct ctx *x)
{
	const struct insn *d = &x->d;

	if (d->pp == 2 && d->evex && (d->op == 0x26 || d->op == 0x27))   /* vptestnm */
		return cmp_op(x, d->op == 0x26 ? (d->w ? 2u : 1u) : (d->w ? 8u : 4u), 0, false, -1);
	if (d->pp != 1)
		return SWB_VEC_UNSUPPORTED;
	switch (d->op) {
	case 0x26:
	case 0x27:
		if (!d->evex)
			return SWB_VEC_UNSUPPORTED;
		return cmp_op(x, d->op == 0x26 ? (d->w ? 2u : 1u) : (d->w ? 8u : 4u), 0, false, 1);
	case 0x29: return d->evex && !d->w ? SWB_VEC_UNSUPPORTED : cmp_op(x, 8, C_EQ, false, 0);
	case 0x37: return d->evex && !d->w ? SWB_VEC_UNSUPPORTED : cmp_op(x, 8, C_NLE, true, 0);
	case 0x00: return pshufb(x);
	case 0x38: return bin_op(x, B_MINS, 1);
	case 0x39: return d->evex && d->w ? bin_op(x, B_MINS, 8) : bin_op(x, B_MINS, 4);
	case 0x3a: return bin_op(x, B_MINU, 2);
	case 0x3b: return d->evex && d->w ? bin_op(x, B_MINU, 8) : bin_op(x, B_MINU, 4);
	case 0x3c: return bin_op(x, B_MAXS, 1);
	case 0x3d: return d->evex && d->w ? bin_op(x, B_MAXS, 8) : bin_op(x, B_MAXS, 4);
	case 0x3e: return bin_op(x, B_MAXU, 2);
	case 0x3f: return d->evex && d->w ? bin_op(x, B_MAXU, 8) : bin_op(x, B_MAXU, 4);
	case 0x17: return ptest(x);
	case 0x78: return d->w ? SWB_VEC_UNSUPPORTED : broadcast(x, 1, false);
	case 0x79: return d->w ? SWB_VEC_UNSUPPORTED : broadcast(x, 2, false);
	case 0x58: return d->w ? SWB_VEC_UNSUPPORTED : broadcast(x, 4, false);
	case 0x59: return !d->evex && d->w ? SWB_VEC_UNSUPPORTED : d->evex && !d->w ? SWB_VEC_UNSUPPORTED
										    : broadcast(x, 8, false);
	case 0x7a: return d->evex && !d->w ? broadcast(x, 1, true) : SWB_VEC_UNSUPPORTED;
	case 0x7b: return d->evex && !d->w ? broadcast(x, 2, true) : SWB_VEC_UNSUPPORTED;
	case 0x7c: return d->evex ? broadcast(x, d->w ? 8 : 4, true) : SWB_VEC_UNSUPPORTED;
	default:
		return SWB_VEC_UNSUPPORTED;
	}
}

static enum swb_vec_result map3(struct ctx *x)
{
	const struct insn *d = &x->d;

	if (d->pp != 1 || !d->evex)
		return SWB_VEC_UNSUPPORTED;
	switch (d->op) {
	case 0x3e: return cmp_op(x, d->w ? 2 : 1, d->imm, false, 0);   /* vpcmpub, vpcmpuw */
	case 0x3f: return cmp_op(x, d->w ? 2 : 1, d->imm, true, 0);    /* vpcmpb, vpcmpw */
	case 0x1e: return cmp_op(x, d->w ? 8 : 4, d->imm, false, 0);   /* vpcmpud, vpcmpuq */
	case 0x1f: return cmp_op(x, d->w ? 8 : 4, d->imm, true, 0);    /* vpcmpd, vpcmpq */
	case 0x25: return ternlog(x, d->w ? 8 : 4);
	default: return SWB_VEC_UNSUPPORTED;
	}
}

/* Each instruction reads all it needs before it writes anything; a store's
 * memory comes last. */
enum swb_vec_result swb_vec_run(struct swb_vec_cpu *c, uint64_t ip, const uint8_t *code, size_t avail,
				unsigned *len, uint32_t *written)
{
	struct ctx x = { c, { 0 }, ip, 0, written };

	*written = 0;
	if (!decode(code, avail, &x.d))
		return SWB_VEC_UNSUPPORTED;
	*len = x.d.len;
	switch (x.d.map) {
	case 1: return map1(&x);
	case 2: return map2(&x);
	default: return map3(&x);
	}
}
