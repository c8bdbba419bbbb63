/*
 * fdclient SOCKET FILE LINE...: a control client that passes descriptors,
 * built by tests/integration/fdpass.sh at test time.  Each LINE goes out
 * in a sendmsg of its own, back to back without waiting for replies; a
 * LINE starting with '+' (stripped) carries a descriptor of FILE (opened
 * read-only) as SCM_RIGHTS.  Then it shuts its writing side and prints
 * every reply until the daemon closes.  Exit 0, or 1 on a failed call.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int
send_line(int sock, const char *line, int fd)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	char text[65536];
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *cm;
	int len = snprintf(text, sizeof(text), "%s\n", line);

	iov.iov_base = text;
	iov.iov_len = (size_t)len;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd != -1) {
		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &msg, MSG_NOSIGNAL) == len ? 0 : -1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_un sun;
	char buf[65536];
	ssize_t n;
	int sock, fd;

	if (argc < 4) {
		fprintf(stderr, "usage: fdclient SOCKET FILE LINE...\n");
		return 2;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", argv[1]);
	if ((sock = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    connect(sock, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    (fd = open(argv[2], O_RDONLY)) == -1) {
		perror("fdclient");
		return 1;
	}
	for (int i = 3; i < argc; i++)
		if (send_line(sock, argv[i] + (argv[i][0] == '+'),
		    argv[i][0] == '+' ? fd : -1) == -1) {
			perror("fdclient: sendmsg");
			return 1;
		}
	close(fd);
	shutdown(sock, SHUT_WR);
	while ((n = read(sock, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	return n == 0 ? 0 : 1;
}
