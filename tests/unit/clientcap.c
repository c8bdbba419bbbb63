/* Control connections per uid (daemon/clientcap.c): one uid's flood
 * leaves room for others and for root. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "clientcap.h"

static void
test_shares(void **state)
{
	char why[160];
	uid_t me = geteuid();

	(void)state;
	if (me != 0)
		skip();	/* the privileged uids are 0 and ours: run as root */
	clientcap_set(10, 2, 4);
	for (int i = 0; i < 4; i++)
		assert_true(clientcap_admit(1000, why, sizeof(why)));
	assert_false(clientcap_admit(1000, why, sizeof(why)));
	assert_non_null(strstr(why, "uid 1000 already holds 4"));
	for (int i = 0; i < 4; i++)
		assert_true(clientcap_admit(1001, why, sizeof(why)));
	/* 8 of 10 held: the last 2 are root's. */
	assert_false(clientcap_admit(1002, why, sizeof(why)));
	assert_non_null(strstr(why, "kept for root"));
	assert_true(clientcap_admit(0, why, sizeof(why)));
	assert_true(clientcap_admit(0, why, sizeof(why)));
	assert_false(clientcap_admit(0, why, sizeof(why)));
	assert_non_null(strstr(why, "its cap"));
	assert_int_equal(clientcap_count(), 10);
	/* Leaving frees the slot for others. */
	clientcap_release(1000);
	clientcap_release(0);
	clientcap_release(0);
	assert_true(clientcap_admit(1000, why, sizeof(why)));
	assert_false(clientcap_admit(1002, why, sizeof(why)));
	clientcap_release(1001);
	assert_true(clientcap_admit(1002, why, sizeof(why)));
	assert_int_equal(clientcap_count(), 8);
	clientcap_release(4242);	/* never admitted: ignored */
	assert_int_equal(clientcap_count(), 8);
	clientcap_reset();
	assert_int_equal(clientcap_count(), 0);
}

/* The refusal is one JSON line with code busy, then EOF. */
static void
test_refuse(void **state)
{
	char buf[512];
	ssize_t n;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	clientcap_refuse(sv[0], 65534, 1, "uid 65534 already holds 1 "
	    "connections, its share; close some first");
	n = read(sv[1], buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "\"code\":\"busy\""));
	assert_non_null(strstr(buf, "uid 65534 already holds"));
	assert_int_equal(buf[n - 1], '\n');
	assert_int_equal(read(sv[1], buf, sizeof(buf)), 0);
	close(sv[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_refuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
