#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant
# stressctl's command line: help, usage errors (2), cannot connect (3),
# --json output, help listing, and the idle daemon's stats/wait.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# ---- --help
run_ctl 0 "--help" --help
help=$out
assert_contains "$help" start "--help"
lc=$(tr '[:upper:]' '[:lower:]' <<<"$help")
assert_contains "$lc" exit "--help documents exit codes"
for code in 0 1 2 3; do
	grep -qE "(^|[^0-9])$code([^0-9]|$)" <<<"$help" ||
	    fail "--help does not mention exit code $code"
done
assert_contains "$lc" usage "--help mentions the usage exit code"
assert_contains "$lc" connect "--help mentions the cannot-connect exit code"
for c in start stop stats status wait help version; do
	grep -qw -- "$c" <<<"$help" || fail "--help does not list command $c"
done

# ---- usage errors: exit 2
run_ctl 2 "unknown command" --socket "$SOCK" bogus
run_ctl 2 "no command" --socket "$SOCK"
run_ctl 2 "unknown global option" --socket "$SOCK" --no-such-option version
run_ctl 2 "--socket without a value" --socket
run_ctl 2 "start with an unknown option" --socket "$SOCK" start --dir "$T/x" --bogus 1
run_ctl 2 "start with a non-numeric --files" --socket "$SOCK" start --dir "$T/x" --files ten
run_ctl 2 "start with a negative --threads" --socket "$SOCK" start --dir "$T/x" --threads -3
run_ctl 2 "-D without name=value" --socket "$SOCK" start -D stresstest.filecount
[ ! -e "$T/x" ] || fail "a usage error still started something in $T/x"

# ---- cannot connect: exit 3
run_ctl 3 "no such socket" --socket /nonexistent/stressd.sock stats
run_ctl 3 "no such socket (version)" --socket "$T/nope.sock" version
: >"$T/notasocket"
run_ctl 3 "a regular file as socket" --socket "$T/notasocket" status

# ---- --help on every command
run_ctl 0 "start --help" --socket "$SOCK" start --help
for opt in --dir --files --threads --write-threads --max-updates --modulus \
    --update-time --zero-files --files-per-dir --rra --step --update-file \
    --seed --queue-creates --prioritize --max-insig-update-seconds \
    --queue-high-water --sig-high-water --insig-high-water \
    --data-sources --updates-per-open --use-queue --start-time -D; do
	grep -qe "$opt" <<<"$out" || fail "start --help does not list $opt"
done
for c in stop stats status wait help version; do
	run_ctl 0 "$c --help" --socket "$SOCK" "$c" --help
	assert_contains "$out" "$c" "$c --help names the command"
done
run_ctl 0 "stop --help" --socket "$SOCK" stop --help
assert_contains "$out" --no-drain "stop --help"
assert_contains "$out" --no-wait "stop --help"
# --help needs no daemon.
run_ctl 0 "start --help without a daemon" --socket "$T/nope.sock" start --help

# ---- --json version
run_ctl 0 "--json version" --socket "$SOCK" --json version
is_json "$out" || fail "--json version is not one JSON object: $out"
assert_eq "$(jq -c .protocol <<<"$out")" 1 "--json version: protocol"
[ "$(jq -r '.version | type' <<<"$out")" = string ] &&
    [ -n "$(jget "$out" version)" ] || fail "--json version: no version string: $out"
[ "$(jq -r '.librrd | type' <<<"$out")" = string ] &&
    [ -n "$(jget "$out" librrd)" ] || fail "--json version: no librrd string: $out"
# --json prints the result object, not the reply envelope.
[ "$(jget "$out" ok)" = null ] && [ "$(jget "$out" result)" = null ] ||
    fail "--json version printed the envelope, not the result: $out"
run_ctl 0 "text version" --socket "$SOCK" version
assert_contains "$out" "$(jget "$(ctlj version)" version)" "text version shows the version"

# ---- help lists every command, from the daemon
run_ctl 0 "help" --socket "$SOCK" help
for c in start stop stats status wait help version; do
	grep -qw -- "$c" <<<"$out" || fail "help does not list $c: $out"
done
run_ctl 0 "--json help" --socket "$SOCK" --json help
is_json "$out" || fail "--json help is not one JSON object"
for c in start stop stats status wait help version; do
	jq -e --arg c "$c" '[.. | strings | select(. == $c or startswith($c + " "))]
	    | length > 0' <<<"$out" >/dev/null ||
	    fail "--json help does not list $c: ${out:0:500}"
done

# ---- an idle daemon: stats says idle with zeros, wait returns at once
s=$(stats)
assert_eq "$(jget "$s" state)" idle "stats before any run: state"
for k in offered enqueued dropped updates_completed updates_failed \
    total_operations_pending in_flight; do
	assert_eq "$(jnum "$s" "$k")" 0 "stats before any run: $k"
done
check_invariants "$s" "idle stats"
run_ctl 0 "text stats when idle" --socket "$SOCK" stats
assert_contains "$out" idle "text stats when idle"
rc=0
timeout -k 2 10 "$STRESSCTL" --socket "$SOCK" wait >/dev/null 2>&1 || rc=$?
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "wait with no run did not return at once"
assert_eq "$rc" 0 "wait with no run: exit status"
run_ctl 0 "status" --socket "$SOCK" status
run_ctl 0 "--json status" --socket "$SOCK" --json status
is_json "$out" || fail "--json status is not one JSON object"

# ---- text output of a run: stats is a table with the counters
start_run --dir "$T/rrd" --files 20 --max-updates 200 --update-time 0 \
    --rra "$RRA" >/dev/null
run_ctl 0 "text wait" --socket "$SOCK" wait
run_ctl 0 "text stats after a run" --socket "$SOCK" stats
assert_contains "$out" 'done' "text stats after a run: state"
grep -qE '(^|[^0-9])200([^0-9]|$)' <<<"$out" ||
    fail "text stats after a run does not show 200 completed updates: $out"
lc=$(tr '[:upper:]_' '[:lower:] ' <<<"$out")
assert_contains "$lc" "completed" "text stats names updates completed"

assert_alive "the CLI checks"
log "PASS"
