/* bench/sampler-floor.c — the least a ptrace-based branch sampler can cost:
 * one stop per timer sample and nothing else (no window, no emulation, no
 * file). bench/sampler.sh runs it beside `ocrec record -b`, so that the
 * machine's own price of a stop (the timer's sample, the tracer's wake-up,
 * PTRACE_INTERRUPT, the stop, PTRACE_GETREGS, the resume) is seen apart from
 * ocrec's work. docs/sampler.md, "Costs".
 *
 *   usage: sampler-floor [-F HZ] [--two-cpus] [--signal] PROG [ARGS...]
 *
 * The program's threads are sampled with cpu-clock at HZ (default 1000) and
 * each sample interrupts the thread it names, reads its registers and
 * resumes it. With --signal the sample stops the thread itself, with a
 * SIGTRAP (perf_event_attr.sigtrap), as ocrec's signal stops do: the tracer
 * reads its registers and resumes it without the signal. The tracer and the
 * program share the CPU the tracer starts on, as `ocrec record` keeps them
 * for a lone busy thread; --two-cpus leaves both free to run anywhere.
 * Prints "floor: N samples, N stops" on stderr. Single-threaded programs
 * that exec once only (the bench's are).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define RING_PAGES 8
#ifndef TRAP_PERF
#define TRAP_PERF 6     /* include/uapi/asm-generic/siginfo.h */
#endif

static void die(const char *what)
{
	fprintf(stderr, "sampler-floor: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* samples waiting in the ring, consumed */
static unsigned long drain(struct perf_event_mmap_page *ring)
{
	uint64_t head = __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE);
	unsigned char *data = (unsigned char *)ring + ring->data_offset;
	unsigned long samples = 0;
	uint64_t tail = ring->data_tail;

	while (tail < head) {
		struct perf_event_header *h = (void *)(data + tail % ring->data_size);

		if (h->type == PERF_RECORD_SAMPLE)
			samples++;
		tail += h->size;
	}
	__atomic_store_n(&ring->data_tail, tail, __ATOMIC_RELEASE);
	return samples;
}

/* --signal: the timer (removed at exec, as the kernel wants for sigtrap)
 * is opened at the program's exec stop; each of its SIGTRAPs is a stop. */
static int signal_stops(pid_t child, unsigned long hz, int sfd)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_SOFTWARE };
	unsigned long samples = 0;
	int status, fd = -1;

	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000000ul / hz;
	attr.exclude_kernel = 1;
	attr.sigtrap = 1;
	attr.remove_on_exec = 1;
	close(sfd);
	kill(child, SIGCONT);
	for (;;) {
		struct user_regs_struct regs;
		siginfo_t si;
		int sig = 0;

		if (waitpid(child, &status, __WALL) != child)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (status >> 16 == PTRACE_EVENT_EXEC && fd < 0) {
			fd = syscall(SYS_perf_event_open, &attr, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0)
				die("perf_event_open cpu-clock with sigtrap");
		} else if (status >> 16 == 0 && WSTOPSIG(status) == SIGTRAP &&
			   ptrace(PTRACE_GETSIGINFO, child, 0, &si) == 0 && si.si_code == TRAP_PERF) {
			samples++;
			ptrace(PTRACE_GETREGS, child, 0, &regs);
		} else if (status >> 16 == 0) {
			sig = WSTOPSIG(status);   /* a signal for the program: deliver it */
		}
		if (ptrace(PTRACE_CONT, child, 0, (void *)(long)sig) && errno != ESRCH)
			die("PTRACE_CONT");
	}
	fprintf(stderr, "floor: %lu samples, %lu stops\n", samples, samples);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_SOFTWARE };
	unsigned long samples = 0, stops = 0, hz = 1000;
	int two_cpus = 0, by_signal = 0, status, fd, sfd, argi = 1;
	struct perf_event_mmap_page *ring;
	sigset_t chld;
	pid_t child;

	for (; argi < argc && argv[argi][0] == '-'; argi++) {
		if (strcmp(argv[argi], "-F") == 0 && argi + 1 < argc)
			hz = strtoul(argv[++argi], NULL, 10);
		else if (strcmp(argv[argi], "--two-cpus") == 0)
			two_cpus = 1;
		else if (strcmp(argv[argi], "--signal") == 0)
			by_signal = 1;
		else
			break;
	}
	if (argi >= argc || hz == 0) {
		fprintf(stderr, "usage: sampler-floor [-F HZ] [--two-cpus] [--signal] PROG [ARGS...]\n");
		return 2;
	}
	if (!two_cpus) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(sched_getcpu(), &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			die("sched_setaffinity");
	}
	/* the tracer sleeps until a sample or a stop: SIGCHLD on a signalfd */
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		die("signalfd");
	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		sigprocmask(SIG_UNBLOCK, &chld, NULL);
		raise(SIGSTOP);   /* until the tracer has seized it and opened the timer */
		execvp(argv[argi], argv + argi);
		fprintf(stderr, "sampler-floor: %s: %s\n", argv[argi], strerror(errno));
		_exit(127);
	}
	if (waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status))
		die("waiting for the child to stop");
	if (ptrace(PTRACE_SEIZE, child, 0, (void *)(long)(PTRACE_O_EXITKILL | (by_signal ? PTRACE_O_TRACEEXEC : 0))))
		die("PTRACE_SEIZE");
	if (by_signal)
		return signal_stops(child, hz, sfd);

	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = 1000000000ul / hz;
	attr.sample_type = PERF_SAMPLE_TID;
	attr.wakeup_events = 1;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.exclude_kernel = 1;
	fd = syscall(SYS_perf_event_open, &attr, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die("perf_event_open cpu-clock");
	ring = mmap(NULL, (RING_PAGES + 1) * sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ring == MAP_FAILED)
		die("mmap of the sample ring");
	kill(child, SIGCONT);

	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = sfd, .events = POLLIN } };
		struct signalfd_siginfo si;
		struct user_regs_struct regs;
		unsigned long n;
		int sig = 0;

		/* a stop or the end may come without a sample: look first */
		pid_t w = waitpid(child, &status, __WALL | WNOHANG);

		if (w == child) {
			if (WIFEXITED(status) || WIFSIGNALED(status))
				break;
			if (WIFSTOPPED(status) && status >> 16 == 0 && WSTOPSIG(status) != SIGTRAP)
				sig = WSTOPSIG(status);   /* a signal for the program: deliver it */
			if (ptrace(PTRACE_CONT, child, 0, (void *)(long)sig) && errno != ESRCH)
				die("PTRACE_CONT");
			continue;
		}
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			die("poll");
		while (read(sfd, &si, sizeof(si)) == sizeof(si))
			;
		n = drain(ring);
		if (!n)
			continue;
		samples += n;
		if (ptrace(PTRACE_INTERRUPT, child, 0, 0))
			continue;   /* gone: the next waitpid says so */
		if (waitpid(child, &status, __WALL) != child)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (status >> 16 != PTRACE_EVENT_STOP)
			sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
		else
			stops++;
		if (ptrace(PTRACE_GETREGS, child, 0, &regs) == 0 &&
		    ptrace(PTRACE_CONT, child, 0, (void *)(long)sig) && errno != ESRCH)
			die("PTRACE_CONT");
	}
	fprintf(stderr, "floor: %lu samples, %lu stops\n", samples, stops);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
