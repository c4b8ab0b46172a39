/* workload.c — fork the program to record, held before exec until its events
 * are open (they count from exec on: enable_on_exec), like perf's
 * evlist__prepare_workload. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/capture.h"
#include "util/util.h"

int workload_prepare(struct workload *w, char *const argv[])
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return oc_err_errno("pipe");
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(go[0]);
		close(go[1]);
		return oc_err_errno("pipe");
	}
	pid = fork();
	if (pid < 0) {
		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return oc_err_errno("fork");
	}
	if (pid == 0) {
		char c;
		int e;
		sigset_t none;

		/* the workload starts with no signal blocked, as from a shell */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(go[1]);
		close(err[0]);
		/* EOF instead of the go byte: the recorder gave up. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	close(go[0]);
	close(err[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int workload_start(struct workload *w, const char *prog, int *exec_errno)
{
	int e = 0;
	ssize_t n;

	*exec_errno = 0;
	n = write(w->go_fd, "g", 1);
	close(w->go_fd);
	w->go_fd = -1;
	if (n != 1) {
		close(w->err_fd);
		w->err_fd = -1;
		return oc_err_errno("cannot start %s", prog);
	}
	/* The pipe closes on a successful exec (CLOEXEC); an errno arrives otherwise. */
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		*exec_errno = e;
		if (e == ENOENT)
			return oc_err("%s: command not found", prog);
		return oc_err("%s: cannot run: %s", prog, strerror(e));
	}
	return 0;
}

void workload_abort(struct workload *w)
{
	if (w->go_fd >= 0)
		close(w->go_fd);   /* the child reads EOF and exits */
	if (w->err_fd >= 0)
		close(w->err_fd);
	w->go_fd = w->err_fd = -1;
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		w->pid = 0;
	}
}
