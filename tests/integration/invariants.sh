#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# Conservation in every stats snapshot of a paced run, monotonic counters,
# pacing; then coalescing (ops per update > 1) in a flat-out run with one
# writer.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# ---- 1. a paced run polled every ~0.1 s
FILES=300
UPDATES=20000
UPDATE_TIME=4
D=$T/paced

start_run --dir "$D" --files "$FILES" --threads 4 --write-threads 2 \
    --max-updates "$UPDATES" --update-time "$UPDATE_TIME" --rra "$RRA" \
    >/dev/null

snaps=0
running=0
partial=0
prev_offered=0 prev_enqueued=0 prev_completed=0 prev_generated=0
deadline=$((SECONDS + 120))
while :; do
	s=$(stats)
	snaps=$((snaps + 1))
	check_invariants "$s" "snapshot $snaps"
	IFS=$'\t' read -r state offered enqueued completed generated < <(jq -r \
	    '[.state, .offered, .enqueued, .updates_completed, .generated] | @tsv' \
	    <<<"$s")
	[[ $generated =~ ^[0-9]+$ ]] ||
	    fail "snapshot $snaps: generated is not a count: $generated"
	# Counters never go back.
	[ "$offered" -ge "$prev_offered" ] ||
	    fail "snapshot $snaps: offered went from $prev_offered to $offered"
	[ "$enqueued" -ge "$prev_enqueued" ] ||
	    fail "snapshot $snaps: enqueued went from $prev_enqueued to $enqueued"
	[ "$completed" -ge "$prev_completed" ] ||
	    fail "snapshot $snaps: updates_completed went from $prev_completed to $completed"
	[ "$generated" -ge "$prev_generated" ] ||
	    fail "snapshot $snaps: generated went from $prev_generated to $generated"
	[ "$generated" -le "$UPDATES" ] ||
	    fail "snapshot $snaps: generated $generated > max_updates $UPDATES"
	prev_offered=$offered prev_enqueued=$enqueued
	prev_completed=$completed prev_generated=$generated
	case $state in
	creating|draining) ;;
	running)
		running=$((running + 1))
		if [ "$generated" -gt 0 ] && [ "$generated" -lt "$UPDATES" ]; then
			partial=$((partial + 1))
		fi
		;;
	done) break ;;
	*) fail "snapshot $snaps: unexpected state '$state': $s" ;;
	esac
	[ "$SECONDS" -lt "$deadline" ] || fail "paced run did not end in 120 s"
	sleep 0.1
done
log "$snaps snapshots, $running while running, $partial part-way"
# A 4 s paced run polled every 0.1 s is seen running part-way many times
# (loosely: the machine may be slow to answer).
assert_num "$partial" '>=' 5 "snapshots seen running with 0 < generated < max_updates"

s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "paced run: state"
assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" "paced run: updates_completed"
check_drained "$s" "paced run"
check_invariants "$s" "paced run final"
# Pacing: the last update is not issued before update_time seconds.
assert_num "$(jnum "$s" elapsed_s)" '>=' "$UPDATE_TIME - 0.1" "paced run: elapsed_s"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$UPDATES" "paced run: updates on disk"

# ---- 2. coalescing: many updates per file, one writer, flat out
FILES=50
UPDATES=20000
D=$T/flat
start_run --dir "$D" --files "$FILES" --threads 8 --write-threads 1 \
    --max-updates "$UPDATES" --update-time 0 --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "flat-out run: state"
assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" "flat-out run: updates_completed"
check_drained "$s" "flat-out run"
check_invariants "$s" "flat-out run final"
ops=$(jnum "$s" dequeued_operations)
items=$(jnum "$s" dequeued_items)
assert_num "$items" '>' 0 "flat-out run: dequeued_items"
opu=$(jnum "$s" rates.ops_per_update_overall)
log "coalescing: $ops operations in $items batches, ops_per_update_overall $opu"
assert_num "$ops / $items" '>' 1 "flat-out run: dequeued_operations / dequeued_items"
assert_num "$opu" '>' 1 "flat-out run: rates.ops_per_update_overall"
# ops_per_update_overall is dequeued_operations / dequeued_items.
assert_num "($opu - $ops / $items) | fabs" '<' "0.01 * $opu" \
    "ops_per_update_overall vs dequeued_operations / dequeued_items"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$UPDATES" "flat-out run: updates on disk"

assert_alive "the runs"
log "PASS"
