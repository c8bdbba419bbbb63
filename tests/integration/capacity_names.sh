#!/bin/bash
# A capacity search's limit_reason names the user's directory, never the
# /proc/self/fd path the daemon reaches it through (issue 22): the second
# directory is a full tmpfs, so its step's probe file cannot be made and
# the reason comes from the look at that directory's filesystem.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"

M=$T/full
mkdir -p "$M"
[ "$(id -u)" -eq 0 ] || skip "needs root for a tmpfs mount"
mount -t tmpfs -o size=256k,mode=0755 stressd-test "$M" 2>/dev/null ||
    skip "cannot mount a tmpfs"
# Lazily, before lib.sh's cleanup removes $T: the daemon may hold it.
umount_full() { umount -l "$M" 2>/dev/null; }
CLEANUP_HOOKS+=(umount_full)
# Fill it: nothing is left for the probe file.
dd if=/dev/zero of="$M/fill" bs=4k 2>/dev/null || true
start_daemon

args="{\"dirs\": [\"$T/ok\", \"$M\"], \"files\": 4,
    \"rras\": \"RRA:AVERAGE:0.5:1:10\", \"start_rate\": 200, \"max_rate\": 200, \"step_min\": 4, \"step_max\": 5, \"settle\": 0.5,
    \"repeats\": 0}"
r=$(rawreq "{\"cmd\": \"capacity\", \"args\": ${args//$'\n'/ }}")
assert_eq "$(jget "$r" ok)" true "the search started: $r"
CID=$(jnum "$r" result.capacity_id)
CTL_TIMEOUT=$WAIT_TIMEOUT ctlj wait >/dev/null
F=$STATE/runs/$CID/capacity.json
why=$(jq -r '.dirs[1].limit_reason' "$F")
log "limit_reason of the full dir: $why"
assert_eq "$(jq -r '.dirs[1].state' "$F")" failed "the full dir's state"
assert_contains "$why" "$M" "the full dir's reason names it"
case $why in
*/proc/self/fd*) fail "limit_reason shows a descriptor path: $why" ;;
esac
assert_alive "capacity names"
log ok
