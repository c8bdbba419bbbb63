/* The control socket's file, for control.c: the socket systemd passed,
 * or one stressd binds itself (replacing a stale file, refusing a live
 * daemon's) with its mode and group, and removed at exit only if it is
 * still the one made. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/util.h>
#include <systemd/sd-daemon.h>

#include "ctlsocket.h"
#include "log.h"

static char		sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static struct stat	sock_st;	/* the socket file we made */

/* Is someone answering on path?  Decides between "live daemon, refuse"
 * and "stale file, replace". */
static bool
socket_alive(const char *path)
{
	struct sockaddr_un sun;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool alive;

	if (fd == -1)
		return false;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	alive = connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0;
	close(fd);
	return alive;
}

/*
 * The listening socket systemd passed (socket activation), if any: 1 and
 * *fd set, 0 when not activated, -1 on a socket stressd cannot use.
 */
int
ctlsocket_activated(int *fd)
{
	int n = sd_listen_fds(1);

	if (n == 0)
		return 0;
	if (n < 0) {
		log_warnx("sd_listen_fds: %s", strerror(-n));
		return -1;
	}
	if (n > 1) {
		log_warnx("systemd passed %d sockets; stressd takes one", n);
		return -1;
	}
	*fd = SD_LISTEN_FDS_START;
	if (sd_is_socket_unix(*fd, SOCK_STREAM, 1, NULL, 0) <= 0) {
		log_warnx("the socket systemd passed is not a listening Unix "
		    "stream socket");
		return -1;
	}
	evutil_make_socket_nonblocking(*fd);
	evutil_make_socket_closeonexec(*fd);
	return 1;
}

/* Create and bind path (replacing a stale socket file) with the given
 * mode and group ("" leaves the group); the fd or -1. */
int
ctlsocket_bind(const char *path, unsigned mode, const char *group)
{
	struct sockaddr_un sun;
	struct stat st;
	mode_t old_mask;
	int fd, rc;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		log_warnx("socket path too long: %s", path);
		return -1;
	}
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_warnx("%s exists and is not a socket; not "
			    "replacing it", path);
			return -1;
		}
		if (socket_alive(path)) {
			log_warnx("another stressd is answering on %s", path);
			return -1;
		}
		log_info("replacing stale socket %s", path);
		unlink(path);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1) {
		log_warn("socket");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	/* Made 0600 and opened up only once it has its group: no client of
	 * the wrong group can connect in between.  (Start-up runs no other
	 * thread yet, so the process-wide umask is safe to borrow.) */
	old_mask = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old_mask);
	if (rc == -1) {
		log_warn("bind %s", path);
		close(fd);
		return -1;
	}
	/* The group decides who may start and stop runs: without it the
	 * socket must not open up at all. */
	if (group[0] != '\0') {
		struct group *gr = getgrnam(group);

		if (gr == NULL || chown(path, (uid_t)-1, gr->gr_gid) == -1) {
			if (gr == NULL)
				log_warnx("socket_group %s: no such group",
				    group);
			else if (errno == EPERM)	/* not root, not a member */
				log_warnx("socket_group %s: stressd runs as uid "
				    "%ld, which is not in that group", group,
				    (long)geteuid());
			else
				log_warn("chown %s to group %s", path, group);
			close(fd);
			unlink(path);
			return -1;
		}
	}
	if (chmod(path, (mode_t)mode) == -1)
		log_warn("chmod %s", path);
	if (lstat(path, &sock_st) == -1)
		memset(&sock_st, 0, sizeof(sock_st));
	snprintf(sock_path, sizeof(sock_path), "%s", path);
	log_info("listening on %s", path);
	return fd;
}

/* Remove the socket file only if it is still the one this daemon made:
 * another stressd may have replaced it meanwhile. */
void
ctlsocket_unlink(void)
{
	struct stat st;

	if (sock_path[0] != '\0' && lstat(sock_path, &st) == 0 &&
	    st.st_ino == sock_st.st_ino &&
	    st.st_dev == sock_st.st_dev)
		unlink(sock_path);
}

void
ctlsocket_log_access(const char *path, const struct stat *st, char *tail,
    size_t len)
{
	struct passwd *pw = getpwuid(st->st_uid);
	struct group *gr = getgrgid(st->st_gid);
	char owner[64], group[64], who[256];
	/* connect(2) on a Unix socket needs write permission on its file */
	bool u = st->st_mode & S_IWUSR, g = st->st_mode & S_IWGRP,
	    o = st->st_mode & S_IWOTH;
	bool other_owner = st->st_uid != 0 && st->st_uid != geteuid();

	if (pw != NULL)
		snprintf(owner, sizeof(owner), "%s", pw->pw_name);
	else
		snprintf(owner, sizeof(owner), "%ld", (long)st->st_uid);
	if (gr != NULL)
		snprintf(group, sizeof(group), "%s", gr->gr_name);
	else
		snprintf(group, sizeof(group), "%ld", (long)st->st_gid);
	if (o)
		snprintf(who, sizeof(who), "anyone");
	else
		snprintf(who, sizeof(who), "root%s%s%s%s and no one else",
		    u && st->st_uid != 0 ? ", user " : "",
		    u && st->st_uid != 0 ? owner : "",
		    g ? ", members of group " : "", g ? group : "");
	log_info("control socket %s: mode %04o, owner %s, group %s; who can "
	    "connect: %s", path, (unsigned)(st->st_mode & 07777), owner,
	    group, who);
	if (o)
		snprintf(tail, len, "; anyone else who connects may only read");
	else if (!g)
		snprintf(tail, len, "; but mode %04o lets no one connect but "
		    "root%s%s", (unsigned)(st->st_mode & 07777),
		    u && st->st_uid != 0 ? " and user " : "",
		    u && st->st_uid != 0 ? owner : "");
	else if (u && other_owner)
		snprintf(tail, len, "; user %s, the socket's owner, may connect "
		    "and, outside that group, only read", owner);
	else
		snprintf(tail, len, "; no one else can connect");
}
