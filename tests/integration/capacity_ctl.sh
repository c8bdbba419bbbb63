#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressctl capacity against a real daemon: bad search options refused by
# name before anything is sent; a two-directory search on tmpfs followed
# to its end (one line per step, each directory's result, the ranking,
# --graph's PNG); its record through report (id, copied file, --json with
# the ranking), compare and runs (searches listed, steps folded); Ctrl-C
# detaches by default (the search goes on) and --attach follows it again;
# --detach returns at once, a second search is busy, and --attach
# --on-interrupt stop stops it.  Fixture records (tests/fixtures) check
# compare across hosts and report --graph without a daemon.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# librrd's rrd_graph leaves allocations LeakSanitizer reports under
# --enable-sanitizers; they are not ours.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

FIX=$TOP_SRCDIR/tests/fixtures

# On tmpfs (/dev/shm): quick steps, and the storage is not what limits.
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
D=/dev/shm/stressd-capctl.$$
mkdir "$D"
CLEANUP_HOOKS+=("rm -rf '$D'")

# Short steps on 200 small files: each step about 5 s.
KNOBS=(--files 200 --rra "$RRA" --step-min 3 --step-max 5 --settle 0.5)

# ---------------------------------------------------------------- bad input
for bad in "--precision 0:--precision" "--precision 100:--precision" \
    "--start-rate 0:--start-rate" "--max-rate 50:--max-rate" \
    "--start-rate 500 --max-rate 400:--max-rate" \
    "--settle 12:--settle" "--repeats 11:--repeats" \
    "--on-interrupt later:--on-interrupt"; do
	# shellcheck disable=SC2086  # the options split on purpose
	run_ctl 2 "bad ${bad%%:*}" --socket "$SOCK" capacity --dir "$D/a" \
	    ${bad%%:*}
	assert_contains "$out" "${bad##*:}:" "error names the option"
done
run_ctl 2 "no dir" --socket "$SOCK" capacity --files 10
assert_contains "$out" "--dir" "missing --dir named"
run_ctl 2 "attach with dirs" --socket "$SOCK" capacity --attach --dir "$D/a"
out=$(ctlj runs)
assert_eq "$(jq '.runs | length' <<<"$out")" 0 "nothing sent for bad input"

# ---------------------------------------------------------------- search
out=$(ctl capacity --dir "$D/a" --label "first one" --dir "$D/b" \
    "${KNOBS[@]}" \
    --start-rate 2000 --max-rate 4000 --graph "$T/cap.png" 2>"$T/err") ||
    fail "capacity exited $?: $out $(cat "$T/err")"
assert_contains "$out" "dir 1/2  step 1  grow" "step line of dir 1"
assert_contains "$out" "dir 2/2  step" "step line of dir 2"
assert_contains "$out" "Capacity search 1: done" "result heading"
assert_contains "$out" "Directory 2/2 $D/b (tmpfs): done" "directory result"
assert_contains "$out" "updates/s: each of the 200 files updated every" \
    "the interval per file"
assert_contains "$out" "limited by" "what limited it"
assert_contains "$out" "Ranking" "ranking"
assert_contains "$(cat "$T/err")" "Ctrl-C detaches" "Ctrl-C default said"
IFS=x read -r w h < <(png_size "$T/cap.png")
assert_num "$w" ">=" 800 "PNG width"
assert_num "$h" ">=" 300 "PNG height"

# The record: by id, as --json with the ranking, from a copied file.
rep=$(ctlj report 1)
assert_eq "$(jget "$rep" schema)" stressd-capacity "report --json schema"
assert_eq "$(jq '.ranking | length' <<<"$rep")" 2 "ranking of two"
assert_eq "$(jq -r '[.dirs[].label] | join(",")' <<<"$rep")" "first one," \
    "--label names the --dir before it"
jq -e '.ranking[0] as $a | .ranking[1] as $b |
    if [$a.limited_by, $b.limited_by] | any(. == "cpu" or . == "max_rate")
    then $a.next.relation == "ceiling"
    else $a.next.relation | IN("ahead", "within_precision", "unknown") end' \
    <<<"$rep" >/dev/null || fail "a ceiling is ranked on storage: $rep"
nsteps=$(jq '.steps | length' <<<"$rep")
assert_num "$nsteps" ">=" 2 "steps recorded"
mkdir "$T/copy"
cp "$STATE/runs/1/capacity.json" "$T/copy/"
run_ctl 0 "report of a copy" --socket /nonexistent report "$T/copy"
assert_contains "$out" "Capacity search 1: done" "copy read without daemon"
run_ctl 0 "compare of copies" --socket /nonexistent compare \
    "$T/copy/capacity.json" "$FIX/capacity-beta.json"
assert_contains "$out" "beta:/srv/rrd" "hosts told apart"

# runs: the search with its figures, its steps folded.
out=$(ctl runs)
assert_contains "$out" "Capacity searches" "runs lists the search"
assert_contains "$out" "($nsteps step runs of capacity searches not shown" \
    "steps folded"
out=$(ctl runs --all)
assert_contains "$out" "capacity 1 step 1" "runs --all names the step"
out=$(ctlj runs)
assert_eq "$(jq -r '[.runs[] | select(.kind == "capacity")][0].dirs | length' \
    <<<"$out")" 2 "the search's summary has its dirs"

# ---------------------------------------------------------------- Ctrl-C
# Not under timeout: a background job of a script ignores SIGINT, and
# stressctl's own handler is what is tested.
"$STRESSCTL" --socket "$SOCK" capacity --dir "$D/c" "${KNOBS[@]}" \
    --start-rate 2000 --max-rate 4000 >"$T/c.out" 2>"$T/c.err" &
cpid=$!
HELPER_PIDS+=("$cpid")
for _ in $(seq 100); do
	st=$(ctlj status)
	[ "$(jq -r '.capacity.state // ""' <<<"$st")" = running ] && break
	sleep 0.2
done
sleep 1
kill -INT "$cpid"
rc=0
wait "$cpid" || rc=$?
assert_eq "$rc" 130 "Ctrl-C exit status"
assert_contains "$(cat "$T/c.err")" "detached" "detach said"
assert_contains "$(cat "$T/c.err")" "stressctl capacity --attach" \
    "how to re-attach said"
st=$(ctlj status)
assert_eq "$(jq -r '.capacity.state' <<<"$st")" running "search goes on"
out=$(ctl capacity --attach 2>&1) || fail "attach exited $?: $out"
assert_contains "$out" "Capacity search" "attach followed to the end"
assert_contains "$out" "Directory 1/1 $D/c" "attached to the right one"
out=$(ctlj capacity --attach) || fail "attach to the last exited $?"
is_json "$out" || fail "capacity --json --attach: not one JSON: ${out:0:300}"
assert_eq "$(jq '.ranking | length' <<<"$out")" 1 "last search's ranking"

# --detach, busy, then attach and stop it with Ctrl-C.
out=$(ctl capacity --detach --dir "$D/d" "${KNOBS[@]}" --start-rate 2000 \
    --max-rate 64000) || fail "detach exited $?"
assert_contains "$out" "started in stressd" "detach returns at once"
run_ctl 1 "busy" --socket "$SOCK" capacity --dir "$D/e" --files 10
"$STRESSCTL" --socket "$SOCK" capacity --attach --on-interrupt stop \
    >"$T/s.out" 2>"$T/s.err" &
cpid=$!
HELPER_PIDS+=("$cpid")
sleep 2
kill -INT "$cpid"
rc=0
wait "$cpid" || rc=$?
assert_eq "$rc" 130 "stopped by Ctrl-C: exit status"
assert_contains "$(cat "$T/s.err")" "stopping search" "stop said"
id=$(jq -r '[.runs[] | select(.kind == "capacity")][-1].id' <<<"$(ctlj runs)")
assert_eq "$(jget "$(ctlj report "$id")" state)" stopped "search stopped"

# Ctrl-C while the request waits for its reply (the daemon held with
# SIGSTOP, as a long setup would): --on-interrupt stop still stops the
# search once its id is known (stressctl died of the SIGINT before).
"$STRESSCTL" --socket "$SOCK" --timeout 0 capacity --dir "$D/g" \
    "${KNOBS[@]}" --start-rate 2000 --max-rate 64000 --on-interrupt stop \
    >"$T/g.out" 2>"$T/g.err" &
cpid=$!
HELPER_PIDS+=("$cpid")
kill -STOP "$DPID"
sleep 1
kill -INT "$cpid"
sleep 0.5
kill -CONT "$DPID"
rc=0
wait "$cpid" || rc=$?
assert_eq "$rc" 130 "Ctrl-C before the reply: exit status ($(cat "$T/g.err"))"
id=$(jq -r '[.runs[] | select(.kind == "capacity")][-1].id' <<<"$(ctlj runs)")
assert_eq "$(jget "$(ctlj report "$id")" state)" stopped \
    "search stopped after a Ctrl-C before the reply"

# ---------------------------------------------------------------- fixtures
run_ctl 0 "fixture graph" --socket /nonexistent report --graph "$T/f.png" \
    "$FIX/capacity-alpha.json"
png_size "$T/f.png" >/dev/null
# A copied record may hold any number: a rate of 1e308 is no axis of 308
# decades (it failed with "more than 200 graph arguments").
jq '.steps[0].rate = 1e308' "$FIX/capacity-alpha.json" >"$T/huge.json"
run_ctl 0 "graph of a record with a huge rate" --socket /nonexistent \
    report --graph "$T/huge.png" "$T/huge.json"
png_size "$T/huge.png" >/dev/null
run_ctl 0 "graph of a capacity record" --socket /nonexistent graph \
    "$FIX/capacity-beta.json" -o "$T/g.png"
png_size "$T/g.png" >/dev/null
run_ctl 0 "fixture ranking" --socket /nonexistent --json report \
    "$FIX/capacity-alpha.json"
assert_eq "$(jq -r '[.ranking[] | .next.relation // "-"] | join(",")' \
    <<<"$out")" "ahead,ahead,-" "fixture ranking"
# the CPU-limited tmpfs (5000, a lower bound of its storage) clears
# ext4's bracket (behind at 2000): ahead, saying its own limit is higher
assert_contains "$(jq -r '.ranking[0].next.text' <<<"$out")" \
    "own limit is higher" "a ceiling ahead"
log "ok"
