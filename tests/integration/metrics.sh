#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Prometheus: with --metrics-listen, GET /metrics serves the run's gauges,
# counters (_total) and latency histograms in the text format, passing
# promtool; the counters agree with stats; any other path is 404.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
start_metrics_daemon

# before any run: valid, all zero
body=$(curl -sf "$URL/metrics") || fail "GET /metrics failed before a run"
grep -q '^stressd_updates_completed_total 0$' <<<"$body" ||
    fail "idle metrics: $(head -c 300 <<<"$body")"

start_run --dir "$T/rrd" --files 50 --threads 2 --max-updates 3000 \
    --update-time 1 --rra "$RRA" >/dev/null
s=$(wait_run)
body=$(curl -sf -D "$T/headers" "$URL/metrics") || fail "GET /metrics failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$T/headers" ||
    fail "content type: $(cat "$T/headers")"
metric() { awk -v n="$1" '$1 == n { print $2 }' <<<"$body"; }
for k in updates_completed offered enqueued dropped errors update_calls; do
	assert_eq "$(metric "stressd_${k}_total")" "$(jget "$s" "$k")" \
	    "stressd_${k}_total"
done
# the counters /metrics lacked before it was made from stats' own table
for k in creates_failed dropped_at_shutdown significant_ops_enqueued \
    significant_ops_dequeued significant_ops_completed creates_completed \
    discarded dequeued_operations dequeued_items creates_queued \
    creates_discarded; do
	assert_eq "$(metric "stressd_${k}_total")" "$(jget "$s" "$k")" \
	    "stressd_${k}_total"
done
assert_eq "$(metric stressd_promotions_total)" "$(jget "$s" promotion_count)" \
    "stressd_promotions_total"
for k in total_operations_pending significant_ops_pending in_flight \
    files_with_significant_work files_with_insignificant_work creates_pending; do
	assert_eq "$(metric "stressd_$k")" "$(jget "$s" "$k")" "stressd_$k"
done
assert_eq "$(metric stressd_total_operations_pending)" 0 "pending gauge"
grep -q "^stressd_run_info{run_id=\"1\",state=\"done\",dir=\"$T/rrd\",fs_type=\"[a-z0-9/]*\"} 1$" \
    <<<"$body" || fail "run_info: $(grep run_info <<<"$body")"
# histograms: cumulative, +Inf equals the count, one observation a batch
n=$(metric stressd_enqueue_to_persist_seconds_count)
assert_num "$n" '>=' "$(jget "$s" dequeued_items)" "enqueue_to_persist count"
assert_eq "$(metric 'stressd_enqueue_to_persist_seconds_bucket{le="+Inf"}')" \
    "$n" "+Inf bucket"
awk '/^stressd_update_call_seconds_bucket/ { if ($2 < prev) bad = 1; prev = $2 }
    END { exit bad }' <<<"$body" || fail "update_call buckets not cumulative"

if command -v promtool >/dev/null; then
	out=$(promtool check metrics <<<"$body" 2>&1) ||
	    fail "promtool check metrics: $out"
	[ -z "$out" ] || fail "promtool check metrics says: $out"
else
	log "promtool not installed (apt-get install prometheus): format not linted"
fi
# errors by kind: files deleted mid-run are "missing", as stats says
start_run --dir "$T/rrd" --files 50 --threads 2 --max-updates 3000 \
    --update-time 3 --rra "$RRA" >/dev/null
wait_for_stats '.updates_completed >= 300' 30 >/dev/null
rm -f "$T"/rrd/1[0-4].rrd
s=$(wait_run)
body=$(curl -sf "$URL/metrics") || fail "GET /metrics failed"
assert_num "$(jget "$s" errors_by_kind.missing)" '>' 0 "stats errors_by_kind.missing"
for k in missing corrupt no_space read_only permission locked connection other; do
	assert_eq "$(metric "stressd_errors_by_kind_total{kind=\"$k\"}")" \
	    "$(jget "$s" "errors_by_kind.$k")" "stressd_errors_by_kind_total{kind=$k}"
done
assert_eq "$(metric stressd_errors_total)" "$(jget "$s" errors)" \
    "stressd_errors_total after deletions"

assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "$URL/other")" 404 "GET /other"
assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/metrics")" \
    405 "POST /metrics"
assert_alive "metrics scrapes"
log "ok: /metrics on port $port"
