#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# A run directory on a read-only mount (issue 14, point 4): under
# stressd.service that is what a directory made after the service started,
# or one outside its ReadWritePaths=, looks like (ProtectSystem=strict
# binds the rest read-only, once, at the service's start).  The error of
# `start` says so and that a restart (or a drop-in) is needed, both when
# the run's directory must be made and when it exists; outside a service
# (no INVOCATION_ID) it is plain "Read-only file system".  The allowed
# dir is a tmpfs remounted read-only (no mount namespace: a chroot's / may
# be no mount point, which unshare --propagation refuses).  Needs root
# (for the mount); skips otherwise.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root for a read-only mount"

A=$T/allowed
mkdir -p "$A"
mount -t tmpfs -o size=1m,mode=0755 stressd-test "$A" ||
    skip "cannot mount a tmpfs here"
# Lazily unmounted before lib.sh's cleanup removes $T.
trap 'rc=$?; umount -l "$A" 2>/dev/null; (exit $rc); cleanup' EXIT
mkdir "$A/existing"
mount -o remount,ro "$A"
printf 'allowed_dirs = %s\n' "$A" >"$T/stressd.conf"

# start_err DIR: the error message of a start in DIR (which must fail).
start_err() {
	local out
	out=$(ctlj start --dir "$1" --files 2 --max-updates 4 \
	    --update-time 0 --rra "$RRA" 2>&1) || true
	grep -q 'Read-only file system' <<<"$out" ||
	    fail "start in $1: no 'Read-only file system' in: $out"
	printf '%s\n' "$out"
}

# Under a service manager: the hint.
STRESSD_WRAPPER=(env INVOCATION_ID=0123456789abcdef0123456789abcdef)
start_daemon --config "$T/stressd.conf"
for d in "$A/new" "$A/existing"; do
	out=$(start_err "$d")
	assert_contains "$out" "systemctl restart stressd" "start in $d"
	assert_contains "$out" "ReadWritePaths=" "start in $d"
	log "service: $out"
done
# Nothing was made on the read-only mount.
[ ! -e "$A/new" ] || fail "$A/new was made on a read-only mount"
stop_daemon TERM "$STOP_TIMEOUT"

# Outside one: the bare reason.
STRESSD_WRAPPER=(env -u INVOCATION_ID)
start_daemon --config "$T/stressd.conf"
out=$(start_err "$A/new")
case $out in
*systemctl*|*ReadWritePaths*) fail "hint outside a service: $out" ;;
esac
log "plain: $out"
log "ok"
