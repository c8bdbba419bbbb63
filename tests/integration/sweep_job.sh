#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The sweep as a daemon job: bad input refused naming the key with
# nothing created; a paced sweep over two directories seen in status,
# stats, /metrics and systemd's STATUS while it runs (start refused as
# busy), its record sweep.json in its first run's directory after each
# run, each run tagged with the sweep id, the files' update counts by
# rrdtool = each run's updates_completed; a stop mid-sweep (stopped, the
# runs so far kept, no later run); kill -9 mid-sweep (interrupted at the
# next start, the runs done kept).  stressctl sweep: the sweep outlives a
# killed client and --attach follows it to its compare (rrdtool confirms
# the updates); Ctrl-C detaches by default, --on-interrupt stop stops it;
# --detach returns at once and stressctl stop stops it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

FILES=20
NS=$T/notify.sock
notify_listen "$NS" "$T/notify.out"
NOTIFY_SOCKET=$NS start_metrics_daemon

# sweepreq ARGS_JSON: one `sweep` request, its reply line.
sweepreq() {
	rawreq "{\"cmd\": \"sweep\", \"args\": ${1//$'\n'/ }}"
}
records() { find "$STATE/runs" -mindepth 1 -maxdepth 1 | wc -l; }
# record ID: the sweep record of sweep ID on disk.
record() { cat "$STATE/runs/$1/sweep.json"; }

# ---- 1. bad input: the key named, nothing created
base="\"files\": $FILES, \"rras\": \"$RRA\", \"max_updates\": 100,
    \"update_time\": 0"
before=$(records)
expect_error "$(sweepreq "{$base}")" bad_argument dirs "no dirs"
expect_error "$(sweepreq "{\"dirs\": [], $base}")" bad_argument dirs "empty dirs"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\"], \"repeat\": 0, $base}")" \
    bad_argument repeat "repeat 0"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\"], \"repeat\": 1001, $base}")" \
    bad_argument repeat "repeat 1001"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\"], \"repeat\": 1.5, $base}")" \
    bad_argument repeat "repeat 1.5"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\"], \"dir\": \"$T/a\", $base}")" \
    bad_argument dir "dir instead of dirs"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\"], \"sweep_id\": \"x\", $base}")" \
    bad_argument sweep_id "sweep_id is the sweep's"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\", \"$T/b\"], \"labels\": [\"x\"],
    $base}")" bad_argument labels "labels of another length"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\"],
    \"labels\": [\"$(printf 'x%.0s' {1..130})\"], $base}")" \
    bad_argument "labels[0]" "a label too long"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\", \"rel\"], $base}")" \
    bad_argument "dirs[1]" "a relative dir"
expect_error "$(sweepreq "{\"dirs\": [\"$T/a\"], \"files\": 0}")" \
    bad_argument files "a bad knob"
# The first run cannot start (its directory is under a file): the reply
# names the directory, no record is left.
: >"$T/afile"
expect_error "$(sweepreq "{\"dirs\": [\"$T/afile/d\"], $base}")" \
    bad_argument "dirs[0]" "a first run that cannot start"
assert_eq "$(records)" "$before" "records made by refused sweeps"
[ ! -e "$T/a" ] || fail "a refused sweep created $T/a"
assert_eq "$(ctlj status | jq -c .sweep)" null "status after refusals"
assert_alive "after bad sweeps"

# ---- 2. a paced sweep over two directories, twice each: a b a b
paced="\"files\": $FILES, \"rras\": \"$RRA\", \"max_updates\": 600,
    \"update_time\": 3"
r=$(sweepreq "{\"dirs\": [\"$T/a\", \"$T/b\"], \"labels\": [\"disk a\", \"\"],
    \"repeat\": 2, $paced}")
assert_eq "$(jget "$r" ok)" true "sweep accepted: $r"
SID=$(jnum "$r" result.id)
SWID=$(jget "$r" result.sweep_id)
[[ $SWID == s-* ]] || fail "sweep id '$SWID'"
assert_eq "$(jget "$r" result.run_id)" "$SID" "the sweep is its first run's"
s=$(wait_for_stats '.sweep != null and .sweep.run >= 2 and .state == "running"' 60)
assert_eq "$(jget "$s" sweep.id)" "$SID" "stats: sweep.id"
assert_eq "$(jget "$s" sweep.runs_planned)" 4 "stats: sweep.runs_planned"
assert_eq "$(jget "$s" sweep.label)" "$T/b" "stats: the default label"
st=$(ctlj status)
assert_eq "$(jget "$st" sweep.sweep_id)" "$SWID" "status: sweep.sweep_id"
assert_eq "$(jget "$st" sweep.dir)" "$T/b/sweep-$SWID-2" "status: sweep.dir"
expect_error "$(rawreq '{"cmd": "start", "args": {"dir": "'"$T"'/c"}}')" \
    busy "start during a sweep"
expect_error "$(sweepreq "{\"dirs\": [\"$T/c\"], $base}")" busy \
    "a second sweep"
m=$(curl -sf "$URL/metrics")
assert_contains "$m" "stressd_sweep_active 1" "/metrics: active"
assert_contains "$m" "stressd_sweep_runs_planned{sweep=\"$SID\",sweep_id=\"$SWID\"" \
    "/metrics: the sweep"
# STATUS= follows the daemon's own tick, a moment after status does.
for _ in $(seq 50); do
	grep -aq "STATUS=sweep $SID: run 2/4 (dir 2/2 $T/b)" "$T/notify.out" &&
	    break
	sleep 0.1
done
grep -aq "STATUS=sweep $SID: run 2/4 (dir 2/2 $T/b)" "$T/notify.out" ||
    fail "no sweep STATUS line: $(tr '\0' '\n' <"$T/notify.out" | tail -3)"
# The record is there from its first run on, rewritten as runs end.
assert_eq "$(record "$SID" | jq -r .state)" running "the record while it runs"
assert_num "$(record "$SID" | jq '[.runs[] | select(.state == "done")] | length')" \
    '>=' 1 "the record after the first run"
rec=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait)
assert_eq "$(jget "$rec" schema)" stressd-sweep "wait: the record"
F=$STATE/runs/$SID/sweep.json
[ -f "$F" ] || fail "no $F"
assert_eq "$(jq -r .state "$F")" done "the sweep's state"
assert_eq "$(jq -r .schema_version "$F")" 1 "schema_version"
assert_eq "$(jq -r '[.dirs[].label] | join(",")' "$F")" "disk a,$T/b" "labels"
assert_eq "$(jq -r '[.runs[].state] | unique | join(",")' "$F")" done \
    "every run done"
assert_eq "$(jq -r '[.runs[].dir_index] | join(",")' "$F")" "0,1,0,1" \
    "interleaved"
assert_eq "$(jq -r .params.max_updates "$F")" 600 "params"
for id in $(jq '.runs[].run_id' "$F"); do
	rep=$STATE/runs/$id/report.json
	dir=$(jq -r ".runs[] | select(.run_id == $id) | .dir" "$F")
	assert_eq "$(jq -r .params.dir "$rep")" "$dir" "run $id: dir"
	assert_eq "$(jq -r .params.sweep_id "$rep")" "$SWID" "run $id: sweep_id"
	assert_eq "$(rrd_sum "$(rrd_scan "$dir" "$FILES")")" \
	    "$(jq .counters.updates_completed "$rep")" \
	    "run $id: updates on disk vs updates_completed"
	assert_eq "$(jq .counters.updates_completed "$rep")" 600 \
	    "run $id: updates_completed"
done
r=$(rawreq "{\"cmd\": \"report\", \"args\": {\"run\": $SID, \"kind\": \"sweep\"}}")
assert_eq "$(jget "$r" result.sweep_id)" "$SWID" "report kind sweep"
r=$(rawreq "{\"cmd\": \"report\", \"args\": {\"run\": $SID}}")
assert_eq "$(jget "$r" result.schema)" 1 "report of the first run: the run's"
assert_eq "$(ctlj status | jq -c .sweep)" null "status after the sweep"
assert_eq "$(ctlj runs | jq '.runs | length')" "$((before + 4))" \
    "runs lists the runs, not the sweep"

# ---- 3. stop mid-sweep: stopped, the runs so far kept, nothing after
long="\"files\": $FILES, \"rras\": \"$RRA\", \"max_updates\": 4000,
    \"update_time\": 20"
r=$(sweepreq "{\"dirs\": [\"$T/s1\", \"$T/s2\"], $long}")
SID=$(jnum "$r" result.id)
wait_for_stats '.sweep != null and .state == "running" and .updates_completed > 0' \
    30 >/dev/null
r=$(rawreq '{"cmd": "stop", "args": {"wait": false}}')
assert_eq "$(jget "$r" result.sweep)" "$SID" "stop names the sweep: $r"
rec=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait)
F=$STATE/runs/$SID/sweep.json
assert_eq "$(jq -r .state "$F")" stopped "stopped sweep's state"
assert_contains "$(jq -r .reason "$F")" "stop" "stopped sweep's reason"
assert_eq "$(jq '.runs | length' "$F")" 1 "runs of a stopped sweep"
assert_eq "$(jq -r '.runs[0].state' "$F")" stopped "its run"
rep=$STATE/runs/$SID/report.json
assert_eq "$(jq -r .state "$rep")" stopped "the run's record"
assert_num "$(jq .counters.updates_completed "$rep")" == \
    "$(jq .counters.enqueued "$rep")" "stopped run drained"
[ ! -e "$T/s2" ] || fail "the sweep went on after stop"

# ---- 4. kill -9 in the sweep's second run: interrupted at the next
# start, the first run kept done
r=$(sweepreq "{\"dirs\": [\"$T/k1\", \"$T/k2\"], \"repeat\": 3, $paced}")
SID=$(jnum "$r" result.id)
wait_for_stats '.sweep != null and .sweep.run == 2 and .state == "running" and
    .updates_completed > 0' 30 >/dev/null
kill -9 "$DPID"
wait "$DPID" 2>/dev/null || true
F=$STATE/runs/$SID/sweep.json
assert_eq "$(jq -r .state "$F")" running "the record at the kill"
start_daemon
assert_eq "$(jq -r .state "$F")" interrupted "sweep after kill -9"
assert_eq "$(jq -r '[.runs[].state] | join(",")' "$F")" done,interrupted \
    "its runs after kill -9"
[ "$(jq -r .ended "$F")" != null ] || fail "an interrupted sweep's end"
id=$(jq '.runs[1].run_id' "$F")
assert_eq "$(jq -r .state "$STATE/runs/$id/report.json")" interrupted \
    "the running run's own record"
assert_eq "$(jq -r .state "$STATE/runs/$SID/report.json")" done \
    "the first run's own record"
assert_eq "$(ctlj status | jq -c .sweep)" null "status after the restart"
[ ! -e "$T/k1/sweep-$(jq -r .sweep_id "$F")-3" ] ||
    fail "the sweep went on after the restart"

# ---- 5. stressctl sweep: the sweep outlives its client (kill -9), and
# --attach follows it to the end and prints the compare as sweep does
KNOBS=(--files "$FILES" --rra "$RRA" --max-updates 600 --update-time 3)
"$STRESSCTL" --socket "$SOCK" sweep --dir "$T/c1" --label one --dir "$T/c2" \
    --repeat 2 "${KNOBS[@]}" >"$T/c.out" 2>"$T/c.err" &
cpid=$!
HELPER_PIDS+=("$cpid")
wait_for_stats '.sweep != null and .state == "running"' 30 >/dev/null
kill -9 "$cpid"
wait "$cpid" 2>/dev/null || true
SID=$(ctlj status | jq .sweep.id)
[ "$SID" != null ] || fail "the sweep died with its client"
w=$(ctl watch --count 3 --interval 0.2)
assert_contains "$w" "[sweep $SID: run " "watch during a sweep"
assert_contains "$(ctl stats)" "sweep " "stats' headline names the sweep"
rc=0
out=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctl sweep --attach 2>"$T/a.err") || rc=$?
assert_eq "$rc" 0 "attach to a sweep whose client was killed ($(cat "$T/a.err"))"
assert_contains "$(cat "$T/a.err")" "following sweep $SID" "attach said"
F=$STATE/runs/$SID/sweep.json
assert_eq "$(jq -r .state "$F")" done "the sweep completed without its client"
assert_eq "$(jq '.runs | length' "$F")" 4 "its runs"
for id in $(jq '.runs[].run_id' "$F"); do
	grep -q "run $id\\b" <<<"$out" || fail "attach's compare lacks run $id: $out"
	dir=$(jq -r .params.dir "$STATE/runs/$id/report.json")
	assert_eq "$(rrd_sum "$(rrd_scan "$dir" "$FILES")")" 600 \
	    "run $id: rrdtool lastupdate sum"
	assert_eq "$(rrd_info_get "$dir/0.rrd" last_update)" \
	    "$((START_TS + $(rrd_scan "$dir" 1 | awk '{ print $2 }') * STEP))" \
	    "run $id: rrdtool info last_update"
done
head -n 1 <<<"$out" | grep -q '^ \+one \+' || fail "attach's heading: $out"
grep -q 'mean +- sample standard deviation' <<<"$out" ||
    fail "attach: no mean/spread table: $out"
# the last sweep, shown again (nothing runs), and as JSON with its record
out=$(ctlj sweep --attach 2>/dev/null) || fail "attach to the last exited $?"
assert_eq "$(jq -r .sweep.record <<<"$out")" "$SID" "--json: the record"
assert_eq "$(jq -r .sweep.state <<<"$out")" done "--json: its state"
assert_eq "$(jq '.runs | length' <<<"$out")" 4 "--json: its runs"
out=$(ctlj sweep --attach "$SID" 2>/dev/null) || fail "attach $SID exited $?"
assert_eq "$(jq -r .sweep.id <<<"$out")" "$(jq -r .sweep_id "$F")" \
    "attach ID: the sweep id"

# ---- 6. Ctrl-C detaches by default; --attach --on-interrupt stop stops
# Not under timeout: a background job of a script ignores SIGINT, and
# stressctl's own handler is what is tested.
"$STRESSCTL" --socket "$SOCK" sweep --dir "$T/i1" --dir "$T/i2" --files \
    "$FILES" --rra "$RRA" --max-updates 4000 --update-time 20 \
    >"$T/i.out" 2>"$T/i.err" &
cpid=$!
HELPER_PIDS+=("$cpid")
wait_for_stats '.sweep != null and .state == "running"' 30 >/dev/null
kill -INT "$cpid"
rc=0
wait "$cpid" || rc=$?
assert_eq "$rc" 130 "Ctrl-C exit status"
assert_contains "$(cat "$T/i.err")" "detached" "detach said"
assert_contains "$(cat "$T/i.err")" "stressctl sweep --attach" \
    "how to re-attach said"
assert_contains "$(cat "$T/i.err")" "stressctl stop" "how to stop said"
assert_eq "$(ctlj status | jq -r .sweep.state)" running "the sweep goes on"
run_ctl 1 "a second sweep is busy" --socket "$SOCK" sweep --dir "$T/x" \
    --files 10
SID=$(ctlj status | jq .sweep.id)
"$STRESSCTL" --socket "$SOCK" sweep --attach --on-interrupt stop \
    >"$T/s.out" 2>"$T/s.err" &
cpid=$!
HELPER_PIDS+=("$cpid")
sleep 2
kill -INT "$cpid"
rc=0
wait "$cpid" || rc=$?
assert_eq "$rc" 130 "stopped by Ctrl-C: exit status ($(cat "$T/s.err"))"
assert_contains "$(cat "$T/s.err")" "stopping sweep" "stop said"
assert_eq "$(jq -r .state "$STATE/runs/$SID/sweep.json")" stopped \
    "sweep stopped by Ctrl-C"
grep -q "run $SID\\b" "$T/s.out" || fail "no compare after the stop: $(cat "$T/s.out")"
[ ! -e "$T/i2" ] || fail "the sweep went on after its stop"

# ---- 7. --detach returns at once; stressctl stop stops the sweep
out=$(ctl sweep --detach --dir "$T/d1" --dir "$T/d2" --files "$FILES" \
    --rra "$RRA" --max-updates 4000 --update-time 20) || fail "detach exited $?"
assert_contains "$out" "started in stressd" "detach returns at once"
SID=$(ctlj status | jq .sweep.id)
wait_for_stats '.sweep != null and .state == "running"' 30 >/dev/null
out=$(ctl stop) || fail "stop of a sweep exited $?: $out"
assert_contains "$out" "stopped" "stop's view of the sweep"
F=$STATE/runs/$SID/sweep.json
assert_eq "$(jq -r .state "$F")" stopped "stressctl stop: the sweep's state"
assert_eq "$(jq -r '.runs[0].state' "$F")" stopped "stressctl stop: its run"
rc=0
ctl sweep --attach >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 1 "attach to a stopped sweep: exit status"
for args in "--attach --dir $T/y" "--attach --files 3" "--attach --detach" \
    "--dir $T/y 5" "--on-interrupt never --dir $T/y"; do
	rc=0
	# shellcheck disable=SC2086  # split on purpose
	ctl sweep $args >/dev/null 2>"$T/err" || rc=$?
	assert_eq "$rc" 2 "sweep $args ($(cat "$T/err"))"
done
[ ! -e "$T/y" ] || fail "a usage error created a directory"
log "ok"
