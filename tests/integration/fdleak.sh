#!/bin/bash
# shellcheck disable=SC2015,SC2012  # A && B || fail is meant; ls -l shows fd targets
# No descriptor leaks across runs: after a warm-up run, 20 more back to
# back (completed runs on new and on reused files, in subdirectories,
# stop --no-drain, a drained stop, refused starts, clients that leave
# mid-wait, records read, /metrics scraped) must leave the daemon with no
# more entries in /proc/PID/fd than after the warm-up.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

[ -d /proc/self/fd ] || skip "no /proc/PID/fd on this system"
start_daemon --metrics-listen 127.0.0.1:0
port=$(grep -oP 'serving metrics on .*\(port \K[0-9]+' "$DLOG" | tail -n 1)
[ -n "$port" ] || fail "no metrics port in the daemon log"
have_curl=0
command -v curl >/dev/null 2>&1 && have_curl=1

FILES=40
RUNS=20
small=(--files "$FILES" --threads 2 --write-threads 2 --rra "$RRA")

fd_count() { find "/proc/$DPID/fd" -mindepth 1 -maxdepth 1 | wc -l; }
fd_list() { ls -l "/proc/$DPID/fd" | awk 'NR > 1 { print $9, $10, $11 }' |
    sort -n; }

# idle_fds: the count once the daemon is idle and has closed every
# connection (it closes a client's socket when it reads the EOF, which
# may come a moment after the client exited).
idle_fds() {
	local n deadline=$((SECONDS + 5))
	wait_for_stats '.state != "running" and .state != "stopping"' 60 \
	    >/dev/null
	while :; do
		n=$(fd_count)
		[ "$n" -le "${1:-0}" ] || [ "$SECONDS" -ge "$deadline" ] && break
		sleep 0.1
	done
	printf '%s\n' "$n"
}

# done_run LABEL ARGS...: a run that completes all its updates.
done_run() {
	local what=$1 s
	shift
	start_run "$@" >/dev/null
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" 'done' "$what: state"
	check_invariants "$s" "$what"
}

# read_side: read-only commands that open files of the state dir, and a
# scrape of /metrics.
read_side() {
	ctlj runs >/dev/null || fail "runs"
	ctlj report >/dev/null || fail "report"
	ctl status >/dev/null || fail "status"
	if [ "$have_curl" = 1 ]; then
		curl -sf "http://127.0.0.1:$port/metrics" >/dev/null ||
		    fail "GET /metrics"
	fi
}

# ---- warm-up: the first run opens what the daemon keeps for good
done_run "warm-up" --dir "$T/warm" "${small[@]}" --max-updates 1000 \
    --update-time 0
read_side
before=$(idle_fds)
fd_list >"$T/fds.before"
log "after the warm-up run: $before descriptors"

: >"$T/afile"
for ((i = 1; i <= RUNS; i++)); do
	case $((i % 5)) in
	1)	# new files, then the same files again
		done_run "run $i (new files)" --dir "$T/d$i" "${small[@]}" \
		    --max-updates 800 --update-time 0
		;;
	2)	done_run "run $i (reused files)" --dir "$T/d$((i - 1))" \
		    "${small[@]}" --max-updates 800 --update-time 0
		;;
	3)	# a paced run: refused starts while busy, a waiter that is
		# killed, then stop --no-drain
		start_run --dir "$T/d$i" "${small[@]}" --max-updates 100000 \
		    --update-time 60 >/dev/null
		wait_for_stats '.state == "running" and .updates_completed > 0' \
		    60 >/dev/null
		out=$(ctl start --dir "$T/other" --files 5 2>&1) &&
		    fail "run $i: a second start succeeded: $out" || true
		assert_contains "$out" busy "run $i: second start"
		timeout 1 "$STRESSCTL" --socket "$SOCK" wait \
		    >/dev/null 2>&1 && fail "run $i: wait returned early" || true
		s=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj stop --no-drain) ||
		    fail "run $i: stop --no-drain: $s"
		assert_eq "$(jget "$s" state)" stopped "run $i: state"
		check_invariants "$s" "run $i after stop --no-drain"
		;;
	4)	# refused starts (not a directory, another layout), then a
		# run in subdirectories stopped with a drain
		out=$(ctl start --dir "$T/afile" --files 5 2>&1) &&
		    fail "start on a regular file succeeded: $out" || true
		out=$(ctl start --dir "$T/d$((i - 3))" --files "$FILES" \
		    --rra 'RRA:AVERAGE:0.5:1:11' 2>&1) &&
		    fail "start on files of another layout succeeded: $out" ||
		    true
		start_run --dir "$T/d$i" "${small[@]}" --files-per-dir 10 \
		    --max-updates 100000 --update-time 30 >/dev/null
		wait_for_stats '.state == "running" and .updates_completed > 0' \
		    60 >/dev/null
		timeout 1 "$STRESSCTL" --socket "$SOCK" wait \
		    >/dev/null 2>&1 || true
		s=$(CTL_TIMEOUT=$WAIT_TIMEOUT ctlj stop) || fail "run $i: stop: $s"
		check_invariants "$s" "run $i after a drained stop"
		;;
	0)	done_run "run $i (4 writers, no queued creates)" \
		    --dir "$T/d$i" --files "$FILES" --threads 4 \
		    --write-threads 4 --rra "$RRA" --max-updates 2000 \
		    --update-time 0 --no-queue-creates
		;;
	esac
	read_side
done

after=$(idle_fds "$before")
fd_list >"$T/fds.after"
log "after $RUNS more runs: $after descriptors (before: $before)"
if [ "$after" -gt "$before" ]; then
	printf '%s\n' "---- descriptors before (fd -> target)" >&2
	cat "$T/fds.before" >&2
	printf '%s\n' "---- after" >&2
	cat "$T/fds.after" >&2
	printf '%s\n' "---- new" >&2
	diff "$T/fds.before" "$T/fds.after" | grep '^>' >&2 || true
	fail "the daemon holds $((after - before)) more descriptors after $RUNS runs"
fi
log ok
