#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The capacity search's grid and repeats (stressd(8) THE CAPACITY
# SEARCH): under a slowed writer a search finds a limit and repeats its
# rate; the record gives the spread of the steps at that rate (the step
# that found it and its repeats, their figures' min and max), which
# stressctl report shows; each directory's grid is offset by a jitter in
# [1, 2), its first step at start_rate x jitter, so that two searches
# step on two grids.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

build_shim
# 2 ms a value and one writer: a disk of some 500 updates a second.
LD_PRELOAD=$PRELOAD STRESSD_TEST_SLOW_VALUE_US=2000 start_daemon

START=200
# search DIR REPEATS: start a search of DIR; its id.
search() {
	local r
	r=$(rawreq "$(jq -cn --arg d "$1" --arg rra "$RRA" \
	    --argjson start "$START" --argjson rep "$2" \
	    '{cmd: "capacity", args: {dirs: [$d], files: 50, rras: [$rra],
	      write_threads: 1, start_rate: $start, max_rate: 20000,
	      precision: 50, step_min: 3, step_max: 5, settle: 0.5,
	      repeats: $rep, sample_interval: 0.1}}')")
	assert_eq "$(jget "$r" ok)" true "capacity: $r"
	jnum "$r" result.capacity_id
}
# grid_ok FILE: its grid says what its first step ran at: a jitter in
# [1, 2), first_rate = start_rate x jitter = the first step's rate.
grid_ok() {
	local g
	g=$(jq -c '.dirs[0].grid' "$1")
	assert_num "$(jget "$g" jitter)" '>=' 1 "jitter of $1: $g"
	assert_num "$(jget "$g" jitter)" '<' 2 "jitter of $1: $g"
	assert_num "($(jget "$g" first_rate) - $START * $(jget "$g" jitter)) |
	    fabs" '<' 1e-9 "first_rate of $1 = start_rate x jitter: $g"
	assert_num "$(jq '.steps[0].rate' "$1")" == "$(jget "$g" first_rate)" \
	    "$1: the first step ran at first_rate"
}

# ---- a search to its end: a limit found, its rate repeated
t0=$SECONDS
cid=$(search "$T/a" 1)
r=$(printf '{"cmd":"wait"}\n' | rawsend -n 1 -t "$WAIT_TIMEOUT")
is_json "$r" || fail "wait: no reply within ${WAIT_TIMEOUT}s: ${r:0:300}"
F=$STATE/runs/$cid/capacity.json
log "search $cid took $((SECONDS - t0)) s"
log "$(jq -r '.steps[] | "step \(.n) \(.phase) \(.rate)/s: kept_up \(.kept_up) queue avg \(.queue_avg) lat p99 \(.latency_p99_ms)"' "$F")"
assert_eq "$(jq -r '.state, .dirs[0].limited_by' "$F" | paste -sd' ')" \
    "done storage" "the search found the storage's limit"
grid_ok "$F"
# The spread: the steps at capacity_rate that kept up, as the record
# lists them, at least the one that found it and its repeat.
d=$(jq -c '.dirs[0]' "$F")
at=$(jq -c --argjson c "$(jget "$d" capacity_rate)" \
    '[.steps[] | select(.rate == $c and .kept_up == true)]' "$F")
assert_num "$(jq length <<<"$at")" '>=' 2 "steps at capacity: $at"
assert_eq "$(jq -c '.at_capacity_spread' <<<"$d")" "$(jq -c '{steps: length,
    queue_avg: [min_by(.queue_avg).queue_avg, max_by(.queue_avg).queue_avg],
    latency_p99_ms: [min_by(.latency_p99_ms).latency_p99_ms,
    max_by(.latency_p99_ms).latency_p99_ms]}' <<<"$at")" \
    "at_capacity_spread of the steps at capacity"
out=$(ctl report "$cid")
line=$(grep '^  over repeats' <<<"$out") || fail "no spread in report: $out"
assert_contains "$line" "$(jq length <<<"$at") steps: queue avg " "spread line"
assert_contains "$line" " ms" "spread line's latency"
assert_contains "$out" "$(printf '  grid          from %.0f updates/s: the '\
'start rate x %s' "$(jq '.dirs[0].grid.first_rate' "$F")" \
    "$(jq '.dirs[0].grid.jitter' "$F")")" "report's grid line"

# ---- another search steps on another grid: its first step elsewhere
# (1 in 1,000 draws the same jitter again: a third search then)
firsts=$(jq '.dirs[0].grid.first_rate' "$F")
for n in 2 3; do
	cid=$(search "$T/s$n" 0)
	ctlj stop >/dev/null
	G=$STATE/runs/$cid/capacity.json
	grid_ok "$G"
	firsts+=" $(jq '.dirs[0].grid.first_rate' "$G")"
	[ "$(tr ' ' '\n' <<<"$firsts" | sort -u | wc -l)" -gt 1 ] && break
done
log "first rates: $firsts"
[ "$(tr ' ' '\n' <<<"$firsts" | sort -u | wc -l)" -gt 1 ] ||
    fail "every search stepped first at the same rate: $firsts"
assert_alive "at the end"
log "ok"
