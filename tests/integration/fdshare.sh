#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Passed descriptors are kept only from clients that may use them, and no
# uid can use up another's (issue 22, point 5).  A client that may not
# start runs has its descriptors closed as they arrive; any other uid but
# root's and the daemon's holds at most 4 at once over all its
# connections, out of a pool of 32, and a uid that holds none always gets
# one.  The floods hold their descriptors with an unfinished line; a
# group member's `start --update-file` must still get its descriptor
# (it failed "bad_argument: update_fd is set, but no descriptor came"
# once 8 read-only connections held 4 each).  Needs root (to be other
# uids); skips otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

other_user_setup
build_tool fdclient
T=$(realpath "$T")
A=$T/allowed
cat >"$T/stressd.conf" <<EOF
socket_group = users
socket_mode = 0666
allowed_dirs = $A
EOF
start_daemon --config "$T/stressd.conf"
LEGIT=4400			# a member of group users
READ_ONLY=4420			# in no group of the socket's
MEMBERS=$(seq 4401 4417)	# members of group users, flooding

# held FILE: how many of the daemon's descriptors are FILE.
held() {
	local f n=0
	for f in "/proc/$DPID/fd/"*; do
		[ "$(readlink "$f" 2>/dev/null)" = "$1" ] && n=$((n + 1))
	done
	printf '%s\n' "$n"
}
nfds() { find "/proc/$DPID/fd" -mindepth 1 | wc -l; }
# flood UID GROUPS FILE CONNS: CONNS connections of UID, each passing 4
# descriptors of FILE with an unfinished line and holding them.
flood() {
	local uid=$1 groups=$2 file=$3 k
	for k in $(seq "$4"); do
		setpriv --reuid="$uid" --regid="$uid" "$groups" -- \
		    "$T/fdclient" -n 4 -s 600 -u "$SOCK" "$file" \
		    '+{"cmd":"version","id":1' >"$T/flood.$uid.$k" 2>&1 &
		HELPER_PIDS+=("$!")
	done
}
# settled: every flooder has sent, and the daemon has read it (a
# request answered after theirs were sent comes after their reads).
settled() {
	local f deadline=$((SECONDS + 30))
	for f in "$T"/flood.*; do
		until grep -q held "$f"; do
			[ "$SECONDS" -lt "$deadline" ] ||
			    fail "a flooder did not send: $f: $(cat "$f")"
			sleep 0.1
		done
	done
	ctl version >/dev/null && ctl version >/dev/null
}
unflood() {
	local pid
	for pid in "${HELPER_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		{ wait "$pid"; } 2>/dev/null || true
	done
	HELPER_PIDS=()
	rm -f "$T"/flood.*
}
# legit_start WHAT DIR: the member's start with its own update file.
legit_start() {
	local rc=0 out s
	out=$(setpriv --reuid=$LEGIT --regid=$LEGIT --groups=users -- \
	    "$T/stressctl" --socket "$SOCK" --json start --dir "$2" \
	    --files 4 --zero-files 0 --threads 1 --max-updates 12 \
	    --update-time 0 --update-file "$T/mine.txt" --rra "$RRA" 2>&1) ||
	    rc=$?
	assert_eq "$rc" 0 "$1: the member's start --update-file ($out)"
	s=$(wait_run)
	assert_eq "$(jget "$s" state)" "done" "$1: the member's run"
	assert_eq "$(rrd_sum "$(rrd_scan "$2" 4)")" 12 "$1: updates on disk"
}
printf '946710300:5\n946710600:0\n946710900:7.5\n' >"$T/mine.txt"
chown $LEGIT:$LEGIT "$T/mine.txt"
chmod 600 "$T/mine.txt"
nfd0=$(nfds)

# ---- read-only clients: their descriptors are closed as they arrive
install -m 644 /dev/null "$T/ro"
flood $READ_ONLY --clear-groups "$T/ro" 8
settled
ro_held=$(held "$T/ro")
log "8 read-only connections passing 4 each: $ro_held kept; the daemon" \
    "holds $(nfds) descriptors ($nfd0 before)"
assert_eq "$ro_held" 0 \
    "descriptors kept from 8 read-only connections passing 4 each"
legit_start "beside 8 read-only connections holding 4 each" "$A/ro"
unflood

# ---- 17 member uids, 2 connections x 4 each: at most 4 a uid, the pool
# of 32 shared out, each uid at least one, and the legit uid's comes
for u in $MEMBERS; do
	install -o "$u" -m 600 /dev/null "$T/f.$u"
	flood "$u" --groups=users "$T/f.$u" 2
done
settled
total=0
for u in $MEMBERS; do
	h=$(held "$T/f.$u")
	assert_num "$h" '<=' 4 "descriptors kept from uid $u (8 passed)"
	assert_num "$h" '>=' 1 "descriptors kept from uid $u, which held none"
	total=$((total + h))
done
log "17 uids passing 8 descriptors each: $total kept; the daemon holds" \
    "$(nfds) descriptors ($nfd0 before)"
assert_num "$total" '>=' 32 "descriptors kept from 17 flooding uids"
assert_num "$total" '<=' $((32 + 17)) "descriptors kept from 17 flooding uids"
legit_start "beside 17 uids filling the pool" "$A/members"
unflood

# ---- nothing is left behind
for _ in $(seq 50); do
	[ "$(nfds)" -le "$nfd0" ] && break
	sleep 0.1
done
assert_eq "$(nfds)" "$nfd0" "the daemon's descriptors once the floods end"
assert_alive "after the floods"
log "PASS"
