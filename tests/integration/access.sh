#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Access control: the socket is created with the configured mode and group
# (never more open in between); a client whose SO_PEERCRED uid is neither
# root nor a member of the socket's group may read (stats, status, help,
# version, runs, report) but gets `denied` for start and stop; a member
# may drive runs.  Needs root (to be another user); skips otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

other_user_setup
# as_user GROUPS ARGS...: stressctl as nobody, with supplementary GROUPS
# ("" for none); prints output, returns its exit status.
as_user() {
	local groups=$1
	shift
	if [ -n "$groups" ]; then
		setpriv --reuid=nobody --regid=nogroup --groups="$groups" \
		    -- "$T/stressctl" --socket "$SOCK" "$@"
	else
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
		    -- "$T/stressctl" --socket "$SOCK" "$@"
	fi
}
conf() {
	cat >"$T/stressd.conf" <<EOF
socket_group = users
socket_mode = $1
allowed_dirs = $A
EOF
}

# ---- 0660, group users: the file as configured; outsiders cannot connect
conf 0660
start_daemon --config "$T/stressd.conf"
assert_eq "$(stat -c '%a %U %G' "$SOCK")" "660 root users" "socket mode, owner, group"
grep -q 'members of group users may start and stop runs' "$DLOG" ||
    fail "the log does not say who may change state"
rc=0
as_user "" status >"$T/out" 2>&1 || rc=$?
assert_eq "$rc" 3 "stressctl status by a non-member on a 0660 socket: exit status"
grep -qi 'permission denied' "$T/out" ||
    fail "a refused connect does not say why: $(cat "$T/out")"
# A member of the group drives a run.
as_user users --json start --dir "$A/m" --files 10 --max-updates 100 \
    --update-time 0 --rra "$RRA" >"$T/out" 2>&1 ||
    fail "a member of group users could not start a run: $(cat "$T/out")"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "the member's run"
assert_eq "$(rrd_sum "$(rrd_scan "$A/m" 10)")" 100 "the member's run: updates on disk"
stop_daemon TERM 30

# ---- 0666: anyone connects; outsiders only read
conf 0666
start_daemon --config "$T/stressd.conf"
assert_eq "$(stat -c '%a %G' "$SOCK")" "666 users" "socket mode and group"
# Paced, so that it is still running when root stops it.
start_run --dir "$A/r" --files 20 --max-updates 1000000 --update-time 600 \
    --threads 1 --write-threads 1 --rra "$RRA" >/dev/null
for cmd in stats status help version runs report; do
	as_user "" --json "$cmd" >"$T/out" 2>&1 ||
	    fail "read-only '$cmd' by an outsider failed: $(cat "$T/out")"
	is_json "$(cat "$T/out")" || fail "'$cmd' by an outsider: not JSON: $(cat "$T/out")"
done
for cmd in "start --dir $A/x --files 1 --rra $RRA" "stop --no-drain"; do
	rc=0
	# shellcheck disable=SC2086  # the words of cmd are meant
	as_user "" $cmd >"$T/out" 2>&1 || rc=$?
	assert_eq "$rc" 1 "'${cmd%% *}' by an outsider: exit status"
	grep -q "neither root nor a member of the control socket's group 'users'" "$T/out" ||
	    fail "'${cmd%% *}' by an outsider: no clear denial: $(cat "$T/out")"
done
# The raw reply carries the code and field.
r=$(printf '{"cmd":"stop","args":{"drain":false},"id":7}\n' |
    setpriv --reuid=nobody --regid=nogroup --clear-groups \
    socat -t 5 - "UNIX-CONNECT:$SOCK")
assert_eq "$(jget "$r" error.code)" denied "raw stop by an outsider: code"
assert_eq "$(jget "$r" id)" 7 "raw stop by an outsider: id echoed"
grep -qE '(start|stop) from uid 65534 pid [0-9]* denied' "$DLOG" ||
    fail "the denial is not logged with uid and pid"
# A read-only client pipelining refused starts cannot fill the disk: one
# line per 10 s at most, with the count of the rest (it was one line a
# request, ~13 MB/s).
before=$(grep -c 'denied' "$DLOG" || true)
for _ in $(seq 2000); do
	printf '{"cmd":"start","args":{"dir":"%s/y"}}\n' "$A"
done | setpriv --reuid=nobody --regid=nogroup --clear-groups \
    socat -t 10 - "UNIX-CONNECT:$SOCK" >"$T/flood.out"
assert_eq "$(grep -c '"denied"' "$T/flood.out" || true)" 2000 \
    "2000 pipelined starts by an outsider: each answered denied"
after=$(grep -c 'denied' "$DLOG" || true)
assert_num "$((after - before))" '<=' 1 "log lines for 2000 denied starts"
[ ! -e "$A/x" ] || fail "a denied start created its directory"
# The run went on untouched, and root still drives it.
s=$(ctlj stats)
assert_eq "$(jget "$s" state)" running "run state after denied stop"
ctl stop --no-drain >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" stopped "run stopped by root"
check_invariants "$s" "after denied commands"
assert_alive "after denied commands"
log "PASS"
