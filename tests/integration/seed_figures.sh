#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# report's "Average:" and "Histogram:" are exactly what the original
# write-up's one-liner computes from stress.log (one value per block),
# also for a running run and after the log was rotated mid-run; the
# timed samples' figures are labelled as such.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# seed LOG...: "N average" as README's one-liner prints it, and the
# histogram "value: count" lines, from the logs' significantOpsPending.
seed() {
	cat "$@" | grep -oP 'significantOpsPending=\K\d+' |
	    awk '{ s += $1 } END { printf "%d %.2f\n", NR, NR ? s / NR : 0 }'
}
# check_hist LOG...: each of report's histogram lines ("v: n", or
# "lo-hi: n" once values are grouped) counts exactly the blocks of the
# logs in its range, and together they count every block.
check_hist() {
	cat "$@" | grep -oP 'significantOpsPending=\K\d+' >"$T/vals"
	awk 'NR == FNR { v[NR] = $1; nv = NR; next }
	    { split($1, r, "[-:]"); lo = r[1]; hi = ($1 ~ /-/) ? r[2] : r[1]
	      n = 0; for (i = 1; i <= nv; i++) if (v[i] >= lo && v[i] <= hi) n++
	      if (n != $2) { printf "%s counts %d blocks, not %s\n", $1, n, $2; bad = 1 }
	      sum += $2 }
	    END { if (sum != nv) { printf "%d blocks in all, not %d\n", sum, nv; bad = 1 }
	      exit bad }' "$T/vals" "$T/hist"
}
# report_fig ID: "N average" from report's stress.log block; its
# histogram lines into $T/hist.
report_fig() {
	ctl report "$1" >"$T/rep" || fail "report $1 exited $?"
	awk '/^Significant operations pending/ { f = 1; next }
	    f && /^$/ { exit }
	    f && /stress.log, [0-9]+ blocks/ { n = $2 }
	    f && /^  Average: / { a = $2 }
	    f && /^  Histogram:/ { h = 1; next }
	    f && /^  timed samples/ { h = 0 }
	    f && h { print $1, $2 > "'"$T/hist"'" }
	    END { printf "%d %s\n", n, a }' "$T/rep"
}

# A flat-out run with one writer on 200 files: the queue is deep, and the
# blocks (every 200 updates) see it at other moments than the 0.1 s
# samples do.
start_run --dir "$T/rrd" --files 200 --threads 4 --write-threads 1 \
    --max-updates 40000 --modulus 200 --update-time 0 \
    --sample-interval 0.1 --rra "$RRA" >/dev/null
s=$(wait_run)
id=$(jget "$s" run_id)
slog=$STATE/runs/$id/stress.log
got=$(report_fig "$id")
want=$(seed "$slog")
assert_eq "$got" "$want" "blocks and Average: beside the one-liner's"
msg=$(check_hist "$slog") || fail "Histogram: $msg: $(cat "$T/hist")"
grep -q '^  timed samples ([0-9]*, every 0.1 s): average [0-9.]*$' "$T/rep" ||
    fail "the timed samples' figures are not labelled: $(cat "$T/rep")"
assert_eq "$(jq '.stress_log.blocks' "$STATE/runs/$id/report.json")" 200 \
    "report.json's stress_log.blocks"
log "done run: $got (one-liner $want); timed: $(grep 'timed samples' "$T/rep")"

# A paced run, read while it runs and after a rotation: the figures
# follow both files.
start_run --dir "$T/rrd2" --files 100 --max-updates 6000 --modulus 100 \
    --update-time 4 --rra "$RRA" >/dev/null
id=$(jget "$(ctlj status)" run.id)
slog=$STATE/runs/$id/stress.log
for _ in $(seq 100); do
	[ "$(grep -c 'significantOpsPending=' "$slog" 2>/dev/null || true)" -ge 10 ] &&
	    break
	sleep 0.05
done
mid=$(ctlj report "$id" | jq '.stress_log.blocks')
assert_num "$mid" ">=" 10 "blocks counted while the run runs"
mv "$slog" "$slog.1"
kill -HUP "$DPID"
wait_run >/dev/null
assert_eq "$(report_fig "$id")" "$(seed "$slog.1" "$slog")" \
    "Average: over the rotated log and the new one"
msg=$(check_hist "$slog.1" "$slog") ||
    fail "Histogram of the rotated run: $msg: $(cat "$T/hist")"
log "ok: rotated run $(seed "$slog.1" "$slog"), $mid blocks mid-run"
