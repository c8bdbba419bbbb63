#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# prioritize with aged promotion: the run completes with every update on
# disk and promotion_count reported; high-water marks drop and count what
# is over the mark, conservation holds and disk matches updates_completed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# ---- 1. prioritize + max_insig_update_seconds, half the files zero files
FILES=200
UPDATES=20000
D=$T/prio
start_run --dir "$D" --files "$FILES" --zero-files $((FILES / 2)) \
    --threads 4 --write-threads 1 --max-updates "$UPDATES" --update-time 2 \
    --prioritize --max-insig-update-seconds 1 --rra "$RRA" >/dev/null
saw_insig=0
deadline=$((SECONDS + 120))
while :; do
	s=$(stats)
	check_invariants "$s" "prioritized run snapshot"
	jnum "$s" promotion_count >/dev/null
	[ "$(jnum "$s" files_with_insignificant_work)" -eq 0 ] || saw_insig=1
	case $(jget "$s" state) in
	done) break ;;
	creating|running|draining) ;;
	*) fail "prioritized run: state $(jget "$s" state)" ;;
	esac
	[ "$SECONDS" -lt "$deadline" ] || fail "prioritized run did not end in 120 s"
	sleep 0.1
done
log "prioritized run: files_with_insignificant_work seen > 0: $saw_insig"
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "prioritized run: state"
assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" "prioritized run: updates_completed"
assert_eq "$(jnum "$s" dropped)" 0 "prioritized run: dropped"
check_drained "$s" "prioritized run"
check_invariants "$s" "prioritized run"
assert_eq "$(jnum "$s" files_with_insignificant_work)" 0 \
    "prioritized run: files_with_insignificant_work at the end"
pc=$(jnum "$s" promotion_count)
assert_num "$pc" '>=' 0 "prioritized run: promotion_count"
log "prioritized run: promotion_count $pc"
# Half the files are zero files: their updates are insignificant, so
# significant_ops_enqueued counts only the others' (creates included or
# not: between UPDATES/2 and UPDATES/2 + FILES).
sig=$(jnum "$s" significant_ops_enqueued)
assert_num "$sig" '>=' $((UPDATES / 2)) "prioritized run: significant_ops_enqueued"
assert_num "$sig" '<=' $((UPDATES / 2 + FILES)) "prioritized run: significant_ops_enqueued"
assert_eq "$(jnum "$s" significant_ops_completed)" "$sig" \
    "prioritized run: significant_ops_completed == significant_ops_enqueued"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$UPDATES" "prioritized run: updates on disk"
# Zero files (n % 2 == 0) hold 0, the others not.
bad=$(awk '$1 % 2 == 0 && ($3 == "U" || $3 + 0 != 0) { print; exit }
    $1 % 2 == 1 && ($3 == "U" || $3 + 0 == 0) { print; exit }' <<<"$scan")
[ -z "$bad" ] || fail "prioritized run: wrong last value (n count value): $bad"
slog=$STATE/runs/$(jget "$s" run_id)/stress.log
grep -qE $'^QS:\t.*promotionCount=[0-9]+' "$slog" ||
    fail "stress.log has no promotionCount"

# ---- 2. queue_high_water 10, flat out, one writer: drops, counted
# (creates before the load so that only updates meet the mark)
FILES=100
D=$T/hw
start_run --dir "$D" --files "$FILES" --threads 4 --write-threads 1 \
    --max-updates "$UPDATES" --update-time 0 --queue-high-water 10 \
    -D stresstest.queuecreates=false --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "high-water run: state"
check_drained "$s" "high-water run"
check_invariants "$s" "high-water run"
assert_eq "$(jnum "$s" offered)" "$UPDATES" "high-water run: offered"
dropped=$(jnum "$s" dropped)
log "high-water run: dropped $dropped of $UPDATES"
assert_num "$dropped" '>' 0 "high-water run: dropped"
completed=$(jnum "$s" updates_completed)
assert_eq "$((completed + $(jnum "$s" updates_failed) + dropped))" "$UPDATES" \
    "high-water run: written + dropped == offered"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$completed" "high-water run: updates on disk"
assert_eq "$(find "$D" -name '*.rrd' | wc -l)" "$FILES" "high-water run: files"

# ---- 3. sig_high_water: only significant updates are dropped; with all
# files zero files nothing is significant and nothing is dropped
D=$T/sighw
start_run --dir "$D" --files "$FILES" --zero-files "$FILES" --threads 4 \
    --write-threads 1 --max-updates 5000 --update-time 0 --sig-high-water 10 \
    -D stresstest.queuecreates=false --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "sig-high-water run (all zero files): state"
check_invariants "$s" "sig-high-water run (all zero files)"
assert_eq "$(jnum "$s" dropped)" 0 "sig-high-water run (all zero files): dropped"
assert_eq "$(jnum "$s" updates_completed)" 5000 \
    "sig-high-water run (all zero files): updates_completed"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" 5000 "sig-high-water run (all zero files): updates on disk"
bad=$(awk '$3 == "U" || $3 + 0 != 0 { print; exit }' <<<"$scan")
[ -z "$bad" ] || fail "zero_files == files: a file holds a non-zero value: $bad"

assert_alive "the runs"
log "PASS"
