#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The run record: report.json (schema 1) and samples.csv are written at
# run end and agree with the final stats, with themselves (histogram
# counts sum to the samples, the average is the histogram's mean) and
# with the kernel's view of the target's filesystem.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$LIB_DIR/mountview.sh"

D=$T/rrd
r=$(start_run --dir "$D" --files 100 --threads 4 --write-threads 2 \
    --max-updates 8000 --update-time 3 --sample-interval 0.2 --rra "$RRA")
run_id=$(jget "$r" run_id)
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "final state"
R=$STATE/runs/$run_id/report.json
CSV=$STATE/runs/$run_id/samples.csv
[ -f "$R" ] || fail "$R missing"
[ -f "$CSV" ] || fail "$CSV missing"
rep=$(cat "$R")

assert_eq "$(jget "$rep" schema)" 1 "schema"
assert_eq "$(jget "$rep" run_id)" "$run_id" "run_id"
assert_eq "$(jget "$rep" state)" done "state"
assert_eq "$(jget "$rep" params.files)" 100 "params.files"
assert_eq "$(jget "$rep" params.sample_interval)" 0.2 "params.sample_interval"
# final counters equal the final stats
for k in offered enqueued dropped updates_completed updates_failed errors \
    creates_completed dequeued_operations dequeued_items update_calls; do
	assert_eq "$(jget "$rep" "counters.$k")" "$(jget "$s" "$k")" "counters.$k"
done

# samples: about one per 0.2 s over a ~3 s run, and all in the CSV
n=$(jnum "$rep" samples)
assert_num "$n" '>=' 10 "samples"
assert_num "$n" '<=' 40 "samples"
assert_eq "$(($(wc -l <"$CSV") - 1))" "$n" "samples.csv rows"
head -n 1 "$CSV" | grep -q '^elapsed_s,significant_ops_pending,total_operations_pending,' ||
    fail "samples.csv header: $(head -n 1 "$CSV")"

for q in significant_ops_pending total_operations_pending; do
	d=$(jq -c ".queue_depth.$q" <<<"$rep")
	assert_eq "$(jget "$d" samples)" "$n" "$q: samples"
	assert_eq "$(jq '[.histogram[].count] | add' <<<"$d")" "$n" \
	    "$q: histogram counts sum to the samples"
	jq -e '(.average - ([.histogram[] | .value * .count] | add) / .samples)
	    | fabs < 1e-9' <<<"$d" >/dev/null ||
	    fail "$q: average is not the histogram's mean: $d"
	jq -e '.min <= .p50 and .p50 <= .p90 and .p90 <= .p99 and .p99 <= .max' \
	    <<<"$d" >/dev/null || fail "$q: percentiles out of order: $d"
	# the CSV column has the same average
	col=$([ "$q" = significant_ops_pending ] && echo 2 || echo 3)
	avg=$(awk -F, -v c="$col" 'NR > 1 { s += $c; n++ } END { printf "%.6f", s / n }' "$CSV")
	jq -e --argjson a "$avg" '(.average - $a) | fabs < 1e-5' <<<"$d" >/dev/null ||
	    fail "$q: average $(jget "$d" average) but the CSV says $avg"
done

# latency: every written batch recorded, percentiles ordered, in ms
for l in enqueue_to_persist update_call; do
	x=$(jq -c ".latency_ms.$l" <<<"$rep")
	assert_num "$(jget "$x" count)" '>=' "$(jget "$s" dequeued_items)" "$l: count"
	jq -e '.min > 0 and .min <= .p50 and .p50 <= .p90 and .p90 <= .p99
	    and .p99 <= .p999 and .p999 <= .max and .mean >= .min
	    and .mean <= .max and .max < 60000' <<<"$x" >/dev/null ||
	    fail "$l: implausible latency summary: $x"
done

# throughput as the original printed it
jq -e '.throughput.updates_per_s_since_first_update > 0 and
    .throughput.updates_per_s_all_time > 0 and
    .throughput.updates_per_s_since_first_update >=
    .throughput.updates_per_s_all_time' <<<"$rep" >/dev/null ||
    fail "throughput: $(jq -c .throughput <<<"$rep")"

# the target's filesystem, as the kernel sees it (mountview.sh: no
# findmnt, whose -T and [/bind] notation fail in a chroot or on a
# bind-mounted root)
assert_eq "$(jget "$rep" target.dir)" "$D" "target.dir"
check_target "$rep" "$D"
jq -e '.host.name and .host.kernel and .stressd_version and
    .librrd_version and .started_at and .ended_at' <<<"$rep" >/dev/null ||
    fail "report lacks host/version/time fields"
log "ok: $n samples, average significant queue $(jq .queue_depth.significant_ops_pending.average <<<"$rep")"

# ---- the daemon serves the record: report, runs
rr=$(printf '{"cmd":"report","args":{"run":%s}}\n' "$run_id" | rawsend -n 1)
assert_eq "$(jget "$rr" ok)" true "report command: ok"
assert_eq "$(jq -c '.result.queue_depth' <<<"$rr")" \
    "$(jq -c '.queue_depth' "$R")" "report command: queue_depth as on disk"
assert_eq "$(jget "$rr" result.files.report)" "$R" "report: files.report"
rl=$(printf '{"cmd":"runs"}\n' | rawsend -n 1)
assert_eq "$(jq '.result.runs | length' <<<"$rl")" 1 "runs: one run"
assert_eq "$(jq '.result.runs[0].id' <<<"$rl")" "$run_id" "runs: id"
assert_eq "$(jq '.result.runs[0].updates_completed' <<<"$rl")" 8000 \
    "runs: updates_completed"
expect_error "$(printf '{"cmd":"report","args":{"run":999}}\n' | rawsend -n 1)" \
    no_run run "report of an unknown run"

# ---- metrics.rrd, checked with rrdtool
M=$STATE/runs/$run_id/metrics.rrd
[ -f "$M" ] || fail "$M missing"
for ds in sig_pending total_pending in_flight completed; do
	rrdtool info "$M" | grep -q "^ds\[$ds\]\.type" || fail "metrics.rrd has no DS $ds"
done
assert_eq "$(rrd_info_get "$M" 'ds[completed].type')" DERIVE "completed DS type"
last=$(rrdtool lastupdate "$M" | tail -n 1)
ts=${last%%:*}
started=$(date -d "$(jget "$rep" started_at)" +%s)
assert_num "$ts" '>' "$started" "metrics.rrd updated during the run"
completed_col=$(awk '{ print $5 }' <<<"$last")
assert_num "$completed_col" '>' 0 "metrics.rrd completed counter"
assert_num "$completed_col" '<=' 8000 "metrics.rrd completed counter"

# ---- records survive a restart of the daemon
stop_daemon TERM 30
start_daemon
rl=$(printf '{"cmd":"runs"}\n' | rawsend -n 1)
assert_eq "$(jq '.result.runs[0].id' <<<"$rl")" "$run_id" "runs after a restart"
rr=$(printf '{"cmd":"report","args":{"run":%s}}\n' "$run_id" | rawsend -n 1)
assert_eq "$(jget "$rr" result.counters.updates_completed)" 8000 \
    "report after a restart"
log "ok: record served, metrics.rrd written, both survive a restart"
# after a restart, report with no run names the newest record
rr=$(printf '{"cmd":"report"}\n' | rawsend -n 1)
assert_eq "$(jget "$rr" result.run_id)" "$run_id" "report after a restart, no run given"

# no-queue mode: generators write directly; their wait is measured from
# when they made the values (not from the clock's origin)
start_run --dir "$T/direct" --files 20 --threads 2 --max-updates 400 \
    --update-time 0 --no-use-queue --rra "$RRA" >/dev/null
s2=$(wait_run)
R2=$STATE/runs/$(jget "$s2" run_id)/report.json
jq -e '.latency_ms.enqueue_to_persist | .count == 400 and .max < 10000' \
    "$R2" >/dev/null ||
    fail "no-queue latency: $(jq -c .latency_ms.enqueue_to_persist "$R2")"
log "ok: report defaults to the newest record; no-queue latency sane"
