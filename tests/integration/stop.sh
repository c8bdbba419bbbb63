#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# stop: drained (default), --no-wait, --no-drain (discards counted as
# dropped), stop without a run (no_run). Conservation holds throughout and
# the files on disk hold exactly updates_completed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

FILES=200

# stop_json ARGS...: `stressctl --json stop ARGS`, must succeed.
stop_json() {
	local out rc=0
	out=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj stop "$@" 2>"$T/ctl.err") || rc=$?
	[ "$rc" -eq 0 ] || fail "stop $* exited $rc: $out $(cat "$T/ctl.err")"
	is_json "$out" || fail "stop --json $* printed no JSON object: $out"
	printf '%s\n' "$out"
}

# check_stopped STATS LABEL DIR [MAX_UPDATES]: with MAX_UPDATES, the
# generators must have been stopped before reaching it.
check_stopped() {
	local s=$1 what=$2 scan
	assert_eq "$(jget "$s" state)" stopped "$what: state"
	check_drained "$s" "$what"
	check_invariants "$s" "$what"
	if [ $# -ge 4 ]; then
		assert_num "$(jnum "$s" generated)" '<' "$4" \
		    "$what: generated (stopped early)"
	fi
	# Creates are queued: files the load never reached may not exist.
	scan=$(rrd_scan -m "$3" "$FILES")
	assert_eq "$(rrd_sum "$scan")" "$(jnum "$s" updates_completed)" \
	    "$what: updates on disk vs updates_completed"
}

# ---- 1. stop with drain (the default), waiting for the end
MAX=60000
D=$T/drain
start_run --dir "$D" --files "$FILES" --threads 4 --write-threads 2 \
    --max-updates "$MAX" --update-time 60 --rra "$RRA" >/dev/null
wait_for_stats '.state == "running" and .updates_completed >= 200' 60 >/dev/null
s=$(stop_json)
check_stopped "$s" "drained stop" "$D" "$MAX"
assert_num "$(jnum "$s" updates_completed)" '>=' 200 "drained stop: updates_completed"
assert_eq "$(jnum "$s" dropped)" 0 "drained stop: dropped"
assert_eq "$(jnum "$s" offered)" "$(jnum "$s" updates_completed)" \
    "drained stop: every offered update written"
s2=$(stats)
assert_eq "$(jget "$s2" state)" stopped "stats after drained stop: state"
assert_eq "$(jnum "$s2" updates_completed)" "$(jnum "$s" updates_completed)" \
    "stats after drained stop: updates_completed"
assert_alive "drained stop"

# ---- 2. stop without a run
out=$(ctl stop 2>&1) && rc=0 || rc=$?
assert_eq "$rc" 1 "stop without an active run: stressctl exit status ($out)"
r=$(rawreq '{"cmd":"stop","id":3}')
expect_error "$r" no_run "stop without an active run (raw)"
assert_eq "$(jget "$r" id)" 3 "stop without a run: id echoed"

# ---- 3. stop --no-wait returns at once; wait then gives the final stats
D=$T/nowait
start_run --dir "$D" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates "$MAX" --update-time 60 --rra "$RRA" >/dev/null
wait_for_stats '.state == "running" and .updates_completed >= 100' 60 >/dev/null
out=$(ctl stop --no-wait 2>&1) && rc=0 || rc=$?
assert_eq "$rc" 0 "stop --no-wait: exit status ($out)"
s=$(wait_run)
check_stopped "$s" "stop --no-wait then wait" "$D" "$MAX"
assert_eq "$(jnum "$s" dropped)" 0 "stop --no-wait (drains): dropped"

# ---- 4. stop --no-drain on a deep queue: discarded ops are counted
MAX=1000000
D=$T/nodrain
start_run --dir "$D" --files "$FILES" --threads 4 --write-threads 1 \
    --max-updates "$MAX" --update-time 0 --rra "$RRA" >/dev/null
p1=$(wait_for_stats '.total_operations_pending > 0 or .state == "done"' 60)
[ "$(jget "$p1" state)" != 'done' ] ||
    fail "a 1,000,000-update run with one writer finished before it could be stopped"
# stats and the stop in one write: the daemon handles them back to back,
# so the queue the stop discards is the one stats saw, not what is left
# of it after a second stressctl has started on a loaded machine.
out=$(printf '%s\n' '{"cmd":"stats","id":1}' \
    '{"cmd":"stop","args":{"drain":false},"id":2}' | rawsend -n 2 -t 60)
p1=$(sed -n 1p <<<"$out" | jq -c .result) || fail "stats before stop: $out"
s=$(sed -n 2p <<<"$out" | jq -c .result) || fail "stop --no-drain: $out"
is_json "$s" || fail "stop --no-drain: no final stats: ${out:0:300}"
pending1=$(jnum "$p1" total_operations_pending)
# (flat out, the generators may well have finished: no bound on generated)
check_stopped "$s" "stop --no-drain" "$D"
dropped=$(jnum "$s" dropped)
discarded=$(jget "$s" discarded)
[ "$discarded" != null ] || discarded=0
log "no-drain: pending before stop $pending1, dropped $dropped, discarded $discarded"
# The queue cannot empty between a snapshot showing this much pending and
# the stop handled right after it: the discards must show.
if [ "$pending1" -ge 10000 ]; then
	assert_num "$dropped + $discarded" '>' 0 \
	    "stop --no-drain with $pending1 pending: dropped + discarded"
	assert_num "$(jnum "$s" updates_completed) + $(jnum "$s" updates_failed)" \
	    '<' "$(jnum "$s" offered)" "stop --no-drain: written < offered"
else
	log "queue was shallow ($pending1) at stop: discards not required"
fi
# Discarded updates were not written: offered = written + dropped +
# discarded, and enqueued still counts them (counters never go back).
assert_eq "$(jnum "$s" offered)" \
    "$(($(jnum "$s" updates_completed) + $(jnum "$s" updates_failed) + dropped + discarded))" \
    "stop --no-drain: offered == written + dropped + discarded"
assert_num "$(jnum "$s" enqueued)" '>=' "$(jnum "$p1" enqueued)" \
    "stop --no-drain: enqueued never goes back"

assert_alive "stop --no-drain"
log "PASS"
