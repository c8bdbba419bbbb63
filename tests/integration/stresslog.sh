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
