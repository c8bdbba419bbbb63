#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stress.log's progress blocks, as the original stresser writes them: one
# each time the generators have offered another `modulus` updates, the
# queue sampled as that update was taken.  A completed run has exactly
# max_updates / modulus blocks (rounded down) and no block of the drained
# queue after them; a run that ends early has one final block, its state
# at the end.  The same with many generators and writers, with use_queue
# off, with an update_file, and the README's one-liner over the blocks.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

# blocks STRESS_LOG: one line per block, "COMPLETED TOTAL_PENDING SIG_PENDING"
# (its progress line's count and its first QS: line's two queues).
blocks() {
	awk '/^[0-9]+ samples stored, / { c = $1 }
	    /^QS:\ttotalOperationsPending=/ {
		split($0, f, /[=,]/); print c, f[2] + 0, f[4] + 0 }' "$1"
}

# run_log LABEL START_ARGS...: a run that must end done; prints its
# stress.log's path.
run_log() {
	local what=$1 s
	shift
	start_run "$@" >/dev/null
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" done "$what: state"
	printf '%s\n' "$STATE/runs/$(jget "$s" run_id)/stress.log"
}

# assert_blocks STRESS_LOG N LABEL: N blocks, the run's end line right after
# the last one, "samples stored" never going back.
assert_blocks() {
	local b
	b=$(blocks "$1")
	assert_eq "$(grep -c . <<<"$b" || true)" "$2" "$3: blocks in $1"
	assert_eq "$(grep -c '^QS:' "$1" || true)" $(($2 * 4)) "$3: QS: lines"
	tail -n 1 "$1" | grep -q '^# run [0-9]* done$' ||
	    fail "$3: stress.log does not end with '# run N done': $(tail -n 2 "$1")"
	[ "$2" -eq 0 ] || tail -n 2 "$1" | head -n 1 | grep -q '^QS:' ||
	    fail "$3: a line between the last block and the end: $(tail -n 3 "$1")"
	awk 'NR > 1 && $1 < prev { print; exit 1 } { prev = $1 }' <<<"$b" ||
	    fail "$3: blocks out of order"
}

# ---- 1. 10,000 updates, modulus 1,000, one generator: 10 blocks, each the
# queue as the k-th thousandth update was taken (nothing past it enqueued
# yet: completed + pending <= k * 1000), none after the drain
slog=$(run_log "one generator" --dir "$T/one" --files 200 --threads 1 \
    --write-threads 1 --max-updates 10000 --modulus 1000 --update-time 0 \
    --rra "$RRA")
assert_blocks "$slog" 10 "one generator"
bad=$(blocks "$slog" | awk '$1 + $2 > NR * 1000 { print NR ": " $0; exit }')
[ -z "$bad" ] || fail "one generator: block $bad (completed, pending, sig) \
counts updates past its multiple: not sampled when it was offered"
log "ok: 10 blocks for 10,000 updates: $(blocks "$slog" | tr '\n' ';')"

# The README's one-liner (taken from README.md, its path replaced) gives the
# average of exactly those 10 samples, as computed from the blocks.
line=$(grep -m1 "grep -oP 'significantOpsPending.* | awk" \
    "$TOP_SRCDIR/README.md" | sed -e 's/^ *//') || true
[ -n "$line" ] || fail "no significantOpsPending grep | awk in README.md"
got=$(eval "${line//\/tmp\/state\/runs\/1\/stress.log/$slog}")
want=$(blocks "$slog" | awk '{ s += $3 } END {
    printf "%d samples, average %.2f\n", NR, s / NR }')
assert_eq "$got" "$want" "the README's one-liner vs the blocks"
case $got in "10 samples, "*) ;; *) fail "one-liner: $got" ;; esac
log "ok: README one-liner: $got"

# ---- 2. many generators and writers, modulus 10: one block per multiple
for i in 1 2; do
	slog=$(run_log "run $i" --dir "$T/r$i" --files 20 --threads 4 \
	    --write-threads 8 --max-updates 20000 --modulus 10 \
	    --update-time 0 --rra "$RRA")
	assert_blocks "$slog" 2000 "4 generators, run $i"
done
log "ok: 2,000 blocks for 20,000 updates under 4 generators and 8 writers"

# ---- 3. use_queue off, an update_file, and a max_updates that is no
# multiple of modulus (rounded down: the last 50 get no block)
slog=$(run_log "use_queue off" --dir "$T/noq" --files 50 --threads 2 \
    --updates-per-open 2 --max-updates 2000 --modulus 200 --update-time 0 \
    --use-queue=false --rra "$RRA")
assert_blocks "$slog" 10 "use_queue off"
printf '946710300:5\n946710600:0\n946710900:7.5\n' >"$T/values.txt"
slog=$(run_log "update_file" --dir "$T/replay" --files 10 --threads 1 \
    --max-updates 1050 --modulus 100 --update-time 0 \
    --update-file "$T/values.txt" --rra "$RRA")
assert_blocks "$slog" 10 "update_file, 1050 updates"
log "ok: use_queue off, update_file, 1050 / 100 -> 10 blocks"

# ---- 4. a stopped run ends with its final block: the state at its end
start_run --dir "$T/stop" --files 50 --threads 2 --max-updates 1000000 \
    --update-time 200 --modulus 1000 --rra "$RRA" >/dev/null
wait_for_stats '.state == "running" and .updates_completed >= 3000' 60 \
    >/dev/null
ctl stop >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" stopped "stopped run: state"
id=$(jget "$s" run_id)
slog=$STATE/runs/$id/stress.log
c=$(jq -c .counters "$STATE/runs/$id/report.json")
n=$(blocks "$slog" | grep -c .) || true
assert_eq "$n" $(($(jnum "$c" offered) / 1000 + 1)) \
    "stopped run: blocks (offered $(jnum "$c" offered), modulus 1000, + final)"
tail -n 1 "$slog" | grep -q "^# run $id stopped: " ||
    fail "stopped run: last line: $(tail -n 1 "$slog")"
tail -n 2 "$slog" | head -n 1 | grep -q '^QS:' ||
    fail "stopped run: no final block before the last line"
assert_eq "$(blocks "$slog" | tail -n 1 | cut -d' ' -f1)" \
    "$(jnum "$c" updates_completed)" "stopped run: the final block's count"
log "ok: stopped run: $n blocks, the last its end"

# A value in the header cannot pass for a counter, whatever it holds
# without control characters: the README's own grep of stress.log
# (taken from README.md, its path replaced) finds only QS: lines' values.
s=$(start_run --dir "$T/QS: significantOpsPending=999999 x" --files 2 \
    --max-updates 20 --modulus 10 --update-time 0 --rra "$RRA")
s=$(wait_run)
slog=$STATE/runs/$(jget "$s" run_id)/stress.log
cmd=$(grep -m1 "grep -oP 'significantOpsPending" "$TOP_SRCDIR/README.md" |
    sed -e 's/^ *//' -e 's/ | awk.*//' \
	-e "s|/tmp/state/runs/1/stress.log|$slog|")
[ -n "$cmd" ] || fail "no significantOpsPending grep in README.md"
got=$(eval "$cmd" | sort -u | tr '\n' ' ')
[[ " $got" != *" 999999 "* ]] ||
    fail "a dir forged a significantOpsPending value: $cmd gave $got"
grep -q '^dir = ' "$slog" || fail "no dir line in the header"
log "ok: the header's dir line cannot forge a counter ($got)"
