#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# A client that reads a large reply slowly (here `runs` over 1,500
# records, well past 256 KiB) gets all of it, and then the answer to the
# request it pipelined behind: no disconnect.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

start_run --dir "$T/rrd" --files 10 --max-updates 100 --update-time 0 \
    --rra "$RRA" >/dev/null
wait_run >/dev/null
stop_daemon TERM 20
for i in $(seq 2 1500); do
	mkdir "$STATE/runs/$i"
	cp "$STATE/runs/1/report.json" "$STATE/runs/$i/"
done
start_daemon

build_tool sockclient
out=$("$T/sockclient" slowread "$SOCK" '{"cmd":"runs","id":1,"args":{"limit":10000}}' \
    '{"cmd":"version","id":2}')
read -r bytes lines second <<<"$out"
[ "$bytes" -gt 262144 ] || fail "the runs reply is only $bytes bytes: no test"
assert_eq "$lines" 2 "replies received (bytes $bytes)"
assert_contains "$second" '"id":2' "the pipelined version reply"
assert_alive
log "ok"
