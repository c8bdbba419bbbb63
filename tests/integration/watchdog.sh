#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The watchdog is not fed while a thread hangs inside librrd: a preloaded
# shim makes rrd_update_r sleep 30 s in one directory; with the queue
# (a writer hangs) and without it (a generator hangs) WATCHDOG=1 stops and
# the daemon says why, while it still answers status.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
build_shim

for mode in queue direct; do
	NS=$T/notify-$mode.sock
	notify_listen "$NS" "$T/notify-$mode.out"
	rm -f "$SOCK"
	NOTIFY_SOCKET=$NS WATCHDOG_USEC=400000 LD_PRELOAD=$PRELOAD \
	    STRESSD_TEST_HANG_DIR=$T/hang-$mode start_daemon
	extra=
	[ "$mode" = direct ] && extra=--no-use-queue
	# shellcheck disable=SC2086  # extra is one word or none
	start_run --dir "$T/hang-$mode" --files 2 --max-updates 10 \
	    --update-time 0 --rra "$RRA" $extra >/dev/null
	sleep 1.5	# the hang began; 0.2 s pings would be ~7 by now
	before=$(grep -o 'WATCHDOG=1' "$T/notify-$mode.out" | wc -l)
	sleep 1.5
	after=$(grep -o 'WATCHDOG=1' "$T/notify-$mode.out" | wc -l)
	assert_eq "$after" "$before" "$mode: WATCHDOG=1 went on during the hang"
	grep -q 'not feeding the watchdog' "$DLOG" ||
	    fail "$mode: no log line about the stuck thread"
	assert_alive "$mode: a hung writer"
	kill -KILL "$DPID"
	wait "$DPID" 2>/dev/null || true
	DPID=
	: >"$DLOG"
done
log "ok: the watchdog starves while a writer or a generator hangs"
