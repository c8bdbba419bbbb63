/* Pausing a listener (daemon/acceptpause.c) on a real Unix socket. */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "acceptpause.h"
#include "log.h"

static int accepted;
static int busy_left;

static void
on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
    int len, void *arg)
{
	(void)l;
	(void)sa;
	(void)len;
	(void)arg;
	close(fd);
	accepted++;
}

static bool
still_busy(void *arg)
{
	(void)arg;
	return busy_left-- > 0;
}

struct fixture {
	char			 dir[64];
	struct sockaddr_un	 sun;
	struct event_base	*base;
	struct evconnlistener	*listener;
};

static void
setup_listener(struct fixture *f)
{
	snprintf(f->dir, sizeof(f->dir), "/tmp/acceptpause.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	memset(&f->sun, 0, sizeof(f->sun));
	f->sun.sun_family = AF_UNIX;
	snprintf(f->sun.sun_path, sizeof(f->sun.sun_path), "%s/s", f->dir);
	assert_non_null(f->base = event_base_new());
	f->listener = evconnlistener_new_bind(f->base, on_accept, NULL,
	    LEV_OPT_CLOSE_ON_FREE, 16, (struct sockaddr *)&f->sun,
	    sizeof(f->sun));
	assert_non_null(f->listener);
	accepted = 0;
}

static void
teardown_listener(struct fixture *f)
{
	evconnlistener_free(f->listener);
	event_base_free(f->base);
	unlink(f->sun.sun_path);
	rmdir(f->dir);
}

/* A client that connects now and waits in the listen queue. */
static int
client(struct fixture *f)
{
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&f->sun,
	    sizeof(f->sun)), 0);
	return fd;
}

/* Run the loop for ms milliseconds. */
static void
run_for(struct fixture *f, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(f->base, &tv);
	event_base_dispatch(f->base);
}

static void
test_pause_then_resume(void **state)
{
	struct fixture f;
	struct acceptpause *p;
	int fd;

	(void)state;
	setup_listener(&f);
	assert_non_null(p = acceptpause_new(f.base, f.listener, NULL, NULL));
	acceptpause_pause(p, NULL);
	acceptpause_pause(p, NULL);	/* harmless while paused */
	fd = client(&f);
	run_for(&f, ACCEPTPAUSE_MS / 2);
	assert_int_equal(accepted, 0);
	run_for(&f, ACCEPTPAUSE_MS * 2);
	assert_int_equal(accepted, 1);
	close(fd);
	acceptpause_free(p);
	teardown_listener(&f);
}

/* While the caller says it is still busy, the pause goes on. */
static void
test_busy_extends(void **state)
{
	struct fixture f;
	struct acceptpause *p;
	int fd;

	(void)state;
	setup_listener(&f);
	busy_left = 2;
	assert_non_null(p = acceptpause_new(f.base, f.listener, still_busy,
	    NULL));
	acceptpause_pause(p, "test");
	fd = client(&f);
	run_for(&f, ACCEPTPAUSE_MS * 2 + ACCEPTPAUSE_MS / 2);
	assert_int_equal(accepted, 0);
	run_for(&f, ACCEPTPAUSE_MS * 2);
	assert_int_equal(accepted, 1);
	close(fd);
	acceptpause_free(p);
	teardown_listener(&f);
}

static void
test_out_of_fds(void **state)
{
	(void)state;
	assert_true(acceptpause_out_of_fds(EMFILE));
	assert_true(acceptpause_out_of_fds(ENFILE));
	assert_false(acceptpause_out_of_fds(ECONNABORTED));
	assert_false(acceptpause_out_of_fds(EINTR));
	acceptpause_free(NULL);
	acceptpause_pause(NULL, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pause_then_resume),
		cmocka_unit_test(test_busy_extends),
		cmocka_unit_test(test_out_of_fds),
	};

	log_init(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
