#!/bin/bash
# shellcheck disable=SC2015  # A && B || fail is meant
# Memory refused, not killed (issue 22, point 3).  Under --memory-max
# 160M a start whose needs exceed the cap is refused before the run
# starts, naming the knob and the numbers, and the daemon lives: a 64 MiB
# update file of 16.7 million values (the documented maximum; 192 MiB to
# read: the file and 8 bytes a value) and --files 10000000 (80 bytes a
# file: 763 MiB).  Each leaves no run directory, status still answers and
# the cgroup never hit its cap; so are 8 writers whose batches of 64 data
# sources could hold 129 MiB.  A 16 MiB update file (4.2 million
# values, 48 MiB to read, 32 MiB held) is refused beside a given
# queue_memory_max of 80 MiB, and runs with the default one, lowered to
# what the values leave.  The same refusal under a cgroup made by hand
# with that limit (as a unit's MemoryMax=), without --memory-max.
# Uncapped, the 64 MiB file's run gives its memory back when it ends:
# RSS returns near where it started.  cgroup v1 as root
# (memcap.sh's conditions); not under AddressSanitizer, whose shadow
# memory and quarantine say nothing of these needs.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
LIB_NO_DAEMON=1
. "$(dirname "$0")/lib.sh"
memcg_v1
! asan_build || skip "AddressSanitizer's own memory passes the cap"
STRESSD_WRAPPER=(env -u INVOCATION_ID)
CAP=$((160 * 1048576))

kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$DPID/status"; }

# "1:1" lines: 4 bytes a value, the most values a size holds.
yes 1:1 | head -c $((64 * 1048576)) >"$T/big.upd"
yes 1:1 | head -c $((16 * 1048576)) >"$T/mid.upd"

start_daemon --memory-max 160M
OWN=$CG/stressd-$DPID
# shellcheck disable=SC2016  # expanded when the hook runs
CLEANUP_HOOKS+=('[ ! -d "$OWN" ] || rmdir "$OWN"')
assert_eq "$(cat "$OWN/memory.limit_in_bytes")" "$CAP" "the cap"

# refused LABEL FIELD WORDS... -- START ARGS: start must exit 1 with a
# bad_argument naming FIELD and every word; the daemon lives.
refused() {
	local what=$1 field=$2 words=() rc=0 out
	shift 2
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	out=$(ctl start --dir "$T/$what" --rra "$RRA" --max-updates 100 \
	    --update-time 0 "$@" 2>&1) || rc=$?
	assert_eq "$rc" 1 "$what: start's exit status: $out"
	assert_contains "$out" "bad_argument" "$what"
	assert_contains "$out" "(field: $field)" "$what"
	for w in "${words[@]}"; do
		assert_contains "$out" "$w" "$what"
	done
	log "$what: ${out:0:400}"
	assert_alive "$what"
	[ ! -e "$T/$what" ] || fail "$what: the refused run made its directory"
	assert_eq "$(jget "$(ctlj status)" memory.limit_bytes)" "$CAP" \
	    "$what: status"
}
refused big update_file "67108864 bytes" "16777216 lines" "192 MiB" \
    "160 MiB" -- --files 10 --update-file "$T/big.upd"
refused files files "files 10000000" "763 MiB" "160 MiB" -- \
    --files 10000000
# Writers whose batches could hold more than the cap leaves: 10,000
# values of 64 data sources each (1,696 bytes a value formatted, with its
# argv) for each of 8 writers.
refused writers write_threads "8 writers (129 MiB at most)" "160 MiB" -- \
    --files 10 --data-sources 64 --write-threads 8
# A queue bound that fits alone but not beside the values.
refused qmm queue_memory_max "queue_memory_max 80 MiB" "32 MiB" -- \
    --files 10 --update-file "$T/mid.upd" --queue-memory-max 80
assert_eq "$(cat "$OWN/memory.failcnt")" 0 "the cgroup's failcnt (hit the cap)"

# A run that fits still runs: the default queue bound makes room.
id=$(jget "$(start_run --dir "$T/fits" --files 100 --rra "$RRA" \
    --max-updates 2000 --update-time 0 --update-file "$T/mid.upd")" run_id)
fin=$(wait_run)
assert_eq "$(jget "$fin" state)" "done" "the 16 MiB update file's run"
assert_eq "$(jget "$fin" updates_completed)" 2000 "its updates"
qmm=$(jq -r .params.queue_memory_max "$STATE/runs/$id/report.json")
assert_num "$qmm" "<=" 64 "the default queue_memory_max beside 64 MiB of values"
assert_num "$qmm" ">=" 1 "the default queue_memory_max"
assert_eq "$(cat "$OWN/memory.failcnt")" 0 "the cgroup's failcnt after the run"
stop_daemon TERM 30

# ---- the cap of a cgroup made by hand (as a unit's MemoryMax= is): the
# same refusal, that cgroup named
HAND=$CG/memrefuse-$$
mkdir "$HAND"
# shellcheck disable=SC2016  # expanded when the hook runs
CLEANUP_HOOKS+=('[ ! -d "$HAND" ] || rmdir "$HAND"')
echo "$CAP" >"$HAND/memory.limit_in_bytes"
# shellcheck disable=SC2016  # the shell of the wrapper expands them
STRESSD_WRAPPER=(sh -c 'echo $$ >"$0/cgroup.procs" && exec env -u INVOCATION_ID "$@"' \
    "$HAND")
start_daemon
assert_contains "$(jget "$(ctlj status)" memory.source)" "memrefuse-$$" \
    "status memory.source under a hand-made cgroup"
refused hand files "files 10000000" "160 MiB" "memrefuse-$$" -- \
    --files 10000000
stop_daemon TERM 30
rmdir "$HAND"
STRESSD_WRAPPER=(env -u INVOCATION_ID)

# ---- uncapped: the 64 MiB file's run gives its memory back
start_daemon
before=$(kb VmRSS)
start_run --dir "$T/uncapped" --files 10 --rra "$RRA" --max-updates 100 \
    --update-time 0 --update-file "$T/big.upd" >/dev/null
fin=$(wait_run)
assert_eq "$(jget "$fin" state)" "done" "the 64 MiB update file's run, uncapped"
after=$(kb VmRSS)
log "RSS uncapped: ${before} kB before the 64 MiB update file's run," \
    "peak $(kb VmHWM) kB, ${after} kB after"
assert_num "$(kb VmHWM)" ">" "$before + 128 * 1024" "the run's peak (were \
the values read?)"
assert_num "$after" "<" "$before + 16 * 1024" "RSS after the run (kB)"
log "ok"
