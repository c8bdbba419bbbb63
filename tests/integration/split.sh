#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Coalescing and the cap on values per rrd_update_r call: one file, one
# writer, 30000 updates offered flat out pile up behind the writer's first
# small batch, and the next batch is written in calls of at most 10000
# values (WRITER_MAX_VALUES_PER_CALL), all landing in time order.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

UPDATES=30000
CAP=10000
D=$T/rrd

start_run --dir "$D" --files 1 --threads 1 --write-threads 1 \
    --max-updates "$UPDATES" --update-time 0 --zero-files 0 \
    --rra 'RRA:AVERAGE:0.5:1:100' >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "final state"
check_invariants "$s" "final stats"
check_drained "$s" "final stats"
assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" "updates_completed"
items=$(jnum "$s" dequeued_items)
calls=$(jnum "$s" update_calls)
# Every batch is at least one call; at least ceil(30000 / cap) calls.
assert_num "$calls" '>=' "$items" "update_calls vs dequeued_items"
assert_num "$calls" '>=' "$UPDATES / $CAP" "update_calls"
# No call carries more than the cap: with `items` batches of which the
# largest is at most 30000, calls >= items + (largest - 1) / cap.
assert_num "$calls" '<=' "$items + $UPDATES / $CAP" "update_calls upper bound"
if [ "$items" -lt $((UPDATES / CAP)) ]; then
	# Fewer batches than cap-sized chunks: the writer must have split.
	assert_num "$calls" '>' "$items" "a batch over the cap was split"
fi
last=$(rrdtool lastupdate "$D/0.rrd" | tail -n 1 | cut -d: -f1)
assert_eq $(((last - START_TS) / STEP)) "$UPDATES" "updates on disk"
log "ok: $UPDATES updates in $items batches, $calls rrd_update_r calls"
