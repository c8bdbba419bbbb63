/*
 * ptyrun CMD [ARG...]: run CMD with stdout and stderr on a fresh
 * pseudo-terminal (24x80, its controlling terminal) and copy what it
 * writes there to our stdout; exit with CMD's status.
 *
 * script(1) does the same but needs the host's /dev/ptmx: CI roots and
 * containers may have none that works (a bind-mounted /dev, a devpts
 * mounted ptmxmode=000).  Then, as root, this mounts a devpts instance
 * of its own in a private mount namespace and takes the pty from there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

/* The host's pty pair, or -1. */
static int host_pty(int *slave)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);

	if (m < 0)
		return -1;
	if (grantpt(m) == 0 && unlockpt(m) == 0) {
		*slave = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY);
		if (*slave < 0 && ptsname(m) != NULL)
			*slave = open(ptsname(m), O_RDWR | O_NOCTTY);
		if (*slave >= 0)
			return m;
	}
	close(m);
	return -1;
}

/* A pty pair from a devpts instance of our own, or -1. */
static int own_pty(int *slave)
{
	char dir[] = "/tmp/ptyrun.XXXXXX", path[64];
	int m = -1;

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mkdtemp(dir) == NULL) {
		perror("ptyrun: private mount namespace");
		return -1;
	}
	if (mount("devpts", dir, "devpts", 0,
	    "newinstance,ptmxmode=0666,mode=0620") < 0) {
		perror("ptyrun: mount devpts");
		goto out;
	}
	snprintf(path, sizeof(path), "%s/ptmx", dir);
	m = open(path, O_RDWR | O_NOCTTY);
	if (m >= 0 && (unlockpt(m) < 0 ||
	    (*slave = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY)) < 0)) {
		close(m);
		m = -1;
	}
	if (m < 0)
		perror("ptyrun: own devpts");
	umount2(dir, MNT_DETACH);
out:
	rmdir(dir);
	return m;
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	int m, s = -1, status;
	char buf[4096];
	ssize_t n;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: ptyrun CMD [ARG...]\n");
		return 2;
	}
	if ((m = host_pty(&s)) < 0 && (m = own_pty(&s)) < 0)
		return 2;
	ioctl(s, TIOCSWINSZ, &ws);
	fflush(stdout);
	if ((pid = fork()) < 0) {
		perror("ptyrun: fork");
		return 2;
	}
	if (pid == 0) {
		close(m);
		if (setsid() < 0 || ioctl(s, TIOCSCTTY, 0) < 0 ||
		    dup2(s, STDOUT_FILENO) < 0 || dup2(s, STDERR_FILENO) < 0) {
			perror("ptyrun: child terminal");
			_exit(2);
		}
		close(s);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	close(s);
	/* Until every holder of the slave is gone (then read fails, EIO). */
	while ((n = read(m, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			break;
	}
	fflush(stdout);
	if (waitpid(pid, &status, 0) < 0)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
