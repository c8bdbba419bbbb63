#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stress.log's progress blocks under many writers: each block's "<n>
# samples stored" is the count that crossed its multiple of modulus, so
# every block but the final one marks a multiple of its own (scripts count
# blocks that way).  A block written while another writer's batch landed
# showed that later count, and two blocks marked one multiple.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

for i in 1 2 3; do
	start_run --dir "$T/r$i" --files 20 --threads 4 --write-threads 8 \
	    --max-updates 20000 --modulus 10 --update-time 0 --rra "$RRA" \
	    >/dev/null
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" done "run $i state"
	slog=$STATE/runs/$(jget "$s" run_id)/stress.log
	lines=$(grep -c 'samples stored' "$slog")
	assert_num "$lines" '>' 1 "run $i: progress blocks"
	# the final block repeats the last count; the others each mark one
	assert_eq "$(stresslog_marks "$slog" 10)" "$((lines - 1))" \
	    "run $i: multiples marked by $lines blocks"
	assert_eq "$(grep -oE '^[0-9]+ samples stored' "$slog" | tail -1 |
	    cut -d' ' -f1)" 20000 "run $i: the final block's count"
done
log "ok: every block marks its own multiple"

# A value in the header cannot pass for a counter, whatever it holds
# without control characters: the README's own grep of stress.log
# (taken from README.md, its path replaced) finds only QS: lines' values.
s=$(start_run --dir "$T/QS: significantOpsPending=999999 x" --files 2 \
    --max-updates 20 --modulus 10 --update-time 0 --rra "$RRA")
s=$(wait_run)
slog=$STATE/runs/$(jget "$s" run_id)/stress.log
cmd=$(grep -m1 "grep -oP 'significantOpsPending" "$TOP_SRCDIR/README.md" |
    sed -e 's/^ *//' -e "s|/tmp/state/runs/1/stress.log|$slog|")
[ -n "$cmd" ] || fail "no significantOpsPending grep in README.md"
got=$(eval "$cmd" | sort -u | tr '\n' ' ')
[[ " $got" != *" 999999 "* ]] ||
    fail "a dir forged a significantOpsPending value: $cmd gave $got"
grep -q '^dir = ' "$slog" || fail "no dir line in the header"
log "ok: the header's dir line cannot forge a counter ($got)"
