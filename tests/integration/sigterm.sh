#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# Daemon lifecycle: SIGTERM during a run drains and exits 0, removes the
# socket, and leaves exactly the logged updates on disk; a second stressd
# on a live socket is refused; a stale socket file is replaced; SIGINT
# exits cleanly.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

FILES=200
MAX=4000
D=$T/rrd

# ---- a second daemon on the live socket is refused; the first is unharmed
rc=0
timeout -k 2 10 "$STRESSD" --socket "$SOCK" --state-dir "$T/state2" \
    --log-level debug >"$T/second.log" 2>&1 || rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] ||
    fail "a second stressd on a live socket kept running instead of refusing"
[ "$rc" -ne 0 ] || fail "a second stressd on a live socket exited 0"
[ -S "$SOCK" ] || fail "the refused second stressd removed the live socket"
assert_alive "a second stressd on the same socket"
# ---- nor one on the live state directory (another socket): the lock
rc=0
timeout -k 2 10 "$STRESSD" --socket "$T/other.sock" --state-dir "$STATE" \
    >"$T/third.log" 2>&1 || rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] && [ "$rc" -ne 0 ] ||
    fail "a second stressd on a live state directory did not refuse (rc $rc)"
grep -q "state directory $STATE is in use by another stressd, pid $DPID" \
    "$T/third.log" || fail "no reason for the refusal: $(cat "$T/third.log")"
assert_alive "a second stressd on the same state directory"

# ---- SIGTERM during a paced run
r=$(start_run --dir "$D" --files "$FILES" --threads 4 --write-threads 2 \
    --max-updates "$MAX" --update-time 20 --modulus 1 --rra "$RRA")
run_id=$(jget "$r" run_id)
before=$(wait_for_stats '.state == "running" and .updates_completed >= 100' 60)
done_before=$(jnum "$before" updates_completed)
pid=$DPID
t0=$SECONDS
stop_daemon TERM 30
log "SIGTERM: exited $DAEMON_RC after $((SECONDS - t0)) s"
assert_eq "$DAEMON_RC" 0 "stressd exit status after SIGTERM"
pid_alive "$pid" && fail "stressd process $pid still there"
[ ! -e "$SOCK" ] || fail "socket file $SOCK left behind after SIGTERM"

# Creates are queued: files the load never reached may not exist.
scan=$(rrd_scan -m "$D" "$FILES")
on_disk=$(rrd_sum "$scan")
log "SIGTERM: $done_before completed before the signal, $on_disk on disk"
assert_num "$on_disk" '>=' "$done_before" "updates on disk vs completed before SIGTERM"
assert_num "$on_disk" '<' "$MAX" "updates on disk (the run was cut short)"
# With modulus 1 the last progress line of stress.log counts every update
# written, drained ones included.
slog=$STATE/runs/$run_id/stress.log
[ -f "$slog" ] || fail "$slog missing"
last=$(grep -oE '^[0-9]+ samples stored' "$slog" | tail -n 1 | cut -d' ' -f1)
[ -n "$last" ] || fail "no progress line in $slog"
assert_eq "$on_disk" "$last" "updates on disk vs the last 'samples stored' of stress.log"

# The run record is complete: state, reason, counters that add up.
rep=$(cat "$STATE/runs/$run_id/report.json")
assert_eq "$(jget "$rep" state)" stopped "report.json state after SIGTERM"
jget "$rep" reason | grep -q 'SIGTERM' ||
    fail "report.json reason does not name SIGTERM: $(jget "$rep" reason)"
c=$(jq -c .counters <<<"$rep")
check_invariants "$c" "report.json counters after SIGTERM"
assert_eq "$(jnum "$c" updates_completed)" "$on_disk" \
    "report.json updates_completed vs updates on disk"
assert_eq "$(jnum "$c" enqueued)" \
    "$(($(jnum "$c" updates_completed) + $(jnum "$c" updates_failed) + $(jnum "$c" dropped_at_shutdown)))" \
    "enqueued == updates_completed + updates_failed + dropped_at_shutdown"
assert_eq "$(jnum "$c" dropped_at_shutdown)" 0 "dropped_at_shutdown after a drain"

# ---- restart on the same state dir: serves again, and the files reuse
# shellcheck disable=SC2119
start_daemon
assert_alive "restart after SIGTERM"

# ---- SIGINT mid-run with a modulus never reached: stress.log still ends
# with a final stats block, and disk holds exactly updates_completed
D2=$T/rrd2
r=$(start_run --dir "$D2" --files 50 --threads 2 --write-threads 1 \
    --max-updates 100000 --update-time 1 --modulus 1000000000 --rra "$RRA")
run2=$(jget "$r" run_id)
wait_for_stats '.state == "running" and .updates_completed >= 50' 60 >/dev/null
stop_daemon INT 30
assert_eq "$DAEMON_RC" 0 "stressd exit status after SIGINT mid-run"
slog=$STATE/runs/$run2/stress.log
tail -n 8 "$slog" | grep -q '^QS:' ||
    fail "stress.log of run $run2 does not end with a stats block: $(tail -n 8 "$slog")"
tail -n 1 "$slog" | grep -q "^# run $run2 stopped: stopped by SIGINT" ||
    fail "stress.log of run $run2 does not end with its state: $(tail -n 1 "$slog")"
last=$(grep -oE '^[0-9]+ samples stored' "$slog" | tail -n 1 | cut -d' ' -f1)
c=$(jq -c .counters "$STATE/runs/$run2/report.json")
check_invariants "$c" "report.json counters after SIGINT"
on_disk2=$(rrd_sum "$(rrd_scan -m "$D2" 50)")
assert_eq "$on_disk2" "$(jnum "$c" updates_completed)" "SIGINT: updates on disk vs updates_completed"
assert_eq "$last" "$on_disk2" "SIGINT: final stats block vs updates on disk"
assert_eq "$(jnum "$c" enqueued)" \
    "$(($(jnum "$c" updates_completed) + $(jnum "$c" updates_failed) + $(jnum "$c" dropped_at_shutdown)))" \
    "SIGINT: enqueued == updates_completed + updates_failed + dropped_at_shutdown"
log "SIGINT: $on_disk2 on disk, final block says $last"
# shellcheck disable=SC2119
start_daemon
start_run --dir "$D" --files "$FILES" --max-updates "$FILES" --update-time 0 \
    --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run after restart: state"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" $((on_disk + FILES)) "updates on disk after one more run"

# ---- a stale socket file (daemon killed) is replaced
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null || true
DPID=
[ -e "$SOCK" ] || log "no stale socket left by SIGKILL; making one"
if [ ! -e "$SOCK" ]; then
	timeout 5 socat "UNIX-LISTEN:$SOCK,unlink-early" /dev/null &
	lpid=$!
	sleep 0.5
	kill -KILL "$lpid" 2>/dev/null || true
	wait "$lpid" 2>/dev/null || true
fi
# shellcheck disable=SC2119
start_daemon
assert_alive "start over a stale socket file"

# ---- SIGINT with no run: clean exit
stop_daemon INT 30
assert_eq "$DAEMON_RC" 0 "stressd exit status after SIGINT"
[ ! -e "$SOCK" ] || fail "socket file left behind after SIGINT"

log "PASS"
