#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# One verdict in every view: stats, /metrics (stressd_verdict and
# stressd_warnings), watch's plain line and watch on a terminal say what
# the record says, for a run that keeps up and one that cannot tell.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
start_metrics_daemon

word() { case $1 in true) echo kept_up ;; false) echo fell_behind ;; *) echo cannot_tell ;; esac; }
gauge() { case $1 in true) echo 1 ;; false) echo 0 ;; *) echo -1 ;; esac; }
check_views() {
	local what=$1 s k n body plain
	s=$(ctlj stats)
	k=$(jq -r '.verdict.kept_up' <<<"$s")
	n=$(jq '.warnings | length' <<<"$s")
	rep=$(jq -c '[.verdict.kept_up, (.warnings | length)]' \
	    "$STATE/runs/$(jget "$s" run_id)/report.json")
	assert_eq "$rep" "[$k,$n]" "$what: the record's verdict and warnings"
	body=$(curl -sf "$URL/metrics") || fail "$what: GET /metrics failed"
	assert_eq "$(awk '$1 == "stressd_verdict" { print $2 }' <<<"$body")" \
	    "$(gauge "$k")" "$what: stressd_verdict"
	assert_eq "$(awk '$1 == "stressd_warnings" { print $2 }' <<<"$body")" \
	    "$n" "$what: stressd_warnings"
	plain=$(ctl watch --count 1)
	assert_contains "$plain" "verdict=$(word "$k") warnings=$n" \
	    "$what: watch's plain line"
	on_pty 100 watch --count 1 >"$T/tty" || fail "script(1) failed"
	grep -q "^verdict  *$(word "$k" | tr _ ' ') ($n warning" "$T/tty" ||
	    fail "$what: watch on a terminal: $(grep verdict "$T/tty")"
	log "$what: $(word "$k"), $n warnings in stats, record, /metrics, watch"
}

# A light paced run on tmpfs-like speed: its queue stays flat.
start_run --dir "$T/a" --files 40 --max-updates 1200 --update-time 6 \
    --sample-interval 0.1 --latency-bound 5 --rra "$RRA" >/dev/null
wait_run >/dev/null
check_views "a light run"
# Too short to judge: cannot tell, with warnings.
start_run --dir "$T/b" --files 20 --max-updates 100 --update-time 0.5 \
    --rra "$RRA" >/dev/null
wait_run >/dev/null
check_views "a short run"
