/* trace.c — collect a thread's next N taken branches with ptrace, stopping it
 * only where a branch outcome is unknown (see swtrace.h for the model).
 *
 * Each round plans from the thread's current ip: a root path (straight-line
 * runs joined by direct jumps and calls, plus the branch at the ip itself,
 * resolved from the registers) that ends at an instruction whose outcome is
 * unknown; a conditional branch there may be expanded into its two outcomes,
 * and so on, while debug registers remain for the leaves. The thread runs until
 * one leaf's debug register fires; that leaf tells which path ran, so all its
 * branches are confirmed at once. A leaf address must not lie on any planned
 * path before that leaf, or its debug register could fire early: plans that
 * break this rule are cut back.
 *
 * Where debug registers do not fire (some hypervisors do not pass them
 * through), a leaf is an int3 written into the code for as long as the thread
 * runs to it; another thread could meet that int3, so the other threads in
 * that memory (the process's, and a vfork child's) are held in a ptrace-stop
 * meanwhile (single steps alone where they cannot be).
 */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kcmp.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "sampler/emu.h"
#include "sampler/emulate.h"
#include "sampler/mem.h"
#include "util/util.h"

#define MAX_DR 4
#define MAX_NODES (2 * MAX_DR)
#define MAX_SEGS 48
#define MAX_SHADOW 8
#define MAX_RESTARTS 8

/* A straight-line piece of a planned path: instruction starts in [start, end];
 * end is the control instruction that ends it. */
struct seg {
	uint64_t start, end;
	const struct swb_ctl *ctl;  /* the instruction at end */
	int pend_before;        /* the node's pending branches executed before this piece */
};

/* A call followed on the planned path, for predicting its return: the
 * return goes back to ret_to for sure when the callee left the stack pointer
 * where the call put it (depth 0) and wrote to the stack only by push. */
struct shadow_frame {
	uint64_t ret_to;
	int64_t depth;
	bool clean;
};

struct node {
	int parent;             /* -1 for the root */
	struct shadow_frame sh[MAX_SHADOW];
	int nr_sh;
	int nr_seg, nr_pend;
	struct seg seg[MAX_SEGS];
	struct swb_entry pend[MAX_SEGS + 1];  /* taken branches along the node, in order */
	int total;              /* pending branches from the root through this node */
	const struct swb_ctl *stop;           /* where the node ends (a leaf's debug register) */
	bool leaf, expandable;
	struct swb_emu st;      /* the registers before stop, as far as known */
	bool st_at_stop;        /* st is the state at stop (not inside a piece: seek) */
};

/* A point of the window: after so many of its taken branches, at ip (not run yet). */
struct target {
	uint64_t taken, ip;
};

/* Branches known ahead (emulated): e[i] is the window's taken branch number
 * base + i; after the last one the thread runs straight on to end_ip. */
struct oracle {
	const struct swb_entry *e;
	int nr;
	uint64_t base, end_ip;
};

struct plan {
	struct node n[MAX_NODES];
	int nr;
	const struct oracle *o; /* or NULL */
	uint64_t taken0;        /* the window's taken branches when the round began */
	struct swb_ctl seek_stop;   /* a stop at the window's starting point (seek) */
	/* The ip when the thread resumes with the resume flag (RF) set, as after a
	 * debug-register stop: its breakpoint does not fire before it has run, so
	 * a leaf may sit on it. Otherwise an address no code has. */
	uint64_t rf_ip;
};

#define EFLAGS_RF 0x10000

/* Debug registers as programmed in the thread. */
struct drs {
	uint64_t addr[MAX_DR];
	bool known[MAX_DR];
	uint64_t dr7;
};

/* int3 breakpoints, in the code while the thread runs to a leaf. */
struct int3s {
	int mem;                /* /proc/TID/mem, -1 until needed */
	int nr;
	bool armed;
	uint64_t addr[MAX_DR];  /* kept after disarming: they tell our traps from the program's */
	uint8_t orig[MAX_DR];
};

static bool read_u64(pid_t tid, uint64_t addr, uint64_t *v)
{
	struct iovec local = { v, 8 }, remote = { (void *)(uintptr_t)addr, 8 };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == 8;
}

/* Where the control instruction at the thread's ip goes, from its registers
 * (and the memory it reads, as it is now): 1 taken (to *to), 0 falls
 * through, -1 unknown (single-step it). */
static int resolve(pid_t tid, const struct swb_ctl *c, const struct user_regs_struct *r, uint64_t *to)
{
	struct swb_emu e;
	uint64_t a;

	switch (c->kind) {
	case SWB_JCC: {
		int t = swb_jcc_taken(c, r->eflags, r->rcx);

		*to = c->target;
		return t;
	}
	case SWB_JMP:
	case SWB_CALL:
		*to = c->target;
		return 1;
	case SWB_RET:
	case SWB_JMP_IND:
	case SWB_CALL_IND:
		swb_emu_from_regs(&e, r, NULL);
		if (c->kind != SWB_RET && !c->op_mem)
			return swb_emu_reg(&e, c->reg, to) ? 1 : -1;
		return swb_emu_ctl_addr(&e, c, &a) && read_u64(tid, a, to) ? 1 : -1;
	default:
		return -1;
	}
}

/* --- planning --- */

static void add_seg(struct node *n, uint64_t start, const struct swb_ctl *c)
{
	n->seg[n->nr_seg++] = (struct seg){ start, c->addr, c, n->nr_pend };
	n->stop = c;
}

static void add_pend(struct node *n, uint64_t from, uint64_t to, unsigned type)
{
	n->pend[n->nr_pend++] = (struct swb_entry){ from, to, type };
	n->total++;
}

static void shadow_run(struct node *n, const struct swb_ctl *run)
{
	int i;

	for (i = 0; i < n->nr_sh; i++) {
		n->sh[i].depth += run->rsp_delta;
		n->sh[i].clean = n->sh[i].clean && run->rsp_known && run->stack_clean;
	}
}

static void shadow_call(struct node *n, uint64_t ret_to)
{
	int i;

	for (i = 0; i < n->nr_sh; i++)
		n->sh[i].depth -= 8;
	if (n->nr_sh == MAX_SHADOW) {
		memmove(n->sh, n->sh + 1, (MAX_SHADOW - 1) * sizeof(n->sh[0]));
		n->nr_sh--;
	}
	n->sh[n->nr_sh++] = (struct shadow_frame){ ret_to, 0, true };
}

/* Where a plain ret at the end of the path goes, when that is certain. */
static bool shadow_ret(struct node *n, const struct swb_ctl *c, uint64_t *to)
{
	struct shadow_frame *f;
	int i;

	if (!n->nr_sh || c->ret_imm)
		return false;
	f = &n->sh[n->nr_sh - 1];
	if (!f->clean || f->depth != 0)
		return false;
	*to = f->ret_to;
	n->nr_sh--;
	for (i = 0; i < n->nr_sh; i++)
		n->sh[i].depth += 8;
	return true;
}

/* A return whose target came from elsewhere: it ends the newest call
 * followed, if that is where the stack is. */
static void shadow_returned(struct node *n)
{
	if (n->nr_sh && n->sh[n->nr_sh - 1].depth == 0)
		n->nr_sh--;
	else
		n->nr_sh = 0;
}

/* Where a return or an indirect branch through memory goes, from the
 * memory the planner knows. */
static bool target_in_memory(struct node *n, const struct swb_ctl *c, uint64_t *to)
{
	uint64_t a;

	if (!swb_emu_ctl_addr(&n->st, c, &a) || !swb_emu_load(&n->st, a, 8, to))
		return false;
	if (c->kind == SWB_RET)
		shadow_returned(n);
	return true;
}

/* What the oracle says of the control instruction c that node n reaches:
 * 1 taken (*e), 0 not taken, -1 it does not know. */
static int ask_oracle(const struct plan *p, const struct node *n, const struct swb_ctl *c,
		      const struct swb_entry **e)
{
	const struct oracle *o = p->o;
	uint64_t g = p->taken0 + (uint64_t)n->total;   /* the number of the next taken branch */

	if (!o || g < o->base || g > o->base + (uint64_t)o->nr)
		return -1;
	if (g < o->base + (uint64_t)o->nr) {
		*e = &o->e[g - o->base];
		if ((*e)->from == c->addr)
			return 1;
		return c->kind == SWB_JCC ? 0 : -1;
	}
	/* past the last one, straight on to end_ip */
	return c->kind == SWB_JCC && c->addr < o->end_ip ? 0 : -1;
}

/* Extend node n from addr along direct jumps and calls, returns from calls
 * it followed, branches the oracle knows, and conditional and indirect
 * branches that the registers and memory computed on the way decide (emu.c),
 * while the budget (taken branches still wanted) leaves room after each. */
static void follow(const struct plan *p, struct swb_space *sp, pid_t tid, struct node *n, uint64_t addr, int budget)
{
	for (;;) {
		const struct swb_ctl *c = swb_decode_run(sp, tid, addr);
		const struct swb_entry *oe = NULL;
		uint64_t to;
		int i, t;

		add_seg(n, addr, c);
		shadow_run(n, c);
		for (i = 0; i < c->nr_uops; i++)
			swb_emu_apply(&n->st, &c->uops[i]);
		if (n->total + 1 >= budget || n->nr_seg == MAX_SEGS)
			return;
		if ((t = ask_oracle(p, n, c, &oe)) >= 0) {
			if (t) {
				add_pend(n, c->addr, oe->to, oe->type);
				if (c->kind == SWB_CALL || c->kind == SWB_CALL_IND)
					shadow_call(n, c->next);
				else if (c->kind == SWB_RET)
					shadow_returned(n);
			}
			addr = t ? oe->to : c->next;
		} else if (c->kind == SWB_JMP || c->kind == SWB_CALL) {
			add_pend(n, c->addr, c->target, swb_perf_type(c->kind));
			if (c->kind == SWB_CALL)
				shadow_call(n, c->next);
			addr = c->target;
		} else if (c->kind == SWB_RET && (target_in_memory(n, c, &to) || shadow_ret(n, c, &to))) {
			add_pend(n, c->addr, to, PERF_BR_RET);
			addr = to;
		} else if (c->kind == SWB_JCC && (t = swb_emu_jcc(&n->st, c->insn_id)) >= 0) {
			if (t)
				add_pend(n, c->addr, c->target, PERF_BR_COND);
			addr = t ? c->target : c->next;
		} else if ((c->kind == SWB_JMP_IND || c->kind == SWB_CALL_IND) &&
			   (c->op_mem ? target_in_memory(n, c, &to) : swb_emu_reg(&n->st, c->reg, &to))) {
			add_pend(n, c->addr, to, swb_perf_type(c->kind));
			if (c->kind == SWB_CALL_IND)
				shadow_call(n, c->next);
			addr = to;
		} else {
			return;
		}
		swb_emu_ctl(&n->st, c);
	}
}

/* Whether no leaf's address lies on a planned path before that leaf. */
static bool plan_valid(const struct plan *p)
{
	int i, j, l;

	for (l = 0; l < p->nr; l++) {
		uint64_t a;

		if (!p->n[l].leaf)
			continue;
		a = p->n[l].stop->addr;
		for (i = 0; i < p->nr; i++)
			for (j = 0; j < p->n[i].nr_seg; j++) {
				const struct seg *s = &p->n[i].seg[j];

				if (a < s->start || a > s->end)
					continue;
				if (i == l && j == p->n[i].nr_seg - 1 && a == s->end)
					continue;
				if (i == 0 && j == 0 && a == p->rf_ip)
					continue;
				return false;
			}
	}
	return true;
}

/* Cut the root back to its longest prefix whose end is a valid stop; true
 * when it had to (its call shadow then no longer fits its end). */
static bool cut_root(struct plan *p)
{
	struct node *r = &p->n[0];
	bool cut = false;

	while (!plan_valid(p)) {
		cut = true;
		/* nr_seg 1 is always valid: [ip, first control instruction]. */
		/* The new stop is not executed: keep what ran before its piece. */
		r->nr_seg--;
		r->nr_pend = r->seg[r->nr_seg - 1].pend_before;
		r->total = r->nr_pend;
		r->stop = r->seg[r->nr_seg - 1].ctl;
	}
	return cut;
}

/* The root's state at its stop, computed again after a cut: the same
 * steps as follow() took, over the pieces that are left. */
static void replay_root(struct node *r, const struct user_regs_struct *regs, struct swb_mem *mem)
{
	int i, j;

	swb_emu_from_regs(&r->st, regs, mem);
	for (j = 0; j < r->nr_seg; j++) {
		const struct swb_ctl *c = r->seg[j].ctl;

		if (j)
			swb_emu_ctl(&r->st, r->seg[j - 1].ctl);
		for (i = 0; i < c->nr_uops; i++)
			swb_emu_apply(&r->st, &c->uops[i]);
	}
}

static void new_child(struct plan *p, int parent, uint64_t addr, const struct swb_entry *taken,
		     struct swb_space *sp, pid_t tid, int budget)
{
	struct node *c = &p->n[p->nr++];

	memset(c, 0, sizeof(*c));
	c->parent = parent;
	c->total = p->n[parent].total;
	c->nr_sh = p->n[parent].nr_sh;
	memcpy(c->sh, p->n[parent].sh, sizeof(c->sh));
	c->st = p->n[parent].st;
	swb_emu_ctl(&c->st, p->n[parent].stop);
	c->leaf = true;
	c->st_at_stop = true;
	if (taken)
		add_pend(c, taken->from, taken->to, taken->type);
	follow(p, sp, tid, c, addr, budget);
	c->expandable = c->stop->kind == SWB_JCC && c->total + 1 < budget;
}

/* rf_works: debug registers are the breakpoints, so one at ip does not fire
 * when the resume flag is set. */
static void plan_round(struct plan *p, struct swb_space *sp, pid_t tid,
		      const struct user_regs_struct *regs, int budget, int max_leaves, bool rf_works)
{
	struct node *r = &p->n[0];
	const struct swb_ctl *c;
	uint64_t ip = regs->rip, to;
	int leaves = 1, taken;

	memset(r, 0, sizeof(*r));
	r->parent = -1;
	r->leaf = true;
	r->st_at_stop = true;
	p->nr = 1;
	p->rf_ip = rf_works && (regs->eflags & EFLAGS_RF) ? ip : UINT64_MAX;
	swb_emu_from_regs(&r->st, regs, swb_space_mem(sp));
	c = swb_decode_run(sp, tid, ip);
	if (c->addr != ip) {
		/* Straight-line code first: the registers may decide what ends it. */
		follow(p, sp, tid, r, ip, budget);
	} else {
		taken = resolve(tid, c, regs, &to);
		if (taken < 0 || (taken && budget == 1)) {
			/* Unknown, or the window's last branch: the caller single-steps it. */
			add_seg(r, ip, c);
			return;
		}
		add_seg(r, ip, c);
		if (taken)
			add_pend(r, ip, to, swb_perf_type(c->kind));
		if (c->kind == SWB_CALL || c->kind == SWB_CALL_IND)
			shadow_call(r, c->next);
		swb_emu_ctl(&r->st, c);
		follow(p, sp, tid, r, taken ? to : c->next, budget);
	}
	if (cut_root(p)) {
		replay_root(r, regs, swb_space_mem(sp));
		r->expandable = false;
	} else {
		r->expandable = r->nr_seg > 1 && r->stop->kind == SWB_JCC && r->total + 1 < budget;
	}

	while (leaves < max_leaves) {
		int i, found = -1;

		for (i = 0; i < p->nr && found < 0; i++)
			if (p->n[i].leaf && p->n[i].expandable)
				found = i;
		if (found < 0)
			break;
		{
			struct node *n = &p->n[found];
			struct swb_entry jcc = { n->stop->addr, n->stop->target, PERF_BR_COND };
			int saved = p->nr;

			n->expandable = false;
			n->leaf = false;
			new_child(p, found, n->stop->target, &jcc, sp, tid, budget);
			new_child(p, found, n->stop->next, NULL, sp, tid, budget);
			if (!plan_valid(p)) {
				p->nr = saved;
				n->leaf = true;
				continue;
			}
			leaves++;
		}
	}
}

/* Stop the root at addr, at its first pass there after need more taken
 * branches (seeking the window's starting point, or a target): its piece
 * there ends at addr and the tree is dropped. When the root cannot stop at
 * addr (it passes addr before, where a breakpoint would fire), or it does
 * not reach addr, it stops where it can. */
static void end_at(struct plan *p, uint64_t addr, uint64_t ip, int need, const struct user_regs_struct *regs,
		   struct swb_mem *mem)
{
	struct node *r = &p->n[0];
	int j;

	for (j = 0; j < r->nr_seg; j++) {
		struct seg *sg = &r->seg[j];

		if (addr < sg->start || addr > sg->end || (j == 0 && addr == ip) || sg->pend_before < need)
			continue;
		p->seek_stop = (struct swb_ctl){ .addr = addr, .next = addr, .kind = SWB_OTHER };
		sg->end = addr;
		sg->ctl = &p->seek_stop;
		r->nr_seg = j + 1;
		r->nr_pend = r->total = sg->pend_before;
		r->stop = &p->seek_stop;
		r->leaf = true;
		r->st_at_stop = false;
		p->nr = 1;
		if (cut_root(p)) {
			replay_root(r, regs, mem);
			r->st_at_stop = true;
		}
		return;
	}
}

/* --- ptrace --- */

/* Local enable of DR0-3; R/W 00 = execute, LEN 00. */
#define DR7_ALL 0x55
#define DR_OFFSET(i) (offsetof(struct user, u_debugreg) + (i) * sizeof(uint64_t))

static int set_dr(pid_t tid, int i, uint64_t v)
{
	if (ptrace(PTRACE_POKEUSER, tid, (void *)DR_OFFSET(i), (void *)(uintptr_t)v) < 0)
		return oc_err_errno("thread %d: cannot set debug register %d", (int)tid, i);
	return 0;
}

/* Whether the thread may execute addr before reaching a leaf. */
static bool on_path(const struct plan *p, uint64_t addr)
{
	int i, j;

	for (i = 0; i < p->nr; i++)
		for (j = 0; j < p->n[i].nr_seg; j++) {
			const struct seg *s = &p->n[i].seg[j];

			if (addr >= s->start && addr <= s->end && !(i == 0 && j == 0 && addr == p->rf_ip))
				return true;
		}
	return false;
}

/* Where an unused debug register waits: no code runs at address 0. */
#define DR_PARKED 0

/* Arm one execute breakpoint per leaf address. Writing a debug register is
 * the dearest part of a stop, so all four stay enabled during a window
 * (DR7 is written once): a leaf keeps the register that already holds its
 * address, and a register left from an earlier round stays where it is
 * unless the thread could reach it before a leaf; then it is parked. */
static int arm(pid_t tid, struct drs *d, const struct plan *p, const uint64_t *addr, int n)
{
	int slot_of_leaf[MAX_DR], i, k;
	bool used[MAX_DR] = { false };

	for (i = 0; i < n; i++) {
		slot_of_leaf[i] = -1;
		for (k = 0; k < MAX_DR && slot_of_leaf[i] < 0; k++)
			if (!used[k] && d->known[k] && d->addr[k] == addr[i]) {
				slot_of_leaf[i] = k;
				used[k] = true;
			}
	}
	for (i = 0; i < n; i++) {
		int best = -1;

		if (slot_of_leaf[i] >= 0)
			continue;
		/* Prefer a register whose old address is in the way (it must move anyway). */
		for (k = 0; k < MAX_DR; k++)
			if (!used[k] && (best < 0 || !d->known[k] || on_path(p, d->addr[k])))
				best = k;
		if (set_dr(tid, best, addr[i]) < 0)
			return -1;
		d->addr[best] = addr[i];
		d->known[best] = true;
		used[best] = true;
	}
	for (k = 0; k < MAX_DR; k++) {
		if (used[k] || (d->known[k] && (d->addr[k] == DR_PARKED || !on_path(p, d->addr[k]))))
			continue;
		if (set_dr(tid, k, DR_PARKED) < 0)
			return -1;
		d->addr[k] = DR_PARKED;
		d->known[k] = true;
	}
	if (d->dr7 != DR7_ALL) {
		if (set_dr(tid, 7, DR7_ALL) < 0)
			return -1;
		d->dr7 = DR7_ALL;
	}
	return 0;
}

/* Before a single-step at ip: no armed register may sit on ip (it would
 * fire before the instruction runs). */
static int clear_ip(pid_t tid, struct drs *d, uint64_t ip)
{
	int k;

	for (k = 0; k < MAX_DR; k++)
		if (((d->dr7 >> (2 * k)) & 1) && (!d->known[k] || d->addr[k] == ip)) {
			if (set_dr(tid, k, DR_PARKED) < 0)
				return -1;
			d->addr[k] = DR_PARKED;
			d->known[k] = true;
		}
	return 0;
}

static int disarm(pid_t tid, struct drs *d)
{
	if (!d->dr7)
		return 0;
	d->dr7 = 0;
	return set_dr(tid, 7, 0);
}

static void int3_disarm(struct int3s *b)
{
	int i;

	if (!b->armed)
		return;
	b->armed = false;
	/* after exit or exec there is nothing to restore: the writes fail */
	for (i = b->nr - 1; i >= 0; i--)
		if (pwrite(b->mem, &b->orig[i], 1, (off_t)b->addr[i]) != 1)
			break;
}

/* Write an int3 at each address (through /proc/TID/mem: it writes
 * read-only text as ptrace does, without a stop per word). */
static int int3_arm(pid_t tid, struct int3s *b, const uint64_t *addr, int n)
{
	static const uint8_t int3 = 0xcc;
	int i, k;

	if (b->mem < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
		b->mem = open(path, O_RDWR | O_CLOEXEC);
		if (b->mem < 0)
			return oc_err_errno("cannot open %s", path);
	}
	b->nr = 0;
	b->armed = true;
	for (i = 0; i < n; i++) {
		for (k = 0; k < b->nr && b->addr[k] != addr[i]; k++)
			;
		if (k < b->nr)
			continue;
		if (pread(b->mem, &b->orig[b->nr], 1, (off_t)addr[i]) != 1 ||
		    pwrite(b->mem, &int3, 1, (off_t)addr[i]) != 1) {
			int err = errno;

			int3_disarm(b);
			errno = err;
			return oc_err_errno("thread %d: cannot write a breakpoint at %#" PRIx64, (int)tid, addr[i]);
		}
		b->addr[b->nr++] = addr[i];
	}
	return 0;
}

static void int3_close(struct int3s *b)
{
	int3_disarm(b);
	if (b->mem >= 0)
		close(b->mem);
	b->mem = -1;
}

static int get_regs(pid_t tid, struct user_regs_struct *r);

/* After an int3 trap (ip one past it): true when the int3 was ours, and then
 * the thread is put back on the breakpoint's address, which has not run. */
static bool int3_ours(pid_t tid, const struct int3s *b, struct user_regs_struct *r)
{
	int k;

	for (k = 0; k < b->nr && b->addr[k] != r->rip - 1; k++)
		;
	if (k == b->nr)
		return false;
	r->rip--;
	return ptrace(PTRACE_SETREGS, tid, NULL, r) == 0;
}

static __attribute__((noinline, used)) void probe_target(void)
{
	__asm__ volatile("" ::: "memory");
}

/* Whether an execute breakpoint in a debug register stops a thread here: a
 * child of ours runs into one. */
static bool debugregs_fire(void)
{
	int status;
	bool fired = false;
	pid_t pid = fork();

	if (pid < 0)
		return true;   /* cannot tell: the usual case */
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		probe_target();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status) &&
	    set_dr(pid, 0, (uint64_t)(uintptr_t)probe_target) == 0 && set_dr(pid, 7, 1) == 0 &&
	    ptrace(PTRACE_CONT, pid, NULL, NULL) == 0 && waitpid(pid, &status, 0) == pid)
		fired = WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP;
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == pid && !WIFEXITED(status) && !WIFSIGNALED(status))
		;
	oc_err_clear();
	return fired;
}

static const char *breakpoints_why;

enum swb_bp swb_breakpoints(void)
{
	static enum swb_bp mode;
	const char *env;

	if (mode != SWB_BP_AUTO)
		return mode;
	env = getenv("OCREC_SAMPLER_BREAKPOINTS");
	breakpoints_why = "OCREC_SAMPLER_BREAKPOINTS";
	if (env && strcmp(env, "int3") == 0) {
		mode = SWB_BP_INT3;
	} else if (env && strcmp(env, "debugreg") == 0) {
		mode = SWB_BP_DEBUGREG;
	} else {
		mode = debugregs_fire() ? SWB_BP_DEBUGREG : SWB_BP_INT3;
		breakpoints_why = mode == SWB_BP_INT3 ? "debug registers do not fire here" : "they fire here";
	}
	return mode;
}

const char *swb_breakpoints_why(void)
{
	swb_breakpoints();
	return breakpoints_why;
}

const char *swb_breakpoints_name(enum swb_bp bp)
{
	return bp == SWB_BP_INT3 ? "int3" : "debug registers";
}

/* TRAP_PERF and si_perf_data are the kernel's (include/uapi/asm-generic/
 * siginfo.h, Linux 5.13); glibc 2.36 names neither. si_perf_data follows
 * si_addr in the fault fields. */
#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

static bool timer_siginfo(const siginfo_t *si)
{
	uint64_t data;

	if (si->si_signo != SIGTRAP || si->si_code != TRAP_PERF)
		return false;
	memcpy(&data, (const char *)&si->si_addr + sizeof(si->si_addr), sizeof(data));
	return data == SWB_TIMER_SIG_DATA;
}

bool swb_timer_trap(pid_t tid)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0 && timer_siginfo(&si);
}

/* A single step's or a breakpoint's SIGTRAP (the program's own int3 is SI_KERNEL). */
static bool trace_siginfo(const siginfo_t *si)
{
	return si->si_signo == SIGTRAP &&
	       (si->si_code == TRAP_BRKPT || si->si_code == TRAP_TRACE || si->si_code == TRAP_HWBKPT);
}

bool swb_trace_trap(pid_t tid)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0 && trace_siginfo(&si);
}

/* Walk tid's queued signals, its own then its process's: 1 when match()
 * holds for one, 0 when for none, -1 when they cannot be read. */
static int find_queued(pid_t tid, bool (*match)(const siginfo_t *si))
{
	static const uint32_t queues[] = { 0, PTRACE_PEEKSIGINFO_SHARED };
	siginfo_t si[8];
	size_t q;
	int n, i;

	for (q = 0; q < 2; q++) {
		struct __ptrace_peeksiginfo_args a = { 0, queues[q], 8 };

		do {
			if ((n = ptrace(PTRACE_PEEKSIGINFO, tid, &a, si)) < 0)
				return -1;
			for (i = 0; i < n; i++)
				if (match(&si[i]))
					return 1;
			a.off += (uint64_t)n;
		} while (n == (int)a.nr);
	}
	return 0;
}

static bool own_siginfo(const siginfo_t *si)
{
	return trace_siginfo(si) || timer_siginfo(si);
}

bool swb_own_trap_queued(pid_t tid)
{
	/* a blocked one stays queued until the thread unblocks it */
	return !swb_blocks_sigtrap(tid) && find_queued(tid, own_siginfo) == 1;
}

/* The next report of any traced thread; 0 when none came by the deadline
 * (monotonic ns, 0: none), -1 on error. With a deadline it sleeps until
 * SIGCHLD (every ptrace stop raises one), blocked meanwhile so that it stays
 * pending for sigtimedwait. */
static pid_t wait_report(int *status, uint64_t deadline)
{
	sigset_t chld, old;
	pid_t p;

	if (deadline) {
		sigemptyset(&chld);
		sigaddset(&chld, SIGCHLD);
		sigprocmask(SIG_BLOCK, &chld, &old);
	}
	for (;;) {
		uint64_t now;

		p = waitpid(-1, status, __WALL | (deadline ? WNOHANG : 0));
		if (p < 0 && errno == EINTR)
			continue;
		if (p != 0 || (now = now_ns()) >= deadline)
			break;
		sigtimedwait(&chld, NULL, &(struct timespec){ (time_t)((deadline - now) / 1000000000u),
							     (long)((deadline - now) % 1000000000u) });
	}
	if (deadline && !sigismember(&old, SIGCHLD))
		sigprocmask(SIG_SETMASK, &old, NULL);
	return p < 0 ? oc_err_errno("waitpid") : p;
}

static void pass_on(struct swb_tracer *t, pid_t pid, int status)
{
	if (t->other)
		t->other(pid, status, t->arg);
	else if (WIFSTOPPED(status))
		ptrace(PTRACE_CONT, pid, NULL, NULL);
}

/* Whether a thread that is past its limit is really held up: asleep in the
 * kernel, or running that long on a CPU since it was first past it. A thread
 * that is merely waiting for a CPU (a loaded machine) is not, nor one in an
 * uninterruptible wait, which an interrupt would not end: it is waited for.
 * When that wait is a system call it steps (in_syscall), it may be for a
 * thread the caller holds, which then runs on (see release_held). A thread
 * running to its breakpoints cannot be waiting for one (a system call is
 * always where a plan stops), and one let run then could meet an int3. */
static bool overran(struct swb_tracer *t, pid_t tid, uint64_t limit, bool in_syscall, uint64_t *cpu_at_limit)
{
	char path[64], *sched, state = proc_state((int)tid);
	uint64_t cpu;

	if (state == 'S')
		return true;
	if (state == 'D' && in_syscall && t->release_held)
		t->release_held(t->arg);
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)tid);
	sched = read_line_file(path);
	if (!sched) {
		oc_err_clear();
		return true;    /* no schedstat: the wall-clock limit is all there is */
	}
	cpu = strtoull(sched, NULL, 10);   /* ns on a CPU */
	free(sched);
	if (!*cpu_at_limit) {
		*cpu_at_limit = cpu;
		return false;
	}
	return cpu - *cpu_at_limit >= limit;
}

/* Wait for tid, handing other threads' reports to the caller: 0 tid reported
 * (in *status), 1 it overran limit (ns; 0: none), -1 error. */
static int wait_for(struct swb_tracer *t, pid_t tid, int *status, uint64_t limit, bool in_syscall)
{
	uint64_t deadline = limit ? now_ns() + limit : 0, cpu_at_limit = 0;

	for (;;) {
		pid_t p = wait_report(status, deadline);

		if (p < 0)
			return -1;
		if (p == 0) {
			if (overran(t, tid, limit, in_syscall, &cpu_at_limit))
				return 1;
			deadline = now_ns() + limit;
			continue;
		}
		if (p == tid)
			return 0;
		pass_on(t, p, *status);
	}
}

/* The other threads of the window's process, held in a ptrace-stop while
 * int3s are in its code, each with the report it stopped with (its resume
 * is the caller's, as for any report). */
struct held {
	pid_t tid;
	int status;
	bool stopped;
};

struct hold {
	struct held *h;
	size_t nr, cap;
};

/* How long the other threads may take to stop; a thread that cannot (a
 * zombie leader) leaves the window to single steps. */
#define HOLD_LIMIT_NS 20000000u

static struct held *held_find(struct hold *hd, pid_t tid)
{
	size_t i;

	for (i = 0; i < hd->nr; i++)
		if (hd->h[i].tid == tid)
			return &hd->h[i];
	return NULL;
}

static void release_others(struct swb_tracer *t, struct hold *hd)
{
	size_t i;

	for (i = 0; i < hd->nr; i++)
		if (hd->h[i].stopped)
			pass_on(t, hd->h[i].tid, hd->h[i].status);
	hd->nr = 0;
}

/* The threads that run in tid's memory: its process's, and each vfork()
 * child of theirs (posix_spawn() makes them too) until it execs. NULL +
 * oc_err() as proc_threads(). */
static pid_t *memory_sharers(pid_t tid, size_t *n)
{
	pid_t *all = proc_threads(tid, n);
	size_t threads = *n, cap = *n, i;

	for (i = 0; all && i < threads; i++) {
		char path[64], *list, *p, *end;

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)tid, (int)all[i]);
		if (!(list = read_file(path, NULL))) {
			oc_err_clear();
			continue;
		}
		for (p = list;; p = end) {
			long child = strtol(p, &end, 10);

			if (end == p)
				break;
			if (syscall(SYS_kcmp, (pid_t)child, tid, KCMP_VM, 0, 0) == 0) {
				GROW(all, cap, *n + 1);
				all[(*n)++] = (pid_t)child;
			}
		}
		free(list);
	}
	return all;
}

/* Stop every other thread that runs in tid's memory (threads they make
 * meanwhile too; a vfork child too, whose code is the process's). 0, 1 when
 * some did not stop in time (those that did run again; the others report
 * their interrupt later), -1 on error. */
static int hold_others(struct swb_tracer *t, pid_t tid, struct hold *hd)
{
	uint64_t deadline = now_ns() + HOLD_LIMIT_NS;

	for (;;) {
		size_t n, i, waiting = 0;
		pid_t *tids = memory_sharers(tid, &n);

		if (!tids)
			return -1;
		for (i = 0; i < n; i++) {
			pid_t o = tids[i];

			if (o == tid || held_find(hd, o) || (t->stopped_by_caller && t->stopped_by_caller(o, t->arg)) ||
			    ptrace(PTRACE_INTERRUPT, o, NULL, NULL) < 0)
				continue;   /* stopped already, or ending */
			GROW(hd->h, hd->cap, hd->nr + 1);
			hd->h[hd->nr++] = (struct held){ o, 0, false };
			waiting++;
		}
		free(tids);
		if (!waiting)
			return 0;
		while (waiting) {
			int status;
			pid_t p = wait_report(&status, deadline);
			struct held *h;

			if (p <= 0) {
				release_others(t, hd);
				return p < 0 ? -1 : 1;
			}
			h = held_find(hd, p);
			if (!h || h->stopped) {
				pass_on(t, p, status);
				continue;
			}
			waiting--;
			if (WIFSTOPPED(status)) {
				h->stopped = true;
				h->status = status;
			} else {
				h->tid = 0;     /* ended */
				pass_on(t, p, status);
			}
		}
	}
}

/* How long a window waits for a syscall it steps: one that blocks (wait4 on
 * a child, a read from a pipe) would hold the window, with the timer off for
 * the whole workload, until it returns. Past it, a thread asleep is
 * interrupted; one still runnable is given the limit again (see overran). */
#define SYSCALL_LIMIT_NS 2000000u

/* How long a thread may run towards its breakpoints: a round is planned
 * code up to the next unknown branch, microseconds of work. Only a thread
 * that left the plan unseen runs longer (on a CPU, or asleep in a syscall
 * it was not to reach); it is stopped and the window dropped, rather than
 * the timer staying off until the program ends. */
#define ROUND_LIMIT_NS 100000000u

/* STOP_HANDLER: a step delivered a signal and stopped at its handler's entry;
 * STOP_INT3: an int3 ran (ours or the program's). */
enum stop_kind { STOP_TRAP, STOP_HANDLER, STOP_INT3, STOP_SIGNAL, STOP_END };

/* Resume tid with request (PTRACE_CONT or PTRACE_SINGLESTEP) and classify the
 * next stop: our trap, a signal for the program, or something that ends the
 * window (exit, exec, group-stop). Fork and clone reports are passed over.
 * With a limit (ns), a thread that has not stopped by then is interrupted
 * (a blocking syscall restarts when it resumes) and the window ends. */
static int resume_wait(struct swb_tracer *t, pid_t tid, int request, int sig, int *status,
		       enum stop_kind *kind, uint64_t limit)
{
	for (;;) {
		siginfo_t si;
		int event, rc;

		if (ptrace(request, tid, NULL, (void *)(uintptr_t)sig) < 0)
			return oc_err_errno("thread %d: cannot resume", (int)tid);
		sig = 0;
		rc = wait_for(t, tid, status, limit, request == PTRACE_SINGLESTEP);
		if (rc == 1) {
			if (request == PTRACE_SINGLESTEP)
				t->blocked++;
			else
				t->lost++;
			if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
				return oc_err_errno("thread %d: cannot interrupt", (int)tid);
			rc = wait_for(t, tid, status, 0, false);
		}
		if (rc < 0)
			return -1;
		if (!WIFSTOPPED(*status)) {
			*kind = STOP_END;
			return 0;
		}
		event = *status >> 16;
		if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
		    event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_VFORK_DONE) {
			unsigned long child;

			t->spawned |= event == PTRACE_EVENT_CLONE;
			if (event != PTRACE_EVENT_VFORK_DONE && t->on_spawn &&
			    ptrace(PTRACE_GETEVENTMSG, tid, NULL, &child) == 0)
				t->on_spawn(tid, (pid_t)child, t->arg);
			continue;
		}
		if (event) {
			*kind = STOP_END;
			return 0;
		}
		if (WSTOPSIG(*status) == SIGTRAP && ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0) {
			/* A sample of the timer that came before it was turned off:
			 * the resume is asked again, without it. */
			if (timer_siginfo(&si))
				continue;
			/* Debug registers and steps report TRAP_*; stepping into a
			 * signal handler is reported by ptrace_notify(SIGTRAP). */
			if (trace_siginfo(&si)) {
				*kind = STOP_TRAP;
				return 0;
			}
			if (si.si_code == SIGTRAP) {
				*kind = STOP_HANDLER;
				return 0;
			}
			if (si.si_code == SI_KERNEL) {
				*kind = STOP_INT3;
				return 0;
			}
		}
		*kind = STOP_SIGNAL;
		return 0;
	}
}

static int get_regs(pid_t tid, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, tid, NULL, r) < 0)
		return oc_err_errno("thread %d: cannot read registers", (int)tid);
	return 0;
}

static bool mask_blocks_sigtrap(uint64_t mask)
{
	return mask & (1ull << (SIGTRAP - 1));
}

/* Whether tid blocks SIGTRAP. A single step or a breakpoint then traps it all
 * the same, and the kernel, forcing that SIGTRAP through, unblocks it and
 * resets the program's SIGTRAP handler to the default for good
 * (force_sig_info_to_task() in kernel/signal.c): a worker thread that blocks
 * every signal, or a SIGTRAP handler, would run on changed. */
bool swb_blocks_sigtrap(pid_t tid)
{
	uint64_t mask = 0;      /* valgrind does not know this request fills it */

	return ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(mask), &mask) == 0 && mask_blocks_sigtrap(mask);
}

/* The system calls after which a thread may block SIGTRAP: the new mask for
 * good (rt_sigprocmask, rt_sigreturn from the signal frame), or for the
 * call's length, which is still in place where the return of one a signal
 * interrupted reports its step. Which argument points to that mask (x86-64
 * order), or to a { mask pointer, size } pair (indirect). */
static const struct mask_syscall {
	long nr;
	int arg;
	bool indirect;
} mask_syscalls[] = {
	{ SYS_rt_sigprocmask, 1, false }, { SYS_rt_sigsuspend, 0, false }, { SYS_ppoll, 3, false },
	{ SYS_pselect6, 5, true },        { SYS_epoll_pwait, 4, false },   { SYS_epoll_pwait2, 4, false },
	{ SYS_io_pgetevents, 5, true },
};

/* The same calls (sigreturn, sigprocmask and sigsuspend too, and the
 * _time64 forms) through the i386 entries (int 0x80, sysenter),
 * asm/unistd_32.h: not decoded, taken as blocking it. */
static const long mask_syscalls_i386[] = { 72, 119, 126, 173, 175, 179, 308, 309, 319, 385, 413, 414, 416, 441 };

/* Whether the system call tid is stopped at (c) leaves SIGTRAP blocked
 * where its step reports: then it must not be stepped. A mask that cannot
 * be read counts as blocking it. */
static bool syscall_blocks_sigtrap(pid_t tid, const struct swb_ctl *c, const struct user_regs_struct *r)
{
	const uint64_t args[] = { r->rdi, r->rsi, r->rdx, r->r10, r->r8, r->r9 };
	const struct mask_syscall *m = NULL;
	uint64_t at, mask, cur = 0;      /* cur: valgrind does not know GETSIGMASK fills it */
	size_t i;

	if (c->insn_id != X86_INS_SYSCALL) {
		for (i = 0; i < ARRAY_SIZE(mask_syscalls_i386); i++)
			if ((long)r->rax == mask_syscalls_i386[i])
				return true;
		return false;
	}
	if (r->rax == SYS_rt_sigreturn)
		/* the handler's ret took the frame's return address: its
		 * ucontext is at the stack pointer (x86 rt_sigframe) */
		return !read_u64(tid, r->rsp + offsetof(ucontext_t, uc_sigmask), &mask) || mask_blocks_sigtrap(mask);
	for (i = 0; i < ARRAY_SIZE(mask_syscalls) && !m; i++)
		if ((long)r->rax == mask_syscalls[i].nr)
			m = &mask_syscalls[i];
	if (!m || !(at = args[m->arg]))
		return false;   /* no mask given: it stays as it is */
	if ((m->indirect && !read_u64(tid, at, &at)) || (at && !read_u64(tid, at, &mask)))
		return true;
	if (!at)
		return false;
	if (r->rax != SYS_rt_sigprocmask)
		return mask_blocks_sigtrap(mask);
	if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(cur), &cur) < 0)
		return true;
	switch (r->rdi) {
	case SIG_BLOCK: return mask_blocks_sigtrap(cur | mask);
	case SIG_UNBLOCK: return mask_blocks_sigtrap(cur & ~mask);
	default: return mask_blocks_sigtrap(mask);
	}
}

/* Single-step tid (delivering sig, if any) and observe the taken branch.
 * 1 taken (*e), 0 not, 2 window over (*status), -1 error; 3 when no trap
 * may reach the thread any more: it is at a system call that would block
 * SIGTRAP (not stepped), or stepped into a handler that blocks it (see
 * swb_blocks_sigtrap()). A whole trace steps every instruction regardless, and
 * waits for system calls however long they take. */
static int step(struct swb_tracer *t, struct swb_space *sp, pid_t tid, int sig, struct swb_entry *e,
		int *status, uint64_t *ip_after, bool whole_trace)
{
	struct user_regs_struct r;
	const struct swb_ctl *c;
	enum stop_kind kind;
	bool jcc_to_next;
	uint64_t ip;

	if (get_regs(tid, &r) < 0)
		return -1;
	ip = r.rip;
	c = swb_decode_run(sp, tid, ip);
	/* A conditional branch to the next instruction is taken or not by the flags. */
	jcc_to_next = c->addr == ip && c->kind == SWB_JCC && c->target == c->next && swb_jcc_taken(c, r.eflags, r.rcx) == 1;
	if (!whole_trace && !sig && c->addr == ip && c->kind == SWB_SYSCALL && syscall_blocks_sigtrap(tid, c, &r))
		return 3;
	for (;;) {
		t->steps++;
		if (resume_wait(t, tid, PTRACE_SINGLESTEP, sig, status, &kind,
				!whole_trace && c->addr == ip && c->kind == SWB_SYSCALL ? SYSCALL_LIMIT_NS : 0) < 0)
			return -1;
		if (kind == STOP_END)
			return 2;
		if (kind == STOP_INT3)
			kind = STOP_SIGNAL;   /* the program's own: no int3 of ours is in while stepping */
		if (kind != STOP_SIGNAL)
			break;
		/* A signal came first: deliver it with this step instead. */
		sig = WSTOPSIG(*status);
		if (get_regs(tid, &r) < 0)
			return -1;
		if (r.rip != ip) {
			/* The step began elsewhere (a restarted syscall): re-observe. */
			ip = r.rip;
			c = swb_decode_run(sp, tid, ip);
			jcc_to_next = c->addr == ip && c->kind == SWB_JCC && c->target == c->next &&
				      swb_jcc_taken(c, r.eflags, r.rcx) == 1;
		}
	}
	if (get_regs(tid, &r) < 0)
		return -1;
	*ip_after = r.rip;
	if (kind == STOP_HANDLER) {
		*e = (struct swb_entry){ ip, r.rip, PERF_BR_IRQ };
		return !whole_trace && swb_blocks_sigtrap(tid) ? 3 : 1;
	}
	if (c->addr == ip && (r.rip != c->next || swb_always_taken(c) || jcc_to_next)) {
		*e = (struct swb_entry){ ip, r.rip, swb_perf_type(c->kind) };
		return 1;
	}
	return 0;
}

int swb_step(struct swb_tracer *t, struct swb_space *sp, pid_t tid, struct swb_entry *e, int *status)
{
	uint64_t ip;
	int rc = step(t, sp, tid, 0, e, status, &ip, true);

	return rc == 2 ? -1 : rc;
}

/* Add the newest branch to a full window: the oldest falls out. */
static void slide(struct swb_window *w, int depth, const struct swb_entry *e)
{
	w->taken++;
	if (w->nr == depth) {
		memmove(w->e, w->e + 1, (size_t)(depth - 1) * sizeof(*w->e));
		w->nr--;
	}
	w->e[w->nr++] = *e;
}

/* The path from the root to leaf l, root first. */
static int path_of(const struct plan *p, int l, int *path)
{
	int n = 0, i, tmp;

	for (i = l; i >= 0; i = p->n[i].parent)
		path[n++] = i;
	for (i = 0; i < n / 2; i++) {
		tmp = path[i];
		path[i] = path[n - 1 - i];
		path[n - 1 - i] = tmp;
	}
	return n;
}

static void confirm(const struct plan *p, int node, int nr_pend, struct swb_window *w, int depth)
{
	int path[MAX_NODES], n = path_of(p, node, path), i, j;

	for (i = 0; i < n; i++) {
		const struct node *nd = &p->n[path[i]];
		int upto = i == n - 1 ? nr_pend : nd->nr_pend;

		for (j = 0; j < upto; j++)
			slide(w, depth, &nd->pend[j]);
	}
}

/* The thread stopped unplanned at ip (a signal): confirm what ran before ip if
 * exactly one planned piece holds it; false when that is ambiguous. */
static bool confirm_partial(const struct plan *p, uint64_t ip, struct swb_window *w, int depth)
{
	int i, j, hits = 0, node = -1, pend = 0;

	for (i = 0; i < p->nr; i++)
		for (j = 0; j < p->n[i].nr_seg; j++)
			if (ip >= p->n[i].seg[j].start && ip <= p->n[i].seg[j].end) {
				hits++;
				node = i;
				pend = p->n[i].seg[j].pend_before;
			}
	if (hits != 1)
		return false;
	confirm(p, node, pend, w, depth);
	return true;
}

/* Whether the thread stopped inside a syscall that the kernel restarts when
 * it resumes (it blocked, and the interrupt broke it off): its ip is past the
 * syscall instruction, but it will run that syscall again first. */
static bool in_restarting_syscall(const struct user_regs_struct *r)
{
	/* the kernel's internal codes (include/linux/errno.h), not in the uapi */
	enum { ERESTARTSYS = 512, ERESTARTNOINTR, ERESTARTNOHAND, ERESTART_RESTARTBLOCK = 516 };
	long ret = -(long)r->rax;

	return (long)r->orig_rax >= 0 && (ret == ERESTARTSYS || ret == ERESTARTNOINTR ||
					  ret == ERESTARTNOHAND || ret == ERESTART_RESTARTBLOCK);
}

/* int3 mode: a jump at the thread's ip whose outcome the registers tell is
 * made by setting the ip. A breakpoint cannot wait at the ip the way a debug
 * register with the resume flag does, so a one-block loop would otherwise
 * cost a stop and a step per iteration. 1 taken (*e), 0 fell through, -1 not
 * such a jump (or the ip could not be set). */
static int jump_here(pid_t tid, struct swb_space *sp, struct user_regs_struct *r, struct swb_entry *e)
{
	const struct swb_ctl *c = swb_decode_run(sp, tid, r->rip);
	uint64_t to;
	int taken;

	if (c->addr != r->rip || (c->kind != SWB_JCC && c->kind != SWB_JMP && c->kind != SWB_JMP_IND) ||
	    c->insn_id == X86_INS_LOOP || c->insn_id == X86_INS_LOOPE || c->insn_id == X86_INS_LOOPNE)
		return -1;   /* loop also counts rcx down */
	taken = resolve(tid, c, r, &to);
	if (taken < 0)
		return -1;
	r->rip = taken ? to : c->next;
	if (ptrace(PTRACE_SETREGS, tid, NULL, r) < 0) {
		r->rip = c->addr;
		return -1;
	}
	*e = (struct swb_entry){ c->addr, to, swb_perf_type(c->kind) };
	return taken;
}

/* Whether the window is full; with seek, whether it stops sliding at ip. */
static bool window_done(const struct swb_tracer *t, const struct swb_window *w, int depth, uint64_t ip, uint64_t p0)
{
	return swb_window_ends(depth, t->seek, w->taken, ip == p0);
}

/* One single step inside a window, its branch added: as step(). */
static int step_window(struct swb_tracer *t, struct swb_space *sp, pid_t tid, struct swb_window *w, int depth,
		       uint64_t *ip)
{
	struct swb_entry e;
	int rc = step(t, sp, tid, 0, &e, &w->status, ip, false);

	t->followed_insns++;
	if (rc == 1)
		slide(w, depth, &e);
	return rc;
}

/* However a window ends: its int3s out, the other threads running again. */
static void end_window(struct swb_tracer *t, struct int3s *b, struct hold *hd)
{
	int3_close(b);
	release_others(t, hd);
	free(hd->h);
	hd->h = NULL;
	hd->nr = hd->cap = 0;
}

/* Following a window with ptrace: the thread, its breakpoints, and where it
 * must stop. */
struct follow {
	struct swb_tracer *t;
	struct swb_space *sp;
	pid_t tid;
	int depth;              /* entries w keeps */
	struct swb_window *w;   /* the window, or the part that runs to a target */
	uint64_t p0;            /* where the window began */
	const struct target *tg;        /* stop there instead of where the window ends */
	const struct oracle *o; /* or NULL */
	/* The thread's, read again after it ran: a round and emulation start
	 * from them, and jump_here() writes them back to the thread. */
	struct user_regs_struct regs;
	uint64_t ip;
	int max_leaves, restarts;
	bool int3, held, stepped, ran;
	bool pages_current;     /* the memory view's copies are the thread's memory */
	struct drs d;
	struct int3s b;
	struct hold hd;
};

enum round_result {
	R_MORE,         /* not there yet */
	R_DONE,         /* where it must stop */
	R_EVENT,        /* the thread reported something else (w->status) */
	R_FAILED,       /* oc_err() set */
	R_RESTART,      /* the path that ran is not the one planned: start the window again here */
	R_OFFTRACK,     /* a signal took the thread off the way to its target */
	R_SKIP,         /* the thread blocks SIGTRAP: no trap may reach it */
};

/* How a step the window made ends its round: R_MORE when it does not. */
static enum round_result step_result(struct swb_tracer *t, int rc)
{
	switch (rc) {
	case 0: case 1: return R_MORE;
	case 2: return R_EVENT;
	case 3: t->sigtrap_blocked++; return R_SKIP;
	default: return R_FAILED;
	}
}

static bool reached(const struct follow *f)
{
	if (f->tg)
		return f->w->taken == f->tg->taken && f->ip == f->tg->ip;
	return window_done(f->t, f->w, f->depth, f->ip, f->p0);
}

/* The rest by single steps alone: where int3 is the breakpoint and another
 * thread of the process could run into it. */
static enum round_result collect_by_steps(struct follow *f)
{
	f->t->stepped_windows += !f->stepped;
	f->stepped = true;
	while (!reached(f)) {
		enum round_result r;

		if (f->tg && f->w->taken > f->tg->taken)
			return get_regs(f->tid, &f->regs) < 0 ? R_FAILED : R_RESTART;
		if ((r = step_result(f->t, step_window(f->t, f->sp, f->tid, f->w, f->depth, &f->ip))) != R_MORE)
			return r;
	}
	return get_regs(f->tid, &f->regs) < 0 ? R_FAILED : R_DONE;
}

/* Instructions the thread ran on a confirmed path up to node's stop (not run). */
static uint64_t path_insns(const struct plan *p, int node)
{
	int path[MAX_NODES], n = path_of(p, node, path), i, j;
	uint64_t insns = 0;

	for (i = 0; i < n; i++)
		for (j = 0; j < p->n[path[i]].nr_seg; j++)
			insns += (uint64_t)p->n[path[i]].seg[j].ctl->nr_uops + 1;
	return insns - 1;
}

/* One round: plan from the thread's stop, let it run to a leaf (or step
 * it), and confirm the branches it took. */
static enum round_result round_of(struct follow *f)
{
	struct swb_tracer *t = f->t;
	struct swb_window *w = f->w;
	uint64_t leaf_addr[MAX_DR], round_ip = f->ip;
	int leaf_node[MAX_DR], nleaves = 0, i, rc, budget;
	bool seeking = !f->tg && w->nr >= f->depth, ambiguous;
	struct swb_mem *mem = swb_space_mem(f->sp);
	enum stop_kind kind;
	enum round_result r;
	struct swb_entry e;
	struct plan p;

	if (reached(f))
		return R_DONE;
	if (f->tg && w->taken > f->tg->taken)
		return R_RESTART;
	if (!f->ran && swb_blocks_sigtrap(f->tid)) {
		t->sigtrap_blocked++;
		return R_SKIP;
	}
	if (!f->ran && t->before_follow)
		t->before_follow(f->tid, t->arg);
	f->ran = true;
	if (f->int3 && !f->held && !swb_mem_single_thread(mem) && !swb_mem_shared(mem)) {
		int rc_hold = hold_others(t, f->tid, &f->hd);

		if (rc_hold < 0)
			return R_FAILED;
		f->held = rc_hold == 0;
		t->held_windows += f->held;
		if (f->held)
			swb_mem_others_held(mem);
	}
	if (f->int3 && (t->spawned || swb_mem_shared(mem) || (!f->held && !swb_mem_single_thread(mem))))
		return collect_by_steps(f);
	if (f->int3 && (rc = jump_here(f->tid, f->sp, &f->regs, &e)) >= 0) {
		if (rc == 1)
			slide(w, f->depth, &e);
		f->ip = f->regs.rip;
		return R_MORE;
	}
	if (!f->pages_current)
		swb_mem_ran(mem);
	f->pages_current = false;
	p.o = f->o;
	p.taken0 = w->taken;
	/* Without seek the window ends right after its last branch; with seek
	 * it slides anyway, so plans need not stop there. A target is reached
	 * after its branches, on the straight run that follows them. */
	budget = f->tg ? (int)(f->tg->taken - w->taken) + 1 : t->seek ? f->depth : f->depth - w->nr;
	/* a tree's other leaves could lie past a target: only the root then */
	plan_round(&p, f->sp, f->tid, &f->regs, budget, f->tg ? 1 : f->max_leaves, !f->int3);
	if (f->tg)
		end_at(&p, f->tg->ip, f->ip, budget - 1, &f->regs, mem);
	else if (t->seek)
		end_at(&p, f->p0, f->ip, f->depth - w->nr, &f->regs, mem);
	for (i = 0; i < p.nr; i++)
		if (p.n[i].leaf) {
			leaf_node[nleaves] = i;
			leaf_addr[nleaves++] = p.n[i].stop->addr;
		}
	if (p.nr == 1 && p.n[0].nr_seg == 1 && leaf_addr[0] == f->ip) {
		/* The planned stop is here, not run yet: step it. */
		if (!f->int3 && clear_ip(f->tid, &f->d, f->ip) < 0)
			return R_FAILED;
		if ((r = step_result(t, step_window(t, f->sp, f->tid, w, f->depth, &f->ip))) != R_MORE)
			return r;
		return get_regs(f->tid, &f->regs) < 0 ? R_FAILED : R_MORE;
	}
	if ((f->int3 ? int3_arm(f->tid, &f->b, leaf_addr, nleaves) : arm(f->tid, &f->d, &p, leaf_addr, nleaves)) < 0)
		return R_FAILED;
	t->stops++;
	rc = resume_wait(t, f->tid, PTRACE_CONT, 0, &w->status, &kind, ROUND_LIMIT_NS);
	int3_disarm(&f->b);
	if (rc < 0)
		return R_FAILED;
	if (kind == STOP_END)
		return R_EVENT;
	if (get_regs(f->tid, &f->regs) < 0)
		return R_FAILED;
	if (kind == STOP_INT3)
		kind = f->int3 && int3_ours(f->tid, &f->b, &f->regs) ? STOP_TRAP : STOP_SIGNAL;
	f->ip = f->regs.rip;
	if (kind == STOP_TRAP) {
		for (i = 0; i < nleaves && leaf_addr[i] != f->ip; i++)
			;
		if (i < nleaves) {
			const struct node *leaf = &p.n[leaf_node[i]];

			if (leaf->st_at_stop && !swb_emu_matches(&leaf->st, &f->regs)) {
				/* The path that ran is not the one planned: start again here. */
				oc_debug(2, "thread %d: registers at %#" PRIx64 " differ from the plan's", (int)f->tid,
					 f->ip);
				t->mismatches++;
				if (f->tg)
					return R_RESTART;
				w->nr = 0;
				w->taken = 0;
				if (++f->restarts > MAX_RESTARTS)
					return oc_err("thread %d: the planned paths keep differing from the thread's",
						      (int)f->tid), R_FAILED;
				return R_MORE;
			}
			confirm(&p, leaf_node[i], leaf->nr_pend, w, f->depth);
			t->followed_insns += path_insns(&p, leaf_node[i]);
			/* what the path stored is known: no need to read it again */
			if (leaf->st_at_stop) {
				swb_emu_commit(&leaf->st);
				f->pages_current = true;
			}
			return R_MORE;
		}
	}
	/* A signal for the program (or a trap that is not ours): what ran
	 * before it is confirmed, then a step delivers it. When the planned
	 * path cannot tell what ran, a full window ends where this round
	 * began; a partial one starts again, a few times at most. */
	ambiguous = !confirm_partial(&p, f->ip, w, f->depth);
	if (ambiguous) {
		t->restarts++;
		if (!seeking && !f->tg) {
			w->nr = 0;
			w->taken = 0;
		}
	}
	if (!f->int3 && clear_ip(f->tid, &f->d, f->ip) < 0)
		return R_FAILED;
	rc = step(t, f->sp, f->tid, kind == STOP_SIGNAL ? WSTOPSIG(w->status) : 0, &e, &w->status, &f->ip, false);
	if ((r = step_result(t, rc)) != R_MORE)
		return r;
	if (get_regs(f->tid, &f->regs) < 0)
		return R_FAILED;
	if (ambiguous && seeking) {
		f->ip = round_ip;
		return R_DONE;
	}
	if (ambiguous && f->tg)
		return R_RESTART;
	if (ambiguous && ++f->restarts > MAX_RESTARTS)
		return oc_err("thread %d: signals keep interrupting the window", (int)f->tid), R_FAILED;
	if (rc == 1)
		slide(w, f->depth, &e);
	return f->tg ? R_OFFTRACK : R_MORE;
}

/* Whether the window may be emulated again once the thread has run the
 * instruction emulation stopped at: not in code that keeps stopping it. */
static bool emulate_after(enum swb_uc_why why)
{
	return why == SWB_UC_SYSCALL || why == SWB_UC_INSN || why == SWB_UC_MEMORY || why == SWB_UC_TRAP ||
	       why == SWB_UC_ENGINE;
}

static bool same_branches(const struct swb_entry *a, const struct swb_entry *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i].from != b[i].from || a[i].to != b[i].to || a[i].type != b[i].type)
			return false;
	return true;
}

static bool not_timer_siginfo(const siginfo_t *si)
{
	return !timer_siginfo(si);
}

/* Whether a signal waits for the thread: it takes it as soon as it runs,
 * before anything emulation computed. The timer's own SIGTRAPs (queued while
 * the thread blocks SIGTRAP) do not count: the tracer takes them away. */
static bool signal_pending(pid_t tid)
{
	return find_queued(tid, not_timer_siginfo) != 0;   /* unreadable: assume one */
}

/* Emulate the window on from the thread's stop. Done: the window is
 * complete and the thread stays where it is (with finish, it is followed to
 * the window's end). Otherwise the thread is run to where emulation
 * stopped, the emulated branches guiding the plans (with verify, not), and
 * *again says whether emulation may go on after the next round. A part
 * followed without them is compared with the emulated one (diverged), whose
 * branches then go into the window: the caller can check them against a
 * full trace. */
static enum round_result emulated_part(struct follow *f, struct swb_uc *u, bool *again)
{
	struct swb_tracer *t = f->t;
	struct swb_window *w = f->w, part = { .e = t->part };
	struct swb_uc_goal g = { f->depth, t->seek, f->p0, w->taken, t->no_libunicorn };
	struct swb_uc_out o = { .e = t->emulated, .cap = t->cap };
	const struct swb_entry *src;
	struct target tg;
	struct oracle orc;
	enum round_result r;
	int depth = f->depth, i, n;
	bool alone;

	*again = false;
	swb_uc_run(u, f->tid, &f->regs, &g, &o);
	t->emulated_insns += o.insns;
	t->interpreted_insns += o.interpreted;
	if (signal_pending(f->tid)) {
		/* the next round delivers it; emulation may go on from the handler */
		t->fallbacks[SWB_UC_SIGNAL]++;
		*again = true;
		return R_MORE;
	}
	if (o.why == SWB_UC_DONE && !t->finish && !t->verify) {
		for (i = 0; i < o.nr; i++)
			slide(w, depth, &o.e[i]);
		f->ip = o.ip;
		return R_DONE;
	}
	t->fallbacks[o.why] += o.why != SWB_UC_DONE;
	if (o.why != SWB_UC_DONE)
		oc_debug(2, "thread %d: emulation stopped at %#" PRIx64 " (%s) after %d branches", (int)f->tid, o.ip,
			 swb_uc_why_name(o.why), o.nr);
	tg = (struct target){ (uint64_t)o.nr, o.ip };
	orc = (struct oracle){ o.e, o.nr, 0, o.ip };
	alone = t->verify || o.why == SWB_UC_DONE;
	f->w = &part;
	f->tg = &tg;
	f->o = alone ? NULL : &orc;
	f->depth = t->cap;
	do
		r = round_of(f);
	while (r == R_MORE);
	f->w = w;
	f->tg = NULL;
	f->o = NULL;
	f->depth = depth;
	w->status = part.status;
	if (alone && r != R_SKIP && (r != R_DONE || part.nr != o.nr || !same_branches(part.e, o.e, o.nr))) {
		t->diverged++;
		oc_debug(1, "thread %d: emulated %d branches to %#" PRIx64 " (%s), followed %d to %#" PRIx64,
			 (int)f->tid, o.nr, o.ip, swb_uc_why_name(o.why), part.nr, f->ip);
		for (i = 0; oc_verbose >= 3 && (i < o.nr || i < part.nr); i++)
			oc_debug(3, "  %2d: emulated %#" PRIx64 " -> %#" PRIx64 ", followed %#" PRIx64 " -> %#" PRIx64, i,
				 i < o.nr ? o.e[i].from : 0, i < o.nr ? o.e[i].to : 0, i < part.nr ? part.e[i].from : 0,
				 i < part.nr ? part.e[i].to : 0);
	}
	if (r != R_DONE && r != R_OFFTRACK)
		return r;
	src = alone && r == R_DONE ? o.e : part.e;
	n = alone && r == R_DONE ? o.nr : part.nr;
	for (i = 0; i < n; i++)
		slide(w, depth, &src[i]);
	if (r == R_OFFTRACK) {
		*again = true;
		return R_MORE;
	}
	if (o.why == SWB_UC_DONE)
		return R_DONE;
	*again = emulate_after(o.why);
	return R_MORE;
}

bool swb_emulation_wanted(void)
{
	return !env_off("OCREC_SAMPLER_EMULATION");
}

void swb_tracer_free(struct swb_tracer *t)
{
	free(t->emulated);
	free(t->part);
	t->emulated = t->part = NULL;
	t->cap = 0;
}

enum swb_result swb_collect(struct swb_tracer *t, struct swb_space *sp, pid_t tid, int depth,
			    struct swb_window *w)
{
	struct follow f = { .t = t, .sp = sp, .tid = tid, .depth = depth, .w = w, .pages_current = true,
			    .b = { .mem = -1 } };
	struct swb_uc *u = NULL;
	bool emulate_now = false, again = false;

	swb_space_settle(sp);
	w->nr = 0;
	w->taken = 0;
	t->windows++;
	f.max_leaves = t->max_leaves > 0 && t->max_leaves <= MAX_DR ? t->max_leaves : MAX_DR;
	if (get_regs(tid, &f.regs) < 0)
		return SWB_FAILED;
	if (in_restarting_syscall(&f.regs)) {
		t->blocked++;
		return SWB_BLOCKED;
	}
	f.ip = f.p0 = f.regs.rip;
	swb_mem_begin(swb_space_mem(sp), tid);
	if (!t->bp)
		t->bp = swb_breakpoints();
	f.int3 = t->bp == SWB_BP_INT3;
	t->spawned = false;
	if (!t->no_emulation && (u = swb_space_uc(sp))) {
		int cap = depth + depth / 4 + 1;

		if (t->cap < cap) {
			t->emulated = xrealloc(t->emulated, (size_t)cap * sizeof(*t->emulated));
			t->part = xrealloc(t->part, (size_t)cap * sizeof(*t->part));
			t->cap = cap;
		}
		emulate_now = true;
		t->emulating = true;
	}
	for (;;) {
		enum round_result r;

		if (emulate_now && !reached(&f)) {
			r = emulated_part(&f, u, &again);
			emulate_now = false;
		} else {
			r = round_of(&f);
			emulate_now = r == R_MORE && again;
		}
		if (r == R_DONE)
			break;
		if (r == R_EVENT)
			goto event;
		if (r == R_FAILED)
			goto failed;
		if (r == R_SKIP)
			goto skipped;
		if (r == R_RESTART) {
			w->nr = 0;
			w->taken = 0;
			if (++f.restarts > MAX_RESTARTS) {
				oc_err("thread %d: the emulated paths keep differing from the thread's", (int)tid);
				goto failed;
			}
			emulate_now = u != NULL;
		}
	}
	end_window(t, &f.b, &f.hd);
	if (disarm(tid, &f.d) < 0)
		return SWB_FAILED;
	w->ip = f.ip;
	t->seek_hits += t->seek && f.ip == f.p0;
	return SWB_DONE;
skipped:
	end_window(t, &f.b, &f.hd);
	return disarm(tid, &f.d) < 0 ? SWB_FAILED : SWB_SKIPPED;
event:
	/* A group-stopped thread runs on later: it must not keep breakpoints
	 * (after exit or exec there is nothing to clear). */
	end_window(t, &f.b, &f.hd);
	disarm(tid, &f.d);
	return SWB_EVENT;
failed:
	end_window(t, &f.b, &f.hd);
	disarm(tid, &f.d);
	return SWB_FAILED;
}

int swb_run_to(struct swb_tracer *t, pid_t tid, uint64_t addr, int *status)
{
	struct int3s b = { .mem = -1 };
	struct drs d = { .dr7 = 0 };
	struct user_regs_struct regs;
	enum stop_kind kind = STOP_END;
	int rc;

	if (!t->bp)
		t->bp = swb_breakpoints();
	if (t->bp == SWB_BP_INT3)
		rc = int3_arm(tid, &b, &addr, 1);
	else if ((rc = set_dr(tid, 0, addr)) == 0 && (rc = set_dr(tid, 7, 1)) == 0)
		d.dr7 = 1;
	if (rc == 0)
		rc = resume_wait(t, tid, PTRACE_CONT, 0, status, &kind, 0);
	int3_disarm(&b);
	if (rc == 0 && kind == STOP_INT3 && get_regs(tid, &regs) == 0 && int3_ours(tid, &b, &regs))
		kind = STOP_TRAP;
	int3_close(&b);
	if (disarm(tid, &d) < 0)
		rc = -1;
	if (rc == 0 && kind != STOP_TRAP)
		rc = oc_err("thread %d did not reach %#" PRIx64, (int)tid, addr);
	return rc;
}
