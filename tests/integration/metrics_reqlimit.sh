#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Issue 22: one /metrics connection is answered at most 100 requests: the
# 100th reply says "Connection: close" and the daemon closes it, so a
# client cannot hold a slot for ever by keeping it busy.  101 HEADs sent
# at once on one keep-alive connection get 100 replies, the last (only)
# one with Connection: close, and the connection ends within 5 s (the
# deadline would take 10).  Before the fix: 101 replies, none closing.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
start_metrics_daemon

# pipeline N SECONDS: N HEADs at once on one connection; the replies in
# $T/replies, read until the daemon closes it or SECONDS pass; sets n
# (replies), closes (those with Connection: close) and rc (124: still
# open).
pipeline() {
	local req=$'HEAD /metrics HTTP/1.1\r\nHost: a\r\n\r\n' reqs='' c
	for _ in $(seq "$1"); do reqs+=$req; done
	exec {c}<>"/dev/tcp/127.0.0.1/$port"
	printf '%s' "$reqs" >&"$c"
	rc=0
	timeout "$2" cat <&"$c" >"$T/replies" || rc=$?
	exec {c}>&-
	n=$(grep -c '^HTTP/1.1 200 ' "$T/replies" || true)
	closes=$(grep -ci '^Connection: close' "$T/replies" || true)
	log "$1 requests on one connection: $n replies, $closes with Connection: close, cat exit $rc"
}

pipeline 101 5
assert_eq "$n" 100 "replies to 101 requests on one connection"
assert_eq "$closes" 1 "replies with Connection: close"
# The close is on the 100th: the last reply's head.
tail -n 5 "$T/replies" | grep -qi '^Connection: close' ||
    fail "Connection: close not on the last reply"
assert_eq "$rc" 0 "the connection closed after the 100th reply (124: still open)"

# Below the limit a connection stays open: 99 requests, no close.
pipeline 99 2
assert_eq "$n" 99 "replies to 99 requests"
assert_eq "$closes" 0 "closes below the limit"
assert_eq "$rc" 124 "the connection still open after 99 replies"
curl -sf --max-time 2 "$URL/metrics" -o /dev/null || fail "no scrape afterwards"
assert_alive "metrics request limit"
log "ok"
