#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# librrd write errors during a run: RRD files deleted mid-run make their
# updates fail.  The daemon keeps running, counts one error per failed
# rrd_update_r and the batch's values in updates_failed, keeps the first
# messages (naming the file) in status, and conservation still holds.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

FILES=40
UPDATES=4000
D=$T/rrd

# Paced over 4 s so the files exist well before the run ends.
start_run --dir "$D" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates "$UPDATES" --update-time 4 --zero-files 0 \
    --rra "$RRA" >/dev/null
s=$(wait_for_stats ".creates_completed == $FILES" 30)
check_invariants "$s" "after the creates"
# What the three files held just before they went (a lower bound: a write
# may still land between the read and the rm).
before=0
for n in 3 7 11; do
	f=$(rrd_path "$D" "$n")
	last=$(rrdtool lastupdate "$f" | tail -n 1 | cut -d: -f1)
	before=$((before + (last - START_TS) / STEP))
	rm -f "$f"
done
log "deleted files 3, 7 and 11 mid-run"

s=$(wait_run)
assert_eq "$(jget "$s" state)" done "final state"
check_invariants "$s" "final stats"
check_drained "$s" "final stats"
failed=$(jnum "$s" updates_failed)
errors=$(jnum "$s" errors)
assert_num "$failed" '>' 0 "updates_failed"
assert_num "$errors" '>' 0 "errors"
# One error per failed call, each call holding at least one value.
assert_num "$errors" '<=' "$failed" "errors vs updates_failed"
assert_eq "$(jnum "$s" updates_completed)" $((UPDATES - failed)) \
    "updates_completed + updates_failed"

st=$(ctlj status)
n=$(jq '.run.error_messages | length' <<<"$st")
assert_num "$n" '>=' 1 "kept error messages"
assert_num "$n" '<=' 10 "kept error messages are bounded"
msg=$(jq -r '.run.error_messages[0]' <<<"$st")
case $msg in
"$D"/3.rrd* | *"$D/3.rrd"* | *"$D/7.rrd"* | *"$D/11.rrd"*) ;;
*) fail "first error message names no deleted file: $msg" ;;
esac
grep -q "run 1: .*$D/\(3\|7\|11\)\.rrd" "$DLOG" ||
    fail "the daemon log holds no error naming a deleted file"

# The untouched files hold every update that was not failed.
sum=0
for ((i = 0; i < FILES; i++)); do
	case $i in 3 | 7 | 11) continue ;; esac
	last=$(rrdtool lastupdate "$(rrd_path "$D" "$i")" | tail -n 1 | cut -d: -f1)
	sum=$((sum + (last - START_TS) / STEP))
done
# completed = (on disk in untouched files) + (landed in the deleted files
# before they went), and the latter is at least $before.
completed=$((UPDATES - failed))
assert_num "$sum" '<=' "$completed - $before" "updates on disk in the untouched files"
assert_num "$sum" '>=' "$completed - $before - 30" "updates on disk in the untouched files"
assert_alive "write errors"
log "ok: $failed updates failed in $errors calls, $sum on disk"
