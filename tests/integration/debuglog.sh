#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# True log lines.  The access line states the control socket's real mode,
# owner and group (as stat sees them), who can connect and who may start
# runs.  --log-level debug (every test daemon's) logs each run phase, the
# setup's decisions (files reused and to create, layout, sync mode, the
# mount), the writer pool's start and stop and slow librrd calls (rate
# limited), and never anything per update: the log of a 100,000-update
# run stays a few dozen lines.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

FILES=200
A=$T/rrd
mkdir -p "$A"
conf() {
	printf 'socket_mode = %s\nallowed_dirs = %s\n' "$1" "$A" >"$T/stressd.conf"
}

# access_lines MODE: the two access lines of the daemon just started
# match the socket file (mode MODE, octal as stat prints it).
access_lines() {
	local mode owner group ouid who
	read -r mode owner ouid group < <(stat -c '%a %U %u %G' "$SOCK")
	assert_eq "$mode" "$1" "socket mode"
	who=root
	# owner and group as the daemon names them (mode bits 2: may write)
	[ "$ouid" -eq 0 ] || [ $((8#$mode & 8#200)) -eq 0 ] || who="$who, user $owner"
	[ $((8#$mode & 8#020)) -eq 0 ] || who="$who, members of group $group"
	if [ $((8#$mode & 8#002)) -ne 0 ]; then
		who=anyone
	else
		who="$who and no one else"
	fi
	grep -qF "control socket $SOCK: mode 0$mode, owner $owner, group $group; who can connect: $who" \
	    "$DLOG" || fail "mode $mode: no true connect line ($who): $(grep 'control socket' "$DLOG")"
	grep -q "members of group $group may start and stop runs" "$DLOG" ||
	    fail "mode $mode: no line on who may start runs"
	if [ $((8#$mode & 8#002)) -ne 0 ]; then
		grep -q "may start and stop runs; anyone else who connects may only read" \
		    "$DLOG" || fail "mode $mode: read-only clients not stated"
	fi
	! grep -q "others may only read" "$DLOG" ||
	    fail "mode $mode: the old untrue line"
}

# ---- 1. the socket as configured; a run's debug lines
conf 0660
start_daemon --config "$T/stressd.conf"
access_lines 660
start_run --dir "$A/d" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates 100000 --update-time 0 --rra "$RRA" >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run 1"
for re in "run 1: setup done in [0-9.]+ s" \
    "run 1: files: $FILES, 0 reused, $FILES to create \(queued before each file's first update\), 0 refused" \
    "run 1: layout: step=300 " "run 1: sync none" \
    "run 1: phase creating -> running" "run 1: phase running -> draining" \
    "run 1: phase draining -> done" \
    "writer pool: 2 writer threads started" \
    "writer pool: 2 writer threads stopped"; do
	grep -qE "$re" "$DLOG" || fail "no debug line '$re'"
done
# The filesystem found (from the mount table, its device or statfs).
grep -qE "run 1: dir $A/d is on [a-z0-9/]+ \(known from [a-z]+\), seen at " "$DLOG" ||
    fail "no debug line on the mount found: $(grep 'run 1' "$DLOG")"
# Nothing per update, batch or file: 100,000 updates over 200 files.
n=$(wc -l <"$DLOG")
assert_num "$n" '<=' 40 "daemon log lines after a 100,000-update run"
log "run 1: $n log lines"

# ---- 2. the files reused, sync data, creates before the load
start_run --dir "$A/d" --files "$FILES" --threads 2 --write-threads 2 \
    --max-updates 2000 --update-time 0 --rra "$RRA" --sync data \
    --no-queue-creates >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" 'done' "run 2"
for re in "run 2: files: $FILES, $FILES reused, 0 to create" "run 2: sync data" \
    "run 2: phase creating -> running"; do
	grep -qE "$re" "$DLOG" || fail "no debug line '$re'"
done
stop_daemon TERM 30

# ---- 3. a socket anyone may connect to; slow calls, rate limited
build_shim
conf 0666
: >"$DLOG"
# 150 ms a call: every call is slow (over 100 ms)
LD_PRELOAD=$PRELOAD STRESSD_TEST_SLOW_US=150000 \
    start_daemon --config "$T/stressd.conf"
access_lines 666
start_run --dir "$A/slow" --files 20 --threads 1 --write-threads 2 \
    --max-updates 40 --update-time 0 --rra "$RRA" >/dev/null
s=$(wait_run)
calls=$(jnum "$s" update_calls)
n=$(grep -c 'slow rrd_update_r' "$DLOG") || true
# one at once, then at most one every 10 s
assert_num "$n" '>=' 1 "slow call lines"
assert_num "$n" '<=' "1 + $(jnum "$s" elapsed_s) / 10 + 1" \
    "slow call lines ($calls slow calls in $(jnum "$s" elapsed_s) s)"
grep -qE "slow rrd_update_r on $A/slow/[0-9]+\.rrd: [0-9]+ ms" "$DLOG" ||
    fail "the slow call line names no file and time: $(grep slow "$DLOG")"
stop_daemon TERM 30

# ---- 4. owner only
conf 0600
: >"$DLOG"
start_daemon --config "$T/stressd.conf"
access_lines 600
log "PASS"
