#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# compare's names and refusals, from copied records: columns of two
# searches of one directory get unique heads; one record given twice is
# refused, not ranked against itself; a mix of capacity and run records
# names the right one in its error; a candidate whose runs formed no
# queue (the storage never tested) is left out, never the winner.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

FIX=$TOP_SRCDIR/tests/fixtures
cmp() { "$STRESSCTL" --socket /nonexistent "$@"; }
A=$FIX/capacity-alpha.json R=$FIX/report-run.json

# Two searches of the same directories: every column head unique.
jq '.id = 9' "$A" >"$T/alpha9.json"
out=$(cmp compare "$A" "$T/alpha9.json") || fail "compare of two searches exited $?"
heads=$(grep -E '^ {10,}' <<<"$out" | sed 's/  \+/\n/g' | sed '/^$/d')
assert_eq "$(sort <<<"$heads" | uniq -d)" "" "repeated column heads: $heads"
assert_contains "$out" "/mnt/tmpfs/s (search 9)" "head with its search"
grep -E '^  [0-9]+\. ' <<<"$out" | sed 's/^  [0-9]*\. *//; s/  .*//' >"$T/ranked"
assert_eq "$(sort "$T/ranked" | uniq -d)" "" "a name ranked twice"

# One record twice, of each kind: refused, both operands named.
for f in "$A" "$R"; do
	rc=0
	err=$(cmp compare "$f" "$f" 2>&1) || rc=$?
	assert_eq "$rc" 1 "compare of $(basename "$f") twice: exit status"
	assert_contains "$err" "$f and $f are the same" "the same record named"
done

# A capacity record beside a run record, in both orders: the capacity
# one is named as such.
for ops in "$A $R" "$R $A"; do
	rc=0
	# shellcheck disable=SC2086  # two operands
	err=$(cmp compare $ops 2>&1) || rc=$?
	assert_eq "$rc" 1 "compare of $ops: exit status"
	assert_contains "$err" "$A is a capacity record, $R is not" \
	    "compare of $ops: the records named right"
done

# Three runs that formed no queue (average 0) beside three that did: the
# first are left out, never crowned.
for i in 1 2 3; do
	jq --argjson i "$i" '.run_id = $i | .params.label = "A" |
	    .queue_depth.significant_ops_pending.average = 0 |
	    .warnings = [{"code": "no_queue", "message": "no queue formed"}]' \
	    "$R" >"$T/A$i.json"
	jq --argjson i "$i" '.run_id = 10 + $i | .params.label = "B" |
	    .queue_depth.significant_ops_pending.average = (4 + $i / 10) |
	    .warnings = []' "$R" >"$T/B$i.json"
done
j=$(cmp --json compare "$T"/A{1,2,3}.json "$T"/B{1,2,3}.json) ||
    fail "compare of A and B exited $?"
assert_eq "$(jq -r '.ranking.winner' <<<"$j")" null "a winner that never tested the storage"
assert_contains "$(jq -r '.ranking.left_out' <<<"$j")" "run 1 (no queue formed)" \
    "no_queue runs left out"
log "ok: unique heads, same records refused, mixed records named, no_queue left out"
