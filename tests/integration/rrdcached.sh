#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# target rrdcached:ADDR: the writers hand their batches to a private
# rrdcached on a temp Unix socket, one connection each; files are created
# through it; its STATS are sampled beside our queue (report.json,
# samples.csv, metrics.rrd, stats, report); the run ends only once a
# FLUSHALL has had everything written.  rrdcached runs with -w 3600, so
# without that flush nothing would be on disk when rrdtool looks.  A
# second run reuses the files (their layout read through rrdcached's
# INFO); a restarted rrdcached costs errors of kind "connection", never
# the daemon; bad targets are refused naming the field.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
command -v rrdcached >/dev/null ||
    skip "rrdcached is not installed (Debian package rrdcached)"
start_metrics_daemon
FILES=200
UPDATES=20000
RSOCK=$T/rrdc.sock
TARGET=rrdcached:unix:$RSOCK

# start_rrdcached: in the foreground (-g) of a background job, writing
# only on FLUSHALL or exit (-w 3600), flushing all as it exits (-F).
start_rrdcached() {
	rrdcached -g -F -w 3600 -z 1 -l "unix:$RSOCK" -p "$T/rrdc.pid" \
	    -b "$T" >>"$T/rrdcached.log" 2>&1 &
	RPID=$!
	HELPER_PIDS+=("$RPID")
	for _ in $(seq 100); do
		[ -S "$RSOCK" ] && break
		sleep 0.05
	done
	[ -S "$RSOCK" ] || fail "rrdcached did not create $RSOCK"
}
start_rrdcached

# flat_run [ARGS]: a flat-out run on $T/files through rrdcached; sets id
# and s (the final stats).
flat_run() {
	local r
	r=$(start_run --dir "$T/files" --files "$FILES" --threads 4 \
	    --write-threads 3 --max-updates "$UPDATES" --update-time 0 \
	    --rra "$RRA" --target "$TARGET" "$@")
	id=$(jget "$r" run_id)
	s=$(wait_run)
}

# ---- a flat-out run through rrdcached: every value lands on disk
flat_run --sample-interval 0.2
assert_eq "$(jget "$s" state)" done "final state"
check_invariants "$s" "rrdcached run"
assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" "updates_completed"
assert_eq "$(jnum "$s" errors)" 0 "errors"
assert_eq "$(jget "$s" rrdcached.address)" "unix:$RSOCK" "stats address"
# rrdtool reads the files themselves, not through rrdcached
assert_eq "$(rrd_sum "$(rrd_scan "$T/files" "$FILES")")" "$UPDATES" \
    "rrdtool lastupdate sum after the closing flush"
rep=$(cat "$STATE/runs/$id/report.json")
assert_eq "$(jget "$rep" params.target)" "$TARGET" "params.target"
jq -e '.rrdcached.flush_s >= 0' <<<"$rep" >/dev/null ||
    fail "no flush_s in report.json: $(jq -c .rrdcached <<<"$rep")"
grew=$(jq '.rrdcached.latest.DataSetsWritten -
    .rrdcached.at_start.DataSetsWritten' <<<"$rep")
assert_num "$grew" '>=' "$UPDATES" "DataSetsWritten grew by"
# one UPDATE line per written batch or more (a line holds < 8 KB)
ups=$(jq '.rrdcached.latest.UpdatesReceived -
    .rrdcached.at_start.UpdatesReceived' <<<"$rep")
assert_num "$ups" '>=' "$(jnum "$s" update_calls)" "UpdatesReceived"
assert_eq "$(jget "$rep" rrdcached.latest.QueueLength)" 0 "final QueueLength"
n=$(jget "$rep" rrdcached.queue_length.samples)
assert_num "$n" '>' 0 "QueueLength samples"
head -n 1 "$STATE/runs/$id/samples.csv" |
    grep -q ',rrdcached_queue_length,rrdcached_updates_received,rrdcached_data_sets_written$' ||
    fail "samples.csv header: $(head -n 1 "$STATE/runs/$id/samples.csv")"
rrdtool info "$STATE/runs/$id/metrics.rrd" | grep -q '^ds\[rrdc_queue\]' ||
    fail "metrics.rrd has no rrdc_queue data source"
out=$(ctl report "$id") || fail "report $id failed"
assert_contains "$out" "rrdcached unix:$RSOCK: files waiting to be written" \
    "report text"
assert_contains "$out" "all written" "report text flush line"
body=$(curl -sf "$URL/metrics") || fail "GET /metrics failed"
assert_eq "$(awk '$1 == "stressd_rrdcached_DataSetsWritten" { print $2 }' <<<"$body")" \
    "$(jget "$rep" rrdcached.latest.DataSetsWritten)" \
    "stressd_rrdcached_DataSetsWritten"
# rrd_graph's fontconfig allocations are no leak of ours (records.sh)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    ctl graph "$id" --output "$T/g.png" >/dev/null || fail "graph $id failed"
[ -s "$T/g.png" ] || fail "graph wrote no PNG"
log "flat out: $(jget "$rep" throughput.updates_per_s_since_first_update)" \
    "updates/s, flush $(jget "$rep" rrdcached.flush_s) s"

# ---- the same files again: reused through rrdcached's INFO, continued
flat_run
assert_eq "$(jget "$s" state)" done "reuse: final state"
assert_eq "$(jnum "$s" creates_completed)" 0 "reuse: creates"
assert_eq "$(rrd_sum "$(rrd_scan "$T/files" "$FILES")")" $((2 * UPDATES)) \
    "reuse: rrdtool lastupdate sum"

# ---- the files removed under rrdcached, then made anew: it still holds
# their last update times, which CREATE alone leaves (FORGET drops them)
rm -rf "$T/files"
flat_run
assert_eq "$(jget "$s" state)" done "recreated: final state"
assert_eq "$(jnum "$s" errors)" 0 "recreated: errors"
assert_eq "$(rrd_sum "$(rrd_scan "$T/files" "$FILES")")" "$UPDATES" \
    "recreated: rrdtool lastupdate sum"

# ---- rrdcached restarted under a paced run: errors, not a crash
r=$(start_run --dir "$T/paced" --files 50 --threads 2 --write-threads 2 \
    --max-updates 8000 --update-time 4 --rra "$RRA" --target "$TARGET" \
    --fail-after 0)
wait_for_stats '.updates_completed > 1000' 20 >/dev/null
kill -TERM "$RPID"
wait "$RPID" 2>/dev/null
sleep 1
before=$(jnum "$(stats)" updates_completed)
start_rrdcached
s=$(wait_run)
assert_alive
check_invariants "$s" "restarted rrdcached"
assert_num "$(jget "$s" errors_by_kind.connection)" '>' 0 \
    "connection errors while rrdcached was away"
assert_eq $(($(jnum "$s" updates_completed) + $(jnum "$s" updates_failed))) \
    8000 "completed + failed"
assert_num "$(jnum "$s" updates_completed)" '>' "$before" \
    "updates completed after rrdcached came back"
rid=$(jget "$s" run_id)
assert_eq "$(jq -r .rrdcached.restarted "$STATE/runs/$rid/report.json")" \
    true "restart seen in report.json"
log "restart: $(jget "$s" errors_by_kind.connection) connection errors," \
    "$(jnum "$s" updates_completed) completed"
jq -e '.error_messages[0] | test("^/.*\\.rrd: rrdcached unix:")' \
    <<<"$s" >/dev/null ||
    fail "error message does not name the file: $(jq -c .error_messages <<<"$s")"

# ---- over TCP, by name (localhost): nothing is made or looked up here,
# rrdcached -R makes the subdirectories
for port in $(shuf -i 20000-60000 -n 5); do
	rrdcached -g -F -w 3600 -z 1 -R -l "127.0.0.1:$port" \
	    -p "$T/tcp.pid" -b "$T" >>"$T/rrdcached-tcp.log" 2>&1 &
	TPID=$!
	HELPER_PIDS+=("$TPID")
	sleep 0.5
	pid_alive "$TPID" && break
done
pid_alive "$TPID" || fail "no rrdcached on TCP: $(tail -n 3 "$T/rrdcached-tcp.log")"
r=$(start_run --dir "$T/tcp/sub" --files 20 --files-per-dir 10 \
    --max-updates 2000 --update-time 0 --rra "$RRA" \
    --target "rrdcached:localhost:$port")
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "tcp: final state"
assert_eq "$(rrd_sum "$(rrd_scan "$T/tcp/sub" 20 10)")" 2000 \
    "tcp: rrdtool lastupdate sum"
assert_eq "$(jq -r .target.fs_type "$STATE/runs/$(jget "$s" run_id)/report.json")" \
    null "tcp: no file system recorded for a remote target"

# ---- refused: bad targets, an rrdcached that is not there, sync data,
# sync drop-caches over TCP (the files may be on another host)
expect_target_error() {
	local what=$1 out rc=0
	shift
	out=$(ctlj start --dir "$T/bad" --files 1 --rra "$RRA" "$@" 2>&1) ||
	    rc=$?
	[ "$rc" -ne 0 ] || fail "$what: start succeeded: $out"
	assert_contains "$out" "$FIELD" "$what: names $FIELD"
}
FIELD=target expect_target_error "bogus target" --target bogus
FIELD=target expect_target_error "no address" --target rrdcached:
FIELD=target expect_target_error "nobody listening" \
    --target "rrdcached:unix:$T/nope.sock"
FIELD=sync expect_target_error "sync data" --target "$TARGET" --sync data
FIELD="rrdcached's host" expect_target_error "sync drop-caches over TCP" \
    --target "rrdcached:localhost:$port" --sync drop-caches
# the daemon refuses what stressctl would have: a raw request
out=$(rawreq '{"cmd":"start","args":{"dir":"'"$T"'/bad","files":1,"target":"rrdcached"}}')
expect_error "$out" bad_argument target "raw bogus target"
assert_alive

# ---- SIGTERM mid-run: the drain includes the closing flush, so what is
# on disk (rrdcached writes only on FLUSHALL here) is every completed value
r=$(start_run --dir "$T/term" --files 50 --threads 2 --write-threads 2 \
    --max-updates 100000 --update-time 20 --rra "$RRA" --target "$TARGET")
id=$(jget "$r" run_id)
wait_for_stats '.updates_completed > 2000' 20 >/dev/null
stop_daemon TERM 60
assert_eq "$DAEMON_RC" 0 "exit status after SIGTERM"
rep=$(cat "$STATE/runs/$id/report.json")
assert_eq "$(jget "$rep" state)" stopped "SIGTERM: state"
jq -e '.rrdcached.flush_s >= 0' <<<"$rep" >/dev/null ||
    fail "SIGTERM: no closing flush: $(jq -c .rrdcached <<<"$rep")"
assert_eq "$(rrd_sum "$(rrd_scan "$T/term" 50)")" \
    "$(jget "$rep" counters.updates_completed)" \
    "SIGTERM: rrdtool lastupdate sum vs updates_completed"
