#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressctl sweep: the same run in two directories, twice each in the
# order a b a b, each in a fresh subdirectory, recorded with one sweep id
# and compared with mean and spread; usage errors; Ctrl-C during a paced
# sweep with --on-interrupt stop stops the current run cleanly and prints
# the compare so far.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# ---- a b a b
rc=0
out=$(ctl sweep --dir "$T/a" --label "disk a" --dir "$T/b" --repeat 2 --files 20 \
    --max-updates 400 --update-time 0 --rra "$RRA" 2>"$T/sweep.err") || rc=$?
assert_eq "$rc" 0 "sweep exit status ($(cat "$T/sweep.err"))"
runs=$(ctlj runs)
assert_eq "$(jq '.runs | length' <<<"$runs")" 4 "runs recorded"
ids=$(jq -r '.runs[].id' <<<"$runs")
sid=$(jq -r '.runs[0].sweep_id' <<<"$runs")
[[ $sid == s-* ]] || fail "sweep id '$sid'"
assert_eq "$(jq -r '[.runs[].sweep_id] | unique | length' <<<"$runs")" 1 \
    "one sweep id"
i=0
for id in $ids; do
	rep=$STATE/runs/$id/report.json
	want=$([ $((i % 2)) -eq 0 ] && echo a || echo b)
	dir=$(jq -r .params.dir "$rep")
	assert_eq "$dir" "$T/$want/sweep-$sid-$((i + 1))" "run $id dir"
	assert_eq "$(jq -r .state "$rep")" "done" "run $id state"
	assert_eq "$(jq -r .params.sweep_id "$rep")" "$sid" "run $id sweep_id"
	# a label per directory: its --label, else the directory
	assert_eq "$(jq -r .params.label "$rep")" \
	    "$([ "$want" = a ] && echo "disk a" || echo "$T/b")" "run $id label"
	# the same knobs but dir and label, hence the same seed
	p=$(jq -c '.params | del(.dir, .label)' "$rep")
	[ "$i" -eq 0 ] && p0=$p
	assert_eq "$p" "$p0" "run $id params"
	assert_eq "$(jq .params.seed "$rep")" 1 "run $id seed"
	assert_eq "$(rrd_sum "$(rrd_scan "$dir" 20)")" 400 "run $id updates on disk"
	grep -q "run $id\\b" <<<"$out" || fail "compare does not name run $id: $out"
	i=$((i + 1))
done
# headed by label, the user's directory, a verdict and a ranking of repeats
head -n 1 <<<"$out" | grep -q '^ \+disk a \+' || fail "heading: $out"
dirs=$(sed -n '/^directory/,/^[^ ]/p' <<<"$out")
grep -qE '^directory ' <<<"$dirs" || fail "differing directories not shown: $out"
! grep -q 'sweep-' <<<"$dirs" || fail "sweep tail shown: $dirs"
grep -qE '^verdict ' <<<"$out" || fail "no verdict row: $out"
# flat out with 0 samples: the repeats are ranked, their queue average is
# left out (it would read 0 and win), and nothing is judged
grep -qE '^  disk a +- +2 runs: .*2 left out' <<<"$out" ||
    fail "no ranking of repeats: $out"
grep -q '^left out: run ' <<<"$out" || fail "left-out runs not named: $out"
grep -q 'cannot be judged: disk a has 0 usable runs' <<<"$out" ||
    fail "flat-out repeats judged: $out"
grep -q 'mean +- sample standard deviation' <<<"$out" ||
    fail "no mean/spread table: $out"
grep -qE '^done runs +2 +2$' <<<"$out" || fail "done runs per dir: $out"
grep -qE '^updates completed .*400\.0 \+- 0\.0 \[400\.0, 400\.0\]' <<<"$out" ||
    fail "no spread of updates completed: $out"
ctl runs | grep -q "$sid" || fail "runs text lacks the sweep id"
# nothing of the user's was removed; only the sweep's subdirectories exist
assert_eq "$(find "$T/a" "$T/b" -mindepth 1 -maxdepth 1 | wc -l)" 4 \
    "subdirectories"

# ---- a single directory is allowed; --json carries the summary
rc=0
js=$(ctlj sweep --dir "$T/c" --files 10 --max-updates 50 --update-time 0 \
    --rra "$RRA" 2>/dev/null) || rc=$?
assert_eq "$rc" 0 "single-dir sweep"
assert_eq "$(jq '.runs | length' <<<"$js")" 1 "single-dir sweep runs"
assert_eq "$(jq -r '.sweep.directories[0].dir' <<<"$js")" "$T/c" "--json dir"
assert_eq "$(jq -r '.sweep.directories[0].label' <<<"$js")" "$T/c" "--json label"
assert_eq "$(jq -r '.ranking.candidates[0].label' <<<"$js")" "$T/c" \
    "--json ranking"

# ---- sample_interval: with --update-time and no --sample-interval, each
# run samples ~60 times over its load (update_time / 60, 0.1 to 1 s), so
# the verdict has samples enough; a given one, or a profile's, is kept.
si() {
	STRESSCTL_DRY_RUN=1 "$STRESSCTL" --socket "$SOCK" sweep --dir "$T/si" \
	    --files 10 "$@" 2>/dev/null | jq -sc '[.[].args.sample_interval]'
}
assert_eq "$(si --update-time 30)" '[0.5]' "sample_interval of a 30 s sweep"
assert_eq "$(si --update-time 3)" '[0.1]' "sample_interval of a 3 s sweep"
assert_eq "$(si --update-time 600)" '[1]' "sample_interval of a 600 s sweep"
assert_eq "$(si --update-time 0)" '[0.1]' "sample_interval of a flat-out sweep"
assert_eq "$(si --update-time 30 --sample-interval 2)" '[2]' \
    "a given --sample-interval"
assert_eq "$(si)" '[null]' "sample_interval without --update-time"
[ ! -e "$T/si" ] || fail "a dry run created a directory"

# ---- usage errors: exit 2 naming the option, nothing started
n=$(ctlj runs | jq '.runs | length')
for args in "--repeat 0 --dir $T/x" "--repeat x --dir $T/x" \
    "--files ten --dir $T/x" "--bogus --dir $T/x" "--sweep-id s --dir $T/x" \
    "--label l --dir $T/x" "--dir $T/x --label $(printf 'x%.0s' {1..130})" \
    "--files 10" "-D stresstest.file=$T/x --dir $T/y"; do
	rc=0
	# shellcheck disable=SC2086  # split on purpose
	ctl sweep $args >/dev/null 2>"$T/err" || rc=$?
	assert_eq "$rc" 2 "sweep $args"
	opt=${args%% *}
	[ "$args" = "--files 10" ] && opt=--dir
	[[ $args == -D* ]] && opt=-D
	[[ $args == *--label* ]] && opt=--label
	grep -q -- "$opt" "$T/err" || fail "sweep $args: '$opt' not named: $(cat "$T/err")"
done
assert_eq "$(ctlj runs | jq '.runs | length')" "$n" "usage errors started runs"
[ ! -e "$T/x" ] && [ ! -e "$T/y" ] || fail "a usage error created a directory"
ctl sweep --help | grep -q 'sweep-ID-K' || fail "--help names the subdirectories"

# ---- Ctrl-C: the current run stops cleanly, compare of what finished
# (the sweep runs in stressd, where Ctrl-C only detaches by default:
# --on-interrupt stop is the old in-process behaviour; sweep_job.sh
# tests the detach)
"$STRESSCTL" --socket "$SOCK" sweep --dir "$T/d" --dir "$T/e" --files 20 \
    --max-updates 4000 --update-time 20 --rra "$RRA" --on-interrupt stop \
    >"$T/int.out" 2>"$T/int.err" &
spid=$!
wait_for_stats '.state == "running" and .updates_completed > 0' 20 >/dev/null
kill -INT "$spid"
rc=0
wait "$spid" || rc=$?
assert_eq "$rc" 130 "interrupted sweep exit status ($(cat "$T/int.err"))"
assert_alive "interrupted sweep"
st=$(ctlj stats)
id=$(jget "$st" run_id)
assert_eq "$(jget "$st" state)" stopped "interrupted run state"
check_invariants "$st" "interrupted run"
assert_eq "$(jq -r .state "$STATE/runs/$id/report.json")" stopped \
    "interrupted run's record"
grep -q "run $id\\b" "$T/int.out" || fail "no compare after Ctrl-C: $(cat "$T/int.out")"
[ ! -e "$T/e" ] || fail "the sweep went on after Ctrl-C"
log "ok"
