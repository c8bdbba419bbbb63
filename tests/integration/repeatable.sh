#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The verdict is repeatable (issue 23 point 4): groups of three identical
# --sync data runs on an ext4 loop device, its writes throttled (lib.sh
# throttle_writes), each group giving one verdict three times (rule 2 in
# stressd(8) THE VERDICT):
#  - far more IOPS than the load needs: kept up, the queue steady near 0;
#  - far fewer, with a latency bound of a few seconds: fell behind, the
#    values land later than the bound;
#  - as few, with the bound the RRD step, run until steady: kept up, the
#    coalescing queue steady at a plateau whose values land well within
#    the step (the old rule judged the whole load phase, fill and plateau
#    together, and gave "cannot tell" or "fell behind" here, by run
#    length and chance).
# A "cannot tell", or two verdicts in a group, fails.  Not in make check
# (minutes of throttled writes): make check-storage.  Skips without root,
# loop devices or a write throttle (cgroup v1 blkio or v2 io).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
loop_require ext4
throttle_supported || skip "no write throttle (cgroup v1 blkio or v2 io)"
FILES=${FILES:-60}
RATE=${RATE:-60}			# updates/s: each file once a second
FAST=${FAST:-5000}			# write IOPS, far above the need
SLOW=${SLOW:-15}			# write IOPS, far below it
BOUND=${BOUND:-3}			# s, the short --latency-bound
REPEATS=${REPEATS:-3}

loop_fs ext4 200 dev
DEV=$LOOP_DEV
# The files are made unthrottled, by a run of one update each; every run
# after it reuses them.
start_run --dir "$T/dev" --files "$FILES" --rra "$RRA" \
    --max-updates "$FILES" --update-time 0 --sync data >/dev/null
assert_eq "$(jget "$(wait_run)" state)" "done" "making the files"

# group IOPS BOUND SECONDS WANT [UNTIL]: $REPEATS identical runs of SECONDS
# at IOPS with --latency-bound BOUND (with UNTIL: --until-steady UNTIL,
# SECONDS only setting the rate); logs each verdict's figures and fails
# unless every kept_up is WANT.
group() {
	local iops=$1 bound=$2 secs=$3 want=$4 until=${5:-0} k id rep got=
	throttle_writes "$DEV" "$iops"
	for ((k = 1; k <= REPEATS; k++)); do
		id=$(jget "$(start_run --dir "$T/dev" --files "$FILES" \
		    --rra "$RRA" --zero-files 0 --sync data \
		    --max-updates $((RATE * secs)) --update-time "$secs" \
		    --sample-interval 0.2 --latency-bound "$bound" \
		    --until-steady "$until" \
		    --label "$iops IOPS, bound $bound")" run_id)
		wait_run >/dev/null
		rep=$(cat "$STATE/runs/$id/report.json")
		check_invariants "$(jq -c .counters <<<"$rep")" "run $id"
		log "$iops IOPS, bound $bound s, run $k (id $id): $(jq -r '
		    .verdict | "kept_up \(.kept_up); steady \(.steady.found)
		    \(.steady.why_not // "") from \(.steady.from_s // 0 | floor)
		    to \(.steady.to_s // 0 | floor) s, level \(.steady.level)
		    (fill \(.steady.fill_s) s), p99 in it
		    \(.steady.latency_p99_ms) ms; run p99 \(.latency_p99_ms)
		    ms, bound \(.latency_bound_ms) ms: \(.reason)"' <<<"$rep" |
		    tr -s '\n\t ' ' ')"
		got+=" $(jq -c .verdict.kept_up <<<"$rep")"
	done
	[ "$got" = "$(printf " $want%.0s" $(seq "$REPEATS"))" ] ||
	    fail "$iops write IOPS, bound $bound s: kept_up$got, want $want each"
}

group "$FAST" "$BOUND" 30 true
group "$SLOW" "$BOUND" 30 false
# the bound 0: one RRD step (300 s).  Run until steady, at most 240 s: the
# plateau swings by some 15 % over 40 to 60 s (writeback and the writer's
# passes), so a fixed 90 s run judged steady 8 times in 11 here (the
# others' last windows fell on a swing: emptying or noisy), 180 s 3 in 3.
group "$SLOW" 0 90 true 240
