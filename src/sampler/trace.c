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
 */
#define _GNU_SOURCE
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "sampler/emu.h"
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

struct plan {
	struct node n[MAX_NODES];
	int nr;
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

static unsigned perf_type(enum swb_kind k)
{
	switch (k) {
	case SWB_JCC: return PERF_BR_COND;
	case SWB_JMP: return PERF_BR_UNCOND;
	case SWB_JMP_IND: return PERF_BR_IND;
	case SWB_CALL: return PERF_BR_CALL;
	case SWB_CALL_IND: return PERF_BR_IND_CALL;
	case SWB_RET: return PERF_BR_RET;
	case SWB_SYSCALL: return PERF_BR_SYSCALL;
	default: return PERF_BR_UNKNOWN;
	}
}

static int jcc_taken(const struct swb_ctl *c, const struct user_regs_struct *r)
{
	bool zf = r->eflags & 0x40;
	int taken = swb_cond_taken(c->insn_id, r->eflags);

	if (taken >= 0)
		return taken;
	switch (c->insn_id) {
	case X86_INS_JRCXZ: return r->rcx == 0;
	case X86_INS_JECXZ: return (uint32_t)r->rcx == 0;
	case X86_INS_JCXZ: return (uint16_t)r->rcx == 0;
	case X86_INS_LOOP: return r->rcx - 1 != 0;
	case X86_INS_LOOPE: return r->rcx - 1 != 0 && zf;
	case X86_INS_LOOPNE: return r->rcx - 1 != 0 && !zf;
	default: return -1;
	}
}

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
		int t = jcc_taken(c, r);

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

/* Jumps, calls and returns are taken branches even to the next instruction. */
static bool always_taken(const struct swb_ctl *c)
{
	return c->kind == SWB_JMP || c->kind == SWB_CALL || c->kind == SWB_JMP_IND ||
	       c->kind == SWB_CALL_IND || c->kind == SWB_RET;
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

/* Where a return or an indirect branch through memory goes, from the
 * memory the planner knows. */
static bool target_in_memory(struct node *n, const struct swb_ctl *c, uint64_t *to)
{
	uint64_t a;

	if (!swb_emu_ctl_addr(&n->st, c, &a) || !swb_emu_load(&n->st, a, 8, to))
		return false;
	if (c->kind == SWB_RET) {
		/* the return ends the newest call followed, if it is where the stack is */
		if (n->nr_sh && n->sh[n->nr_sh - 1].depth == 0)
			n->nr_sh--;
		else
			n->nr_sh = 0;
	}
	return true;
}

/* Extend node n from addr along direct jumps and calls, returns from calls
 * it followed, and conditional and indirect branches that the registers and
 * memory computed on the way decide (emu.c), while the budget (taken
 * branches still wanted) leaves room after each. */
static void follow(struct swb_space *sp, pid_t tid, struct node *n, uint64_t addr, int budget)
{
	for (;;) {
		const struct swb_ctl *c = swb_decode_run(sp, tid, addr);
		uint64_t to;
		int i, t;

		add_seg(n, addr, c);
		shadow_run(n, c);
		for (i = 0; i < c->nr_uops; i++)
			swb_emu_apply(&n->st, &c->uops[i]);
		if (n->total + 1 >= budget || n->nr_seg == MAX_SEGS)
			return;
		if (c->kind == SWB_JMP || c->kind == SWB_CALL) {
			add_pend(n, c->addr, c->target, perf_type(c->kind));
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
			add_pend(n, c->addr, to, perf_type(c->kind));
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
	follow(sp, tid, c, addr, budget);
	c->expandable = c->stop->kind == SWB_JCC && c->total + 1 < budget;
}

static void plan_round(struct plan *p, struct swb_space *sp, pid_t tid,
		      const struct user_regs_struct *regs, int budget, int max_leaves)
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
	p->rf_ip = regs->eflags & EFLAGS_RF ? ip : UINT64_MAX;
	swb_emu_from_regs(&r->st, regs, swb_space_mem(sp));
	c = swb_decode_run(sp, tid, ip);
	if (c->addr != ip) {
		/* Straight-line code first: the registers may decide what ends it. */
		follow(sp, tid, r, ip, budget);
	} else {
		taken = resolve(tid, c, regs, &to);
		if (taken < 0 || (taken && budget == 1)) {
			/* Unknown, or the window's last branch: the caller single-steps it. */
			add_seg(r, ip, c);
			return;
		}
		add_seg(r, ip, c);
		if (taken)
			add_pend(r, ip, to, perf_type(c->kind));
		if (c->kind == SWB_CALL || c->kind == SWB_CALL_IND)
			shadow_call(r, c->next);
		swb_emu_ctl(&r->st, c);
		follow(sp, tid, r, taken ? to : c->next, budget);
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

/* Seeking the window's starting point p0: when the root path passes it with
 * the window full (need more branches before it), the root ends there
 * instead (that pass; the tree is dropped). */
static void cut_at(struct plan *p, uint64_t p0, uint64_t ip, int need)
{
	struct node *r = &p->n[0];
	int j;

	for (j = 0; j < r->nr_seg; j++) {
		struct seg *sg = &r->seg[j];

		if (p0 < sg->start || p0 > sg->end || (j == 0 && p0 == ip) || sg->pend_before < need)
			continue;
		p->seek_stop = (struct swb_ctl){ .addr = p0, .next = p0, .kind = SWB_OTHER };
		sg->end = p0;
		sg->ctl = &p->seek_stop;
		r->nr_seg = j + 1;
		r->nr_pend = r->total = sg->pend_before;
		r->stop = &p->seek_stop;
		r->leaf = true;
		r->st_at_stop = false;
		p->nr = 1;
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

/* Wait for tid, handing other threads' reports to the caller. */
static int wait_for(struct swb_tracer *t, pid_t tid, int *status)
{
	for (;;) {
		pid_t p = waitpid(-1, status, __WALL);

		if (p < 0) {
			if (errno == EINTR)
				continue;
			return oc_err_errno("waitpid");
		}
		if (p == tid)
			return 0;
		if (t->other)
			t->other(p, *status, t->arg);
	}
}

/* STOP_HANDLER: a step delivered a signal and stopped at its handler's entry. */
enum stop_kind { STOP_TRAP, STOP_HANDLER, STOP_SIGNAL, STOP_END };

/* Resume tid with request (PTRACE_CONT or PTRACE_SINGLESTEP) and classify the
 * next stop: our trap, a signal for the program, or something that ends the
 * window (exit, exec, group-stop). Fork and clone reports are passed over. */
static int resume_wait(struct swb_tracer *t, pid_t tid, int request, int sig, int *status,
		       enum stop_kind *kind)
{
	for (;;) {
		siginfo_t si;
		int event;

		if (ptrace(request, tid, NULL, (void *)(uintptr_t)sig) < 0)
			return oc_err_errno("thread %d: cannot resume", (int)tid);
		sig = 0;
		if (wait_for(t, tid, status) < 0)
			return -1;
		if (!WIFSTOPPED(*status)) {
			*kind = STOP_END;
			return 0;
		}
		event = *status >> 16;
		if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_FORK ||
		    event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_VFORK_DONE)
			continue;
		if (event) {
			*kind = STOP_END;
			return 0;
		}
		if (WSTOPSIG(*status) == SIGTRAP && ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) == 0) {
			/* Debug registers and steps report TRAP_*; stepping into a
			 * signal handler is reported by ptrace_notify(SIGTRAP). */
			if (si.si_code == TRAP_HWBKPT || si.si_code == TRAP_TRACE || si.si_code == TRAP_BRKPT) {
				*kind = STOP_TRAP;
				return 0;
			}
			if (si.si_code == SIGTRAP) {
				*kind = STOP_HANDLER;
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

/* Single-step tid (delivering sig, if any) and observe the taken branch.
 * 1 taken (*e), 0 not, 2 window over (*status), -1 error. */
static int step(struct swb_tracer *t, struct swb_space *sp, pid_t tid, int sig, struct swb_entry *e,
		int *status, uint64_t *ip_after)
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
	jcc_to_next = c->addr == ip && c->kind == SWB_JCC && c->target == c->next && jcc_taken(c, &r) == 1;
	for (;;) {
		t->steps++;
		if (resume_wait(t, tid, PTRACE_SINGLESTEP, sig, status, &kind) < 0)
			return -1;
		if (kind == STOP_END)
			return 2;
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
				      jcc_taken(c, &r) == 1;
		}
	}
	if (get_regs(tid, &r) < 0)
		return -1;
	*ip_after = r.rip;
	if (kind == STOP_HANDLER) {
		*e = (struct swb_entry){ ip, r.rip, PERF_BR_IRQ };
		return 1;
	}
	if (c->addr == ip && (r.rip != c->next || always_taken(c) || jcc_to_next)) {
		*e = (struct swb_entry){ ip, r.rip, perf_type(c->kind) };
		return 1;
	}
	return 0;
}

int swb_step(struct swb_tracer *t, struct swb_space *sp, pid_t tid, struct swb_entry *e, int *status)
{
	uint64_t ip;
	int rc = step(t, sp, tid, 0, e, status, &ip);

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

enum swb_result swb_collect(struct swb_tracer *t, struct swb_space *sp, pid_t tid, int depth,
			    struct swb_window *w)
{
	struct drs d = { .dr7 = 0 };
	struct plan p;
	struct user_regs_struct regs;
	int max_leaves = t->max_leaves > 0 && t->max_leaves <= MAX_DR ? t->max_leaves : MAX_DR;
	uint64_t ip, p0;
	int restarts = 0;
	bool pages_current = true;  /* the memory view's copies are the thread's memory */

	w->nr = 0;
	w->taken = 0;
	t->windows++;
	if (get_regs(tid, &regs) < 0)
		return SWB_FAILED;
	ip = p0 = regs.rip;
	swb_mem_begin(swb_space_mem(sp), tid);
	for (;;) {
		uint64_t leaf_addr[MAX_DR];
		int leaf_node[MAX_DR], nleaves = 0, i, rc;
		enum stop_kind kind;
		struct swb_entry e;
		bool seeking = w->nr >= depth, ambiguous;
		uint64_t round_ip = ip;

		/* Full. With seek, run on (the window slides) to where the thread
		 * was interrupted: a time-weighted sample point, like a hardware
		 * sample's, instead of always a branch target; for a quarter window
		 * more at most (a loop body is usually shorter). */
		if (seeking && (!t->seek || ip == p0 || w->taken >= (uint64_t)(depth + depth / 4))) {
			t->seek_hits += t->seek && ip == p0;
			break;
		}
		/* Without seek the window ends right after its last branch; with
		 * seek it slides anyway, so plans need not stop there. */
		if (!pages_current)
			swb_mem_ran(swb_space_mem(sp));
		pages_current = false;
		plan_round(&p, sp, tid, &regs, t->seek ? depth : depth - w->nr, max_leaves);
		if (t->seek)
			cut_at(&p, p0, ip, depth - w->nr);
		for (i = 0; i < p.nr; i++)
			if (p.n[i].leaf) {
				leaf_node[nleaves] = i;
				leaf_addr[nleaves++] = p.n[i].stop->addr;
			}
		if (p.nr == 1 && p.n[0].nr_seg == 1 && leaf_addr[0] == ip) {
			/* The planned stop is here, not run yet: step it. */
			if (clear_ip(tid, &d, ip) < 0)
				goto failed;
			rc = step(t, sp, tid, 0, &e, &w->status, &ip);
			if (rc < 0)
				goto failed;
			if (rc == 2)
				goto event;
			if (rc == 1)
				slide(w, depth, &e);
			if (get_regs(tid, &regs) < 0)
				goto failed;
			continue;
		}
		if (arm(tid, &d, &p, leaf_addr, nleaves) < 0)
			goto failed;
		t->stops++;
		if (resume_wait(t, tid, PTRACE_CONT, 0, &w->status, &kind) < 0)
			goto failed;
		if (kind == STOP_END)
			goto event;
		if (get_regs(tid, &regs) < 0)
			goto failed;
		ip = regs.rip;
		if (kind == STOP_TRAP) {
			for (i = 0; i < nleaves && leaf_addr[i] != ip; i++)
				;
			if (i < nleaves) {
				const struct node *leaf = &p.n[leaf_node[i]];

				if (leaf->st_at_stop && !swb_emu_matches(&leaf->st, &regs)) {
					/* The path that ran is not the one planned: start again here. */
					oc_debug(2, "thread %d: registers at %#" PRIx64 " differ from the plan's",
						 (int)tid, ip);
					t->mismatches++;
					w->nr = 0;
					w->taken = 0;
					if (++restarts > MAX_RESTARTS) {
						oc_err("thread %d: the planned paths keep differing from the thread's", (int)tid);
						goto failed;
					}
					continue;
				}
				confirm(&p, leaf_node[i], leaf->nr_pend, w, depth);
				/* what the path stored is known: no need to read it again */
				if (leaf->st_at_stop) {
					swb_emu_commit(&leaf->st);
					pages_current = true;
				}
				continue;
			}
		}
		/* A signal for the program (or a trap that is not ours): what ran
		 * before it is confirmed, then a step delivers it. When the planned
		 * path cannot tell what ran, a full window ends where this round
		 * began; a partial one starts again, a few times at most. */
		ambiguous = !confirm_partial(&p, ip, w, depth);
		if (ambiguous) {
			t->restarts++;
			if (!seeking) {
				w->nr = 0;
				w->taken = 0;
			}
		}
		if (clear_ip(tid, &d, ip) < 0)
			goto failed;
		rc = step(t, sp, tid, kind == STOP_SIGNAL ? WSTOPSIG(w->status) : 0, &e, &w->status, &ip);
		if (rc < 0)
			goto failed;
		if (rc == 2)
			goto event;
		if (ambiguous && seeking) {
			ip = round_ip;
			break;
		}
		if (ambiguous && ++restarts > MAX_RESTARTS) {
			oc_err("thread %d: signals keep interrupting the window", (int)tid);
			goto failed;
		}
		if (rc == 1)
			slide(w, depth, &e);
		if (get_regs(tid, &regs) < 0)
			goto failed;
	}
	if (disarm(tid, &d) < 0)
		return SWB_FAILED;
	w->ip = ip;
	return SWB_DONE;
event:
	/* A group-stopped thread runs on later: it must not keep breakpoints
	 * (after exit or exec there is nothing to clear). */
	disarm(tid, &d);
	return SWB_EVENT;
failed:
	disarm(tid, &d);
	return SWB_FAILED;
}
