#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The capacity search finds a real limit, not noise (issue 16 point 6):
# ext4 twice on loop devices, the writes of one throttled to $SLOW IOPS
# and of the other to $FAST (blkio/io controller, lib.sh throttle_writes),
# one search over both with sync data.  The slow one must come out
# limited by the storage with a clearly lower capacity: its bracket
# (capacity_rate, behind_rate) below the fast one's, not overlapping.
# Every step is a run record of its own pointing back to the search, and
# rrdtool is the oracle of what landed: files are reused from step to
# step, so per directory the updates rrdtool counts (timestamp contract)
# are those of the run that made the files plus every step's.
# Skips without root, loop devices, mkfs.ext4 or a write throttle.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
loop_require ext4
throttle_supported || skip "no write throttle (cgroup v1 blkio or v2 io)"
FILES=${FILES:-300}
SLOW=${SLOW:-150}		# write IOPS
FAST=${FAST:-600}
START_RATE=${START_RATE:-100}	# updates/s
LATENCY=${LATENCY:-0.5}		# s, enqueue to persist p99
WAIT_TIMEOUT=150		# the whole search

loop_fs ext4 300 slow
SLOW_DEV=$LOOP_DEV
loop_fs ext4 300 fast
FAST_DEV=$LOOP_DEV
DIRS=("$T/slow" "$T/fast")

# The files are made unthrottled, by an ordinary run of one update each:
# at $SLOW IOPS their creates alone would take most of the time budget.
for d in "${DIRS[@]}"; do
	start_run --dir "$d" --files "$FILES" --rra "$RRA" \
	    --max-updates "$FILES" --update-time 0 --sync data >/dev/null
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" done "making the files of $d"
done
throttle_writes "$SLOW_DEV" "$SLOW"
throttle_writes "$FAST_DEV" "$FAST"

req=$(jq -cn --arg a "${DIRS[0]}" --arg b "${DIRS[1]}" --arg rra "$RRA" \
    --argjson files "$FILES" --argjson start "$START_RATE" \
    --argjson lat "$LATENCY" \
    '{cmd: "capacity", args: {dirs: [$a, $b], files: $files, rras: [$rra],
      sync: "data", latency_bound: $lat, start_rate: $start,
      precision: 50, step_min: 4, step_max: 6, settle: 1, repeats: 0,
      sample_interval: 0.1}}')
t0=$SECONDS
r=$(rawreq "$req")
assert_eq "$(jget "$r" ok)" true "capacity: $r"
cid=$(jnum "$r" result.capacity_id)
assert_eq "$(jget "$r" result.state)" running "capacity reply state"
# A second search or a run meanwhile: busy.
expect_error "$(rawreq "$req")" busy "a second capacity"

r=$(printf '{"cmd":"wait"}\n' | rawsend -n 1 -t "$WAIT_TIMEOUT")
is_json "$r" || fail "wait: no reply within ${WAIT_TIMEOUT}s: ${r:0:300}"
log "search $cid took $((SECONDS - t0)) s"
C=$STATE/runs/$cid/capacity.json
[ -f "$C" ] || fail "no $C"
cap=$(cat "$C")
log "$(jq -r '.dirs[] | "\(.dir | sub(".*/"; "")): kept up \(.capacity_rate) behind \(.behind_rate) (\(.limited_by)) \(.behind_reason)"' <<<"$cap")"
log "$(jq -r '.steps[] | "step \(.n) dir \(.dir_index) \(.phase) \(.rate | floor)/s: kept_up \(.kept_up) queue avg \(.queue_avg) slope \(.slope_per_s) lat p99 \(.latency_p99_ms) ms cpu_w \(.cpu_writers_pct)%"' <<<"$cap")"
assert_eq "$(jget "$cap" schema)" stressd-capacity "schema"
assert_eq "$(jget "$cap" state)" done "search state"
# jget's dotted paths take no array index: each directory's object
d0=$(jq -c '.dirs[0]' <<<"$cap")
d1=$(jq -c '.dirs[1]' <<<"$cap")
assert_eq "$(jget "$d0" state)" done "slow dir state"
assert_eq "$(jget "$d1" state)" done "fast dir state"

# ---- both limited by their storage, the throttled one clearly below
assert_eq "$(jget "$d0" limited_by)" storage "slow ($SLOW IOPS) limited_by"
assert_eq "$(jget "$d1" limited_by)" storage "fast ($FAST IOPS) limited_by"
slow_kept=$(jnum "$d0" capacity_rate)
slow_behind=$(jnum "$d0" behind_rate)
fast_kept=$(jnum "$d1" capacity_rate)
fast_behind=$(jnum "$d1" behind_rate)
assert_num "$slow_kept" '<' "$slow_behind" "slow bracket"
assert_num "$fast_kept" '<' "$fast_behind" "fast bracket"
# brackets that do not overlap: the slow one fell behind at a rate the
# fast one kept up with
assert_num "$slow_behind" '<=' "$fast_kept" \
    "slow ($SLOW IOPS) behind_rate vs fast ($FAST IOPS) capacity_rate"
# each file once every capacity_interval_s at the capacity
assert_num "($(jnum "$d0" capacity_interval_s) - $FILES / $slow_kept) | fabs" \
    '<' 1e-6 "slow capacity_interval_s"
# ---- every step: a run record of its own, in order, drained, conserved
nsteps=$(jq '.steps | length' <<<"$cap")
assert_num "$nsteps" '>=' 4 "steps"
for ((i = 0; i < nsteps; i++)); do
	st=$(jq -c ".steps[$i]" <<<"$cap")
	n=$(jnum "$st" n)
	assert_eq "$n" "$((i + 1))" "step $i: n"
	# cannot tell (a 6 s step whose queue was not shown steady) counts
	# as not kept up, and says why
	[ "$(jget "$st" kept_up)" != null ] ||
	    grep -qE '^(still filling|still emptying|not steady)' \
	    <<<"$(jget "$st" reason)" || fail "step $n: no verdict: $st"
	rep=$(cat "$STATE/runs/$(jnum "$st" run_id)/report.json")
	assert_eq "$(jget "$rep" capacity.id)" "$cid" "step $n: capacity.id"
	assert_eq "$(jget "$rep" capacity.step)" "$n" "step $n: capacity.step"
	assert_num "$(jnum "$rep" capacity.rate)" '==' "$(jnum "$st" rate)" \
	    "step $n: rate"
	assert_eq "$(jget "$rep" params.dir)" \
	    "${DIRS[$(jnum "$st" dir_index)]}" "step $n: dir"
	assert_eq "$(jget "$rep" params.sync)" data "step $n: sync"
	assert_eq "$(jget "$rep" baseline.files_missing)" 0 \
	    "step $n: files reused"
	check_invariants "$(jq -c .counters <<<"$rep")" "step $n"
	check_drained "$(jq -c .counters <<<"$rep")" "step $n"
	assert_eq "$(jget "$rep" counters.dropped)" 0 "step $n: dropped"
	assert_eq "$(jget "$rep" counters.updates_failed)" 0 "step $n: failed"
done
# the kept-up steps of a directory are all below its behind steps
jq -e '[range(2) as $d | [.steps[] | select(.dir_index == $d)] |
    ([.[] | select(.kept_up) | .rate] | max) as $k |
    ([.[] | select(.kept_up | not) | .rate] | min) as $b |
    ($k == null or $b == null or $k < $b)] | all' <<<"$cap" >/dev/null ||
    fail "a kept-up step above a behind step in one directory"
jq -e '.dirs[0].capacity_rate == ([.steps[] | select(.dir_index == 0 and
    .kept_up) | .rate] | max)' <<<"$cap" >/dev/null ||
    fail "slow capacity_rate is not its highest kept-up step"

# ---- rrdtool: what landed in each directory is what the records say
for d in 0 1; do
	runs=$(jq -r --argjson d "$d" '.steps[] | select(.dir_index == $d) |
	    .run_id' <<<"$cap")
	want=$FILES
	for id in $runs; do
		want=$((want + $(jq .counters.updates_completed \
		    "$STATE/runs/$id/report.json")))
	done
	got=$(rrd_sum "$(rrd_scan "${DIRS[d]}" "$FILES")")
	assert_eq "$got" "$want" "${DIRS[d]}: rrdtool count vs the step runs"
done
log "slow ($SLOW IOPS): kept up at $slow_kept, behind at $slow_behind;" \
    "fast ($FAST IOPS): kept up at $fast_kept, behind at $fast_behind"
