#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressd as an unprivileged user, as stressd.service runs it: the daemon
# under setpriv as nobody:nogroup with no supplementary groups and no
# capabilities, its state directory and run directory owned by nobody.
# It makes its socket with the configured group (its own) and mode; a
# member of that group drives a short real run whose files rrdtool reads
# back and whose record (report, stress.log) is whole; root can always
# stop it; `--sync drop-host-caches` is refused with a clear reason; and a
# socket_group the daemon is not in stops it at start with a message that
# says why.  Needs root (to become nobody); skips otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run stressd as another user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not found"
getent passwd nobody >/dev/null && getent group nogroup >/dev/null &&
    getent group users >/dev/null ||
    skip "needs user nobody and groups nogroup, users"
U=$(id -u nobody)
G=$(getent group nogroup | cut -d: -f3)
MEMBER=4242		# a uid with no passwd entry, in the socket's group

# The daemon's own directory; the binaries copied where nobody can run
# them (the build tree may sit under a private home directory).
chown "$U:$G" "$T"
chmod 711 "$T"	# the member reaches the socket
install -m 755 "$STRESSD" "$T/stressd"
install -m 755 "$STRESSCTL" "$T/stressctl"
A=$T/srv
install -d -o "$U" -g "$G" -m 755 "$A"
# Sanitizer builds: the reports go to stderr, which is the log.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
STRESSD_WRAPPER=(setpriv --reuid="$U" --regid="$G" --clear-groups
    --inh-caps=-all --bounding-set=-all --)
conf() {
	cat >"$T/stressd.conf" <<EOF
socket_group = $1
socket_mode = 0660
allowed_dirs = $A
EOF
}
# member ARGS...: stressctl as a uid that is only in the socket's group.
member() {
	timeout -k 5 "$CTL_TIMEOUT" setpriv --reuid="$MEMBER" --regid="$MEMBER" \
	    --groups="$G" -- "$T/stressctl" --socket "$SOCK" "$@"
}

# ---- nobody's daemon, socket in its own group
conf nogroup
STRESSD=$T/stressd start_daemon --config "$T/stressd.conf"
assert_eq "$(stat -c '%u' "/proc/$DPID")" "$U" "the daemon's uid"
grep -q '^CapEff:[[:space:]]*0*$' "/proc/$DPID/status" ||
    fail "the daemon has capabilities: $(grep Cap "/proc/$DPID/status")"
assert_eq "$(stat -c '%a %u %g' "$SOCK")" "660 $U $G" "socket mode, owner, group"
ctl status >/dev/null || fail "root cannot talk to nobody's daemon"

# A member of the group drives a short real run.
out=$(member --json start --dir "$A/run" --files 5 --max-updates 50 \
    --update-time 0 --rra "$RRA" 2>&1) ||
    fail "a member of the socket's group could not start: $out"
assert_eq "$(jget "$out" run_id)" 1 "the member's run id"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "the run's state"
assert_eq "$(jnum "$s" updates_failed)" 0 "updates_failed"
check_invariants "$s" "nobody's run"
assert_eq "$(rrd_sum "$(rrd_scan "$A/run" 5)")" 50 "updates on disk (rrdtool lastupdate)"
owners=$(find "$A/run" "$STATE" -newer "$T/stressd.conf" ! -user "$U" -print)
[ -z "$owners" ] || fail "files not owned by nobody: $owners"
# Its record: the report and stress.log.
rep=$(member --json report 1 2>&1) || fail "report 1: $rep"
assert_eq "$(jnum "$rep" counters.updates_completed)" 50 "report: updates_completed"
jq -e . "$STATE/runs/1/report.json" >/dev/null ||
    fail "report.json is not JSON"
grep -q '^# run 1 ' "$STATE/runs/1/stress.log" ||
    fail "stress.log has no run header: $(head -3 "$STATE/runs/1/stress.log")"

# The host-wide drop needs root: refused, saying so and what does not.
rc=0
out=$(member start --dir "$A/cold" --files 2 --rra "$RRA" \
    --sync drop-host-caches 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "--sync drop-host-caches started under an unprivileged daemon"
assert_contains "$out" "sync drop-host-caches needs root (stressd runs as uid $U)" \
    "the drop-host-caches refusal"
assert_contains "$out" "sync drop-caches evicts the run's own files without root" \
    "the drop-host-caches refusal: the alternative"

# Root may always stop a run.
member start --dir "$A/long" --files 5 --max-updates 1000000 \
    --update-time 600 --threads 1 --write-threads 1 --rra "$RRA" >/dev/null
ctl stop --no-drain >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" stopped "the run root stopped"
stop_daemon TERM 30
assert_eq "$DAEMON_RC" 0 "exit status"
[ ! -e "$SOCK" ] || fail "the socket file was left behind"

# ---- a socket_group the daemon is not in: no socket, and a reason
conf users
: >"$DLOG"
STRESSD_WRAPPER+=("$T/stressd")
rc=0
timeout 20 "${STRESSD_WRAPPER[@]}" --socket "$SOCK" --state-dir "$STATE" \
    --config "$T/stressd.conf" >>"$DLOG" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] ||
    fail "a daemon not in socket_group's group did not refuse to start (rc $rc)"
grep -q "socket_group users: stressd runs as uid $U, which is not in that group" \
    "$DLOG" || fail "no clear reason for the refused socket_group: $(cat "$DLOG")"
[ ! -e "$SOCK" ] || fail "a socket was left for the wrong group"
log "ok: unprivileged daemon runs, records, refuses drop-host-caches and a foreign group"
