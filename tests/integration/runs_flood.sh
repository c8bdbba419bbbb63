#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# issue 22: `runs` is answered from an in-memory index, a page at a time,
# so that a flood of it does not stall the loop.  With 20,000 records,
# 100 connections sending `runs` every 0.5 s leave status's p99 under
# 100 ms and the sampler's gaps under 2 x its interval (0.1 s).  And the
# paging protocol: limit, before, next_before, bad values refused naming
# the field; stressctl runs joins every page.
# The flood runs as root, as the test does: a read-only user sees the
# same `runs` (it is a read command), and access.sh covers who may send it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

N=20000
start_run --dir "$T/rrd" --files 10 --max-updates 100 --update-time 0 \
    --rra "$RRA" >/dev/null
wait_run >/dev/null
stop_daemon TERM 20
# 20,000 copies of run 1's record, each with its own run_id.
seq 2 "$N" | (cd "$STATE/runs" && xargs mkdir)
awk -v n="$N" -v state="$STATE/runs" '
	{ rec[NR] = $0 }
	END {
		for (id = 2; id <= n; id++) {
			f = state "/" id "/report.json"
			for (i = 1; i <= NR; i++) {
				l = rec[i]
				sub(/"run_id": *1,/, "\"run_id\": " id ",", l)
				print l > f
			}
			close(f)
		}
	}' "$STATE/runs/1/report.json"
# Recovery and the index read all 20,000 records before the socket is
# served: seconds here, far more under ASan on a busy CI runner.
READY_TIMEOUT=120 start_daemon
log "$(grep -o 'runs: .* indexed .*' "$DLOG" | tail -n 1)"

# ---- paging
r=$(rawreq '{"cmd":"runs","id":1}')
assert_eq "$(jq '.result.runs | length' <<<"$r")" 100 "default page"
assert_eq "$(jq '.result.runs[0].id' <<<"$r")" $((N - 99)) "default page: first"
assert_eq "$(jq '.result.runs[99].id' <<<"$r")" "$N" "default page: last"
assert_eq "$(jq '.result.next_before' <<<"$r")" $((N - 99)) "next_before"
r=$(rawreq '{"cmd":"runs","id":1,"args":{"limit":5,"before":10}}')
assert_eq "$(jq -c '[.result.runs[].id]' <<<"$r")" '[5,6,7,8,9]' "limit 5 before 10"
assert_eq "$(jq '.result.next_before' <<<"$r")" 5 "next_before of that page"
r=$(rawreq '{"cmd":"runs","id":1,"args":{"before":3}}')
assert_eq "$(jq -c '[.result.runs[].id]' <<<"$r")" '[1,2]' "before 3"
assert_eq "$(jq '.result.next_before' <<<"$r")" null "the last page"
for bad in '"limit":0' '"limit":10001' '"limit":"5"' '"limit":1.5' \
    '"before":0' '"before":-1' '"before":1000000001'; do
	r=${bad#\"}
	expect_error "$(rawreq '{"cmd":"runs","id":1,"args":{'"$bad"'}}')" \
	    bad_argument "${r%%\"*}" "runs $bad"
done
expect_error "$(rawreq '{"cmd":"runs","id":1,"args":{"after":1}}')" \
    bad_argument after "runs after"
assert_eq "$(ctlj runs | jq '.runs | length')" "$N" "stressctl runs: every page"
assert_eq "$(ctlj runs --limit 3 --before 100 | jq -c '[.runs[].id]')" \
    '[97,98,99]' "stressctl runs --limit 3 --before 100"
assert_eq "$(ctl runs --limit 2 | grep -c "$T/rrd")" 2 "stressctl runs --limit 2"

# ---- the flood, during a paced run sampled every 0.1 s
build_tool sockclient
r=$(start_run --dir "$T/paced" --files 10 --max-updates 3000 --update-time 30 \
    --sample-interval 0.1 --rra "$RRA")
id=$(jget "$r" run_id)
"$T/sockclient" repeat "$SOCK" 100 0.5 12 '{"cmd":"runs","id":1}' \
    >"$T/flood.out" &
fpid=$!
HELPER_PIDS+=("$fpid")
sleep 1
lat=$("$T/sockclient" latency "$SOCK" 100 0.05 '{"cmd":"status","id":1}' 2>&1) ||
    fail "status during the flood: $lat"
wait "$fpid" || fail "the flood failed"
log "flood: $(cat "$T/flood.out"); status $lat"
read -r _ p99 _ max <<<"$lat"
awk -v p="$p99" 'BEGIN { exit !(p < 100) }' ||
    fail "status p99 ${p99} ms during the runs flood (max $max ms)"
read -r _ sent _ got <"$T/flood.out"
[ "$sent" -ge 1000 ] || fail "the flood sent only $sent requests"
ctl stop >/dev/null 2>&1 || fail "the paced run ended before the flood did"
wait_run >/dev/null || true
gap=$(awk -F, 'NR > 2 { d = $1 - prev; if (d > m) m = d } { prev = $1 }
    END { printf "%.3f", m }' "$STATE/runs/$id/samples.csv")
log "run $id: $(($(wc -l <"$STATE/runs/$id/samples.csv") - 1)) samples, largest gap $gap s"
awk -v g="$gap" 'BEGIN { exit !(g < 0.2) }' ||
    fail "sampler gap $gap s during the runs flood (interval 0.1 s)"
assert_alive "the runs flood"
log "ok"
