#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# A drain at shutdown longer than --drain-timeout is cut short: what is
# still queued is discarded and counted as dropped, the record says so,
# the files hold exactly updates_completed, and the exit status is 1.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

build_shim

# systemd hears of the drain: EXTEND_TIMEOUT_USEC while it moves
NS=$T/notify.sock
notify_listen "$NS" "$T/notify.out"
# A disk of 2 ms per write: one writer can do at most 500 of the 2,000
# files a second, so the drain of a queue spread over all of them takes
# seconds whatever the machine (librrd alone drained a million values
# inside the first second's check on a fast, idle one).
NOTIFY_SOCKET=$NS LD_PRELOAD=$PRELOAD STRESSD_TEST_SLOW_US=2000 \
    start_daemon --drain-timeout 0
D=$T/rrd
# Flat out with one writer: a queue far deeper than one second of writes.
start_run --dir "$D" --files 2000 --threads 2 --write-threads 1 \
    --max-updates 6000000 --update-time 0 --zero-files 0 --rra "$RRA" >/dev/null
wait_for_stats '.total_operations_pending > 1000000' 60 >/dev/null
stop_daemon TERM 30
assert_eq "$DAEMON_RC" 1 "exit status after a cut-short drain"
grep -q 'took longer than 0 s (--drain-timeout)' "$DLOG" ||
    fail "no drain-timeout line in the log"
sleep 0.2
grep -q 'EXTEND_TIMEOUT_USEC=' "$T/notify.out" ||
    fail "no EXTEND_TIMEOUT_USEC during the drain: $(cat "$T/notify.out")"
rep=$(cat "$STATE/runs/1/report.json")
assert_eq "$(jget "$rep" state)" stopped "run state"
c=$(jq -c .counters <<<"$rep")
assert_num "$(jget "$c" discarded)" '>' 0 "discarded"
assert_eq "$(jget "$c" dropped_at_shutdown)" "$(jget "$c" discarded)" \
    "dropped_at_shutdown vs discarded"
assert_eq "$(jnum "$c" enqueued)" \
    "$(($(jnum "$c" updates_completed) + $(jnum "$c" updates_failed) + $(jnum "$c" dropped_at_shutdown)))" \
    "enqueued == updates_completed + updates_failed + dropped_at_shutdown"
jget "$rep" reason | grep -q -- '--drain-timeout' ||
    fail "the record's reason does not name the drain timeout: $(jget "$rep" reason)"
check_invariants "$c" "final counters"
check_drained "$c" "final counters"
sum=$(rrd_sum "$(rrd_scan -m "$D" 2000)")
assert_eq "$sum" "$(jget "$c" updates_completed)" "updates on disk"
log "ok: drain cut short, $(jget "$c" discarded) discarded, $sum on disk"
