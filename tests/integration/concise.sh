#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Concise by default (issue 15): stats and wait print a headline of at
# most 15 lines and --all every counter; status lists the knobs that
# differ from the defaults; runs shows files, updates/s, sync, label and
# verdict; watch's ETA follows update_time; misspelled commands and
# options get a suggestion; a --socket naming a directory says so.
# Replies stressctl must show but no daemon of this version sends (a
# verdict, a label, a paced run's ETA) come from a fake server.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# at_most N TEXT LABEL: TEXT has at most N lines.
at_most() {
	local n
	n=$(grep -c '' <<<"$2")
	[ "$n" -le "$1" ] || fail "$3: $n lines, more than $1: $2"
}

# ---- a paced run and a flat-out one, for real
start_run --dir "$T/paced" --files 20 --max-updates 3000 --update-time 3 \
    --rra "$RRA" >/dev/null
run_ctl 0 "wait" --socket "$SOCK" wait
at_most 15 "$out" "wait"
assert_contains "$out" "3000/3000" "wait: progress"
assert_contains "$out" "completed" "wait: completed"
assert_contains "$out" "1000" "wait: the pace (3000 updates in 3 s)"
assert_contains "$out" "average" "wait: the queues' averages"
if ! jq -e 'has("verdict")' <<<"$(stats)" >/dev/null; then
	assert_contains "$out" "no verdict" "wait without a verdict"
fi
run_ctl 0 "stats" --socket "$SOCK" stats
at_most 15 "$out" "stats"
case $out in *update_calls*|*dequeued_items*) fail "stats is not concise: $out" ;; esac
run_ctl 0 "stats --all" --socket "$SOCK" stats --all
all=$out
s=$(stats)
# Under their labels: elapsed_s as elapsed, generated/max_updates as
# progress.
assert_contains "$all" elapsed "stats --all: elapsed"
assert_contains "$all" "progress" "stats --all: progress"
for k in $(jq -r 'keys[] | select(. != "rates" and . != "elapsed_s" and
    . != "generated" and . != "max_updates")' <<<"$s") \
    $(jq -r '.rates | keys[]' <<<"$s"); do
	assert_contains "$all" "$k" "stats --all: key $k"
done
run_ctl 0 "wait --all" --socket "$SOCK" wait --all
assert_eq "$out" "$all" "wait --all is stats --all of an ended run"
run_ctl 0 "stats --json" --socket "$SOCK" stats --json
assert_eq "$(jq -S -c 'del(.elapsed_s, .rates.current_enqueue,
    .rates.current_dequeue, .rates.ops_per_update_current,
    .rates.percent_significant_current)' <<<"$out")" \
    "$(jq -S -c 'del(.elapsed_s, .rates.current_enqueue,
    .rates.current_dequeue, .rates.ops_per_update_current,
    .rates.percent_significant_current)' <<<"$s")" "stats --json"

# ---- status: the knobs that differ from the defaults
run_ctl 0 "status" --socket "$SOCK" status
grep -qE '^ +files +20$' <<<"$out" || fail "status lacks files 20: $out"
grep -qE '^ +update_time +3$' <<<"$out" || fail "status lacks update_time 3: $out"
grep -qE '^ +dir +' <<<"$out" || fail "status lacks dir: $out"
if grep -qE "^ +(step|seed|modulus|threads|write_threads|zero_files) " <<<"$out"; then
	fail "status lists knobs at their defaults: $out"
fi
run_ctl 0 "status --all" --socket "$SOCK" status --all
for k in step seed modulus threads files; do
	grep -qE "^ +$k +" <<<"$out" || fail "status --all lacks $k: $out"
done

start_run --dir "$T/flat" --files 10 --max-updates 500 --update-time 0 \
    --rra "$RRA" >/dev/null
wait_run >/dev/null

# ---- runs: files, updates/s, sync, label, verdict; no mount options
run_ctl 0 "runs" --socket "$SOCK" runs
head=$(head -n 1 <<<"$out")
for c in ID FS FILES UPDATES/S SYNC LABEL VERDICT; do
	grep -qw -- "$c" <<<"$head" || fail "runs header lacks $c: $out"
done
case $head in *MOUNT*) fail "runs still shows mount options: $out" ;; esac
grep -qE '^ *1 .* 20 +1000 +none ' <<<"$out" ||
    fail "runs: run 1 is not 20 files at 1000/s, sync none: $out"
grep -qE '^ *2 .* 10 +flat out +none ' <<<"$out" ||
    fail "runs: run 2 is not 10 files flat out: $out"

# ---- a fake server for replies this daemon does not send
FAKE=$T/fake.sock
cat >"$T/fake.sh" <<EOF
IFS= read -r req
cmd=\$(jq -r .cmd <<<"\$req")
cat "$T/reply-\$cmd.json"
EOF
socat "UNIX-LISTEN:$FAKE,fork" "SYSTEM:bash $T/fake.sh" 2>/dev/null &
HELPER_PIDS+=($!)
for _ in $(seq 50); do [ -S "$FAKE" ] && break; sleep 0.1; done
[ -S "$FAKE" ] || fail "the fake server did not bind"
# reply CMD JQ: the reply to CMD is JQ applied to stdin, in an envelope.
reply() {
	jq -c "{ok: true, id: 1, result: ($2)}" >"$T/reply-$1.json"
}

# A run 30 s in, 10% generated, paced at 100 s: the ETA at the run's own
# pace (90 s) is 1:30; at the pace so far (setup included) it would be 4:30.
# shellcheck disable=SC2016  # jq's variables
paced='.state = "running" | .elapsed_s = 30 | .generated = 1000 |
    .max_updates = 10000 | .updates_completed = 1000 | .dropped = 0 |
    .updates_failed = 0 | .discarded = 0 | .update_time = 100 |
    .total_operations_pending = 0 | .significant_ops_pending = 0'
reply status '{run: {params: {sample_interval: 1, update_time: 100,
    max_updates: 10000}}}' <<<null
reply stats "$paced" <<<"$s"
run_ctl 0 "watch a paced run" --socket "$FAKE" watch --count 1
assert_contains "$out" "eta=1:30" "watch: ETA from update_time"
run_ctl 0 "stats of a paced run" --socket "$FAKE" stats
assert_contains "$out" "ETA 1:30" "stats: ETA from update_time"

# The verdict so far and the warnings, as the daemon sends them.
reply stats "$paced"' | .verdict = {kept_up: false,
    reason: "the significant queue grew by 12.5 values/s over the load",
    rule: 1} | .warnings = [{code: "few_samples",
    message: "only 3 samples in the load phase; run longer"},
    {code: "flat_out", message: "flat out: a paced run tells more"}]' <<<"$s"
run_ctl 0 "stats with a verdict" --socket "$FAKE" stats
at_most 15 "$out" "stats with a verdict"
# Long lines wrap under their label.
flat=$(tr -s ' \n' '  ' <<<"$out")
assert_contains "$flat" "verdict fell behind so far (2 warnings): the significant queue grew by 12.5 values/s" \
    "stats: verdict and reason"
assert_contains "$flat" "warning only 3 samples in the load phase; run longer" \
    "stats: warning 1"
assert_contains "$flat" "warning flat out: a paced run tells more" \
    "stats: warning 2"
reply stats "$paced"' | .verdict = {kept_up: null,
    reason: "too few samples", rule: 1}' <<<"$s"
run_ctl 0 "stats cannot tell" --socket "$FAKE" stats
assert_contains "$out" "cannot tell" "stats: null verdict"
reply stats "$paced"' | del(.verdict, .warnings)' <<<"$s"
run_ctl 0 "stats without a verdict" --socket "$FAKE" stats
assert_contains "$out" "no verdict yet" "stats: no verdict key"

# runs with labels and verdicts, and without.
# shellcheck disable=SC2016
reply runs '{runs: [
    {id: 1, state: "done", files: 20, max_updates: 3000, update_time: 3,
     sync: "data", label: "ext3 data=writeback", kept_up: true,
     warnings: 0, fs_type: "ext3", dir: "/x", updates_completed: 3000},
    {id: 2, state: "done", files: 20, max_updates: 3000, update_time: 3,
     sync: "none", label: "", kept_up: false, warnings: 2,
     fs_type: "xfs", dir: "/y", updates_completed: 3000},
    {id: 3, state: "done", files: 20, max_updates: 3000, update_time: 0,
     sync: "none", kept_up: null, warnings: 1, fs_type: "xfs", dir: "/y",
     updates_completed: 3000},
    {id: 4, state: "done", fs_type: "xfs", dir: "/z",
     updates_completed: 10}]}' <<<null
run_ctl 0 "runs, labelled" --socket "$FAKE" runs
grep -qE '^ *1 .*ext3 data=writeback +kept up' <<<"$out" ||
    fail "runs: run 1's label and verdict: $out"
grep -qE '^ *2 .* - +fell behind \(2 warnings\)' <<<"$out" ||
    fail "runs: run 2's verdict: $out"
grep -qE '^ *3 .*flat out .*cannot tell \(1 warning\)' <<<"$out" ||
    fail "runs: run 3's verdict: $out"
grep -qE '^ *4 .*—' <<<"$out" || fail "runs: run 4 without a verdict: $out"

# ---- did you mean
run_ctl 2 "misspelled command" --socket "$SOCK" stauts
grep -q "did you mean .*'status'" <<<"$out" || fail "misspelled command: $out"
run_ctl 2 "misspelled start option" --socket "$SOCK" start --dir "$T/x" --fles 10
assert_contains "$out" "did you mean '--files'" "misspelled start option"
run_ctl 2 "misspelled global option" --sokcet "$SOCK" stats
assert_contains "$out" "did you mean '--socket'" "misspelled global option"
run_ctl 2 "misspelled stats option" --socket "$SOCK" stats --alll
assert_contains "$out" "did you mean '--all'" "misspelled stats option"
run_ctl 2 "nothing close" --socket "$SOCK" xyzzyplugh
case $out in *"did you mean"*) fail "a suggestion for nothing close: $out" ;; esac

# ---- --socket naming a directory
run_ctl 3 "--socket a directory holding a socket" --socket "$T" stats
assert_contains "$out" "--socket $T: is a directory; the socket is $SOCK?" \
    "--socket dir with a socket"
mkdir "$T/empty"
run_ctl 3 "--socket an empty directory" --socket "$T/empty" stats
assert_contains "$out" "--socket $T/empty: is a directory; the socket is e.g. $T/empty/stressd.sock?" \
    "--socket empty dir"
out=$(STRESSD_SOCKET=$T/empty timeout 20 "$STRESSCTL" stats 2>&1) || true
assert_contains "$out" "STRESSD_SOCKET $T/empty: is a directory" \
    "STRESSD_SOCKET naming a directory"

assert_alive "the concise outputs"
log "PASS"
