#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# stressd.service's SystemCallFilter= lets through every system call a
# real daemon makes: stressd runs unprivileged under strace -f -c through
# start-up, a run with sync=data, stats, report, runs, a /metrics scrape,
# a reload, a drop-caches run (the eviction of its files: fdatasync,
# fadvise64, mincore), a refused drop-host-caches start, a stopped run
# and a SIGTERM exit; each call it made must be in the set the unit's filter lines
# allow, as systemd-analyze syscall-filter expands them.  (No systemd as
# PID 1 is needed: the filter is what would fail a call with EPERM.)
# Needs root, strace and systemd-analyze; skips under the sanitizers,
# whose runtime makes calls of its own.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run stressd as another user"
for tool in strace systemd-analyze setpriv curl; do
	command -v "$tool" >/dev/null || skip "$tool is not installed"
done
! ldd "$STRESSD" | grep -q -E 'libasan|libubsan' ||
    skip "a sanitizer build makes system calls the daemon does not"
getent passwd nobody >/dev/null && getent group nogroup >/dev/null ||
    skip "needs user nobody and group nogroup"
B=$(cd "$(dirname "$STRESSD")/.." && pwd)	# the build directory
unit=$B/systemd/stressd.service
[ -f "$unit" ] || fail "$unit not built (make builds it)"

# expand NAME...: the system calls of each group (nested ones expanded)
# or the name itself.
expand() {
	local n
	for n in "$@"; do
		case $n in
		@*) systemd-analyze syscall-filter "$n" |
			awk '/^    [^#]/ { print $1 }' |
			while read -r m; do expand "$m"; done ;;
		*) printf '%s\n' "$n" ;;
		esac
	done
}
# The unit's filter, line by line as systemd applies them: the first
# line is an allow list, later lines add to it or (~) take from it.
: >"$T/allowed"
while IFS= read -r line; do
	v=${line#SystemCallFilter=}
	# shellcheck disable=SC2086  # the words of the line are meant
	if [ "${v#\~}" != "$v" ]; then
		expand ${v#\~} | sort -u >"$T/deny"
		grep -vxF -f "$T/deny" "$T/allowed" >"$T/allowed.new" || true
		mv "$T/allowed.new" "$T/allowed"
	else
		expand $v >>"$T/allowed"
		sort -u -o "$T/allowed" "$T/allowed"
	fi
done < <(grep '^SystemCallFilter=' "$unit")
[ -s "$T/allowed" ] || fail "no SystemCallFilter= allow list in $unit"

U=$(id -u nobody)
G=$(getent group nogroup | cut -d: -f3)
chown "$U:$G" "$T"
install -m 755 "$STRESSD" "$T/stressd"
A=$T/srv
install -d -o "$U" -g "$G" "$A"
cat >"$T/stressd.conf" <<EOF
allowed_dirs = $A
EOF
# strace as nobody too: it traces its own child, the daemon.
STRESSD_WRAPPER=(setpriv --reuid="$U" --regid="$G" --clear-groups --
    strace -f -c -o "$T/strace.out")
STRESSD=$T/stressd start_metrics_daemon --config "$T/stressd.conf"
tracer=$DPID
DPID=$(pgrep -P "$tracer" -x stressd) || fail "no stressd under strace"

start_run --dir "$A/r1" --files 10 --max-updates 200 --update-time 0.5 \
    --sync data --rra "$RRA" >/dev/null
stats >/dev/null
curl -sf "$URL/metrics" >/dev/null || fail "no /metrics"
wait_run >/dev/null
ctl report 1 >/dev/null
ctl runs >/dev/null
kill -HUP "$DPID"
start_run --dir "$A/r1" --files 10 --max-updates 20 --update-time 0 \
    --sync drop-caches --rra "$RRA" >/dev/null
wait_run >/dev/null
grep -q "run 2: sync drop-caches: wrote back and evicted 10 files" "$DLOG" ||
    fail "run 2 evicted no files: $(grep 'run 2' "$DLOG")"
ctl start --dir "$A/cold" --files 1 --rra "$RRA" --sync drop-host-caches \
    >/dev/null 2>&1 && fail "a drop-host-caches start was accepted"
start_run --dir "$A/r2" --files 10 --max-updates 1000000 --update-time 600 \
    --threads 1 --write-threads 1 --rra "$RRA" >/dev/null
ctl stop >/dev/null
wait_run >/dev/null
# strace exits with the daemon, and with its status.
kill -TERM "$DPID"
wait_pid_exit "$tracer" 30 || fail "stressd still running 30 s after SIGTERM"
DPID=
rc=0
wait "$tracer" || rc=$?
assert_eq "$rc" 0 "exit status"

# strace -c: "% time seconds usecs/call calls errors syscall" rows.
awk '$NF ~ /^[a-z_0-9]+$/ && $NF != "total" && $NF != "syscall" { print $NF }' \
    "$T/strace.out" | sort -u >"$T/used"
[ "$(wc -l <"$T/used")" -gt 20 ] ||
    fail "strace saw too few calls: $(cat "$T/strace.out")"
outside=$(grep -vxF -f "$T/allowed" "$T/used" | tr '\n' ' ') || true
[ -z "$outside" ] ||
    fail "system calls the unit's SystemCallFilter= refuses: $outside"
log "ok: $(wc -l <"$T/used") distinct system calls, all allowed by the unit"
