#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# crash: stressd killed with SIGKILL mid-run and while creating.  The record
# it leaves is at most a checkpoint (10 s) old, and the next stressd on the
# same state directory marks the run interrupted, with a reason, a last
# stress.log line and the updates on disk recounted from the run's files:
# that figure must be what `rrdtool lastupdate` says landed (the timestamp
# contract), reused files' earlier updates not counted.  runs, report,
# compare and /metrics show the run as interrupted.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

D=$T/rrd
rec() { cat "$STATE/runs/$1/report.json"; }

# kill9: SIGKILL the daemon, reap it.
kill9() {
	kill -KILL "$DPID"
	wait "$DPID" 2>/dev/null || true
	DPID=
}

# check_recovered ID STATE_BEFORE ON_DISK FILES_READ: run ID's record after
# a restart.
check_recovered() {
	local r last
	r=$(rec "$1")
	assert_eq "$(jget "$r" state)" interrupted "run $1: state"
	assert_contains "$(jget "$r" reason)" "checkpoint" "run $1: reason"
	assert_contains "$(jget "$r" reason)" "$2" "run $1: reason names the state"
	assert_eq "$(jget "$r" interrupted.state)" "$2" \
	    "run $1: interrupted.state"
	[ "$(jget "$r" interrupted.last_checkpoint_at)" != null ] ||
	    fail "run $1: no interrupted.last_checkpoint_at"
	assert_eq "$(jget "$r" recount.updates_on_disk)" "$3" \
	    "run $1: recount.updates_on_disk vs rrdtool lastupdate"
	assert_eq "$(jget "$r" recount.files_read)" "$4" \
	    "run $1: recount.files_read"
	assert_num "$(jnum "$r" recount.seconds)" '<' 30 "run $1: recount.seconds"
	# the last checkpoint's verdict stays, saying the run ended early
	jq -e '.verdict == null or ((.verdict.stopped_early or
	    .interrupted.state == "draining") and
	    (.verdict.reason | test("interrupted")))' <<<"$r" >/dev/null ||
	    fail "run $1: verdict of an interrupted run: $(jq -c .verdict <<<"$r")"
	last=$(tail -n 1 "$STATE/runs/$1/stress.log")
	case $last in
	"# run $1 interrupted: "*) ;;
	*) fail "run $1: stress.log's last line: $last" ;;
	esac
}

# ---- 1. kill -9 mid-run: 300 files, 5,000 updates/s paced
FILES=300
start_run --dir "$D" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates 1000000 --update-time 200 --modulus 20000 \
    --rra "$RRA" >/dev/null
wait_for_stats '.state == "running" and .updates_completed >= 1000' 60 \
    >/dev/null
sleep 12	# past the first checkpoint after the start
kill9
now=$(date +%s)
r=$(rec 1) || fail "no report.json after kill -9 mid-run"
assert_eq "$(jget "$r" state)" running "record before restart: state"
age=$((now - $(stat -c %Y "$STATE/runs/1/report.json")))
assert_num "$age" '<=' 15 "checkpoint age at the kill (s)"
ckpt=$(jnum "$r" counters.updates_completed)
assert_num "$ckpt" '>' 0 "checkpoint: updates_completed"
disk1=$(rrd_sum "$(rrd_scan -m "$D" "$FILES")")
assert_num "$ckpt" '<=' "$disk1" "checkpoint vs updates on disk"
# stress.log's blocks were flushed as written: one per 20,000 offered, at
# least as many as landed (the last may have been cut by the kill), each
# counting updates that had landed.
marks=$(stresslog_blocks "$STATE/runs/1/stress.log")
assert_num "$marks" '>=' "$((disk1 / 20000 - 1))" "stress.log blocks at the kill"
assert_num "$marks" '<=' "$((1000000 / 20000))" "stress.log blocks at the kill"
most=$(grep -oE '^[0-9]+ samples stored, ' "$STATE/runs/1/stress.log" |
    cut -d' ' -f1 | sort -n | tail -n 1)
assert_num "${most:-0}" '<=' "$disk1" "stress.log: a block's count vs on disk"
log "kill -9 mid-run: $disk1 updates on disk, checkpoint $ckpt (${age}s old), $marks stress.log blocks"

build_shim
# Creates of the next run take 20 ms each: a creating phase of seconds.
LD_PRELOAD=$PRELOAD STRESSD_TEST_SLOW_CREATE_US=20000 start_daemon
check_recovered 1 running "$disk1" "$FILES"
assert_eq "$(jget "$(rec 1)" recount.creates_on_disk)" "$FILES" \
    "run 1: recount.creates_on_disk"
log "recovered run 1: $(jget "$(rec 1)" recount.seconds) s for $FILES files"
out=$(ctl runs)
grep -qE '^ *1 .* interrupted ' <<<"$out" || fail "runs: run 1: $out"
# its UPDATES: what the files hold, not the checkpoint's count
grep -qE "^ *1 .* interrupted +$disk1 " <<<"$out" ||
    fail "runs: run 1's updates are not the $disk1 recounted: $out"
out=$(ctl report 1)
assert_contains "$(head -n 1 <<<"$out")" "Run 1: interrupted" "report 1"
case $out in *"still running"*) fail "report 1 says still running" ;; esac
assert_contains "$out" "$disk1 updates on disk" "report 1: the recount"

# ---- 2. kill -9 while creating: the same dir with 500 files (300 reused)
FILES=500
start_run --dir "$D" --files "$FILES" --threads 2 --write-threads 1 \
    --max-updates 100000 --update-time 60 --queue-creates=false \
    --rra "$RRA" >/dev/null
wait_for_stats '.state == "creating" and .creates_completed >= 20' 60 >/dev/null
sleep 1
kill9
r=$(rec 2) || fail "no report.json after kill -9 while creating"
assert_eq "$(jget "$r" state)" creating "record before restart: state"
scan=$(rrd_scan -m "$D" "$FILES")
present=$(awk '$3 != "-"' <<<"$scan" | wc -l)
# Landed in run 2: what is on disk now less what run 1 left.
disk2=$(($(rrd_sum "$scan") - disk1))
assert_num "$present" '<' "$FILES" "creating was cut short"
# shellcheck disable=SC2119
start_metrics_daemon
check_recovered 2 creating "$disk2" "$present"
assert_eq "$(jget "$(rec 2)" recount.files_missing)" $((FILES - present)) \
    "run 2: recount.files_missing"
assert_eq "$(jget "$(rec 2)" recount.creates_on_disk)" $((present - 300)) \
    "run 2: recount.creates_on_disk"
log "kill -9 while creating: $present of $FILES files, $disk2 updates"

# Run 1 is recovered once only.
assert_eq "$(grep -c '^# run 1 interrupted' "$STATE/runs/1/stress.log")" 1 \
    "run 1 recovered again"
out=$(ctl compare 1 2)
grep -qE '^ *state +interrupted +interrupted *$' <<<"$out" ||
    fail "compare: $out"
body=$(curl -sf "$URL/metrics")
grep -q '^stressd_run_info{run_id="2",state="interrupted",' <<<"$body" ||
    fail "/metrics run_info: $(grep run_info <<<"$body")"

# The next run gets a new id and the daemon works as before.
out=$(start_run --dir "$T/next" --files 10 --max-updates 100 --update-time 0 \
    --rra "$RRA")
assert_eq "$(jget "$out" run_id)" 3 "the next run's id"
assert_eq "$(jget "$(wait_run)" state)" "done" "the next run"

# ---- 3. kill -9 while draining: the record says draining, not the state
# of the checkpoint before the stop (up to 10 s old: it said running).
# 500 files, one writer at 20 ms a call: a drain of seconds.
kill9
STRESSD_WRAPPER=(env "LD_PRELOAD=$PRELOAD" STRESSD_TEST_SLOW_US=20000)
start_daemon
STRESSD_WRAPPER=()
start_run --dir "$T/drain" --files 500 --threads 2 --write-threads 1 \
    --max-updates 5000 --update-time 0 --rra "$RRA" >/dev/null
wait_for_stats '.state == "draining" or .generated >= 5000' 60 >/dev/null
ctl stop --no-wait >/dev/null
wait_for_stats '.state == "draining"' 30 >/dev/null
sleep 0.5
kill9
start_daemon
r=$(rec 4)
assert_eq "$(jget "$r" interrupted.state)" draining "run 4: interrupted.state"
assert_contains "$(jget "$r" reason)" "while the run was draining" \
    "run 4: the reason"
log "kill -9 while draining: recorded as draining"
