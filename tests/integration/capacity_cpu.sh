#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# A capacity search on tmpfs (issue 16 point 6): memory has no storage
# limit to find, so what stops the rate is this machine's CPU, and the
# record must say so ("limited_by": "cpu", the figure being the tool's
# ceiling, not the storage's) with a CPU-limited step in it.  rrdtool
# checks that every update the steps completed landed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
FILES=200
START_RATE=${START_RATE:-500000}	# updates/s
MAX_RATE=100000000
WAIT_TIMEOUT=100

# A tmpfs of our own (root), else /dev/shm when it is one.
D=$T/tmpfs
mkdir "$D"
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o size=64m tmpfs "$D" 2>/dev/null; then
	CLEANUP_HOOKS+=('umount "$D" || umount -l "$D"')
elif [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then
	D=$(mktemp -d /dev/shm/stressd-it.XXXXXX)
	CLEANUP_HOOKS+=('rm -rf "$D"')
else
	skip "no tmpfs (not root, and /dev/shm is not one)"
fi

req=$(jq -cn --arg d "$D" --arg rra "$RRA" --argjson files "$FILES" \
    --argjson start "$START_RATE" --argjson max "$MAX_RATE" \
    '{cmd: "capacity", args: {dirs: [$d], files: $files, rras: [$rra],
      threads: 1, write_threads: 2, start_rate: $start, max_rate: $max,
      precision: 25,
      step_min: 4, step_max: 12, settle: 1, repeats: 0,
      sample_interval: 0.1}}')
t0=$SECONDS
r=$(rawreq "$req")
assert_eq "$(jget "$r" ok)" true "capacity: $r"
cid=$(jnum "$r" result.capacity_id)
r=$(printf '{"cmd":"wait"}\n' | rawsend -n 1 -t "$WAIT_TIMEOUT")
is_json "$r" || fail "wait: no reply within ${WAIT_TIMEOUT}s: ${r:0:300}"
log "search $cid took $((SECONDS - t0)) s"
cap=$(cat "$STATE/runs/$cid/capacity.json")
log "$(jq -r '.steps[] | "step \(.n) \(.phase) \(.rate | floor)/s: kept_up \(.kept_up) cpu_limited \(.cpu_limited) writers \(.cpu_writers_pct)% process \(.cpu_process_pct)% queue avg \(.queue_avg): \(.reason)"' <<<"$cap")"
log "$(jq -r '.dirs[0] | "kept up \(.capacity_rate) behind \(.behind_rate): \(.limited_by): \(.limit_reason)"' <<<"$cap")"
assert_eq "$(jget "$cap" state)" done "search state"
d0=$(jq -c '.dirs[0]' <<<"$cap")
assert_eq "$(jget "$d0" fs_type)" tmpfs "fs_type"
assert_eq "$(jget "$d0" limited_by)" cpu "tmpfs limited_by"
[ -n "$(jget "$d0" limit_reason)" ] || fail "no limit_reason"
jq -e '[.steps[] | select(.cpu_limited)] | length > 0' <<<"$cap" \
    >/dev/null || fail "no step was CPU-limited"
# the ceiling is well above what a disk-bound test sees
assert_num "$(jnum "$d0" capacity_rate)" '>=' 1000 \
    "tmpfs capacity_rate"

want=0
for id in $(jq -r '.steps[].run_id' <<<"$cap"); do
	want=$((want + $(jq .counters.updates_completed \
	    "$STATE/runs/$id/report.json")))
done
assert_eq "$(rrd_sum "$(rrd_scan "$D" "$FILES")")" "$want" \
    "rrdtool count vs the step runs"
