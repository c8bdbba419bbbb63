#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The logrotate snippet that `make install` puts in place, run by the real
# logrotate(8) against a running run: its paths and size swapped for the
# test's (state directory, 1 byte) and its postrotate's reload for a
# SIGHUP to this daemon, everything else as installed.  The rotated file
# plus the new one hold every block of the run.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

command -v logrotate >/dev/null || fail "logrotate(8) is not installed"
snippet=$TOP_SRCDIR/etc/logrotate.d/stressd
[ -f "$snippet" ] || fail "no $snippet"
grep -q '^/var/lib/stressd/runs/\*/stress.log {$' "$snippet" &&
    grep -q 'systemctl reload stressd.service' "$snippet" ||
    fail "the snippet no longer names the runs' logs or the reload"
sed -e "s|^/var/lib/stressd/runs/|$STATE/runs/|" \
    -e 's|^\([[:space:]]*size\) .*|\1 1|' \
    -e "s|systemctl reload stressd.service|kill -HUP $DPID|" \
    "$snippet" >"$T/logrotate.conf"

slog=$(rotation_run)
logrotate -s "$T/logrotate.state" "$T/logrotate.conf" 2>"$T/logrotate.err" ||
    fail "logrotate failed: $(cat "$T/logrotate.err")"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "rotated run: state"
# delaycompress: the first rotation leaves stress.log.1 uncompressed.
[ -f "$slog.1" ] || fail "logrotate did not rotate: $(ls "$(dirname "$slog")")"
[ -f "$slog" ] || fail "no new stress.log after logrotate's postrotate"
old=$(grep -c ' samples stored, ' "$slog.1" || true)
new=$(grep -c ' samples stored, ' "$slog" || true)
[ "$old" -gt 0 ] && [ "$new" -gt 0 ] ||
    fail "rotation not mid-run: $old blocks in the old file, $new in the new"
assert_eq $((old + new)) 20 "blocks in old + new"
grep -q "SIGHUP: reopened $slog" "$DLOG" || fail "no log line for the reopen"
log "ok: logrotate rotated mid-run, $old blocks before, $new after, 20 in all"
