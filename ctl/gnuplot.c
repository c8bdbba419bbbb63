/*
 * Running gnuplot (see gnuplot.h).  The script goes to gnuplot's
 * standard input and the image comes out of its standard output, so no
 * path reaches the script: a file name can hold anything.  -d: no
 * ~/.gnuplot of the user changes the figure.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "gnuplot.h"

/* The child's status when it cannot exec the program. */
#define GNUPLOT_NOEXEC	127

const char *
gnuplot_program(void)
{
	const char *p = getenv("STRESSCTL_GNUPLOT");

	return p != NULL && *p != '\0' ? p : "gnuplot";
}

char *
gnuplot_quote(const char *s)
{
	size_t n = strlen(s), k = 0;
	char *q = fmt_nomem(malloc(4 * n + 3));

	q[k++] = '"';
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(" .,:;/()+-=_#", *p))
			q[k++] = (char)*p;
		else
			k += (size_t)sprintf(q + k, "\\%03o", *p);
	}
	q[k++] = '"';
	q[k] = '\0';
	return q;
}

/* Write all of buf to fd; a gnuplot that died early gives EPIPE (SIGPIPE
 * is ignored around the call), which its exit status then explains. */
static void
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		buf += w;
		len -= (size_t)w;
	}
}

/* gnuplot's messages go to errf, shown only when it fails: its warnings
 * (a key that hardly fits) are not the user's business. */
static pid_t
spawn(int in, int out, int errf)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (dup2(in, STDIN_FILENO) == -1 || dup2(out, STDOUT_FILENO) == -1 ||
	    (errf != -1 && dup2(errf, STDERR_FILENO) == -1))
		_exit(GNUPLOT_NOEXEC);
	execlp(gnuplot_program(), gnuplot_program(), "-d", (char *)NULL);
	fprintf(stderr, "stressctl: cannot run %s: %s\n", gnuplot_program(),
	    strerror(errno));
	_exit(GNUPLOT_NOEXEC);
}

/* The last line gnuplot wrote to errf, control characters as '?'. */
static char *
last_message(FILE *errf)
{
	char line[512] = "", last[512] = "";

	if (errf == NULL)
		return fmt_xstrdup("");
	rewind(errf);
	while (fgets(line, sizeof(line), errf) != NULL)
		if (line[strspn(line, " \t\n")] != '\0')
			snprintf(last, sizeof(last), "%s", line);
	last[strcspn(last, "\n")] = '\0';
	for (char *c = last; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return fmt_xprintf("%s%s", *last ? ": " : "", last + strspn(last,
	    " \t"));
}

/* The exit status as a message, or NULL for a PNG written. */
static char *
check(int status, const char *tmp, FILE *errf)
{
	unsigned char magic[8];
	int fd;
	ssize_t n = 0;
	char *msg, *ret;

	if (WIFSIGNALED(status))
		return fmt_xprintf("%s was killed by signal %d",
		    gnuplot_program(), WTERMSIG(status));
	if (WEXITSTATUS(status) == GNUPLOT_NOEXEC)
		return fmt_xprintf("cannot run %s (capacity graphs need "
		    "gnuplot: apt-get install gnuplot-nox)", gnuplot_program());
	if (WEXITSTATUS(status) != 0) {
		msg = last_message(errf);
		ret = fmt_xprintf("%s exited with status %d%s",
		    gnuplot_program(), WEXITSTATUS(status), msg);
		free(msg);
		return ret;
	}
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) != -1) {
		n = read(fd, magic, sizeof(magic));
		close(fd);
	}
	if (n != (ssize_t)sizeof(magic) || memcmp(magic, "\x89PNG", 4) != 0)
		return fmt_xprintf("%s wrote no PNG", gnuplot_program());
	return NULL;
}

int
gnuplot_render(const char *script, size_t len, const char *path, char **err)
{
	char *tmp = fmt_xprintf("%s.tmp%ld", path, (long)getpid());
	int p[2] = { -1, -1 }, out, status = 0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	FILE *errf = tmpfile();
	pid_t pid;

	*err = NULL;
	/* O_EXCL, O_NOFOLLOW: no link planted at the name in a shared
	 * directory redirects the image. */
	if ((out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666)) == -1) {
		*err = fmt_xprintf("cannot write %s: %s", path,
		    strerror(errno));
		goto fail;
	}
	if (pipe2(p, O_CLOEXEC) == -1 || (pid = spawn(p[0], out,
	    errf != NULL ? fileno(errf) : -1)) == -1) {
		*err = fmt_xprintf("cannot start %s: %s", gnuplot_program(),
		    strerror(errno));
		goto fail;
	}
	close(p[0]);
	p[0] = -1;
	sigaction(SIGPIPE, &ign, &old);
	write_all(p[1], script, len);
	close(p[1]);
	p[1] = -1;
	sigaction(SIGPIPE, &old, NULL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (close(out) == -1 && *err == NULL)
		*err = fmt_xprintf("cannot write %s: %s", path,
		    strerror(errno));
	out = -1;
	if (*err == NULL)
		*err = check(status, tmp, errf);
	if (*err == NULL && rename(tmp, path) == -1)
		*err = fmt_xprintf("cannot write %s: %s", path,
		    strerror(errno));
fail:
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	if (out != -1)
		close(out);
	if (errf != NULL)
		fclose(errf);
	if (*err != NULL)
		unlink(tmp);
	free(tmp);
	return *err != NULL ? -1 : 0;
}
