#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# compare names what was compared and says who won, or that it cannot:
# columns headed by the label knob (else the filesystem and the mount
# options that differ, else the run id), only the parameters that differ,
# an fdatasync row only with sync=data, each run's verdict and warnings
# from its record, and a ranking of the significant queue average: "cannot
# be judged" with one run each, a winner with clearly separated repeats,
# none within the run-to-run spread; ties claimed only as tested, a 5 %
# floor without spread, the verdicts ranked first (a storage that fell
# behind never wins over one that kept up) and flat-out runs left out of
# the queue statistics; directory and mount options rows only when they
# differ.  Two real runs; the rest are copies
# of their report.json edited with jq, as records from other hosts.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# ---- the label knob: blanks and UTF-8 fine, control characters refused
start_run --dir "$T/a" --files 40 --threads 2 --max-updates 2000 \
    --update-time 1 --sample-interval 0.2 --rra "$RRA" \
    --label "ext3 data=writeback" >/dev/null
wait_run >/dev/null
start_run --dir "$T/b" --files 40 --threads 2 --max-updates 2000 \
    --update-time 1 --sample-interval 0.2 --rra "$RRA" --sync data \
    --label "xfs" >/dev/null
wait_run >/dev/null
A=$STATE/runs/1/report.json
B=$STATE/runs/2/report.json
assert_eq "$(jq -r .params.label "$A")" "ext3 data=writeback" "label recorded"
rc=0
ctl start --dir "$T/c" --label "$(printf 'a\033[2Jb')" >/dev/null 2>"$T/err" ||
    rc=$?
assert_eq "$rc" 2 "a label with an escape"
grep -q -- "label" "$T/err" || fail "label error: $(cat "$T/err")"

# the contract's verdict and warnings, whatever this stressd recorded
V='{"kept_up": true, "reason": "the queue stayed flat", "rule": 1,
    "dropped": 0, "failed": 0, "stopped_early": false}'
jq --argjson v "$V" '.verdict = $v | .warnings = [{"code": "few_samples",
    "message": "only 5 samples; run longer"}]' "$A" >"$T/a.json"
jq --argjson v "$V" '.verdict = ($v | .kept_up = false |
    .reason = "the queue grew 3 values/s") | .warnings = []' "$B" >"$T/b.json"
files() { "$STRESSCTL" --socket /nonexistent "$@"; }

# ---- labels as headings, only differing parameters, fdatasync with data
out=$(files compare "$T/a.json" "$T/b.json") || fail "compare exited $?"
head=$(head -n 1 <<<"$out")
[[ $head =~ ^\ +ext3\ data=writeback\ +xfs$ ]] || fail "heading '$head'"
grep -qE '^run +1 +2$' <<<"$out" || fail "no run row: $out"
grep -qE '^ +sync +none +data$' <<<"$out" || fail "no sync row: $out"
for p in files threads seed max_updates label sweep_id; do
	! grep -qE "^ +$p " <<<"$out" || fail "same parameter $p listed: $out"
done
# the sync none run timed no fdatasync: "-", not 0.000
grep -qE '^fdatasync p99 \(ms\) +- +[0-9.]+$' <<<"$out" ||
    fail "no fdatasync row with sync=data (- for sync none): $out"
grep -qE '^verdict +kept up \(1 warning\) +fell behind$' <<<"$out" ||
    fail "verdict row: $out"
grep -q 'run 1 (ext3 data=writeback): kept up: the queue stayed flat' \
    <<<"$out" || fail "closing verdict of run 1: $out"
grep -q 'run 2 (xfs): fell behind: the queue grew 3 values/s' <<<"$out" ||
    fail "closing verdict of run 2: $out"
grep -q 'few_samples: only 5 samples; run longer' <<<"$out" ||
    fail "warning not shown: $out"
grep -q 'cannot be judged' <<<"$out" || fail "one run each judged: $out"
grep -q 'stressctl sweep --repeat 3' <<<"$out" || fail "no repeats advice: $out"
j=$(files --json compare "$T/a.json" "$T/b.json")
assert_eq "$(jq -c '.ranking | [.judged, .winner, .min_runs]' <<<"$j")" \
    '[false,null,3]' "--json ranking, one run each"

# no sync=data: no fdatasync row; no label, same mount: run ids; an old
# record: no verdict
jq 'del(.verdict, .warnings, .params.label)' "$A" >"$T/old.json"
jq '.run_id = 5 | .params.label = ""' "$T/a.json" >"$T/a5.json"
out=$(files compare "$T/old.json" "$T/a5.json") || fail "compare exited $?"
! grep -q fdatasync <<<"$out" || fail "fdatasync row without sync=data: $out"
[[ $(head -n 1 <<<"$out") =~ ^\ +run\ 1\ +run\ 5$ ]] ||
    fail "unlabelled heading: $(head -n 1 <<<"$out")"
grep -q 'no verdict (recorded by an older stressd)' <<<"$out" ||
    fail "old record: $out"
grep -qE '^parameters that differ +none' <<<"$out" || fail "no params: $out"
# the same directory and mount options in every column: no such rows
# (the filesystem row stays)
grep -qE '^filesystem ' <<<"$out" || fail "no filesystem row: $out"
! grep -qE '^(directory|mount options) ' <<<"$out" ||
    fail "identical directory/mount options rows shown: $out"

# unlabelled on different mounts: the filesystem and the options that
# differ; a sweep's run directory shows as the user's --dir
jq '.params.label = "" | .target.fs_type = "ext3" |
    .target.mount_options = "rw,noatime,data=writeback" |
    .params.sweep_id = "s-1-2" | .target.dir = "/srv/a/sweep-s-1-2-7" |
    .params.dir = .target.dir' "$T/a.json" >"$T/m1.json"
jq '.params.label = "" | .target.fs_type = "ext3" | .run_id = 8 |
    .target.mount_options = "rw,noatime"' "$T/a.json" >"$T/m2.json"
out=$(files compare "$T/m1.json" "$T/m2.json") || fail "compare exited $?"
[[ $(head -n 1 <<<"$out") =~ ^\ +ext3\ data=writeback\ +ext3$ ]] ||
    fail "mount heading: $(head -n 1 <<<"$out")"
grep -qE '^directory +/srv/a +' <<<"$out" || fail "directory row: $out"
grep -qE '^mount options +rw,noatime, +rw,noatime$' <<<"$out" ||
    fail "differing mount options not shown: $out"
! grep -q 'sweep-s-1-2' <<<"$out" || fail "sweep tail shown: $out"

# ---- repeats: clearly separated, and within the spread
# copy FILE ID LABEL AVG: a repeat of FILE with its queue average AVG and
# no warnings (the repeats below all kept up: their queues decide)
copy() {
	jq --argjson id "$2" --arg l "$3" --argjson avg "$4" '.run_id = $id |
	    .params.label = $l | .warnings = [] |
	    .queue_depth.significant_ops_pending.average = $avg' "$1" \
	    >"$T/r$2.json"
	echo "$T/r$2.json"
}
sep=() near=()
for k in 1 2 3; do
	sep+=("$(copy "$T/a.json" "$k" fast "$((10 + k))")")
	sep+=("$(copy "$T/a.json" "$((k + 10))" slow "$((100 + k))")")
	near+=("$(copy "$T/a.json" "$((k + 20))" fast "$((10 * k))")")
	near+=("$(copy "$T/a.json" "$((k + 30))" slow "$((10 * k + 3))")")
done
out=$(files compare "${sep[@]}") || fail "compare of repeats exited $?"
grep -qE '^  fast +12\.00 \+- 1\.00 +3 runs' <<<"$out" ||
    fail "mean +- sd of fast: $out"
grep -q 'Winner: fast' <<<"$out" || fail "no winner called: $out"
j=$(files --json compare "${sep[@]}")
assert_eq "$(jq -c '.ranking | [.judged, .winner]' <<<"$j")" '[true,"fast"]' \
    "--json winner"
assert_eq "$(jq -c '[.ranking.candidates[] | [.label, .n, .mean]]' <<<"$j")" \
    '[["fast",3,12],["slow",3,102]]' "--json candidates"
out=$(files compare "${near[@]}") || fail "compare of repeats exited $?"
! grep -q 'Winner' <<<"$out" || fail "winner within the spread: $out"
grep -q 'cannot be told apart' <<<"$out" || fail "no tie stated: $out"
assert_eq "$(files --json compare "${near[@]}" | jq -c '.ranking |
    [.judged, .winner]')" '[true,null]' "--json no winner"

# ---- ties: A 10 +- 0.1, B 20 +- 20, C 30 +- 0.1: A beats C, B does not
# (t 0.87), so "each beats C" is not claimed; no spread and 3 %: a tie
tie=() flat0=()
k=70
for v in 9.9 0 29.9 10 20 30 10.1 40 30.1; do
	k=$((k + 1))
	tie+=("$(copy "$T/a.json" "$k" "$(echo A B C | cut -d' ' \
	    -f$(((k - 71) % 3 + 1)))" "$v")")
done
for k in 81 82 83; do
	flat0+=("$(copy "$T/a.json" "$k" D 100)" "$(copy "$T/a.json" \
	    "$((k + 10))" E 103)")
done
out=$(files compare "${tie[@]}") || fail "compare exited $?"
! grep -q 'each beats' <<<"$out" || fail "untested claim: $out"
grep -q 'A beats C; B is not told apart from C' <<<"$(tr -s '\n ' '  ' \
    <<<"$out")" || fail "tested claims not stated: $out"
out=$(files compare "${flat0[@]}") || fail "compare exited $?"
grep -qE '^  E .*not told apart from D \(no spread, within 5 %\)' <<<"$out" ||
    fail "3 % without spread called: $out"

# ---- the verdicts rank first: three runs that fell behind with a short
# queue (failed writes) lose to three that kept up with a long one
bad=() good=() flat=()
for k in 1 2 3; do
	bad+=("$(copy "$T/b.json" "$((k + 40))" broken "0.$k")")
	good+=("$(copy "$T/a.json" "$((k + 50))" sound "$((54 + k))")")
	# flat out: 0 samples, average 0, no verdict to give
	jq '.samples = 0 | .verdict.kept_up = null | .warnings = [{"code":
	    "flat_out", "message": "flat out"}]' "$(copy "$T/a.json" \
	    "$((k + 60))" flat 0)" >"$T/f$k.json"
	flat+=("$T/f$k.json")
done
out=$(files compare "${bad[@]}" "${good[@]}") || fail "compare exited $?"
! grep -q 'Winner: broken' <<<"$out" || fail "fell behind and won: $out"
grep -q 'Winner: sound' <<<"$out" || fail "kept up and did not win: $out"
grep -q 'sound kept up; broken fell behind' <<<"$out" ||
    fail "which kept up not said: $out"
grep -qE '^  broken .*worse than sound \(fell behind\)' <<<"$out" ||
    fail "broken not ranked below: $out"
out=$(files compare "${flat[@]}" "${good[@]}") || fail "compare exited $?"
! grep -q 'Winner: flat' <<<"$out" || fail "flat out won: $out"
grep -q 'left out: run 61 (0 samples)' <<<"$out" ||
    fail "left-out runs not named: $out"
assert_eq "$(files --json compare "${flat[@]}" "${good[@]}" | jq -c \
    '.ranking.candidates | map([.label, .verdict, .n, .left_out])')" \
    '[["sound","kept up",3,0],["flat","cannot tell",0,3]]' \
    "--json flat-out runs left out"

# ---- a queue of 150 values and one of 3: one grid of ranges for both,
# at most 16 rows (RECORDS_HIST_ROWS), rows that line up
jq '.queue_depth.significant_ops_pending.histogram =
    [range(150) | {value: ., count: 1}]' "$T/a.json" >"$T/wide.json"
jq '.queue_depth.significant_ops_pending.histogram =
    [{value: 0, count: 5}, {value: 1, count: 2}, {value: 31, count: 1}]' \
    "$T/b.json" >"$T/narrow.json"
out=$(files compare "$T/wide.json" "$T/narrow.json") ||
    fail "compare exited $?"
hist=$(sed -n '/^Histogram of significant_ops_pending/,/^$/p' <<<"$out")
grep -q 'samples per range of values' <<<"$hist" || fail "no ranges: $hist"
rows=$(grep -cE '^ +[0-9]+-[0-9]+ ' <<<"$hist" || true)
assert_eq "$rows" 15 "histogram rows of ranges 0-9 .. 140-149"
grep -qE '^ +0-9 +10 \( *6\.7%\) +7 \( *87\.5%\)' <<<"$hist" ||
    fail "the range 0-9 of both runs on one row: $hist"
grep -qE '^ +30-39 +10 \( *6\.7%\) +1 \( *12\.5%\)' <<<"$hist" ||
    fail "the range 30-39 of both runs on one row: $hist"
log "ok: labels, differing parameters, verdicts, and a ranking that calls a winner only beyond the spread"
