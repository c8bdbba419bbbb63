#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressctl --timeout: against a daemon that never answers (SIGSTOPped, so
# connects land in its backlog and no reply comes) a command gives up
# after the timeout with a message naming it and exit status 4, and so
# does a connect held back by a full backlog; 0 means no timeout.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

kill -STOP "$DPID"
t0=$SECONDS
rc=0
timeout -k 2 20 "$STRESSCTL" --socket "$SOCK" --timeout 2 stats \
    >"$T/out" 2>&1 || rc=$?
el=$((SECONDS - t0))
assert_eq "$rc" 4 "stats --timeout 2 on a stopped daemon: exit status ($(cat "$T/out"))"
assert_num "$el" '<=' 8 "stats --timeout 2: seconds taken"
grep -q 'no reply .*within 2 s (--timeout)' "$T/out" ||
    fail "the timeout message does not name it: $(cat "$T/out")"
# The option also goes after the command.
rc=0
timeout -k 2 20 "$STRESSCTL" --socket "$SOCK" status --timeout 1 \
    >"$T/out" 2>&1 || rc=$?
assert_eq "$rc" 4 "status --timeout 1: exit status ($(cat "$T/out"))"
# stop --no-wait is answered at once: the default timeout (30 s) bounds
# it, unlike stop's wait for the run to end.
t0=$SECONDS
rc=0
timeout -k 2 50 "$STRESSCTL" --socket "$SOCK" stop --no-wait \
    >"$T/out" 2>&1 || rc=$?
el=$((SECONDS - t0))
assert_eq "$rc" 4 "stop --no-wait on a stopped daemon: exit status ($(cat "$T/out"))"
assert_num "$el" '<=' 40 "stop --no-wait: seconds taken"
# 0: no timeout; the outer timeout ends it.
rc=0
timeout -k 2 4 "$STRESSCTL" --socket "$SOCK" --timeout 0 stats \
    >"$T/out" 2>&1 || rc=$?
assert_eq "$rc" 124 "--timeout 0 waits (the outer timeout ends it)"
rc=0
"$STRESSCTL" --socket "$SOCK" --timeout -1 stats >"$T/out" 2>&1 || rc=$?
assert_eq "$rc" 2 "--timeout -1: usage error"
# A full backlog: connect itself blocks, and times out the same way.
build_tool flood
"$T/flood" -u "$SOCK" -n 10000 -o -s 60 >"$T/flood.out" &
fpid=$!
HELPER_PIDS+=("$fpid")
for _ in $(seq 300); do grep -q '^connected' "$T/flood.out" && break; sleep 0.1; done
log "backlog flood: $(head -n 1 "$T/flood.out")"
grep -q '^connected [0-9]* failed [1-9]' "$T/flood.out" ||
    fail "the backlog did not fill: $(cat "$T/flood.out")"
t0=$SECONDS
rc=0
timeout -k 2 20 "$STRESSCTL" --socket "$SOCK" --timeout 2 status \
    >"$T/out" 2>&1 || rc=$?
el=$((SECONDS - t0))
assert_eq "$rc" 4 "status on a full backlog: exit status ($(cat "$T/out"))"
assert_num "$el" '<=' 8 "connect --timeout 2: seconds taken"
grep -q 'cannot connect .*within 2 s (--timeout)' "$T/out" ||
    fail "the connect timeout message does not name it: $(cat "$T/out")"
kill "$fpid"
wait "$fpid" 2>/dev/null || true
kill -CONT "$DPID"
# The backlog's dead connections are accepted and dropped first.
for _ in $(seq 100); do ctl stats >/dev/null 2>&1 && break; sleep 0.2; done
ctl stats >/dev/null || fail "stats after SIGCONT"
log "ok"
