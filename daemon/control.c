#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "acceptpause.h"
#include "clientcap.h"
#include "control.h"
#include "ctlsocket.h"
#include "fdbudget.h"
#include "fdqueue.h"
#include "idmap.h"
#include "log.h"
#include "proto.h"
#include "request.h"
#include "util.h"

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
	/* The bufferevent only writes: reading is conn_recv's, with
	 * recvmsg, so that descriptors passed with a request are kept. */
	struct event		*rd;
	struct fdqueue		 fds;
	uint64_t		 consumed;	/* input bytes handled */
	uint64_t		 line_end;	/* stream offset of the LF of
						   the line being handled */
};

/* The descriptor budget keeps room for what clients pass. */
_Static_assert(FDBUDGET_PASSED >= FDQUEUE_MAX_TOTAL,
    "fdbudget's reserve must hold the descriptors clients pass");

/* Input past one maximal line is not read: memory per client stays
 * bounded, and conn_read sees the overlong line and answers it. */
#define CONTROL_INPUT_MAX	(PROTO_MAX_LINE + 2)

static struct evconnlistener	*listener;
static struct acceptpause	*pause_accept;	/* out of fds */
static struct control_conn	*conns;
static control_dispatch_fn	 dispatch_fn;
static double			 idle_s = CONTROL_IDLE_S;
static struct timeval		 idle_tv;	/* idle_s; unused if 0 */
/* Who may change state besides root and the daemon's own user: the
 * members of the socket file's group (what SocketGroup= or socket_group
 * gave it), the people the file mode lets connect. */
static gid_t			 ctl_gid;
static bool			 have_ctl_gid;
static char			 ctl_group[64];

void
control_set_limits(const struct control_limits *l)
{
	idle_s = l->idle_s;
	idle_tv.tv_sec = (time_t)idle_s;
	idle_tv.tv_usec = (suseconds_t)((idle_s - (double)idle_tv.tv_sec) *
	    1e6);
	clientcap_set(l->max_clients, l->privileged, l->per_uid);
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
	if (c->rd != NULL)
		event_free(c->rd);
	fdqueue_clear(&c->fds);
	bufferevent_free(c->bev);
	clientcap_release(c->uid);
	free(c);
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
	/* The cap counts what was already waiting: one large reply is sent
	 * whole, in as many parts as the client reads (no further request
	 * is read meanwhile: conn_recv), and a client that reads nothing is
	 * cut by the progress timeout.  Only output piling up unread
	 * (watch samples, deferred replies) past the cap disconnects. */
	if (evbuffer_get_length(out) > CONTROL_MAX_PENDING_OUTPUT) {
		log_warnx("client pid %ld does not read its replies (%zu bytes "
		    "pending); disconnecting", (long)c->pid,
		    evbuffer_get_length(out));
		evbuffer_drain(out, evbuffer_get_length(out));
		c->closing = true;
		return;
	}
	evbuffer_add(out, s, len);
	evbuffer_add(out, "\n", 1);
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

/* A refusal is logged at most once every DENIED_LOG_S, with the count
 * since: a read-only client pipelining starts must not fill the disk. */
#define DENIED_LOG_S	10.0

static void
log_denied(const struct control_conn *c, const char *cmd)
{
	static double logged_at = -DENIED_LOG_S;
	static uint64_t unlogged;
	double now = util_now();

	if (now - logged_at < DENIED_LOG_S) {
		unlogged++;
		return;
	}
	log_warnx("%s from uid %ld pid %ld denied: neither root nor in group "
	    "%s", cmd, (long)c->uid, (long)c->pid, have_ctl_gid ? ctl_group :
	    "(none)");
	if (unlogged > 0)
		log_warnx("%ju more requests denied in the %g s before, not "
		    "logged one by one", (uintmax_t)unlogged, DENIED_LOG_S);
	logged_at = now;
	unlogged = 0;
}

bool
control_admit_change(struct control_conn *c, json_object *id, const char *cmd)
{
	if (!c->may_change) {
		log_denied(c, cmd);
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

int
control_take_fd(struct control_conn *c)
{
	return fdqueue_take(&c->fds, c->line_end);
}

uid_t
control_peer_uid(const struct control_conn *c)
{
	return c->uid;
}

/* Check the envelope of one request line and hand it on.  used is what
 * it took of the input (its LF included); descriptors sent with it and
 * not taken by its command are closed. */
static void
handle_line(struct control_conn *c, const char *line, size_t len,
    size_t used)
{
	struct request req;
	struct request_error err;

	c->line_end = c->consumed + len;
	c->consumed += used;
	if (request_parse(line, len, &req, &err) == -1)
		control_reply_error(c, req.id, err.code, err.field, "%s",
		    err.message);
	else
		dispatch_fn(c, req.id, req.cmd, req.args);
	request_free(&req);
	if (fdqueue_drop(&c->fds, c->line_end) > 0)
		log_debug("client pid %ld: closed descriptors its request "
		    "did not take", (long)c->pid);
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
	handle_line(c, line, n, n);
	free(line);
}

/* Read while there is room for input and the client may send more; a
 * client that sends nothing for idle_s gets conn_recv's EV_TIMEOUT. */
static void
conn_rearm(struct control_conn *c)
{
	if (!c->closing && !c->peer_eof && evbuffer_get_length(
	    bufferevent_get_input(c->bev)) < CONTROL_INPUT_MAX)
		event_add(c->rd, idle_s > 0 ? &idle_tv : NULL);
	else
		event_del(c->rd);
}

static void	conn_event(struct bufferevent *, short, void *);

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
		handle_line(c, line, got, got + 1);
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
	conn_rearm(c);
	if (c->closing) {
		evbuffer_drain(in, evbuffer_get_length(in));
		fdqueue_clear(&c->fds);
		conn_reap(c);
	}
}

/* Nothing came for idle_s: close the client, unless it is parked on wait
 * (or start), which is waiting, not idle, or is still being sent replies
 * (the write timeout's business).  The persistent event re-arms. */
static void
conn_idle(struct control_conn *c)
{
	if (c->deferred ||
	    evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
		return;
	log_info("closing client uid %ld pid %ld: idle for %g s",
	    (long)c->uid, (long)c->pid, idle_s);
	conn_free(c);
}

/* Read more input (with the descriptors that come along), up to one
 * maximal line buffered, then handle it.  EOF and errors go where the
 * bufferevent's would. */
static void
conn_recv(evutil_socket_t fd, short what, void *arg)
{
	struct control_conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(c->bev);
	size_t room = CONTROL_INPUT_MAX - evbuffer_get_length(in);
	char buf[16384];
	ssize_t n;

	if (what & EV_TIMEOUT) {
		conn_idle(c);
		return;
	}
	if (room == 0) {	/* conn_read rearms once lines have left */
		event_del(c->rd);
		return;
	}
	n = fdqueue_recv(&c->fds, fd, buf, room < sizeof(buf) ? room :
	    sizeof(buf));
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK ||
	    errno == EINTR))
		return;
	if (n <= 0) {
		conn_event(c->bev, BEV_EVENT_READING |
		    (n == 0 ? BEV_EVENT_EOF : BEV_EVENT_ERROR), c);
		return;
	}
	/* A socket bufferevent keeps its input's end frozen for its own
	 * reads; this is the one read. */
	evbuffer_unfreeze(in, 0);
	if (evbuffer_add(in, buf, (size_t)n) == -1) {
		c->closing = true;
		log_warnx("out of memory for the input of client pid %ld",
		    (long)c->pid);
	}
	evbuffer_freeze(in, 0);
	conn_read(c->bev, c);
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
	struct control_conn *c;
	struct ucred cred = { 0, (uid_t)-1, (gid_t)-1 };
	socklen_t clen = sizeof(cred);
	const struct timeval stall = { CONTROL_WRITE_STALL_S, 0 };
	char why[160];

	(void)sa;
	(void)salen;
	(void)arg;
	/* Accepting goes on at the cap: the peer's uid decides whether it
	 * may come in, and a refused one learns why. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == -1)
		cred.uid = (uid_t)-1;	/* unknown: read-only, a share */
	if (!clientcap_admit(cred.uid, why, sizeof(why))) {
		clientcap_refuse(fd, cred.uid, cred.pid, why);
		return;
	}
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->bev = bufferevent_socket_new(base, fd,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		log_warnx("out of memory for a client");
		clientcap_release(cred.uid);
		free(c);
		close(fd);
		return;
	}
	c->uid = cred.uid;
	c->pid = cred.pid;
	if (cred.uid != (uid_t)-1)
		c->may_change = peer_may_change(fd, &cred);
	/* Only a client that may start a run has a use for a descriptor:
	 * the others' are closed as they come (fdqueue.h). */
	fdqueue_init(&c->fds, !c->may_change ? FDQUEUE_READ_ONLY :
	    cred.uid == 0 || cred.uid == geteuid() ? FDQUEUE_PRIVILEGED :
	    FDQUEUE_SHARED, cred.uid);
	c->next = conns;
	if (conns != NULL)
		conns->prev = c;
	conns = c;
	if ((c->rd = event_new(base, fd, EV_READ | EV_PERSIST, conn_recv,
	    c)) == NULL) {
		log_warnx("out of memory for a client");
		conn_free(c);
		return;
	}
	bufferevent_setcb(c->bev, conn_read, conn_write, conn_event, c);
	/* The write timeout counts only while replies wait to be sent: a
	 * client parked on `wait` for an hour has nothing pending and is not
	 * cut off.  The idle one is on the read event (conn_rearm). */
	bufferevent_set_timeouts(c->bev, NULL, &stall);
	bufferevent_enable(c->bev, EV_WRITE);
	conn_rearm(c);
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

/* The group whose members may start and stop runs: the socket file's. */
static void
control_group_of(int fd)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	struct stat st;
	struct group *gr;
	char tail[256];

	memset(&sun, 0, sizeof(sun));
	if (getsockname(fd, (struct sockaddr *)&sun, &len) == -1 ||
	    sun.sun_path[0] == '\0' || stat(sun.sun_path, &st) == -1) {
		log_warnx("cannot tell the control socket's group: only root "
		    "and uid %ld may start and stop runs", (long)geteuid());
		return;
	}
	ctlsocket_log_access(sun.sun_path, &st, tail, sizeof(tail));
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
	    "runs%s", (long)geteuid(), ctl_group, tail);
}

int
control_init(struct event_base *base, const char *path, unsigned mode,
    const char *group, control_dispatch_fn dispatch)
{
	int fd = -1, act;

	dispatch_fn = dispatch;
	/* Activated: the socket and its file are systemd's, not unlinked by
	 * stressd at exit (sock_path stays empty). */
	if ((act = ctlsocket_activated(&fd)) == -1)
		return -1;
	if (act == 1)
		log_info("listening on the socket systemd passed");
	else if ((fd = ctlsocket_bind(path, mode, group)) == -1)
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
	if ((pause_accept = acceptpause_new(base, listener, NULL,
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

void
control_stop_accepting(void)
{
	if (listener != NULL) {
		evconnlistener_free(listener);
		listener = NULL;
		ctlsocket_unlink();
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
	clientcap_reset();
}
