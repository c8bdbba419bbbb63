#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The socket's group under stressd.service's PrivateUsers=: the daemon in
# a user namespace that maps only root and its own uid and gid (as
# systemd's does), on a socket passed as stressd.socket passes it.
#  - Socket group = the daemon's group (the shipped unit): a member
#    drives a run, a non-member only reads, root stops.
#  - Socket group outside the namespace (a drop-in's SocketGroup=): every
#    unmapped gid looks alike there (the overflow gid), so no group can
#    be trusted: a client in any other group is denied, root still
#    stops, and the log says why.
# Needs root, unshare and systemd-socket-activate, and no chroot (the
# kernel refuses it a user namespace); skips otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to make a user namespace's maps"
for tool in setpriv unshare systemd-socket-activate; do
	command -v "$tool" >/dev/null ||
	    skip "$tool is not installed (util-linux, systemd)"
done
getent group users >/dev/null || skip "needs group users"
# A chrooted process may make no user namespace (unshare(2): EPERM when
# its root is not its mount namespace's): say so, not a missing uid_map.
if ! err=$(unshare --user true 2>&1); then
	[ "$(stat -Lc %d:%i /)" != "$(stat -Lc %d:%i /proc/1/root 2>/dev/null)" ] &&
	    skip "in a chroot, where the kernel refuses user namespaces: $err"
	fail "cannot make a user namespace: $err"
fi
DU=4300 DG=4300		# the daemon (no passwd entry needed)
MEMBER=4301 OTHER=4302
USERS=$(getent group users | cut -d: -f3)
chmod 711 "$T"
install -m 755 "$STRESSD" "$T/stressd"
install -m 755 "$STRESSCTL" "$T/stressctl"
install -d -o "$DU" -g "$DG" "$T/srv" "$STATE"
mkfifo "$T/go"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
cat >"$T/stressd.conf" <<EOF
allowed_dirs = $T/srv
EOF

# userns_daemon GROUP: stressd on a socket of GROUP, mode 0666, in a user
# namespace whose maps root writes (0 and DU/DG to themselves) while the
# namespace's first process waits on $T/go; one pid from
# systemd-socket-activate to stressd, as LISTEN_PID wants.
userns_daemon() {
	local inner pid deadline
	rm -f "$SOCK"
	inner="read -r _ <$T/go; exec setpriv --reuid=$DU --regid=$DG \
--clear-groups -- $T/stressd --config $T/stressd.conf --state-dir $STATE \
--log-level debug"
	systemd-socket-activate -l "$SOCK" -- sh -c "chgrp $1 $SOCK &&
	    chmod 666 $SOCK && exec unshare --user -- sh -c '$inner'" \
	    >>"$DLOG" 2>&1 &
	DPID=$!
	deadline=$((SECONDS + 10))
	until [ -S "$SOCK" ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "no socket made"
		sleep 0.05
	done
	# It launches on the first connection.
	ctl version >/dev/null 2>&1 &
	until [ "$(readlink "/proc/$DPID/ns/user")" != "$(readlink /proc/self/ns/user)" ]; do
		pid_alive "$DPID" || fail "the namespace's process died"
		[ "$SECONDS" -lt "$deadline" ] || fail "no user namespace made"
		sleep 0.05
	done
	# A map takes one write(2): cat's, not the printf builtin's lines.
	printf '0 0 1\n%s %s 1\n' "$DU" "$DU" >"$T/uid_map"
	printf '0 0 1\n%s %s 1\n' "$DG" "$DG" >"$T/gid_map"
	cat "$T/uid_map" >"/proc/$DPID/uid_map"
	cat "$T/gid_map" >"/proc/$DPID/gid_map"
	echo go >"$T/go"
	deadline=$((SECONDS + READY_TIMEOUT))
	until ctl version >/dev/null 2>&1; do
		pid_alive "$DPID" || fail "stressd exited during startup"
		[ "$SECONDS" -lt "$deadline" ] || fail "stressd did not answer"
		sleep 0.1
	done
}
# as UID GROUPS ARGS...: stressctl as UID with primary group UID.
as() {
	local uid=$1 groups=$2
	shift 2
	timeout -k 5 "$CTL_TIMEOUT" setpriv --reuid="$uid" --regid="$uid" \
	    --groups="$groups" -- "$T/stressctl" --socket "$SOCK" "$@"
}
short_run() {
	as "$1" "$2" --json start --dir "$T/srv/$3" --files 3 \
	    --max-updates 30 --update-time 0 --rra "$RRA" 2>&1
}

# ---- the shipped unit's case: the socket's group is the daemon's own
userns_daemon "$DG"
grep -q "uid $DU and members of group $DG may start and stop" "$DLOG" ||
    fail "the daemon did not take group $DG as the socket's: $(cat "$DLOG")"
out=$(short_run "$MEMBER" "$DG" member) ||
    fail "a member of the socket's group could not start: $out"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "the member's run"
assert_eq "$(rrd_sum "$(rrd_scan "$T/srv/member" 3)")" 30 "the member's updates"
rc=0
out=$(short_run "$OTHER" "$USERS" other) || rc=$?
assert_eq "$rc" 1 "start by a non-member: exit status"
assert_contains "$out" "neither root nor a member" "start by a non-member"
as "$OTHER" "$USERS" status >/dev/null || fail "a non-member cannot read"
stop_daemon TERM 30

# ---- a socket group the namespace does not map
: >"$DLOG"
userns_daemon users
grep -q "is not mapped in stressd's user namespace" "$DLOG" ||
    fail "no warning about the unmapped socket group: $(cat "$DLOG")"
rc=0
out=$(short_run "$OTHER" "$OTHER" stranger) || rc=$?
assert_eq "$rc" 1 "start by a stranger: exit status"
[ ! -e "$T/srv/stranger" ] || fail "a stranger's run was started"
rc=0
out=$(short_run "$OTHER" "$USERS" other) || rc=$?
assert_eq "$rc" 1 "start by a member of an unmapped group: exit status"
assert_contains "$out" "neither root nor" "start by a member of an unmapped group"
# Root is mapped: it still drives the daemon.
ctl --json start --dir "$T/srv/root" --files 3 --max-updates 30 \
    --update-time 0 --rra "$RRA" >/dev/null || fail "root could not start"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "root's run"
stop_daemon TERM 30
log "ok: socket group under a private user namespace"
