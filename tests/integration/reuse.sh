#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# Files with the same layout are reused and continue after their last
# update; a run on files of another layout (RRAs, step, data sources) is
# refused with bad_argument naming a file, and the files stay untouched.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

FILES=100
U1=1000
U2=500
D=$T/rrd
common=(--dir "$D" --files "$FILES" --threads 2 --write-threads 2
    --update-time 0)

# ---- run 1
start_run "${common[@]}" --rra "$RRA" --max-updates "$U1" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run 1: state"
assert_eq "$(jnum "$s" updates_completed)" "$U1" "run 1: updates_completed"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" "$U1" "run 1: updates on disk"

# ---- run 2 on the same files: they continue after rrd_last
start_run "${common[@]}" --rra "$RRA" --max-updates "$U2" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run 2: state"
assert_eq "$(jnum "$s" updates_completed)" "$U2" "run 2: updates_completed"
assert_eq "$(jnum "$s" updates_failed)" 0 "run 2: updates_failed"
assert_eq "$(jnum "$s" errors)" 0 "run 2: errors"
check_drained "$s" "run 2"
check_invariants "$s" "run 2"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" $((U1 + U2)) "runs 1+2: updates on disk"
per=$(((U1 + U2) / FILES))
bad=$(awk -v per="$per" '$2 != per { print; exit }' <<<"$scan")
[ -z "$bad" ] || fail "after two runs a file's count is not $per (n count value): $bad"
assert_eq "$(find "$D" -name '*.rrd' | wc -l)" "$FILES" "files after two runs"
# Still the original layout.
assert_eq "$(rrd_info_get "$D/0.rrd" 'rra[0].rows')" 10 "0.rrd rows after reuse"

# ---- other layouts are refused, at start, naming a file
# refuse LABEL RAW_ARGS_JSON CTL_ARGS...
refuse() {
	local what=$1 rawargs=$2 out rc=0 r msg
	shift 2
	out=$(ctl start "${common[@]}" --max-updates 100 "$@" 2>&1) || rc=$?
	assert_eq "$rc" 1 "start with $what: stressctl exit status (output: $out)"
	assert_contains "$out" .rrd "start with $what: stressctl output names the file"
	r=$(rawreq '{"cmd":"start","id":1,"args":{"dir":"'"$D"'","files":'"$FILES"',"max_updates":100,"update_time":0,'"$rawargs"'}}')
	expect_error "$r" bad_argument "start with $what (raw)"
	msg=$(jget "$r" error.message)
	assert_contains "$msg" .rrd "start with $what: error.message names the file"
	[[ $msg =~ $D/[0-9]+\.rrd|[0-9]+\.rrd ]] ||
	    fail "start with $what: no file name in '$msg'"
	# Refused: no run became active and the files are untouched.
	s=$(stats)
	case $(jget "$s" state) in
	creating|running|draining)
		fail "start with $what was refused but a run is active: $s" ;;
	esac
	scan=$(rrd_scan "$D" "$FILES")
	assert_eq "$(rrd_sum "$scan")" $((U1 + U2)) "updates on disk after refused start with $what"
	assert_alive "refused start with $what"
}
refuse "another RRA" '"rras":["RRA:AVERAGE:0.5:1:20"]' --rra 'RRA:AVERAGE:0.5:1:20'
refuse "another step" '"rras":["'"$RRA"'"],"step":60' --rra "$RRA" --step 60
refuse "two data sources" '"rras":["'"$RRA"'"],"data_sources":2' --rra "$RRA" --data-sources 2

# ---- and the same layout still runs afterwards
start_run "${common[@]}" --rra "$RRA" --max-updates "$FILES" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run 3: state"
scan=$(rrd_scan "$D" "$FILES")
assert_eq "$(rrd_sum "$scan")" $((U1 + U2 + FILES)) "runs 1+2+3: updates on disk"

log "PASS"
