#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Issue 22: /metrics keeps a slot for a new scrape when its 64 connections
# (the cap) are held by clients that never finish their first request.
# At the cap a served keep-alive connection idle between requests gives
# way first; failing that the oldest connection with part of its first
# request in; failing that the oldest with nothing in yet.  With 64 attackers
# that send part of a request and reconnect to send it again as soon as
# they are cut (or after a second), at least 19 of 20 scrapes (curl
# --max-time 2) get through.  Before the fix the cap closed every scrape:
# 0 of 20.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
start_metrics_daemon

PARTIAL=$'GET /metrics HTTP/1.1\r\nHost: a\r\nX-Slow: '

# open_conn VAR [BYTES]: a connection to /metrics in a new descriptor
# (its number in VAR), BYTES sent on it.
open_conn() {
	local -n fdv=$1
	exec {fdv}<>"/dev/tcp/127.0.0.1/$port"
	[ -z "${2:-}" ] || printf '%s' "$2" >&"$fdv"
}

# is_open FD: the daemon has not closed FD (no EOF within 0.05 s; a
# close would be there already, sent before the reply that preceded it).
is_open() {
	local rc=0
	read -r -t 0.05 -u "$1" _ || rc=$?
	[ "$rc" -gt 128 ]
}

scrape() { curl -sf --max-time 2 "$URL/metrics" -o /dev/null; }

# --- 64 attackers that reconnect as soon as they are cut
attack() {
	# Nothing ends an attacker but the kill below.
	set +eE
	trap - ERR
	trap '' PIPE
	while :; do
		exec 3<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null ||
		    { sleep 0.1; continue; }
		printf '%s' "$PARTIAL" >&3 2>/dev/null
		# Until the daemon closes it (the reserve, the deadline) or
		# a second has passed: then again.
		read -r -t 1 -u 3 _ 2>/dev/null
		exec 3>&-
	done
}
for _ in $(seq 64); do
	attack &
	HELPER_PIDS+=("$!")
done
sleep 2	# the cap is full

ok=0
for _ in $(seq 20); do
	scrape && ok=$((ok + 1))
	sleep 0.5
done
log "$ok of 20 scrapes while 64 unfinished requests churn"
[ "$ok" -ge 19 ] || fail "only $ok of 20 scrapes answered while 64 connections hold unfinished requests"
kill -KILL "${HELPER_PIDS[@]}" 2>/dev/null || true
wait "${HELPER_PIDS[@]}" 2>/dev/null || true
HELPER_PIDS=()
sleep 0.5	# their connections are gone

# --- who gives way: served idle, then the oldest partial, then empty
empty='' served='' first='' fd=''	# set by open_conn
open_conn empty
open_conn served $'HEAD /metrics HTTP/1.1\r\nHost: a\r\n\r\n'
while IFS= read -r -t 5 -u "$served" line && [ "$line" != $'\r' ]; do :; done
[ "${line:-}" = $'\r' ] || fail "no reply to the kept-alive HEAD"
open_conn first "$PARTIAL"
held=()
for _ in $(seq 61); do
	open_conn fd "$PARTIAL"
	held+=("$fd")
done
sleep 0.5	# all 64 accepted
scrape || fail "no scrape at the cap with a served keep-alive connection idle"
is_open "$served" && fail "the served idle connection did not give way"
is_open "$first" || fail "a partial request gave way before the served idle one"
open_conn fd "$PARTIAL"	# the cap again
held+=("$fd")
sleep 0.3
scrape || fail "no scrape at the cap with 64 unfinished first requests"
is_open "$first" && fail "the oldest partial request did not give way"
is_open "$empty" || fail "the connection with nothing sent gave way before a partial one"
for fd in "${held[@]}"; do
	is_open "$fd" || fail "a newer partial request (fd $fd) gave way"
done
for fd in "$empty" "$served" "$first" "${held[@]}"; do
	exec {fd}>&-
done

assert_alive "metrics fair"
log "ok"
