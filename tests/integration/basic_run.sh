#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# A small flat-out run end to end: the final stats, the files' layout
# (rrdtool info), the timestamp contract (rrdtool lastupdate), zero files,
# and stress.log's compatibility format.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

FILES=200
UPDATES=5000
MODULUS=1000
D=$T/rrd

r=$(start_run --dir "$D" --files "$FILES" --threads 4 --write-threads 2 \
    --max-updates "$UPDATES" --modulus "$MODULUS" --update-time 0 \
    --rra "$RRA")
run_id=$(jget "$r" run_id)
assert_eq "$(jget "$r" dir)" "$D" "start result: dir"
log "run $run_id started"

s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "final state"
assert_eq "$(jget "$s" run_id)" "$run_id" "final stats: run_id"
assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" "updates_completed"
assert_eq "$(jnum "$s" updates_failed)" 0 "updates_failed"
assert_eq "$(jnum "$s" errors)" 0 "errors"
assert_eq "$(jnum "$s" offered)" "$UPDATES" "offered"
assert_eq "$(jnum "$s" dropped)" 0 "dropped"
assert_eq "$(jnum "$s" generated)" "$UPDATES" "generated"
assert_eq "$(jnum "$s" max_updates)" "$UPDATES" "max_updates"
assert_eq "$(jnum "$s" creates_completed)" "$FILES" "creates_completed"
check_drained "$s" "final stats"
check_invariants "$s" "final stats"
assert_eq "$(jnum "$s" files_with_significant_work)" 0 "files_with_significant_work"
assert_eq "$(jnum "$s" files_with_insignificant_work)" 0 "files_with_insignificant_work"
# Every operation dequeued was written: the batches hold at least one op.
assert_num "$(jnum "$s" dequeued_items)" '>=' 1 "dequeued_items"
assert_num "$(jnum "$s" dequeued_operations)" '>=' \
    "$(jnum "$s" dequeued_items)" "dequeued_operations vs dequeued_items"
jnum "$s" rates.ops_per_update_overall >/dev/null

# stats after the run describes the run as it ended.
s2=$(stats)
assert_eq "$(jget "$s2" state)" 'done' "stats after the run: state"
assert_eq "$(jnum "$s2" updates_completed)" "$UPDATES" \
    "stats after the run: updates_completed"

# ---- files: layout
for n in 0 1 $((FILES - 1)); do
	f=$(rrd_path "$D" "$n")
	[ -f "$f" ] || fail "$f missing"
	assert_eq "$(rrd_info_get "$f" step)" "$STEP" "$f: step"
	assert_eq "$(rrd_info_get "$f" 'ds[ds0].type')" GAUGE "$f: ds0 type"
	assert_eq "$(rrd_info_get "$f" 'ds[ds0].minimal_heartbeat')" \
	    $((2 * STEP)) "$f: ds0 heartbeat"
	assert_eq "$(rrd_info_get "$f" 'ds[ds0].min')" NaN "$f: ds0 min"
	assert_eq "$(rrd_info_get "$f" 'ds[ds0].max')" NaN "$f: ds0 max"
	assert_eq "$(rrdtool info "$f" | grep -c '^ds\[.*\]\.type = ')" 1 \
	    "$f: number of data sources"
	assert_eq "$(rrdtool info "$f" | grep -c '^rra\[[0-9]*\]\.cf = ')" 1 \
	    "$f: number of RRAs"
	assert_eq "$(rrd_info_get "$f" 'rra[0].cf')" AVERAGE "$f: rra[0].cf"
	assert_eq "$(rrd_info_get "$f" 'rra[0].rows')" 10 "$f: rra[0].rows"
	assert_eq "$(rrd_info_get "$f" 'rra[0].pdp_per_row')" 1 \
	    "$f: rra[0].pdp_per_row"
done
[ ! -e "$(rrd_path "$D" "$FILES")" ] || fail "file $FILES exists (files is $FILES)"
nfiles=$(find "$D" -name '*.rrd' | wc -l)
assert_eq "$nfiles" "$FILES" "number of .rrd files in $D"

# ---- files: every update landed (timestamp contract)
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$UPDATES" "sum over files of lastupdate counts"
# One shared round-robin cursor and updates_per_open 1: every file got
# exactly UPDATES / FILES updates.
per=$((UPDATES / FILES))
bad=$(awk -v per="$per" '$2 != per { print; exit }' <<<"$scan")
[ -z "$bad" ] || fail "file with a count other than $per (n count value): $bad"

# ---- zero files: default zero_files = files/2, so file n is a zero file
# when n % 2 == 0; its values are 0, the others' are not.
zf=$((FILES / 2))
bad=$(awk -v m=$((FILES / zf)) '
    $2 == 0 { next }
    $1 % m == 0 && ($3 == "U" || $3 + 0 != 0) { print "zero file:", $0; exit }
    $1 % m != 0 && ($3 == "U" || $3 + 0 == 0) { print "non-zero file:", $0; exit }
    ' <<<"$scan")
[ -z "$bad" ] || fail "wrong last value (n count value): $bad"

# ---- stress.log
slog=$(jget "$r" log)
assert_eq "$slog" "$STATE/runs/$run_id/stress.log" "start result: log path"
[ -f "$slog" ] || fail "stress.log $slog missing"
# A block each time MODULUS more updates were offered: the progress line
# then 4 QS: lines, UPDATES / MODULUS of them for a completed run and none
# after (the drained queue is in report.json, not in a sample).
counts=$(grep -oE '^[0-9]+ samples stored, ' "$slog" | cut -d' ' -f1) || true
nblocks=$(grep -c . <<<"$counts" || true)
assert_eq "$nblocks" $((UPDATES / MODULUS)) \
    "progress blocks in stress.log (counts: $(tr '\n' ' ' <<<"$counts"))"
blocks=$(grep -c $'^QS:\ttotalOperationsPending=[0-9]*, significantOpsPending=[0-9]*, filesWithSignificantWork=[0-9]*, filesWithInsignificantWork=[0-9]*$' "$slog" || true)
assert_eq "$blocks" "$nblocks" "first QS: lines (one per progress line)"
assert_eq "$(grep -c $'^QS:\t' "$slog" || true)" $((4 * nblocks)) \
    "QS: lines in stress.log (4 per block)"
assert_eq "$(tail -n 1 "$slog")" "# run $run_id done" "stress.log: last line"
for key in createsCompleted= updatesCompleted= promotionCount= \
    currentEnqueueRates= overallEnqueueRate= overallOpsPerUpdate= \
    totalElapsedTime=; do
	grep -q $'^QS:\t.*'"$key" "$slog" || fail "stress.log lacks $key"
done
# The post-processing of the original tool keeps working.
sop=$(grep -oP 'significantOpsPending=(\d+),' "$slog" | wc -l)
assert_eq "$sop" "$nblocks" "grep -oP 'significantOpsPending=(\\d+),' matches"
# The header echoes every parameter (spelling-tolerant: case, '_', '-',
# '.' ignored).
header=$(sed '/samples stored/,$d' "$slog" | tr '[:upper:]' '[:lower:]' | tr -d '_.-')
for knob in dir files threads write_threads max_updates modulus update_time \
    zero_files files_per_dir rras step data_sources updates_per_open \
    use_queue queue_creates prioritize max_insig_update_seconds \
    queue_high_water sig_high_water insig_high_water update_file start seed; do
	k=$(tr -d '_' <<<"$knob")
	case $knob in rras) k=rra ;; esac
	assert_contains "$header" "$k" "stress.log header: parameter $knob"
done
assert_contains "$header" "$(tr -d '_.-' <<<"$D" | tr '[:upper:]' '[:lower:]')" \
    "stress.log header: the dir"

assert_alive "the run"
log "PASS"
