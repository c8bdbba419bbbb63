/*
 * fake_rrdcached SOCKET MODE: an rrdcached on a Unix socket that answers
 * FORGET, CREATE (with rrdtool), FLUSH, FLUSHALL and UPDATE as rrdcached
 * does and STATS with what it was handed, except for the replies MODE
 * dribbles:
 *   stats   a connection's STATS after its first announce 1000000 lines
 *           and 10 lines by turns, and send one every 0.5 s;
 *   update  every UPDATE reply sends one byte every 0.5 s, never a newline.
 * A process per connection; the counts (values, dribbled STATS) are shared through an anonymous
 * mapping.  For tests/integration/rrdcached_dribble.sh.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned long *values;

static int
say(int fd, const char *s)
{
	return send(fd, s, strlen(s), MSG_NOSIGNAL) == (ssize_t)strlen(s) ?
	    0 : -1;
}

static void
dribble(int fd, const char *s)
{
	for (;;) {
		if (say(fd, s) == -1)
			_exit(0);
		usleep(500000);
	}
}

static void
answer(int fd, const char *line, const char *mode, int *nstats)
{
	char buf[17000];

	if (strncmp(line, "STATS", 5) == 0) {
		if ((*nstats)++ > 0 && strcmp(mode, "stats") == 0) {
			say(fd, __atomic_add_fetch(values + 1, 1,
			    __ATOMIC_SEQ_CST) % 2 ? "1000000 Statistics follow\n" :
			    "10 Statistics follow\n");
			dribble(fd, "QueueLength: 0\n");
		}
		snprintf(buf, sizeof(buf), "3 Statistics follow\n"
		    "QueueLength: 0\nUpdatesReceived: %lu\n"
		    "DataSetsWritten: %lu\n", *values, *values);
		say(fd, buf);
	} else if (strncmp(line, "UPDATE ", 7) == 0) {
		unsigned long n = 0;

		for (const char *p = line + 7; *p != '\0'; p++)
			n += *p == ' ';
		if (strcmp(mode, "update") == 0)
			dribble(fd, "0");
		__atomic_add_fetch(values, n, __ATOMIC_SEQ_CST);
		snprintf(buf, sizeof(buf), "0 errors, enqueued %lu value(s).\n",
		    n);
		say(fd, buf);
	} else if (strncmp(line, "CREATE ", 7) == 0) {
		/* stressd checks the file it asked for; the test's paths
		 * have no shell characters */
		snprintf(buf, sizeof(buf), "rrdtool create %s", line + 7);
		say(fd, system(buf) == 0 ? "0 created\n" : "-1 create failed\n");
	} else if (strncmp(line, "INFO ", 5) == 0) {
		say(fd, "-1 No such file\n");
	} else
		say(fd, "0 ok\n");
}

static void
serve(int fd, const char *mode)
{
	char line[16384];
	size_t n = 0;
	int nstats = 0;
	char ch;

	while (recv(fd, &ch, 1, 0) == 1) {
		if (ch != '\n') {
			if (n + 1 < sizeof(line))
				line[n++] = ch;
			continue;
		}
		line[n] = '\0';
		n = 0;
		answer(fd, line, mode, &nstats);
	}
	_exit(0);
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sun;
	int lfd, fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "usage: fake_rrdcached SOCKET stats|update\n");
		return 2;
	}
	values = mmap(NULL, 2 * sizeof(*values), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (values == MAP_FAILED)
		return 1;
	signal(SIGCHLD, SIG_IGN);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, argv[1], strlen(argv[1]));
	unlink(argv[1]);
	if ((lfd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(lfd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    listen(lfd, 64) == -1) {
		perror("fake_rrdcached");
		return 1;
	}
	for (;;) {
		if ((fd = accept(lfd, NULL, NULL)) == -1)
			continue;
		if (fork() == 0) {
			close(lfd);
			signal(SIGCHLD, SIG_DFL);	/* for system() */
			serve(fd, argv[2]);
		}
		close(fd);
	}
}
