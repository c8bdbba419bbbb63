#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# The layout and load knobs, checked on disk: files_per_dir, data_sources,
# step, start, updates_per_open, use_queue=false, update_file replay, and
# seed determinism.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# run_done LABEL START_ARGS...: start, wait, expect done with max_updates
# completed; prints the final stats.
run_done() {
	local what=$1 s
	shift
	start_run "$@" >/dev/null
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" 'done' "$what: state"
	assert_eq "$(jnum "$s" updates_completed)" "$(jnum "$s" max_updates)" \
	    "$what: updates_completed"
	assert_eq "$(jnum "$s" updates_failed)" 0 "$what: updates_failed"
	check_drained "$s" "$what"
	check_invariants "$s" "$what"
	printf '%s\n' "$s"
}

# ---- files_per_dir, data_sources, step, start, updates_per_open
FILES=100
FPD=25
STEP2=60
START2=1000000000
D=$T/layout
run_done "layout run" --dir "$D" --files "$FILES" --files-per-dir "$FPD" \
    --data-sources 3 --step "$STEP2" --start-time "$START2" \
    --updates-per-open 4 --threads 3 --write-threads 2 --max-updates 2000 \
    --update-time 0 --rra "$RRA" >/dev/null
for sub in 0 1 2 3; do
	[ -d "$D/$sub" ] || fail "files_per_dir $FPD: no subdirectory $D/$sub"
done
[ ! -e "$D/4" ] || fail "files_per_dir $FPD: unexpected subdirectory $D/4"
[ -f "$D/0/0.rrd" ] && [ -f "$D/0/24.rrd" ] && [ -f "$D/1/25.rrd" ] &&
    [ -f "$D/3/99.rrd" ] || fail "files_per_dir $FPD: files not at DIR/<n/$FPD>/<n>.rrd"
[ ! -e "$D/0.rrd" ] || fail "files_per_dir $FPD: a file at the top of the dir"
assert_eq "$(find "$D" -name '*.rrd' | wc -l)" "$FILES" "layout run: files"
f=$D/1/30.rrd
assert_eq "$(rrd_info_get "$f" step)" "$STEP2" "$f: step"
assert_eq "$(rrdtool info "$f" | grep -c '^ds\[.*\]\.type = ')" 3 "$f: data sources"
for ds in ds0 ds1 ds2; do
	assert_eq "$(rrd_info_get "$f" "ds[$ds].type")" GAUGE "$f: $ds type"
	assert_eq "$(rrd_info_get "$f" "ds[$ds].minimal_heartbeat")" $((2 * STEP2)) \
	    "$f: $ds heartbeat"
done
scan=$(rrd_scan "$D" "$FILES" "$FPD" "$START2" "$STEP2")
assert_eq "$(rrd_sum "$scan")" 2000 "layout run: updates on disk"
# Round robin, 4 updates per pick: 2000 / 4 = 500 picks, 5 per file.
bad=$(awk '$2 != 20 { print; exit }' <<<"$scan")
[ -z "$bad" ] || fail "layout run: a file's count is not 20 (n count value): $bad"
# Every data source got a value in the last update.
lu=$(rrdtool lastupdate "$f" | tail -n 1)
[ "$(wc -w <<<"$lu")" -eq 4 ] || fail "$f: lastupdate is not ts + 3 values: $lu"
[[ $lu != *U* ]] || fail "$f: an unknown value in the last update: $lu"

# ---- use_queue false: the generators write directly (the baseline)
D=$T/noqueue
run_done "use_queue=false run" --dir "$D" --files 50 --threads 4 \
    --updates-per-open 2 --max-updates 1000 --update-time 0 \
    --use-queue=false --rra "$RRA" >/dev/null
scan=$(rrd_scan "$D" 50)
assert_eq "$(rrd_sum "$scan")" 1000 "use_queue=false run: updates on disk"

# ---- update_file: its values are replayed per file, in order, wrapping
printf '946710300:5\n946710600:0\n946710900:7.5\n' >"$T/values.txt"
D=$T/replay
run_done "update_file run" --dir "$D" --files 10 --zero-files 0 --threads 1 \
    --max-updates 40 --update-time 0 --update-file "$T/values.txt" \
    --rra "$RRA" >/dev/null
scan=$(rrd_scan "$D" 10)
assert_eq "$(rrd_sum "$scan")" 40 "update_file run: updates on disk"
# 4 updates per file: 5, 0, 7.5, then 5 again.
bad=$(awk '$2 != 4 || $3 + 0 != 5 { print; exit }' <<<"$scan")
[ -z "$bad" ] || fail "update_file run: expected 4 updates ending in 5 (n count value): $bad"
out=$(ctl start --dir "$T/replay2" --files 10 --max-updates 10 \
    --update-file "$T/no-such-file" --rra "$RRA" 2>&1) && rc=0 || rc=$?
assert_eq "$rc" 1 "start with a missing update_file: exit status ($out)"
assert_contains "$out" update_file "start with a missing update_file: names the field"

# ---- seed: the synthetic values are deterministic
seed_run() {
	run_done "seed $2 run" --dir "$1" --files 20 --zero-files 0 --threads 3 \
	    --max-updates 100 --update-time 0 --seed "$2" --rra "$RRA" >/dev/null
	rrd_scan "$1" 20
}
a=$(seed_run "$T/seedA" 7)
b=$(seed_run "$T/seedB" 7)
c=$(seed_run "$T/seedC" 8)
assert_eq "$b" "$a" "same seed: same counts and last values"
[ "$c" != "$a" ] || fail "seeds 7 and 8 gave the same last values"

assert_alive "the knob runs"
log "PASS"
