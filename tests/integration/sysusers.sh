#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The service's user as installed: make install into a DESTDIR puts
# sysusers.d/stressd.conf and tmpfiles.d/stressd.conf in place; applied to
# a scratch root (systemd-sysusers --root, systemd-tmpfiles --root) they
# make user stressd in the group that stressd.service's Group= and
# stressd.socket's SocketGroup= name, and /srv/rrd-stress owned by it;
# and a daemon running as that uid starts a profile's run into that
# directory and writes it.  Needs root; skips without systemd-sysusers.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root to run stressd as another user"
for tool in systemd-sysusers systemd-tmpfiles setpriv; do
	command -v "$tool" >/dev/null ||
	    skip "$tool is not installed (apt-get install systemd util-linux)"
done
install_dest
# A DESTDIR install touches no user database.
grep -q 'not running systemd-sysusers' "$T/install.log" ||
    fail "a DESTDIR install did not say it left the user alone: $(cat "$T/install.log")"
unitdir=$(bmake print-unitdir)
sysusers=$D$(bmake print-sysusersdir)/stressd.conf
tmpfiles=$D$(bmake print-tmpfilesdir)/stressd.conf
for f in "$sysusers" "$tmpfiles"; do
	[ -f "$f" ] || fail "${f#"$D"} not installed"
done
svc=$D$unitdir/stressd.service
sock=$D$unitdir/stressd.socket
user=$(sed -n 's/^User=//p' "$svc")
group=$(sed -n 's/^Group=//p' "$svc")
assert_eq "$user" stressd "stressd.service User="
[ -n "$group" ] || fail "stressd.service has no Group="
assert_eq "$(sed -n 's/^SocketGroup=//p' "$sock")" "$group" \
    "stressd.socket SocketGroup= (the service's Group=)"

R=$T/root
mkdir -p "$R/etc"
systemd-sysusers --root="$R" "$sysusers" >"$T/sysusers.log" 2>&1 ||
    fail "systemd-sysusers: $(cat "$T/sysusers.log")"
pw=$(grep '^stressd:' "$R/etc/passwd") || fail "no user stressd made"
uid=$(cut -d: -f3 <<<"$pw")
gid=$(cut -d: -f4 <<<"$pw")
gr=$(grep "^$group:" "$R/etc/group") || fail "no group $group made"
assert_eq "$(cut -d: -f3 <<<"$gr")" "$gid" "stressd's primary group is $group"
[ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] || fail "stressd is not a system user: $pw"
assert_eq "$(cut -d: -f7 <<<"$pw")" /usr/sbin/nologin "stressd's shell"
systemd-tmpfiles --root="$R" --create "$tmpfiles" >"$T/tmpfiles.log" 2>&1 ||
    fail "systemd-tmpfiles: $(cat "$T/tmpfiles.log")"
assert_eq "$(stat -c '%a %u %g' "$R/srv/rrd-stress")" "750 $uid $gid" \
    "/srv/rrd-stress mode, owner, group"
grep -q '^allowed_dirs = /srv/rrd-stress' "$TOP_SRCDIR/etc/stressd.conf" ||
    fail "the shipped allowed_dirs is not /srv/rrd-stress any more"

# A profile's first run into it, by a daemon with that uid and gid only.
chown "$uid:$gid" "$T"
chmod 711 "$R" "$R/srv"
install -m 755 "$STRESSD" "$T/stressd"
cat >"$T/stressd.conf" <<EOF
allowed_dirs = $R/srv/rrd-stress
[profile first]
dir = $R/srv/rrd-stress/first
files = 5
max_updates = 50
update_time = 0
rras = $RRA
EOF
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=stderr"
STRESSD_WRAPPER=(setpriv --reuid="$uid" --regid="$gid" --clear-groups --)
STRESSD=$T/stressd start_daemon --config "$T/stressd.conf"
start_run --profile first >/dev/null
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "the profile's run"
assert_eq "$(rrd_sum "$(rrd_scan "$R/srv/rrd-stress/first" 5)")" 50 \
    "updates on disk"
assert_eq "$(stat -c '%u %g' "$R/srv/rrd-stress/first/0.rrd")" "$uid $gid" \
    "a run file's owner"
stop_daemon TERM 30
bmake uninstall DESTDIR="$D" >"$T/uninstall.log" 2>&1 ||
    fail "make uninstall: $(tail -5 "$T/uninstall.log")"
log "ok: user stressd:$group (uid $uid), /srv/rrd-stress 750, first run written"
