#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The "current" rates are the same for every client and every call: they
# cover the run's latest sample interval, not the time since whoever
# called stats last.  Two stats calls in a row (one --all) agree, during
# a run and after it; a watch polling beside them changes nothing.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

cur() { jq -r '.rates.current_dequeue.total' <<<"$1"; }
# A paced run sampled every 2 s: calls in quick succession fall within
# one sample interval.
start_run --dir "$T/rrd" --files 50 --max-updates 2400 --update-time 8 \
    --sample-interval 2 --rra "$RRA" >/dev/null
sleep 4.5
a=$(ctlj stats) b=$(ctlj stats) c=$(ctlj stats)
assert_eq "$(cur "$b")" "$(cur "$a")" "second call's current dequeue (running)"
assert_eq "$(cur "$c")" "$(cur "$a")" "third call's current dequeue (running)"
assert_num "$(cur "$a")" ">" 0 "current dequeue under load"
# stats and stats --all print the same figure.
t=$(ctl stats | sed -n 's/^rates *[^,]*, dequeue \([0-9.]*\).*/\1/p')
close() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.05 && d > -0.05) }'; }
close "$t" "$(cur "$a")" ||
    fail "stats' text says dequeue $t, its JSON $(cur "$a") a moment before"
wait_run >/dev/null
e=$(ctlj stats) f=$(ctlj stats)
assert_eq "$(cur "$f")" "$(cur "$e")" "current dequeue after the run, twice"
all=$(ctl stats --all | awk '$1 == "current_dequeue" { print $4; exit }')
log "running: current dequeue $(cur "$a") ($t in stats' text); ended: $(cur "$e"), stats --all $all"
[ -n "$all" ] || fail "no current_dequeue total in stats --all"
close "$all" "$(cur "$e")" ||
    fail "stats --all current dequeue $all, stats --json $(cur "$e")"
