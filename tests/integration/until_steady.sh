#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# until_steady (issue 23 point 2): a run keeps offering its load at its
# rate (max_updates / update_time) until its verdict is decided or
# until_steady seconds of load have passed, instead of a fixed count.
# A light load, steady from the start, ends well before its maximum with
# a decided verdict and the record says it ended "steady"; a load that
# cannot get the rule's 30 samples in its maximum ends there, done, with
# cannot tell and how long to run; bad values are refused naming the knob.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# run ARGS...: a run to its end; prints its report.json.
run() {
	local id
	id=$(jget "$(start_run --write-threads 1 --zero-files 0 --rra "$RRA" \
	    "$@")" run_id)
	wait_run >"$T/final.json"
	cat "$STATE/runs/$id/report.json"
}

# (1) 20 updates/s over 10 files, sampled every 0.2 s: 30 samples in 6 s,
# a queue of a value or two, steady from the start, kept up.  A fixed run
# would last 100 s (2,000 updates); until_steady 60 ends it once steady,
# but not before 30 s of load (a window spanning the kernel's writeback:
# a 6 s "steady" said little of the storage).
rep=$(run --dir "$T/l" --files 10 --max-updates 2000 --update-time 100 \
    --sample-interval 0.2 --until-steady 60)
log "light: $(jq -c '{state, reason, until_steady, elapsed_s,
    kept_up: .verdict.kept_up, gen: .counters.generated}' <<<"$rep")"
assert_eq "$(jget "$rep" state)" done "state of a run ended steady"
assert_eq "$(jq -c .until_steady.max_s <<<"$rep")" 60 "until_steady.max_s"
assert_eq "$(jq -r .until_steady.ended <<<"$rep")" steady "until_steady.ended"
assert_eq "$(jq -c .verdict.kept_up <<<"$rep")" true \
    "verdict: $(jq -r .verdict.reason <<<"$rep")"
assert_eq "$(jq -c .verdict.stopped_early <<<"$rep")" false "stopped_early"
load=$(jq '.verdict.load_phase.to_s - .verdict.load_phase.from_s' <<<"$rep")
assert_num "$load" '<' 32 "load phase of a run steady from the start"
assert_num "$load" '>=' 30 "load phase: 30 s at least"
assert_num "$(jget "$rep" until_steady.after_s)" '==' "$load" \
    "until_steady.after_s is the load phase"
jget "$rep" reason | grep -q '^steady after [0-9.]* s of load (until_steady 60 s)$' ||
    fail "reason: $(jget "$rep" reason)"
# the rate kept: 20 updates/s over the load phase, give or take a pick
gen=$(jq .counters.generated <<<"$rep")
assert_num "$gen" '<=' "20 * $load + 1" "generated within the rate"
assert_num "$gen" '>=' "20 * $load - 10" "generated at the rate"
# the final stats say what was generated: all of it
f=$(cat "$T/final.json")
assert_eq "$(jget "$f" max_updates)" "$gen" "final stats' max_updates"
assert_eq "$(jget "$f" generated)" "$gen" "final stats' generated"
assert_num "$(jget "$f" max_updates) / $(jget "$f" update_time)" '==' 20 \
    "final stats' pace"
grep -q "^# run 1 done: steady after" "$STATE/runs/1/stress.log" ||
    fail "stress.log's end: $(tail -n 1 "$STATE/runs/1/stress.log")"
out=$(ctl report 1)
grep -q '^Verdict: kept up' <<<"$out" || fail "report: $(head -n 3 <<<"$out")"

# (2) until_steady 3 at one sample a second: at most 4 samples, never 30.
# It ends at its maximum, done, with 3 s of the load's 10/s, and cannot
# tell, saying how long to run.
rep=$(run --dir "$T/m" --files 10 --max-updates 100 --update-time 10 \
    --sample-interval 1 --until-steady 3)
log "max: $(jq -c '{state, reason, until_steady, v: .verdict.reason}' <<<"$rep")"
assert_eq "$(jget "$rep" state)" done "state of a run ended at its maximum"
assert_eq "$(jq -r .until_steady.ended <<<"$rep")" max "until_steady.ended"
assert_eq "$(jq -c .counters.generated <<<"$rep")" 30 "generated: 10/s for 3 s"
assert_eq "$(jq -c .verdict.kept_up <<<"$rep")" null "verdict at the maximum"
assert_eq "$(jq -c .verdict.stopped_early <<<"$rep")" false "stopped_early"
jget "$rep" verdict.reason | grep -q 'run at least [0-9]* s\.$' ||
    fail "verdict reason: $(jget "$rep" verdict.reason)"
jget "$rep" reason | grep -q '^undecided after 3 s of load (until_steady 3 s)$' ||
    fail "reason: $(jget "$rep" reason)"
f=$(cat "$T/final.json")
assert_eq "$(jget "$f" max_updates)" 30 "final stats' max_updates"

# (2b) until_steady 8 (under the 30 s floor): a steady window decides it
# by the last sample before the maximum, not "undecided" at it.
rep=$(run --dir "$T/s" --files 10 --max-updates 2000 --update-time 100 \
    --sample-interval 0.2 --until-steady 8)
log "short max: $(jq -c '{reason, until_steady, v: .verdict.reason}' <<<"$rep")"
assert_eq "$(jq -r .until_steady.ended <<<"$rep")" steady \
    "until_steady.ended under the floor"
assert_eq "$(jq -c .verdict.kept_up <<<"$rep")" true "verdict under the floor"

# (2c) Drops decide at once, whatever the queue's window: ended
# "decided", well before the 30 s floor.
rep=$(run --dir "$T/d" --files 10 --max-updates 200000 --update-time 10 \
    --threads 4 --queue-high-water 1 --sample-interval 0.2 --until-steady 60)
log "drops: $(jq -c '{reason, until_steady, dropped: .counters.dropped,
    v: .verdict.reason}' <<<"$rep")"
assert_num "$(jq .counters.dropped <<<"$rep")" '>' 0 "updates dropped"
assert_eq "$(jq -r .until_steady.ended <<<"$rep")" decided \
    "until_steady.ended by drops"
assert_num "$(jq .until_steady.after_s <<<"$rep")" '<' 20 \
    "drops decide before the floor"
jget "$rep" reason | grep -q '^decided after' ||
    fail "reason of a run decided by drops: $(jget "$rep" reason)"

# A run without it has no until_steady object and keeps its count.
rep=$(run --dir "$T/n" --files 10 --max-updates 20 --update-time 1)
assert_eq "$(jq -c .until_steady <<<"$rep")" null "until_steady of a fixed run"
assert_eq "$(jq -c .params.until_steady <<<"$rep")" 0 "params.until_steady"

# While it runs, stats' max_updates and update_time are the most it may
# take: until_steady's, at the rate.
wid=$(jget "$(start_run --dir "$T/w" --files 10 --max-updates 100 \
    --update-time 10 --until-steady 200 --rra "$RRA")" run_id)
s=$(wait_for_stats '.state == "running"' 20)
assert_eq "$(jget "$s" max_updates)" 2000 "stats' max_updates while running"
assert_num "$(jget "$s" update_time)" '==' 200 "stats' update_time while running"
ctl stop >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" stopped "a stopped until_steady run"
rep=$(cat "$STATE/runs/$wid/report.json")
assert_eq "$(jq -c .until_steady.ended <<<"$rep")" null "ended of a stopped run"
assert_eq "$(jq -c .verdict.stopped_early <<<"$rep")" true "stopped_early"
# of the most it could have taken, not of the knob's count
jget "$rep" verdict.reason | grep -q 'stopped after [0-9]* of 2000 updates' ||
    fail "verdict of a stopped run: $(jget "$rep" verdict.reason)"

# (3) Bad values, refused naming the knob.
bad() {
	local what=$1 args=$2 r
	r=$(rawreq '{"cmd":"start","id":3,"args":'"$args"'}')
	expect_error "$r" bad_argument until_steady "$what"
	assert_contains "$(jget "$r" error.message)" until_steady "$what: message"
	printf '%s\n' "$r"
}
ok='"dir":"'"$T"'/bad","files":10'
bad "until_steady -1" '{'"$ok"',"until_steady":-1}' >/dev/null
bad "until_steady NaN" '{'"$ok"',"until_steady":NaN}' >/dev/null
bad 'until_steady "60"' '{'"$ok"',"until_steady":"60"}' >/dev/null
r=$(bad "until_steady with update_time 0" \
    '{'"$ok"',"update_time":0,"until_steady":60}')
assert_contains "$(jget "$r" error.message)" update_time \
    "flat out: the message names update_time"
# a capacity search sets each step's length itself
r=$(rawreq '{"cmd":"capacity","id":4,"args":{"dirs":["'"$T"'/c"],"files":10,"until_steady":30}}')
expect_error "$r" bad_argument until_steady "capacity with until_steady"
run_ctl 2 "--until-steady -5" --socket "$SOCK" start --dir "$T/bad" \
    --until-steady -5
assert_contains "$out" until-steady "stressctl's message"
run_ctl 2 "--until-steady nan" --socket "$SOCK" start --dir "$T/bad" \
    --until-steady nan
assert_contains "$out" until-steady "stressctl's message"
run_ctl 1 "--until-steady with --update-time 0" --socket "$SOCK" start \
    --dir "$T/bad" --until-steady 5 --update-time 0
assert_contains "$out" update_time "stressctl relays the refusal"
assert_alive "after the refusals"

# Decided by what more samples cannot undo: updates dropped at a
# high-water mark, behind a writer of 1 ms a write.  The load ends at a
# sample within seconds, "decided", fell behind.
build_shim
stop_daemon TERM 10
LD_PRELOAD=$PRELOAD STRESSD_TEST_SLOW_US=1000 start_daemon
rep=$(run --dir "$T/d" --files 100 --max-updates 2000 --update-time 1 \
    --queue-high-water 2 --sample-interval 0.2 --until-steady 30)
log "decided: $(jq -c '{state, reason, until_steady, v: .verdict.reason}' <<<"$rep")"
assert_eq "$(jget "$rep" state)" done "state of a run decided by drops"
assert_eq "$(jq -r .until_steady.ended <<<"$rep")" decided "until_steady.ended"
assert_eq "$(jq -c .verdict.kept_up <<<"$rep")" false "verdict with drops"
assert_num "$(jget "$rep" until_steady.after_s)" '<' 15 "load phase"
jget "$rep" reason | grep -q '^decided after [0-9.]* s of load (until_steady 30 s)$' ||
    fail "reason: $(jget "$rep" reason)"
log ok
