#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Issue 22: /metrics stays fair while 64 connections (the cap) churn, each
# finishing a request every 8 s and at once starting the next, so none is
# ever idle: at the cap the one answered longest ago gives way, and at
# least 19 of 20 fresh scrapes (curl --max-time 2) get through in 40 s.
# Before the fix none did.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "curl not found"
start_metrics_daemon

churn() {
	exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 0
	# Replies are not read: loopback buffers hold them.
	while printf 'GET /metrics HTTP/1.1\r\nHost: a\r\n' >&3; do
		sleep 8
		printf '\r\n' >&3 || break
	done 2>/dev/null
}
for i in $(seq 64); do
	churn &
	HELPER_PIDS+=("$!")
done
sleep 10	# every one has been answered once and started again

ok=0
for i in $(seq 20); do
	curl -sf --max-time 2 "$URL/metrics" -o /dev/null && ok=$((ok + 1))
	sleep 1.5
done
[ "$ok" -ge 19 ] || fail "only $ok of 20 scrapes answered while 64 churn"
curl -sf --max-time 2 "$URL/metrics" -o /dev/null || fail "no scrape after the churn"
assert_alive "metrics churn"
log "ok: $ok of 20 scrapes while 64 connections churn"
