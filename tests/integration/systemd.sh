#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# systemd integration without systemd as PID 1: socket activation through
# systemd-socket-activate, and the sd_notify messages (READY=1, STATUS=,
# WATCHDOG=1 when WATCHDOG_USEC is set, STOPPING=1) on a test
# NOTIFY_SOCKET.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

# ---- sd_notify on a datagram socket the test binds
NS=$T/notify.sock
notify_listen "$NS" "$T/notify.out"
NOTIFY_SOCKET=$NS WATCHDOG_USEC=400000 start_daemon
start_run --dir "$T/rrd" --files 20 --max-updates 2000 --update-time 2.5 \
    --rra "$RRA" >/dev/null
wait_run >/dev/null
stop_daemon TERM 30
assert_eq "$DAEMON_RC" 0 "exit status"
sleep 0.2
n=$(cat "$T/notify.out")
grep -q 'READY=1' <<<"$n" || fail "no READY=1: $n"
grep -q 'STATUS=idle' <<<"$n" || fail "no STATUS=idle: $n"
grep -q 'STATUS=running run 1: [0-9]*/2000 updates, significant queue [0-9]*, [0-9]* errors' \
    <<<"$n" || fail "no running STATUS line: $n"
[ "$(grep -o 'WATCHDOG=1' <<<"$n" | wc -l)" -ge 3 ] ||
    fail "WATCHDOG=1 not sent every 0.2 s: $n"
grep -q 'STOPPING=1' <<<"$n" || fail "no STOPPING=1: $n"
# READY comes first, STOPPING after the run (the watchdog is still fed
# while the daemon shuts down)
[ "${n%%READY=1*}" = "" ] || fail "something before READY=1: $n"
case $n in *STATUS=running*STOPPING=1*) ;; *) fail "STOPPING=1 before the run: $n" ;; esac

# ---- socket activation: the daemon takes the socket it is given
command -v systemd-socket-activate >/dev/null ||
    skip "systemd-socket-activate is not installed (package systemd); notify checks passed"
AS=$T/activated.sock
systemd-socket-activate -l "$AS" "$STRESSD" --socket "$T/unused.sock" \
    --state-dir "$T/state2" >>"$DLOG" 2>&1 &
DPID=$!
for _ in $(seq 50); do [ -S "$AS" ] && break; sleep 0.1; done
out=$(timeout 20 "$STRESSCTL" --socket "$AS" --json status) ||
    fail "status through the activated socket failed"
assert_eq "$(jget "$out" state_dir)" "$T/state2" "activated daemon's state dir"
[ ! -e "$T/unused.sock" ] || fail "the activated daemon made its own socket"
grep -q 'listening on the socket systemd passed' "$DLOG" ||
    fail "no activation line in the log"
stop_daemon TERM 30
assert_eq "$DAEMON_RC" 0 "activated daemon's exit status"
log "ok: notify (READY, STATUS, WATCHDOG, STOPPING) and socket activation"
