#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Every discard has its reason, with its counts: `stop --no-drain` during
# the create phase (queue_creates false: all 1,000 creates queued before
# the load) and during a flat-out run (creates queued on first update).
# Queued creates thrown away are counted (creates_discarded) and the
# creates are conserved:
#   creates_queued == creates_completed + creates_failed + creates_pending
#                     + creates_discarded
# in stats, report.json and /metrics; the reason is in stats, report.json
# and stress.log's last line; the files on disk are the creates completed.
# A shutdown that comes while a no-drain stop ends keeps the stop's reason.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

build_shim
FILES=1000
# 5 ms a create: one writer takes 5 s or more for the 1,000, so the
# stops below find creates still queued whatever the machine.
# env, not a prefix: a prefix on a function preloads its grep and tail too.
STRESSD_WRAPPER=(env "LD_PRELOAD=$PRELOAD" STRESSD_TEST_SLOW_CREATE_US=5000)
start_metrics_daemon
STRESSD_WRAPPER=()

# check_creates STATS LABEL: conservation (check_invariants has that of
# creates too), nothing pending.
check_creates() {
	check_invariants "$1" "$2"
	check_drained "$1" "$2"
	assert_eq "$(jnum "$1" creates_pending)" 0 "$2: creates_pending"
}

# check_record STATS RUN_ID DIR LABEL: the reason names the no-drain stop
# and its counts, in stats, report.json and stress.log's last line; the
# record's counters and /metrics agree with stats; what is on disk is
# what was completed.
check_record() {
	local s=$1 id=$2 dir=$3 what=$4 reason rep c k body n
	reason=$(jget "$s" reason)
	assert_contains "$reason" "stop --no-drain" "$what: reason"
	assert_contains "$reason" "$(jnum "$s" discarded) update values" \
	    "$what: reason counts the values"
	assert_contains "$reason" "$(jnum "$s" creates_discarded) queued creates" \
	    "$what: reason counts the creates"
	rep=$(cat "$STATE/runs/$id/report.json")
	assert_eq "$(jget "$rep" reason)" "$reason" "$what: report.json reason"
	assert_eq "$(tail -n 1 "$STATE/runs/$id/stress.log")" \
	    "# run $id stopped: $reason" "$what: stress.log's last line"
	c=$(jq -c .counters <<<"$rep")
	check_creates "$c" "$what: report.json counters"
	body=$(curl -sf "$URL/metrics") || fail "$what: GET /metrics failed"
	for k in creates_queued creates_discarded creates_completed discarded; do
		assert_eq "$(jget "$c" "$k")" "$(jget "$s" "$k")" \
		    "$what: report.json counters.$k"
		assert_eq "$(awk -v n="stressd_${k}_total" '$1 == n { print $2 }' \
		    <<<"$body")" "$(jget "$s" "$k")" "$what: stressd_${k}_total"
	done
	n=$(find "$dir" -name '*.rrd' | wc -l)
	assert_eq "$n" "$(jnum "$s" creates_completed)" \
	    "$what: files on disk vs creates_completed"
	assert_eq "$(rrd_sum "$(rrd_scan -m "$dir" "$FILES")")" \
	    "$(jnum "$s" updates_completed)" "$what: updates on disk"
}

# ---- 1. stop --no-drain while creating: every create is accounted for
D=$T/creating
start_run --dir "$D" --files "$FILES" --no-queue-creates --threads 2 \
    --write-threads 1 --max-updates 100000 --update-time 0 --rra "$RRA" \
    >/dev/null
wait_for_stats '.state == "creating" and .creates_completed >= 20' 60 >/dev/null
s=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj stop --no-drain)
assert_eq "$(jget "$s" state)" stopped "stop while creating: state"
check_creates "$s" "stop while creating"
assert_eq "$(jnum "$s" creates_queued)" "$FILES" "stop while creating: creates_queued"
assert_eq "$(($(jnum "$s" creates_completed) + $(jnum "$s" creates_failed) + \
    $(jnum "$s" creates_discarded)))" "$FILES" \
    "stop while creating: completed + failed + discarded"
assert_num "$(jnum "$s" creates_discarded)" '>' 0 \
    "stop while creating: creates_discarded"
check_record "$s" 1 "$D" "stop while creating"
log "while creating: $(jnum "$s" creates_completed) created, $(jnum "$s" creates_discarded) discarded: $(jget "$s" reason)"

# ---- 2. stop --no-drain of a flat-out run whose creates are queued
D=$T/running
start_run --dir "$D" --files "$FILES" --threads 4 --write-threads 1 \
    --max-updates 3000000 --update-time 0 --rra "$RRA" >/dev/null
# (flat out, the generators may be done and the run draining already)
wait_for_stats '(.state == "running" or .state == "draining") and
    .creates_completed >= 20 and .total_operations_pending > 1000' 60 \
    >/dev/null
# stats and the stop in one write, handled back to back (see stop.sh)
out=$(printf '%s\n' '{"cmd":"stats","id":1}' \
    '{"cmd":"stop","args":{"drain":false},"id":2}' | rawsend -n 2 -t 60)
p=$(sed -n 1p <<<"$out" | jq -c .result) || fail "stats before stop: $out"
s=$(sed -n 2p <<<"$out" | jq -c .result) || fail "stop --no-drain: $out"
is_json "$s" || fail "stop --no-drain: no final stats: ${out:0:300}"
assert_eq "$(jget "$s" state)" stopped "stop while running: state"
check_creates "$s" "stop while running"
if [ "$(jnum "$p" creates_pending)" -gt 1 ]; then
	assert_num "$(jnum "$s" creates_discarded)" '>' 0 \
	    "stop while running with $(jnum "$p" creates_pending) creates pending: creates_discarded"
fi
assert_num "$(jnum "$s" discarded)" '>' 0 "stop while running: discarded"
check_record "$s" 2 "$D" "stop while running"
log "while running: $(jnum "$s" creates_queued) creates queued, $(jnum "$s" creates_discarded) discarded: $(jget "$s" reason)"
assert_alive "stop --no-drain"
stop_daemon TERM 30

# ---- 3. a shutdown while a no-drain stop waits for its writer keeps the
# stop's reason: the queue was discarded, not drained
# 3 s a call: the writer holds its batch while stop and SIGTERM come
LD_PRELOAD=$PRELOAD STRESSD_TEST_SLOW_US=3000000 start_daemon
start_run --dir "$T/slow" --files 10 --threads 1 --write-threads 1 \
    --max-updates 100000 --update-time 0 --rra "$RRA" >/dev/null
wait_for_stats '.in_flight > 0 and .total_operations_pending > 0' 30 >/dev/null
ctl stop --no-drain --no-wait >/dev/null
stop_daemon TERM 30
rep=$(cat "$STATE/runs/3/report.json")
assert_eq "$(jget "$rep" state)" stopped "stop then SIGTERM: state"
reason=$(jget "$rep" reason)
assert_contains "$reason" "stop --no-drain" "stop then SIGTERM: reason"
assert_contains "$reason" "$(jget "$rep" counters.discarded) update values" \
    "stop then SIGTERM: reason counts the values"
case $reason in
*drained*) fail "stop then SIGTERM: the reason says drained: $reason" ;;
esac
log "PASS"
