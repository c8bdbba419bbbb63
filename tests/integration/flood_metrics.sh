#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# A /metrics flood cannot starve the writers or the control socket: with
# the daemon's descriptor limit at 1024, 3000 held HTTP connections that
# dribble a byte a second (a slowloris) fail no update of the run in
# progress, a legitimate `stressctl stats` stays fast (p99 of 20 calls
# under 2 s), every held connection is cut at the whole-request deadline
# (10 s from accept, bytes do not extend it: all are closed 12 s after the
# last byte), and a fresh scrape is answered afterwards.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

command -v prlimit >/dev/null || skip "prlimit (util-linux) not found"
build_tool flood
# The daemon alone gets the small limit (prlimit execs it in place).
STRESSD_WRAPPER=(prlimit --nofile=1024:1024 --)
start_metrics_daemon
# Every update opens its file: a writer short of descriptors fails it.
start_run --dir "$T/d" --files 100 --threads 1 --write-threads 2 \
    --max-updates 1000000 --update-time 600 --rra "$RRA" >/dev/null
wait_for_stats '.state == "running" and .updates_completed > 100' 60 >/dev/null

# Then up to 12 s more for what the kernel handed the daemon late.
"$T/flood" -t "$port" -n 3000 -d -s 25 -w 12 \
    -p $'GET /metrics HTTP/1.1\r\nHost: a\r\nX-Slow: ' >"$T/flood.out" &
fpid=$!
HELPER_PIDS+=("$fpid")
wait_flood "$T/flood.out"

# A legitimate client during the flood.
p99=$(stats_p99 "stats during the /metrics flood" 0.2)
log "stats latency during the flood: p99 (max of 20) ${p99} ms"
assert_num "$p99" '<' 2000 "stats p99 during the /metrics flood (ms)"
failed=$(jnum "$(cat "$T/s.json")" updates_failed)
log "updates_failed during the flood: $failed"
assert_eq "$failed" 0 "updates failed during the /metrics flood"

wait "$fpid" || true
log "flood end: $(tail -n 2 "$T/flood.out" | head -n 1)"
read -r _ open _ closed _ <<<"$(grep '^open' "$T/flood.out")"
assert_eq "$open" 0 "slowloris connections still open 12 s after the flood (deadline 10 s)"
assert_num "$closed" '>' 0 "connections the daemon closed"
body=$(curl -sf -m 10 "$URL/metrics") || fail "no fresh scrape after the flood"
assert_contains "$body" stressd_ "the fresh scrape"

ctl stop --no-drain >/dev/null
s=$(stats)
assert_eq "$(jnum "$s" updates_failed)" 0 "updates failed over the whole run"
check_invariants "$s" "after the /metrics flood"
grep -q 'Too many open files' "$DLOG" && fail "the daemon ran out of descriptors"
log "ok"
