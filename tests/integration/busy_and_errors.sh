#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# start while a run is active -> busy; bad start arguments -> bad_argument
# naming the field, daemon unharmed and no run left behind; -D property
# translation, including an unknown property (usage error listing the known
# ones) and the ignored strategyClass.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# ---- busy
D=$T/busy
start_run --dir "$D" --files 100 --threads 2 --write-threads 2 \
    --max-updates 100000 --update-time 60 --rra "$RRA" >/dev/null
wait_for_stats '.state == "running"' 60 >/dev/null
out=$(ctl start --dir "$T/other" --files 10 --max-updates 10 --update-time 0 \
    --rra "$RRA" 2>&1) && rc=0 || rc=$?
assert_eq "$rc" 1 "start while running: stressctl exit status ($out)"
r=$(rawreq '{"cmd":"start","id":"b1","args":{"dir":"'"$T"'/other","files":10,"max_updates":10,"update_time":0}}')
expect_error "$r" busy "start while running (raw)"
assert_eq "$(jget "$r" id)" b1 "busy reply: id echoed"
[ ! -e "$T/other/0.rrd" ] || fail "the refused start created files"
s=$(stats)
assert_eq "$(jget "$s" state)" running "the first run after a busy start: state"
out=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctl stop --no-drain 2>&1) ||
    fail "stop --no-drain: $out"
s=$(stats)
assert_eq "$(jget "$s" state)" stopped "the first run after stop: state"
check_invariants "$s" "after stop --no-drain"
last_run=$(jget "$s" run_id)

# ---- bad arguments, raw: each refused with bad_argument naming the field
: >"$T/regular"
bad_start() {
	local field=$1 what=$2 args=$3 r
	r=$(rawreq '{"cmd":"start","id":11,"args":'"$args"'}')
	expect_error "$r" bad_argument "$field" "start with $what"
	assert_eq "$(jget "$r" id)" 11 "start with $what: id echoed"
	assert_contains "$(jget "$r" error.message)" "$field" \
	    "start with $what: error.message names the field"
	assert_alive "start with $what"
}
ok_dir='"dir":"'"$T"'/bad","max_updates":10,"update_time":0'
bad_start files "files 0" '{'"$ok_dir"',"files":0}'
bad_start files "files -1" '{'"$ok_dir"',"files":-1}'
bad_start files 'files "ten"' '{'"$ok_dir"',"files":"ten"}'
bad_start files "files 1.5" '{'"$ok_dir"',"files":1.5}'
bad_start files "files null" '{'"$ok_dir"',"files":null}'
bad_start write_threads "write_threads 0" '{'"$ok_dir"',"files":10,"write_threads":0}'
bad_start write_threads "write_threads 1025" '{'"$ok_dir"',"files":10,"write_threads":1025}'
bad_start threads "threads 0" '{'"$ok_dir"',"files":10,"threads":0}'
bad_start max_updates "max_updates 0" '{"dir":"'"$T"'/bad","files":10,"max_updates":0}'
bad_start prioritize 'prioritize "yes"' '{'"$ok_dir"',"files":10,"prioritize":"yes"}'
bad_start update_time "update_time -1" '{"dir":"'"$T"'/bad","files":10,"update_time":-1}'
# numbers out of range and of the wrong type
bad_start files "files 1e300" '{'"$ok_dir"',"files":1e300}'
bad_start files "files 2^64" '{'"$ok_dir"',"files":18446744073709551616}'
bad_start files "files -2^63-1" '{'"$ok_dir"',"files":-9223372036854775809}'
bad_start files "files true" '{'"$ok_dir"',"files":true}'
bad_start files "files [1]" '{'"$ok_dir"',"files":[1]}'
bad_start files 'files {}' '{'"$ok_dir"',"files":{}}'
bad_start max_updates "max_updates 1e400" '{"dir":"'"$T"'/bad","files":10,"max_updates":1e400}'
bad_start update_time "update_time NaN" '{"dir":"'"$T"'/bad","files":10,"update_time":NaN}'
bad_start update_time "update_time 1e309" '{"dir":"'"$T"'/bad","files":10,"update_time":1e309}'
bad_start seed "seed -1" '{'"$ok_dir"',"files":10,"seed":-1}'
bad_start sample_interval 'sample_interval "NaN"' '{'"$ok_dir"',"files":10,"sample_interval":"NaN"}'
bad_start bogus_knob "an unknown argument" '{'"$ok_dir"',"files":10,"bogus_knob":1}'
bad_start dir "a relative dir" '{"dir":"relative/dir","files":10,"max_updates":10}'
bad_start dir "no dir" '{"files":10,"max_updates":10}'
bad_start dir "a dir under a regular file" '{"dir":"'"$T"'/regular/sub","files":10,"max_updates":10}'
bad_start dir "a dir that is a regular file" '{"dir":"'"$T"'/regular","files":10,"max_updates":10}'
bad_start dir "a dir with a NUL byte" '{"dir":"'"$T"'/a\u0000b","files":10,"max_updates":10}'
bad_start rras "an RRA list that is a number" '{'"$ok_dir"',"files":10,"rras":5}'
# A dir that exists but cannot be written: chmod for a normal user; root
# ignores modes, so use an immutable dir (ext4, xfs, ...) when chattr works.
mkdir "$T/ro"
if [ "$(id -u)" -ne 0 ]; then
	chmod 555 "$T/ro"
	bad_start dir "a dir that is not writable" '{"dir":"'"$T"'/ro","files":10,"max_updates":10}'
	chmod 755 "$T/ro"
elif chattr +i "$T/ro" 2>/dev/null; then
	IMMUTABLE+=("$T/ro")
	bad_start dir "a dir that is not writable (immutable)" '{"dir":"'"$T"'/ro","files":10,"max_updates":10}'
	chattr -i "$T/ro"
else
	log "skipped: a non-writable dir (root, and chattr +i fails on this filesystem)"
fi
[ ! -e "$T/bad" ] || [ -z "$(ls -A "$T/bad")" ] ||
    fail "refused starts left files in $T/bad: $(ls "$T/bad" | head)"
[ ! -e "$T/regular/sub" ] || fail "a dir under a regular file was created"
# args that is not an object
r=$(rawreq '{"cmd":"start","args":[1,2]}')
assert_eq "$(jget "$r" ok)" false "start with args an array: ok"
case $(jget "$r" error.code) in
bad_request|bad_argument) ;;
*) fail "start with args an array: code $(jget "$r" error.code)" ;;
esac
# other commands' arguments of the wrong type or out of range
r=$(rawreq '{"cmd":"stop","args":{"drain":"yes"}}')
expect_error "$r" bad_argument drain 'stop with drain "yes"'
for run in 1e30 -1 '"x"' 0 18446744073709551616; do
	r=$(rawreq '{"cmd":"report","args":{"run":'"$run"'}}')
	expect_error "$r" bad_argument run "report with run $run"
done
assert_alive "bad arguments of stop and report"
# None of them started a run.
s=$(stats)
assert_eq "$(jget "$s" run_id)" "$last_run" "run_id after refused starts"
assert_eq "$(jget "$s" state)" stopped "state after refused starts"

# ---- bad arguments through stressctl: exit 1 (daemon refused) or 2
# (stressctl refused), the message naming the field
bad_cli() {
	local field=$1 out rc=0
	shift
	out=$(ctl start "$@" 2>&1) || rc=$?
	[ "$rc" -eq 1 ] || [ "$rc" -eq 2 ] ||
	    fail "stressctl start $*: exit $rc, expected 1 or 2: $out"
	# The daemon says write_threads, stressctl may say --write-threads.
	case $out in
	*"$field"*|*"${field//_/-}"*) ;;
	*) fail "stressctl start $*: output does not name $field: $out" ;;
	esac
	assert_alive "stressctl start $*"
}
bad_cli files --dir "$T/bad" --files 0 --max-updates 10
bad_cli write_threads --dir "$T/bad" --files 10 --write-threads 1025
bad_cli dir --dir "$T/regular/sub" --files 10
out=$(ctl start --dir "$T/bad" --files ten 2>&1) && rc=0 || rc=$?
assert_eq "$rc" 2 "stressctl start --files ten: exit status ($out)"
out=$(ctl start --dir "$T/bad" --no-such-option 3 2>&1) && rc=0 || rc=$?
assert_eq "$rc" 2 "stressctl start --no-such-option: exit status ($out)"

# ---- -D with an unknown property: usage error listing the known ones
out=$(ctl start -D stresstest.nosuchthing=1 -D "stresstest.file=$T/bad/" 2>&1) &&
    rc=0 || rc=$?
assert_eq "$rc" 2 "-D unknown property: exit status ($out)"
assert_contains "$out" stresstest.nosuchthing "-D unknown property: names it"
for p in stresstest.filecount stresstest.threadcount \
    org.opennms.rrd.queuing.writethreads stresstest.maxupdates \
    stresstest.modulus stresstest.updatetime stresstest.zerofiles \
    stresstest.filesperdir rras.list stresstest.rrdstep \
    org.opennms.rrd.queuing.prioritizeSignificantUpdates \
    org.opennms.rrd.queuing.queueHighWaterMark; do
	assert_contains "$out" "$p" "-D unknown property: list of known properties"
done

# ---- -D translation: an old invocation runs unchanged
D=$T/props
out=$(ctl start -D "stresstest.file=$D/" -D stresstest.filecount=50 \
    -D stresstest.threadcount=2 -D org.opennms.rrd.queuing.writethreads=2 \
    -D stresstest.maxupdates=500 -D stresstest.modulus=100 \
    -D stresstest.updatetime=0 -D stresstest.zerofiles=10 \
    -D stresstest.rrdstep=60 -D "rras.list=$RRA" \
    -D org.opennms.rrd.strategyClass=org.opennms.netmgt.rrd.rrdtool.JniRrdStrategy \
    2>&1) && rc=0 || rc=$?
assert_eq "$rc" 0 "start with -D properties: exit status ($out)"
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "-D run: state"
assert_eq "$(jnum "$s" updates_completed)" 500 "-D run: updates_completed (stresstest.maxupdates)"
assert_eq "$(find "$D" -name '*.rrd' | wc -l)" 50 "-D run: files (stresstest.filecount)"
[ -f "$D/49.rrd" ] && [ ! -e "$D/50.rrd" ] || fail "-D run: files are not 0..49.rrd"
assert_eq "$(rrd_info_get "$D/0.rrd" step)" 60 "-D run: step (stresstest.rrdstep)"
assert_eq "$(rrd_info_get "$D/0.rrd" 'rra[0].rows')" 10 "-D run: rras.list"
assert_eq "$(rrd_info_get "$D/0.rrd" 'ds[ds0].minimal_heartbeat')" 120 \
    "-D run: heartbeat 2*step"
scan=$(rrd_scan "$D" 50 0 "$START_TS" 60)
assert_eq "$(rrd_sum "$scan")" 500 "-D run: updates on disk"
# zerofiles=10 of 50: file n is a zero file when n % 5 == 0.
bad=$(awk '$1 % 5 == 0 && $3 + 0 != 0 { print; exit }
    $1 % 5 != 0 && ($3 == "U" || $3 + 0 == 0) { print; exit }' <<<"$scan")
[ -z "$bad" ] || fail "-D run: stresstest.zerofiles not honoured (n count value): $bad"
# status echoes the run's parameters as translated.
st=$(ctlj status) || fail "status failed: $st"
files=$(jq '[.. | objects | select(has("files") and has("write_threads"))
    | .files] | first' <<<"$st")
assert_eq "$files" 50 "status: the run's parameters: files"
slog=$STATE/runs/$(jget "$s" run_id)/stress.log
assert_eq "$(stresslog_blocks "$slog")" 5 \
    "-D run: stresstest.modulus=100: progress blocks in $slog"

assert_alive "all of the above"
log "PASS"
