#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The confinement line of the log says how a run's files are reached and,
# when it is the O_NOFOLLOW walk, the true reason.  Under a seccomp filter
# that fails every openat2 with ENOSYS (what systemd's RestrictSUIDSGID=yes
# installs, so stressd.service always walks), on a kernel that has
# openat2, the line names the filter and RestrictSUIDSGID, never "the
# kernel has no openat2"; with EPERM (a SystemCallFilter= without it) the
# same with EPERM; with no filter, openat2 itself.  Each run completes with
# its files beneath the allowed dir.  Needs a C compiler.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

command -v cc >/dev/null || skip "no C compiler for the seccomp helper"
build_tool noopenat2
rc=0
"$T/noopenat2" ENOSYS true || rc=$?
[ "$rc" -ne 3 ] || skip "noopenat2 does not know this architecture"
[ "$rc" -eq 0 ] || fail "noopenat2 cannot install its filter (exit $rc)"
release=$(uname -r)
IFS=. read -r kmaj kmin _ <<<"$release"
[ "$kmaj" -gt 5 ] || { [ "$kmaj" -eq 5 ] && [ "$kmin" -ge 6 ]; } ||
    skip "Linux $release has no openat2: nothing to tell apart"
seccomp=$(awk '/^Seccomp:/ { print $2 }' /proc/self/status)

mkdir -p "$T/allowed"
printf 'allowed_dirs = %s\n' "$T/allowed" >"$T/stressd.conf"

# line ERRNO|none: a daemon (under the filter failing openat2 with ERRNO,
# or none), one run in the allowed dir; its confinement line in $L.
line() {
	local n
	: >"$DLOG"
	rm -f "$SOCK"
	if [ "$1" = none ]; then
		STRESSD_WRAPPER=()
	else
		STRESSD_WRAPPER=("$T/noopenat2" "$1")
	fi
	start_daemon --config "$T/stressd.conf"
	start_run --dir "$T/allowed/$1" --files 10 --files-per-dir 4 \
	    --max-updates 100 --update-time 0 --rra "$RRA" >/dev/null
	n=$(jnum "$(wait_run)" updates_completed)
	assert_eq "$n" 100 "$1: updates completed"
	[ "$(find "$T/allowed/$1" -name '*.rrd' -type f | wc -l)" -eq 10 ] ||
	    fail "$1: not 10 files in $T/allowed/$1"
	stop_daemon TERM 20
	L=$(grep -m 1 'held open; its files are reached beneath it' "$DLOG") ||
	    fail "$1: no confinement line in the log"
}

for e in ENOSYS EPERM; do
	line "$e"
	log "$e: $L"
	assert_contains "$L" "with an O_NOFOLLOW walk (a seccomp filter refuses openat2 with $e on Linux $release, which has it: systemd's RestrictSUIDSGID=yes" \
	    "$e: the log's reason"
	case $L in
	*"has no openat2"*) fail "$e: the log blames the kernel: $L" ;;
	esac
done
if [ "$seccomp" = 0 ]; then
	line none
	log "no filter: $L"
	assert_contains "$L" "with openat2 (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)" \
	    "no filter: the log's way"
else
	log "SKIP part: this test already runs under a seccomp filter"
fi
log "PASS"
