#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The daemon never reads an update_file its client could not read (issue
# 13, hole 1).  stressctl opens --update-file with the user's own rights
# and passes the descriptor (SCM_RIGHTS, "update_fd": true); a bare path
# from a client that is neither root nor the daemon's user is refused
# without a look at it, so the reply is the same whether the file exists
# or not and never quotes it; profiles of stressd.conf (root's) may name
# one.  The daemon runs as root, the client as nobody in group users.
# Needs root (to be another user); skips otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

other_user_setup
# A root-only file whose first line does not parse, in a root-only dir.
P=$T/private
mkdir -m 700 "$P"
SECRET="root-secret-$$-$RANDOM"
printf '%s\n946710300:1\n' "$SECRET" >"$P/secret"
chmod 600 "$P/secret"
printf '946710300:5\n946710600:0\n946710900:7.5\n' >"$P/values"
chmod 600 "$P/values"
cat >"$T/stressd.conf" <<EOF
socket_group = users
socket_mode = 0660
allowed_dirs = $A

[profile replay]
dir = $A/profile
update_file = $P/values

[profile secret]
dir = $A/profsecret
update_file = $P/secret
EOF
start_daemon --config "$T/stressd.conf"

# as_user ARGS...: stressctl as nobody in group users.
as_user() {
	setpriv --reuid=nobody --regid=nogroup --groups=users \
	    -- "$T/stressctl" --socket "$SOCK" "$@"
}
# raw_as_user LINE: one raw request as nobody in group users; its reply.
raw_as_user() {
	printf '%s\n' "$1" | setpriv --reuid=nobody --regid=nogroup \
	    --groups=users socat -t 10 - "UNIX-CONNECT:$SOCK"
}
start_req() {
	printf '{"cmd":"start","args":{"dir":"%s","files":2,"max_updates":4,"update_time":0,"rras":["%s"],"update_file":"%s"},"id":1}' \
	    "$1" "$RRA" "$2"
}
# no_secret WHAT TEXT: TEXT does not hold the secret.
no_secret() {
	case $2 in *"$SECRET"*) fail "$1 shows the root-only file: $2" ;; esac
}
# replayed WHAT DIR: 10 files of 4 updates each, values 5 0 7.5 5.
replayed() {
	local scan bad f
	scan=$(rrd_scan "$2" 10)
	assert_eq "$(rrd_sum "$scan")" 40 "$1: updates on disk"
	bad=$(awk '$2 != 4 || $3 + 0 != 5 { print; exit }' <<<"$scan")
	[ -z "$bad" ] || fail "$1: expected 4 updates ending in 5: $bad"
	f=$(rrdtool fetch "$2/3.rrd" AVERAGE -s $START_TS \
	    -e $((START_TS + 4 * STEP)) | awk -v end=$((START_TS + 4 * STEP)) '
	    /^ *[0-9]+:/ { ts = $1; sub(":", "", ts)
		if (ts + 0 <= end) printf "%s=%g ", ts, $2 }')
	assert_eq "$f" "946710300=5 946710600=0 946710900=7.5 946711200=5 " \
	    "$1: values fetched from one file"
}

# ---- a bare root-only path from nobody: refused, the same whether it
# exists or not, never quoted; nothing of the run is made
r1=$(raw_as_user "$(start_req "$A/bare" "$P/secret")")
is_json "$r1" || fail "bare path: no reply: $r1"
no_secret "the reply to a bare root-only path" "$r1"
assert_eq "$(jget "$r1" error.code)" bad_argument "bare path: code"
assert_eq "$(jget "$r1" error.field)" update_file "bare path: field"
assert_contains "$(jget "$r1" error.message)" descriptor "bare path: message"
mv "$P/secret" "$P/secret.away"
r2=$(raw_as_user "$(start_req "$A/bare" "$P/secret")")
mv "$P/secret.away" "$P/secret"
assert_eq "$r2" "$r1" "replies for an existing and a missing root-only path"
r3=$(raw_as_user "$(start_req "$A/bare" "$P/values")")
assert_eq "$r3" "$r1" "reply for a root-only path that parses"
[ ! -e "$A/bare" ] || fail "a refused start made its directory"
! grep -q "$SECRET" "$DLOG" || fail "the daemon log shows the secret"

# ---- update_fd without a descriptor
r=$(raw_as_user '{"cmd":"start","args":{"dir":"'"$A"'/nofd","files":1,"update_file":"/x","update_fd":true},"id":2}')
assert_eq "$(jget "$r" error.code)" bad_argument "update_fd without a descriptor: code"
assert_eq "$(jget "$r" error.field)" update_fd "update_fd without a descriptor: field"
r=$(raw_as_user '{"cmd":"start","args":{"dir":"'"$A"'/nofd","files":1,"update_fd":1},"id":3}')
assert_eq "$(jget "$r" error.field)" update_fd "update_fd not a boolean: field"

# ---- stressctl as nobody on the root-only file: its own open fails
rc=0
out=$(as_user start --dir "$A/denied" --files 2 --rra "$RRA" \
    --update-file "$P/secret" 2>&1) || rc=$?
assert_eq "$rc" 1 "stressctl --update-file on a root-only file: exit status ($out)"
no_secret "stressctl's error" "$out"
assert_contains "$out" update_file "stressctl's open error names the field"
assert_contains "$out" "ermission denied" "stressctl's open error says why"
[ ! -e "$A/denied" ] || fail "a start whose file could not be opened made its directory"

# ---- nobody's own file goes as a descriptor: replayed
install -o nobody -g nogroup -m 600 "$P/values" "$T/mine.txt"
as_user --json start --dir "$A/own" --files 10 --zero-files 0 --threads 1 \
    --max-updates 40 --update-time 0 --update-file "$T/mine.txt" \
    --rra "$RRA" >"$T/out" 2>&1 ||
    fail "nobody's start with its own --update-file: $(cat "$T/out")"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "nobody's replay run"
replayed "nobody's replay run" "$A/own"
st=$(ctlj status)
assert_eq "$(jget "$st" run.params.update_file)" "$T/mine.txt" \
    "the run records the update_file's path"
# An error about its own file may quote it: the client could read it.
printf 'own-garbage\n' >"$T/bad.txt"
chown nobody "$T/bad.txt"
rc=0
out=$(as_user start --dir "$A/ownbad" --files 2 --rra "$RRA" \
    --update-file "$T/bad.txt" 2>&1) || rc=$?
assert_eq "$rc" 1 "a bad own update_file: exit status ($out)"
assert_contains "$out" "own-garbage" "a bad own update_file: the line quoted"
assert_contains "$out" update_file "a bad own update_file: the field"

# ---- pipelined: a descriptor goes with its own request line only, and
# one no request takes is closed
build_tool fdclient
fd_req() {
	printf '{"cmd":"start","args":{"dir":"%s","files":10,"zero_files":0,"threads":1,"max_updates":40,"update_time":0,"rras":["%s"],"update_file":"%s","update_fd":true},"id":%d}' \
	    "$1" "$RRA" "$T/mine.txt" "$2"
}
nfd0=$(find "/proc/$DPID/fd" -mindepth 1 | wc -l)
out=$(setpriv --reuid=nobody --regid=nogroup --groups=users \
    "$T/fdclient" "$SOCK" "$T/mine.txt" '+{"cmd":"version","id":1}' \
    "$(fd_req "$A/pipe1" 2)" "+$(fd_req "$A/pipe2" 3)") ||
    fail "fdclient: $out"
assert_eq "$(jget "$(sed -n 1p <<<"$out")" ok)" true "pipelined version with a descriptor"
r=$(sed -n 2p <<<"$out")
assert_eq "$(jget "$r" error.field)" update_fd \
    "a request without a descriptor does not get an earlier line's ($r)"
r=$(sed -n 3p <<<"$out")
assert_eq "$(jget "$r" ok)" true "a pipelined start with its descriptor ($r)"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "the pipelined run"
replayed "the pipelined run" "$A/pipe2"
[ ! -e "$A/pipe1" ] || fail "the start without a descriptor made its directory"
for _ in $(seq 50); do
	nfd=$(find "/proc/$DPID/fd" -mindepth 1 | wc -l)
	[ "$nfd" -le "$nfd0" ] && break
	sleep 0.1
done
assert_eq "$nfd" "$nfd0" "the daemon's descriptors after passed ones"

# ---- a profile's path (stressd.conf is root's): read, never quoted
as_user --json start --profile replay --files 10 --zero-files 0 \
    --threads 1 --max-updates 40 --update-time 0 --rra "$RRA" \
    >"$T/out" 2>&1 || fail "nobody's start of profile replay: $(cat "$T/out")"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "profile replay run"
replayed "profile replay run" "$A/profile"
rc=0
out=$(as_user start --profile secret --files 2 --rra "$RRA" 2>&1) || rc=$?
assert_eq "$rc" 1 "profile with a bad update_file: exit status ($out)"
no_secret "the error about a profile's update_file" "$out"
assert_contains "$out" "line 1" "profile with a bad update_file: the line named"

# ---- root may give a bare path
r=$(printf '%s\n' "$(start_req "$A/root" "$P/values")" |
    socat -t 10 - "UNIX-CONNECT:$SOCK")
assert_eq "$(jget "$r" ok)" true "root's bare path: $r"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "root's bare-path run"

assert_alive "update_file checks"
log "PASS"
