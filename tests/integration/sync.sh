#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The sync knob: with data every written batch is followed by one
# fdatasync, timed in its own histogram (report.json latency_ms.fdatasync,
# /metrics stressd_fdatasync_seconds); with none there is none; a bad
# value is refused naming sync; drop-host-caches (root only) drops the
# host's page cache before the load and says so in the daemon log and in
# report.json's cold_cache (drop-caches, the run's own files: coldcache.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
start_metrics_daemon
FILES=50
UPDATES=2000

# metric NAME: its value in the last /metrics body.
metric() {
	awk -v n="$1" '$1 == n { print $2; f = 1 } END { exit !f }' \
	    <<<"$body" || fail "no $1 in /metrics"
}

# run_sync MODE DIR: a flat-out run; sets rep (report.json) and s (stats).
run_sync() {
	local r id
	r=$(start_run --dir "$2" --files "$FILES" --threads 2 \
	    --write-threads 2 --max-updates "$UPDATES" --update-time 0 \
	    --rra "$RRA" --sync "$1")
	id=$(jget "$r" run_id)
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" done "sync $1: final state"
	check_invariants "$s" "sync $1"
	rep=$(cat "$STATE/runs/$id/report.json")
	assert_eq "$(jget "$rep" params.sync)" "$1" "sync $1: params.sync"
	# every value landed, as rrdtool sees it
	assert_eq "$(rrd_sum "$(rrd_scan "$2" "$FILES")")" \
	    "$(jnum "$s" updates_completed)" "sync $1: rrdtool lastupdate sum"
	assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" \
	    "sync $1: updates_completed"
}

# ---- data: one fdatasync per batch the writers took, none failed
run_sync data "$T/data"
f=$(jq -c .latency_ms.fdatasync <<<"$rep")
n=$(jnum "$f" count)
assert_num "$n" '>' 0 "sync data: fdatasync count"
assert_eq "$(jget "$rep" errors.fdatasync_failed)" 0 "sync data: failed"
assert_eq "$(jget "$rep" errors.count)" 0 "sync data: errors"
# no batch failed, so every batch taken was synced once
assert_eq "$n" "$(jnum "$s" dequeued_items)" \
    "sync data: fdatasync count vs dequeued_items"
jq -e '.min <= .p50 and .p50 <= .p99 and .p99 <= .max and .mean > 0' \
    <<<"$f" >/dev/null || fail "sync data: bad histogram: $f"
body=$(curl -sf "$URL/metrics") || fail "GET /metrics failed"
assert_eq "$(metric stressd_fdatasync_seconds_count)" "$n" \
    "sync data: stressd_fdatasync_seconds_count"
data_mean=$(jget "$f" mean)
# stressctl report shows it beside the other latencies, with its count
out=$(ctl report)
grep -qE "^  fdatasync +$n( +[0-9.]+){7}\$" <<<"$out" ||
    fail "sync data: no fdatasync latency row in stressctl report: $out"
grep -qE '^  update_call +[0-9]+' <<<"$out" ||
    fail "sync data: no update_call row in stressctl report: $out"
data_rate=$(jget "$rep" throughput.updates_per_s_since_first_update)

# ---- none (the default): no fdatasync at all
run_sync none "$T/none"
# null, not zeros: nothing was timed (compare then shows "-")
assert_eq "$(jq -c .latency_ms.fdatasync <<<"$rep")" null \
    "sync none: latency_ms.fdatasync"
body=$(curl -sf "$URL/metrics") || fail "GET /metrics failed"
assert_eq "$(metric stressd_fdatasync_seconds_count)" 0 \
    "sync none: stressd_fdatasync_seconds_count"
out=$(ctl report)
! grep -q 'fdatasync' <<<"$out" ||
    fail "sync none: stressctl report shows an fdatasync row: $out"
log "sync data: mean fdatasync $data_mean ms, $data_rate updates/s;" \
    "sync none: $(jget "$rep" throughput.updates_per_s_since_first_update) updates/s"

# ---- a bad value: stressctl refuses it, and so does the daemon
rc=0
out=$(ctl start --dir "$T/bad" --files 1 --sync bogus 2>&1) || rc=$?
assert_eq "$rc" 2 "stressctl --sync bogus: exit code"
assert_contains "$out" "--sync" "stressctl --sync bogus: message"
assert_contains "$out" "drop-caches" "stressctl --sync bogus: message"
r=$(rawreq '{"cmd":"start","id":1,"args":{"dir":"'"$T"'/bad","files":1,"sync":"bogus"}}')
expect_error "$r" bad_argument sync "start with sync bogus"
assert_contains "$(jget "$r" error.message)" "none, data, drop-caches or drop-host-caches" \
    "start with sync bogus: message"
r=$(rawreq '{"cmd":"start","id":2,"args":{"dir":"'"$T"'/bad","files":1,"sync":1}}')
expect_error "$r" bad_argument sync "start with sync 1"

# ---- drop-host-caches: root only
if [ "$(id -u)" -ne 0 ]; then
	log "SKIP drop-host-caches: not root"
elif ! [ -w /proc/sys/vm/drop_caches ] ||
    ! (: >>/proc/sys/vm/drop_caches) 2>/dev/null; then
	log "SKIP drop-host-caches: /proc/sys/vm/drop_caches is not writable"
else
	run_sync drop-host-caches "$T/drop"
	grep -q "run [0-9]*: sync drop-host-caches: synced and dropped the host's page cache" \
	    "$DLOG" || fail "drop-host-caches: nothing about it in the daemon log"
	assert_eq "$(jq -c .latency_ms.fdatasync <<<"$rep")" null \
	    "sync drop-host-caches: latency_ms.fdatasync"
	assert_eq "$(jget "$rep" cold_cache.method)" drop-host-caches \
	    "sync drop-host-caches: cold_cache.method"
	assert_eq "$(jget "$rep" cold_cache.files)" null \
	    "sync drop-host-caches: cold_cache.files (not counted)"
fi
assert_alive
