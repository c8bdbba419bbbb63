#!/bin/bash
# shellcheck disable=SC2015,SC2119  # A && B || fail is meant; no arguments
# The queue's memory bound (issue 13, point 6).  Flat out, the generators
# outrun the writers by far; with an explicit bound and with the default
# the daemon's resident memory stays under the bound plus an overhead, the
# generators wait (counted in stats and report.json) instead of dropping,
# the conservation equations hold, the files hold exactly what was written,
# and stop, stop --no-drain and SIGTERM end a run whose generators wait.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

[ -r /proc/self/status ] || skip "no /proc/PID/status"

# What the daemon holds beyond the queue's bound: chunks freed and kept
# for reuse per size class, partly cut 1 MiB slabs, the per-file table (72
# bytes a file), librrd's and the writers' buffers, thread stacks, the
# samples.  Measured 8 MB past a 4 MiB bound, 9 MB past 256 MiB (2,000
# and 10,000 files); the margin is wide.
OVERHEAD_MIB=32
# assert_rss GROWTH_KB BOUND_MIB LABEL: the daemon grew less than BOUND_MIB
# + OVERHEAD_MIB.  Not under AddressSanitizer, whose quarantine keeps freed
# memory resident: there RSS says nothing of the queue (queue_memory_bytes,
# checked apart, still does).
ASAN=0
asan_build && ASAN=1
assert_rss() {
	[ "$ASAN" -eq 1 ] && return 0
	assert_num "$1" '<' "($2 + $OVERHEAD_MIB) * 1024" "$3"
}
FILES=2000
MIB=1048576

kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$DPID/status"; }

# watch_memory BOUND_MIB BASE_KB JQ_EXPR SECONDS: poll stats until JQ_EXPR
# holds; every snapshot, queue_memory_bytes is within the bound and the
# daemon's VmRSS within bound + overhead of its size before the run.
# Prints the last snapshot.
watch_memory() {
	local bound=$1 base=$2 expr=$3 deadline=$((SECONDS + $4)) s rss
	while :; do
		s=$(stats)
		rss=$(kb VmRSS)
		assert_rss "$rss - $base" "$bound" \
		    "VmRSS growth (kB) with queue_memory_max $bound MiB"
		assert_num "$(jnum "$s" queue_memory_bytes)" '<=' "$bound * $MIB" \
		    "queue_memory_bytes with queue_memory_max $bound MiB"
		check_invariants "$s" "snapshot at the bound"
		jq -e "$expr" <<<"$s" >/dev/null && break
		[ "$SECONDS" -lt "$deadline" ] ||
		    fail "stats never satisfied '$expr' within $4 s: ${s:0:600}"
		sleep 0.2
	done
	printf '%s\n' "$s"
}

# check_held_back STATS BOUND_MIB LABEL: the generators waited, nothing
# was dropped or failed, the peak stayed within the bound.
check_held_back() {
	assert_num "$(jnum "$1" generator_waits)" '>' 0 "$3: generator_waits"
	assert_num "$(jnum "$1" generator_wait_ms)" '>' 0 "$3: generator_wait_ms"
	assert_num "$(jnum "$1" queue_memory_peak_bytes)" '<=' "$2 * $MIB" \
	    "$3: queue_memory_peak_bytes"
	assert_eq "$(jnum "$1" dropped)" 0 "$3: dropped"
	assert_eq "$(jnum "$1" errors)" 0 "$3: errors"
	assert_eq "$(jnum "$1" updates_failed)" 0 "$3: updates_failed"
	check_invariants "$1" "$3"
}

# ---- 1. a 1 MiB bound, a run that ends by itself: every update written
BOUND=1
UPDATES=1000000
base=$(kb VmRSS)
start_run --dir "$T/done" --files 500 --zero-files 0 --threads 2 \
    --write-threads 1 --max-updates "$UPDATES" --update-time 0 --rra "$RRA" \
    --queue-memory-max "$BOUND" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "bounded run: state"
check_held_back "$s" "$BOUND" "bounded run"
check_drained "$s" "bounded run"
assert_eq "$(jnum "$s" generated)" "$UPDATES" "bounded run: generated"
assert_eq "$(jnum "$s" updates_completed)" "$UPDATES" \
    "bounded run: updates_completed"
assert_eq "$(rrd_sum "$(rrd_scan "$T/done" 500)")" "$UPDATES" \
    "bounded run: updates on disk"
assert_rss "$(kb VmHWM) - $base" "$BOUND" \
    "bounded run: VmHWM growth (kB)"
rep=$(cat "$STATE/runs/1/report.json")
assert_eq "$(jget "$rep" generators.held_back)" true "report.json: held_back"
assert_num "$(jnum "$rep" generators.wait_s)" '>' 0 "report.json: wait_s"
assert_eq "$(jnum "$rep" generators.queue_memory_max_bytes)" \
    "$((BOUND * MIB))" "report.json: queue_memory_max_bytes"
assert_eq "$(jnum "$rep" counters.generator_wait_ms)" \
    "$(jnum "$s" generator_wait_ms)" "report.json: counters.generator_wait_ms"
assert_eq "$(jnum "$rep" params.queue_memory_max)" "$BOUND" \
    "report.json: params.queue_memory_max"
out=$(ctl report 1)
assert_contains "$out" "generators held back" "stressctl report"
assert_contains "$out" "of 1 MiB (queue_memory_max)" "stressctl report"
log "bounded run: $(jnum "$s" generator_waits) waits," \
    "$(jnum "$s" generator_wait_ms) ms, VmHWM +$(($(kb VmHWM) - base)) kB"

# ---- 2. a 4 MiB bound, a long run: memory stays put; stop drains it
BOUND=4
base=$(kb VmRSS)
start_run --dir "$T/flat" --files "$FILES" --zero-files 0 --threads 2 \
    --write-threads 2 --max-updates 1000000000 --update-time 0 \
    --rra "$RRA" --queue-memory-max "$BOUND" >/dev/null
watch_memory "$BOUND" "$base" \
    '.generator_wait_ms > 0 and .elapsed_s >= 5' 60 >/dev/null
s=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj stop)
assert_eq "$(jget "$s" state)" stopped "stopped bounded run: state"
check_held_back "$s" "$BOUND" "stopped bounded run"
check_drained "$s" "stopped bounded run"
assert_eq "$(rrd_sum "$(rrd_scan -m "$T/flat" "$FILES")")" \
    "$(jnum "$s" updates_completed)" "stopped bounded run: updates on disk"
assert_rss "$(kb VmHWM) - $base" "$BOUND" \
    "stopped bounded run: VmHWM growth (kB)"

# ---- 3. SIGTERM while the generators wait: the daemon exits
start_run --dir "$T/term" --files "$FILES" --threads 2 --max-updates \
    1000000000 --update-time 0 --rra "$RRA" --queue-memory-max 1 >/dev/null
wait_for_stats '.generator_waits > 0' 60 >/dev/null
stop_daemon TERM 60
assert_eq "$DAEMON_RC" 0 "SIGTERM with waiting generators: exit status"

# ---- 4. the default bound: an eighth of RAM, 16 to 256 MiB (and the
# wait on /metrics, in seconds)
URL=
if command -v curl >/dev/null; then start_metrics_daemon; else start_daemon; fi
mem_kb=$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)
want=$((mem_kb / 8 / 1024))
[ "$want" -ge 16 ] || want=16
[ "$want" -le 256 ] || want=256
base=$(kb VmRSS)
r=$(start_run --dir "$T/default" --files "$FILES" --zero-files 0 \
    --threads 2 --write-threads 2 --max-updates 1000000000 \
    --update-time 0 --rra "$RRA")
st=$(ctlj status)
got=$(jnum "$st" run.params.queue_memory_max)
assert_num "($got - $want) | fabs" '<=' 1 "default queue_memory_max (MiB)"
s=$(watch_memory "$got" "$base" '.generator_wait_ms > 0' 120)
log "default $got MiB reached after $(jnum "$s" elapsed_s) s:" \
    "VmRSS +$(($(kb VmRSS) - base)) kB"
if [ -n "$URL" ]; then
	m=$(curl -sS --max-time 30 "$URL/metrics" |
	    awk '$1 == "stressd_generator_wait_seconds_total" { print $2 }')
	[ -n "$m" ] || fail "/metrics: no stressd_generator_wait_seconds_total"
	assert_num "$m" '>=' "$(jnum "$s" generator_wait_ms) / 1000" \
	    "/metrics: stressd_generator_wait_seconds_total"
fi
s=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj stop --no-drain)
assert_eq "$(jget "$s" state)" stopped "default bound, stop --no-drain: state"
check_held_back "$s" "$got" "default bound, stop --no-drain"
assert_rss "$(kb VmHWM) - $base" "$got" \
    "default bound: VmHWM growth (kB)"
rep=$(cat "$STATE/runs/$(jget "$r" run_id)/report.json")
assert_eq "$(jget "$rep" generators.held_back)" true \
    "default bound: report.json held_back"

assert_alive "the bounded runs"
log "PASS"
