/* The one address parser (common/hostport.c). */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "hostport.h"

static void
split_ok(const char *s, unsigned flags, const char *host, long port,
    bool bracketed, bool bare_v6)
{
	struct hostport hp;

	if (hostport_split(s, flags, &hp) != HOSTPORT_OK)
		fail_msg("'%s' refused", s);
	assert_string_equal(hp.host, host);
	assert_int_equal(hp.port, port);
	assert_int_equal(hp.bracketed, bracketed);
	assert_int_equal(hp.bare_v6, bare_v6);
}

static void
split_bad(const char *s, unsigned flags, enum hostport_error want)
{
	struct hostport hp;
	enum hostport_error e = hostport_split(s, flags, &hp);

	if (e != want)
		fail_msg("'%s': error %d, expected %d", s, (int)e, (int)want);
}

static void
test_split(void **state)
{
	(void)state;
	split_ok("cache.example.net", 0, "cache.example.net", -1, false,
	    false);
	split_ok("cache:42217", 0, "cache", 42217, false, false);
	split_ok("[::1]", 0, "::1", -1, true, false);
	split_ok("[fe80::1]:9", 0, "fe80::1", 9, true, false);
	split_ok("fe80::1", 0, "fe80::1", -1, false, true);
	split_ok("h:0", 0, "h", 0, false, false);
	split_ok("h:65535", 0, "h", 65535, false, false);
	split_ok("h:00080", 0, "h", 80, false, false);
	split_ok(":1", 0, "", 1, false, false);
	split_bad("", 0, HOSTPORT_EMPTY);
	split_bad(NULL, 0, HOSTPORT_EMPTY);
	split_bad("[::1", 0, HOSTPORT_BRACKET);
	split_bad("[::1]x", 0, HOSTPORT_BRACKET);
	split_bad("h:", 0, HOSTPORT_PORT);
	split_bad("h:65536", 0, HOSTPORT_PORT);
	split_bad("h:99999999999999999999999", 0, HOSTPORT_PORT);
	split_bad("h:+80", 0, HOSTPORT_PORT);
	split_bad("h: 80", 0, HOSTPORT_PORT);
	split_bad("h:80x", 0, HOSTPORT_PORT);
	split_bad("[::1]:", 0, HOSTPORT_PORT);
}

static void
test_split_long(void **state)
{
	char s[HOSTPORT_HOST_MAX + 8];

	(void)state;
	memset(s, 'a', HOSTPORT_HOST_MAX - 1);
	s[HOSTPORT_HOST_MAX - 1] = '\0';
	split_ok(s, 0, s, -1, false, false);
	s[HOSTPORT_HOST_MAX - 1] = 'a';
	strcpy(s + HOSTPORT_HOST_MAX, ":80");
	split_bad(s, 0, HOSTPORT_TOO_LONG);
}

static void
test_split_listen(void **state)
{
	(void)state;
	split_ok("9100", HOSTPORT_LISTEN, "", 9100, false, false);
	split_ok("127.0.0.1:0", HOSTPORT_LISTEN, "127.0.0.1", 0, false, false);
	split_ok("[::1]:9100", HOSTPORT_LISTEN, "::1", 9100, true, false);
	split_bad("[::1]", HOSTPORT_LISTEN, HOSTPORT_BRACKET);
	split_bad("localhost", HOSTPORT_LISTEN, HOSTPORT_PORT);
	split_bad("localhost:", HOSTPORT_LISTEN, HOSTPORT_PORT);
}

static void
listen_bad(const char *s, const char *msg)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256] = "";

	assert_int_equal(hostport_listen(s, &ss, &len, err, sizeof(err)), -1);
	assert_string_equal(err, msg);
}

static void
test_listen(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	char err[256], text[INET6_ADDRSTRLEN];

	(void)state;
	assert_int_equal(hostport_listen("9100", &ss, &len, err, sizeof(err)),
	    0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(len, sizeof(*sin));
	assert_int_equal(ntohs(sin->sin_port), 9100);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(hostport_listen("localhost:1", &ss, &len, err,
	    sizeof(err)), 0);
	assert_int_equal(ntohl(sin->sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(hostport_listen("0.0.0.0:2", &ss, &len, err,
	    sizeof(err)), 0);
	assert_int_equal(sin->sin_addr.s_addr, 0);
	assert_int_equal(hostport_listen("[::1]:3", &ss, &len, err,
	    sizeof(err)), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(*sin6));
	assert_int_equal(ntohs(sin6->sin6_port), 3);
	inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text));
	assert_string_equal(text, "::1");

	listen_bad("", "empty listen address");
	listen_bad("[::1]", "\"[::1]\": expected [IPV6]:PORT");
	listen_bad("::1:80", "\"::1:80\": an IPv6 address goes in brackets: "
	    "[ADDR]:PORT");
	listen_bad("example.org:80", "\"example.org:80\": \"example.org\" is "
	    "not a numeric IPv4 address");
	listen_bad("[nope]:80", "\"[nope]:80\": \"nope\" is not a numeric "
	    "IPv6 address");
	listen_bad("1.2.3.4:65536", "\"1.2.3.4:65536\": port must be a number "
	    "from 0 to 65535");
	listen_bad("11111111112222222222333333333344444444445555555:1",
	    "\"11111111112222222222333333333344444444445555555:1\": address "
	    "too long");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_long),
		cmocka_unit_test(test_split_listen),
		cmocka_unit_test(test_listen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
