/*
 * fdclient [-n N] [-s SECONDS] [-u] SOCKET FILE LINE...: a control client
 * that passes descriptors, built by the tests at test time (fdpass.sh,
 * fdshare.sh).  Each LINE goes out in a sendmsg of its own, back to back
 * without waiting for replies; a LINE starting with '+' (stripped)
 * carries N descriptors (default 1) of FILE (opened read-only) as
 * SCM_RIGHTS.  -u sends the lines without their LF (an unfinished line
 * keeps its descriptors waiting in the daemon).  -s prints "held" once
 * everything is sent and keeps the connection SECONDS before going on.
 * Then it shuts its writing side and prints every reply until the daemon
 * closes.  Exit 0, or 1 on a failed call.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_FDS	16

static int
send_line(int sock, const char *line, const char *end, int fd, int nfd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
	} ctl;
	char text[65536];
	int fds[MAX_FDS];
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *cm;
	int len = snprintf(text, sizeof(text), "%s%s", line, end);

	iov.iov_base = text;
	iov.iov_len = (size_t)len;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfd > 0) {
		for (int i = 0; i < nfd; i++)
			fds[i] = fd;
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfd);
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == len ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sun;
	char buf[65536];
	const char *end = "\n";
	ssize_t n;
	int sock, fd, nfd = 1, hold = -1, opt;

	while ((opt = getopt(argc, argv, "n:s:u")) != -1) {
		switch (opt) {
		case 'n':
			nfd = atoi(optarg);
			break;
		case 's':
			hold = atoi(optarg);
			break;
		case 'u':
			end = "";
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 3 || nfd < 1 || nfd > MAX_FDS)
		goto usage;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", argv[optind]);
	if ((sock = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(sock, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    (fd = open(argv[optind + 1], O_RDONLY)) == -1) {
		perror("fdclient");
		return 1;
	}
	for (int i = optind + 2; i < argc; i++)
		if (send_line(sock, argv[i] + (argv[i][0] == '+'), end, fd,
		    argv[i][0] == '+' ? nfd : 0) == -1) {
			perror("fdclient: sendmsg");
			return 1;
		}
	close(fd);
	if (hold >= 0) {
		printf("held\n");
		fflush(stdout);
		sleep((unsigned)hold);
	}
	shutdown(sock, SHUT_WR);
	while ((n = read(sock, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	return n == 0 ? 0 : 1;
usage:
	fprintf(stderr, "usage: fdclient [-n N] [-s SECONDS] [-u] SOCKET "
	    "FILE LINE...\n");
	return 2;
}
