#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Run ids end at 999,999,999 (RUNRECORDS_MAX_ID): with the last id taken,
# a start is refused naming the limit, and no record is written past it,
# so none can be left out of `runs` and overwritten after a restart.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

LAST=999999999
mkdir -p "$STATE/runs/$((LAST - 1))"
start_daemon
common=(--dir "$T/rrd" --files 10 --max-updates 100 --update-time 0
    --rra "$RRA")

# The last id is still given out.
out=$(start_run "${common[@]}")
assert_eq "$(jget "$out" run_id)" "$LAST" "run id of the last run"
wait_run >/dev/null
assert_contains "$(ctl runs)" "$LAST" "runs lists the last id"

# The next start is refused, with the limit in the message.
rc=0
out=$(ctlj start "${common[@]}" 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "start past the last run id succeeded: $out"
assert_contains "$out" "$LAST" "refusal names the last id"
[ ! -e "$STATE/runs/$((LAST + 1))" ] ||
    fail "a record was written past the last run id"

# After a restart still refused, and the last record untouched.
sum=$(md5sum "$STATE/runs/$LAST/report.json")
stop_daemon TERM 20
start_daemon
rc=0
out=$(ctlj start "${common[@]}" 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "start past the last run id succeeded after a restart: $out"
assert_eq "$(md5sum "$STATE/runs/$LAST/report.json")" "$sum" \
    "the last record after a restart"
assert_alive
log "ok"
