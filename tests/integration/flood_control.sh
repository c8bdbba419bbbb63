#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# A control socket flood by one unprivileged uid locks nobody out: with
# the daemon's descriptor limit at 1024, nobody (uid 65534) opens 1500
# connections that never send.  Past its share of the client cap its
# connections get a one-line `busy` reply and are closed; root's `stats`
# and `stop` still get in at once (root's reserve); the idle ones are
# closed after the idle timeout (--client-idle-timeout 6 here), but a
# `wait` parked for 10 s is not idle and gets its reply.  Needs
# root (to be another user); skips otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to flood as another user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not found"
command -v prlimit >/dev/null || skip "prlimit (util-linux) not found"
getent passwd nobody >/dev/null && getent group nogroup >/dev/null ||
    skip "needs user nobody and group nogroup"

# nobody must reach the socket and the flood tool.
chmod 711 "$T"
build_tool flood
chmod 755 "$T/flood"
install -m 755 "$STRESSCTL" "$T/stressctl"
printf 'socket_mode = 0666\n' >"$T/stressd.conf"
STRESSD_WRAPPER=(prlimit --nofile=1024:1024 --)
start_daemon --config "$T/stressd.conf" --client-idle-timeout 6
start_run --dir "$T/d" --files 20 --max-updates 1000000 --update-time 600 \
    --threads 1 --write-threads 1 --rra "$RRA" >/dev/null
# A client parked on wait sends nothing but is not idle.
CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait >"$T/wait.out" 2>&1 &
wpid=$!
wait_started=$SECONDS

setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
    "$T/flood" -u "$SOCK" -n 1500 -s 16 >"$T/flood.out" &
fpid=$!
HELPER_PIDS+=("$fpid")
wait_flood "$T/flood.out"

# nobody's own stressctl past its share is told why, not a broken pipe.
# (The daemon answers and closes at once, and a request sent after the
# close meets a broken pipe: the reply is read all the same.)
for _ in $(seq 30); do
	rc=0
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
	    "$T/stressctl" --socket "$SOCK" stats >"$T/busy.out" 2>&1 || rc=$?
	assert_num "$rc" '!=' 0 "nobody's stats past its share: exit status"
	grep -q 'busy' "$T/busy.out" || fail "nobody's stats past its share" \
	    "does not say busy: $(cat "$T/busy.out")"
done

# Root gets in while nobody holds its whole share.
p99=$(stats_p99 "root's stats during the control flood" 0)
log "root's stats latency during the flood: p99 (max of 20) ${p99} ms"
assert_num "$p99" '<' 2000 "root's stats p99 during the control flood (ms)"
assert_eq "$(jnum "$(cat "$T/s.json")" updates_failed)" 0 "updates failed during the flood"
while [ $((SECONDS - wait_started)) -lt 10 ]; do sleep 0.5; done
pid_alive "$wpid" || fail "wait ended before the stop: $(cat "$T/wait.out")"
timeout -k 2 20 "$STRESSCTL" --socket "$SOCK" stop --no-drain >/dev/null ||
    fail "root's stop during the control flood failed or hung"
assert_eq "$(jget "$(stats)" state)" stopped "the run after root's stop"
wait "$wpid" || fail "the parked wait (10 s, idle timeout 6 s) failed: $(cat "$T/wait.out")"
assert_eq "$(jget "$(cat "$T/wait.out")" state)" stopped "the parked wait's reply"

wait "$fpid" || true
log "flood end: $(tail -n 2 "$T/flood.out" | head -n 1)"
read -r _ open _ closed _ answered <<<"$(grep '^open' "$T/flood.out")"
assert_eq "$open" 0 "idle connections still open 16 s in (idle timeout 6 s)"
assert_num "$answered" '>' 0 "over-share connections answered"
first=$(sed -n 's/^first: //p' "$T/flood.out")
is_json "$first" || fail "the over-share reply is not one JSON object: $first"
assert_eq "$(jget "$first" error.code)" busy "the over-share reply's code"
assert_contains "$(jget "$first" error.message)" "uid 65534" "the over-share reply"
grep -q 'idle for' "$DLOG" || fail "closing idle clients is not logged"
assert_alive "the control flood"
log "ok"
