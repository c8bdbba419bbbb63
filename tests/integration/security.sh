#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# The shipped stressd.service, as make builds it for install: its overall
# exposure under `systemd-analyze security --offline=true` must be at most
# 1.5 (the analyzer's --threshold=15 and the printed figure both checked);
# on failure the findings that cost something are printed.  And it keeps
# the uids of clients apart (no PrivateUsers=).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

MAX_EXPOSURE=1.5
THRESHOLD=15	# the same, in the tenths --threshold takes
command -v systemd-analyze >/dev/null ||
    skip "systemd-analyze is not installed (apt-get install systemd)"
B=$(cd "$(dirname "$STRESSD")/.." && pwd)	# the build directory
unit=$B/systemd/stressd.service
[ -f "$unit" ] || fail "$unit not built (make builds it)"
# The analyzer names the unit after the file: a copy keeps the name and
# leaves the build tree alone.
cp "$unit" "$T/stressd.service"
rc=0
out=$(systemd-analyze security --offline=true --no-pager \
    --threshold="$THRESHOLD" "$T/stressd.service" 2>&1) || rc=$?
exposure=$(grep -oP 'Overall exposure level for stressd\.service: \K[0-9]+\.[0-9]+' \
    <<<"$out") || fail "no overall exposure in: ${out: -600}"
costs=$(grep '✗' <<<"$out" | sed 's/  */ /g') || true
log "overall exposure $exposure (at most $MAX_EXPOSURE)"
assert_num "$exposure" '<=' "$MAX_EXPOSURE" \
    "stressd.service exposure; still open: $costs; exposure"
[ "$rc" -eq 0 ] ||
    fail "systemd-analyze security --threshold exited $rc: ${out: -600}"
# Not PrivateUsers=: in its namespace every uid but root's and stressd's
# reads as 65534, so the per-uid share of control connections (man
# stressd, LIMITS) would be one share for all of them, and one user
# could take it from every other.
! grep -q '^PrivateUsers=yes' "$unit" ||
    fail "stressd.service sets PrivateUsers=: the per-uid share needs real uids"
log "ok: stressd.service exposure $exposure <= $MAX_EXPOSURE"
