#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Every run's record and stats carry the daemon's keep-up verdict and its
# warnings (rule 2 in stressd(8) THE VERDICT): a queue that settles under a
# slowed writer kept up, with its steady window and the latency in it; one
# that still grows cannot tell, says it is filling and how long to run;
# values later than the latency bound fell behind; a flat-out run, one
# with too few samples and one stopped early cannot tell and say why; each
# warning (few_samples, flat_out, page_cache, no_queue) appears on a run
# that earns it and not on one that does not; `stressctl report` prints
# the verdict first, and a record without one says so.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

build_shim
# A disk of 1 ms per write, whatever the machine: one writer does at most
# 1,000 file batches a second.
LD_PRELOAD=$PRELOAD STRESSD_TEST_SLOW_US=1000 start_daemon

# run ARGS...: a paced run to its end; prints its report.json.
run() {
	local id
	id=$(jget "$(start_run --write-threads 1 --sample-interval 0.1 \
	    --zero-files 0 --rra "$RRA" "$@")" run_id)
	wait_run >/dev/null
	cat "$STATE/runs/$id/report.json"
}
# codes REPORT: the warning codes, blank separated.
codes() { jq -r '[.warnings[].code] | join(" ")' <<<"$1"; }
has() { [[ " $(codes "$1") " == *" $2 "* ]]; }
# figures NAME REPORT: the trend for the log (the lead's closing note).
figures() {
	log "$1: kept_up $(jq -c .verdict.kept_up <<<"$2"), slope \
$(jq .verdict.slope_per_s <<<"$2") +/- $(jq .verdict.slope_stderr <<<"$2") \
values/s over $(jq .verdict.load_phase.samples <<<"$2") samples; \
warnings: $(codes "$2"); $(jq -r .verdict.reason <<<"$2")"
}

# A queue that fills in a few seconds and then holds, on a quiet machine:
# 2,000 updates/s over 2,000 files against the writer's 1,000 file
# batches a second: each carries two values or so.  On a loaded one it may still wander past the
# tolerance: cannot tell, never fell behind.
rep=$(run --dir "$T/q" --files 2000 --max-updates 24000 --update-time 12)
figures bounded "$rep"
v=$(jq -c .verdict <<<"$rep")
assert_eq "$(jget "$v" rule)" 2 "rule version"
[ "$(jget "$v" kept_up)" != false ] ||
    fail "a bounded queue fell behind: $(jget "$v" reason)"
jq -e 'has("backlog_in_1h") or has("backlog_threshold") | not' <<<"$v" \
    >/dev/null || fail "rule 1's backlog in a rule 2 verdict: $v"
assert_num "$(jget "$v" load_phase.samples)" '>=' 30 "load-phase samples"
assert_num "$(jget "$v" latency_bound_ms)" '==' 300000 "bound = the step"
for w in few_samples flat_out no_queue; do
	! has "$rep" $w || fail "warning $w on a paced run with a queue"
done
# tiny files in a temp dir with sync none: they fit in the page cache
has "$rep" page_cache || fail "no page_cache warning: $(codes "$rep")"
# stats after the end: the same verdict, computed from the same samples
assert_eq "$(jq -cS .verdict <<<"$(stats)")" "$(jq -cS .verdict <<<"$rep")" \
    "stats' verdict vs the record's"
out=$(ctl report 1)
grep -q '^Verdict: \(kept up\|cannot tell\) (1 warning)$' <<<"$out" ||
    fail "report prints no verdict line: $(head -n 5 <<<"$out")"
grep -q '^  page_cache: ' <<<"$out" || fail "report prints no warning"

# A queue that grows all the load long: 2,000 updates/s over 6,000 files,
# each visited once in 6 s at best.  Still filling: cannot tell, and how
# long a run would need.
rep=$(run --dir "$T/g" --files 6000 --max-updates 12000 --update-time 6)
figures growing "$rep"
v=$(jq -c .verdict <<<"$rep")
assert_eq "$(jget "$v" kept_up)" null "a growing queue's verdict"
assert_num "$(jget "$v" slope_per_s)" '>' 100 "slope of a growing queue"
assert_eq "$(jget "$v" steady.found)" false "a growing queue's steady window"
assert_eq "$(jget "$v" steady.why_not)" filling "why not steady"
need=$(jget "$v" steady.run_at_least_s)
assert_num "$need" '>' "$(jget "$v" load_phase.to_s) - $(jget "$v" load_phase.from_s)" \
    "run_at_least_s past the load phase"
jget "$v" reason | grep -q "^still filling after .* s (.*); run at least $need s\.$" ||
    fail "reason: $(jget "$v" reason)"
out=$(ctl report 2)
grep -q '^Verdict: cannot tell' <<<"$out" || fail "report: $(head -n 3 <<<"$out")"
# the report wraps the reason at 80 columns
grep -q "run at least $need s" <<<"$(tr -s '\n ' '  ' <<<"$out")" ||
    fail "report: $(head -n 5 <<<"$out")"

# A load too light to form a queue, synced: no_queue, not page_cache; its
# queue of a value or two is steady from the start (within the floor of
# 10 values), and its values land within the bound: kept up, with the
# steady window, the fill and the latency in it.
rep=$(run --dir "$T/l" --files 10 --max-updates 60 --update-time 6 --sync data)
figures light "$rep"
has "$rep" no_queue || fail "no no_queue warning: $(codes "$rep")"
! has "$rep" page_cache || fail "page_cache warning with sync data"
v=$(jq -c .verdict <<<"$rep")
assert_eq "$(jget "$v" kept_up)" true "a steady queue's verdict: $(jget "$v" reason)"
assert_eq "$(jget "$v" steady.found)" true "steady window found"
jq -e '.steady | .fill_s >= 0 and .from_s < .to_s and .samples >= 30 and
    .tolerance == 10 and .latency_p99_ms > 0 and
    .latency_p50_ms <= .latency_p99_ms and .latency_from_s <= .from_s and
    .run_at_least_s == null and .why_not == null' <<<"$v" >/dev/null ||
    fail "steady figures: $(jq -c .steady <<<"$v")"
jget "$v" reason | grep -q '^queue steady at [0-9]* values from .* s (after a fill of .* s); values land within .* (enqueue_to_persist p99 from .* s; p50 .*), bound 300.0 s\.$' ||
    fail "reason: $(jget "$v" reason)"
out=$(ctl report 3)
grep -q '^Verdict: kept up (1 warning)$' <<<"$out" ||
    fail "report: $(head -n 5 <<<"$out")"
grep -q '^  queue steady at ' <<<"$out" || fail "report prints no reason"

# Writes slower than --latency-bound (1 ms; each takes 1 ms and more).
rep=$(run --dir "$T/b" --files 10 --max-updates 20 --update-time 1 \
    --latency-bound 0.001)
v=$(jq -c .verdict <<<"$rep")
assert_eq "$(jget "$v" kept_up)" false "verdict over the latency bound"
assert_num "$(jget "$v" latency_bound_ms)" '==' 1 "latency_bound_ms"
jget "$v" reason | grep -q 'p99' || fail "reason: $(jget "$v" reason)"

# Flat out: cannot tell, with flat_out and few_samples.
rep=$(run --dir "$T/f" --files 10 --max-updates 200 --update-time 0)
assert_eq "$(jq -c .verdict.kept_up <<<"$rep")" null "flat-out verdict"
has "$rep" flat_out && has "$rep" few_samples ||
    fail "flat-out warnings: $(codes "$rep")"
jq -r '.warnings[] | select(.code == "few_samples") | .message' <<<"$rep" |
    grep -q sample_interval || fail "few_samples says not how to get more"

# Stopped early: the verdict so far in stats, then the stop in the record.
id=$(jget "$(start_run --dir "$T/s" --files 10 --max-updates 6000 \
    --update-time 60 --sample-interval 0.1 --rra "$RRA")" run_id)
s=$(wait_for_stats '.verdict.load_phase.samples > 0' 30)
assert_eq "$(jq -c .verdict.stopped_early <<<"$s")" false "stopped_early so far"
ctl stop >/dev/null
wait_run >/dev/null
rep=$(cat "$STATE/runs/$id/report.json")
assert_eq "$(jq -c .verdict.stopped_early <<<"$rep")" true "stopped_early"
assert_eq "$(jq -c .verdict.kept_up <<<"$rep")" null "verdict of a 1 s run"
jq -r .verdict.reason <<<"$rep" | grep -q 'stopped after' ||
    fail "reason of a stopped run: $(jq -r .verdict.reason <<<"$rep")"

# runs carries each record's verdict and warnings for its listing.
r=$(ctlj runs)
assert_eq "$(jq -c '.runs[2].kept_up' <<<"$r")" true "runs: run 3's verdict"
assert_eq "$(jq -c '.runs[1].kept_up' <<<"$r")" null "runs: run 2's verdict"
assert_eq "$(jq -r '.runs[4].warnings' <<<"$r")" 3 "runs: run 5's warnings"

# A record of an older stressd has no verdict, and says so.
jq 'del(.verdict, .warnings)' <<<"$rep" >"$T/old.json"
ctl report "$T/old.json" | grep -q '^Verdict: no verdict (recorded by an older stressd)$' ||
    fail "an old record's verdict line"
# Direct writes (no queue) at 1 ms each from one generator: 3,000
# updates due in 1.5 s take 3 s and more, so the load was not taken as
# offered; the empty queue earns no no_queue warning (none is used).
rep=$(run --dir "$T/d" --files 10 --max-updates 3000 --update-time 1.5 \
    --use-queue=false)
figures direct "$rep"
assert_eq "$(jq -c .verdict.kept_up <<<"$rep")" false "direct writes off pace"
jq -r .verdict.reason <<<"$rep" | grep -q 'use_queue false' ||
    fail "reason of a late direct run: $(jq -r .verdict.reason <<<"$rep")"
! has "$rep" no_queue || fail "no_queue warning without a queue"
log "ok: verdicts and warnings in records, stats and report"
