#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stats' cpu object: CPU seconds of the run by thread role and of the
# whole process.  Present when idle (all 0), during and after a run, in
# report.json as in the final stats; no figure negative, the roles never
# more than the process, the writers' time kept once their threads ended,
# and counted per run: two runs together never used more than the daemon.
# No timing thresholds: only what must hold whatever the machine's speed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
[ -r "/proc/$$/task/$$/schedstat" ] ||
    skip "no /proc/PID/task/TID/schedstat on this kernel"

ROLES='writers generators event_loop other'

# check_cpu STATS_JSON LABEL: the object's shape and its invariants.
check_cpu() {
	local s=$1 what=$2 c sum
	c=$(jq -c '.cpu' <<<"$s")
	[ "$(jq -r 'type' <<<"$c")" = object ] ||
	    fail "$what: no cpu object in: ${s:0:400}"
	for k in $ROLES process generators_pct; do
		assert_num "$(jnum "$c" "$k")" '>=' 0 "$what: cpu.$k"
	done
	assert_num "$(jnum "$c" generators_pct)" '<=' 100 \
	    "$what: cpu.generators_pct"
	sum=$(jq '.writers + .generators + .event_loop + .other' <<<"$c")
	# Each figure is rounded to 1 ms.
	assert_num "$sum" '<=' "$(jnum "$c" process) + 0.003" \
	    "$what: roles ($c) sum to more than the process"
}

# The daemon's CPU seconds so far, from its own /proc stat.
daemon_cpu() {
	local hz
	hz=$(getconf CLK_TCK)
	awk -v hz="$hz" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' \
	    "/proc/$DPID/stat"
}

# ---- idle: all zero
s=$(stats)
assert_eq "$(jget "$s" state)" idle "fresh daemon"
check_cpu "$s" "idle"
for k in $ROLES process; do
	assert_num "$(jnum "$s" "cpu.$k")" '==' 0 "idle: cpu.$k"
done

# ---- run 1: paced, looked at while it runs
r=$(start_run --dir "$T/d1" --files 100 --threads 4 --write-threads 2 \
    --max-updates 10000 --update-time 3 --rra "$RRA")
run1=$(jget "$r" run_id)
s=$(wait_for_stats '.state == "running" and .updates_completed > 0' 60)
check_cpu "$s" "run 1 live"
ctl stats --all >"$T/stats.txt" || fail "stats --all (text)"
grep -qE '^cpu +writers [0-9.]+, generators ' "$T/stats.txt" ||
    fail "stats text has no cpu row: $(cat "$T/stats.txt")"
s1=$(wait_run)
assert_eq "$(jget "$s1" state)" done "run 1 state"
check_cpu "$s1" "run 1 end"
# The writer threads are gone: their time must have stayed.
assert_num "$(jnum "$s1" cpu.writers)" '>' 0 "run 1: cpu.writers"
# An ended run's figures are frozen, and the record has them.
assert_eq "$(jq -c .cpu <<<"$(stats)")" "$(jq -c .cpu <<<"$s1")" \
    "run 1: cpu in stats after the end"
rep=$(cat "$STATE/runs/$run1/report.json")
assert_eq "$(jq -c .cpu <<<"$rep")" "$(jq -c .cpu <<<"$s1")" \
    "run 1: report.json cpu"

# ---- run 2: flat out on other files
start_run --dir "$T/d2" --files 50 --threads 2 --write-threads 1 \
    --max-updates 3000 --update-time 0 --rra "$RRA" >/dev/null
s2=$(wait_run)
assert_eq "$(jget "$s2" state)" done "run 2 state"
check_cpu "$s2" "run 2 end"
assert_num "$(jnum "$s2" cpu.writers)" '>' 0 "run 2: cpu.writers"
# Counted per run: run 2 does not carry run 1's time, so the two never
# add up to more than the daemon used (its stat counts 10 ms ticks).
total=$(daemon_cpu)
assert_num "$(jnum "$s1" cpu.process) + $(jnum "$s2" cpu.process)" '<=' \
    "$total + 0.05" "run 1 + run 2 process CPU against the daemon's $total s"
assert_alive "cpu"
log "ok: run 1 $(jq -c .cpu <<<"$s1"), run 2 $(jq -c .cpu <<<"$s2")"
