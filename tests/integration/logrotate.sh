#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Rotating a running run's stress.log loses no line: rename it mid-run,
# SIGHUP the daemon (logrotate's postrotate), and the renamed file plus
# the new one hold exactly the blocks of the run (max_updates / modulus,
# four QS: lines each), the header in the old, the end line in the new.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"

slog=$(rotation_run)
mv "$slog" "$slog.1"
kill -HUP "$DPID"
s=$(wait_run)
assert_eq "$(jget "$s" state)" done "rotated run: state"
[ -f "$slog" ] || fail "no new stress.log after SIGHUP"
old=$(grep -c ' samples stored, ' "$slog.1" || true)
new=$(grep -c ' samples stored, ' "$slog" || true)
[ "$old" -gt 0 ] && [ "$new" -gt 0 ] ||
    fail "rotation not mid-run: $old blocks in the old file, $new in the new"
assert_eq $((old + new)) 20 "blocks in old + new"
assert_eq "$(cat "$slog.1" "$slog" | grep -c '^QS:')" 80 "QS: lines in old + new"
cat "$slog.1" "$slog" | awk '/ samples stored, / { n++ }
    /^QS:/ { q++ } /^QS:\ttotalOp/ && q % 4 != 1 { exit 1 }
    END { exit n * 4 != q }' || fail "a block split or torn across the files"
head -n 1 "$slog.1" | grep -q '^# stressd run ' || fail "old file lost its header"
tail -n 1 "$slog" | grep -q '^# run [0-9]* done$' ||
    fail "new file does not end with the run's end line: $(tail -n 1 "$slog")"
grep -q "SIGHUP: reopened $slog" "$DLOG" || fail "no log line for the reopen"
log "ok: $old blocks before the rotation, $new after, 20 in all"
