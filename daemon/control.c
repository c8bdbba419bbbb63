#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <systemd/sd-daemon.h>

#include "acceptpause.h"
#include "control.h"
#include "idmap.h"
#include "log.h"
#include "proto.h"
#include "request.h"

struct control_conn {
	struct bufferevent	*bev;
	struct control_conn	*next, *prev;
	json_object		*deferred_id;
	enum control_wait	 deferred;	/* 0, or what it is parked for */
	bool			 peer_eof;	/* the client shut its writing side */
	bool			 closing;	/* free once output is flushed */
	uid_t			 uid;
	pid_t			 pid;
	bool			 may_change;	/* start/stop allowed */
};

static struct evconnlistener	*listener;
static struct acceptpause	*pause_accept;	/* at the cap, out of fds */
static struct control_conn	*conns;
static control_dispatch_fn	 dispatch_fn;
static unsigned			 nconns;
static unsigned			 max_clients;	/* what the fd limit allows */
static char			 sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static struct stat		 sock_st;	/* the socket file we made */
/* Who may change state besides root and the daemon's own user: the
 * members of the socket file's group (what SocketGroup= or socket_group
 * gave it), the people the file mode lets connect. */
static gid_t			 ctl_gid;
static bool			 have_ctl_gid;
static char			 ctl_group[64];

/* The pause at the client cap lasts while it is still reached. */
static bool
at_client_cap(void *arg)
{
	(void)arg;
	return nconns >= max_clients;
}

static void
conn_free(struct control_conn *c)
{
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	json_object_put(c->deferred_id);
	bufferevent_free(c->bev);
	free(c);
	nconns--;
}

/* Free a closing connection once nothing is left to send; true if freed. */
static bool
conn_reap(struct control_conn *c)
{
	if (!c->closing ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		return false;
	conn_free(c);
	return true;
}

static void
send_json(struct control_conn *c, json_object *reply)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t len;
	const char *s = json_object_to_json_string_length(reply,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);

	if (c->closing)
		return;
	evbuffer_add(out, s, len);
	evbuffer_add(out, "\n", 1);
	if (evbuffer_get_length(out) > CONTROL_MAX_PENDING_OUTPUT) {
		log_warnx("client pid %ld does not read its replies (%zu bytes "
		    "pending); disconnecting", (long)c->pid,
		    evbuffer_get_length(out));
		evbuffer_drain(out, evbuffer_get_length(out));
		c->closing = true;
	}
}

void
control_reply_ok(struct control_conn *c, json_object *id, json_object *result)
{
	json_object *r = request_envelope(id, true);

	json_object_object_add(r, "result", result);
	send_json(c, r);
	json_object_put(r);
}

void
control_reply_error(struct control_conn *c, json_object *id, const char *code,
    const char *field, const char *fmt, ...)
{
	char msg[PROTO_MAX_MESSAGE];
	json_object *r;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r = request_error_reply(id, code, field, msg);
	send_json(c, r);
	json_object_put(r);
}

void
control_defer(struct control_conn *c, json_object *id, enum control_wait what)
{
	json_object_put(c->deferred_id);
	c->deferred_id = id != NULL ? json_object_get(id) : NULL;
	c->deferred = what;
}

/* Answer every connection parked for what: with a copy of result, or
 * with the error when result is NULL. */
static void
answer_deferred(enum control_wait what, json_object *result, const char *code,
    const char *field, const char *message)
{
	struct control_conn *c, *next;

	for (c = conns; c != NULL; c = next) {
		json_object *copy = NULL;

		next = c->next;
		if (c->deferred != what)
			continue;
		c->deferred = 0;
		if (result != NULL) {
			json_object_deep_copy(result, &copy, NULL);
			control_reply_ok(c, c->deferred_id, copy);
		} else
			control_reply_error(c, c->deferred_id, code, field,
			    "%s", message);
		json_object_put(c->deferred_id);
		c->deferred_id = NULL;
		if (conn_reap(c))
			continue;
		/* Requests that arrived while parked are handled now. */
		bufferevent_trigger(c->bev, EV_READ, BEV_TRIG_DEFER_CALLBACKS);
	}
}

void
control_complete_deferred(enum control_wait what, json_object *result)
{
	answer_deferred(what, result, NULL, NULL, NULL);
	json_object_put(result);
}

void
control_fail_deferred(enum control_wait what, const char *code,
    const char *field, const char *message)
{
	answer_deferred(what, NULL, code, field, message);
}

bool
control_admit_change(struct control_conn *c, json_object *id, const char *cmd)
{
	if (!c->may_change) {
		log_warnx("%s from uid %ld pid %ld denied: neither root nor "
		    "in group %s", cmd, (long)c->uid, (long)c->pid,
		    have_ctl_gid ? ctl_group : "(none)");
		control_reply_error(c, id, PROTO_ERR_DENIED, "cmd",
		    "'%s' changes the daemon's state: uid %ld is neither root "
		    "nor a member of the control socket's group%s%s%s",
		    cmd, (long)c->uid, have_ctl_gid ? " '" : "",
		    have_ctl_gid ? ctl_group : "", have_ctl_gid ? "'" : "");
		return false;
	}
	log_info("%s from uid %ld pid %ld", cmd, (long)c->uid, (long)c->pid);
	return true;
}

/* Check the envelope of one request line and hand it on. */
static void
handle_line(struct control_conn *c, const char *line, size_t len)
{
	struct request req;
	struct request_error err;

	if (request_parse(line, len, &req, &err) == -1)
		control_reply_error(c, req.id, err.code, err.field, "%s",
		    err.message);
	else
		dispatch_fn(c, req.id, req.cmd, req.args);
	request_free(&req);
}

/* The unterminated rest of the input, as one request line. */
static void
handle_rest(struct control_conn *c, struct evbuffer *in)
{
	size_t n = evbuffer_get_length(in);
	char *line = malloc(n + 1);

	if (line == NULL) {
		c->closing = true;
		return;
	}
	evbuffer_remove(in, line, n);
	line[n] = '\0';
	handle_line(c, line, n);
	free(line);
}

/* Handle every complete request line in the input.  A parked client's
 * lines wait, so a later request cannot overtake the deferred reply;
 * reading goes on meanwhile (bounded by the high watermark) so that a
 * client that leaves is noticed. */
static void
conn_read(struct bufferevent *bev, void *arg)
{
	struct control_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	while (!c->closing && !c->deferred) {
		struct evbuffer_ptr eol;
		enum request_frame frame;
		size_t len, got;
		char *line;

		/* Backpressure: a client that pipelines requests faster than
		 * it reads replies is served as its replies leave. */
		if (evbuffer_get_length(bufferevent_get_output(bev)) >
		    CONTROL_OUTPUT_RESUME)
			return;

		eol = evbuffer_search_eol(in, NULL, NULL, EVBUFFER_EOL_LF);
		frame = request_frame(evbuffer_get_length(in), eol.pos, &len);
		if (frame == REQUEST_FRAME_TOO_LONG) {
			control_reply_error(c, NULL, PROTO_ERR_TOO_LONG, NULL,
			    "request line longer than %d bytes; closing",
			    PROTO_MAX_LINE);
			c->closing = true;
			break;
		}
		if (frame == REQUEST_FRAME_MORE)
			break;
		line = evbuffer_readln(in, &got, EVBUFFER_EOL_LF);
		if (line == NULL)
			break;
		handle_line(c, line, got);
		free(line);
	}
	/* After the client's EOF its last line counts without an LF too
	 * (under PROTO_MAX_LINE, or it was refused above); once every
	 * request is answered, the connection goes. */
	if (c->peer_eof && !c->deferred && !c->closing &&
	    evbuffer_get_length(in) > 0 &&
	    evbuffer_get_length(bufferevent_get_output(bev)) <=
	    CONTROL_OUTPUT_RESUME)
		handle_rest(c, in);
	if (c->peer_eof && !c->deferred &&
	    evbuffer_get_length(in) == 0)
		c->closing = true;
	if (c->closing) {
		bufferevent_disable(bev, EV_READ);
		evbuffer_drain(in, evbuffer_get_length(in));
		conn_reap(c);
	}
}

/* Output drained: free a closing client, or read on where backpressure
 * stopped. */
static void
conn_write(struct bufferevent *bev, void *arg)
{
	struct control_conn *c = arg;

	if (conn_reap(c))
		return;
	if (!c->closing && evbuffer_get_length(bufferevent_get_input(bev)) > 0)
		conn_read(bev, c);
}

/* Has the client closed both directions (not just shut its writing
 * side, after which it may still read replies)? */
static bool
peer_gone(struct bufferevent *bev)
{
	struct pollfd p = { bufferevent_getfd(bev), 0, 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR));
}

static void
conn_event(struct bufferevent *bev, short what, void *arg)
{
	struct control_conn *c = arg;

	if ((what & BEV_EVENT_ERROR) || peer_gone(bev)) {
		conn_free(c);
		return;
	}
	if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_WRITING)) {
		log_warnx("client uid %ld pid %ld has not read its replies for "
		    "%d s (%zu bytes unsent); disconnecting", (long)c->uid,
		    (long)c->pid, CONTROL_WRITE_STALL_S,
		    evbuffer_get_length(bufferevent_get_output(bev)));
		conn_free(c);
		return;
	}
	if (what & BEV_EVENT_EOF) {
		c->peer_eof = true;
		conn_read(bev, c);
	}
}

/* Root, the daemon's own user, or a member of the socket's group (its
 * primary group or one of the supplementary groups it had at connect). */
static bool
peer_may_change(int fd, const struct ucred *cred)
{
	gid_t small[64], *groups = small;
	socklen_t len = sizeof(small);
	bool member = false;

	if (cred->uid == 0 || cred->uid == geteuid())
		return true;
	if (!have_ctl_gid)
		return false;
	if (cred->gid == ctl_gid)
		return true;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == -1) {
		if (errno != ERANGE || (groups = malloc(len)) == NULL ||
		    getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups,
		    &len) == -1) {
			log_warn("SO_PEERGROUPS of pid %ld", (long)cred->pid);
			goto out;
		}
	}
	for (size_t i = 0; i < len / sizeof(gid_t); i++)
		if (groups[i] == ctl_gid)
			member = true;
out:
	if (groups != small)
		free(groups);
	return member;
}

static void
accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int salen, void *arg)
{
	struct event_base *base = evconnlistener_get_base(l);
	struct control_conn *c = calloc(1, sizeof(*c));
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	const struct timeval stall = { CONTROL_WRITE_STALL_S, 0 };

	(void)sa;
	(void)salen;
	(void)arg;
	if (nconns + 1 >= max_clients)
		acceptpause_pause(pause_accept,
		    "as many clients as the descriptor limit allows");
	if (c == NULL ||
	    (c->bev = bufferevent_socket_new(base, fd,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		log_warnx("out of memory for a client");
		free(c);
		close(fd);
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0) {
		c->uid = cred.uid;
		c->pid = cred.pid;
		c->may_change = peer_may_change(fd, &cred);
	} else
		c->uid = (uid_t)-1;	/* unknown: read-only */
	c->next = conns;
	if (conns != NULL)
		conns->prev = c;
	conns = c;
	nconns++;
	bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
	/* Input past one maximal line is not read: memory per client stays
	 * bounded, and conn_read sees the overlong line and answers it. */
	bufferevent_setwatermark(c->bev, EV_READ, 0, PROTO_MAX_LINE + 2);
	/* Counts only while replies wait to be sent: a client parked on
	 * `wait` for an hour has nothing pending and is not cut off. */
	bufferevent_set_timeouts(c->bev, NULL, &stall);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
}

static void
accept_error(struct evconnlistener *l, void *arg)
{
	int e = EVUTIL_SOCKET_ERROR();

	(void)l;
	(void)arg;
	if (acceptpause_out_of_fds(e))
		acceptpause_pause(pause_accept, strerror(e));
	else
		log_warnx("accept: %s", strerror(e));
}

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
static int
activated_socket(int *fd)
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
static int
own_socket(const char *path, unsigned mode, const char *group)
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

/* The group whose members may start and stop runs: the socket file's. */
static void
control_group_of(int fd)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	struct stat st;
	struct group *gr;

	memset(&sun, 0, sizeof(sun));
	if (getsockname(fd, (struct sockaddr *)&sun, &len) == -1 ||
	    sun.sun_path[0] == '\0' || stat(sun.sun_path, &st) == -1) {
		log_warnx("cannot tell the control socket's group: only root "
		    "and uid %ld may start and stop runs", (long)geteuid());
		return;
	}
	if (!idmap_gid_mapped(st.st_gid)) {
		log_warnx("the control socket's group (gid %ld here) is not "
		    "mapped in stressd's user namespace (PrivateUsers=?): only "
		    "root and uid %ld may start and stop runs; make it "
		    "stressd's own group", (long)st.st_gid, (long)geteuid());
		return;
	}
	ctl_gid = st.st_gid;
	have_ctl_gid = true;
	if ((gr = getgrgid(st.st_gid)) != NULL)
		snprintf(ctl_group, sizeof(ctl_group), "%s", gr->gr_name);
	else
		snprintf(ctl_group, sizeof(ctl_group), "%ld", (long)st.st_gid);
	log_info("root, uid %ld and members of group %s may start and stop "
	    "runs; others may only read", (long)geteuid(), ctl_group);
}

int
control_init(struct event_base *base, const char *path, unsigned mode,
    const char *group, control_dispatch_fn dispatch)
{
	struct rlimit rl;
	int fd = -1, act;

	/* Clients must never take the descriptors the writers, the setup
	 * thread and librrd need: the run's writes would fail. */
	dispatch_fn = dispatch;
	max_clients = CONTROL_MAX_CLIENTS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)CONTROL_MAX_CLIENTS + CONTROL_FD_RESERVE)
		max_clients = rl.rlim_cur > 2 * CONTROL_FD_RESERVE ?
		    (unsigned)(rl.rlim_cur - CONTROL_FD_RESERVE) :
		    (unsigned)(rl.rlim_cur / 2);
	/* Activated: the socket and its file are systemd's, not unlinked by
	 * stressd at exit (sock_path stays empty). */
	if ((act = activated_socket(&fd)) == -1)
		return -1;
	if (act == 1)
		log_info("listening on the socket systemd passed");
	else if ((fd = own_socket(path, mode, group)) == -1)
		return -1;
	listener = evconnlistener_new(base, accept_cb, NULL,
	    LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 4096, fd);
	if (listener == NULL) {
		log_warn("listen %s", path);
		if (act != 1)
			unlink(path);
		close(fd);
		return -1;
	}
	evconnlistener_set_error_cb(listener, accept_error);
	if ((pause_accept = acceptpause_new(base, listener, at_client_cap,
	    NULL)) == NULL) {
		/* Without it a full descriptor table would spin the loop. */
		log_warnx("cannot make the accept pause timer");
		evconnlistener_free(listener);
		listener = NULL;
		if (act != 1)
			unlink(path);
		return -1;
	}
	control_group_of(fd);
	return 0;
}

/* Remove the socket file only if it is still the one this daemon made:
 * another stressd may have replaced it meanwhile. */
static void
unlink_own_socket(void)
{
	struct stat st;

	if (sock_path[0] != '\0' && lstat(sock_path, &st) == 0 &&
	    st.st_ino == sock_st.st_ino &&
	    st.st_dev == sock_st.st_dev)
		unlink(sock_path);
}

void
control_stop_accepting(void)
{
	if (listener != NULL) {
		evconnlistener_free(listener);
		listener = NULL;
		unlink_own_socket();
	}
	acceptpause_free(pause_accept);
	pause_accept = NULL;
}

bool
control_output_pending(void)
{
	for (struct control_conn *c = conns; c != NULL; c = c->next)
		if (evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
			return true;
	return false;
}

void
control_shutdown(void)
{
	control_stop_accepting();
	while (conns != NULL)
		conn_free(conns);
}
