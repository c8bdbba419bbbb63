#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# What README's service section promises of modes, outside systemd: under
# the unit's UMask=0027 every file a run leaves (its RRD files, the
# record's metrics.rrd, report.json, stress.log, samples.csv) is 0640 and
# every directory 0750, readable by the group and by no one else; under
# umask 0022, 0644 and 0755.  librrd 1.7.2 makes its files 0644 whatever
# the umask, so the RRD files are what this catches.  Both with and
# without allowed_dirs (files made in the run's private staging
# directory, or by their path).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

# modes MASK FILEMODE DIRMODE: a daemon under umask MASK, two runs (one in
# an allowed dir, one without allowed_dirs); every file of their dirs and
# records must be FILEMODE, every directory DIRMODE.
modes() {
	local mask=$1 fm=$2 dm=$3 bad
	rm -rf "$STATE" "$T/allowed" "$T/free" "$SOCK"
	mkdir -p "$T/allowed"
	printf 'allowed_dirs = %s\n' "$T/allowed" >"$T/conf.$mask"
	umask "$mask"	# the daemon's (and this shell's)
	start_daemon --config "$T/conf.$mask"
	start_run --dir "$T/allowed/run" --files 20 --files-per-dir 8 \
	    --max-updates 200 --update-time 0 --rra "$RRA" >/dev/null
	wait_run >/dev/null
	stop_daemon TERM 20
	start_daemon
	start_run --dir "$T/free" --files 5 --max-updates 50 --update-time 0 \
	    --rra "$RRA" >/dev/null
	wait_run >/dev/null
	stop_daemon TERM 20
	ls "$STATE"/runs/*/metrics.rrd >/dev/null ||
	    fail "umask $mask: no metrics.rrd in a record"
	[ "$(find "$T/allowed/run" "$T/free" -name '*.rrd' | wc -l)" -eq 25 ] ||
	    fail "umask $mask: not 25 RRD files"
	bad=$(find "$T/allowed/run" "$T/free" "$STATE/runs" \
	    \( \( -type f ! -perm "$fm" \) -o \( -type d ! -perm "$dm" \) \) \
	    -printf '%m %p\n' | head -n 8)
	[ -z "$bad" ] || fail "umask $mask: not $fm (files) or $dm (dirs): $bad"
	log "umask $mask: RRD files, metrics.rrd and records $fm, dirs $dm"
}

modes 0027 640 750
modes 0022 644 755
log "PASS"
