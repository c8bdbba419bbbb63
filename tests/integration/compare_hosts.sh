#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# compare of report.json files copied from several hosts: two real runs,
# their records copied as scp would leave them, one copy made another
# host's (host.name edited, and the same run id as the other, as two hosts
# each counting from 1 have).  Each run column, in the table and in the
# histogram, is then headed "run ID@HOST", the JSON carries each run's
# host, and runs of one host keep their plain "run ID" headings.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

for d in a b; do
	start_run --dir "$T/$d" --files 40 --threads 2 --max-updates 2000 \
	    --update-time 1 --sample-interval 0.2 --rra "$RRA" >/dev/null
	wait_run >/dev/null
done

here=$(jq -r .host.name "$STATE/runs/1/report.json")
[ -n "$here" ] && [ "$here" != null ] || fail "report.json has no host.name"
other=hostb.test
[ "$here" != "$other" ] || other=hostc.test
cp "$STATE/runs/1/report.json" "$T/hostA-1.json"
cp "$STATE/runs/2/report.json" "$T/same-2.json"
jq --arg h "$other" '.host.name = $h | .run_id = 1' \
    "$STATE/runs/2/report.json" >"$T/hostB-1.json"

# compare, read without the daemon's help (files only)
cmp_files() { "$STRESSCTL" --socket /nonexistent "$@"; }

# ---- two hosts, the same run id: told apart by host, in every heading
out=$(cmp_files compare "$T/hostA-1.json" "$T/hostB-1.json") ||
    fail "compare of two hosts' files exited $?"
head=$(head -n 1 <<<"$out")
[[ $head =~ ^\ +run\ 1@${here//./\\.}\ +run\ 1@${other//./\\.}$ ]] ||
    fail "heading does not name each run's host: '$head'"
# the columns stay aligned: the heading ends where the value rows end
errs=$(grep '^errors ' <<<"$out") || fail "compare: no errors row: $out"
assert_eq "${#head}" "${#errs}" "heading and errors row widths"
hist=$(sed -n '/^Histogram of significant_ops_pending/{n;p;}' <<<"$out")
[[ $hist =~ ^\ +value\ +run\ 1@${here//./\\.}\ +run\ 1@${other//./\\.}$ ]] ||
    fail "histogram heading does not name each run's host: '$hist'"
grep -q '^host ' <<<"$out" && fail "a host row beside host headings: $out"

# a run id of the daemon here beside another host's file
out=$(ctl compare 1 "$T/hostB-1.json") || fail "compare ID FILE exited $?"
assert_contains "$(head -n 1 <<<"$out")" "run 1@$here" "compare ID FILE"
assert_contains "$(head -n 1 <<<"$out")" "run 1@$other" "compare ID FILE"

# --json: every run entry carries its host beside its id
j=$("$STRESSCTL" --socket /nonexistent --json compare "$T/hostA-1.json" \
    "$T/hostB-1.json") || fail "compare --json exited $?"
assert_eq "$(jq -c '[.runs[] | "\(.run_id)@\(.host.name)"]' <<<"$j")" \
    "[\"1@$here\",\"1@$other\"]" "compare --json hosts"

# ---- one host: plain "run ID" headings, no host anywhere
for args in "1 2" "$T/hostA-1.json $T/same-2.json"; do
	# shellcheck disable=SC2086  # two operands, split on purpose
	out=$(ctl compare $args) || fail "compare $args exited $?"
	head=$(head -n 1 <<<"$out")
	[[ $head =~ ^\ +run\ 1\ +run\ 2$ ]] ||
	    fail "one host: heading '$head' (compare $args)"
	hist=$(sed -n '/^Histogram of significant_ops_pending/{n;p;}' <<<"$out")
	[[ $hist =~ ^\ +value\ +run\ 1\ +run\ 2$ ]] ||
	    fail "one host: histogram heading '$hist' (compare $args)"
	! grep -q -e '@' -e '^host ' <<<"$out" ||
	    fail "one host: host labels in: $out"
done
log "ok: compare labels runs by host when hosts differ, not otherwise"
